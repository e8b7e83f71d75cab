//! The old place's words: its sentence (`check`, `survey`, JSON's `message`) and the shorter
//! wordings the hook's and the nudge's one line chooses from.

use crate::base::reason::Worded;
use crate::base::units::counted;
use crate::measure::changes::{Since, Standing};
use crate::store::moved::Operation;

impl Worded for Standing {
    fn sentence(&self) -> String {
        match self {
            Standing::SourceRemoved { .. } => self.briefs().swap_remove(0),
            _ => format!("moved {}", self.briefs().swap_remove(0)),
        }
    }

    /// Shorter wordings drop the day, then the copy's folder (the command beside them names
    /// it), never a figure.
    fn briefs(&self) -> Vec<String> {
        match self {
            Standing::Unfinished { to, day, operation } => {
                let clause = unfinished(*operation);
                vec![
                    format!("to {to} on {day}; {clause}"),
                    format!("to {to}; {clause}"),
                    clause.to_string(),
                ]
            }
            Standing::SourceRemoved {
                to,
                removed_day,
                files_here,
            } => {
                let here = match files_here {
                    Some(n) if *n > 0 => format!(
                        "; {} here {} not in the copy",
                        files(*n),
                        if *n == 1 { "is" } else { "are" }
                    ),
                    _ => String::new(),
                };
                let removed = match removed_day {
                    Some(day) => format!("removed by wsl-place on {day}"),
                    None => "removed by wsl-place".to_string(),
                };
                vec![
                    format!("{removed}; the copy is {to}{here}"),
                    format!("removed by wsl-place; the copy is {to}{here}"),
                    format!("removed by wsl-place{here}"),
                ]
            }
            Standing::Moved { to, day, since } => {
                let clause = since_clause(*since);
                let brief = match since {
                    Since::Files { files: n } => format!("{} changed here since", files(*n)),
                    _ => clause.clone(),
                };
                vec![
                    format!("to {to} on {day}; {clause}"),
                    format!("to {to}; {brief}"),
                    brief,
                ]
            }
        }
    }
}

/// What an operation that did not finish left, and that finishing it is the way on.
fn unfinished(operation: Operation) -> &'static str {
    match operation {
        Operation::Abort => {
            "an --abort was interrupted; running it again finishes it or says why the copy stays"
        }
        Operation::RemoveSource => {
            "--remove-source was interrupted here; the copy holds everything it removed so far, and finishing it keeps what changed here since"
        }
        Operation::Sync => {
            "a --sync to the copy was interrupted; finishing it copies what changed here, and the copy keeps its own edits"
        }
    }
}

/// What changed here since, as a clause: "3 files changed here since, not in the copy".
fn since_clause(since: Since) -> String {
    match since {
        Since::CopyMissing => {
            "the copy is no longer there (moved or removed); move it back there to sync".into()
        }
        Since::Uncounted => "edits made here since were not counted".into(),
        Since::Nothing => "nothing changed here since: work there".into(),
        Since::Files { files: n } => format!("{} changed here since, not in the copy", files(n)),
        Since::Commits {
            commits: c,
            files: 0,
        } => format!("{} not in the copy", commits(c)),
        Since::Commits {
            commits: c,
            files: n,
        } => {
            format!("{} and {} not in the copy", commits(c), files(n))
        }
    }
}

/// "1 file", "3 files".
pub fn files(n: u64) -> String {
    counted(n, "file", "files")
}

/// "1 commit", "1,204 commits".
pub fn commits(n: u64) -> String {
    counted(n, "commit", "commits")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moved(since: Since) -> Standing {
        Standing::Moved {
            to: "~/src/app".into(),
            day: "2026-12-03".into(),
            since,
        }
    }

    #[test]
    fn the_sentence_names_the_copy_the_day_and_what_changed_here() {
        assert_eq!(
            moved(Since::Files { files: 3 }).sentence(),
            "moved to ~/src/app on 2026-12-03; 3 files changed here since, not in the copy"
        );
        assert_eq!(
            moved(Since::Commits {
                commits: 1,
                files: 1
            })
            .sentence(),
            "moved to ~/src/app on 2026-12-03; 1 commit and 1 file not in the copy"
        );
        assert_eq!(
            moved(Since::Files { files: 1_204 }).briefs()[2],
            "1,204 files changed here since"
        );
    }

    #[test]
    fn after_remove_source_the_sentence_says_what_is_here_and_not_in_the_copy() {
        let removed = Standing::SourceRemoved {
            to: "~/src/app".into(),
            removed_day: Some("2026-12-06".into()),
            files_here: Some(1),
        };
        assert_eq!(
            removed.sentence(),
            "removed by wsl-place on 2026-12-06; the copy is ~/src/app; 1 file here is not in the copy"
        );
        assert_eq!(
            removed.briefs()[2],
            "removed by wsl-place; 1 file here is not in the copy"
        );
    }
}
