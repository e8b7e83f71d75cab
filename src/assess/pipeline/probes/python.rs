//! A Python project's reinstall as `check` prices it: uv's sync from its lock and cache, pip's
//! requirements with the editable build, else the virtualenv or the pinned packages.

use crate::host::HostEnv;
use crate::measure::deps;
use crate::measure::deps::managers::{self, Manager};
use crate::measure::deps::uv_cache::{self, UvSettings};
use crate::measure::probe::ProbeSet;
use crate::measure::scan::{DependencyKind, ScanReport};
use crate::model::{self, InstallSource};
use std::path::Path;

/// The reinstall of the Python project at `root` (`root_depth` components below its mount's
/// root): pip's estimate from its requirement files where nothing better was found (no
/// virtualenv, no uv lock), else `model::python_install`'s; for uv without a virtualenv, what
/// its sync writes as its lock and cache say, and whether it links from that cache here and on
/// the baseline (`deps::uv_cache`).
pub(super) fn reinstall(
    env: &HostEnv,
    scan: &ScanReport,
    probes: &ProbeSet,
    root: &Path,
    manager: Manager,
    root_depth: u32,
) -> Option<model::InstallFigures> {
    let uv = (manager == Manager::Uv).then(|| UvSettings::of(env, root));
    let has_venv = scan
        .dependency_trees
        .iter()
        .any(|t| t.kind == DependencyKind::Venv);
    let synced = uv
        .as_ref()
        .filter(|_| !has_venv)
        .and_then(|settings| uv_cache::synced_tree(root, settings));
    let packages = match synced {
        Some(_) => 0,
        None => deps::packages::python_packages(root).len() as u64,
    };
    let mut install = model::python_install(scan, packages, root_depth, synced.as_ref());
    if let (Some(install), Some(settings)) = (install.as_mut(), uv) {
        let baseline_dir = probes.baseline.as_ref().map_or(root, |b| b.dir.as_path());
        install.cache_links = Some(model::CacheLinks {
            current: settings.links_into(root),
            baseline: settings.links_into(baseline_dir),
        });
    }
    let from_requirements = install
        .as_ref()
        .is_none_or(|i| i.source == InstallSource::PythonLock);
    match pip_estimate(root, root_depth).filter(|_| from_requirements) {
        Some(estimate) => Some(estimate.install),
        None => install,
    }
}

/// pip's install of the project at `root` (`root_depth` components below its mount's root)
/// as its requirement files and `pyproject.toml` shape it (`model::pip`); None when pip is
/// not its manager, or it names nothing, or it has a virtualenv.
pub(super) fn pip_estimate(root: &Path, root_depth: u32) -> Option<model::PipEstimate> {
    if managers::detect(root) != Some(Manager::Pip) {
        return None;
    }
    // A virtualenv holds the built project: a reinstall is priced from it.
    if !deps::packages::site_packages(root).is_empty() {
        return None;
    }
    let shape = deps::pip_project::pip_shape(root)?;
    let depth = f64::from(root_depth) + model::PY_TREE_DEPTH;
    Some(model::pip_estimate(&shape, depth))
}
