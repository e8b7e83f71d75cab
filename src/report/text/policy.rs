//! Why a policy file cannot be used, in the policy file's own words (the key's place goes
//! before it, in the error that carries it).

use crate::base::reason::Worded;
use crate::decide::policy::{Fault, TomlKind};

impl Worded for Fault {
    fn sentence(&self) -> String {
        match self {
            Fault::Toml { said } => said.clone(),
            Fault::WrongKind {
                key,
                wanted,
                found,
                element,
            } => {
                let element = element.map(|n| format!("element {n} ")).unwrap_or_default();
                format!(
                    "{element}must be {}, not {}",
                    takes(*wanted, key),
                    holds(*found, key)
                )
            }
            Fault::NotPositive { value, floor } if *floor > 0.0 => {
                format!("must be a number of at least {floor}, not {value}")
            }
            Fault::NotPositive { value, .. } => format!("must be a positive number, not {value}"),
            Fault::AdviseAboveMove {
                advise_key,
                advise,
                move_key,
                move_,
            } => format!(
                "`{advise_key}` ({advise}) is above `{move_key}` ({move_}), so `move` would come before `advise`"
            ),
            Fault::NegativeAge { hours } => {
                format!("must be zero or a positive number of hours, not {hours}")
            }
            Fault::MountInTwoLists { kind, first } => {
                format!("\"{kind}\" is also in `mounts.{first}`; a mount kind belongs to one list")
            }
            // `{:?}` escapes the character, which would otherwise reach the terminal raw.
            Fault::ControlCharacter {
                text,
                character,
                is_pattern,
            } => format!(
                "{text:?} holds the control character U+{:04X}; {}",
                u32::from(*character),
                if *is_pattern {
                    "write `?` in its place to match any one character"
                } else {
                    "write the path without it"
                }
            ),
            Fault::InvalidGlob { pattern, error } => {
                format!("{pattern:?} is not a valid glob: {error}")
            }
            Fault::EmptyDestination => "is empty".to_string(),
            Fault::OtherUsersHome { destination } => format!(
                "{destination:?} names another user's home, which is not supported; write the absolute path"
            ),
        }
    }
}

/// What a key takes, in the words of the policy file.
fn takes(kind: TomlKind, key: &str) -> String {
    match kind {
        TomlKind::Table | TomlKind::ArrayOfTables => format!("a table, written `[{key}]`"),
        TomlKind::Float => "a number".to_string(),
        TomlKind::Integer => "a whole number".to_string(),
        TomlKind::String => "a string in quotes".to_string(),
        TomlKind::Array => "an array of strings, such as `[\"a\", \"b\"]`".to_string(),
        TomlKind::Boolean => "`true` or `false`".to_string(),
        TomlKind::Datetime => "a date".to_string(),
    }
}

/// What a value in the file is, in the same words.
fn holds(kind: TomlKind, key: &str) -> String {
    match kind {
        TomlKind::String => "a string".to_string(),
        TomlKind::Integer => "a whole number".to_string(),
        TomlKind::Float => "a fractional number".to_string(),
        TomlKind::Boolean => "`true` or `false`".to_string(),
        TomlKind::Datetime => "a date".to_string(),
        TomlKind::ArrayOfTables => format!("an array of tables (`[[{key}]]`)"),
        TomlKind::Array => "an array".to_string(),
        TomlKind::Table => "a table".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wrong(key: &str, wanted: TomlKind, found: TomlKind, element: Option<usize>) -> String {
        Fault::WrongKind {
            key: key.into(),
            wanted,
            found,
            element,
        }
        .sentence()
    }

    #[test]
    fn a_wrong_kind_says_what_the_key_takes_and_what_the_file_holds() {
        assert_eq!(
            wrong("thresholds", TomlKind::Table, TomlKind::ArrayOfTables, None),
            "must be a table, written `[thresholds]`, not an array of tables (`[[thresholds]]`)"
        );
        assert_eq!(
            wrong("move_speedup", TomlKind::Float, TomlKind::String, None),
            "must be a number, not a string"
        );
        assert_eq!(
            wrong("paths.ignore", TomlKind::String, TomlKind::Integer, Some(2)),
            "element 2 must be a string in quotes, not a whole number"
        );
    }

    #[test]
    fn a_control_character_is_named_and_never_printed_raw() {
        let said = Fault::ControlCharacter {
            text: "a\u{1b}b".into(),
            character: '\u{1b}',
            is_pattern: true,
        }
        .sentence();
        assert!(said.contains("U+001B"), "{said}");
        assert!(!said.contains('\u{1b}'), "{said}");
    }
}
