//! The source's versions a sync saved beside the copy's (conflicts) are not the person's work
//! yet: each is listed in the copy's `.git/info/exclude`, in one block of its own, so `git add
//! .` does not commit it; the entry goes when the saved file does (pruned by every sync).

use crate::base::pathtext::RelPath;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

const BEGIN: &str = "# >>> wsl-place: versions a sync saved beside the copy's (removed with them)";
const END: &str = "# <<< wsl-place";

/// The copy's exclude file: `.git/info/exclude` of a repository whose `.git` is a folder;
/// None otherwise (a linked worktree's `.git` file, or no git at all).
fn exclude_file(destination: &Path) -> Option<PathBuf> {
    let git = destination.join(".git");
    crate::base::dirfd::lstat(&git)
        .is_ok_and(|m| m.is_dir())
        .then(|| git.join("info").join("exclude"))
}

/// `/rel`, anchored at the repository's top, with gitignore's special characters escaped.
fn pattern(rel: &Path) -> String {
    let mut out = String::from("/");
    let text = String::from_utf8_lossy(rel.as_os_str().as_bytes()).into_owned();
    for c in text.chars() {
        if matches!(c, '\\' | '*' | '?' | '[' | ']' | '!' | '#') {
            out.push('\\');
        }
        out.push(c);
    }
    if out.ends_with(' ') {
        out.pop();
        out.push_str("\\ ");
    }
    out
}

/// Lists `saved` (paths in the copy) in the copy's exclude file, keeps the entries of earlier
/// syncs whose file is still there and drops the others (the whole block once none is left).
/// Returns the file when it lists any. Best effort: a file that cannot be written leaves the
/// saved versions as untracked files, which the result still names.
pub fn keep_out(destination: &Path, saved: &[RelPath]) -> Option<PathBuf> {
    let file = exclude_file(destination)?;
    let limit = crate::base::repo_file::MANIFEST_LIMIT;
    // A file that is there and refused (a FIFO, a link) is neither read nor written through.
    let text = match crate::base::repo_file::read_at(&file, limit) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(crate::base::repo_file::Unread::Missing) => String::new(),
        Err(crate::base::repo_file::Unread::Refused(_)) => return None,
    };
    let (mut before, mut listed, mut after) = (Vec::new(), Vec::new(), Vec::new());
    let mut inside = false;
    let mut seen_block = false;
    for line in text.lines() {
        match line {
            BEGIN => (inside, seen_block) = (true, true),
            END if inside => inside = false,
            _ if inside => listed.push(line.to_string()),
            _ if seen_block => after.push(line.to_string()),
            _ => before.push(line.to_string()),
        }
    }
    let still_there = |entry: &String| {
        let rel = entry.trim_start_matches('/').replace("\\ ", " ");
        let rel: String = unescape(&rel);
        crate::base::dirfd::lstat(&destination.join(rel)).is_ok()
    };
    listed.retain(still_there);
    for rel in saved {
        let entry = pattern(rel.as_path());
        if !listed.contains(&entry) && destination.join(rel.as_path()).exists() {
            listed.push(entry);
        }
    }
    let mut lines = before;
    if !listed.is_empty() {
        lines.push(BEGIN.to_string());
        lines.extend(listed.iter().cloned());
        lines.push(END.to_string());
    }
    lines.extend(after);
    let mut new = lines.join("\n");
    if !new.is_empty() {
        new.push('\n');
    }
    if new != text {
        let dir = file.parent()?;
        if crate::base::dirfd::lstat(dir).is_err() {
            crate::base::dirfd::mkdir(dir, 0o755).ok()?;
        }
        // `info` a link planted in the copy's git folder would take the write elsewhere.
        crate::base::dirfd::lstat(dir).ok().filter(|m| m.is_dir())?;
        crate::base::input::replace_whole(&file, new.as_bytes(), None).ok()?;
    }
    (!listed.is_empty()).then_some(file)
}

/// A pattern's path with its escapes removed.
fn unescape(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.extend(chars.next()),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saved_versions_are_listed_until_they_are_gone() {
        let tmp = tempfile::tempdir().unwrap();
        let copy = tmp.path();
        std::fs::create_dir_all(copy.join(".git/info")).unwrap();
        std::fs::write(copy.join(".git/info/exclude"), "# mine\n*.log\n").unwrap();
        std::fs::create_dir(copy.join("d")).unwrap();
        let saved = RelPath::from(Path::new("d/a*b.txt.from-source-20261205"));
        std::fs::write(copy.join(saved.as_path()), "x").unwrap();
        let file = keep_out(copy, std::slice::from_ref(&saved)).unwrap();
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(text.starts_with("# mine\n*.log\n"), "{text}");
        assert!(
            text.contains("\n/d/a\\*b.txt.from-source-20261205\n"),
            "{text}"
        );
        // Again: listed once.
        keep_out(copy, std::slice::from_ref(&saved)).unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
        // Gone: the block goes, the person's lines stay.
        std::fs::remove_file(copy.join(saved.as_path())).unwrap();
        assert_eq!(keep_out(copy, &[]), None);
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "# mine\n*.log\n");
    }
}
