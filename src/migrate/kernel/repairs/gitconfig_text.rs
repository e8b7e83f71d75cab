//! A git config file's text read as git's own parser reads it (config.c: `[section]` and
//! `[section "sub"]` headers, a key on a header's line, `key = value` and a bare `key`, quotes,
//! the `\\ \" \t \n \b` escapes, a `\` ending a line continuing it, `#` and `;` comments, CRLF as
//! LF), so that the `safe.directory` entries wsl-place adds are found and taken out where git
//! sees them, not where they were first written, and every other byte stays where it was.

use std::ops::Range;

/// One `key = value` as git reads it, and the bytes it spans.
#[derive(Debug)]
struct Entry {
    /// `section.key` or `section.sub.key`, section and key lowercased, as `git config` names it.
    name: String,
    /// None for a bare `key` (git's implicit true).
    value: Option<Vec<u8>>,
    /// From the key's first byte to the end of its last line (before the line ending).
    span: Range<usize>,
    /// The header it falls under, an index into `Parsed::headers`.
    header: Option<usize>,
}

/// One `[section]` header and the bytes it spans.
#[derive(Debug)]
struct Header {
    name: String,
    span: Range<usize>,
}

#[derive(Debug, Default)]
struct Parsed {
    headers: Vec<Header>,
    entries: Vec<Entry>,
}

/// Where git stops reading a file: the 1-based line it reports as `bad config line N`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BadLine(pub usize);

/// The bytes as git's `get_next_char` hands them out: `\r\n` as one `\n`, the end as `\n`.
struct Cursor<'a> {
    text: &'a [u8],
    at: usize,
    /// Where the last character handed out starts (the text's length once at the end).
    last: usize,
}

impl Cursor<'_> {
    /// The next character and the offset it starts at; None at the end.
    fn next(&mut self) -> Option<(u8, usize)> {
        let start = self.at;
        self.last = start;
        let c = *self.text.get(start)?;
        self.at += 1;
        if c == b'\r' && self.text.get(self.at) == Some(&b'\n') {
            self.at += 1;
            return Some((b'\n', start));
        }
        Some((c, start))
    }

    fn line(&self) -> usize {
        1 + self.text[..self.last.min(self.text.len())]
            .iter()
            .filter(|&&c| c == b'\n')
            .count()
    }
}

/// git's `isspace`: space, tab, LF and CR, nothing else.
fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

fn is_key_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'-'
}

fn parse(text: &[u8]) -> Result<Parsed, BadLine> {
    let bom = if text.starts_with(b"\xef\xbb\xbf") {
        3
    } else {
        0
    };
    let mut cursor = Cursor {
        text,
        at: bom,
        last: bom,
    };
    let mut parsed = Parsed::default();
    let mut comment = false;
    while let Some((c, at)) = cursor.next() {
        if c == b'\n' || comment || is_space(c) {
            comment &= c != b'\n';
        } else if c == b'#' || c == b';' {
            comment = true;
        } else if c == b'[' {
            let name = section(&mut cursor).ok_or(BadLine(cursor.line()))?;
            parsed.headers.push(Header {
                name,
                span: at..cursor.at,
            });
        } else if c.is_ascii_alphabetic() {
            let header = parsed.headers.len().checked_sub(1);
            let section = header.map_or("", |h| parsed.headers[h].name.as_str());
            let (key, value) = entry(&mut cursor, c).ok_or(BadLine(cursor.line()))?;
            parsed.entries.push(Entry {
                name: if section.is_empty() {
                    key
                } else {
                    format!("{section}.{key}")
                },
                value,
                // Up to the line ending that closed it, which was the last character read.
                span: at..cursor.last,
                header,
            });
        } else {
            return Err(BadLine(cursor.line()));
        }
    }
    Ok(parsed)
}

/// A header's name after its `[`, as `get_base_var` builds it; None where git stops.
fn section(cursor: &mut Cursor) -> Option<String> {
    let mut name = String::new();
    loop {
        let (c, _) = cursor.next()?;
        if c == b']' {
            return Some(name);
        }
        if is_space(c) {
            return subsection(cursor, c, name);
        }
        if !is_key_char(c) && c != b'.' {
            return None;
        }
        name.push(c.to_ascii_lowercase() as char);
    }
}

/// `[base "sub"]`: the subsection kept as written (case and all), `\x` read as `x`.
fn subsection(cursor: &mut Cursor, mut c: u8, base: String) -> Option<String> {
    while is_space(c) {
        if c == b'\n' {
            return None;
        }
        c = cursor.next()?.0;
    }
    if c != b'"' {
        return None;
    }
    let mut sub = Vec::new();
    loop {
        let (mut c, _) = cursor.next()?;
        match c {
            b'\n' => return None,
            b'"' => break,
            b'\\' => {
                c = cursor.next()?.0;
                if c == b'\n' {
                    return None;
                }
            }
            _ => {}
        }
        sub.push(c);
    }
    (cursor.next()?.0 == b']').then(|| format!("{base}.{}", String::from_utf8_lossy(&sub)))
}

/// A key starting with `first`, and its value as `get_value` and `parse_value` read them.
fn entry(cursor: &mut Cursor, first: u8) -> Option<(String, Option<Vec<u8>>)> {
    let mut key = String::from(first.to_ascii_lowercase() as char);
    let mut c = b'\n';
    while let Some((next, _)) = cursor.next() {
        c = next;
        if !is_key_char(c) {
            break;
        }
        key.push(c.to_ascii_lowercase() as char);
        c = b'\n';
    }
    while c == b' ' || c == b'\t' {
        c = cursor.next().map_or(b'\n', |(c, _)| c);
    }
    match c {
        b'\n' => Some((key, None)),
        b'=' => Some((key, Some(value(cursor)?))),
        _ => None,
    }
}

/// A value as git (2.46 and later) reads it: blanks before it and after it dropped, those
/// inside kept as they are (older git folded each run into one space: a value with blanks is
/// written quoted, so both read it alike).
fn value(cursor: &mut Cursor) -> Option<Vec<u8>> {
    let (mut quote, mut comment) = (false, false);
    // Where trailing blanks began, to drop them at the line's end.
    let mut trim: Option<usize> = None;
    let mut value = Vec::new();
    loop {
        let c = cursor.next().map_or(b'\n', |(c, _)| c);
        if c == b'\n' {
            value.truncate(trim.unwrap_or(value.len()));
            return (!quote).then_some(value);
        }
        if comment {
            continue;
        }
        if is_space(c) && !quote {
            trim.get_or_insert(value.len());
            if !value.is_empty() {
                value.push(c);
            }
            continue;
        }
        if !quote && (c == b';' || c == b'#') {
            comment = true;
            continue;
        }
        trim = None;
        match c {
            b'\\' => match cursor.next().map_or(b'\n', |(c, _)| c) {
                b'\n' => {}
                b't' => value.push(b'\t'),
                b'b' => value.push(0x08),
                b'n' => value.push(b'\n'),
                e @ (b'\\' | b'"') => value.push(e),
                _ => return None,
            },
            b'"' => quote = !quote,
            _ => value.push(c),
        }
    }
}

/// Every value of `name` (`section.key`, lowercased) in `text`, in git's order.
pub fn values(text: &[u8], name: &str) -> Result<Vec<Vec<u8>>, BadLine> {
    Ok(parse(text)?
        .entries
        .into_iter()
        .filter(|e| e.name == name)
        .filter_map(|e| e.value)
        .collect())
}

/// `text` without the entries of `name` whose value is one of `values`, wherever git reads
/// them; a `[section]` header left empty by that goes too, when it stands on a line of its
/// own. Every other byte stays. When `drop_trailing_newline` (the entries were appended after
/// a last line that had no line ending) and everything from the first line taken out to the
/// end went, that line ending goes too. None when no entry matched.
pub fn without(
    text: &[u8],
    name: &str,
    values: &[&[u8]],
    drop_trailing_newline: bool,
) -> Result<Option<Vec<u8>>, BadLine> {
    let parsed = parse(text)?;
    let ours =
        |e: &Entry| e.name == name && e.value.as_deref().is_some_and(|v| values.contains(&v));
    let mut cuts: Vec<Range<usize>> = parsed
        .entries
        .iter()
        .filter(|e| ours(e))
        .map(|e| lines_of(text, &e.span).unwrap_or_else(|| e.span.clone()))
        .collect();
    if cuts.is_empty() {
        return Ok(None);
    }
    for (index, header) in parsed.headers.iter().enumerate() {
        let mut under = parsed.entries.iter().filter(|e| e.header == Some(index));
        let emptied = under.clone().any(ours) && under.all(ours);
        if let Some(line) = lines_of(text, &header.span).filter(|_| emptied) {
            // Only a header with nothing after it on its line: a key there would change section.
            if text[header.span.end..line.end].iter().all(|&c| is_space(c)) {
                cuts.push(line);
            }
        }
    }
    cuts.sort_by_key(|c| c.start);
    let first = cuts[0].start;
    let mut kept = Vec::with_capacity(text.len());
    let mut at = 0;
    for cut in &cuts {
        kept.extend_from_slice(&text[at..cut.start.max(at)]);
        at = at.max(cut.end);
    }
    kept.extend_from_slice(&text[at..]);
    if drop_trailing_newline && kept.len() == first {
        let ending = if kept.ends_with(b"\r\n") { 2 } else { 1 };
        if kept.ends_with(b"\n") {
            kept.truncate(kept.len() - ending);
        }
    }
    Ok(Some(kept))
}

/// The whole lines `span` is on, with the last one's line ending, when nothing but blanks comes
/// before it on its first line; None when something does (a key on a header's line).
fn lines_of(text: &[u8], span: &Range<usize>) -> Option<Range<usize>> {
    let line_start = text[..span.start]
        .iter()
        .rposition(|&c| c == b'\n')
        .map_or(0, |i| i + 1);
    if !text[line_start..span.start]
        .iter()
        .all(|&c| c == b' ' || c == b'\t')
    {
        return None;
    }
    let end = text[span.end..]
        .iter()
        .position(|&c| c == b'\n')
        .map_or(text.len(), |i| span.end + i + 1);
    Some(line_start..end)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAME: &str = "safe.directory";
    const A: &[u8] = b"%(prefix)///wsl.localhost/U/home/me/a b";
    const B: &[u8] = b"%(prefix)///wsl$/U/home/me/a b";

    /// What git itself reads as `safe.directory` in `text` (None when it refuses the file).
    fn git_reads(text: &[u8]) -> Option<Vec<Vec<u8>>> {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config");
        std::fs::write(&file, text).unwrap();
        let git = |args: &[&str]| {
            crate::base::process::command("git")
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .args(["config", "--file"])
                .arg(&file)
                .args(args)
                .output()
                .unwrap()
        };
        if !git(&["--list"]).status.success() {
            return None;
        }
        let out = git(&["-z", "--get-all", NAME]);
        let mut values: Vec<Vec<u8>> = out.stdout.split(|&c| c == 0).map(<[u8]>::to_vec).collect();
        values.pop();
        Some(values)
    }

    /// `without` on `text`, checked against git: the same values as before less A and B.
    fn taken_out(text: &str, drop: bool) -> String {
        let before = git_reads(text.as_bytes()).expect("git reads the fixture");
        assert_eq!(values(text.as_bytes(), NAME).unwrap(), before, "{text:?}");
        let after = without(text.as_bytes(), NAME, &[A, B], drop)
            .unwrap()
            .unwrap();
        let expected: Vec<Vec<u8>> = before.into_iter().filter(|v| v != A && v != B).collect();
        assert_eq!(git_reads(&after), Some(expected), "{text:?}");
        String::from_utf8(after).unwrap()
    }

    #[test]
    fn a_later_entry_git_put_in_our_block_stays_safe_directory() {
        let text = "[core]\n\tautocrlf = true\n[safe]\n\tdirectory = \"%(prefix)///wsl.localhost/U/home/me/a b\"\n\tdirectory = \"%(prefix)///wsl$/U/home/me/a b\"\n\tdirectory = D:/mine\n";
        assert_eq!(
            taken_out(text, false),
            "[core]\n\tautocrlf = true\n[safe]\n\tdirectory = D:/mine\n"
        );
    }

    #[test]
    fn found_by_value_in_any_spelling_and_any_safe_block_subsections_left() {
        let text = concat!(
            "; the person's\n[Safe]\n\tdirectory = D:/x # a comment\n",
            "[safe \"sub\"]\n\tdirectory = %(prefix)///wsl$/U/home/me/a b\n",
            "[alias]\n\tst = status\n",
            "[safe]\n  # kept\n\tDirectory=%(prefix)///wsl.localhost/U/home/me/a\\\n b\n",
            "[safe] directory = \"%(prefix)///wsl$/U/\\\"home/me/a b\"\n",
            "[safe] directory = \"%(prefix)///wsl$/U/home/me/a b\" ; ours\n",
            "[user]\n\tname = \"Me \\\"Myself\\\"\"\n",
        );
        assert_eq!(
            taken_out(text, false),
            concat!(
                "; the person's\n[Safe]\n\tdirectory = D:/x # a comment\n",
                "[safe \"sub\"]\n\tdirectory = %(prefix)///wsl$/U/home/me/a b\n",
                // The header left with a comment only: the comment is read as nothing anywhere.
                "[alias]\n\tst = status\n",
                "  # kept\n",
                "[safe] directory = \"%(prefix)///wsl$/U/\\\"home/me/a b\"\n",
                "[safe] \n",
                "[user]\n\tname = \"Me \\\"Myself\\\"\"\n",
            )
        );
    }

    #[test]
    fn crlf_kept_and_the_newline_added_before_our_block_taken_back() {
        let before = "[user]\r\n\tname = Me\r\n[safe]\r\n\tdirectory = *";
        let text = format!(
            "{before}\r\n[safe]\r\n\tdirectory = \"{}\"\r\n\tdirectory = \"{}\"\r\n",
            String::from_utf8_lossy(A),
            String::from_utf8_lossy(B)
        );
        assert_eq!(taken_out(&text, true), before);
        // Something after it: the line ending stays, or the last line would run into it.
        let later = format!("{text}[core]\r\n\tbare\r\n");
        assert_eq!(
            taken_out(&later, true),
            format!("{before}\r\n[core]\r\n\tbare\r\n")
        );
    }

    #[test]
    fn another_migrations_block_after_ours_keeps_its_header_on_its_own_line() {
        let text = "[safe]\n\tdirectory = *\n[safe]\n\tdirectory = \"%(prefix)///wsl$/U/home/me/a b\"\n[safe]\n\tdirectory = D:/b\n";
        assert_eq!(
            taken_out(text, true),
            "[safe]\n\tdirectory = *\n[safe]\n\tdirectory = D:/b\n"
        );
    }

    #[test]
    fn reads_what_git_reads_and_refuses_what_git_refuses() {
        let texts: [&[u8]; 19] = [
            b"[safe]directory=a",
            b"[safe]\n directory = a\\tb\n",
            b"[safe]\ndirectory = a \\\n  b   \n",
            b"[safe]\ndirectory = \"a;b\" ;c\n",
            b"[safe]\ndirectory = a\\q\n",
            b"[safe]\n\tdirectory = a\rb\r\n",
            b"\xef\xbb\xbf[safe]\ndirectory=a",
            b"[safe \"x\\\"y\"]\ndirectory=a\n[safe]\ndirectory=b",
            b"[safe] # c\ndirectory=a ; d\n",
            b"[safe.sub]\ndirectory=a\n[safe]\n\tdirectory =  \" a  b \"  \n",
            b"directory=a\n[safe]\ndirectory=b\n",
            b"[SAFE]\nDIRECTORY = A\n[Safe \"\"]\ndirectory = B\n",
            b"[safe]\n1directory = a\n",
            b"[safe]\ndirectory = \"a\n",
            b"[safe\n]\ndirectory = a\n",
            b"[safe]\ndirectory = a\n[safe \"x\" ]\ndirectory = b\n",
            b"[safe]\ndirectory = a  b\t c \\\n  d\n",
            b"[safe]\ndirectory = \ra\rb \r \n\r\tdirectory = c\n",
            b"[safe]\ndirectory = \"a\" b \" c \"\n",
        ];
        for text in texts {
            let ours = values(text, NAME).ok();
            assert_eq!(ours, git_reads(text), "{:?}", String::from_utf8_lossy(text));
        }
    }

    #[test]
    fn nothing_of_ours_is_none_and_a_file_git_refuses_names_its_line() {
        assert_eq!(without(b"[a]\n\tb = c\n", NAME, &[A], false), Ok(None));
        assert_eq!(values(b"[a]\n\tb = c\n\tbad line\n", NAME), Err(BadLine(3)));
        assert_eq!(values(b"[a]\nb = \"open\n", NAME), Err(BadLine(2)));
        assert_eq!(values(b"[a\n", NAME), Err(BadLine(1)));
        assert_eq!(git_reads(b"[a]\n\tb = c\n\tbad line\n"), None);
    }
}
