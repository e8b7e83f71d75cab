//! What parsing cannot check: values that would silently disable a rule or contradict another,
//! each named by its key so that loading can show where it is in the file.

use super::fault::Fault;
use super::schema::{Policy, Thresholds};

impl Thresholds {
    /// Values that are not positive numbers, and `advise` levels above their `move` levels.
    pub(super) fn problems(&self) -> Vec<Problem> {
        let mut problems = Vec::new();
        let t = self;
        let pairs = [
            (
                "advise_git_status_ms",
                t.advise_git_status_ms,
                "move_git_status_ms",
                t.move_git_status_ms,
                0.0,
            ),
            (
                "advise_speedup",
                t.advise_speedup,
                "move_speedup",
                t.move_speedup,
                1.0,
            ),
            (
                "advise_install_ms",
                t.advise_install_ms,
                "move_install_ms",
                t.move_install_ms,
                0.0,
            ),
        ];
        for (advise_key, advise, move_key, move_, floor) in pairs {
            for (key, value) in [(advise_key, advise), (move_key, move_)] {
                if !value.is_finite() || value <= 0.0 || value < floor {
                    problems.push(Problem::at(
                        &["thresholds", key],
                        None,
                        Fault::NotPositive { value, floor },
                    ));
                }
            }
            if advise.is_finite() && move_.is_finite() && advise > move_ {
                problems.push(Problem {
                    // Shown at whichever of the two keys the file sets.
                    also: Some(vec!["thresholds", move_key]),
                    ..Problem::at(
                        &["thresholds", advise_key],
                        None,
                        Fault::AdviseAboveMove {
                            advise_key,
                            advise,
                            move_key,
                            move_,
                        },
                    )
                });
            }
        }
        problems
    }
}

impl Policy {
    /// What parsing cannot check: values that would silently disable a rule or contradict another.
    pub(super) fn problems(&self) -> Vec<Problem> {
        let mut problems = self.thresholds.problems();
        problems.extend(self.other_problems());
        problems.extend(self.path_problems());
        problems
    }

    fn other_problems(&self) -> Vec<Problem> {
        let mut problems = Vec::new();
        let age = self.advisory.max_age_hours;
        if !age.is_finite() || age < 0.0 {
            problems.push(Problem::at(
                &["advisory", "max_age_hours"],
                None,
                Fault::NegativeAge { hours: age },
            ));
        }
        let lists = [
            ("acceptable", &self.mounts.acceptable),
            ("advise", &self.mounts.advise),
            ("move", &self.mounts.move_),
        ];
        for (i, (first, kinds)) in lists.iter().enumerate() {
            for (second, others) in &lists[i + 1..] {
                if let Some(kind) = kinds.iter().find(|k| others.contains(k)) {
                    problems.push(Problem::at(
                        &["mounts", second],
                        None,
                        Fault::MountInTwoLists {
                            kind: kind.to_string(),
                            first,
                        },
                    ));
                }
            }
        }
        problems
    }

    /// The ignore patterns and the destination: valid globs, and no control character, which no
    /// path should hold (a NUL cannot be in one at all) and which would reach the terminal raw.
    fn path_problems(&self) -> Vec<Problem> {
        let mut problems = Vec::new();
        let lists = [
            ("ignore", &self.paths.ignore),
            ("windows_primary", &self.paths.windows_primary),
        ];
        for (list, index, pattern) in lists.into_iter().flat_map(|(list, patterns)| {
            patterns.iter().enumerate().map(move |(i, p)| (list, i, p))
        }) {
            let fault = if let Some(character) = control_character(pattern) {
                Fault::ControlCharacter {
                    text: pattern.clone(),
                    character,
                    is_pattern: true,
                }
            } else if let Err(e) = globset::Glob::new(pattern) {
                Fault::InvalidGlob {
                    pattern: pattern.clone(),
                    error: e.kind().to_string(),
                }
            } else {
                continue;
            };
            problems.push(Problem::at(&["paths", list], Some(index), fault));
        }
        let destination = &self.migrate.destination;
        if destination.trim().is_empty() {
            problems.push(Problem::at(
                &["migrate", "destination"],
                None,
                Fault::EmptyDestination,
            ));
        } else if let Some(character) = control_character(destination) {
            problems.push(Problem::at(
                &["migrate", "destination"],
                None,
                Fault::ControlCharacter {
                    text: destination.clone(),
                    character,
                    is_pattern: false,
                },
            ));
        } else if destination.starts_with('~')
            && !(destination == "~" || destination.starts_with("~/"))
        {
            problems.push(Problem::at(
                &["migrate", "destination"],
                None,
                Fault::OtherUsersHome {
                    destination: destination.clone(),
                },
            ));
        }
        problems
    }
}

/// The first control character in `text`, which would reach the terminal raw.
fn control_character(text: &str) -> Option<char> {
    text.chars().find(|c| c.is_control())
}

/// A value that parsed but cannot be used: which key (and array element), and why.
pub(super) struct Problem {
    pub(super) key: Vec<&'static str>,
    /// Another key the problem may be shown at, when `key` is not in the file.
    pub(super) also: Option<Vec<&'static str>>,
    pub(super) element: Option<usize>,
    pub(super) fault: Fault,
}

impl Problem {
    fn at(key: &[&'static str], element: Option<usize>, fault: Fault) -> Self {
        Self {
            key: key.to_vec(),
            also: None,
            element,
            fault,
        }
    }
}
