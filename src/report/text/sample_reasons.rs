//! Why a package manager's sample failed, and why its timing prices one project only, in words.

use crate::base::reason::Worded;
use crate::base::units::counted;
use crate::measure::deps::managers::Manager;
use crate::measure::deps::sample_reasons::{FileStep, NotShared, SampleFailed};

/// The longest a manager's own words are quoted: two lines of its error, not its log.
const QUOTED_CHARS: usize = 200;

impl Worded for SampleFailed {
    fn sentence(&self) -> String {
        match self {
            SampleFailed::Said { words, .. } => words.chars().take(QUOTED_CHARS).collect(),
            SampleFailed::Exited { program, status } => format!("{program} failed ({status})"),
            SampleFailed::DidNotStart { program, error } => {
                format!("{program} did not start ({error})")
            }
            SampleFailed::StoppedAtLimit {
                program,
                limit_secs,
            } => format!("{program} was stopped after {limit_secs} s"),
            SampleFailed::Interrupted { program } => format!("{program} was stopped by Ctrl-C"),
            SampleFailed::CacheLacksAll {
                manager,
                packages,
                cache,
            } => {
                let place = match manager {
                    Manager::Pnpm => "store",
                    _ => "cache",
                };
                let error = match manager {
                    Manager::Npm => " with ENOTCACHED",
                    Manager::Pnpm => " with ERR_PNPM_NO_OFFLINE_TARBALL",
                    _ => "",
                };
                format!(
                    "none of the {packages} packages the sample could take is in {manager}'s {place} ({}), so {manager} was not started: it would fail offline{error}",
                    cache.display()
                )
            }
            SampleFailed::NothingToSample => "the project names no package to sample".into(),
            SampleFailed::NoSampleInstall { manager } => format!("{manager} has no sample install"),
            SampleFailed::NoScratchFolder => "no scratch folder on the Linux disk".into(),
            SampleFailed::ScratchNotMade { dir, error } => {
                format!(
                    "cannot make a scratch folder in {} ({error})",
                    dir.display()
                )
            }
            SampleFailed::ScratchFile { step, file, error } => {
                let verb = match step {
                    FileStep::Write => "write",
                    FileStep::Remove => "remove",
                };
                format!("cannot {verb} the sample's {file} ({error})")
            }
            SampleFailed::ScratchNotSetUp => "the sample's folder could not be set up".into(),
            SampleFailed::NotInstalledOffline => "the sample could not be installed offline".into(),
            SampleFailed::PlacedNothing => "the sample placed nothing".into(),
            SampleFailed::ShipsInstaller { name } => format!(
                "a package of the sample ships its own `{name}`, the installer's name; it was not run, and the install is estimated"
            ),
            SampleFailed::ShipsScript { name } => format!(
                "a package of the sample ships a script named `{name}`, after the interpreter or its installer; it was not run, and the install is estimated"
            ),
        }
    }
}

impl Worded for NotShared {
    fn sentence(&self) -> String {
        match self {
            NotShared::TooSmall {
                packages,
                files,
                min_packages,
                min_files,
            } => format!(
                "a sample of {} and {} (fewer than {min_packages} packages or {min_files} files) stands for this project only",
                counted(*packages, "package", "packages"),
                counted(*files, "file", "files"),
            ),
            NotShared::LeftOut { entries } => format!(
                "the project's sample left out {} (git, path, URL or alias dependencies), so it stands for this project only",
                counted(*entries, "entry", "entries")
            ),
        }
    }
}
