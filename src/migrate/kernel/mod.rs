//! What every operation of `migrate` stands on, in two rooms and the run between them: the copy
//! `engine/` (the walk and its plan, source I/O, the staging folder and its lock, the journal,
//! copy and verify, seal and finalise, the estimate) and the `repairs/` after the move (fix-ups,
//! virtualenvs, git paths, worktrees, the Windows side, what still names the old place), found
//! beside the plan and applied once the copy is in place. This file's siblings are the run that
//! uses both: its options and person (`run`, `options`, `ask`, `notice`), the plan as shown
//! (`document`) and what it reports (`outcome`). Nothing here knows which operation runs it;
//! the engine knows nothing of the repairs.

pub mod ask;
pub mod document;
pub mod engine;
pub mod history;
pub mod notice;
pub mod options;
pub mod outcome;
pub mod repairs;
pub mod run;
