//! Timing a package manager on this machine: it installs nothing, then a sample of the
//! project's own packages, offline from its cache, into a scratch folder on the baseline disk,
//! in turns. Each manager has its own runner (how it installs, where the tree lands, how to
//! clear it for the next turn); the loop and the figures are shared.

mod install;
pub mod npm_cache;
pub mod pnpm_store;
mod run;

use super::lock_counts;
use super::managers;
use super::managers::{Ecosystem, Manager};
use super::packages::{self, Pinned};
use super::sample_reasons::SampleFailed;
use crate::measure::stats::median;
use install::Runner;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// What the runs gave: the medians of the empty and the sample installs, and what the sample
/// placed.
#[derive(Debug, Clone, PartialEq)]
pub struct Sampled {
    pub startup_ms: f64,
    pub sample_ms: f64,
    pub packages: u64,
    pub files: u64,
    pub dirs: u64,
    pub bytes: u64,
    /// Installed from a lock of the project's entries (`Runner::NpmLock`, `Runner::Lock`).
    pub from_lock: bool,
    /// Entries of the project's lists that were not plain registry pins and were left out.
    pub left_out: u64,
    /// The file the sample was read from ([`Sample::source`]).
    pub source: Option<&'static str>,
    /// Packages left out for not being in npm's cache ([`Sample::uncached`]).
    pub uncached: u64,
}

/// Empty and sample installs made to time a manager (about 7 s in all for npm on the express
/// tree, once per machine and manager version).
const SAMPLE_RUNS: usize = 3;

/// Leaf packages installed for a JavaScript manager's sample: about two seconds of npm's work,
/// so that the sample is a third or more of a mid-sized tree and one slow moment is not
/// multiplied by a large ratio. On the express tree (406 packages, 6,600 files), npm 11
/// installing 60 spread leaves took 1.3-1.8 s from one run to the next, and the whole tree
/// extrapolated from them 5.3-7.9 s against a real 5.7-6.1 s; 120 leaves took 2.1-2.4 s and
/// extrapolated within 5-16%.
pub const SAMPLE_PACKAGES: usize = 120;
/// Python packages installed for uv's or pip's sample: they are larger than npm's (a wheel of
/// a few hundred files is common), and pip asks the index about each one even from its cache.
pub const PYTHON_SAMPLE_PACKAGES: usize = 12;

/// A scratch folder removed when dropped, also on the error paths.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// What a sample installs: plain registry pins only, and how many of the entries the project
/// names were left out for not being one (a path, a URL, git, an editable or an option).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sample {
    pub pins: Vec<Pinned>,
    pub left_out: u64,
    /// The file the packages were read from (`node_modules/.package-lock.json`,
    /// `pnpm-lock.yaml`); None when they were read from the installed packages' folders.
    pub source: Option<&'static str>,
    /// Packages of the lock that npm's cache lacks (read from its index), left out: npm would
    /// fail offline on them.
    pub uncached: u64,
    /// Why there is nothing to install when `pins` is empty and the project named packages.
    pub empty_because: Option<SampleFailed>,
    /// The store pnpm reads for the project (`Offline::PnpmStore`), which its sample reads too.
    pub pnpm_store: Option<PathBuf>,
}

/// The packages the project at `root` would have `manager` install for its sample: npm's
/// from what it placed (its record in node_modules) or else its lock, pnpm's the same from
/// its record or lock, yarn's and bun's from their locks (else the leaves in node_modules),
/// uv's and pip's from the virtualenv or the lock files; each a plain pin of a registry
/// package by name and version, the rest counted. npm's are only those its cache holds, and
/// pnpm's those its store indexes, when `offline` names them.
pub fn sample_for(manager: Manager, root: &Path, offline: Offline) -> Sample {
    let named = named_for(manager, root);
    let mut left_out = named.left_out;
    let python = managers::of(manager).ecosystem() == Ecosystem::Python;
    let plain = |(name, version): &Pinned| match python {
        true => packages::is_plain_python_pin(name, version),
        false => packages::is_plain_npm_pin(name, version),
    };
    let (pins, others): (Vec<Pinned>, Vec<Pinned>) = named.pins.into_iter().partition(plain);
    left_out += others.len() as u64;
    let (pins, uncached, cache) = match ((&named.entries, &named.lock), offline) {
        ((Some(entries), _), Offline::Npm(cache)) => {
            let (held, lacked) = in_cache(pins, entries, cache);
            (held, lacked, cache.dir().to_path_buf())
        }
        ((_, Some(lock)), Offline::PnpmStore(store)) => {
            let (held, lacked) = in_store(pins, lock, store);
            (held, lacked, store.to_path_buf())
        }
        _ => (pins, 0, PathBuf::new()),
    };
    let empty_because = (pins.is_empty() && uncached > 0).then_some(SampleFailed::CacheLacksAll {
        manager,
        packages: uncached,
        cache,
    });
    let max = match python {
        true => PYTHON_SAMPLE_PACKAGES,
        false => SAMPLE_PACKAGES,
    };
    Sample {
        pins: packages::sample_of(pins, max),
        left_out,
        source: named.source,
        uncached,
        empty_because,
        pnpm_store: match offline {
            Offline::PnpmStore(store) => Some(store.to_path_buf()),
            _ => None,
        },
    }
}

/// What a manager can install offline, read before it starts (an install that must fail is
/// never started): npm's cache, pnpm's store.
#[derive(Clone, Copy)]
pub enum Offline<'a> {
    Npm(&'a npm_cache::NpmCache),
    /// The store pnpm reads for the project, without its format folder.
    PnpmStore(&'a Path),
    Unknown,
}

/// The `pins` whose index pnpm's `store` holds (by the integrity `lock` records), and how many
/// it lacks.
fn in_store(pins: Vec<Pinned>, lock: &managers::Lock, store: &Path) -> (Vec<Pinned>, u64) {
    let Some(layout) = pnpm_store::Layout::of(store) else {
        // A store in a layout not read here (a later pnpm's): pnpm is left to say.
        return (pins, 0);
    };
    let (held, lacked): (Vec<Pinned>, Vec<Pinned>) =
        pins.into_iter().partition(|(name, version)| {
            lock.integrity(name)
                .is_some_and(|integrity| layout.holds(name, version, integrity))
        });
    (held, lacked.len() as u64)
}

/// The `pins` whose tarballs (`entries`' `resolved`) `cache` holds, and how many it lacks.
fn in_cache(
    pins: Vec<Pinned>,
    entries: &packages::LockEntries,
    cache: &npm_cache::NpmCache,
) -> (Vec<Pinned>, u64) {
    let (held, lacked): (Vec<Pinned>, Vec<Pinned>) = pins.into_iter().partition(|(name, _)| {
        entries
            .tarball(name)
            .is_some_and(|(url, integrity)| cache.holds(url, integrity))
    });
    (held, lacked.len() as u64)
}

/// What a project names for its sample, before it is checked and cut to size.
struct Named {
    pins: Vec<Pinned>,
    /// Entries already left out on the way.
    left_out: u64,
    source: Option<&'static str>,
    /// npm's lock entries the sample installs from (`Runner::NpmLock`).
    entries: Option<packages::LockEntries>,
    /// pnpm's lock, whose integrities name its packages in the store.
    lock: Option<managers::Lock>,
}

fn named_for(manager: Manager, root: &Path) -> Named {
    let named = |pins, left_out, source| Named {
        pins,
        left_out,
        source,
        entries: None,
        lock: None,
    };
    let in_node_modules = || packages::node_modules_leaves(root, usize::MAX);
    match manager {
        Manager::Uv | Manager::Pip => {
            let (pins, left_out) = packages::python_packages_and_left_out(root);
            named(pins, left_out, None)
        }
        Manager::Npm => npm_named(root),
        Manager::Pnpm | Manager::Yarn | Manager::Bun => {
            match managers::read_lock_with_source(manager, root) {
                Some((lock, file)) => Named {
                    lock: (manager == Manager::Pnpm).then(|| lock.clone()),
                    ..named(placed_here(manager, root, lock.leaves()), 0, Some(file))
                },
                None => named(in_node_modules(), 0, None),
            }
        }
        Manager::Poetry | Manager::Cargo => named(in_node_modules(), 0, None),
    }
}

/// Of yarn classic's `leaves`, those it places on this machine (`lock_counts::yarn_placed`):
/// its lock has no platform fields, so a leaf only another platform's optional dependency
/// reaches (immerjs/immer's lock: 71 of esbuild's binaries for other systems) would be sampled,
/// and yarn refuses it ("The platform \"linux\" is incompatible with this module"), which left
/// such a project with an estimate. pnpm's and bun's leaves are filtered by their own fields.
fn placed_here(manager: Manager, root: &Path, leaves: Vec<Pinned>) -> Vec<Pinned> {
    let placed = (manager == Manager::Yarn)
        .then(|| crate::base::repo_file::manifest(root, "yarn.lock"))
        .flatten()
        .and_then(|text| lock_counts::yarn_placed(&text));
    match placed {
        Some(placed) => leaves
            .into_iter()
            .filter(|(name, version)| placed.contains(&(name.clone(), version.clone())))
            .collect(),
        None => leaves,
    }
}

/// npm's: the leaves of what it placed, else of its lock, filtered to this platform.
fn npm_named(root: &Path) -> Named {
    let lock = packages::npm_lock_file(root);
    let leaves = lock
        .as_ref()
        .map(|(file, text)| {
            packages::npm_leaf_packages(text, usize::MAX, *file == packages::NPM_INSTALLED_RECORD)
        })
        .unwrap_or_default();
    let source = lock.as_ref().map(|(file, _)| *file);
    match packages::npm_lock_entries(root) {
        // Installed from the lock (`Runner::NpmLock`): leaves whose tarballs it names.
        Some(entries) => {
            let (kept, others): (Vec<Pinned>, Vec<Pinned>) =
                leaves.into_iter().partition(|(n, _)| entries.has(n));
            Named {
                pins: kept,
                left_out: others.len() as u64,
                source,
                entries: Some(entries),
                lock: None,
            }
        }
        None if leaves.is_empty() => Named {
            pins: packages::node_modules_leaves(root, usize::MAX),
            left_out: 0,
            source: None,
            entries: None,
            lock: None,
        },
        None => Named {
            pins: leaves,
            left_out: 0,
            source,
            entries: None,
            lock: None,
        },
    }
}

/// Files, directories and bytes of the `entries` of `dir`, symlinks not followed (pnpm's
/// top-level packages link into its `.pnpm` folder, which is counted once).
fn counted(dir: &Path, entries: &BTreeSet<String>) -> (u64, u64, u64) {
    let (mut files, mut dirs, mut bytes) = (0, 0, 0);
    for name in entries {
        let walk = walkdir::WalkDir::new(dir.join(name)).follow_root_links(false);
        for entry in walk.into_iter().flatten() {
            let kind = entry.file_type();
            if kind.is_dir() {
                dirs += 1;
            } else if kind.is_file() {
                files += 1;
                bytes += entry.metadata().map_or(0, |m| m.len());
            }
        }
    }
    (files, dirs, bytes)
}

fn names(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// `manager` (for the project at `root`) installing nothing and `sample`, offline, in a scratch folder under `dir`, in
/// turns, `SAMPLE_RUNS` times; the median of each. Err when a run fails (the manager is
/// missing, a package is not in its cache: the manager's own reason) or the sample placed no
/// package.
pub fn measure(
    manager: Manager,
    dir: &Path,
    sample: &Sample,
    root: &Path,
) -> Result<Sampled, SampleFailed> {
    let whole = sample;
    let sample = &sample.pins[..];
    // Before anything starts the manager (pnpm's store is asked of pnpm).
    if sample.is_empty() {
        return Err(whole
            .empty_because
            .clone()
            .unwrap_or(SampleFailed::NothingToSample));
    }
    let runner = Runner::for_manager(manager, root, whole.pnpm_store.as_deref())
        .ok_or(SampleFailed::NoSampleInstall { manager })?;
    // Private (0700) and made exclusively under a name no one can guess: nothing planted
    // beforehand can stand in for it or be reached through it.
    let scratch = tempfile::Builder::new()
        .prefix(&format!(".wsl-place-{manager}-"))
        .tempdir_in(dir)
        .map_err(|e| SampleFailed::ScratchNotMade {
            dir: dir.to_path_buf(),
            error: e.to_string(),
        })?;
    let scratch = Scratch(scratch.keep());
    let (target, before) = runner
        .set_up(&scratch.0)
        .ok_or(SampleFailed::ScratchNotSetUp)?;
    let turns = Turns::taken(&runner, &scratch.0, (&target, &before), sample)?;
    let sampled = turns.sampled(&runner, whole.left_out)?;
    Ok(Sampled {
        source: whole.source,
        uncached: whole.uncached,
        ..sampled
    })
}

/// The timed installs: the empty ones, the sample's, what the first sample placed (packages,
/// files, directories, bytes) and why a sample install failed, if one did.
struct Turns {
    empties: Vec<f64>,
    samples: Vec<f64>,
    tree: Option<(u64, u64, u64, u64)>,
    failed: Option<SampleFailed>,
}

impl Turns {
    /// Empty and sample installs in turns, `SAMPLE_RUNS` times, the sample landing in
    /// `target` (beside the entries `before` that are not its own); Err when an empty install
    /// fails.
    ///
    /// In turns, so both see the machine at the same pace; the median of each is cached and
    /// multiplied by the project's size over the sample's, so it must be a typical run: one
    /// preempted run (a maximum) or one lucky run (a minimum: the faster of two put the express
    /// tree's reinstall 7-26% low in three runs out of three) would set every later prediction
    /// on this machine.
    fn taken(
        runner: &Runner,
        scratch: &Path,
        (target, before): (&Path, &BTreeSet<String>),
        sample: &[Pinned],
    ) -> Result<Self, SampleFailed> {
        let mut turns = Self {
            empties: Vec::new(),
            samples: Vec::new(),
            tree: None,
            failed: None,
        };
        for _ in 0..SAMPLE_RUNS {
            turns.empties.push(runner.install(scratch, &[])?);
            let ms = match runner.install(scratch, sample) {
                Ok(ms) => ms,
                Err(why) => {
                    turns.failed = Some(why);
                    break;
                }
            };
            let placed: BTreeSet<String> = names(target).difference(before).cloned().collect();
            if let Some(why) = runner.hijacks(scratch, &placed) {
                // Never timed, never run again: the estimate stands in for it.
                clear(target, &placed);
                turns.failed = Some(why);
                turns.samples.clear();
                turns.tree = None;
                break;
            }
            turns.samples.push(ms);
            turns.tree = turns
                .tree
                .or_else(|| Some(placed_tree(runner, target, &placed)));
            // A tree that will not go ends the runs; those made so far stand.
            if !clear(target, &placed) {
                break;
            }
        }
        Ok(turns)
    }

    /// The medians and the tree; Err when no sample install placed a package.
    fn sampled(self, runner: &Runner, left_out: u64) -> Result<Sampled, SampleFailed> {
        let no_sample = || self.failed.clone().unwrap_or(SampleFailed::PlacedNothing);
        let (packages, files, dirs, bytes) = self.tree.ok_or_else(no_sample)?;
        match (median(&self.empties), median(&self.samples)) {
            (Some(startup_ms), Some(sample_ms)) if packages > 0 => Ok(Sampled {
                startup_ms,
                sample_ms,
                packages,
                files,
                dirs,
                bytes,
                from_lock: matches!(
                    runner,
                    Runner::NpmLock { .. }
                        | Runner::Lock { .. }
                        | Runner::Python {
                            lock_from: Some(_),
                            ..
                        }
                ),
                left_out,
                source: None,
                uncached: 0,
            }),
            _ => Err(no_sample()),
        }
    }
}

/// Packages, files, directories and bytes the sample placed: node_modules' package folders
/// (`name`, `@scope/name`, symlinks to pnpm's store included), or a virtualenv's `*.dist-info`.
fn placed_tree(runner: &Runner, target: &Path, placed: &BTreeSet<String>) -> (u64, u64, u64, u64) {
    let (files, dirs, bytes) = counted(target, placed);
    let packages = match runner {
        Runner::Node { .. } | Runner::NpmLock { .. } | Runner::Lock { .. } => placed
            .iter()
            .filter(|n| !n.starts_with('.'))
            .map(|n| {
                if n.starts_with('@') {
                    names(&target.join(n)).len() as u64
                } else {
                    1
                }
            })
            .sum(),
        Runner::Python { .. } => placed.iter().filter(|n| n.ends_with(".dist-info")).count() as u64,
    };
    (packages, files, dirs, bytes)
}

/// Removes what the sample placed; false when something would not go.
fn clear(target: &Path, placed: &BTreeSet<String>) -> bool {
    placed.iter().all(|name| {
        let path = target.join(name);
        match std::fs::symlink_metadata(&path) {
            Ok(meta) if meta.is_dir() => std::fs::remove_dir_all(&path).is_ok(),
            Ok(_) => std::fs::remove_file(&path).is_ok(),
            Err(_) => true,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_manager_but_cargo_has_a_runner() {
        use Manager::{Bun, Npm, Pip, Pnpm, Uv, Yarn};
        for manager in [Npm, Pnpm, Yarn, Bun, Uv, Pip] {
            assert!(
                Runner::for_manager(manager, Path::new("/"), None).is_some(),
                "{manager}"
            );
        }
        assert!(Runner::for_manager(Manager::Cargo, Path::new("/"), None).is_none());
        let none = Path::new("/nonexistent");
        assert!(measure(Manager::Cargo, none, &Sample::default(), none).is_err());
    }

    #[test]
    fn yarns_sample_leaves_out_what_only_another_platform_places() {
        let dir = tempfile::tempdir().unwrap();
        let lock = include_str!("../../../../tests/fixtures/locks/yarn-v1.lock");
        std::fs::write(dir.path().join("yarn.lock"), lock).unwrap();
        let named = named_for(Manager::Yarn, dir.path()).pins;
        let has = |name: &str| named.iter().any(|(n, _)| n == name);
        // esbuild's darwin binary and fsevents' nan are leaves of the lock that yarn does not
        // place here (it refuses the first); this platform's binary stays.
        assert!(!has("@esbuild/darwin-arm64") && !has("nan"), "{named:?}");
        assert!(has("ansi-styles") && has("ms"), "{named:?}");
        assert_eq!(
            has("@esbuild/linux-x64"),
            super::super::platform::cpu() == "x64"
        );
        // pnpm's and bun's leaves are filtered by their own fields, not by yarn's lock.
        assert_eq!(placed_here(Manager::Bun, dir.path(), named.clone()), named);
    }

    #[test]
    fn what_the_sample_placed_is_counted_and_cleared() {
        let dir = tempfile::tempdir().unwrap();
        let nm = dir.path().join("node_modules");
        for file in ["a/index.js", "a/package.json", "@s/b/index.js", "@s/c/x.js"] {
            let path = nm.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, "12345").unwrap();
        }
        std::fs::create_dir_all(nm.join(".bin")).unwrap();
        let runner = Runner::for_manager(Manager::Npm, dir.path(), None).unwrap();
        let placed = names(&nm);
        assert_eq!(
            placed_tree(&runner, &nm, &placed),
            (3, 4, 5, 20),
            "three packages, four files, the scope's and each package's folders and .bin"
        );
        assert!(clear(&nm, &placed));
        assert!(names(&nm).is_empty());
    }
}
