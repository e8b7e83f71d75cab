//! The command line, as clap sees it. Nothing below this module reads raw arguments.

use crate::host::HostEnv;
use crate::terminal::{ColorChoice, Terminal};
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

#[derive(Debug, Parser)]
#[command(
    name = "wsl-place",
    version,
    about = "Is this repository on the wrong file system? Measures, predicts, and moves it safely."
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Args, Clone)]
pub struct GlobalArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human, global = true)]
    pub format: Format,
    /// Print nothing but errors (and, with --advisory, the one advisory line).
    #[arg(long, short, global = true)]
    pub quiet: bool,
    /// Policy file with the thresholds that turn measurements into a verdict.
    #[arg(long, value_name = "FILE", global = true)]
    pub policy: Option<PathBuf>,
    /// When to colour the output: auto colours a terminal unless NO_COLOR is set, TERM is dumb
    /// or CLICOLOR=0; CLICOLOR_FORCE=1 colours even a pipe.
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = ColorWhen::Auto, global = true)]
    pub color: ColorWhen,
    /// Same as --color never.
    #[arg(long, global = true)]
    pub no_color: bool,
}

impl GlobalArgs {
    pub fn color_choice(&self) -> ColorChoice {
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Human,
    Json,
    Markdown,
    Github,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check where a repository lives and what that costs.
    Check(CheckArgs),
    /// Copy the repository to the Linux file system, verified, and fix what moving breaks.
    Migrate(MigrateArgs),
    /// Measure small-file operation costs on a directory's mount.
    Probe(ProbeArgs),
    /// Print a shell completion script.
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

#[derive(Debug, Args, Clone)]
pub struct CheckArgs {
    /// The repository or directory to check.
    #[arg(default_value = ".")]
    pub path: PathBuf,
    /// Skip the timing probes; report location and scan only.
    #[arg(long)]
    pub no_probe: bool,
    /// Stop scanning after this many milliseconds and extrapolate.
    #[arg(long, value_name = "MS", default_value_t = 3000)]
    pub scan_budget_ms: u64,
    /// Most each probe may take, in milliseconds; in a repository it also stays under half of
    /// the `git status` it predicts.
    #[arg(long, value_name = "MS", default_value_t = 700)]
    pub probe_budget_ms: u64,
    /// Directory on the Linux disk to compare against (default: a scratch folder under $HOME).
    #[arg(long, value_name = "DIR")]
    pub baseline: Option<PathBuf>,
    /// Exit with code 1 when the verdict is at or above this level.
    #[arg(long, value_enum, value_name = "LEVEL", default_value_t = FailOn::Never)]
    pub fail_on: FailOn,
    /// Hook mode: reuse a cached result, print one line or nothing, finish in well under a second.
    #[arg(long)]
    pub advisory: bool,
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
    /// Destination directory (default: ~/src/<name>).
    #[arg(long, value_name = "DIR")]
    pub to: Option<PathBuf>,
    /// Do not ask; accept the plan as shown.
    #[arg(long, short)]
    pub yes: bool,
    /// Print the plan and stop.
    #[arg(long)]
    pub dry_run: bool,
    /// Abandon an interrupted migration: remove its staging directory.
    #[arg(long)]
    pub abort: bool,
    /// After a verified copy, delete what the manifest proves was copied (asks again).
    #[arg(long)]
    pub remove_source: bool,
    /// Finalise even if some source files could not be read (they are listed).
    #[arg(long)]
    pub skip_unreadable: bool,
    /// Leave node_modules behind (to be reinstalled) instead of copying it.
    #[arg(long)]
    pub skip_node_modules: bool,
}

#[derive(Debug, Args, Clone)]
pub struct ProbeArgs {
    /// A directory on the mount to measure.
    #[arg(default_value = ".")]
    pub dir: PathBuf,
    /// Time budget in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 700)]
    pub probe_budget_ms: u64,
}
