//! Git for Windows' ownership check, answered for the copy: its exact `safe.directory` entries
//! appended to Windows' global git config as a `[safe]` section of their own, and taken out
//! again by `--abort`.
//!
//! Only `%(prefix)///wsl.localhost/<distro>/<path>` matches what git.exe compares (a plain
//! `//wsl.localhost/...` does not: git-for-windows/git#3791, desktop/desktop#14368), and the
//! older `\\wsl$` spelling is another path to it, so both are written. Never `*`. The file is
//! read as git reads it (`gitconfig_text`) and replaced whole (a temporary file beside it,
//! renamed over it; through a link, the link's target), every other byte of it kept, with its
//! own line endings; a rerun adds nothing; a value no config line can carry is refused.

use super::gitconfig_text;
use crate::base::pathtext;
use crate::store::moved::WindowsGitRecord;
use std::path::{Component, Path, PathBuf};

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

/// The sentence that refuses `entries` when one holds a control character (a newline, CR,
/// NUL...): a raw one breaks the file for all of Windows' git, and an escaped one is a path no
/// one can type or see; None when none does.
pub fn refused(entries: &[String], config: &str) -> Option<String> {
    let bad = entries.iter().find(|e| e.chars().any(char::is_control))?;
    Some(format!(
        "the copy's safe.directory entry {} holds a control character, so neither entry is added to {config} and Windows' git will refuse the copy there: migrate it to a path without one to open it with Windows' git",
        crate::base::pathtext::display_text(bad),
    ))
}

/// `text` trusts every folder: the last `safe.directory = *` is not followed by an empty
/// value (which empties git's list again). None of a file git cannot read.
pub fn trusts_all(text: &[u8]) -> bool {
    let values = gitconfig_text::values(text, NAME).unwrap_or_default();
    let from = values
        .iter()
        .rposition(|v| v.is_empty())
        .map_or(0, |i| i + 1);
    values[from..].iter().any(|v| v == b"*")
}

/// `text` sets `core.autocrlf` to true where git reads it last.
pub fn autocrlf_true(text: &[u8]) -> bool {
    gitconfig_text::values(text, AUTOCRLF)
        .unwrap_or_default()
        .last()
        .is_some_and(|v| crate::measure::gitsettings::is_true(&String::from_utf8_lossy(v)))
}

/// `text` sets `core.autocrlf` at all (a repository's own setting wins over the global one).
pub fn sets_autocrlf(text: &[u8]) -> bool {
    gitconfig_text::values(text, AUTOCRLF).is_ok_and(|v| !v.is_empty())
}

const AUTOCRLF: &str = "core.autocrlf";

/// The value as written in the file: quoted when git would otherwise read it differently
/// (a comment sign, an escape, a quote, or blanks it would drop or fold).
fn value(entry: &str) -> String {
    if entry.contains(['"', '\\', '#', ';', ' ', '\t']) {
        format!("\"{}\"", entry.replace('\\', "\\\\").replace('"', "\\\""))
    } else {
        entry.to_string()
    }
}

/// The entries git does not read as `safe.directory` in `text` yet; all of them when git
/// cannot read the file.
pub fn missing(text: &[u8], entries: &[String]) -> Vec<String> {
    let present = gitconfig_text::values(text, NAME).unwrap_or_default();
    entries
        .iter()
        .filter(|entry| !present.iter().any(|p| p == entry.as_bytes()))
        .cloned()
        .collect()
}

const NAME: &str = "safe.directory";

/// The `[safe]` section appended after `existing`: its line endings (CRLF where it has any),
/// and a line ending first when its last line has none (else the last line and the header
/// would run into one).
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
/// Refused, the file untouched, when git cannot read it now or would not read the result.
pub fn add(file: &Path, entries: &[String]) -> std::io::Result<Option<WindowsGitRecord>> {
    let target = through_links(file)?;
    let (existing, created) = match std::fs::read(&target) {
        Ok(bytes) => (bytes, false),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => (Vec::new(), true),
        Err(e) => return Err(e),
    };
    gitconfig_text::values(&existing, NAME).map_err(unreadable)?;
    if let Some(sentence) = refused(entries, &pathtext::display(file)) {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            sentence,
        ));
    }
    let lacking = missing(&existing, entries);
    if lacking.is_empty() {
        return Ok(None);
    }
    let block = block(&existing, &lacking);
    let mut bytes = existing;
    bytes.extend_from_slice(block.as_bytes());
    let read_back = gitconfig_text::values(&bytes, NAME).map_err(unreadable)?;
    if !lacking
        .iter()
        .all(|e| read_back.iter().any(|v| v == e.as_bytes()))
    {
        return Err(std::io::Error::other(
            "git would not read the entries back as written",
        ));
    }
    replace(&target, &bytes)?;
    Ok(Some(WindowsGitRecord {
        file: file.to_path_buf(),
        entries: lacking,
        block,
        created,
    }))
}

fn unreadable(bad: gitconfig_text::BadLine) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        format!(
            "git cannot read its line {}, so it was left as it is",
            bad.0
        ),
    )
}

/// Takes out what [`add`] added, by value, from whatever section git reads each entry in
/// now (git appends a person's own later `safe.directory` inside the last `[safe]` block,
/// which may be ours): the lines holding them, and a `[safe]` header they leave empty. The
/// line ending `add` put after a last line that had none goes again when nothing follows
/// it. False when none of the entries is there any more.
pub fn remove(record: &WindowsGitRecord) -> std::io::Result<bool> {
    let target = through_links(&record.file)?;
    let bytes = match std::fs::read(&target) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(e),
    };
    let ours: Vec<&[u8]> = record.entries.iter().map(|e| e.as_bytes()).collect();
    let added_a_line_ending = record.block.starts_with('\n') || record.block.starts_with("\r\n");
    let Some(kept) =
        gitconfig_text::without(&bytes, NAME, &ours, added_a_line_ending).map_err(unreadable)?
    else {
        return Ok(false);
    };
    if record.created && kept.iter().all(u8::is_ascii_whitespace) {
        std::fs::remove_file(&target)?;
    } else {
        replace(&target, &kept)?;
    }
    Ok(true)
}

/// The file `file` names once every link is followed (dotfiles keep `.gitconfig` as a link
/// into a repository of their own): the one git reads and writes. Followed by hand, not by
/// `canonicalize`, so that a link to a file not made yet names where to make it.
fn through_links(file: &Path) -> std::io::Result<PathBuf> {
    let mut path = file.to_path_buf();
    for _ in 0..40 {
        match std::fs::symlink_metadata(&path) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let to = std::fs::read_link(&path)?;
                path = path.parent().map_or(to.clone(), |folder| folder.join(&to));
            }
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
            _ => return Ok(path),
        }
    }
    Err(std::io::Error::other("too many levels of links"))
}

/// `target` replaced whole by `bytes` (`base::input::replace_whole`: a new file beside it,
/// renamed over it, so git never reads half of it), its mode kept. A link to it is left as
/// it is.
fn replace(target: &Path, bytes: &[u8]) -> std::io::Result<()> {
    // On a Windows drive the mode is drvfs's own; keeping it changes nothing there.
    let permissions = std::fs::metadata(target).ok().map(|m| m.permissions());
    crate::base::input::replace_whole(target, bytes, permissions)
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
    fn a_link_to_a_file_not_made_yet_is_written_through_and_kept() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(".gitconfig");
        std::fs::create_dir(dir.path().join("dotfiles")).unwrap();
        std::os::unix::fs::symlink("dotfiles/gitconfig", &file).unwrap();
        let record = add(&file, &entries("U", Path::new("/a"))).unwrap().unwrap();
        assert!(record.created && record.file == file);
        let target = dir.path().join("dotfiles/gitconfig");
        assert!(std::fs::read(&target).unwrap().starts_with(b"[safe]\n"));
        assert!(remove(&record).unwrap());
        assert!(!target.exists());
        assert!(
            std::fs::symlink_metadata(&file)
                .unwrap()
                .file_type()
                .is_symlink()
        );
    }

    #[test]
    fn a_file_git_cannot_read_or_a_control_character_is_left_as_it_is() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(".gitconfig");
        std::fs::write(&file, b"[user]\n\tname = \"open\n").unwrap();
        let error = add(&file, &entries("U", Path::new("/a"))).unwrap_err();
        assert_eq!(
            error.to_string(),
            "git cannot read its line 2, so it was left as it is"
        );
        std::fs::write(&file, b"[user]\n").unwrap();
        assert!(add(&file, &entries("U", Path::new("/a\rb"))).is_err());
        assert_eq!(std::fs::read(&file).unwrap(), b"[user]\n");
    }

    #[test]
    fn a_star_trusts_all_until_an_empty_value_empties_the_list() {
        assert!(trusts_all(b"[safe]\n\tdirectory = *\n"));
        assert!(!trusts_all(b"[safe]\n\tdirectory = *\n\tdirectory =\n"));
        assert!(trusts_all(
            b"[safe]\n\tdirectory =\n[safe]\n\tdirectory = *\n"
        ));
        assert!(!trusts_all(b"[safe]\n\tdirectory = C:/*\n"));
        assert!(autocrlf_true(b"[core]\r\n\tautocrlf = true\r\n"));
        assert!(!autocrlf_true(
            b"[core]\n\tautocrlf = true\n\tautocrlf = input\n"
        ));
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
