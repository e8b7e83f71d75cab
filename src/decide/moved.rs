//! The verdict at the old place of a finished migration: level `moved`, one reason (where it
//! went, when, what changed here since) and one piece of advice (the command that follows).
//! Every surface at the old place, `check`, the hook, the nudge and `survey`, takes it from here.

use crate::base::reason::Said;
use crate::decide::advice::{Advice, AdviceId, Advised};
use crate::decide::policy::{Level, Reason, Rule, Verdict, Why};
use crate::measure::changes::{OldPlace, Since, Standing};

/// The old place's verdict, replacing what the measurements would have said of it: moving is
/// done, so the pre-move verdict (and its `--remove-source`) is no longer the story here.
pub fn verdict(old: &OldPlace) -> Verdict {
    let reason = Reason {
        level: Level::Moved,
        rule: Rule::Moved,
        message: Said(Why::Moved {
            destination: old.destination.clone(),
            old: Box::new(old.clone()),
        }),
    };
    // What follows is what the old place's standing says, so the advice and the sentence
    // beside it never disagree.
    let advised = match &old.message.0 {
        Standing::Unfinished { .. } => Advised::FinishInterrupted,
        Standing::SourceRemoved { .. } => Advised::WorkInTheCopy,
        Standing::Moved { since, .. } => match since {
            Since::CopyMissing => Advised::PutTheCopyBack,
            Since::Nothing => Advised::WorkInTheCopy,
            Since::Files { .. } | Since::Commits { .. } => Advised::SyncTheEdits,
            Since::Uncounted => Advised::SyncAnyEdits,
        },
    };
    let advice = Advice::new(AdviceId::Migrate, advised, old.next.clone());
    Verdict::plain(Level::Moved, vec![reason], vec![advice])
}
