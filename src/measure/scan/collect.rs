//! What the walker gathered, moved into the report: the counters, the largest folders and
//! subtrees, the dependency trees with their samples, and the git directory's figures.

use super::walk::{self, Subtree, Tag, Walker};
use super::{DependencyKind, DependencyTree, DirFiles, GitReport, ScanReport, Unreadable};
use crate::base::pathtext::RelPath;
use std::path::{Path, PathBuf};

pub(super) fn take<T>(m: &std::sync::Mutex<Vec<T>>) -> Vec<T> {
    m.lock()
        .map(|mut v| std::mem::take(&mut *v))
        .unwrap_or_default()
}

fn dir_files(path: &Path, sub: &Subtree) -> DirFiles {
    DirFiles {
        path: RelPath::from(path),
        files: sub.estimate.files,
        estimated: !sub.complete,
    }
}

/// Moves what the walker gathered into the report.
pub(super) fn collect(
    walker: &Walker,
    report: &mut ScanReport,
    git: Option<&mut GitReport>,
    outside: Option<Subtree>,
) {
    collect_counters(walker, report);
    report.largest_dirs = largest_dirs(walker);
    report.largest_subtrees = largest_subtrees(walker);
    collect_tagged(walker, report, git, outside);
}

/// The walker's counters, the nested repositories and the directories it could not read.
fn collect_counters(walker: &Walker, report: &mut ScanReport) {
    use std::sync::atomic::Ordering::Relaxed;
    report.hardlinks = walker.hardlinks.load(Relaxed);
    report.unvisited_dirs = walker.unvisited_dirs.load(Relaxed);
    report.totals_unknown = walker.unguessed_dirs.load(Relaxed) > 0;
    report.unstatted_files = walker.unstatted_files.load(Relaxed);
    report.index_sized_files = walker.index_sized.load(Relaxed);
    report.errors = walker.errors.load(Relaxed);
    report.nested_git = take(&walker.nested_git);
    report.nested_git.sort();

    let mut unreadable: Vec<(PathBuf, String)> = take(&walker.unreadable);
    unreadable.sort();
    report.unreadable_dirs = unreadable
        .into_iter()
        .map(|(path, error)| Unreadable {
            path: RelPath(path),
            error,
        })
        .collect();
}

/// The directories with the most files directly in them; the root is ".".
fn largest_dirs(walker: &Walker) -> Vec<DirFiles> {
    let largest: Vec<(u64, PathBuf)> = take(&walker.largest);
    largest
        .into_iter()
        .map(|(files, path)| DirFiles {
            path: if path.as_os_str().is_empty() {
                RelPath::from(Path::new("."))
            } else {
                RelPath(path)
            },
            files,
            estimated: false,
        })
        .collect()
}

/// The root's children with the most files below them, at most `walk::TOP`.
fn largest_subtrees(walker: &Walker) -> Vec<DirFiles> {
    let top: Vec<(std::ffi::OsString, Option<Subtree>)> = take(&walker.top);
    let mut subtrees: Vec<DirFiles> = top
        .iter()
        .filter_map(|(name, sub)| sub.as_ref().map(|s| dir_files(Path::new(name), s)))
        .filter(|d| d.files > 0)
        .collect();
    subtrees.sort_by(|a, b| b.files.cmp(&a.files).then_with(|| a.path.cmp(&b.path)));
    subtrees.truncate(walk::TOP);
    subtrees
}

/// The tagged trees: dependency trees into the report, the git directory's figures into `git`
/// (`outside`: the git directory's subtree when it was walked apart from the root).
fn collect_tagged(
    walker: &Walker,
    report: &mut ScanReport,
    git: Option<&mut GitReport>,
    outside: Option<Subtree>,
) {
    let mut tagged: Vec<walk::Tagged> = take(&walker.tagged);
    tagged.sort_by(|a, b| a.path.cmp(&b.path));
    let mut git_dir = outside;
    let (mut objects, mut packs) = (None, None);
    for t in tagged {
        match t.tag {
            Tag::Dependency(kind) => {
                let tree = dependency_tree(kind, t);
                report.sampled |= tree.sample.is_some();
                if kind == DependencyKind::NodeModules {
                    report.node_modules.push(tree);
                } else {
                    report.dependency_trees.push(tree);
                }
            }
            Tag::GitDir => git_dir = Some(t.subtree),
            Tag::GitObjects => objects = Some(t.subtree),
            Tag::GitPacks => packs = Some(t.subtree),
        }
    }
    if let (Some(git), Some(dir)) = (git, git_dir) {
        report.git_dir_bytes = Some(dir.estimate.bytes);
        git_figures(git, dir, objects, packs);
    }
}

fn dependency_tree(kind: DependencyKind, t: walk::Tagged) -> DependencyTree {
    DependencyTree {
        path: t.path.clone(),
        kind,
        files: t.subtree.estimate.files,
        dirs: t.subtree.estimate.dirs,
        bytes: t.subtree.estimate.bytes,
        symlinks: t.subtree.estimate.symlinks,
        estimated: !t.subtree.complete,
        counted: t.subtree.counted,
        reached: t.visited,
        sample: t.sample,
        reused: t.reused,
        stamp: t.stamp,
    }
}

/// The git directory's files, and its packs' and loose objects' sizes, from their subtrees.
fn git_figures(
    git: &mut GitReport,
    dir: Subtree,
    objects: Option<Subtree>,
    packs: Option<Subtree>,
) {
    git.git_dir_files = Some(dir.estimate.files);
    git.git_dir_dirs = Some(dir.estimate.dirs + 1);
    git.estimated = !dir.complete;
    let pack = packs.map_or(0, |p| p.estimate.bytes);
    git.pack_bytes = Some(pack);
    if let Some(o) = objects {
        git.loose_object_bytes = Some(o.estimate.bytes.saturating_sub(pack));
        git.loose_object_files = Some(
            o.estimate
                .files
                .saturating_sub(packs.map_or(0, |p| p.estimate.files)),
        );
    }
}
