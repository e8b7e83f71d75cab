//! The package managers by name: what the JSON, the caches and people call each one. What each
//! one does is its own file beside this one, behind `rules::PackageManager`.

use serde::{Deserialize, Serialize};

/// A package manager whose reinstall the model prices. Spelled in the JSON and the caches as
/// its program's name (`npm`, `uv`, ...), which is also what people read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Manager {
    Npm,
    Pnpm,
    Yarn,
    Bun,
    Uv,
    Pip,
    Poetry,
    Cargo,
}

impl Manager {
    pub const ALL: [Manager; 8] = [
        Manager::Npm,
        Manager::Pnpm,
        Manager::Yarn,
        Manager::Bun,
        Manager::Uv,
        Manager::Pip,
        Manager::Poetry,
        Manager::Cargo,
    ];

    /// The program's name: what is run, what the JSON and the caches say, what people read.
    pub fn name(self) -> &'static str {
        match self {
            Manager::Npm => "npm",
            Manager::Pnpm => "pnpm",
            Manager::Yarn => "yarn",
            Manager::Bun => "bun",
            Manager::Uv => "uv",
            Manager::Pip => "pip",
            Manager::Poetry => "poetry",
            Manager::Cargo => "cargo",
        }
    }
}

impl std::fmt::Display for Manager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is no package manager's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownManager(pub String);

impl std::fmt::Display for UnknownManager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?} is not a package manager wsl-place knows", self.0)
    }
}

impl std::str::FromStr for Manager {
    type Err = UnknownManager;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Manager::ALL
            .into_iter()
            .find(|m| m.name() == name)
            .ok_or_else(|| UnknownManager(name.to_string()))
    }
}
