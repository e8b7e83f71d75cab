//! Environment markers (PEP 508: `sys_platform == 'win32' and python_full_version < '3.11'`)
//! evaluated for this machine, as uv does when it syncs a lock that lists every platform's and
//! every Python's packages. Read as text, never run.

use std::cmp::Ordering;

/// The machine a sync installs for: Linux, this build's architecture, CPython at `python`
/// (major, minor, patch), when known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MarkerEnv {
    pub python: Option<(u32, u32, u32)>,
}

impl MarkerEnv {
    /// The value of a marker variable here; None for one this reading does not know (`extra`,
    /// the Python version when unknown), which makes its comparison true: a package counted
    /// too many rather than one left out.
    fn value(&self, name: &str) -> Option<String> {
        let (major, minor, patch) = self.python.unwrap_or_default();
        let known = |v: &str| Some(v.to_string());
        match name {
            "sys_platform" => known("linux"),
            "platform_system" => known("Linux"),
            "os_name" => known("posix"),
            "platform_machine" => known(std::env::consts::ARCH),
            "implementation_name" => known("cpython"),
            "platform_python_implementation" => known("CPython"),
            "python_version" if self.python.is_some() => Some(format!("{major}.{minor}")),
            "python_full_version" if self.python.is_some() => {
                Some(format!("{major}.{minor}.{patch}"))
            }
            _ => None,
        }
    }
}

/// Whether `marker` holds here; a marker this reading cannot parse holds (counted, not lost).
pub fn holds(marker: &str, env: &MarkerEnv) -> bool {
    let tokens = tokens(marker);
    let mut at = 0;
    match or_expr(&tokens, &mut at, env) {
        Some(value) if at == tokens.len() => value,
        _ => true,
    }
}

fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
        } else if c == '(' || c == ')' {
            out.push(c.to_string());
            chars.next();
        } else if c == '\'' || c == '"' {
            chars.next();
            let quoted: String = chars.by_ref().take_while(|&q| q != c).collect();
            out.push(format!("'{quoted}"));
        } else if "<>=!~".contains(c) {
            let op: String =
                std::iter::from_fn(|| chars.next_if(|o| "<>=!~".contains(*o))).collect();
            out.push(op);
        } else {
            let word: String = std::iter::from_fn(|| {
                chars.next_if(|w| w.is_alphanumeric() || matches!(w, '_' | '.' | '-'))
            })
            .collect();
            if word.is_empty() {
                chars.next();
            }
            out.push(word);
        }
    }
    out
}

fn or_expr(t: &[String], at: &mut usize, env: &MarkerEnv) -> Option<bool> {
    let mut value = and_expr(t, at, env)?;
    while t.get(*at).map(String::as_str) == Some("or") {
        *at += 1;
        value |= and_expr(t, at, env)?;
    }
    Some(value)
}

fn and_expr(t: &[String], at: &mut usize, env: &MarkerEnv) -> Option<bool> {
    let mut value = atom(t, at, env)?;
    while t.get(*at).map(String::as_str) == Some("and") {
        *at += 1;
        value &= atom(t, at, env)?;
    }
    Some(value)
}

fn atom(t: &[String], at: &mut usize, env: &MarkerEnv) -> Option<bool> {
    if t.get(*at)? == "(" {
        *at += 1;
        let value = or_expr(t, at, env)?;
        (t.get(*at)? == ")").then_some(())?;
        *at += 1;
        return Some(value);
    }
    let left = t.get(*at)?.clone();
    let mut op = t.get(*at + 1)?.clone();
    *at += 2;
    if op == "not" {
        (t.get(*at)? == "in").then_some(())?;
        op = "not in".into();
        *at += 1;
    }
    let right = t.get(*at)?.clone();
    *at += 1;
    let side = |s: &str| match s.strip_prefix('\'') {
        Some(literal) => Some(Some(literal.to_string())),
        None => Some(env.value(s)),
    };
    let (Some(l), Some(r)) = (side(&left)?, side(&right)?) else {
        return Some(true);
    };
    let version = [&left, &right]
        .iter()
        .any(|s| s.starts_with("python_") && s.ends_with("version"));
    Some(compare(&l, &op, &r, version))
}

fn compare(left: &str, op: &str, right: &str, version: bool) -> bool {
    match op {
        "in" => right.contains(left),
        "not in" => !right.contains(left),
        _ if version => compare_versions(left, op, right),
        "==" | "===" => left == right,
        "!=" => left != right,
        _ => true,
    }
}

fn parts(v: &str) -> Vec<u64> {
    v.split('.').map_while(|p| p.parse().ok()).collect()
}

/// `3.11.7 < 3.12`, `== '3.11.*'` (a prefix), `~= 3.10` (at least, same leading part).
fn compare_versions(left: &str, op: &str, right: &str) -> bool {
    if let Some(prefix) = right.strip_suffix(".*") {
        let (l, p) = (parts(left), parts(prefix));
        let matches = l.len() >= p.len() && l[..p.len()] == p[..];
        return if op == "!=" { !matches } else { matches };
    }
    let (l, r) = (parts(left), parts(right));
    let width = l.len().max(r.len());
    let pad = |mut v: Vec<u64>| {
        v.resize(width, 0);
        v
    };
    let order = pad(l.clone()).cmp(&pad(r.clone()));
    match op {
        "==" | "===" => order == Ordering::Equal,
        "!=" => order != Ordering::Equal,
        "<" => order == Ordering::Less,
        "<=" => order != Ordering::Greater,
        ">" => order == Ordering::Greater,
        ">=" => order != Ordering::Less,
        "~=" => {
            order != Ordering::Less && l.len() >= r.len() && l[..r.len() - 1] == r[..r.len() - 1]
        }
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PY311: MarkerEnv = MarkerEnv {
        python: Some((3, 11, 7)),
    };

    #[test]
    fn platform_and_python_markers_read_as_uv_reads_them() {
        assert!(!holds("sys_platform == 'win32'", &PY311));
        assert!(holds("sys_platform != 'win32'", &PY311));
        assert!(holds("python_full_version < '3.12'", &PY311));
        assert!(!holds("python_full_version >= '3.12'", &PY311));
        assert!(holds("python_full_version == '3.11.*'", &PY311));
        assert!(!holds("python_version < '3.11'", &PY311));
        assert!(holds("python_version ~= '3.10'", &PY311));
        assert!(!holds(
            "(platform_python_implementation != 'CPython' and python_full_version < '3.12') or sys_platform == 'darwin'",
            &PY311
        ));
        assert!(holds(
            "sys_platform == 'linux' and python_full_version >= '3.10'",
            &PY311
        ));
        assert!(!holds("'win32' in sys_platform", &PY311));
        assert!(holds("implementation_name not in 'pypy graalpy'", &PY311));
    }

    #[test]
    fn what_is_not_known_counts_the_package() {
        let unknown = MarkerEnv { python: None };
        assert!(holds("python_full_version < '3.11'", &unknown));
        assert!(holds("python_full_version >= '3.11'", &unknown));
        assert!(holds("extra == 'tests'", &PY311));
        assert!(holds("this is ( not a marker", &PY311));
    }
}
