//! What `pip install -r requirements.txt` installs beyond the lines it reads, as far as the
//! repository's files say it without running anything: every package its requirement files
//! name (pinned or not), the dependencies its own project declares for the extras an editable
//! line asks for (`-e .[full]`), and the build backend that editable line makes pip install
//! into an isolated build environment. The dependencies of all those are not written anywhere
//! in the repository (pip reads them from the index); the model prices them (`model::pip`).

use std::collections::BTreeSet;
use std::path::Path;

/// The shape of a pip project's install, read from its `requirements*.txt` and `pyproject.toml`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PipShape {
    /// Distinct packages the requirement files name, with the dependencies the project itself
    /// declares for the extras its editable line names.
    pub named: u64,
    /// The project installed editable from its own folder (`-e .`, `-e .[extras]`): pip builds
    /// it with its PEP 517 backend in an isolated environment; None without such a line.
    pub editable_build: Option<EditableBuild>,
}

/// The editable project's build, as its `pyproject.toml` declares it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EditableBuild {
    /// Packages `[build-system] requires` names (setuptools' legacy default, 1, without one).
    pub requires: u64,
}

/// The shape of the pip install of the project at `root`; None when it has no requirement
/// file naming anything.
pub fn pip_shape(root: &Path) -> Option<PipShape> {
    let mut files: Vec<String> = std::fs::read_dir(root)
        .ok()?
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("requirements") && n.ends_with(".txt"))
        .collect();
    files.sort();
    let texts: Vec<String> = files
        .iter()
        .filter_map(|f| crate::base::repo_file::manifest(root, f))
        .collect();
    let pyproject = crate::base::repo_file::manifest(root, "pyproject.toml").unwrap_or_default();
    shape_of(&texts, &pyproject)
}

/// `pip_shape` on the requirement files' `texts` and the project's `pyproject` text.
pub fn shape_of(texts: &[String], pyproject: &str) -> Option<PipShape> {
    let mut names = BTreeSet::new();
    let mut editable_extras: Option<Vec<String>> = None;
    for line in texts.iter().flat_map(|t| t.lines()) {
        match requirement_line(line) {
            Line::Package(name) => {
                names.insert(name);
            }
            Line::EditableHere(extras) => {
                editable_extras.get_or_insert_with(Vec::new).extend(extras);
            }
            Line::Other => {}
        }
    }
    let project: Option<toml::Table> = pyproject.parse().ok();
    let editable_build = editable_extras.map(|extras| {
        if let Some(project) = &project {
            names.extend(declared_dependencies(project, &extras));
        }
        EditableBuild {
            requires: project.as_ref().map_or(1, build_requires),
        }
    });
    (!names.is_empty() || editable_build.is_some()).then_some(PipShape {
        named: names.len() as u64,
        editable_build,
    })
}

enum Line {
    /// A package by its normalized name.
    Package(String),
    /// `-e .` or `-e .[extras]`: the project in this folder, with those extras.
    EditableHere(Vec<String>),
    /// A comment, an option, a path, a URL: nothing this count can name.
    Other,
}

fn requirement_line(line: &str) -> Line {
    // A comment starts at a `#` after white space (pip's rule).
    let line = line.split(" #").next().unwrap_or("");
    let line = if line.starts_with('#') { "" } else { line }.trim();
    let editable = line
        .strip_prefix("-e")
        .or_else(|| line.strip_prefix("--editable"))
        .map(|rest| rest.trim_start_matches('=').trim());
    if let Some(target) = editable {
        let (path, extras) = target.split_once('[').unwrap_or((target, ""));
        if matches!(path.trim(), "." | "./") {
            return Line::EditableHere(
                extras
                    .trim_end_matches(']')
                    .split(',')
                    .map(normalized)
                    .filter(|e| !e.is_empty())
                    .collect(),
            );
        }
        return Line::Other;
    }
    match requirement_name(line) {
        Some(name) => Line::Package(name),
        None => Line::Other,
    }
}

/// The normalized name a PEP 508 requirement starts with (`Foo_Bar[x]>=1; marker`:
/// `foo-bar`); None for an option, a path or a URL.
fn requirement_name(requirement: &str) -> Option<String> {
    let requirement = requirement.trim();
    if !requirement.starts_with(|c: char| c.is_ascii_alphanumeric()) {
        return None;
    }
    let end = requirement
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
        .unwrap_or(requirement.len());
    let rest = requirement[end..].trim_start();
    // `name @ url` and paths (`./pkg`, `pkg/sub`) are not registry packages.
    if rest.starts_with('@') || rest.starts_with('/') || requirement.contains("://") {
        return None;
    }
    Some(normalized(&requirement[..end]))
}

/// PEP 503's normal form: lower case, runs of `-`, `_` and `.` as one `-`.
fn normalized(name: &str) -> String {
    let mut out = String::new();
    for c in name.trim().chars() {
        if matches!(c, '-' | '_' | '.') {
            if !out.ends_with('-') {
                out.push('-');
            }
        } else {
            out.push(c.to_ascii_lowercase());
        }
    }
    out
}

/// The project's `[project] dependencies` and those of the named `extras`, by name.
fn declared_dependencies(pyproject: &toml::Table, extras: &[String]) -> Vec<String> {
    let Some(project) = pyproject.get("project").and_then(|p| p.as_table()) else {
        return Vec::new();
    };
    let names = |value: Option<&toml::Value>| -> Vec<String> {
        value
            .and_then(|v| v.as_array())
            .map(|a| {
                a.iter()
                    .filter_map(|r| r.as_str().and_then(requirement_name))
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut found = names(project.get("dependencies"));
    if let Some(optional) = project
        .get("optional-dependencies")
        .and_then(|o| o.as_table())
    {
        for (extra, value) in optional {
            if extras.contains(&normalized(extra)) {
                found.extend(names(Some(value)));
            }
        }
    }
    found
}

/// The packages `[build-system] requires` names; setuptools' (pip's default backend) without
/// the table.
fn build_requires(pyproject: &toml::Table) -> u64 {
    pyproject
        .get("build-system")
        .and_then(|b| b.get("requires"))
        .and_then(|r| r.as_array())
        .map_or(1, |a| a.len() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_editable_line_adds_the_projects_dependencies_for_its_extras() {
        // encode/broadcaster 6b3ea71's shape: 10 pins and `-e .[redis,postgres,kafka]`.
        let requirements = "-e .[redis,postgres,kafka]\n# Documentation\nmkdocs==1.5.3\n\
            mkdocs-material==9.5.12\nbuild==1.1.1\npytest==8.0.2  # tests\nPytest_Asyncio==0.23.6\n";
        let pyproject = r#"
[build-system]
requires = ["hatchling"]
build-backend = "hatchling.build"
[project]
name = "broadcaster"
dependencies = ["anyio>=3.4.0,<5", "typing_extensions>=3.10.0; python_version < '3.10'"]
[project.optional-dependencies]
redis = ["redis"]
postgres = ["asyncpg"]
kafka = ["aiokafka"]
test = ["pytest", "pytest-asyncio"]
"#;
        let shape = shape_of(&[requirements.to_string()], pyproject).unwrap();
        // 5 pins, 2 dependencies, 3 of the 4 extras (test not asked for; its two packages are
        // pinned anyway).
        assert_eq!(shape.named, 5 + 2 + 3);
        assert_eq!(shape.editable_build, Some(EditableBuild { requires: 1 }));
    }

    #[test]
    fn plain_requirements_have_no_build_and_options_name_nothing() {
        let requirements = "requests>=2\n-r other.txt\n--index-url https://x/simple\n\
            pkg @ https://example.com/pkg.whl\n./local\n-e ../elsewhere\nrequests[socks]==2.1\n";
        let shape = shape_of(&[requirements.to_string()], "").unwrap();
        assert_eq!(shape.named, 1);
        assert_eq!(shape.editable_build, None);
        assert_eq!(shape_of(&["# nothing\n".to_string()], ""), None);
        // An editable project without a pyproject.toml is built with setuptools.
        let legacy = shape_of(&["-e .\n".to_string()], "").unwrap();
        assert_eq!(legacy.editable_build, Some(EditableBuild { requires: 1 }));
        assert_eq!(normalized("Zope.Interface__x"), "zope-interface-x");
    }
}
