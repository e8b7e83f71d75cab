//! The verdict at the old place of a finished migration: level `moved`, one reason (where it
//! went, when, what changed here since) and one piece of advice (the command that follows).
//! Every surface at the old place, `check`, the hook, the nudge and `survey`, takes it from here.

use crate::base::reason::Said;
use crate::decide::advice::{Advice, AdviceId};
use crate::decide::policy::{Level, Reason, Rule, Verdict, Why};
use crate::measure::changes::{OldPlace, Standing};

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
    let message = match (old.pending(), old.copy_missing) {
        _ if matches!(old.message.0, Standing::Unfinished { .. }) => {
            "Finish what was interrupted here first, with the command below; nothing it did is lost.".to_string()
        }
        (_, true) => "Put the copy back where it was made; then sync or work there.".to_string(),
        (Some(0), false) => "Work in the copy.".to_string(),
        _ if old.source_removed => "Work in the copy.".to_string(),
        (Some(_), false) => {
            "Copy the edits made here since to the copy (both versions are kept where the copy changed too).".to_string()
        }
        (None, false) => "Copy any edits made here since to the copy.".to_string(),
    };
    let advice = Advice {
        id: AdviceId::Migrate,
        message,
        command: old.next.clone(),
    };
    Verdict::plain(Level::Moved, vec![reason], vec![advice])
}
