//! `doc/wsl-place.1` is generated from the clap definitions and committed, so `man` works without
//! a build. This test fails when the page is stale; `WSL_PLACE_REGENERATE=1 cargo test --release
//! --test it manpage::` rewrites it.

use crate::support;

use clap::CommandFactory;
use clap_mangen::Man;
use clap_mangen::roff::{Roff, bold, roman};
use std::path::{Path, PathBuf};
use std::process::Command;
use wsl_place::facade::commands::cli::Cli;

const REGENERATE_ENV: &str = "WSL_PLACE_REGENERATE";

fn page_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("doc/wsl-place.1")
}

/// The command line as the page shows it: the package version without the commit `--version`
/// adds, so the committed page does not change with every commit.
fn cli() -> clap::Command {
    Cli::command()
        .version(env!("CARGO_PKG_VERSION"))
        .disable_help_subcommand(true)
}

/// One page for the tool and every subcommand: `man wsl-place` is the one page people look for.
/// clap_mangen writes a page per command; here the main page is followed by a section per
/// subcommand, whose own sections become subsections.
fn render() -> String {
    let cmd = cli();
    // Taken before clap propagates the global options into every subcommand: those are
    // documented once, under OPTIONS.
    let subcommands: Vec<clap::Command> = cmd
        .get_subcommands()
        .filter(|sub| !sub.is_hide_set())
        .cloned()
        .collect();
    let top = cmd.clone();
    let man = Man::new(cmd);
    let mut page = Vec::new();
    man.render_title(&mut page).unwrap();
    man.render_name_section(&mut page).unwrap();
    synopsis(&top, "wsl-place", "SH")
        .to_writer(&mut page)
        .unwrap();
    man.render_description_section(&mut page).unwrap();
    man.render_options_section(&mut page).unwrap();

    let mut commands = Roff::default();
    commands.control("SH", ["COMMANDS"]);
    for sub in &subcommands {
        commands.control("TP", []);
        commands.text([bold(format!("wsl-place {}", sub.get_name()))]);
        let about = sub.get_about().map(ToString::to_string).unwrap_or_default();
        commands.text([roman(about)]);
    }
    commands.to_writer(&mut page).unwrap();
    examples(&top, "SH").to_writer(&mut page).unwrap();

    for sub in subcommands {
        let name = format!("wsl-place {}", sub.get_name());
        let sub = sub.bin_name(&name);
        let sub_man = Man::new(sub.clone());
        let mut section = Vec::new();
        synopsis(&sub, &name, "SH").to_writer(&mut section).unwrap();
        sub_man.render_description_section(&mut section).unwrap();
        sub_man.render_options_section(&mut section).unwrap();
        examples(&sub, "SH").to_writer(&mut section).unwrap();
        let mut heading = Roff::default();
        heading.control("SH", [name.to_uppercase().as_str()]);
        heading.to_writer(&mut page).unwrap();
        page.extend(demote_sections(&String::from_utf8(section).unwrap()).bytes());
    }
    for (heading, items) in [
        ("EXIT STATUS", EXIT_STATUS),
        ("ENVIRONMENT", ENVIRONMENT),
        ("FILES", FILES),
    ] {
        listed(heading, items).to_writer(&mut page).unwrap();
    }
    see_also().to_writer(&mut page).unwrap();
    man.render_version_section(&mut page).unwrap();
    String::from_utf8(page).unwrap()
}

const EXIT_STATUS: &[(&str, &str)] = &[
    ("0", "Success; the verdict is below --fail-on."),
    (
        "1",
        "The verdict (survey: the worst one) is at or above --fail-on.",
    ),
    (
        "2",
        "Usage or input error: a path that does not exist or cannot be read, a malformed \
         policy, config file or mountinfo.",
    ),
    (
        "3",
        "Something failed inside the tool or the system, including output that cannot be \
         written.",
    ),
    (
        "4",
        "Another migrate of the same source to the same destination is running; run the same \
         command again once it is done.",
    ),
    (
        "5",
        "Refused because going on would lose data (a copy that changed since, the only copy of \
         something, a copy no longer where the migration made it, a second copy nobody said yes \
         to, a staging folder or a destination that is not this run's to write over); nothing was changed, and the message says what to do.",
    ),
    (
        "130",
        "Interrupted (Ctrl-C). A migration keeps what it copied and verified: run the same \
         command again to resume, or add --abort.",
    ),
];

const ENVIRONMENT: &[(&str, &str)] = &[
    (
        "NO_COLOR",
        "Set to anything: no colour unless --color always.",
    ),
    (
        "CLICOLOR_FORCE",
        "Set and not 0: colour even on a pipe (unless NO_COLOR or --color never).",
    ),
    ("CLICOLOR", "0: no colour on a terminal."),
    (
        "TERM",
        "dumb or unset: no colour, no progress and plain line prompts.",
    ),
    (
        "COLUMNS",
        "The width the human report is laid out for (default: the terminal's, else 80).",
    ),
    (
        "HOME",
        "The default destination (~/src) and the baseline's scratch folder are under it.",
    ),
    (
        "XDG_CACHE_HOME",
        "The cache folder is $XDG_CACHE_HOME/wsl-place (default ~/.cache/wsl-place).",
    ),
    (
        "XDG_STATE_HOME",
        "The state folder is $XDG_STATE_HOME/wsl-place (default ~/.local/state/wsl-place).",
    ),
    (
        "XDG_CONFIG_HOME",
        "The config file is $XDG_CONFIG_HOME/wsl-place/config.toml (default \
         ~/.config/wsl-place/config.toml).",
    ),
    (
        "WSL_PLACE_POLICY",
        "The policy file when --policy is not given; it beats the config file's policy.",
    ),
    (
        "CI",
        "Not consulted: in CI, colour and progress follow TERM and whether the streams are \
         terminals like anywhere else; --format github or --format markdown suit CI logs.",
    ),
    (
        "WSL_DISTRO_NAME, WSL_INTEROP",
        "Set by WSL: tell that this is WSL, which version, and the distribution's name for \
         the \\\\wsl.localhost paths.",
    ),
    (
        "WSL_PLACE_PROC_ROOT",
        "For tests: read version, self/mountinfo and sys/fs/binfmt_misc from this folder \
         instead of /proc.",
    ),
    (
        "WSL_PLACE_ETC_ROOT",
        "For tests: read wsl.conf (the drive mounts' root) from this folder instead of /etc.",
    ),
];

const FILES: &[(&str, &str)] = &[
    (
        ".wsl-place.toml",
        "At a repository's root: the policy that judges it, when neither --policy, \
         WSL_PLACE_POLICY nor the config file names one.",
    ),
    (
        "~/.config/wsl-place/config.toml",
        "Your defaults (in $XDG_CONFIG_HOME when set): destination = \"~/work\" (where \
         migrate puts repositories), policy = \"FILE\" (the default policy), \
         nudge_every_hours = 24 (the shell hook's nudge per repository; 0: every visit). A \
         missing file is no error.",
    ),
    (
        "~/.cache/wsl-place/",
        "The hook's cached results, the package manager's timing and nudge.json (when the \
         shell hook last nudged each repository) (in $XDG_CACHE_HOME when set). Safe to delete.",
    ),
    (
        "HOOKS/pre-commit.wsl-place-chained",
        "The pre-commit hook that was there before wsl-place hook install: run first by the \
         new hook, put back by wsl-place hook uninstall.",
    ),
    (
        "~/.local/state/wsl-place/",
        "What finished migrations leave (in $XDG_STATE_HOME when set): manifests/, every file \
         copied with its CRC32, what a rerun, a sync, --remove-source and --abort check \
         against; moved/, where each source went and when, which check, the hook and survey \
         say at the old place. A manifest an earlier version left beside the destination \
         (DESTINATION.wsl-place-manifest) is read and moved here.",
    ),
    (
        ".NAME.wsl-place-staging",
        "Beside the destination while a migration runs: the copy so far, kept on an \
         interruption for the next run to resume; --abort removes it.",
    ),
];

/// A section of terms, each followed by what it means.
fn listed(heading: &str, items: &[(&str, &str)]) -> Roff {
    let mut roff = Roff::default();
    roff.control("SH", [heading]);
    for (term, meaning) in items {
        roff.control("TP", []);
        roff.text([bold(*term)]);
        roff.text([roman(*meaning)]);
    }
    roff
}

fn see_also() -> Roff {
    let mut roff = Roff::default();
    roff.control("SH", ["SEE ALSO"]);
    roff.text([
        bold("git"),
        roman("(1), "),
        bold("git-status"),
        roman("(1), "),
        bold("git-update-index"),
        roman("(1), "),
        bold("wsl"),
        roman("(1), "),
        bold("mount"),
        roman(
            "(8). The README and docs/ (json.md, policy.md, migrate.md, probe.md, \
               survey.md) in the source tree.",
        ),
    ]);
    roff
}

/// `name [-q|--quiet] [--color WHEN] ... [PATH]`: every option with its value's name, which
/// clap_mangen's own synopsis leaves out.
fn synopsis(cmd: &clap::Command, name: &str, heading: &str) -> Roff {
    let mut parts = vec![bold(name.to_string())];
    for arg in cmd.get_arguments().filter(|arg| !arg.is_hide_set()) {
        let value = arg
            .get_value_names()
            .and_then(|names| names.first())
            .map(ToString::to_string)
            .unwrap_or_else(|| arg.get_id().to_string().to_uppercase());
        let takes_value = arg.get_action().takes_values();
        let mut flag = Vec::new();
        if let Some(short) = arg.get_short() {
            flag.push(format!("-{short}"));
        }
        if let Some(long) = arg.get_long() {
            flag.push(format!("--{long}"));
        }
        let optional = !arg.is_required_set();
        parts.push(roman(if optional { " [" } else { " " }));
        if flag.is_empty() {
            parts.push(clap_mangen::roff::italic(value));
        } else {
            parts.push(bold(flag.join("|")));
            if takes_value {
                parts.push(roman(" "));
                parts.push(clap_mangen::roff::italic(value));
            }
        }
        if optional {
            parts.push(roman("]"));
        }
    }
    if cmd.has_subcommands() {
        parts.push(roman(" "));
        parts.push(clap_mangen::roff::italic("COMMAND"));
    }
    let mut roff = Roff::default();
    roff.control(heading, ["SYNOPSIS"]);
    roff.text(parts);
    roff
}

/// The command's `after_help` (its examples) as a section, lines kept as written: the
/// indentation and the comment lines above each invocation are the point.
fn examples(cmd: &clap::Command, heading: &str) -> Roff {
    let mut roff = Roff::default();
    let Some(text) = cmd.get_after_long_help().or_else(|| cmd.get_after_help()) else {
        return roff;
    };
    let text = text.to_string();
    let body = text.strip_prefix("Examples:\n").unwrap_or(&text);
    roff.control(heading, ["EXAMPLES"]);
    roff.control("nf", []);
    for line in body.lines() {
        roff.text([roman(line)]);
    }
    roff.control("fi", []);
    roff
}

/// `.SH OPTIONS` -> `.SS Options`.
fn demote_sections(roff: &str) -> String {
    roff.lines()
        .map(|line| match line.strip_prefix(".SH ") {
            Some(title) => {
                let title = title.trim_matches('"').to_lowercase();
                let mut chars = title.chars();
                let first = chars.next().map(|c| c.to_uppercase().collect::<String>());
                format!(".SS {}{}", first.unwrap_or_default(), chars.as_str())
            }
            None => line.to_owned(),
        })
        .map(|line| line + "\n")
        .collect()
}

#[test]
fn man_page_is_current() {
    let fresh = render();
    let path = page_path();
    if std::env::var(REGENERATE_ENV).as_deref() == Ok("1") {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &fresh).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == fresh,
        "{} is stale (the clap definitions changed): run `{REGENERATE_ENV}=1 cargo test --release \
         --test it manpage::` and commit the page",
        path.display()
    );
}

/// What `man -l doc/wsl-place.1` shows must name every subcommand and every option of each.
#[test]
fn man_page_renders_every_subcommand_and_option() {
    let Some(text) = man_text(&page_path()) else {
        return;
    };
    let mut cmd = cli();
    cmd.build();
    let mut missing = Vec::new();
    for sub in cmd.get_subcommands() {
        let heading = format!("WSL-PLACE {}", sub.get_name().to_uppercase());
        let Some(section) = section(&text, &heading) else {
            missing.push(heading);
            continue;
        };
        for arg in sub.get_arguments().filter(|arg| !arg.is_hide_set()) {
            // Global options are documented once, under OPTIONS.
            if arg.is_global_set() {
                continue;
            }
            let shown = match (arg.get_long(), arg.get_value_names()) {
                (Some(long), _) => format!("--{long}"),
                (None, Some(names)) => names.first().unwrap().to_string(),
                (None, None) => arg.get_id().to_string().to_uppercase(),
            };
            if !section.contains(&shown) {
                missing.push(format!("{heading}: {shown}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "man -l doc/wsl-place.1 does not show {missing:?}:\n{text}"
    );
}

/// EXIT STATUS, ENVIRONMENT, FILES and SEE ALSO are there, and the synopsis names each value.
#[test]
fn man_page_has_the_reference_sections() {
    let Some(text) = man_text(&page_path()) else {
        return;
    };
    for heading in ["EXIT STATUS", "ENVIRONMENT", "FILES", "SEE ALSO"] {
        assert!(section(&text, heading).is_some(), "no {heading}:\n{text}");
    }
    let environment = section(&text, "ENVIRONMENT").unwrap();
    for name in [
        "NO_COLOR",
        "CLICOLOR_FORCE",
        "XDG_CACHE_HOME",
        "XDG_CONFIG_HOME",
        "XDG_STATE_HOME",
        "COLUMNS",
        "CI",
        "WSL_PLACE_PROC_ROOT",
        "WSL_PLACE_POLICY",
    ] {
        assert!(environment.contains(name), "ENVIRONMENT lacks {name}");
    }
    let files = section(&text, "FILES").unwrap();
    for name in [
        ".wsl-place.toml",
        "config.toml",
        "wsl-place-manifest",
        ".local/state/wsl-place",
        ".cache/wsl-place",
    ] {
        assert!(files.contains(name), "FILES lacks {name}");
    }
    let exit = section(&text, "EXIT STATUS").unwrap();
    for code in ["0", "1", "2", "3", "4", "5", "130"] {
        assert!(
            exit.lines()
                .any(|l| l.split_whitespace().next() == Some(code)),
            "EXIT STATUS lacks {code}"
        );
    }
    let check = section(&text, "WSL-PLACE CHECK").unwrap();
    // man justifies the synopsis: spaces between words vary with its length.
    let flat = check.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains("[--scan-budget-ms MS]"), "{check}");
    assert!(check.contains("[PATH]"), "{check}");
    assert!(text.contains("[--color WHEN]"), "{text}");
}

/// The lines under a top-level heading, up to the next one (headings are not indented).
fn section<'a>(text: &'a str, heading: &str) -> Option<&'a str> {
    let start = text.find(&format!("\n{heading}\n"))? + heading.len() + 2;
    let rest = &text[start..];
    let end = rest
        .match_indices('\n')
        .map(|(i, _)| i + 1)
        .find(|&i| rest[i..].starts_with(|c: char| c.is_ascii_uppercase()))
        .unwrap_or(rest.len());
    Some(&rest[..end])
}

/// The page as `man -l` renders it to a pipe (plain text), with groff's warnings turned into a
/// failure; None after a skip when man is not installed.
fn man_text(page: &Path) -> Option<String> {
    let out = match Command::new("man")
        .arg("-l")
        .arg(page)
        .env("MANWIDTH", "200")
        .env("MAN_KEEP_FORMATTING", "")
        .env("MANROFFOPT", "-ww")
        .output()
    {
        Ok(out) => out,
        Err(e) => {
            support::skip(&format!("man cannot run ({e}); install man-db"));
            return None;
        }
    };
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stderr.trim().is_empty(),
        "man -l {} failed ({}): {stderr}",
        page.display(),
        out.status
    );
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}
