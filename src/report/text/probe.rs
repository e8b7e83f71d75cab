//! The probe's figures as every format shows them: one line per operation, the title, the
//! summary and the sentence for a call that outlasted the budget.

use crate::base::reason::Worded;
use crate::base::units::{self, count, counted};
use crate::measure::probe::ops::Op;
use crate::measure::probe::{ProbeReport, SlowCall};
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
    p.slow_call
        .as_ref()
        .map(|slow| capitalised(&slow.sentence()))
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

impl Worded for SlowCall {
    fn sentence(&self) -> String {
        let what = self.op.map_or("to answer at all".to_string(), |op| {
            format!("for {}", one_call(op))
        });
        format!(
            "this mount took over {} ms {what}, longer than the probe's budget, so the probe stopped waiting; the verdict is judged from that and the figures before it, with calls it did not reach counted as free, so its predictions are lower bounds{}.",
            self.over_ms,
            if self.scratch_cleaned {
                ""
            } else {
                "; its scratch folder goes once the mount answers, or at the next run"
            }
        )
    }
}

/// One call of `op`, for a sentence: "this mount took over 700 ms for one file create".
fn one_call(op: Op) -> &'static str {
    match op {
        Op::Create => "one file create",
        Op::Read => "one file read",
        Op::Lstat => "one lstat",
        Op::ReaddirEntry => "listing one folder",
        Op::Opendir => "opening one folder",
        Op::Unlink => "one file delete",
        Op::Mkdir => "one folder create",
        Op::Rename => "one rename",
        Op::WriteMib => "writing one 1 MiB file",
        Op::ReadMib => "reading one 1 MiB file",
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
