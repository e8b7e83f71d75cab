//! cargo: no manager's work is priced (rebuilding `target/` is its file writes alone), and no
//! sample is taken. Its `Cargo.lock` is looked for after pip's requirement files
//! (`managers::detect`), as it always was, not among the lock files.

use super::rules::{Ecosystem, PackageManager};

pub struct Cargo;

impl PackageManager for Cargo {
    fn runtime(&self) -> &'static str {
        "Rust"
    }

    /// No sample: rebuilding `target/` is compile time, not a manager's work.
    fn sampled(&self) -> bool {
        false
    }

    fn ecosystem(&self) -> Ecosystem {
        Ecosystem::Rust
    }
}
