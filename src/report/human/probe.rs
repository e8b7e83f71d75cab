//! Human rendering of the probes and predictions: the headline sentence first, then the table.

use super::Style;
use crate::model::{Compared, Prediction};
use crate::probe::{OpStats, ProbeReport, ProbeSet};
use std::fmt::Write;

/// "~950 ms", "~1.2 s": a prediction is an estimate, and says so.
pub fn duration(ms: f64) -> String {
    format!("~{}", crate::units::duration_ms(ms))
}

fn ratio(speedup: f64) -> String {
    if speedup >= 1.5 {
        format!("{speedup:.0}x faster")
    } else if speedup > 1.0 / 1.5 {
        "about the same".to_string()
    } else {
        format!("{:.0}x slower", 1.0 / speedup)
    }
}

/// "~2.4 s (1.9-3.1 s)": the prediction and the range its samples and the model's fit support.
fn with_range(value: f64, range: [f64; 2]) -> String {
    format!(
        "{} ({}-{})",
        duration(value),
        crate::units::duration_ms(range[0]),
        crate::units::duration_ms(range[1])
    )
}

fn compared(what: &str, c: &Compared, place: &str) -> String {
    match (c.baseline, c.speedup) {
        (Some(b), Some(s)) => format!(
            "{what}: {} here, {} in {place} ({})",
            with_range(c.current, c.current_range),
            duration(b),
            ratio(s)
        ),
        _ => format!("{what}: {} here", with_range(c.current, c.current_range)),
    }
}

/// The prediction lines of `check`, headline first.
pub fn check_section(
    out: &mut String,
    probes: &ProbeSet,
    predict: Option<&Prediction>,
    style: &Style,
) {
    let place = probes.baseline_label.as_deref().unwrap_or("the baseline");
    match predict {
        Some(p) => {
            let _ = writeln!(
                out,
                "{}",
                style.bold(&compared("git status", &p.git_status_ms, place))
            );
            if let Some(ms) = p.git_status_fsmonitor_ms {
                let _ = writeln!(
                    out,
                    "  git status with fsmonitor: {} in {place} {}",
                    duration(ms),
                    style.dim("(core.fsmonitor + core.untrackedCache, git >= 2.55)")
                );
            }
            let _ = writeln!(
                out,
                "  {}",
                compared(
                    "first git status after a copy",
                    &p.first_git_status_ms,
                    place
                )
            );
            if let Some(install) = &p.install_ms {
                let source = p.inputs.install.as_ref().map_or("", |i| i.source.as_str());
                let _ = writeln!(
                    out,
                    "  {} {}",
                    compared("dependency install", install, place),
                    style.dim(&format!("(from {source})"))
                );
            }
            let _ = writeln!(
                out,
                "  {}",
                compared("fresh checkout", &p.checkout_ms, place)
            );
        }
        None => {
            if let Some(reason) = &probes.current.skipped {
                let _ = writeln!(out, "{}", style.warn(&format!("No prediction: {reason}")));
            }
        }
    }
    if let Some(note) = &probes.baseline_note {
        let _ = writeln!(out, "  {}", style.warn(note));
    }
    let side = |label: &str, p: &ProbeReport| {
        format!(
            "  {label:<9}{} ({}): lstat {}, create {}, read {}{}",
            p.dir.display(),
            p.fstype,
            micros(p.lstat_us()),
            micros(p.ops.as_ref().map(|o| o.create.median_us)),
            micros(p.ops.as_ref().map(|o| o.read.median_us)),
            if p.run.verify_errors > 0 {
                format!(", {} files read back wrong", p.run.verify_errors)
            } else {
                String::new()
            }
        )
    };
    let _ = writeln!(out, "{}", style.dim(&side("probe", &probes.current)));
    if let Some(b) = probes
        .baseline
        .as_ref()
        .filter(|_| !probes.baseline_same_mount)
    {
        let _ = writeln!(out, "{}", style.dim(&side("baseline", b)));
    }
}

fn micros(us: Option<f64>) -> String {
    match us {
        Some(us) if us >= 1000.0 => format!("{:.1} ms", us / 1000.0),
        Some(us) => format!("{us:.1} us"),
        None => "-".into(),
    }
}

fn row(out: &mut String, name: &str, s: &OpStats) {
    let _ = writeln!(
        out,
        "  {name:<24}{:>12}{:>12}{:>12}{:>8.2}{:>9}",
        micros(Some(s.median_us)),
        micros(Some(s.p10_us)),
        micros(Some(s.p90_us)),
        s.spread,
        s.samples
    );
}

/// `wsl-place probe`: the per-operation table.
pub fn table(p: &ProbeReport, style: &Style) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}",
        style.bold(&format!(
            "{} ({} on {}, {})",
            p.dir.display(),
            p.fstype,
            p.mount_point.display(),
            p.kind.as_str()
        ))
    );
    let Some(ops) = &p.ops else {
        let reason = p.skipped.as_deref().unwrap_or("nothing was measured.");
        let _ = writeln!(out, "  {}", style.warn(reason));
        return out;
    };
    let _ = writeln!(
        out,
        "  {:<24}{:>12}{:>12}{:>12}{:>8}{:>9}",
        "operation", "median", "p10", "p90", "spread", "samples"
    );
    for (name, s) in [
        ("create+write 4K+close", &ops.create),
        ("open+read 4K+close", &ops.read),
        ("lstat", &ops.lstat),
        ("readdir per entry", &ops.readdir_entry),
        ("opendir+list (empty)", &ops.opendir),
        ("unlink", &ops.unlink),
        ("mkdir", &ops.mkdir),
        ("rename", &ops.rename),
        ("write 1 MiB", &ops.write_mib),
        ("read 1 MiB (mapped)", &ops.read_mib),
    ] {
        row(&mut out, name, s);
    }
    if let Some(t) = &p.tracked_lstat {
        row(&mut out, "lstat (tracked files)", t);
    }
    for l in &p.parallel_lstat {
        let _ = writeln!(
            out,
            "  {:<28}{:>8}{:>36.2}{:>9}",
            format!("lstat x{} threads ({})", l.threads, l.source.as_str()),
            micros(Some(l.per_entry_us)),
            l.spread,
            l.samples
        );
    }
    let _ = writeln!(
        out,
        "  {}",
        style.dim(&format!(
            "{} rounds up to {} files, {}, {} files verified by CRC32, {} ms{}",
            p.run.rounds,
            p.run.largest_batch,
            if p.run.stable {
                "stable"
            } else {
                "budget spent before stable"
            },
            p.run.verified_files,
            p.elapsed_ms,
            if p.cleaned {
                "; scratch removed"
            } else {
                "; scratch NOT removed"
            }
        ))
    );
    if p.run.verify_errors > 0 {
        let _ = writeln!(
            out,
            "  {}",
            style.bad(&format!(
                "{} files read back with the wrong length or CRC32: this mount does not return what was written.",
                p.run.verify_errors
            ))
        );
    }
    out
}
