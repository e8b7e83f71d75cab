//! What every operation of `migrate` stands on: the walk and its plan, source I/O, the staging
//! folder and its lock, the journal, copy and verify, seal and finalise, the estimate, fix-ups,
//! and what a run reports. Nothing here knows which operation runs it.

pub mod ask;
pub mod build_output;
pub mod copy;
pub mod destination;
pub mod document;
pub mod estimate;
pub mod finalise;
pub mod fixups;
pub mod git_paths;
pub mod gitconfig_text;
pub mod identity;
pub mod journal;
pub mod names;
pub mod next_steps;
pub mod notice;
pub mod old_paths;
pub mod options;
pub mod outcome;
pub mod plan;
pub mod post_walk;
pub mod progress;
pub mod run;
pub mod safe_directory;
pub mod source;
pub mod source_holds;
pub mod stage;
pub mod staging;
pub mod venvs;
pub mod verify;
pub mod windows_builds;
pub mod windows_side;
pub mod worktrees;
