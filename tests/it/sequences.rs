//! A model-based property test of what happens after the move (issue 36): random sequences of
//! migrate, edits at either place, folders swapped for links (into the copy, out of both trees)
//! or files, `--remove-source`, `--sync`, `--abort`, the source made again empty, and the copy
//! moved away with another repository put in its place. The model keeps every version of every
//! file a person wrote (each content unique) and drops a version only when that person
//! overwrote or deleted it. After every step, every version kept is still reachable from the
//! copy (wherever it was moved), the source, or what they link to; and no run of the tool wrote
//! outside the two trees (a sibling folder, where the links lead, and the other repository).
//!
//! Issue 50 adds git: commits and branches at either place, `branch -D` and `gc --prune=now` at
//! the old place, changes staged at the copy, a virtualenv at the repository's root, and the
//! invariants of `history` (commits, the staging area, `git fsck`), also checked after every
//! step. `WSL_PLACE_SEQUENCES_CASES` sets the number of cases (200 for the run).

mod history;
mod interrupted;

use crate::nothing_lost::{Place, files};
use crate::support::gitrepo::{git, init_and_commit_all, write};
use crate::support::text;

use crate::support::Outcome;
use proptest::prelude::*;
use proptest::test_runner::{TestCaseError, TestRunner};
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Cases run when `WSL_PLACE_SEQUENCES_CASES` is not set: under a minute in a release build
/// (200 cases took 73 to 89 s there on a shared 2-core machine; a debug build is about as fast,
/// the runs of the binary and of git being most of it).
const DEFAULT_CASES: u32 = 120;

/// The paths edits choose from: the repository's own files and two new ones.
const PATHS: [&str; 7] = [
    "docs/d1.md",
    "docs/d2.md",
    "docs/d3.md",
    "top.txt",
    "b.bin",
    "docs/new.md",
    "new.txt",
];

#[derive(Debug, Clone)]
enum Step {
    Migrate,
    Sync,
    RemoveSource,
    Abort,
    Write {
        at_copy: bool,
        path: usize,
    },
    Delete {
        at_copy: bool,
        path: usize,
    },
    /// `src/docs` removed and made a link to the copy's `docs`: its files live on there.
    SourceDocsLinkIntoCopy,
    /// `src/docs` removed (its files deleted) and made a link to a folder out of both trees.
    SourceDocsLinkOut,
    /// The copy's `docs` moved out of both trees and linked back: its files stay reachable.
    CopyDocsLinkOut,
    /// `docs` removed at one place (its files deleted) and a file written in its place.
    DocsBecomesFile {
        at_copy: bool,
    },
    /// `top.txt` deleted at the source and a folder made in its place.
    TopBecomesFolder,
    /// The source removed whole and made again empty (not a deletion of what it held).
    SourceRecreatedEmpty,
    /// The copy renamed away, and another repository made at its place.
    CopyReplaced,
    /// A few git operations (`history`), which change no file of either work tree: cheap, so
    /// a step holds up to three, for more history between the tool's runs.
    Git(Vec<history::GitStep>),
}

fn step() -> impl Strategy<Value = Step> {
    let at = any::<bool>();
    let path = 0..PATHS.len();
    prop_oneof![
        2 => Just(Step::Migrate),
        6 => Just(Step::Sync),
        2 => Just(Step::RemoveSource),
        2 => Just(Step::Abort),
        4 => (at, path.clone()).prop_map(|(at_copy, path)| Step::Write { at_copy, path }),
        2 => (at, path).prop_map(|(at_copy, path)| Step::Delete { at_copy, path }),
        1 => Just(Step::SourceDocsLinkIntoCopy),
        1 => Just(Step::SourceDocsLinkOut),
        1 => Just(Step::CopyDocsLinkOut),
        1 => at.prop_map(|at_copy| Step::DocsBecomesFile { at_copy }),
        1 => Just(Step::TopBecomesFolder),
        1 => Just(Step::SourceRecreatedEmpty),
        1 => Just(Step::CopyReplaced),
        12 => proptest::collection::vec(history::git_step(PATHS.len()), 1..=3).prop_map(Step::Git),
    ]
}

/// The model: every version a person wrote and has not overwritten or deleted since.
struct Model {
    place: Place,
    kept: BTreeSet<Vec<u8>>,
    written: u64,
    /// Where the copy was renamed to (still the person's copy).
    moved_copies: Vec<PathBuf>,
    /// The repository put at the copy's place, and what it holds: never the tool's to write.
    theirs: Option<BTreeMap<PathBuf, Vec<u8>>>,
}

impl Model {
    fn new(root_venv: bool) -> Model {
        let place = Place::local();
        history::seed(&place.src());
        if root_venv {
            history::note_naming_the_place(&place.src());
        }
        let kept = files(&place.src())
            .into_iter()
            .filter(|(rel, _)| !rel.starts_with(".git"))
            .map(|(_, content)| content)
            .collect();
        // Its files are the tool's to rewrite at the copy, so not versions the model keeps.
        if root_venv {
            history::root_venv(&place.src());
        }
        Model {
            place,
            kept,
            written: 0,
            moved_copies: Vec::new(),
            theirs: None,
        }
    }

    fn root(&self, at_copy: bool) -> PathBuf {
        match at_copy {
            true => self.place.dst(),
            false => self.place.src(),
        }
    }

    /// The version at `path`, as the person reads it (through links), is gone by their hand.
    fn drop_version(&mut self, path: &Path) {
        if let Ok(old) = fs::read(path) {
            self.kept.remove(&old);
        }
    }

    /// The file at `path`, or every file below it, is deleted by the person (through a link
    /// too: the model only asks less then, never more).
    fn drop_tree(&mut self, path: &Path) {
        if fs::metadata(path).is_ok_and(|m| m.is_dir()) {
            for content in files(path).into_values() {
                self.kept.remove(&content);
            }
        } else {
            self.drop_version(path);
        }
    }

    /// Edits at the copy's place are edits of the person's copy only while it is there.
    fn copy_is_theirs(&self, at_copy: bool) -> bool {
        at_copy && (self.theirs.is_some() || !self.place.dst().is_dir())
    }

    /// The copy's place, while it holds the person's copy.
    fn copy(&self) -> Option<PathBuf> {
        Some(self.place.dst()).filter(|dst| self.theirs.is_none() && dst.is_dir())
    }

    fn edit(&mut self, step: &Step) {
        let outside = self.place.outside();
        match step {
            Step::Git(git) => {
                let copy = self.copy();
                for one in git {
                    self.written += 1;
                    let (src, paths) = (self.place.src(), &PATHS);
                    history::apply(one, &src, copy.as_deref(), paths, self.written);
                }
            }
            Step::Write { at_copy, path } => {
                if self.copy_is_theirs(*at_copy) {
                    return;
                }
                let file = self.root(*at_copy).join(PATHS[*path]);
                self.written += 1;
                let content = format!("version {} of {}\n", self.written, PATHS[*path]);
                let parent = file.parent().unwrap();
                if fs::create_dir_all(parent).is_err() || file.is_dir() {
                    return;
                }
                self.drop_version(&file);
                if fs::write(&file, &content).is_ok() {
                    self.kept.insert(content.into_bytes());
                }
            }
            Step::Delete { at_copy, path } => {
                if self.copy_is_theirs(*at_copy) {
                    return;
                }
                let file = self.root(*at_copy).join(PATHS[*path]);
                if fs::symlink_metadata(&file).is_ok_and(|m| m.is_file()) {
                    self.drop_version(&file);
                    fs::remove_file(&file).unwrap();
                }
            }
            Step::SourceDocsLinkIntoCopy => {
                let docs = self.place.src().join("docs");
                if docs.is_dir() && self.place.dst().join("docs").is_dir() {
                    // What only the source's folder had goes with it, by the person's hand.
                    let mut in_copy = HashSet::new();
                    reachable(
                        &self.place.dst().join("docs"),
                        &mut HashSet::new(),
                        &mut in_copy,
                    );
                    for content in files(&docs).into_values() {
                        if !in_copy.contains(&content) {
                            self.kept.remove(&content);
                        }
                    }
                    remove(&docs);
                    std::os::unix::fs::symlink(self.place.dst().join("docs"), &docs).unwrap();
                }
            }
            Step::SourceDocsLinkOut => {
                let docs = self.place.src().join("docs");
                if fs::symlink_metadata(&docs).is_ok() {
                    self.drop_tree(&docs);
                    remove(&docs);
                    let target = outside.join(format!("empty-{}", self.written));
                    fs::create_dir_all(&target).unwrap();
                    std::os::unix::fs::symlink(&target, &docs).unwrap();
                }
            }
            Step::CopyDocsLinkOut => {
                let docs = self.place.dst().join("docs");
                if self.theirs.is_none() && fs::symlink_metadata(&docs).is_ok_and(|m| m.is_dir()) {
                    self.written += 1;
                    let target = outside.join(format!("docs-{}", self.written));
                    fs::rename(&docs, &target).unwrap();
                    std::os::unix::fs::symlink(&target, &docs).unwrap();
                }
            }
            Step::DocsBecomesFile { at_copy } => {
                if self.copy_is_theirs(*at_copy) {
                    return;
                }
                let docs = self.root(*at_copy).join("docs");
                if fs::symlink_metadata(docs.parent().unwrap()).is_err() {
                    return;
                }
                self.drop_tree(&docs);
                remove(&docs);
                self.written += 1;
                let content = format!("docs is a file now, version {}\n", self.written);
                fs::write(&docs, &content).unwrap();
                self.kept.insert(content.into_bytes());
            }
            Step::TopBecomesFolder => {
                let top = self.place.src().join("top.txt");
                if fs::symlink_metadata(&top).is_ok_and(|m| m.is_file()) {
                    self.drop_version(&top);
                    fs::remove_file(&top).unwrap();
                    self.written += 1;
                    let content = format!("inside top.txt, version {}\n", self.written);
                    write(&top.join("inner.txt"), content.as_bytes());
                    self.kept.insert(content.into_bytes());
                }
            }
            Step::SourceRecreatedEmpty => {
                let src = self.place.src();
                // Moved out of both trees by the person: what only the source had is theirs to
                // lose; what the copy has too must live on there.
                let mut in_copy = HashSet::new();
                let mut seen = HashSet::new();
                if self.theirs.is_none() {
                    reachable(&self.place.dst(), &mut seen, &mut in_copy);
                }
                if src.is_dir() {
                    // Through its links too: what a link of the source's reached goes with it
                    // out of view, as the person moved the link with the folder.
                    let mut in_source = HashSet::new();
                    reachable(&src, &mut HashSet::new(), &mut in_source);
                    for content in in_source {
                        if !in_copy.contains(&content) {
                            self.kept.remove(&content);
                        }
                    }
                    self.written += 1;
                    let trash = outside.join(format!("old-source-{}", self.written));
                    fs::rename(&src, &trash).unwrap();
                }
                fs::create_dir_all(&src).unwrap();
            }
            Step::CopyReplaced => {
                let dst = self.place.dst();
                if self.theirs.is_some() || !dst.is_dir() {
                    return;
                }
                let moved = dst.with_file_name(format!("moved-{}", self.moved_copies.len()));
                fs::rename(&dst, &moved).unwrap();
                self.moved_copies.push(moved);
                write(&dst.join("theirs.txt"), b"another project\n");
                init_and_commit_all(&dst, "theirs");
                self.theirs = Some(files(&dst));
            }
            _ => {}
        }
    }

    /// Runs a step of the tool, checking that it wrote nothing outside the two trees: its
    /// output, None when it did not run.
    fn tool(&mut self, step: &Step) -> Result<Option<Outcome>, TestCaseError> {
        let args: &[&str] = match step {
            Step::Migrate => &["--yes"],
            Step::Sync => &["--sync", "--yes"],
            Step::RemoveSource => &["--remove-source", "--yes"],
            Step::Abort => &["--abort", "--yes"],
            _ => return Ok(None),
        };
        if !self.place.src().is_dir() {
            return Ok(None);
        }
        let outside = snapshot(&self.place.outside());
        let out = self.place.migrate(args);
        prop_assert!(
            out.status.code().is_some_and(|c| c != 101),
            "{step:?} panicked: {}",
            text(&out)
        );
        prop_assert_eq!(
            &outside,
            &snapshot(&self.place.outside()),
            "{:?} wrote outside both trees: {}",
            step,
            text(&out)
        );
        if let Some(theirs) = &self.theirs {
            prop_assert_eq!(
                theirs,
                &files(&self.place.dst()),
                "{:?} wrote into the repository at the copy's place: {}",
                step,
                text(&out)
            );
        }
        Ok(Some(out))
    }

    /// Every version kept is reachable from the copy, a moved copy or the source.
    fn check(&self, history: &[Step]) -> Result<(), TestCaseError> {
        let mut found: HashSet<Vec<u8>> = HashSet::new();
        let mut roots = vec![self.place.src()];
        if self.theirs.is_none() {
            roots.push(self.place.dst());
        }
        roots.extend(self.moved_copies.iter().cloned());
        let mut seen = HashSet::new();
        for root in roots {
            reachable(&root, &mut seen, &mut found);
        }
        for version in &self.kept {
            prop_assert!(
                found.contains(version),
                "lost {:?} after {:?}",
                String::from_utf8_lossy(version),
                history
            );
        }
        Ok(())
    }
}

fn remove(path: &Path) {
    match fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => fs::remove_dir_all(path).unwrap(),
        Ok(_) => fs::remove_file(path).unwrap(),
        Err(_) => {}
    }
}

/// Every file's content below `dir`, following links (each folder once).
fn reachable(dir: &Path, seen: &mut HashSet<PathBuf>, found: &mut HashSet<Vec<u8>>) {
    let Ok(real) = fs::canonicalize(dir) else {
        return;
    };
    if !seen.insert(real.clone()) {
        return;
    }
    let Ok(listing) = fs::read_dir(&real) else {
        return;
    };
    for entry in listing.flatten() {
        let path = entry.path();
        match fs::metadata(&path) {
            Ok(m) if m.is_dir() => reachable(&path, seen, found),
            Ok(m) if m.is_file() => {
                if let Ok(content) = fs::read(&path) {
                    found.insert(content);
                }
            }
            _ => {}
        }
    }
}

/// Every entry below `root`: a file's bytes, a link's target, or a folder.
fn snapshot(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            let rel = path.strip_prefix(root).unwrap().to_path_buf();
            let Ok(meta) = fs::symlink_metadata(&path) else {
                continue;
            };
            let value = if meta.is_dir() {
                stack.push(path);
                b"<dir>".to_vec()
            } else if meta.is_symlink() {
                let target = fs::read_link(&path).unwrap_or_default();
                target.into_os_string().into_encoded_bytes()
            } else {
                fs::read(&path).unwrap_or_default()
            };
            out.insert(rel, value);
        }
    }
    out
}

/// Runs `step` and checks every invariant after it.
fn run_step(model: &mut Model, step: &Step, steps: &[Step]) -> Result<(), TestCaseError> {
    model.edit(step);
    let before = matches!(step, Step::Sync)
        .then(|| history::before_sync(&model.place.src(), model.copy().as_deref()));
    let out = model.tool(step)?;
    if let (Some(before), Some(copy)) = (&before, model.copy()) {
        for content in history::fast_forwarded_away(before, &copy) {
            model.kept.remove(&content);
        }
    }
    model.check(steps)?;
    if let (Some(before), Some(out), Some(copy)) = (before, out, model.copy()) {
        let said = format!("after {steps:?}\n{}", text(&out));
        if out.status.success() {
            history::tally(&String::from_utf8_lossy(&out.stdout));
        }
        history::after_sync(&before, &copy, out.status.code(), &said)?;
    }
    if let Some(copy) = model.copy() {
        history::fsck(&copy, steps)?;
    }
    Ok(())
}

fn run_sequence((root_venv, steps): (bool, Vec<Step>)) -> Result<(), TestCaseError> {
    let mut model = Model::new(root_venv);
    let mut history = vec![Step::Migrate];
    model.tool(&Step::Migrate)?;
    // The first migration's outcome is the model's start: the copy holds the source's files.
    git(&model.place.src(), &["status", "--short"]);
    model.check(&history)?;
    history::fsck(&model.place.dst(), &history)?;
    for step in steps {
        history.push(step.clone());
        run_step(&mut model, &step, &history)?;
    }
    Ok(())
}

/// The runner's settings: `variable` (an environment variable) sets the number of cases, else
/// `default`; the seeds of failures are kept beside `source` (a test file, by `file!()`), in
/// tests/proptest-regressions/.
fn config(variable: &str, default: u32, source: &'static str) -> ProptestConfig {
    let cases = std::env::var(variable)
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default);
    ProptestConfig {
        cases,
        source_file: Some(source),
        ..ProptestConfig::default()
    }
}

#[test]
fn no_sequence_of_operations_after_the_move_loses_a_file() {
    let config = config("WSL_PLACE_SEQUENCES_CASES", DEFAULT_CASES, file!());
    let strategy = (
        proptest::bool::weighted(0.25),
        proptest::collection::vec(step(), 1..=10),
    );
    let result = TestRunner::new(config).run(&strategy, run_sequence);
    eprintln!("sequences, history the syncs met: {}", history::tallied());
    if let Err(failure) = result {
        panic!("{failure}");
    }
}
