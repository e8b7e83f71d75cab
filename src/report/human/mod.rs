//! The short, readable report for a terminal.

pub mod migrate;
pub mod probe;
mod scan;
pub mod verdict;

use crate::check::CheckReport;
use crate::location::Location;
use console::Style as Paint;
use std::fmt::Write;

/// Colours, as [`crate::terminal`] decided them.
#[derive(Debug, Clone)]
pub struct Style {
    pub color: bool,
}

impl Style {
    pub fn new(terminal: &crate::terminal::Terminal) -> Self {
        Self {
            color: terminal.color,
        }
    }

    fn paint(&self, paint: Paint, text: &str) -> String {
        if self.color {
            paint.force_styling(true).apply_to(text).to_string()
        } else {
            text.to_string()
        }
    }
    pub fn bold(&self, text: &str) -> String {
        self.paint(Paint::new().bold(), text)
    }
    pub fn good(&self, text: &str) -> String {
        self.paint(Paint::new().green(), text)
    }
    pub fn warn(&self, text: &str) -> String {
        self.paint(Paint::new().yellow().bold(), text)
    }
    pub fn bad(&self, text: &str) -> String {
        self.paint(Paint::new().red().bold(), text)
    }
    pub fn dim(&self, text: &str) -> String {
        self.paint(Paint::new().dim(), text)
    }
}

pub fn check(report: &CheckReport, style: &Style) -> String {
    let mut out = String::new();
    location(&mut out, &report.location, style);
    // The predictions are the sentence that matters; the scan figures behind them follow.
    if let Some(probes) = &report.probe {
        probe::check_section(&mut out, probes, report.predict.as_ref(), style);
    }
    scan::section(&mut out, &report.scan, style);
    verdict::human(&mut out, &report.verdict, style);
    out
}

fn location(out: &mut String, location: &Location, style: &Style) {
    let host = &location.host;
    let host_line = match (host.wsl, host.wsl_version, host.distro.as_deref()) {
        (true, Some(v), Some(d)) => format!("WSL {v}, distro {d}"),
        (true, Some(v), None) => format!("WSL {v}, distro unknown"),
        (true, None, _) => "WSL".to_string(),
        (false, _, _) => "Linux (not WSL)".to_string(),
    };
    let mount = &location.mount;
    let kind = if mount.kind.is_remote() {
        style.warn(mount.kind.as_str())
    } else {
        style.good(mount.kind.as_str())
    };
    let _ = writeln!(
        out,
        "{}",
        style.bold(&location.paths.linux.display().to_string())
    );
    let _ = writeln!(out, "  host     {host_line}");
    let _ = writeln!(
        out,
        "  mount    {kind}: {} ({} on {}, from {})",
        mount.description,
        mount.fstype,
        mount.mount_point.display(),
        mount.source
    );
    if let Some(windows) = &location.paths.windows {
        let _ = writeln!(out, "  windows  {windows}");
    }
    if let Some(legacy) = &location.paths.windows_legacy {
        let _ = writeln!(
            out,
            "           {}",
            style.dim(&format!("{legacy} (older Windows 10)"))
        );
    }
}
