//! Why a package manager's sample was not tried, in words.

use crate::base::pathtext::display;
use crate::base::reason::Worded;
use crate::measure::deps::manager_timing::Skipped;
use crate::measure::deps::managers::{UntestedVersion, VersionSide};

impl Worded for Skipped {
    fn sentence(&self) -> String {
        match self {
            Skipped::UntestedVersion(untested) => untested.sentence(),
            Skipped::WindowsProgram { manager, program } => {
                let place = program
                    .windows
                    .clone()
                    .unwrap_or_else(|| display(&program.path));
                format!(
                    "{manager} on PATH is Windows' {manager} ({place}); install {} inside WSL to have installs timed",
                    crate::measure::deps::managers::of(*manager).runtime()
                )
            }
        }
    }
}

impl Worded for UntestedVersion {
    fn sentence(&self) -> String {
        let UntestedVersion {
            manager,
            version,
            side,
            tested: (low, high),
        } = self;
        let range = if low == high {
            format!("{low}")
        } else {
            format!("{low} to {high}")
        };
        let side = match side {
            VersionSide::Newer => "newer than",
            VersionSide::Older => "older than",
            VersionSide::Unreadable => "not one of",
        };
        format!(
            "{manager} {version} is {side} the {manager} versions wsl-place is tested with ({range}), so its own work is estimated instead of sampled"
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::deps::managers::{Manager, untested_version};

    #[test]
    fn an_untested_version_says_which_side_of_the_range_it_is() {
        assert_eq!(
            untested_version(Manager::Pnpm, "13.0.0").map(|u| u.sentence()),
            Some(
                "pnpm 13.0.0 is newer than the pnpm versions wsl-place is tested with (9 to 12), so its own work is estimated instead of sampled".to_string()
            )
        );
        let berry = untested_version(Manager::Yarn, "4.18.1")
            .unwrap()
            .sentence();
        assert!(berry.contains("newer than the yarn versions wsl-place is tested with (1)"));
        let odd = untested_version(Manager::Bun, "canary").unwrap().sentence();
        assert!(odd.contains("not one of"), "{odd}");
    }
}
