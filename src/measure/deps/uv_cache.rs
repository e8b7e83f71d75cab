//! Where uv keeps its cache and how it places files from it, and what a sync from a `uv.lock`
//! writes, read from the lock and that cache without starting uv.
//!
//! uv links each file of a wheel from the wheel unpacked in its cache (`hardlink`, its default
//! on Linux) when the cache shares the file system of the virtualenv, and copies it otherwise
//! (a link across file systems fails; uv then copies every file). The cache is
//! `UV_CACHE_DIR`, else the `cache-dir` of the project's `uv.toml` or `[tool.uv]`, else the
//! person's `uv.toml`, else `$XDG_CACHE_HOME/uv` or `~/.cache/uv`; the link mode likewise
//! (`UV_LINK_MODE`, `link-mode`). A repository's settings are read as values, never run.
//!
//! The cache holds each wheel unpacked (`archive-v0/<id>/`, its `<name>-<version>.dist-info/RECORD`
//! listing every file with its size), found from `wheels-v*/pypi/<name>/<version>-<tags>`, a
//! link to that folder.

use super::uv_sync::SyncedWheel;
use crate::host::HostEnv;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// A RECORD larger than this is not read (mypy's, of 2,000 files, is 250 KB).
const RECORD_LIMIT: u64 = 8 * 1024 * 1024;

/// How uv places a wheel's files into a virtualenv (`link-mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkMode {
    /// `hardlink` (the default on Linux), `clone` or `symlink`: a link where the cache shares
    /// the file system (a clone where the file system has them; elsewhere uv copies), a copy
    /// elsewhere.
    Link,
    /// `copy`: every file copied, wherever the cache is.
    Copy,
}

/// uv's settings for a sync of the project at `root`, as far as they decide where its files
/// come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UvSettings {
    /// The cache; None when it cannot be told (no home, `UV_NO_CACHE`: a temporary cache).
    pub cache_folder: Option<PathBuf>,
    pub link_mode: LinkMode,
}

/// `cache-dir` and `link-mode` of one uv settings file: a `uv.toml` (top level) or a
/// `pyproject.toml` (`[tool.uv]`).
fn settings_in(path: &Path) -> (Option<PathBuf>, Option<LinkMode>) {
    let Ok(bytes) = crate::base::input::read_regular(path, 1024 * 1024, "uv settings") else {
        return (None, None);
    };
    let Ok(table) = String::from_utf8_lossy(&bytes).parse::<toml::Table>() else {
        return (None, None);
    };
    let pyproject = path.file_name().is_some_and(|n| n == "pyproject.toml");
    let uv = if pyproject {
        table.get("tool").and_then(|t| t.get("uv")).cloned()
    } else {
        Some(toml::Value::Table(table))
    };
    let Some(uv) = uv else {
        return (None, None);
    };
    let base = path.parent().unwrap_or(Path::new("/"));
    let cache = uv
        .get("cache-dir")
        .and_then(|d| d.as_str())
        .map(|d| base.join(d));
    let mode = uv.get("link-mode").and_then(|m| m.as_str()).map(link_mode);
    (cache, mode)
}

fn link_mode(text: &str) -> LinkMode {
    if text.trim() == "copy" {
        LinkMode::Copy
    } else {
        LinkMode::Link
    }
}

impl UvSettings {
    /// The settings uv would use for the project at `root`: the environment first, then the
    /// project's `uv.toml` (else its `pyproject.toml`), then the person's `uv.toml`.
    pub fn of(env: &HostEnv, root: &Path) -> Self {
        let home = env.home();
        let config_home = env
            .var("XDG_CONFIG_HOME")
            .map(PathBuf::from)
            .or_else(|| home.as_ref().map(|h| h.join(".config")));
        let project = if root.join("uv.toml").is_file() {
            settings_in(&root.join("uv.toml"))
        } else {
            settings_in(&root.join("pyproject.toml"))
        };
        let user = config_home.map_or((None, None), |c| settings_in(&c.join("uv/uv.toml")));
        let default_cache = env
            .var("XDG_CACHE_HOME")
            .map(PathBuf::from)
            .or_else(|| home.map(|h| h.join(".cache")))
            .map(|c| c.join("uv"));
        let no_cache = env
            .var("UV_NO_CACHE")
            .is_some_and(|v| v != "0" && v != "false");
        let cache_folder = env
            .var("UV_CACHE_DIR")
            .map(PathBuf::from)
            .or(project.0)
            .or(user.0)
            .or(default_cache)
            .filter(|_| !no_cache);
        let link_mode = env
            .var("UV_LINK_MODE")
            .map(link_mode)
            .or(project.1)
            .or(user.1)
            .unwrap_or(LinkMode::Link);
        Self {
            cache_folder,
            link_mode,
        }
    }

    /// Whether uv links the files of a virtualenv made in `dir` from its cache, rather than
    /// copying them: a link mode that links and a cache on `dir`'s file system (a cache not
    /// made yet counts as on the file system of its nearest folder).
    pub fn links_into(&self, dir: &Path) -> bool {
        use std::os::unix::fs::MetadataExt;
        let device = |path: &Path| {
            path.ancestors()
                .find_map(|p| std::fs::metadata(p).ok())
                .map(|m| m.dev())
        };
        match (&self.cache_folder, self.link_mode) {
            (Some(cache), LinkMode::Link) => device(cache).is_some_and(|d| Some(d) == device(dir)),
            _ => false,
        }
    }
}

/// What a sync writes: files, directories and bytes, and how many packages were counted from
/// the cache's unpacked wheels (the rest from their wheel's size in the lock).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SyncTree {
    pub packages: u64,
    pub files: u64,
    pub dirs: u64,
    pub bytes: u64,
    pub from_cache: u64,
    /// The path components of every file below `site-packages`, summed: over `files`, how
    /// deep a file lies (attrs' 1,241 files: 2.8 on average, click's 7,891: 6.8, pyright's
    /// node program being deep).
    pub components: u64,
}

impl SyncTree {
    /// Path components from the virtualenv's folder's parent to a file, on average
    /// (`.venv/lib/python3.x/site-packages/` and the file's own); None without files.
    pub fn depth(&self) -> Option<f64> {
        (self.files > 0).then(|| 4.0 + self.components as f64 / self.files as f64)
    }
}

/// Files, directories, bytes and path components (summed over the files) a wheel installs,
/// from its RECORD: one line per file, `path,hash,size`; the directories are the distinct
/// folders of those paths.
pub fn record_tree(record: &str) -> Counted {
    let mut dirs: BTreeSet<&str> = BTreeSet::new();
    let (mut files, mut bytes, mut components) = (0, 0, 0);
    for line in record.lines().filter(|l| !l.trim().is_empty()) {
        // A path holding a comma is quoted; its size is still the last field.
        let path = line.rsplitn(3, ',').nth(2).unwrap_or(line);
        let size = line
            .rsplit(',')
            .next()
            .and_then(|s| s.trim().parse::<u64>().ok());
        files += 1;
        bytes += size.unwrap_or(0);
        let mut folder = path.trim_matches('"');
        components += folder.split('/').filter(|c| *c != "..").count() as u64;
        while let Some((parent, _)) = folder.rsplit_once('/') {
            if !dirs.insert(parent) {
                break;
            }
            folder = parent;
        }
    }
    (files, dirs.len() as u64, bytes, components)
}

/// Files, directories, bytes and path components, as `record_tree` counts them.
type Counted = (u64, u64, u64, u64);

/// The unpacked wheel `wheel` (its file name without `.whl`) of `name` in the cache at
/// `cache`: `wheels-v*/pypi/<name>/<version>-<tags>`, a link to `archive-v0/<id>`, whose
/// RECORD is counted. None when the cache does not hold it.
fn cached_wheel(cache: &Path, name: &str, version: &str) -> Option<Counted> {
    let normalized = normalized(name);
    let buckets = std::fs::read_dir(cache).ok()?.flatten().filter(|e| {
        e.file_name()
            .to_str()
            .is_some_and(|n| n.starts_with("wheels-v"))
    });
    let prefix = format!("{version}-");
    // PyPI's wheels under `pypi`, another index's under `index/<its digest>`.
    let folders = buckets.flat_map(|bucket| {
        let others = std::fs::read_dir(bucket.path().join("index"))
            .into_iter()
            .flatten()
            .flatten()
            .map(|index| index.path());
        std::iter::once(bucket.path().join("pypi")).chain(others)
    });
    for folder in folders {
        let Ok(entries) = std::fs::read_dir(folder.join(&normalized)) else {
            continue;
        };
        for entry in entries.flatten() {
            let file = entry.file_name();
            let file = file.to_string_lossy();
            let pointer = !(file.ends_with(".http") || file.ends_with(".lock"));
            if !file.starts_with(&prefix) || !pointer {
                continue;
            }
            let Ok(archive) = std::fs::canonicalize(entry.path()) else {
                continue;
            };
            if let Some(counted) = archive_tree(&archive) {
                return Some(counted);
            }
        }
    }
    None
}

/// The RECORD of the one `*.dist-info` folder of an unpacked wheel, counted.
fn archive_tree(archive: &Path) -> Option<Counted> {
    let info = std::fs::read_dir(archive).ok()?.flatten().find(|e| {
        e.file_name()
            .to_str()
            .is_some_and(|n| n.ends_with(".dist-info"))
    })?;
    let record =
        crate::base::input::read_regular(&info.path().join("RECORD"), RECORD_LIMIT, "wheel RECORD")
            .ok()?;
    Some(record_tree(&String::from_utf8_lossy(&record)))
}

/// A package name as uv files it: lower case, runs of `-`, `_` and `.` one `-`.
fn normalized(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        let c = if matches!(c, '_' | '.') { '-' } else { c };
        if !(c == '-' && out.ends_with('-')) {
            out.push(c.to_ascii_lowercase());
        }
    }
    out
}

/// A wheel uv's cache does not hold, from its size in the lock: installed bytes per byte of
/// wheel, files per MB of wheel and folders per file, pooled over the 117 wheels that uv 0.13.9
/// installs for pallets/werkzeug 1b00618e, pallets/flask 2ac89889 and pallets/jinja 5ef70112
/// (200.6 MB of wheels: 533 MB, 23,418 files in 3,486 folders). A rough figure: per package
/// it ranges from one file for 12 MB (ruff) to 830 a MB (pyright, a bundled node program).
pub const UNPACKED_PER_WHEEL_BYTE: f64 = 2.66;
pub const FILES_PER_WHEEL_MB: f64 = 117.0;
pub const DIRS_PER_FILE: f64 = 0.15;

/// The tree a sync of `wheels` writes: each counted from the cache at `cache` when it holds the
/// wheel unpacked, else estimated from the wheel's size (`UNPACKED_PER_WHEEL_BYTE`,
/// `FILES_PER_WHEEL_MB`). None when some wheel has neither (an sdist uv would build).
pub fn sync_tree(wheels: &[SyncedWheel], cache: Option<&Path>) -> Option<SyncTree> {
    let mut tree = SyncTree::default();
    for wheel in wheels {
        let counted = cache.and_then(|c| cached_wheel(c, &wheel.name, &wheel.version));
        let (files, dirs, bytes, components) = match (counted, wheel.size) {
            (Some(counted), _) => {
                tree.from_cache += 1;
                counted
            }
            (None, Some(size)) => estimated(size),
            (None, None) => return None,
        };
        tree.packages += 1;
        tree.files += files;
        tree.dirs += dirs;
        tree.bytes += bytes;
        tree.components += components;
    }
    Some(tree)
}

/// A wheel's files, folders, bytes and path components from its size; its files as deep as
/// the fitting projects' (`ESTIMATED_COMPONENTS`).
fn estimated(wheel_bytes: u64) -> Counted {
    let files = (wheel_bytes as f64 / 1e6 * FILES_PER_WHEEL_MB)
        .max(2.0)
        .round();
    let dirs = (files * DIRS_PER_FILE).max(1.0);
    let bytes = wheel_bytes as f64 * UNPACKED_PER_WHEEL_BYTE;
    let components = files * ESTIMATED_COMPONENTS;
    (
        files as u64,
        dirs.round() as u64,
        bytes as u64,
        components as u64,
    )
}

/// Path components below `site-packages` of a file of the fitting projects' virtualenvs
/// (werkzeug, flask, jinja: 10.6-10.7 from the project's root, `.venv/lib/python3.x/
/// site-packages` being 4 of them).
pub const ESTIMATED_COMPONENTS: f64 = 6.6;

/// The tree `uv sync` writes for the project at `root` (its default groups, for this machine
/// and the Python it would use: `uv_sync`), counted from its `uv.lock` and the cache `settings`
/// name; None without a lock that names the project, or with a package that has no wheel.
pub fn synced_tree(root: &Path, settings: &UvSettings) -> Option<SyncTree> {
    use super::uv_sync::{default_groups, python_of, synced_wheels};
    let lock = crate::base::repo_file::manifest(root, "uv.lock")?;
    let pyproject = crate::base::repo_file::manifest(root, "pyproject.toml").unwrap_or_default();
    let groups = default_groups(&pyproject);
    let env = super::markers::MarkerEnv {
        python: python_of(root, || super::asked::version_output("python3")),
    };
    let wheels = synced_wheels(&lock, groups.as_deref(), &env)?;
    (!wheels.is_empty()).then_some(())?;
    sync_tree(&wheels, settings.cache_folder.as_deref())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wheel(name: &str, version: &str, size: Option<u64>) -> SyncedWheel {
        SyncedWheel {
            name: name.into(),
            version: version.into(),
            wheel: None,
            size,
        }
    }

    /// A cache holding `name` `version` unpacked, its RECORD listing `files` files of 100 bytes
    /// in two folders, found the way uv files it.
    fn cached(cache: &Path, name: &str, version: &str, files: usize) {
        let archive = cache.join("archive-v0").join(format!("id-{name}"));
        let info = archive.join(format!("{}-{version}.dist-info", name.replace('-', "_")));
        std::fs::create_dir_all(&info).unwrap();
        let record: String = (0..files)
            .map(|f| format!("{name}/sub/m{f}.py,sha256=x,100\n"))
            .collect();
        std::fs::write(info.join("RECORD"), record).unwrap();
        let folder = cache.join("wheels-v8/pypi").join(name);
        std::fs::create_dir_all(&folder).unwrap();
        std::os::unix::fs::symlink(&archive, folder.join(format!("{version}-py3-none-any")))
            .unwrap();
        std::fs::write(folder.join(format!("{version}-py3-none-any.http")), "x").unwrap();
    }

    #[test]
    fn a_record_counts_files_folders_and_bytes() {
        let record = "a/__init__.py,sha256=x,10\na/b/c.py,sha256=y,20\n\"a/d,e.py\",sha256=z,5\na-1.dist-info/RECORD,,\n";
        // Files a/__init__.py, a/b/c.py, a/d,e.py and RECORD; folders a, a/b, a-1.dist-info.
        // Components: 2, 3, 2 and 2.
        assert_eq!(record_tree(record), (4, 3, 35, 9));
        assert_eq!(record_tree(""), (0, 0, 0, 0));
    }

    #[test]
    fn the_tree_comes_from_the_cache_else_from_the_wheels_size() {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path();
        cached(cache, "my-pkg", "1.0", 30);
        let wheels = [
            wheel("My_Pkg", "1.0", Some(999)),
            wheel("other", "2.0", Some(1_000_000)),
        ];
        let tree = sync_tree(&wheels, Some(cache)).unwrap();
        assert_eq!(tree.from_cache, 1);
        assert_eq!(tree.packages, 2);
        // my-pkg from its RECORD: 30 files in my-pkg and my-pkg/sub, 3,000 bytes; the other
        // from its megabyte of wheel.
        let (files, dirs, bytes, components) = estimated(1_000_000);
        assert_eq!(files, FILES_PER_WHEEL_MB.round() as u64);
        assert_eq!(tree.files, 30 + files);
        assert_eq!(tree.dirs, 2 + dirs);
        assert_eq!(tree.bytes, 3000 + bytes);
        // my-pkg/sub/mN.py: three components each.
        assert_eq!(tree.components, 30 * 3 + components);
        let depth = tree.depth().unwrap();
        assert!((depth - (4.0 + (90.0 + components as f64) / tree.files as f64)).abs() < 1e-9);
        // Another version is not the cached one; a package without a wheel is not counted.
        let other = sync_tree(&[wheel("my-pkg", "1.1", Some(1_000_000))], Some(cache)).unwrap();
        assert_eq!(other.from_cache, 0);
        assert_eq!(
            sync_tree(&[wheel("sdist-only", "1", None)], Some(cache)),
            None
        );
        assert_eq!(normalized("Foo.Bar__baz"), "foo-bar-baz");
    }

    #[test]
    fn the_cache_and_link_mode_are_the_environments_then_the_projects_then_the_persons() {
        let dir = tempfile::tempdir().unwrap();
        let (root, home) = (dir.path().join("app"), dir.path().join("home"));
        std::fs::create_dir_all(home.join(".config/uv")).unwrap();
        std::fs::create_dir_all(&root).unwrap();
        let home_text = home.to_str().unwrap();
        let env = HostEnv::from_pairs(&[("HOME", home_text)]);
        let plain = UvSettings::of(&env, &root);
        assert_eq!(plain.cache_folder, Some(home.join(".cache/uv")));
        assert_eq!(plain.link_mode, LinkMode::Link);
        // The cache and the project share a file system: uv links.
        assert!(plain.links_into(&root));
        std::fs::write(
            home.join(".config/uv/uv.toml"),
            "cache-dir = \"/elsewhere/uv\"\nlink-mode = \"copy\"\n",
        )
        .unwrap();
        let user = UvSettings::of(&env, &root);
        assert_eq!(user.cache_folder, Some(PathBuf::from("/elsewhere/uv")));
        assert_eq!(user.link_mode, LinkMode::Copy);
        assert!(!user.links_into(&root));
        std::fs::write(
            root.join("pyproject.toml"),
            "[tool.uv]\ncache-dir = \".cache\"\nlink-mode = \"hardlink\"\n",
        )
        .unwrap();
        let project = UvSettings::of(&env, &root);
        assert_eq!(project.cache_folder, Some(root.join(".cache")));
        assert_eq!(project.link_mode, LinkMode::Link);
        let set = HostEnv::from_pairs(&[
            ("HOME", home_text),
            ("UV_CACHE_DIR", "/var/uv"),
            ("UV_LINK_MODE", "copy"),
        ]);
        let from_env = UvSettings::of(&set, &root);
        assert_eq!(from_env.cache_folder, Some(PathBuf::from("/var/uv")));
        assert_eq!(from_env.link_mode, LinkMode::Copy);
        let none = HostEnv::from_pairs(&[("HOME", home_text), ("UV_NO_CACHE", "1")]);
        assert_eq!(UvSettings::of(&none, &root).cache_folder, None);
        assert!(!UvSettings::of(&none, &root).links_into(&root));
    }
}
