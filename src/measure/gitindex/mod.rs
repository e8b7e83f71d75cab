//! The git index, read without walking the worktree.
//!
//! The repository is found by looking for `.git` at the scanned root and its ancestors (as git
//! does). `.git` may be a directory, or a file holding `gitdir: <path>` (linked worktrees,
//! submodules, `--separate-git-dir`); a linked worktree's gitdir names the shared repository in
//! its `commondir` file. The index is decoded with gix, which also resolves split indexes
//! (`link` extension + `sharedindex.<sha>`), so the count is the real number of entries.

mod head;
mod problem;
mod walk;

pub use head::born;
pub use problem::{GitDirProblem, GitProblem, HeaderFault, IndexProblem};

pub use walk::GitWalk;

use gix::bstr::ByteSlice;
use gix::index::entry::{Flags, Mode};
use serde::Serialize;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// How the scanned directory belongs to a git repository.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RepoKind {
    /// `.git` is a directory: an ordinary repository.
    Repository,
    /// `.git` is a file naming `<repo>/.git/worktrees/<name>` (`git worktree add`).
    LinkedWorktree,
    /// `.git` is a file naming `<superproject>/.git/modules/<name>`.
    Submodule,
    /// `.git` is a file naming a git directory elsewhere (`git init --separate-git-dir`).
    SeparateGitDir,
}

/// Where the repository's pieces are.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Repo {
    pub kind: RepoKind,
    /// Top of the worktree (the directory holding `.git`).
    #[serde(with = "crate::base::pathtext::json")]
    pub worktree: PathBuf,
    /// The directory holding this worktree's `index` and `HEAD`.
    #[serde(with = "crate::base::pathtext::json")]
    pub git_dir: PathBuf,
    /// The directory holding `objects/` (differs from `git_dir` for linked worktrees).
    #[serde(with = "crate::base::pathtext::json")]
    pub common_dir: PathBuf,
    /// The scanned root relative to `worktree`; empty when the root is the top of the worktree.
    #[serde(with = "crate::base::pathtext::json")]
    pub prefix: PathBuf,
}

impl Repo {
    pub fn index_path(&self) -> PathBuf {
        self.git_dir.join("index")
    }
}

/// What the index says, and what the count means.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct IndexSummary {
    /// Index format version (2, 3 or 4); 0 when there is no index file yet.
    pub version: u32,
    /// The entry count in the 12-byte header of `.git/index` itself. For a split index this is
    /// only the entries changed since the shared index was written, not the tracked count.
    pub header_entries: u32,
    /// Entries after resolving a split index: tracked files, symlinks, submodules and (in a
    /// sparse index) sparse directories, each conflict stage counted separately.
    pub entries: u64,
    /// Entries under the scanned root (equals `entries` when the root is the worktree top).
    pub entries_under_root: u64,
    /// True when `.git/index` has a `link` extension and was completed from `sharedindex.*`.
    pub split: bool,
    /// True when the index holds sparse-directory entries (`sdir` extension, `git sparse-checkout
    /// --sparse-index`): each stands for a whole directory whose files are not listed.
    pub sparse: bool,
    /// Sparse-directory entries (each a directory of unknown file count, outside the checkout).
    pub sparse_dirs: u64,
    /// Entries marked skip-worktree (outside a sparse checkout; tracked, but not on disk).
    pub skip_worktree: u64,
    /// Entries that are submodules (gitlinks).
    pub submodules: u64,
    /// Entries at conflict stages 1-3 (an unfinished merge).
    pub conflict_entries: u64,
}

/// The top of the git working tree `dir` lies strictly inside, if any: a path inside a
/// repository stands for the whole repository (checking, probing or moving one folder of it
/// would judge or split the wrong thing). None at the top itself and outside repositories.
pub fn enclosing_worktree(dir: &Path, automount_root: &Path) -> Option<PathBuf> {
    match discover(dir, automount_root) {
        Ok(Some(repo)) if !repo.prefix.as_os_str().is_empty() => Some(repo.worktree),
        _ => None,
    }
}

/// Finds the repository `root` belongs to, if any. Errors only for a `.git` that exists but
/// cannot be understood (unreadable file, missing `gitdir:` target). A `gitdir:` naming a
/// Windows drive (Git for Windows writes them) is looked for under `automount_root`.
pub fn discover(root: &Path, automount_root: &Path) -> Result<Option<Repo>, GitProblem> {
    let root = std::path::absolute(root).map_err(|e| GitProblem::Unresolvable {
        path: root.to_path_buf(),
        error: e.to_string(),
    })?;
    for dir in root.ancestors() {
        let dot_git = dir.join(".git");
        let Ok(meta) = std::fs::symlink_metadata(&dot_git) else {
            continue;
        };
        let prefix = root
            .strip_prefix(dir)
            .unwrap_or(Path::new(""))
            .to_path_buf();
        let worktree = dir.to_path_buf();
        if meta.is_dir() || (meta.file_type().is_symlink() && dot_git.is_dir()) {
            return Ok(Some(Repo {
                kind: RepoKind::Repository,
                common_dir: common_dir_of(&dot_git, automount_root)?,
                git_dir: dot_git,
                worktree,
                prefix,
            }));
        }
        let git_dir = read_gitdir_file(&dot_git, automount_root)?;
        let common_dir = common_dir_of(&git_dir, automount_root)?;
        let kind = if common_dir != git_dir {
            RepoKind::LinkedWorktree
        } else if git_dir
            .components()
            .any(|c| c.as_os_str() == OsStr::new("modules"))
        {
            RepoKind::Submodule
        } else {
            RepoKind::SeparateGitDir
        };
        return Ok(Some(Repo {
            kind,
            worktree,
            git_dir,
            common_dir,
            prefix,
        }));
    }
    Ok(None)
}

/// Reads `gitdir: <path>` from a `.git` file; a relative path is relative to the file's
/// directory, and a Windows one is where WSL mounts its drive.
fn read_gitdir_file(dot_git: &Path, automount_root: &Path) -> Result<PathBuf, GitProblem> {
    let text = crate::base::repo_file::read_at(dot_git, crate::base::repo_file::POINTER_LIMIT)
        .map_err(|unread| match unread {
            crate::base::repo_file::Unread::Refused(why) => GitProblem::Refused(why),
            crate::base::repo_file::Unread::Missing => GitProblem::DotGitUnreadable {
                dot_git: dot_git.to_path_buf(),
            },
        })?;
    let line = text.lines().next().unwrap_or_default();
    let target = line
        .strip_prefix(b"gitdir:")
        .map(|t| t.trim())
        .filter(|t| !t.is_empty())
        .ok_or_else(|| GitProblem::NotAGitdirFile {
            dot_git: dot_git.to_path_buf(),
        })?;
    if let Some(git_dir) = wsl_path_of_windows_path(target, automount_root) {
        if !git_dir.is_dir() {
            return Err(GitProblem::WindowsTargetMissing {
                dot_git: dot_git.to_path_buf(),
                windows: String::from_utf8_lossy(target).into_owned(),
                here: git_dir,
            });
        }
        return Ok(git_dir);
    }
    let target = Path::new(OsStr::from_bytes(target));
    let base = dot_git.parent().unwrap_or(Path::new("/"));
    let git_dir = base.join(target);
    if !git_dir.is_dir() {
        return Err(GitProblem::TargetMissing {
            dot_git: dot_git.to_path_buf(),
            target: git_dir,
        });
    }
    Ok(git_dir)
}

/// `gitdir: C:/Users/me/repo/.git/worktrees/x` (or with backslashes), as Git for Windows writes
/// it, at the path WSL shows that drive under: `<automount_root>c/Users/me/repo/...`. None for
/// anything but a drive-letter path.
pub fn wsl_path_of_windows_path(target: &[u8], automount_root: &Path) -> Option<PathBuf> {
    let [letter, b':', b'/' | b'\\', rest @ ..] = target else {
        return None;
    };
    if !letter.is_ascii_alphabetic() {
        return None;
    }
    let mut path = automount_root.join(OsStr::from_bytes(&[letter.to_ascii_lowercase()]));
    for part in rest.split(|b| *b == b'/' || *b == b'\\') {
        if !part.is_empty() {
            path.push(OsStr::from_bytes(part));
        }
    }
    Some(path)
}

/// A linked worktree's git dir has a `commondir` file naming the shared repository.
fn common_dir_of(git_dir: &Path, automount_root: &Path) -> Result<PathBuf, GitProblem> {
    let file = git_dir.join("commondir");
    match crate::base::repo_file::read_at(&file, crate::base::repo_file::POINTER_LIMIT) {
        Ok(text) => {
            if let Some(common) = wsl_path_of_windows_path(text.trim(), automount_root) {
                return Ok(common);
            }
            let target = Path::new(OsStr::from_bytes(text.trim()));
            Ok(git_dir.join(target))
        }
        Err(crate::base::repo_file::Unread::Missing) => Ok(git_dir.to_path_buf()),
        Err(crate::base::repo_file::Unread::Refused(why)) => Err(GitProblem::Refused(why)),
    }
}

/// SHA-256 repositories say so in their config; this build of gix reads SHA-1 indexes only.
fn object_hash(repo: &Repo) -> Result<gix::hash::Kind, GitProblem> {
    let config = repo.common_dir.join("config");
    let text = crate::base::repo_file::read_at(&config, crate::base::input::CACHE_LIMIT)
        .unwrap_or_default();
    let sha256 = text.lines().any(|line| {
        let line = line.trim().to_ascii_lowercase();
        line.starts_with(b"objectformat") && line.ends_with(b"sha256")
    });
    if sha256 {
        Err(GitProblem::Sha256 {
            common_dir: repo.common_dir.clone(),
        })
    } else {
        Ok(gix::hash::Kind::Sha1)
    }
}

/// A decoded index, with a split index already completed from its shared index.
struct Index {
    version: u32,
    header_entries: u32,
    split: bool,
    file: IndexData,
}

enum IndexData {
    Plain(gix::index::State),
    Split(gix::index::File),
}

impl Index {
    fn state(&self) -> &gix::index::State {
        match &self.file {
            IndexData::Plain(state) => state,
            IndexData::Split(file) => file,
        }
    }
}

/// Reads the index. `Ok(None)` when there is no index file yet (a fresh `git init`).
fn open_index(repo: &Repo) -> Result<Option<Index>, GitProblem> {
    let path = repo.index_path();
    let data = match crate::base::repo_file::read_at(&path, crate::base::repo_file::GIT_INDEX_LIMIT)
    {
        Ok(d) => d,
        Err(crate::base::repo_file::Unread::Missing) => return Ok(None),
        Err(crate::base::repo_file::Unread::Refused(why)) => return Err(GitProblem::Refused(why)),
    };
    let (version, header_entries) =
        read_header(&data).map_err(|fault| GitProblem::IndexHeader {
            index: path.clone(),
            fault,
        })?;
    let hash = object_hash(repo)?;
    let options = gix::index::decode::Options {
        thread_limit: Some(1),
        ..Default::default()
    };
    let broken = |e: &dyn std::fmt::Display| GitProblem::IndexUndecodable {
        index: path.clone(),
        error: e.to_string(),
    };
    // The timestamp is only passed through; gix takes one of its own type, so borrow a default.
    let stamp = gix::index::State::new(hash).timestamp();
    let (state, _) =
        gix::index::State::from_bytes(&data, stamp, hash, options).map_err(|e| broken(&e))?;
    if state.link().is_none() {
        return Ok(Some(Index {
            version,
            header_entries,
            split: false,
            file: IndexData::Plain(state),
        }));
    }
    drop(state);
    drop(data);
    // skip_hash: a checksum pass doubles the cost and a corrupt file still fails to decode.
    let file = gix::index::File::at(&path, hash, true, options).map_err(|e| broken(&e))?;
    Ok(Some(Index {
        version,
        header_entries,
        split: true,
        file: IndexData::Split(file),
    }))
}

/// The 12-byte header: `DIRC`, version, entry count.
fn read_header(data: &[u8]) -> Result<(u32, u32), HeaderFault> {
    if data.len() < 12 {
        return Err(HeaderFault::Short);
    }
    if &data[..4] != b"DIRC" {
        return Err(HeaderFault::NotDirc);
    }
    let word = |at: usize| u32::from_be_bytes([data[at], data[at + 1], data[at + 2], data[at + 3]]);
    let (version, entries) = (word(4), word(8));
    if !(2..=4).contains(&version) {
        return Err(HeaderFault::Version(version));
    }
    Ok((version, entries))
}

/// `prefix` in the index's slash-separated form, with a trailing slash; empty for the top.
fn index_prefix(prefix: &Path) -> Vec<u8> {
    let mut p = prefix.as_os_str().as_bytes().to_vec();
    if !p.is_empty() && !p.ends_with(b"/") {
        p.push(b'/');
    }
    p
}

/// The decoded index as seen from the scanned root, read once and shared: the scan takes the
/// sizes git recorded from it (what git status itself trusts until a file's stat data
/// changes), the probe its tracked paths.
pub struct RootIndex {
    index: Index,
    /// The scanned root's place in the worktree, slash-terminated (empty at the top).
    prefix: Vec<u8>,
    /// Top of the worktree, where git's exclude rules are rooted.
    worktree: PathBuf,
}

impl RootIndex {
    /// The recorded size of the regular file `name` in `dir` (relative to the scanned root and
    /// slash-terminated unless empty; bytes as on disk), built in `scratch`. None when git has
    /// no usable size: untracked, a symlink or submodule, outside a sparse checkout,
    /// intent-to-add, in conflict, or 0, which is also how git marks an entry it must re-check
    /// ("racily clean").
    pub fn size(&self, dir: &[u8], name: &[u8], scratch: &mut Vec<u8>) -> Option<u64> {
        scratch.clear();
        scratch.extend_from_slice(&self.prefix);
        scratch.extend_from_slice(dir);
        scratch.extend_from_slice(name);
        let state = self.index.state();
        let entry = state.entry_by_path(scratch.as_bstr())?;
        let usable = matches!(entry.mode, Mode::FILE | Mode::FILE_EXECUTABLE)
            && entry.stage_raw() == 0
            && !entry
                .flags
                .intersects(Flags::SKIP_WORKTREE | Flags::INTENT_TO_ADD)
            && entry.stat.size > 0;
        usable.then_some(u64::from(entry.stat.size))
    }

    /// The submodules below the root: its gitlinks, relative to it.
    pub fn gitlinks(&self) -> Vec<PathBuf> {
        let state = self.index.state();
        state
            .entries()
            .iter()
            .filter(|entry| entry.mode == Mode::COMMIT)
            .filter_map(|entry| {
                let path: &[u8] = entry.path(state).as_bytes();
                let relative = path.strip_prefix(self.prefix.as_slice())?;
                Some(PathBuf::from(OsStr::from_bytes(relative)))
            })
            .collect()
    }

    /// Up to `max` tracked paths relative to the root, as `tracked_sample` gives them, with the shape of all of them:
    /// how many there are and how many directories hold them (the root included), counted on
    /// the index's own bytes rather than on a path made for each.
    pub fn tracked_sample_and_shape(&self, max: usize) -> (Vec<PathBuf>, Option<(u64, u64)>) {
        let all = on_disk(&self.index, &self.prefix);
        let shape = (!all.is_empty()).then(|| (all.len() as u64, holding_dirs(&all).max(1)));
        (as_paths(spread(&all, max)), shape)
    }
}

/// The index's summary and, when there is an index, its recorded sizes.
pub fn read(repo: &Repo) -> Result<(IndexSummary, Option<RootIndex>), GitProblem> {
    let Some(index) = open_index(repo)? else {
        return Ok((IndexSummary::default(), None));
    };
    let prefix = index_prefix(&repo.prefix);
    let summary = summary_of(&index, &prefix);
    let worktree = repo.worktree.clone();
    Ok((
        summary,
        Some(RootIndex {
            index,
            prefix,
            worktree,
        }),
    ))
}

/// The index's entries that are racily clean: recorded with a modification time no older than
/// the index file's own (to the second), as a checkout leaves every file it writes within the
/// index's second. git cannot trust their stat data and reads each of them again on every
/// status until it next writes the index, which `--no-optional-locks` never does. 0 without an
/// index or a readable one.
pub fn racily_clean(repo: &Repo) -> u64 {
    let written = std::fs::metadata(repo.index_path())
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok());
    let (Some(written), Ok(Some(index))) = (written, open_index(repo)) else {
        return 0;
    };
    let file = index.state();
    file.entries()
        .iter()
        .filter(|e| e.mode != Mode::DIR && e.mode != Mode::COMMIT)
        .filter(|e| u64::from(e.stat.mtime.secs) >= written.as_secs())
        .count() as u64
}

/// Counts the index's entries and says what the count means.
pub fn summarize(repo: &Repo) -> Result<IndexSummary, GitProblem> {
    read(repo).map(|(summary, _)| summary)
}

fn summary_of(index: &Index, prefix: &[u8]) -> IndexSummary {
    let file = index.state();
    let mut s = IndexSummary {
        version: index.version,
        header_entries: index.header_entries,
        entries: file.entries().len() as u64,
        split: index.split,
        sparse: file.is_sparse(),
        ..Default::default()
    };
    for entry in file.entries() {
        let path = entry.path(file);
        if !path.starts_with(prefix) {
            continue;
        }
        s.entries_under_root += 1;
        if entry.mode == Mode::DIR {
            s.sparse_dirs += 1;
        }
        if entry.mode == Mode::COMMIT {
            s.submodules += 1;
        }
        if entry.flags.contains(Flags::SKIP_WORKTREE) {
            s.skip_worktree += 1;
        }
        if entry.stage_raw() != 0 {
            s.conflict_entries += 1;
        }
    }
    s
}

/// Up to `max` tracked paths (relative to `root`, which is worktree-relative when `root` is the
/// top of the worktree), spread evenly over the index, for timing `lstat` on the repository's own
/// files. Only files and symlinks that should be on disk: sparse directories, submodules,
/// skip-worktree entries and conflict stages are left out. Empty when `root` is not in a git
/// worktree or nothing is tracked yet.
pub fn tracked_sample(
    root: &Path,
    max: usize,
    automount_root: &Path,
) -> Result<Vec<PathBuf>, GitProblem> {
    let Some(repo) = discover(root, automount_root)? else {
        return Ok(Vec::new());
    };
    let Some(index) = open_index(&repo)? else {
        return Ok(Vec::new());
    };
    Ok(on_disk_paths(&index, &index_prefix(&repo.prefix), max))
}

fn on_disk_paths(index: &Index, prefix: &[u8], max: usize) -> Vec<PathBuf> {
    as_paths(spread(&on_disk(index, prefix), max))
}

/// The tracked files that should be on disk below `prefix`, relative to it, in index order.
fn on_disk<'a>(index: &'a Index, prefix: &[u8]) -> Vec<&'a [u8]> {
    let file = index.state();
    file.entries()
        .iter()
        .filter(|e| {
            matches!(e.mode, Mode::FILE | Mode::FILE_EXECUTABLE | Mode::SYMLINK)
                && e.stage_raw() == 0
                && !e.flags.contains(Flags::SKIP_WORKTREE)
        })
        .map(|e| e.path(file).as_bytes())
        .filter_map(|p| p.strip_prefix(prefix))
        .collect()
}

fn as_paths(paths: Vec<&[u8]>) -> Vec<PathBuf> {
    paths
        .into_iter()
        .map(|p| PathBuf::from(OsStr::from_bytes(p)))
        .collect()
}

/// The directories holding `paths` (relative, `/`-separated) and their ancestors, the root
/// (empty) included when there is any path.
fn holding_dirs(paths: &[&[u8]]) -> u64 {
    let mut dirs: std::collections::HashSet<&[u8]> = std::collections::HashSet::new();
    for path in paths {
        let mut dir: &[u8] = path;
        loop {
            dir = dir.rfind_byte(b'/').map_or(&dir[..0], |i| &dir[..i]);
            // Its ancestors were counted with it.
            if !dirs.insert(dir) || dir.is_empty() {
                break;
            }
        }
    }
    dirs.len() as u64
}

/// `max` items at even strides over `items` (all of them when there are fewer).
pub fn spread<T: Copy>(items: &[T], max: usize) -> Vec<T> {
    let n = items.len();
    if n <= max {
        return items.to_vec();
    }
    (0..max).map(|i| items[i * n / max]).collect()
}

/// Threads git's preload-index uses for `entries` (preload-index.c: 500 entries per thread,
/// at most 20, and no threads at all below two).
pub fn git_preload_threads(entries: u64) -> usize {
    match entries / 500 {
        0 | 1 => 1,
        t => t.min(20) as usize,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holding_dirs_counts_every_ancestor_once_with_the_root() {
        let paths: Vec<&[u8]> = vec![b"a.txt", b"src/x/f", b"src/x/g", b"src/y.txt", b"src/z/w/v"];
        // "", src, src/x, src/z, src/z/w
        assert_eq!(holding_dirs(&paths), 5);
        // As the paths' own ancestors count them.
        let set: std::collections::HashSet<&Path> = paths
            .iter()
            .map(|p| Path::new(OsStr::from_bytes(p)))
            .flat_map(|p| p.ancestors().skip(1))
            .collect();
        assert_eq!(set.len(), 5);
        assert_eq!(holding_dirs(&[]), 0);
    }

    #[test]
    fn spread_is_even_and_bounded() {
        let items: Vec<u32> = (0..10).collect();
        assert_eq!(spread(&items, 5), vec![0, 2, 4, 6, 8]);
        assert_eq!(spread(&items, 20), items);
        assert_eq!(spread(&items, 0), Vec::<u32>::new());
        assert_eq!(spread(&items, 3), vec![0, 3, 6]);
    }

    #[test]
    fn prefix_gets_one_trailing_slash() {
        assert_eq!(index_prefix(Path::new("")), b"".to_vec());
        assert_eq!(index_prefix(Path::new("a/b")), b"a/b/".to_vec());
    }

    #[test]
    fn a_windows_gitdir_maps_to_the_drive_under_the_automount_root() {
        let map =
            |target: &str, root: &str| wsl_path_of_windows_path(target.as_bytes(), Path::new(root));
        let expected = Some(PathBuf::from("/mnt/c/Users/me/repo/.git/worktrees/x"));
        assert_eq!(map("C:/Users/me/repo/.git/worktrees/x", "/mnt/"), expected);
        assert_eq!(
            map("C:\\Users\\me\\repo\\.git\\worktrees\\x", "/mnt/"),
            expected
        );
        assert_eq!(
            map("c:\\Users/me//repo\\.git/worktrees/x\\", "/mnt/"),
            expected
        );
        assert_eq!(
            map("D:/src/app/.git", "/"),
            Some(PathBuf::from("/d/src/app/.git"))
        );
        assert_eq!(
            map("E:\\", "/win"),
            Some(PathBuf::from("/win/e")),
            "a root without its trailing slash"
        );
        for not_windows in [
            "../.git/worktrees/x",
            "/home/me/repo/.git",
            "C:",
            "C:repo",
            "1:/x",
            "//server/share",
        ] {
            assert_eq!(map(not_windows, "/mnt/"), None, "{not_windows}");
        }
    }
}
