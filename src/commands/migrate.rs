//! `wsl-place migrate [PATH]`: asks, copies, verifies, fixes up, and reports on the terminal.

use crate::base::error::{ExitCode, Failure, Result};
use crate::commands::cli::{GlobalArgs, MigrateArgs};
use crate::commands::config::UserConfig;
use crate::decide::policy;
use crate::host::HostEnv;
use crate::migrate::{self, MigrationReport, PlanDocument};
use crate::report::{self, Format, Output};
use crate::store::moved::Moved;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;

/// What `migrate` was asked to do.
pub struct Settings {
    pub options: migrate::Options,
    pub output: Output,
    pub policy: Option<PathBuf>,
    pub config: UserConfig,
}

impl Settings {
    pub fn new(
        global: &GlobalArgs,
        args: &MigrateArgs,
        env: &HostEnv,
        config: UserConfig,
    ) -> Result<Self> {
        refuse_conflicting(args)?;
        Ok(Self {
            options: migrate::Options {
                path: args.path.clone(),
                to: args.to.clone(),
                mode: match (args.abort, args.sync) {
                    (true, _) => migrate::Mode::Abort,
                    (false, true) => migrate::Mode::Sync,
                    (false, false) => migrate::Mode::Move,
                },
                consent: match (args.dry_run, args.yes) {
                    (true, _) => migrate::Consent::DryRun,
                    (false, true) => migrate::Consent::Yes,
                    (false, false) => migrate::Consent::Ask,
                },
                remove_source: args.remove_source,
                skip_unreadable: args.skip_unreadable,
                skip_node_modules: args.skip_node_modules,
            },
            output: super::output(global, args.format, args.quiet, env),
            policy: config.policy(args.policy.as_deref()),
            config,
        })
    }
}

/// `--abort` removes an interrupted run's staging and nothing else: with `--remove-source` it
/// would be asked to delete the source it just gave up copying, and with `--dry-run` to change
/// nothing while removing a folder.
fn refuse_conflicting(args: &MigrateArgs) -> Result<()> {
    let other = match (args.remove_source, args.dry_run) {
        (true, _) => "--remove-source",
        (false, true) => "--dry-run",
        (false, false) => return Ok(()),
    };
    if !args.abort {
        return Ok(());
    }
    Err(Failure::input(format!(
        "--abort cannot be combined with {other}: --abort only removes an interrupted migration's staging folder; run it on its own, then migrate again with {other} if you still want it."
    )))
}

pub fn run(env: &HostEnv, settings: &Settings) -> Result<ExitCode> {
    let source =
        super::whole_repository(env, &settings.options.path, settings.output.quiet, "moving")?;
    let (policy, policy_source) = policy::load(settings.policy.as_deref(), &source)?;
    let (policy, ignored) = policy.as_trusted(&policy_source);
    let policy = settings.config.with_destination(policy);
    let options = migrate::Options {
        path: source,
        ..settings.options.clone()
    };
    let root = policy.migrate_root(env.home().as_deref());
    let terminal = Terminal {
        settings,
        interactive: std::io::stderr().is_terminal() && std::io::stdin().is_terminal(),
    };
    if let Some(ignored) = ignored {
        terminal.note(&format!("{ignored}\n"))?;
    }
    let code = migrate::run(env, &options, &terminal, root.as_deref())?;
    dry_run_said(settings)?;
    Ok(code)
}

/// The last line of a dry run, whichever way it ended (the plan, a copy waiting to be finished,
/// a finished migration's report): that nothing was copied or changed. JSON says it in its
/// `dry_run` field instead, so standard output stays one document.
fn dry_run_said(settings: &Settings) -> Result<()> {
    let output = &settings.output;
    if !settings.options.consent.dry_run() || output.quiet {
        return Ok(());
    }
    match output.format {
        Format::Human => super::print("Dry run: nothing was copied or changed.\n"),
        Format::Markdown => super::print("\n*Dry run: nothing was copied or changed.*\n"),
        // JSON has its `dry_run` field; annotations are all a GitHub run reads.
        Format::Json | Format::Github => Ok(()),
    }
}

/// The person at the terminal (or the script reading its output).
struct Terminal<'a> {
    settings: &'a Settings,
    interactive: bool,
}

impl Terminal<'_> {
    /// Prints to standard output; a failed write is an error, so a script never takes an empty
    /// plan or report for success.
    fn out(&self, text: &str) -> Result<()> {
        if self.settings.output.quiet {
            return Ok(());
        }
        super::print(text)
    }

    /// A sentence for the person (not part of any machine-readable output).
    fn note(&self, text: &str) -> Result<()> {
        // The last gate for a name in a sentence (no report renders a note): no control or
        // bidirectional character of one reaches the terminal or a CI log.
        let text = &crate::base::pathtext::neutralized(text);
        if self.settings.output.format != Format::Json {
            return self.out(text);
        }
        // Standard output must parse as the JSON report alone; the sentence is for the person.
        if self.settings.output.quiet {
            return Ok(());
        }
        let mut stderr = std::io::stderr().lock();
        let _ = stderr.write_all(text.as_bytes());
        Ok(())
    }
}

impl migrate::Ui for Terminal<'_> {
    fn interactive(&self) -> bool {
        self.interactive
    }

    fn confirm(&self, prompt: &str, default: bool) -> Result<bool> {
        let prompt = &crate::base::pathtext::neutralized(prompt);
        if !self.settings.output.live {
            return confirm_by_line(prompt, default);
        }
        let term = console::Term::stderr();
        // dialoguer redraws only the prompt's last row once answered: a prompt wider than the
        // terminal would show its first rows twice. Its rows are laid out here, at words and
        // paths, room left for " [y/n] yes"; dialoguer gets the last one.
        let width = self.settings.output.style.width.saturating_sub(8);
        let mut rows = report::human::wrap(prompt, width);
        let last = rows.pop().unwrap_or_default();
        for row in rows {
            let _ = term.write_line(&row);
        }
        let answer = dialoguer::Confirm::new()
            .with_prompt(last)
            .default(default)
            .interact_on(&term);
        if let Err(e) = &answer {
            // dialoguer hides the cursor while it waits and leaves it hidden when it fails.
            let _ = term.show_cursor();
            // Ctrl-C leaves the cursor on the prompt's line; the message goes on a line of its own.
            if matches!(e, dialoguer::Error::IO(io) if io.kind() == std::io::ErrorKind::Interrupted)
            {
                let _ = term.write_line("");
            }
        }
        answer.map_err(|e| match e {
            // Ctrl-C at the prompt: the terminal is in raw mode, so it arrives as a key.
            dialoguer::Error::IO(io) if io.kind() == std::io::ErrorKind::Interrupted => {
                Failure::interrupted("the question was not answered, and nothing more was changed.")
            }
            e => Failure::internal(format!(
                "cannot ask for confirmation: {e}; pass --yes to accept the plan without asking."
            )),
        })
    }

    fn sync_plan(&self, moved: &Moved, report: &migrate::SyncReport) -> Result<()> {
        let width = self.settings.output.style.width;
        self.note(&report::human::late::sync_plan(moved, report, width))
    }

    fn removal_plan(&self, plan: &migrate::RemovalShown) -> Result<()> {
        self.note(&report::human::late::removal_plan(plan))
    }

    fn notice(&self, notice: &migrate::Notice) -> Result<()> {
        self.note(&report::human::notice::text(notice))
    }

    fn plan(&self, plan: &PlanDocument, dry_run: bool) -> Result<()> {
        let asking = self.settings.options.consent == migrate::Consent::Ask;
        let output = &self.settings.output;
        let human = output.format == Format::Human;
        if asking && (output.quiet || !human) {
            // -q silences the report, and the other formats are for the result, not the
            // questions: what they are about goes with them, on standard error.
            let text = report::render(plan, Format::Human, &output.style)?;
            let mut stderr = std::io::stderr().lock();
            let _ = stderr.write_all(text.as_bytes());
            return Ok(());
        }
        // Without --dry-run only a person is shown the plan; the other formats get the result.
        if human || dry_run {
            super::show(plan, output)?;
        }
        Ok(())
    }

    fn result(&self, report: &MigrationReport) -> Result<()> {
        super::show(report, &self.settings.output)
    }

    fn progress(&self) -> bool {
        // JSON is for a program, which has no use for a bar on stderr either.
        self.settings.output.shows_progress()
    }
}

/// A yes/no question for a terminal that takes no cursor movement (`TERM=dumb`): one line in,
/// no escapes out. End of input answers no.
pub(super) fn confirm_by_line(prompt: &str, default: bool) -> Result<bool> {
    let hint = if default { "[Y/n]" } else { "[y/N]" };
    let mut stderr = std::io::stderr().lock();
    let _ = write!(stderr, "{prompt} {hint} ");
    let _ = stderr.flush();
    let mut line = String::new();
    let read = std::io::stdin().read_line(&mut line).map_err(|e| {
        Failure::internal(format!(
            "cannot read the answer: {e}; pass --yes to accept the plan without asking."
        ))
    })?;
    Ok(match line.trim().to_ascii_lowercase().as_str() {
        _ if read == 0 => false,
        "" => default,
        answer => answer == "y" || answer == "yes",
    })
}
