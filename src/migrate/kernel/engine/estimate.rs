//! The plan's time estimate and the copy's thread count: the source measured read-only on its
//! own files (nothing may be written there), the destination by the scratch probe, both at once
//! right after the walk, and the model's figures from them (`model::migration`).

use super::plan::Measured;
use super::plan::{CopyPlan, Entry, Kind, Resume};
use super::source;
use crate::base::counts::TreeCounts;
use crate::base::dirfd;
use crate::base::units;
use crate::host::HostEnv;
use crate::host::location::MountTable;
use crate::measure::probe::{self, CPU_BOUND_US, ProbeReport, Target, measure, tracked};
use crate::measure::stats::OpStats;
use crate::model::MountCosts;
use crate::model::migration::{self, CopyEstimate, CopyWork, SourceCosts};
use rustix::fs::{Mode, OFlags};
use std::os::fd::{AsFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Files of the tree timed for serial `lstat`, and cycled through by the parallel runs.
const SAMPLE: usize = 48;
/// Thread counts for the parallel `lstat` figures the copy's thread count is chosen from: a
/// latency-bound source overlaps 16 at least as well as fewer, and each count measured delays
/// the first question.
const THREADS: &[usize] = &[16, 32];
/// Enough for the serial figure the parallel ones are compared with (the pilot, not this,
/// prices the files).
const LSTAT_BUDGET: Duration = Duration::from_millis(50);
/// One scratch round at the destination (about 1 MiB written and removed): a disk that is
/// nearly full loses as little as possible to it, and a local disk needs no more.
const DESTINATION_BUDGET: Duration = Duration::ZERO;
/// Small files: what the pilot copies the source side of (a pack is priced by its bytes).
const SMALL: u64 = 64 * 1024;
/// Pilot files per copy thread, and at least in all: enough that thread start-up is a small
/// part of the run.
const PILOT_PER_THREAD: usize = 4;
const PILOT_MIN: usize = 32;
/// Read from the largest file for the bandwidth: enough to see past the first call's latency.
const BANDWIDTH_READ: u64 = 4 * 1024 * 1024;

/// Measures the source and the destination for `plan`'s estimate; a sentence when it cannot.
pub fn measure(env: &HostEnv, plan: &CopyPlan) -> Result<Measured, String> {
    let files: Vec<&Entry> = plan
        .entries
        .iter()
        .filter(|e| e.kind == Kind::File)
        .collect();
    if files.is_empty() {
        return Err("nothing to read".into());
    }
    let parent = nearest_existing(&plan.destination)
        .ok_or_else(|| format!("no folder of {} exists", plan.destination.display()))?;
    let table = MountTable::read(env).map_err(|f| f.message)?;
    let mount = probe::mount_of(&table, &parent).map_err(|f| f.message)?;
    // The destination's probe is CPU work on a local disk and the source's calls are waits on
    // its server, so they share the time rather than slow each other.
    let (source, destination) = std::thread::scope(|scope| {
        let destination = scope.spawn(|| destination_costs(&parent, mount));
        let source = source_costs(&plan.source, &files);
        (source, destination.join().unwrap_or(None))
    });
    Ok(Measured {
        source: source.ok_or("the source's files could not be read")?,
        destination: destination
            .ok_or_else(|| format!("the destination {} could not be probed", parent.display()))?,
    })
}

fn nearest_existing(path: &Path) -> Option<PathBuf> {
    path.ancestors()
        .skip(1)
        .find(|a| a.is_dir())
        .map(Path::to_path_buf)
}

/// Every `n`th file, for `count` files spread over the tree.
fn spread<'a>(files: &[&'a Entry], count: usize) -> Vec<&'a Entry> {
    let step = files.len().div_ceil(count).max(1);
    files.iter().step_by(step).copied().collect()
}

/// `lstat` serially and with each of `THREADS` (relative to the root, as the copy reaches the
/// files), the copy's thread count from those figures, then a pilot: the copy's own source
/// calls on small files of the tree with that many threads.
fn source_costs(root: &Path, files: &[&Entry]) -> Option<SourceCosts> {
    let paths: Vec<PathBuf> = spread(files, SAMPLE)
        .iter()
        .map(|e| e.rel.clone())
        .collect();
    let lstat = OpStats::from_samples(&tracked::tracked_lstat(root, &paths, LSTAT_BUDGET).ok()?)?;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let parallel_lstat = if lstat.median_us < CPU_BOUND_US {
        Vec::new()
    } else {
        let dir = measure::open_dir(&rustix::fs::CWD, root).ok()?;
        THREADS
            .iter()
            .filter_map(|&t| {
                measure::parallel_lstat(&dir, &paths, t, lstat.trimmed_mean_us).map(|us| (t, us))
            })
            .collect()
    };
    let mut costs = SourceCosts {
        lstat_us: lstat.trimmed_mean_us,
        file_us: 0.0,
        read_bytes_per_us: f64::INFINITY,
        parallel_lstat,
        cores,
    };
    let threads = costs.copy_threads();
    let small: Vec<&Entry> = files.iter().copied().filter(|e| e.size <= SMALL).collect();
    let pilot_files = spread(
        if small.is_empty() { files } else { &small },
        (threads * PILOT_PER_THREAD).max(PILOT_MIN),
    );
    // The pilot's wall time per file with `threads` threads, back to one thread's cost.
    costs.file_us = pilot(root, &pilot_files, threads)? * costs.overlap(threads);
    costs.read_bytes_per_us = bandwidth(root, files, costs.file_us);
    Some(costs)
}

/// Wall-clock microseconds per file when `threads` threads do the copy's source calls on
/// `files` (reading them into memory, as the copy does before writing). The copy opens each file
/// in the directory the walk listed it in, so the pilot opens those directories first, untimed.
fn pilot(root: &Path, files: &[&Entry], threads: usize) -> Option<f64> {
    let threads = threads.min(files.len()).max(1);
    let folders: Vec<Option<OwnedFd>> = in_parallel(threads, files.len(), |i| {
        let parent = root.join(&files[i].rel);
        let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC;
        rustix::fs::open(parent.parent()?, flags, Mode::empty()).ok()
    });
    let started = Instant::now();
    let read = in_parallel(threads, files.len(), |i| {
        let (dir, name) = (folders[i].as_ref()?, files[i].rel.file_name()?);
        let mut input = source::SourceFile::In(dir.as_fd(), name).open().ok()?;
        let mut data = Vec::new();
        source::read_known(&mut input, files[i].size, &mut data).ok()?;
        dirfd::fstat(&input).ok()
    });
    let done = read.iter().flatten().count();
    (done > 0).then(|| started.elapsed().as_secs_f64() * 1e6 / done as f64)
}

/// `each(i)` for every `i` below `count` on `threads` threads, the results in order.
fn in_parallel<T: Send>(
    threads: usize,
    count: usize,
    each: impl Fn(usize) -> Option<T> + Sync,
) -> Vec<Option<T>> {
    let next = AtomicUsize::new(0);
    let results: Vec<Mutex<Option<T>>> = (0..count).map(|_| Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(slot) = results.get(i) else { break };
                    let value = each(i);
                    *slot.lock().unwrap_or_else(|p| p.into_inner()) = value;
                }
            });
        }
    });
    results
        .into_iter()
        .map(|m| m.into_inner().unwrap_or_else(|p| p.into_inner()))
        .collect()
}

/// Bytes per microsecond reading the largest file past its first call; infinite when no file
/// is large enough for bytes to matter.
fn bandwidth(root: &Path, files: &[&Entry], first_call_us: f64) -> f64 {
    let Some(largest) = files.iter().max_by_key(|e| e.size) else {
        return f64::INFINITY;
    };
    if largest.size < BANDWIDTH_READ / 16 {
        return f64::INFINITY;
    }
    let timed = tracked::tracked_read(
        root,
        std::slice::from_ref(&largest.rel),
        BANDWIDTH_READ,
        Duration::ZERO,
    );
    match timed.ok().and_then(|t| t.first().copied()) {
        Some((us, bytes)) if bytes > 0 => bytes as f64 / (us - first_call_us).max(1.0),
        _ => f64::INFINITY,
    }
}

/// The destination's create, write and read-back costs: one short scratch probe beside it.
fn destination_costs(dir: &Path, mount: &crate::host::mounts::MountEntry) -> Option<MountCosts> {
    let mut report = ProbeReport::empty(dir, mount);
    let target = Target {
        dir,
        mount,
        budget: DESTINATION_BUDGET,
        tracked: None,
        threads: &[],
        derive_cpu_bound: true,
    };
    probe::measure_scratch(&mut report, &target, DESTINATION_BUDGET);
    // The CPU's pace is not timed here: the refresh's CPU terms take the reference pace.
    crate::assess::pipeline::probes::mount_costs(&report, None)
}

/// The model's figures for what is left to copy of a plan.
#[derive(Debug, Clone, Default)]
pub struct Estimate {
    pub predicted_copy_ms: Option<u64>,
    /// What it was made from, or why there is none.
    pub basis: String,
    pub prediction: Option<CopyEstimate>,
    pub threads: Option<usize>,
}

/// What is left to copy in `plan`, for the model.
pub fn work(plan: &CopyPlan, resume: &Resume) -> CopyWork {
    let is_repository = plan.entries.iter().any(|e| e.rel.as_os_str() == ".git");
    let refreshed = |e: &&Entry| {
        is_repository
            && e.kind == Kind::File
            && !e
                .rel
                .components()
                .any(|c| c.as_os_str() == ".git" || c.as_os_str() == "node_modules")
    };
    CopyWork {
        left: TreeCounts {
            files: plan.totals.files.saturating_sub(resume.files),
            bytes: plan.totals.bytes.saturating_sub(resume.bytes),
            ..plan.totals
        },
        largest_file: plan
            .entries
            .iter()
            .filter(|e| e.kind == Kind::File)
            .map(|e| e.size)
            .max()
            .unwrap_or(0),
        refreshed_files: plan.entries.iter().filter(refreshed).count() as u64,
        refreshed_bytes: plan.entries.iter().filter(refreshed).map(|e| e.size).sum(),
    }
}

/// The estimate: the one place the model prices a plan, from what was measured and what is
/// left after `resume`.
pub fn of(plan: &CopyPlan, resume: &Resume) -> Estimate {
    let Some(measured) = &plan.measured else {
        let basis = plan.unmeasured.as_ref();
        return Estimate {
            basis: basis.map_or(String::new(), |why| format!("no estimate: {why}")),
            ..Estimate::default()
        };
    };
    let estimate =
        migration::estimate(&work(plan, resume), &measured.source, &measured.destination);
    let source = &measured.source;
    Estimate {
        predicted_copy_ms: Some(estimate.total_ms().ceil() as u64),
        // Plain words: how many files are copied at once and what was timed, not the model's
        // terms (lstat, overlap).
        basis: format!(
            "copying {} at a time (timed here: {} to look up a file, {} to read a small one; the Linux disk by a short test write)",
            units::counted(estimate.threads as u64, "file", "files"),
            units::micros(source.lstat_us),
            units::micros(source.file_us),
        ),
        threads: Some(estimate.threads),
        prediction: Some(estimate),
    }
}

/// Local disks lose to directory-lock contention beyond a few threads per core; a drive reached
/// over 9p or a network is latency-bound, and more requests in flight hide the round trips.
pub fn copy_threads(env: &HostEnv, source: &Path) -> usize {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let remote = MountTable::read(env)
        .ok()
        .and_then(|t| t.mount_for(source).map(|m| m.kind()))
        .is_some_and(|k| k.is_remote());
    if remote {
        (cores * 8).clamp(8, 32)
    } else {
        (cores * 2).clamp(2, 8)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str, size: u64) -> Entry {
        Entry {
            rel: PathBuf::from(name),
            kind: Kind::File,
            size,
            mode: 0o644,
            mtime: (0, 0),
            atime: (0, 0),
            stamp: Default::default(),
            hard_link_of: None,
        }
    }

    #[test]
    fn the_sample_spreads_over_the_tree() {
        let entries: Vec<Entry> = (0..100).map(|i| file(&format!("f{i:03}"), 1)).collect();
        let refs: Vec<&Entry> = entries.iter().collect();
        let picked = spread(&refs, 48);
        assert_eq!(picked.len(), 34);
        assert_eq!(picked[1].rel, PathBuf::from("f003"));
        assert_eq!(spread(&refs[..10], 48).len(), 10);
    }
}
