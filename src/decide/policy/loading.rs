//! Loading a policy: choosing the file, reading it as untrusted input, parsing and validating
//! it, and, when it cannot be used, saying where (file, line, column, key) and what was meant.

use super::fault::Fault;
use super::schema::{Policy, PolicySource, REPOSITORY_POLICY};
use super::shape::{WrongKind, wrong_kind};
use super::validation::Problem;
use crate::base::reason::Worded;
use std::fmt;
use std::path::Path;

/// A policy file that could not be used, with where and why.
#[derive(Debug, Clone, PartialEq)]
pub struct PolicyError {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub key: Option<String>,
    pub fault: Fault,
    pub suggestion: Option<String>,
}

impl fmt::Display for PolicyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Line 0: the key was left to its default, so there is no place in the file to show.
        if self.line == 0 {
            write!(f, "{}: ", self.file)?;
        } else {
            write!(f, "{}:{}:{}: ", self.file, self.line, self.column)?;
        }
        if let Some(key) = &self.key {
            write!(f, "key `{key}`: ")?;
        }
        write!(f, "{}", self.fault.sentence())?;
        if let Some(suggestion) = &self.suggestion {
            write!(f, "; did you mean `{suggestion}`?")?;
        } else {
            write!(f, "; fix the policy file and try again.")?;
        }
        Ok(())
    }
}

impl Policy {
    /// Parses and validates a policy; `file` names it in errors.
    pub fn parse(text: &str, file: &str) -> Result<Self, Box<PolicyError>> {
        if let Some(wrong) = wrong_kind(text) {
            return Err(Box::new(wrong.locate(text, file)));
        }
        let policy: Self =
            toml::from_str(text).map_err(|e| Box::new(describe_toml_error(&e, text, file)))?;
        match policy.problems().into_iter().next() {
            None => Ok(policy),
            Some(problem) => Err(Box::new(problem.locate(text, file))),
        }
    }
}

impl WrongKind {
    fn locate(self, text: &str, file: &str) -> PolicyError {
        let (line, column) = line_and_column(text, self.span.start);
        PolicyError {
            file: file.to_string(),
            line,
            column,
            key: Some(self.key),
            fault: self.fault,
            suggestion: None,
        }
    }
}

impl Problem {
    /// Finds the key's line and column in `text`; a key left to its default has none.
    fn locate(mut self, text: &str, file: &str) -> PolicyError {
        let mut found = self.span_in(text, &self.key);
        if found.is_none()
            && let Some(also) = self.also.take()
        {
            found = self.span_in(text, &also);
            if found.is_some() {
                self.key = also;
            }
        }
        let (line, column) = found.map_or((0, 0), |span| line_and_column(text, span.start));
        PolicyError {
            file: file.to_string(),
            line,
            column,
            key: Some(self.key.join(".")),
            fault: self.fault,
            suggestion: None,
        }
    }

    fn span_in(&self, text: &str, key: &[&str]) -> Option<std::ops::Range<usize>> {
        toml::de::DeTable::parse(text).ok().and_then(|document| {
            let (last, sections) = key.split_last()?;
            let mut table = document.get_ref();
            for section in sections {
                match lookup(table, section)?.get_ref() {
                    toml::de::DeValue::Table(inner) => table = inner,
                    _ => return None,
                }
            }
            let value = lookup(table, last)?;
            match (self.element, value.get_ref()) {
                (Some(index), toml::de::DeValue::Array(items)) => {
                    items.get(index).map(|item| item.span())
                }
                _ => Some(value.span()),
            }
        })
    }
}

fn lookup<'a, 'i>(
    table: &'a toml::de::DeTable<'i>,
    key: &str,
) -> Option<&'a toml::Spanned<toml::de::DeValue<'i>>> {
    table
        .iter()
        .find(|(name, _)| name.get_ref() == key)
        .map(|(_, value)| value)
}

/// Chooses and reads the policy: `--policy FILE`, else the repository's `.wsl-place.toml`, else
/// the built-in one. Files are read as untrusted input (see [`crate::base::input`]).
pub fn load(
    explicit: Option<&Path>,
    repository_root: &Path,
) -> crate::base::error::Result<(Policy, PolicySource)> {
    let (path, source) = match explicit {
        Some(path) => (path.to_path_buf(), PolicySource::File(path.to_path_buf())),
        None => {
            let path = repository_root.join(REPOSITORY_POLICY);
            if std::fs::symlink_metadata(&path).is_err() {
                return Ok((Policy::built_in(), PolicySource::BuiltIn));
            }
            (path.clone(), PolicySource::Repository(path))
        }
    };
    let text = match source {
        // The repository's own: a link there could hand over a file from outside it (its
        // contents would be echoed in the error), so it is read only as a file of its own.
        PolicySource::Repository(_) => {
            let limit = crate::base::input::POLICY_LIMIT;
            let rel = Path::new(REPOSITORY_POLICY);
            crate::base::repo_file::text_unsaid(repository_root, rel, limit).map_err(|unread| {
                match unread {
                    crate::base::repo_file::Unread::Refused(why) => {
                        crate::base::error::Failure::input(format!(
                            "{}; make {REPOSITORY_POLICY} a file of the repository, or remove it.",
                            why.sentence().trim_end_matches('.')
                        ))
                    }
                    crate::base::repo_file::Unread::Missing => crate::base::error::Failure::input(
                        format!("{} could not be read.", path.display()),
                    ),
                }
            })?
        }
        _ => crate::base::input::read_text(&path, crate::base::input::POLICY_LIMIT, "policy file")?,
    };
    let policy = Policy::parse(&text, &path.display().to_string())
        .map_err(|e| crate::base::error::Failure::input(e.to_string()))?;
    Ok((policy, source))
}

fn describe_toml_error(error: &toml::de::Error, text: &str, file: &str) -> PolicyError {
    let (line, column) = error
        .span()
        .map(|span| line_and_column(text, span.start))
        .unwrap_or((0, 0));
    let said = error.message().trim().to_string();
    let line_text = text.lines().nth(line.saturating_sub(1)).unwrap_or_default();
    let key = line_text
        .split_once('=')
        .map(|(k, _)| k.trim().trim_matches('"').to_string())
        .filter(|k| !k.is_empty() && !k.starts_with('['));
    let suggestion = unknown_field_suggestion(&said);
    PolicyError {
        file: file.to_string(),
        line,
        column,
        key,
        fault: Fault::Toml { said },
        suggestion,
    }
}

fn line_and_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before
        .rfind('\n')
        .map_or(before.len(), |nl| before.len() - nl - 1)
        + 1;
    (line, column)
}

/// serde says "unknown field `x`, expected `a`, `b` or `c`": pick the expected key nearest to `x`.
fn unknown_field_suggestion(message: &str) -> Option<String> {
    let rest = message.strip_prefix("unknown field `")?;
    let (unknown, expected) = rest.split_once('`')?;
    expected
        .split('`')
        .skip(1)
        .step_by(2)
        .map(|candidate| (strsim::levenshtein(unknown, candidate), candidate))
        .filter(|(distance, candidate)| *distance <= candidate.len().max(unknown.len()) / 2 + 1)
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, candidate)| candidate.to_string())
}

#[cfg(test)]
mod tests {
    use super::super::fault::TomlKind;
    use super::*;

    #[test]
    fn unknown_key_names_line_column_and_nearest_key() {
        let text = "[thresholds]\nadvise_git_status = 100\n";
        let err = Policy::parse(text, "team.toml").unwrap_err();
        assert_eq!((err.line, err.column), (2, 1));
        assert_eq!(err.key.as_deref(), Some("advise_git_status"));
        assert_eq!(err.suggestion.as_deref(), Some("advise_git_status_ms"));
        let shown = err.to_string();
        assert!(shown.starts_with("team.toml:2:1: "), "{shown}");
        assert!(
            shown.contains("did you mean `advise_git_status_ms`?"),
            "{shown}"
        );
    }

    #[test]
    fn unknown_section_suggests_the_nearest_section() {
        let err = Policy::parse("[threshold]\n", "p.toml").unwrap_err();
        assert_eq!(err.suggestion.as_deref(), Some("thresholds"));
    }

    #[test]
    fn wrong_type_names_the_key() {
        let err = Policy::parse("[thresholds]\nmove_speedup = \"fast\"\n", "p.toml").unwrap_err();
        assert_eq!((err.line, err.column), (2, 16));
        assert_eq!(err.key.as_deref(), Some("thresholds.move_speedup"));
        assert_eq!(
            err.fault,
            Fault::WrongKind {
                key: "thresholds.move_speedup".into(),
                wanted: TomlKind::Float,
                found: TomlKind::String,
                element: None
            },
            "{err}"
        );
        let err = Policy::parse("[[thresholds]]\nmove_speedup = 3\n", "p.toml").unwrap_err();
        assert_eq!(err.key.as_deref(), Some("thresholds"));
        assert_eq!(err.line, 1);
        let err = Policy::parse("[mounts]\nmove = [\"9p\"]\n", "p.toml").unwrap_err();
        assert_eq!(err.key.as_deref(), Some("move"));
        assert!(
            matches!(&err.fault, Fault::Toml { said } if said.contains("unknown variant")),
            "{err}"
        );
    }

    #[test]
    fn syntax_error_has_a_position() {
        let err = Policy::parse("[thresholds\n", "p.toml").unwrap_err();
        assert_eq!(err.line, 1);
        assert!(err.column > 1);
    }

    #[test]
    fn integers_are_accepted_for_float_thresholds() {
        let policy = Policy::parse("[thresholds]\nmove_speedup = 10\n", "p.toml").unwrap();
        assert_eq!(policy.thresholds.move_speedup, 10.0);
        assert_eq!(policy.thresholds.advise_speedup, 4.0);
    }
}
