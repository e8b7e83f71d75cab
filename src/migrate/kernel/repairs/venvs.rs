//! Virtualenvs inside the tree (any folder below the root holding a `pyvenv.cfg`). Every one
//! names the folder it was made in: `activate` sets `VIRTUAL_ENV` to it, each console script's shebang runs its
//! interpreter by that path, and an editable install's `.pth` (uv, pip `-e`, poetry, hatch) puts
//! the old `src/` on `sys.path`. A copy of one runs the old place's code, silently.
//!
//! The remedy is virtualenv-clone's: once the copy is verified, the old path is rewritten to the
//! new one in every text file of each virtualenv at the destination. It is offline, needs no
//! package cache or lock file, works for venvs of every manager, and costs a read of the
//! virtualenv on the fast disk (docs/migrate.md has the measurements against `uv sync --offline`).
//! A virtualenv made by Windows Python cannot run on Linux at all: it is left behind, with the
//! command that makes it again.
//!
//! Two things are never rewritten: a file git tracks (it is the person's, and a rewrite shows as
//! their edit), and a root that is itself a virtualenv (`python3 -m venv .`): its "text files"
//! are the whole repository, `.git/config` and the notes included, so it is only reported.

use super::super::engine::plan::{Kind, Plan, outermost_node_modules};
use super::fixups::{Fixed, FixupAdvice, FixupReport};
use crate::base::pathtext::{self, RelPath};
use serde::Serialize;
use std::collections::HashSet;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The file that makes a folder a virtualenv (PEP 405).
pub const CONFIG: &str = crate::measure::changes::VIRTUALENV_CONFIG;
/// Bytes of a `pyvenv.cfg` read to tell who made it; real ones are a few lines.
const CONFIG_LIMIT: u64 = 64 * 1024;

/// A virtualenv the walk found, with what the migration does about it.
#[derive(Debug, Clone, Serialize)]
pub struct Virtualenv {
    /// Its folder, relative to the repository.
    pub path: RelPath,
    pub files: u64,
    pub bytes: u64,
    /// Made by Windows Python (`Scripts\python.exe`, `home = C:\...`): it cannot run on Linux.
    pub windows: bool,
    /// Left behind (a Windows one), to be made again at the destination with `recreate`.
    pub skipped: bool,
    /// The answer: the old path is rewritten inside it at the destination after the copy.
    pub rewrite: bool,
    /// The command that makes it again, run in its parent folder at the destination.
    pub recreate: String,
}

/// Whether a `pyvenv.cfg`'s `home` names a Windows folder (`C:\...`, `\\server\...`), or the
/// virtualenv holds `Scripts/python.exe`.
pub fn is_windows(config: &[u8], has_scripts_python_exe: bool) -> bool {
    has_scripts_python_exe
        || config.split(|b| *b == b'\n').any(|line| {
            let text = String::from_utf8_lossy(line);
            let Some((key, value)) = text.split_once('=') else {
                return false;
            };
            let value = value.trim().as_bytes();
            key.trim() == "home"
                && ((value.len() >= 2 && value[0].is_ascii_alphabetic() && value[1] == b':')
                    || value.starts_with(b"\\\\"))
        })
}

/// Reads a `pyvenv.cfg` (bounded); an unreadable one reads as empty.
pub fn read_config(path: &Path) -> Vec<u8> {
    use std::io::Read;
    let mut text = Vec::new();
    if let Ok(file) = std::fs::File::open(path) {
        let _ = file.take(CONFIG_LIMIT).read_to_end(&mut text);
    }
    text
}

/// The command that makes the virtualenv `name` again, from the files beside it (`has`).
pub fn recreate_command(name: &str, has: impl Fn(&str) -> bool) -> String {
    let quoted = pathtext::shell_quote(Path::new(name));
    if has("uv.lock") {
        if name == ".venv" {
            "uv sync".into()
        } else {
            format!("UV_PROJECT_ENVIRONMENT={quoted} uv sync")
        }
    } else if has("poetry.lock") {
        "poetry install".into()
    } else if has("requirements.txt") {
        format!("python3 -m venv {quoted} && {quoted}/bin/pip install -r requirements.txt")
    } else if has("pyproject.toml") || has("setup.py") {
        format!("python3 -m venv {quoted} && {quoted}/bin/pip install -e .")
    } else {
        format!("python3 -m venv {quoted}")
    }
}

/// One old spelling of a path and what replaces it.
#[derive(Debug, Clone)]
pub struct Rewrite {
    pub old: Vec<u8>,
    pub new: Vec<u8>,
}

/// The spellings of the old place a virtualenv holds: the path, and the `file://` URL form
/// (`direct_url.json`) when percent-encoding changes it.
pub fn rewrites(source: &Path, destination: &Path) -> Vec<Rewrite> {
    let (old, new) = (
        source.as_os_str().as_bytes(),
        destination.as_os_str().as_bytes(),
    );
    let mut list = vec![Rewrite {
        old: old.to_vec(),
        new: new.to_vec(),
    }];
    let (old_url, new_url) = (percent_encode(old), percent_encode(new));
    if old_url != old {
        list.push(Rewrite {
            old: old_url,
            new: new_url,
        });
    }
    list
}

fn percent_encode(path: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(path.len());
    for &b in path {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            out.push(b);
        } else {
            out.extend_from_slice(format!("%{b:02X}").as_bytes());
        }
    }
    out
}

/// A byte that continues a file name: a match followed or preceded by one is a longer name
/// (`/src/app2`, `/home/src/app`), not the old place.
fn continues_name(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"._-+~@%".contains(&b) || b >= 0x80
}

/// Where `old` occurs in `text` from `from` on as a whole path: not inside a longer name, not
/// the tail of a longer path (`file:///old` counts: the URL's slashes end there).
pub fn find_path(text: &[u8], old: &[u8], from: usize, fold_case: bool) -> Option<usize> {
    if old.is_empty() || text.len() < old.len() {
        return None;
    }
    let same = |a: &[u8]| {
        if fold_case {
            a.eq_ignore_ascii_case(old)
        } else {
            a == old
        }
    };
    (from..=text.len() - old.len()).find(|&at| {
        let end = at + old.len();
        let before_ok = at == 0 || {
            let b = text[at - 1];
            !(continues_name(b) || b == b'/' || b == b'\\') || text[..at].ends_with(b"file://")
        };
        let after_ok = text.get(end).is_none_or(|b| !continues_name(*b));
        before_ok && after_ok && same(&text[at..end])
    })
}

/// `text` with every whole-path `old` replaced by `new`; None when it holds none.
pub fn replace_paths(text: &[u8], rewrite: &Rewrite) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let mut rest = 0;
    while let Some(at) = find_path(text, &rewrite.old, rest, false) {
        out.extend_from_slice(&text[rest..at]);
        out.extend_from_slice(&rewrite.new);
        rest = at + rewrite.old.len();
    }
    if rest == 0 {
        return None;
    }
    out.extend_from_slice(&text[rest..]);
    Some(out)
}

/// A file `grep -I` takes for binary (`.pyc`, `.so`): one holding a NUL byte. Never rewritten.
pub fn is_binary(content: &[u8]) -> bool {
    content.contains(&0)
}

/// Rewrites one file in place (a new file renamed over it, with its mode): whether it changed.
/// Not flushed one by one, as git's own fix-ups are not: the rename keeps either version whole,
/// and a rerun rewrites what a crash lost.
fn rewrite_file(path: &Path, rewrites: &[Rewrite]) -> std::io::Result<bool> {
    let meta = std::fs::symlink_metadata(path)?;
    if !meta.is_file() {
        return Ok(false);
    }
    let content = std::fs::read(path)?;
    if is_binary(&content) {
        return Ok(false);
    }
    let mut text = content;
    let mut changed = false;
    for rewrite in rewrites {
        if let Some(new) = replace_paths(&text, rewrite) {
            text = new;
            changed = true;
        }
    }
    if !changed {
        return Ok(false);
    }
    crate::base::input::replace_whole(
        path,
        &text,
        Some(std::fs::Permissions::from_mode(meta.mode() & 0o7777)),
    )?;
    Ok(true)
}

/// The virtualenvs at the destination: folders below it holding `pyvenv.cfg`, outside `.git`
/// and `node_modules`. The destination itself is never one of them ([`root_left_alone`]).
pub fn find(destination: &Path) -> Vec<PathBuf> {
    walkdir::WalkDir::new(destination)
        .min_depth(2)
        .follow_links(false)
        .into_iter()
        .filter_entry(|e| e.file_name() != "node_modules" && e.file_name() != ".git")
        .flatten()
        .filter(|e| e.file_type().is_file() && e.file_name() == CONFIG)
        .filter_map(|e| e.path().parent().map(Path::to_path_buf))
        .collect()
}

/// What the plan and the result say of a repository whose root holds `pyvenv.cfg`, with the
/// command (`recreate`) that makes it again in place.
pub fn root_left_alone(recreate: &str) -> String {
    format!(
        "the repository's root is itself a virtualenv ({CONFIG}); it is left as it is: make it again at the copy with `{recreate}` run there"
    )
}

/// The command that makes a root virtualenv again, from the files of `root`.
pub fn root_recreate(root: &Path) -> String {
    recreate_command(".", |name| root.join(name).is_file())
}

/// When the plan's root itself holds a `pyvenv.cfg`: the command that makes it again at the
/// copy. It is left as it is, never rewritten.
pub fn root_of(plan: &Plan) -> Option<String> {
    let entries = &plan.copy.entries;
    entries
        .iter()
        .any(|e| e.kind == Kind::File && e.rel.as_os_str() == CONFIG)
        .then(|| root_recreate(&plan.copy.source))
}

/// The virtualenvs below the plan's root (folders holding a `pyvenv.cfg`, outside
/// node_modules), each sized, with whether Windows made it and the command that makes it again.
/// One Windows Python made is left out of the copy at once: it cannot run on Linux.
pub fn found_in(plan: &mut Plan) -> Vec<Virtualenv> {
    let entries = &plan.copy.entries;
    let rels: HashSet<&Path> = entries.iter().map(|e| e.rel.as_path()).collect();
    let found: Vec<Virtualenv> = entries
        .iter()
        .filter(|e| {
            e.kind == Kind::File
                && e.rel.file_name() == Some(OsStr::new(CONFIG))
                && outermost_node_modules(&e.rel).is_none()
        })
        .filter_map(|e| e.rel.parent().filter(|root| !root.as_os_str().is_empty()))
        .map(|root| sized(&plan.copy.source, root, plan, &rels))
        .collect();
    let windows: Vec<PathBuf> = found
        .iter()
        .filter(|v| v.windows)
        .map(|v| v.path.as_path().to_path_buf())
        .collect();
    plan.leave_behind(&windows);
    found
}

/// The virtualenv at `root` as the plan holds it: its size, whether Windows made it (its
/// `pyvenv.cfg` is read: one per virtualenv), and the command that makes it again.
fn sized(source: &Path, root: &Path, plan: &Plan, rels: &HashSet<&Path>) -> Virtualenv {
    let inside = plan
        .copy
        .entries
        .iter()
        .filter(|e| e.kind == Kind::File && e.rel.starts_with(root));
    let (files, bytes) = inside.fold((0, 0), |(n, b), e| (n + 1, b + e.size));
    let config = read_config(&source.join(root).join(CONFIG));
    let exe = rels.contains(root.join("Scripts/python.exe").as_path());
    let windows = is_windows(&config, exe);
    let parent = root.parent().unwrap_or(Path::new(""));
    let name = root.file_name().unwrap_or_default().to_string_lossy();
    Virtualenv {
        path: RelPath::from(root),
        files,
        bytes,
        windows,
        skipped: windows,
        rewrite: !windows,
        recreate: recreate_command(&name, |n| rels.contains(parent.join(n).as_path())),
    }
}

/// What rewriting one virtualenv did.
#[derive(Debug, Default)]
struct Rewritten {
    files: u64,
    /// Files git tracks, left as they are.
    tracked: u64,
    failed: Vec<String>,
}

/// Rewrites the text files of the virtualenv `root`, except those in `tracked` (relative to
/// `root`).
fn rewrite_tree(root: &Path, rewrites: &[Rewrite], tracked: &HashSet<PathBuf>) -> Rewritten {
    let mut done = Rewritten::default();
    for item in walkdir::WalkDir::new(root).follow_links(false) {
        let item = match item {
            Ok(item) => item,
            Err(e) => {
                done.failed.push(e.to_string());
                continue;
            }
        };
        if !item.file_type().is_file() {
            continue;
        }
        if item
            .path()
            .strip_prefix(root)
            .is_ok_and(|rel| tracked.contains(rel))
        {
            done.tracked += 1;
            continue;
        }
        match rewrite_file(item.path(), rewrites) {
            Ok(true) => done.files += 1,
            Ok(false) => {}
            Err(e) => done.failed.push(format!("{}: {e}", item.path().display())),
        }
    }
    done
}

/// The shell command that finishes a rewrite by hand: every text file of `root` naming `source`
/// edited to name `destination`.
pub fn finishing_command(root: &Path, source: &Path, destination: &Path) -> String {
    let sed = |s: &Path, specials: &str| {
        let mut out = String::new();
        for c in s.to_string_lossy().chars() {
            if specials.contains(c) {
                out.push('\\');
            }
            out.push(c);
        }
        out
    };
    let expression = format!(
        "s|{}|{}|g",
        sed(source, "\\|.*[]^$"),
        sed(destination, "\\|&")
    );
    format!(
        "grep -rlIZF -- {} {} | xargs -0 sed -i {}",
        pathtext::shell_quote(source),
        pathtext::shell_quote(root),
        pathtext::shell_quote(Path::new(&expression))
    )
}

/// The fix-up: each virtualenv below the destination made to name the destination (`rewrite`),
/// or noted with the command that does it (declined); a root virtualenv only noted. Every step
/// is repeatable: a rewritten file no longer names the old place. `automount_root` is where a
/// Windows `gitdir:` is looked for when the index is read.
pub fn fix(
    source: &Path,
    destination: &Path,
    rewrite: bool,
    automount_root: &Path,
    report: &mut FixupReport,
) {
    if destination.join(CONFIG).is_file() {
        report.advice.push(FixupAdvice::RootVirtualenv {
            recreate: root_recreate(destination),
        });
    }
    let rewrites = rewrites(source, destination);
    for root in find(destination) {
        let rel = root.strip_prefix(destination).unwrap_or(&root);
        let shown = pathtext::escape_path(rel);
        let finish = || finishing_command(&root, source, destination);
        if !rewrite {
            report.advice.push(FixupAdvice::VirtualenvNotRewritten {
                venv: shown,
                command: finish(),
            });
            continue;
        }
        let Some(tracked) = tracked_in(&root, automount_root, &shown, &finish, report) else {
            continue;
        };
        let started = Instant::now();
        let done = rewrite_tree(&root, &rewrites, &tracked);
        if let Some(first) = done.failed.first() {
            report.advice.push(FixupAdvice::VirtualenvFilesFailed {
                venv: shown.clone(),
                files: done.failed.len() as u64,
                first: first.to_string(),
                command: finish(),
            });
        }
        if done.files > 0 {
            report.done.push(Fixed::VirtualenvPointed {
                venv: shown,
                files: done.files,
                ms: started.elapsed().as_millis(),
                tracked: done.tracked,
            });
        }
    }
}

/// The files of the virtualenv `root` that git tracks (relative to it); None, said in `report`
/// with the command that finishes (`finish`), when that cannot be told: then none is rewritten.
fn tracked_in(
    root: &Path,
    automount_root: &Path,
    shown: &str,
    finish: &dyn Fn() -> String,
    report: &mut FixupReport,
) -> Option<HashSet<PathBuf>> {
    match crate::measure::gitindex::tracked_sample(root, usize::MAX, automount_root) {
        Ok(paths) => Some(paths.into_iter().collect()),
        Err(why) => {
            report.advice.push(FixupAdvice::VirtualenvUntold {
                venv: shown.to_string(),
                why,
                command: finish(),
            });
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewrite(old: &str, new: &str) -> Rewrite {
        Rewrite {
            old: old.into(),
            new: new.into(),
        }
    }

    #[test]
    fn only_whole_paths_are_rewritten() {
        let r = rewrite("/mnt/c/app", "/home/me/app");
        let text = b"#!/mnt/c/app/.venv/bin/python\nA=/mnt/c/app2/x B=/x/mnt/c/app/y\nfile:///mnt/c/app/src\n\"/mnt/c/app\"";
        assert_eq!(
            replace_paths(text, &r).unwrap(),
            b"#!/home/me/app/.venv/bin/python\nA=/mnt/c/app2/x B=/x/mnt/c/app/y\nfile:///home/me/app/src\n\"/home/me/app\""
        );
        assert_eq!(replace_paths(b"nothing here", &r), None);
        // Again on its own output: nothing more to do, even when the new path extends the old.
        let grow = rewrite("/w/app", "/w/app2");
        let once = replace_paths(b"/w/app/bin", &grow).unwrap();
        assert_eq!(replace_paths(&once, &grow), None);
    }

    #[test]
    fn url_forms_follow_percent_encoding() {
        let list = rewrites(Path::new("/mnt/c/my app"), Path::new("/home/me/my app"));
        assert_eq!(list.len(), 2);
        assert_eq!(list[1].old, b"/mnt/c/my%20app");
        assert_eq!(list[1].new, b"/home/me/my%20app");
    }

    #[test]
    fn windows_made_virtualenvs() {
        assert!(is_windows(
            b"home = C:\\Python312\ninclude-system-site-packages = false\n",
            false
        ));
        assert!(!is_windows(b"home = /usr/bin\n", false));
        assert!(is_windows(b"home = /usr/bin\n", true));
    }

    #[test]
    fn recreate_commands_fit_the_project() {
        let with = |files: &'static [&'static str], name| {
            recreate_command(name, move |n| files.contains(&n))
        };
        assert_eq!(with(&["uv.lock"], ".venv"), "uv sync");
        assert_eq!(with(&["poetry.lock"], ".venv"), "poetry install");
        assert_eq!(
            with(&["requirements.txt"], "venv"),
            "python3 -m venv venv && venv/bin/pip install -r requirements.txt"
        );
    }

    #[test]
    fn the_finishing_command_does_the_rewrite() {
        let dir = tempfile::tempdir().unwrap();
        let venv = dir.path().join("new|app/.venv");
        std::fs::create_dir_all(venv.join("bin")).unwrap();
        std::fs::write(venv.join("bin/activate"), "VIRTUAL_ENV=/old.app/.venv\n").unwrap();
        let command = finishing_command(&venv, Path::new("/old.app"), &dir.path().join("new|app"));
        let status = crate::base::process::command("sh")
            .arg("-c")
            .arg(&command)
            .status()
            .unwrap();
        assert!(status.success(), "{command}");
        let text = std::fs::read_to_string(venv.join("bin/activate")).unwrap();
        assert_eq!(
            text,
            format!("VIRTUAL_ENV={}/new|app/.venv\n", dir.path().display())
        );
    }
}
