//! What `--remove-source` keeps in the source, and why, in the words every format uses: `path
//! (why)`, its escaped path first. JSON writes the same text (`Kept`'s `Serialize` is here, so
//! the wording has one home).

use crate::base::pathtext::escape_path;
use crate::migrate::{Kept, KeptWhy};
use rustix::fs::FileType;
use std::fmt;

impl fmt::Display for Kept {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", escape_path(&self.path), self.why)
    }
}

impl serde::Serialize for Kept {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl fmt::Display for KeptWhy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let copy = "its copy at the destination";
        let it = |copy_too: bool| if copy_too { copy } else { "it" };
        match self {
            KeptWhy::KeptWhole(why) => write!(f, "kept whole: {why}"),
            KeptWhy::GitNotRemoved(why) => f.write_str(why),
            KeptWhy::OutOfDescriptors => {
                f.write_str("cannot be walked further: out of file descriptors")
            }
            KeptWhy::CannotOpen { copy, error } => {
                write!(f, "{} cannot be opened: {error}", it(*copy))
            }
            KeptWhy::NotAFolderNow { copy, what_now } => write!(
                f,
                "{} is {} now, not the folder that was copied; never followed",
                it(*copy),
                kind_name(*what_now)
            ),
            KeptWhy::CopyFolderGone => write!(f, "{copy} is gone; nothing in it was removed"),
            KeptWhy::CannotExamine(e) => write!(f, "cannot be examined: {e}"),
            KeptWhy::ChangedKind(now) => {
                write!(f, "changed since the copy: now {}", kind_name(*now))
            }
            KeptWhy::SizeDiffers => f.write_str("changed since the copy: its size differs"),
            KeptWhy::ContentDiffers => f.write_str("changed since the copy: its content differs"),
            KeptWhy::CannotCompare(e) => write!(f, "cannot be read to compare: {e}"),
            KeptWhy::ChangedSinceCopy => f.write_str("changed since the copy"),
            KeptWhy::MadeAfterCopy => f.write_str("made after the copy"),
            KeptWhy::CopyGone => write!(f, "{copy} is gone"),
            KeptWhy::CopyUnreadable(e) => write!(f, "{copy} cannot be read back: {e}"),
            KeptWhy::CopyIsSource => write!(f, "{copy} is this same file, not a copy"),
            KeptWhy::CopyChanged => write!(
                f,
                "{copy} changed since the move; this is the only copy of what was copied"
            ),
            KeptWhy::NotRemoved(e) => f.write_str(e),
            KeptWhy::PointsElsewhere => {
                f.write_str("changed since the copy: it points elsewhere now")
            }
            KeptWhy::LinkCopyGone => write!(f, "{copy} is gone or points elsewhere"),
            KeptWhy::NodeModulesLeftBehind => f.write_str("node_modules left behind, never copied"),
            KeptWhy::NodeModulesNeverCopied => f.write_str(
                "node_modules left behind, never copied; reinstall it at the destination",
            ),
            KeptWhy::ProbeScratch => {
                f.write_str("a scratch folder a killed wsl-place probe left; safe to delete")
            }
            KeptWhy::SpecialFile => f.write_str("a special file, never copied"),
            KeptWhy::NeverCopied(kind) => write!(f, "{}; never copied", kind_name(*kind)),
            KeptWhy::NotInManifest { folder } => write!(
                f,
                "{}not in the manifest: made after the copy, or not copied",
                if *folder { "a folder " } else { "" }
            ),
        }
    }
}

/// What a file type is, as the reasons above name it.
fn kind_name(kind: FileType) -> &'static str {
    match kind {
        FileType::Directory => "a folder",
        FileType::Symlink => "a symlink",
        FileType::Fifo => "a FIFO",
        FileType::Socket => "a socket",
        FileType::BlockDevice | FileType::CharacterDevice => "a device",
        FileType::RegularFile => "a file",
        FileType::Unknown => "something else",
    }
}
