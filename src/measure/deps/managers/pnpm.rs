//! pnpm: its lock (format 9) and the lock it keeps of what it placed, read for their leaves
//! and written back trimmed to a sample; it links files from its store (`samplers::pnpm_store`
//! works out which store).

use super::kind::Manager;
use super::lock::{Leaf, Lock, name_and_version};
use super::rules::{Ecosystem, PackageManager, ReferenceFit};
use crate::measure::deps::registry;
use std::collections::BTreeMap;

pub struct Pnpm;

/// The lock pnpm keeps of what it placed in node_modules, in its lock's format.
pub const INSTALLED_RECORD: &str = "node_modules/.pnpm/lock.yaml";

impl PackageManager for Pnpm {
    fn runtime(&self) -> &'static str {
        "Node.js"
    }

    fn ecosystem(&self) -> Ecosystem {
        Ecosystem::Node
    }

    fn lock_files(&self) -> &'static [&'static str] {
        &["pnpm-lock.yaml"]
    }

    /// pnpm 11 stopped reading `npm_config_*` from the environment; 12's store has its own
    /// layout (`samplers::pnpm_store`).
    fn tested_majors(&self) -> Option<(u32, u32)> {
        Some((9, 12))
    }

    /// What it placed first, so a package it skipped here is not sampled.
    fn sample_lock_sources(&self) -> &'static [&'static str] {
        &[INSTALLED_RECORD, "pnpm-lock.yaml"]
    }

    fn read_lock(&self, text: &str, source: &str) -> Option<Lock> {
        pnpm(text, source == INSTALLED_RECORD)
    }

    fn write_lock(&self, _lock: &Lock, chosen: &[(&String, &Leaf)]) -> Option<String> {
        Some(pnpm_lock_of(chosen))
    }

    fn lock_install_args(&self) -> Option<&'static [&'static str]> {
        Some(&[
            "install",
            "--offline",
            "--frozen-lockfile",
            "--ignore-scripts",
            // Not silent: that hides pnpm's errors too, which it prints on stdout.
            "--reporter=append-only",
        ])
    }

    fn manifest_install_args(&self) -> Option<&'static [&'static str]> {
        Some(&[
            "install",
            "--offline",
            "--ignore-scripts",
            "--config.lockfile=false",
            "--reporter=silent",
        ])
    }

    fn reference_fit(&self) -> Option<ReferenceFit> {
        Some(ReferenceFit {
            startup_ms: 42.0,
            per_unit_ms: 0.16,
        })
    }

    /// Its `auto` import: a clone where the file system has them, else a hard link (ext4 has
    /// none, and strace of its install on a journaled ext4 shows a `link` per file).
    fn links_from_cache(&self) -> bool {
        true
    }
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
        if leaf && crate::measure::deps::packages::is_plain_npm_pin(&name, &version) {
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
        let here = crate::measure::deps::platform::allows_here(&self.os, &self.cpu, &self.libc);
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
