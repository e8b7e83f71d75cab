//! File names other systems cannot hold: Windows' reserved names and characters, and names
//! that differ only by case (they collide on Windows and macOS).

use crate::base::pathtext::{RelPath, escape_path};
use std::collections::HashMap;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

const WINDOWS_RESERVED: &[&str] = &[
    "CON", "PRN", "AUX", "NUL", "COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7", "COM8",
    "COM9", "LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8", "LPT9",
];

/// Whether Windows could hold this one file name.
pub fn valid_on_windows(name: &[u8]) -> bool {
    if name.iter().any(|b| *b < 0x20 || b"<>:\"\\|?*".contains(b)) {
        return false;
    }
    if name.ends_with(b".") || name.ends_with(b" ") {
        return false;
    }
    let stem = name.split(|b| *b == b'.').next().unwrap_or_default();
    let stem = String::from_utf8_lossy(stem)
        .trim_end()
        .to_ascii_uppercase();
    !WINDOWS_RESERVED.contains(&stem.as_str())
}

/// Groups of names in the same directory that only differ by case, each group and the list in
/// the order of their escaped text (as they are shown).
pub fn case_collisions(rels: &[&Path]) -> Vec<Vec<RelPath>> {
    let mut groups: HashMap<(PathBuf, String), Vec<(String, RelPath)>> = HashMap::new();
    for rel in rels {
        let Some(name) = rel.file_name() else {
            continue;
        };
        let parent = rel.parent().unwrap_or(Path::new("")).to_path_buf();
        let folded = String::from_utf8_lossy(name.as_bytes()).to_lowercase();
        groups
            .entry((parent, folded))
            .or_default()
            .push((escape_path(rel), RelPath::from(*rel)));
    }
    let mut out: Vec<Vec<(String, RelPath)>> = groups
        .into_values()
        .filter(|g| g.len() > 1)
        .map(|mut g| {
            g.sort_by(|a, b| a.0.cmp(&b.0));
            g
        })
        .collect();
    out.sort_by(|a, b| a.iter().map(|n| &n.0).cmp(b.iter().map(|n| &n.0)));
    out.into_iter()
        .map(|g| g.into_iter().map(|(_, rel)| rel).collect())
        .collect()
}
