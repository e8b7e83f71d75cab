//! The plan: where the tree goes, what it holds, what will be left behind, and whether it fits.

use super::journal::Recovered;
use super::names::{case_collisions, valid_on_windows};
use super::windows_builds;
use crate::base::counts::TreeCounts;
use crate::base::dirfd::Meta;
use crate::base::pathtext::RelPath;
use crate::base::shared_dir::SharedDir;
use crate::store::manifest::{FileRecord, Stamp};
use rustix::fs::FileType;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Dir,
    File,
    Symlink,
}

/// One thing to copy, with the source's metadata at planning time.
#[derive(Debug, Clone)]
pub struct Entry {
    pub rel: PathBuf,
    pub kind: Kind,
    pub size: u64,
    pub mode: u32,
    pub mtime: (i64, i64),
    pub atime: (i64, i64),
    /// Ctime and inode, to tell a journalled copy is still of this file.
    pub stamp: Stamp,
    /// Another name of the same file earlier in the plan (a hard link within the tree): the
    /// copy links to that one's copy, as `cp -a` and `rsync -H` do, instead of a second file.
    pub hard_link_of: Option<PathBuf>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Skipped {
    pub path: RelPath,
    pub reason: String,
    pub files: u64,
    pub bytes: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Problem {
    pub path: RelPath,
    pub error: String,
}

impl From<&Skipped> for Problem {
    fn from(skipped: &Skipped) -> Self {
        Self {
            path: skipped.path.clone(),
            error: skipped.reason.clone(),
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct NodeModules {
    pub path: RelPath,
    /// Regular files, as `check` counts them; symlinks (`.bin/` links) apart.
    pub files: u64,
    pub symlinks: u64,
    pub bytes: u64,
    /// True when it is left behind, to be reinstalled at the destination.
    pub skipped: bool,
    /// The command that reinstalls it as the lockfile beside it pins it (`npm ci` only with a
    /// `package-lock.json`), run in its parent folder.
    pub install: String,
    /// Native builds for Windows found in it (a few examples): it only works from Windows.
    pub windows_builds: Vec<RelPath>,
}

/// The reinstall command that fits the lockfiles in a `node_modules`' parent folder.
pub fn install_command(has: impl Fn(&str) -> bool) -> &'static str {
    if has("pnpm-lock.yaml") {
        "pnpm install --frozen-lockfile"
    } else if has("yarn.lock") {
        "yarn install --immutable"
    } else if has("bun.lockb") || has("bun.lock") {
        "bun install"
    } else if has("package-lock.json") || has("npm-shrinkwrap.json") {
        "npm ci"
    } else {
        "npm install"
    }
}

/// What one copy copies, for the kernel's copy, check, seal and estimate: the entries and their
/// totals, where from and to, what was measured for the estimate, and what an interrupted run's
/// journal proves copied. A move's plan holds one; a sync builds its own.
#[derive(Debug, Clone, Default)]
pub struct CopyPlan {
    pub source: PathBuf,
    pub destination: PathBuf,
    pub staging: PathBuf,
    /// What `entries` add up to.
    pub totals: TreeCounts,
    pub entries: Vec<Entry>,
    /// What the estimate is computed from, measured once after the walk.
    pub measured: Option<Measured>,
    /// Why the source or the destination could not be measured, when they could not.
    pub unmeasured: Option<String>,
    /// What an interrupted run's journal proves is already copied.
    pub recovered: Recovered,
    /// The files a one-pass move copied (and read back) while it walked, by path; each counts
    /// as copied by this run where the plan's entry still has the state it was copied in.
    pub copied_ahead: HashMap<PathBuf, FileRecord>,
}

/// What the walk found and what the run decided about it (what the move mends afterwards is
/// found beside it, `repairs::Repairs`); the estimate (`estimate::of`), the
/// resume figures (`CopyPlan::resume`) and the document shown (`document::of`) are computed
/// from it when asked, so nothing here is kept in step by hand.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    pub copy: CopyPlan,
    pub free_bytes: Option<u64>,
    pub free_inodes: Option<u64>,
    pub walk_ms: u64,
    pub node_modules: Vec<NodeModules>,
    pub skipped: Vec<Skipped>,
    pub unreadable: Vec<Problem>,
    pub case_collisions: Vec<Vec<RelPath>>,
    pub windows_invalid: Vec<RelPath>,
    /// Every question the move asks about this plan and the repairs found beside it, in order.
    pub questions: Vec<Question>,
    pub past_path_max: u64,
    pub interrupted_elsewhere: Vec<super::staging::Elsewhere>,
}

/// Files an interrupted earlier run already copied and verified, and the space the rest needs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Resume {
    pub files: u64,
    pub bytes: u64,
    /// Space the copy still needs at the destination (files rounded up to 4 KiB blocks).
    pub needed_bytes: u64,
    /// Of `needed_bytes`: the files' own bytes, a hard-linked file once.
    pub needed_file_bytes: u64,
    /// Folders and symlinks still to make, each taking one 4 KiB block in `needed_bytes`.
    pub needed_other_entries: u64,
}

/// What the estimate is computed from; measured once per plan.
#[derive(Debug, Clone)]
pub struct Measured {
    pub source: crate::model::migration::SourceCosts,
    pub destination: crate::model::MountCosts,
}

/// One question, with what Enter answers and what `--yes` answers.
#[derive(Debug, Clone, Serialize)]
pub struct Question {
    /// What it decides.
    pub id: QuestionId,
    pub text: String,
    /// The answer Enter gives.
    pub default: bool,
    /// The answer `--yes` gives.
    pub with_yes: bool,
}

/// What a question decides; its JSON form is the name the documented schema gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QuestionId {
    /// Leave node_modules behind (`node_modules`).
    NodeModules,
    /// Rewrite the old path inside the virtualenvs after the copy (`virtualenvs`).
    Virtualenvs,
    /// Leave behind the build output its tool writes again after a move (`build_output`).
    BuildOutput,
    /// Reset a git setting drvfs forced: its key (`core.fileMode`, `core.ignoreCase`).
    Setting(String),
    /// Move the linked worktrees along (`worktrees`).
    Worktrees,
    /// `--remove-source` after the copy (`remove_source`).
    RemoveSource,
    /// Copy, verify and move it (`copy`).
    Copy,
    /// Add the copy's `safe.directory` entries to Windows' global git config (`safe_directory`).
    SafeDirectory,
}

impl QuestionId {
    pub fn name(&self) -> &str {
        match self {
            QuestionId::NodeModules => "node_modules",
            QuestionId::Virtualenvs => "virtualenvs",
            QuestionId::BuildOutput => "build_output",
            QuestionId::Setting(key) => key,
            QuestionId::Worktrees => "worktrees",
            QuestionId::RemoveSource => "remove_source",
            QuestionId::Copy => "copy",
            QuestionId::SafeDirectory => "safe_directory",
        }
    }
}

impl Serialize for QuestionId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// Linux's limit on a path handed to one system call, its terminating NUL included.
const PATH_MAX: usize = 4096;

pub fn blocks(size: u64) -> u64 {
    size.div_ceil(4096) * 4096
}

fn times(meta: &Meta) -> ((i64, i64), (i64, i64)) {
    (
        (meta.mtime(), meta.mtime_nsec()),
        (meta.atime(), meta.atime_nsec()),
    )
}

/// The outermost `node_modules` folder `rel` is in, if it is in one.
pub fn outermost_node_modules(rel: &Path) -> Option<PathBuf> {
    let mut prefix = PathBuf::new();
    for c in rel.components() {
        prefix.push(c);
        if c.as_os_str() == "node_modules" {
            return Some(prefix);
        }
    }
    None
}

/// An entry the walk met, with its metadata or why it could not be read.
type Met = (PathBuf, std::io::Result<Meta>);

/// Walks the source once, without following a single symlink, and builds the plan.
pub fn build(source: &Path, destination: &Path, staging: &Path, progress: bool) -> Plan {
    build_offering(source, destination, staging, progress, &|_, _, _| {})
}

/// What the walk hands on as it meets each entry (its path relative to the source, its
/// metadata, and its folder as the walk holds it open), from the walk's own threads: a
/// one-pass move copies it at once.
pub type Offer<'a> = dyn Fn(&Path, &Meta, OpenDir) + Sync + 'a;

/// The folder an entry was listed in, open, when the walk could share it.
pub type OpenDir<'a> = Option<&'a Arc<SharedDir>>;

/// `build`, handing each entry the walk keeps to `offer` as soon as it is met.
pub fn build_offering(
    source: &Path,
    destination: &Path,
    staging: &Path,
    progress: bool,
    offer: &Offer,
) -> Plan {
    let started = Instant::now();
    let (found, unlisted) = walk(source, progress, offer);
    let mut walked = Walked::default();
    for (rel, meta) in found {
        walked.add(rel, meta);
    }
    for (rel, error) in unlisted {
        walked.unreadable.push(Problem {
            path: RelPath::from(rel.as_path()),
            error,
        });
    }
    let mut plan = Plan {
        copy: CopyPlan {
            source: source.to_path_buf(),
            destination: destination.to_path_buf(),
            staging: staging.to_path_buf(),
            entries: walked.entries,
            ..CopyPlan::default()
        },
        free_bytes: super::destination::free_bytes(destination),
        free_inodes: super::destination::free_inodes(destination),
        node_modules: walked.node_modules,
        skipped: walked.skipped,
        unreadable: walked.unreadable,
        windows_invalid: walked.windows_invalid,
        walk_ms: started.elapsed().as_millis() as u64,
        ..Plan::default()
    };
    windows_addons(&mut plan.node_modules, source, walked.addons);
    plan.name_installs();
    plan.recount();
    plan
}

/// Every entry below `source`, parents before children and each node_modules in one run, and
/// the folders that could not be listed, with why.
fn walk(source: &Path, progress: bool, offer: &Offer) -> (Vec<Met>, Vec<(PathBuf, String)>) {
    let found: Mutex<Vec<Met>> = Mutex::default();
    let each = |dir: &Path, name: &OsStr, meta: &std::io::Result<Meta>, at: OpenDir| {
        // A probe's scratch folder (one a SIGKILL left) is wsl-place's, not the repository's:
        // the walk does not enter it, and the copy must not make it either.
        if crate::measure::probe::scratch::is_scratch_name(name.as_bytes())
            && meta.as_ref().is_ok_and(|m| m.is_dir())
        {
            return;
        }
        let rel = dir.strip_prefix(source).unwrap_or(dir).join(name);
        if crate::measure::changes::git_index_lock(&rel) {
            return;
        }
        let meta = match meta {
            Ok(meta) => {
                offer(&rel, meta, at);
                Ok(*meta)
            }
            Err(e) => Err(std::io::Error::new(e.kind(), e.to_string())),
        };
        if let Ok(mut found) = found.lock() {
            found.push((rel, meta));
        }
    };
    let unlisted = crate::measure::scan::walk_each_at(
        source,
        &crate::base::progress::Drawn::phases(progress),
        &each,
    );
    let mut found = found.into_inner().unwrap_or_else(|p| p.into_inner());
    found.sort_by(|a, b| a.0.cmp(&b.0));
    (found, unlisted)
}

impl Entry {
    /// A regular file as the walk met it, as `Walked::add` records one that has one name.
    pub fn file(rel: PathBuf, meta: &Meta) -> Self {
        let (mtime, atime) = times(meta);
        Entry {
            rel,
            kind: Kind::File,
            size: meta.len(),
            mode: meta.mode() & 0o7777,
            mtime,
            atime,
            stamp: Stamp::of(meta),
            hard_link_of: None,
        }
    }
}

impl CopyPlan {
    /// The files an interrupted run already verified (as its journal has them and the source
    /// still is), and what space the rest needs; counted from what `entries` holds now.
    pub fn resume(&self) -> Resume {
        let mut resume = Resume::default();
        let recovered = &self.recovered;
        for entry in &self.entries {
            let done = recovered
                .synced
                .get(&entry.rel)
                .or_else(|| recovered.unsynced.get(&entry.rel))
                .is_some_and(|r| r.unchanged(entry.size, entry.mtime, entry.stamp));
            match entry.kind {
                // Another name of a file already counted: a link, no data and no inode.
                Kind::File if entry.hard_link_of.is_some() => {}
                Kind::File if done => {
                    resume.files += 1;
                    resume.bytes += entry.size;
                }
                Kind::File => {
                    resume.needed_bytes += blocks(entry.size);
                    resume.needed_file_bytes += entry.size;
                }
                _ => {
                    resume.needed_bytes += 4096;
                    resume.needed_other_entries += 1;
                }
            }
        }
        resume
    }

    /// The totals of what `entries` now holds.
    pub fn count(&mut self) {
        let count = |k: Kind| self.entries.iter().filter(|e| e.kind == k).count() as u64;
        self.totals.files = count(Kind::File);
        self.totals.dirs = count(Kind::Dir);
        self.totals.symlinks = count(Kind::Symlink);
        self.totals.bytes = self.entries.iter().map(|e| e.size).sum();
    }
}

impl Plan {
    /// Leaves every node_modules behind, to be reinstalled at the destination.
    pub fn leave_node_modules(&mut self) {
        self.copy
            .entries
            .retain(|e| outermost_node_modules(&e.rel).is_none());
        for tree in &mut self.node_modules {
            tree.skipped = true;
        }
        self.recount();
    }

    /// Leaves everything below `roots` behind (build output its tool writes again, a virtualenv
    /// Windows Python made): the copy holds the rest.
    pub fn leave_behind(&mut self, roots: &[PathBuf]) {
        if roots.is_empty() {
            return;
        }
        self.copy
            .entries
            .retain(|e| !roots.iter().any(|root| e.rel.starts_with(root)));
        self.recount();
    }

    /// Each node_modules' reinstall command, from the lockfiles beside it.
    fn name_installs(&mut self) {
        let rels: HashSet<&Path> = self.copy.entries.iter().map(|e| e.rel.as_path()).collect();
        for tree in &mut self.node_modules {
            let parent = tree.path.as_path().parent().unwrap_or(Path::new(""));
            tree.install =
                install_command(|name| rels.contains(parent.join(name).as_path())).into();
        }
    }

    /// The totals and the collisions of what the copy now holds.
    fn recount(&mut self) {
        self.copy.count();
        let rels: Vec<&Path> = self.copy.entries.iter().map(|e| e.rel.as_path()).collect();
        self.case_collisions = case_collisions(&rels);
        let base = self.copy.destination.as_os_str().len() + 1;
        self.past_path_max = rels
            .iter()
            .filter(|rel| base + rel.as_os_str().len() >= PATH_MAX)
            .count() as u64;
    }
}

/// What the walk found, before it becomes a plan.
#[derive(Default)]
struct Walked {
    entries: Vec<Entry>,
    skipped: Vec<Skipped>,
    unreadable: Vec<Problem>,
    node_modules: Vec<NodeModules>,
    windows_invalid: Vec<RelPath>,
    /// Native addons (`.node`) in each node_modules (by index), to be told apart by header.
    addons: Vec<(usize, PathBuf)>,
    /// The first name seen of each file with more than one link, by device and inode.
    first_names: HashMap<(u64, u64), PathBuf>,
}

impl Walked {
    fn add(&mut self, rel: PathBuf, meta: std::io::Result<Meta>) {
        let meta = match meta {
            Ok(meta) => meta,
            Err(e) => {
                self.unreadable.push(Problem {
                    path: RelPath::from(rel.as_path()),
                    error: e.to_string(),
                });
                return;
            }
        };
        let Some(kind) = self.kind(&rel, &meta) else {
            return;
        };
        if let Some(name) = rel.file_name()
            && !valid_on_windows(name.as_bytes())
        {
            self.windows_invalid.push(RelPath::from(rel.as_path()));
        }
        if let Some(tree) = outermost_node_modules(&rel) {
            self.in_node_modules(RelPath(tree), &rel, kind, &meta);
        }
        let (mtime, atime) = times(&meta);
        let hard_link_of = (kind == Kind::File && meta.nlink() > 1)
            .then(|| {
                self.first_names
                    .entry((meta.dev(), meta.ino()))
                    .or_insert_with(|| rel.clone())
                    .clone()
            })
            .filter(|first| *first != rel);
        self.entries.push(Entry {
            rel,
            kind,
            size: if kind == Kind::File { meta.len() } else { 0 },
            mode: meta.mode() & 0o7777,
            mtime,
            atime,
            stamp: Stamp::of(&meta),
            hard_link_of,
        });
    }

    /// Counts an entry of the node_modules `tree` (the walk meets each in one run), and notes a
    /// Windows build in it.
    fn in_node_modules(&mut self, tree: RelPath, rel: &Path, kind: Kind, meta: &Meta) {
        if self.node_modules.last().map(|n| &n.path) != Some(&tree) {
            self.node_modules.push(NodeModules {
                path: tree,
                files: 0,
                symlinks: 0,
                bytes: 0,
                skipped: false,
                install: String::new(),
                windows_builds: Vec::new(),
            });
        }
        self.windows_build(rel, kind);
        if let Some(last) = self.node_modules.last_mut() {
            match kind {
                Kind::File => {
                    last.files += 1;
                    last.bytes += meta.len();
                }
                Kind::Symlink => last.symlinks += 1,
                Kind::Dir => {}
            }
        }
    }

    /// Notes a Windows build by its name in the last node_modules, or an addon to look into.
    fn windows_build(&mut self, rel: &Path, kind: Kind) {
        let index = self.node_modules.len().saturating_sub(1);
        let Some(tree) = self.node_modules.last_mut() else {
            return;
        };
        match windows_builds::sign(rel, kind == Kind::File) {
            windows_builds::Sign::Windows
                if tree.windows_builds.len() < windows_builds::EXAMPLES
                    // A package's own files are not another example.
                    && !tree
                        .windows_builds
                        .iter()
                        .any(|b| rel.starts_with(b.as_path())) =>
            {
                tree.windows_builds.push(RelPath::from(rel))
            }
            windows_builds::Sign::Addon => self.addons.push((index, rel.to_path_buf())),
            _ => {}
        }
    }

    /// What is copied; FIFOs, sockets and devices are recorded as skipped instead.
    fn kind(&mut self, rel: &Path, meta: &Meta) -> Option<Kind> {
        let what = match meta.file_type() {
            FileType::Directory => return Some(Kind::Dir),
            FileType::RegularFile => return Some(Kind::File),
            FileType::Symlink => return Some(Kind::Symlink),
            FileType::Fifo => "a FIFO",
            FileType::Socket => "a socket",
            FileType::BlockDevice | FileType::CharacterDevice => "a device",
            _ => "a special file",
        };
        self.skipped.push(Skipped {
            path: RelPath::from(rel),
            reason: format!("{what}; not copied"),
            files: 1,
            bytes: 0,
        });
        None
    }
}

/// Reads the header of a bounded number of `.node` addons per node_modules: PE ones are Windows
/// builds.
fn windows_addons(trees: &mut [NodeModules], source: &Path, addons: Vec<(usize, PathBuf)>) {
    let mut read = vec![0usize; trees.len()];
    for (index, rel) in addons {
        let (Some(tree), Some(read)) = (trees.get_mut(index), read.get_mut(index)) else {
            continue;
        };
        if tree.windows_builds.len() >= windows_builds::EXAMPLES
            || *read >= windows_builds::ADDONS_READ
        {
            continue;
        }
        *read += 1;
        if windows_builds::is_pe(&source.join(&rel)) {
            tree.windows_builds.push(RelPath(rel));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn install_command_fits_the_lockfile() {
        let with = |files: &'static [&'static str]| install_command(move |n| files.contains(&n));
        assert_eq!(with(&["package-lock.json"]), "npm ci");
        assert_eq!(with(&["pnpm-lock.yaml"]), "pnpm install --frozen-lockfile");
        assert_eq!(with(&["yarn.lock"]), "yarn install --immutable");
        assert_eq!(with(&["bun.lockb"]), "bun install");
        assert_eq!(with(&[]), "npm install");
    }

    #[test]
    fn windows_names() {
        assert!(valid_on_windows(b"main.rs"));
        assert!(valid_on_windows(b"CONSOLE.txt"));
        assert!(!valid_on_windows(b"con"));
        assert!(!valid_on_windows(b"Aux.h"));
        assert!(!valid_on_windows(b"a:b"));
        assert!(!valid_on_windows(b"trailing."));
        assert!(!valid_on_windows(b"trailing "));
        assert!(!valid_on_windows(b"what?"));
    }

    #[test]
    fn node_modules_is_its_outermost_folder() {
        assert_eq!(
            outermost_node_modules(Path::new("web/node_modules/x/node_modules/y")),
            Some(PathBuf::from("web/node_modules"))
        );
    }

    #[test]
    fn case_collisions_are_per_directory() {
        let rels = [
            Path::new("a/Readme.md"),
            Path::new("a/README.md"),
            Path::new("b/readme.md"),
            Path::new("a/other"),
        ];
        assert_eq!(
            case_collisions(&rels),
            vec![vec![
                RelPath::from(Path::new("a/README.md")),
                RelPath::from(Path::new("a/Readme.md"))
            ]]
        );
    }
}
