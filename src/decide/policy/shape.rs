//! What kind of value each key takes (a table, a number, a string, an array of strings), read
//! off the built-in policy, and the first key of a document whose value is of another kind.
//! serde alone words this as "invalid type: map, expected f64", and for `[[thresholds]]` names no
//! key at all; it would even read `thresholds = [1, 2, 3, 4, 5, 6]` as the six thresholds in
//! order. Checked on the document before serde reads it.

use super::schema::Policy;
use std::ops::Range;
use toml::Spanned;
use toml::de::{DeTable, DeValue};

/// A key whose value is of the wrong kind: where, and what it takes instead.
pub(super) struct WrongKind {
    /// Dotted, from the top: `thresholds.move_speedup`.
    pub(super) key: String,
    pub(super) span: Range<usize>,
    pub(super) message: String,
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
        message: format!(
            "must be {}, not {}",
            wanted(want, key),
            kind_of(found.get_ref(), key)
        ),
    })
}

fn check_elements(
    array: &[Spanned<DeValue<'_>>],
    item: &toml::Value,
    key: &str,
) -> Option<WrongKind> {
    array.iter().enumerate().find_map(|(index, element)| {
        check_value(element, item, key).map(|wrong| WrongKind {
            message: format!("element {} {}", index + 1, wrong.message),
            ..wrong
        })
    })
}

/// What a key takes, in the words of the policy file.
fn wanted(want: &toml::Value, key: &str) -> String {
    match want {
        toml::Value::Table(_) => format!("a table, written `[{key}]`"),
        toml::Value::Float(_) => "a number".to_string(),
        toml::Value::Integer(_) => "a whole number".to_string(),
        toml::Value::String(_) => "a string in quotes".to_string(),
        toml::Value::Array(_) => "an array of strings, such as `[\"a\", \"b\"]`".to_string(),
        toml::Value::Boolean(_) => "`true` or `false`".to_string(),
        toml::Value::Datetime(_) => "a date".to_string(),
    }
}

/// What a value in the file is, in the same words.
fn kind_of(found: &DeValue<'_>, key: &str) -> String {
    match found {
        DeValue::String(_) => "a string".to_string(),
        DeValue::Integer(_) => "a whole number".to_string(),
        DeValue::Float(_) => "a fractional number".to_string(),
        DeValue::Boolean(_) => "`true` or `false`".to_string(),
        DeValue::Datetime(_) => "a date".to_string(),
        DeValue::Array(items)
            if !items.is_empty() && items.iter().all(|item| item.get_ref().is_table()) =>
        {
            format!("an array of tables (`[[{key}]]`)")
        }
        DeValue::Array(_) => "an array".to_string(),
        DeValue::Table(_) => "a table".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wrong(text: &str) -> Option<(String, String)> {
        wrong_kind(text).map(|wrong| (wrong.key, wrong.message))
    }

    #[test]
    fn an_array_of_tables_where_a_table_belongs_is_named() {
        let (key, message) = wrong("[[thresholds]]\nmove_speedup = 3\n").unwrap();
        assert_eq!(key, "thresholds");
        assert_eq!(
            message,
            "must be a table, written `[thresholds]`, not an array of tables (`[[thresholds]]`)"
        );
        // serde would take six numbers in a row for the six thresholds.
        let (key, _) = wrong("thresholds = [1, 2, 3, 4, 5, 6]\n").unwrap();
        assert_eq!(key, "thresholds");
    }

    #[test]
    fn each_kind_is_named_by_its_key() {
        for (text, key, wanted) in [
            (
                "[thresholds]\nmove_speedup = { a = 1 }\n",
                "thresholds.move_speedup",
                "a number",
            ),
            (
                "[thresholds]\nmove_speedup = \"fast\"\n",
                "thresholds.move_speedup",
                "a number",
            ),
            (
                "[git]\nfsmonitor_min_tracked = 1.5\n",
                "git.fsmonitor_min_tracked",
                "a whole number",
            ),
            (
                "[migrate]\ndestination = 3\n",
                "migrate.destination",
                "a string in quotes",
            ),
            (
                "[mounts]\nmove = \"fuse\"\n",
                "mounts.move",
                "an array of strings",
            ),
            (
                "[paths]\nignore = [\"/a\", 2]\n",
                "paths.ignore",
                "element 2 must be a string",
            ),
            (
                "migrate = \"~/src\"\n",
                "migrate",
                "a table, written `[migrate]`",
            ),
        ] {
            let (got_key, got) = wrong(text).unwrap_or_else(|| panic!("accepted {text:?}"));
            assert_eq!(got_key, key, "{text:?}");
            assert!(got.contains(wanted), "{got:?} for {text:?}");
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
