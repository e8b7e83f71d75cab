//! A `node_modules` priced from a sample of its packages (issue 43), through the binary, on
//! generated trees of many packages of varied sizes: the figures are marked as sampled in
//! JSON and in the human report, `--exact` walks every file, and the sampled counts lie within
//! the error the report states.

use crate::support;
use support::{Outcome, Run};

use std::fs;
use std::path::Path;
use support::gitrepo::{init_and_commit_all, write};

/// A small deterministic generator (xorshift), so a tree is the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Log-normal around `median`, spread `sigma` (Box-Muller).
    fn log_normal(&mut self, median: f64, sigma: f64) -> f64 {
        let (u, v) = (self.unit().max(1e-12), self.unit());
        let z = (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos();
        median * (sigma * z).exp()
    }
}

/// What a generated tree truly holds below `node_modules`.
#[derive(Debug, Default)]
struct Truth {
    files: u64,
    bytes: u64,
    packages: u64,
}

/// One package of `files` files of varied sizes, in up to four folders.
fn package(dir: &Path, files: u64, rng: &mut Rng, truth: &mut Truth) {
    let folders = ["", "lib", "dist", "lib/sub"];
    let used = (1 + files / 12).min(folders.len() as u64) as usize;
    for i in 0..files {
        let sub = folders[i as usize % used];
        let size = 20 + (rng.next() % 2000) as usize;
        write(&dir.join(sub).join(format!("f{i}.js")), &vec![b'x'; size]);
        truth.files += 1;
        truth.bytes += size as u64;
    }
}

/// A repository with a `node_modules` of `packages` packages (every tenth scoped, a few with
/// nested `node_modules`, a `.bin/` of links) whose file counts spread log-normally, from 1
/// to a few hundred. Returns what it holds below `node_modules`.
fn node_project(root: &Path, packages: u64, seed: u64) -> Truth {
    let mut rng = Rng(seed);
    let mut truth = Truth::default();
    write(&root.join("src/index.js"), b"module.exports = 1;\n");
    write(&root.join(".gitignore"), b"node_modules/\n");
    let nm = root.join("node_modules");
    fs::create_dir_all(nm.join(".bin")).unwrap();
    for i in 0..packages {
        let name = if i % 10 == 0 {
            format!("@scope{}/pkg{i}", i % 3)
        } else {
            format!("pkg{i}")
        };
        let files = rng.log_normal(8.0, 1.2).clamp(1.0, 400.0) as u64;
        package(&nm.join(&name), files, &mut rng, &mut truth);
        truth.packages += 1;
        if i % 25 == 3 {
            let inner = nm.join(&name).join("node_modules/dep");
            package(&inner, 1 + rng.next() % 20, &mut rng, &mut truth);
        }
        if i % 50 == 1 {
            std::os::unix::fs::symlink("../x", nm.join(".bin").join(format!("b{i}"))).unwrap();
        }
    }
    init_and_commit_all(root, "init");
    truth
}

fn check(root: &Path, args: &[&str]) -> Outcome {
    support::wsl_place()
        .args(["check", "--no-probe"])
        .args(args)
        .arg(root)
        .run()
}

fn scan_json(root: &Path, args: &[&str]) -> serde_json::Value {
    let mut all = vec!["--format", "json"];
    all.extend_from_slice(args);
    check(root, &all).ok_json()["scan"].clone()
}

fn n(v: &serde_json::Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a number: {v}"))
}

fn f(v: &serde_json::Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// `find DIR -type f | wc -l`, `-type d`, and the bytes of its files: the truth, independently.
fn walked(dir: &Path) -> (u64, u64, u64) {
    let (mut files, mut dirs, mut bytes) = (0, 0, 0);
    let mut pending = vec![dir.to_path_buf()];
    while let Some(d) = pending.pop() {
        for entry in fs::read_dir(&d).unwrap() {
            let entry = entry.unwrap();
            let meta = entry.path().symlink_metadata().unwrap();
            if meta.is_dir() {
                dirs += 1;
                pending.push(entry.path());
            } else if meta.is_file() {
                files += 1;
                bytes += meta.len();
            }
        }
    }
    (files, dirs, bytes)
}

#[test]
fn a_large_node_modules_is_sampled_and_says_so_in_json_and_in_words() {
    let tmp = tempfile::tempdir().unwrap();
    let truth = node_project(tmp.path(), 300, 7);
    let scan = scan_json(tmp.path(), &[]);
    assert_eq!(scan["sampled"], true, "{scan}");
    // Sampling is not a budget running out.
    assert_eq!(scan["complete"], true, "{scan}");
    let nm = &scan["node_modules"][0];
    let sample = &nm["sample"];
    assert_eq!(n(&sample["packages"]), truth.packages, "{sample}");
    let walked = n(&sample["walked"]);
    // At least the 8 largest and 4 strata of 10; fewer than all.
    assert!((48..truth.packages).contains(&walked), "{sample}");
    assert_eq!(n(&sample["largest_walked"]), 8, "{sample}");
    assert!(f(&sample["files_error"]) > 0.0, "{sample}");
    // Fewer files were walked than the tree holds: the figures are extrapolated.
    assert!(n(&nm["counted"]["files"]) < truth.files, "{nm}");

    // The screen wraps its rows: read it as one line.
    let text = support::text(&check(tmp.path(), &[]));
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        text.contains(&format!(
            "estimated from {walked} of {} packages",
            truth.packages
        )),
        "{text}"
    );
    assert!(text.contains("--exact walks them all"), "{text}");
    assert!(text.contains("node_modules: ~"), "{text}");
}

#[test]
fn exact_walks_every_file_of_the_tree() {
    let tmp = tempfile::tempdir().unwrap();
    let truth = node_project(tmp.path(), 300, 11);
    let (files, dirs, bytes) = walked(&tmp.path().join("node_modules"));
    assert_eq!((files, bytes), (truth.files, truth.bytes));
    let scan = scan_json(tmp.path(), &["--exact"]);
    assert_eq!(scan["sampled"], false, "{scan}");
    let nm = &scan["node_modules"][0];
    assert!(nm.get("sample").is_none(), "{nm}");
    assert_eq!(n(&nm["files"]), files);
    assert_eq!(n(&nm["dirs"]), dirs);
    assert_eq!(n(&nm["bytes"]), bytes);
    assert_eq!(n(&nm["counted"]["files"]), files, "every file walked");
    let text = support::text(&check(tmp.path(), &["--exact"]));
    assert!(!text.contains("estimated from"), "{text}");
}

#[test]
fn sampled_counts_lie_within_the_stated_error() {
    for seed in [3, 19, 43] {
        let tmp = tempfile::tempdir().unwrap();
        node_project(tmp.path(), 400, seed);
        let (files, dirs, bytes) = walked(&tmp.path().join("node_modules"));
        let nm = scan_json(tmp.path(), &[])["node_modules"][0].clone();
        let sample = &nm["sample"];
        let off = |estimate: u64, truth: u64| (estimate as f64 - truth as f64).abs() / truth as f64;
        let (files_off, bytes_off) = (off(n(&nm["files"]), files), off(n(&nm["bytes"]), bytes));
        assert!(
            files_off <= f(&sample["files_error"]),
            "seed {seed}: files {} vs {files}: {files_off:.3} off, stated {}",
            nm["files"],
            sample["files_error"]
        );
        assert!(
            bytes_off <= f(&sample["bytes_error"]),
            "seed {seed}: bytes {} vs {bytes}: {bytes_off:.3} off, stated {}",
            nm["bytes"],
            sample["bytes_error"]
        );
        // The folders follow the files; the stated error is the files'.
        assert!(
            off(n(&nm["dirs"]), dirs) <= 2.0 * f(&sample["files_error"]),
            "seed {seed}: dirs {} vs {dirs}",
            nm["dirs"]
        );
        // The error stated is one a report can stand on: not a shrug.
        assert!(f(&sample["files_error"]) < 0.25, "{sample}");
    }
}

#[test]
fn a_pnpm_store_is_sampled_by_its_packages() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let mut rng = Rng(5);
    let mut truth = Truth::default();
    let store = root.join("node_modules/.pnpm");
    for i in 0..200u64 {
        let (entry, name) = if i % 8 == 0 {
            (format!("@types+t{i}@1.0.{i}"), format!("@types/t{i}"))
        } else {
            (format!("p{i}@2.{i}.0"), format!("p{i}"))
        };
        let files = rng.log_normal(8.0, 1.2).clamp(1.0, 300.0) as u64;
        package(
            &store.join(&entry).join("node_modules").join(&name),
            files,
            &mut rng,
            &mut truth,
        );
        if i % 4 == 0 {
            let link = root.join("node_modules").join(format!("p{i}"));
            std::os::unix::fs::symlink(store.join(&entry).join("node_modules").join(&name), link)
                .unwrap();
        }
    }
    write(&store.join("lock.yaml"), b"lockfileVersion: '9.0'\n");
    write(&root.join("pnpm-lock.yaml"), b"lockfileVersion: '9.0'\n");
    init_and_commit_all(root, "init");
    let (files, _, _) = walked(&root.join("node_modules"));
    let nm = scan_json(root, &[])["node_modules"][0].clone();
    assert_eq!(n(&nm["sample"]["packages"]), 200, "{nm}");
    let off = (n(&nm["files"]) as f64 - files as f64).abs() / files as f64;
    assert!(off <= f(&nm["sample"]["files_error"]), "{nm} vs {files}");
    // The links at the top are counted, never followed.
    assert_eq!(n(&nm["symlinks"]), 50, "{nm}");
}

#[test]
fn a_small_node_modules_is_walked_whole() {
    let tmp = tempfile::tempdir().unwrap();
    let truth = node_project(tmp.path(), 90, 1);
    let scan = scan_json(tmp.path(), &[]);
    assert_eq!(scan["sampled"], false, "{scan}");
    let nm = &scan["node_modules"][0];
    assert!(nm.get("sample").is_none(), "{nm}");
    assert_eq!(n(&nm["files"]), truth.files);
    assert_eq!(n(&nm["bytes"]), truth.bytes);
}

#[test]
fn json_says_where_the_check_spent_its_time() {
    let tmp = tempfile::tempdir().unwrap();
    node_project(tmp.path(), 120, 2);
    let home = tempfile::tempdir().unwrap();
    let out = support::Sandbox::at(home.path())
        .cmd()
        .args(["check", "--format", "json", "--probe-budget-ms", "150"])
        .arg(tmp.path())
        .run();
    let report = out.ok_json();
    let phases = &report["phases"];
    for phase in [
        "scan_ms",
        "hints_ms",
        "git_facts_ms",
        "probe_current_ms",
        "manager_ms",
        "probe_baseline_ms",
        "predict_ms",
        "moved_ms",
        "total_ms",
    ] {
        assert!(phases[phase].is_u64(), "{phase}: {phases}");
    }
    assert_eq!(n(&phases["scan_ms"]), n(&report["scan"]["elapsed_ms"]));
    let parts = n(&phases["scan_ms"]) + n(&phases["probe_current_ms"]);
    assert!(parts <= n(&phases["total_ms"]), "{phases}");
    // Not in a folder that holds no repository... but this is one: no search below.
    assert!(phases["repositories_below_ms"].is_null(), "{phases}");
    // Without probes, their phases did not run.
    let bare = scan_json_report(tmp.path());
    assert!(bare["phases"]["probe_current_ms"].is_null(), "{bare}");
    assert!(bare["phases"]["scan_ms"].is_u64(), "{bare}");
}

fn scan_json_report(root: &Path) -> serde_json::Value {
    check(root, &["--format", "json"]).ok_json()
}

#[test]
fn survey_samples_each_repositorys_node_modules_and_exact_walks_them() {
    let top = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let truth = node_project(&top.path().join("web"), 200, 23);
    node_project(&top.path().join("small"), 20, 29);
    let survey = |extra: &[&str]| {
        let out = support::Sandbox::at(home.path())
            .cmd()
            .args(["survey", "--no-probe", "--format", "json"])
            .args(extra)
            .arg(top.path())
            .run();
        out.ok_json()
    };
    let scan_of = |report: &serde_json::Value, name: &str| {
        report["repositories"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["path"].as_str().unwrap().ends_with(name))
            .unwrap_or_else(|| panic!("no {name} in {report}"))["scan"]
            .clone()
    };
    let sampled = survey(&[]);
    let web = scan_of(&sampled, "/web");
    assert_eq!(web["sampled"], true, "{web}");
    assert_eq!(
        n(&web["node_modules"][0]["sample"]["packages"]),
        truth.packages
    );
    assert_eq!(scan_of(&sampled, "/small")["sampled"], false);
    let exact = survey(&["--exact"]);
    let web = scan_of(&exact, "/web");
    assert_eq!(web["sampled"], false, "{web}");
    assert_eq!(n(&web["node_modules"][0]["files"]), truth.files);
}

#[test]
fn a_next_check_takes_the_figures_again_until_an_install_changes_the_tree() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let root = tmp.path();
    node_project(root, 150, 31);
    write(
        &root.join("node_modules/.package-lock.json"),
        br#"{"lockfileVersion":3}"#,
    );
    let check = |extra: &[&str]| {
        let out = support::Sandbox::at(home.path())
            .cmd()
            .args(["check", "--no-probe", "--format", "json"])
            .args(extra)
            .arg(root)
            .run();
        out.ok_json()["scan"]["node_modules"][0].clone()
    };
    let first = check(&[]);
    assert!(first.get("reused").is_none(), "{first}");
    let next = check(&[]);
    assert_eq!(next["reused"], true, "{next}");
    assert_eq!(next["files"], first["files"]);
    assert_eq!(next["sample"], first["sample"]);
    assert_eq!(n(&next["counted"]["files"]), 0, "nothing walked: {next}");
    // --exact walks whatever is known.
    let exact = check(&["--exact"]);
    assert!(exact.get("reused").is_none(), "{exact}");
    // An install (its record rewritten, a package added) is counted again.
    package(
        &root.join("node_modules/added"),
        500,
        &mut Rng(9),
        &mut Truth::default(),
    );
    write(
        &root.join("node_modules/.package-lock.json"),
        br#"{"lockfileVersion":3,"packages":{}}"#,
    );
    let after = check(&[]);
    assert!(after.get("reused").is_none(), "{after}");
    // The new package, the largest, is walked whole: its 500 files are among those counted.
    assert!(n(&after["counted"]["files"]) >= 500, "{after}");
    assert!(
        n(&after["files"]) > n(&exact["files"]),
        "{after} vs {exact}"
    );
    // Without an install's record nothing says the tree is unchanged: counted every time.
    fs::remove_file(root.join("node_modules/.package-lock.json")).unwrap();
    check(&[]);
    assert!(check(&[]).get("reused").is_none());
}

/// Standard base64 with padding, as a lock writes an integrity.
fn base64(bytes: &[u8]) -> String {
    const ABC: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ABC[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// A project installed by pnpm (lock format 9, store v3) with a store outside it, as on the
/// Linux disk: `packages` store entries under `node_modules/.pnpm/` (every eighth scoped,
/// every fifth with a peer in its folder's name, each linking to two others), links to a
/// quarter of them at the top, `.modules.yaml` naming the store, and the store's index of each
/// package's files. Package 7's install runs a script that wrote a 3 MB file no index lists.
/// With `v10`, the store and `.modules.yaml` are pnpm 10's (`index/`, JSON).
fn pnpm_project(root: &Path, store: &Path, packages: u64, seed: u64, v10: bool) -> Truth {
    let mut rng = Rng(seed);
    let mut truth = Truth::default();
    write(&root.join("src/index.js"), b"export default 1;\n");
    write(&root.join(".gitignore"), b"node_modules/\n");
    let pnpm = root.join("node_modules/.pnpm");
    let mut lock = String::from("lockfileVersion: '9.0'\n\nimporters:\n\n  .: {}\n\npackages:\n\n");
    for i in 0..packages {
        let (name, folder) = if i % 8 == 0 {
            (format!("@types/t{i}"), format!("@types+t{i}@1.0.{i}"))
        } else {
            (format!("p{i}"), format!("p{i}@2.{i}.0"))
        };
        let version = folder.rsplit('@').next().unwrap().to_string();
        let entry = if i % 5 == 0 {
            format!("{folder}_peer@1.0.0")
        } else {
            folder.clone()
        };
        let own = pnpm.join(&entry).join("node_modules").join(&name);
        let files = rng.log_normal(8.0, 1.2).clamp(1.0, 300.0) as u64;
        let mut index = serde_json::Map::new();
        for f in 0..files {
            let rel = ["", "lib/", "dist/", "lib/sub/"][(f % (1 + files / 12).min(4)) as usize];
            let rel = format!("{rel}f{f}.js");
            let size = 20 + rng.next() % 2000;
            write(&own.join(&rel), &vec![b'x'; size as usize]);
            index.insert(rel, serde_json::json!({"size": size, "mode": 420}));
            truth.files += 1;
            truth.bytes += size;
        }
        if i == 7 {
            write(&own.join("bin/tool"), &vec![b'b'; 3 << 20]);
            truth.files += 1;
            truth.bytes += 3 << 20;
        }
        for dep in [(i + 1) % packages, (i + 2) % packages] {
            std::os::unix::fs::symlink(
                "../../x",
                pnpm.join(&entry)
                    .join("node_modules")
                    .join(format!("d{dep}")),
            )
            .unwrap();
        }
        if i % 4 == 0 {
            let link = root.join("node_modules").join(format!("top{i}"));
            std::os::unix::fs::symlink(&own, link).unwrap();
        }
        // Distinct for every package: its number in the first two bytes.
        let mut digest: Vec<u8> = (0..64u64).map(|j| (i * 7 + j * 13 + seed) as u8).collect();
        digest[..2].copy_from_slice(&(i as u16).to_be_bytes());
        let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        let body = serde_json::json!({"name": name, "version": version,
            "requiresBuild": i == 7, "files": index});
        let index_file = if v10 {
            let key = format!("{}@{version}", name.replace('/', "+"));
            store
                .join("index")
                .join(&hex[..2])
                .join(format!("{}-{key}.json", &hex[2..64]))
        } else {
            store
                .join("files")
                .join(&hex[..2])
                .join(format!("{}-index.json", &hex[2..]))
        };
        write(&index_file, body.to_string().as_bytes());
        lock.push_str(&format!(
            "  '{name}@{version}':\n    resolution: {{integrity: sha512-{}}}\n\n",
            base64(&digest)
        ));
        truth.packages += 1;
    }
    write(&root.join("pnpm-lock.yaml"), lock.as_bytes());
    write(&pnpm.join("lock.yaml"), lock.as_bytes());
    let modules = if v10 {
        format!(
            "{{\n  \"layoutVersion\": 5,\n  \"storeDir\": \"{}\"\n}}\n",
            store.display()
        )
    } else {
        format!(
            "layoutVersion: 5\nstoreDir: {}\nvirtualStoreDir: .pnpm\n",
            store.display()
        )
    };
    write(&root.join("node_modules/.modules.yaml"), modules.as_bytes());
    init_and_commit_all(root, "init");
    truth
}

#[test]
fn a_pnpm_tree_is_sampled_by_what_its_store_lists_and_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let store = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let truth = pnpm_project(root, store.path(), 300, 13, false);
    let (files, dirs, bytes) = walked(&root.join("node_modules"));
    let scan = scan_json(root, &[]);
    assert_eq!(scan["sampled"], true, "{scan}");
    let nm = &scan["node_modules"][0];
    let sample = &nm["sample"];
    assert_eq!(n(&sample["packages"]), truth.packages, "{sample}");
    assert!(
        sample["method"].as_str().unwrap().contains("pnpm's store"),
        "{sample}"
    );
    // A few packages in each of the strata and the one whose install ran a script: far
    // fewer than a sample stratified by entries walks.
    let walked_packages = n(&sample["walked"]);
    assert!((10..=40).contains(&walked_packages), "{sample}");
    assert!(n(&nm["counted"]["files"]) < files / 3, "{nm}");
    // The store lists the files themselves: the estimates are close, the script's output
    // (walked whole) included.
    let off = |estimate: u64, truth: u64| (estimate as f64 - truth as f64).abs() / truth as f64;
    assert!(
        off(n(&nm["files"]), files) <= 0.03,
        "files {} vs {files}",
        nm["files"]
    );
    assert!(
        off(n(&nm["bytes"]), bytes) <= 0.03,
        "bytes {} vs {bytes}: {nm}",
        nm["bytes"]
    );
    assert!(
        off(n(&nm["dirs"]), dirs) <= 0.10,
        "dirs {} vs {dirs}",
        nm["dirs"]
    );
    assert!(off(n(&nm["files"]), files) <= f(&sample["files_error"]).max(0.01));
    // The links at the top and the store entries' links to their dependencies are counted,
    // never followed.
    assert!(off(n(&nm["symlinks"]), 75 + 600) <= 0.15, "{nm}");

    let text = support::text(&check(root, &[]));
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        text.contains(&format!(
            "estimated from {walked_packages} of {} packages",
            truth.packages
        )),
        "{text}"
    );

    // --exact walks every file of it.
    let exact = scan_json(root, &["--exact"]);
    let whole = &exact["node_modules"][0];
    assert!(whole.get("sample").is_none(), "{whole}");
    assert_eq!(n(&whole["counted"]["files"]), files, "{whole}");
    assert_eq!(n(&whole["files"]), files);
    assert_eq!(n(&whole["dirs"]), dirs);
    assert_eq!(n(&whole["bytes"]), bytes);
}

#[test]
fn a_pnpm_tree_whose_store_is_gone_is_sampled_by_its_entries() {
    let tmp = tempfile::tempdir().unwrap();
    let store = tempfile::tempdir().unwrap();
    let truth = pnpm_project(tmp.path(), store.path(), 200, 17, false);
    drop(store);
    let nm = scan_json(tmp.path(), &[])["node_modules"][0].clone();
    let sample = &nm["sample"];
    assert_eq!(n(&sample["packages"]), truth.packages, "{sample}");
    assert_eq!(
        sample["method"], "stratified by entries in each package's folder",
        "{sample}"
    );
}

#[test]
fn a_next_check_takes_a_pnpm_trees_figures_again_until_an_install() {
    let tmp = tempfile::tempdir().unwrap();
    let store = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let root = tmp.path();
    pnpm_project(root, store.path(), 150, 19, true);
    let check = || {
        let out = support::Sandbox::at(home.path())
            .cmd()
            .args(["check", "--no-probe", "--format", "json"])
            .arg(root)
            .run();
        out.ok_json()["scan"]["node_modules"][0].clone()
    };
    let first = check();
    assert!(first.get("reused").is_none(), "{first}");
    assert!(n(&first["counted"]["files"]) > 0, "{first}");
    // pnpm 10's store measures it too.
    assert!(
        first["sample"]["method"]
            .as_str()
            .unwrap()
            .contains("pnpm's store"),
        "{first}"
    );
    let next = check();
    assert_eq!(next["reused"], true, "{next}");
    assert_eq!(next["files"], first["files"]);
    assert_eq!(next["sample"], first["sample"]);
    assert_eq!(n(&next["counted"]["files"]), 0, "nothing walked: {next}");
    // pnpm rewrites .modules.yaml on every install.
    write(
        &root.join("node_modules/.modules.yaml"),
        format!(
            "layoutVersion: 5\nstoreDir: {}\nprunedAt: now\n",
            store.path().display()
        )
        .as_bytes(),
    );
    let after = check();
    assert!(after.get("reused").is_none(), "{after}");
}

/// Issue 64's fence, for pnpm's records: `.modules.yaml` (the repository's) names the store, so
/// a store index file, like `node_modules/.pnpm/lock.yaml`, is read as the repository's own
/// files are. A FIFO at either was read with a plain `read` and held the check forever; now
/// both are refused and the store still sizes the other packages.
#[test]
fn a_fifo_in_pnpms_lock_record_or_store_index_never_blocks_the_scan() {
    let tmp = tempfile::tempdir().unwrap();
    let store = tempfile::tempdir().unwrap();
    let root = tmp.path();
    pnpm_project(root, store.path(), 300, 13, true);
    let record = root.join("node_modules/.pnpm/lock.yaml");
    std::fs::remove_file(&record).unwrap();
    support::tree::mkfifo(&record);
    let index = walkdir::WalkDir::new(store.path().join("index"))
        .into_iter()
        .flatten()
        .find(|e| e.file_type().is_file())
        .unwrap()
        .into_path();
    std::fs::remove_file(&index).unwrap();
    support::tree::mkfifo(&index);
    let mut cmd = support::wsl_place();
    cmd.args(["check", "--no-probe", "--format", "json"])
        .arg(root);
    let out = support::bounded(cmd, std::time::Duration::from_secs(30));
    let scan = serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()["scan"].clone();
    let sample = &scan["node_modules"][0]["sample"];
    assert!(
        sample["method"]
            .as_str()
            .unwrap_or_default()
            .contains("pnpm's store"),
        "{scan}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("lock.yaml") && stderr.contains("FIFO"),
        "{stderr}"
    );
}
