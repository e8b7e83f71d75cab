//! What kind of value each key takes (a table, a number, a string, an array of strings), read
//! off the built-in policy, and the first key of a document whose value is of another kind.
//! serde alone words this as "invalid type: map, expected f64", and for `[[thresholds]]` names no
//! key at all; it would even read `thresholds = [1, 2, 3, 4, 5, 6]` as the six thresholds in
//! order. Checked on the document before serde reads it.

use super::fault::{Fault, TomlKind};
use super::schema::Policy;
use std::ops::Range;
use toml::Spanned;
use toml::de::{DeTable, DeValue};

/// A key whose value is of the wrong kind: where, and what it takes instead.
pub(super) struct WrongKind {
    /// Dotted, from the top: `thresholds.move_speedup`.
    pub(super) key: String,
    pub(super) span: Range<usize>,
    pub(super) fault: Fault,
}

/// The first value in `text` whose kind differs from what its key takes; None when every known
/// key holds the right kind, or when the text is not TOML (the parser then says where).
pub(super) fn wrong_kind(text: &str) -> Option<WrongKind> {
    let document = DeTable::parse(text).ok()?;
    let toml::Value::Table(expected) = toml::Value::try_from(sample()).ok()? else {
        return None;
    };
    check_table(document.get_ref(), &expected, None)
}

/// The built-in policy with one pattern in `paths.ignore`, so that the list, empty by default,
/// still shows what its elements are.
fn sample() -> Policy {
    let mut sample = Policy::default();
    sample.paths.ignore.push(String::new());
    sample.paths.windows_primary.push(String::new());
    sample
}

fn check_table(
    found: &DeTable<'_>,
    expected: &toml::Table,
    section: Option<&str>,
) -> Option<WrongKind> {
    found.iter().find_map(|(name, value)| {
        let name: &str = name.get_ref();
        // A key the policy does not have is serde's to name, with the nearest one it has.
        let want = expected.get(name)?;
        let key = section.map_or_else(|| name.to_string(), |s| format!("{s}.{name}"));
        check_value(value, want, &key)
    })
}

fn check_value(found: &Spanned<DeValue<'_>>, want: &toml::Value, key: &str) -> Option<WrongKind> {
    use toml::Value as Want;
    let fits = match (want, found.get_ref()) {
        (Want::Table(inner), DeValue::Table(table)) => return check_table(table, inner, Some(key)),
        (Want::Array(items), DeValue::Array(array)) => {
            return items
                .first()
                .and_then(|item| check_elements(array, item, key));
        }
        // A whole number is a number too (`move_speedup = 10`).
        (Want::Float(_), DeValue::Float(_) | DeValue::Integer(_)) => true,
        (Want::Integer(_), DeValue::Integer(_)) | (Want::String(_), DeValue::String(_)) => true,
        (Want::Boolean(_), DeValue::Boolean(_)) | (Want::Datetime(_), DeValue::Datetime(_)) => true,
        _ => false,
    };
    (!fits).then(|| WrongKind {
        key: key.to_string(),
        span: found.span(),
        fault: Fault::WrongKind {
            key: key.to_string(),
            wanted: wanted(want),
            found: kind_of(found.get_ref()),
            element: None,
        },
    })
}

fn check_elements(
    array: &[Spanned<DeValue<'_>>],
    item: &toml::Value,
    key: &str,
) -> Option<WrongKind> {
    array.iter().enumerate().find_map(|(index, element)| {
        check_value(element, item, key).map(|mut wrong| {
            if let Fault::WrongKind { element, .. } = &mut wrong.fault {
                *element = Some(index + 1);
            }
            wrong
        })
    })
}

/// What a key takes.
fn wanted(want: &toml::Value) -> TomlKind {
    match want {
        toml::Value::Table(_) => TomlKind::Table,
        toml::Value::Float(_) => TomlKind::Float,
        toml::Value::Integer(_) => TomlKind::Integer,
        toml::Value::String(_) => TomlKind::String,
        toml::Value::Array(_) => TomlKind::Array,
        toml::Value::Boolean(_) => TomlKind::Boolean,
        toml::Value::Datetime(_) => TomlKind::Datetime,
    }
}

/// What a value in the file is.
fn kind_of(found: &DeValue<'_>) -> TomlKind {
    match found {
        DeValue::String(_) => TomlKind::String,
        DeValue::Integer(_) => TomlKind::Integer,
        DeValue::Float(_) => TomlKind::Float,
        DeValue::Boolean(_) => TomlKind::Boolean,
        DeValue::Datetime(_) => TomlKind::Datetime,
        DeValue::Array(items)
            if !items.is_empty() && items.iter().all(|item| item.get_ref().is_table()) =>
        {
            TomlKind::ArrayOfTables
        }
        DeValue::Array(_) => TomlKind::Array,
        DeValue::Table(_) => TomlKind::Table,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The key, what it takes and what the file holds (and at which element).
    fn wrong(text: &str) -> Option<(String, TomlKind, TomlKind, Option<usize>)> {
        wrong_kind(text).and_then(|wrong| match wrong.fault {
            Fault::WrongKind {
                wanted,
                found,
                element,
                ..
            } => Some((wrong.key, wanted, found, element)),
            _ => None,
        })
    }

    #[test]
    fn an_array_of_tables_where_a_table_belongs_is_named() {
        let wrong_kind = wrong("[[thresholds]]\nmove_speedup = 3\n").unwrap();
        assert_eq!(
            wrong_kind,
            (
                "thresholds".to_string(),
                TomlKind::Table,
                TomlKind::ArrayOfTables,
                None
            )
        );
        // serde would take six numbers in a row for the six thresholds.
        let (key, ..) = wrong("thresholds = [1, 2, 3, 4, 5, 6]\n").unwrap();
        assert_eq!(key, "thresholds");
    }

    #[test]
    fn each_kind_is_named_by_its_key() {
        use TomlKind::*;
        for (text, key, wanted, found, element) in [
            (
                "[thresholds]\nmove_speedup = { a = 1 }\n",
                "thresholds.move_speedup",
                Float,
                Table,
                None,
            ),
            (
                "[thresholds]\nmove_speedup = \"fast\"\n",
                "thresholds.move_speedup",
                Float,
                String,
                None,
            ),
            (
                "[git]\nfsmonitor_min_tracked = 1.5\n",
                "git.fsmonitor_min_tracked",
                Integer,
                Float,
                None,
            ),
            (
                "[migrate]\ndestination = 3\n",
                "migrate.destination",
                String,
                Integer,
                None,
            ),
            (
                "[mounts]\nmove = \"fuse\"\n",
                "mounts.move",
                Array,
                String,
                None,
            ),
            (
                "[paths]\nignore = [\"/a\", 2]\n",
                "paths.ignore",
                String,
                Integer,
                Some(2),
            ),
            ("migrate = \"~/src\"\n", "migrate", Table, String, None),
        ] {
            let got = wrong(text).unwrap_or_else(|| panic!("accepted {text:?}"));
            assert_eq!(got, (key.to_string(), wanted, found, element), "{text:?}");
        }
    }

    #[test]
    fn right_kinds_unknown_keys_and_bad_syntax_are_left_to_the_others() {
        for text in [
            super::super::schema::DEFAULT_POLICY,
            "[thresholds]\nmove_speedup = 10\n",
            "[thresholds]\nmove_sped = { a = 1 }\n",
            "[mounts]\nmove = [\"9p\"]\n",
            "[thresholds\n",
            "",
        ] {
            assert!(wrong(text).is_none(), "{text:?}: {:?}", wrong(text));
        }
    }
}
