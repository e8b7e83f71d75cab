//! slowfs: a FUSE pass-through that makes a directory behave like WSL2's /mnt/c.
//!
//! It mirrors BACKING at MOUNTPOINT, sleeps before answering each request (per
//! operation, from a profile), and can inject ENOSPC and EIO, so that tests and
//! benchmarks of wsl-place run against a mount that is slow the way 9p is slow.
//!
//! ```text
//! cargo run --release --example slowfs -- [--profile drvfs-9p|virtiofs|none] [--scale F]
//!     [--latency OP=MS]... [--enospc-after-bytes N] [--eio-path-prefix P]...
//!     [--threads N] [--stats] BACKING MOUNTPOINT
//! ```
//!
//! - Entry and attribute TTLs are zero, so every path component of every walk is a
//!   LOOKUP and every stat a GETATTR, as 9p revalidates; no FOPEN_KEEP_CACHE, so
//!   every open drops cached pages and reads come back to us.
//! - Requests are served by `--threads` (16) fuser worker threads, each sleeping on
//!   its own, with FUSE_PARALLEL_DIROPS, so concurrent callers (git's preload-index
//!   threads) overlap as they do over a real transport.
//! - `--enospc-after-bytes N`: once N bytes in total were written through the
//!   mount, writes fail with ENOSPC (the write crossing the limit is cut short).
//! - `--eio-path-prefix P`: reads of files at or under P (relative to the mount
//!   root, whole components) fail with EIO; open, stat and readdir still work.
//!
//! Runs until the mount is unmounted (`fusermount3 -u MOUNTPOINT`) or it gets
//! SIGTERM/SIGINT/SIGHUP, on which it unmounts (lazily if the mount is busy, then
//! it serves the remaining users until they leave) and exits 0. SIGUSR1 prints
//! and resets the per-operation request counts. SIGUSR2 holds every request until
//! the next SIGUSR2 (at most 30 s each).

#[path = "slowfs/faults.rs"]
mod faults;
#[path = "slowfs/fs.rs"]
mod fs;
#[path = "slowfs/inodes.rs"]
mod inodes;
#[path = "slowfs/latency.rs"]
mod latency;

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use clap::Parser;
use fuser::{Config, MountOption, Session};
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM, SIGUSR1, SIGUSR2};
use signal_hook::iterator::Signals;

use crate::faults::Faults;
use crate::latency::{Latency, Override, Profile};

#[derive(Parser, Debug)]
#[command(about = "FUSE pass-through that adds per-operation latency and injects faults")]
struct Args {
    /// Latency profile: drvfs-9p (/mnt/c), virtiofs, or none.
    #[arg(long, value_enum, default_value = "drvfs-9p")]
    profile: Profile,

    /// Multiplies every latency, so tests can run a fast but still slow mount.
    #[arg(long, default_value_t = 1.0, value_parser = parse_scale)]
    scale: f64,

    /// Per-operation override in milliseconds before scaling, e.g. `lookup=5`.
    /// Repeatable. Operations: lookup getattr setattr readlink mknod mkdir unlink
    /// rmdir symlink rename link open read write flush release fsync opendir
    /// readdir releasedir fsyncdir statfs access create.
    #[arg(long = "latency", value_name = "OP=MS")]
    latency: Vec<Override>,

    /// Writes fail with ENOSPC once this many bytes were written through the mount.
    #[arg(long, value_name = "N")]
    enospc_after_bytes: Option<u64>,

    /// Reads of files at or under this path (relative to the mount root) fail
    /// with EIO. Repeatable.
    #[arg(long, value_name = "P")]
    eio_path_prefix: Vec<PathBuf>,

    /// Worker threads serving requests. Each sleeps independently, so this bounds
    /// how many slow requests overlap.
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u16).range(1..=256))]
    threads: u16,

    /// Print the per-operation request counts when the mount ends.
    #[arg(long)]
    stats: bool,

    /// Directory to mirror.
    backing: PathBuf,

    /// Where to mount it (an existing, empty directory).
    mountpoint: PathBuf,
}

fn parse_scale(s: &str) -> Result<f64, String> {
    let f: f64 = s.parse().map_err(|e| format!("{e}"))?;
    if f.is_finite() && f >= 0.0 {
        Ok(f)
    } else {
        Err(format!("scale must be a finite number >= 0, got {s}"))
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("slowfs: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: Args) -> Result<(), String> {
    let backing = args
        .backing
        .canonicalize()
        .map_err(|e| format!("backing directory {}: {e}", args.backing.display()))?;
    if !backing.is_dir() {
        return Err(format!("{} is not a directory", backing.display()));
    }
    let mountpoint = args
        .mountpoint
        .canonicalize()
        .map_err(|e| format!("mount point {}: {e}", args.mountpoint.display()))?;
    if mountpoint.starts_with(&backing) || backing.starts_with(&mountpoint) {
        return Err("backing directory and mount point must not contain each other".into());
    }

    // Requests carry the caller's umask and we apply it ourselves; our own would
    // be applied a second time by the backing file system.
    rustix::process::umask(rustix::fs::Mode::empty());

    let latency = Latency::new(args.profile, &args.latency, args.scale);
    eprintln!(
        "slowfs: profile {:?} x{} ms: {}",
        args.profile,
        args.scale,
        latency.describe()
    );
    let faults = Faults::new(args.enospc_after_bytes, args.eio_path_prefix);
    let latency = Arc::new(latency);
    let fs = fs::SlowFs::new(backing.clone(), latency.clone(), faults);

    let mut config = Config::default();
    config.mount_options = vec![
        MountOption::FSName(format!("slowfs:{}", backing.display())),
        MountOption::Subtype("slowfs".into()),
    ];
    config.n_threads = Some(usize::from(args.threads));
    config.clone_fd = true;

    // Registered before mounting so that a signal arriving during the mount is
    // not lost: it is handled as soon as the handler thread starts.
    let mut signals = Signals::new([SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2])
        .map_err(|e| format!("installing signal handlers: {e}"))?;

    let mut session = Session::new(fs, &mountpoint, &config)
        .map_err(|e| format!("mounting {}: {e}", mountpoint.display()))?;
    eprintln!(
        "slowfs: mounted {} at {}",
        backing.display(),
        mountpoint.display()
    );

    let mut unmounter = session.unmount_callable();
    let stats = latency.clone();
    let mp = mountpoint.clone();
    let signal_handle = signals.handle();
    let stopping = Arc::new(AtomicBool::new(false));
    let stopping_on_signal = stopping.clone();
    std::thread::spawn(move || {
        for sig in signals.forever() {
            if sig == SIGUSR1 {
                eprintln!("slowfs: stats: {}", stats.take_stats());
                continue;
            }
            if sig == SIGUSR2 {
                let held = stats.toggle_hold();
                eprintln!(
                    "slowfs: requests {}",
                    if held { "held" } else { "released" }
                );
                continue;
            }
            stopping_on_signal.store(true, Ordering::SeqCst);
            if let Err(e) = unmounter.unmount() {
                // Busy (a shell sitting in the mount, say): detach it so the
                // name disappears now and the session ends with the last user.
                eprintln!("slowfs: unmount failed ({e}); detaching lazily");
                lazy_unmount(&mp);
            }
            break;
        }
    });

    let res = session.run();
    signal_handle.close();
    if args.stats {
        eprintln!("slowfs: stats: {}", latency.take_stats());
    }
    eprintln!("slowfs: unmounted {}", mountpoint.display());
    match res {
        // A worker thread can end the session with an error while the unmount a signal
        // asked for tears its channel down (seen once under CI load, after "unmounted").
        // The mount is gone as asked, so that is a clean stop; the error is still printed.
        Err(e) if stopping.load(Ordering::SeqCst) && !is_mounted(&mountpoint) => {
            eprintln!("slowfs: the session reported \"{e}\" while stopping on a signal");
            Ok(())
        }
        other => other.map_err(|e| format!("session ended with an error: {e}")),
    }
}

fn is_mounted(mountpoint: &std::path::Path) -> bool {
    let Ok(table) = std::fs::read_to_string("/proc/self/mountinfo") else {
        return true;
    };
    // Field 5 is the mount point, with spaces and other odd bytes octal-escaped.
    table.lines().any(|line| {
        line.split(' ').nth(4).is_some_and(|field| {
            wsl_place::facade::host::mounts::unescape_bytes(field.as_bytes())
                == mountpoint.as_os_str().as_encoded_bytes()
        })
    })
}

fn lazy_unmount(mountpoint: &std::path::Path) {
    if rustix::mount::unmount(mountpoint, rustix::mount::UnmountFlags::DETACH).is_err() {
        // Not root: only the setuid helper may unmount.
        let _ = std::process::Command::new("fusermount3")
            .args(["-u", "-z", "--"])
            .arg(mountpoint)
            .status();
    }
}
