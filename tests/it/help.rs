//! `--help` as a person reads it: examples on every command, global options apart, and each
//! command offering only the options that apply to it.

use crate::support;
use clap::CommandFactory;
use wsl_place::facade::commands::cli::Cli;

fn help(args: &[&str]) -> String {
    let output = support::wsl_place()
        .args(args)
        .arg("--help")
        .env("COLUMNS", "100")
        .output()
        .unwrap();
    assert!(output.status.success(), "{args:?} --help failed");
    String::from_utf8(output.stdout).unwrap()
}

/// Every subcommand clap knows, as `wsl-place help` lists them (less `help` itself).
fn commands() -> Vec<String> {
    let commands: Vec<String> = Cli::command()
        .get_subcommands()
        .filter(|command| !command.is_hide_set())
        .map(|command| command.get_name().to_string())
        .collect();
    assert!(commands.len() >= 7, "{commands:?}");
    commands
}

#[test]
fn every_command_shows_examples_that_name_it() {
    let top = help(&[]);
    assert!(top.contains("\nExamples:\n"), "{top}");
    for command in commands() {
        let command = command.as_str();
        let text = help(&[command]);
        let examples = text
            .split("\nExamples:\n")
            .nth(1)
            .unwrap_or_else(|| panic!("{command} --help has no examples:\n{text}"));
        // A line that runs it, not a comment: `wsl-place init bash` sits inside `eval "$(..)"`.
        let invocations = examples
            .lines()
            .filter(|l| !l.trim_start().starts_with('#'))
            .filter(|l| l.contains(&format!("wsl-place {command}")))
            // Short enough for a 60-column terminal to show unwrapped.
            .filter(|l| l.len() <= 62)
            .count();
        assert!(
            invocations >= 3,
            "{command} --help shows {invocations} examples:\n{examples}"
        );
    }
}

#[test]
fn global_options_have_their_own_heading() {
    for args in [&[][..], &["check"], &["completions"]] {
        let text = help(args);
        let (options, global) = text
            .split_once("\nGlobal options:\n")
            .unwrap_or_else(|| panic!("{args:?} --help has no global heading:\n{text}"));
        assert!(global.contains("--color <WHEN>"), "{text}");
        assert!(!options.contains("--color"), "{text}");
    }
}

#[test]
fn options_appear_only_where_they_apply() {
    let check = help(&["check"]);
    for option in ["--format", "--policy", "--quiet", "--advisory"] {
        assert!(check.contains(option), "check --help lacks {option}");
    }
    for command in ["migrate", "probe"] {
        let text = help(&[command]);
        assert!(
            !text.contains("--advisory"),
            "{command} mentions --advisory:\n{text}"
        );
        assert!(text.contains("--quiet"), "{text}");
        for format in ["human", "json", "markdown", "github"] {
            assert!(
                text.contains(format),
                "{command} does not offer {format}:\n{text}"
            );
        }
    }
    let completions = help(&["completions"]);
    for option in ["--format", "--policy", "--quiet"] {
        assert!(
            !completions.contains(option),
            "completions --help lists {option}:\n{completions}"
        );
    }
}

#[test]
fn migrate_help_explains_resume_staging_and_yes() {
    let text = help(&["migrate"]);
    for words in ["staging", "resumes", "--yes accepts", "--abort"] {
        assert!(
            text.contains(words),
            "migrate --help lacks {words:?}:\n{text}"
        );
    }
}

/// Issue 55: `survey --help` offered `--fresh` and said survey "always measures afresh";
/// `migrate --format`'s line left out `github`, which it accepts.
#[test]
fn help_says_what_survey_does_with_fresh_and_every_format_migrate_takes() {
    let survey = help(&["survey"])
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(survey.contains("--fresh"), "{survey}");
    assert!(!survey.contains("always measures afresh"), "{survey}");
    // Issue 66: it said "changes nothing" of an option survey now honours.
    assert!(!survey.contains("changes nothing"), "{survey}");
    assert!(
        survey.contains("survey times each package manager again too"),
        "{survey}"
    );
    let migrate = help(&["migrate"]);
    // The option's own sentence, before its list of values (clap wraps it).
    let line = migrate
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("--format"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(" ");
    for format in ["JSON", "markdown", "GitHub Actions annotations"] {
        assert!(line.contains(format), "{line:?} lacks {format}:\n{migrate}");
    }
}
