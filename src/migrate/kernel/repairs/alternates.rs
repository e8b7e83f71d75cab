//! A repository that borrows objects (`objects/info/alternates`, as `git clone --shared` or
//! `--reference` leaves it) names the store it borrows from by absolute path. Copied along, the
//! copy's history still lives partly at the old place: it reads fine until `--remove-source`
//! takes the old place, and then the copy says `fatal: bad object HEAD`. So a borrowed store
//! inside the old place is made the copy's own (`git repack -a -d`, which packs what it
//! borrows, as `git clone --dissociate` does) and the pointer is dropped. A store outside both
//! places is the person's setup: left as it is, and named.

use super::fixups::{Fixed, FixupAdvice, FixupReport};
use crate::host::git;
use std::path::{Path, PathBuf};

/// The alternates file of the repository whose git folder is `git_dir`.
fn file_of(git_dir: &Path) -> PathBuf {
    git_dir.join("objects").join("info").join("alternates")
}

/// An alternates file is a few lines; anything larger is not one git wrote.
const ALTERNATES_LIMIT: u64 = 64 * 1024;

/// The object stores `git_dir`'s alternates name, as git resolves them (a relative line is
/// relative to the objects folder); empty when it borrows nothing or the file is no regular
/// file.
pub fn borrowed(git_dir: &Path) -> Vec<PathBuf> {
    let file = file_of(git_dir);
    let Ok(text) = crate::base::input::read_text(&file, ALTERNATES_LIMIT, "git alternates") else {
        return Vec::new();
    };
    let objects = git_dir.join("objects");
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(|line| objects.join(line))
        .collect()
}

/// Whether any store `git_dir` borrows from lies inside `place`.
pub fn borrows_from(git_dir: &Path, place: &Path) -> bool {
    borrowed(git_dir)
        .iter()
        .any(|store| crate::base::pathtext::lexically_inside(store, place))
}

/// Makes the repository `repo` at the copy own every object it borrows from inside the old
/// place `source`, then drops those lines (the file with them when none is left).
pub fn make_own(source: &Path, repo: &Path, report: &mut FixupReport) {
    let git_dir = repo.join(".git");
    if !git_dir.is_dir() {
        return;
    }
    let stores = borrowed(&git_dir);
    let (inside, outside): (Vec<PathBuf>, Vec<PathBuf>) = stores
        .into_iter()
        .partition(|store| crate::base::pathtext::lexically_inside(store, source));
    if inside.is_empty() {
        return;
    }
    let started = std::time::Instant::now();
    let packed = git::defuse(repo).and_then(|defused| {
        let mut cmd = git::in_repo(repo, &defused);
        cmd.args(["repack", "-a", "-d", "-q"]);
        git::run(cmd, git::work_limit(None)).map_err(|stop| stop.sentence("git repack", repo))
    });
    let failed = match packed {
        Ok(out) if out.status.success() => None,
        Ok(out) => Some(format!(
            "git repack -a -d failed: {}",
            git::first_line(&out.stderr)
        )),
        Err(why) => Some(why),
    };
    if let Some(why) = failed {
        report.advice.push(FixupAdvice::StillBorrows {
            repo: repo.to_path_buf(),
            why,
        });
        return;
    }
    let rest: String = outside
        .iter()
        .map(|store| format!("{}\n", store.display()))
        .collect();
    let file = file_of(&git_dir);
    let written = match rest.is_empty() {
        true => std::fs::remove_file(&file),
        false => crate::base::input::replace_whole(&file, rest.as_bytes(), None),
    };
    match written {
        Ok(()) => report.done.push(Fixed::ObjectsMadeOwn {
            repo: repo.to_path_buf(),
            borrowed: inside,
            ms: started.elapsed().as_millis(),
        }),
        Err(e) => report.advice.push(FixupAdvice::StillBorrows {
            repo: repo.to_path_buf(),
            why: format!("{} could not be rewritten ({e})", file.display()),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alternates_lines_resolve_against_the_objects_folder() {
        let tmp = tempfile::tempdir().unwrap();
        let git_dir = tmp.path().join("copy/.git");
        std::fs::create_dir_all(git_dir.join("objects/info")).unwrap();
        std::fs::write(
            file_of(&git_dir),
            "/win/app/.git/objects\n# a comment\n\n../../../elsewhere/objects\n",
        )
        .unwrap();
        let stores = borrowed(&git_dir);
        assert_eq!(stores.len(), 2, "{stores:?}");
        assert!(borrows_from(&git_dir, Path::new("/win/app")));
        assert!(!borrows_from(&git_dir, Path::new("/win/other")));
        assert!(borrows_from(&git_dir, &tmp.path().join("elsewhere")));
    }
}
