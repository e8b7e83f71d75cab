//! Which tracked files git checks for line endings when it hashes them: what `.gitattributes`
//! (`text`, `eol`, the `binary` macro) and `core.autocrlf` ask for. It costs the first `git
//! status` after a copy, which hashes every file: a file under `text` or `eol` is scanned byte
//! by byte first; one under `text=auto` (or `core.autocrlf` with `text` unspecified) is
//! scanned, and unless the scan finds it binary, its blob in the index is read from the object
//! store too, to see whether that version has CRs (convert.c, `has_crlf_in_index`).
//!
//! The rules are read as git reads them for a path: the built-in `binary` macro, every tracked
//! `.gitattributes` (from the worktree; a deeper one overrides a shallower one), then
//! `$GIT_COMMON_DIR/info/attributes`. Global attribute files (`core.attributesFile`) are not
//! read.

use gix::bstr::{BStr, ByteSlice};
use gix_attributes::search::{MetadataCollection, Outcome};
use gix_attributes::{Search, StateRef};
use std::path::Path;

/// git itself ignores an attributes file larger than this (`ATTR_MAX_FILE_SIZE`, git 2.39).
const ATTRIBUTES_LIMIT: u64 = 100 * 1024 * 1024;

/// What git does to a file's bytes before hashing them, as far as the cost goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Conversion {
    /// Hashed as they are (no text attribute, `-text`, `binary`).
    None,
    /// `text` or `eol` set: scanned for line endings.
    Scan,
    /// `text=auto`, or `core.autocrlf` true or input: scanned, and the index's blob read too.
    ScanAndIndexBlob,
}

/// The attribute rules of one repository, for looking up many paths.
pub struct TextRules {
    search: Search,
    outcome: Outcome,
    autocrlf: bool,
}

impl TextRules {
    /// The rules of the worktree at `worktree`, whose tracked `.gitattributes` files are at
    /// `attribute_files` (slash-separated, relative to the worktree, in any order); `autocrlf`
    /// is `core.autocrlf` as configured. A file that cannot be read counts as empty: git would
    /// fall back to the index's copy, which is almost always the same.
    pub fn new(
        worktree: &Path,
        common_dir: &Path,
        attribute_files: &[&[u8]],
        autocrlf: Option<&str>,
    ) -> Self {
        let mut collection = MetadataCollection::default();
        let mut buf = Vec::new();
        let no_globals: [&Path; 0] = [];
        let mut search =
            Search::new_globals(no_globals, &mut buf, &mut collection).unwrap_or_default();
        // A deeper file overrides a shallower one: later lists are searched first.
        let mut files = attribute_files.to_vec();
        files.sort_by_key(|p| (p.iter().filter(|&&b| b == b'/').count(), p.to_vec()));
        for rel in files {
            let source = worktree.join(rel.to_path_lossy());
            // The fenced reader: a FIFO named `.gitattributes` must not hold the check.
            let bytes =
                crate::base::repo_file::read(worktree, &rel.to_path_lossy(), ATTRIBUTES_LIMIT)
                    .unwrap_or_default();
            // Git takes macro definitions from the top-level file only.
            let top = !rel.contains(&b'/');
            let _ =
                search.add_patterns_buffer(&bytes, source, Some(worktree), &mut collection, top);
        }
        let info = common_dir.join("info").join("attributes");
        let bytes = crate::base::repo_file::read_at(&info, ATTRIBUTES_LIMIT).unwrap_or_default();
        let _ = search.add_patterns_buffer(&bytes, info, None, &mut collection, true);
        let mut outcome = Outcome::default();
        outcome.initialize_with_selection(&collection, ["text", "eol"]);
        let autocrlf = autocrlf
            .is_some_and(|v| v.eq_ignore_ascii_case("true") || v.eq_ignore_ascii_case("input"));
        Self {
            search,
            outcome,
            autocrlf,
        }
    }

    /// What git does to the bytes of the tracked file at `path` (relative to the worktree).
    pub fn conversion(&mut self, path: &BStr) -> Conversion {
        self.outcome.reset();
        self.search.pattern_matching_relative_path(
            path,
            gix::glob::pattern::Case::Sensitive,
            Some(false),
            &mut self.outcome,
        );
        let mut text = StateRef::Unspecified;
        let mut eol_set = false;
        for m in self.outcome.iter_selected() {
            match m.assignment.name.as_str() {
                "text" => text = m.assignment.state,
                "eol" => eol_set = !matches!(m.assignment.state, StateRef::Unspecified),
                _ => {}
            }
        }
        match text {
            StateRef::Set => Conversion::Scan,
            StateRef::Unset => Conversion::None,
            StateRef::Value(v) if v.as_bstr() == "auto" => Conversion::ScanAndIndexBlob,
            // An unknown value is unspecified (convert.c).
            _ if eol_set => Conversion::Scan,
            _ if self.autocrlf => Conversion::ScanAndIndexBlob,
            _ => Conversion::None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(files: &[(&str, &str)], info: Option<&str>, autocrlf: Option<&str>) -> TextRules {
        let dir = tempfile::tempdir().unwrap();
        let common = dir.path().join(".git");
        std::fs::create_dir_all(common.join("info")).unwrap();
        for (rel, text) in files {
            let path = dir.path().join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        if let Some(text) = info {
            std::fs::write(common.join("info/attributes"), text).unwrap();
        }
        let names: Vec<&[u8]> = files.iter().map(|(rel, _)| rel.as_bytes()).collect();
        TextRules::new(dir.path(), &common, &names, autocrlf)
    }

    fn of(r: &mut TextRules, path: &str) -> Conversion {
        r.conversion(path.as_bytes().as_bstr())
    }

    #[test]
    fn text_auto_eol_and_binary_as_git_reads_them() {
        let mut r = rules(
            &[
                (".gitattributes", "* text=auto eol=lf\n*.png binary\n"),
                ("docs/.gitattributes", "*.md text\n*.txt -text\n"),
            ],
            None,
            None,
        );
        assert_eq!(of(&mut r, "src/main.rs"), Conversion::ScanAndIndexBlob);
        assert_eq!(of(&mut r, "img/logo.png"), Conversion::None);
        assert_eq!(of(&mut r, "docs/a.md"), Conversion::Scan);
        assert_eq!(of(&mut r, "docs/a.txt"), Conversion::None);
        // The deeper file applies below its own directory only.
        assert_eq!(of(&mut r, "other/a.md"), Conversion::ScanAndIndexBlob);
    }

    #[test]
    fn eol_alone_means_text_and_autocrlf_fills_in_the_rest() {
        let mut r = rules(&[(".gitattributes", "*.sh eol=lf\n")], None, None);
        assert_eq!(of(&mut r, "a.sh"), Conversion::Scan);
        assert_eq!(of(&mut r, "a.c"), Conversion::None);
        let mut crlf = rules(&[(".gitattributes", "*.bin -text\n")], None, Some("true"));
        assert_eq!(of(&mut crlf, "a.c"), Conversion::ScanAndIndexBlob);
        assert_eq!(of(&mut crlf, "a.bin"), Conversion::None);
        let mut off = rules(&[], None, Some("false"));
        assert_eq!(of(&mut off, "a.c"), Conversion::None);
    }

    #[test]
    fn info_attributes_override_the_tree() {
        let mut r = rules(
            &[(".gitattributes", "* text=auto\n")],
            Some("* -text\n"),
            None,
        );
        assert_eq!(of(&mut r, "a/b.c"), Conversion::None);
    }
}
