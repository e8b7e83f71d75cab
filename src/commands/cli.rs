//! The command line, as clap sees it. Nothing below this module reads raw arguments.

use crate::host::HostEnv;
use crate::host::terminal::{ColorChoice, Terminal};
use crate::report::Format;
use clap::builder::PossibleValue;
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

#[derive(Debug, Parser)]
#[command(
    name = "wsl-place",
    // The package version and, when build.rs could tell it, the git commit.
    version = env!("WSL_PLACE_VERSION"),
    about = "Is this repository on the wrong file system? Measures, predicts, and moves it safely.",
    after_help = "\
Examples:
  # Is the repository in this directory in the wrong place?
  wsl-place check
  # Any other path
  wsl-place check /mnt/c/src/app
  # What moving it to ~/src/<name> would copy, and how long it takes
  wsl-place migrate --dry-run
  # Move it there, every file verified, after asking
  wsl-place migrate"
)]
pub struct Cli {
    #[command(flatten, next_help_heading = "Global options")]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

/// Options every subcommand takes, before or after its name.
#[derive(Debug, Args, Clone)]
pub struct GlobalArgs {
    /// Colour: auto (on a terminal, unless NO_COLOR, TERM=dumb or CLICOLOR=0; CLICOLOR_FORCE=1
    /// colours even a pipe), always, never.
    /// The last of --color and --no-color on the line wins.
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = ColorWhen::Auto, global = true,
          overrides_with = "no_color")]
    pub color: ColorWhen,
    /// Same as --color never.
    #[arg(long, global = true, overrides_with = "color")]
    pub no_color: bool,
    /// Print nothing but errors (also after the command's name: `wsl-place check -q`).
    // Not `global`: `completions` has nothing to be quiet about, and its help says only what
    // applies to it; each reporting command takes -q after its name too.
    #[arg(long, short)]
    pub quiet: bool,
}

impl GlobalArgs {
    pub fn color_choice(&self) -> ColorChoice {
        // clap resets whichever of the two came first, so at most one is set here.
        match (self.no_color, self.color) {
            (true, _) | (_, ColorWhen::Never) => ColorChoice::Never,
            (false, ColorWhen::Always) => ColorChoice::Always,
            (false, ColorWhen::Auto) => ColorChoice::Auto,
        }
    }

    /// Colour, live progress and width for this run.
    pub fn terminal(&self, env: &HostEnv) -> Terminal {
        Terminal::detect(env, self.color_choice())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorWhen {
    Auto,
    Always,
    Never,
}

/// `--format` of every command: the report layer's one format, parsed by clap.
impl ValueEnum for Format {
    fn value_variants<'a>() -> &'a [Self] {
        &Format::ALL
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.name()).help(self.about()))
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check where a repository lives and what that costs.
    #[command(after_help = "\
Examples:
  # The repository in this directory
  wsl-place check
  # Any path
  wsl-place check /mnt/c/src/app
  # Where it is and what it holds, without timing anything
  wsl-place check --no-probe
  # In CI: an annotation, and exit 1 when it should move
  wsl-place check --format github --fail-on move .")]
    Check(CheckArgs),
    /// Check every git repository below a folder, one probe per mount, in one table.
    #[command(after_help = "\
Examples:
  # Every repository below this folder
  wsl-place survey
  # The Windows side of a WSL machine
  wsl-place survey /mnt/c/Users/me/source
  # In CI: a summary table, and exit 1 when any repository should move
  wsl-place survey --format markdown --fail-on move ~/src")]
    Survey(SurveyArgs),
    /// Copy the repository to the Linux disk, verified, and fix what moving breaks.
    #[command(
        long_about = "\
Copy the repository to the Linux disk, verified, and fix what moving breaks.

The copy goes to a staging folder beside the destination (.<name>.wsl-place-staging); every file \
is read back from there and checked by CRC32, then the folder is renamed into place and a \
manifest of what was copied is written next to it. The source is left as it was unless you \
pass --remove-source.

Interrupted (Ctrl-C, a crash, a full disk)? Run the same command again: it resumes, keeping \
what was already copied and verified. --abort removes the staging folder instead.

Edited files at the old place after the move? --sync copies what changed there since to the \
copy, verified the same way; a file changed at both places keeps both versions (the source's is \
saved beside the copy's as NAME.from-source-YYYYMMDD). After a finished migration, --abort \
removes the copy, asking first, if nothing changed in it since, and refuses (listing what did) \
otherwise.

Every question comes with the plan, before anything is copied; nothing is asked after. \
--yes accepts the plan, answering each question as Enter does: node_modules is copied \
unless it holds Windows builds (then it is left behind to reinstall; --skip-node-modules \
always leaves it), the git \
settings the Windows drive forced are reset, and it copies. It also confirms \
--remove-source, and --abort's removal of a finished copy, whose questions Enter answers no. Ctrl-C at a question or during the copy \
exits 130 and prints the commands that resume or abandon it.",
        after_help = "\
Examples:
  # The plan: where to, how much, how long; copies nothing
  wsl-place migrate --dry-run
  # Ask, then copy to ~/src/<name> and verify every file
  wsl-place migrate
  # To a folder of your choice, without asking
  wsl-place migrate --to ~/work/app --yes
  # Give up an interrupted migration
  wsl-place migrate --abort
  # Copy edits made at the old place since the move
  wsl-place migrate --sync"
    )]
    Migrate(MigrateArgs),
    /// Measure small-file operation costs on a directory's mount.
    #[command(after_help = "\
Examples:
  # This directory's mount
  wsl-place probe
  # The Linux disk, to compare
  wsl-place probe ~
  # Every figure, for a script
  wsl-place probe --format json /mnt/c")]
    Probe(ProbeArgs),
    /// Say what wsl-place sees on this host, or write it down for a bug report.
    #[command(after_help = "\
Examples:
  # One screen: WSL or not, the drives, git and each package manager
  wsl-place doctor
  # The same as JSON, for a script
  wsl-place doctor --format json
  # A record to attach to a bug report: shown first, written after you answer y
  wsl-place doctor --record wsl-place-record.json")]
    Doctor(DoctorArgs),
    /// Print the shell hook that nudges you in a repository on a slow mount.
    #[command(
        long_about = "\
Print the shell hook that nudges you in a repository on a slow mount.

Loaded in your shell's startup file, it prints the advisory line `wsl-place check --advisory` \
cached for a repository (e.g. \"wsl-place: move: ...\") when you change into it and it is on \
a slow mount: at most once per repository per day (`nudge_every_hours` in \
~/.config/wsl-place/config.toml; 0 prints on every visit). It never measures in the prompt \
and never holds it more than 100 ms: the cache and the mount table tell a local disk (nothing \
more is done); what only a slow mount can tell is learnt in the background and shown at the \
next prompt when it takes longer; with no cached answer, or one older than a week, it starts \
`wsl-place check --advisory` in the background so the next visit has one. Silent on local \
disks, outside repositories, and when the binary is gone. \
`git config wsl-place.nudge false` in a repository silences it there (`--global`: everywhere).",
        after_help = "\
Examples:
  # bash, in ~/.bashrc
  eval \"$(wsl-place init bash)\"
  # zsh, in ~/.zshrc
  eval \"$(wsl-place init zsh)\"
  # fish, in ~/.config/fish/config.fish
  wsl-place init fish | source
  # Never nudge in this repository
  git config wsl-place.nudge false"
    )]
    Init {
        #[arg(value_enum)]
        shell: crate::commands::init::Shell,
    },
    /// Install or remove a plain git pre-commit hook that runs `check --advisory`.
    #[command(
        long_about = "\
Install or remove a plain git pre-commit hook that runs `wsl-place check --advisory`, for \
repositories that do not use the pre-commit framework.

The hook goes where git looks for it (`git rev-parse --git-path hooks`: core.hooksPath and \
linked worktrees respected). An existing pre-commit hook is kept: it is renamed to \
pre-commit.wsl-place-chained and the new hook runs it first, so it still runs and its failure \
still blocks the commit. A hook that cannot be chained (a symlink, or one in a hooks folder \
inside the working tree) is refused with a sentence saying what to do; a hooks folder inside \
the working tree (core.hooksPath = .githooks, say) gets a new hook only with --in-worktree, since \
the hook names this machine's wsl-place and `git add -A` would commit it. `uninstall` removes \
only the lines it wrote: a hook with lines of your own is kept, without the tool's, and a \
chained hook is put back when nothing else is in the hook.",
        after_help = "\
Examples:
  # Print the repository's advisory line on every commit
  wsl-place hook install
  # Block commits while the repository belongs on the Linux disk
  wsl-place hook install --fail-on move
  # Remove it (a hook that was there before comes back)
  wsl-place hook uninstall"
    )]
    Hook {
        #[command(subcommand)]
        action: HookAction,
    },
    /// Print a shell completion script.
    #[command(after_help = "\
Examples:
  # bash
  mkdir -p ~/.local/share/bash-completion/completions
  wsl-place completions bash \\
    > ~/.local/share/bash-completion/completions/wsl-place
  # zsh (and fpath+=~/.zfunc before compinit in ~/.zshrc)
  mkdir -p ~/.zfunc
  wsl-place completions zsh > ~/.zfunc/_wsl-place
  # fish
  mkdir -p ~/.config/fish/completions
  wsl-place completions fish \\
    > ~/.config/fish/completions/wsl-place.fish")]
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

/// What `check` and `survey` measure each repository by, and the report's form: one definition,
/// so the two commands cannot drift apart. The budgets and `--fail-on`, which mean different
/// things for one repository and for many, stay with each command.
#[derive(Debug, Args, Clone)]
pub struct MeasureArgs {
    /// Skip the timing probes; only locate and scan (never written to the hook's cache).
    #[arg(long)]
    pub no_probe: bool,
    /// Judge on this run's measurements alone: no earlier checks' figures (without it, check
    /// weighs the median of the last 5 checks here and says so beside every such figure), no
    /// cached probe figures, each package manager timed again. The result is still cached
    /// for later runs. survey always probes afresh and never weighs earlier checks; with it,
    /// survey times each package manager again too.
    #[arg(long)]
    pub fresh: bool,
    /// Stop scanning a repository after this many milliseconds and extrapolate [default: 3000
    /// for check; survey scans under --budget-ms unless this is given].
    #[arg(long, value_name = "MS")]
    pub scan_budget_ms: Option<u64>,
    /// Walk every file of the dependency trees: without it, a node_modules of more than 96
    /// packages is priced from a sample of them (the report says so, and how close).
    #[arg(long)]
    pub exact: bool,
    /// Directory on the Linux disk to compare against (default: a scratch folder under $HOME).
    #[arg(long, value_name = "DIR")]
    pub baseline: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Show every figure on the human report: how the figures were measured, the per-file
    /// costs and the scan's details (the default keeps to what fits one 40-row screen).
    #[arg(long, short)]
    pub verbose: bool,
}

#[derive(Debug, Args, Clone)]
pub struct CheckArgs {
    /// The repository or directory to check.
    #[arg(default_value = ".")]
    pub path: PathBuf,
    #[command(flatten)]
    pub measure: MeasureArgs,
    /// Most each probe may take, in milliseconds; in a repository it also stays under half of
    /// the `git status` it predicts.
    #[arg(long, value_name = "MS", default_value_t = 700)]
    pub probe_budget_ms: u64,
    /// Exit with code 1 when the verdict is at or above this level. With --advisory: a cached
    /// full verdict at or above it blocks; a first look (no cached result yet) blocks only when
    /// its whole range is at or above it, and otherwise its line says it did not block.
    #[arg(long, value_enum, value_name = "LEVEL", default_value_t = FailOn::Never)]
    pub fail_on: FailOn,
    /// Hook mode: reuse a cached result, print one line or nothing, finish in well under a second.
    #[arg(long, conflicts_with = "fresh")]
    pub advisory: bool,
    /// After predicting, time the real `git status` here (`git --no-optional-locks status`, the
    /// median of 3 runs; nothing in the repository is written), show it beside the prediction
    /// and keep it in this machine's record of verified predictions.
    #[arg(long, conflicts_with = "advisory")]
    pub verify: bool,
    /// Policy file with the thresholds that turn measurements into a verdict (default:
    /// $WSL_PLACE_POLICY, else `policy` in ~/.config/wsl-place/config.toml, else
    /// .wsl-place.toml at the repository's root, else the built-in one).
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,
    /// Print nothing but errors; --advisory still prints its one line.
    #[arg(long, short)]
    pub quiet: bool,
}

#[derive(Debug, Args, Clone)]
pub struct SurveyArgs {
    /// The folder to search for git repositories.
    #[arg(default_value = ".")]
    pub dir: PathBuf,
    #[command(flatten)]
    pub measure: MeasureArgs,
    /// Stop searching for repositories after this many milliseconds (the report says so).
    #[arg(long, value_name = "MS", default_value_t = 5000)]
    pub search_budget_ms: u64,
    /// Most the whole survey may take, in milliseconds: scans still running then stop and
    /// extrapolate, and the table marks their repositories.
    #[arg(long, value_name = "MS", default_value_t = 60_000)]
    pub budget_ms: u64,
    /// Most each mount's probe may take, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 700)]
    pub probe_budget_ms: u64,
    /// Exit with code 1 when the worst verdict is at or above this level.
    #[arg(long, value_enum, value_name = "LEVEL", default_value_t = FailOn::Never)]
    pub fail_on: FailOn,
    /// Policy file for every repository (default: $WSL_PLACE_POLICY, else `policy` in
    /// ~/.config/wsl-place/config.toml, else each repository's .wsl-place.toml, else the
    /// built-in one).
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,
    /// Print nothing but errors.
    #[arg(long, short)]
    pub quiet: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, ValueEnum)]
pub enum FailOn {
    Advise,
    Move,
    Never,
}

#[derive(Debug, Args, Clone)]
pub struct MigrateArgs {
    /// The repository to move.
    #[arg(default_value = ".")]
    pub path: PathBuf,
    /// Destination directory (default: ~/src/<name>, or `destination` in
    /// ~/.config/wsl-place/config.toml).
    #[arg(long, value_name = "DIR")]
    pub to: Option<PathBuf>,
    /// Do not ask; accept the plan as shown.
    #[arg(long, short)]
    pub yes: bool,
    /// Print the plan and stop.
    #[arg(long, short = 'n')]
    pub dry_run: bool,
    /// Abandon an interrupted migration (remove its staging directory); after a finished one,
    /// remove the copy if nothing changed there since (asks; --yes confirms).
    #[arg(long)]
    pub abort: bool,
    /// After a verified copy, delete what the manifest proves was copied (asks again).
    #[arg(long)]
    pub remove_source: bool,
    /// After a finished migration: copy what changed at the source since to the destination,
    /// verified; a file changed at both places keeps both versions.
    #[arg(long, conflicts_with = "abort")]
    pub sync: bool,
    /// Finalise even if some source files could not be read (they are listed).
    #[arg(long)]
    pub skip_unreadable: bool,
    /// Leave node_modules behind (to be reinstalled) instead of copying it.
    #[arg(long)]
    pub skip_node_modules: bool,
    /// The plan and the result for a person, as JSON, as markdown, or as GitHub Actions
    /// annotations.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Policy file; its `migrate.destination` is where repositories go (default:
    /// $WSL_PLACE_POLICY, else `policy` in ~/.config/wsl-place/config.toml; the destination
    /// `destination` there, else ~/src).
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,
    /// Print nothing but errors (questions are still asked unless --yes).
    #[arg(long, short)]
    pub quiet: bool,
}

#[derive(Debug, Args, Clone)]
pub struct DoctorArgs {
    /// The report for a person, as JSON, as markdown, or as a GitHub Actions annotation.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Write the report as JSON to FILE, for a bug report: it is shown in full first, with the
    /// fields that hold your user names and paths named, and written after you answer y.
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// With --record: write without asking.
    #[arg(long, short, requires = "record")]
    pub yes: bool,
    /// Print nothing but errors.
    #[arg(long, short)]
    pub quiet: bool,
}

#[derive(Debug, Args, Clone)]
pub struct ProbeArgs {
    /// A directory on the mount to measure.
    #[arg(default_value = ".")]
    pub dir: PathBuf,
    /// Time budget in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 700)]
    pub probe_budget_ms: u64,
    /// The table for a person, as markdown, or every figure as JSON.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Print nothing but errors.
    #[arg(long, short)]
    pub quiet: bool,
}

#[derive(Debug, Subcommand)]
pub enum HookAction {
    /// Write the pre-commit hook (an existing one is chained, never overwritten).
    Install(HookInstallArgs),
    /// Remove the pre-commit hook this tool wrote, restoring a chained one.
    Uninstall {
        /// A directory in the repository.
        #[arg(default_value = ".")]
        path: PathBuf,
    },
}

#[derive(Debug, Args, Clone)]
pub struct HookInstallArgs {
    /// A directory in the repository.
    #[arg(default_value = ".")]
    pub path: PathBuf,
    /// Block the commit (exit 1) when the verdict is at or above this level; passed to
    /// `check --advisory`.
    #[arg(long, value_enum, value_name = "LEVEL", default_value_t = FailOn::Never)]
    pub fail_on: FailOn,
    /// Policy file for the hook's check, passed to `check --advisory`.
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,
    /// Write the hook even when core.hooksPath is inside the working tree, where it (and this
    /// machine's path to wsl-place in it) can be committed.
    #[arg(long)]
    pub in_worktree: bool,
}
