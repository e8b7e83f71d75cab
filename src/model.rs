//! The cost model: pure functions from what the scan counted and what the probe measured to
//! what a person will wait for. No I/O here, so every figure can be checked on fixed inputs.
//!
//! Assumptions (also in docs/probe.md):
//! - `git status` is start-up, set-up (config, refs, object store: about one more start-up of
//!   CPU), a fixed number of metadata calls in `.git`, taking and dropping `.git/index.lock`
//!   (a create and an unlink), reading the index,
//!   one `lstat` per index entry (spread over git's preload threads: one per 500 entries,
//!   2 to 20, serial below 1,000 entries), one directory listing per worktree directory (plus
//!   a `.gitignore` lookup there; the untracked cache is off by default) and per-entry CPU.
//! - Dependency trees are ignored by `.gitignore`, so `git status` does not walk them.
//! - The first `git status` after a copy `lstat`s, re-reads and hashes every tracked file,
//!   serially, because inode and ctime no longer match the index.
//! - An install or checkout is its file-system floor: create+write per file, mkdir per
//!   directory, bandwidth for the bytes beyond 4 KiB per file; network and scripts are not in it.

pub mod migration;

pub use crate::measure::gitindex::GitWalk;
use crate::measure::gitindex::git_preload_threads;
use crate::measure::probe::PerOp;
pub use crate::measure::probe::manager::ManagerTiming;
use crate::measure::scan::ScanReport;
use serde::Serialize;

/// Metadata calls git makes in `.git` per `git status` (HEAD, refs, config, packed-refs, index,
/// object lookups): counted with strace on git 2.47 in a small repository.
pub const GIT_FIXED_OPS: f64 = 90.0;
/// Process start-up when `git --version` could not be timed.
pub const GIT_STARTUP_MS: f64 = 1.5;
/// CPU git status spends before it reads the index (config, HEAD, refs, the object store), in
/// process start-ups: in CPU time (user + system, which a busy machine inflates less than wall
/// time), `git status` of a one-file repository costs 1.6-1.8 `git --version`s on this
/// project's machines (git 2.47), of which the fixed calls and the index are a few percent.
pub const GIT_SETUP_STARTUPS: f64 = 0.6;
/// Bytes per index entry (62 fixed + the path), for reading and writing the index.
pub const INDEX_BYTES_PER_ENTRY: f64 = 100.0;
/// CPU per index entry beyond its `lstat`: parsing it, comparing stat data, the leading-path
/// checks of preload, the HEAD/index comparison; with the next one fitted to git 2.47's steady
/// `git status` on ext4 with a core of its own (a real-time priority, so that other work on
/// this project's 2-core machines stays out) on redis, whisper.cpp, git, express and 1,000
/// small files: each within 20% (the earlier 0.7 and 0.6 us, fitted on a busy machine, put
/// them 10-38% high).
pub const CPU_US_PER_ENTRY: f64 = 0.42;
/// The part of `CPU_US_PER_ENTRY` git's main thread does (reading the index, the HEAD/index
/// comparison); the rest (comparing stat data, the leading-path checks) runs in preload's
/// threads beside their `lstat`s, and is shared out as those are. GIT_TRACE_PERFORMANCE of git
/// 2.47 on 8,401 entries on ext4: read cache 0.6 ms and diff-index 0.2 ms, preload 5.5-7.8 ms.
/// Charging all of it serially put indexes of 5,000-8,400 entries 21-27% high.
pub const CPU_US_PER_ENTRY_MAIN: f64 = 0.1;
/// CPU per listed worktree entry: the index lookup and the ignore rules.
pub const CPU_US_PER_LISTED: f64 = 0.36;
/// Hashing throughput of the first `git status` after a copy at the reference pace
/// (`REFERENCE_SHA1_US_PER_MIB`), bytes per microsecond, for files over 32 KiB, which git maps
/// and hashes in place (SHA-1, collision-detecting); the next one is for smaller files, which
/// git reads into a buffer first. Fitted on the CPU time (user + system, which a busy machine
/// inflates less than wall time) of the first status after `cp -a` less the steady status, of
/// redis (1,623 files: 6.9 MB read, 9.4 MB mapped), whisper.cpp (1,885: 8.0 / 29.1 MB), git
/// (4,847: 19.1 / 29.1 MB), express (213: 0.6 / 0.1 MB) and 1,000 files of 200 bytes, git 2.47
/// on this project's 2-core machines: 3.3 us per file, 4.6 ns per read byte, 1.6 ns per
/// mapped byte, each repository within 10%; the same repositories' wall time with git given a
/// core of its own (a real-time priority) fit within 11%. The per-file part is less than the
/// `lstat`, open and read the probe prices on ext4 (~4 us), so no CPU per file is
/// added to those calls.
pub const HASH_BYTES_PER_US: f64 = 625.0;
pub const READ_HASH_BYTES_PER_US: f64 = 215.0;
/// The pace the CPU terms above were fitted at (`probe::cpu`): a machine that hashes slower
/// gets every CPU term scaled by its own figure over this.
pub use crate::measure::probe::cpu::REFERENCE_SHA1_US_PER_MIB;
/// zlib inflate + hash throughput when checking files out, bytes per microsecond.
pub const INFLATE_BYTES_PER_US: f64 = 200.0;
/// CPU per checked-out file (object lookup, inflate set-up, index entry).
pub const CPU_US_PER_CHECKOUT: f64 = 15.0;
/// Average npm package, from lock-file counts when node_modules is absent.
pub const FILES_PER_PACKAGE: u64 = 28;
pub const DIRS_PER_PACKAGE: u64 = 5;
pub const BYTES_PER_PACKAGE: u64 = 140_000;

const SMALL_FILE: f64 = 4096.0;
const MIB: f64 = 1_048_576.0;

/// One mount's costs, microseconds per call, as the model needs them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MountCosts {
    /// Serial `lstat` of the repository's own files, path walk included (the scratch files'
    /// when none were timed).
    pub lstat_us: f64,
    /// (threads, wall-clock microseconds per entry), sorted by threads.
    pub parallel_lstat: Vec<(usize, f64)>,
    /// Each scratch operation's cost (0 for one not measured). Its `lstat` is one level below an
    /// open directory: what an `lstat` costs without the path walk that `lstat_us` includes.
    pub scratch: PerOp<f64>,
    /// The CPU's pace while this mount was probed: microseconds to hash one MiB with git's
    /// SHA-1 (0 when not measured: the reference pace).
    pub sha1_us_per_mib: f64,
    /// How far the samples let the mean move, as a fraction of it (about two standard errors
    /// of the dominant figures): the sampling part of a prediction's range.
    pub sampling_error: f64,
}

impl MountCosts {
    /// What walking from the repository's root to one of its files adds to any call on it:
    /// a tracked file's `lstat` minus a scratch file's.
    pub fn path_walk_us(&self) -> f64 {
        (self.lstat_us - self.scratch.lstat).max(0.0)
    }

    /// Wall-clock microseconds per `lstat` with `threads` threads: serial latency for one,
    /// else interpolated (log-log) between the measured thread counts, clamped at their ends.
    pub fn lstat_per_entry_us(&self, threads: usize) -> f64 {
        // Never above the figure for fewer threads: git gives each thread 500 entries or more,
        // so the wake-up delays that can make a short measured run look slower than one thread
        // are amortised away in git.
        let mut points: Vec<(f64, f64)> = vec![(1.0, self.lstat_us)];
        let mut floor = self.lstat_us;
        for &(t, us) in self
            .parallel_lstat
            .iter()
            .filter(|&&(t, us)| t > 1 && us > 0.0)
        {
            floor = floor.min(us);
            points.push((t as f64, floor));
        }
        if threads <= 1 {
            return self.lstat_us;
        }
        let t = threads as f64;
        if let Some(&(last_t, last_us)) = points.last()
            && t >= last_t
        {
            return last_us;
        }
        for pair in points.windows(2) {
            let ((t0, u0), (t1, u1)) = (pair[0], pair[1]);
            if t >= t0 && t <= t1 {
                let f = (t.ln() - t0.ln()) / (t1.ln() - t0.ln());
                return (u0.ln() + f * (u1.ln() - u0.ln())).exp();
            }
        }
        self.lstat_us
    }

    /// How much slower than the reference the CPU terms run here (1 when not measured).
    pub fn cpu_pace(&self) -> f64 {
        crate::measure::probe::cpu::pace(self.sha1_us_per_mib, REFERENCE_SHA1_US_PER_MIB)
    }

    fn bytes_per_us(&self) -> f64 {
        if self.scratch.write_mib > 0.0 {
            MIB / self.scratch.write_mib
        } else {
            f64::INFINITY
        }
    }
}

/// Where the install figures come from; in JSON `node_modules`, `package-lock.json` or
/// `dependency trees`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum InstallSource {
    /// The node_modules trees the scan counted.
    #[serde(rename = "node_modules")]
    NodeModules,
    /// An estimate per package in package-lock.json, when node_modules is absent.
    #[serde(rename = "package-lock.json")]
    PackageLock,
    /// The other dependency trees the scan counted (venv, vendor, ...).
    #[serde(rename = "dependency trees")]
    DependencyTrees,
    /// What a package manager installed to be timed (`probe::manager`).
    #[serde(rename = "sample")]
    Sample,
}

impl InstallSource {
    /// The JSON name, for people too.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::NodeModules => "node_modules",
            Self::PackageLock => "package-lock.json",
            Self::DependencyTrees => "dependency trees",
            Self::Sample => "sample",
        }
    }
}

/// What a dependency install recreates.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InstallFigures {
    pub files: u64,
    pub dirs: u64,
    pub bytes: u64,
    /// Packages: from the lock file when there is one, else the files over an average package.
    pub packages: u64,
    /// `node_modules`, `dependency trees` or `package-lock.json` (an estimate per package).
    pub source: InstallSource,
}

/// Files of an average npm package (node_modules over its packages), when only files are known.
pub const FILES_PER_INSTALLED_PACKAGE: u64 = 16;

/// The repository as the model sees it: a small value, so the model is testable without a scan.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RepoFigures {
    /// Index entries (0 when this is not a git repository).
    pub tracked: u64,
    /// Files and directories git's untracked walk visits: the tree minus dependency trees and
    /// minus what `.gitignore` excludes.
    pub worktree_files: u64,
    pub worktree_dirs: u64,
    pub worktree_bytes: u64,
    /// Bytes of the tracked files as the index records them, and the part in files over 32 KiB
    /// (which git maps rather than reads); None when the index gave no sizes.
    pub tracked_bytes: Option<u64>,
    pub mapped_bytes: u64,
    pub install: Option<InstallFigures>,
}

impl RepoFigures {
    /// From the scan; `lock_packages` counts a package-lock.json (the install's packages, and
    /// its files when node_modules is absent); `git_dir_files` are the files of a `.git` inside
    /// the root, which the scan counts in `files` but git's walk never lists.
    pub fn from_scan(
        scan: &ScanReport,
        lock_packages: Option<u64>,
        git_dir_files: Option<u64>,
    ) -> Self {
        let deps = scan.node_modules.iter().chain(&scan.dependency_trees);
        let (dep_files, dep_dirs, dep_bytes) = deps.fold((0, 0, 0), |(f, d, b), t| {
            (f + t.files, d + t.dirs, b + t.bytes)
        });
        let lock_packages = lock_packages.filter(|&p| p > 0);
        let install = if !scan.node_modules.is_empty() {
            let nm = scan.node_modules.iter().fold((0, 0, 0), |(f, d, b), t| {
                (f + t.files, d + t.dirs, b + t.bytes)
            });
            Some(InstallFigures {
                files: nm.0,
                dirs: nm.1,
                bytes: nm.2,
                packages: lock_packages.unwrap_or((nm.0 / FILES_PER_INSTALLED_PACKAGE).max(1)),
                source: InstallSource::NodeModules,
            })
        } else if let Some(packages) = lock_packages {
            Some(InstallFigures {
                files: packages * FILES_PER_PACKAGE,
                dirs: packages * DIRS_PER_PACKAGE,
                bytes: packages * BYTES_PER_PACKAGE,
                packages,
                source: InstallSource::PackageLock,
            })
        } else if dep_files > 0 {
            Some(InstallFigures {
                files: dep_files,
                dirs: dep_dirs,
                bytes: dep_bytes,
                packages: (dep_files / FILES_PER_INSTALLED_PACKAGE).max(1),
                source: InstallSource::DependencyTrees,
            })
        } else {
            None
        };
        let tracked = scan.tracked.unwrap_or(0);
        Self {
            tracked,
            worktree_files: scan
                .files
                .saturating_sub(dep_files + git_dir_files.unwrap_or(0))
                .max(tracked),
            worktree_dirs: scan.dirs.saturating_sub(dep_dirs).max(1),
            worktree_bytes: scan.bytes.saturating_sub(dep_bytes),
            tracked_bytes: None,
            mapped_bytes: 0,
            install,
        }
    }

    /// The index knows what the scan cannot separate: which tracked files git's walk lists
    /// and which directories it opens (those holding tracked files that `.gitignore` does not
    /// exclude), and the sizes of the tracked files.
    pub fn refine_with_index(&mut self, walk: &GitWalk) {
        self.tracked = self.tracked.max(walk.tracked);
        // Tracked files under an ignored directory are `lstat`ed but never listed.
        let untracked = self.worktree_files.saturating_sub(self.tracked);
        self.worktree_files = walk.listed_tracked + untracked;
        self.worktree_dirs = walk.walked_dirs.max(1);
        if walk.tracked_bytes > 0 {
            self.tracked_bytes = Some(walk.tracked_bytes);
            self.mapped_bytes = walk.mapped_bytes;
        }
    }

    fn tracked_bytes(&self) -> f64 {
        if let Some(bytes) = self.tracked_bytes {
            return bytes as f64;
        }
        if self.worktree_files == 0 {
            return 0.0;
        }
        self.worktree_bytes as f64 * (self.tracked as f64 / self.worktree_files as f64).min(1.0)
    }
}

/// Steady-state `git status`, milliseconds.
pub fn git_status_ms(repo: &RepoFigures, c: &MountCosts, startup_ms: f64) -> f64 {
    let entries = repo.tracked as f64;
    let dirs = repo.worktree_dirs as f64;
    let listed = (repo.worktree_files + repo.worktree_dirs) as f64;
    // git status takes `.git/index.lock` to write back a refreshed index, and drops it when
    // nothing changed (unless GIT_OPTIONAL_LOCKS=0).
    let fixed_us = GIT_FIXED_OPS * c.lstat_us + c.scratch.create + c.scratch.unlink;
    let index_us = c.scratch.read + entries * INDEX_BYTES_PER_ENTRY / c.bytes_per_us();
    let per_entry_lstat = c.lstat_per_entry_us(git_preload_threads(repo.tracked));
    let lstat_us = entries * per_entry_lstat;
    let walk_us = dirs * (c.scratch.opendir + c.lstat_us) + listed * c.scratch.readdir_entry;
    // Preload's threads share their CPU work as they share their lstats (on a slow mount the
    // lstats overlap far more than the cores could, but there this term is negligible).
    let preload_speedup = if per_entry_lstat > 0.0 {
        (c.lstat_us / per_entry_lstat).max(1.0)
    } else {
        1.0
    };
    let entry_cpu_us =
        CPU_US_PER_ENTRY_MAIN + (CPU_US_PER_ENTRY - CPU_US_PER_ENTRY_MAIN) / preload_speedup;
    let cpu_us = (entries * entry_cpu_us + listed * CPU_US_PER_LISTED) * c.cpu_pace();
    startup_ms * (1.0 + GIT_SETUP_STARTUPS)
        + (fixed_us + index_us + lstat_us + walk_us + cpu_us) / 1e3
}

/// Answering git's query: a round trip over the daemon's Unix socket and its reply. Assumed,
/// not measured here (no git >= 2.55 on this project's machines): docs/fsmonitor.md.
pub const FSMONITOR_QUERY_MS: f64 = 1.0;
/// The share of the per-entry CPU left when fsmonitor vouches for an entry: git still walks the
/// index, but compares no stat data. Assumed, like the query.
pub const FSMONITOR_CPU_SHARE: f64 = 0.5;

/// Steady-state `git status` with git's fsmonitor daemon and the untracked cache: what is left
/// when git skips the `lstat` of every index entry (the daemon vouches for them) and the
/// listing of every unchanged directory (the untracked cache, which fsmonitor keeps valid).
/// Start-up, set-up, `.git` itself and reading the index remain.
pub fn git_status_fsmonitor_ms(repo: &RepoFigures, c: &MountCosts, startup_ms: f64) -> f64 {
    let entries = repo.tracked as f64;
    let fixed_us = GIT_FIXED_OPS * c.lstat_us + c.scratch.create + c.scratch.unlink;
    let index_us = c.scratch.read + entries * INDEX_BYTES_PER_ENTRY / c.bytes_per_us();
    let cpu_us = entries * CPU_US_PER_ENTRY * FSMONITOR_CPU_SHARE * c.cpu_pace();
    startup_ms * (1.0 + GIT_SETUP_STARTUPS)
        + FSMONITOR_QUERY_MS
        + (fixed_us + index_us + cpu_us) / 1e3
}

/// A first estimate of `git status` from the tracked `lstat` figures alone, taken before the
/// scratch rounds to decide how much more probing the answer is worth: every other call is
/// taken to cost one `lstat`, and bandwidth to be free.
pub fn git_status_pilot_ms(
    entries: u64,
    dirs: u64,
    lstat_us: f64,
    parallel_lstat: Vec<(usize, f64)>,
    startup_ms: f64,
) -> f64 {
    let c = MountCosts {
        lstat_us,
        parallel_lstat,
        scratch: PerOp {
            readdir_entry: 0.0,
            write_mib: 0.0,
            read_mib: 0.0,
            ..PerOp::all(lstat_us)
        },
        sha1_us_per_mib: 0.0,
        sampling_error: 0.0,
    };
    let repo = RepoFigures {
        tracked: entries,
        worktree_files: entries,
        worktree_dirs: dirs,
        worktree_bytes: 0,
        tracked_bytes: None,
        mapped_bytes: 0,
        install: None,
    };
    git_status_ms(&repo, &c, startup_ms)
}

/// The first `git status` after a copy: preload finds every entry changed, so the main thread
/// `lstat`s each one again, opens it (walking its path again), reads it (32 KiB or less) or
/// maps it, and hashes it, serially (strace of git 2.47 on redis, whisper.cpp and 8,400 small
/// files: `lstat`, `openat`, `read` or `mmap`, `close`; no `fstat`); hashing needs each file's
/// attributes, so git also tries to open `.gitattributes` in every directory, which is not
/// there (a path walk and a failed lookup). Then the index is written back.
pub fn first_git_status_ms(repo: &RepoFigures, c: &MountCosts, startup_ms: f64) -> f64 {
    let entries = repo.tracked as f64;
    let per_file_us = c.lstat_us + c.scratch.read + c.path_walk_us();
    let attributes_us = repo.worktree_dirs as f64 * (c.path_walk_us() + c.scratch.lstat);
    let mapped = repo.mapped_bytes as f64;
    let read = (repo.tracked_bytes() - mapped).max(0.0);
    let mapped_us = mapped / MIB * c.scratch.read_mib;
    let hash_us = (read / READ_HASH_BYTES_PER_US + mapped / HASH_BYTES_PER_US) * c.cpu_pace();
    let rehash_us = entries * per_file_us + attributes_us + hash_us + mapped_us;
    // The lock git status takes anyway (in `git_status_ms`) now gets written and renamed.
    let index_write_us = entries * INDEX_BYTES_PER_ENTRY / c.bytes_per_us();
    git_status_ms(repo, c, startup_ms) + (rehash_us + index_write_us) / 1e3
}

/// A fresh `git clone`'s checkout (objects already local): every tracked file written.
pub fn checkout_ms(repo: &RepoFigures, c: &MountCosts, startup_ms: f64) -> f64 {
    let entries = repo.tracked as f64;
    let bytes = repo.tracked_bytes();
    let extra_bytes = (bytes - entries * SMALL_FILE).max(0.0);
    let pace = c.cpu_pace();
    let files_us = entries * (c.scratch.create + CPU_US_PER_CHECKOUT * pace);
    let dirs_us = repo.worktree_dirs as f64 * c.scratch.mkdir;
    let bytes_us = extra_bytes / c.bytes_per_us() + bytes / INFLATE_BYTES_PER_US * pace;
    let index_us = c.scratch.create + entries * INDEX_BYTES_PER_ENTRY / c.bytes_per_us();
    startup_ms + (GIT_FIXED_OPS * c.lstat_us + files_us + dirs_us + bytes_us + index_us) / 1e3
}

/// Of the shorter of the manager's own work and the file-system work of an install, the part
/// that runs while the other does: npm's main thread unpacks the next package while libuv's
/// worker threads wait on the file calls of the last.
pub const INSTALL_OVERLAP: f64 = 0.3;
/// The file-system work npm waits for, as a share of the floor below. Fitted with the overlap
/// on `npm install --offline` of the 406-package express tree on the slowfs emulator
/// (drvfs-9p, scale 0.2) against ext4 on this project's 2-core machines: with npm and the
/// emulator given cores of their own (real-time priority) the install added 20 s over ext4
/// for a 27 s floor (0.77 of it, with the overlap), at a load of 4-5 it added 26 s for a 24 s
/// floor (1.1); 0.9 keeps both within 26%. A busier machine hides more of the file system
/// behind npm's slower CPU work (at a load of 9-12 about half of the floor showed).
pub const INSTALL_FS_SHARE: f64 = 0.9;
/// One package's weight in a manager's own work, in files: resolving it from the lock file,
/// reading its tarball from the cache, checking its integrity and placing it cost about as
/// much as extracting 15 of its files. A least-squares fit of npm 11's offline installs on this
/// project's machines, less the empty install: leaf samples of 15-174 packages and the whole
/// tree of express (406 packages, 6,600 files) and of a tree of few, large packages
/// (typescript, lodash, date-fns, rxjs, webpack: 100 packages, 13,600 files, 98 MB) gave
/// 6.5 ms per package and 0.43 ms per file, the whole trees within 5%. (The earlier 65, from
/// two samples of one tree, put the express tree 30-40% high.)
pub const FILES_PER_PACKAGE_WORK: f64 = 15.0;

/// The file-system work of recreating a dependency tree (warm package cache): create + write
/// and an `lstat` per file, mkdir and an `lstat` per directory, bandwidth for the rest. npm
/// makes more calls than that (strace of the express tree: per file about 2.4 `statx`, 1.1
/// `mkdir` that finds the directory there, one create), but spreads them over libuv's four
/// worker threads; on the emulator npm waits for `INSTALL_FS_SHARE` of this floor.
pub fn install_fs_ms(install: &InstallFigures, c: &MountCosts) -> f64 {
    let files = install.files as f64;
    let extra_bytes = (install.bytes as f64 - files * SMALL_FILE).max(0.0);
    let us = files * (c.scratch.create + c.lstat_us)
        + install.dirs as f64 * (c.scratch.mkdir + c.lstat_us)
        + extra_bytes / c.bytes_per_us();
    us / 1e3 * INSTALL_FS_SHARE
}

fn sample_of(timing: &ManagerTiming) -> InstallFigures {
    InstallFigures {
        files: timing.sample_files,
        dirs: timing.sample_dirs,
        bytes: timing.sample_bytes,
        packages: timing.sample_packages,
        source: InstallSource::Sample,
    }
}

fn work_units(install: &InstallFigures) -> f64 {
    install.packages as f64 + install.files as f64 / FILES_PER_PACKAGE_WORK
}

/// The manager's own work for `install`: its start-up, the fixed cost of an install that places
/// anything, and the sample's per-unit cost (the sample's time less those two and less the
/// file-system work it did on the baseline, as the model prices it) times the project's units.
/// The fixed cost is about one more start-up (loading the reifier, the tar and cache modules):
/// the least-squares intercept of npm 11's offline installs of 15-174 leaf packages and of the
/// whole express tree was 324 ms, on top of the 309 ms of installing nothing. Without it a
/// sample of a third of the tree put the whole 11-28% high. A sample too small to show both
/// keeps at least half of its work per unit.
pub fn manager_work_ms(
    timing: &ManagerTiming,
    install: &InstallFigures,
    baseline: Option<&MountCosts>,
) -> f64 {
    let sample = sample_of(timing);
    let sample_fs = baseline.map_or(0.0, |c| install_fs_ms(&sample, c));
    let work = (timing.sample_ms - timing.startup_ms - sample_fs).max(0.0);
    let placing = timing.startup_ms.min(work / 2.0);
    let units = work_units(&sample);
    let per_unit = if units > 0.0 {
        (work - placing) / units
    } else {
        0.0
    };
    let project = work_units(install);
    if project > 0.0 {
        timing.startup_ms + placing + per_unit * project
    } else {
        timing.startup_ms
    }
}

/// A warm-cache reinstall: the manager's own work (the same on both mounts) plus the
/// file-system work on this mount, less the part of the shorter that overlaps the longer.
/// Network is not counted.
pub fn install_ms(install: &InstallFigures, c: &MountCosts, manager_ms: f64) -> f64 {
    let fs_ms = install_fs_ms(install, c);
    manager_ms + fs_ms - INSTALL_OVERLAP * manager_ms.min(fs_ms)
}

/// How far each prediction may be off by the model's own fit, as a fraction (the accuracy
/// bench's worst errors, rounded up): the model part of a prediction's range.
pub const GIT_STATUS_FIT_ERROR: f64 = 0.2;
pub const FIRST_STATUS_FIT_ERROR: f64 = 0.25;
pub const INSTALL_FIT_ERROR: f64 = 0.25;
pub const CHECKOUT_FIT_ERROR: f64 = 0.35;

/// One prediction on both mounts, with the range the samples and the model's fit support.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Compared {
    pub current: f64,
    pub baseline: Option<f64>,
    /// current / baseline: how many times faster the baseline is; None without a positive
    /// baseline figure, which no ratio can be taken from.
    pub speedup: Option<f64>,
    /// [low, high] of `current`, `baseline` and `speedup`.
    pub current_range: [f64; 2],
    pub baseline_range: Option<[f64; 2]>,
    pub speedup_range: Option<[f64; 2]>,
    /// Half-widths of the current and speedup ranges, as fractions of the values.
    pub error: f64,
    pub speedup_error: Option<f64>,
}

fn range(value: f64, error: f64) -> [f64; 2] {
    [value * (1.0 - error).max(0.0), value * (1.0 + error)]
}

/// A figure and the half-width of its range, as a fraction of it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Figure {
    pub value: f64,
    pub error: f64,
}

impl Compared {
    /// `fit` is the model's own error for this prediction; each side adds its sampling error.
    fn new(current: (f64, &MountCosts), baseline: Option<(f64, &MountCosts)>, fit: f64) -> Self {
        // Both sides share the model's structure; what differs between them is their samples.
        let speedup_error = baseline.map_or(0.0, |(_, c)| {
            fit.hypot(current.1.sampling_error).hypot(c.sampling_error)
        });
        Self::from_figures(
            Figure {
                value: current.0,
                error: fit.hypot(current.1.sampling_error),
            },
            baseline.map(|(b, c)| Figure {
                value: b,
                error: fit.hypot(c.sampling_error),
            }),
            speedup_error,
        )
    }

    /// The prediction from its two figures and the speedup's error: the one place the
    /// speedup and the ranges are derived.
    pub fn from_figures(current: Figure, baseline: Option<Figure>, speedup_error: f64) -> Self {
        let speedup = baseline
            .filter(|b| b.value > 0.0)
            .map(|b| current.value / b.value);
        Self {
            current: current.value,
            baseline: baseline.map(|b| b.value),
            speedup,
            current_range: range(current.value, current.error),
            baseline_range: baseline.map(|b| range(b.value, b.error)),
            speedup_range: speedup.map(|s| range(s, speedup_error)),
            error: current.error,
            speedup_error: baseline.map(|_| speedup_error),
        }
    }

    /// Exact figures on both sides (no range): for examples and tests.
    pub fn exact(current: f64, baseline: f64) -> Self {
        let exact = |value| Figure { value, error: 0.0 };
        Self::from_figures(exact(current), Some(exact(baseline)), 0.0)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Prediction {
    pub git_status_ms: Compared,
    /// The first `git status` after copying the repository (re-hashes every tracked file).
    pub first_git_status_ms: Compared,
    /// On the Linux disk with git's fsmonitor daemon and the untracked cache (git >= 2.55, a
    /// repository the policy advises it for); None elsewhere.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub git_status_fsmonitor_ms: Option<f64>,
    /// None when there is nothing to install (no dependency tree, no package-lock.json).
    pub install_ms: Option<Compared>,
    /// The package manager's own part of `install_ms` (the same on both mounts), and how it
    /// was timed; None when there is nothing to install.
    pub install_manager_ms: Option<f64>,
    pub install_manager: Option<ManagerTiming>,
    pub checkout_ms: Compared,
    /// What the predictions were computed from.
    pub inputs: RepoFigures,
}

pub fn predict(
    repo: &RepoFigures,
    current: &MountCosts,
    baseline: Option<&MountCosts>,
    startup_ms: f64,
    manager: Option<&ManagerTiming>,
) -> Prediction {
    let both = |f: &dyn Fn(&MountCosts) -> f64, fit: f64| {
        Compared::new((f(current), current), baseline.map(|b| (f(b), b)), fit)
    };
    let manager_ms = repo
        .install
        .as_ref()
        .map(|i| manager.map_or(0.0, |t| manager_work_ms(t, i, baseline)));
    Prediction {
        git_status_ms: both(
            &|c| git_status_ms(repo, c, startup_ms),
            GIT_STATUS_FIT_ERROR,
        ),
        first_git_status_ms: both(
            &|c| first_git_status_ms(repo, c, startup_ms),
            FIRST_STATUS_FIT_ERROR,
        ),
        install_ms: repo
            .install
            .as_ref()
            .zip(manager_ms)
            .map(|(i, m)| both(&|c| install_ms(i, c, m), INSTALL_FIT_ERROR)),
        git_status_fsmonitor_ms: None,
        install_manager_ms: manager_ms,
        install_manager: manager.cloned(),
        checkout_ms: both(&|c| checkout_ms(repo, c, startup_ms), CHECKOUT_FIT_ERROR),
        inputs: repo.clone(),
    }
}

/// Packages in a package-lock.json (v2/v3 `packages`, else v1 nested `dependencies`).
pub fn lock_packages(text: &str) -> Option<u64> {
    let value: serde_json::Value = serde_json::from_str(text).ok()?;
    if let Some(packages) = value.get("packages").and_then(|p| p.as_object()) {
        return Some(
            packages
                .keys()
                .filter(|k| k.contains("node_modules/"))
                .count() as u64,
        );
    }
    fn count(deps: &serde_json::Value) -> u64 {
        deps.as_object().map_or(0, |map| {
            map.values()
                .map(|d| 1 + d.get("dependencies").map_or(0, count))
                .sum()
        })
    }
    value.get("dependencies").map(count)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn local() -> MountCosts {
        MountCosts {
            lstat_us: 1.0,
            parallel_lstat: vec![(2, 0.6), (8, 0.5), (20, 0.5)],
            scratch: PerOp {
                create: 10.0,
                unlink: 6.0,
                read: 4.0,
                readdir_entry: 0.1,
                opendir: 3.0,
                mkdir: 8.0,
                write_mib: 500.0,
                read_mib: 100.0,
                lstat: 1.0,
                rename: 0.0,
            },
            sha1_us_per_mib: 0.0,
            sampling_error: 0.0,
        }
    }

    fn slow() -> MountCosts {
        MountCosts {
            lstat_us: 1000.0,
            parallel_lstat: vec![(2, 500.0), (8, 130.0), (20, 60.0)],
            scratch: PerOp {
                create: 15_000.0,
                unlink: 5000.0,
                read: 3000.0,
                readdir_entry: 10.0,
                opendir: 2000.0,
                mkdir: 10_000.0,
                write_mib: 40_000.0,
                read_mib: 2000.0,
                lstat: 400.0,
                rename: 0.0,
            },
            sha1_us_per_mib: 0.0,
            sampling_error: 0.1,
        }
    }

    #[test]
    fn fsmonitor_skips_the_lstat_and_the_walk() {
        let repo = RepoFigures {
            tracked: 100_000,
            worktree_files: 100_000,
            worktree_dirs: 8_000,
            worktree_bytes: 400_000_000,
            tracked_bytes: None,
            mapped_bytes: 0,
            install: None,
        };
        let plain = git_status_ms(&repo, &local(), 1.5);
        let watched = git_status_fsmonitor_ms(&repo, &local(), 1.5);
        assert!(watched < plain / 2.0, "{watched} vs {plain}");
        // What is left does not depend on the directories.
        let flat = RepoFigures {
            worktree_dirs: 1,
            ..repo.clone()
        };
        assert_eq!(watched, git_status_fsmonitor_ms(&flat, &local(), 1.5));
    }

    fn repo(tracked: u64, files: u64, dirs: u64) -> RepoFigures {
        RepoFigures {
            tracked,
            worktree_files: files,
            worktree_dirs: dirs,
            worktree_bytes: files * 4096,
            tracked_bytes: None,
            mapped_bytes: 0,
            install: None,
        }
    }

    #[test]
    fn preload_threads_follow_git() {
        assert_eq!(git_preload_threads(0), 1);
        assert_eq!(git_preload_threads(999), 1);
        assert_eq!(git_preload_threads(1000), 2);
        assert_eq!(git_preload_threads(4999), 9);
        assert_eq!(git_preload_threads(10_000), 20);
        assert_eq!(git_preload_threads(1_000_000), 20);
    }

    #[test]
    fn parallel_lstat_interpolates_and_clamps() {
        let c = slow();
        assert_eq!(c.lstat_per_entry_us(1), 1000.0);
        assert!((c.lstat_per_entry_us(2) - 500.0).abs() < 1e-9);
        assert_eq!(c.lstat_per_entry_us(20), 60.0);
        assert_eq!(c.lstat_per_entry_us(64), 60.0);
        let four = c.lstat_per_entry_us(4);
        // Halfway in log(threads) between 2 and 8: the geometric mean of 500 and 130.
        assert!((four - (500.0f64 * 130.0).sqrt()).abs() < 1e-6, "{four}");
        let bare = MountCosts {
            parallel_lstat: vec![],
            ..c
        };
        assert_eq!(bare.lstat_per_entry_us(20), 1000.0);
        // A parallel run measured slower than one thread (scheduling noise) is not believed.
        let noisy = MountCosts {
            parallel_lstat: vec![(2, 1500.0), (8, 400.0), (20, 600.0)],
            ..slow()
        };
        assert!((noisy.lstat_per_entry_us(2) - 1000.0).abs() < 1e-9);
        assert_eq!(noisy.lstat_per_entry_us(20), 400.0);
    }

    #[test]
    fn git_status_on_fixed_inputs() {
        // 1,000 entries, 100 dirs, nothing untracked, on the slow mount: start-up, fixed calls,
        // the index, serial lstat (999 < 1000 entries would be too; 1000 is 2 threads at 500),
        // listing 100 dirs and 1,100 entries, CPU.
        let r = repo(1000, 1000, 100);
        let got = git_status_ms(&r, &slow(), 1.5);
        let want = 1.5 * (1.0 + GIT_SETUP_STARTUPS)
            + (90_000.0
                + 15_000.0
                + 5000.0
                + 3000.0
                + 100_000.0 / (MIB / 40_000.0)
                + 500_000.0
                + 300_000.0
                + 11_000.0
                // Preload's part of the CPU per entry is shared by its 2 threads, whose lstats
                // run twice as fast as one.
                + 1000.0 * (CPU_US_PER_ENTRY_MAIN + (CPU_US_PER_ENTRY - CPU_US_PER_ENTRY_MAIN) / 2.0)
                + 1100.0 * CPU_US_PER_LISTED)
                / 1e3;
        assert!((got - want).abs() < 1e-9, "{got} vs {want}");
        let fast = git_status_ms(&r, &local(), 1.5);
        assert!(fast < 10.0, "{fast}");
        assert!(got / fast > 100.0);
    }

    #[test]
    fn the_pilot_is_a_lower_bound_of_the_full_prediction() {
        // The pilot knows only lstat; every other call costs one lstat and bytes are free.
        let c = slow();
        let r = repo(10_000, 10_000, 100);
        let pilot = git_status_pilot_ms(10_000, 100, c.lstat_us, c.parallel_lstat.clone(), 1.5);
        let full = git_status_ms(&r, &c, 1.5);
        assert!(pilot > 0.5 * full && pilot < full, "{pilot} vs {full}");
        let fast = git_status_pilot_ms(10_000, 100, 1.0, vec![(20, 0.5)], 1.5);
        assert!(pilot / fast > 20.0, "{pilot} / {fast}");
    }

    #[test]
    fn small_indexes_pay_serial_lstat_large_ones_overlap() {
        let c = slow();
        let small = git_status_ms(&repo(999, 999, 1), &c, 0.0);
        let large = git_status_ms(&repo(10_000, 10_000, 1), &c, 0.0);
        // 10x the entries but 20 threads at 60 us instead of 1 at 1000 us: cheaper per entry.
        assert!(large / small < 2.0, "{large} / {small}");
        assert!(small > 999.0, "serial lstat alone is ~1 s: {small}");
    }

    #[test]
    fn first_status_after_copy_costs_an_lstat_and_a_read_per_file_more() {
        let r = repo(1000, 1000, 10);
        let c = slow();
        let extra = first_git_status_ms(&r, &c, 0.0) - git_status_ms(&r, &c, 0.0);
        // lstat, read, the path walk again (1000 - 400); in each of the 10 directories, a
        // walk and a failed lookup of .gitattributes (a scratch lstat).
        let per_file = 1000.0 + 3000.0 + 600.0;
        let want = (1000.0 * per_file
            + 10.0 * (600.0 + 400.0)
            + 1000.0 * 4096.0 / READ_HASH_BYTES_PER_US
            + 100_000.0 / (MIB / 40_000.0))
            / 1e3;
        assert!((extra - want).abs() < 1e-9, "{extra} vs {want}");
        // Files over 32 KiB are mapped: each MiB of them costs a mapped read on the mount.
        let big = RepoFigures {
            tracked_bytes: Some(1000 * 4096 + 8 * 1_048_576),
            mapped_bytes: 8 * 1_048_576,
            ..r.clone()
        };
        let more = first_git_status_ms(&big, &c, 0.0) - first_git_status_ms(&r, &c, 0.0);
        let want = (8.0 * 2000.0 + 8.0 * MIB / HASH_BYTES_PER_US) / 1e3;
        assert!((more - want).abs() < 1e-6, "{more} vs {want}");
    }

    #[test]
    fn cpu_terms_follow_the_machines_pace() {
        // Twice the reference's hashing time: every CPU term doubles, the calls do not.
        let r = RepoFigures {
            tracked_bytes: Some(1000 * 4096),
            ..repo(1000, 1000, 10)
        };
        let quick = local();
        let slow_cpu = MountCosts {
            sha1_us_per_mib: 2.0 * REFERENCE_SHA1_US_PER_MIB,
            ..local()
        };
        assert_eq!(quick.cpu_pace(), 1.0);
        assert_eq!(slow_cpu.cpu_pace(), 2.0);
        let first = |c: &MountCosts| first_git_status_ms(&r, c, 0.0) - git_status_ms(&r, c, 0.0);
        let cpu_ms = 1000.0 * 4096.0 / READ_HASH_BYTES_PER_US / 1e3;
        assert!((first(&slow_cpu) - first(&quick) - cpu_ms).abs() < 1e-9);
        // Two preload threads whose lstats take 0.6 of one thread's time.
        let per_entry = CPU_US_PER_ENTRY_MAIN + (CPU_US_PER_ENTRY - CPU_US_PER_ENTRY_MAIN) * 0.6;
        let steady_cpu_ms = (1000.0 * per_entry + 1010.0 * CPU_US_PER_LISTED) / 1e3;
        let steady = git_status_ms(&r, &slow_cpu, 0.0) - git_status_ms(&r, &quick, 0.0);
        assert!(
            (steady - steady_cpu_ms).abs() < 1e-9,
            "{steady} vs {steady_cpu_ms}"
        );
        // An absurd calibration is bounded.
        let absurd = MountCosts {
            sha1_us_per_mib: 1e9,
            ..local()
        };
        assert_eq!(absurd.cpu_pace(), 8.0);
    }

    fn timing(startup_ms: f64, sample_ms: f64) -> ManagerTiming {
        ManagerTiming {
            manager: "npm".into(),
            version: "11".into(),
            startup_ms,
            sample_ms,
            sample_packages: 60,
            sample_files: 600,
            sample_dirs: 0,
            sample_bytes: 0,
            source: "measured".into(),
            cpu_sha1_us_per_mib: None,
        }
    }

    #[test]
    fn install_is_the_managers_work_plus_the_mounts_share() {
        let i = InstallFigures {
            files: 6000,
            dirs: 0,
            bytes: 0,
            packages: 400,
            source: InstallSource::NodeModules,
        };
        // 100 units in the sample (60 packages + 600 files / 15): 7 ms each past the start-up
        // and the fixed cost of placing anything (one more start-up); the project has 800
        // (400 packages + 6,000 files / 15).
        let t = timing(300.0, 1300.0);
        let manager = manager_work_ms(&t, &i, None);
        assert!((manager - (600.0 + 7.0 * 800.0)).abs() < 1e-6, "{manager}");
        // A sample too small to show both keeps half of its work per unit.
        let small = manager_work_ms(&timing(300.0, 500.0), &i, None);
        assert!((small - (400.0 + 1.0 * 800.0)).abs() < 1e-6, "{small}");
        // Nothing to install: the start-up alone.
        let nothing = InstallFigures {
            files: 0,
            packages: 0,
            ..i.clone()
        };
        assert_eq!(manager_work_ms(&t, &nothing, None), 300.0);
        // The sample's own file-system work on the baseline is not the manager's.
        let c = slow();
        assert!(manager_work_ms(&t, &i, Some(&c)) < manager);
        let fs = install_fs_ms(&i, &c);
        assert!((fs - 6000.0 * 16_000.0 / 1e3 * INSTALL_FS_SHARE).abs() < 1e-6);
        // The shorter side partly overlaps the longer.
        let both = manager + fs - INSTALL_OVERLAP * manager.min(fs);
        assert!((install_ms(&i, &c, manager) - both).abs() < 1e-9);
        assert_eq!(install_ms(&i, &c, 0.0), fs);
        // The manager's part is paid on both sides, so it caps the speedup.
        let on_local = manager_work_ms(&t, &i, Some(&local()));
        let p = predict(
            &RepoFigures {
                install: Some(i),
                ..repo(10, 10, 1)
            },
            &c,
            Some(&local()),
            1.0,
            Some(&t),
        );
        let install = p.install_ms.unwrap();
        assert!(install.speedup.unwrap() < install.current / on_local);
        assert_eq!(p.install_manager_ms, Some(on_local));
    }

    #[test]
    fn an_estimated_managers_work_is_its_reference_fit() {
        // At the reference pace, each manager's estimate reads back as two start-ups plus its
        // per-unit figure times the project's units, whatever the sizes of the two figures.
        let i = InstallFigures {
            files: 6600,
            dirs: 968,
            bytes: 0,
            packages: 406,
            source: InstallSource::NodeModules,
        };
        for &(manager, startup, per_unit) in crate::measure::probe::manager::REFERENCE_FITS {
            let t = crate::measure::probe::manager::estimated(
                manager,
                "x".into(),
                REFERENCE_SHA1_US_PER_MIB,
            );
            let got = manager_work_ms(&t, &i, None);
            let want = 2.0 * startup + per_unit * work_units(&i);
            assert!((got - want).abs() < 1e-6, "{manager}: {got} vs {want}");
        }
    }

    #[test]
    fn install_and_checkout_scale_with_files_dirs_and_bytes() {
        let i = InstallFigures {
            files: 1000,
            dirs: 100,
            bytes: 1000 * 4096 + 10 * 1_048_576,
            packages: 60,
            source: InstallSource::NodeModules,
        };
        let c = slow();
        let got = install_ms(&i, &c, 0.0);
        let want =
            (1000.0 * 16_000.0 + 100.0 * 11_000.0 + 10.0 * 40_000.0) / 1e3 * INSTALL_FS_SHARE;
        assert!((got - want).abs() < 1e-6, "{got} vs {want}");
        let r = repo(1000, 1000, 10);
        assert!(checkout_ms(&r, &c, 0.0) > 1000.0 * 15.0);
        assert!(checkout_ms(&r, &c, 0.0) / checkout_ms(&r, &local(), 0.0) > 100.0);
    }

    #[test]
    fn predict_reports_both_sides_and_the_ratio() {
        let r = RepoFigures {
            install: Some(InstallFigures {
                files: 10,
                dirs: 1,
                bytes: 100,
                packages: 1,
                source: InstallSource::PackageLock,
            }),
            ..repo(1000, 1200, 50)
        };
        let p = predict(&r, &slow(), Some(&local()), 1.5, None);
        let s = &p.git_status_ms;
        assert_eq!(s.speedup, Some(s.current / s.baseline.unwrap()));
        assert!(p.install_ms.as_ref().unwrap().speedup.unwrap() > 100.0);
        // The range: the model's fit and the slow side's sampling error, both ways.
        let e = GIT_STATUS_FIT_ERROR.hypot(0.1);
        assert!((s.error - e).abs() < 1e-12);
        assert!((s.current_range[0] - s.current * (1.0 - e)).abs() < 1e-9);
        assert!((s.current_range[1] - s.current * (1.0 + e)).abs() < 1e-9);
        let sr = s.speedup_range.unwrap();
        assert!(sr[0] < s.speedup.unwrap() && s.speedup.unwrap() < sr[1]);
        let alone = predict(&r, &slow(), None, 1.5, None);
        assert_eq!(alone.checkout_ms.baseline, None);
        assert_eq!(alone.checkout_ms.speedup, None);
    }

    #[test]
    fn figures_from_a_scan_leave_dependency_trees_out_of_the_walk() {
        use crate::measure::scan::{DependencyKind, DependencyTree};
        let scan = ScanReport {
            files: 5000,
            dirs: 600,
            bytes: 50_000_000,
            tracked: Some(800),
            node_modules: vec![DependencyTree {
                path: "node_modules".into(),
                kind: DependencyKind::NodeModules,
                files: 4000,
                dirs: 500,
                bytes: 40_000_000,
                ..DependencyTree::default()
            }],
            complete: true,
            ..ScanReport::default()
        };
        let r = RepoFigures::from_scan(&scan, Some(99), None);
        assert_eq!(
            (r.tracked, r.worktree_files, r.worktree_dirs),
            (800, 1000, 100)
        );
        let with_git = RepoFigures::from_scan(&scan, Some(99), Some(150));
        assert_eq!(with_git.worktree_files, 850);
        assert_eq!(r.worktree_bytes, 10_000_000);
        let i = r.install.unwrap();
        assert_eq!(
            (i.files, i.dirs, i.source),
            (4000, 500, InstallSource::NodeModules)
        );

        let bare = ScanReport {
            files: 10,
            dirs: 2,
            ..ScanReport::default()
        };
        let mut r = RepoFigures::from_scan(&bare, Some(3), None);
        r.refine_with_index(&GitWalk {
            tracked: 40,
            listed_tracked: 40,
            walked_dirs: 7,
            ..GitWalk::default()
        });
        assert_eq!((r.tracked, r.worktree_files, r.worktree_dirs), (40, 40, 7));
        // Tracked files under an ignored directory are lstat'ed, but neither they nor their
        // directories are walked.
        let mut ignored = RepoFigures::from_scan(&bare, None, None);
        ignored.refine_with_index(&GitWalk {
            tracked: 20_000,
            listed_tracked: 400,
            walked_dirs: 30,
            ignored_dirs: 3000,
            ..GitWalk::default()
        });
        assert_eq!(
            (
                ignored.tracked,
                ignored.worktree_files,
                ignored.worktree_dirs
            ),
            (20_000, 400, 30)
        );
        assert_eq!(r.install.unwrap().files, 3 * FILES_PER_PACKAGE);
        assert!(RepoFigures::from_scan(&bare, None, None).install.is_none());
    }

    #[test]
    fn lock_files_of_both_formats_count_packages() {
        let v3 = r#"{"lockfileVersion":3,"packages":{"":{},"node_modules/a":{},"node_modules/a/node_modules/b":{}}}"#;
        assert_eq!(lock_packages(v3), Some(2));
        let v1 = r#"{"lockfileVersion":1,"dependencies":{"a":{"dependencies":{"b":{}}},"c":{}}}"#;
        assert_eq!(lock_packages(v1), Some(3));
        assert_eq!(lock_packages("not json"), None);
    }
}
