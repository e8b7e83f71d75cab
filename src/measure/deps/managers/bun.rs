//! bun: its text lock (`bun.lock`) read for its leaves and written back trimmed to a sample;
//! it links files from its cache (its `hardlink` backend, the default on Linux).

use super::kind::Manager;
use super::lock::{Leaf, Lock, name_and_version, quoted, without_trailing_commas};
use super::rules::{Ecosystem, PackageManager, ReferenceFit};
use crate::measure::deps::registry;
use std::collections::BTreeMap;

pub struct Bun;

impl PackageManager for Bun {
    fn runtime(&self) -> &'static str {
        "bun"
    }

    fn ecosystem(&self) -> Ecosystem {
        Ecosystem::Node
    }

    fn lock_files(&self) -> &'static [&'static str] {
        &["bun.lock", "bun.lockb"]
    }

    fn tested_majors(&self) -> Option<(u32, u32)> {
        Some((1, 1))
    }

    /// Its binary `bun.lockb` is not read here.
    fn sample_lock_sources(&self) -> &'static [&'static str] {
        &["bun.lock"]
    }

    fn read_lock(&self, text: &str, _source: &str) -> Option<Lock> {
        bun(text)
    }

    /// None for no package: bun installing nothing writes no lock, and refuses a frozen one
    /// that lists nothing.
    fn write_lock(&self, lock: &Lock, chosen: &[(&String, &Leaf)]) -> Option<String> {
        (!chosen.is_empty()).then(|| bun_lock_of(lock, chosen))
    }

    fn lock_install_args(&self) -> Option<&'static [&'static str]> {
        Some(&[
            "install",
            "--offline",
            "--frozen-lockfile",
            "--ignore-scripts",
            // Not --silent: that hides bun's errors too.
            "--no-progress",
            "--no-summary",
        ])
    }

    fn manifest_install_args(&self) -> Option<&'static [&'static str]> {
        Some(&[
            "install",
            "--offline",
            "--ignore-scripts",
            "--no-save",
            "--silent",
        ])
    }

    /// Its per-unit figure is a token one: its work is less than the file-system floor.
    fn reference_fit(&self) -> Option<ReferenceFit> {
        Some(ReferenceFit {
            startup_ms: 6.0,
            per_unit_ms: 0.01,
        })
    }

    fn links_from_cache(&self) -> bool {
        true
    }
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
        let here = meta.is_none_or(|m| crate::measure::deps::platform::npm_entry_here(m, true));
        let from_registry = parts.len() == 4
            && registry.is_some_and(registry::is_registry_base)
            && registry::is_integrity(integrity)
            && crate::measure::deps::packages::is_plain_npm_pin(&name, &version);
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

fn bun_lock_of(lock: &Lock, chosen: &[(&String, &Leaf)]) -> String {
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
        lock.version,
        quoted(crate::measure::deps::packages::SAMPLE_NAME),
        dependencies.join(", "),
        packages.join(", "),
    )
}
