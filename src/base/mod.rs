//! Plumbing every layer uses: errors and exit codes, units, a tree's counts, Ctrl-C, path text, safe input
//! files, the one process runner, the clock, and file operations that work past PATH_MAX. Imports nothing from the crate above it.

pub(crate) mod clock;
pub mod codepage;
pub mod counts;
pub(crate) mod digest;
pub(crate) mod dirfd;
pub mod error;
pub(crate) mod input;
pub(crate) mod interrupt;
pub mod pathtext;
pub(crate) mod process;
pub(crate) mod progress;
pub(crate) mod reason;
pub(crate) mod repo_file;
pub(crate) mod shared_dir;
pub(crate) mod units;
