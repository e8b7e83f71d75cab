//! `doc/wsl-place.1` is generated from the clap definitions and committed, so `man` works without
//! a build. This test fails when the page is stale; `WSL_PLACE_REGENERATE=1 cargo test --release
//! --test it manpage::` rewrites it.

use crate::support;

use clap::CommandFactory;
use clap_mangen::Man;
use clap_mangen::roff::{Roff, bold, roman};
use std::path::{Path, PathBuf};
use std::process::Command;
use wsl_place::commands::cli::Cli;

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
    man.render_synopsis_section(&mut page).unwrap();
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
        sub_man.render_synopsis_section(&mut section).unwrap();
        sub_man.render_description_section(&mut section).unwrap();
        sub_man.render_options_section(&mut section).unwrap();
        examples(&sub, "SH").to_writer(&mut section).unwrap();
        let mut heading = Roff::default();
        heading.control("SH", [name.to_uppercase().as_str()]);
        heading.to_writer(&mut page).unwrap();
        page.extend(demote_sections(&String::from_utf8(section).unwrap()).bytes());
    }
    man.render_version_section(&mut page).unwrap();
    String::from_utf8(page).unwrap()
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
