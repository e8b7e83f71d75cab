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
    let found = synced_entries(&table, groups, env)?;
    Some(found.into_keys().collect())
}

/// One package a sync installs, with the wheel it would take here (`chosen_wheel`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyncedWheel {
    pub name: String,
    pub version: String,
    /// The wheel's file name without `.whl` (`ty-0.0.63-py3-none-manylinux_2_17_x86_64`);
    /// None when no listed wheel fits this machine (an sdist: uv builds it).
    pub wheel: Option<String>,
    /// The wheel's size in bytes as the lock records it (compressed).
    pub size: Option<u64>,
}

/// As [`synced_packages`], each with the wheel this machine and Python would take.
pub fn synced_wheels(
    lock: &str,
    groups: Option<&[String]>,
    env: &MarkerEnv,
) -> Option<Vec<SyncedWheel>> {
    let table: toml::Table = lock.parse().ok()?;
    let found = synced_entries(&table, groups, env)?;
    Some(
        found
            .into_iter()
            .map(|((name, version), entry)| {
                let listed = entry.get("wheels").and_then(|w| w.as_array());
                let wheels = listed.into_iter().flatten().filter_map(|w| {
                    let file = w.get("url")?.as_str()?.rsplit('/').next()?;
                    let size = w.get("size").and_then(|s| s.as_integer());
                    Some((file.strip_suffix(".whl")?, size.map(|s| s.max(0) as u64)))
                });
                let chosen = chosen_wheel(wheels, env);
                SyncedWheel {
                    name,
                    version,
                    wheel: chosen.map(|(stem, _)| stem.to_string()),
                    size: chosen.and_then(|(_, size)| size),
                }
            })
            .collect(),
    )
}

/// The wheel of `wheels` (file name without `.whl`, size) a sync takes on this machine: Linux,
/// this build's architecture, glibc, CPython at `env.python` (any CPython when unknown); the
/// most specific that fits, as uv ranks them: a build for this Python's own ABI, then one
/// for the stable ABI (`abi3`), then a pure-Python wheel for this platform, then `any`.
pub fn chosen_wheel<'a>(
    wheels: impl Iterator<Item = (&'a str, Option<u64>)>,
    env: &MarkerEnv,
) -> Option<(&'a str, Option<u64>)> {
    wheels
        .filter_map(|(stem, size)| Some((wheel_rank(stem, env)?, stem, size)))
        // The first of the best: `max_by_key` would keep the last.
        .fold(
            None,
            |best: Option<(u8, &str, Option<u64>)>, this| match best {
                Some(b) if b.0 >= this.0 => Some(b),
                _ => Some(this),
            },
        )
        .map(|(_, stem, size)| (stem, size))
}

/// How well the wheel `stem` (`name-version[-build]-python-abi-platform`, each tag a
/// `.`-separated set) fits here; None when it does not install here at all.
fn wheel_rank(stem: &str, env: &MarkerEnv) -> Option<u8> {
    let parts: Vec<&str> = stem.split('-').collect();
    let [_, _, .., python, abi, platform] = parts[..] else {
        return None;
    };
    let fits_here = platform
        .split('.')
        .any(|p| platform_fits(p, std::env::consts::ARCH));
    let python_fits = python.split('.').any(|p| python_tag_fits(p, env));
    if !fits_here || !python_fits {
        return None;
    }
    let own_abi = |a: &str| {
        a.strip_prefix("cp").is_some_and(|v| match env.python {
            Some((3, minor, _)) => v == format!("3{minor}"),
            _ => v.chars().all(|c| c.is_ascii_digit()),
        })
    };
    let abi_rank = abi.split('.').filter_map(|a| match a {
        _ if own_abi(a) => Some(3),
        "abi3" => Some(2),
        "none" => Some(1),
        _ => None,
    });
    let abi_rank = abi_rank.max()?;
    Some(abi_rank * 2 + u8::from(platform != "any"))
}

/// A platform tag that installs on Linux with glibc on `arch` (`x86_64`, `aarch64`).
fn platform_fits(tag: &str, arch: &str) -> bool {
    if tag == "any" {
        return true;
    }
    let linux = tag.starts_with("manylinux") || tag.starts_with("linux_");
    linux && !tag.starts_with("musllinux") && tag.ends_with(&format!("_{arch}"))
}

/// A Python tag (`py3`, `py2`, `cp311`, `py311`) that CPython at `env.python` accepts; any
/// CPython 3 when the version is not known.
fn python_tag_fits(tag: &str, env: &MarkerEnv) -> bool {
    let (Some(kind), Some(version)) = (tag.get(..2), tag.get(2..)) else {
        return false;
    };
    if !matches!(kind, "py" | "cp") || version.is_empty() {
        return false;
    }
    if version == "3" {
        return kind == "py";
    }
    let Some(minor) = version
        .strip_prefix('3')
        .and_then(|m| m.parse::<u32>().ok())
    else {
        return false;
    };
    // `cp38` with `abi3` also runs on later Pythons; the ABI tag decides the exact match.
    env.python
        .is_none_or(|(major, have, _)| major == 3 && minor <= have)
}

/// The lock's entries a sync installs, by name and version (`synced_packages`).
fn synced_entries<'t>(
    table: &'t toml::Table,
    groups: Option<&[String]>,
    env: &MarkerEnv,
) -> Option<std::collections::BTreeMap<Pinned, &'t toml::Value>> {
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
    let mut found: std::collections::BTreeMap<Pinned, &toml::Value> = Default::default();
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
                    found.insert((edge.name.to_string(), version.to_string()), *package);
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
    Some(found)
}

/// The Python a sync in `root` uses, as far as it can be read: the project's `.python-version`
/// (`3.12` or `3.12.3`), else `host` (the version of the `python3` on PATH, asked by the
/// caller only when there is no pin: starting it costs 170 ms on a loaded machine).
pub fn python_of(root: &Path, host: impl FnOnce() -> Option<String>) -> Option<(u32, u32, u32)> {
    let text = crate::base::repo_file::manifest(root, ".python-version").or_else(host)?;
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
    fn the_wheel_is_the_most_specific_that_fits_this_machine() {
        let arch = std::env::consts::ARCH;
        let stems = [
            "m-1.0-cp311-cp311-macosx_11_0_arm64".to_string(),
            format!("m-1.0-cp311-cp311-musllinux_1_2_{arch}"),
            format!("m-1.0-cp312-cp312-manylinux_2_17_{arch}.manylinux2014_{arch}"),
            "m-1.0-py3-none-any".to_string(),
            format!("m-1.0-cp38-abi3-manylinux_2_17_{arch}"),
            format!("m-1.0-cp311-cp311-manylinux_2_17_{arch}.manylinux2014_{arch}"),
            "m-1.0-cp311-cp311-win_amd64".to_string(),
        ];
        let wheels = || {
            stems
                .iter()
                .enumerate()
                .map(|(i, s)| (s.as_str(), Some(i as u64)))
        };
        let py311 = MarkerEnv {
            python: Some((3, 11, 7)),
        };
        // CPython 3.11's own ABI on Linux with glibc; not musl, not 3.12's.
        assert_eq!(
            chosen_wheel(wheels(), &py311),
            Some((stems[5].as_str(), Some(5)))
        );
        // 3.10 has no build of its own: the stable ABI's.
        let py310 = MarkerEnv {
            python: Some((3, 10, 0)),
        };
        assert_eq!(chosen_wheel(wheels(), &py310).unwrap().1, Some(4));
        // 3.7 takes the pure-Python wheel; a package with only foreign builds has none.
        let py37 = MarkerEnv {
            python: Some((3, 7, 0)),
        };
        assert_eq!(chosen_wheel(wheels(), &py37).unwrap().1, Some(3));
        let foreign = [("m-1.0-cp311-cp311-win_amd64", Some(1))];
        assert_eq!(chosen_wheel(foreign.into_iter(), &py311), None);
        assert_eq!(chosen_wheel([("bad", None)].into_iter(), &py311), None);
    }

    #[test]
    fn each_synced_package_names_its_wheel_and_its_size() {
        let lock = r#"version = 1
[[package]]
name = "app"
version = "0.1"
source = { editable = "." }
dependencies = [{ name = "six" }, { name = "src-only" }]

[[package]]
name = "six"
version = "1.16.0"
source = { registry = "https://pypi.org/simple" }
wheels = [
    { url = "https://files.example/six-1.16.0-py2.py3-none-any.whl", hash = "sha256:x", size = 11053 },
]

[[package]]
name = "src-only"
version = "1"
source = { registry = "https://pypi.org/simple" }
sdist = { url = "https://files.example/src-only-1.tar.gz", hash = "sha256:y", size = 5 }
"#;
        let env = MarkerEnv { python: None };
        let found = synced_wheels(lock, None, &env).unwrap();
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].name, "six");
        assert_eq!(
            found[0].wheel.as_deref(),
            Some("six-1.16.0-py2.py3-none-any")
        );
        assert_eq!(found[0].size, Some(11053));
        assert_eq!((found[1].wheel.as_ref(), found[1].size), (None, None));
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
