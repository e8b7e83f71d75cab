//! What parsing cannot check: values that would silently disable a rule or contradict another,
//! each named by its key so that loading can show where it is in the file.

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
                    let wanted = if floor > 0.0 {
                        format!("a number of at least {floor}")
                    } else {
                        "a positive number".to_string()
                    };
                    problems.push(Problem::at(
                        &["thresholds", key],
                        None,
                        format!("must be {wanted}, not {value}"),
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
                        format!("`{advise_key}` ({advise}) is above `{move_key}` ({move_}), so `move` would come before `advise`"),
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
                format!("must be zero or a positive number of hours, not {age}"),
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
                        format!("\"{kind}\" is also in `mounts.{first}`; a mount kind belongs to one list"),
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
            let message = if let Some(character) = control_character(pattern) {
                format!(
                    "{pattern:?} holds the control character {character}; write `?` in its place to match any one character"
                )
            } else if let Err(e) = globset::Glob::new(pattern) {
                format!("{pattern:?} is not a valid glob: {}", e.kind())
            } else {
                continue;
            };
            problems.push(Problem::at(&["paths", list], Some(index), message));
        }
        let destination = &self.migrate.destination;
        if destination.trim().is_empty() {
            problems.push(Problem::at(
                &["migrate", "destination"],
                None,
                "is empty".to_string(),
            ));
        } else if let Some(character) = control_character(destination) {
            problems.push(Problem::at(
                &["migrate", "destination"],
                None,
                format!(
                    "{destination:?} holds the control character {character}; write the path without it"
                ),
            ));
        } else if destination.starts_with('~')
            && !(destination == "~" || destination.starts_with("~/"))
        {
            problems.push(Problem::at(
                &["migrate", "destination"],
                None,
                format!("{destination:?} names another user's home, which is not supported; write the absolute path"),
            ));
        }
        problems
    }
}

/// The first control character in `text`, as `U+0000`; the text itself is shown with `{:?}`,
/// which escapes it.
fn control_character(text: &str) -> Option<String> {
    text.chars()
        .find(|c| c.is_control())
        .map(|c| format!("U+{:04X}", u32::from(c)))
}

/// A value that parsed but cannot be used: which key (and array element), and why.
pub(super) struct Problem {
    pub(super) key: Vec<&'static str>,
    /// Another key the problem may be shown at, when `key` is not in the file.
    pub(super) also: Option<Vec<&'static str>>,
    pub(super) element: Option<usize>,
    pub(super) message: String,
}

impl Problem {
    fn at(key: &[&'static str], element: Option<usize>, message: String) -> Self {
        Self {
            key: key.to_vec(),
            also: None,
            element,
            message,
        }
    }
}
