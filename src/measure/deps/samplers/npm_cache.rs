//! What npm's cache holds, read from its index without starting npm: a sample that needs a
//! tarball the cache lacks would have npm start, resolve and fail with `ENOTCACHED` (seconds of
//! node, on every first check of another project), where reading the index takes milliseconds.
//!
//! npm keeps its cache with cacache: `<cache>/_cacache/index-v5/` holds one bucket file per
//! key, named by the SHA-256 of the key in hex (its first two digits a folder, the next two
//! another, the rest the file), each line a hash, a tab and a JSON entry `{key, integrity,
//! ...}`; a later line for the same key with a null `integrity` removes it. A tarball npm
//! fetched is keyed `make-fetch-happen:request-cache:<its URL>`, the lock's `resolved`. A
//! tarball added otherwise (`npm cache add`, another registry's URL) is still found offline by
//! its `integrity`: the content itself is at `_cacache/content-v2/<algorithm>/<hex digest>`
//! (split as the index's), so either says the cache holds it.

use crate::base::digest::{base64_decode, hex};
use crate::host::HostEnv;
use std::path::{Path, PathBuf};

/// The key npm's fetcher files a response under.
const KEY_PREFIX: &str = "make-fetch-happen:request-cache:";

/// A bucket larger than this is not read (npm's hold a few entries of a few hundred bytes).
const BUCKET_LIMIT: u64 = 1024 * 1024;

/// npm's cache folder (the one `npm config get cache` names) and its index.
#[derive(Debug, Clone, PartialEq)]
pub struct NpmCache {
    dir: PathBuf,
}

impl NpmCache {
    /// The cache npm reads for this person: `npm_config_cache` in the environment, else the
    /// `cache=` line of `~/.npmrc`, else `~/.npm`. None when that cannot be told without npm
    /// (no home, a setting naming a variable): the sample then runs npm as before.
    pub fn of(env: &HostEnv) -> Option<Self> {
        let home = env.home();
        let set = env
            .var("npm_config_cache")
            .or_else(|| env.var("NPM_CONFIG_CACHE"))
            .map(str::to_string)
            .or_else(|| npmrc_cache(&home.as_ref()?.join(".npmrc")));
        let dir = match set {
            Some(dir) if dir.contains('$') => return None,
            Some(dir) => match dir.strip_prefix("~/") {
                Some(rest) => home?.join(rest),
                None => PathBuf::from(dir),
            },
            None => home?.join(".npm"),
        };
        dir.is_absolute().then_some(Self { dir })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Whether the tarball at `url` with `integrity` (the lock's, `sha512-<base64>`) is in
    /// the cache: its content is there, or its index entry is and was not removed.
    pub fn holds(&self, url: &str, integrity: Option<&str>) -> bool {
        let content = |sri: &str| {
            let (algorithm, digest) = sri.split_once('-')?;
            let hex = base64_decode(digest)
                .filter(|bytes| !bytes.is_empty())
                .map(|bytes| hex(&bytes))?;
            let known = matches!(algorithm, "sha512" | "sha384" | "sha256" | "sha1");
            (known && hex.len() > 4)
                .then(|| split(&self.dir.join("_cacache/content-v2").join(algorithm), &hex))
        };
        let stored = integrity
            .into_iter()
            .flat_map(str::split_whitespace)
            .filter_map(content)
            .any(|path| path.is_file());
        stored || self.indexed(url)
    }

    fn indexed(&self, url: &str) -> bool {
        let key = format!("{KEY_PREFIX}{url}");
        let hash = sha256_hex(key.as_bytes());
        let bucket = split(&self.dir.join("_cacache/index-v5"), &hash);
        let Ok(text) = crate::base::input::read_regular(&bucket, BUCKET_LIMIT, "npm cache index")
        else {
            return false;
        };
        String::from_utf8_lossy(&text)
            .lines()
            .rev()
            .filter_map(|line| {
                let (_, json) = line.split_once('\t')?;
                serde_json::from_str::<serde_json::Value>(json).ok()
            })
            .find(|entry| entry.get("key").and_then(|k| k.as_str()) == Some(key.as_str()))
            .is_some_and(|entry| entry.get("integrity").is_some_and(|i| i.is_string()))
    }
}

/// cacache's path of a hex digest below `dir`: two digits, two more, the rest.
fn split(dir: &Path, hex: &str) -> PathBuf {
    dir.join(&hex[..2]).join(&hex[2..4]).join(&hex[4..])
}

/// The `cache` setting of an `.npmrc` (`cache=/path`, spaces around `=` allowed), its last.
fn npmrc_cache(npmrc: &Path) -> Option<String> {
    let text = std::fs::read_to_string(npmrc).ok()?;
    text.lines()
        .rev()
        .filter_map(|line| {
            let (key, value) = line.split_once('=')?;
            (key.trim() == "cache").then(|| value.trim().trim_matches('"').to_string())
        })
        .find(|value| !value.is_empty())
}

/// The name cacache files an index bucket under: the key's SHA-256, in lowercase hex.
fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    hex(&sha2::Sha256::digest(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bucket_names_are_the_keys_sha256() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    fn env_with(vars: &[(&str, &Path)]) -> HostEnv {
        HostEnv::from_vars(
            vars.iter()
                .map(|(k, v)| (k.to_string(), v.to_string_lossy().into_owned()))
                .collect(),
        )
    }

    #[test]
    fn an_entry_is_found_by_the_hash_of_its_key_until_removed() {
        let home = tempfile::tempdir().unwrap();
        let cache = NpmCache::of(&env_with(&[("HOME", home.path())])).unwrap();
        assert_eq!(cache.dir(), home.path().join(".npm"));
        let url = "https://registry.npmjs.org/pkg-dir/-/pkg-dir-4.2.0.tgz";
        assert!(!cache.holds(url, None));
        // The bucket of this key, as npm 11 filed it.
        let key = format!("{KEY_PREFIX}{url}");
        let hash = sha256_hex(key.as_bytes());
        let bucket = home
            .path()
            .join(".npm/_cacache/index-v5")
            .join(&hash[..2])
            .join(&hash[2..4]);
        std::fs::create_dir_all(&bucket).unwrap();
        let line = |integrity: &str| {
            format!("0000\t{{\"key\":\"{key}\",\"integrity\":{integrity},\"time\":1}}\n")
        };
        let file = bucket.join(&hash[4..]);
        std::fs::write(&file, line("\"sha512-x\"")).unwrap();
        assert!(cache.holds(url, None));
        assert!(!cache.holds("https://registry.npmjs.org/other/-/other-1.0.0.tgz", None));
        std::fs::write(&file, line("\"sha512-x\"") + &line("null")).unwrap();
        assert!(!cache.holds(url, None), "a later null entry removes it");
        // Its content, filed by its digest (as `npm cache add` leaves it), is enough.
        let content = home.path().join(".npm/_cacache/content-v2/sha1/a9/99");
        std::fs::create_dir_all(&content).unwrap();
        std::fs::write(content.join("3e364706816aba3e25717850c26c9cd0d89d"), "abc").unwrap();
        let sha1_of_abc = "sha1-qZk+NkcGgWq6PiVxeFDCbJzQ2J0=";
        assert!(cache.holds(url, Some(&format!("sha512-AAAA {sha1_of_abc}"))));
        assert!(!cache.holds(url, Some("sha1-AAAAAAAAAAAAAAAAAAAAAAAAAAA=")));
    }

    #[test]
    fn the_cache_folder_is_the_one_npm_is_told() {
        let home = tempfile::tempdir().unwrap();
        std::fs::write(
            home.path().join(".npmrc"),
            "registry=x\ncache = ~/elsewhere\n",
        )
        .unwrap();
        let cache = NpmCache::of(&env_with(&[("HOME", home.path())])).unwrap();
        assert_eq!(cache.dir(), home.path().join("elsewhere"));
        let set = Path::new("/var/cache/npm");
        let env = env_with(&[("HOME", home.path()), ("npm_config_cache", set)]);
        assert_eq!(NpmCache::of(&env).unwrap().dir(), set);
        std::fs::write(home.path().join(".npmrc"), "cache=${XDG}/npm\n").unwrap();
        assert_eq!(NpmCache::of(&env_with(&[("HOME", home.path())])), None);
    }
}
