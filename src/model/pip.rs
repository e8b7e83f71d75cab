//! `pip install -r requirements.txt` into a fresh virtualenv, priced where the repository's
//! files cannot say it: the packages pip installs beyond those the files name (their
//! dependencies, which pip reads from the index), and the editable project's build in an
//! isolated environment (installing its backend, then three hooks, each a Python process).
//! `check` never asks the index and never runs the project's build (either could run what
//! the repository chooses), so both are estimates, fitted on public projects that are not in
//! the held-out table (docs/accuracy.md, "pip's requirements"), and `check` says so.

use super::figures::{InstallFigures, InstallSource};
use crate::measure::deps::pip_project::PipShape;

/// Distributions pip installs per package the requirement files and the editable project's
/// extras name (their dependencies included, the project itself not). Fitted with
/// `pip install -r` into a fresh virtualenv (pip 23.2, `--report`) on encode/broadcaster
/// 6b3ea71 (15 named, 69 installed: mkdocs-material, twine and mypy pull many), psf/requests
/// 1f6589ec's requirements-dev.txt (11 named, 30) and encode/databases ae3fb16 (23 named, its
/// setup.py's dependencies not read; 82): pooled, 181 installed for 49 named, 3.69 (the three
/// alone 4.6, 2.7 and 3.6).
pub const PIP_DISTRIBUTIONS_PER_NAMED: f64 = 3.7;

/// An installed distribution of those installs, bytecode included: the same three
/// virtualenvs (21,102, 2,101 and 17,444 files) less the empty one (`python -m venv`: 1,474
/// files, 181 folders, 23 MB, pip's own), pooled over their 184 distributions: 221 files, 10.5
/// folders, 2.5 MB. (Python lock's 150 files a package, from flask's, requests' and numpy's
/// trees, puts a tree of development tools low: broadcaster's hold 301.)
pub const PIP_FILES_PER_DISTRIBUTION: u64 = 221;
pub const PIP_DIRS_PER_DISTRIBUTION: u64 = 10;
pub const PIP_BYTES_PER_DISTRIBUTION: u64 = 2_500_000;

/// The editable project's build, in units of pip's start-up (`startup_ms`, pip installing
/// nothing): a pip subprocess installing the backend (hatchling and its 5 dependencies, or
/// setuptools) into a temporary environment, the hooks that ask what else the build needs,
/// install it (hatchling's `editables`), prepare the metadata and build the editable wheel.
/// `pip install --log` timestamps, from pip's start to the editable metadata, on
/// encode/broadcaster (hatchling: 14.2 s), psf/requests (setuptools: 10.8 s) and
/// encode/databases (setup.py, built through setuptools' backend: 9.2 s), against pip's empty
/// install timed beside them (median 3.0 s; a load of 8-9): 4.7, 3.6 and 3.1, mean 3.8.
pub const PIP_EDITABLE_BUILD_STARTUPS: f64 = 3.8;

/// What pip's install of a project shaped `shape` recreates in its virtualenv, and what its
/// editable build adds to pip's own work (in start-ups; 0 without an editable line).
#[derive(Debug, Clone, PartialEq)]
pub struct PipEstimate {
    pub install: InstallFigures,
    pub build_startups: f64,
}

/// The estimate for `shape`, the project's files at `depth` (`figures::python_install`).
pub fn pip_estimate(shape: &PipShape, depth: f64) -> PipEstimate {
    let editable = u64::from(shape.editable_build.is_some());
    let distributions =
        (shape.named as f64 * PIP_DISTRIBUTIONS_PER_NAMED).round() as u64 + editable;
    PipEstimate {
        install: InstallFigures {
            files: distributions * PIP_FILES_PER_DISTRIBUTION,
            dirs: distributions * PIP_DIRS_PER_DISTRIBUTION,
            bytes: distributions * PIP_BYTES_PER_DISTRIBUTION,
            packages: distributions,
            source: InstallSource::PipRequirements,
            depth,
            links: 0,
            cache_links: None,
        },
        build_startups: editable as f64 * PIP_EDITABLE_BUILD_STARTUPS,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::deps::pip_project::EditableBuild;

    #[test]
    fn named_packages_bring_their_dependencies_and_an_editable_its_build() {
        let shape = PipShape {
            named: 10,
            editable_build: Some(EditableBuild { requires: 1 }),
        };
        let e = pip_estimate(&shape, 12.0);
        // The named packages with their dependencies (37 at 3.7 each), and the project.
        assert_eq!(e.install.packages, 38);
        assert_eq!(e.install.files, 38 * PIP_FILES_PER_DISTRIBUTION);
        assert_eq!(e.install.source, InstallSource::PipRequirements);
        assert_eq!(e.install.depth, 12.0);
        assert_eq!(e.build_startups, PIP_EDITABLE_BUILD_STARTUPS);
        let plain = pip_estimate(
            &PipShape {
                named: 10,
                editable_build: None,
            },
            0.0,
        );
        assert_eq!(plain.install.packages, 37);
        assert_eq!(plain.build_startups, 0.0);
    }
}
