//! Generated malformed mountinfo tables and policy files (issue 14): every one is refused with
//! exit code 2 and one sentence, none panics. Most inputs go through the library's own readers
//! (the code the binary runs, minus process start-up); a sample goes through the binary.
//!
//! The inputs are proptest strategies, so a failure is shrunk to a small input before it is
//! reported, and its seed is kept in tests/proptest-regressions/fuzz.txt (commit it: every
//! later run tries it first). Each run explores new inputs; `PROPTEST_RNG_SEED=N` repeats one run.

use crate::support;

use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;
use proptest::sample::select;
use proptest::test_runner::{TestCaseResult, TestRunner};
use std::fmt;
use std::fs;
use std::panic::{AssertUnwindSafe, catch_unwind};
use support::fakeproc::{FakeProc, PLAIN_VERSION};
use wsl_place::facade::base::error::{ExitCode, Failure};

const MOUNTINFO_CASES: u32 = 6_000;
const POLICY_CASES: u32 = 6_000;
/// Of the cases above, this many also go through the reader the binary uses (a file per case).
const READER_CASES: u32 = 600;
const LEGAL_LINE_CASES: u32 = 500;
/// Each case starts the binary twice: once with a broken table, once with a broken policy.
const BINARY_CASES: u32 = 30;

/// Runs `test` on `cases` inputs from `strategy`; a failure panics with the shrunk input.
fn check<S: Strategy>(cases: u32, strategy: S, test: impl Fn(S::Value) -> TestCaseResult) {
    let config = ProptestConfig {
        cases,
        // Where the seeds of failures are kept: tests/proptest-regressions/fuzz.txt.
        source_file: Some(file!()),
        ..ProptestConfig::default()
    };
    if let Err(failure) = TestRunner::new(config).run(&strategy, test) {
        panic!("{failure}");
    }
}

/// Bytes that are fine inside a mount point or source field: anything but space and newline,
/// with the kernel's octal escapes now and then.
fn field_bytes() -> impl Strategy<Value = Vec<u8>> {
    let escape = option::weighted(1.0 / 3.0, select(&["\\040", "\\134", "\\011", "\\012"][..]));
    (vec(any::<u8>(), 1..=12), escape).prop_map(|(mut out, escape)| {
        out.retain(|b| *b != b' ' && *b != b'\n' && *b != b'\r' && *b != b'\t' && *b != b'\\');
        if let Some(escape) = escape {
            out.extend_from_slice(escape.as_bytes());
        }
        if out.is_empty() {
            out.push(b'x');
        }
        out
    })
}

/// A well-formed mountinfo line with odd but legal bytes (not UTF-8, escapes) in its text
/// fields; its mount id comes from its place in the table.
#[derive(Clone)]
struct ValidLine {
    device: usize,
    mount_point: Vec<u8>,
    tags: Vec<&'static str>,
    fstype: &'static str,
    source: Vec<u8>,
}

impl ValidLine {
    fn render(&self, id: usize) -> Vec<u8> {
        let mut line = format!("{} 1 0:{} / /", id + 2, self.device).into_bytes();
        line.extend_from_slice(&self.mount_point);
        line.extend_from_slice(b" rw,relatime");
        for tag in &self.tags {
            line.extend_from_slice(tag.as_bytes());
        }
        line.extend_from_slice(b" - ");
        line.extend_from_slice(self.fstype.as_bytes());
        line.push(b' ');
        line.extend_from_slice(&self.source);
        line.extend_from_slice(b" rw,aname=drvfs;path=C:\\134");
        line
    }
}

impl fmt::Debug for ValidLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", String::from_utf8_lossy(&self.render(0)))
    }
}

fn valid_line() -> impl Strategy<Value = ValidLine> {
    let tags = vec(select(&[" shared:1", " master:7", " unbindable"][..]), 0..3);
    let fstype = select(&["ext4", "9p", "tmpfs", "fuse.sshfs", "virtiofs"][..]);
    (0..300usize, field_bytes(), tags, fstype, field_bytes()).prop_map(
        |(device, mount_point, tags, fstype, source)| ValidLine {
            device,
            mount_point,
            tags,
            fstype,
            source,
        },
    )
}

/// The parts a broken line is made of; [`BrokenLine::render`] picks how it is broken.
#[derive(Debug, Clone)]
struct BrokenLine {
    how: usize,
    mount_point: Vec<u8>,
    number: usize,
    junk: Vec<u8>,
    relative: Vec<u8>,
    kept_fields: usize,
    fields_after_separator: usize,
}

fn broken_line() -> impl Strategy<Value = BrokenLine> {
    let mount_point = field_bytes().prop_map(|field| [b"/".to_vec(), field].concat());
    let junk = vec(any::<u8>(), 1..=6).prop_map(|mut junk| {
        junk.retain(|b| !b.is_ascii_digit() && *b != b' ' && *b != b'\n' && *b != b'\r');
        junk.insert(0, b'z');
        junk
    });
    let relative = field_bytes().prop_map(|mut relative| {
        relative.retain(|b| *b != b'/');
        relative.insert(0, b'r');
        relative
    });
    (
        0..8usize,
        mount_point,
        0..1000usize,
        junk,
        relative,
        0..6usize,
        0..2usize,
    )
        .prop_map(
            |(how, mount_point, number, junk, relative, kept_fields, fields_after_separator)| {
                BrokenLine {
                    how,
                    mount_point,
                    number,
                    junk,
                    relative,
                    kept_fields,
                    fields_after_separator,
                }
            },
        )
}

impl BrokenLine {
    /// The line the parser must refuse, and the words its reason must contain.
    fn render(&self) -> (Vec<u8>, &'static str) {
        let join = |fields: &[&[u8]]| fields.join(&b' ');
        let number = self.number.to_string().into_bytes();
        let (junk, mount_point) = (&self.junk[..], &self.mount_point[..]);
        let tail: [&[u8]; 4] = [b"-", b"ext4", b"a", b"rw"];
        let line = |head: [&[u8]; 6]| join(&[&head[..], &tail[..]].concat());
        match self.how {
            0 => (
                line([junk, b"1", b"0:1", b"/", mount_point, b"rw"]),
                "mount id",
            ),
            1 => (
                line([&number, junk, b"0:1", b"/", mount_point, b"rw"]),
                "parent id",
            ),
            2 => (
                line([&number, b"1", junk, b"/", mount_point, b"rw"]),
                "device",
            ),
            3 => (
                line([&number, b"1", b"0:1", b"/", &self.relative, b"rw"]),
                "absolute",
            ),
            4 => (
                join(&[
                    &number,
                    b"1",
                    b"0:1",
                    b"/",
                    mount_point,
                    b"rw",
                    b"ext4",
                    b"a",
                    b"rw",
                ]),
                "separator",
            ),
            5 => {
                let fields: [&[u8]; 6] = [&number, b"1", b"0:1", b"/", mount_point, b"rw"];
                let mut line = join(&fields[..self.kept_fields]);
                line.extend_from_slice(b" - ext4 a rw");
                (line, "at least 6 fields")
            }
            6 => {
                let after: [&[u8]; 2] = [b"ext4", b"a"];
                let mut line = join(&[&number, b"1", b"0:1", b"/", mount_point, b"rw", b"-"]);
                for field in &after[..self.fields_after_separator] {
                    line.push(b' ');
                    line.extend_from_slice(field);
                }
                (line, "after ' - '")
            }
            // A mount id too large for its integer type.
            _ => (
                line([b"99999999999", b"1", b"0:1", b"/", mount_point, b"rw"]),
                "mount id",
            ),
        }
    }
}

/// A table with one broken line among good ones, the broken line's number and what its
/// refusal must say.
struct BrokenTable {
    bytes: Vec<u8>,
    line: usize,
    why: &'static str,
}

impl fmt::Debug for BrokenTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = String::from_utf8_lossy(&self.bytes);
        write!(f, "line {} ({:?}) of {text:?}", self.line, self.why)
    }
}

fn broken_table() -> impl Strategy<Value = BrokenTable> {
    (
        vec(valid_line(), 0..4),
        broken_line(),
        vec(valid_line(), 0..3),
    )
        .prop_map(|(before, broken, after)| {
            let mut bytes = b"1 0 8:1 / / rw - ext4 /dev/sda rw\n".to_vec();
            for (i, line) in before.iter().enumerate() {
                bytes.extend(line.render(i));
                bytes.push(b'\n');
            }
            let (line, why) = broken.render();
            bytes.extend(line);
            bytes.push(b'\n');
            for (i, line) in after.iter().enumerate() {
                bytes.extend(line.render(before.len() + i));
                bytes.push(b'\n');
            }
            BrokenTable {
                bytes,
                line: before.len() + 2,
                why,
            }
        })
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
    // Straight to the parser: the line number and reason must be right.
    check(MOUNTINFO_CASES, broken_table(), |input| {
        let parsed = catch_unwind(|| wsl_place::facade::host::mounts::parse_bytes(&input.bytes))
            .unwrap_or_else(|_| panic!("parser panicked on {input:?}"));
        let error = parsed.expect_err(&format!("accepted {input:?}"));
        assert_eq!(error.line, input.line, "{error} for {input:?}");
        assert!(
            error.reason.contains(input.why),
            "{error} (wanted {:?}) for {input:?}",
            input.why
        );
        Ok(())
    });
    // Through the reader the binary uses: exit code 2, one sentence.
    let host = FakeProc::new(PLAIN_VERSION, "", false);
    let env = host.host_env();
    let file = host.mountinfo();
    check(READER_CASES, broken_table(), |input| {
        fs::write(&file, &input.bytes).unwrap();
        let read = catch_unwind(AssertUnwindSafe(|| {
            wsl_place::facade::host::location::MountTable::read(&env).map(|_| ())
        }))
        .unwrap_or_else(|_| panic!("reader panicked on {input:?}"));
        refused(read, &input);
        Ok(())
    });
    // Odd but legal bytes are kept, not refused.
    check(LEGAL_LINE_CASES, valid_line(), |line| {
        let mut table = b"1 0 8:1 / / rw - ext4 /dev/sda rw\n".to_vec();
        table.extend(line.render(0));
        let mounts = wsl_place::facade::host::mounts::parse_bytes(&table)
            .unwrap_or_else(|e| panic!("{e} for {:?}", String::from_utf8_lossy(&table)));
        assert_eq!(mounts.len(), 2);
        Ok(())
    });
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
const BAD_NUMBERS: &[&str] = &[
    "nan", "+nan", "-nan", "inf", "-inf", "-1", "0", "-0.5", "1e400",
];
const BAD_VALUES: &[&str] = &[
    "\"fast\"",
    "true",
    "[1, 2]",
    "{ a = 1 }",
    "1979-05-27",
    "''",
];
// Zero is a valid age ("never reuse"): only the numbers that are not ages.
const BAD_AGES: &[&str] = &["nan", "inf", "-inf", "-1", "-0.5", "1e400"];
const BAD_SYNTAX: &[&str] = &[
    "[thresholds\n",
    "key = \n",
    "= 1\n",
    "name = \"unterminated\n",
    "[thresholds]\nmove_speedup = 1\nmove_speedup = 2\n",
    "[[thresholds]]\n",
    "a.b.c = {\n",
    "\"\\q\" = 1\n",
];
/// Never valid TOML at the start of a line.
const BAD_STARTS: &[char] = &['=', ']', '}', ',', '\u{7}'];

/// A part of a policy that is fine on its own.
fn valid_part() -> impl Strategy<Value = String> {
    (0..4usize, 0..100usize, 0..500usize).prop_map(|(which, n, hours)| match which {
        0 => "# a comment\n".to_string(),
        1 => format!("[paths]\nignore = [\"/srv/{n}/**\"]\n"),
        2 => format!("[advisory]\nmax_age_hours = {hours}\n"),
        _ => "[migrate]\ndestination = \"~/code\"\n".to_string(),
    })
}

/// What a broken part is made of; [`BrokenPart::render`] picks how it is broken.
#[derive(Debug, Clone)]
struct BrokenPart {
    how: usize,
    key: &'static str,
    bad_number: &'static str,
    bad_value: &'static str,
    bad_age: &'static str,
    kind: &'static str,
    syntax: &'static str,
    numbers: (usize, usize, usize),
    start: char,
    text: Vec<u8>,
}

fn broken_part() -> impl Strategy<Value = BrokenPart> {
    let words = (
        select(THRESHOLD_KEYS),
        select(BAD_NUMBERS),
        select(BAD_VALUES),
        select(BAD_AGES),
        select(KINDS),
        select(BAD_SYNTAX),
    );
    let numbers = (0..1000usize, 0..500usize, 0..499usize);
    let text = (select(BAD_STARTS), vec(32u8..127, 1..=40));
    (0..12usize, words, numbers, text).prop_map(
        |(how, (key, bad_number, bad_value, bad_age, kind, syntax), numbers, (start, text))| {
            BrokenPart {
                how,
                key,
                bad_number,
                bad_value,
                bad_age,
                kind,
                syntax,
                numbers,
                start,
                text,
            }
        },
    )
}

impl BrokenPart {
    /// A part that makes any policy invalid.
    fn render(&self) -> String {
        let Self { key, kind, .. } = self;
        let (n, low, high) = self.numbers;
        match self.how {
            0 => format!("[thresholds]\n{key} = {}\n", self.bad_number),
            1 => format!("[thresholds]\n{key} = {}\n", self.bad_value),
            2 => format!("[thresholds]\n{key}_{n} = 1\n"),
            3 => format!("[threshold{}]\n", n % 10),
            4 => format!("[mounts]\nadvise = [\"{kind}\"]\nmove = [\"{kind}\"]\n"),
            5 => format!("[mounts]\nmove = [\"{kind}-x\"]\n"),
            6 => format!(
                "[thresholds]\nadvise_git_status_ms = {}\nmove_git_status_ms = {}\n",
                500 + low,
                1 + high
            ),
            7 => format!("[advisory]\nmax_age_hours = {}\n", self.bad_age),
            8 => format!("[paths]\nignore = [\"/ok\", \"/bad/[{}\"]\n", n % 100),
            9 => format!("[migrate]\ndestination = \"~user{}/x\"\n", n % 100),
            10 => self.syntax.to_string(),
            _ => {
                let text: String = self.text.iter().map(|&b| char::from(b)).collect();
                format!("{}{text}\n", self.start)
            }
        }
    }
}

fn broken_policy() -> impl Strategy<Value = String> {
    (vec(valid_part(), 0..3), broken_part(), any::<usize>()).prop_map(|(mut parts, broken, at)| {
        parts.insert(at % (parts.len() + 1), broken.render());
        parts.concat()
    })
}

#[test]
fn generated_malformed_policies_are_refused() {
    check(POLICY_CASES, broken_policy(), |text| {
        let parsed =
            catch_unwind(|| wsl_place::facade::decide::policy::Policy::parse(&text, "policy.toml"))
                .unwrap_or_else(|_| panic!("parser panicked on {text:?}"));
        let error = parsed.expect_err(&format!("accepted {text:?}"));
        one_sentence(&error.to_string(), &text);
        Ok(())
    });
    // Through the loader the binary uses: exit code 2, one sentence.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("policy.toml");
    check(READER_CASES, broken_policy(), |text| {
        fs::write(&file, &text).unwrap();
        let loaded =
            catch_unwind(|| wsl_place::facade::decide::policy::load(Some(&file), dir.path()))
                .unwrap_or_else(|_| panic!("loader panicked on {text:?}"));
        refused(loaded, &text);
        Ok(())
    });
}

/// A sample of both kinds through the built binary: exit 2, one line on stderr, no panic.
#[test]
fn generated_malformed_inputs_through_the_binary() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    fs::create_dir(&repo).unwrap();
    let good_table = "1 0 8:1 / / rw - ext4 /dev/sda rw\n";
    let host = FakeProc::new(PLAIN_VERSION, good_table, false);
    let policy = dir.path().join("policy.toml");
    let run = |what: &dyn fmt::Debug| {
        let output = support::wsl_place()
            .env("WSL_PLACE_PROC_ROOT", host.dir.path())
            .env("XDG_CACHE_HOME", host.cache_dir())
            .args(["check", "--no-probe", "--policy"])
            .arg(&policy)
            .arg(&repo)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{what:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{what:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{what:?}: {stderr}");
        assert!(stderr.starts_with("wsl-place: "), "{what:?}: {stderr}");
    };
    check(
        BINARY_CASES,
        (broken_table(), broken_policy()),
        |(table, text)| {
            fs::write(host.mountinfo(), &table.bytes).unwrap();
            fs::write(&policy, "").unwrap();
            run(&table);
            fs::write(host.mountinfo(), good_table).unwrap();
            fs::write(&policy, &text).unwrap();
            run(&text);
            Ok(())
        },
    );
}
