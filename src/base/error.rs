//! Exit codes and the one way failures reach the user.

use std::fmt;
use std::path::Path;

/// Every exit code the binary uses; documented in the README.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitCode {
    /// The verdict is below `--fail-on`, or the command succeeded.
    Ok = 0,
    /// The verdict is at or above `--fail-on`.
    VerdictFailed = 1,
    /// Bad usage or bad input: a missing path, a malformed policy or mountinfo.
    Input = 2,
    /// Something went wrong inside the tool or the system.
    Internal = 3,
    /// Another `migrate` holds the staging folder's lock: the same move is already running.
    Busy = 4,
    /// Refused because going on would lose data: the only copy of something would be deleted,
    /// or a copy the migration made would be written over or forgotten. Nothing was changed.
    WouldLoseData = 5,
    /// Stopped by Ctrl-C (SIGINT), as shells report a process ended by it.
    Interrupted = 130,
}

/// A failure with one sentence for the user: what went wrong, with which path, and what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub code: ExitCode,
    pub message: String,
}

impl Failure {
    pub fn input(message: impl Into<String>) -> Self {
        Self {
            code: ExitCode::Input,
            message: message.into(),
        }
    }

    pub fn internal(message: impl Into<String>) -> Self {
        Self {
            code: ExitCode::Internal,
            message: message.into(),
        }
    }

    /// Another run holds what this one needs; `message` names it and says to wait.
    pub fn busy(message: impl Into<String>) -> Self {
        Self {
            code: ExitCode::Busy,
            message: message.into(),
        }
    }

    /// Refused because going on would lose data; `message` names what is kept and what to do.
    pub fn would_lose_data(message: impl Into<String>) -> Self {
        Self {
            code: ExitCode::WouldLoseData,
            message: message.into(),
        }
    }

    /// Stopped by Ctrl-C; `what_happened` says what was kept or cleaned up.
    pub fn interrupted(what_happened: &str) -> Self {
        Self {
            code: ExitCode::Interrupted,
            message: format!("interrupted; {what_happened}"),
        }
    }

    /// An I/O error on `path`, phrased for a person, with the kind of error deciding the code.
    pub fn io(action: &str, path: &Path, error: &std::io::Error) -> Self {
        use std::io::ErrorKind::*;
        let hint = match error.kind() {
            NotFound => "check the path and try again",
            PermissionDenied => "check its permissions or run as a user who can read it",
            StorageFull => "free some space and try again",
            _ => "check the path and try again",
        };
        let message = format!("cannot {action} {}: {error}; {hint}.", path.display());
        // A symlink loop or an over-long name is in what the user passed, like a missing file.
        let bad_path = matches!(
            rustix::io::Errno::from_io_error(error),
            Some(rustix::io::Errno::LOOP | rustix::io::Errno::NAMETOOLONG)
        );
        match error.kind() {
            NotFound | PermissionDenied | NotADirectory | IsADirectory | InvalidInput => {
                Self::input(message)
            }
            _ if bad_path => Self::input(message),
            _ => Self::internal(message),
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Failure {}

pub type Result<T> = std::result::Result<T, Failure>;
