//! The one reader of a repository's own files (its locks, manifests, requirement files, its
//! `.gitmodules`, the git index and the files under `.git/` the tool opens itself). A repository
//! is untrusted input: a FIFO where a lock should be would block a read forever (and the
//! pre-commit hook with it), a link could hand the tool a file from outside the repository, and
//! a device could be read without end. So every folder on the way is opened without following a
//! link (`dirfd::Fenced`), the file itself without following one and without blocking, and only
//! a regular file of at most the caller's limit is read. A refusal is said once, in one line on
//! stderr, and the caller goes on as if the file were absent (the install estimated, say).

use crate::base::dirfd::{Fenced, FencedDir};
use std::ffi::OsStr;
use std::io::Read;
use std::path::{Component, Path, PathBuf};

/// A lock or a manifest (`package-lock.json` of a large monorepo runs to tens of MiB).
pub const MANIFEST_LIMIT: u64 = 256 * 1024 * 1024;
/// A file that names one folder in a line (`.git`, `commondir`, `HEAD`): anything larger is
/// not git's.
pub const POINTER_LIMIT: u64 = 64 * 1024;
/// git's index of a very large repository.
pub const GIT_INDEX_LIMIT: u64 = 2 * 1024 * 1024 * 1024;
/// The longest one file of a repository is read for: a file of the repository is a sentence
/// of input, not a stream, and a check must finish (a hook's commit is waiting on it).
pub const READ_TIME_LIMIT: std::time::Duration = std::time::Duration::from_secs(10);

/// Why a file of the repository was not read.
#[derive(Debug)]
pub enum Unread {
    /// There is none (or a folder on the way is missing): nothing to say.
    Missing,
    /// It is there and is not read.
    Refused(Refusal),
}

/// A file of the repository that is there and not read, and what was found instead of a
/// regular file of readable size. Typed for the callers' reasons; this reader words it too,
/// for the one line it says on stderr.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Refusal {
    #[serde(with = "crate::base::pathtext::json")]
    pub root: PathBuf,
    #[serde(with = "crate::base::pathtext::json")]
    pub file: PathBuf,
    pub found: Found,
}

/// What a refused file turned out to be.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Found {
    /// A link, a FIFO, a socket, a folder or a device.
    NotAFile(&'static str),
    Unopenable,
    BelowALinkOrUnopenableFolder,
    NotText,
    LargerThan(u64),
    SlowerThanSecs(u64),
    ReadError(String),
}

impl Refusal {
    pub fn sentence(&self) -> String {
        let why = match &self.found {
            Found::NotAFile(what) => format!("is {what}, not a file"),
            Found::Unopenable => "cannot be opened".to_string(),
            Found::BelowALinkOrUnopenableFolder => {
                "is below a link or a folder that cannot be opened".to_string()
            }
            Found::NotText => "is not UTF-8 text".to_string(),
            Found::LargerThan(limit) => format!("is larger than {limit} bytes"),
            Found::SlowerThanSecs(secs) => format!("took longer than {secs} s to read"),
            Found::ReadError(e) => format!("cannot be read ({e})"),
        };
        format!(
            "{} in {} {why}; it is not read.",
            self.file.display(),
            self.root.display()
        )
    }
}

/// The bytes of `rel` below `root`, read as the module says.
pub fn read(root: &Path, rel: &Path, limit: u64) -> Result<Vec<u8>, Unread> {
    let result = read_fenced(root, rel, limit);
    if let Err(Unread::Refused(refusal)) = &result {
        warn_once(&refusal.sentence());
    }
    result
}

/// A refusal is said once per run, however many readers meet the same file.
pub fn warn_once(sentence: &str) {
    static SAID: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let mut said = SAID
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if !said.iter().any(|s| s == sentence) {
        said.push(sentence.to_string());
        crate::base::input::warn(sentence);
    }
}

/// [`read`] as UTF-8 text (a file that is not is refused like any other).
pub fn text(root: &Path, rel: impl AsRef<Path>, limit: u64) -> Result<String, Unread> {
    let result = text_unsaid(root, rel.as_ref(), limit);
    if let Err(Unread::Refused(refusal)) = &result {
        warn_once(&refusal.sentence());
    }
    result
}

/// [`text`] without the warning line: for a caller that fails with the sentence itself.
pub fn text_unsaid(root: &Path, rel: &Path, limit: u64) -> Result<String, Unread> {
    let bytes = read_fenced(root, rel, limit)?;
    String::from_utf8(bytes).map_err(|_| refused(root, rel, Found::NotText))
}

/// [`text`] of a lock or manifest, None when it is absent or refused.
pub fn manifest(root: &Path, rel: impl AsRef<Path>) -> Option<String> {
    text(root, rel, MANIFEST_LIMIT).ok()
}

/// [`read`] of a file whose folder is not below the repository's top (a linked worktree's or a
/// submodule's git folder): the folder is taken as it is, the file itself opened without
/// following a link and without blocking.
pub fn read_at(path: &Path, limit: u64) -> Result<Vec<u8>, Unread> {
    let (Some(folder), Some(name)) = (path.parent(), path.file_name()) else {
        return Err(Unread::Missing);
    };
    read(folder, Path::new(name), limit)
}

/// What is at `path`, when it is there and not a regular file (a link followed): "a FIFO".
/// git and gix open their own files by path, and block on a FIFO as any reader does.
pub fn not_a_file(path: &Path) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt;
    let kind = std::fs::metadata(path).ok()?.file_type();
    match kind {
        _ if kind.is_file() => None,
        _ if kind.is_dir() => Some("a folder"),
        _ if kind.is_fifo() => Some("a FIFO"),
        _ if kind.is_socket() => Some("a socket"),
        _ => Some("a device"),
    }
}

fn refused(root: &Path, rel: &Path, found: Found) -> Unread {
    Unread::Refused(Refusal {
        root: root.to_path_buf(),
        file: rel.to_path_buf(),
        found,
    })
}

fn read_fenced(root: &Path, rel: &Path, limit: u64) -> Result<Vec<u8>, Unread> {
    let said = |found: Found| refused(root, rel, found);
    let (file, meta) = match rel.parent().filter(|p| !p.as_os_str().is_empty()) {
        // A file at the top: opened by its path, the top taken as given, so that no folder is
        // opened for it (each one a round trip on a slow mount, for every lock `survey` reads).
        None => match open_at_top(&root.join(rel)) {
            Ok(opened) => opened,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(Unread::Missing),
            Err(_) => return Err(said(kind_of(&root.join(rel)))),
        },
        Some(_) => {
            let (folder, name) = folder_of(root, rel).map_err(|e| match e.kind() {
                std::io::ErrorKind::NotFound => Unread::Missing,
                _ => said(Found::BelowALinkOrUnopenableFolder),
            })?;
            match folder.open_file(name) {
                Ok(opened) => opened,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(Unread::Missing),
                Err(_) => return Err(said(kind_words(&folder, name))),
            }
        }
    };
    if meta.len() > limit {
        return Err(said(Found::LargerThan(limit)));
    }
    read_in_time(file, limit, READ_TIME_LIMIT).map_err(|e| match e.kind() {
        std::io::ErrorKind::TimedOut => said(Found::SlowerThanSecs(READ_TIME_LIMIT.as_secs())),
        _ => said(Found::ReadError(e.to_string())),
    })
}

/// Up to `limit` bytes of `file` (one more shows it grew), read a piece at a time until `time`
/// is up: a file on a mount that answers a byte at a time is given up, not waited on.
fn read_in_time(
    file: std::fs::File,
    limit: u64,
    time: std::time::Duration,
) -> std::io::Result<Vec<u8>> {
    let started = std::time::Instant::now();
    let mut reader = file.take(limit.saturating_add(1));
    let mut bytes = Vec::new();
    let mut piece = vec![0u8; 256 << 10];
    loop {
        match reader.read(&mut piece) {
            Ok(0) => return Ok(bytes),
            Ok(n) => bytes.extend_from_slice(&piece[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
        if started.elapsed() > time {
            return Err(std::io::ErrorKind::TimedOut.into());
        }
    }
}

/// The folder holding `rel` below `root`, reached without crossing a link, and the file's name.
fn folder_of<'a>(root: &Path, rel: &'a Path) -> std::io::Result<(FencedDir, &'a OsStr)> {
    let invalid = || std::io::Error::from(std::io::ErrorKind::InvalidInput);
    let name = rel.file_name().ok_or_else(invalid)?;
    let mut place = Fenced::root(root)?;
    for component in rel.parent().into_iter().flat_map(Path::components) {
        match component {
            Component::Normal(part) => place = place.child(part),
            Component::CurDir => {}
            _ => return Err(invalid()),
        }
    }
    Ok((place.open()?, name))
}

/// `path` opened to read without following a link at its end and without blocking; only a
/// regular file.
fn open_at_top(path: &Path) -> std::io::Result<(std::fs::File, crate::base::dirfd::Meta)> {
    use std::os::unix::fs::OpenOptionsExt;
    let flags = rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::NONBLOCK;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(flags.bits() as i32)
        .open(path)?;
    let meta = crate::base::dirfd::fstat(&file)?;
    match meta.is_file() {
        true => Ok((file, meta)),
        false => Err(std::io::Error::other("not a regular file")),
    }
}

/// [`kind_words`] of the entry at `path`.
fn kind_of(path: &Path) -> Found {
    crate::base::dirfd::lstat(path).map_or(Found::Unopenable, |m| found(&m))
}

/// What an entry that would not open as a regular file is: a FIFO, say.
fn kind_words(folder: &FencedDir, name: &OsStr) -> Found {
    folder.lstat(name).map_or(Found::Unopenable, |m| found(&m))
}

fn found(meta: &crate::base::dirfd::Meta) -> Found {
    let kind = match meta.file_type() {
        rustix::fs::FileType::Symlink => "a link",
        rustix::fs::FileType::Fifo => "a FIFO",
        rustix::fs::FileType::Socket => "a socket",
        rustix::fs::FileType::Directory => "a folder",
        rustix::fs::FileType::CharacterDevice | rustix::fs::FileType::BlockDevice => "a device",
        _ => return Found::Unopenable,
    };
    Found::NotAFile(kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_read_past_its_time_is_given_up() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("big");
        std::fs::write(&file, vec![b'x'; 3 << 20]).unwrap();
        let open = || std::fs::File::open(&file).unwrap();
        let whole = read_in_time(open(), 64 << 20, std::time::Duration::from_secs(60));
        assert_eq!(whole.unwrap().len(), 3 << 20);
        let late = read_in_time(open(), 64 << 20, std::time::Duration::ZERO).unwrap_err();
        assert_eq!(late.kind(), std::io::ErrorKind::TimedOut);
        let capped = read_in_time(open(), 10, std::time::Duration::from_secs(60)).unwrap();
        assert_eq!(
            capped.len(),
            11,
            "one byte past the limit shows the file grew"
        );
    }

    fn refused(result: Result<Vec<u8>, Unread>) -> String {
        match result {
            Err(Unread::Refused(refusal)) => refusal.sentence(),
            other => panic!("not refused: {other:?}"),
        }
    }

    #[test]
    fn a_fifo_a_link_and_a_large_file_are_refused_without_blocking() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        std::fs::write(root.join("package.json"), b"{}").unwrap();
        assert_eq!(read(root, Path::new("package.json"), 10).unwrap(), b"{}");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            root.join("package-lock.json"),
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o644),
            0,
        )
        .unwrap();
        let said = refused(read(root, Path::new("package-lock.json"), 10));
        assert!(said.contains("is a FIFO, not a file"), "{said}");
        let outside = tempfile::NamedTempFile::new().unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("uv.lock")).unwrap();
        assert!(refused(read(root, Path::new("uv.lock"), 10)).contains("a link"));
        std::os::unix::fs::symlink(tmp.path(), root.join("sub")).unwrap();
        assert!(refused(read(root, Path::new("sub/package.json"), 10)).contains("below a link"));
        assert!(refused(read(root, Path::new("package.json"), 1)).contains("larger"));
        assert!(matches!(
            read(root, Path::new("yarn.lock"), 10),
            Err(Unread::Missing)
        ));
    }
}
