//! Mounts and repositories the unit tests of the model start from.

use super::costs::MountCosts;
use super::figures::RepoFigures;
use crate::measure::probe::PerOp;

pub(super) fn local() -> MountCosts {
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
        cold_read: None,
        sampling_error: 0.0,
    }
}

pub(super) fn slow() -> MountCosts {
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
        cold_read: None,
        sampling_error: 0.1,
    }
}

pub(super) fn repo(tracked: u64, files: u64, dirs: u64) -> RepoFigures {
    RepoFigures {
        tracked,
        worktree_files: files,
        worktree_dirs: dirs,
        worktree_bytes: files * 4096,
        tracked_bytes: None,
        mapped_bytes: 0,
        text_bytes: 0,
        auto_text_bytes: 0,
        install: None,
        unborn_head: false,
    }
}
