//! Generated malformed mountinfo tables and policy files (issue 14): every one is refused with
//! exit code 2 and one sentence, none panics. Most inputs go through the library's own readers
//! (the code the binary runs, minus process start-up); a sample goes through the binary.
//!
//! The generator is seeded, so a failure names an input that can be rebuilt; each run uses a
//! new seed unless `WSL_PLACE_FUZZ_SEED` is set, so CI keeps exploring.

use crate::support;

use std::fs;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Instant;
use support::fakeproc::{FakeProc, PLAIN_VERSION};
use wsl_place::error::{ExitCode, Failure};

const MOUNTINFO_CASES: usize = 6_000;
const POLICY_CASES: usize = 6_000;
const BINARY_SAMPLE: usize = 60;

/// xorshift64*: enough to spread inputs; not worth a dependency.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Self(seed | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
    fn bytes(&mut self, max: usize) -> Vec<u8> {
        let len = 1 + self.below(max);
        (0..len).map(|_| self.next() as u8).collect()
    }
}

fn seed() -> u64 {
    std::env::var("WSL_PLACE_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64)
        })
}

/// Bytes that are fine inside a mount point or source field: anything but space and newline,
/// with the kernel's octal escapes now and then.
fn field_bytes(rng: &mut Rng) -> Vec<u8> {
    let mut out = rng.bytes(12);
    out.retain(|b| *b != b' ' && *b != b'\n' && *b != b'\r' && *b != b'\t' && *b != b'\\');
    if rng.below(3) == 0 {
        out.extend_from_slice(rng.pick(&["\\040", "\\134", "\\011", "\\012"]).as_bytes());
    }
    if out.is_empty() {
        out.push(b'x');
    }
    out
}

/// A well-formed mountinfo line with odd but legal bytes (not UTF-8, escapes) in its text fields.
fn valid_line(rng: &mut Rng, id: usize) -> Vec<u8> {
    let mut line = format!("{} 1 0:{} / /", id + 2, rng.below(300)).into_bytes();
    line.extend(field_bytes(rng));
    line.extend_from_slice(b" rw,relatime");
    for _ in 0..rng.below(3) {
        line.extend_from_slice(
            rng.pick(&[" shared:1", " master:7", " unbindable"])
                .as_bytes(),
        );
    }
    line.extend_from_slice(b" - ");
    line.extend_from_slice(
        rng.pick(&["ext4", "9p", "tmpfs", "fuse.sshfs", "virtiofs"])
            .as_bytes(),
    );
    line.push(b' ');
    line.extend(field_bytes(rng));
    line.extend_from_slice(b" rw,aname=drvfs;path=C:\\134");
    line
}

/// A line the parser must refuse, and how it was broken.
fn broken_line(rng: &mut Rng) -> (Vec<u8>, &'static str) {
    let mount_point = {
        let mut p = b"/".to_vec();
        p.extend(field_bytes(rng));
        p
    };
    let join = |fields: &[&[u8]]| fields.join(&b' ');
    let number = format!("{}", rng.below(1000)).into_bytes();
    let junk = {
        let mut j = rng.bytes(6);
        j.retain(|b| !b.is_ascii_digit() && *b != b' ' && *b != b'\n' && *b != b'\r');
        j.insert(0, b'z');
        j
    };
    match rng.below(8) {
        0 => (
            join(&[
                &junk,
                b"1",
                b"0:1",
                b"/",
                &mount_point,
                b"rw",
                b"-",
                b"ext4",
                b"a",
                b"rw",
            ]),
            "mount id",
        ),
        1 => (
            join(&[
                &number,
                &junk,
                b"0:1",
                b"/",
                &mount_point,
                b"rw",
                b"-",
                b"ext4",
                b"a",
                b"rw",
            ]),
            "parent id",
        ),
        2 => (
            join(&[
                &number,
                b"1",
                &junk,
                b"/",
                &mount_point,
                b"rw",
                b"-",
                b"ext4",
                b"a",
                b"rw",
            ]),
            "device",
        ),
        3 => {
            let mut relative = field_bytes(rng);
            relative.retain(|b| *b != b'/');
            relative.insert(0, b'r');
            (
                join(&[
                    &number, b"1", b"0:1", b"/", &relative, b"rw", b"-", b"ext4", b"a", b"rw",
                ]),
                "absolute",
            )
        }
        4 => (
            join(&[
                &number,
                b"1",
                b"0:1",
                b"/",
                &mount_point,
                b"rw",
                b"ext4",
                b"a",
                b"rw",
            ]),
            "separator",
        ),
        5 => {
            let kept = rng.below(6);
            let fields: [&[u8]; 6] = [&number, b"1", b"0:1", b"/", &mount_point, b"rw"];
            let mut line = join(&fields[..kept]);
            line.extend_from_slice(b" - ext4 a rw");
            (line, "at least 6 fields")
        }
        6 => {
            let after: [&[u8]; 2] = [b"ext4", b"a"];
            let mut line = join(&[&number, b"1", b"0:1", b"/", &mount_point, b"rw", b"-"]);
            for field in &after[..rng.below(2)] {
                line.push(b' ');
                line.extend_from_slice(field);
            }
            (line, "after ' - '")
        }
        _ => (
            join(&[
                b"99999999999",
                b"1",
                b"0:1",
                b"/",
                &mount_point,
                b"rw",
                b"-",
                b"ext4",
                b"a",
                b"rw",
            ]),
            "mount id",
        ),
    }
}

/// A table with one broken line among good ones, and the broken line's number.
fn broken_table(rng: &mut Rng) -> (Vec<u8>, usize, &'static str) {
    let mut table = b"1 0 8:1 / / rw - ext4 /dev/sda rw\n".to_vec();
    let before = rng.below(4);
    for i in 0..before {
        table.extend(valid_line(rng, i));
        table.push(b'\n');
    }
    let (line, why) = broken_line(rng);
    table.extend(line);
    table.push(b'\n');
    for i in 0..rng.below(3) {
        table.extend(valid_line(rng, before + i));
        table.push(b'\n');
    }
    (table, before + 2, why)
}

/// One sentence: one line, ends like a sentence.
#[track_caller]
fn one_sentence(message: &str, input: &dyn std::fmt::Debug) {
    assert!(
        support::is_one_sentence(message),
        "not one sentence: {message:?} for {input:?}"
    );
}

#[track_caller]
fn refused(result: Result<impl Sized, Failure>, input: &dyn std::fmt::Debug) -> Failure {
    match result {
        Ok(_) => panic!("accepted: {input:?}"),
        Err(failure) => {
            assert_eq!(failure.code, ExitCode::Input, "{failure} for {input:?}");
            one_sentence(&failure.message, input);
            failure
        }
    }
}

#[test]
fn generated_malformed_mountinfo_is_refused() {
    let seed = seed();
    let mut rng = Rng::new(seed);
    let host = FakeProc::new(PLAIN_VERSION, "", false);
    let env = host.host_env();
    let file = host.mountinfo();
    let start = Instant::now();
    for case in 0..MOUNTINFO_CASES {
        let (table, line, why) = broken_table(&mut rng);
        let input = (seed, case, String::from_utf8_lossy(&table).into_owned());
        // Straight to the parser: the line number and reason must be right.
        let parsed = catch_unwind(|| wsl_place::mounts::parse_bytes(&table))
            .unwrap_or_else(|_| panic!("parser panicked on {input:?}"));
        let error = parsed.expect_err(&format!("accepted {input:?}"));
        assert_eq!(error.line, line, "{error} for {input:?}");
        assert!(
            error.reason.contains(why),
            "{error} (wanted {why:?}) for {input:?}"
        );
        // Through the reader the binary uses, every tenth case: exit code 2, one sentence.
        if case % 10 == 0 {
            fs::write(&file, &table).unwrap();
            let read = catch_unwind(AssertUnwindSafe(|| {
                wsl_place::location::MountTable::read(&env).map(|_| ())
            }))
            .unwrap_or_else(|_| panic!("reader panicked on {input:?}"));
            refused(read, &input);
        }
    }
    // Odd but legal bytes are kept, not refused.
    for i in 0..500 {
        let mut table = b"1 0 8:1 / / rw - ext4 /dev/sda rw\n".to_vec();
        table.extend(valid_line(&mut rng, i));
        let mounts = wsl_place::mounts::parse_bytes(&table)
            .unwrap_or_else(|e| panic!("{e} for {:?}", String::from_utf8_lossy(&table)));
        assert_eq!(mounts.len(), 2);
    }
    eprintln!(
        "{MOUNTINFO_CASES} malformed mountinfo tables (seed {seed}) in {:.2?}",
        start.elapsed()
    );
}

const THRESHOLD_KEYS: &[&str] = &[
    "advise_git_status_ms",
    "advise_speedup",
    "move_git_status_ms",
    "move_speedup",
    "advise_install_ms",
    "move_install_ms",
];
const KINDS: &[&str] = &[
    "local",
    "tmpfs",
    "overlay",
    "other",
    "network",
    "fuse",
    "wsl-drvfs-9p",
];

/// A part of a policy that is fine on its own.
fn valid_part(rng: &mut Rng) -> String {
    match rng.below(4) {
        0 => "# a comment\n".to_string(),
        1 => format!("[paths]\nignore = [\"/srv/{}/**\"]\n", rng.below(100)),
        2 => format!("[advisory]\nmax_age_hours = {}\n", rng.below(500)),
        _ => "[migrate]\ndestination = \"~/code\"\n".to_string(),
    }
}

/// A part that makes any policy invalid.
fn broken_part(rng: &mut Rng) -> String {
    let key = *rng.pick(THRESHOLD_KEYS);
    let bad_number = *rng.pick(&[
        "nan", "+nan", "-nan", "inf", "-inf", "-1", "0", "-0.5", "1e400",
    ]);
    let bad_value = *rng.pick(&[
        "\"fast\"",
        "true",
        "[1, 2]",
        "{ a = 1 }",
        "1979-05-27",
        "''",
    ]);
    let kind = *rng.pick(KINDS);
    match rng.below(12) {
        0 => format!("[thresholds]\n{key} = {bad_number}\n"),
        1 => format!("[thresholds]\n{key} = {bad_value}\n"),
        2 => format!("[thresholds]\n{key}_{} = 1\n", rng.below(1000)),
        3 => format!("[threshold{}]\n", rng.below(10)),
        4 => format!("[mounts]\nadvise = [\"{kind}\"]\nmove = [\"{kind}\"]\n"),
        5 => format!("[mounts]\nmove = [\"{kind}-x\"]\n"),
        6 => format!(
            "[thresholds]\nadvise_git_status_ms = {}\nmove_git_status_ms = {}\n",
            500 + rng.below(500),
            1 + rng.below(499)
        ),
        // Zero is a valid age ("never reuse"): only the numbers that are not ages.
        7 => format!(
            "[advisory]\nmax_age_hours = {}\n",
            rng.pick(&["nan", "inf", "-inf", "-1", "-0.5", "1e400"])
        ),
        8 => format!(
            "[paths]\nignore = [\"/ok\", \"/bad/[{}\"]\n",
            rng.below(100)
        ),
        9 => format!("[migrate]\ndestination = \"~user{}/x\"\n", rng.below(100)),
        10 => {
            let syntax = [
                "[thresholds\n",
                "key = \n",
                "= 1\n",
                "name = \"unterminated\n",
                "[thresholds]\nmove_speedup = 1\nmove_speedup = 2\n",
                "[[thresholds]]\n",
                "a.b.c = {\n",
                "\"\\q\" = 1\n",
            ];
            rng.pick(&syntax).to_string()
        }
        _ => {
            // Random text with at least one byte that is never valid TOML at the start of a line.
            let mut text: String = (0..1 + rng.below(40))
                .map(|_| char::from(32 + rng.below(95) as u8))
                .collect();
            text.insert(0, *rng.pick(&['=', ']', '}', ',', '\u{7}']));
            text.push('\n');
            text
        }
    }
}

fn broken_policy(rng: &mut Rng) -> String {
    let mut parts: Vec<String> = (0..rng.below(3)).map(|_| valid_part(rng)).collect();
    parts.insert(rng.below(parts.len() + 1), broken_part(rng));
    parts.concat()
}

#[test]
fn generated_malformed_policies_are_refused() {
    let seed = seed();
    let mut rng = Rng::new(seed);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("policy.toml");
    let start = Instant::now();
    for case in 0..POLICY_CASES {
        let text = broken_policy(&mut rng);
        let input = (seed, case, &text);
        let parsed = catch_unwind(|| wsl_place::policy::Policy::parse(&text, "policy.toml"))
            .unwrap_or_else(|_| panic!("parser panicked on {input:?}"));
        let error = parsed.expect_err(&format!("accepted {input:?}"));
        one_sentence(&error.to_string(), &input);
        if case % 10 == 0 {
            fs::write(&file, &text).unwrap();
            let loaded = catch_unwind(|| wsl_place::policy::load(Some(&file), dir.path()))
                .unwrap_or_else(|_| panic!("loader panicked on {input:?}"));
            refused(loaded, &input);
        }
    }
    eprintln!(
        "{POLICY_CASES} malformed policies (seed {seed}) in {:.2?}",
        start.elapsed()
    );
}

/// A sample of both kinds through the built binary: exit 2, one line on stderr, no panic.
#[test]
fn generated_malformed_inputs_through_the_binary() {
    let seed = seed();
    let mut rng = Rng::new(seed);
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    fs::create_dir(&repo).unwrap();
    let good_table = "1 0 8:1 / / rw - ext4 /dev/sda rw\n";
    let host = FakeProc::new(PLAIN_VERSION, good_table, false);
    let policy = dir.path().join("policy.toml");
    let check = |what: &str| {
        let output = support::wsl_place()
            .env("WSL_PLACE_PROC_ROOT", host.dir.path())
            .env("XDG_CACHE_HOME", host.cache_dir())
            .args(["check", "--no-probe", "--policy"])
            .arg(&policy)
            .arg(&repo)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{what}: {stderr}");
        assert!(!stderr.contains("panicked"), "{what}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{what}: {stderr}");
        assert!(stderr.starts_with("wsl-place: "), "{what}: {stderr}");
    };
    for case in 0..BINARY_SAMPLE {
        if case % 2 == 0 {
            let (table, _, _) = broken_table(&mut rng);
            fs::write(host.mountinfo(), &table).unwrap();
            fs::write(&policy, "").unwrap();
            check(&format!(
                "seed {seed} case {case}: {:?}",
                String::from_utf8_lossy(&table)
            ));
        } else {
            let text = broken_policy(&mut rng);
            fs::write(host.mountinfo(), good_table).unwrap();
            fs::write(&policy, &text).unwrap();
            check(&format!("seed {seed} case {case}: {text:?}"));
        }
    }
}
