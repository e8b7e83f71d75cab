//! The lock files of pnpm (format 9), yarn classic and bun (text `bun.lock`), read for their leaf
//! packages and written back trimmed to a sample of them.
//!
//! A project cloned and installed from its lock leaves its manager's cache holding what the
//! lock names (tarballs or unpacked packages) and none of the registry's metadata, which an
//! install from a bare `package.json` needs even offline (pnpm: `ERR_PNPM_NO_OFFLINE_META`, bun:
//! "failed to resolve"). A lock of the sample, its entries copied from the project's own, is
//! installed by `install --offline --frozen-lockfile` from that cache alone. Each manager's
//! entry is kept as its lock writes it, so nothing in it is re-encoded.

use super::kind::Manager;
use crate::measure::deps::packages::Pinned;
use std::collections::BTreeMap;

/// A project's lock, reduced to its leaf packages (no dependencies of their own, so each one
/// installs alone).
#[derive(Debug, Clone, PartialEq)]
pub struct Lock {
    pub(super) manager: Manager,
    /// `lockfileVersion` as the lock says it (bun), written back into the sample's.
    pub(super) version: String,
    /// By name: the version and the entry's text (pnpm, yarn: the lines below its key; bun:
    /// the JSON array).
    pub(super) leaves: BTreeMap<String, Leaf>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Leaf {
    pub(super) version: String,
    pub(super) entry: String,
    /// pnpm's: the `sha512-...` its store names the package's index by.
    pub(super) integrity: Option<String>,
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

    /// The integrity pnpm's lock records for the leaf `name` (None in other managers' locks).
    pub fn integrity(&self, name: &str) -> Option<&str> {
        self.leaves.get(name)?.integrity.as_deref()
    }

    /// The leaves of `deps` this lock holds, with their entries (others are left out).
    pub(super) fn chosen(&self, deps: &[Pinned]) -> Vec<(&String, &Leaf)> {
        deps.iter()
            .filter_map(|(name, _)| self.leaves.get_key_value(name))
            .collect()
    }
}

pub(super) fn quoted(text: &str) -> String {
    serde_json::Value::String(text.to_string()).to_string()
}

/// `name@version` split at the version's `@` (a scoped name starts with one); None when the
/// version is not a plain one (a peer suffix, a URL, `file:`, `link:`, `npm:` aliases).
pub(super) fn name_and_version(key: &str) -> Option<(String, String)> {
    let at = key.rfind('@').filter(|&at| at > 0)?;
    let (name, version) = (&key[..at], &key[at + 1..]);
    let plain = version
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+'));
    (plain && !version.is_empty()).then(|| (name.to_string(), version.to_string()))
}

/// The blocks of a YAML-like text below one top-level key: each indented key line and the
/// lines below it, as `(key, the key line's rest, body)`.
pub fn blocks<'t>(text: &'t str, section: &str, indent: usize) -> Vec<(String, &'t str, String)> {
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

/// `text` without the commas that close a JSON object or array's last member (as bun writes
/// them); strings are left as they are.
pub fn without_trailing_commas(text: &str) -> String {
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
