//! The lossless text form of paths, for the manifest, the journal and JSON output.
//!
//! Paths are bytes on Linux, so they are written escaped: every byte that is not part of valid
//! UTF-8, every control character, and `%` itself become `%XX` (two upper-case hex digits).
//! Everything else is kept as it is, so ordinary names stay readable and
//! `unescape(escape(p)) == p` for every path.

use serde::{Deserialize, Deserializer, Serializer};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

pub fn escape(bytes: &[u8]) -> String {
    percent_encoded_quietly(bytes, |c| c == '%' || is_unsafe(c))
}

/// A character a name must not pass to a terminal or a CI log as it is: a C0 or C1 control
/// (ESC starts a terminal's or a log's commands, BEL, CR), or a bidirectional control, which
/// shows text in another order than it is (`U+202E` makes `txt.exe` read `exe.txt`).
pub fn is_unsafe(c: char) -> bool {
    c.is_control() || is_bidi_control(c)
}

fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
}

/// A whole report for a CI log or a Markdown page: every unsafe character but the line breaks
/// as `%XX`; nothing of the tool's own output is one.
pub fn neutralized(text: &str) -> String {
    percent_encoded(text.as_bytes(), |c| c != '\n' && is_unsafe(c))
}

/// A report for the terminal: its colours are the tool's own escape sequences, and every name
/// in it passed through [`display`]; the bidirectional controls no output of the tool's holds
/// are taken out here too.
pub fn bidi_neutralized(text: &str) -> String {
    if !text.chars().any(is_bidi_control) {
        return text.to_string();
    }
    percent_encoded(text.as_bytes(), is_bidi_control)
}

/// JSON text with each bidirectional control written as its `\uXXXX` escape: the same string
/// to a parser, no reordering to a person reading the raw document.
pub fn json_bidi_escaped(json: &str) -> String {
    json.chars()
        .map(|c| match is_bidi_control(c) {
            true => format!("\\u{:04x}", c as u32),
            false => c.to_string(),
        })
        .collect()
}

/// Set once any text of this run was shown with a character escaped: the report then says so,
/// so that `%1B` in a name reads as what it is.
static ESCAPED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether a name or a text of this run has been shown with characters escaped as `%XX`.
pub fn anything_escaped() -> bool {
    ESCAPED.load(std::sync::atomic::Ordering::Relaxed)
}

/// The line a report ends with when [`anything_escaped`].
pub const ESCAPED_NOTE: &str = "A name above held control, bidirectional or non-UTF-8 characters; each is shown as %XX, its bytes in hexadecimal.";

/// `bytes` with the characters `encoded` picks, and every byte that is not UTF-8, as `%XX`.
fn percent_encoded(bytes: &[u8], encoded: impl Fn(char) -> bool) -> String {
    let out = percent_encoded_quietly(bytes, encoded);
    if out.len() != bytes.len() || out.as_bytes() != bytes {
        ESCAPED.store(true, std::sync::atomic::Ordering::Relaxed);
    }
    out
}

fn percent_encoded_quietly(bytes: &[u8], encoded: impl Fn(char) -> bool) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if encoded(c) {
                let mut buf = [0u8; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    out.push_str(&format!("%{b:02X}"));
                }
            } else {
                out.push(c);
            }
        }
        for b in chunk.invalid() {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

pub fn escape_path(path: &Path) -> String {
    escape(path.as_os_str().as_bytes())
}

/// `path` for human output: control characters (ESC, CR, tab, newline) and bytes that are not
/// UTF-8 as `%XX`, as in migrate's lists, so a name can neither drive the terminal nor break a
/// line; `%` itself is kept, since this form is read, not parsed back.
pub fn display(path: &Path) -> String {
    display_bytes(path.as_os_str().as_bytes())
}

/// [`display`] for text that is not a path (a name, a message built around one).
pub fn display_text(text: &str) -> String {
    display_bytes(text.as_bytes())
}

fn display_bytes(bytes: &[u8]) -> String {
    percent_encoded(bytes, is_unsafe)
}

pub fn unescape(text: &str) -> Option<Vec<u8>> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    Some(out)
}

pub fn unescape_path(text: &str) -> Option<PathBuf> {
    unescape(text).map(|b| PathBuf::from(std::ffi::OsString::from_vec(b)))
}

/// `path` as one shell word for a command line a user copies: as it is when that is safe,
/// else in single quotes, and for names with control characters or bytes that are not UTF-8,
/// in `$'...'` with `\xHH` escapes (bash, zsh, ksh; POSIX since 2024).
pub fn shell_quote(path: &Path) -> String {
    let bytes = path.as_os_str().as_bytes();
    if is_plain_word(bytes) {
        return String::from_utf8_lossy(bytes).into_owned();
    }
    match std::str::from_utf8(bytes) {
        Ok(text) if !text.chars().any(char::is_control) => {
            format!("'{}'", text.replace('\'', r"'\''"))
        }
        _ => {
            let mut out = String::from("$'");
            for chunk in bytes.utf8_chunks() {
                for c in chunk.valid().chars() {
                    match c {
                        '\'' | '\\' => {
                            out.push('\\');
                            out.push(c);
                        }
                        c if c.is_control() => {
                            let mut buf = [0u8; 4];
                            for b in c.encode_utf8(&mut buf).bytes() {
                                out.push_str(&format!("\\x{b:02x}"));
                            }
                        }
                        c => out.push(c),
                    }
                }
                for b in chunk.invalid() {
                    out.push_str(&format!("\\x{b:02x}"));
                }
            }
            out.push('\'');
            out
        }
    }
}

/// Bytes every shell reads as one word as they are.
fn is_plain_word(bytes: &[u8]) -> bool {
    let safe = |b: &u8| b.is_ascii_alphanumeric() || b"/._-+:@,=".contains(b);
    !bytes.is_empty() && bytes.iter().all(safe)
}

/// `path` as one word for fish, which has no `$'...'`: as it is when that is safe, else in
/// single quotes (inside which fish takes `\\` and `\'`), with control characters and bytes that
/// are not UTF-8 as `\xHH` between the quoted runs (`'/src/a'\x0a'b'`).
pub fn fish_quote(path: &Path) -> String {
    let bytes = path.as_os_str().as_bytes();
    if is_plain_word(bytes) {
        return String::from_utf8_lossy(bytes).into_owned();
    }
    let mut out = String::new();
    let mut quoted = false;
    let escape = |out: &mut String, quoted: &mut bool, byte: u8| {
        if std::mem::take(quoted) {
            out.push('\'');
        }
        out.push_str(&format!("\\x{byte:02x}"));
    };
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if c.is_control() {
                let mut buf = [0u8; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    escape(&mut out, &mut quoted, b);
                }
                continue;
            }
            if !std::mem::replace(&mut quoted, true) {
                out.push('\'');
            }
            if c == '\\' || c == '\'' {
                out.push('\\');
            }
            out.push(c);
        }
        for &b in chunk.invalid() {
            escape(&mut out, &mut quoted, b);
        }
    }
    if quoted {
        out.push('\'');
    }
    out
}

/// A path inside a tree, kept as its bytes and written only as its escaped text: in JSON, and
/// by `Display` in migrate's lists of paths (the form a person can paste back into a tool).
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RelPath(pub PathBuf);

impl RelPath {
    pub fn as_path(&self) -> &Path {
        &self.0
    }

    /// The escaped texts of `paths`, `separator` between them.
    pub fn joined(paths: &[RelPath], separator: &str) -> String {
        let texts: Vec<String> = paths.iter().map(RelPath::to_string).collect();
        texts.join(separator)
    }
}

impl From<&Path> for RelPath {
    fn from(path: &Path) -> Self {
        Self(path.to_path_buf())
    }
}

impl From<PathBuf> for RelPath {
    fn from(path: PathBuf) -> Self {
        Self(path)
    }
}

impl std::fmt::Display for RelPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&escape_path(&self.0))
    }
}

impl serde::Serialize for RelPath {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        json::serialize(&self.0, serializer)
    }
}

impl<'de> Deserialize<'de> for RelPath {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        json::deserialize(deserializer).map(Self)
    }
}

/// `#[serde(with = "crate::base::pathtext::json")]`: a path as its escaped text, so JSON output never
/// fails on (nor silently mangles) a name that is not UTF-8.
pub mod json {
    use super::*;

    pub fn serialize<S: Serializer>(path: &Path, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&escape_path(path))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<PathBuf, D::Error> {
        let text = String::deserialize(deserializer)?;
        unescape_path(&text).ok_or_else(|| serde::de::Error::custom("a malformed %XX escape"))
    }

    /// `#[serde(serialize_with = "crate::base::pathtext::json::list")]`: paths, each as its
    /// escaped text.
    pub fn list<S: Serializer>(paths: &[PathBuf], serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(paths.iter().map(|path| escape_path(path)))
    }
}

/// Whether `path`, with its `.` and `..` taken as written (no link followed, nothing asked of
/// the disk), names `place` or something inside it.
pub fn lexically_inside(path: &Path, place: &Path) -> bool {
    use std::path::Component;
    let mut normal = PathBuf::new();
    for part in path.components() {
        match part {
            Component::ParentDir => {
                normal.pop();
            }
            Component::CurDir => {}
            other => normal.push(other),
        }
    }
    normal.starts_with(place)
}

/// `~` and `~/rest` in a user-written path, with `home` for `~`; anything else (`~user` among
/// them: no password database is read) as written. None when it needs a home there is none of.
pub fn expand_home(text: &str, home: Option<&Path>) -> Option<PathBuf> {
    if text == "~" {
        return home.map(Path::to_path_buf);
    }
    match text.strip_prefix("~/") {
        Some(rest) => home.map(|home| home.join(rest)),
        None => Some(PathBuf::from(text)),
    }
}

/// `<folder name>-<crc32 of the whole path>` for a file kept per path (cache entries, migration
/// records): readable, file-name safe, and one file per path.
pub fn file_key(path: &Path) -> String {
    let digest = crc32fast::hash(path.as_os_str().as_encoded_bytes());
    let name: String = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "root".to_string())
        .chars()
        .map(
            |c| match c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                true => c,
                false => '_',
            },
        )
        .take(40)
        .collect();
    format!("{name}-{digest:08x}")
}

#[cfg(test)]
mod tests {
    #[test]
    fn home_is_expanded_only_where_written_as_tilde_slash() {
        let home = Some(Path::new("/home/me"));
        assert_eq!(
            super::expand_home("~", home),
            Some(PathBuf::from("/home/me"))
        );
        assert_eq!(
            super::expand_home("~/src/a", home),
            Some(PathBuf::from("/home/me/src/a"))
        );
        assert_eq!(
            super::expand_home("~bob/x", home),
            Some(PathBuf::from("~bob/x"))
        );
        assert_eq!(
            super::expand_home("/abs", home),
            Some(PathBuf::from("/abs"))
        );
        assert_eq!(super::expand_home("~/x", None), None);
    }

    use super::*;
    use std::ffi::OsStr;

    #[test]
    fn escaping_is_lossless_and_readable() {
        let cases: &[&[u8]] = &[
            b"plain/name.rs",
            b"caf\xc3\xa9",
            b"bad\xff\xfe",
            b"tab\there\nnl",
            b"100%",
            b"%41",
            b"\xe2\x82",
        ];
        for case in cases {
            let escaped = escape(case);
            assert!(!escaped.contains('\t') && !escaped.contains('\n'));
            assert_eq!(unescape(&escaped).as_deref(), Some(*case), "{escaped}");
        }
        assert_eq!(escape(b"caf\xc3\xa9"), "café");
        assert_eq!(escape(b"bad\xff"), "bad%FF");
        assert_eq!(escape(b"100%"), "100%25");
        assert_eq!(unescape("%G1"), None);
        assert_eq!(unescape("%4"), None);
    }

    #[test]
    fn display_form_has_no_control_characters() {
        let shown = display(Path::new(OsStr::from_bytes(
            b"/src/x\x1b[7my\r\tz\n100%\xff",
        )));
        assert_eq!(shown, "/src/x%1B[7my%0D%09z%0A100%%FF");
        assert_eq!(display_text("caf\u{e9}"), "caf\u{e9}");
    }

    #[test]
    fn shell_words() {
        let quote = |bytes: &[u8]| shell_quote(Path::new(std::ffi::OsStr::from_bytes(bytes)));
        assert_eq!(quote(b"/home/me/src/app"), "/home/me/src/app");
        assert_eq!(quote(b"/home/me/it's here"), r"'/home/me/it'\''s here'");
        assert_eq!(quote(b"/src/a\nb\xff'"), r"$'/src/a\x0ab\xff\''");
        let fish = |bytes: &[u8]| fish_quote(Path::new(std::ffi::OsStr::from_bytes(bytes)));
        assert_eq!(fish(b"/src/a\nb\xff'"), r"'/src/a'\x0a'b'\xff'\''");
        assert_eq!(fish(br"/a\b/it's x"), r"'/a\\b/it\'s x'");
        assert_eq!(fish(b"/plain"), "/plain");
        assert_eq!(quote(b"/src/$HOME`x`"), "'/src/$HOME`x`'");
    }

    #[test]
    fn json_form_round_trips() {
        #[derive(serde::Serialize, serde::Deserialize)]
        struct Holder {
            #[serde(with = "json")]
            path: PathBuf,
        }
        let path = PathBuf::from(std::ffi::OsStr::from_bytes(b"/src/caf\xe9 100%"));
        let text = serde_json::to_string(&Holder { path: path.clone() }).unwrap();
        assert_eq!(text, r#"{"path":"/src/caf%E9 100%25"}"#);
        let back: Holder = serde_json::from_str(&text).unwrap();
        assert_eq!(back.path, path);
    }
}
