//! The ways a user installs the tool without Rust: the `.deb` and the Python wheel, installed and
//! used as a user would, and the completion scripts they carry.
//!
//! The artefacts are built outside the test binary (`cargo deb`, `maturin build --release`), as
//! `.ci/run` does before the tests; a test whose artefact is missing skips, which fails under
//! `WSL_PLACE_REQUIRE_FUSE=1`. The `.deb` goes into a throwaway dpkg root (`dpkg --root`), never
//! into the machine's own `/usr`.

use crate::support::{self, Sandbox};

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

const REGENERATE_ENV: &str = "WSL_PLACE_REGENERATE";

/// The committed completion scripts, by shell: the `.deb` installs these files, so they must be
/// what `wsl-place completions SHELL` prints today.
const COMPLETIONS: [(&str, &str); 3] = [
    ("bash", "doc/completions/wsl-place.bash"),
    ("zsh", "doc/completions/_wsl-place"),
    ("fish", "doc/completions/wsl-place.fish"),
];

fn repo_file(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(relative)
}

fn ok(output: &Output, what: &str) -> String {
    assert!(
        output.status.success(),
        "{what} failed ({}):\n{}{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn run(cmd: &mut Command, what: &str) -> String {
    let output = cmd
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    ok(&output, what)
}

#[test]
fn committed_completion_scripts_are_current() {
    let regenerate = std::env::var(REGENERATE_ENV).as_deref() == Ok("1");
    for (shell, relative) in COMPLETIONS {
        let printed = run(
            support::wsl_place().args(["completions", shell]),
            &format!("completions {shell}"),
        );
        let path = repo_file(relative);
        if regenerate {
            std::fs::write(&path, &printed).unwrap();
            continue;
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == printed,
            "{relative} is not what `wsl-place completions {shell}` prints; regenerate it with \
             {REGENERATE_ENV}=1 cargo test --release --test it packaging:: and commit it"
        );
    }
}

/// The newest file in `folder` whose name starts with `prefix` and ends with `suffix`, or a skip.
fn artefact(folder: &str, prefix: &str, suffix: &str, built_by: &str) -> Option<PathBuf> {
    let found = std::fs::read_dir(repo_file(folder))
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| {
            path.file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| name.starts_with(prefix) && name.ends_with(suffix))
        })
        .max_by_key(|path| path.metadata().and_then(|m| m.modified()).ok());
    if found.is_none() {
        support::skip(&format!(
            "no {prefix}*{suffix} in {folder}: `{built_by}` builds it"
        ));
    }
    found
}

/// Every entry below `root` that is not a folder, relative to it.
fn files_below(root: &Path) -> Vec<PathBuf> {
    walkdir::WalkDir::new(root)
        .into_iter()
        .map(|entry| entry.unwrap())
        .filter(|entry| !entry.file_type().is_dir())
        .map(|entry| entry.path().strip_prefix(root).unwrap().to_path_buf())
        .collect()
}

/// A dpkg root of its own: the database folders dpkg expects, nothing else.
fn dpkg_root() -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    for dir in [
        "var/lib/dpkg/info",
        "var/lib/dpkg/updates",
        "var/lib/dpkg/triggers",
    ] {
        std::fs::create_dir_all(root.path().join(dir)).unwrap();
    }
    std::fs::write(root.path().join("var/lib/dpkg/status"), "").unwrap();
    root
}

fn dpkg(sandbox: &Sandbox, root: &Path) -> Command {
    let mut cmd = sandbox.program("dpkg");
    // git and libc6 are the machine's, not in this root's database; no maintainer scripts run
    // outside a chroot, and the package has none.
    cmd.arg(format!("--root={}", root.display()))
        .args([
            "--force-depends",
            "--force-not-root",
            "--force-script-chrootless",
        ])
        .args(["--log=/dev/null"]);
    cmd
}

#[test]
#[ignore = "needs dpkg and the .deb built by `cargo deb` (.ci/run builds it)"]
fn deb_installs_the_binary_man_page_and_completions_and_removes_them() {
    let Some(deb) = artefact("target/debian", "wsl-place_", ".deb", "cargo deb") else {
        return;
    };
    let sandbox = Sandbox::new();
    let root = dpkg_root();
    run(
        dpkg(&sandbox, root.path()).arg("--install").arg(&deb),
        "dpkg --install",
    );
    let usr = root.path().join("usr");

    let version = run(
        sandbox.program(usr.join("bin/wsl-place")).arg("--version"),
        "wsl-place --version",
    );
    assert!(
        version.starts_with(&format!("wsl-place {}", env!("CARGO_PKG_VERSION"))),
        "{version}"
    );
    let page = run(
        sandbox
            .program("man")
            .args(["-w", "wsl-place"])
            .env("MANPATH", usr.join("share/man")),
        "man -w wsl-place",
    );
    assert_eq!(
        page.trim(),
        usr.join("share/man/man1/wsl-place.1.gz")
            .display()
            .to_string()
    );
    for installed in [
        "share/bash-completion/completions/wsl-place",
        "share/zsh/vendor-completions/_wsl-place",
        "share/fish/vendor_completions.d/wsl-place.fish",
        "share/doc/wsl-place/copyright",
        "share/doc/wsl-place/CHANGELOG.md",
        "share/doc/wsl-place/LICENSE-MIT",
        "share/doc/wsl-place/LICENSE-APACHE",
    ] {
        assert!(usr.join(installed).is_file(), "{installed} not installed");
    }
    assert!(
        bash_tab_completes(&sandbox, &usr),
        "bash did not complete `wsl-place compl<Tab>` from the installed script"
    );

    run(
        dpkg(&sandbox, root.path()).args(["--purge", "wsl-place"]),
        "dpkg --purge",
    );
    let left: Vec<PathBuf> = files_below(root.path())
        .into_iter()
        .filter(|path| !path.starts_with("var/lib/dpkg"))
        .collect();
    assert!(left.is_empty(), "dpkg --purge left {left:?}");
}

/// Types `wsl-place compl<Tab>` into an interactive bash on a terminal (`script` makes the pty),
/// with bash-completion loading scripts from the installed `share` folder, then turns the
/// completed line into an `echo` (Ctrl-A, `echo `, Enter) so it prints instead of running.
fn bash_tab_completes(sandbox: &Sandbox, usr: &Path) -> bool {
    let loader = Path::new("/usr/share/bash-completion/bash_completion");
    if !loader.is_file() {
        support::skip("bash-completion is not installed (apt-get install bash-completion)");
        return true;
    }
    let rc = sandbox.path("bashrc");
    std::fs::write(
        &rc,
        format!(
            "PS1='$ '\nPATH={bin}:$PATH\nsource {loader}\n",
            bin = usr.join("bin").display(),
            loader = loader.display()
        ),
    )
    .unwrap();
    let mut child = sandbox
        .program("script")
        .args(["-q", "-e", "-c"])
        .arg(format!("bash --rcfile {} -i", rc.display()))
        .arg("/dev/null")
        // bash-completion looks for a command's script in $XDG_DATA_DIRS/bash-completion/completions.
        .env("XDG_DATA_DIRS", usr.join("share"))
        .env("TERM", "dumb")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("script (util-linux) runs bash on a pty");
    let mut input = child.stdin.take().unwrap();
    // Each step waits for bash: the rc file, then the completion (which loads the script).
    for keys in ["", "wsl-place compl\t", "\x01echo DONE \n", "exit\n"] {
        std::thread::sleep(Duration::from_millis(700));
        input.write_all(keys.as_bytes()).unwrap();
        input.flush().unwrap();
    }
    drop(input);
    let output = finished_within(child, Duration::from_secs(20));
    let screen = String::from_utf8_lossy(&output.stdout);
    screen.contains("DONE wsl-place completions")
}

/// The child's output once it exits, draining its pipes meanwhile; killed and failed after `limit`.
fn finished_within(child: std::process::Child, limit: Duration) -> Output {
    let pid = child.id();
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || sender.send(child.wait_with_output()));
    match receiver.recv_timeout(limit) {
        Ok(output) => output.unwrap(),
        Err(_) => {
            if let Some(pid) = rustix::process::Pid::from_raw(pid as i32) {
                let _ = rustix::process::kill_process(pid, support::Signal::KILL);
            }
            panic!("bash on a pty did not exit within {limit:?}");
        }
    }
}

/// A virtualenv of its own with the wheel installed by pip, and `uv tool install` of the same
/// file into folders of its own, each then running `wsl-place --version`.
#[test]
#[ignore = "needs python3 and the wheel built by `maturin build --release` (.ci/run builds it)"]
fn wheel_installs_with_pip_and_uv_tool_install() {
    let Some(wheel) = artefact(
        "target/wheels",
        "wsl_place-",
        ".whl",
        "maturin build --release",
    ) else {
        return;
    };
    let sandbox = Sandbox::new();
    let venv = sandbox.path("venv");
    run(
        sandbox.program("python3").args(["-m", "venv"]).arg(&venv),
        "python3 -m venv",
    );
    run(
        sandbox
            .program(venv.join("bin/pip"))
            .args([
                "install",
                "--quiet",
                "--no-index",
                "--disable-pip-version-check",
            ])
            .arg(&wheel),
        "pip install the wheel",
    );
    let version = run(
        sandbox.program(venv.join("bin/wsl-place")).arg("--version"),
        "wsl-place --version from the virtualenv",
    );
    assert!(version.starts_with("wsl-place "), "{version}");

    let Some(uv) = uv() else { return };
    // uv keeps its tools, their commands and its cache below the sandbox's HOME by default.
    let bin = sandbox.path(".local/bin");
    run(
        sandbox
            .program(&uv)
            .args(["tool", "install", "--offline"])
            .arg(&wheel)
            .env("UV_TOOL_BIN_DIR", &bin),
        "uv tool install the wheel",
    );
    let version = run(
        sandbox.program(bin.join("wsl-place")).arg("--version"),
        "wsl-place --version from uv's tool folder",
    );
    assert!(version.starts_with("wsl-place "), "{version}");
}

/// uv on PATH, or a skip naming how CI gets it.
fn uv() -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|dir| dir.join("uv"))
            .find(|candidate| candidate.is_file())
    });
    if found.is_none() {
        support::skip("uv is not installed (.ci/run installs it with its installer)");
    }
    found
}
