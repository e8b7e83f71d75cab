//! The predictions of one check: each figure on both mounts, with its range.

use super::costs::MountCosts;
use super::figures::RepoFigures;
use super::git_status::{
    checkout_ms, first_git_status_cold_ms, first_git_status_ms, git_status_ms,
};
use super::install::{install_ms, manager_work_ms, pip_extra_us, uv_copy_extra_us, uv_link_ms};
use super::pnpm::pnpm_install_ms;
use super::uncertainty::{
    CHECKOUT_FIT_ERROR, Compared, FIRST_STATUS_FIT_ERROR, GIT_STATUS_FIT_ERROR, INSTALL_FIT_ERROR,
};
use crate::measure::deps::manager_timing::ManagerTiming;
use crate::measure::deps::managers::{self, Manager, Waits};
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Prediction {
    pub git_status_ms: Compared,
    /// The first `git status` after copying the repository (re-hashes every tracked file),
    /// with the copy still in the page cache, as right after `migrate`.
    pub first_git_status_ms: Compared,
    /// The same with a cold page cache (after a reboot): on a local disk every file is read
    /// from the disk; elsewhere the same as `first_git_status_ms`.
    pub first_git_status_cold_ms: Compared,
    /// On the Linux disk with git's fsmonitor daemon and the untracked cache (git >= 2.55, a
    /// repository the policy advises it for); None elsewhere.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub git_status_fsmonitor_ms: Option<f64>,
    /// None when there is nothing to install (no dependency tree, no package-lock.json).
    pub install_ms: Option<Compared>,
    /// The package manager's own part of `install_ms` (the same on both mounts), and how it
    /// was timed; None when there is nothing to install.
    pub install_manager_ms: Option<f64>,
    pub install_manager: Option<ManagerTiming>,
    pub checkout_ms: Compared,
    /// What the predictions were computed from.
    pub inputs: RepoFigures,
}

pub fn predict(
    repo: &RepoFigures,
    current: &MountCosts,
    baseline: Option<&MountCosts>,
    startup_ms: f64,
    manager: Option<&ManagerTiming>,
) -> Prediction {
    let both = |f: &dyn Fn(&MountCosts) -> f64, fit: f64| {
        Compared::new((f(current), current), baseline.map(|b| (f(b), b)), fit)
    };
    let manager_ms = repo
        .install
        .as_ref()
        .map(|i| manager.map_or(0.0, |t| manager_work_ms(t, i, baseline)));
    Prediction {
        git_status_ms: both(
            &|c| git_status_ms(repo, c, startup_ms),
            GIT_STATUS_FIT_ERROR,
        ),
        first_git_status_ms: both(
            &|c| first_git_status_ms(repo, c, startup_ms),
            FIRST_STATUS_FIT_ERROR,
        ),
        first_git_status_cold_ms: both(
            &|c| first_git_status_cold_ms(repo, c, startup_ms),
            FIRST_STATUS_FIT_ERROR,
        ),
        install_ms: repo.install.as_ref().zip(manager_ms).map(|(i, m)| {
            both(
                &|c| install_on(i, c, current, baseline, m, manager),
                INSTALL_FIT_ERROR,
            )
        }),
        git_status_fsmonitor_ms: None,
        install_manager_ms: manager_ms,
        install_manager: manager.cloned(),
        checkout_ms: both(&|c| checkout_ms(repo, c, startup_ms), CHECKOUT_FIT_ERROR),
        inputs: repo.clone(),
    }
}

/// The reinstall of `i` on the mount `c` (`current`, this run's, or `baseline`), with the
/// manager's own work `m` ms.
fn install_on(
    i: &super::figures::InstallFigures,
    c: &MountCosts,
    current: &MountCosts,
    baseline: Option<&MountCosts>,
    m: f64,
    manager: Option<&ManagerTiming>,
) -> f64 {
    // uv and bun link files from their cache on the cache's own disk (uv copies them through a
    // temporary file onto any other): the baseline is where the cache is. pip asks for each
    // file's attributes again and again, on every disk. Both name every file by its whole
    // path, several times. Where uv's cache is known (`InstallFigures::cache_links`), that
    // decides instead.
    let kind = manager.map(|t| t.manager);
    let waits = kind.map_or(Waits::Overlapped, |k| managers::of(k).waits());
    let linked = match i.cache_links {
        Some(links) if std::ptr::eq(c, current) => links.current,
        Some(links) => links.baseline,
        None => baseline == Some(c),
    };
    let copies = baseline.is_some() || i.cache_links.is_some();
    match kind {
        Some(k) if managers::of(k).links_from_cache() && linked => uv_link_ms(i, c, m),
        // pnpm copies onto a file system its store is not on (the project's own side).
        Some(Manager::Pnpm) => {
            let from_other_disk = manager.is_some_and(|t| t.copies_from_store);
            pnpm_install_ms(i, c, m, from_other_disk)
        }
        Some(Manager::Uv) if copies => install_ms(i, c, m, uv_copy_extra_us(i, c), waits),
        Some(Manager::Pip | Manager::Poetry) => install_ms(i, c, m, pip_extra_us(i, c), waits),
        _ => install_ms(i, c, m, 0.0, waits),
    }
}

#[cfg(test)]
mod tests {
    use super::super::figures::{InstallFigures, InstallSource};
    use super::super::fixtures::{local, repo, slow};
    use super::*;

    #[test]
    fn predict_reports_both_sides_and_the_ratio() {
        let r = RepoFigures {
            install: Some(InstallFigures {
                files: 10,
                dirs: 1,
                bytes: 100,
                packages: 1,
                source: InstallSource::PackageLock,
                depth: 0.0,
                links: 0,
                cache_links: None,
            }),
            ..repo(1000, 1200, 50)
        };
        let p = predict(&r, &slow(), Some(&local()), 1.5, None);
        let s = &p.git_status_ms;
        assert_eq!(s.speedup, Some(s.current / s.baseline.unwrap()));
        assert!(p.install_ms.as_ref().unwrap().speedup.unwrap() > 100.0);
        // The range: the model's fit and the slow side's sampling error, both ways.
        let e = GIT_STATUS_FIT_ERROR.hypot(0.1);
        assert!((s.error - e).abs() < 1e-12);
        assert!((s.current_range.low.unwrap() - s.current * (1.0 - e)).abs() < 1e-9);
        assert!((s.current_range.high - s.current * (1.0 + e)).abs() < 1e-9);
        let sr = s.speedup_range.unwrap();
        assert!(sr.low.unwrap() < s.speedup.unwrap() && s.speedup.unwrap() < sr.high);
        let alone = predict(&r, &slow(), None, 1.5, None);
        assert_eq!(alone.checkout_ms.baseline, None);
        assert_eq!(alone.checkout_ms.speedup, None);
    }
}
