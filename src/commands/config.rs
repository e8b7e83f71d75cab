//! The user's own defaults: `$XDG_CONFIG_HOME/wsl-place/config.toml` (default destination
//! folder and default policy file) and `WSL_PLACE_POLICY`. A flag on the command line beats the
//! variable, the variable beats the file, and the file beats the built-in defaults.

use crate::base::error::{Failure, Result};
use crate::base::pathtext;
use crate::decide::policy::Policy;
use crate::host::HostEnv;
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// What `config.toml` may hold; every key is optional.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    /// Where `migrate` puts repositories (`<destination>/<name>`), as `migrate.destination`.
    destination: Option<String>,
    /// The policy file used when `--policy` is not given, as `--policy` would be.
    policy: Option<PathBuf>,
    /// The least time between two nudges of `wsl-place init` for one repository (0: every visit).
    nudge_every_hours: Option<f64>,
}

/// The defaults in effect for this run.
#[derive(Debug, Default, Clone)]
pub struct UserConfig {
    destination: Option<String>,
    policy: Option<PathBuf>,
    nudge_every_hours: Option<f64>,
}

/// Once a day, unless `nudge_every_hours` says otherwise.
const NUDGE_EVERY_HOURS: f64 = 24.0;

impl UserConfig {
    /// Reads the config file (a missing one is no error) and `WSL_PLACE_POLICY`.
    pub fn load(env: &HostEnv) -> Result<Self> {
        let file = match env.config_file() {
            Some(path) => read(&path, env.home().as_deref())?,
            None => File::default(),
        };
        let policy = env
            .var("WSL_PLACE_POLICY")
            .map(|p| expand_home(p, env.home().as_deref()))
            .or(file.policy);
        Ok(Self {
            destination: file.destination,
            policy,
            nudge_every_hours: file.nudge_every_hours,
        })
    }

    /// The least time between two shell nudges for one repository, in seconds.
    pub fn nudge_every_secs(&self) -> u64 {
        (self.nudge_every_hours.unwrap_or(NUDGE_EVERY_HOURS) * 3600.0) as u64
    }

    /// The policy file for a command: `--policy`, else the user's default.
    pub fn policy(&self, explicit: Option<&Path>) -> Option<PathBuf> {
        explicit
            .map(Path::to_path_buf)
            .or_else(|| self.policy.clone())
    }

    /// `policy` with the user's destination where the policy keeps the built-in one.
    pub fn with_destination(&self, mut policy: Policy) -> Policy {
        if let Some(destination) = &self.destination
            && policy.migrate.destination == Policy::built_in().migrate.destination
        {
            policy.migrate.destination = destination.clone();
        }
        policy
    }
}

fn read(path: &Path, home: Option<&Path>) -> Result<File> {
    if std::fs::symlink_metadata(path).is_err() {
        return Ok(File::default());
    }
    let text =
        crate::base::input::read_text(path, crate::base::input::POLICY_LIMIT, "config file")?;
    let mut file: File = toml::from_str(&text).map_err(|e| {
        Failure::input(format!(
            "{} is not a valid config file: {}; it may set `destination`, `policy` and `nudge_every_hours` only.",
            path.display(),
            e.message().trim_end_matches('.')
        ))
    })?;
    if let Some(destination) = &file.destination
        && (destination.trim().is_empty()
            || (destination.starts_with('~')
                && destination != "~"
                && !destination.starts_with("~/")))
    {
        return Err(Failure::input(format!(
            "{}: destination {destination:?} is not a folder wsl-place can use; write an absolute path or one starting with ~/.",
            path.display()
        )));
    }
    if let Some(hours) = file.nudge_every_hours
        && !(hours.is_finite() && hours >= 0.0)
    {
        return Err(Failure::input(format!(
            "{}: nudge_every_hours = {hours} is not a number of hours; write 0 or more (0: on every visit).",
            path.display()
        )));
    }
    // A relative policy path is relative to the config file, not to wherever a command runs.
    file.policy = file.policy.map(|p| {
        let expanded = expand_home(&p.to_string_lossy(), home);
        match path.parent() {
            Some(dir) if expanded.is_relative() => dir.join(expanded),
            _ => expanded,
        }
    });
    Ok(file)
}

/// A path from the user, `~/` expanded; kept as written when there is no home to expand it with
/// (the error that follows names it as written).
fn expand_home(path: &str, home: Option<&Path>) -> PathBuf {
    pathtext::expand_home(path, home).unwrap_or_else(|| PathBuf::from(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> HostEnv {
        HostEnv::from_pairs(pairs)
    }

    #[test]
    fn flag_beats_variable_beats_file() {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("wsl-place");
        std::fs::create_dir(&config).unwrap();
        std::fs::write(
            config.join("config.toml"),
            "policy = \"team.toml\"\ndestination = \"~/work\"\n",
        )
        .unwrap();
        let xdg = dir.path().to_str().unwrap();
        let from_file = UserConfig::load(&env(&[("XDG_CONFIG_HOME", xdg)])).unwrap();
        assert_eq!(from_file.policy(None), Some(config.join("team.toml")));
        assert_eq!(
            from_file.policy(Some(Path::new("/x.toml"))),
            Some(PathBuf::from("/x.toml"))
        );
        let from_var = UserConfig::load(&env(&[
            ("XDG_CONFIG_HOME", xdg),
            ("HOME", "/home/me"),
            ("WSL_PLACE_POLICY", "~/strict.toml"),
        ]))
        .unwrap();
        assert_eq!(
            from_var.policy(None),
            Some(PathBuf::from("/home/me/strict.toml"))
        );
        let policy = from_file.with_destination(Policy::built_in());
        assert_eq!(policy.migrate.destination, "~/work");
    }

    #[test]
    fn a_bad_file_is_named() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("wsl-place")).unwrap();
        std::fs::write(dir.path().join("wsl-place/config.toml"), "colour = 1\n").unwrap();
        let error = UserConfig::load(&env(&[("XDG_CONFIG_HOME", dir.path().to_str().unwrap())]))
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("config.toml is not a valid config file"),
            "{error}"
        );
    }
}
