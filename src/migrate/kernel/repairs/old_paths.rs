//! What in the copy still names the old place: the small text files where editors and tools keep
//! absolute paths (`.vscode/*.json`, `*.code-workspace`, `.idea/*.xml`, `.env`, `.envrc`,
//! `docker-compose*.yml`, `devcontainer.json`, `*.pth`, `pyvenv.cfg`), looked through after the
//! fix-ups for the old path in its Linux form and, on a Windows drive, its Windows forms
//! (`C:\src\app`, `C:/src/app`, and `C:\\src\\app` as JSON escapes it). These files are the
//! person's: each line is listed with what to change, never rewritten.

use super::venvs::find_path;
use crate::base::pathtext::RelPath;
use serde::Serialize;
use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// Bytes read of one file: settings files are small, and a large one is not a settings file.
const FILE_LIMIT: u64 = 1024 * 1024;
/// Lines listed at most: past this the person searches the rest themselves.
pub const MAX_LINES: usize = 200;
/// Characters of a line shown.
const LINE_CHARS: usize = 160;

/// One spelling of the old place and what to write instead.
#[derive(Debug, Clone)]
pub struct OldForm {
    pub text: String,
    pub kind: Form,
    pub change_to: String,
}

/// Which path the old place is spelled as (serialized `linux`, `windows`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Form {
    Linux,
    /// Any of its Windows spellings, matched without regard to case.
    Windows,
}

/// The spellings to look for: the Linux path, and the Windows path of a source on a Windows
/// drive in its three spellings (each replaced by the destination's Windows path when it has
/// one, else its Linux path).
pub fn forms(
    source: &Path,
    destination: &Path,
    source_windows: Option<&str>,
    destination_windows: Option<&str>,
) -> Vec<OldForm> {
    let linux = destination.to_string_lossy().into_owned();
    let mut forms = vec![OldForm {
        text: source.to_string_lossy().into_owned(),
        kind: Form::Linux,
        change_to: linux.clone(),
    }];
    if let Some(windows) = source_windows {
        let new = destination_windows.map_or(linux, str::to_string);
        let trimmed = windows.trim_end_matches('\\');
        for (text, change_to) in [
            (trimmed.to_string(), new.clone()),
            (trimmed.replace('\\', "/"), new.replace('\\', "/")),
            (trimmed.replace('\\', "\\\\"), new.replace('\\', "\\\\")),
        ] {
            if !forms.iter().any(|f| f.text == text) {
                forms.push(OldForm {
                    text,
                    kind: Form::Windows,
                    change_to,
                });
            }
        }
    }
    forms
}

/// One line of the copy that names the old place.
#[derive(Debug, Clone, Serialize)]
pub struct StillPointing {
    /// The file, relative to the copy.
    pub file: RelPath,
    /// 1-based.
    pub line: u64,
    /// How it spells the old place.
    pub form: Form,
    /// The old place as written there.
    pub old: String,
    /// What to write instead.
    pub change_to: String,
    /// The line, trimmed (at most 160 characters).
    pub text: String,
}

/// A file where tools keep absolute paths.
pub fn is_candidate(rel: &Path) -> bool {
    let Some(name) = rel
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
    else {
        return false;
    };
    let under = |folder: &str| {
        rel.components()
            .rev()
            .skip(1)
            .any(|c| c.as_os_str() == folder)
    };
    let yaml = name.ends_with(".yml") || name.ends_with(".yaml");
    (under(".vscode") && name.ends_with(".json"))
        || name.ends_with(".code-workspace")
        || (under(".idea") && name.ends_with(".xml"))
        || name == ".env"
        || name.starts_with(".env.")
        || name == ".envrc"
        || (yaml && (name.starts_with("docker-compose") || name.starts_with("compose.")))
        || name == "devcontainer.json"
        || name == ".devcontainer.json"
        || name.ends_with(".pth")
        || name == super::venvs::CONFIG
}

/// The lines of `content` (the file `rel`) naming an old form.
fn lines_of(rel: &Path, content: &[u8], forms: &[OldForm], found: &mut Vec<StillPointing>) {
    for (index, line) in content.split(|b| *b == b'\n').enumerate() {
        for form in forms {
            let fold = form.kind == Form::Windows;
            let Some(at) = find_path(line, form.text.as_bytes(), 0, fold) else {
                continue;
            };
            let text = String::from_utf8_lossy(line);
            found.push(StillPointing {
                file: RelPath::from(rel),
                line: index as u64 + 1,
                form: form.kind,
                old: String::from_utf8_lossy(&line[at..at + form.text.len()]).into_owned(),
                change_to: form.change_to.clone(),
                text: text.trim().chars().take(LINE_CHARS).collect(),
            });
            break;
        }
    }
}

/// Looks through the copy's settings files (outside `.git` and `node_modules`) for the old
/// place; at most `MAX_LINES` lines.
pub fn scan(destination: &Path, forms: &[OldForm]) -> Vec<StillPointing> {
    let mut found = Vec::new();
    let walk = walkdir::WalkDir::new(destination)
        .follow_links(false)
        .into_iter()
        .filter_entry(|e| e.file_name() != "node_modules" && e.file_name() != ".git");
    for item in walk.flatten() {
        let rel = item.path().strip_prefix(destination).unwrap_or(item.path());
        if !item.file_type().is_file() || !is_candidate(rel) {
            continue;
        }
        let mut content = Vec::new();
        let Ok(file) = std::fs::File::open(item.path()) else {
            continue;
        };
        if file.take(FILE_LIMIT).read_to_end(&mut content).is_err()
            || super::venvs::is_binary(&content)
        {
            continue;
        }
        lines_of(rel, &content, forms, &mut found);
        if found.len() >= MAX_LINES {
            found.truncate(MAX_LINES);
            break;
        }
    }
    found.sort_by(|a, b| {
        (a.file.as_path().as_os_str().as_bytes(), a.line)
            .cmp(&(b.file.as_path().as_os_str().as_bytes(), b.line))
    });
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_files_are_candidates() {
        for yes in [
            ".vscode/settings.json",
            "web/.vscode/launch.json",
            "app.code-workspace",
            ".idea/workspace.xml",
            ".env",
            ".env.local",
            ".envrc",
            "docker-compose.dev.yml",
            "compose.yaml",
            ".devcontainer/devcontainer.json",
            ".venv/lib/python3.12/site-packages/_pkg.pth",
            ".venv/pyvenv.cfg",
        ] {
            assert!(is_candidate(Path::new(yes)), "{yes}");
        }
        for no in ["src/settings.json", "README.md", "config.xml", ".vscode"] {
            assert!(!is_candidate(Path::new(no)), "{no}");
        }
    }

    #[test]
    fn every_spelling_of_the_old_place_is_found() {
        let forms = forms(
            Path::new("/mnt/c/src/app"),
            Path::new("/home/me/app"),
            Some("C:\\src\\app"),
            None,
        );
        let content = b"{\n  \"a\": \"/mnt/c/src/app/.venv/bin/python\",\n  \"b\": \"c:\\\\src\\\\app\\\\x\",\n  \"c\": \"C:/src/app\",\n  \"d\": \"C:\\src\\app2\",\n  \"e\": \"/mnt/c/src/apple\"\n}";
        let mut found = Vec::new();
        lines_of(
            Path::new(".vscode/settings.json"),
            content,
            &forms,
            &mut found,
        );
        let lines: Vec<(u64, Form, &str)> = found
            .iter()
            .map(|f| (f.line, f.form, f.old.as_str()))
            .collect();
        assert_eq!(
            lines,
            vec![
                (2, Form::Linux, "/mnt/c/src/app"),
                (3, Form::Windows, "c:\\\\src\\\\app"),
                (4, Form::Windows, "C:/src/app"),
            ]
        );
        assert_eq!(found[2].change_to, "/home/me/app");
    }
}
