//! The timed small-file operations. Every path is opened relative to a directory descriptor, as
//! git does from the worktree root, so a measurement pays for the path components a real
//! operation pays for and no more (on a FUSE or 9p mount each component is a round trip).

use super::ops::{Op, PerOp};
pub use super::tap::{InProcess, Tap, stop_if_interrupted};
use crate::base::interrupt;
use crate::measure::stats::median;
use rustix::fs::{AtFlags, Dir, Mode, OFlags};
use serde::{Deserialize, Serialize};
use std::io::{Read, Write};
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::sync::Barrier;
use std::time::{Duration, Instant};

pub const FILE_BYTES: usize = 4096;
/// Small enough that one round on a 9p mount (where a create is milliseconds) stays well under
/// the `git status` it helps predict: about 330 ms there.
const FIRST_BATCH: usize = 8;
/// The first round when the whole probe has less time than that (the hook's first look):
/// about 200 ms on a 9p mount, every operation still sampled.
pub const SMALL_FIRST_BATCH: usize = 4;
/// Below this probe budget the first round is the small one.
const SMALL_FIRST_BELOW: Duration = Duration::from_millis(300);

/// Files in the first round of a probe given `budget`: the first round always runs, so it has
/// to fit.
pub fn first_batch(budget: Duration) -> usize {
    if budget < SMALL_FIRST_BELOW {
        SMALL_FIRST_BATCH
    } else {
        FIRST_BATCH
    }
}
const MAX_BATCH: usize = 1024;
/// Writes per round on a local disk, and the MiB each writes (see `round`).
const LOCAL_MIB_WRITES: usize = 2;
const LOCAL_WRITE_MIBS: usize = 8;
const MIB: usize = 1 << 20;
/// Two rounds whose medians agree this closely are taken as stable.
const STABLE: f64 = 0.15;
/// Below this serial `lstat` latency a call is CPU work in the kernel, not a wait on a device
/// or a server, so threads help only as far as there are cores.
pub const CPU_BOUND_US: f64 = 50.0;

#[derive(Debug, Default)]
pub struct Samples {
    /// Microseconds per call, one sample per call.
    pub ops: PerOp<Vec<f64>>,
    /// Per thread count: wall-clock microseconds per entry, one sample per round.
    pub parallel: Vec<(usize, Vec<f64>)>,
}

/// How the rounds went; part of the probe's report.
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
pub struct RunSummary {
    pub rounds: u32,
    pub largest_batch: usize,
    /// The medians of the last two rounds agreed within 15%.
    pub stable: bool,
    pub verified_files: u64,
    pub verified_bytes: u64,
    /// Files whose read-back differed in length or CRC32 from what was written.
    pub verify_errors: u64,
}

#[derive(Debug, Default)]
pub struct Outcome {
    pub samples: Samples,
    pub run: RunSummary,
}

fn us(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1e6
}

pub fn open_dir(
    at: &impl std::os::fd::AsFd,
    path: impl rustix::path::Arg,
) -> std::io::Result<OwnedFd> {
    Ok(rustix::fs::openat(
        at,
        path,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )?)
}

/// Deterministic, distinct content per file, so a read-back that returns another file's bytes
/// (or a stale cache page) fails the CRC.
fn payload(round: u32, index: usize) -> Vec<u8> {
    let mut seed = (u64::from(round) << 32) ^ index as u64 ^ 0x9e37_79b9_7f4a_7c15;
    (0..FILE_BYTES)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed as u8
        })
        .collect()
}

/// The figures so far and where each step is told.
struct Recorder<'t> {
    out: Outcome,
    tap: &'t mut dyn Tap,
}

impl Recorder<'_> {
    fn begin(&mut self, op: Op) -> std::io::Result<()> {
        self.tap.begin(op)
    }

    fn record(&mut self, op: Op, us: f64) {
        self.out.samples.ops.get_mut(op).push(us);
        self.tap.sample(op, us);
    }

    /// Times `call` as one sample of `op`.
    fn timed<T>(
        &mut self,
        op: Op,
        call: impl FnOnce() -> std::io::Result<T>,
    ) -> std::io::Result<T> {
        self.begin(op)?;
        let t = Instant::now();
        let value = call()?;
        self.record(op, us(t));
        Ok(value)
    }

    fn verified(&mut self, ok: bool) {
        let run = &mut self.out.run;
        if ok {
            run.verified_files += 1;
            run.verified_bytes += FILE_BYTES as u64;
        } else {
            run.verify_errors += 1;
        }
        self.tap.verified(ok);
    }
}

/// Runs rounds of growing size in `scratch` until the key medians settle or `budget` is spent.
/// A round whose serial `lstat` is below `skip_parallel_below_us` does not time the parallel
/// runs (0 always times them): its caller will derive those figures from the cores. Every step
/// is told to `tap`, which may stop the rounds.
pub fn rounds(
    scratch: &Path,
    budget: Duration,
    first_batch: usize,
    threads: &[usize],
    skip_parallel_below_us: f64,
    tap: &mut dyn Tap,
) -> std::io::Result<Outcome> {
    let start = Instant::now();
    tap.begin(Op::Opendir)?;
    let scratch_fd = open_dir(&rustix::fs::CWD, scratch)?;
    let mut rec = Recorder {
        out: Outcome {
            samples: Samples {
                parallel: threads.iter().map(|&t| (t, Vec::new())).collect(),
                ..Samples::default()
            },
            ..Outcome::default()
        },
        tap,
    };
    let mut batch = first_batch.clamp(1, MAX_BATCH);
    let mut last_round = Duration::ZERO;
    loop {
        let before = key_medians(&rec.out.samples);
        let round_start = Instant::now();
        let index = rec.out.run.rounds;
        round(&scratch_fd, index, batch, skip_parallel_below_us, &mut rec)?;
        last_round = last_round.max(round_start.elapsed());
        rec.out.run.rounds += 1;
        rec.out.run.largest_batch = batch;
        rec.tap.round(batch);
        if interrupt::requested() {
            break;
        }
        let after = key_medians(&rec.out.samples);
        if rec.out.run.rounds >= 2 && settled(&before, &after) {
            rec.out.run.stable = true;
            break;
        }
        // The next round is twice as large: stop if it would not fit in what is left.
        let next = if batch < MAX_BATCH {
            last_round * 2
        } else {
            last_round
        };
        if start.elapsed() + next > budget {
            break;
        }
        batch = (batch * 2).min(MAX_BATCH);
    }
    Ok(rec.out)
}

fn key_medians(s: &Samples) -> [Option<f64>; 4] {
    [
        median(&s.ops.create),
        median(&s.ops.read),
        median(&s.ops.lstat),
        median(&s.ops.unlink),
    ]
}

fn settled(before: &[Option<f64>; 4], after: &[Option<f64>; 4]) -> bool {
    before.iter().zip(after).all(|(b, a)| match (b, a) {
        (Some(b), Some(a)) if *b > 0.0 => ((a - b) / b).abs() < STABLE,
        _ => false,
    })
}

/// One round of `n` files in its own folder `r<index>`: every operation timed, the files
/// read back and checked, and everything removed again.
fn round(
    scratch_fd: &OwnedFd,
    index: u32,
    n: usize,
    skip_parallel_below_us: f64,
    rec: &mut Recorder,
) -> std::io::Result<()> {
    let name = format!("r{index}");
    rec.begin(Op::Mkdir)?;
    rustix::fs::mkdirat(scratch_fd, name.as_str(), Mode::from_raw_mode(0o755))?;
    rec.begin(Op::Opendir)?;
    let dir = open_dir(scratch_fd, name.as_str())?;
    // Four directories at least, two in a small first round: each is a `mkdir` sample.
    let subdirs = if n < FIRST_BATCH { 2 } else { (n / 8).max(4) };
    for i in 0..subdirs {
        rec.timed(Op::Mkdir, || {
            Ok(rustix::fs::mkdirat(
                &dir,
                format!("d{i}").as_str(),
                Mode::from_raw_mode(0o755),
            )?)
        })?;
    }
    let names: Vec<String> = (0..n).map(|i| format!("f{i}")).collect();
    let crcs = time_creates(&dir, index, &names, rec)?;
    time_lstats(&dir, &names, skip_parallel_below_us, rec)?;
    time_reads(&dir, &names, &crcs, rec)?;
    time_listing(scratch_fd, &dir, &name, rec)?;
    time_renames(&dir, &names, rec)?;
    time_writes(&dir, n, rec)?;
    for i in 0..n {
        let file = if i < renamed(n) {
            format!("g{i}")
        } else {
            format!("f{i}")
        };
        rec.timed(Op::Unlink, || {
            Ok(rustix::fs::unlinkat(&dir, file.as_str(), AtFlags::empty())?)
        })?;
    }
    for i in 0..subdirs {
        rec.begin(Op::Unlink)?;
        rustix::fs::unlinkat(&dir, format!("d{i}").as_str(), AtFlags::REMOVEDIR)?;
    }
    drop(dir);
    rec.begin(Op::Unlink)?;
    rustix::fs::unlinkat(scratch_fd, name.as_str(), AtFlags::REMOVEDIR)?;
    Ok(())
}

/// Renames of the first files to `g<i>`.
fn time_renames(dir: &OwnedFd, names: &[String], rec: &mut Recorder) -> std::io::Result<()> {
    // A quarter of the files: git renames rarely (the index, refs), and on 9p a rename costs
    // several creates.
    for (i, file) in names.iter().enumerate().take(renamed(names.len())) {
        rec.timed(Op::Rename, || {
            Ok(rustix::fs::renameat(
                dir,
                file.as_str(),
                dir,
                format!("g{i}").as_str(),
            )?)
        })?;
    }
    Ok(())
}

/// The round's bandwidth figure: one or more writes of a MiB or a part of one, by the mount's
/// speed and the round's `n` files.
fn time_writes(dir: &OwnedFd, n: usize, rec: &mut Recorder) -> std::io::Result<()> {
    // The write is the whole bandwidth figure of a round. On a disk that takes a MiB in about
    // a millisecond, a MiB is written into pages still in the CPU's caches: 0.22 ms per MiB
    // on a journaled ext4 here, where 8 MiB or more (a build's target/, a package's files)
    // took 0.28-0.30 ms per MiB and ripgrep's target/ was priced 27-37% low; so 8 MiB there,
    // twice, one write's hiccup halved. A slow mount (its `lstat` a round trip, not CPU work)
    // gets one MiB: its cost is the requests, not the pages. A small first round writes a
    // quarter of a MiB: the pieces' time counts four times, the open and the close once, so a
    // slow mount's per-request cost is extrapolated, not its per-file cost.
    let (writes, mibs) = match median(&rec.out.samples.ops.lstat) {
        Some(lstat_us) if lstat_us < CPU_BOUND_US => (LOCAL_MIB_WRITES, LOCAL_WRITE_MIBS),
        _ => (1, 1),
    };
    let bytes = if n < FIRST_BATCH { MIB / 4 } else { mibs * MIB };
    for _ in 0..writes {
        time_write_mib(dir, rec, bytes)?;
    }
    Ok(())
}

/// Create, write 4 KiB, close, per file; returns each file's CRC32 for the read-back.
fn time_creates(
    dir: &OwnedFd,
    round: u32,
    names: &[String],
    rec: &mut Recorder,
) -> std::io::Result<Vec<u32>> {
    let mut crcs = Vec::with_capacity(names.len());
    for (i, file) in names.iter().enumerate() {
        let data = payload(round, i);
        crcs.push(crc32fast::hash(&data));
        rec.timed(Op::Create, || {
            let fd = rustix::fs::openat(
                dir,
                file.as_str(),
                OFlags::CREATE | OFlags::WRONLY | OFlags::TRUNC | OFlags::CLOEXEC,
                Mode::from_raw_mode(0o644),
            )?;
            std::fs::File::from(fd).write_all(&data)
        })?;
    }
    Ok(crcs)
}

/// Serial `lstat` of each file, then the parallel runs unless serial `lstat` is CPU work below
/// `skip_parallel_below_us`.
fn time_lstats(
    dir: &OwnedFd,
    names: &[String],
    skip_parallel_below_us: f64,
    rec: &mut Recorder,
) -> std::io::Result<()> {
    for file in names {
        rec.timed(Op::Lstat, || {
            Ok(rustix::fs::statat(
                dir,
                file.as_str(),
                AtFlags::SYMLINK_NOFOLLOW,
            )?)
        })?;
    }
    let paths: Vec<PathBuf> = names.iter().map(PathBuf::from).collect();
    let lstats = &rec.out.samples.ops.lstat;
    let serial = median(&lstats[lstats.len() - names.len()..]).unwrap_or(1.0);
    if serial >= skip_parallel_below_us {
        for k in 0..rec.out.samples.parallel.len() {
            rec.begin(Op::Lstat)?;
            let threads = rec.out.samples.parallel[k].0;
            if let Some(per_entry) = parallel_lstat(dir, &paths, threads, serial) {
                rec.out.samples.parallel[k].1.push(per_entry);
                rec.tap.parallel(threads, per_entry);
            }
        }
    }
    Ok(())
}

/// Open, read, close, per file, checking each read-back against its CRC32.
fn time_reads(
    dir: &OwnedFd,
    names: &[String],
    crcs: &[u32],
    rec: &mut Recorder,
) -> std::io::Result<()> {
    let mut buf = Vec::with_capacity(FILE_BYTES * 2);
    for (file, crc) in names.iter().zip(crcs) {
        buf.clear();
        rec.timed(Op::Read, || {
            let fd = rustix::fs::openat(
                dir,
                file.as_str(),
                OFlags::RDONLY | OFlags::CLOEXEC,
                Mode::empty(),
            )?;
            std::fs::File::from(fd).read_to_end(&mut buf)
        })?;
        rec.verified(buf.len() == FILE_BYTES && crc32fast::hash(&buf) == *crc);
    }
    Ok(())
}

/// Listing the full directory against listing an empty one at the same depth leaves the
/// per-entry cost; the empty listing is the per-directory cost.
fn time_listing(
    scratch_fd: &OwnedFd,
    dir: &OwnedFd,
    name: &str,
    rec: &mut Recorder,
) -> std::io::Result<()> {
    for _ in 0..3 {
        rec.begin(Op::Opendir)?;
        let t = Instant::now();
        let empty = count_entries(open_dir(dir, "d0")?)?;
        let empty_us = us(t);
        rec.begin(Op::ReaddirEntry)?;
        let t = Instant::now();
        let full = count_entries(open_dir(scratch_fd, name)?)?;
        let full_us = us(t);
        rec.record(Op::Opendir, empty_us);
        if full > empty {
            rec.record(
                Op::ReaddirEntry,
                ((full_us - empty_us) / (full - empty) as f64).max(0.0),
            );
        }
    }
    Ok(())
}

/// Writes `bytes` (a whole number of git's 64 KiB pieces) and maps at most one MiB of it back,
/// timing each per MiB: the pieces' time scaled to a MiB, the open and the close counted once.
fn time_write_mib(dir: &OwnedFd, rec: &mut Recorder, bytes: usize) -> std::io::Result<()> {
    const PIECE: usize = 64 * 1024;
    let pieces = bytes / PIECE;
    let scale = MIB as f64 / bytes as f64;
    let piece = vec![0x5a_u8; PIECE];
    rec.begin(Op::WriteMib)?;
    let opening = Instant::now();
    let fd = rustix::fs::openat(
        dir,
        "big",
        OFlags::CREATE | OFlags::WRONLY | OFlags::TRUNC | OFlags::CLOEXEC,
        Mode::from_raw_mode(0o644),
    )?;
    let opened = us(opening);
    let mut file = std::fs::File::from(fd);
    let writing = Instant::now();
    for _ in 0..pieces {
        file.write_all(&piece)?;
    }
    let written = us(writing);
    let closing = Instant::now();
    drop(file);
    rec.record(Op::WriteMib, opened + written * scale + us(closing));
    rec.begin(Op::ReadMib)?;
    // One MiB of it at most, as the first-status fit was made on (git maps a file at a time).
    let (mapped, mapped_bytes) = read_mapped(dir, "big", MIB)?;
    rec.record(
        Op::ReadMib,
        mapped * MIB as f64 / mapped_bytes.max(1) as f64,
    );
    rec.begin(Op::Unlink)?;
    rustix::fs::unlinkat(dir, "big", AtFlags::empty())?;
    Ok(())
}

/// Microseconds to map at most `limit` bytes of `name` and touch each page, as git reads a file
/// over 32 KiB to hash it (on a mount that keeps no page cache every page is a request), and the
/// bytes mapped.
fn read_mapped(dir: &OwnedFd, name: &str, limit: usize) -> std::io::Result<(f64, usize)> {
    let t = Instant::now();
    let fd = rustix::fs::openat(dir, name, OFlags::RDONLY | OFlags::CLOEXEC, Mode::empty())?;
    let file = std::fs::File::from(fd);
    let len = usize::try_from(file.metadata()?.len()).map_or(limit, |len| len.min(limit));
    // SAFETY: the file is private to this probe's scratch folder and nothing truncates it
    // while it is mapped.
    #[allow(unsafe_code)]
    let map = unsafe { memmap2::MmapOptions::new().len(len).map(&file)? };
    let touched: u64 = map.iter().step_by(4096).map(|&b| u64::from(b)).sum();
    std::hint::black_box(touched);
    drop(map);
    drop(file);
    Ok((us(t), len))
}

fn renamed(n: usize) -> usize {
    n.div_ceil(4)
}

fn count_entries(fd: OwnedFd) -> std::io::Result<usize> {
    let mut count = 0;
    for entry in Dir::new(fd)? {
        entry?;
        count += 1;
    }
    Ok(count)
}

/// Wall-clock microseconds per `lstat` when `threads` threads share `paths` (relative to `dir`),
/// the way git's preload-index splits the index: what a high-latency mount overlaps shows here.
/// `serial_us` (one call's latency) sizes the run. None when nothing could be measured.
pub fn parallel_lstat(
    dir: &OwnedFd,
    paths: &[PathBuf],
    threads: usize,
    serial_us: f64,
) -> Option<f64> {
    if paths.is_empty() || threads == 0 {
        return None;
    }
    // About 3 ms of calls in all, as one thread would make them: enough to swamp thread
    // wake-up on a fast disk, few enough to stay cheap where one call is a millisecond round
    // trip. Never more than git's 500 per thread, at least 16, and 64 per run in all, so the
    // 2-thread figure git uses for 1,000 to 1,499 entries is not two handfuls of calls.
    let per_thread = ((3_000.0 / serial_us.max(0.1)) as usize / threads)
        .clamp(16, 500)
        .max(64 / threads);
    let barrier = Barrier::new(threads);
    // Each thread notes when it began and ended: a main thread that wakes up late after the
    // barrier (20 threads on 2 cores) would otherwise miss work already done.
    let runs: Vec<(Instant, Instant, u64)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let barrier = &barrier;
                scope.spawn(move || {
                    barrier.wait();
                    let began = Instant::now();
                    let offset = t * paths.len() / threads;
                    let mut ok = 0u64;
                    for k in 0..per_thread {
                        let path = &paths[(offset + k) % paths.len()];
                        if rustix::fs::statat(dir, path.as_path(), AtFlags::SYMLINK_NOFOLLOW)
                            .is_ok()
                        {
                            ok += 1;
                        }
                    }
                    (began, Instant::now(), ok)
                })
            })
            .collect();
        handles.into_iter().filter_map(|h| h.join().ok()).collect()
    });
    let began = runs.iter().map(|r| r.0).min()?;
    let ended = runs.iter().map(|r| r.1).max()?;
    let done: u64 = runs.iter().map(|r| r.2).sum();
    let wall = ended.duration_since(began).as_secs_f64() * 1e6;
    (done > 0).then(|| wall / done as f64)
}
