//! Whether a package a lock names is one a manager installs on this machine. Locks list every
//! platform's packages (`fsevents` for macOS, `@esbuild/win32-x64`): each names the systems it
//! is for (`os`, `cpu`, `libc`) and the manager skips those that exclude this one, so their
//! tarballs are never downloaded and a sample that picked them would fail offline.

/// This machine as npm names it (`process.platform`, `process.arch`): wsl-place runs on Linux.
const OS: &str = "linux";

pub(crate) fn cpu() -> &'static str {
    match std::env::consts::ARCH {
        "x86_64" => "x64",
        "aarch64" => "arm64",
        "x86" => "ia32",
        "powerpc64" => "ppc64",
        "loongarch64" => "loong64",
        other => other,
    }
}

fn libc() -> &'static str {
    if cfg!(target_env = "musl") {
        "musl"
    } else {
        "glibc"
    }
}

/// npm's rule for one field: an empty list allows every value; a value the list negates
/// (`!darwin`) is excluded; a list naming any value plainly allows only those it names.
fn allows(list: &[String], value: &str) -> bool {
    let negated = format!("!{value}");
    if list.contains(&negated) {
        return false;
    }
    let plain = list.iter().filter(|e| !e.starts_with('!')).count();
    plain == 0 || list.iter().any(|e| e == value || e == "any")
}

/// A package whose `os`, `cpu` and `libc` lists all allow this machine.
pub fn allows_here(os: &[String], cpu_list: &[String], libc_list: &[String]) -> bool {
    allows(os, OS) && allows(cpu_list, cpu()) && allows(libc_list, libc())
}

/// An entry of an npm lock (`packages` of package-lock.json or node_modules/.package-lock.json)
/// that this machine installs. From the installed record every entry was placed here; from a
/// lock alone an `optional` entry is left out too: npm marks packages reached only through
/// optional dependencies so (`fsevents`'s `nan`), and whether their parent installs here is
/// not said on their own entry.
pub fn npm_entry_here(entry: &serde_json::Value, installed_record: bool) -> bool {
    let list = |field: &str| -> Vec<String> {
        match entry.get(field) {
            Some(serde_json::Value::Array(items)) => items
                .iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect(),
            Some(serde_json::Value::String(one)) => vec![one.clone()],
            _ => Vec::new(),
        }
    };
    let optional = entry.get("optional").and_then(|v| v.as_bool()) == Some(true);
    (installed_record || !optional) && allows_here(&list("os"), &list("cpu"), &list("libc"))
}

/// A pnpm lock's `packages:` entry (the lines below its key) that this machine installs: its
/// `os: [darwin]`, `cpu: [...]` and `libc: [...]` lines allow it.
pub fn pnpm_entry_here(body: &str) -> bool {
    let list = |field: &str| -> Vec<String> {
        body.lines()
            .find_map(|l| l.trim().strip_prefix(field)?.strip_prefix(':'))
            .map(|items| {
                items
                    .trim()
                    .trim_start_matches('[')
                    .trim_end_matches(']')
                    .split(',')
                    .map(|s| s.trim().trim_matches(['\'', '"']).to_string())
                    .filter(|s| !s.is_empty())
                    .collect()
            })
            .unwrap_or_default()
    };
    allows_here(&list("os"), &list("cpu"), &list("libc"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn another_platforms_package_is_not_installed_here() {
        let entry = |json: &str| serde_json::from_str::<serde_json::Value>(json).unwrap();
        let fsevents = entry(r#"{"version":"2.3.3","optional":true,"os":["darwin"]}"#);
        assert!(!npm_entry_here(&fsevents, true));
        let nan = entry(r#"{"version":"2.30.0","optional":true}"#);
        assert!(
            !npm_entry_here(&nan, false),
            "an optional entry of a lock alone"
        );
        assert!(npm_entry_here(&nan, true), "placed here, so installed here");
        assert!(npm_entry_here(&entry(r#"{"os":["!win32"]}"#), false));
        assert!(!npm_entry_here(&entry(r#"{"os":["!linux"]}"#), false));
        assert!(npm_entry_here(
            &entry(&format!(r#"{{"os":["linux"],"cpu":["{}"]}}"#, cpu())),
            false
        ));
        assert!(!npm_entry_here(&entry(r#"{"cpu":["mips-none"]}"#), false));
        assert!(pnpm_entry_here(
            "    resolution: {integrity: sha512-x}\n    engines: {node: '>=8'}\n"
        ));
        assert!(!pnpm_entry_here(
            "    resolution: {integrity: sha512-x}\n    os: [darwin]\n"
        ));
        assert!(!pnpm_entry_here("    cpu: [mips-none]\n    os: [linux]\n"));
    }
}
