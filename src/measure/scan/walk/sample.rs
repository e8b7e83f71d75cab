//! A `node_modules` priced from a sample of its packages instead of walking every file
//! (issue 43): on a slow mount its tens of thousands of files cost the scan seconds that the
//! repository's own few hundred do not, and the install prediction only needs their totals.
//!
//! The method (docs/scan.md): the tree's top level is listed, with its `@scope/` folders and
//! pnpm's `.pnpm/` store, so every package is known by name (nested `node_modules/` belong to
//! the package that holds them). Each package's own folder is listed, one `readdir`, and its
//! entry count is the size measure the sample is stratified by: the largest packages by it are
//! walked whole, the rest are sorted by it into strata of equal count, and an evenly spaced
//! sample of each stratum is walked whole. Each stratum's totals are its entry count times the
//! ratio of files (bytes, ...) to entries in its sample, and the stated error is about two
//! standard errors of that ratio estimate. What is not a package (files at the top, `.bin/`)
//! is counted exactly.

use super::pnpm_store::{self, Store};
use super::{Inside, Listed, Subtree, Tag, Tagged, Walker};
use crate::base::dirfd::Place;
use crate::measure::scan::DependencyKind;
use crate::measure::scan::known::TreeStamp;
use crate::measure::scan::{Counts, DependencySample};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

/// Trees with at most this many packages are walked whole: sampling would save little.
pub const WALK_ALL_UP_TO: usize = 96;
/// The largest packages by entry count, always walked whole: a few of them hold much of a
/// tree's files, and a sample that missed or hit one would swing the total.
pub const LARGEST_WALKED: usize = 8;
/// Strata of the other packages, by entry count, and the packages walked in each at first.
pub const STRATA: usize = 4;
pub const PER_STRATUM: usize = 10;
/// The packages walked in each stratum at first when pnpm's store measures them: its lists
/// are the packages' files themselves, so a few show the links and folders beside them.
pub const PER_STRATUM_STORE: usize = 4;
/// The files' stated error (about two standard errors, as a fraction of the sampled strata's
/// files) the sample is doubled until it reaches: real trees, whose few large packages hide
/// behind a handful of entries (caniuse-lite: 5 entries, 842 files), need most of their
/// packages walked for it; generated ones of even packages, 48.
pub const TARGET_ERROR: f64 = 0.08;
/// pnpm's store is the size measure when it lists all but at most this share (1 in 2) of a
/// tree's packages; the ones it does not list are walked whole (vitejs/vite: 109 of 1,143 are
/// the workspace's own `file:` folders, a few files each).
const STORE_UNLISTED_AT_MOST: (usize, usize) = (1, 2);

/// One package: where it is (a pnpm store entry, with the links to its dependencies), where
/// its own folder is, the `.pnpm/` folder's name for a store entry, and its size measure.
struct Package {
    path: PathBuf,
    place: Place,
    own_folder: Place,
    store_entry: Option<OsString>,
    measure: Measure,
}

impl Package {
    fn at(path: PathBuf, place: Place) -> Self {
        Package {
            path,
            own_folder: place.clone(),
            place,
            store_entry: None,
            measure: Measure::default(),
        }
    }
}

/// What the sample is stratified by and scaled with: the entries of the package's own folder
/// (every field), or the files, folders and bytes pnpm's store lists for it (and no links: a
/// store entry's links are to its dependencies, so they are scaled per package).
#[derive(Debug, Clone, Copy, Default)]
struct Measure {
    files: u64,
    dirs: u64,
    bytes: u64,
    links: u64,
}

impl Measure {
    fn entries(entries: u64) -> Measure {
        Measure {
            files: entries,
            dirs: entries,
            bytes: entries,
            links: entries,
        }
    }

    /// The measure a figure is scaled by, one more unit each so that empty folders count.
    fn of(&self, field: Field) -> f64 {
        (match field {
            Field::Files => self.files,
            Field::Dirs => self.dirs,
            Field::Bytes => self.bytes,
            Field::Links => self.links,
        }) as f64
            + 1.0
    }
}

/// Which measure scales a figure.
#[derive(Debug, Clone, Copy)]
enum Field {
    Files,
    Dirs,
    Bytes,
    Links,
}

/// How the sample of a tree is drawn: the packages in it, those already walked whole outside
/// the sample (pnpm's store knew nothing of them), how many of the largest are walked whole,
/// whether a walked package's files are sized one in `SIZED_EVERY`, and the method's words.
struct How {
    packages: u64,
    walked: u64,
    largest: usize,
    sized_in_part: bool,
    per_stratum: usize,
    method: &'static str,
}

/// What is counted exactly: the top's own entries and the folders that are not packages.
#[derive(Default)]
struct Exact {
    counted: Counts,
    estimate: Counts,
    complete: bool,
}

impl Exact {
    fn add(&mut self, sub: &Subtree) {
        self.counted.add(&sub.counted);
        self.estimate.add(&sub.estimate);
        self.complete &= sub.complete;
    }

    fn add_own(&mut self, listed: &Listed) {
        self.counted.add(&listed.own);
        self.estimate.add(&listed.own);
        self.complete &= listed.unstatted == 0;
    }
}

impl Walker<'_> {
    /// The `node_modules` at `dir`, recorded: an earlier scan's figures when its stamp says no
    /// install changed it since, else sampled (or walked whole when small).
    pub(super) fn node_modules(&self, dir: &Path, place: Place, depth: usize) -> Subtree {
        let stamp = TreeStamp::of(dir);
        let path = self.relative(dir);
        let known = stamp
            .as_ref()
            .and_then(|s| self.known.iter().find(|k| k.path == path && &k.stamp == s));
        let (subtree, sample, reused) = match known {
            Some(known) => {
                let subtree = Subtree {
                    counted: Counts::default(),
                    estimate: known.figures,
                    complete: true,
                    // Its figures stand for what this scan did not count.
                    sampled: true,
                };
                (subtree, known.sample.clone(), true)
            }
            None => {
                let (subtree, sample) = self.sample_node_modules(dir, place, depth);
                (subtree, sample, false)
            }
        };
        self.push(Tagged {
            tag: Tag::Dependency(DependencyKind::NodeModules),
            path,
            subtree,
            visited: true,
            sample,
            reused,
            stamp,
        });
        subtree
    }

    /// The `node_modules` at `dir`: walked whole when small, else priced from a sample of its
    /// packages, with how (None when walked whole).
    fn sample_node_modules(
        &self,
        dir: &Path,
        place: Place,
        depth: usize,
    ) -> (Subtree, Option<DependencySample>) {
        let mut exact = Exact {
            complete: true,
            ..Exact::default()
        };
        let mut packages = Vec::new();
        let mut others = Vec::new();
        self.packages_in(dir, &place, &mut exact, &mut packages, &mut others);
        for (path, place) in &others {
            let sub = self.walk_dir(path, Ok(place.clone()), depth + 1, Inside::Dependency);
            exact.add(&sub);
        }
        if packages.len() <= WALK_ALL_UP_TO {
            let walked: Vec<Subtree> = packages
                .par_iter()
                .map(|p| self.walk_package(p, depth, false))
                .collect();
            walked.iter().for_each(|sub| exact.add(sub));
            let subtree = Subtree {
                counted: exact.counted,
                estimate: exact.estimate,
                complete: exact.complete,
                sampled: false,
            };
            return (subtree, None);
        }
        let how = match self.measure_from_store(dir, &mut packages, &mut exact, depth) {
            Some(how) => how,
            None => {
                packages.par_iter_mut().for_each(|p| {
                    p.measure = Measure::entries(self.entries_of(&p.own_folder));
                });
                How {
                    packages: packages.len() as u64,
                    walked: 0,
                    largest: LARGEST_WALKED,
                    sized_in_part: true,
                    per_stratum: PER_STRATUM,
                    method: "stratified by entries in each package's folder",
                }
            }
        };
        packages.sort_by(|a, b| {
            (b.measure.files, b.measure.bytes)
                .cmp(&(a.measure.files, a.measure.bytes))
                .then_with(|| a.path.cmp(&b.path))
        });
        self.estimate_from_sample(&packages, exact, depth, how)
    }

    /// Each package's size measure from pnpm's store (`pnpm_store`) when the store lists
    /// nearly all of them; the few it does not, and those whose install runs scripts, are
    /// walked whole into `exact` and left out of `packages`. None (and `packages` untouched)
    /// otherwise.
    fn measure_from_store(
        &self,
        dir: &Path,
        packages: &mut Vec<Package>,
        exact: &mut Exact,
        depth: usize,
    ) -> Option<How> {
        if !packages.iter().any(|p| p.store_entry.is_some()) {
            return None;
        }
        let store = Store::of(dir)?;
        let listed: Vec<Option<pnpm_store::Listed>> = packages
            .par_iter()
            .map(|p| p.store_entry.as_deref().and_then(|e| store.listed(e)))
            .collect();
        let unlisted = listed.iter().filter(|l| l.is_none()).count();
        if unlisted * STORE_UNLISTED_AT_MOST.1 > packages.len() * STORE_UNLISTED_AT_MOST.0 {
            return None;
        }
        let all = packages.len() as u64;
        let (known, unknown): (Vec<_>, Vec<_>) = std::mem::take(packages)
            .into_iter()
            .zip(listed)
            .partition(|(_, l)| l.is_some_and(|l| !l.builds));
        let walked: Vec<Subtree> = unknown
            .par_iter()
            .map(|(p, _)| self.walk_package(p, depth, false))
            .collect();
        walked.iter().for_each(|sub| exact.add(sub));
        *packages = known
            .into_iter()
            .filter_map(|(mut p, l)| {
                let l = l?;
                p.measure = Measure {
                    files: l.files,
                    dirs: l.dirs,
                    bytes: l.bytes,
                    links: 0,
                };
                Some(p)
            })
            .collect();
        Some(How {
            packages: all,
            walked: walked.len() as u64,
            largest: 0,
            // A few packages' sizes are the bytes' whole sample: a folder's mean from one
            // file in four would swing it (typescript's lib/: 8 MB files among small ones).
            sized_in_part: false,
            per_stratum: PER_STRATUM_STORE,
            method: "stratified by the files pnpm's store lists for each package",
        })
    }

    /// Lists the tree's top (and its `@scope/` folders and `.pnpm/` store) into `packages`;
    /// other folders (`.bin/`, `.cache/`) go to `others`, the top's own entries to `exact`.
    fn packages_in(
        &self,
        dir: &Path,
        place: &Place,
        exact: &mut Exact,
        packages: &mut Vec<Package>,
        others: &mut Vec<(PathBuf, Place)>,
    ) {
        let Some((listed, base)) = self.listed(dir, place, exact) else {
            return;
        };
        for name in &listed.children {
            let path = dir.join(name);
            let bytes = name.as_encoded_bytes();
            if bytes.starts_with(b"@") || name == ".pnpm" {
                let store = name == ".pnpm";
                let Some((inner, inner_base)) = self.listed(&path, &base.child(name), exact) else {
                    continue;
                };
                for pkg in &inner.children {
                    let place = inner_base.child(pkg);
                    match store.then(|| pnpm_package(pkg)).flatten() {
                        // The store's entry `name@1.0.0/` holds the package at
                        // `node_modules/name/` beside links to its dependencies.
                        Some(named) => packages.push(Package {
                            own_folder: place
                                .child(OsStr::new("node_modules"))
                                .child(named.as_os_str()),
                            store_entry: Some(pkg.clone()),
                            ..Package::at(path.join(pkg), place)
                        }),
                        None if store => others.push((path.join(pkg), place)),
                        None => packages.push(Package::at(path.join(pkg), place)),
                    }
                }
            } else if bytes.starts_with(b".") {
                others.push((path, base.child(name)));
            } else {
                packages.push(Package::at(path, base.child(name)));
            }
        }
    }

    /// One folder's own entries, counted into `exact`; its place for its children.
    fn listed(&self, dir: &Path, place: &Place, exact: &mut Exact) -> Option<(Listed, Place)> {
        match place.enter() {
            Ok((listing, base)) => {
                let listed = self.list_dir(dir, listing, Inside::Dependency);
                exact.add_own(&listed);
                Some((listed, base))
            }
            Err(e) => {
                self.unreadable(dir, &e);
                None
            }
        }
    }

    /// Entries in a package's own folder (one `readdir`, no `lstat`): the sample's size measure.
    fn entries_of(&self, place: &Place) -> u64 {
        if self.stopped() {
            return 0;
        }
        place.enter().map_or(0, |(mut listing, _)| {
            let mut n = 0u64;
            while let Some(Ok(entry)) = listing.read() {
                let name = entry.file_name().to_bytes();
                n += u64::from(name != b"." && name != b"..");
            }
            n
        })
    }

    /// A package walked whole: every file counted, one in `SIZED_EVERY` sized when `sampled`.
    fn walk_package(&self, package: &Package, depth: usize, sampled: bool) -> Subtree {
        let inside = if sampled {
            Inside::Sampled
        } else {
            Inside::Dependency
        };
        self.walk_dir(&package.path, Ok(package.place.clone()), depth + 1, inside)
    }

    /// The totals from the largest packages walked whole and a stratified sample of the rest,
    /// the sample doubled in each stratum until the files' stated error is within
    /// `TARGET_ERROR`, every package is walked (the rest are, once half of them are), or the
    /// budget runs out.
    fn estimate_from_sample(
        &self,
        packages: &[Package],
        exact: Exact,
        depth: usize,
        how: How,
    ) -> (Subtree, Option<DependencySample>) {
        let (largest, rest) = packages.split_at(how.largest.min(packages.len()));
        let mut subtree = Subtree {
            counted: exact.counted,
            estimate: exact.estimate,
            complete: exact.complete,
            sampled: true,
        };
        let largest_walked: Vec<Subtree> = largest
            .par_iter()
            .map(|p| self.walk_package(p, depth, how.sized_in_part))
            .collect();
        for sub in &largest_walked {
            subtree.counted.add(&sub.counted);
            subtree.estimate.add(&sub.estimate);
            subtree.complete &= sub.complete;
        }
        let mut walked: BTreeMap<usize, Subtree> = BTreeMap::new();
        let mut per = how.per_stratum;
        loop {
            let new: Vec<(usize, Subtree)> = to_walk_next(rest.len(), &walked, per)
                .par_iter()
                .map(|&i| (i, self.walk_package(&rest[i], depth, how.sized_in_part)))
                .collect();
            walked.extend(new);
            let (total, files_error) = stratified(rest, &walked, per);
            let half = 2 * walked.len() >= rest.len();
            if (files_error.0 <= TARGET_ERROR && !half)
                || walked.len() == rest.len()
                || self.stopped()
            {
                for sub in walked.values() {
                    subtree.counted.add(&sub.counted);
                    subtree.complete &= sub.complete;
                }
                subtree.estimate.add(&total);
                let walked_here = (largest.len(), walked.len());
                let sample = how.sample(walked_here, files_error, &subtree.estimate);
                return (subtree, Some(sample));
            }
            per *= 2;
        }
    }
}

/// The indices of the packages (of `rest` not among the largest) to walk next: the `per`
/// chosen in each stratum not yet walked; once half the packages are walked, all the others,
/// since the rest cost less than they risk: a real tree's large packages hide among the few
/// left (see `TARGET_ERROR`).
fn to_walk_next(rest: usize, walked: &BTreeMap<usize, Subtree>, per: usize) -> Vec<usize> {
    if 2 * walked.len() >= rest {
        (0..rest).filter(|i| !walked.contains_key(i)).collect()
    } else {
        strata(rest, per)
            .into_iter()
            .flat_map(|s| s.chosen)
            .filter(|i| !walked.contains_key(i))
            .collect()
    }
}

impl How {
    /// How the tree's figures were estimated: the packages walked (the `largest` and the
    /// `sampled`, besides those walked before), and the files' and bytes' stated errors, about
    /// two standard errors as a fraction of the `estimate`'s.
    fn sample(
        &self,
        (largest, sampled): (usize, usize),
        (_, files_var, bytes_var): (f64, f64, f64),
        estimate: &Counts,
    ) -> DependencySample {
        let error = |var: f64, total: u64| (2.0 * var.sqrt() / (total.max(1) as f64)).min(1.0);
        DependencySample {
            packages: self.packages,
            walked: self.walked + (largest + sampled) as u64,
            largest_walked: largest as u64,
            method: self.method.into(),
            files_error: error(files_var, estimate.files),
            bytes_error: error(bytes_var, estimate.bytes),
            sized_every: if self.sized_in_part {
                super::SIZED_EVERY
            } else {
                1
            },
        }
    }
}

/// The strata's totals from every package walked in each, and (the files' error as a fraction
/// of the strata's own files, the files' variance, the bytes' variance).
fn stratified(
    rest: &[Package],
    walked: &BTreeMap<usize, Subtree>,
    per: usize,
) -> (Counts, (f64, f64, f64)) {
    let mut total = Counts::default();
    let (mut files_var, mut bytes_var) = (0.0, 0.0);
    for stratum in strata(rest.len(), per) {
        let measures: Vec<Measure> = rest[stratum.range.clone()]
            .iter()
            .map(|p| p.measure)
            .collect();
        let (seen, here): (Vec<Measure>, Vec<Subtree>) = walked
            .range(stratum.range.clone())
            .map(|(&i, sub)| (rest[i].measure, *sub))
            .unzip();
        let est = ratio_estimate(&measures, &seen, &here);
        total.add(&est.total);
        files_var += est.files_var;
        bytes_var += est.bytes_var;
    }
    let files_error = 2.0 * files_var.sqrt() / (total.files.max(1) as f64);
    (total, (files_error, files_var, bytes_var))
}

/// A pnpm store entry's package name: `@scope+name@1.0.0_peer@2/` holds `@scope/name`.
fn pnpm_package(entry: &OsStr) -> Option<PathBuf> {
    let text = entry.to_str()?;
    let at = text[1..].find('@')? + 1;
    let name = &text[..at];
    Some(match name.strip_prefix('@') {
        Some(scoped) => {
            let (scope, pkg) = scoped.split_once('+')?;
            Path::new(&format!("@{scope}")).join(pkg)
        }
        None => PathBuf::from(OsString::from(name)),
    })
}

/// A stratum of the packages sorted by entries: its range and the ones walked.
struct Stratum {
    range: std::ops::Range<usize>,
    chosen: Vec<usize>,
}

/// `n` packages in `STRATA` strata of (about) equal count, `per` of each evenly spaced.
fn strata(n: usize, per: usize) -> Vec<Stratum> {
    (0..STRATA)
        .map(|s| {
            let range = n * s / STRATA..n * (s + 1) / STRATA;
            let size = range.len();
            let take = per.min(size);
            let chosen = (0..take)
                .map(|j| range.start + (2 * j + 1) * size / (2 * take))
                .collect();
            Stratum { range, chosen }
        })
        .filter(|s| !s.range.is_empty())
        .collect()
}

/// A stratum's totals and the variances of its files and bytes.
struct Estimate {
    total: Counts,
    files_var: f64,
    bytes_var: f64,
}

/// The ratio estimate of a stratum whose packages measure `measures`, from the `walked` ones
/// that measure `seen`: each figure is the stratum's measure times the sample's figure per unit
/// of it, each figure by its own measure (`Field`). The variance is the ratio estimator's, with
/// the finite-population correction.
fn ratio_estimate(measures: &[Measure], seen: &[Measure], walked: &[Subtree]) -> Estimate {
    let big_x = |f: Field| measures.iter().map(|m| m.of(f)).sum::<f64>();
    let small_x = |f: Field| seen.iter().map(|m| m.of(f)).sum::<f64>().max(1.0);
    let (n, n_all) = (walked.len() as f64, measures.len() as f64);
    let mut sum = Counts::default();
    walked.iter().for_each(|w| sum.add(&w.estimate));
    let scale = |v: u64, f: Field| (v as f64 * big_x(f) / small_x(f)).round() as u64;
    let total = Counts {
        files: scale(sum.files, Field::Files),
        dirs: scale(sum.dirs, Field::Dirs),
        symlinks: scale(sum.symlinks, Field::Links),
        other: scale(sum.other, Field::Links),
        bytes: scale(sum.bytes, Field::Bytes),
        allocated_bytes: scale(sum.allocated_bytes, Field::Bytes),
    };
    let variance = |value: fn(&Counts) -> u64, f: Field| {
        if n < 2.0 || n >= n_all {
            return 0.0;
        }
        let ratio = value(&sum) as f64 / small_x(f);
        let spread: f64 = walked
            .iter()
            .zip(seen)
            .map(|(w, m)| (value(&w.estimate) as f64 - ratio * m.of(f)).powi(2))
            .sum::<f64>()
            / (n - 1.0);
        n_all * n_all * (1.0 - n / n_all) / n * spread
    };
    Estimate {
        total,
        files_var: variance(|c| c.files, Field::Files),
        bytes_var: variance(|c| c.bytes, Field::Bytes),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pnpm_store_entries_name_their_package() {
        let name = |s: &str| pnpm_package(OsStr::new(s));
        assert_eq!(name("lodash@4.17.21"), Some(PathBuf::from("lodash")));
        assert_eq!(
            name("@types+node@20.1.0"),
            Some(PathBuf::from("@types/node"))
        );
        assert_eq!(
            name("@vitejs+plugin-react@4.0.0_vite@5.0.0"),
            Some(PathBuf::from("@vitejs/plugin-react"))
        );
        assert_eq!(name("node_modules"), None);
        assert_eq!(name("lock.yaml"), None);
    }

    #[test]
    fn strata_cover_the_packages_and_sample_each_evenly() {
        let s = strata(784, PER_STRATUM);
        assert_eq!(s.len(), STRATA);
        assert_eq!(s.iter().map(|s| s.range.len()).sum::<usize>(), 784);
        for stratum in &s {
            assert_eq!(stratum.chosen.len(), PER_STRATUM);
            assert!(stratum.chosen.iter().all(|i| stratum.range.contains(i)));
        }
        // Fewer packages than the sample: each is walked.
        let small = strata(20, PER_STRATUM);
        assert_eq!(small.iter().map(|s| s.chosen.len()).sum::<usize>(), 20);
    }
}
