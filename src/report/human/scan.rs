//! What the repository holds: tracked files apart from git's own and from dependency trees.

use super::{Screen, Tone};
use crate::base::reason::Worded;
use crate::base::units::{self, count, counted};
use crate::measure::gitindex::RepoKind;
use crate::measure::scan::{DependencyTree, ScanReport};

/// Dependency and build trees listed by name; the rest are summed up.
const TREES_SHOWN: usize = 4;

fn approx(estimated: bool) -> &'static str {
    if estimated { "~" } else { "" }
}

pub fn rows(screen: &mut Screen, scan: &ScanReport) {
    let git = scan.git.as_ref();
    let git_files = git
        .filter(|g| g.git_dir_inside_root)
        .and_then(|g| g.git_dir_files);
    if let Some(tracked) = scan.tracked {
        screen.row(
            "tracked by git",
            &counted(tracked, "file", "files"),
            Tone::Plain,
        );
    }
    let verbose = screen.style().verbose;
    if let Some(g) = git {
        git_rows(screen, scan, g, git_files, verbose);
    }
    trees(screen, scan);
    screen.row("everything", &everything(scan), Tone::Plain);
    if let Some(d) = most_files_in(scan).filter(|_| verbose) {
        screen.row(
            "most files in",
            &format!(
                "{} ({} directly in it)",
                d.path.as_path().to_string_lossy(),
                counted(d.files, "file", "files")
            ),
            Tone::Plain,
        );
    }
    problems(screen, scan);
}

/// The folder with the most files directly in it, outside the dependency trees: a tree reused
/// from an earlier check is not walked, so counting its folders made the answer flip between
/// runs (and the trees have their own row). Ties go to the first name.
fn most_files_in(scan: &ScanReport) -> Option<&crate::measure::scan::DirFiles> {
    let trees: Vec<&std::path::Path> = scan
        .node_modules
        .iter()
        .chain(&scan.dependency_trees)
        .map(|t| t.path.as_path())
        .collect();
    let mut outside: Vec<&crate::measure::scan::DirFiles> = scan
        .largest_dirs
        .iter()
        .filter(|d| !trees.iter().any(|t| d.path.as_path().starts_with(t)))
        .collect();
    outside.sort_by(|a, b| b.files.cmp(&a.files).then_with(|| a.path.cmp(&b.path)));
    outside.first().copied()
}

/// The tree's totals. When the scan stopped with nothing to extrapolate from, what it saw is
/// no estimate of the whole: a "~" before it would pass a floor off as a figure.
fn everything(scan: &ScanReport) -> String {
    let scanned_in = units::duration_ms(scan.elapsed_ms as f64);
    if scan.totals_unknown {
        return format!(
            "unknown: the scan saw only {}, {} and {} (scanned in {scanned_in})",
            counted(scan.counted.files, "file", "files"),
            counted(scan.counted.dirs, "directory", "directories"),
            units::bytes(scan.counted.bytes),
        );
    }
    let a = approx(!scan.complete || scan.sampled);
    let mut whole = format!(
        "{a}{}, {a}{}",
        counted(scan.totals.files, "file", "files"),
        counted(scan.totals.dirs, "directory", "directories"),
    );
    if scan.totals.symlinks > 0 {
        whole.push_str(&format!(
            ", {a}{}",
            counted(scan.totals.symlinks, "symlink", "symlinks")
        ));
    }
    whole.push_str(&format!(
        ", {a}{} (scanned in {scanned_in})",
        units::bytes(scan.totals.bytes),
    ));
    whole
}

fn git_rows(
    screen: &mut Screen,
    scan: &ScanReport,
    git: &crate::measure::scan::GitReport,
    git_files: Option<u64>,
    verbose: bool,
) {
    let kind = match git.kind {
        RepoKind::Repository => "git repository",
        RepoKind::LinkedWorktree => "linked git worktree",
        RepoKind::Submodule => "git submodule",
        RepoKind::SeparateGitDir => "git repository (separate git directory)",
    };
    if let Some(e) = git.error.as_ref() {
        screen.row("git", &format!("broken .git: {}", e.sentence()), Tone::Bad);
        return;
    }
    if let Some(e) = git.index_error.as_ref() {
        let row = format!("{kind}, index unreadable: {}", e.sentence());
        screen.row("git", &row, Tone::Bad);
    }
    let mut notes = Vec::new();
    if let Some(i) = &git.index {
        if i.split {
            notes.push("split index".to_string());
        }
        if i.sparse {
            notes.push(format!(
                "sparse: {} tracked entries are whole directories",
                count(i.sparse_dirs)
            ));
        }
    }
    // A plain repository's git folder is a detail; what is unusual about it is not.
    let unusual = !notes.is_empty() || git.kind != RepoKind::Repository;
    let Some(bytes) = scan.git_dir_bytes.filter(|_| verbose || unusual) else {
        return;
    };
    let a = approx(git.estimated);
    let mut line = match git_files {
        Some(files) => format!(
            "{a}{}, {a}{}",
            counted(files, "file", "files"),
            units::bytes(bytes)
        ),
        None => format!("{a}{}", units::bytes(bytes)),
    };
    line.push_str(if git.git_dir_inside_root {
        " in .git"
    } else {
        " outside this directory"
    });
    if git.kind != RepoKind::Repository {
        notes.insert(0, kind.to_string());
    }
    if !notes.is_empty() {
        line.push_str(&format!(" ({})", notes.join("; ")));
    }
    screen.row("git metadata", &line, Tone::Plain);
}

fn trees(screen: &mut Screen, scan: &ScanReport) {
    let mut trees: Vec<&DependencyTree> = scan
        .node_modules
        .iter()
        .chain(&scan.dependency_trees)
        .collect();
    trees.sort_by_key(|t| std::cmp::Reverse(t.files));
    for (i, t) in trees.iter().take(TREES_SHOWN).enumerate() {
        let mut value = format!(
            "{}: {}",
            crate::base::pathtext::display(&t.path),
            units::tree(
                t.files,
                t.symlinks,
                t.bytes,
                t.estimated || t.sample.is_some()
            )
        );
        let mut how = Vec::new();
        if let Some(sample) = &t.sample {
            how.push(sampled(sample));
        }
        if t.reused {
            how.push("as an earlier check found it: no install since".to_string());
        }
        if !how.is_empty() {
            value.push_str(&format!(" ({})", how.join("; ")));
        }
        if i == 0 {
            screen.row("dependencies", &value, Tone::Plain);
        } else {
            screen.more(&value, Tone::Plain);
        }
    }
    if trees.len() > TREES_SHOWN {
        screen.more(
            &format!(
                "and {} more (--format json lists them)",
                trees.len() - TREES_SHOWN
            ),
            Tone::Dim,
        );
    }
}

/// How a dependency tree's figures were obtained, the files' and the sizes' apart: "estimated
/// from 48 of 800 packages, files within ±8%, sizes from 1 file in 4"; "files counted in all
/// 333 packages" when every package was walked. A size taken from one file in four has no
/// stated bound, so none is claimed for it.
pub fn sampled(sample: &crate::measure::scan::DependencySample) -> String {
    let files = if sample.walked >= sample.packages {
        format!("files counted in all {} packages", count(sample.packages))
    } else {
        format!(
            "estimated from {} of {} packages, files within ±{:.0}%",
            count(sample.walked),
            count(sample.packages),
            (sample.files_error * 100.0).max(1.0)
        )
    };
    let sizes = match sample.sized_every {
        0 => String::new(),
        1 => format!(
            ", bytes within ±{:.0}%",
            (sample.bytes_error * 100.0).max(1.0)
        ),
        n => format!(", sizes from 1 file in {n}"),
    };
    format!("{files}{sizes}; --exact walks them all")
}

/// Names only what the budget really left out: a walk that listed every directory but sized
/// only some files must not read as if directories were skipped.
fn estimated_row(scan: &ScanReport) -> String {
    let mut left_out = Vec::new();
    if scan.unvisited_dirs > 0 {
        left_out.push(format!(
            "{} not listed",
            counted(scan.unvisited_dirs, "directory was", "directories were")
        ));
    }
    if scan.unstatted_files > 0 {
        left_out.push(format!(
            "{} not sized",
            counted(scan.unstatted_files, "file was", "files were")
        ));
    }
    let left_out = if left_out.is_empty() {
        String::new()
    } else {
        format!("; {}", left_out.join(" and "))
    };
    let (figures, nothing_to_go_by) = if scan.totals_unknown {
        (
            "",
            ", before any directory was listed to estimate the rest from",
        )
    } else {
        ("figures above: ", "")
    };
    format!(
        "{figures}the scan budget ({} ms) ran out after {}, {} and {}{nothing_to_go_by}{left_out} (--scan-budget-ms raises it)",
        count(scan.budget_ms),
        counted(scan.counted.files, "file", "files"),
        counted(scan.counted.dirs, "directory", "directories"),
        units::bytes(scan.counted.bytes),
    )
}

fn problems(screen: &mut Screen, scan: &ScanReport) {
    if !scan.complete {
        let label = if scan.totals_unknown {
            "unknown"
        } else {
            "estimated"
        };
        screen.row(label, &estimated_row(scan), Tone::Warn);
    }
    if let Some(e) = scan.error.as_ref() {
        screen.row("error", &e.sentence(), Tone::Bad);
    }
    if let Some(first) = scan.unreadable_dirs.first() {
        screen.row(
            "unreadable",
            &format!(
                "{} could not be read (first: {}: {})",
                counted(
                    scan.unreadable_dirs.len() as u64,
                    "directory",
                    "directories"
                ),
                first.path.as_path().to_string_lossy(),
                first.error
            ),
            Tone::Warn,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_estimated_row_names_only_what_the_budget_left_out() {
        let mut scan = ScanReport {
            budget_ms: 3000,
            unstatted_files: 1,
            ..ScanReport::default()
        };
        let row = estimated_row(&scan);
        assert!(row.contains("; 1 file was not sized ("), "{row}");
        assert!(!row.contains("not listed"), "{row}");
        scan.unvisited_dirs = 2;
        scan.unstatted_files = 0;
        let row = estimated_row(&scan);
        assert!(row.contains("; 2 directories were not listed ("), "{row}");
        assert!(!row.contains("sized"), "{row}");
    }

    #[test]
    fn totals_with_nothing_to_estimate_from_are_unknown_not_approximate() {
        let mut scan = ScanReport {
            totals: crate::base::counts::TreeCounts {
                files: 1,
                ..Default::default()
            },
            counted: crate::measure::scan::Counts {
                files: 1,
                dirs: 3,
                ..Default::default()
            },
            ..ScanReport::default()
        };
        assert!(everything(&scan).starts_with("~1 file, ~0 directories"));
        scan.totals_unknown = true;
        let line = everything(&scan);
        assert!(
            line.starts_with("unknown: the scan saw only 1 file, 3 directories and 0 B"),
            "{line}"
        );
        assert!(!line.contains('~'), "{line}");
    }
}
