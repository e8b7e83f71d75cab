//! What to type next, in the new place: the `cd` line, the reinstall each `node_modules` needs,
//! the editor, and on WSL the Windows file manager. Every command is shell-ready.

use super::super::engine::plan::NodeModules;
use super::fixups::FixupAdvice;
use crate::base::pathtext::{RelPath, shell_quote};
use serde::Serialize;
use std::path::Path;

#[derive(Debug, Clone, Serialize)]
pub struct NextStep {
    /// A command line, run from the new location after the first one (`cd`).
    pub command: String,
    /// Why, in a few words.
    pub why: String,
}

/// The steps for a repository moved to `destination`; `on_wsl` when Windows can open it.
pub fn steps(destination: &Path, node_modules: &[NodeModules], on_wsl: bool) -> Vec<NextStep> {
    let mut steps = vec![NextStep {
        command: format!("cd {}", shell_quote(destination)),
        why: "the new location".into(),
    }];
    for tree in node_modules {
        let why = if tree.skipped {
            "node_modules was left behind"
        } else if !tree.windows_builds.is_empty() {
            "the copied node_modules holds Windows builds"
        } else {
            continue;
        };
        let command = match tree
            .path
            .as_path()
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
        {
            Some(folder) => format!("(cd {} && {})", shell_quote(folder), tree.install),
            None => tree.install.clone(),
        };
        steps.push(NextStep {
            command,
            why: why.into(),
        });
    }
    steps.push(NextStep {
        command: "code .".into(),
        why: "opens it in VS Code".into(),
    });
    if on_wsl {
        steps.push(NextStep {
            command: "explorer.exe .".into(),
            why: "opens it in the Windows file manager".into(),
        });
    }
    steps
}

/// The warning for each `node_modules` that holds Windows builds, copied or left behind.
pub fn windows_build_warnings(source: &Path, node_modules: &[NodeModules]) -> Vec<FixupAdvice> {
    node_modules
        .iter()
        .filter(|tree| !tree.windows_builds.is_empty())
        .map(|tree| FixupAdvice::WindowsBuilds {
            tree: match tree.skipped {
                true => source.join(tree.path.to_string()).display().to_string(),
                false => tree.path.to_string(),
            },
            skipped: tree.skipped,
            examples: RelPath::joined(&tree.windows_builds, ", "),
            install: tree.install.to_string(),
        })
        .collect()
}
