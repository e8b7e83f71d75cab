//! A source that was migrated before, copied again: to a second destination only when the
//! person says so (the record then keeps both copies), and never on its own because the copy
//! it knew is gone.

use crate::base::error::{Failure, Result};
use crate::migrate::kernel::ask::answer;
use crate::migrate::kernel::identity;
use crate::migrate::kernel::notice::Notice;
use crate::migrate::kernel::options::Consent;
use crate::migrate::kernel::plan::{Question, QuestionId};
use crate::migrate::kernel::run::Run;
use crate::migrate::kernel::staging;
use crate::store::moved;

/// Whether this run may make a copy of a source the record says was copied before: asked
/// (`--yes` says yes), said in a dry run, refused without a terminal. `--remove-source` with the
/// recorded copy gone is refused: the copy it would prove against is a new one nobody asked for.
pub(super) fn another_copy(run: &Run) -> Result<bool> {
    let Some(record) = moved::recorded(run.env, run.source()) else {
        return Ok(true);
    };
    let (source, destination) = (run.source(), run.destination.as_path());
    let (copy, day) = (record.destination.as_path(), record.finished_day());
    let gone = !identity::copy_intact(&record);
    if gone && run.args.remove_source {
        return Err(Failure::would_lose_data(format!(
            "the copy the migration of {} made on {day} is no longer at {} (moved or removed), so --remove-source copied nothing again and deleted nothing; move the copy back to {} and run this again, or forget it with `{}`.",
            source.display(),
            copy.display(),
            copy.display(),
            staging::command(source, copy, " --abort")
        )));
    }
    if !gone && copy == destination {
        // Its manifest is gone: the copy is there, and the run refuses to write over it.
        return Ok(true);
    }
    let text = question_text(run, &record, gone);
    match run.args.consent {
        Consent::DryRun => {
            run.ui.notice(&Notice::AnotherCopy { question: &text })?;
            return Ok(true);
        }
        Consent::Ask if !run.ui.interactive() => {
            return Err(no_terminal(run, &record, gone));
        }
        _ => {}
    }
    let question = Question {
        id: QuestionId::Copy,
        text,
        default: false,
        with_yes: true,
    };
    let yes = answer(run, &question)?;
    if !yes {
        run.ui.notice(&Notice::NothingCopied)?;
    }
    Ok(yes)
}

/// The question before another copy: where the source was copied, and whether that copy is gone.
fn question_text(run: &Run, record: &moved::Moved, gone: bool) -> String {
    let (source, destination) = (run.source(), run.destination.as_path());
    let (copy, day) = (record.destination.as_path(), record.finished_day());
    match (gone, copy == destination) {
        (true, true) => format!(
            "{} was copied to {} on {day}, and that copy is no longer there (moved or removed); copy it again?",
            source.display(),
            copy.display()
        ),
        (true, false) => format!(
            "{} was already copied to {} on {day} (no longer there: moved or removed); make another copy at {}?",
            source.display(),
            copy.display(),
            destination.display()
        ),
        _ => format!(
            "{} was already copied to {} on {day}; make a second copy at {}?",
            source.display(),
            copy.display(),
            destination.display()
        ),
    }
}

/// Another copy asked for where nobody can answer: refused, with both folders and the flag.
fn no_terminal(run: &Run, record: &moved::Moved, gone: bool) -> Failure {
    let (source, destination) = (run.source(), run.destination.as_path());
    let (copy, day) = (record.destination.as_path(), record.finished_day());
    let message = match (gone, copy == destination) {
        (true, true) => format!(
            "{} was copied to {} on {day} and that copy is no longer there (moved or removed), and copying it again needs a yes, which a run without a terminal cannot give; pass --yes to copy it again, or move the copy back to {}.",
            source.display(),
            copy.display(),
            copy.display()
        ),
        (true, false) => format!(
            "{} was already copied to {} on {day} (no longer there: moved or removed), and another copy at {} needs a yes, which a run without a terminal cannot give; pass --yes to make it (the record keeps both), or move that copy back to {}.",
            source.display(),
            copy.display(),
            destination.display(),
            copy.display()
        ),
        _ => format!(
            "{} was already copied to {} on {day}, and a second copy at {} needs a yes, which a run without a terminal cannot give; pass --yes to make it (the record keeps both), or run `{}` to use the copy there is.",
            source.display(),
            copy.display(),
            destination.display(),
            staging::command(source, copy, "")
        ),
    };
    Failure::would_lose_data(message)
}
