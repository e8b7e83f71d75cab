//! What is measured on this machine: the repository's tree (`scan`), git's index and settings,
//! what the developer uses (`usage`), repositories below a folder (`discover`), the timed
//! small-file operations of a mount (`probe`), and the package managers' own work (`deps`).

pub mod changes;
pub mod cpu;
pub mod deps;
pub(crate) mod discover;
pub mod gitattrs;
pub mod gitindex;
pub(crate) mod gitopen;
pub mod gitsettings;
pub mod probe;
pub mod scan;
pub mod stats;
pub(crate) mod usage;
pub mod verify;
pub mod windows_tools;
