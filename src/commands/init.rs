//! `wsl-place init bash|zsh|fish`: the shell hook, in the manner of zoxide, starship and direnv
//! (`eval "$(wsl-place init bash)"`). Before a prompt whose working directory changed, the hook
//! runs `wsl-place __nudge`, which prints the cached advisory line for a repository on a slow
//! mount at most once per repository per interval (`assess::nudge`).

use crate::assess::nudge;
use crate::base::error::{ExitCode, Result};
use crate::host::HostEnv;
use clap::ValueEnum;

/// The hidden subcommand the hook calls. It is served before clap parses anything (as the
/// probe's worker is), so a prompt pays for no argument parsing and no Ctrl-C thread.
pub const NUDGE: &str = nudge::COMMAND;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Shell {
    Bash,
    Zsh,
    Fish,
}

pub fn run(shell: Shell) -> Result<ExitCode> {
    let exe = std::env::current_exe()
        .ok()
        .and_then(|p| p.to_str().map(String::from))
        .unwrap_or_else(|| "wsl-place".to_string());
    super::print(&script(shell, &exe))?;
    Ok(ExitCode::Ok)
}

/// The hook for `shell`, calling the binary at `exe` (a full path: no PATH search per prompt,
/// and the same binary that printed it), or `wsl-place` on PATH once `exe` is gone.
pub fn script(shell: Shell, exe: &str) -> String {
    match shell {
        Shell::Bash => BASH.replace("@EXE@", &posix_quote(exe)),
        Shell::Zsh => ZSH.replace("@EXE@", &posix_quote(exe)),
        Shell::Fish => FISH.replace("@EXE@", &fish_quote(exe)),
    }
}

// Every shell compares $PWD with the last one seen before each prompt and does nothing else
// when it did not change; the first prompt counts as a change (a terminal opened in a
// repository is a visit). A binary removed since the hook was loaded (a switch from `cargo
// install` to the .deb or `uv tool install`) gives way to the `wsl-place` on PATH, as the git
// hook does; with none there it does nothing rather than print an error at every prompt, and no
// failure of the hook's ends a shell under `set -e`
// (errexit). bash keeps $? for the prompt commands after it, except under `set -e`, where a
// failing return would end the shell; zsh and fish keep it around their hooks themselves.
const BASH: &str = r#"# wsl-place shell hook for bash: eval "$(wsl-place init bash)" in ~/.bashrc
__wsl_place_nudge() {
    local status=$?
    if [[ "${__wsl_place_pwd-}" != "$PWD" ]]; then
        __wsl_place_pwd=$PWD
        if [[ -x @EXE@ ]]; then
            @EXE@ __nudge || :
        elif command -v wsl-place >/dev/null 2>&1; then
            wsl-place __nudge || :
        fi
    fi
    [[ $- == *e* ]] || return "$status"
}
if [[ "${PROMPT_COMMAND[*]-}" != *__wsl_place_nudge* ]]; then
    if [[ "$(declare -p PROMPT_COMMAND 2>/dev/null)" == "declare -a"* ]]; then
        PROMPT_COMMAND=(__wsl_place_nudge "${PROMPT_COMMAND[@]}")
    else
        PROMPT_COMMAND="__wsl_place_nudge${PROMPT_COMMAND:+;$PROMPT_COMMAND}"
    fi
fi
"#;

const ZSH: &str = r#"# wsl-place shell hook for zsh: eval "$(wsl-place init zsh)" in ~/.zshrc
__wsl_place_nudge() {
    if [[ "${__wsl_place_pwd-}" != "$PWD" ]]; then
        __wsl_place_pwd=$PWD
        if [[ -x @EXE@ ]]; then
            @EXE@ __nudge || :
        elif command -v wsl-place >/dev/null 2>&1; then
            wsl-place __nudge || :
        fi
    fi
}
typeset -ga precmd_functions
if (( ! ${precmd_functions[(Ie)__wsl_place_nudge]} )); then
    precmd_functions=(__wsl_place_nudge $precmd_functions)
fi
"#;

// fish is told so: the line's command is then quoted in fish's words.
const FISH: &str = r#"# wsl-place shell hook for fish: wsl-place init fish | source, in ~/.config/fish/config.fish
function __wsl_place_nudge --on-event fish_prompt
    if test "$__wsl_place_pwd" != "$PWD"
        set -g __wsl_place_pwd $PWD
        if test -x @EXE@
            @EXE@ __nudge fish
        else if command -q wsl-place
            wsl-place __nudge fish
        end
    end
end
"#;

/// `text` as one word for sh, bash and zsh.
fn posix_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// `text` as one word for fish, whose single quotes take `\'` and `\\`.
fn fish_quote(text: &str) -> String {
    format!("'{}'", text.replace('\\', r"\\").replace('\'', r"\'"))
}

/// Serves `wsl-place __nudge [fish]` when that is what was asked: prints the line the hook is
/// due, on standard error as direnv does, within [`nudge::BUDGET`] of its start, and always
/// exits 0 (a prompt hook that fails only disturbs). `__nudge --learn` is its background half.
pub fn nudge_if_asked() -> Option<i32> {
    let started = std::time::Instant::now();
    let mut args = std::env::args_os().skip(1);
    if args.next().is_none_or(|a| a != NUDGE) {
        return None;
    }
    let mode = args.next();
    let env = HostEnv::from_process();
    // The kernel's name for the working directory: canonical, and free of round trips to a
    // slow mount, unlike resolving $PWD.
    let Ok(dir) = std::env::current_dir() else {
        return Some(0);
    };
    if mode.as_deref() == Some(std::ffi::OsStr::new(nudge::LEARN)) {
        if let Some(answer) = nudge::learn(&env, &dir) {
            // Nobody may be listening any more: the answer is in the state file too.
            let _ =
                std::io::Write::write_all(&mut std::io::stdout(), format!("{answer}\n").as_bytes());
        }
        return Some(0);
    }
    // A prompt is no place for the config file's mistakes: what is right in it is used.
    let every_secs = super::config::UserConfig::load_for_hook(&env)
        .0
        .nudge_every_secs();
    let settings = nudge::Settings {
        every_secs,
        fish: mode.as_deref() == Some(std::ffi::OsStr::new(nudge::FISH)),
        deadline: started + nudge::BUDGET,
    };
    if let Some(line) = nudge::run(&env, &dir, &settings) {
        let _ = std::io::Write::write_all(&mut std::io::stderr(), format!("{line}\n").as_bytes());
    }
    Some(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn odd_paths_stay_one_word() {
        assert_eq!(posix_quote("/a b/it's"), r"'/a b/it'\''s'");
        assert_eq!(fish_quote(r"/a\b/it's"), r"'/a\\b/it\'s'");
        for shell in [Shell::Bash, Shell::Zsh, Shell::Fish] {
            assert!(script(shell, "/x").contains("'/x' __nudge"), "{shell:?}");
            assert!(script(shell, "/x").contains("-x '/x'"), "{shell:?}");
        }
    }
}
