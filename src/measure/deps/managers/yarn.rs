//! yarn classic: its lock read for its leaves and written back trimmed to a sample.

use super::kind::Manager;
use super::lock::{Leaf, Lock};
use super::rules::{Ecosystem, PackageManager, ReferenceFit};
use crate::measure::deps::registry;
use std::collections::BTreeMap;

pub struct Yarn;

impl PackageManager for Yarn {
    fn runtime(&self) -> &'static str {
        "Node.js"
    }

    fn ecosystem(&self) -> Ecosystem {
        Ecosystem::Node
    }

    fn lock_files(&self) -> &'static [&'static str] {
        &["yarn.lock"]
    }

    /// yarn 2 and later is another program with another lock.
    fn tested_majors(&self) -> Option<(u32, u32)> {
        Some((1, 1))
    }

    fn sample_lock_sources(&self) -> &'static [&'static str] {
        &["yarn.lock"]
    }

    fn read_lock(&self, text: &str, _source: &str) -> Option<Lock> {
        yarn(text)
    }

    fn write_lock(&self, _lock: &Lock, chosen: &[(&String, &Leaf)]) -> Option<String> {
        Some(yarn_lock_of(chosen))
    }

    fn lock_install_args(&self) -> Option<&'static [&'static str]> {
        Some(&[
            "install",
            "--offline",
            "--frozen-lockfile",
            "--ignore-scripts",
            "--non-interactive",
            "--silent",
            "--no-progress",
        ])
    }

    fn manifest_install_args(&self) -> Option<&'static [&'static str]> {
        Some(&[
            "install",
            "--offline",
            "--ignore-scripts",
            "--no-lockfile",
            "--non-interactive",
            "--silent",
        ])
    }

    fn reference_fit(&self) -> Option<ReferenceFit> {
        Some(ReferenceFit {
            startup_ms: 220.0,
            per_unit_ms: 3.3,
        })
    }
}

/// yarn classic's lock (`yarn_lock`'s grammar): a leaf is an entry with no dependencies whose
/// tarball is a registry's; its entry in a sample's lock is written from its `version`,
/// `resolved` and `integrity` values alone.
fn yarn(text: &str) -> Option<Lock> {
    let mut leaves = BTreeMap::new();
    for entry in crate::measure::deps::yarn_lock::entries(text)? {
        let (Some(name), Some(version), Some(resolved), Some(integrity)) = (
            entry.name(),
            entry.field("version"),
            entry.field("resolved"),
            entry.field("integrity"),
        ) else {
            continue;
        };
        let depends = !entry.dependencies.is_empty() || !entry.optional.is_empty();
        let plain = crate::measure::deps::packages::is_plain_npm_pin(name, version)
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
