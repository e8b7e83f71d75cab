//! The packages a project installs, read from what it has on disk: its lock files, its
//! `node_modules` and its virtualenv. They name the sample a package manager is timed on
//! (`manager`) and count the packages of a Python install.

use std::path::{Path, PathBuf};

/// A package's name and exact version.
pub type Pinned = (String, String);

/// A package of npm's registry pinned to one version, as a sample may install it: a package
/// name (`name` or `@scope/name`, npm's characters) and an exact semver. A path, a URL, a git
/// reference, an alias or a range is none: the sample leaves it out, since a manager would
/// read, fetch or build it from wherever it names.
pub fn is_plain_npm_pin(name: &str, version: &str) -> bool {
    let part = |p: &str| {
        !p.is_empty()
            && !p.starts_with('.')
            && p.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '~'))
    };
    let named = match name.strip_prefix('@') {
        Some(scoped) => scoped
            .split_once('/')
            .is_some_and(|(scope, bare)| part(scope) && part(bare)),
        None => part(name),
    };
    let (core, tail) = match version.find(['-', '+']) {
        Some(at) => version.split_at(at),
        None => (version, ""),
    };
    let numbers = core.split('.').collect::<Vec<_>>();
    let semver = numbers.len() == 3
        && numbers
            .iter()
            .all(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
        && tail
            .chars()
            .skip(1)
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+'));
    named && name.len() <= 214 && semver
}

/// A Python package pinned to one version, as a sample may install it: a distribution name and
/// a version of PEP 440's characters, starting with a digit. Anything else (a path, a URL, an
/// option such as `--config-settings`, extras, markers) is left out.
pub fn is_plain_python_pin(name: &str, version: &str) -> bool {
    let named = !name.is_empty()
        && name.len() <= 200
        && name.starts_with(|c: char| c.is_ascii_alphanumeric())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_'));
    let versioned = version.starts_with(|c: char| c.is_ascii_digit())
        && version.len() <= 64
        && version
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '!' | '+' | '-' | '_'));
    named && versioned
}

/// The name of the project a sample installs (its package.json and lock files).
pub const SAMPLE_NAME: &str = "wsl-place-calibration";

/// Where npm's sample of leaf packages is read from, in order: first what npm placed (its
/// record in node_modules: no package of another platform, none it skipped), then the lock.
pub const NPM_LOCKS: &[&str] = &[
    NPM_INSTALLED_RECORD,
    "package-lock.json",
    "npm-shrinkwrap.json",
];

/// The lock npm keeps of what it placed in node_modules.
pub const NPM_INSTALLED_RECORD: &str = "node_modules/.package-lock.json";

/// Leaf packages of a package-lock.json (v2/v3): `(name, version)` of top-level entries without
/// dependencies that this machine installs (`platform::npm_entry_here`; `installed_record`:
/// the lock is npm's record of what it placed), spread over the file, at most `max`.
pub fn npm_leaf_packages(lock: &str, max: usize, installed_record: bool) -> Vec<Pinned> {
    let Ok(value) = serde_json::from_str::<serde_json::Value>(lock) else {
        return Vec::new();
    };
    let Some(packages) = value.get("packages").and_then(|p| p.as_object()) else {
        return Vec::new();
    };
    let leaves: Vec<Pinned> = packages
        .iter()
        .filter_map(|(key, entry)| {
            let name = key.strip_prefix("node_modules/")?;
            let nested = name.contains("node_modules/");
            let linked = entry.get("link").and_then(|l| l.as_bool()) == Some(true);
            let version = entry.get("version")?.as_str()?;
            let here = super::platform::npm_entry_here(entry, installed_record);
            (!nested && !has_dependencies(entry) && !linked && here)
                .then(|| (name.to_string(), version.to_string()))
        })
        .collect();
    spread(leaves, max)
}

fn has_dependencies(entry: &serde_json::Value) -> bool {
    ["dependencies", "optionalDependencies", "peerDependencies"]
        .iter()
        .any(|k| {
            entry
                .get(k)
                .and_then(|d| d.as_object())
                .is_some_and(|d| !d.is_empty())
        })
}

fn spread(items: Vec<Pinned>, max: usize) -> Vec<Pinned> {
    crate::measure::gitindex::spread(&items.iter().collect::<Vec<_>>(), max)
        .into_iter()
        .cloned()
        .collect()
}

/// The npm lock the sample reads (`NPM_LOCKS`' first that is there) and its text. A project
/// that commits none (`package-lock=false`, common in libraries) still has the one npm keeps
/// inside node_modules, in the same format.
pub fn npm_lock_file(root: &Path) -> Option<(&'static str, String)> {
    NPM_LOCKS
        .iter()
        .find_map(|file| Some((*file, crate::base::repo_file::manifest(root, file)?)))
}

/// The top-level entries of an npm lock that name where their tarball is (`resolved`) and its
/// `integrity`: what `npm ci --offline` reads from the cache and nothing else.
#[derive(Debug, Clone, PartialEq)]
pub struct LockEntries(serde_json::Map<String, serde_json::Value>);

/// The entries of `root`'s npm lock with their tarballs named; None without a lock or any such
/// entry (a lock of version 1, or one made without `resolved`).
pub fn npm_lock_entries(root: &Path) -> Option<LockEntries> {
    let (file, text) = npm_lock_file(root)?;
    let installed_record = file == NPM_INSTALLED_RECORD;
    let lock: serde_json::Value = serde_json::from_str(&text).ok()?;
    let kept: serde_json::Map<String, serde_json::Value> = lock
        .get("packages")?
        .as_object()?
        .iter()
        .filter_map(|(key, entry)| {
            let name = key.strip_prefix("node_modules/")?;
            let text = |field: &str| entry.get(field).and_then(|v| v.as_str());
            let from_registry = text("resolved").is_some_and(super::registry::is_registry_tarball);
            let tarball = text("integrity").is_some_and(super::registry::is_integrity)
                && from_registry
                && super::platform::npm_entry_here(entry, installed_record)
                && text("version").is_some_and(|v| is_plain_npm_pin(name, v));
            (!name.contains("node_modules/") && tarball).then(|| {
                let fields = [
                    "version",
                    "resolved",
                    "integrity",
                    "bin",
                    "license",
                    "engines",
                ];
                let trimmed = fields
                    .iter()
                    .filter_map(|f| Some((f.to_string(), entry.get(*f)?.clone())))
                    .filter(|(field, value)| field != "bin" || super::registry::is_plain_bin(value))
                    .collect();
                (name.to_string(), serde_json::Value::Object(trimmed))
            })
        })
        .collect();
    (!kept.is_empty()).then_some(LockEntries(kept))
}

impl LockEntries {
    pub fn has(&self, name: &str) -> bool {
        self.0.contains_key(name)
    }

    /// Where the entry of `name` says its tarball is, and the tarball's `integrity`.
    pub fn tarball(&self, name: &str) -> Option<(&str, Option<&str>)> {
        let entry = self.0.get(name)?;
        let integrity = entry.get("integrity").and_then(|i| i.as_str());
        Some((entry.get("resolved")?.as_str()?, integrity))
    }

    /// A package-lock.json (version 3) installing `deps` from these entries, beside the
    /// `package_json` that lists them.
    pub fn lock_of(&self, deps: &[Pinned], package_json: &str) -> String {
        let root: serde_json::Value =
            serde_json::from_str(package_json).unwrap_or(serde_json::Value::Null);
        let mut packages = serde_json::Map::new();
        packages.insert(String::new(), root.clone());
        for (name, _) in deps {
            if let Some(entry) = self.0.get(name) {
                packages.insert(format!("node_modules/{name}"), entry.clone());
            }
        }
        serde_json::json!({
            "name": root.get("name"),
            "version": root.get("version"),
            "lockfileVersion": 3,
            "requires": true,
            "packages": packages,
        })
        .to_string()
    }
}

/// The leaf packages installed in `root/node_modules`, as pnpm, yarn and bun leave it (none of
/// them keeps npm's lock inside): each top-level package (and each in pnpm's `.pnpm` store
/// folder) whose `package.json` names no dependencies, at most `max`, spread.
pub fn node_modules_leaves(root: &Path, max: usize) -> Vec<Pinned> {
    let node_modules = root.join("node_modules");
    let mut dirs = package_dirs(&node_modules);
    // pnpm: node_modules/.pnpm/<name>@<version>/node_modules/<name>.
    if let Ok(store) = std::fs::read_dir(node_modules.join(".pnpm")) {
        for entry in store.flatten() {
            dirs.extend(package_dirs(&entry.path().join("node_modules")));
        }
    }
    let mut leaves: Vec<Pinned> = dirs
        .iter()
        .filter_map(|dir| {
            let text = crate::base::repo_file::manifest(dir, "package.json")?;
            let value: serde_json::Value = serde_json::from_str(&text).ok()?;
            let name = value.get("name")?.as_str()?;
            let version = value.get("version")?.as_str()?;
            (!has_dependencies(&value)).then(|| (name.to_string(), version.to_string()))
        })
        .collect();
    leaves.sort();
    leaves.dedup_by(|a, b| a.0 == b.0);
    spread(leaves, max)
}

/// The package folders directly in a `node_modules` (`name` and `@scope/name`).
fn package_dirs(node_modules: &Path) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    let Ok(entries) = std::fs::read_dir(node_modules) else {
        return dirs;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        if name.starts_with('@') {
            if let Ok(scoped) = std::fs::read_dir(entry.path()) {
                dirs.extend(scoped.flatten().map(|e| e.path()));
            }
        } else {
            dirs.push(entry.path());
        }
    }
    dirs
}

/// The scripts of the project's own package.json that an install runs at its root, in order.
const ROOT_LIFECYCLE: &[&str] = &[
    "preinstall",
    "install",
    "postinstall",
    "prepublish",
    "preprepare",
    "prepare",
    "postprepare",
];
/// A command a lifecycle script runs that is not the manager (a node program such as a build
/// step or `husky install`), in the manager's start-ups: `npm --version` took 0.14-0.18 s
/// where npm's empty install took 0.42-0.6 s, on the same loaded machine.
const COMMAND_STARTUP_SHARE: f64 = 0.35;
/// How deep `npm run a` running `npm run b` is followed.
const RUN_DEPTH: usize = 4;

/// What the project's own lifecycle scripts (`prepare`, `postinstall`, ...) add to a reinstall
/// by `manager`, in its start-ups: each command they run is one start-up of the manager
/// (`npm run build`, `pnpm exec`, ...; a script it runs counts too) or `COMMAND_STARTUP_SHARE`
/// of one. What the commands then do is not known and not counted. 0 when the project's
/// `.npmrc` (or `.yarnrc`) sets `ignore-scripts`, or it has no such script. koajs/koa's
/// `prepare` is `npm run build`, whose `build` is one node program: 1.35 start-ups, 0.5-0.6 s
/// of its 2.8-5 s reinstall.
pub fn lifecycle_startups(root: &Path) -> f64 {
    let ignored = [".npmrc", ".yarnrc"].iter().any(|file| {
        crate::base::repo_file::manifest(root, file).is_some_and(|text| {
            text.lines().any(|line| {
                let (key, value) = line.split_once(['=', ' ']).unwrap_or((line, ""));
                let value = value
                    .trim()
                    .trim_start_matches('=')
                    .trim()
                    .trim_matches('"');
                key.trim() == "ignore-scripts" && value == "true"
            })
        })
    });
    let Some(scripts) = crate::base::repo_file::manifest(root, "package.json")
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .and_then(|v| v.get("scripts").and_then(|s| s.as_object()).cloned())
    else {
        return 0.0;
    };
    if ignored {
        return 0.0;
    }
    ROOT_LIFECYCLE
        .iter()
        .filter_map(|name| scripts.get(*name)?.as_str())
        .map(|command| command_startups(&scripts, command, 0))
        .sum()
}

fn command_startups(
    scripts: &serde_json::Map<String, serde_json::Value>,
    command: &str,
    depth: usize,
) -> f64 {
    command
        .split("&&")
        .flat_map(|part| part.split(';'))
        .flat_map(|part| part.split("||"))
        .map(str::trim)
        .filter(|part| !part.is_empty())
        .map(|part| {
            let words: Vec<&str> = part.split_whitespace().collect();
            let manager = matches!(
                words.first(),
                Some(&("npm" | "pnpm" | "yarn" | "bun" | "npx" | "pnpx"))
            );
            if !manager {
                return COMMAND_STARTUP_SHARE;
            }
            // `npm run build`, `yarn build`, `pnpm run build`: the script it names runs too.
            let named = match words.get(1) {
                Some(&("run" | "run-script")) => words.get(2),
                other => other,
            };
            let script = named
                .and_then(|name| scripts.get(*name))
                .and_then(|s| s.as_str())
                .filter(|_| depth < RUN_DEPTH);
            1.0 + script.map_or(0.0, |s| command_startups(scripts, s, depth + 1))
        })
        .sum()
}

/// The virtualenv folders a Python project keeps beside its code.
pub const VENV_DIRS: &[&str] = &[".venv", "venv"];

/// The `site-packages` folders of the project's virtualenvs.
pub fn site_packages(root: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for venv in VENV_DIRS {
        let Ok(libs) = std::fs::read_dir(root.join(venv).join("lib")) else {
            continue;
        };
        for lib in libs.flatten() {
            let site = lib.path().join("site-packages");
            if lib.file_name().to_string_lossy().starts_with("python") && site.is_dir() {
                found.push(site);
            }
        }
    }
    found
}

/// The packages installed in a `site-packages`, from their `*.dist-info` folder names
/// (`name-version.dist-info`).
pub fn installed_python(site: &Path) -> Vec<Pinned> {
    let Ok(entries) = std::fs::read_dir(site) else {
        return Vec::new();
    };
    let mut found: Vec<Pinned> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let stem = name.strip_suffix(".dist-info")?;
            let (package, version) = stem.rsplit_once('-')?;
            // pip and setuptools come with the virtualenv, not with the project; a package
            // installed from a folder or a URL (the project itself, editable) is in no cache.
            let direct = e.path().join("direct_url.json").exists();
            (!direct && !matches!(package, "pip" | "setuptools" | "wheel"))
                .then(|| (package.to_string(), version.to_string()))
        })
        .collect();
    found.sort();
    found
}

/// `[[package]]` entries of a `uv.lock` or `poetry.lock` (TOML): name and version, without the
/// project itself (uv marks it `source = { editable = "." }` or `{ virtual = "." }`). Both
/// tools write one key per line at the start of the line inside a `[[package]]` table, so the
/// lines are read as such; parsing the whole document cost `check` about 10 ms on a locked
/// project of 830 KB (fastapi/fastapi), more than the `git status` it predicts. A lock whose
/// lines do not read that way is parsed as TOML.
pub fn toml_lock_packages(text: &str) -> Vec<Pinned> {
    let found = lock_lines(text);
    if found.is_empty() && text.contains("[[package]]") {
        return parsed_lock(text);
    }
    found
}

fn lock_lines(text: &str) -> Vec<Pinned> {
    /// One `[[package]]` table as it is read: its name, version and whether it is the project.
    #[derive(Default)]
    struct Entry {
        name: Option<String>,
        version: Option<String>,
        local: bool,
    }
    fn done(entry: Entry, found: &mut Vec<Pinned>) {
        if let (Some(name), Some(version), false) = (entry.name, entry.version, entry.local) {
            found.push((name, version));
        }
    }
    let quoted = |value: &str| {
        let value = value.trim();
        let inner = value.strip_prefix('"')?.strip_suffix('"')?;
        (!inner.contains(['"', '\\'])).then(|| inner.to_string())
    };
    let mut found = Vec::new();
    let mut entry: Option<Entry> = None;
    for line in text.lines() {
        if line.starts_with('[') {
            if let Some(e) = entry.take() {
                done(e, &mut found);
            }
            entry = (line.trim_end() == "[[package]]").then(Entry::default);
            continue;
        }
        let Some(e) = entry.as_mut() else {
            continue;
        };
        if let Some(value) = line.strip_prefix("name = ") {
            e.name = quoted(value);
        } else if let Some(value) = line.strip_prefix("version = ") {
            e.version = quoted(value);
        } else if let Some(value) = line.strip_prefix("source = ") {
            e.local = value.contains("editable =") || value.contains("virtual =");
        }
    }
    if let Some(e) = entry {
        done(e, &mut found);
    }
    found
}

fn parsed_lock(text: &str) -> Vec<Pinned> {
    let Ok(value) = text.parse::<toml::Table>() else {
        return Vec::new();
    };
    let Some(packages) = value.get("package").and_then(|p| p.as_array()) else {
        return Vec::new();
    };
    packages
        .iter()
        .filter_map(|p| {
            let local = p
                .get("source")
                .and_then(|s| s.as_table())
                .is_some_and(|s| s.contains_key("editable") || s.contains_key("virtual"));
            let name = p.get("name")?.as_str()?;
            let version = p.get("version")?.as_str()?;
            (!local).then(|| (name.to_string(), version.to_string()))
        })
        .collect()
}

/// The plain `name==version` lines of the project's `requirements*.txt` files, and how many
/// other lines name something to install (a path, a URL, an option such as `-e` or `-r`, a
/// range): pip would act on those as they say, so the sample leaves them out.
pub fn requirements_and_left_out(root: &Path) -> (Vec<Pinned>, u64) {
    let Ok(entries) = std::fs::read_dir(root) else {
        return (Vec::new(), 0);
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| is_requirements(p))
        .collect();
    files.sort();
    let mut left_out = 0;
    let mut pinned: Vec<Pinned> = Vec::new();
    let read = |file: &PathBuf| crate::base::repo_file::manifest(root, file.file_name()?);
    for text in files.iter().filter_map(read) {
        for line in text.lines() {
            // A comment starts at a `#` after white space (pip's rule); a marker after `;`
            // says where the line applies, which a sample need not honour.
            let line = line.split(" #").next().unwrap_or("");
            let line = if line.starts_with('#') { "" } else { line };
            let line = line.split(';').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let pin = line.split_once("==").and_then(|(name, version)| {
                // Extras (`requests[socks]`) install more packages of the same registry.
                let (name, extras) = name.split_once('[').unwrap_or((name, "]"));
                let plain_extras = extras.trim_end().strip_suffix(']').is_some_and(|e| {
                    e.chars().all(|c| {
                        c.is_ascii_alphanumeric() || matches!(c, ',' | '-' | '_' | '.' | ' ')
                    })
                });
                let name = if plain_extras { name.trim() } else { "" };
                let version = version.trim();
                is_plain_python_pin(name, version).then(|| (name.to_string(), version.to_string()))
            });
            match pin {
                Some(pin) => pinned.push(pin),
                None => left_out += 1,
            }
        }
    }
    pinned.sort();
    pinned.dedup();
    (pinned, left_out)
}

/// `requirements.txt`, `requirements-dev.txt`, `requirements_test.txt` and the like.
pub fn is_requirements(path: &Path) -> bool {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .is_some_and(|n| n.starts_with("requirements") && n.ends_with(".txt"))
}

/// The Python packages the project installs, exactly pinned: what its virtualenv holds, else
/// its `uv.lock` or `poetry.lock`, else its pinned requirements. Each is a fair sample: a
/// package manager installs them one by one (`--no-deps`), so leaves are not needed.
pub fn python_packages(root: &Path) -> Vec<Pinned> {
    python_packages_and_left_out(root).0
}

/// As [`python_packages`], with how many requirement lines were left out for not being plain
/// pins (`requirements_and_left_out`); 0 when the packages come from the virtualenv or a lock.
pub fn python_packages_and_left_out(root: &Path) -> (Vec<Pinned>, u64) {
    if let Some(found) = site_packages(root)
        .iter()
        .map(|s| installed_python(s))
        .find(|p| !p.is_empty())
    {
        return (found, 0);
    }
    if let Some(found) = uv_synced(root) {
        return (found, 0);
    }
    for lock in ["uv.lock", "poetry.lock"] {
        if let Some(text) = crate::base::repo_file::manifest(root, lock) {
            let found = toml_lock_packages(&text);
            if !found.is_empty() {
                return (found, 0);
            }
        }
    }
    requirements_and_left_out(root)
}

/// What `uv sync` installs from the project's `uv.lock` (`uv_sync`): its default groups, for
/// this machine and the Python it would use; None without a lock that names the project.
fn uv_synced(root: &Path) -> Option<Vec<Pinned>> {
    use super::uv_sync::{default_groups, python_of, synced_packages};
    let lock = crate::base::repo_file::manifest(root, "uv.lock")?;
    let pyproject = crate::base::repo_file::manifest(root, "pyproject.toml").unwrap_or_default();
    let groups = default_groups(&pyproject);
    let env = super::markers::MarkerEnv {
        python: python_of(root, || super::asked::version_output("python3")),
    };
    synced_packages(&lock, groups.as_deref(), &env).filter(|found| !found.is_empty())
}

/// Whether every package of a `uv.lock` comes from a registry (the project itself, `editable`
/// or `virtual` at `.`, aside): a `path`, `directory`, `git` or `url` source is read, fetched
/// or built from wherever the lock says, so such a lock is not a sample.
pub fn uv_lock_is_registry_only(text: &str) -> bool {
    // Parsed as the TOML it is: a source written as a table of its own (`[package.source]`),
    // split over lines, or in any other form uv reads is seen as uv sees it.
    let empty = toml::Value::Array(Vec::new());
    let Ok(document) = text.parse::<toml::Table>() else {
        return false;
    };
    let packages = document.get("package").unwrap_or(&empty).as_array();
    let registry = |package: &toml::Value| match package.get("source").map(toml::Value::as_table) {
        None => true,
        Some(Some(source)) => match source.iter().collect::<Vec<_>>()[..] {
            [(kind, _)] if kind == "registry" => true,
            [(kind, path)] => {
                (kind == "editable" || kind == "virtual") && path.as_str() == Some(".")
            }
            _ => false,
        },
        Some(None) => false,
    };
    packages.is_some_and(|p| p.iter().all(registry))
}

/// A `pyproject.toml` holding only the `[project]` table, `[dependency-groups]` and `[tool.uv]`
/// `default-groups` of `text`: what `uv sync --frozen` needs of it to install what the
/// project's own sync does, without the settings (the rest of `[tool.*]`) and build backend
/// (`[build-system]`) a repository could use to choose where uv writes or what it runs (group
/// names choose neither). None when `text` is not TOML.
pub fn project_table_only(text: &str) -> Option<String> {
    let mut document: toml::Table = text.parse().ok()?;
    let default_groups = document
        .get_mut("tool")
        .and_then(|t| t.get_mut("uv")?.as_table_mut()?.remove("default-groups"));
    let mut kept: toml::Table = document
        .into_iter()
        .filter(|(key, _)| key == "project" || key == "dependency-groups")
        .collect();
    if let Some(groups) = default_groups {
        let uv = toml::Table::from_iter([("default-groups".to_string(), groups)]);
        let tool = toml::Table::from_iter([("uv".to_string(), toml::Value::Table(uv))]);
        kept.insert("tool".to_string(), toml::Value::Table(tool));
    }
    toml::to_string(&kept).ok()
}

/// At most `max` of `packages`, spread over the list.
pub fn sample_of(packages: Vec<Pinned>, max: usize) -> Vec<Pinned> {
    spread(packages, max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lifecycle_scripts_count_the_start_ups_they_cause() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        assert_eq!(lifecycle_startups(root), 0.0);
        // koajs/koa's: prepare runs npm, which runs one node program.
        write(
            &root.join("package.json"),
            r#"{"scripts":{"test":"node --test","build":"gen-esm-wrapper . ./dist/koa.mjs","prepare":"npm run build"}}"#,
        );
        assert!((lifecycle_startups(root) - 1.35).abs() < 1e-9);
        write(
            &root.join("package.json"),
            r#"{"scripts":{"a":"npm run a","postinstall":"husky install && npm run a"}}"#,
        );
        // A script that runs itself is followed `RUN_DEPTH` deep, no further.
        assert!((lifecycle_startups(root) - 5.35).abs() < 1e-9);
        write(&root.join(".npmrc"), "ignore-scripts = true\n");
        assert_eq!(lifecycle_startups(root), 0.0);
    }

    #[test]
    fn leaf_packages_skip_nested_linked_and_dependent_entries() {
        let lock = r#"{"lockfileVersion":3,"packages":{
            "":{"dependencies":{"a":"1"}},
            "node_modules/a":{"version":"1.0.0","dependencies":{"b":"2"}},
            "node_modules/b":{"version":"2.0.0"},
            "node_modules/@s/c":{"version":"3.0.0","dependencies":{}},
            "node_modules/a/node_modules/b":{"version":"1.5.0"},
            "node_modules/l":{"version":"0.1.0","link":true},
            "node_modules/fsevents":{"version":"2.3.3","optional":true,"os":["darwin"]},
            "node_modules/nan":{"version":"2.30.0","optional":true}}}"#;
        assert_eq!(
            npm_leaf_packages(lock, 10, false),
            vec![
                ("@s/c".to_string(), "3.0.0".to_string()),
                ("b".to_string(), "2.0.0".to_string())
            ]
        );
        assert_eq!(npm_leaf_packages(lock, 1, false).len(), 1);
        assert!(npm_leaf_packages("not json", 5, false).is_empty());
        // What npm placed: its optional `nan` was installed here; `fsevents` never is.
        let placed = npm_leaf_packages(lock, 10, true);
        assert!(placed.contains(&("nan".to_string(), "2.30.0".to_string())));
        assert!(!placed.iter().any(|(name, _)| name == "fsevents"));
    }

    #[test]
    fn the_sample_comes_from_what_npm_placed_else_the_lock_file() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(npm_lock_file(dir.path()).map(|(_, text)| text), None);
        std::fs::write(dir.path().join("package-lock.json"), "committed").unwrap();
        assert_eq!(
            npm_lock_file(dir.path()).map(|(_, text)| text).as_deref(),
            Some("committed")
        );
        std::fs::create_dir(dir.path().join("node_modules")).unwrap();
        std::fs::write(dir.path().join("node_modules/.package-lock.json"), "hidden").unwrap();
        assert_eq!(
            npm_lock_file(dir.path()),
            Some((NPM_INSTALLED_RECORD, "hidden".to_string()))
        );
    }

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn installed_leaves_are_read_from_node_modules_and_pnpms_store() {
        let dir = tempfile::tempdir().unwrap();
        let nm = dir.path().join("node_modules");
        write(
            &nm.join("a/package.json"),
            r#"{"name":"a","version":"1.0.0","dependencies":{"b":"2"}}"#,
        );
        write(
            &nm.join("@s/c/package.json"),
            r#"{"name":"@s/c","version":"3.0.0"}"#,
        );
        write(
            &nm.join(".pnpm/d@4.0.0/node_modules/d/package.json"),
            r#"{"name":"d","version":"4.0.0","dependencies":{}}"#,
        );
        write(&nm.join(".bin/x"), "");
        assert_eq!(
            node_modules_leaves(dir.path(), 10),
            vec![
                ("@s/c".to_string(), "3.0.0".to_string()),
                ("d".to_string(), "4.0.0".to_string())
            ]
        );
    }

    #[test]
    fn lock_lines_read_as_the_toml_parser_reads_them() {
        let uv = r#"version = 1
revision = 3
requires-python = ">=3.10"
resolution-markers = [
    "python_full_version >= '3.15'",
]

[[package]]
name = "anyio"
version = "4.9.0"
source = { registry = "https://pypi.org/simple" }
dependencies = [
    { name = "idna" },
    { name = "sniffio", marker = "python_full_version < '3.11'" },
]
wheels = [
    { url = "https://files.example/anyio-4.9.0-py3-none-any.whl", hash = "sha256:00", size = 100 },
]

[package.optional-dependencies]
trio = [
    { name = "trio" },
]

[[package]]
name = "app"
version = "0.1.0"
source = { editable = "." }

[package.metadata]
requires-dist = [{ name = "anyio", specifier = ">=4" }]

[[package]]
name = "idna"
version = "3.10"
source = { registry = "https://pypi.org/simple" }

[[package]]
name = "tool"
version = "1.0"
source = { virtual = "tools/x" }
"#;
        let poetry = r#"# This file is automatically @generated by Poetry 1.8.3 and should not be changed by hand.

[[package]]
name = "certifi"
version = "2024.8.30"
description = "Python package for providing Mozilla's CA Bundle."
optional = false
python-versions = ">=3.6"
files = [
    {file = "certifi-2024.8.30-py3-none-any.whl", hash = "sha256:00"},
]

[package.extras]
dev = ["pytest"]

[[package]]
name = "urllib3"
version = "2.2.3"
description = "HTTP library"
optional = false
python-versions = ">=3.8"
files = []

[metadata]
lock-version = "2.0"
python-versions = "^3.10"
content-hash = "00"
"#;
        for text in [uv, poetry] {
            let lines = lock_lines(text);
            assert!(!lines.is_empty());
            assert_eq!(lines, parsed_lock(text));
            assert_eq!(toml_lock_packages(text), lines);
        }
        assert_eq!(
            lock_lines(uv),
            vec![
                ("anyio".to_string(), "4.9.0".to_string()),
                ("idna".to_string(), "3.10".to_string())
            ]
        );
        // Written another way (a key not at the start of its line): the parser reads it.
        let indented = "[[package]]\n  name = \"six\"\n  version = \"1.16.0\"\n";
        assert!(lock_lines(indented).is_empty());
        assert_eq!(
            toml_lock_packages(indented),
            vec![("six".to_string(), "1.16.0".to_string())]
        );
    }

    #[test]
    fn a_uv_lock_is_a_sample_only_with_registry_sources() {
        let registry = "[[package]]\nname = \"a\"\nsource = { editable = \".\" }\n\n[[package]]\nname = \"six\"\nsource = { registry = \"https://pypi.org/simple\" }\n";
        assert!(uv_lock_is_registry_only(registry));
        for source in [
            "{ directory = \"../src/x/pkg\" }",
            "{ path = \"/abs/x.whl\" }",
            "{ git = \"https://x/y\" }",
            "{ url = \"http://x/y.tar.gz\" }",
            "{ editable = \"../x\" }",
        ] {
            let text = format!("{registry}\n[[package]]\nname = \"x\"\nsource = {source}\n");
            assert!(!uv_lock_is_registry_only(&text), "{source}");
        }
        // The same sources written as tables of their own, or spread over lines.
        let table =
            format!("{registry}\n[[package]]\nname = \"x\"\n[package.source]\npath = \"/abs/x\"\n");
        assert!(!uv_lock_is_registry_only(&table), "{table}");
        let spread = format!(
            "{registry}\n[[package]]\nname = \"x\"\nsource = {{ registry = \"r\",\n  git = \"g\" }}\n"
        );
        assert!(!uv_lock_is_registry_only(&spread), "{spread}");
        assert!(!uv_lock_is_registry_only("not [toml"));
        let project = "[project]\nname = \"p\"\ndependencies = [\"six\"]\n\n[build-system]\nrequires = [\"x\"]\nbuild-backend = \"evil\"\nbackend-path = [\".\"]\n\n[tool.uv]\ncache-dir = \"/tmp/x\"\n\n[tool.uv.sources]\nsix = { path = \"../six\" }\n";
        let kept = project_table_only(project).unwrap();
        assert!(kept.contains("name = \"p\""), "{kept}");
        assert!(
            !kept.contains("build") && !kept.contains("tool") && !kept.contains("cache"),
            "{kept}"
        );
        assert_eq!(project_table_only("not [toml"), None);
        // The groups a sync installs stay (without them the sample installs `dev` only);
        // nothing else of `[tool.uv]` does.
        let grouped = project.replace(
            "cache-dir = \"/tmp/x\"\n",
            "cache-dir = \"/tmp/x\"\ndefault-groups = [\"docs\", \"dev\"]\n",
        );
        let kept: toml::Table = project_table_only(&grouped).unwrap().parse().unwrap();
        let uv = kept["tool"]["uv"].as_table().unwrap();
        assert_eq!(uv.keys().collect::<Vec<_>>(), ["default-groups"], "{kept}");
        assert_eq!(uv["default-groups"][0].as_str(), Some("docs"));
        assert!(!kept.contains_key("build-system"), "{kept}");
    }

    #[test]
    fn only_plain_pins_are_sampled() {
        assert!(is_plain_npm_pin("ms", "2.1.2"));
        assert!(is_plain_npm_pin("@babel/core", "7.24.0-beta.1+build"));
        for (name, version) in [
            ("ms", "file:../ms"),
            ("ms", "^2.1.2"),
            ("ms", "git+ssh://git@github.com/x/ms.git"),
            ("../ms", "2.1.2"),
            ("@s", "1.0.0"),
            ("ms", "2.1"),
            ("ms", "2.1.2 --foo"),
            ("ms", "npm:other@1.0.0"),
        ] {
            assert!(!is_plain_npm_pin(name, version), "{name} {version}");
        }
        assert!(is_plain_python_pin("zope.interface", "6.1"));
        assert!(is_plain_python_pin("Django", "1!5.0rc1+local.1"));
        for (name, version) in [
            ("/abs/evilpkg --config-settings=a", "1"),
            ("evilpkg @ http://HOST/evilpkg-1.0.tar.gz?x", "1.0"),
            ("-e .", "1"),
            ("six", "1.16.0 --hash=sha256:x"),
            ("six", "*"),
        ] {
            assert!(!is_plain_python_pin(name, version), "{name} {version}");
        }
        let dir = tempfile::tempdir().unwrap();
        write(
            &dir.path().join("requirements.txt"),
            "# pinned\nsix==1.16.0  # why\n/abs/evilpkg --config-settings=a==1\nevilpkg @ http://HOST/evilpkg-1.0.tar.gz?x==1.0\n-e .\n-r other.txt\nflask>=2\nrequests[socks]==2.31.0\nbad[$(x)]==1.0\n",
        );
        let (pins, left_out) = requirements_and_left_out(dir.path());
        assert_eq!(
            pins,
            vec![
                ("requests".to_string(), "2.31.0".to_string()),
                ("six".to_string(), "1.16.0".to_string())
            ]
        );
        assert_eq!(left_out, 6);
    }

    #[test]
    fn python_packages_come_from_the_venv_then_the_locks_then_requirements() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        assert!(python_packages(root).is_empty());
        write(
            &root.join("requirements-dev.txt"),
            "# tools\nblack==24.1.0 ; python_version > '3.8'\nrequests[socks]==2.31.0\nflask>=2\n",
        );
        assert_eq!(
            python_packages(root),
            vec![
                ("black".to_string(), "24.1.0".to_string()),
                ("requests".to_string(), "2.31.0".to_string())
            ]
        );
        write(
            &root.join("uv.lock"),
            "version = 1\n[[package]]\nname = \"app\"\nversion = \"0.1.0\"\nsource = { editable = \".\" }\n\n[[package]]\nname = \"idna\"\nversion = \"3.7\"\nsource = { registry = \"https://pypi.org/simple\" }\n",
        );
        assert_eq!(
            python_packages(root),
            vec![("idna".to_string(), "3.7".to_string())]
        );
        let site = root.join(".venv/lib/python3.12/site-packages");
        std::fs::create_dir_all(site.join("six-1.16.0.dist-info")).unwrap();
        std::fs::create_dir_all(site.join("pip-24.0.dist-info")).unwrap();
        // The project itself, installed editable: in no cache.
        write(&site.join("app-0.1.0.dist-info/direct_url.json"), "{}");
        assert_eq!(
            python_packages(root),
            vec![("six".to_string(), "1.16.0".to_string())]
        );
        assert!(toml_lock_packages("not toml [").is_empty());
    }
}
