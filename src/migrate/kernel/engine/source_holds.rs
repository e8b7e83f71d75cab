//! Does the source still hold, byte for byte, what the copy has? `--abort` after a finished
//! migration removes the copy only when it does: every file of the manifest read again at the
//! source (CRC32), every link and folder there, each reached without crossing a symlink, so a
//! folder replaced by a link into the copy proves nothing.

use super::verify;
use crate::base::dirfd::{Fenced, FencedDir};
use crate::base::pathtext::escape_path;
use crate::store::manifest::ManifestEntry;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// What the source lacks of `entries` (each `path (why)`), in the manifest's order; empty when
/// it holds all of it. Git's index is a cache `git status` rewrites, and is not asked for.
pub(in crate::migrate) fn lacking(source: &Path, entries: &[ManifestEntry]) -> Vec<String> {
    let root = match Fenced::root(source) {
        Ok(root) => root,
        Err(e) => return vec![format!("{} ({e})", source.display())],
    };
    let mut walk = Walk {
        root,
        open: None,
        lacking: Vec::new(),
    };
    for entry in entries {
        match entry {
            ManifestEntry::Dir(rel) => {
                if walk.dir(rel).is_err() {
                    walk.lack(rel, "no longer a folder there");
                }
            }
            ManifestEntry::File(r) if crate::measure::changes::is_git_index(&r.rel) => {}
            ManifestEntry::File(r) => {
                let read = walk.in_parent(&r.rel, |dir, name| {
                    let (file, _) = dir.open_file(name)?;
                    verify::crc_of_reader(file)
                });
                match read {
                    Ok((size, crc)) if size == r.size && crc == r.crc32 => {}
                    Ok(_) => walk.lack(&r.rel, "its bytes differ from the copy's"),
                    Err(e) => walk.lack(&r.rel, &why(&e)),
                }
            }
            ManifestEntry::Symlink { rel, target } => {
                match walk.in_parent(rel, |dir, name| dir.read_link(name)) {
                    Ok(now) if &now == target => {}
                    Ok(_) => walk.lack(rel, "the link points elsewhere now"),
                    Err(e) => walk.lack(rel, &why(&e)),
                }
            }
        }
    }
    walk.lacking
}

fn why(e: &std::io::Error) -> String {
    use rustix::io::Errno;
    match e.raw_os_error().map(Errno::from_raw_os_error) {
        Some(Errno::NOENT) => "missing".into(),
        Some(Errno::LOOP | Errno::NOTDIR) => "a folder on its way is a link or a file now".into(),
        _ => e.to_string(),
    }
}

/// A walk that keeps the last folder it opened: the manifest lists a folder's files together.
struct Walk {
    root: Fenced,
    open: Option<(PathBuf, FencedDir)>,
    lacking: Vec<String>,
}

impl Walk {
    fn lack(&mut self, rel: &Path, why: &str) {
        self.lacking.push(format!("{} ({why})", escape_path(rel)));
    }

    fn dir(&mut self, rel: &Path) -> std::io::Result<&FencedDir> {
        if self.open.as_ref().is_none_or(|(at, _)| at != rel) {
            let place = rel
                .components()
                .fold(self.root.clone(), |place, c| place.child(c.as_os_str()));
            self.open = Some((rel.to_path_buf(), place.open()?));
        }
        match &self.open {
            Some((_, dir)) => Ok(dir),
            None => Err(std::io::Error::from(std::io::ErrorKind::NotFound)),
        }
    }

    fn in_parent<T>(
        &mut self,
        rel: &Path,
        read: impl FnOnce(&FencedDir, &OsStr) -> std::io::Result<T>,
    ) -> std::io::Result<T> {
        let parent = rel.parent().unwrap_or(Path::new(""));
        let name = rel.file_name().unwrap_or_default();
        let dir = self.dir(parent)?;
        read(dir, name)
    }
}
