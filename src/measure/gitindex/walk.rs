//! Git's walk of the worktree as the index and the exclude rules describe it, without walking
//! it: the tracked files and bytes git would `lstat` and read, and the directories its untracked
//! walk opens or a rule keeps it out of.

use super::RootIndex;
use crate::measure::gitattrs::{Conversion, TextRules};
use gix::bstr::ByteSlice;
use gix::index::entry::{Flags, Mode};
use serde::Serialize;
use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

impl RootIndex {
    /// Git's walk of the tree below the root, from the index and git's own exclude rules
    /// (`.gitignore` files as the index records them, `info/exclude`, `core.excludesFile`,
    /// through gix): a directory that a rule excludes is never opened by git's untracked walk,
    /// nor is anything below it, even when it holds tracked files (those are still `lstat`ed).
    /// Without `rules`, or when the repository cannot be opened for them, every directory
    /// counts as walked.
    pub fn git_walk(&self, rules: bool) -> GitWalk {
        let state = self.index.state();
        let repo = rules
            .then(|| crate::measure::gitopen::open(&self.worktree))
            .flatten();
        let mut excludes = repo.as_ref().and_then(|r| {
            r.excludes(
                state,
                None,
                gix::worktree::stack::state::ignore::Source::IdMapping,
            )
            .ok()
        });
        let mut walk = GitWalk::default();
        let mut text = repo.as_ref().map(|r| text_rules(r, state, &self.worktree));
        // Directory (worktree-relative, no trailing slash) -> tracked files directly in it.
        let mut dirs: BTreeMap<&[u8], u64> = BTreeMap::new();
        let root = self.prefix.strip_suffix(b"/").unwrap_or(&self.prefix);
        dirs.insert(root, 0);
        let mut run: Option<(&[u8], u64)> = None;
        for entry in state.entries() {
            let on_disk = matches!(
                entry.mode,
                Mode::FILE | Mode::FILE_EXECUTABLE | Mode::SYMLINK
            ) && entry.stage_raw() == 0
                && !entry.flags.contains(Flags::SKIP_WORKTREE);
            let path: &[u8] = entry.path(state).as_bytes();
            if !on_disk || !path.starts_with(&self.prefix) {
                continue;
            }
            walk.tracked += 1;
            let size = u64::from(entry.stat.size);
            walk.tracked_bytes += size;
            if size > GIT_MMAP_ABOVE {
                walk.mapped_bytes += size;
            }
            match text.as_mut().map(|t| t.conversion(path.as_bstr())) {
                Some(Conversion::Scan) => walk.text_bytes += size,
                Some(Conversion::ScanAndIndexBlob) => walk.auto_text_bytes += size,
                _ => {}
            }
            count_in_run(&mut run, &mut dirs, path, root);
        }
        if let Some((dir, files)) = run {
            count_in_dir(&mut dirs, dir, files, root);
        }
        walk.count_dirs(&dirs, root, |dir| {
            excludes.as_mut().is_some_and(|stack| {
                stack
                    .at_entry(Path::new(OsStr::from_bytes(dir)), Some(Mode::DIR))
                    .is_ok_and(|platform| platform.is_excluded())
            })
        });
        walk
    }
}

/// Counts the tracked file at `path` in `run`, the files of one directory in a row: the index
/// is sorted, so a folder's files come together and each run costs one lookup in `dirs`, where
/// the run before is counted when a new one starts.
fn count_in_run<'a>(
    run: &mut Option<(&'a [u8], u64)>,
    dirs: &mut BTreeMap<&'a [u8], u64>,
    path: &'a [u8],
    root: &[u8],
) {
    let parent = path.rfind_byte(b'/').map_or(&path[..0], |i| &path[..i]);
    match run.as_mut() {
        Some((dir, files)) if *dir == parent => *files += 1,
        _ => {
            if let Some((dir, files)) = run.replace((parent, 1)) {
                count_in_dir(dirs, dir, files, root);
            }
        }
    }
}

/// Counts `files` tracked files in the directory `parent`, and notes its ancestors down to
/// `root` as holding tracked files too.
fn count_in_dir<'a>(dirs: &mut BTreeMap<&'a [u8], u64>, parent: &'a [u8], files: u64, root: &[u8]) {
    *dirs.entry(parent).or_default() += files;
    let mut dir = parent;
    while let Some(i) = dir.rfind_byte(b'/') {
        dir = &dir[..i];
        if dir.len() < root.len() {
            break;
        }
        dirs.entry(dir).or_default();
    }
}

/// The line-ending rules of the repository `repo` for the index `state`: its tracked
/// `.gitattributes` and `core.autocrlf`.
fn text_rules(repo: &gix::Repository, state: &gix::index::State, worktree: &Path) -> TextRules {
    let files: Vec<&[u8]> = state
        .entries()
        .iter()
        .map(|e| e.path(state).as_bytes())
        .filter(|p| p == b".gitattributes" || p.ends_with(b"/.gitattributes"))
        .collect();
    let autocrlf = repo
        .config_snapshot()
        .string("core.autocrlf")
        .map(|v| v.to_string());
    TextRules::new(worktree, repo.common_dir(), &files, autocrlf.as_deref())
}

/// Git reads a file of up to 32 KiB with one `read`, a larger one through `mmap`
/// (object-file.c), whose pages a mount without a page cache serves one request at a time.
pub const GIT_MMAP_ABOVE: u64 = 32 * 1024;

/// Git's walk of the worktree as the index and the exclude rules describe it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct GitWalk {
    /// Tracked files on disk below the root.
    pub tracked: u64,
    /// Tracked files in directories git's walk lists (not under an excluded directory).
    pub listed_tracked: u64,
    /// Directories holding tracked files that git's walk opens (the root included).
    pub walked_dirs: u64,
    /// Directories holding tracked files that `.gitignore`, `info/exclude` or
    /// `core.excludesFile` exclude, or that sit below one: never opened.
    pub ignored_dirs: u64,
    pub tracked_bytes: u64,
    /// Bytes in tracked files over `GIT_MMAP_ABOVE`.
    pub mapped_bytes: u64,
    /// Bytes in tracked files git scans for line endings when it hashes them (`text`, `eol`),
    /// and in those it also compares with the index's blob (`text=auto`, `core.autocrlf`).
    pub text_bytes: u64,
    pub auto_text_bytes: u64,
    /// Folders named `node_modules` that hold tracked files (a test fixture such as
    /// remy/nodemon's `test/fixtures/watch-count/node_modules`), relative to the root: part of
    /// the source, which no install writes. Not in JSON.
    #[serde(skip)]
    pub tracked_node_modules: Vec<PathBuf>,
}

impl GitWalk {
    /// Counts the directories holding tracked files (`dirs`, with the files directly in each)
    /// as git's walk would: those below `root` that a rule excludes, or that sit below one, are
    /// never opened; the others are, with their files listed.
    fn count_dirs(
        &mut self,
        dirs: &BTreeMap<&[u8], u64>,
        root: &[u8],
        mut excluded_by_rules: impl FnMut(&[u8]) -> bool,
    ) {
        let mut excluded: std::collections::HashSet<&[u8]> = std::collections::HashSet::new();
        for (&dir, &files) in dirs {
            let parent = dir.rfind_byte(b'/').map_or(&dir[..0], |i| &dir[..i]);
            let below_excluded = dir.len() > root.len() && excluded.contains(parent);
            let is_excluded = below_excluded || (dir.len() > root.len() && excluded_by_rules(dir));
            if dir.len() > root.len() && dir.ends_with(b"node_modules") {
                self.note_tracked_node_modules(dir, root);
            }
            if is_excluded {
                excluded.insert(dir);
                self.ignored_dirs += 1;
            } else {
                self.walked_dirs += 1;
                self.listed_tracked += files;
            }
        }
    }

    /// Notes `dir` (worktree-relative, below `root`) when its last component is
    /// `node_modules`.
    fn note_tracked_node_modules(&mut self, dir: &[u8], root: &[u8]) {
        let name_at = dir.rfind_byte(b'/').map_or(0, |i| i + 1);
        if &dir[name_at..] != b"node_modules" {
            return;
        }
        let below_root = dir[root.len()..]
            .strip_prefix(b"/")
            .unwrap_or(&dir[root.len()..]);
        self.tracked_node_modules
            .push(PathBuf::from(OsStr::from_bytes(below_root)));
    }
}
