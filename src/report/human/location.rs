//! Where the repository is: its path, the host, the mount under it, the Windows path.

use super::{Screen, Tone};
use crate::host::location::Location;

pub fn rows(screen: &mut Screen, location: &Location) {
    let host = &location.host;
    let host_line = match (host.wsl, host.wsl_version, host.distro.as_deref()) {
        (true, Some(v), Some(d)) => format!("WSL {v}, distro {d}"),
        (true, Some(v), None) => format!("WSL {v}, distro unknown"),
        (true, None, _) => "WSL".to_string(),
        (false, _, _) => "Linux (not WSL)".to_string(),
    };
    let mount = &location.mount;
    let slow = mount.kind.is_remote();
    screen.row(
        "path",
        &crate::base::pathtext::display(&location.paths.linux),
        Tone::Bold,
    );
    if screen.style().verbose {
        screen.row("host", &host_line, Tone::Plain);
    }
    screen.row(
        "mount",
        &format!(
            "{}: {} on {}, from {}",
            mount.description,
            mount.fstype,
            crate::base::pathtext::display(&mount.mount_point),
            mount.source
        ),
        if slow { Tone::Warn } else { Tone::Plain },
    );
    if let Some(windows) = &location.paths.windows {
        screen.row("windows path", windows, Tone::Plain);
    } else if let Some(note) = &mount.note {
        screen.row("windows path", &format!("unknown: {note}"), Tone::Dim);
    }
    if let Some(legacy) = &location.paths.windows_legacy {
        screen.more(&format!("{legacy} (older Windows 10)"), Tone::Dim);
    }
}

/// The Windows tools installed for the user, in one line; or why the profile is unknown. Nothing
/// when the profile holds none of them.
pub fn windows_rows(screen: &mut Screen, windows: &crate::measure::windows_tools::WindowsSide) {
    if let Some(note) = windows.note.as_ref() {
        let note = crate::base::reason::Worded::sentence(note);
        screen.row("windows tools", &format!("unknown: {note}"), Tone::Dim);
        return;
    }
    let asked = windows.interop.as_ref().filter(|i| i.found);
    if let Some(problem) = asked.and_then(|i| i.problem.as_ref()) {
        let by = windows.found_by.unwrap_or("users folder");
        screen.row(
            "windows interop",
            &format!("{problem}; the profile was taken from the {by}"),
            Tone::Warn,
        );
    }
    if windows.tools.is_empty() {
        return;
    }
    let names: Vec<&str> = windows.tools.iter().map(|t| t.name).collect();
    screen.row("windows tools", &names.join(", "), Tone::Plain);
}
