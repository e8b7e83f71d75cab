//! The copy engine: one walk of the source into a plan of what is copied, then the staging
//! folder and its lock, the journal, copy and verify, seal and finalise, and the estimate that
//! prices a plan. What it copies is the plan's entries; what the move mends afterwards is not
//! its business (`repairs/`).

pub mod ahead;
pub mod copy;
pub mod destination;
pub mod estimate;
pub mod finalise;
pub mod identity;
pub mod journal;
pub mod names;
pub mod plan;
pub mod post_walk;
pub mod progress;
pub mod source;
pub mod source_holds;
pub mod stage;
pub mod staging;
pub mod verify;
pub mod windows_builds;
