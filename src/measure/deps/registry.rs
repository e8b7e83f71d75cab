//! The one rule a lock entry passes before a sample installs it: it names a registry's tarball
//! and its integrity, in values read from the parsed lock, and each value is of the plain shape
//! a registry writes. A path, a git URL, a tarball elsewhere, or a value that could end the
//! line it is written back into (a quote, a newline, a brace) fails it. The managers' own
//! checks are not the tool's defence: the sample's lock is written from these values alone.

/// A tarball in a registry's layout (`https://registry.npmjs.org/ms/-/ms-2.1.2.tgz`, a mirror's
/// or a company registry's alike): http(s), no credentials, no `..`, the `/-/` folder npm's
/// registry API keeps tarballs in, a `.tgz` file. yarn adds `#<sha1>`.
pub fn is_registry_tarball(url: &str) -> bool {
    let Some(rest) = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))
    else {
        return false;
    };
    let rest = rest.split_once('#').map_or(rest, |(before, hash)| {
        match hash.chars().all(|c| c.is_ascii_hexdigit()) {
            true => before,
            false => "",
        }
    });
    let Some((host, path)) = rest.split_once('/') else {
        return false;
    };
    let host_plain = !host.is_empty()
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':'));
    let path_plain = path.chars().all(|c| {
        c.is_ascii_alphanumeric() || matches!(c, '/' | '@' | '.' | '-' | '_' | '~' | '%' | '+')
    });
    host_plain
        && path_plain
        && !path.split('/').any(|part| part == ".." || part == ".")
        && path.contains("/-/")
        && path.ends_with(".tgz")
}

/// A registry base URL as bun writes it beside a package (empty for the default registry):
/// http(s), a host without credentials, plain characters, no `.` or `..` in its path.
pub fn is_registry_base(url: &str) -> bool {
    if url.is_empty() {
        return true;
    }
    let Some(rest) = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))
    else {
        return false;
    };
    let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
    let plain = |c: char| {
        c.is_ascii_alphanumeric() || matches!(c, ':' | '/' | '.' | '-' | '_' | '~' | '%' | '@')
    };
    !host.is_empty()
        && !host.contains('@')
        && rest.chars().all(plain)
        && !path.split('/').any(|part| part == ".." || part == ".")
}

/// Subresource integrity as locks write it: `sha512-<base64>` (npm, pnpm, yarn, bun), the older
/// `sha1-` too.
pub fn is_integrity(text: &str) -> bool {
    let Some((algorithm, digest)) = text.split_once('-') else {
        return false;
    };
    matches!(algorithm, "sha1" | "sha256" | "sha384" | "sha512")
        && !digest.is_empty()
        && digest.len() <= 128
        && digest
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '='))
}

/// An npm lock's `bin` (`{"name": "path/in/the/package.js"}`) whose names are plain file names
/// and whose paths stay inside the package: npm links `node_modules/.bin/<name>` to each.
pub fn is_plain_bin(bin: &serde_json::Value) -> bool {
    let Some(links) = bin.as_object() else {
        return false;
    };
    links.iter().all(|(name, target)| {
        let plain_name = !name.is_empty()
            && !name.starts_with('.')
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
        let inside = target.as_str().is_some_and(|path| {
            !path.is_empty()
                && !path.starts_with('/')
                && !path.contains('\\')
                && !path.split('/').any(|part| part == "..")
        });
        plain_name && inside
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_registrys_tarball_passes() {
        for url in [
            "https://registry.npmjs.org/ms/-/ms-2.1.2.tgz",
            "https://registry.yarnpkg.com/@s/c/-/c-3.0.0.tgz#0a1b",
            "http://localhost:4873/debug/-/debug-4.3.4.tgz",
            "https://npm.corp.example/artifactory/api/npm/npm/@s%2fc/-/c-1.0.0.tgz",
        ] {
            assert!(is_registry_tarball(url), "{url}");
        }
        for url in [
            "file:../local.tgz",
            "git+https://github.com/a/b.git#abc",
            "https://github.com/a/b/archive/main.tar.gz",
            "https://user:token@registry.npmjs.org/ms/-/ms-2.1.2.tgz",
            "https://registry.npmjs.org/../../ms/-/ms-2.1.2.tgz",
            "https://registry.npmjs.org/ms/-/ms-2.1.2.tgz\"\n  evil",
            "https://registry.npmjs.org/ms/-/ms-2.1.2.tgz#not-a-hash",
            "https://registry.npmjs.org/ms/-/ms 2.tgz",
            "/abs/ms/-/ms-2.1.2.tgz",
            "",
        ] {
            assert!(!is_registry_tarball(url), "{url:?}");
        }
    }

    #[test]
    fn a_registry_base_is_a_plain_url_or_none() {
        assert!(is_registry_base(""));
        assert!(is_registry_base("https://registry.npmjs.org/"));
        assert!(!is_registry_base("file:../x"));
        assert!(!is_registry_base("https://u:p@host/"));
        assert!(!is_registry_base("https://host/a b"));
        assert!(!is_registry_base("https://host/../x"));
        assert!(!is_registry_base("https://host/x/.."));
        assert!(!is_registry_base("https:///x"));
        assert!(is_registry_base("https://npm.corp.example/api/npm/@scope/"));
    }

    #[test]
    fn integrity_is_an_algorithm_and_base64() {
        assert!(is_integrity("sha512-abc+/=="));
        assert!(is_integrity("sha1-Zx0="));
        assert!(!is_integrity("md5-abc"));
        assert!(!is_integrity("sha512-"));
        assert!(!is_integrity("sha512-abc}, tarball: file:x"));
        assert!(!is_integrity("sha512-a\nb"));
    }

    #[test]
    fn a_bin_stays_in_its_package() {
        let bin = |json: &str| serde_json::from_str::<serde_json::Value>(json).unwrap();
        assert!(is_plain_bin(&bin(r#"{"semver": "bin/semver.js"}"#)));
        assert!(!is_plain_bin(&bin(r#"{"../../x": "bin/a.js"}"#)));
        assert!(!is_plain_bin(&bin(r#"{"a": "../../../etc/passwd"}"#)));
        assert!(!is_plain_bin(&bin(r#"{"a": "/abs"}"#)));
        assert!(!is_plain_bin(&bin(r#""bin/a.js""#)));
    }
}
