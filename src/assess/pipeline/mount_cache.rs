//! One probe per mount, not per repository: a mount's measured costs are kept per machine,
//! boot, kernel and mount (mount point, type, source), so a second repository on a mount the
//! hook has already timed needs only its own scan, and `check` times each mount once per boot
//! and day (then only the repository's own tracked files) instead of on every run.

use crate::base::clock::now_unix;
use crate::host::HostEnv;
use crate::host::mounts::MountEntry;
use crate::measure::probe::ProbeReport;
use crate::store::{CacheFile, Store};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// How long a mount's figures are reused within one boot: a day, so a server that changed
/// pace (a Windows update, another antivirus) is timed again at least that often.
pub const MAX_AGE_SECS: u64 = 24 * 3600;

#[derive(Serialize, Deserialize)]
struct Entry {
    /// Machine, boot, kernel and mount, one per line: a mismatch is a miss.
    key: String,
    created_unix: u64,
    report: ProbeReport,
}

/// The key and the file for `mount`; None without a boot id (nothing then says the figures
/// are still this boot's) or a cache folder.
fn place(env: &HostEnv, mount: &MountEntry) -> Option<(String, PathBuf)> {
    let boot = env.boot_id()?;
    let kernel = env.read_facts().kernel_version.unwrap_or_default();
    let key = format!(
        "{}\n{boot}\n{kernel}\n{}\n{}\n{}",
        env.hostname(),
        mount.mount_point.display(),
        mount.fstype,
        mount.source
    );
    let file = Store::of(env).cache_file(CacheFile::MountProbe(&key))?;
    Some((key, file))
}

/// The cached figures for `mount`, when this machine measured them in this boot, under this
/// kernel, within `MAX_AGE_SECS`.
pub fn load(env: &HostEnv, mount: &MountEntry) -> Option<ProbeReport> {
    let (key, file) = place(env, mount)?;
    let bytes = crate::base::input::read_cache(&file, "mount probe cache file")?;
    let entry: Entry = serde_json::from_slice(&bytes).ok()?;
    let fresh = crate::base::clock::younger_than(entry.created_unix, MAX_AGE_SECS);
    let mut report = entry.report;
    report.cached_unix = Some(entry.created_unix);
    (fresh && entry.key == key && usable(&report)).then_some(report)
}

/// Only a probe that measured, without a stalled call or a failure, speaks for the mount.
fn usable(report: &ProbeReport) -> bool {
    report.ops.is_some()
        && report.skipped.as_ref().is_none()
        && report.slow_call.is_none()
        && !report.system_failure
        && report.lstat_stats().is_some()
}

/// Keeps `report` for `mount`; a failure to write only costs the next run a probe.
pub fn store(env: &HostEnv, mount: &MountEntry, report: &ProbeReport) {
    if !usable(report) {
        return;
    }
    let writable = Store::of(env).may_write_cache();
    let Some((key, file)) = place(env, mount).filter(|_| writable) else {
        return;
    };
    let entry = Entry {
        key,
        created_unix: now_unix(),
        report: ProbeReport {
            cached_unix: None,
            ..report.clone()
        },
    };
    crate::base::input::write_json_atomically(&file, &entry);
}
