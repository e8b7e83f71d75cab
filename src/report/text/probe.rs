//! The probe's figures as every format shows them: one line per operation, the title, the
//! summary and the sentence for a call that outlasted the budget.

use crate::base::units::{self, count, counted};
use crate::measure::probe::ProbeReport;
use crate::measure::stats::OpStats;

/// One line of the table: the operation, then median, p10, p90, spread and samples.
pub struct Line {
    pub name: String,
    pub median: String,
    pub p10: String,
    pub p90: String,
    pub spread: String,
    pub samples: String,
}

pub fn line(name: &str, s: &OpStats) -> Line {
    if s.samples == 0 {
        // Rounds cut short by a slow call (`ProbeReport::slow_call`) never reached it.
        return Line {
            name: name.to_string(),
            median: "not reached".to_string(),
            p10: String::new(),
            p90: String::new(),
            spread: String::new(),
            samples: count(0),
        };
    }
    Line {
        name: name.to_string(),
        median: units::micros(s.median_us),
        p10: units::micros(s.p10_us),
        p90: units::micros(s.p90_us),
        spread: format!("{:.2}", s.spread),
        samples: count(s.samples),
    }
}

/// Every figure `p` holds, in table order; None when nothing was measured.
pub fn lines(p: &ProbeReport) -> Option<Vec<Line>> {
    let ops = p.ops.as_ref()?;
    let mut lines: Vec<Line> = [
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
    ]
    .into_iter()
    .map(|(name, s)| line(name, s))
    .collect();
    if let Some(t) = &p.tracked_lstat {
        lines.push(line("lstat (tracked files)", t));
    }
    for l in &p.parallel_lstat {
        lines.push(Line {
            name: format!("lstat x{} threads ({})", l.threads, l.source.as_str()),
            median: units::micros(l.per_entry_us),
            p10: String::new(),
            p90: String::new(),
            spread: format!("{:.2}", l.spread),
            samples: count(l.samples),
        });
    }
    Some(lines)
}

pub fn title(p: &ProbeReport) -> String {
    let kind = kind_after(&p.fstype, p.kind.as_str());
    format!(
        "{} ({} on {}{kind})",
        crate::base::pathtext::display(&p.dir),
        p.fstype,
        crate::base::pathtext::display(&p.mount_point),
    )
}

pub fn summary(p: &ProbeReport) -> String {
    format!(
        "{} of up to {} each, {}, {} verified by CRC32, {}{}",
        counted(p.run.rounds.into(), "round", "rounds"),
        counted(p.run.largest_batch as u64, "file", "files"),
        if p.run.stable {
            "the figures settled"
        } else {
            "the time budget ended before two rounds agreed"
        },
        counted(p.run.verified_files, "file", "files"),
        units::duration_ms(p.elapsed_ms as f64),
        if p.cleaned {
            "; scratch removed"
        } else {
            "; scratch NOT removed"
        }
    )
}

pub fn verify_problem(p: &ProbeReport) -> Option<String> {
    (p.run.verify_errors > 0).then(|| {
        format!(
            "{} read back with the wrong length or CRC32: this mount does not return what was written.",
            counted(p.run.verify_errors, "file", "files")
        )
    })
}

/// The call that outlasted the budget, as a sentence that starts with a capital.
pub fn slow_call(p: &ProbeReport) -> Option<String> {
    p.slow_call.as_ref().map(|slow| capitalised(&slow.message))
}

pub fn capitalised(sentence: &str) -> String {
    let mut chars = sentence.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

/// ", local" after the file-system type, or nothing where the kind repeats it ("fuse, fuse").
fn kind_after(fstype: &str, kind: &str) -> String {
    if kind == fstype {
        String::new()
    } else {
        format!(", {kind}")
    }
}

#[cfg(test)]
mod tests {
    use super::kind_after;

    #[test]
    fn the_kind_is_not_said_twice() {
        assert_eq!(kind_after("fuse", "fuse"), "");
        assert_eq!(kind_after("ext4", "local"), ", local");
    }
}
