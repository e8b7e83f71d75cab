//! The repairs after the move: what a copy needs mended once it is in place, each found beside
//! the engine's plan, shown and asked with it, and applied after the copy is verified.

pub mod build_output;
pub mod fixups;
pub mod git_paths;
pub mod gitconfig_text;
pub mod next_steps;
pub mod old_paths;
pub mod safe_directory;
pub mod venvs;
pub mod windows_side;
pub mod worktrees;
