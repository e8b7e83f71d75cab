//! Issue 55: `wsl-place init SHELL` names the binary that printed it; after a switch from
//! `cargo install` to the `.deb` or `uv tool install` that binary is gone, and the hook must run
//! the `wsl-place` on PATH instead of going silent.

use crate::support::{self, Run, Sandbox};

/// Each shell's hook, printed by a copy of the binary that is then removed, runs the
/// `wsl-place` found on PATH, with the hook's own arguments.
#[test]
fn the_hook_falls_back_to_wsl_place_on_path_when_its_binary_is_gone() {
    let sandbox = Sandbox::new();
    let installed = sandbox.path("cargo-bin/wsl-place");
    std::fs::create_dir_all(installed.parent().unwrap()).unwrap();
    std::fs::copy(support::binary_path(), &installed).unwrap();
    let on_path = sandbox.path("usr-bin");
    std::fs::create_dir_all(&on_path).unwrap();
    support::write_executable(
        &on_path.join("wsl-place"),
        "#!/bin/sh\necho \"the wsl-place on PATH ran: $*\"\n",
    );
    let inherited = std::env::var_os("PATH").unwrap_or_default();
    let path =
        std::env::join_paths(std::iter::once(on_path).chain(std::env::split_paths(&inherited)))
            .unwrap();
    for (shell, flag, load, expected) in [
        ("bash", "--norc", "eval \"$(cat hook)\"", "ran: __nudge\n"),
        ("zsh", "-f", "eval \"$(cat hook)\"", "ran: __nudge\n"),
        ("fish", "--no-config", "source hook", "ran: __nudge fish\n"),
    ] {
        if shell != "bash" && !support::have_shell(shell) {
            continue;
        }
        let printed = Sandbox::at(sandbox.home())
            .program(&installed)
            .args(["init", shell])
            .run();
        let hook = String::from_utf8_lossy(&printed.stdout).into_owned();
        assert!(hook.contains(&*installed.to_string_lossy()), "{hook}");
        let folder = tempfile::tempdir().unwrap();
        std::fs::write(folder.path().join("hook"), &hook).unwrap();
        std::fs::remove_file(&installed).unwrap();
        let out = Sandbox::at(sandbox.home())
            .program(shell)
            .args([flag, "-c", &format!("{load}; __wsl_place_nudge")])
            .current_dir(folder.path())
            .env("PATH", &path)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && stdout.ends_with(expected),
            "{shell}: {}",
            support::text(&out)
        );
        std::fs::copy(support::binary_path(), &installed).unwrap();
    }
}
