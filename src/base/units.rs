//! How numbers read to a person: one style for every screen, so "6,811 files", "738 µs" and
//! "1.5 GiB" look the same wherever they appear.

/// `0.4 µs` .. `950 µs`, then as [`duration_ms`].
pub fn micros(us: f64) -> String {
    if !us.is_finite() {
        return "unknown".to_string();
    }
    if us < 10.0 {
        format!("{us:.1} µs")
    } else if us < 999.5 {
        format!("{us:.0} µs")
    } else {
        duration_ms(us / 1000.0)
    }
}

/// `5.3 ms`, `951 ms`, `2.4 s`, `55 s`, `5 min 5 s`, `1 h 4 min`; under a millisecond in µs.
pub fn duration_ms(ms: f64) -> String {
    if !ms.is_finite() {
        return "unknown".to_string();
    }
    // Below what rounds to 1.0 ms; `micros` sends anything above back here.
    if ms < 0.9995 {
        return micros(ms * 1000.0);
    }
    if ms < 9.95 {
        format!("{ms:.1} ms")
    } else if ms < 999.5 {
        format!("{ms:.0} ms")
    } else if ms < 9_950.0 {
        format!("{:.1} s", ms / 1000.0)
    } else if ms < 59_500.0 {
        format!("{:.0} s", ms / 1000.0)
    } else if ms < 3_570_000.0 {
        let seconds = (ms / 1000.0).round() as u64;
        match seconds % 60 {
            0 => format!("{} min", seconds / 60),
            s => format!("{} min {s} s", seconds / 60),
        }
    } else {
        let minutes = (ms / 60_000.0).round() as u64;
        format!("{} h {} min", minutes / 60, minutes % 60)
    }
}

/// `1.9 s-3.1 s`, or `up to 8.4 ms` where the range has no low end worth giving.
pub fn duration_range_ms(low: Option<f64>, high: f64) -> String {
    match low {
        Some(low) => format!("{}-{}", duration_ms(low), duration_ms(high)),
        None => format!("up to {}", duration_ms(high)),
    }
}

/// `512 B`, `4.0 KiB`, `1.2 GiB`.
pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    if n < 1024 {
        return format!("{n} B");
    }
    let mut value = n as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1023.95 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

/// How far a count has got, `1,234/6,844`: both figures as [`count`] writes them, so a
/// progress bar and the plan beside it say one number one way.
pub fn done_of(done: u64, total: u64) -> String {
    format!("{}/{}", count(done), count(total))
}

/// `1234567` as `1,234,567`.
pub fn count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `1 file`, `6,811 files`, `1 directory`, `2 directories`.
pub fn counted(n: u64, one: &str, many: &str) -> String {
    format!("{} {}", count(n), if n == 1 { one } else { many })
}

/// `6,569 files, 31 symlinks, 120.4 MiB`: one wording for a tree (node_modules), so `check`
/// and `migrate` describe it alike; `~` before each figure when `estimated`.
pub fn tree(files: u64, symlinks: u64, bytes: u64, estimated: bool) -> String {
    let a = if estimated { "~" } else { "" };
    let mut text = format!("{a}{}", counted(files, "file", "files"));
    if symlinks > 0 {
        text.push_str(&format!(
            ", {a}{}",
            counted(symlinks, "symlink", "symlinks")
        ));
    }
    text.push_str(&format!(", {a}{}", self::bytes(bytes)));
    text
}

/// "+7%", "-12%": how far a measured figure was from its prediction (`error` = measured /
/// predicted - 1).
pub fn signed_percent(error: f64) -> String {
    format!("{:+.0}%", error * 100.0)
}

/// `418x`, `1.4x`: how many times faster.
pub fn ratio(x: f64) -> String {
    if !x.is_finite() {
        "unknown".to_string()
    } else if x < 9.95 {
        format!("{x:.1}x")
    } else {
        format!("{}x", count(x.round() as u64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_counts_are_grouped_as_the_plan_writes_them() {
        assert_eq!(done_of(1234, 6844), "1,234/6,844");
        assert_eq!(done_of(16, 999), "16/999");
    }

    #[test]
    fn a_range_without_a_low_end_gives_its_high_one() {
        assert_eq!(duration_range_ms(Some(1900.0), 3100.0), "1.9 s-3.1 s");
        assert_eq!(duration_range_ms(None, 8.4), "up to 8.4 ms");
    }

    #[test]
    fn durations() {
        assert_eq!(duration_ms(5.28), "5.3 ms");
        assert_eq!(duration_ms(9.97), "10 ms");
        assert_eq!(duration_ms(950.97), "951 ms");
        assert_eq!(duration_ms(999.7), "1.0 s");
        assert_eq!(duration_ms(2_380.0), "2.4 s");
        assert_eq!(duration_ms(17_900.0), "18 s");
        assert_eq!(duration_ms(305_100.0), "5 min 5 s");
        assert_eq!(duration_ms(120_000.0), "2 min");
        assert_eq!(duration_ms(3_900_000.0), "1 h 5 min");
        assert_eq!(duration_ms(0.4), "400 µs");
        assert_eq!(duration_ms(0.9997), "1.0 ms");
        assert_eq!(duration_ms(f64::NAN), "unknown");
    }

    #[test]
    fn microseconds() {
        assert_eq!(micros(0.34), "0.3 µs");
        assert_eq!(micros(7.8), "7.8 µs");
        assert_eq!(micros(738.1), "738 µs");
        assert_eq!(micros(3_180.0), "3.2 ms");
        assert_eq!(micros(999.7), "1.0 ms");
    }

    #[test]
    fn sizes() {
        assert_eq!(bytes(512), "512 B");
        assert_eq!(bytes(4096), "4.0 KiB");
        assert_eq!(bytes(1536), "1.5 KiB");
        assert_eq!(bytes(1024 * 1024 - 1), "1.0 MiB");
        assert_eq!(bytes(3 * 1024 * 1024 * 1024 / 2), "1.5 GiB");
    }

    #[test]
    fn counts_and_plurals() {
        assert_eq!(count(0), "0");
        assert_eq!(count(999), "999");
        assert_eq!(count(1000), "1,000");
        assert_eq!(count(1_234_567), "1,234,567");
        assert_eq!(counted(1, "file", "files"), "1 file");
        assert_eq!(counted(6811, "file", "files"), "6,811 files");
        assert_eq!(counted(0, "directory", "directories"), "0 directories");
        assert_eq!(
            tree(6569, 31, 2048, false),
            "6,569 files, 31 symlinks, 2.0 KiB"
        );
        assert_eq!(tree(1, 0, 10, true), "~1 file, ~10 B");
    }

    #[test]
    fn ratios() {
        assert_eq!(ratio(1.44), "1.4x");
        assert_eq!(ratio(418.2), "418x");
        assert_eq!(ratio(1905.0), "1,905x");
    }
}
