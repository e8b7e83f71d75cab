//! What a package manager or an interpreter answers when asked (its version, its store, its
//! executable), started where nothing a repository holds can choose the program or its options,
//! and given up when it does not answer in time.

use crate::base::process;
use std::time::Duration;

/// Where a manager is started when it has no scratch folder of its own: never the repository,
/// whose `.yarnrc` (`yarn-path`), `.yarnrc.yml` (`yarnPath`), `.npmrc` or `packageManager` field
/// would otherwise choose the program that runs or its options. The root folder is the
/// system's, and no manager finds a project there.
const NEUTRAL_DIR: &str = "/";

/// What `program --version` prints, when it runs and succeeds; None when it is not installed.
pub fn version_output(program: &str) -> Option<String> {
    version_like_output(program, &["--version"])
}

/// How long a question to a manager (its version, its store) may take: a manager that hangs
/// is killed and counted as not installed.
const QUESTION_LIMIT: Duration = Duration::from_secs(15);

/// What `program args` prints, started in the neutral folder, when it succeeds within
/// `QUESTION_LIMIT`.
pub fn version_like_output(program: &str, args: &[&str]) -> Option<String> {
    let mut cmd = crate::base::process::command(program);
    cmd.args(args).current_dir(NEUTRAL_DIR);
    let out = process::run(cmd, QUESTION_LIMIT).ok()?;
    let text = &out.stdout[..out.stdout.len().min(1024 * 1024)];
    out.status
        .success()
        .then(|| String::from_utf8_lossy(text).into_owned())
}
