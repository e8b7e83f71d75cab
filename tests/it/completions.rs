//! The completion scripts, loaded into real shells and asked to complete, as a person's Tab would.
//!
//! bash is always there and always tested. zsh and fish are tested where they are installed;
//! elsewhere the test skips (`support::skip`), which fails under WSL_PLACE_REQUIRE_FUSE=1: `.ci/run`
//! installs both.

use crate::support;

use std::path::Path;

fn script(shell: &str) -> String {
    let output = support::wsl_place()
        .args(["completions", shell])
        .output()
        .unwrap();
    assert!(output.status.success(), "completions {shell} failed");
    String::from_utf8(output.stdout).unwrap()
}

fn lines(output: std::process::Output, what: &str) -> Vec<String> {
    assert!(
        output.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let mut words: Vec<String> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|l| l.split('\t').next().unwrap_or("").trim().to_string())
        .filter(|l| !l.is_empty())
        .collect();
    words.sort();
    words.dedup();
    words
}

/// What bash offers for the command line `line` (the cursor at its end), the way readline
/// calls the function the script registered with `complete -F`.
fn bash_complete(script_path: &Path, line: &str) -> Vec<String> {
    let driver = r#"
source "$1" || exit 3
fn=$(complete -p wsl-place | sed -n 's/.* -F \([^ ]*\) .*/\1/p')
[ -n "$fn" ] || { echo "the script registers no completion function" >&2; exit 4; }
read -r -a COMP_WORDS <<< "$2"
case "$2" in *" ") COMP_WORDS+=("") ;; esac
COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
COMP_LINE=$2
COMP_POINT=${#COMP_LINE}
COMPREPLY=()
"$fn" wsl-place "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
printf '%s\n' "${COMPREPLY[@]}"
"#;
    let output = support::Sandbox::shared()
        .program("bash")
        .args(["--norc", "--noprofile", "-c", driver, "driver"])
        .arg(script_path)
        .arg(line)
        .output()
        .unwrap();
    lines(output, &format!("bash completing {line:?}"))
}

#[test]
fn bash_completes_subcommands_and_their_options() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("wsl-place.bash");
    std::fs::write(&path, script("bash")).unwrap();

    assert_eq!(bash_complete(&path, "wsl-place check --fa"), ["--fail-on"]);
    assert_eq!(bash_complete(&path, "wsl-place ch"), ["check"]);
    assert_eq!(
        bash_complete(&path, "wsl-place migrate --dr"),
        ["--dry-run"]
    );
    assert_eq!(
        bash_complete(&path, "wsl-place check --fail-on "),
        ["advise", "move", "never"]
    );
    let shells = bash_complete(&path, "wsl-place completions ");
    assert!(shells.contains(&"zsh".to_string()), "{shells:?}");
}

#[test]
fn zsh_completes_subcommands_and_their_options() {
    if !support::have_shell("zsh") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("_wsl-place"), script("zsh")).unwrap();
    // zle only completes inside an interactive shell on a terminal: drive one through zpty,
    // with a widget that records every candidate the completion system adds.
    let driver = r#"
zmodload zsh/zpty || exit 3
local dir=$1 hits=$2 words=$3 buf= chunk=
wait_for() {
    local deadline=$(( SECONDS + 60 ))
    while (( SECONDS < deadline )); do
        if zpty -r -t z chunk; then
            buf+=$chunk
            [[ $buf == *"$1"* ]] && { buf=; return 0 }
        else
            sleep 0.05
        fi
    done
    print -u2 "timed out waiting for $1; saw: $buf"
    zpty -d z
    exit 2
}
zpty z zsh -f -i || exit 3
zpty -w z "PROMPT=''; fpath=(${(q)dir} \$fpath); autoload -U compinit; compinit -u -D; print READY\$((1+1))"
wait_for READY2
zpty -w z '_cap() { compadd() { local -a hit; builtin compadd -O hit "$@"; print -rl -- $hit >> '${(q)hits}'; builtin compadd "$@" }; _main_complete; unfunction compadd }; zle -C cap complete-word _cap; bindkey "^T" cap; print BOUND$((1+1))'
wait_for BOUND2
zpty -w -n z "$words"$'\x14\x15'
zpty -w z 'print DONE$((1+1))'
wait_for DONE2
zpty -d z
"#;
    let complete = |line: &str| {
        let hits = dir.path().join("hits");
        let _ = std::fs::remove_file(&hits);
        let output = support::Sandbox::shared()
            .program("zsh")
            .args(["-f", "-c", driver, "driver"])
            .arg(dir.path())
            .arg(&hits)
            .arg(line)
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "zsh completing {line:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let text = std::fs::read_to_string(&hits).unwrap_or_default();
        let mut words: Vec<String> = text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(String::from)
            .collect();
        words.sort();
        words.dedup();
        words
    };
    assert_eq!(complete("wsl-place check --fa"), ["--fail-on"]);
    assert_eq!(complete("wsl-place ch"), ["check"]);
    assert_eq!(complete("wsl-place migrate --dr"), ["--dry-run"]);
    assert_eq!(
        complete("wsl-place check --fail-on "),
        ["advise", "move", "never"]
    );
}

#[test]
fn fish_completes_subcommands_and_their_options() {
    if !support::have_shell("fish") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("wsl-place.fish");
    std::fs::write(&path, script("fish")).unwrap();
    let complete = |line: &str| {
        let output = support::Sandbox::shared()
            .program("fish")
            .args(["--no-config", "-c", "source $argv[1]; complete -C $argv[2]"])
            .arg(&path)
            .arg(line)
            .output()
            .unwrap();
        lines(output, &format!("fish completing {line:?}"))
    };
    assert_eq!(complete("wsl-place check --fa"), ["--fail-on"]);
    assert_eq!(complete("wsl-place ch"), ["check"]);
    assert_eq!(complete("wsl-place migrate --dr"), ["--dry-run"]);
    assert_eq!(
        complete("wsl-place check --fail-on "),
        ["advise", "move", "never"]
    );
}
#[test]
fn completions_offers_no_options_that_do_not_apply_to_it() {
    let script = script("bash");
    let section = script
        .split("__subcmd__completions)")
        .nth(1)
        .and_then(|rest| rest.split(";;").next())
        .expect("the completions subcommand has a section");
    for option in ["--format", "--policy"] {
        assert!(
            !section.contains(option),
            "completions offers {option}: {section}"
        );
    }
}
