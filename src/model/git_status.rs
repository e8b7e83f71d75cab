//! `git status` (steady, with fsmonitor, the pilot estimate, the first one after a copy) and a
//! fresh clone's checkout, from a repository's figures and a mount's costs.

use super::costs::{MIB, MountCosts, SMALL_FILE};
use super::figures::RepoFigures;
use crate::measure::gitindex::git_preload_threads;
use crate::measure::probe::PerOp;

/// Metadata calls git makes in `.git` per `git status` (HEAD, refs, config, packed-refs, index,
/// object lookups): counted with strace on git 2.47 in a small repository. What a fresh clone's
/// checkout pays; `git status` makes more of them (`GIT_STATUS_FIXED_CALLS`).
pub const GIT_FIXED_OPS: f64 = 90.0;
/// The calls `git status` makes whatever the tree (in `.git`: HEAD, each ref name tried in
/// turn, packed-refs stat'ed again per lookup, config, info/exclude, the index, the pack; and
/// `.gitignore` at the root), in `lstat`s one level below the repository's root: they name
/// paths of one or two components from git's working directory, however deep the tracked files
/// sit, so the tracked files' `lstat` (whose path walk grows with their depth) is not their
/// price. Counted as the FUSE requests of one `git status` (git 2.47) on the slowfs emulator
/// (drvfs-9p, scale 0.2: 280-330 lookups and ~80 getattrs beyond the tree's in a small
/// repository), priced at the emulator's latencies and fitted (median) on koajs/koa,
/// psf/requests, hynek/structlog, expressjs/express, unjs/h3, pallets/werkzeug and
/// tokio-rs/tokio: 203-267 each (`bench/status-requests.sh`, docs/accuracy.md). The 90 `lstat`s
/// of the tracked files' depth this replaced put small repositories 20-38% low there.
pub const GIT_STATUS_FIXED_CALLS: f64 = 215.0;
/// The same calls when `HEAD` names a branch with no commit yet (`git init`, files perhaps
/// staged): no ref resolved through packed-refs, no commit or tree read. Half: a `git status`
/// made 205 FUSE requests on the emulator in an empty repository and 237 with one file staged,
/// against 441 with that file committed (git 2.47, drvfs-9p at scale 0.5; it had predicted
/// 207 ms for the empty one, measured 75-80 ms).
pub const GIT_STATUS_FIXED_CALLS_UNBORN: f64 = GIT_STATUS_FIXED_CALLS / 2.0;
/// Process start-up when `git --version` could not be timed.
pub const GIT_STARTUP_MS: f64 = 1.5;
/// What `git status` spends beyond one start-up and the terms below (its configuration, the
/// object store), in process start-ups. Fitted (median, 14 paired runs) on the wall time of
/// steady `git status` against `git --version`, 21 interleaved runs of each with git at a
/// real-time priority (so that the other work on this project's loaded 2-core machine stays
/// out), less the model's other terms, on koajs/koa, psf/requests, hynek/structlog,
/// expressjs/express, unjs/h3, pallets/werkzeug and tokio-rs/tokio (git 2.47): -0.5 to +0.3,
/// median 0.05 (CPU time gives the same within 0.05). It was 0.6 (a one-file repository's CPU
/// time, 1.6-1.8 `git --version`s, with the fixed calls counted again below), which put every
/// repository of 24-870 files 8-37% high on ext4.
pub const GIT_SETUP_STARTUPS: f64 = 0.05;
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
/// added to those calls. The read rate was 215 at first (4.6 ns per byte); on repositories
/// with more bytes per small file that put the warm first status 12-39% high (rust-lang/cargo,
/// rails/rails, ansible/ansible, fastapi/fastapi, numpy, prettier; wall time, git at a real-time
/// priority, medians of three). Refitted as the one parameter on cargo, rails and ansible alone
/// (least squares of the warm first status): 2.7 ns per read byte, which put the repositories
/// left out of that fit, fastapi and sveltejs/kit, within 3% warm and 13% cold (docs/probe.md).
pub const HASH_BYTES_PER_US: f64 = 625.0;
pub const READ_HASH_BYTES_PER_US: f64 = 375.0;
/// Scanning a file's bytes for line endings before hashing it (convert.c, `gather_stats`, a
/// loop over every byte), bytes per microsecond at the reference pace, for files `.gitattributes`
/// marks `text`, `eol` or `text=auto` (or all, with `core.autocrlf`); the next one is reading
/// the index's blob of a `text=auto` file from the object store (zlib inflate and deltas from
/// the pack), to see whether that version has CRs. Fitted on the first status after `cp -a`
/// with and without `* -text` in `.git/info/attributes`, wall time with git at a real-time
/// priority (git 2.47, ext4, this project's 2-core machines): `text` on numpy (34.5 MB, +42 ms)
/// and git (17.0 MB, +21 ms) costs 1.2 ns per byte; `text=auto` on prettier (24.0 MB, +120
/// ms), the Rust book (5.0 MB, +20 ms) and redis (3.9 MB, +25 ms) another ~4 ns per byte.
/// Without these terms the first two were 10-20% low and the last three 20-45% low.
pub const TEXT_SCAN_BYTES_PER_US: f64 = 830.0;
pub const INDEX_BLOB_BYTES_PER_US: f64 = 245.0;
/// zlib inflate + hash throughput when checking files out, bytes per microsecond.
pub const INFLATE_BYTES_PER_US: f64 = 200.0;
/// CPU per checked-out file (object lookup, inflate set-up, index entry).
pub const CPU_US_PER_CHECKOUT: f64 = 15.0;

/// Steady-state `git status`, milliseconds.
pub fn git_status_ms(repo: &RepoFigures, c: &MountCosts, startup_ms: f64) -> f64 {
    let entries = repo.tracked as f64;
    let dirs = repo.worktree_dirs as f64;
    let listed = (repo.worktree_files + repo.worktree_dirs) as f64;
    // git status takes `.git/index.lock` to write back a refreshed index, and drops it when
    // nothing changed (unless GIT_OPTIONAL_LOCKS=0).
    let fixed_us = status_fixed_calls_us(repo, c) + c.scratch.create + c.scratch.unlink;
    let index_us = c.scratch.read + entries * INDEX_BYTES_PER_ENTRY / c.bytes_per_us();
    let per_entry_lstat = c.lstat_per_entry_us(git_preload_threads(repo.tracked));
    let lstat_us = entries * per_entry_lstat;
    // Each directory is `lstat`ed, then opened by its path from the root: the walk to it is
    // paid again beyond the one level the scratch `opendir` includes.
    let walk_us = dirs * (c.scratch.opendir + c.lstat_us + c.path_walk_us())
        + listed * c.scratch.readdir_entry;
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

/// `GIT_STATUS_FIXED_CALLS` (or its unborn-`HEAD` share) at the price of an `lstat` one level below the root (the tracked
/// files' `lstat` where the scratch one was not measured).
fn status_fixed_calls_us(repo: &RepoFigures, c: &MountCosts) -> f64 {
    let call_us = if c.scratch.lstat > 0.0 {
        c.scratch.lstat
    } else {
        c.lstat_us
    };
    let calls = if repo.unborn_head {
        GIT_STATUS_FIXED_CALLS_UNBORN
    } else {
        GIT_STATUS_FIXED_CALLS
    };
    calls * call_us
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
    let fixed_us = status_fixed_calls_us(repo, c) + c.scratch.create + c.scratch.unlink;
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
        cold_read: None,
        sampling_error: 0.0,
    };
    let repo = RepoFigures {
        tracked: entries,
        worktree_files: entries,
        worktree_dirs: dirs,
        worktree_bytes: 0,
        tracked_bytes: None,
        mapped_bytes: 0,
        text_bytes: 0,
        auto_text_bytes: 0,
        install: None,
        unborn_head: false,
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
    let rehash_us = entries * per_file_us + attributes_us + hash_us + mapped_us + text_us(repo, c);
    // The lock git status takes anyway (in `git_status_ms`) now gets written and renamed.
    let index_write_us = entries * INDEX_BYTES_PER_ENTRY / c.bytes_per_us();
    git_status_ms(repo, c, startup_ms) + (rehash_us + index_write_us) / 1e3
}

/// Reads from the disk per tracked file when the page cache holds none of the copy, in units
/// of the probe's cold read (a 4 KiB file's data, its inode cached): the data, and the inode
/// table and directory blocks that the `lstat`s and path walks now read too. And reads before
/// git reaches the files: its executable and libraries, `.git`'s config, refs and index.
/// Fitted on ext4 on this project's 2-core machines (a virtual disk; the probe's cold read
/// ~62 us, 1 MiB ~1.2 ms), git 2.47 at a real-time priority: what dropping the caches
/// (`echo 3 > /proc/sys/vm/drop_caches`) after `cp -a` added to the first status of git,
/// redis, whisper.cpp, the Rust book and svelte (278-846 ms, medians of three) is 1.05-1.34x
/// what 1.3 reads per file gave, 1.16x overall; a one-file repository's status costs ~15-20 ms
/// more cold than warm (the start reads).
pub const COLD_READS_PER_FILE: f64 = 1.5;
pub const COLD_START_READS: f64 = 250.0;

/// The first `git status` after a copy with a cold page cache (after a reboot, or once memory
/// pressure has evicted the copy): `first_git_status_ms` plus what reading from the disk adds.
/// Where the mount has no cold figure (a 9p or network mount, whose warm figures already go
/// to the server, or nothing measured), the warm figure.
pub fn first_git_status_cold_ms(repo: &RepoFigures, c: &MountCosts, startup_ms: f64) -> f64 {
    let warm = first_git_status_ms(repo, c, startup_ms);
    let Some(cold) = c.cold_read else {
        return warm;
    };
    let per_file_us = (cold.file_us - c.scratch.read).max(0.0);
    let mapped = repo.mapped_bytes as f64;
    let mapped_us = mapped / MIB * (cold.mib_us - c.scratch.read_mib).max(0.0);
    // Files of up to 32 KiB are read whole, at the disk's bandwidth past the first page.
    let small_extra = (repo.tracked_bytes() - mapped - repo.tracked as f64 * SMALL_FILE).max(0.0);
    let small_us = small_extra / MIB * cold.mib_us;
    let files_us = repo.tracked as f64 * COLD_READS_PER_FILE * per_file_us;
    warm + (COLD_START_READS * cold.file_us + files_us + mapped_us + small_us) / 1e3
}

/// Line endings: the scan of every `text` and `text=auto` file, and for the latter the
/// index's blob read from the object store, microseconds.
fn text_us(repo: &RepoFigures, c: &MountCosts) -> f64 {
    let scanned = (repo.text_bytes + repo.auto_text_bytes) as f64;
    let blobs = repo.auto_text_bytes as f64;
    (scanned / TEXT_SCAN_BYTES_PER_US + blobs / INDEX_BLOB_BYTES_PER_US) * c.cpu_pace()
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

#[cfg(test)]
mod tests {
    use super::super::costs::REFERENCE_SHA1_US_PER_MIB;
    use super::super::fixtures::{local, repo, slow};
    use super::*;

    #[test]
    fn a_branch_with_no_commit_pays_half_the_fixed_calls() {
        let born = repo(0, 0, 1);
        let unborn = RepoFigures {
            unborn_head: true,
            ..born.clone()
        };
        let (b, u) = (
            git_status_ms(&born, &slow(), 1.5),
            git_status_ms(&unborn, &slow(), 1.5),
        );
        let half = GIT_STATUS_FIXED_CALLS_UNBORN * slow().scratch.lstat / 1e3;
        assert!((b - u - half).abs() < 1e-6, "{b} vs {u}");
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
            text_bytes: 0,
            auto_text_bytes: 0,
            install: None,
            unborn_head: false,
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
    fn git_status_on_fixed_inputs() {
        // 1,000 entries, 100 dirs, nothing untracked, on the slow mount: start-up, fixed calls
        // (one level below the root: the scratch lstat), the index, serial lstat (999 < 1000
        // entries would be too; 1000 is 2 threads at 500), listing 100 dirs (each lstat'ed and
        // opened by its path: the walk to it again) and 1,100 entries, CPU.
        let r = repo(1000, 1000, 100);
        let got = git_status_ms(&r, &slow(), 1.5);
        let want = 1.5 * (1.0 + GIT_SETUP_STARTUPS)
            + (GIT_STATUS_FIXED_CALLS * 400.0
                + 15_000.0
                + 5000.0
                + 3000.0
                + 100_000.0 / (MIB / 40_000.0)
                + 500_000.0
                + 100.0 * (2000.0 + 1000.0 + 600.0)
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
            text_bytes: 0,
            auto_text_bytes: 0,
            ..r.clone()
        };
        let more = first_git_status_ms(&big, &c, 0.0) - first_git_status_ms(&r, &c, 0.0);
        let want = (8.0 * 2000.0 + 8.0 * MIB / HASH_BYTES_PER_US) / 1e3;
        assert!((more - want).abs() < 1e-6, "{more} vs {want}");
    }

    #[test]
    fn a_cold_page_cache_reads_every_file_from_the_disk() {
        use crate::measure::probe::cold::ColdRead;
        let r = RepoFigures {
            tracked_bytes: Some(1000 * 4096 + 8 * 1_048_576),
            mapped_bytes: 8 * 1_048_576,
            ..repo(1000, 1000, 10)
        };
        let warm = local();
        // No cold figure (a 9p mount, or not measured): the warm figure.
        assert_eq!(
            first_git_status_cold_ms(&r, &warm, 1.5),
            first_git_status_ms(&r, &warm, 1.5)
        );
        let c = MountCosts {
            cold_read: Some(ColdRead {
                file_us: 64.0,
                mib_us: 1100.0,
            }),
            ..local()
        };
        let extra = first_git_status_cold_ms(&r, &c, 1.5) - first_git_status_ms(&r, &c, 1.5);
        // The start reads; per file 1.5 cold reads less the warm read (4 us); the mapped MiB
        // at the cold pace less the warm one (100 us).
        let want =
            (COLD_START_READS * 64.0 + 1000.0 * COLD_READS_PER_FILE * 60.0 + 8.0 * 1000.0) / 1e3;
        assert!((extra - want).abs() < 1e-9, "{extra} vs {want}");
        // 114 ms for 1,000 small files and 8 MiB: the disk, not the CPU, decides.
        assert!(extra > 2.0 * first_git_status_ms(&r, &c, 1.5), "{extra}");
    }

    #[test]
    fn line_endings_cost_a_scan_and_for_text_auto_the_index_blob() {
        let r = RepoFigures {
            tracked_bytes: Some(1000 * 4096),
            ..repo(1000, 1000, 10)
        };
        let c = local();
        let plain = first_git_status_ms(&r, &c, 0.0);
        let text = RepoFigures {
            text_bytes: 2_000_000,
            ..r.clone()
        };
        let auto = RepoFigures {
            auto_text_bytes: 2_000_000,
            ..r.clone()
        };
        let scan_ms = 2_000_000.0 / TEXT_SCAN_BYTES_PER_US / 1e3;
        let blob_ms = 2_000_000.0 / INDEX_BLOB_BYTES_PER_US / 1e3;
        let with_text = first_git_status_ms(&text, &c, 0.0) - plain;
        let with_auto = first_git_status_ms(&auto, &c, 0.0) - plain;
        assert!(
            (with_text - scan_ms).abs() < 1e-9,
            "{with_text} vs {scan_ms}"
        );
        assert!((with_auto - scan_ms - blob_ms).abs() < 1e-9, "{with_auto}");
        // 2 MB of text=auto: about 10 ms at the reference pace, 5x the plain scan.
        assert!((9.0..11.0).contains(&with_auto) && with_auto > 4.0 * with_text);
        // Steady status does not hash, so does not convert.
        assert_eq!(git_status_ms(&auto, &c, 0.0), git_status_ms(&r, &c, 0.0));
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
            cold_read: None,
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
            cold_read: None,
            ..local()
        };
        assert_eq!(absurd.cpu_pace(), 8.0);
    }
}
