//! The symlinks pnpm makes for a lock (`pnpm-lock.yaml`, format 5, 6 or 9): its tree is not
//! npm's. Each package sits in `node_modules/.pnpm/<name>@<version>/node_modules/<name>` and
//! reaches each of its dependencies through a symlink beside it; every importer (the root and
//! each workspace package) links its own dependencies into its `node_modules`; and pnpm hoists
//! one link per package name into `node_modules/.pnpm/node_modules` (its default
//! `hoist-pattern: *`), less the names the root links itself. On a slow mount each link is a
//! round trip, as a folder is: unjs/c12 2d19d39 placed 345 packages with 997 symlinks (673
//! dependency edges, 299 hoisted names, 25 root links).

use super::managers::blocks;
use std::collections::BTreeSet;

/// The symlinks pnpm makes installing `text` on this machine; `placed` are the keys of the
/// snapshots (format 9) or packages (5, 6) it places here (`lock_counts::pnpm_placed_keys`).
/// A dependency edge to a package placed on another platform only (`fsevents`) makes none.
pub fn pnpm_links(text: &str, placed: &BTreeSet<String>, v9: bool) -> u64 {
    let section = if v9 { "snapshots:" } else { "packages:" };
    let all: BTreeSet<String> = blocks(text, section, 2)
        .into_iter()
        .map(|(key, _, _)| key)
        .collect();
    let edges: usize = blocks(text, section, 2)
        .iter()
        .filter(|(key, _, _)| placed.contains(key))
        .map(|(_, _, body)| {
            dependency_entries(body, 4)
                .into_iter()
                .filter(|(name, version)| {
                    let target = target_key(name, version, v9, &all);
                    !all.contains(&target) || placed.contains(&target)
                })
                .count()
        })
        .sum();
    let (root_names, importer_links) = importer_links(text);
    let names: BTreeSet<String> = placed.iter().map(|key| package_name(key, v9)).collect();
    let hoisted = names.difference(&root_names).count();
    (edges + importer_links + hoisted) as u64
}

/// The `name: version` lines under a body's `dependencies:` and `optionalDependencies:` at
/// `indent` (their entries one level deeper).
fn dependency_entries(body: &str, indent: usize) -> Vec<(String, String)> {
    let (pad, deeper) = (" ".repeat(indent), " ".repeat(indent + 2));
    let mut inside = false;
    let mut found = Vec::new();
    for line in body.lines() {
        if let Some(rest) = line.strip_prefix(&deeper) {
            if inside && !rest.starts_with(' ') {
                let (name, version) = rest.split_once(':').unwrap_or((rest, ""));
                found.push((unquoted(name), unquoted(version)));
            }
        } else if let Some(rest) = line.strip_prefix(&pad) {
            inside = matches!(rest.trim_end(), "dependencies:" | "optionalDependencies:");
        }
    }
    found
}

/// The importers' links: the root's dependency names, and the links of every importer (format
/// 9 and workspaces of 6: `importers:`; a single project of 5 and 6: top-level sections).
fn importer_links(text: &str) -> (BTreeSet<String>, usize) {
    let mut root = BTreeSet::new();
    let mut links = 0;
    let importers = blocks(text, "importers:", 2);
    if importers.is_empty() {
        for section in ["dependencies:", "devDependencies:", "optionalDependencies:"] {
            for (name, _, _) in blocks(text, section, 2) {
                links += 1;
                root.insert(name);
            }
        }
        return (root, links);
    }
    for (importer, _, body) in importers {
        let names: Vec<String> = importer_dependency_names(&body);
        links += names.len();
        if importer == "." {
            root.extend(names);
        }
    }
    (root, links)
}

/// The dependency names an importer's body lists (each at indent 6 under a section at 4).
fn importer_dependency_names(body: &str) -> Vec<String> {
    let mut inside = false;
    let mut names = Vec::new();
    for line in body.lines() {
        if let Some(rest) = line.strip_prefix("      ") {
            if inside && !rest.starts_with(' ') {
                names.push(unquoted(rest.split_once(':').map_or(rest, |(n, _)| n)));
            }
        } else if let Some(rest) = line.strip_prefix("    ") {
            inside = matches!(
                rest.trim_end(),
                "dependencies:" | "devDependencies:" | "optionalDependencies:"
            );
        }
    }
    names
}

/// The key a dependency line points at: `name@version` (format 9 and 6: `/name@version`),
/// format 5's `/name/version`, whichever the lock holds.
fn target_key(name: &str, version: &str, v9: bool, all: &BTreeSet<String>) -> String {
    if v9 {
        return format!("{name}@{version}");
    }
    let six = format!("/{name}@{version}");
    if all.contains(&six) {
        six
    } else {
        format!("/{name}/{version}")
    }
}

/// A snapshot's package name: its key less the peers' suffix and the version (format 5:
/// `/name/version`).
fn package_name(key: &str, v9: bool) -> String {
    let base = key.split('(').next().unwrap_or(key);
    let base = if v9 {
        base
    } else {
        base.trim_start_matches('/')
    };
    let cut = if !v9 && !base.contains('@') || base.rfind('@') == Some(0) {
        base.rfind('/')
    } else {
        base.rfind('@').filter(|&at| at > 0)
    };
    cut.map_or(base, |at| &base[..at]).to_string()
}

fn unquoted(text: &str) -> String {
    text.trim().trim_matches(['\'', '"']).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_of_each_format() {
        assert_eq!(
            package_name("@vue/test-utils@2.4.6(vue@3.5.13)", true),
            "@vue/test-utils"
        );
        assert_eq!(package_name("vue@3.5.13", true), "vue");
        assert_eq!(
            package_name("/@esbuild/linux-x64@0.19.12", false),
            "@esbuild/linux-x64"
        );
        assert_eq!(package_name("/chokidar/3.6.0", false), "chokidar");
        assert_eq!(package_name("/@babel/core/7.1.0", false), "@babel/core");
    }

    #[test]
    fn dependency_lines_of_a_snapshot() {
        let body = "    dependencies:\n      vue: 3.5.13\n      '@a/b': 1.0.0(c@1)\n    optional: true\n    optionalDependencies:\n      fsevents: 2.3.3\n";
        assert_eq!(
            dependency_entries(body, 4),
            vec![
                ("vue".into(), "3.5.13".into()),
                ("@a/b".into(), "1.0.0(c@1)".into()),
                ("fsevents".into(), "2.3.3".into()),
            ]
        );
    }
}
