//! How many packages pnpm, yarn classic and bun place on this machine from their lock, for a
//! project checked before its install (no `node_modules` to count): the size of the tree the
//! model prices. npm's `package-lock.json` is counted by `model::lock_packages`.
//!
//! Locks list every platform's packages (`fsevents` for macOS, `@esbuild/win32-x64`); the
//! manager skips those that exclude this machine and what only they depend on, so they are
//! not counted (`platform`). Workspace packages are links to folders of the repository, not
//! installs, so they are not counted either.

use super::managers::blocks;
use super::platform;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// pnpm's lock (`pnpm-lock.yaml`, format 5, 6 or 9): one package placed per snapshot (format 9:
/// `snapshots:`, each peer-dependency variant a copy of its own in `node_modules/.pnpm`), or
/// per `packages:` entry (formats 5 and 6, where the entry carries both). A package reached
/// only through optional dependencies (`optional: true`) is counted when it names this
/// platform among its own (`os`, `cpu`, `libc`: the native binary of esbuild or rollup for
/// this machine): one without such fields hangs off another platform's package (`fsevents`).
/// None when the text is not such a lock.
#[cfg(test)]
pub fn pnpm_packages(text: &str) -> Option<u64> {
    pnpm_placed_keys(text).map(|(placed, _)| placed.len() as u64)
}

/// pnpm's lock as its tree: the packages it places here and the symlinks it makes for them
/// (`pnpm_links`). None when the text is not such a lock.
pub fn pnpm_shape(text: &str) -> Option<(u64, u64)> {
    let (placed, v9) = pnpm_placed_keys(text)?;
    Some((
        placed.len() as u64,
        super::pnpm_links::pnpm_links(text, &placed, v9),
    ))
}

/// The keys of the snapshots (format 9) or packages (5, 6) placed on this machine, and whether
/// the lock is format 9.
fn pnpm_placed_keys(text: &str) -> Option<(BTreeSet<String>, bool)> {
    let format = text
        .lines()
        .find_map(|l| l.strip_prefix("lockfileVersion:"))?
        .trim()
        .trim_matches(['\'', '"']);
    if !["5.", "6.", "9."].iter().any(|f| format.starts_with(f)) {
        return None;
    }
    let packages: BTreeMap<String, String> = blocks(text, "packages:", 2)
        .into_iter()
        .map(|(key, _, body)| (key, body))
        .collect();
    let snapshots = blocks(text, "snapshots:", 2);
    let placed = if snapshots.is_empty() {
        packages
            .iter()
            .filter(|(_, body)| pnpm_placed_here(body, body))
            .map(|(key, _)| key.clone())
            .collect()
    } else {
        snapshots
            .into_iter()
            .filter(|(key, _, snapshot)| {
                // A snapshot's key adds its peers' versions in brackets to its package's.
                let package = key.split('(').next().unwrap_or(key);
                let body = packages.get(package).map_or("", String::as_str);
                pnpm_placed_here(body, snapshot)
            })
            .map(|(key, _, _)| key)
            .collect()
    };
    Some((placed, format.starts_with("9.")))
}

/// A pnpm package (`package`: its resolution and platform fields) placed on this machine,
/// `snapshot` saying whether only optional dependencies reach it.
fn pnpm_placed_here(package: &str, snapshot: &str) -> bool {
    // The entry's own fields, not a peer's `optional: true` in `peerDependenciesMeta`.
    let optional = snapshot.lines().any(|l| l == "    optional: true");
    let names_platform = package.lines().any(|l| {
        ["    os:", "    cpu:", "    libc:"]
            .iter()
            .any(|field| l.starts_with(field))
    });
    platform::pnpm_entry_here(package) && (!optional || names_platform)
}

/// yarn classic's `yarn.lock` (v1): the packages it places, one per name and version (an
/// entry per set of ranges resolving to the same version). The lock records no platform
/// fields, so what only optional dependencies reach is left out (`fsevents` and what it
/// depends on, other platforms' binaries) unless its name says it is for this machine
/// (`@esbuild/linux-x64`). None when the text is not such a lock.
pub fn yarn_packages(text: &str) -> Option<u64> {
    yarn_placed(text).map(|placed| placed.len() as u64)
}

/// The name and version of each package yarn classic places on this machine from its lock
/// (see `yarn_packages`): what its sample may take, so that a package only another platform's
/// optional dependency reaches (`@esbuild/aix-ppc64`, which yarn refuses on Linux: its
/// platform "is incompatible with this module") is not one of them. None when the text is not such a lock.
pub fn yarn_placed(text: &str) -> Option<BTreeSet<(String, String)>> {
    let entries: Vec<super::yarn_lock::Entry> = super::yarn_lock::entries(text)?
        .into_iter()
        .filter(|entry| entry.name().is_some())
        .collect();
    let mut by_range: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, entry) in entries.iter().enumerate() {
        for range in &entry.ranges {
            by_range.insert(range, i);
        }
    }
    let asked: BTreeSet<usize> = entries
        .iter()
        .flat_map(|e| e.dependencies.iter().chain(&e.optional))
        .filter_map(|r| by_range.get(r.as_str()).copied())
        .collect();
    // The project's own dependencies: entries no other entry asks for.
    let mut queue: VecDeque<usize> = (0..entries.len()).filter(|i| !asked.contains(i)).collect();
    let mut required: BTreeSet<usize> = queue.iter().copied().collect();
    while let Some(i) = queue.pop_front() {
        let entry = &entries[i];
        let here = entry
            .optional
            .iter()
            .filter_map(|r| by_range.get(r.as_str()).copied())
            .filter(|&o| entries[o].name().is_some_and(names_this_platform));
        let next: Vec<usize> = entry
            .dependencies
            .iter()
            .filter_map(|r| by_range.get(r.as_str()).copied())
            .chain(here)
            .collect();
        for n in next {
            if required.insert(n) {
                queue.push_back(n);
            }
        }
    }
    let placed = required
        .iter()
        .map(|&i| {
            let entry = &entries[i];
            let version = entry.field("version").unwrap_or("");
            (entry.name().unwrap_or("").to_string(), version.to_string())
        })
        .collect();
    Some(placed)
}

/// A package whose name says it is built for this machine (`@esbuild/linux-x64`,
/// `@rollup/rollup-linux-x64-gnu`): how yarn's lock, which has no platform fields, tells this
/// platform's optional binary from the others'.
fn names_this_platform(name: &str) -> bool {
    name.contains("linux") && name.contains(platform::cpu())
}

/// bun's text lock (`bun.lock`): `packages` names each package by where it is placed (`name`,
/// or nested `parent/name`), so each key is one package placed, unless its metadata's `os`,
/// `cpu` or `libc` exclude this machine, or it is a workspace's own folder
/// (`name@workspace:path`). None when the text is not such a lock.
pub fn bun_packages(text: &str) -> Option<u64> {
    let value: serde_json::Value =
        serde_json::from_str(&super::managers::without_trailing_commas(text)).ok()?;
    value.get("lockfileVersion")?;
    let placed = value
        .get("packages")?
        .as_object()?
        .values()
        .filter(|entry| {
            let parts = entry.as_array();
            let ident = parts
                .and_then(|p| p.first())
                .and_then(|v| v.as_str())
                .unwrap_or("");
            let meta = parts.and_then(|p| p.get(2)).filter(|m| m.is_object());
            !ident.contains("@workspace:")
                && !ident.contains("@link:")
                && meta.is_none_or(|m| platform::npm_entry_here(m, true))
        })
        .count();
    Some(placed as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PNPM_V9: &str = include_str!("../../../tests/fixtures/locks/pnpm-v9.yaml");
    const PNPM_V6: &str = include_str!("../../../tests/fixtures/locks/pnpm-v6.yaml");
    const YARN: &str = include_str!("../../../tests/fixtures/locks/yarn-v1.lock");
    const BUN: &str = include_str!("../../../tests/fixtures/locks/bun.lock");

    #[test]
    fn pnpm_counts_the_snapshots_this_machine_places() {
        // 11 snapshots: the two variants of @vue/test-utils (two peer sets), esbuild and its
        // linux-x64 binary counted; its darwin binary, fsevents and fsevents' optional child
        // left out; the workspace's link to its own package is not a snapshot.
        let here = if platform::cpu() == "x64" { 8 } else { 7 };
        assert_eq!(pnpm_packages(PNPM_V9), Some(here));
    }

    #[test]
    fn pnpm_counts_the_links_of_its_tree() {
        // v9: 4 dependency edges among the placed snapshots (each @vue/test-utils variant to
        // its vue, esbuild to its linux-x64 binary, vite to esbuild; none to the darwin binary
        // or fsevents), 7 importer links (3 + 3 + the workspace link), 3 hoisted names not
        // linked by the root (@vue/devtools-api, vue, @esbuild/linux-x64).
        let x64 = platform::cpu() == "x64";
        let v9 = if x64 { (8, 14) } else { (7, 12) };
        assert_eq!(pnpm_shape(PNPM_V9), Some(v9));
        // v6, one project: 3 edges (chokidar to readdirp, readdirp to picomatch, esbuild to
        // its binary), 2 root links, 4 hoisted names.
        let v6 = if x64 { (6, 9) } else { (5, 7) };
        assert_eq!(pnpm_shape(PNPM_V6), Some(v6));
        assert_eq!(pnpm_shape("not a lock"), None);
    }

    #[test]
    fn pnpm_v6_counts_its_packages_entries() {
        // fsevents and esbuild's darwin binary left out, @vue/test-utils' optional peer is not
        // the entry's own `optional`.
        let here = if platform::cpu() == "x64" { 6 } else { 5 };
        assert_eq!(pnpm_packages(PNPM_V6), Some(here));
        assert_eq!(pnpm_packages("lockfileVersion: '4.0'\n"), None);
        assert_eq!(pnpm_packages("not a lock"), None);
    }

    #[test]
    fn yarn_counts_each_version_once_and_leaves_other_platforms_out() {
        // chalk@^2.0.0 and chalk@^2.4.1 are one entry; debug 2 and 4 two packages; chokidar's
        // optional fsevents and its nan are left out; esbuild's linux-x64 binary counted; a
        // `file:` package is copied in, so counted.
        let here = if platform::cpu() == "x64" { 9 } else { 8 };
        assert_eq!(yarn_packages(YARN), Some(here));
        assert_eq!(yarn_packages("# yarn lockfile v2\n"), None);
    }

    #[test]
    fn bun_counts_each_placed_package_here() {
        // 8 keys: the workspace's own folder and the darwin binary left out, a nested copy
        // (`send/ms`) counted.
        let here = if platform::cpu() == "x64" { 6 } else { 5 };
        assert_eq!(bun_packages(BUN), Some(here));
        assert_eq!(bun_packages("{\"packages\": {},}"), None);
    }
}
