//! The assessments the commands ask for, assembled from the layers below: the shared
//! measure-model-decide `pipeline`, the hook's cached `advisory`, its one line (`hook_line`;
//! at the `old_place` of a migration, where it went) and the pre-commit hook file that runs it
//! (`hook_file`), the shell's `nudge`, and the `survey` of a folder.

pub mod accuracy;
pub(crate) mod advisory;
pub mod doctor;
pub(crate) mod hook_file;
pub(crate) mod hook_line;
pub(crate) mod nudge;
pub mod old_place;
pub mod pipeline;
pub(crate) mod survey;
