//! Per-operation latency: the profiles, per-op overrides, and the counters that
//! `--stats` prints so a profile can be calibrated against real op counts.

use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use clap::ValueEnum;

macro_rules! ops {
    ($($variant:ident => $name:literal),+ $(,)?) => {
        /// The FUSE operations that can carry latency.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Op { $($variant),+ }

        impl Op {
            pub const ALL: &'static [Op] = &[$(Op::$variant),+];

            pub fn name(self) -> &'static str {
                match self { $(Op::$variant => $name),+ }
            }
        }
    };
}

ops! {
    Lookup => "lookup",
    Getattr => "getattr",
    Setattr => "setattr",
    Readlink => "readlink",
    Mknod => "mknod",
    Mkdir => "mkdir",
    Unlink => "unlink",
    Rmdir => "rmdir",
    Symlink => "symlink",
    Rename => "rename",
    Link => "link",
    Open => "open",
    Read => "read",
    Write => "write",
    Flush => "flush",
    Release => "release",
    Fsync => "fsync",
    Opendir => "opendir",
    Readdir => "readdir",
    Releasedir => "releasedir",
    Fsyncdir => "fsyncdir",
    Statfs => "statfs",
    Access => "access",
    Create => "create",
}

impl FromStr for Op {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Op::ALL
            .iter()
            .copied()
            .find(|op| op.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = Op::ALL.iter().map(|op| op.name()).collect();
                format!("unknown operation {s:?}; known: {}", names.join(", "))
            })
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a FUSE request costs here before any added latency: measured as the
/// difference between configured and observed per-request time with the
/// drvfs-9p profile (about 0.15 ms on a 2-core VM).
const FUSE_ROUND_TRIP_MS: f64 = 0.16;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Profile {
    /// WSL2 /mnt/c: drvfs over 9p, every metadata operation is a Hyper-V round trip.
    #[value(name = "drvfs-9p")]
    Drvfs9p,
    /// WSL2 / VM shares over virtio-fs: same shape, roughly 2-3x faster than 9p.
    Virtiofs,
    /// No added latency: a plain pass-through, for functional tests.
    None,
}

impl Profile {
    /// Milliseconds per request at `--scale 1`.
    ///
    /// drvfs-9p is fitted (bench/slowfs-calibrate.sh) to the published 1,000 x 4 KiB
    /// figures with the request mix the kernel sends under zero TTLs (counted with
    /// `--stats`), for a benchmark addressing files as /mnt/c/Users/<u>/<dir>/<file>
    /// (4 lookups):
    ///   stat   = 4 lookup + getattr
    ///   delete = 4 lookup + unlink
    ///   read   = 4 lookup + open + 2 getattr (size checks) + read + flush
    ///   create = 4 lookup + create + write + flush (+ release, which is async)
    /// and to git status in the repository root (lookup + getattr per file, over
    /// git's 2 preload threads for 1,000 entries). The published stat (4.7 ms) and
    /// git status (0.95 s) only fit together if the path walk dominates a stat: so
    /// lookups carry most of the cost, and open/read/close of a small file little.
    /// Every request also pays ~0.15 ms of real FUSE round trip on top.
    ///
    /// virtiofs divides each request's total cost by the vscode 9p/virtiofs ratio of
    /// the workload that operation dominates: path walks and stats as in git status
    /// and ls -l (2.13x, 2.17x: 2.2x), file creation 2.5x (5,000 files: 2.52x),
    /// rm 1.55x, data transfer as in clone 2.7x.
    fn millis(self, op: Op) -> f64 {
        match self {
            Profile::None => 0.0,
            Profile::Drvfs9p => match op {
                Op::Lookup => 0.83,
                Op::Getattr => 0.57,
                Op::Setattr => 1.0,
                Op::Readlink => 0.6,
                Op::Create | Op::Mkdir | Op::Mknod | Op::Symlink => 10.0,
                Op::Write => 2.6,
                Op::Link => 5.0,
                Op::Rename => 3.0,
                Op::Unlink | Op::Rmdir => 1.2,
                Op::Open | Op::Read | Op::Flush | Op::Release | Op::Releasedir => 0.1,
                Op::Fsync | Op::Fsyncdir => 3.0,
                Op::Opendir => 0.8,
                Op::Readdir => 1.5,
                Op::Statfs | Op::Access => 0.6,
            },
            Profile::Virtiofs => {
                let ratio = match op {
                    Op::Lookup | Op::Getattr | Op::Setattr | Op::Access | Op::Readlink => 2.2,
                    Op::Readdir | Op::Opendir | Op::Statfs => 2.2,
                    Op::Unlink | Op::Rmdir => 1.55,
                    Op::Create | Op::Write | Op::Mkdir | Op::Mknod | Op::Symlink | Op::Link => 2.5,
                    _ => 2.7,
                };
                // The ratio applies to what a request costs in all, and that
                // includes the emulator's own round trip, which does not shrink.
                ((Profile::Drvfs9p.millis(op) + FUSE_ROUND_TRIP_MS) / ratio - FUSE_ROUND_TRIP_MS)
                    .max(0.0)
            }
        }
    }
}

/// `OP=MS` on the command line.
#[derive(Clone, Debug)]
pub struct Override {
    pub op: Op,
    pub millis: f64,
}

impl FromStr for Override {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (op, ms) = s
            .split_once('=')
            .ok_or_else(|| format!("expected OP=MILLISECONDS, got {s:?}"))?;
        let millis: f64 = ms
            .parse()
            .map_err(|e| format!("bad milliseconds {ms:?}: {e}"))?;
        if !millis.is_finite() || millis < 0.0 {
            return Err(format!("milliseconds must be >= 0, got {ms:?}"));
        }
        Ok(Override {
            op: op.parse()?,
            millis,
        })
    }
}

pub struct Latency {
    delay: Vec<Duration>,
    /// How late a sleep wakes up on this machine; taken off each sleep so the
    /// added latency is the configured one, not the configured one plus ~0.1 ms.
    lag: Duration,
    counts: Vec<AtomicU64>,
    /// While held (SIGUSR2 toggles it), every request waits for the release, up to
    /// `HOLD_LIMIT`: a test tells "never touched the mount" from "was quick" without a
    /// stopwatch, as whatever touches a held mount cannot end before the test releases it.
    held: Mutex<bool>,
    released: Condvar,
}

/// The longest a held request waits, so that a test that forgets to release ends anyway.
const HOLD_LIMIT: Duration = Duration::from_secs(30);

impl Latency {
    pub fn new(profile: Profile, overrides: &[Override], scale: f64) -> Self {
        let delay = Op::ALL
            .iter()
            .map(|&op| {
                let ms = overrides
                    .iter()
                    .rev()
                    .find(|o| o.op == op)
                    .map_or_else(|| profile.millis(op), |o| o.millis);
                Duration::from_secs_f64(ms * scale / 1000.0)
            })
            .collect();
        let counts = Op::ALL.iter().map(|_| AtomicU64::new(0)).collect();
        Latency {
            delay,
            lag: measure_sleep_lag(),
            counts,
            held: Mutex::new(false),
            released: Condvar::new(),
        }
    }

    /// Holds every request from now on, or releases them; says which.
    pub fn toggle_hold(&self) -> bool {
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        *held = !*held;
        self.released.notify_all();
        *held
    }

    fn wait_while_held(&self) {
        let held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        let _ = self
            .released
            .wait_timeout_while(held, HOLD_LIMIT, |held| *held);
    }

    /// Sleeps on the calling worker thread only, so concurrent requests overlap the
    /// way they do over a real transport (git's preload-index relies on this).
    pub fn charge(&self, op: Op) {
        self.counts[op as usize].fetch_add(1, Ordering::Relaxed);
        self.wait_while_held();
        let d = self.delay[op as usize];
        if !d.is_zero() {
            tighten_timer_slack();
            let deadline = Instant::now() + d;
            std::thread::sleep(d.saturating_sub(self.lag));
            // The lag was measured at start-up: on a quieter machine the shortened sleep wakes
            // early, and a delay shorter than the lag is cut to no sleep at all. Yield out the
            // rest, so no request is ever faster than its profile says.
            while Instant::now() < deadline {
                std::thread::yield_now();
            }
        }
    }

    pub fn describe(&self) -> String {
        let ops: Vec<String> = Op::ALL
            .iter()
            .map(|&op| format!("{op}={:.3}", self.delay[op as usize].as_secs_f64() * 1e3))
            .collect();
        format!(
            "{} (sleep lag {:.3} ms compensated)",
            ops.join(" "),
            self.lag.as_secs_f64() * 1e3
        )
    }

    /// The request counts since the last call, which resets them.
    pub fn take_stats(&self) -> String {
        Op::ALL
            .iter()
            .filter_map(|&op| {
                let n = self.counts[op as usize].swap(0, Ordering::Relaxed);
                (n > 0).then(|| format!("{op}={n}"))
            })
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// The default 50 us timer slack would add itself to every sub-millisecond sleep,
/// and git status makes thousands of them.
fn tighten_timer_slack() {
    thread_local! {
        static DONE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }
    DONE.with(|done| {
        if !done.get() {
            // Best effort: a failure leaves the default slack, and only precision suffers.
            let _ = rustix::thread::set_current_timer_slack(std::num::NonZeroU64::new(1));
            done.set(true);
        }
    });
}

fn measure_sleep_lag() -> Duration {
    tighten_timer_slack();
    let want = Duration::from_micros(300);
    let mut lags: Vec<Duration> = (0..15)
        .map(|_| {
            let t = Instant::now();
            std::thread::sleep(want);
            t.elapsed().saturating_sub(want)
        })
        .collect();
    lags.sort();
    // The median, capped: a burst of load at start-up must not cancel real latency.
    lags[lags.len() / 2].min(Duration::from_micros(200))
}
