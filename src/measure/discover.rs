//! Finding the git repositories below a folder: one listing per directory, symlinks never
//! followed (so nothing outside the folder is reached), and inside a repository only far enough to
//! note its submodules and nested repositories, all within a time budget.

use serde::Serialize;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A repository inside another one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Nested {
    /// Relative to the outer repository's root.
    #[serde(with = "crate::base::pathtext::json")]
    pub path: PathBuf,
    /// `submodule` (listed in `.gitmodules`, or a `.git` file) or `repository`.
    pub kind: &'static str,
}

/// A repository found below the folder: its root and what it holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Found {
    #[serde(with = "crate::base::pathtext::json")]
    pub root: PathBuf,
    pub nested: Vec<Nested>,
}

/// What the search found and what it cost.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Discovery {
    /// Outermost repositories, sorted by path.
    #[serde(skip)]
    pub repositories: Vec<Found>,
    pub directories_listed: u64,
    /// Symbolic links met and not followed.
    pub symlinks_skipped: u64,
    /// Directories that could not be listed.
    pub unreadable: u64,
    /// False when the budget ran out before every directory was listed.
    pub complete: bool,
    pub budget_ms: u64,
    pub elapsed_ms: u64,
}

/// Dependency trees are never searched inside a repository: nothing there is the user's.
const SKIPPED_INSIDE_REPOSITORIES: &[&str] = &["node_modules", ".venv", "target"];

/// Searches `dir` (canonical) for repositories, for at most `budget`.
pub fn discover(dir: &Path, budget: Duration) -> Discovery {
    let start = Instant::now();
    let mut found: Vec<Found> = Vec::new();
    let mut submodule_paths: Vec<HashSet<PathBuf>> = Vec::new();
    let mut discovery = Discovery {
        repositories: Vec::new(),
        directories_listed: 0,
        symlinks_skipped: 0,
        unreadable: 0,
        complete: true,
        budget_ms: budget.as_millis() as u64,
        elapsed_ms: 0,
    };
    // (directory, index of the outermost repository it is in)
    let mut stack: Vec<(PathBuf, Option<usize>)> = vec![(dir.to_path_buf(), None)];
    while let Some((path, outer)) = stack.pop() {
        if start.elapsed() >= budget {
            discovery.complete = false;
            break;
        }
        let Ok(entries) = std::fs::read_dir(&path) else {
            discovery.unreadable += 1;
            continue;
        };
        discovery.directories_listed += 1;
        let mut subdirs = Vec::new();
        let mut git_entry = None;
        for entry in entries.filter_map(|e| e.ok()) {
            let Ok(file_type) = entry.file_type() else {
                continue;
            };
            let name = entry.file_name();
            if name == ".git" {
                git_entry = Some(file_type.is_dir());
            } else if file_type.is_symlink() {
                discovery.symlinks_skipped += 1;
            } else if file_type.is_dir() {
                subdirs.push(name);
            }
        }
        let outer = match (git_entry, outer) {
            (Some(_), None) => {
                submodule_paths.push(gitmodules_paths(&path));
                found.push(Found {
                    root: path.clone(),
                    nested: Vec::new(),
                });
                Some(found.len() - 1)
            }
            (Some(git_is_dir), Some(index)) => {
                let relative = path
                    .strip_prefix(&found[index].root)
                    .unwrap_or(&path)
                    .to_path_buf();
                let submodule = submodule_paths[index].contains(&relative) || !git_is_dir;
                found[index].nested.push(Nested {
                    path: relative,
                    kind: if submodule { "submodule" } else { "repository" },
                });
                Some(index)
            }
            (None, outer) => outer,
        };
        subdirs.sort();
        // Reversed, so the stack pops them in name order.
        for name in subdirs.into_iter().rev() {
            let inside = outer.is_some();
            if inside && SKIPPED_INSIDE_REPOSITORIES.iter().any(|s| name == *s) {
                continue;
            }
            stack.push((path.join(name), outer));
        }
    }
    for repository in &mut found {
        repository.nested.sort_by(|a, b| a.path.cmp(&b.path));
    }
    found.sort_by(|a, b| a.root.cmp(&b.root));
    discovery.repositories = found;
    discovery.elapsed_ms = start.elapsed().as_millis() as u64;
    discovery
}

/// The `path = ...` entries of a repository's `.gitmodules`.
fn gitmodules_paths(root: &Path) -> HashSet<PathBuf> {
    std::fs::read_to_string(root.join(".gitmodules"))
        .map(|text| parse_gitmodules_paths(&text))
        .unwrap_or_default()
}

fn parse_gitmodules_paths(text: &str) -> HashSet<PathBuf> {
    text.lines()
        .filter_map(|line| {
            let (key, value) = line.split_once('=')?;
            (key.trim() == "path").then(|| PathBuf::from(value.trim().trim_matches('"')))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn repo(path: &Path) {
        fs::create_dir_all(path.join(".git")).unwrap();
    }

    #[test]
    fn finds_outer_repositories_and_notes_what_they_hold() {
        let dir = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(dir.path()).unwrap();
        repo(&root.join("a"));
        repo(&root.join("group/b"));
        repo(&root.join("a/vendor/lib"));
        fs::create_dir_all(root.join("a/ext/sub")).unwrap();
        fs::write(
            root.join("a/ext/sub/.git"),
            "gitdir: ../../.git/modules/sub\n",
        )
        .unwrap();
        fs::write(
            root.join("a/.gitmodules"),
            "[submodule \"sub\"]\n\tpath = ext/sub\n\turl = ../sub\n",
        )
        .unwrap();
        repo(&root.join("a/node_modules/pkg"));
        fs::create_dir_all(root.join("plain/docs")).unwrap();
        let outside = tempfile::tempdir().unwrap();
        repo(&outside.path().join("elsewhere"));
        std::os::unix::fs::symlink(outside.path(), root.join("link")).unwrap();

        let found = discover(&root, Duration::from_secs(10));
        assert!(found.complete);
        assert_eq!(found.symlinks_skipped, 1);
        let roots: Vec<_> = found.repositories.iter().map(|f| f.root.clone()).collect();
        assert_eq!(roots, vec![root.join("a"), root.join("group/b")]);
        assert_eq!(
            found.repositories[0].nested,
            vec![
                Nested {
                    path: PathBuf::from("ext/sub"),
                    kind: "submodule"
                },
                Nested {
                    path: PathBuf::from("vendor/lib"),
                    kind: "repository"
                },
            ]
        );
    }

    #[test]
    fn a_spent_budget_says_so() {
        let dir = tempfile::tempdir().unwrap();
        repo(&dir.path().join("a"));
        let found = discover(dir.path(), Duration::ZERO);
        assert!(!found.complete);
        assert!(found.repositories.is_empty());
    }

    #[test]
    fn gitmodules_paths_are_read() {
        let paths = parse_gitmodules_paths("[submodule \"x\"]\n  path = libs/x\n  url = u\n");
        assert!(paths.contains(Path::new("libs/x")));
    }
}
