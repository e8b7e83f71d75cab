//! `--format github`: workflow commands that GitHub Actions shows as annotations.

use crate::assess::pipeline::CheckReport;
use crate::decide::policy::Level;
use std::fmt::Write;

/// GitHub's escaping for workflow command data.
pub(super) fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Property values additionally escape `:` and `,`.
fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

pub fn check(report: &CheckReport) -> String {
    let mut out = String::new();
    let verdict = &report.verdict;
    let path = report.location.paths.linux.display().to_string();
    let command = match verdict.level {
        Level::Ok => "notice",
        Level::Advise | Level::Move => "warning",
    };
    let title = escape_property(&format!("wsl-place: {}", verdict.level.as_str()));
    if verdict.level == Level::Ok {
        let _ = writeln!(
            out,
            "::notice title={title}::{}",
            escape_data(&format!(
                "{path} is on {} ({}): fine where it is",
                report.location.mount.kind, report.location.mount.fstype
            ))
        );
        return out;
    }
    for reason in verdict.reasons.iter().filter(|r| r.level > Level::Ok) {
        let _ = writeln!(
            out,
            "::{command} title={title}::{}",
            escape_data(&format!("{path}: {}", reason.message))
        );
    }
    // Every piece of advice, not only the first: each is a separate thing to do.
    for advice in &verdict.advice {
        let text = match &advice.command {
            Some(command) => format!("{}: {command}", advice.message),
            None => advice.message.clone(),
        };
        let _ = writeln!(out, "::notice title={title}::{}", escape_data(&text));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_workflow_command_data() {
        assert_eq!(escape_data("50% done\nnext"), "50%25 done%0Anext");
        assert_eq!(escape_property("a: b, c"), "a%3A b%2C c");
    }
}
