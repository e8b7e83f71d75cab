//! The on-disk format of a sync's operations (`migrate --sync`), one line each in its sealed
//! staging folder (`ops`): applying a sync is resumed from this list alone, whatever the two
//! trees hold by then.

use crate::base::pathtext::{escape_path, unescape_path};
use std::path::PathBuf;

/// One step of applying a verified sync at the destination.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Op {
    /// A folder made at the source since: made at the destination.
    Dir(PathBuf),
    /// The staged file or link renamed over the destination's (or to a new name there).
    Put(PathBuf),
    /// A conflict: the staged source version renamed to `saved`, beside the destination's.
    Save { rel: PathBuf, saved: PathBuf },
    /// Removed at the source and unchanged at the destination: removed there too.
    Remove(PathBuf),
    /// A folder removed at the source: removed at the destination when empty.
    Rmdir(PathBuf),
    /// A folder the sync touches: the source's mode and times, as the first copy gave them.
    Times {
        rel: PathBuf,
        mode: u32,
        atime: (i64, i64),
        mtime: (i64, i64),
    },
    /// Changed at the destination since: its snapshot record stays as it was.
    Keep(PathBuf),
}

impl Op {
    pub fn line(&self) -> String {
        match self {
            Op::Dir(rel) => format!("dir\t{}\n", escape_path(rel)),
            Op::Put(rel) => format!("put\t{}\n", escape_path(rel)),
            Op::Save { rel, saved } => {
                format!("save\t{}\t{}\n", escape_path(saved), escape_path(rel))
            }
            Op::Remove(rel) => format!("remove\t{}\n", escape_path(rel)),
            Op::Rmdir(rel) => format!("rmdir\t{}\n", escape_path(rel)),
            Op::Times {
                rel,
                mode,
                atime,
                mtime,
            } => format!(
                "times\t{mode:o}\t{}\t{}\t{}\t{}\t{}\n",
                atime.0,
                atime.1,
                mtime.0,
                mtime.1,
                escape_path(rel)
            ),
            Op::Keep(rel) => format!("keep\t{}\n", escape_path(rel)),
        }
    }

    pub fn parse(line: &str) -> Option<Op> {
        let f: Vec<&str> = line.split('\t').collect();
        let path = |s: &str| unescape_path(s).filter(|p| !p.as_os_str().is_empty());
        Some(match f.as_slice() {
            ["dir", rel] => Op::Dir(path(rel)?),
            ["put", rel] => Op::Put(path(rel)?),
            ["save", saved, rel] => Op::Save {
                rel: path(rel)?,
                saved: path(saved)?,
            },
            ["remove", rel] => Op::Remove(path(rel)?),
            ["rmdir", rel] => Op::Rmdir(path(rel)?),
            ["times", mode, as_, ans, ms, mns, rel] => Op::Times {
                rel: unescape_path(rel)?,
                mode: u32::from_str_radix(mode, 8).ok()?,
                atime: (as_.parse().ok()?, ans.parse().ok()?),
                mtime: (ms.parse().ok()?, mns.parse().ok()?),
            },
            ["keep", rel] => Op::Keep(path(rel)?),
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operations_read_back_as_written() {
        let ops = [
            Op::Dir(PathBuf::from("late")),
            Op::Put(PathBuf::from("a b/c\td")),
            Op::Save {
                rel: PathBuf::from("x"),
                saved: PathBuf::from("x.from-source-20261204"),
            },
            Op::Remove(PathBuf::from("gone")),
            Op::Rmdir(PathBuf::from("old")),
            Op::Times {
                rel: PathBuf::new(),
                mode: 0o755,
                atime: (1, 2),
                mtime: (-3, 4),
            },
            Op::Keep(PathBuf::from("mine")),
        ];
        for op in ops {
            let line = op.line();
            assert_eq!(Op::parse(line.trim_end_matches('\n')), Some(op), "{line}");
        }
        assert_eq!(Op::parse("put\t"), None);
    }
}
