//! The user's own defaults: `$XDG_CONFIG_HOME/wsl-place/config.toml` (default destination
//! folder and default policy file) and `WSL_PLACE_POLICY`. A flag on the command line beats the
//! variable, the variable beats the file, and the file beats the built-in defaults.

use crate::base::error::{Failure, Result};
use crate::base::pathtext;
use crate::decide::policy::Policy;
use crate::host::HostEnv;
use std::path::{Path, PathBuf};

/// What `config.toml` may hold; every key is optional.
#[derive(Debug, Default)]
struct File {
    /// Where `migrate` puts repositories (`<destination>/<name>`), as `migrate.destination`.
    destination: Option<String>,
    /// The policy file used when `--policy` is not given, as `--policy` would be.
    policy: Option<PathBuf>,
    /// The least time between two nudges of `wsl-place init` for one repository (0: every visit).
    nudge_every_hours: Option<f64>,
}

/// The keys the file may set, each with what its value must be, in plain words.
const KEYS: [(&str, &str); 3] = [
    ("destination", "text (a folder, in quotes)"),
    ("policy", "text (a policy file's path, in quotes)"),
    ("nudge_every_hours", "a number of hours (0 or more)"),
];

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
    /// Reads the config file (a missing one is no error) and `WSL_PLACE_POLICY`; a file with
    /// anything wrong in it is an error naming the file and the key.
    pub fn load(env: &HostEnv) -> Result<Self> {
        let (config, problem) = Self::load_leniently(env)?;
        match problem {
            Some((path, problem)) => Err(Failure::input(format!(
                "{} is not a valid config file: {problem}; {}.",
                pathtext::display(&path),
                if problem.contains("is not a setting") {
                    "it may set `destination`, `policy` and `nudge_every_hours` only"
                } else {
                    "fix that line and try again"
                }
            ))),
            None => Ok(config),
        }
    }

    /// As [`UserConfig::load`], for a run that must not stop at a mistake in the file (the
    /// pre-commit hook, the shell's nudge): the settings that are right, and a line saying
    /// what was left out, naming the file and the key.
    pub fn load_for_hook(env: &HostEnv) -> (Self, Option<String>) {
        match Self::load_leniently(env) {
            Ok((config, None)) => (config, None),
            Ok((config, Some((path, problem)))) => (
                config,
                Some(format!(
                    "{}: {problem}; the check ran without it.",
                    pathtext::display(&path)
                )),
            ),
            // The file cannot even be read (a folder, a FIFO): nothing of it is used.
            Err(failure) => (
                Self::from_file(env, File::default()),
                Some(format!(
                    "{}; the check ran without it.",
                    failure.message.trim_end_matches('.')
                )),
            ),
        }
    }

    /// The settings that are right, and the first problem with the file and its path.
    fn load_leniently(env: &HostEnv) -> Result<(Self, Option<(PathBuf, String)>)> {
        let Some(path) = env.config_file() else {
            return Ok((Self::from_file(env, File::default()), None));
        };
        let (file, problems) = read(&path, env.home().as_deref())?;
        let problem = problems.first().map(|first| {
            let more = match problems.len() - 1 {
                0 => String::new(),
                n => format!(" (and {n} more)"),
            };
            (path.clone(), format!("{first}{more}"))
        });
        Ok((Self::from_file(env, file), problem))
    }

    fn from_file(env: &HostEnv, file: File) -> Self {
        let policy = env
            .var("WSL_PLACE_POLICY")
            .map(|p| expand_home(p, env.home().as_deref()))
            .or(file.policy);
        Self {
            destination: file.destination,
            policy,
            nudge_every_hours: file.nudge_every_hours,
        }
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

/// The file at `path` (none: every default), with what is wrong in it, one clause per key:
/// what is wrong is left out and the rest is kept.
fn read(path: &Path, home: Option<&Path>) -> Result<(File, Vec<String>)> {
    if std::fs::symlink_metadata(path).is_err() {
        return Ok((File::default(), Vec::new()));
    }
    let text =
        crate::base::input::read_text(path, crate::base::input::POLICY_LIMIT, "config file")?;
    let table: toml::Table = match toml::from_str(&text) {
        Ok(table) => table,
        Err(e) => {
            let line = e.span().map_or(1, |span| {
                text[..span.start.min(text.len())].matches('\n').count() + 1
            });
            let problem = format!(
                "line {line} is not TOML ({})",
                e.message().trim_end_matches('.')
            );
            return Ok((File::default(), vec![problem]));
        }
    };
    let mut file = File::default();
    let mut problems = Vec::new();
    for (key, value) in &table {
        if let Err(problem) = take(&mut file, key, value) {
            problems.push(problem);
        }
    }
    // A relative policy path is relative to the config file, not to wherever a command runs.
    file.policy = file.policy.map(|p| {
        let expanded = expand_home(&p.to_string_lossy(), home);
        match path.parent() {
            Some(dir) if expanded.is_relative() => dir.join(expanded),
            _ => expanded,
        }
    });
    Ok((file, problems))
}

/// Sets `key` in `file` from `value`, or says in one clause why it cannot.
fn take(file: &mut File, key: &str, value: &toml::Value) -> std::result::Result<(), String> {
    let Some((_, wanted)) = KEYS.iter().find(|(name, _)| *name == key) else {
        let nearest = KEYS
            .iter()
            .min_by_key(|(name, _)| strsim::levenshtein(key, name))
            .map_or("destination", |(name, _)| name);
        return Err(format!(
            "`{key}` is not a setting (the nearest is `{nearest}`)"
        ));
    };
    let wrong = || format!("`{key}` must be {wanted}, not {}", kind_of(value));
    match (key, value) {
        ("destination", toml::Value::String(destination)) => {
            if !usable_destination(destination) {
                return Err(format!(
                    "`destination` {destination:?} is not a folder wsl-place can use: write an absolute path, or one relative to your home folder (~/src or src)"
                ));
            }
            file.destination = Some(destination.clone());
        }
        ("policy", toml::Value::String(policy)) => file.policy = Some(PathBuf::from(policy)),
        ("nudge_every_hours", toml::Value::Integer(_) | toml::Value::Float(_)) => {
            let hours = value
                .as_float()
                .unwrap_or_else(|| value.as_integer().unwrap_or(-1) as f64);
            if !(hours.is_finite() && hours >= 0.0) {
                return Err(format!(
                    "`nudge_every_hours` = {hours} is not a number of hours: write 0 or more (0: on every visit)"
                ));
            }
            file.nudge_every_hours = Some(hours);
        }
        _ => return Err(wrong()),
    }
    Ok(())
}

/// An absolute path, `~`, `~/...`, or a path relative to the home folder (as `migrate`
/// resolves it); not empty, and no other user's `~name`.
fn usable_destination(destination: &str) -> bool {
    let other_users_home =
        destination.starts_with('~') && destination != "~" && !destination.starts_with("~/");
    !destination.trim().is_empty() && !other_users_home
}

/// A TOML value's kind, as a person says it.
fn kind_of(value: &toml::Value) -> &'static str {
    match value {
        toml::Value::String(_) => "text",
        toml::Value::Integer(_) | toml::Value::Float(_) => "a number",
        toml::Value::Boolean(_) => "true or false",
        toml::Value::Datetime(_) => "a date",
        toml::Value::Array(_) => "a list",
        toml::Value::Table(_) => "a table",
    }
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
