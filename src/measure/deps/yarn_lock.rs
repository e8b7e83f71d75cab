//! yarn classic's lock (`yarn.lock`, "yarn lockfile v1"), read by its grammar: an entry per set
//! of ranges (a line at the left margin ending in `:`, the ranges comma-separated, quoted where
//! they need it), its fields two spaces in (`version "1.0.0"`, `resolved "<url>"`, `integrity
//! sha512-...`), and under `dependencies:` or `optionalDependencies:` one `name range` line each,
//! four spaces in. A quoted value is a JSON string, as yarn writes it.

/// One entry: the ranges it answers (`a@^1.0.0`), its own fields, and what it asks for.
#[derive(Debug, Default)]
pub struct Entry {
    pub ranges: Vec<String>,
    fields: Vec<(String, String)>,
    /// `name@range` of each dependency.
    pub dependencies: Vec<String>,
    pub optional: Vec<String>,
}

impl Entry {
    /// The package's name, from its first range (`@s/c@^3.0.0` is `@s/c`).
    pub fn name(&self) -> Option<&str> {
        let first = self.ranges.first()?;
        first.rfind('@').filter(|&at| at > 0).map(|at| &first[..at])
    }

    /// The value of one of its own fields (`version`, `resolved`, `integrity`).
    pub fn field(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }
}

/// Every entry of `text`; None when it is not a v1 lock (yarn 2 and later write YAML).
pub fn entries(text: &str) -> Option<Vec<Entry>> {
    if !text.lines().take(5).any(|l| l.contains("yarn lockfile v1")) {
        return None;
    }
    let mut entries: Vec<Entry> = Vec::new();
    let mut block = "";
    for line in text.lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        if !line.starts_with(' ') {
            let ranges = line.strip_suffix(':').unwrap_or("").split(", ");
            entries.push(Entry {
                ranges: ranges.map(|r| value(r.trim())).collect(),
                ..Entry::default()
            });
            continue;
        }
        let Some(entry) = entries.last_mut() else {
            continue;
        };
        match line.strip_prefix("  ") {
            Some(own) if !own.starts_with(' ') => {
                let (key, rest) = match own.strip_suffix(':') {
                    Some(key) => (key, ""),
                    None => own.split_once(' ').unwrap_or((own, "")),
                };
                block = match rest.is_empty() {
                    true => key,
                    false => "",
                };
                entry.fields.push((value(key), value(rest)));
            }
            _ => {
                let Some((name, range)) = line.trim().split_once(' ') else {
                    continue;
                };
                let asked = format!("{}@{}", value(name), value(range));
                match block {
                    "dependencies" => entry.dependencies.push(asked),
                    "optionalDependencies" => entry.optional.push(asked),
                    _ => {}
                }
            }
        }
    }
    Some(entries)
}

/// A value as yarn means it: a quoted one is a JSON string (empty when it is not one), a bare
/// one is the word.
fn value(text: &str) -> String {
    match text.starts_with('"') {
        true => serde_json::from_str(text).unwrap_or_default(),
        false => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_is_its_ranges_its_fields_and_what_it_asks_for() {
        let text = "# yarn lockfile v1\n\n\"@s/c@^3.0.0\", \"@s/c@~3.0\":\n  version \"3.0.0\"\n  resolved \"https://r/@s/c/-/c-3.0.0.tgz#00\"\n  integrity sha512-C\n  dependencies:\n    ms \"2.1.2\"\n    version \"9.9.9\"\n  optionalDependencies:\n    fsevents \"^2\"\n";
        let read = entries(text).unwrap();
        let entry = &read[0];
        assert_eq!(entry.ranges, ["@s/c@^3.0.0", "@s/c@~3.0"]);
        assert_eq!(entry.name(), Some("@s/c"));
        assert_eq!(
            entry.field("version"),
            Some("3.0.0"),
            "not the dependency's"
        );
        assert_eq!(entry.field("integrity"), Some("sha512-C"));
        assert_eq!(entry.dependencies, ["ms@2.1.2", "version@9.9.9"]);
        assert_eq!(entry.optional, ["fsevents@^2"]);
        assert!(entries("__metadata:\n  version: 8\n").is_none());
    }

    #[test]
    fn a_quoted_value_is_read_as_yarn_wrote_it() {
        let text = "# yarn lockfile v1\n\nx@1.0.0:\n  version \"1.0.0\"\n  resolved \"bad\\u0022quote\"\n  integrity \"unclosed\n";
        let read = entries(text).unwrap();
        assert_eq!(read[0].field("resolved"), Some("bad\"quote"));
        assert_eq!(read[0].field("integrity"), Some(""));
    }
}
