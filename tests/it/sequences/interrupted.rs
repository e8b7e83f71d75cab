//! Issue 63: the tool's own advice, followed after every run, never loses a byte. Random
//! sequences of edits at both places (tracked and untracked files, commits) and runs of
//! `migrate`, `--sync`, `--abort` and `--remove-source`, some stopped part way by SIGINT (to the
//! process group, as Ctrl-C sends it) or SIGKILL; after every run, `check --format json` at the
//! old place and at the copy, and the command it names under "what to do" run as a person would
//! (answering yes), up to three rounds. After every step: every file a person wrote and did not
//! delete exists with its bytes at one place at least, every commit reachable before the step
//! is reachable at one place at least, and the copy passes `git fsck`.
//! `WSL_PLACE_ADVICE_CASES` sets the number of cases; bench/advice-followed.sh runs thousands.

use super::Model;
use super::history::{self, try_git};
use crate::support::{self, Outcome, text};
use proptest::prelude::*;
use proptest::test_runner::{TestCaseError, TestRunner};
use std::collections::{BTreeSet, HashSet};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Cases when `WSL_PLACE_ADVICE_CASES` is not set.
const DEFAULT_CASES: u32 = 40;
/// Untracked files beside the repository's own, so a removal or a copy has work to interrupt.
const DATA_FILES: u64 = 120;
/// A run that takes longer than this is a hang.
const RUN_LIMIT: Duration = Duration::from_secs(60);

#[derive(Debug, Clone, Copy, PartialEq)]
enum Op {
    Migrate,
    Sync,
    RemoveSource,
    Abort,
}

impl Op {
    fn args(self) -> &'static [&'static str] {
        match self {
            Op::Migrate => &["--yes"],
            Op::Sync => &["--sync", "--yes"],
            Op::RemoveSource => &["--remove-source", "--yes"],
            Op::Abort => &["--abort", "--yes"],
        }
    }
}

/// How a run ends: on its own, or stopped `after` its start.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Stop {
    Never,
    Interrupt { after: Duration },
    Kill { after: Duration },
}

#[derive(Debug, Clone)]
enum Act {
    Tool(Op, Stop),
    /// A person's edit: a file written or deleted at either place, or git at either place.
    Edit(super::Step),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        1 => Just(Op::Migrate),
        3 => Just(Op::Sync),
        3 => Just(Op::RemoveSource),
        2 => Just(Op::Abort),
    ]
}

fn stop() -> impl Strategy<Value = Stop> {
    // Runs here take 10 to 100 ms on a local disk: the delays land before, inside and after
    // them, at a tenth of a millisecond's grain.
    let after = (0u64..1200).prop_map(|tenths| Duration::from_micros(tenths * 100));
    prop_oneof![
        1 => Just(Stop::Never),
        2 => after.clone().prop_map(|after| Stop::Interrupt { after }),
        2 => after.prop_map(|after| Stop::Kill { after }),
    ]
}

fn act() -> impl Strategy<Value = Act> {
    let at = any::<bool>();
    let path = 0..super::PATHS.len();
    let edit = prop_oneof![
        3 => (at, path.clone()).prop_map(|(at_copy, path)| super::Step::Write { at_copy, path }),
        1 => (at, path).prop_map(|(at_copy, path)| super::Step::Delete { at_copy, path }),
        2 => proptest::collection::vec(history::git_step(super::PATHS.len()), 1..=2)
            .prop_map(super::Step::Git),
    ];
    prop_oneof![
        3 => (op(), stop()).prop_map(|(op, stop)| Act::Tool(op, stop)),
        2 => edit.prop_map(Act::Edit),
    ]
}

static CASES: AtomicU64 = AtomicU64::new(0);
static STEPS: AtomicU64 = AtomicU64::new(0);
static INTERRUPTS: AtomicU64 = AtomicU64::new(0);
static KILLS: AtomicU64 = AtomicU64::new(0);
static STOPPED_MIDWAY: AtomicU64 = AtomicU64::new(0);
static ADVICE_FOLLOWED: AtomicU64 = AtomicU64::new(0);

fn count(counter: &AtomicU64) {
    counter.fetch_add(1, Ordering::Relaxed);
}

/// Runs `migrate SRC --to DST args`, stopped as `stop` says: its outcome, and whether the
/// signal reached it before it ended.
fn run_stopped(model: &Model, args: &[&str], stop: Stop) -> (Outcome, bool) {
    let mut cmd = model.place.run(&["migrate"]);
    cmd.arg(model.place.src())
        .arg("--to")
        .arg(model.place.dst())
        .args(args);
    let (signal, after) = match stop {
        Stop::Never => return (support::bounded(cmd, RUN_LIMIT), false),
        Stop::Interrupt { after } => (rustix::process::Signal::INT, after),
        Stop::Kill { after } => (rustix::process::Signal::KILL, after),
    };
    // Its own process group, as a shell's job: Ctrl-C reaches the tool and the git it runs.
    cmd.process_group(0)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let child = cmd.spawn().expect("start wsl-place");
    let started = Instant::now();
    let mut child = child;
    let mut reached = false;
    loop {
        if child.try_wait().expect("poll the run").is_some() {
            break;
        }
        if started.elapsed() >= after {
            let group = rustix::process::Pid::from_child(&child);
            reached = rustix::process::kill_process_group(group, signal).is_ok();
            break;
        }
        std::thread::sleep(Duration::from_micros(200));
    }
    let deadline = Instant::now() + RUN_LIMIT;
    while child.try_wait().expect("poll the run").is_none() {
        assert!(
            Instant::now() < deadline,
            "{cmd:?} did not end after {signal:?}"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    let output = child.wait_with_output().expect("the stopped run's output");
    (Outcome::of(&cmd, output), reached)
}

/// A command line the tool printed, split as a POSIX shell would split the quoting the tool
/// writes (single quotes, and `'\''` inside them).
fn words(line: &str) -> Vec<String> {
    let (mut words, mut word, mut quoted, mut any) = (Vec::new(), String::new(), false, false);
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                quoted = !quoted;
                any = true;
            }
            '\\' if !quoted => {
                if let Some(next) = chars.next() {
                    word.push(next);
                }
            }
            ' ' if !quoted => {
                if any || !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
                any = false;
            }
            c => word.push(c),
        }
    }
    if any || !word.is_empty() {
        words.push(word);
    }
    words
}

/// The `wsl-place migrate ...` command `check` at `place` names under "what to do".
fn advised(model: &Model, place: &Path) -> Option<Vec<String>> {
    if !place.is_dir() {
        return None;
    }
    let mut cmd = model.place.run(&["check", "--format", "json"]);
    cmd.arg(place);
    let out = support::bounded(cmd, RUN_LIMIT);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).ok()?;
    report["verdict"]["advice"]
        .as_array()?
        .iter()
        .filter_map(|advice| advice["command"].as_str())
        .map(words)
        .find(|w| w.len() > 2 && w[0] == "wsl-place" && w[1] == "migrate")
}

/// What a person does after a run: `check` at the old place, then at the copy, and the first
/// `migrate` command named, answered yes; up to three rounds. The commands run, for the report.
fn follow_advice(model: &mut Model) -> Vec<String> {
    let mut followed = Vec::new();
    for _ in 0..3 {
        let Some(command) =
            advised(model, &model.place.src()).or_else(|| advised(model, &model.place.dst()))
        else {
            break;
        };
        let mut cmd = model.place.run(&[]);
        cmd.args(&command[1..]).arg("--yes");
        let out = fast_forwards_counted(model, |_| support::bounded(cmd, RUN_LIMIT));
        count(&ADVICE_FOLLOWED);
        followed.push(format!("{} -> {:?}", command.join(" "), out.status.code()));
        if !out.status.success() {
            break;
        }
    }
    followed
}

/// Runs `run`, a run of the tool that may sync: the versions a fast-forward of the copy then
/// replaced are the old place's commits' doing, so the person's (as the sequences model has it,
/// `history::fast_forwarded_away`); they stay in the copy's history.
fn fast_forwards_counted<T>(model: &mut Model, run: impl FnOnce(&Model) -> T) -> T {
    let before = history::before_sync(&model.place.src(), model.copy().as_deref());
    let out = run(model);
    if let Some(copy) = model.copy() {
        for content in history::fast_forwarded_away(&before, &copy) {
            model.kept.remove(&content);
        }
    }
    out
}

/// Every commit reachable from any ref at the places that hold a repository.
fn commits(roots: &[PathBuf]) -> BTreeSet<String> {
    roots
        .iter()
        .filter(|root| history::is_repo(root))
        .filter_map(|root| try_git(root, &["rev-list", "--all"], None))
        .flat_map(|listed| listed.lines().map(str::to_string).collect::<Vec<_>>())
        .collect()
}

/// The places that can hold the person's work: the old place, the copy, copies moved away,
/// and copies made under the home folder by a command followed without `--to`.
fn places(model: &Model) -> Vec<PathBuf> {
    let mut roots = vec![model.place.src()];
    if model.theirs.is_none() {
        roots.push(model.place.dst());
    }
    roots.extend(model.moved_copies.iter().cloned());
    let home_src = model.place.tmp.path().join("home/src");
    if let Ok(listing) = std::fs::read_dir(home_src) {
        roots.extend(listing.flatten().map(|e| e.path()));
    }
    roots
}

fn check_invariants(
    model: &Model,
    commits_before: &BTreeSet<String>,
    said: &str,
) -> Result<(), TestCaseError> {
    let mut found: HashSet<Vec<u8>> = HashSet::new();
    let mut seen = HashSet::new();
    let roots = places(model);
    for root in &roots {
        super::reachable(root, &mut seen, &mut found);
    }
    let lost: Vec<String> = model
        .kept
        .iter()
        .filter(|version| !found.contains(*version))
        .map(|version| String::from_utf8_lossy(version).chars().take(60).collect())
        .collect();
    prop_assert!(
        lost.is_empty(),
        "lost {} files: {lost:?}\n{said}",
        lost.len()
    );
    for commit in commits_before {
        let spec = format!("{commit}^{{commit}}");
        let somewhere = roots
            .iter()
            .filter(|root| root.join(".git").is_dir())
            .any(|root| try_git(root, &["cat-file", "-e", &spec], None).is_some());
        prop_assert!(somewhere, "commit {commit} is reachable nowhere\n{said}");
    }
    if let Some(copy) = model.copy().filter(|c| history::is_repo(c)) {
        history::fsck(&copy, &[said])?;
    }
    Ok(())
}

/// Untracked files of their own beside the repository's, each with content no other has.
fn add_data(model: &mut Model) {
    for i in 0..DATA_FILES {
        let content = format!(
            "untracked data file {i}\n{}",
            "x".repeat((i * 37 % 900) as usize)
        );
        let file = model.place.src().join(format!("data/d{}/f{i}.txt", i % 6));
        support::gitrepo::write(&file, content.as_bytes());
        model.kept.insert(content.into_bytes());
    }
}

fn tool(model: &mut Model, op: Op, stop: Stop, log: &mut String) -> Result<(), TestCaseError> {
    if !model.place.src().is_dir() {
        return Ok(());
    }
    let (out, reached) = fast_forwards_counted(model, |m| run_stopped(m, op.args(), stop));
    let code = out.status.code();
    prop_assert!(code != Some(101), "{op:?} panicked: {}", text(&out));
    if reached {
        count(&STOPPED_MIDWAY);
        match stop {
            Stop::Interrupt { .. } => count(&INTERRUPTS),
            Stop::Kill { .. } => count(&KILLS),
            Stop::Never => {}
        }
    }
    // An interrupted run says so, and how to go on, on its last line.
    if code == Some(130) && matches!(op, Op::RemoveSource | Op::Sync) {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let last = stderr.trim_end().lines().last().unwrap_or_default();
        prop_assert!(
            last.contains("wsl-place migrate"),
            "{op:?} interrupted without the command that goes on: {last}"
        );
    }
    log.push_str(&format!("{op:?} {stop:?} -> {code:?}\n"));
    for followed in follow_advice(model) {
        log.push_str(&format!("  advice: {followed}\n"));
    }
    Ok(())
}

fn run_case(acts: Vec<Act>) -> Result<(), TestCaseError> {
    count(&CASES);
    let mut model = Model::new(false);
    add_data(&mut model);
    let mut log = String::new();
    let before = commits(&places(&model));
    tool(&mut model, Op::Migrate, Stop::Never, &mut log)?;
    check_invariants(&model, &before, &log)?;
    for act in acts {
        count(&STEPS);
        match act {
            Act::Edit(step) => {
                log.push_str(&format!("{step:?}\n"));
                model.edit(&step);
            }
            Act::Tool(op, stop) => {
                let before = commits(&places(&model));
                tool(&mut model, op, stop, &mut log)?;
                check_invariants(&model, &before, &log)?;
            }
        }
    }
    Ok(())
}

#[test]
fn following_the_advice_after_any_interrupt_loses_nothing() {
    let config = super::config("WSL_PLACE_ADVICE_CASES", DEFAULT_CASES, file!());
    let cases = config.cases;
    let strategy = proptest::collection::vec(act(), 1..=8);
    let result = TestRunner::new(config).run(&strategy, run_case);
    let load = |c: &AtomicU64| c.load(Ordering::Relaxed);
    eprintln!(
        "advice followed: {} cases, {} steps, {} runs stopped midway ({} SIGINT, {} SIGKILL), {} advised commands run",
        load(&CASES),
        load(&STEPS),
        load(&STOPPED_MIDWAY),
        load(&INTERRUPTS),
        load(&KILLS),
        load(&ADVICE_FOLLOWED)
    );
    if let Err(failure) = result {
        panic!("{failure}");
    }
    // A run where no signal landed inside a run tested nothing of what it is for.
    assert!(
        load(&STOPPED_MIDWAY) > 0,
        "no run was stopped midway in {cases} cases"
    );
}
