//! Why the Windows profile cannot be told, and what each Windows tool does with the copy after
//! the move and the way round it, in words.

use crate::base::pathtext::display;
use crate::base::reason::Worded;
use crate::decide::windows::ToolLine;
use crate::host::windows::{InteropSaid, ProfileUnknown};
use crate::measure::windows_tools::ToolId;

impl Worded for ProfileUnknown {
    fn sentence(&self) -> String {
        let interop = match &self.interop {
            InteropSaid::Off => "Windows interop is off (WSL_INTEROP is not set)".to_string(),
            InteropSaid::NoAnswer { problem } => {
                format!("Windows did not answer through interop ({problem})")
            }
            InteropSaid::NoProfileNamed => {
                "Windows named no profile folder WSL can see (USERPROFILE)".to_string()
            }
        };
        let users = display(&self.users);
        match self.candidates.as_slice() {
            [] => format!(
                "the Windows profile was not found: {interop} and {users} holds no profile folder"
            ),
            candidates => format!(
                "the Windows profile was not found: {interop} and {users} holds {} profiles ({}), none named {}",
                candidates.len(),
                candidates.join(", "),
                self.linux_user.as_deref().unwrap_or("after the Linux user")
            ),
        }
    }
}

/// A tool's line in JSON: `{id, name, expect, fix}`, as it always was.
impl serde::Serialize for ToolLine {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let (expect, fix) = expect_and_fix(self);
        let mut line = serializer.serialize_struct("ToolLine", 4)?;
        line.serialize_field("id", &self.id)?;
        line.serialize_field("name", self.name)?;
        line.serialize_field("expect", &expect)?;
        line.serialize_field("fix", &fix)?;
        line.end()
    }
}

/// What to expect of `line`'s tool after the move, and the way round it.
pub fn expect_and_fix(line: &ToolLine) -> (String, String) {
    let (id, unc, linux) = (line.id, line.unc.as_str(), line.linux.as_str());
    // Every tool is one or the other: the empty pair is never reached.
    git_client_line(id, unc)
        .or_else(|| editor_line(id, unc, linux))
        .unwrap_or_default()
}

/// What a git client (or git itself) does over the copy's UNC path.
fn git_client_line(id: ToolId, unc: &str) -> Option<(String, String)> {
    let forward = "forward its git to WSL's git (wslgit, wsl-git-bridge or GithubDesktopWSL), or \
                   run git inside WSL";
    Some(match id {
        ToolId::GitForWindows => (
            format!(
                "git.exe refuses {unc} until the copy's safe.directory entries are in Windows' \
                 global git config (\"detected dubious ownership\"; since 2.55 \"may refer to a \
                 non-local directory\": the reason is the UNC path, not the owner), and is slow \
                 there"
            ),
            "add the copy's safe.directory entries to Windows' global git config (see \
             safe.directory), and run git inside WSL"
                .to_string(),
        ),
        ToolId::GithubDesktop => (
            format!(
                "it runs its own Git for Windows over {unc}: 10-20x slower (2-6 s a `git status` \
                 on ~500 files, desktop/desktop#22044, open), and refused until the copy's \
                 safe.directory entries are in Windows' global git config, which that git reads"
            ),
            format!("add the entries (see safe.directory), then {forward}"),
        ),
        ToolId::GitExtensions => (
            format!(
                "it runs WSL's own git for {unc} (since gitextensions#13112, 2026-06): no \
                 safe.directory entry needed, and git runs at the Linux disk's speed; an older \
                 Git Extensions runs Git for Windows there, refused without the entries and slow"
            ),
            "keep Git Extensions up to date; nothing else".to_string(),
        ),
        ToolId::Fork | ToolId::Sourcetree => (
            format!(
                "it runs Git for Windows (its own copy) over {unc}: slower there than on a \
                 Windows drive, and refused until the copy's safe.directory entries are in \
                 Windows' global git config, which that git reads"
            ),
            format!("add the entries (see safe.directory), then {forward}"),
        ),
        ToolId::Gitkraken => (
            format!("it embeds its own git, so it stays slow over {unc}"),
            "forwarding git cannot help it: use git inside WSL (or VS Code's WSL window) for \
             this repository"
                .to_string(),
        ),
        ToolId::Tortoisegit => (
            format!(
                "it opens {unc} through Git for Windows and libgit2, both refusing it until the \
                 copy's safe.directory entries are in Windows' global git config (libgit2 reads \
                 them since 1.6.1; older TortoiseGit fails: \"failed to get security \
                 information\"), and slowly"
            ),
            "add the entries (see safe.directory), and use git inside WSL for speed".to_string(),
        ),
        ToolId::VsCode | ToolId::Jetbrains | ToolId::VisualStudio => return None,
    })
}

/// What an editor or IDE does with the copy, at `unc` from Windows and `linux` inside WSL.
fn editor_line(id: ToolId, unc: &str, linux: &str) -> Option<(String, String)> {
    Some(match id {
        ToolId::VsCode => (
            format!(
                "a local window on {unc} has no file watching, runs Windows' git there, and is \
                 blocked unless wsl.localhost is in its security.allowedUNCHosts setting (VS Code \
                 1.78.1 and later)"
            ),
            format!("open it from WSL, a WSL window: cd {linux} && code ."),
        ),
        ToolId::Jetbrains => (
            format!(
                "since 2026.3 the IDE opens a WSL project in its native mode, an agent inside \
                 WSL doing the indexing and git on the Linux side; opened as the folder {unc}, \
                 or in an older version, its code analysis reads every file over the share, \
                 slowly"
            ),
            "open the project through the IDE's WSL support (File > Open, then the WSL \
             location), not as a \\\\wsl.localhost folder"
                .to_string(),
        ),
        ToolId::VisualStudio => (
            format!("Windows-native builds read every file over {unc}, slowly"),
            "if Visual Studio is this repository's main tool, keep it on Windows (a Dev Drive \
             speeds it up there)"
                .to_string(),
        ),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::windows_tools::Tool;

    #[test]
    fn every_tool_has_a_line_that_names_the_copy() {
        let tools: Vec<Tool> = [
            ToolId::GitForWindows,
            ToolId::GithubDesktop,
            ToolId::Gitkraken,
            ToolId::Tortoisegit,
            ToolId::VsCode,
        ]
        .into_iter()
        .map(|id| Tool {
            id,
            name: id.name(),
            found_at: std::path::PathBuf::from("/x"),
        })
        .collect();
        let lines: Vec<(String, String)> =
            crate::decide::windows::after_move(&tools, r"\\wsl.localhost\U\app", "/app")
                .iter()
                .map(expect_and_fix)
                .collect();
        assert_eq!(lines.len(), 5);
        assert!(
            lines
                .iter()
                .all(|(expect, _)| expect.contains(r"\\wsl.localhost\U\app"))
        );
        assert!(lines[2].1.contains("cannot help"));
        assert!(lines[4].1.ends_with("code ."));
    }
}
