//! Every git command the tool runs is built here, because a repository is untrusted input
//! (issue 49): its `.git/config`, the files that config includes, and its hooks can name
//! programs git would start on the tool's behalf (an fsmonitor hook, a clean filter, a
//! post-index-change hook, a pager). The tool overrides each of them with `-c`, taking the
//! person's own value (global or system configuration) where there is one, so what the person
//! set up keeps working and what the repository brought never runs.
//!
//! How it is decided: the repository's effective configuration is read once, with
//! `git config --list --show-scope --includes -z` (itself run with the fixed overrides below and
//! time-limited); every key of scope `local` or `worktree` that names a program is overridden.
//! Includes count as the scope of the file that includes them, which is what `--show-scope`
//! reports for them. The pure part, [`overrides`], turns that listing into the `-c` pairs.
//!
//! What `-c` cannot reach, and why that is harmless here:
//! - `url.<base>.insteadOf` cannot be unset from the command line, but it only rewrites a
//!   remote's address, and every transport but `file` is refused (`protocol.allow=never`): the
//!   tool never fetches or pushes, and a rewritten address reaches nothing.
//! - `core.gitProxy` is taken from the first value that matches, so a later `-c` cannot replace
//!   one the repository set; it only serves the `git://` transport, which is refused.
//! - Submodules: `git status` starts a git of its own in each one, and the `-c` pairs travel to
//!   it in `GIT_CONFIG_PARAMETERS` (git keeps that variable for submodules), so the fixed
//!   overrides (hooks, fsmonitor, protocols, gc) hold there too. A driver a submodule's own
//!   config defines under a name the superproject's config does not use (a clean filter `y` in
//!   the submodule only) is not seen here and is not overridden.

pub mod files;
pub mod version;

use crate::base::pathtext::display;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// A git run that reads a little (its version, a config value, a path): starting git costs
/// tens of milliseconds even on a slow mount, so seconds mean something is wrong.
pub const QUICK_LIMIT: Duration = Duration::from_secs(5);

/// The least time a run that reads every tracked file (`status`, `update-index --refresh`) gets,
/// however small its prediction.
pub const WORK_LIMIT_FLOOR: Duration = Duration::from_secs(10);

/// Such a run without a prediction: a very large repository on a slow mount takes minutes, and
/// stopping it early would only cost the person the same refresh later.
pub const WORK_LIMIT_UNPREDICTED: Duration = Duration::from_secs(600);

/// How many times its prediction a run may take: predictions miss by a factor of two or three
/// on a busy machine, never by ten.
const WORK_LIMIT_FACTOR: f64 = 10.0;

/// The limit of a run that reads every tracked file and was predicted to take `predicted_ms`.
pub fn work_limit(predicted_ms: Option<f64>) -> Duration {
    match predicted_ms.filter(|ms| ms.is_finite() && *ms >= 0.0) {
        Some(ms) => WORK_LIMIT_FLOOR.max(Duration::from_secs_f64(ms * WORK_LIMIT_FACTOR / 1000.0)),
        None => WORK_LIMIT_UNPREDICTED,
    }
}

/// Set on every run: no hook (the folder does not exist), no automatic gc or maintenance (they
/// start processes and write the repository), and no transport but local paths (the tool never
/// talks to a remote; this also makes `url.*.insteadOf` and the ssh and proxy settings inert).
/// `credential.helper=` empties the list of helpers, so none is started.
const FIXED: &[&str] = &[
    "gc.auto=0",
    "maintenance.auto=false",
    "protocol.allow=never",
    "protocol.file.allow=always",
    "credential.helper=",
];

/// Where hooks are looked for: a path below `/dev/null` can never exist.
const NO_HOOKS: &str = "core.hooksPath=/dev/null";

/// One entry of `git config --list --show-scope -z`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry<'a> {
    scope: &'a str,
    key: &'a str,
    /// None for a key written without `=`: git's implicit true.
    value: Option<&'a str>,
}

/// The entries of a `git config --list --show-scope -z` listing: `scope NUL key LF value NUL`,
/// or `scope NUL key NUL` for a key without a value.
fn entries(list: &str) -> Vec<Entry<'_>> {
    let mut fields = list.split('\0');
    let mut found = Vec::new();
    while let (Some(scope), Some(pair)) = (fields.next(), fields.next()) {
        let (key, value) = match pair.split_once('\n') {
            Some((key, value)) => (key, Some(value)),
            None => (pair, None),
        };
        found.push(Entry { scope, key, value });
    }
    found
}

fn is_repositorys(scope: &str) -> bool {
    matches!(scope, "local" | "worktree")
}

fn is_persons(scope: &str) -> bool {
    matches!(scope, "system" | "global")
}

/// The value a key that names a program or reaches out gets when the person set none; None for
/// a key that names neither. Keys come lower-cased from git except for their subsection.
fn neutral(key: &str) -> Option<&'static str> {
    let (section, rest) = key.split_once('.')?;
    let (subsection, name) = match rest.rsplit_once('.') {
        Some((sub, name)) => (Some(sub), name),
        None => (None, rest),
    };
    Some(match (section, subsection, name) {
        // An empty command is no filter; `required=false` (added beside) keeps git going.
        ("filter", Some(_), "clean" | "smudge" | "process") => "",
        // An empty textconv or diff command fails closed: git says it cannot run "".
        ("diff", Some(_), "textconv" | "command") => "",
        ("diff", None, "external") => "",
        ("merge", Some(_), "driver") => "",
        ("core", None, "pager") => "cat",
        ("pager", None, _) => "false",
        ("core", None, "sshcommand") => "false",
        ("core", None, "askpass") => "",
        ("core", None, "editor") | ("sequence", None, "editor") => "true",
        ("core", None, "alternaterefscommand") => "",
        ("http", _, "proxy") | ("https", _, "proxy") | ("remote", Some(_), "proxy") => "",
        ("credential", Some(_), "helper") => "",
        ("remote", Some(_), "uploadpack") => "git-upload-pack",
        ("remote", Some(_), "receivepack") => "git-receive-pack",
        ("gpg", _, "program") => "",
        _ => return None,
    })
}

/// The filter driver a `filter.<driver>.<clean|process>` key names: the two git runs on a file
/// it reads from the working tree.
fn reading_filter(key: &str) -> Option<&str> {
    let rest = key.strip_prefix("filter.")?;
    let (driver, name) = rest.rsplit_once('.')?;
    matches!(name, "clean" | "process").then_some(driver)
}

/// What a repository's git runs are given, from its configuration.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Defused {
    /// `key=value` for each `-c`, after the fixed ones.
    pub overrides: Vec<String>,
    /// The repository's own filter drivers that read files (a non-empty clean or process
    /// command the person's configuration does not give), which git runs without: their names.
    pub filters_not_run: Vec<String>,
    /// Keys naming a program that `-c` cannot name, because their subsection holds `=` (git
    /// splits `-c` at the first one): git is not run in such a repository at all.
    pub beyond_reach: Vec<String>,
    /// The repository's own `core.*` settings (`.git/config` and what it includes), in order:
    /// what a migration checks for a Windows-side clone, read here rather than by a `git
    /// config --get` each, which on a slow mount costs a start-up and its round trips.
    pub local_core: Vec<(String, String)>,
}

impl Defused {
    /// The repository's own value of `key` (a lower-case `core.*` key), the last one given;
    /// None when `.git/config` leaves it to the person or git.
    pub fn local(&self, key: &str) -> Option<&str> {
        self.local_core
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// The overrides for a repository whose `git config --list --show-scope --includes -z` is
/// `list`. The last value of a key wins in git, so the person's last value is the one given.
pub fn overrides(list: &str) -> Defused {
    let all = entries(list);
    let persons = |key: &str| {
        all.iter()
            .rev()
            .find(|e| is_persons(e.scope) && e.key == key)
            .map(|e| e.value.unwrap_or("true"))
    };
    let mut defused = Defused {
        overrides: vec![format!("core.fsmonitor={}", fsmonitor(&all))],
        ..Defused::default()
    };
    let push = |overrides: &mut Vec<String>, pair: String| {
        if !overrides.contains(&pair) {
            overrides.push(pair);
        }
    };
    defused.local_core = all
        .iter()
        .filter(|e| e.scope == "local" && e.key.starts_with("core."))
        .map(|e| (e.key.to_string(), e.value.unwrap_or("true").to_string()))
        .collect();
    for entry in all.iter().filter(|e| is_repositorys(e.scope)) {
        let key = entry.key;
        if let Some(p) = key.strip_prefix("protocol.")
            && p.ends_with(".allow")
            && p != "file.allow"
        {
            push(&mut defused.overrides, format!("{key}=never"));
            continue;
        }
        let Some(neutral) = neutral(key) else {
            continue;
        };
        if key.contains('=') {
            defused.beyond_reach.push(key.to_string());
            continue;
        }
        let given = persons(key);
        push(
            &mut defused.overrides,
            format!("{key}={}", given.unwrap_or(neutral)),
        );
        if let Some(driver) = key.strip_prefix("filter.").and_then(|r| r.rsplit_once('.')) {
            let required = format!("filter.{}.required", driver.0);
            let keep = persons(&required).unwrap_or("false");
            push(&mut defused.overrides, format!("{required}={keep}"));
        }
        if let Some(driver) = reading_filter(key)
            && given.is_none()
            && entry.value.is_some_and(|v| !v.trim().is_empty())
            && !defused.filters_not_run.iter().any(|d| d == driver)
        {
            defused.filters_not_run.push(driver.to_string());
        }
    }
    defused
}

/// `core.fsmonitor` for every run, set even where the repository left it alone, so that a
/// submodule's own hook is replaced too (the value travels to its git): the repository's own
/// choice when it is git's daemon (a boolean), else the person's value, else off.
fn fsmonitor(all: &[Entry<'_>]) -> String {
    let last = |pick: fn(&str) -> bool| {
        all.iter()
            .rev()
            .find(|e| pick(e.scope) && e.key == "core.fsmonitor")
            .map(|e| e.value.unwrap_or("true"))
    };
    let boolean = |v: &str| {
        let v = v.to_ascii_lowercase();
        matches!(
            v.as_str(),
            "true" | "yes" | "on" | "1" | "false" | "no" | "off" | "0" | ""
        )
    };
    match last(is_repositorys) {
        Some(own) if boolean(own) => own.to_string(),
        _ => last(is_persons).unwrap_or("false").to_string(),
    }
}

/// The environment of every run: no prompt for a password, no pager, no editor, and none of the
/// askpass programs a terminal-less git would start.
fn environment(cmd: &mut Command) {
    cmd.env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_PAGER", "cat")
        .env("GIT_EDITOR", "true")
        .env_remove("GIT_ASKPASS")
        .env_remove("SSH_ASKPASS")
        .stdin(Stdio::null());
}

/// The git the tool starts: as a shell would find it, but never Windows' (see
/// `host::programs`): the first Linux `git` on `PATH`, looked up once per run. What identifies
/// git's build (the facts cache) and what `doctor` names is this one.
pub fn linux_git() -> Option<&'static Path> {
    static LINUX_GIT: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    LINUX_GIT
        .get_or_init(|| {
            crate::host::programs::first_linux(&crate::host::HostEnv::from_process(), "git")
        })
        .as_deref()
}

/// [`linux_git`] as a command. With none, the command is given an empty `PATH`, so that
/// starting it fails as for a git that is not installed, which every caller already says.
fn git_program() -> Command {
    match linux_git() {
        Some(git) => crate::base::process::command(git),
        None => {
            let mut cmd = crate::base::process::command("git");
            cmd.env("PATH", "");
            cmd
        }
    }
}

fn base(dir: Option<&Path>, hooks: Option<&str>) -> Command {
    let mut cmd = git_program();
    cmd.arg("--no-pager");
    for pair in FIXED.iter().copied().chain(hooks) {
        cmd.arg("-c").arg(pair);
    }
    if let Some(dir) = dir {
        cmd.arg("-C").arg(dir);
    }
    environment(&mut cmd);
    cmd
}

/// `git --version` alone: it reads no repository and no configuration, so it needs no override,
/// and it is what an installed git (or a stand-in a test puts first on PATH) answers first. Also
/// the start-up figure of a git process, which the overrides would only lengthen.
pub fn version_query() -> Command {
    let mut cmd = git_program();
    cmd.arg("--version");
    environment(&mut cmd);
    cmd
}

/// git, with the fixed overrides only, for a run that reads and starts none of the
/// repository's programs (`--version`, `config`, `rev-parse`), in `dir` when given.
pub fn reading(dir: Option<&Path>) -> Command {
    base(dir, Some(NO_HOOKS))
}

/// As [`reading`], but git reports the hooks folder the repository's configuration names: for
/// `hook install`, which asks where to write the hook (no hook runs in that query).
pub fn reading_hooks_path(dir: &Path) -> Command {
    base(Some(dir), None)
}

/// git in `repo` with the repository's own programs overridden as `defused` says.
pub fn in_repo(repo: &Path, defused: &Defused) -> Command {
    let mut cmd = base(Some(repo), Some(NO_HOOKS));
    for pair in &defused.overrides {
        cmd.arg("-c").arg(pair);
    }
    cmd
}

/// Where a sync keeps the old place's branches and tags in the copy (`heads/B`, `tags/T`): a
/// namespace of the tool's own, so the fetch itself moves none of the person's refs.
pub const OLD_PLACE_REFS: &str = "refs/wsl-place/old-place/";

/// git in `repo`, as [`in_repo`], for a run that must write nothing there: `git status` then
/// leaves the index as it found it (no opportunistic refresh). For the old place of a sync,
/// which the tool never writes.
pub fn untouched(repo: &Path, defused: &Defused) -> Command {
    let mut cmd = in_repo(repo, defused);
    cmd.env("GIT_OPTIONAL_LOCKS", "0");
    cmd
}

/// `cmd` also finds the objects of the repository whose objects folder is `objects`, read in
/// place and never copied: a dry run compares the two places' commits without fetching. False
/// when the path cannot be given that way (git splits the variable at `:`).
pub fn with_objects_of(cmd: &mut Command, objects: &Path) -> bool {
    let text = objects.as_os_str();
    if text
        .as_encoded_bytes()
        .iter()
        .any(|b| matches!(b, b':' | b'"'))
    {
        return false;
    }
    cmd.env("GIT_ALTERNATE_OBJECT_DIRECTORIES", text);
    true
}

/// `git fetch` in `repo` of `refspecs` from the repository at `from` (a local path: every other
/// transport is refused). The program started at `from` is named here, so neither repository's
/// configuration can choose it; no FETCH_HEAD is written, no tag follows, no submodule is
/// fetched. A fetch only adds objects and moves the refs its refspecs name.
pub fn fetch(repo: &Path, defused: &Defused, from: &Path, refspecs: &[String]) -> Command {
    let mut cmd = in_repo(repo, defused);
    cmd.args([
        "fetch",
        "--quiet",
        "--no-write-fetch-head",
        "--no-recurse-submodules",
        "--no-tags",
        "--no-show-forced-updates",
        "--upload-pack=git-upload-pack",
        "--",
    ])
    .arg(from)
    .args(refspecs);
    cmd
}

/// The overrides for `repo`, read once per run and repository: `check --verify` runs `git
/// status` three times, and a migration several git commands at its copy. Err is one sentence:
/// the configuration could not be read, and then nothing of the repository's is run.
pub fn defuse(repo: &Path) -> Result<Arc<Defused>, String> {
    static READ: Mutex<Option<HashMap<PathBuf, Arc<Defused>>>> = Mutex::new(None);
    if let Some(known) = READ
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get_or_insert_with(HashMap::new)
        .get(repo)
    {
        return Ok(Arc::clone(known));
    }
    files::plain_git_files(repo)?;
    let mut cmd = reading(Some(repo));
    cmd.args(["config", "--list", "--show-scope", "--includes", "-z"]);
    let out = run(cmd, QUICK_LIMIT).map_err(|stop| stop.sentence("git config", repo))?;
    if !out.status.success() {
        return Err(format!(
            "git could not read the configuration of {}: {}",
            display(repo),
            first_line(&out.stderr)
        ));
    }
    let defused = Arc::new(overrides(&String::from_utf8_lossy(&out.stdout)));
    if !defused.beyond_reach.is_empty() {
        return Err(format!(
            "the configuration of {} names a program under a name wsl-place cannot override ({}), so it runs no git there",
            display(repo),
            defused.beyond_reach.join(", ")
        ));
    }
    READ.lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get_or_insert_with(HashMap::new)
        .insert(repo.to_path_buf(), Arc::clone(&defused));
    Ok(defused)
}

/// git's first line of complaint, trimmed.
pub fn first_line(stderr: &[u8]) -> String {
    String::from_utf8_lossy(stderr)
        .lines()
        .next()
        .unwrap_or("")
        .trim()
        .to_string()
}

/// Why a git run gave no output: the tool's one process runner's reasons.
pub use crate::base::process::Stop;

/// Runs git as the tool runs every process ([`crate::base::process::run`]).
pub use crate::base::process::run;

/// The sentence saying a repository's own filter was not run, for the report of the run that
/// would have run it; `at` names the repository where the report does not.
pub fn filter_not_run(driver: &str, at: Option<&Path>) -> String {
    let place = at.map_or(String::new(), |repo| format!(" in {}", display(repo)));
    format!(
        "the repository's own clean filter \"{driver}\" was not run{place}: wsl-place never runs a repository's commands"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    fn listing(entries: &[(&str, &str, Option<&str>)]) -> String {
        entries
            .iter()
            .map(|(scope, key, value)| match value {
                Some(v) => format!("{scope}\0{key}\n{v}\0"),
                None => format!("{scope}\0{key}\0"),
            })
            .collect()
    }

    #[test]
    fn a_repository_fsmonitor_command_is_off_and_its_daemon_kept() {
        let command = listing(&[("local", "core.fsmonitor", Some("touch /tmp/x"))]);
        assert_eq!(overrides(&command).overrides, ["core.fsmonitor=false"]);
        let daemon = listing(&[("local", "core.fsmonitor", Some("true"))]);
        assert_eq!(overrides(&daemon).overrides, ["core.fsmonitor=true"]);
        let bare = listing(&[("worktree", "core.fsmonitor", None)]);
        assert_eq!(overrides(&bare).overrides, ["core.fsmonitor=true"]);
        assert_eq!(overrides("").overrides, ["core.fsmonitor=false"]);
    }

    #[test]
    fn the_repositorys_own_core_values_are_read_from_the_listing() {
        let list = listing(&[
            ("global", "core.autocrlf", Some("input")),
            ("local", "core.filemode", Some("true")),
            ("local", "core.filemode", Some("false")),
            ("local", "core.ignorecase", None),
            ("local", "user.name", Some("x")),
        ]);
        let defused = overrides(&list);
        // The last value wins, a bare key is true, the person's values are not the repository's.
        assert_eq!(defused.local("core.filemode"), Some("false"));
        assert_eq!(defused.local("core.ignorecase"), Some("true"));
        assert_eq!(defused.local("core.autocrlf"), None);
        assert_eq!(defused.local("user.name"), None);
    }

    #[test]
    fn the_persons_own_values_stay() {
        let list = listing(&[
            ("global", "core.fsmonitor", Some("true")),
            ("global", "core.pager", Some("less -R")),
            ("local", "core.fsmonitor", Some("./evil")),
            ("local", "core.pager", Some("./evil")),
        ]);
        assert_eq!(
            overrides(&list).overrides,
            ["core.fsmonitor=true", "core.pager=less -R"]
        );
        // A person's fsmonitor hook is theirs: given even where the repository is silent.
        let list = listing(&[("system", "core.fsmonitor", Some("/usr/bin/watchman-hook"))]);
        assert_eq!(
            overrides(&list).overrides,
            ["core.fsmonitor=/usr/bin/watchman-hook"]
        );
    }

    #[test]
    fn a_repository_filter_is_emptied_and_named() {
        let list = listing(&[
            ("local", "filter.evil.clean", Some("touch /tmp/x; cat")),
            ("local", "filter.evil.smudge", Some("cat")),
            ("local", "filter.evil.required", Some("true")),
            ("local", "filter.Quiet.process", Some("")),
        ]);
        let defused = overrides(&list);
        assert_eq!(
            defused.overrides,
            [
                "core.fsmonitor=false",
                "filter.evil.clean=",
                "filter.evil.required=false",
                "filter.evil.smudge=",
                "filter.Quiet.process=",
                "filter.Quiet.required=false",
            ]
        );
        // An empty command runs nothing, so it is not named.
        assert_eq!(defused.filters_not_run, ["evil"]);
    }

    #[test]
    fn a_program_key_that_c_cannot_name_is_beyond_reach() {
        let list = listing(&[("local", "filter.a=b.clean", Some("touch /tmp/x"))]);
        let defused = overrides(&list);
        assert_eq!(defused.beyond_reach, ["filter.a=b.clean"]);
        assert_eq!(defused.overrides, ["core.fsmonitor=false"]);
    }

    #[test]
    fn the_persons_filter_runs_and_is_not_named() {
        let list = listing(&[
            ("global", "filter.lfs.clean", Some("git-lfs clean -- %f")),
            ("global", "filter.lfs.required", Some("true")),
            ("local", "filter.lfs.clean", Some("./evil")),
        ]);
        let defused = overrides(&list);
        assert_eq!(
            defused.overrides,
            [
                "core.fsmonitor=false",
                "filter.lfs.clean=git-lfs clean -- %f",
                "filter.lfs.required=true",
            ]
        );
        assert!(defused.filters_not_run.is_empty());
    }

    #[test]
    fn every_program_key_of_the_repository_is_overridden() {
        let keys = [
            ("diff.x.textconv", ""),
            ("diff.x.command", ""),
            ("diff.external", ""),
            ("merge.x.driver", ""),
            ("pager.status", "false"),
            ("core.sshcommand", "false"),
            ("core.askpass", ""),
            ("core.editor", "true"),
            ("core.alternaterefscommand", ""),
            ("http.proxy", ""),
            ("http.https://example.com.proxy", ""),
            ("remote.origin.proxy", ""),
            ("credential.https://example.com.helper", ""),
            ("remote.origin.uploadpack", "git-upload-pack"),
            ("remote.origin.receivepack", "git-receive-pack"),
            ("gpg.ssh.program", ""),
        ];
        let list = listing(
            &keys
                .iter()
                .map(|(k, _)| ("local", *k, Some("touch /tmp/x")))
                .collect::<Vec<_>>(),
        );
        let got = overrides(&list).overrides;
        for (key, neutral) in keys {
            assert!(got.contains(&format!("{key}={neutral}")), "{key}: {got:?}");
        }
        assert_eq!(got.len(), keys.len() + 1, "{got:?}");
    }

    #[test]
    fn protocols_the_repository_allows_are_refused_but_local_paths() {
        let list = listing(&[
            ("local", "protocol.ext.allow", Some("always")),
            ("local", "protocol.file.allow", Some("never")),
            ("local", "user.name", Some("someone")),
            ("global", "protocol.https.allow", Some("always")),
        ]);
        assert_eq!(
            overrides(&list).overrides,
            ["core.fsmonitor=false", "protocol.ext.allow=never"]
        );
        let args: Vec<String> = in_repo(Path::new("/r"), &overrides(&list))
            .get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        // The fixed ones come first, the repository's after: the last value wins in git.
        let file = args.iter().position(|a| a == "protocol.file.allow=always");
        let ext = args.iter().position(|a| a == "protocol.ext.allow=never");
        assert!(file.is_some() && file < ext, "{args:?}");
        for fixed in [
            "core.hooksPath=/dev/null",
            "gc.auto=0",
            "credential.helper=",
        ] {
            assert!(args.iter().any(|a| a == fixed), "{fixed}: {args:?}");
        }
        assert_eq!(args[0], "--no-pager");
    }

    #[test]
    fn the_hooks_query_keeps_the_hooks_path_and_nothing_else_does() {
        let has = |cmd: Command| cmd.get_args().any(|a| a == NO_HOOKS);
        assert!(has(reading(None)));
        assert!(!has(reading_hooks_path(Path::new("/r"))));
    }

    #[test]
    fn work_limits_scale_with_the_prediction() {
        assert_eq!(work_limit(Some(5.0)), WORK_LIMIT_FLOOR);
        assert_eq!(work_limit(Some(6_000.0)), Duration::from_secs(60));
        assert_eq!(work_limit(None), WORK_LIMIT_UNPREDICTED);
        assert_eq!(work_limit(Some(f64::NAN)), WORK_LIMIT_UNPREDICTED);
    }

    #[test]
    fn a_run_past_its_limit_is_stopped_with_what_it_started() {
        let mut cmd = crate::base::process::command("sh");
        cmd.args(["-c", "sleep 30 & sleep 30"]);
        let started = Instant::now();
        let stop = run(cmd, Duration::from_millis(200)).expect_err("stopped");
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "not stopped at its limit"
        );
        assert_eq!(
            stop.sentence("git status", Path::new("/r")),
            "git status in /r did not finish within 200 ms; it was stopped"
        );
    }

    #[test]
    fn a_real_repository_reads_as_its_scopes_say() {
        let dir = tempfile::tempdir().expect("temp dir");
        let repo = dir.path();
        let out = reading(Some(repo))
            .args(["init", "-q"])
            .output()
            .expect("git runs");
        assert!(out.status.success());
        let include = repo.join("included");
        std::fs::write(&include, "[filter \"evil\"]\n\tclean = touch /tmp/x\n").expect("write");
        let config = repo.join(".git/config");
        let text = std::fs::read_to_string(&config).expect("config");
        let text = format!("{text}[include]\n\tpath = {}\n", include.display());
        std::fs::write(&config, text).expect("write config");
        let defused = defuse(repo).expect("read");
        assert_eq!(defused.filters_not_run, ["evil"]);
        assert!(
            defused
                .overrides
                .contains(&"filter.evil.clean=".to_string())
        );
    }

    /// No git the tool runs diffs today, so a diff payload cannot be caught through the binary;
    /// here plain git runs each (the payload is live) and the defused git runs none.
    #[test]
    fn diff_payloads_run_in_plain_git_and_not_in_the_defused_one() {
        let dir = tempfile::tempdir().expect("temp dir");
        let (repo, markers) = (dir.path().join("repo"), dir.path().join("markers"));
        std::fs::create_dir_all(&markers).expect("markers");
        let git = |cmd: &mut Command, args: &[&str]| {
            cmd.args(["-c", "user.name=T", "-c", "user.email=t@example.invalid"])
                .args(args)
                .env("GIT_CONFIG_GLOBAL", "/dev/null")
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .output()
                .expect("git runs")
        };
        std::fs::create_dir_all(&repo).expect("repo");
        git(&mut reading(Some(&repo)), &["init", "-q"]);
        std::fs::write(repo.join("a.txt"), "one\n").expect("write");
        std::fs::write(repo.join("b.bin"), "one\n").expect("write");
        std::fs::write(repo.join(".gitattributes"), "*.txt diff=evil\n").expect("write");
        git(&mut reading(Some(&repo)), &["add", "."]);
        git(&mut reading(Some(&repo)), &["commit", "-qm", "one"]);
        let touch = |name: &str| format!("touch '{}'", markers.join(name).display());
        let config = repo.join(".git/config");
        let text = std::fs::read_to_string(&config).expect("config");
        std::fs::write(
            &config,
            format!(
                "{text}[diff]\n\texternal = {}\n[diff \"evil\"]\n\ttextconv = {}; cat\n\tcommand = {}\n",
                touch("external"),
                touch("textconv"),
                touch("command")
            ),
        )
        .expect("write config");
        std::fs::write(repo.join("a.txt"), "two\n").expect("write");
        std::fs::write(repo.join("b.bin"), "two\n").expect("write");
        let ran = || {
            let mut names: Vec<String> = std::fs::read_dir(&markers)
                .expect("markers")
                .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
                .collect();
            names.sort();
            names
        };
        let plain = |args: &[&str]| {
            let mut cmd = crate::base::process::command("git");
            cmd.arg("-C").arg(&repo);
            git(&mut cmd, args)
        };
        let defused = defuse(&repo).expect("read");
        let defused_run = |args: &[&str]| git(&mut in_repo(&repo, &defused), args);
        for args in [
            &["diff"][..],
            &["diff", "--textconv", "--no-ext-diff", "a.txt"],
        ] {
            defused_run(args);
        }
        assert_eq!(ran(), Vec::<String>::new());
        plain(&["diff", "b.bin"]);
        plain(&["diff", "a.txt"]);
        plain(&["diff", "--no-ext-diff", "a.txt"]);
        assert_eq!(ran(), ["command", "external", "textconv"]);
    }
}
