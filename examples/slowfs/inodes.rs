//! The path <-> inode table.
//!
//! FUSE speaks inode numbers, the backing directory speaks paths. Each distinct
//! path gets its own number, handed out from a counter and never reused, so the
//! generation can stay 0. A hard link therefore shows up as a second inode with
//! nlink 2: good enough for tools that compare (dev, ino) only to detect cycles.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use fuser::INodeNo;

struct Node {
    /// Relative to the backing root; `None` once unlinked or replaced by a rename.
    path: Option<PathBuf>,
    /// The kernel's lookup count; an unlinked node goes when `forget` brings it to 0.
    lookups: u64,
}

pub struct Inodes {
    nodes: HashMap<u64, Node>,
    by_path: HashMap<PathBuf, u64>,
    next: u64,
}

impl Inodes {
    pub fn new() -> Self {
        let mut nodes = HashMap::new();
        let mut by_path = HashMap::new();
        // The root is never forgotten, so give it a lookup that no forget undoes.
        nodes.insert(
            INodeNo::ROOT.0,
            Node {
                path: Some(PathBuf::new()),
                lookups: 1,
            },
        );
        by_path.insert(PathBuf::new(), INodeNo::ROOT.0);
        Inodes {
            nodes,
            by_path,
            next: INodeNo::ROOT.0 + 1,
        }
    }

    pub fn path(&self, ino: INodeNo) -> Option<PathBuf> {
        self.nodes.get(&ino.0).and_then(|n| n.path.clone())
    }

    /// The inode for `path`, created if needed. `count` adds a kernel lookup
    /// reference (entry replies); readdir numbers are handed out without one.
    pub fn intern(&mut self, path: &Path, count: bool) -> INodeNo {
        let add = u64::from(count);
        if let Some(&ino) = self.by_path.get(path) {
            if let Some(node) = self.nodes.get_mut(&ino) {
                node.lookups += add;
            }
            return INodeNo(ino);
        }
        let ino = self.next;
        self.next += 1;
        self.nodes.insert(
            ino,
            Node {
                path: Some(path.to_path_buf()),
                lookups: add,
            },
        );
        self.by_path.insert(path.to_path_buf(), ino);
        INodeNo(ino)
    }

    /// Numbers of live names are kept after the kernel forgets them, so that a
    /// name keeps its st_ino for the life of the mount: git's index records inode
    /// numbers, and a changed one makes it re-read the file.
    pub fn forget(&mut self, ino: INodeNo, n: u64) {
        if let Some(node) = self.nodes.get_mut(&ino.0) {
            node.lookups = node.lookups.saturating_sub(n);
            if node.lookups == 0 && node.path.is_none() {
                self.nodes.remove(&ino.0);
            }
        }
    }

    /// The name is gone from the backing directory; the inode lives on (open files
    /// keep working through their handles) until the kernel forgets it.
    pub fn unlinked(&mut self, path: &Path) {
        if let Some(ino) = self.by_path.remove(path)
            && let Some(node) = self.nodes.get_mut(&ino)
        {
            node.path = None;
            if node.lookups == 0 {
                self.nodes.remove(&ino);
            }
        }
    }

    /// Moves `from` and everything below it to `to`, dropping whatever `to` was.
    pub fn renamed(&mut self, from: &Path, to: &Path) {
        self.unlinked_tree(to);
        let moved: Vec<(PathBuf, u64)> = self
            .by_path
            .iter()
            .filter(|(p, _)| p.starts_with(from))
            .map(|(p, &ino)| (p.clone(), ino))
            .collect();
        for (old, ino) in moved {
            self.by_path.remove(&old);
            let rest = old.strip_prefix(from).unwrap_or(Path::new(""));
            let new = if rest.as_os_str().is_empty() {
                to.to_path_buf()
            } else {
                to.join(rest)
            };
            if let Some(node) = self.nodes.get_mut(&ino) {
                node.path = Some(new.clone());
            }
            self.by_path.insert(new, ino);
        }
    }

    /// RENAME_EXCHANGE: the two subtrees trade places.
    pub fn exchanged(&mut self, a: &Path, b: &Path) {
        let tmp = PathBuf::from("\0slowfs-exchange");
        self.renamed(a, &tmp);
        self.renamed(b, a);
        self.renamed(&tmp, b);
    }

    fn unlinked_tree(&mut self, root: &Path) {
        let gone: Vec<PathBuf> = self
            .by_path
            .keys()
            .filter(|p| p.starts_with(root))
            .cloned()
            .collect();
        for p in gone {
            self.unlinked(&p);
        }
    }
}
