//! Why a rule gave its level, in words.

use crate::base::reason::Worded;
use crate::base::units;
use crate::decide::policy::{Predicts, Why, WindowsChoice};

impl Worded for Why {
    fn sentence(&self) -> String {
        match self {
            Why::KeptOnWindows { by } => {
                let by = match by {
                    WindowsChoice::Primary => "`primary = \"windows\"` in the policy",
                    WindowsChoice::PathPattern => "a `paths.windows_primary` pattern of the policy",
                };
                format!("kept on Windows by choice ({by})")
            }
            Why::Ignored { path } => format!(
                "{} matches a `paths.ignore` pattern of the policy",
                path.display()
            ),
            Why::Predicted {
                of,
                current_ms,
                low_ms,
                high_ms,
                baseline_ms,
                speedup,
                median_of_checks,
            } => {
                let what = match of {
                    Predicts::GitStatus => "git status",
                    Predicts::Install => "reinstalling dependencies",
                };
                let median = median_of_checks.map_or(String::new(), |checks| {
                    format!("; the median of the last {checks} checks here")
                });
                format!(
                    "{what} is predicted at {} ({}) here and {} on the Linux disk ({} faster){median}",
                    units::duration_ms(*current_ms),
                    units::duration_range_ms(*low_ms, *high_ms),
                    units::duration_ms(*baseline_ms),
                    units::ratio(*speedup)
                )
            }
            Why::OnMount { mount_kind } => {
                format!("the repository is on {}", mount_kind.describe())
            }
            Why::Wsl1 { git_status_ms } => format!(
                "git status is predicted at {} here, and on WSL 1 every Linux file is stored on NTFS; WSL 2 keeps them on ext4",
                units::duration_ms(*git_status_ms)
            ),
            Why::KeptPrevious { kept, low, high } => format!(
                "the last check said {}; this run's ranges, with their margin, reach from {} to {}, so it stands",
                kept.as_str(),
                low.as_str(),
                high.as_str()
            ),
            Why::Moved { old, .. } => match old.source_removed && !old.copy_missing {
                true => format!("{}.", super::capitalised(&old.message.sentence())),
                false => format!("This repository {}.", old.message.sentence()),
            },
        }
    }
}
