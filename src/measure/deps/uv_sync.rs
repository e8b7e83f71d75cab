//! What `uv sync` installs from a `uv.lock`: the lock lists every group, extra, platform and
//! Python version's packages (python-attrs/attrs: 93 listed, 28 installed), a sync only the
//! project's dependencies and its default groups (`dev`, or `[tool.uv] default-groups`), no
//! extras of the project, each marker read for this machine (`markers`). Parsed, never run.

use super::markers::{MarkerEnv, holds};
use std::collections::{BTreeSet, HashMap};
use std::path::Path;

/// A package's name and version (`packages::Pinned`, not imported: `packages` reads this module).
type Pinned = (String, String);

/// One dependency as a lock entry names it.
struct Edge<'a> {
    name: &'a str,
    version: Option<&'a str>,
    extras: Vec<&'a str>,
}

/// The edges of `list` (an array of `{ name, version, marker, extra }`) whose marker holds.
fn edges<'a>(list: Option<&'a toml::Value>, env: &MarkerEnv) -> Vec<Edge<'a>> {
    let Some(items) = list.and_then(|l| l.as_array()) else {
        return Vec::new();
    };
    items
        .iter()
        .filter(|d| {
            d.get("marker")
                .and_then(|m| m.as_str())
                .is_none_or(|m| holds(m, env))
        })
        .filter_map(|d| {
            Some(Edge {
                name: d.get("name")?.as_str()?,
                version: d.get("version").and_then(|v| v.as_str()),
                extras: d
                    .get("extra")
                    .and_then(|e| e.as_array())
                    .map(|e| e.iter().filter_map(|x| x.as_str()).collect())
                    .unwrap_or_default(),
            })
        })
        .collect()
}

/// The groups a sync installs: `[tool.uv] default-groups` of the project's `pyproject.toml`
/// (a list, or "all"), else `dev`. None stands for every group.
pub fn default_groups(pyproject: &str) -> Option<Vec<String>> {
    let value: Option<toml::Value> = pyproject
        .parse::<toml::Table>()
        .ok()
        .and_then(|t| t.get("tool")?.get("uv")?.get("default-groups").cloned());
    match value {
        Some(toml::Value::String(all)) if all == "all" => None,
        Some(toml::Value::Array(list)) => Some(
            list.iter()
                .filter_map(|g| g.as_str().map(str::to_string))
                .collect(),
        ),
        _ => Some(vec!["dev".to_string()]),
    }
}

fn is_project(package: &toml::Value) -> bool {
    package
        .get("source")
        .and_then(|s| s.as_table())
        .and_then(|s| s.get("editable").or_else(|| s.get("virtual")))
        .and_then(|p| p.as_str())
        == Some(".")
}

/// The registry packages `uv sync` installs from `lock` for the groups `groups` (None: all),
/// the project itself aside; None when the lock does not parse or names no project at `.`
/// (the caller then counts every entry).
pub fn synced_packages(
    lock: &str,
    groups: Option<&[String]>,
    env: &MarkerEnv,
) -> Option<Vec<Pinned>> {
    let table: toml::Table = lock.parse().ok()?;
    let packages = table.get("package")?.as_array()?;
    let mut by_name: HashMap<&str, Vec<&toml::Value>> = HashMap::new();
    for p in packages {
        if let Some(name) = p.get("name").and_then(|n| n.as_str()) {
            by_name.entry(name).or_default().push(p);
        }
    }
    let project = packages.iter().find(|p| is_project(p))?;
    let mut todo = edges(project.get("dependencies"), env);
    if let Some(dev) = project.get("dev-dependencies").and_then(|d| d.as_table()) {
        for (group, list) in dev {
            if groups.is_none_or(|g| g.iter().any(|name| name == group)) {
                todo.extend(edges(Some(list), env));
            }
        }
    }
    let mut seen: BTreeSet<(String, String, String)> = BTreeSet::new();
    let mut found: BTreeSet<Pinned> = BTreeSet::new();
    while let Some(edge) = todo.pop() {
        for package in by_name.get(edge.name).into_iter().flatten() {
            let version = package
                .get("version")
                .and_then(|v| v.as_str())
                .unwrap_or("");
            if edge.version.is_some_and(|v| v != version) || is_project(package) {
                continue;
            }
            let mut extras = vec![""];
            extras.extend(edge.extras.iter().copied());
            for extra in extras {
                let key = (
                    edge.name.to_string(),
                    version.to_string(),
                    extra.to_string(),
                );
                if !seen.insert(key) {
                    continue;
                }
                if extra.is_empty() {
                    found.insert((edge.name.to_string(), version.to_string()));
                    todo.extend(edges(package.get("dependencies"), env));
                } else {
                    let optional = package
                        .get("optional-dependencies")
                        .and_then(|o| o.get(extra));
                    todo.extend(edges(optional, env));
                }
            }
        }
    }
    Some(found.into_iter().collect())
}

/// The Python a sync in `root` uses, as far as it can be read: the project's `.python-version`
/// (`3.12` or `3.12.3`), else `host` (the version of the `python3` on PATH, asked by the
/// caller only when there is no pin: starting it costs 170 ms on a loaded machine).
pub fn python_of(root: &Path, host: impl FnOnce() -> Option<String>) -> Option<(u32, u32, u32)> {
    let text = std::fs::read_to_string(root.join(".python-version"))
        .ok()
        .or_else(host)?;
    let version = text
        .split_whitespace()
        .find(|w| w.starts_with(|c: char| c.is_ascii_digit()))?;
    let mut parts = version.split('.').map(|p| p.parse::<u32>().ok());
    let major = parts.next()??;
    let minor = parts.next()??;
    Some((major, minor, parts.next().flatten().unwrap_or(0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> String {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/uv")
            .join(name);
        std::fs::read_to_string(path).unwrap()
    }

    fn names(found: &[Pinned]) -> Vec<String> {
        found.iter().map(|(n, v)| format!("{n}=={v}")).collect()
    }

    #[test]
    fn a_sync_installs_the_default_groups_for_this_machine() {
        let lock = fixture("uv.lock");
        let env = MarkerEnv {
            python: Some((3, 11, 7)),
        };
        let groups = default_groups(&fixture("pyproject.toml"));
        assert_eq!(groups, Some(vec!["dev".to_string(), "tests".to_string()]));
        let found = synced_packages(&lock, groups.as_deref(), &env).unwrap();
        // The project's dependency (with its `socks` extra), the `dev` and `tests` groups;
        // not the `docs` group, not the project's own extra, not colorama (Windows), and
        // the tomli that Python 3.11 gets, not the one for 3.10.
        assert_eq!(
            names(&found),
            [
                "iniconfig==2.0.0",
                "pysocks==1.7.1",
                "pytest==8.3.0",
                "requests==2.32.3",
                "ruff==0.6.0",
                "tomli==2.2.0"
            ]
        );
        let all = synced_packages(&lock, None, &env).unwrap();
        assert!(names(&all).contains(&"sphinx==8.1.0".to_string()));
        // A Python the reading does not know counts both of tomli's entries.
        let unknown =
            synced_packages(&lock, groups.as_deref(), &MarkerEnv { python: None }).unwrap();
        assert_eq!(unknown.iter().filter(|(n, _)| n == "tomli").count(), 2);
    }

    #[test]
    fn without_a_project_entry_or_a_toml_document_nothing_is_said() {
        let env = MarkerEnv { python: None };
        assert_eq!(synced_packages("not [ toml", None, &env), None);
        let no_project = "version = 1\n\n[[package]]\nname = \"six\"\nversion = \"1.0\"\nsource = { registry = \"https://pypi.org/simple\" }\n";
        assert_eq!(synced_packages(no_project, None, &env), None);
        assert_eq!(
            default_groups("[tool.uv]\ndefault-groups = \"all\"\n"),
            None
        );
        assert_eq!(default_groups("not toml ["), Some(vec!["dev".to_string()]));
    }

    #[test]
    fn the_python_is_the_projects_pin_else_the_hosts() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(
            python_of(dir.path(), || Some("Python 3.11.7\n".into())),
            Some((3, 11, 7))
        );
        assert_eq!(python_of(dir.path(), || None), None);
        std::fs::write(dir.path().join(".python-version"), "3.12\n").unwrap();
        assert_eq!(
            python_of(dir.path(), || panic!(
                "the pin answers; python3 is not asked"
            )),
            Some((3, 12, 0))
        );
    }
}
