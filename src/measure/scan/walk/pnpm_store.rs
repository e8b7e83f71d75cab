//! What pnpm's own records say of each package in a `node_modules` it installed (issue 43): its
//! content-addressed store keeps, per package, an index of the package's files with their sizes
//! (`<store>/files/<2 hex>/<126 hex>-index.json`, named by the package's integrity in the lock
//! file), and `node_modules/.modules.yaml` names the store. Those figures are a size measure the
//! sample of a pnpm tree can stand on: a real package's entry count says little of its files
//! (caniuse-lite: 5 entries, 842 files), the store's list says them all, so a few packages
//! walked give the rest's links and folders. Reading it costs one small file per package,
//! usually on the Linux disk, where walking the package costs a request per file on the mount.
//!
//! Store v3 (pnpm 7 to 9) names an index `files/<2 hex>/<126 hex>-index.json`; store v10
//! (pnpm 10) `index/<2 hex>/<62 hex>-<name>@<version>.json`, the hex the integrity's digest in
//! both. Anything missing or unreadable leaves the sample to the entry counts it used before.

use crate::measure::deps::samplers::pnpm_store::{index_path, sha512_hex};
use serde::Deserialize;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// The store named by a pnpm `node_modules`, and each locked package's integrity, keyed as its
/// `.pnpm/` folder names it without the peers (`@scope+name@1.0.0`).
pub struct Store {
    dir: PathBuf,
    /// pnpm 10's layout (`index/`), else pnpm 7 to 9's (`files/`).
    v10: bool,
    integrity: HashMap<String, String>,
}

/// One package in the store's index: its files, the folders they are in (the package's own
/// folder included), their bytes, and whether an install runs its scripts (which may write
/// what no index lists: esbuild's postinstall puts a 9 MB binary beside its 7 files).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Listed {
    pub files: u64,
    pub dirs: u64,
    pub bytes: u64,
    pub builds: bool,
}

#[derive(Deserialize)]
struct Index {
    files: BTreeMap<String, IndexedFile>,
    #[serde(default, rename = "requiresBuild")]
    requires_build: bool,
}

#[derive(Deserialize)]
struct IndexedFile {
    size: u64,
}

impl Store {
    /// The store and the lock of the pnpm `node_modules` at `dir`: None when `.modules.yaml`
    /// names no store, or no lock (`.pnpm/lock.yaml`, else the project's `pnpm-lock.yaml`)
    /// names a package's integrity.
    pub fn of(dir: &Path) -> Option<Store> {
        let modules = crate::base::repo_file::manifest(dir, ".modules.yaml")?;
        let store = store_dir(&modules)?;
        // Through the fenced reader, as every file of the repository: a FIFO named like a lock
        // must not hold the scan.
        let locks = [(dir, ".pnpm/lock.yaml"), (dir.parent()?, "pnpm-lock.yaml")];
        let integrity = locks
            .iter()
            .filter_map(|(folder, lock)| crate::base::repo_file::manifest(folder, lock))
            .map(|text| integrities(&text))
            .find(|found| !found.is_empty())?;
        Some(Store {
            v10: store.join("index").is_dir(),
            dir: store,
            integrity,
        })
    }

    /// The files the store lists for the package in the `.pnpm/` folder `entry`; None when
    /// the lock or the store does not know it.
    pub fn listed(&self, entry: &OsStr) -> Option<Listed> {
        let key = unpeered(entry.to_str()?)?;
        let hex = sha512_hex(self.integrity.get(&key)?)?;
        let index = index_path(&self.dir, self.v10, &key, &hex);
        // The repository names the store (`.modules.yaml`): its index files are read as the
        // repository's own are, never a FIFO or a link, at most a lock's size.
        let bytes =
            crate::base::repo_file::read_at(&index, crate::base::repo_file::MANIFEST_LIMIT).ok()?;
        let index: Index = serde_json::from_slice(&bytes).ok()?;
        let folders: HashSet<&str> = index
            .files
            .keys()
            .flat_map(|path| path.match_indices('/').map(|(at, _)| &path[..at]))
            .collect();
        Some(Listed {
            files: index.files.len() as u64,
            dirs: folders.len() as u64 + 1,
            bytes: index.files.values().map(|f| f.size).sum(),
            builds: index.requires_build,
        })
    }
}

/// `storeDir` in `.modules.yaml`, written as YAML (pnpm 7 to 9) or as JSON (pnpm 10).
fn store_dir(modules: &str) -> Option<PathBuf> {
    modules.lines().find_map(|line| {
        let line = line.trim();
        let value = line
            .strip_prefix("storeDir:")
            .or_else(|| line.strip_prefix("\"storeDir\":"))?;
        let value = value.trim().trim_end_matches(',');
        let value = value.trim_matches(|c| c == '\'' || c == '"');
        (!value.is_empty()).then(|| PathBuf::from(value))
    })
}

/// Each package's integrity in a pnpm lock (format 5 to 9), by `unpeered` key: the
/// `packages:` section's two-space keys and the `integrity:` under each (inline or below).
fn integrities(lock: &str) -> HashMap<String, String> {
    let mut found = HashMap::new();
    for (key, after, body) in crate::measure::deps::managers::blocks(lock, "packages:", 2) {
        let Some(key) = lock_key(&key) else {
            continue;
        };
        let integrity = std::iter::once(after)
            .chain(body.lines())
            .find_map(|line| line.split_once("integrity: "))
            .and_then(|(_, rest)| rest.split([',', '}', ' ']).next());
        if let Some(integrity) = integrity {
            found.entry(key).or_insert_with(|| integrity.to_string());
        }
    }
    found
}

/// A lock's package key as a `.pnpm/` folder names it, peers left out: `/@scope/name@1.0.0(p@2)`
/// (format 6), `'@scope/name@1.0.0'` (9) and `/@scope/name/1.0.0_p@2` (5) are all
/// `@scope+name@1.0.0`.
fn lock_key(raw: &str) -> Option<String> {
    let raw = raw.trim_matches(|c| c == '\'' || c == '"');
    let raw = raw.strip_prefix('/').unwrap_or(raw);
    let raw = raw.split('(').next()?;
    // The name ends at the first `@` or `/` past a scope's own `@scope/`; a `/` there is
    // format 5's, before the version.
    let scope = if raw.starts_with('@') {
        raw.find('/')? + 1
    } else {
        0
    };
    let end = scope + raw[scope..].find(['@', '/'])?;
    let named = format!("{}@{}", &raw[..end], &raw[end + 1..]);
    unpeered(&named.replace('/', "+"))
}

/// A `.pnpm/` folder's name without its peers: `name@1.0.0_peer@2` is `name@1.0.0`.
fn unpeered(entry: &str) -> Option<String> {
    let at = entry.get(1..)?.find('@')? + 1;
    let end = entry[at..].find('_').map_or(entry.len(), |i| at + i);
    Some(entry[..end].to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lock_keys_of_every_format_name_the_store_folder() {
        for raw in [
            "'@babel/core@7.22.10'",
            "/@babel/core@7.22.10(supports-color@8.1.1)",
            "/@babel/core/7.22.10_supports-color@8.1.1",
        ] {
            assert_eq!(
                lock_key(raw).as_deref(),
                Some("@babel+core@7.22.10"),
                "{raw}"
            );
        }
        assert_eq!(lock_key("bumpp@9.2.0").as_deref(), Some("bumpp@9.2.0"));
        assert_eq!(
            lock_key("/string_decoder/1.3.0").as_deref(),
            Some("string_decoder@1.3.0")
        );
        assert_eq!(
            unpeered("eslint-plugin-n@16.3.1_eslint@8.54.0").as_deref(),
            Some("eslint-plugin-n@16.3.1")
        );
    }

    #[test]
    fn the_store_is_named_in_yaml_or_json() {
        let yaml = "hoistPattern:\n  - '*'\nstoreDir: /home/u/.local/share/pnpm/store/v3\n";
        let json = "{\n  \"layoutVersion\": 5,\n  \"storeDir\": \"/mnt/c/.pnpm-store/v10\",\n}";
        assert_eq!(
            store_dir(yaml),
            Some(PathBuf::from("/home/u/.local/share/pnpm/store/v3"))
        );
        assert_eq!(
            store_dir(json),
            Some(PathBuf::from("/mnt/c/.pnpm-store/v10"))
        );
        assert_eq!(store_dir("layoutVersion: 5\n"), None);
    }

    #[test]
    fn a_locks_integrities_are_read_from_its_packages() {
        let lock = "lockfileVersion: '9.0'\n\nimporters:\n  .:\n    devDependencies:\n      \
                    a:\n        specifier: ^1\n\npackages:\n\n  '@s/a@1.0.0':\n    \
                    resolution: {integrity: sha512-AAAA}\n    engines: {node: '>=8'}\n\n  \
                    b@2.0.0:\n    resolution:\n      integrity: sha512-BBBB\n\nsnapshots:\n\n  \
                    c@3.0.0:\n    resolution: {integrity: sha512-CCCC}\n";
        let found = integrities(lock);
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(found["@s+a@1.0.0"], "sha512-AAAA");
        assert_eq!(found["b@2.0.0"], "sha512-BBBB");
    }

    #[test]
    fn an_integrity_names_its_index_file() {
        // sha512 of the empty string.
        let integrity = "sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUdBeoGlODJ6+SfaPg==";
        assert_eq!(
            sha512_hex(integrity).as_deref(),
            Some(
                "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0\
                 ff8318d2877eec2f63b931bd47417a81a538327af927da3e"
            )
        );
        assert_eq!(sha512_hex("sha1-AAAA"), None);
    }
}
