//! Reading the small text files a user or the host hands the tool (policies, mountinfo) without
//! trusting them: a FIFO must not block, `/dev/zero` must not fill memory, a directory or a binary
//! file is the user's mistake (exit 2), not the tool's.

use crate::base::error::{Failure, Result};
use rustix::fs::OFlags;
use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// Policies are a few hundred bytes; anything near this is not one.
pub const POLICY_LIMIT: u64 = 1024 * 1024;
/// Mountinfo of a host with tens of thousands of mounts (container hosts) stays well below this.
pub const MOUNTINFO_LIMIT: u64 = 64 * 1024 * 1024;

/// The tool's own cache and state files (the advisory cache, package-manager timings) are a
/// few kilobytes; a larger one was not written by this tool.
pub const CACHE_LIMIT: u64 = 1024 * 1024;

/// Opens `path` for reading without blocking on a FIFO or taking a terminal.
fn open_nonblocking(path: &Path) -> std::io::Result<File> {
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer, forever.
    OpenOptions::new()
        .read(true)
        .custom_flags((OFlags::NONBLOCK | OFlags::NOCTTY).bits() as i32)
        .open(path)
}

/// What an open file is when it is not a regular file ("a FIFO"); None for a regular file.
fn not_regular(file: &File) -> std::io::Result<Option<&'static str>> {
    let file_type = file.metadata()?.file_type();
    Ok(if file_type.is_file() {
        None
    } else if file_type.is_dir() {
        Some("a directory")
    } else if file_type.is_fifo() {
        Some("a FIFO")
    } else if file_type.is_socket() {
        Some("a socket")
    } else {
        Some("a device")
    })
}

/// Reads `path`, which must be a regular file (symlinks followed) of at most `limit` bytes.
/// `what` names the file in messages ("policy file").
pub fn read_regular(path: &Path, limit: u64, what: &str) -> Result<Vec<u8>> {
    let file =
        open_nonblocking(path).map_err(|e| Failure::io(&format!("open the {what}"), path, &e))?;
    let kind =
        not_regular(&file).map_err(|e| Failure::io(&format!("read the {what}"), path, &e))?;
    if let Some(is) = kind {
        return Err(Failure::input(format!(
            "{} is {is}, not a {what}; pass a regular file.",
            path.display()
        )));
    }
    // It opened as a regular file and still cannot be read (`/proc/self/mem`): what the user
    // handed in is not a file to read, an input error like a FIFO.
    let bytes = read_at_most(file, limit).map_err(|e| {
        Failure::input(format!(
            "cannot read the {what} {}: {e}; pass a regular file.",
            path.display()
        ))
    })?;
    if bytes.len() as u64 > limit {
        return Err(Failure::input(format!(
            "{} is larger than {} bytes, too large for a {what}; pass the right file.",
            path.display(),
            limit
        )));
    }
    Ok(bytes)
}

/// [`read_regular`], then UTF-8 text.
pub fn read_text(path: &Path, limit: u64, what: &str) -> Result<String> {
    String::from_utf8(read_regular(path, limit, what)?).map_err(|e| {
        Failure::input(format!(
            "{} is not a text {what} (byte {} is not UTF-8); pass the right file.",
            path.display(),
            e.utf8_error().valid_up_to()
        ))
    })
}

/// Reads one of the tool's own cache or state files: None when there is none. Anything else
/// in its place (a FIFO, a link to `/dev/zero`, a directory, a file over [`CACHE_LIMIT`], one
/// that cannot be read) is ignored with one warning line on stderr: a cache only saves time,
/// and a planted file must neither block the run nor fill its memory.
pub fn read_cache(path: &Path, what: &str) -> Option<Vec<u8>> {
    let problem = match open_nonblocking(path) {
        // A cache folder that is missing, or a file where one would be, holds nothing; the
        // writer says so once (`store::Store::may_write_cache`).
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) =>
        {
            return None;
        }
        Err(e) => format!("it cannot be opened ({e})"),
        Ok(file) => match not_regular(&file) {
            Ok(None) => match read_at_most(file, CACHE_LIMIT) {
                Ok(bytes) if bytes.len() as u64 <= CACHE_LIMIT => return Some(bytes),
                Ok(_) => format!("it is larger than {CACHE_LIMIT} bytes"),
                Err(e) => format!("it cannot be read ({e})"),
            },
            Ok(Some(is)) => format!("it is {is}, not a regular file"),
            Err(e) => format!("it cannot be read ({e})"),
        },
    };
    warn(&format!(
        "ignoring the {what} {}: {problem}; remove it and the next run writes a new one.",
        crate::base::pathtext::display(path)
    ));
    None
}

/// One warning line on stderr; a stderr that cannot be written loses only the warning.
pub fn warn(sentence: &str) {
    // Sentences name paths a repository chose: no control or bidirectional character of one
    // reaches the terminal or a CI log.
    let sentence = crate::base::pathtext::display_text(sentence);
    let _ = std::io::Write::write_all(
        &mut std::io::stderr(),
        format!("wsl-place: {sentence}\n").as_bytes(),
    );
}

/// Reads up to `limit + 1` bytes, so the caller can tell "exactly at the limit" from "over it".
fn read_at_most(file: File, limit: u64) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// `file` replaced whole by `bytes`, durably: a temporary file made exclusively in its folder
/// under a name no one can predict (never through a link planted there), given `permissions`
/// (else 0o666 less the umask), flushed and renamed over `file`, so a reader sees the old file
/// or the new, never half. A link at `file` itself is replaced, not followed: a caller that
/// means to write through a link the person made resolves it first.
pub fn replace_whole(
    file: &Path,
    bytes: &[u8],
    permissions: Option<std::fs::Permissions>,
) -> std::io::Result<()> {
    let folder = file
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let prefix = format!(
        ".{}.wsl-place-",
        file.file_name().unwrap_or_default().to_string_lossy()
    );
    let mut temporary = tempfile::Builder::new()
        .prefix(&prefix)
        .permissions(permissions.unwrap_or_else(|| std::fs::Permissions::from_mode(0o666)))
        .tempfile_in(folder)?;
    temporary.write_all(bytes)?;
    temporary.as_file().sync_all()?;
    temporary.persist(file).map_err(|e| e.error)?;
    Ok(())
}

/// Writes a small cache file best-effort: beside and renamed, so a concurrent reader (a hook
/// running in parallel) never sees half a file, and nothing is left behind when writing fails
/// (the temporary file is removed when dropped).
pub fn write_json_atomically<T: serde::Serialize>(file: &Path, value: &T) {
    let _ = try_write_json_atomically(file, value);
}

/// [`try_write_json_atomically`], on the disk before it returns: the file's bytes and the
/// rename that put it in place are both flushed, so a power cut or a kill right after leaves
/// this version, never the one before. For a journal that must be read after a crash.
pub fn write_json_durably<T: serde::Serialize>(file: &Path, value: &T) -> std::io::Result<()> {
    let parent = file.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent)?;
    let json = serde_json::to_vec_pretty(value).map_err(std::io::Error::other)?;
    replace_whole(file, &json, None)?;
    File::open(parent)?.sync_all()
}

/// [`write_json_atomically`], saying why when the file could not be written.
pub fn try_write_json_atomically<T: serde::Serialize>(
    file: &Path,
    value: &T,
) -> std::io::Result<()> {
    let parent = file.parent().unwrap_or(Path::new("."));
    let json = serde_json::to_vec_pretty(value).map_err(std::io::Error::other)?;
    std::fs::create_dir_all(parent)
        .and_then(|()| {
            // 0o666 less the umask, as `std::fs::write` creates files (tempfile's own is 0o600).
            tempfile::Builder::new()
                .permissions(std::fs::Permissions::from_mode(0o666))
                .tempfile_in(parent)
        })
        .and_then(|mut temporary| {
            temporary.write_all(&json)?;
            temporary.persist(file).map_err(|e| e.error)
        })
        .map(drop)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::error::ExitCode;

    #[test]
    fn a_replacement_never_writes_through_a_planted_link() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside");
        std::fs::write(&outside, "keep").unwrap();
        let file = dir.path().join("pyvenv.cfg");
        std::fs::write(&file, "old").unwrap();
        // What a fixed temporary name would have met.
        std::os::unix::fs::symlink(&outside, dir.path().join(".pyvenv.cfg.wsl-place-rewrite"))
            .unwrap();
        replace_whole(&file, b"new", Some(std::fs::Permissions::from_mode(0o640))).unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "new");
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "keep");
        let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640);
        // A link at the file itself is replaced by the file, its target untouched.
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&outside, &link).unwrap();
        replace_whole(&link, b"x", None).unwrap();
        assert!(
            !std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "keep");
    }

    #[test]
    fn json_is_replaced_whole_with_the_usual_mode_and_nothing_left_beside() {
        let dir = tempfile::tempdir().unwrap();
        let names = |folder: &Path| -> Vec<String> {
            let mut names: Vec<String> = std::fs::read_dir(folder)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            names.sort();
            names
        };
        let file = dir.path().join("cache/entry.json");
        write_json_atomically(&file, &vec![1, 2]);
        write_json_atomically(&file, &vec![3]);
        let read: Vec<u32> = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
        assert_eq!(read, [3]);
        assert_eq!(names(&dir.path().join("cache")), ["entry.json"]);
        let plain = dir.path().join("plain");
        std::fs::write(&plain, b"").unwrap();
        let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode();
        assert_eq!(mode(&file), mode(&plain));
        // A folder where the file belongs: nothing replaced, nothing left behind.
        let blocked = dir.path().join("blocked");
        std::fs::create_dir_all(blocked.join("entry.json")).unwrap();
        write_json_atomically(&blocked.join("entry.json"), &vec![4]);
        assert_eq!(names(&blocked), ["entry.json"]);
        assert!(blocked.join("entry.json").is_dir());
    }

    #[test]
    fn special_files_are_input_errors() {
        for path in ["/dev/zero", "/dev/null", "/"] {
            let failure = read_regular(Path::new(path), 16, "policy file").unwrap_err();
            assert_eq!(failure.code, ExitCode::Input, "{path}: {failure}");
            assert!(failure.message.contains("not a policy file"), "{failure}");
        }
    }

    #[test]
    fn limit_is_exact() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("p.toml");
        std::fs::write(&file, b"0123456789").unwrap();
        assert_eq!(read_regular(&file, 10, "x").unwrap().len(), 10);
        assert_eq!(
            read_regular(&file, 9, "x").unwrap_err().code,
            ExitCode::Input
        );
        std::fs::write(&file, b"ok\xff").unwrap();
        let failure = read_text(&file, 10, "policy file").unwrap_err();
        assert!(failure.message.contains("byte 2"), "{failure}");
    }
}
