//! The scan section of the human report.

use super::Style;
use crate::gitindex::RepoKind;
use crate::scan::{DependencyTree, ScanReport};
use crate::units::{bytes as size, count};
use std::fmt::Write;

fn approx(estimated: bool) -> &'static str {
    if estimated { "~" } else { "" }
}

pub fn section(out: &mut String, scan: &ScanReport, style: &Style) {
    let a = approx(scan.estimated);
    let _ = writeln!(
        out,
        "  scan     {a}{} files, {a}{} directories, {a}{} symlinks, {a}{} in {:.1} s",
        count(scan.files),
        count(scan.dirs),
        count(scan.symlinks),
        size(scan.bytes),
        scan.elapsed_ms as f64 / 1000.0
    );
    if scan.estimated {
        let line = format!(
            "ESTIMATED: the {} ms scan budget ran out; counted {} files, {} directories, {}; \
             {} directories not listed (--scan-budget-ms raises it)",
            scan.budget_ms,
            count(scan.counted.files),
            count(scan.counted.dirs),
            size(scan.counted.bytes),
            count(scan.unvisited_dirs)
        );
        let _ = writeln!(out, "           {}", style.warn(&line));
    }
    if let Some(e) = &scan.error {
        let _ = writeln!(out, "           {}", style.bad(e));
    }
    if !scan.unreadable_dirs.is_empty() {
        let first = &scan.unreadable_dirs[0];
        let _ = writeln!(
            out,
            "           {}",
            style.warn(&format!(
                "{} directories could not be read (first: {}: {})",
                scan.unreadable_dirs.len(),
                first.path,
                first.error
            ))
        );
    }
    git_line(out, scan, style);
    dependency_lines(out, scan, style);
    if let Some(d) = scan.largest_dirs.first() {
        let _ = writeln!(
            out,
            "  largest  {} ({} files directly in it)",
            d.path,
            count(d.files)
        );
    }
}

/// What kind of repository, how many tracked entries, how large `.git` is.
fn git_line(out: &mut String, scan: &ScanReport, style: &Style) {
    if let Some(git) = &scan.git {
        let kind = match git.kind {
            RepoKind::Repository => "git repository",
            RepoKind::LinkedWorktree => "linked git worktree",
            RepoKind::Submodule => "git submodule",
            RepoKind::SeparateGitDir => "git repository (separate git dir)",
        }
        .to_string();
        let mut line = match (&git.index, &git.index_error, &git.error) {
            (_, _, Some(e)) => style.bad(&format!("broken .git: {e}")),
            (_, Some(e), _) => style.bad(&format!("{kind}, index unreadable: {e}")),
            (Some(i), _, _) => {
                let mut l = format!("{kind}, {} tracked entries", count(i.entries_under_root));
                if i.split {
                    l.push_str(" (split index)");
                }
                if i.sparse {
                    let _ = write!(
                        l,
                        " (sparse index: {} entries are whole directories)",
                        i.sparse_dirs
                    );
                }
                l
            }
            (None, None, None) => kind,
        };
        if let Some(bytes) = scan.git_dir_bytes {
            let _ = write!(line, ", git dir {}{}", approx(git.estimated), size(bytes));
            if let Some(packs) = git.pack_bytes {
                let _ = write!(line, " (packs {})", size(packs));
            }
        }
        let _ = writeln!(out, "  git      {line}");
    }
}

/// The largest dependency trees, six at most.
fn dependency_lines(out: &mut String, scan: &ScanReport, style: &Style) {
    let trees: Vec<&DependencyTree> = scan
        .node_modules
        .iter()
        .chain(&scan.dependency_trees)
        .collect();
    let mut trees = trees;
    trees.sort_by_key(|t| std::cmp::Reverse(t.files));
    for (i, t) in trees.iter().take(6).enumerate() {
        let label = if i == 0 { "deps" } else { "" };
        let _ = writeln!(
            out,
            "  {label:<8} {}  {}{} files, {}{}",
            t.path.display(),
            approx(t.estimated),
            count(t.files),
            approx(t.estimated),
            size(t.bytes)
        );
    }
    if trees.len() > 6 {
        let _ = writeln!(
            out,
            "           {}",
            style.dim(&format!("and {} more (see --format json)", trees.len() - 6))
        );
    }
}
