//! How a repository is used from around it, read from a few files at its root: Windows-native
//! tools that would lose out after a move, and file-watching dev tools that a move would fix.

use serde::Serialize;
use std::path::Path;

/// What the repository's own files say about the tools working on it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Usage {
    /// Signs of Windows-native tools, as short phrases (`a .sln`, `.vs/`, ...).
    pub windows_tools: Vec<String>,
    /// File-watching dev tools started from `package.json` scripts (`vite`, `jest --watch`, ...).
    pub watchers: Vec<String>,
}

/// Reads the root listing, `node_modules/.bin` and `package.json`. Unreadable files are
/// treated as absent: these are hints for advice, never a reason to fail.
pub fn read(root: &Path) -> Usage {
    let mut windows_tools = Vec::new();
    if let Ok(entries) = std::fs::read_dir(root) {
        let names: Vec<String> = entries
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        if names
            .iter()
            .any(|n| n.to_ascii_lowercase().ends_with(".sln"))
        {
            windows_tools.push("a Visual Studio solution (.sln)".to_string());
        }
        if names.iter().any(|n| n == ".vs") {
            windows_tools.push("Visual Studio's .vs/ folder".to_string());
        }
        let has = |suffix: &str| {
            names
                .iter()
                .any(|n| n.to_ascii_lowercase().ends_with(suffix))
        };
        if has(".csproj") {
            windows_tools.push("a .NET project (.csproj)".to_string());
        }
        if has(".vcxproj") {
            windows_tools.push("a Visual C++ project (.vcxproj)".to_string());
        }
    }
    if has_windows_node_binaries(&root.join("node_modules")) {
        windows_tools.push("node_modules installed by Windows npm (.cmd shims)".to_string());
    }
    let watchers = crate::base::repo_file::manifest(root, "package.json")
        .map(|text| watchers_in_package_json(&text))
        .unwrap_or_default();
    Usage {
        windows_tools,
        watchers,
    }
}

/// Settings a Windows clone leaves behind: Git for Windows turns `core.autocrlf` on, and a clone
/// on a Windows drive records `core.fileMode=false` (microsoft/WSL #936, #184).
pub fn windows_git_settings(file_mode: Option<&str>, autocrlf: Option<&str>) -> Vec<String> {
    let is =
        |value: Option<&str>, wanted: &str| value.is_some_and(|v| v.eq_ignore_ascii_case(wanted));
    let mut found = Vec::new();
    if is(file_mode, "false") {
        found.push("core.fileMode=false".to_string());
    }
    if is(autocrlf, "true") {
        found.push("core.autocrlf=true".to_string());
    }
    found
}

/// npm on Windows writes a `.cmd` (and `.ps1`) shim beside each command in `node_modules/.bin`;
/// npm on Linux writes only symlinks. Packages with native parts install `win32-*` builds.
fn has_windows_node_binaries(node_modules: &Path) -> bool {
    let shims = std::fs::read_dir(node_modules.join(".bin")).is_ok_and(|entries| {
        entries.filter_map(|e| e.ok()).any(|e| {
            let name = e.file_name().to_string_lossy().to_ascii_lowercase();
            name.ends_with(".cmd") || name.ends_with(".exe")
        })
    });
    shims
        || ["@esbuild/win32-x64", "@rollup/rollup-win32-x64-msvc"]
            .iter()
            .any(|package| node_modules.join(package).is_dir())
}

/// The file-watching tools a `package.json`'s scripts start, each named once, in the order
/// the issue's users meet them: vite, webpack, jest --watch, nodemon, tsc --watch.
pub fn watchers_in_package_json(text: &str) -> Vec<String> {
    let Ok(value) = serde_json::from_str::<serde_json::Value>(text) else {
        return Vec::new();
    };
    let Some(scripts) = value.get("scripts").and_then(|s| s.as_object()) else {
        return Vec::new();
    };
    let mut found: Vec<&'static str> = scripts
        .values()
        .filter_map(|v| v.as_str())
        .flat_map(watchers_in_script)
        .collect();
    found.sort_by_key(|name| WATCHERS.iter().position(|w| w == name));
    found.dedup();
    found.into_iter().map(str::to_string).collect()
}

const WATCHERS: &[&str] = &["vite", "webpack", "jest --watch", "nodemon", "tsc --watch"];

/// One script line: split into commands at shell separators, then judged command by command.
fn watchers_in_script(script: &str) -> Vec<&'static str> {
    script
        .split(['&', ';', '|'])
        .filter_map(|command| {
            let words: Vec<&str> = command.split_whitespace().collect();
            watcher_in_command(&words)
        })
        .collect()
}

fn watcher_in_command(words: &[&str]) -> Option<&'static str> {
    let program = words
        .iter()
        .position(|w| !w.contains('=') && !matches!(*w, "npx" | "pnpm" | "yarn" | "exec"))?;
    let name = words[program].rsplit('/').next().unwrap_or_default();
    let args = &words[program + 1..];
    let has = |flags: &[&str]| args.iter().any(|a| flags.contains(a));
    match name {
        // `vite` alone, `vite dev` and `vite serve` run the dev server; `vite build` does not.
        "vite" => match args.first() {
            None => Some("vite"),
            Some(first) if first.starts_with('-') || *first == "dev" || *first == "serve" => {
                Some("vite")
            }
            _ => None,
        },
        "webpack-dev-server" => Some("webpack"),
        "webpack" if has(&["serve", "--watch", "-w"]) => Some("webpack"),
        "jest" if has(&["--watch", "--watchAll"]) => Some("jest --watch"),
        "nodemon" => Some("nodemon"),
        "tsc" if has(&["--watch", "-w"]) => Some("tsc --watch"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn watchers_come_from_scripts_only_when_they_watch() {
        let text = r#"{
            "scripts": {
                "dev": "vite",
                "build": "tsc -b && vite build",
                "test": "jest",
                "test:watch": "NODE_ENV=test npx jest --watchAll",
                "serve": "nodemon server.js",
                "types": "tsc --noEmit -w",
                "bundle": "webpack --mode production"
            }
        }"#;
        assert_eq!(
            watchers_in_package_json(text),
            vec!["vite", "jest --watch", "nodemon", "tsc --watch"]
        );
    }

    #[test]
    fn webpack_serve_and_dev_server_watch() {
        let serve = r#"{"scripts": {"start": "webpack serve --open"}}"#;
        assert_eq!(watchers_in_package_json(serve), vec!["webpack"]);
        let old = r#"{"scripts": {"start": "./node_modules/.bin/webpack-dev-server"}}"#;
        assert_eq!(watchers_in_package_json(old), vec!["webpack"]);
        let build = r#"{"scripts": {"build": "vite build && vite preview"}}"#;
        assert!(watchers_in_package_json(build).is_empty());
    }

    #[test]
    fn windows_clone_settings() {
        assert_eq!(
            windows_git_settings(Some("False"), Some("true")),
            vec!["core.fileMode=false", "core.autocrlf=true"]
        );
        assert!(windows_git_settings(Some("true"), Some("input")).is_empty());
        assert!(windows_git_settings(None, None).is_empty());
    }

    #[test]
    fn bad_or_missing_package_json_means_no_watchers() {
        assert!(watchers_in_package_json("{ not json").is_empty());
        assert!(watchers_in_package_json(r#"{"name": "x"}"#).is_empty());
    }

    #[test]
    fn windows_tools_are_read_from_the_root() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        assert_eq!(read(root), Usage::default());
        std::fs::write(root.join("App.sln"), "").unwrap();
        std::fs::create_dir_all(root.join(".vs")).unwrap();
        std::fs::create_dir_all(root.join("node_modules/.bin")).unwrap();
        std::fs::write(root.join("node_modules/.bin/vite.cmd"), "").unwrap();
        std::fs::write(root.join("package.json"), r#"{"scripts":{"dev":"vite"}}"#).unwrap();
        let usage = read(root);
        assert_eq!(usage.windows_tools.len(), 3, "{usage:?}");
        assert_eq!(usage.watchers, vec!["vite"]);
    }
}
