//! Git for Windows' ownership check, answered for the copy: its exact `safe.directory` entries
//! appended to Windows' global git config as a `[safe]` section of their own, and taken out
//! again by `--abort`.
//!
//! Only `%(prefix)///wsl.localhost/<distro>/<path>` matches what git.exe compares (a plain
//! `//wsl.localhost/...` does not: git-for-windows/git#3791, desktop/desktop#14368), and the
//! older `\\wsl$` spelling is another path to it, so both are written. Never `*`. The file is
//! replaced whole (a temporary file beside it, renamed over it), every byte of it kept, with its
//! own line endings; a rerun adds nothing.

use crate::base::pathtext;
use crate::measure::moved::WindowsGitRecord;
use std::path::{Component, Path};

/// Both spellings of the copy at `linux` in distro `distro`, in the form git.exe matches.
pub fn entries(distro: &str, linux: &Path) -> Vec<String> {
    let mut tail = String::new();
    for component in linux.components() {
        if let Component::Normal(part) = component {
            tail.push('/');
            tail.push_str(&part.to_string_lossy());
        }
    }
    ["wsl.localhost", "wsl$"]
        .iter()
        .map(|host| format!("%(prefix)///{host}/{distro}{tail}"))
        .collect()
}

/// What a person types instead, from WSL (git.exe reads Windows' global config).
pub fn commands(entries: &[String]) -> Vec<String> {
    entries
        .iter()
        .map(|entry| {
            format!(
                "git.exe config --global --add safe.directory {}",
                pathtext::shell_quote(Path::new(entry))
            )
        })
        .collect()
}

/// The value as written in the file: quoted when git would otherwise read it differently.
fn value(entry: &str) -> String {
    if entry.contains(['"', '\\', '#', ';']) || entry.trim() != entry {
        format!("\"{}\"", entry.replace('\\', "\\\\").replace('"', "\\\""))
    } else {
        entry.to_string()
    }
}

/// The entries `text` does not hold yet as a `directory = ...` line.
pub fn missing(text: &[u8], entries: &[String]) -> Vec<String> {
    let text = String::from_utf8_lossy(text);
    let present: Vec<String> = text
        .lines()
        .filter_map(|line| {
            let (key, rest) = line.trim().split_once('=')?;
            key.trim()
                .eq_ignore_ascii_case("directory")
                .then(|| rest.trim().to_string())
        })
        .collect();
    entries
        .iter()
        .filter(|entry| !present.contains(&value(entry)))
        .cloned()
        .collect()
}

/// The `[safe]` section appended after `existing`: its line endings (CRLF where it has any),
/// and a line ending first when its last line has none.
pub fn block(existing: &[u8], entries: &[String]) -> String {
    let eol = if existing.windows(2).any(|w| w == b"\r\n") {
        "\r\n"
    } else {
        "\n"
    };
    let mut block = String::new();
    if !existing.is_empty() && !existing.ends_with(b"\n") {
        block.push_str(eol);
    }
    block.push_str("[safe]");
    block.push_str(eol);
    for entry in entries {
        block.push_str(&format!("\tdirectory = {}{eol}", value(entry)));
    }
    block
}

/// Appends the entries `file` lacks; None when it holds them all already (nothing written).
pub fn add(file: &Path, entries: &[String]) -> std::io::Result<Option<WindowsGitRecord>> {
    let (existing, created) = match std::fs::read(file) {
        Ok(bytes) => (bytes, false),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => (Vec::new(), true),
        Err(e) => return Err(e),
    };
    let lacking = missing(&existing, entries);
    if lacking.is_empty() {
        return Ok(None);
    }
    let block = block(&existing, &lacking);
    let mut bytes = existing;
    bytes.extend_from_slice(block.as_bytes());
    replace(file, &bytes)?;
    Ok(Some(WindowsGitRecord {
        file: file.to_path_buf(),
        entries: lacking,
        block,
        created,
    }))
}

/// Takes out what [`add`] appended: the recorded block, byte for byte (the file as it was
/// before, when nothing after it changed); where the block was edited since, only its
/// `directory` lines. False when none of it is there any more.
pub fn remove(record: &WindowsGitRecord) -> std::io::Result<bool> {
    let bytes = match std::fs::read(&record.file) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(e),
    };
    let block = record.block.as_bytes();
    if let Some(at) = find_last(&bytes, block) {
        let mut kept = bytes[..at].to_vec();
        kept.extend_from_slice(&bytes[at + block.len()..]);
        if kept.is_empty() && record.created {
            std::fs::remove_file(&record.file)?;
        } else {
            replace(&record.file, &kept)?;
        }
        return Ok(true);
    }
    let text = String::from_utf8_lossy(&bytes);
    let ours: Vec<String> = record
        .entries
        .iter()
        .map(|e| format!("directory = {}", value(e)))
        .collect();
    let kept: String = text
        .split_inclusive('\n')
        .filter(|line| !ours.iter().any(|o| line.trim() == o))
        .collect();
    if kept.len() == text.len() {
        return Ok(false);
    }
    replace(&record.file, kept.as_bytes())?;
    Ok(true)
}

fn find_last(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    (needle.len() <= haystack.len())
        .then(|| {
            (0..=haystack.len() - needle.len())
                .rev()
                .find(|&at| &haystack[at..at + needle.len()] == needle)
        })
        .flatten()
}

/// `file` replaced whole by `bytes` (`base::input::replace_whole`), its mode kept. A
/// `.gitconfig` that is a link the person made (dotfiles) stays one: the file it points to is
/// replaced, beside itself, and the link is left as it was.
fn replace(file: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let is_link = std::fs::symlink_metadata(file).is_ok_and(|m| m.file_type().is_symlink());
    let target = if is_link {
        std::fs::canonicalize(file)?
    } else {
        file.to_path_buf()
    };
    // On a Windows drive the mode is drvfs's own; keeping it changes nothing there.
    let permissions = std::fs::metadata(&target).ok().map(|m| m.permissions());
    crate::base::input::replace_whole(&target, bytes, permissions)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_both_spellings_in_the_prefix_form() {
        assert_eq!(
            entries("Ubuntu-24.04", Path::new("/home/me/src/app")),
            vec![
                "%(prefix)///wsl.localhost/Ubuntu-24.04/home/me/src/app",
                "%(prefix)///wsl$/Ubuntu-24.04/home/me/src/app"
            ]
        );
    }

    #[test]
    fn added_once_in_the_files_line_endings_and_removed_byte_for_byte() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(".gitconfig");
        let before = b"[user]\r\n\tname = Me\r\n[core]\r\n\tautocrlf = true".to_vec();
        std::fs::write(&file, &before).unwrap();
        let wanted = entries("U", Path::new("/home/me/app"));
        let record = add(&file, &wanted).unwrap().unwrap();
        let after = std::fs::read(&file).unwrap();
        assert!(after.starts_with(&before));
        assert_eq!(
            String::from_utf8(after[before.len()..].to_vec()).unwrap(),
            "\r\n[safe]\r\n\tdirectory = %(prefix)///wsl.localhost/U/home/me/app\r\n\
             \tdirectory = %(prefix)///wsl$/U/home/me/app\r\n"
        );
        assert_eq!(add(&file, &wanted).unwrap(), None);
        assert!(remove(&record).unwrap());
        assert_eq!(std::fs::read(&file).unwrap(), before);
        assert!(!remove(&record).unwrap());
    }

    #[test]
    fn a_file_made_for_the_entries_goes_with_them() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(".gitconfig");
        let record = add(&file, &entries("U", Path::new("/a"))).unwrap().unwrap();
        assert!(record.created);
        assert!(remove(&record).unwrap());
        assert!(!file.exists());
    }
}
