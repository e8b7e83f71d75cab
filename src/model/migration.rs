//! How long `migrate` takes once the plan is accepted: the copy (with each file read back),
//! the staged tree's final count, the flush, and `git update-index --refresh` at the
//! destination. Pure: the source's costs are measured read-only on the tree itself (nothing may
//! be written there), the destination's by the scratch probe, and both come in as values.
//!
//! Assumptions (also in docs/migrate.md):
//! - Each file costs the source the copy's own calls on it (an `lstat` before and after, to
//!   catch a file changing while it is read, and open + read + close), timed on a sample of the
//!   tree's small files, plus its bytes at the source's read bandwidth; the destination a
//!   create + write + close, a mode and times call, and a read-back.
//! - The source's calls are waits on a server, so `threads` overlap them as far as the measured
//!   parallel `lstat` says; the destination's are CPU work, overlapped only as far as there are
//!   cores. Each thread still does its files one after another.
//! - Bytes are read at the serial bandwidth (one pipe to the server); the largest file is read
//!   by one thread, so the copy never ends before it does.
//! - The refresh re-reads and hashes every worktree file (inode and ctime changed with the copy).

use super::{MountCosts, READ_HASH_BYTES_PER_US};
use crate::base::counts::TreeCounts;
use serde::Serialize;

const MIB: f64 = 1_048_576.0;
const SMALL_FILE: f64 = 4096.0;
/// A parallel figure within this share of the best is as good: fewer threads then, since each
/// one holds a file's data in memory.
const GOOD_ENOUGH: f64 = 1.1;
/// The most copy threads: beyond this, a server that still scales is rare, and memory for the
/// files in flight is not.
pub const MAX_THREADS: usize = 64;

/// What the copy has to do, from the plan.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CopyWork {
    /// Files and bytes still to copy (an interrupted run's verified files are not copied
    /// again), and every folder and symlink.
    #[serde(flatten)]
    pub left: TreeCounts,
    /// The largest of those files.
    pub largest_file: u64,
    /// Files and bytes `git update-index --refresh` re-reads at the destination (the
    /// worktree's, outside `.git`); 0 when the tree is not a repository.
    pub refreshed_files: u64,
    pub refreshed_bytes: u64,
}

/// The source mount's costs, measured read-only on the tree's own files, microseconds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SourceCosts {
    /// One `lstat` of a file of the tree, every path component from the root included.
    pub lstat_us: f64,
    /// The copy's own calls on one small file (state before, open, read, close, state after),
    /// as one thread would make them.
    pub file_us: f64,
    /// Read bandwidth past the first call, bytes per microsecond (infinite when not measured).
    pub read_bytes_per_us: f64,
    /// (threads, wall-clock microseconds per `lstat`), sorted by threads; empty where `lstat`
    /// is CPU work (see `cores`).
    pub parallel_lstat: Vec<(usize, f64)>,
    /// Cores, for a source whose calls are CPU work rather than waits.
    pub cores: usize,
}

impl SourceCosts {
    /// How many calls `threads` threads complete in the time one thread completes one.
    pub fn overlap(&self, threads: usize) -> f64 {
        let threads = threads.max(1);
        if self.parallel_lstat.is_empty() {
            return threads.min(self.cores.max(1)) as f64;
        }
        // The measured figure for the most threads not above `threads`; never worse than one
        // thread (a short run can lose to wake-up delays).
        let per_entry = self
            .parallel_lstat
            .iter()
            .filter(|&&(t, us)| t <= threads && us > 0.0)
            .map(|&(_, us)| us)
            .fold(self.lstat_us, f64::min);
        if per_entry > 0.0 {
            (self.lstat_us / per_entry).clamp(1.0, threads as f64)
        } else {
            1.0
        }
    }

    /// The copy's thread count: the fewest measured threads whose parallel `lstat` is within
    /// 10% of the best; where the calls are CPU work, two per core (up to 8), as the cores
    /// decide and threads only wait on each other beyond that.
    pub fn copy_threads(&self) -> usize {
        let measured: Vec<(usize, f64)> = self
            .parallel_lstat
            .iter()
            .copied()
            .filter(|&(t, us)| t > 1 && us > 0.0)
            .collect();
        if measured.is_empty() {
            return (self.cores.max(1) * 2).clamp(2, 8);
        }
        let best = measured
            .iter()
            .map(|&(_, us)| us)
            .fold(self.lstat_us, f64::min);
        // None near one thread's figure means the runs lost to wake-up noise, not that threads
        // do not help: then the fewest measured.
        let fewest = measured.iter().map(|&(t, _)| t).min().unwrap_or(1);
        measured
            .iter()
            .filter(|&&(_, us)| us <= best * GOOD_ENOUGH)
            .map(|&(t, _)| t)
            .min()
            .unwrap_or(fewest)
            .clamp(1, MAX_THREADS)
    }

    /// The source's part of one file: its calls, and its bytes past the first read.
    fn file_cost_us(&self, bytes: f64) -> f64 {
        self.file_us + (bytes - SMALL_FILE).max(0.0) / self.read_bytes_per_us
    }
}

/// The destination's part of one file: create and write, mode and times, the read-back.
fn destination_file_us(dest: &MountCosts, bytes: f64) -> f64 {
    let extra = (bytes - SMALL_FILE).max(0.0);
    let write = if dest.scratch.write_mib > 0.0 {
        extra / MIB * dest.scratch.write_mib
    } else {
        0.0
    };
    let read_back = if dest.scratch.read_mib > 0.0 {
        extra / MIB * dest.scratch.read_mib
    } else {
        0.0
    };
    // chmod and utimens: attribute calls, about an `lstat` each.
    dest.scratch.create + 2.0 * dest.scratch.lstat + dest.scratch.read + write + read_back
}

/// The estimate, in phases, milliseconds.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CopyEstimate {
    /// Directories, symlinks and files into staging, each file read back.
    pub copy_ms: f64,
    /// The staged tree counted against the plan, and the flush before the rename.
    pub seal_ms: f64,
    /// `git update-index --refresh` at the destination.
    pub refresh_ms: f64,
    /// What a migration costs whatever the repository's size: git's start-ups for its reads,
    /// fix-ups and refresh after the copy ([`FINISH_GIT_RUNS`]).
    pub fixed_ms: f64,
    pub threads: usize,
}

/// git runs a migration makes after its copy whatever the repository holds (its settings read,
/// its fix-ups, the refresh): six, counted with `strace -f -e execve` on a one-file repository.
/// Without them a tiny repository's plan said 13 ms and the run took 440 (issue 66).
pub const FINISH_GIT_RUNS: f64 = 6.0;

impl CopyEstimate {
    pub fn total_ms(&self) -> f64 {
        self.copy_ms + self.seal_ms + self.refresh_ms + self.fixed_ms
    }
}

/// The files' part of the copy with `threads` threads, microseconds: the most of what the
/// threads do one file after another, what the source overlaps, what the cores overlap, and the
/// largest file on its own.
fn files_us(work: &CopyWork, source: &SourceCosts, dest: &MountCosts, threads: usize) -> f64 {
    if work.left.files == 0 {
        return 0.0;
    }
    let files = work.left.files as f64;
    let mean = work.left.bytes as f64 / files;
    let source_us = files * source.file_cost_us(mean);
    let dest_us = files * destination_file_us(dest, mean);
    let threads_f = threads.max(1) as f64;
    let by_threads = (source_us + dest_us) / threads_f;
    let by_source = source_us / source.overlap(threads);
    let cores = threads.min(source.cores.max(1)).max(1) as f64;
    // Where the source's calls are CPU work too, they share the cores with the destination's.
    let by_cores = if source.parallel_lstat.is_empty() {
        (source_us + dest_us) / cores
    } else {
        dest_us / cores
    };
    let largest = work.largest_file as f64;
    let largest_us = source.file_cost_us(largest) + destination_file_us(dest, largest);
    by_threads.max(by_source).max(by_cores).max(largest_us)
}

/// The whole estimate for `work` with the source and destination costs.
pub fn estimate(work: &CopyWork, source: &SourceCosts, dest: &MountCosts) -> CopyEstimate {
    let threads = source.copy_threads();
    let overlap = source.overlap(threads);
    // Directories: a mkdir each, then mode and times; symlinks: a readlink at the source
    // (overlapped like the files' calls) and a symlink, times set, at the destination.
    let dirs_us = work.left.dirs as f64 * (dest.scratch.mkdir + 2.0 * dest.scratch.lstat);
    let symlinks_us = work.left.symlinks as f64
        * (source.lstat_us / overlap + dest.scratch.create + dest.scratch.lstat);
    let copy_us = dirs_us + symlinks_us + files_us(work, source, dest, threads);
    let entries = (work.left.files + work.left.dirs + work.left.symlinks) as f64;
    // The count of the staged tree lists and `lstat`s every entry once; the flush writes the
    // bytes out at the destination's write bandwidth.
    let flush_us = if dest.scratch.write_mib > 0.0 {
        work.left.bytes as f64 / MIB * dest.scratch.write_mib
    } else {
        0.0
    };
    let seal_us = entries * (dest.scratch.lstat + dest.scratch.readdir_entry) + flush_us;
    let refreshed = work.refreshed_files as f64;
    // As the first `git status` after a copy prices it: an `lstat` and a read per file, and
    // hashing the bytes read (the worktree's files are mostly small, so read, not mapped).
    let refresh_us = refreshed * (dest.lstat_us + dest.scratch.read)
        + work.refreshed_bytes as f64 / READ_HASH_BYTES_PER_US * dest.cpu_pace();
    CopyEstimate {
        copy_ms: copy_us / 1e3,
        seal_ms: seal_us / 1e3,
        refresh_ms: refresh_us / 1e3,
        fixed_ms: FINISH_GIT_RUNS * super::GIT_STARTUP_MS,
        threads,
    }
}

/// What a sync does once its copy is sealed, milliseconds: each staged file renamed over the
/// destination's (the old one freed, as an unlink frees it) and each file removed there, then
/// `git update-index --refresh`: an `lstat` of every tracked file, and a read and hash of each
/// copied one (its inode is new, so git looks at its bytes again).
pub fn sync_apply_ms(replaced: u64, tracked: u64, refreshed: (u64, u64), dest: &MountCosts) -> f64 {
    let (files, bytes) = refreshed;
    let apply_us = replaced as f64 * (dest.scratch.rename + dest.scratch.unlink);
    let refresh_us = tracked as f64 * dest.lstat_us
        + files as f64 * dest.scratch.read
        + bytes as f64 / READ_HASH_BYTES_PER_US * dest.cpu_pace();
    (apply_us + refresh_us) / 1e3
}

/// One file's share of the copy, in the units the progress bar counts: what the model says it
/// costs one thread. Small files weigh their calls, large ones their bytes.
pub fn file_weight_us(bytes: u64, source: &SourceCosts, dest: &MountCosts) -> f64 {
    source.file_cost_us(bytes as f64) + destination_file_us(dest, bytes as f64)
}

/// A local disk's read-back pace for the removal's check of each copy, MiB/s: the copy is in
/// the page cache or on an SSD, and the source's round trips dominate.
const LOCAL_READ_MIB_S: f64 = 1000.0;

/// `--remove-source`, one entry after another: each file or link an `lstat` and an `unlink` at
/// the source (its copy read back on the local disk), each folder an open and an `rmdir`.
pub fn removal_ms(entries: u64, dirs: u64, source_call_ms: f64, copy_bytes: u64) -> f64 {
    let calls = 2.0 * (entries + dirs) as f64;
    calls * source_call_ms + copy_bytes as f64 / (LOCAL_READ_MIB_S * 1_048_576.0) * 1e3
}

/// Time left, milliseconds, when `done` of the work (0 to 1, by the model's weights) took
/// `elapsed_ms` of a phase predicted to take `predicted_ms`. The model's remainder at first;
/// the pace seen so far takes over as the share done grows, so a slow start (threads starting,
/// a cold cache) does not turn into an hour-long guess, and a mount slower than measured is
/// still caught.
pub fn eta_ms(predicted_ms: f64, done: f64, elapsed_ms: f64) -> f64 {
    let done = done.clamp(0.0, 1.0);
    let by_model = (predicted_ms - predicted_ms * done).max(0.0);
    if done <= 0.0 {
        return by_model;
    }
    let by_pace = elapsed_ms / done * (1.0 - done);
    // What is still ahead by the model and by the pace, trusting the pace as much as the
    // share of the work it has seen.
    by_model * (1.0 - done) + by_pace * done
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::probe::PerOp;

    fn nine_p() -> SourceCosts {
        SourceCosts {
            lstat_us: 4000.0,
            file_us: 13_000.0,
            read_bytes_per_us: 200.0,
            parallel_lstat: vec![(4, 1000.0), (16, 260.0), (32, 250.0)],
            cores: 2,
        }
    }

    fn ext4() -> MountCosts {
        MountCosts {
            lstat_us: 2.0,
            parallel_lstat: vec![],
            scratch: PerOp {
                create: 20.0,
                unlink: 10.0,
                read: 8.0,
                readdir_entry: 0.2,
                opendir: 5.0,
                mkdir: 15.0,
                write_mib: 400.0,
                read_mib: 100.0,
                lstat: 1.0,
                rename: 0.0,
            },
            sha1_us_per_mib: 0.0,
            cold_read: None,
            sampling_error: 0.0,
        }
    }

    #[test]
    fn a_sync_applies_each_file_then_refreshes_the_whole_index() {
        // 70 renames over old files at 10 us, 200 tracked files at 2 us, 70 copied files read
        // (8 us) and 375 KB hashed at the reference pace (1 ms).
        let ms = sync_apply_ms(70, 200, (70, 375_000), &ext4());
        assert!((ms - (0.7 + 0.4 + 0.56 + 1.0)).abs() < 1e-9, "{ms}");
        assert_eq!(sync_apply_ms(0, 0, (0, 0), &ext4()), 0.0);
    }

    #[test]
    fn threads_are_the_fewest_that_reach_the_best_parallel_figure() {
        // 32 threads gain 4% over 16: not worth holding twice the files in memory.
        assert_eq!(nine_p().copy_threads(), 16);
        let scaling = SourceCosts {
            parallel_lstat: vec![(4, 1000.0), (16, 260.0), (32, 130.0)],
            ..nine_p()
        };
        assert_eq!(scaling.copy_threads(), 32);
        // A local disk: lstat is CPU work, the cores decide.
        let local = SourceCosts {
            lstat_us: 2.0,
            parallel_lstat: vec![],
            cores: 2,
            ..nine_p()
        };
        assert_eq!(local.copy_threads(), 4);
        assert_eq!(SourceCosts { cores: 16, ..local }.copy_threads(), 8);
        // Parallel runs all slower than one thread: noise; the fewest measured, no overlap assumed.
        let noisy = SourceCosts {
            parallel_lstat: vec![(4, 5000.0), (16, 6000.0)],
            ..nine_p()
        };
        assert_eq!(noisy.copy_threads(), 4);
        assert_eq!(noisy.overlap(16), 1.0);
    }

    #[test]
    fn overlap_follows_the_measured_figures() {
        let c = nine_p();
        assert_eq!(c.overlap(1), 1.0);
        assert_eq!(c.overlap(4), 4.0);
        // Between measured counts: the figure for fewer threads.
        assert_eq!(c.overlap(8), 4.0);
        assert!((c.overlap(16) - 4000.0 / 260.0).abs() < 1e-9);
        assert!((c.overlap(64) - 16.0).abs() < 1e-9);
    }

    #[test]
    fn estimate_on_fixed_inputs() {
        // 1,000 files of 4 KiB, 100 dirs, 10 symlinks from a 9p-like source, 16 threads.
        let work = CopyWork {
            left: TreeCounts {
                files: 1000,
                dirs: 100,
                symlinks: 10,
                bytes: 1000 * 4096,
            },
            largest_file: 4096,
            refreshed_files: 900,
            refreshed_bytes: 900 * 4096,
        };
        let got = estimate(&work, &nine_p(), &ext4());
        assert_eq!(got.threads, 16);
        let overlap = 4000.0 / 260.0;
        // Per file: source 13 ms of calls, destination 20 + 2 + 8 us.
        let source_us: f64 = 1000.0 * 13_000.0;
        let dest_us = 1000.0 * 30.0;
        let files_us = (source_us / overlap).max((source_us + dest_us) / 16.0);
        let want_copy_ms = (100.0 * 17.0 + 10.0 * (4000.0 / overlap + 20.0 + 1.0) + files_us) / 1e3;
        assert!(
            (got.copy_ms - want_copy_ms).abs() < 1e-9,
            "{got:?} vs {want_copy_ms}"
        );
        // About 850 ms: the source's 13 ms per file over an overlap of 15.
        assert!((800.0..900.0).contains(&got.copy_ms), "{got:?}");
        let want_seal_ms = (1110.0 * 1.2 + 1000.0 * 4096.0 / MIB * 400.0) / 1e3;
        assert!((got.seal_ms - want_seal_ms).abs() < 1e-9, "{got:?}");
        // lstat 2 and read 8 at the destination, then hashing the bytes.
        let want_refresh_ms = (900.0 * 10.0 + 900.0 * 4096.0 / READ_HASH_BYTES_PER_US) / 1e3;
        assert!((got.refresh_ms - want_refresh_ms).abs() < 1e-9, "{got:?}");
        let want_fixed_ms = FINISH_GIT_RUNS * crate::model::GIT_STARTUP_MS;
        let want = want_copy_ms + want_seal_ms + want_refresh_ms + want_fixed_ms;
        assert!((got.total_ms() - want).abs() < 1e-9);
    }

    #[test]
    fn one_large_file_sets_the_floor() {
        let work = CopyWork {
            left: TreeCounts {
                files: 10,
                bytes: 200 * 1024 * 1024,
                ..TreeCounts::default()
            },
            largest_file: 190 * 1024 * 1024,
            ..CopyWork::default()
        };
        let got = estimate(&work, &nine_p(), &ext4());
        // 190 MiB at 200 bytes/us is about a second, read by one thread.
        let alone = (190.0 * MIB - 4096.0) / 200.0 / 1e3;
        assert!(got.copy_ms >= alone, "{got:?}");
        assert!(got.copy_ms < alone * 1.2, "{got:?}");
    }

    #[test]
    fn a_local_source_is_bound_by_the_cores() {
        let local = SourceCosts {
            lstat_us: 2.0,
            file_us: 12.0,
            read_bytes_per_us: 2000.0,
            parallel_lstat: vec![],
            cores: 2,
        };
        let work = CopyWork {
            left: TreeCounts {
                files: 10_000,
                bytes: 10_000 * 2048,
                ..TreeCounts::default()
            },
            largest_file: 2048,
            ..CopyWork::default()
        };
        let got = estimate(&work, &local, &ext4());
        assert_eq!(got.threads, 4);
        // Source 12 us and destination 30 us per file, over 2 cores.
        let want_ms = 10_000.0 * (12.0 + 30.0) / 2.0 / 1e3;
        assert!((got.copy_ms - want_ms).abs() < 1e-9, "{got:?} vs {want_ms}");
    }

    #[test]
    fn nothing_to_copy_costs_only_gits_fixed_runs() {
        let got = estimate(&CopyWork::default(), &nine_p(), &ext4());
        assert_eq!(got.copy_ms + got.seal_ms + got.refresh_ms, 0.0);
        assert_eq!(
            got.total_ms(),
            FINISH_GIT_RUNS * crate::model::GIT_STARTUP_MS
        );
    }

    #[test]
    fn eta_starts_from_the_model_and_follows_the_pace() {
        assert_eq!(eta_ms(10_000.0, 0.0, 0.0), 10_000.0);
        assert_eq!(eta_ms(10_000.0, 1.0, 12_000.0), 0.0);
        // On schedule: half done in half the time leaves half.
        assert!((eta_ms(10_000.0, 0.5, 5000.0) - 5000.0).abs() < 1e-9);
        // A slow first 1%: the model still decides (an early-rate guess would say 99x).
        let early = eta_ms(10_000.0, 0.01, 1000.0);
        assert!(early < 11_000.0, "{early}");
        // Nine tenths done at twice the predicted pace: the pace decides.
        let late = eta_ms(10_000.0, 0.9, 18_000.0);
        assert!(
            (late - (1000.0 * 0.1 + 2000.0 * 0.9)).abs() < 1e-9,
            "{late}"
        );
    }

    #[test]
    fn large_files_weigh_their_bytes() {
        let small = file_weight_us(100, &nine_p(), &ext4());
        let large = file_weight_us(100 * 1024 * 1024, &nine_p(), &ext4());
        assert!((small - 13_030.0).abs() < 1e-9, "{small}");
        assert!(large > 40.0 * small, "{large} vs {small}");
    }
}
