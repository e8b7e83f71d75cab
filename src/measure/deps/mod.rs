//! Package managers, one concern of their own beside the small-file probe: which manager a
//! project installs with and what each manager is (`managers`, one file per manager), the packages
//! it names in its lock files, its `node_modules` and its virtualenv (`packages`), and what the manager's own work
//! costs on this machine, timed on a sample of those packages (`manager`, `samplers`).
//!
//! The model (`model::install`) adds this work to the file-system work the probe measures; the
//! scan reads pnpm's lock through `managers` to find its store. Nothing here runs a package
//! manager with anything the repository chose beyond plain pins (docs/security.md).

pub mod asked;
pub mod lock_counts;
pub mod manager;
pub mod manager_timing;
pub mod managers;
pub mod markers;
pub mod packages;
pub mod pip_project;
pub mod platform;
pub mod pnpm_links;
pub mod registry;
pub mod sample_reasons;
pub mod samplers;
pub mod timing_cache;
pub mod uv_cache;
pub mod uv_sync;
pub mod yarn_lock;
