//! The lock files of pnpm (format 9), yarn classic and bun (text `bun.lock`), read for their leaf
//! packages and written back trimmed to a sample of them.
//!
//! A project cloned and installed from its lock leaves its manager's cache holding what the
//! lock names (tarballs or unpacked packages) and none of the registry's metadata, which an
//! install from a bare `package.json` needs even offline (pnpm: `ERR_PNPM_NO_OFFLINE_META`, bun:
//! "failed to resolve"). A lock of the sample, its entries copied from the project's own, is
//! installed by `install --offline --frozen-lockfile` from that cache alone. Each manager's
//! entry is kept as its lock writes it, so nothing in it is re-encoded.

use super::package_manager::Manager;
use super::packages::Pinned;
use super::registry;
use std::collections::BTreeMap;
use std::path::Path;

/// A project's lock, reduced to its leaf packages (no dependencies of their own, so each one
/// installs alone).
#[derive(Debug, Clone, PartialEq)]
pub struct Lock {
    manager: Manager,
    /// `lockfileVersion` as the lock says it (bun), written back into the sample's.
    version: String,
    /// By name: the version and the entry's text (pnpm, yarn: the lines below its key; bun:
    /// the JSON array).
    leaves: BTreeMap<String, Leaf>,
}

#[derive(Debug, Clone, PartialEq)]
struct Leaf {
    version: String,
    entry: String,
    /// pnpm's: the `sha512-...` its store names the package's index by.
    integrity: Option<String>,
}

/// The lock of `manager` at `root` with at least one leaf read; None for another manager, no
/// such lock, or a format not read here (pnpm's before 9, yarn's from version 2, `bun.lockb`).
pub fn read(manager: Manager, root: &Path) -> Option<Lock> {
    read_with_source(manager, root).map(|(lock, _)| lock)
}

/// The lock pnpm keeps of what it placed in node_modules, in its lock's format.
pub const PNPM_INSTALLED_RECORD: &str = "node_modules/.pnpm/lock.yaml";

/// As [`read`], with the file it was read from: for pnpm, what it placed
/// (`PNPM_INSTALLED_RECORD`) before its lock, so a package it skipped here is not sampled.
pub fn read_with_source(manager: Manager, root: &Path) -> Option<(Lock, &'static str)> {
    let files = match manager {
        Manager::Pnpm => vec![PNPM_INSTALLED_RECORD, file_name(manager)?],
        _ => vec![file_name(manager)?],
    };
    files.into_iter().find_map(|file| {
        let text = crate::base::repo_file::manifest(root, file)?;
        let lock = match manager {
            Manager::Pnpm => pnpm(&text, file == PNPM_INSTALLED_RECORD)?,
            Manager::Yarn => yarn(&text)?,
            Manager::Bun => bun(&text)?,
            _ => return None,
        };
        (!lock.leaves.is_empty()).then_some((lock, file))
    })
}

/// The lock file `manager` installs from; None for the managers not read here.
pub fn file_name(manager: Manager) -> Option<&'static str> {
    match manager {
        Manager::Pnpm => Some("pnpm-lock.yaml"),
        Manager::Yarn => Some("yarn.lock"),
        Manager::Bun => Some("bun.lock"),
        _ => None,
    }
}

impl Lock {
    pub fn manager(&self) -> Manager {
        self.manager
    }

    /// Every leaf, one version per name, in name order.
    pub fn leaves(&self) -> Vec<Pinned> {
        self.leaves
            .iter()
            .map(|(name, leaf)| (name.clone(), leaf.version.clone()))
            .collect()
    }

    /// The lock file installing `deps` (leaves of this lock; others are left out) beside a
    /// package.json that names each at its exact version; None when there should be none (bun
    /// installing nothing writes no lock, and refuses a frozen one that lists nothing).
    /// The integrity pnpm's lock records for the leaf `name` (None in other managers' locks).
    pub fn integrity(&self, name: &str) -> Option<&str> {
        self.leaves.get(name)?.integrity.as_deref()
    }

    pub fn lock_of(&self, deps: &[Pinned]) -> Option<String> {
        let chosen: Vec<(&String, &Leaf)> = deps
            .iter()
            .filter_map(|(name, _)| self.leaves.get_key_value(name))
            .collect();
        match self.manager {
            Manager::Pnpm => Some(pnpm_lock_of(&chosen)),
            Manager::Yarn => Some(yarn_lock_of(&chosen)),
            _ => (!chosen.is_empty()).then(|| self.bun_lock_of(&chosen)),
        }
    }

    fn bun_lock_of(&self, chosen: &[(&String, &Leaf)]) -> String {
        let dependencies: Vec<String> = chosen
            .iter()
            .map(|(name, leaf)| format!("{}: {}", quoted(name), quoted(&leaf.version)))
            .collect();
        let packages: Vec<String> = chosen
            .iter()
            .map(|(name, leaf)| format!("{}: {}", quoted(name), leaf.entry))
            .collect();
        format!(
            "{{\"lockfileVersion\": {}, \"workspaces\": {{\"\": {{\"name\": {}, \"dependencies\": {{{}}}}}}}, \"packages\": {{{}}}}}\n",
            self.version,
            quoted(super::packages::SAMPLE_NAME),
            dependencies.join(", "),
            packages.join(", "),
        )
    }
}

fn quoted(text: &str) -> String {
    serde_json::Value::String(text.to_string()).to_string()
}

/// `name@version` split at the version's `@` (a scoped name starts with one); None when the
/// version is not a plain one (a peer suffix, a URL, `file:`, `link:`, `npm:` aliases).
fn name_and_version(key: &str) -> Option<(String, String)> {
    let at = key.rfind('@').filter(|&at| at > 0)?;
    let (name, version) = (&key[..at], &key[at + 1..]);
    let plain = version
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+'));
    (plain && !version.is_empty()).then(|| (name.to_string(), version.to_string()))
}

/// The blocks of a YAML-like text below one top-level key: each indented key line and the
/// lines below it, as `(key, the key line's rest, body)`.
pub(crate) fn blocks<'t>(
    text: &'t str,
    section: &str,
    indent: usize,
) -> Vec<(String, &'t str, String)> {
    let pad = " ".repeat(indent);
    let mut found: Vec<(String, &str, String)> = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        if !line.starts_with(' ') && !line.is_empty() {
            inside = line.trim_end() == section;
            continue;
        }
        if !inside || line.trim().is_empty() {
            continue;
        }
        let deeper = line.starts_with(&format!("{pad} "));
        match line.strip_prefix(&pad) {
            Some(rest) if !deeper => {
                let (key, after) = split_key(rest);
                found.push((key, after, String::new()));
            }
            _ => {
                if let Some(last) = found.last_mut() {
                    last.2.push_str(line);
                    last.2.push('\n');
                }
            }
        }
    }
    found
}

/// A YAML key line's key (its quotes taken off) and what follows the colon.
fn split_key(line: &str) -> (String, &str) {
    let (key, rest) = if let Some(inner) = line.strip_prefix('\'') {
        inner.split_once("':").unwrap_or((inner, ""))
    } else if let Some(inner) = line.strip_prefix('"') {
        inner.split_once("\":").unwrap_or((inner, ""))
    } else if let Some(key) = line.strip_suffix(':') {
        (key, "")
    } else {
        line.split_once(": ").unwrap_or((line, ""))
    };
    (key.to_string(), rest.trim())
}

/// pnpm's lock of format 9 (pnpm 9 and 10), parsed as the YAML it is: `packages:` holds each
/// package's resolution, `snapshots:` its dependencies; a leaf's snapshot names none. Only
/// packages this machine installs (`platform::allows_here`), resolved from the registry
/// (`resolution` is its `integrity` alone: a `tarball`, `directory` or `repo` is read or fetched
/// from wherever it names); from a lock alone (not `installed_record`) no `optional: true`
/// snapshot either, whose parent may be another platform's. A leaf's entry is written from the
/// parsed values, never copied as text.
fn pnpm(text: &str, installed_record: bool) -> Option<Lock> {
    let lock: PnpmLock = serde_norway::from_str(text).ok()?;
    let format = match &lock.lockfile_version {
        serde_norway::Value::String(version) => version.clone(),
        serde_norway::Value::Number(version) => version.to_string(),
        _ => return None,
    };
    if !format.starts_with("9.") || !format.chars().all(|c| c.is_ascii_digit() || c == '.') {
        return None;
    }
    let mut leaves = BTreeMap::new();
    for (key, snapshot) in &lock.snapshots {
        let snapshot = snapshot.clone().unwrap_or_default();
        let leaf = snapshot.dependencies.is_empty()
            && snapshot.optional_dependencies.is_empty()
            && (installed_record || !snapshot.optional);
        let (Some(package), Some((name, version))) =
            (lock.packages.get(key), name_and_version(key))
        else {
            continue;
        };
        let Some(entry) = package.registry_entry() else {
            continue;
        };
        if leaf && super::packages::is_plain_npm_pin(&name, &version) {
            let integrity = package.integrity().map(str::to_string);
            leaves.entry(name).or_insert(Leaf {
                version,
                entry,
                integrity,
            });
        }
    }
    Some(Lock {
        manager: Manager::Pnpm,
        version: format,
        leaves,
    })
}

#[derive(serde::Deserialize)]
struct PnpmLock {
    #[serde(rename = "lockfileVersion")]
    lockfile_version: serde_norway::Value,
    #[serde(default)]
    packages: BTreeMap<String, PnpmPackage>,
    #[serde(default)]
    snapshots: BTreeMap<String, Option<PnpmSnapshot>>,
}

#[derive(serde::Deserialize)]
struct PnpmPackage {
    #[serde(default)]
    resolution: BTreeMap<String, serde_norway::Value>,
    #[serde(default)]
    os: Vec<String>,
    #[serde(default)]
    cpu: Vec<String>,
    #[serde(default)]
    libc: Vec<String>,
    #[serde(default, rename = "hasBin")]
    has_bin: bool,
}

#[derive(serde::Deserialize, Default, Clone)]
struct PnpmSnapshot {
    #[serde(default)]
    dependencies: BTreeMap<String, serde_norway::Value>,
    #[serde(default, rename = "optionalDependencies")]
    optional_dependencies: BTreeMap<String, serde_norway::Value>,
    #[serde(default)]
    optional: bool,
}

impl PnpmPackage {
    fn integrity(&self) -> Option<&str> {
        match self.resolution.get("integrity") {
            Some(serde_norway::Value::String(integrity)) => Some(integrity),
            _ => None,
        }
    }

    /// The lines of this package's entry in a sample's lock, when it comes from the registry
    /// and installs here.
    fn registry_entry(&self) -> Option<String> {
        let [(field, serde_norway::Value::String(integrity))] =
            self.resolution.iter().collect::<Vec<_>>()[..]
        else {
            return None;
        };
        let here = super::platform::allows_here(&self.os, &self.cpu, &self.libc);
        if field != "integrity" || !registry::is_integrity(integrity) || !here {
            return None;
        }
        let bin = if self.has_bin {
            "    hasBin: true\n"
        } else {
            ""
        };
        Some(format!("    resolution: {{integrity: {integrity}}}\n{bin}"))
    }
}

fn pnpm_lock_of(chosen: &[(&String, &Leaf)]) -> String {
    let mut importer = String::new();
    let (mut packages, mut snapshots) = (String::new(), String::new());
    for (name, leaf) in chosen {
        let version = &leaf.version;
        importer.push_str(&format!(
            "      '{name}':\n        specifier: {version}\n        version: {version}\n"
        ));
        packages.push_str(&format!("\n  '{name}@{version}':\n{}", leaf.entry));
        snapshots.push_str(&format!("\n  '{name}@{version}': {{}}\n"));
    }
    if chosen.is_empty() {
        return "lockfileVersion: '9.0'\n\nimporters:\n\n  .: {}\n".to_string();
    }
    format!(
        "lockfileVersion: '9.0'\n\nimporters:\n\n  .:\n    dependencies:\n{importer}\npackages:\n{packages}\nsnapshots:\n{snapshots}"
    )
}

/// yarn classic's lock (`yarn_lock`'s grammar): a leaf is an entry with no dependencies whose
/// tarball is a registry's; its entry in a sample's lock is written from its `version`,
/// `resolved` and `integrity` values alone.
fn yarn(text: &str) -> Option<Lock> {
    let mut leaves = BTreeMap::new();
    for entry in super::yarn_lock::entries(text)? {
        let (Some(name), Some(version), Some(resolved), Some(integrity)) = (
            entry.name(),
            entry.field("version"),
            entry.field("resolved"),
            entry.field("integrity"),
        ) else {
            continue;
        };
        let depends = !entry.dependencies.is_empty() || !entry.optional.is_empty();
        let plain = super::packages::is_plain_npm_pin(name, version)
            && registry::is_registry_tarball(resolved)
            && registry::is_integrity(integrity);
        if plain && !depends {
            let entry = format!(
                "  version \"{version}\"\n  resolved \"{resolved}\"\n  integrity {integrity}\n"
            );
            leaves.entry(name.to_string()).or_insert(Leaf {
                version: version.to_string(),
                entry,
                integrity: None,
            });
        }
    }
    Some(Lock {
        manager: Manager::Yarn,
        version: "1".to_string(),
        leaves,
    })
}

fn yarn_lock_of(chosen: &[(&String, &Leaf)]) -> String {
    let mut text = "# yarn lockfile v1\n\n".to_string();
    for (name, leaf) in chosen {
        text.push_str(&format!("\n\"{name}@{}\":\n{}", leaf.version, leaf.entry));
    }
    text
}

/// bun's text lock (`bun.lock`, JSON with trailing commas): `packages` names each package by
/// its path in the tree (`name`, `@scope/name`, or nested `parent/name`) with an array of its
/// `name@version`, registry, metadata (its dependencies) and integrity.
fn bun(text: &str) -> Option<Lock> {
    let value: serde_json::Value = serde_json::from_str(&without_trailing_commas(text)).ok()?;
    let version = value.get("lockfileVersion")?.as_u64()?.to_string();
    let mut leaves = BTreeMap::new();
    for (key, entry) in value.get("packages")?.as_object()? {
        let top_level = key.matches('/').count() == usize::from(key.starts_with('@'));
        let Some(parts) = entry.as_array().filter(|_| top_level) else {
            continue;
        };
        let ident = parts.first().and_then(|v| v.as_str());
        let registry = parts.get(1).and_then(|v| v.as_str());
        let integrity = parts.get(3).and_then(|v| v.as_str()).unwrap_or("");
        let meta = parts.get(2);
        let depends = ["dependencies", "optionalDependencies"].iter().any(|k| {
            meta.and_then(|m| m.get(k))
                .and_then(|d| d.as_object())
                .is_some_and(|d| !d.is_empty())
        });
        let Some((name, version)) = ident.and_then(name_and_version) else {
            continue;
        };
        // bun writes a package's platforms as npm does (`"os": "darwin"`) in its metadata.
        let here = meta.is_none_or(|m| super::platform::npm_entry_here(m, true));
        let from_registry = parts.len() == 4
            && registry.is_some_and(registry::is_registry_base)
            && registry::is_integrity(integrity)
            && super::packages::is_plain_npm_pin(&name, &version);
        if name == *key && from_registry && !depends && here {
            // Written from the values read: its name, its registry, no metadata (a leaf has no
            // dependencies, and a `bin` the lock names is the package's own to link).
            let entry = serde_json::json!([ident, registry, {}, integrity]).to_string();
            leaves.insert(
                name,
                Leaf {
                    version,
                    entry,
                    integrity: None,
                },
            );
        }
    }
    Some(Lock {
        manager: Manager::Bun,
        version,
        leaves,
    })
}

/// `text` without the commas that close a JSON object or array's last member (as bun writes
/// them); strings are left as they are.
pub(crate) fn without_trailing_commas(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let (mut in_string, mut escaped) = (false, false);
    for (i, &c) in chars.iter().enumerate() {
        if in_string {
            in_string = escaped || c != '"';
            escaped = !escaped && c == '\\';
        } else if c == '"' {
            in_string = true;
        } else if c == ',' {
            let next = chars[i + 1..].iter().find(|c| !c.is_whitespace());
            if matches!(next, Some('}' | ']') | None) {
                continue;
            }
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const PNPM: &str = "lockfileVersion: '9.0'

settings:
  autoInstallPeers: true

importers:

  .:
    dependencies:
      debug:
        specifier: 4.3.4
        version: 4.3.4

packages:

  '@s/c@3.0.0':
    resolution: {integrity: sha512-C}

  debug@4.3.4:
    resolution: {integrity: sha512-D}
    engines: {node: '>=6.0'}

  local@file:x:
    resolution: {directory: x, type: directory}

  fsevents@2.3.3:
    resolution: {integrity: sha512-F}
    os: [darwin]

  nan@2.30.0:
    resolution: {integrity: sha512-N}

  ms@2.1.2:
    resolution: {integrity: sha512-M}

snapshots:

  '@s/c@3.0.0': {}

  debug@4.3.4:
    dependencies:
      ms: 2.1.2

  local@file:x: {}

  fsevents@2.3.3:
    optional: true

  nan@2.30.0:
    optional: true

  ms@2.1.2: {}
";

    fn pinned(pairs: &[(&str, &str)]) -> Vec<Pinned> {
        pairs
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn pnpms_leaves_are_the_snapshots_without_dependencies() {
        let lock = pnpm(PNPM, false).unwrap();
        assert_eq!(lock.leaves(), pinned(&[("@s/c", "3.0.0"), ("ms", "2.1.2")]));
        // What pnpm placed here: its optional `nan`, never macOS's `fsevents`.
        let placed = pnpm(PNPM, true).unwrap().leaves();
        assert_eq!(
            placed,
            pinned(&[("@s/c", "3.0.0"), ("ms", "2.1.2"), ("nan", "2.30.0")])
        );
        let trimmed = lock.lock_of(&pinned(&[("ms", "2.1.2")])).unwrap();
        assert_eq!(
            trimmed,
            "lockfileVersion: '9.0'\n\nimporters:\n\n  .:\n    dependencies:\n      'ms':\n        specifier: 2.1.2\n        version: 2.1.2\n\npackages:\n\n  'ms@2.1.2':\n    resolution: {integrity: sha512-M}\n\nsnapshots:\n\n  'ms@2.1.2': {}\n"
        );
        assert!(lock.lock_of(&[]).unwrap().contains("  .: {}"));
        assert_eq!(pnpm(&PNPM.replace("'9.0'", "'6.0'"), false), None);
    }

    #[test]
    fn yarns_leaves_are_the_entries_without_dependencies() {
        let text = r#"# THIS IS AN AUTOGENERATED FILE. DO NOT EDIT THIS FILE DIRECTLY.
# yarn lockfile v1


"@s/c@^3.0.0", "@s/c@~3.0":
  version "3.0.0"
  resolved "https://registry.yarnpkg.com/@s/c/-/c-3.0.0.tgz#00"
  integrity sha512-C

debug@4.3.4:
  version "4.3.4"
  resolved "https://registry.yarnpkg.com/debug/-/debug-4.3.4.tgz#11"
  dependencies:
    ms "2.1.2"

ms@2.1.2:
  version "2.1.2"
  resolved "https://registry.yarnpkg.com/ms/-/ms-2.1.2.tgz#22"
  integrity sha512-M
"#;
        let lock = yarn(text).unwrap();
        assert_eq!(lock.leaves(), pinned(&[("@s/c", "3.0.0"), ("ms", "2.1.2")]));
        assert_eq!(
            lock.lock_of(&pinned(&[("@s/c", "3.0.0")])).unwrap(),
            "# yarn lockfile v1\n\n\n\"@s/c@3.0.0\":\n  version \"3.0.0\"\n  resolved \"https://registry.yarnpkg.com/@s/c/-/c-3.0.0.tgz#00\"\n  integrity sha512-C\n"
        );
        // yarn 2 and later write another format.
        assert_eq!(yarn("__metadata:\n  version: 8\n"), None);
    }

    #[test]
    fn yarns_leaves_are_registry_tarballs_only() {
        let text = "# yarn lockfile v1\n\n\n\"local@file:../local\":\n  version \"1.0.0\"\n  resolved \"file:../local\"\n\nms@2.1.2:\n  version \"2.1.2\"\n  resolved \"https://registry.yarnpkg.com/ms/-/ms-2.1.2.tgz#4e\"\n  integrity sha512-M\n\n\"viagit@git+https://h/x.git\":\n  version \"1.0.0\"\n  resolved \"git+https://h/x.git#abc\"\n  integrity sha512-G\n";
        let lock = yarn(text).unwrap();
        assert_eq!(lock.leaves(), pinned(&[("ms", "2.1.2")]));
    }

    #[test]
    fn buns_leaves_are_top_level_packages_without_dependencies() {
        let text = r#"{
  "lockfileVersion": 1,
  "workspaces": {
    "": {
      "name": "p",
      "dependencies": { "debug": "4.3.4", "@s/c": "3.0.0", },
    },
  },
  "packages": {
    "@s/c": ["@s/c@3.0.0", "", {}, "sha512-C"],
    "debug": ["debug@4.3.4", "", { "dependencies": { "ms": "2.1.2" } }, "sha512-D"],
    "debug/ms": ["ms@2.1.2", "", {}, "sha512-M"],
    "odd": ["odd@1.0.0", "", {}, "sha512-\"quoted, }"],
    "fsevents": ["fsevents@2.3.3", "", { "os": "darwin" }, "sha512-F"],
  }
}
"#;
        let lock = bun(text).unwrap();
        assert_eq!(
            lock.leaves(),
            pinned(&[("@s/c", "3.0.0")]),
            "an integrity that is not base64 is no registry's"
        );
        let trimmed: serde_json::Value =
            serde_json::from_str(&lock.lock_of(&pinned(&[("@s/c", "3.0.0")])).unwrap()).unwrap();
        assert_eq!(trimmed["lockfileVersion"], 1);
        assert_eq!(
            trimmed["workspaces"][""]["dependencies"]["@s/c"], "3.0.0",
            "{trimmed}"
        );
        assert_eq!(trimmed["packages"]["@s/c"][3], "sha512-C");
        assert_eq!(lock.lock_of(&[]), None);
        assert_eq!(bun("not json"), None);
    }

    #[test]
    fn a_pnpm_entry_read_or_fetched_from_elsewhere_is_no_leaf() {
        let hostile = PNPM
            .replace(
                "resolution: {integrity: sha512-M}",
                "resolution: {integrity: sha512-M, tarball: 'file:../../outside.tgz'}",
            )
            .replace(
                "resolution: {integrity: sha512-C}",
                "resolution: {integrity: \"sha512-C}\\n    requiresBuild: true\"}",
            );
        let lock = pnpm(&hostile, false).unwrap();
        assert_eq!(lock.leaves(), Vec::<Pinned>::new(), "{hostile}");
        // Written as YAML allows, not as pnpm writes it: still read as what it is.
        let flow = "lockfileVersion: '9.0'\npackages: {'ms@2.1.2': {resolution: {integrity: sha512-M}, hasBin: true}, 'x@1.0.0': {resolution: {directory: ../..}}}\nsnapshots: {'ms@2.1.2': {}, 'x@1.0.0': {}}\n";
        let lock = pnpm(flow, false).unwrap();
        assert_eq!(lock.leaves(), pinned(&[("ms", "2.1.2")]));
        let written = lock.lock_of(&pinned(&[("ms", "2.1.2")])).unwrap();
        assert!(written.contains("    resolution: {integrity: sha512-M}\n    hasBin: true\n"));
        assert_eq!(pnpm("lockfileVersion: '9.0'\npackages: [", false), None);
    }

    #[test]
    fn a_bun_or_yarn_entry_from_elsewhere_is_no_leaf() {
        let text = r#"{"lockfileVersion": 1, "packages": {
            "a": ["a@1.0.0", "file:../../outside", {}, "sha512-A"],
            "b": ["b@1.0.0", "", {}, "sha512-B", "extra"],
            "c": ["c@1.0.0", "https://registry.npmjs.org/", {"bin": {"../../x": "y"}}, "sha512-C"]}}"#;
        let lock = bun(text).unwrap();
        assert_eq!(lock.leaves(), pinned(&[("c", "1.0.0")]));
        let written = lock.lock_of(&pinned(&[("c", "1.0.0")])).unwrap();
        assert!(!written.contains("../../x"), "{written}");
        let yarn_text = "# yarn lockfile v1\n\nms@2.1.2:\n  version \"2.1.2\"\n  resolved \"https://evil.example/ms.tgz\"\n  integrity sha512-M\n\nq@1.0.0:\n  version \"1.0.0\"\n  resolved \"https://r.example/q/-/q-1.0.0.tgz\"\n  integrity \"sha512-Q\\n  dependencies:\"\n";
        assert_eq!(yarn(yarn_text).unwrap().leaves(), Vec::<Pinned>::new());
    }
}
