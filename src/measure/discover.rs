//! Finding the git repositories below a folder: one listing per directory outside repositories,
//! sibling folders listed in parallel, symlinks never followed (so nothing outside the folder is
//! reached), all within a time budget. The search stops at a repository's root: what a
//! repository holds (its submodules and nested repositories) is noted by its own scan, which
//! lists every directory of it anyway ([`nested_in`]), so no tree is walked twice.

use crate::base::interrupt;
use crate::measure::scan;
use rayon::prelude::*;
use serde::Serialize;
use std::collections::BTreeMap;
use std::collections::HashSet;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// A repository inside another one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Nested {
    /// Relative to the outer repository's root.
    #[serde(with = "crate::base::pathtext::json")]
    pub path: PathBuf,
    pub kind: NestedKind,
}

/// What a repository inside another one is to it (serialized `submodule`, `repository`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum NestedKind {
    /// A gitlink in the index, listed in `.gitmodules`, or a `.git` file.
    Submodule,
    /// A repository of its own, which the outer one does not track.
    Repository,
}

/// A repository found below the folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Found {
    #[serde(with = "crate::base::pathtext::json")]
    pub root: PathBuf,
}

/// What the search found and what it cost.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Discovery {
    /// Outermost repositories, sorted by path.
    #[serde(skip)]
    pub repositories: Vec<Found>,
    /// Folders listed: those outside repositories and each repository's root.
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

/// A `.git` inside these is a package's, not the user's: not listed as nested.
const DEPENDENCY_TREES: &[&str] = &["node_modules", ".venv", "target"];

/// Folders listed at once: a listing on a slow mount is mostly waiting, as in the scan.
const THREADS: usize = 16;

/// The search's shared state while folders are listed in parallel.
struct Search {
    deadline: Instant,
    stopped: AtomicBool,
    found: Mutex<Vec<PathBuf>>,
    listed: AtomicU64,
    symlinks: AtomicU64,
    unreadable: AtomicU64,
}

impl Search {
    fn visit(&self, path: PathBuf) {
        if self.stopped.load(Ordering::Relaxed)
            || Instant::now() >= self.deadline
            || interrupt::requested()
        {
            self.stopped.store(true, Ordering::Relaxed);
            return;
        }
        let Ok(entries) = std::fs::read_dir(&path) else {
            self.unreadable.fetch_add(1, Ordering::Relaxed);
            return;
        };
        self.listed.fetch_add(1, Ordering::Relaxed);
        let mut subdirs: Vec<OsString> = Vec::new();
        let mut symlinks = 0;
        for entry in entries.filter_map(|e| e.ok()) {
            let Ok(file_type) = entry.file_type() else {
                continue;
            };
            let name = entry.file_name();
            if name == ".git" {
                // A repository: its scan lists the rest of it, so the search goes no deeper.
                if let Ok(mut found) = self.found.lock() {
                    found.push(path);
                }
                return;
            } else if file_type.is_symlink() {
                symlinks += 1;
            } else if file_type.is_dir() {
                subdirs.push(name);
            }
        }
        self.symlinks.fetch_add(symlinks, Ordering::Relaxed);
        subdirs
            .into_par_iter()
            .for_each(|name| self.visit(path.join(name)));
    }
}

/// Searches `dir` (canonical) for repositories, for at most `budget`.
pub fn discover(dir: &Path, budget: Duration) -> Discovery {
    let start = Instant::now();
    let search = Search {
        deadline: start + budget,
        stopped: AtomicBool::new(false),
        found: Mutex::new(Vec::new()),
        listed: AtomicU64::new(0),
        symlinks: AtomicU64::new(0),
        unreadable: AtomicU64::new(0),
    };
    scan::with_threads(THREADS, || search.visit(dir.to_path_buf()));
    let mut roots = search.found.into_inner().unwrap_or_default();
    roots.sort();
    Discovery {
        repositories: roots.into_iter().map(|root| Found { root }).collect(),
        directories_listed: search.listed.into_inner(),
        symlinks_skipped: search.symlinks.into_inner(),
        unreadable: search.unreadable.into_inner(),
        complete: !search.stopped.into_inner(),
        budget_ms: budget.as_millis() as u64,
        elapsed_ms: start.elapsed().as_millis() as u64,
    }
}

/// What a repository holds, from what its index and its own scan say: every gitlink in the
/// index (a submodule, checked out or not) and every folder the scan met holding `.git`
/// (`scanned`: path relative to the root, and whether that `.git` is a directory), which is a
/// submodule when the index or `.gitmodules` names it or its `.git` is a file, else a
/// repository of its own. Sorted by path.
pub fn nested_in(root: &Path, gitlinks: &[PathBuf], scanned: &[(PathBuf, bool)]) -> Vec<Nested> {
    let listed = gitmodules_paths(root);
    let mut nested: BTreeMap<PathBuf, NestedKind> = gitlinks
        .iter()
        .map(|path| (path.clone(), NestedKind::Submodule))
        .collect();
    let in_dependency_tree = |path: &Path| {
        path.components()
            .any(|c| DEPENDENCY_TREES.iter().any(|tree| c.as_os_str() == *tree))
    };
    for (path, git_is_dir) in scanned.iter().filter(|(p, _)| !in_dependency_tree(p)) {
        let submodule = !git_is_dir || listed.contains(path) || nested.contains_key(path);
        nested.insert(
            path.clone(),
            if submodule {
                NestedKind::Submodule
            } else {
                NestedKind::Repository
            },
        );
    }
    nested
        .into_iter()
        .map(|(path, kind)| Nested { path, kind })
        .collect()
}

/// The `path = ...` entries of a repository's `.gitmodules`.
fn gitmodules_paths(root: &Path) -> HashSet<PathBuf> {
    crate::base::repo_file::manifest(root, ".gitmodules")
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
    fn finds_outer_repositories_without_entering_them() {
        let dir = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(dir.path()).unwrap();
        repo(&root.join("a"));
        repo(&root.join("group/b"));
        // Inside `a`: what its scan notes, never listed by the search.
        repo(&root.join("a/vendor/lib"));
        fs::create_dir_all(root.join("a/deep/er/still")).unwrap();
        fs::create_dir_all(root.join("plain/docs")).unwrap();
        let outside = tempfile::tempdir().unwrap();
        repo(&outside.path().join("elsewhere"));
        std::os::unix::fs::symlink(outside.path(), root.join("link")).unwrap();

        let found = discover(&root, Duration::from_secs(10));
        assert!(found.complete);
        assert_eq!(found.symlinks_skipped, 1);
        let roots: Vec<_> = found.repositories.iter().map(|f| f.root.clone()).collect();
        assert_eq!(roots, vec![root.join("a"), root.join("group/b")]);
        // root, a, group, group/b, plain, plain/docs: each repository's root and nothing below.
        assert_eq!(found.directories_listed, 6);
    }

    #[test]
    fn nested_repositories_come_from_the_index_the_scan_and_gitmodules() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::write(
            root.join(".gitmodules"),
            "[submodule \"old\"]\n\tpath = ext/old\n\turl = ../old\n",
        )
        .unwrap();
        let nested = nested_in(
            root,
            &[PathBuf::from("ext/sub")],
            &[
                (PathBuf::from("ext/sub"), false),
                (PathBuf::from("ext/old"), true),
                (PathBuf::from("vendor/lib"), true),
                (PathBuf::from("tools/linked"), false),
                (PathBuf::from("web/node_modules/pkg"), true),
            ],
        );
        let kinds: Vec<(&str, NestedKind)> = nested
            .iter()
            .map(|n| (n.path.to_str().unwrap(), n.kind))
            .collect();
        assert_eq!(
            kinds,
            vec![
                ("ext/old", NestedKind::Submodule),
                ("ext/sub", NestedKind::Submodule),
                ("tools/linked", NestedKind::Submodule),
                ("vendor/lib", NestedKind::Repository),
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
