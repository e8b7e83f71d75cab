//! The integration tests, one binary (as ripgrep and fd have it): `support/` is compiled
//! once instead of once per test file, and one link serves every area. Each file below is the
//! area it names; `cargo test --release --test it AREA::` runs one area.

mod support;

mod advice;
mod check_cost;
mod check_screen;
mod cli;
mod completions;
mod deep;
mod dependency_sample;
mod first_status;
mod fresh;
mod fuzz;
mod gitindex;
mod help;
mod hook;
mod hook_cache;
mod hook_safety;
mod hostile;
mod install;
mod layering;
mod lock_samples;
mod manpage;
mod migrate;
mod migrate_crash;
mod migrate_rerun;
mod migrate_screens;
mod moved;
mod nothing_lost;
mod nudge_budget;
mod packaging;
mod policy;
mod probe;
mod release;
mod removal;
mod repository_top;
mod scan;
mod screen;
mod sequences;
mod shell;
mod slowfs;
mod survey;
mod survey_screen;
mod survey_search;
mod sync;
mod sync_crash;
mod sync_git;
mod terminal;
mod untrusted_bar;
mod untrusted_git;
mod untrusted_packages;
mod untrusted_places;
mod venvs;
mod verify;
mod windows;
