//! Why a probe measured nothing, and why `check` has no Linux-disk side (or has this same
//! disk), in words.

use crate::base::pathtext::display;
use crate::base::reason::Worded;
use crate::measure::probe::{FolderProblem, NoBaseline, ProbeSkipped};

/// What every "no baseline" sentence ends with: the way on.
const PASS_BASELINE: &str = "pass --baseline DIR on the Linux disk to compare against.";

impl Worded for NoBaseline {
    fn sentence(&self) -> String {
        match self {
            NoBaseline::HomeUnset => format!("No baseline: $HOME is not set; {PASS_BASELINE}"),
            NoBaseline::HomeUnusable { home, problem } => format!(
                "No baseline: $HOME ({}) {}; {PASS_BASELINE}",
                home.display(),
                problem.sentence()
            ),
            NoBaseline::NoMount { folder } => format!(
                "No baseline: no mount contains {}; the mount table looks incomplete.",
                folder.display()
            ),
            NoBaseline::KernelFileSystem { folder, fstype } => format!(
                "No baseline: $HOME ({}) is on {fstype}, a kernel file system with no disk under it; {PASS_BASELINE}",
                display(folder)
            ),
            NoBaseline::SameMount {
                folder,
                mount_point,
                fstype,
            } => format!(
                "The baseline {} is on the same mount as the repository ({} {fstype}), so both sides are the same disk: there is nothing faster to move to here (pass --baseline DIR to compare with another disk).",
                display(folder),
                mount_point.display()
            ),
            NoBaseline::Memory { folder } => format!(
                "The baseline {} is on tmpfs, which is memory rather than a disk and would flatter the move; pass --baseline DIR on the Linux disk (ext4) for a fair comparison.",
                display(folder)
            ),
            NoBaseline::NotLocalDisk {
                folder,
                mount_kind,
                fstype,
            } => format!(
                "The baseline {} is not on a local disk ({}, {fstype}), so comparing against it would mislead; pass --baseline DIR on the Linux disk (ext4).",
                display(folder),
                mount_kind.as_str()
            ),
            NoBaseline::Interrupted => "interrupted".to_string(),
            NoBaseline::NotProbed => "no usable baseline".to_string(),
        }
    }
}

/// The end of a sentence that starts with the folder's name.
impl Worded for FolderProblem {
    fn sentence(&self) -> String {
        match self {
            FolderProblem::Missing => "does not exist".to_string(),
            FolderProblem::Unresolvable { error } => format!("cannot be resolved ({error})"),
            FolderProblem::NotAFolder => "is not a directory".to_string(),
            FolderProblem::Unreadable { error } => format!("cannot be read ({error})"),
        }
    }
}

impl Worded for ProbeSkipped {
    fn sentence(&self) -> String {
        match self {
            ProbeSkipped::NoScratch { dir, error } => format!(
                "the probe was skipped: cannot create a scratch folder in {} ({error}); run from a writable directory on that mount.",
                display(dir)
            ),
            ProbeSkipped::Interrupted => "the probe was interrupted.".to_string(),
            ProbeSkipped::IoError {
                dir,
                error,
                scratch_removed,
            } => format!(
                "the probe in {} stopped on an I/O error ({error}); its scratch folder was {}.",
                display(dir),
                if *scratch_removed {
                    "removed"
                } else {
                    "left for the next run to remove"
                }
            ),
        }
    }
}
