//! npm's sample and the timing it leaves for the machine (issue 52): read from what npm
//! placed (`node_modules/.package-lock.json`) or from the lock filtered to this platform, only
//! packages npm's cache holds (known from its files before npm starts), and a timing that one
//! small project cannot set for every other, retimed by `check --fresh`. The packages are
//! packed here (`npm pack`) and added to the sandbox's npm cache (`npm cache add`): no network.

use crate::support;
use crate::support::Run;

use serde_json::Value;
use std::path::{Path, PathBuf};
use support::gitrepo::{init_and_commit_all, write};
use support::sandbox::Sandbox;
use support::text;

fn have_npm() -> bool {
    let found = std::process::Command::new("npm")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        support::skip("npm is not installed (.ci/run installs it)");
    }
    found
}

/// `npm ARGS` in `sandbox` (its HOME, so its cache is `HOME/.npm`) and `dir`, run to success.
fn npm(sandbox: &Sandbox, dir: &Path, args: &[&str]) -> String {
    let out = sandbox.program("npm").args(args).current_dir(dir).run();
    assert!(out.status.success(), "npm {args:?}: {}", text(&out));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `n` zero-dependency packages of six files each, packed and added to npm's cache: each
/// one's lock entry (`resolved` at npm's registry, `integrity`).
fn packed_leaves(sandbox: &Sandbox, n: usize) -> Vec<(String, Value)> {
    let packs = sandbox.path("packs");
    let names: Vec<String> = (0..n).map(|i| format!("wsl-place-test-leaf-{i}")).collect();
    for name in &names {
        let source = packs.join(name);
        write(
            &source.join("package.json"),
            format!(r#"{{"name":"{name}","version":"1.0.0","main":"index.js"}}"#).as_bytes(),
        );
        write(&source.join("index.js"), b"module.exports = 0;\n");
        for f in 0..4 {
            write(
                &source.join(format!("lib/f{f}.js")),
                b"module.exports = 1;\n",
            );
        }
    }
    let folders: Vec<String> = names.iter().map(|name| format!("./{name}")).collect();
    let mut args = vec!["pack", "--json", "--pack-destination", "."];
    args.extend(folders.iter().map(String::as_str));
    let packed: Value = serde_json::from_str(&npm(sandbox, &packs, &args)).unwrap();
    let files: Vec<String> = (0..n)
        .map(|i| format!("./{}", packed[i]["filename"].as_str().unwrap()))
        .collect();
    let mut add = vec!["cache", "add"];
    add.extend(files.iter().map(String::as_str));
    npm(sandbox, &packs, &add);
    names
        .into_iter()
        .enumerate()
        .map(|(i, name)| {
            let entry = serde_json::json!({
                "version": "1.0.0",
                "resolved": format!("https://registry.npmjs.org/{name}/-/{name}-1.0.0.tgz"),
                "integrity": packed[i]["integrity"].clone(),
            });
            (name, entry)
        })
        .collect()
}

/// macOS's `fsevents` and the `nan` it needs, as a lock made on a Mac or by npm anywhere lists
/// them (optional, never downloaded here): neither is in the sandbox's cache.
fn other_platforms() -> Vec<(String, Value)> {
    let fake = |name: &str, version: &str| {
        format!("https://registry.npmjs.org/{name}/-/{name}-{version}.tgz")
    };
    let integrity = format!("sha512-{}==", "A".repeat(86));
    vec![
        (
            "fsevents".into(),
            serde_json::json!({"version": "1.2.13", "resolved": fake("fsevents", "1.2.13"),
                "integrity": integrity, "optional": true, "os": ["darwin"],
                "dependencies": {"nan": "^2.12.1"}}),
        ),
        (
            "nan".into(),
            serde_json::json!({"version": "2.30.0", "resolved": fake("nan", "2.30.0"),
                "integrity": integrity, "optional": true}),
        ),
    ]
}

/// A committed project at `HOME/name` whose lock names `entries` (optional ones as optional
/// dependencies), installed by `npm ci --offline` when `install`.
fn project(sandbox: &Sandbox, name: &str, entries: &[(String, Value)], install: bool) -> PathBuf {
    let dir = sandbox.path(name);
    let (mut deps, mut optional) = (serde_json::Map::new(), serde_json::Map::new());
    let mut locked = serde_json::Map::new();
    for (package, entry) in entries {
        let version = entry["version"].clone();
        if entry.get("optional").is_some() {
            if package == "fsevents" {
                optional.insert(package.clone(), version);
            }
        } else {
            deps.insert(package.clone(), version);
        }
        locked.insert(format!("node_modules/{package}"), entry.clone());
    }
    let manifest = serde_json::json!({"name": name, "version": "1.0.0",
        "dependencies": deps, "optionalDependencies": optional});
    locked.insert(String::new(), manifest.clone());
    let lock = serde_json::json!({"name": name, "version": "1.0.0", "lockfileVersion": 3,
        "requires": true, "packages": locked});
    write(&dir.join("package.json"), manifest.to_string().as_bytes());
    write(&dir.join("package-lock.json"), lock.to_string().as_bytes());
    write(&dir.join(".gitignore"), b"node_modules/\n");
    if install {
        npm(
            sandbox,
            &dir,
            &["ci", "--offline", "--no-audit", "--no-fund"],
        );
    }
    init_and_commit_all(&dir, "init");
    dir
}

/// The check's `predict.install_manager` for `dir`, with `extra` options.
fn manager_of(sandbox: &Sandbox, dir: &Path, extra: &[&str]) -> Value {
    let report = sandbox
        .cmd()
        .args(["check", "--probe-budget-ms", "300", "--format", "json"])
        .args(extra)
        .arg(dir)
        .run()
        .ok_json();
    report["predict"]["install_manager"].clone()
}

/// A one-package project checked first keeps its timing to itself: the bigger project checked
/// next is timed on its own sample, not priced from the one package's; its timing, large
/// enough, is then the machine's; `--fresh` times afresh and says so.
#[test]
fn a_one_package_project_does_not_set_the_machines_timing() {
    if !have_npm() {
        return;
    }
    let sandbox = Sandbox::new();
    let leaves = packed_leaves(&sandbox, 10);
    let tiny = project(&sandbox, "tiny", &leaves[..1], true);
    let big = project(&sandbox, "big", &leaves, true);

    let first = manager_of(&sandbox, &tiny, &[]);
    assert_eq!(first["source"], "measured", "{first}");
    assert_eq!(first["sample_packages"], 1, "{first}");
    let why = first["sample_not_shared"].as_str().unwrap_or_default();
    assert!(why.contains("stands for this project only"), "{first}");

    let next = manager_of(&sandbox, &big, &[]);
    assert_eq!(
        next["source"], "measured",
        "priced from the tiny sample: {next}"
    );
    assert_eq!(next["sample_packages"], 10, "{next}");
    assert!(next.get("sample_not_shared").is_none(), "{next}");

    let again = manager_of(&sandbox, &big, &[]);
    assert_eq!(again["source"], "cached", "{again}");
    assert_eq!(again["sample_packages"], 10, "{again}");
    // The machine's timing now stands for the tiny project too.
    assert_eq!(manager_of(&sandbox, &tiny, &[])["sample_packages"], 10);

    let fresh = manager_of(&sandbox, &big, &["--fresh"]);
    assert_eq!(
        fresh["source"], "measured",
        "--fresh reused a timing: {fresh}"
    );
}

/// npm's sample reads what npm placed, where macOS's optional `fsevents` and its `nan` are
/// not; without node_modules, the lock filtered to this platform leaves them out too. Either
/// way the sample installs (before, it picked `nan` and failed with ENOTCACHED).
#[test]
fn npms_sample_leaves_out_another_platforms_optional_packages() {
    if !have_npm() {
        return;
    }
    let sandbox = Sandbox::new();
    let mut entries = packed_leaves(&sandbox, 3);
    entries.extend(other_platforms());
    let dir = project(&sandbox, "project", &entries, true);
    let placed = std::fs::read_to_string(dir.join("node_modules/.package-lock.json")).unwrap();
    assert!(!placed.contains("node_modules/nan"), "npm placed nan here");

    let installed = manager_of(&sandbox, &dir, &["--fresh"]);
    assert_eq!(installed["source"], "measured", "{installed}");
    assert_eq!(installed["sample_packages"], 3, "{installed}");
    assert_eq!(
        installed["sample_source"], "node_modules/.package-lock.json",
        "{installed}"
    );
    assert!(installed.get("sample_uncached").is_none(), "{installed}");

    std::fs::remove_dir_all(dir.join("node_modules")).unwrap();
    let lock_only = manager_of(&sandbox, &dir, &["--fresh"]);
    assert_eq!(lock_only["source"], "measured", "{lock_only}");
    assert_eq!(lock_only["sample_packages"], 3, "{lock_only}");
    assert_eq!(
        lock_only["sample_source"], "package-lock.json",
        "{lock_only}"
    );
    assert!(lock_only.get("sample_uncached").is_none(), "{lock_only}");
}

/// A sample none of whose packages npm's cache holds fails before npm is started: the stand-in
/// npm on PATH answers its version and leaves a mark if it is started for anything else.
#[test]
fn a_package_missing_from_npms_cache_is_known_without_starting_npm() {
    let sandbox = Sandbox::new();
    let bin = sandbox.path("bin");
    let mark = sandbox.path("npm-ran");
    std::fs::create_dir_all(&bin).unwrap();
    support::write_executable(
        &bin.join("npm"),
        &format!(
            "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 11.19.1; exit 0; fi\ntouch '{}'\nexit 1\n",
            mark.display()
        ),
    );
    let integrity = format!("sha512-{}==", "B".repeat(86));
    let entries: Vec<(String, Value)> = (0..3)
        .map(|i| {
            let name = format!("wsl-place-test-leaf-{i}");
            let url = format!("https://registry.npmjs.org/{name}/-/{name}-1.0.0.tgz");
            let entry =
                serde_json::json!({"version": "1.0.0", "resolved": url, "integrity": integrity});
            (name, entry)
        })
        .collect();
    let dir = project(&sandbox, "project", &entries, false);
    // What npm placed, as its record says: the packages are gone from its cache since.
    std::fs::copy(dir.join("package-lock.json"), sandbox.path("placed.json")).unwrap();
    write(
        &dir.join("node_modules/.package-lock.json"),
        &std::fs::read(sandbox.path("placed.json")).unwrap(),
    );
    std::fs::create_dir_all(sandbox.path(".npm/_cacache/index-v5")).unwrap();
    let path = std::env::join_paths(std::iter::once(bin).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .unwrap();
    let report = sandbox
        .cmd()
        .env("PATH", &path)
        .args([
            "check",
            "--probe-budget-ms",
            "300",
            "--format",
            "json",
            "--fresh",
        ])
        .arg(&dir)
        .run()
        .ok_json();
    let manager = &report["predict"]["install_manager"];
    assert_eq!(manager["source"], "estimated", "{manager}");
    let why = manager["sample_failed"].as_str().unwrap_or_default();
    assert!(
        why.starts_with("none of the 3 packages the sample could take is in npm's cache"),
        "{manager}"
    );
    let kind = &manager["sample_failed_kind"];
    assert_eq!(kind["kind"], "cache_lacks_all", "{manager}");
    assert_eq!(kind["packages"], 3, "{manager}");
    assert_eq!(kind["manager"], "npm", "{manager}");
    assert!(
        !mark.exists(),
        "npm was started for a sample its cache could not serve"
    );
}

/// Issue 65: Ctrl-C while the manager's sample installs (up to 30 s before) stops the tool at
/// once with the manager and what it started (its own process group), and records no failed
/// sample (which would have the next day's checks skip it).
#[test]
fn ctrl_c_during_a_sample_stops_the_manager_and_records_nothing() {
    if !have_npm() {
        return;
    }
    let sandbox = Sandbox::new();
    let leaves = packed_leaves(&sandbox, 3);
    let dir = project(&sandbox, "stopped", &leaves, false);
    let real = support::which("npm").expect("npm on PATH");
    let wrapper = sandbox.path("wrapper");
    std::fs::create_dir_all(&wrapper).unwrap();
    let (started, child) = (sandbox.path("started"), sandbox.path("child"));
    // npm itself for every question; an install that starts a child and waits on it.
    support::write_executable(
        &wrapper.join("npm"),
        &format!(
            "#!/bin/sh\ncase \"$1\" in\n  ci|install) sleep 60 & echo $! > '{child}'; echo $$ > '{started}'; wait; exit 0;;\nesac\nexec '{real}' \"$@\"\n",
            child = child.display(),
            started = started.display(),
            real = real.display()
        ),
    );
    let path = format!(
        "{}:{}",
        wrapper.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut cmd = sandbox.cmd();
    cmd.args(["check", "--fresh", "--probe-budget-ms", "300"])
        .arg(&dir)
        .env("PATH", path)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut tool = cmd.spawn().unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !(started.exists() && child.exists()) && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(started.exists(), "the sample never started npm's install");
    std::thread::sleep(std::time::Duration::from_millis(100));
    support::send(&tool, rustix::process::Signal::INT);
    let stopped_at = std::time::Instant::now();
    let status = loop {
        if let Some(status) = tool.try_wait().unwrap() {
            break status;
        }
        if stopped_at.elapsed() > std::time::Duration::from_secs(10) {
            support::kill(&mut tool);
            panic!("Ctrl-C did not stop the tool within 10 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(130), "{status:?}");
    let pid: i32 = std::fs::read_to_string(&child)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(200));
    // Gone, or a zombie no one reaped (a container's first process may not): not running.
    let state = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let running = state
        .rsplit_once(") ")
        .is_some_and(|(_, rest)| !rest.starts_with('Z'));
    assert!(
        !running,
        "the manager's child {pid} outlived Ctrl-C: {state}"
    );
    let notes = sandbox.cache().join("wsl-place/manager/unsampled");
    let noted = std::fs::read_dir(&notes).map_or(0, |d| d.count());
    assert_eq!(
        noted, 0,
        "a sample stopped by Ctrl-C was recorded as failed"
    );
}
