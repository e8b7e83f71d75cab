//! `doctor`'s words, shared by its formats: the first line, then one row per fact.

use crate::assess::doctor::{DoctorReport, Found, Program};
use crate::base::pathtext::display;

/// The first line: whether this is WSL, and which.
pub fn headline(report: &DoctorReport) -> String {
    let host = &report.host;
    if !host.wsl {
        return "This machine is not WSL (plain Linux): what follows is what wsl-place sees here; the Windows rows are WSL's only.".to_string();
    }
    let version = host
        .wsl_version
        .map_or("WSL (version unknown)".to_string(), |v| format!("WSL {v}"));
    match &host.distro {
        Some(distro) => format!("This machine is {version}, distribution {distro}."),
        None => format!("This machine is {version}."),
    }
}

/// Every fact as a key and a value, in the order a person reads them.
pub fn rows(report: &DoctorReport) -> Vec<(String, String)> {
    let mut rows = Vec::new();
    if !report.host.evidence.is_empty() {
        rows.push(("evidence".to_string(), report.host.evidence.join("; ")));
    }
    if let Some(kernel) = &report.host.kernel {
        rows.push(("kernel".into(), kernel.clone()));
    }
    drive_rows(report, &mut rows);
    rows.push(("git".into(), program(&report.git)));
    for manager in &report.managers {
        rows.push((manager.name.clone(), program(manager)));
    }
    if let Some(windows) = &report.windows {
        let profile = windows
            .profile
            .as_deref()
            .map_or_else(|| "not found".to_string(), display);
        let tools: Vec<&str> = windows.tools.iter().map(|t| t.name).collect();
        let tools = match tools.is_empty() {
            true => "none found".to_string(),
            false => tools.join(", "),
        };
        rows.push((
            "windows".into(),
            format!("profile {profile}; tools: {tools}"),
        ));
    }
    let folder = |f: &Option<std::path::PathBuf>| {
        f.as_deref()
            .map_or_else(|| "none (no home folder)".into(), display)
    };
    rows.push((
        "folders".into(),
        format!(
            "record {}; cache {}",
            folder(&report.folders.state),
            folder(&report.folders.cache)
        ),
    ));
    for unknown in &report.unknown {
        rows.push(("cannot tell".into(), unknown.clone()));
    }
    rows
}

/// Each Windows drive and the Linux disk.
fn drive_rows(report: &DoctorReport, rows: &mut Vec<(String, String)>) {
    for drive in &report.drives {
        let windows = drive
            .windows
            .clone()
            .unwrap_or_else(|| "letter unknown".into());
        let mut value = format!(
            "{} is {windows}, {} ({} {})",
            display(&drive.mount_point),
            drive.kind.describe(),
            drive.fstype,
            drive.source
        );
        if let Some(note) = &drive.note {
            value.push_str(&format!(": {note}"));
        }
        rows.push(("windows drive".into(), value));
    }
    if report.host.wsl && report.drives.is_empty() {
        rows.push(("windows drive".into(), "none mounted".into()));
    }
    if let Some(disk) = &report.linux_disk {
        rows.push((
            "linux disk".into(),
            format!(
                "{} on {} ({}, {})",
                display(&disk.home),
                display(&disk.mount_point),
                disk.fstype,
                disk.kind.describe()
            ),
        ));
    }
}

fn program(p: &Program) -> String {
    let path = p.path.as_deref().map(display).unwrap_or_default();
    let mut text = match p.found {
        Found::Missing => "not on PATH".to_string(),
        Found::Windows => format!(
            "Windows' {} first on PATH ({}), never started: installs are estimated",
            p.name,
            p.windows_program
                .as_ref()
                .and_then(|w| w.windows.clone())
                .unwrap_or(path)
        ),
        Found::Linux => match &p.version {
            Some(version) => format!("{version} at {path}"),
            None => format!("{path}, which did not say its version in time"),
        },
    };
    if let Some(cache) = &p.cache {
        text.push_str(&format!(
            "; cache {} ({})",
            display(&cache.dir),
            match cache.has_index {
                true => "has an index: a sample is served from what it holds",
                false => "no index yet: a sample would fail offline",
            }
        ));
    }
    text
}
