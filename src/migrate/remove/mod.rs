//! `--remove-source`: deletes from the source exactly what the manifest proves was copied, and
//! nothing a later change to either tree could make it reach.
//!
//! Every directory is opened without crossing a symlink ([`dirfd::Fenced`]) on both sides, so a
//! source folder replaced by a link (to the copy, or anywhere else) is kept and listed, never
//! walked into. A source file goes only when, at that moment, it is still the file that was
//! copied (its stat as recorded, or its bytes read again) and its copy at the destination is read
//! back and still has the manifest's CRC32: the manifest alone is a claim, the copy is the proof.

mod history;
mod plan;
mod steps;

pub(super) use steps::{after_finish, after_move};

use crate::base::dirfd::{self, Fenced, FencedDir, Meta};
use crate::base::error::{Failure, Result};
use crate::base::interrupt;
use crate::base::progress::Drawn;
use crate::migrate::kernel::outcome::{KeptWhy, Removal};
use crate::migrate::kernel::{engine::verify, repairs::venvs};
use crate::store::manifest::{self, FileRecord, ManifestEntry};
use rustix::fs::FileType;
use std::collections::{BTreeMap, HashSet};
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// The manifest as a tree of folders, so both sides are walked one open folder at a time.
#[derive(Default)]
struct Folder {
    files: Vec<(OsString, FileRecord)>,
    symlinks: Vec<(OsString, PathBuf)>,
    folders: BTreeMap<OsString, Folder>,
    /// A virtualenv or a folder inside one: its copy was pointed at the destination.
    virtualenv: bool,
}

impl Folder {
    fn at(&mut self, rel: &Path) -> &mut Folder {
        rel.components().fold(self, |folder, c| {
            folder.folders.entry(c.as_os_str().to_owned()).or_default()
        })
    }

    fn build(entries: Vec<ManifestEntry>) -> Folder {
        let mut root = Folder::default();
        for entry in entries {
            match entry {
                ManifestEntry::Dir(rel) => {
                    root.at(&rel);
                }
                ManifestEntry::File(r) => {
                    let (parent, name) = split(&r.rel);
                    root.at(&parent).files.push((name, r));
                }
                ManifestEntry::Symlink { rel, target } => {
                    let (parent, name) = split(&rel);
                    root.at(&parent).symlinks.push((name, target));
                }
            }
        }
        // The root is never a virtualenv's, even holding `pyvenv.cfg`: nothing in it was
        // rewritten (venvs.rs), so every file there keeps the content check.
        for child in root.folders.values_mut() {
            child.mark_virtualenvs(false);
        }
        root
    }

    fn mark_virtualenvs(&mut self, inside: bool) {
        let config = crate::measure::changes::VIRTUALENV_CONFIG;
        self.virtualenv = inside || self.files.iter().any(|(name, _)| name == config);
        for child in self.folders.values_mut() {
            child.mark_virtualenvs(self.virtualenv);
        }
    }
}

fn split(rel: &Path) -> (PathBuf, OsString) {
    let parent = rel.parent().map(Path::to_path_buf).unwrap_or_default();
    (parent, rel.file_name().unwrap_or_default().to_owned())
}

/// Deletes from `source` only the entries the manifest lists that still match it and whose copy
/// under `destination` still matches it too; directories only when empty. Then says what is
/// left and why.
pub fn remove_source(
    source: &Path,
    destination: &Path,
    (manifest, git): (&Path, &[crate::migrate::kernel::outcome::GitFolder]),
    bar: &Drawn,
) -> Result<Removal> {
    let entries = manifest_of(source, manifest)?;
    let listed: HashSet<PathBuf> = entries.iter().map(|e| e.rel().to_path_buf()).collect();
    // Each `.git` is removed or kept whole, apart from the walk of the rest.
    let units: Vec<&Path> = git.iter().map(|g| g.path.as_path()).collect();
    let tree = Folder::build(
        entries
            .into_iter()
            .filter(|e| !units.iter().any(|u| e.rel().starts_with(u)))
            .collect(),
    );
    let src = Fenced::root(source).map_err(|e| {
        Failure::input(format!(
            "cannot open the source {} as a folder without following links ({e}); nothing was deleted.",
            source.display()
        ))
    })?;
    let dst = Fenced::root(destination).map_err(|e| {
        Failure::would_lose_data(format!(
            "cannot open the copy {} as a folder without following links ({e}); nothing in the source was deleted.",
            destination.display()
        ))
    })?;
    let mut removal = Removal {
        bar: Some(bar.clone()),
        ..Removal::default()
    };
    let destination_forms: Vec<Vec<u8>> = venvs::rewrites(source, destination)
        .into_iter()
        .map(|r| r.new)
        .collect();
    let interrupted = || interrupted(source, destination);
    removal.folder(&src, &dst, &tree, (Path::new(""), &destination_forms));
    interrupt::check("").map_err(|_| interrupted())?;
    // `.git` last: until the work tree is gone the old place is still a repository, and git
    // there tells what an interrupted removal left.
    for unit in git {
        removal.git_folder(source, destination, unit);
        interrupt::check("").map_err(|_| interrupted())?;
    }
    removal.bar = None;
    match dirfd::rmdir(source) {
        // Counted apart: the plan's folders are those inside it.
        Ok(()) => removal.removed_source_folder = true,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(_) => {
            leftovers(source, (&listed, &units), &mut removal);
            let repository = dirfd::lstat(&source.join(".git")).is_ok();
            removal.plain_folder = (!repository).then(|| history::remove_command(source));
        }
    }
    Ok(removal)
}

/// Ctrl-C stopped the removal: what it did is in the copy, and the command that finishes it.
fn interrupted(source: &Path, destination: &Path) -> Failure {
    let resume =
        crate::migrate::kernel::engine::staging::command(source, destination, " --remove-source");
    Failure::interrupted(&format!(
        "the copy holds everything removed so far, and the rest is still at the old place; finish the removal with `{resume}`"
    ))
}

/// The manifest's entries, read in full: a manifest cut short, or of another source, deletes
/// nothing.
fn manifest_of(source: &Path, manifest: &Path) -> Result<Vec<ManifestEntry>> {
    let text = std::fs::read_to_string(manifest)
        .map_err(|e| Failure::io("read the manifest", manifest, &e))?;
    let (listed_source, entries) = manifest::parse_manifest(&text).ok_or_else(|| {
        Failure::internal(format!(
            "{} is not a complete wsl-place manifest, so nothing in the source was deleted.",
            manifest.display()
        ))
    })?;
    if listed_source != source {
        return Err(Failure::would_lose_data(format!(
            "{} describes a copy of {}, not of {}; nothing was deleted.",
            manifest.display(),
            listed_source.display(),
            source.display()
        )));
    }
    Ok(entries)
}

/// The walk over both trees, keeping its counts and what it keeps as it goes.
impl Removal {
    /// A repository's `.git`: kept whole when the plan kept it, for the plan's reason; else
    /// removed whole once git shows again, now, that its history is in the copy.
    fn git_folder(
        &mut self,
        source: &Path,
        destination: &Path,
        unit: &crate::migrate::kernel::outcome::GitFolder,
    ) {
        self.tick();
        let rel = unit.path.as_path();
        let parent = rel.parent().unwrap_or(Path::new(""));
        let sync = crate::migrate::kernel::engine::staging::command(source, destination, " --sync");
        let kept = unit.kept.clone().or_else(|| {
            history::kept_why(
                source,
                &source.join(parent),
                &destination.join(parent),
                &sync,
            )
        });
        let mut done = unit.clone();
        // A Ctrl-C that stopped git's check is the person's, not git's answer: nothing is kept
        // for it, and the caller stops with the removal unfinished.
        if interrupt::requested() {
            return;
        }
        if let Some(why) = &kept {
            self.keep(rel, KeptWhy::KeptWhole(why.clone()));
        } else if let Err(e) =
            fenced_parent(source, parent).and_then(|()| dirfd::remove_all(&source.join(rel)))
        {
            let why = format!(
                "could not be removed whole ({e}); what is left of it is no repository: rm -r -- {}",
                crate::base::pathtext::shell_quote(&source.join(rel))
            );
            self.keep(rel, KeptWhy::GitNotRemoved(why.clone()));
            done.kept = Some(why);
        }
        done.kept = done.kept.or(kept);
        self.git.push(done);
    }

    /// One manifest folder: its files and links, then its subfolders, each removed once empty.
    /// Descriptors are closed before descending, so only the anchors stay open.
    /// `forms` are the destination's spellings a virtualenv's rewritten files hold.
    fn folder(
        &mut self,
        src: &Fenced,
        dst: &Fenced,
        folder: &Folder,
        (rel, forms): (&Path, &[Vec<u8>]),
    ) {
        let Some((src_dir, dst_dir)) = self.open_both(src, dst, rel) else {
            return;
        };
        let rewritten_to = folder.virtualenv.then_some(forms);
        for (name, record) in &folder.files {
            if interrupt::requested() {
                return;
            }
            self.file(&src_dir, &dst_dir, name, record, rewritten_to);
        }
        for (name, target) in &folder.symlinks {
            if interrupt::requested() {
                return;
            }
            self.symlink(&src_dir, &dst_dir, name, target, &rel.join(name));
        }
        if folder.folders.is_empty() || interrupt::requested() {
            return;
        }
        let (Ok(src_base), Ok(dst_base)) = (src.base(&src_dir), dst.base(&dst_dir)) else {
            self.keep(rel, KeptWhy::OutOfDescriptors);
            return;
        };
        drop((src_dir, dst_dir));
        for (name, child) in &folder.folders {
            self.folder(
                &src_base.child(name),
                &dst_base.child(name),
                child,
                (&rel.join(name), forms),
            );
        }
        // Opened again to remove what was emptied: holding it across the descent would cost one
        // descriptor per level.
        let Ok(src_dir) = src.open() else {
            return;
        };
        for name in folder.folders.keys() {
            if interrupt::requested() {
                return;
            }
            self.tick();
            // A link or file now in a folder's place fails here (ENOTDIR) and was listed above.
            if src_dir.rmdir(name).is_ok() {
                self.removed_dirs += 1;
            }
        }
    }

    fn open_both(
        &mut self,
        src: &Fenced,
        dst: &Fenced,
        rel: &Path,
    ) -> Option<(FencedDir, FencedDir)> {
        let src_dir = match src.open() {
            Ok(dir) => dir,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
            Err(e) => {
                self.keep(rel, not_a_folder_now(src, &e, false));
                return None;
            }
        };
        match dst.open() {
            Ok(dst_dir) => Some((src_dir, dst_dir)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                self.keep(rel, KeptWhy::CopyFolderGone);
                None
            }
            Err(e) => {
                self.keep(rel, not_a_folder_now(dst, &e, true));
                None
            }
        }
    }

    /// A manifest file: removed only when both the source file and its copy are proven to hold
    /// the bytes the manifest records.
    fn file(
        &mut self,
        src: &FencedDir,
        dst: &FencedDir,
        name: &OsStr,
        r: &FileRecord,
        rewritten_to: Option<&[Vec<u8>]>,
    ) {
        self.tick();
        let rel = &r.rel;
        let meta = match src.lstat(name) {
            Ok(meta) => meta,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return,
            Err(e) => return self.keep(rel, KeptWhy::CannotExamine(e.to_string())),
        };
        if !meta.is_file() {
            return self.keep(rel, KeptWhy::ChangedKind(meta.file_type()));
        }
        if meta.len() != r.size {
            return self.keep(rel, KeptWhy::SizeDiffers);
        }
        let by_stat = r.unchanged_on_disk(&meta);
        if !by_stat {
            match crc_at(src, name) {
                Ok((size, crc, _)) if size == r.size && crc == r.crc32 => {}
                Ok(_) => {
                    return self.keep(rel, KeptWhy::ContentDiffers);
                }
                Err(e) => {
                    return self.keep(rel, KeptWhy::CannotCompare(e.to_string()));
                }
            }
        }
        if let Err(why) = copy_holds(dst, name, r, &meta, rewritten_to) {
            return self.keep(rel, why);
        }
        self.copies_read_back += 1;
        match src.unlink(name) {
            Ok(()) => {
                self.removed_files += 1;
                if by_stat {
                    self.proven_by_stat += 1;
                } else {
                    self.proven_by_reading += 1;
                }
            }
            Err(e) => self.keep(rel, KeptWhy::NotRemoved(e.to_string())),
        }
    }

    fn symlink(
        &mut self,
        src: &FencedDir,
        dst: &FencedDir,
        name: &OsStr,
        target: &Path,
        rel: &Path,
    ) {
        self.tick();
        match src.read_link(name) {
            Ok(now) if now == target => {}
            Ok(_) => {
                return self.keep(rel, KeptWhy::PointsElsewhere);
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return,
            Err(_) => {
                let kind = src.lstat(name).map_or(FileType::Unknown, |m| m.file_type());
                return self.keep(rel, KeptWhy::ChangedKind(kind));
            }
        }
        if dst.read_link(name).ok().as_deref() != Some(target) {
            return self.keep(rel, KeptWhy::LinkCopyGone);
        }
        match src.unlink(name) {
            Ok(()) => self.removed_symlinks += 1,
            Err(e) => self.keep(rel, KeptWhy::NotRemoved(e.to_string())),
        }
    }
}

/// Whether the copy at the destination still holds what the manifest records for `r`, read back
/// now. The files the fix-ups rewrite after the copy (git's index, config and gitdir links) only
/// have to be there: their new content is the point of the fix-up. A virtualenv's file
/// (`rewritten_to`: the destination's spellings) may differ only by that rewrite, so a copy that
/// differs must name the destination: one emptied or edited at the copy (a file git tracks
/// there is never rewritten) leaves the source's the only copy of what was copied.
fn copy_holds(
    dst: &FencedDir,
    name: &OsStr,
    r: &FileRecord,
    source: &Meta,
    rewritten_to: Option<&[Vec<u8>]>,
) -> std::result::Result<(), KeptWhy> {
    let (size, crc, meta) = crc_at(dst, name).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => KeptWhy::CopyGone,
        _ => KeptWhy::CopyUnreadable(e.to_string()),
    })?;
    if (meta.dev(), meta.ino()) == (source.dev(), source.ino()) {
        return Err(KeptWhy::CopyIsSource);
    }
    if rewritten_by_fixups(&r.rel) || (size == r.size && crc == r.crc32) {
        return Ok(());
    }
    match rewritten_to {
        Some(forms) if names_any(dst, name, forms) => Ok(()),
        _ => Err(KeptWhy::CopyChanged),
    }
}

/// Whether the file `name` in `dir` holds one of `forms` as a whole path.
fn names_any(dir: &FencedDir, name: &OsStr, forms: &[Vec<u8>]) -> bool {
    use std::io::Read;
    let Ok((file, _)) = dir.open_file(name) else {
        return false;
    };
    let mut text = Vec::new();
    if file
        .take(VIRTUALENV_TEXT_LIMIT)
        .read_to_end(&mut text)
        .is_err()
    {
        return false;
    }
    forms
        .iter()
        .any(|form| venvs::find_path(&text, form, 0, false).is_some())
}

/// Bytes of a virtualenv's file read to find the destination in it: its rewritten text files
/// (scripts, `activate`, `.pth`, `RECORD`) are far smaller.
const VIRTUALENV_TEXT_LIMIT: u64 = 16 * 1024 * 1024;

/// git's metadata that the fix-ups rewrite in the copy: the index (refreshed), `.git/config`
/// (Windows-clone settings), and the gitdir links of worktrees and submodules.
pub(super) fn rewritten_by_fixups(rel: &Path) -> bool {
    let names: Vec<&[u8]> = rel.components().map(|c| c.as_os_str().as_bytes()).collect();
    let Some((&last, parents)) = names.split_last() else {
        return false;
    };
    if last == b".git" {
        return true;
    }
    let in_git = parents.iter().any(|&n| n == b".git");
    in_git && matches!(last, b"index" | b"config" | b"gitdir" | b"commondir")
}

fn crc_at(dir: &FencedDir, name: &OsStr) -> std::io::Result<(u64, u32, Meta)> {
    let (file, meta) = dir.open_file(name)?;
    let (size, crc) = verify::crc_of_reader(file)?;
    Ok((size, crc, meta))
}

/// Why a folder (with `copy`, its copy at the destination) that would not open is kept: it is
/// something else now, or it cannot be opened.
fn not_a_folder_now(place: &Fenced, e: &std::io::Error, copy: bool) -> KeptWhy {
    match place.lstat().map(|m| m.file_type()) {
        Ok(FileType::Directory) | Err(_) => KeptWhy::CannotOpen {
            copy,
            error: e.to_string(),
        },
        Ok(what_now) => KeptWhy::NotAFolderNow { copy, what_now },
    }
}

/// Lists what the removal left in the source and was never in the manifest, each with why: a
/// folder nothing of which was copied once (not walked into: a `node_modules` left behind can
/// hold a hundred thousand files on a slow mount). Walked through open directories, so a tree
/// past PATH_MAX is listed too.
fn leftovers(source: &Path, known: Known, removal: &mut Removal) {
    if let Ok(root) = dirfd::Place::root(source) {
        leftovers_in(&root, Path::new(""), known, removal);
    }
}

/// The manifest's paths, and the `.git` folders said for whole (never listed inside).
type Known<'a> = (&'a HashSet<PathBuf>, &'a [&'a Path]);

/// The folders between the source and `parent` are folders still, not links: a `.git` is
/// removed by its path only where that path leads where it led.
fn fenced_parent(source: &Path, parent: &Path) -> std::io::Result<()> {
    let root = Fenced::root(source)?;
    let at = parent
        .components()
        .fold(root, |f, c| f.child(c.as_os_str()));
    at.open().map(drop)
}

fn leftovers_in(place: &dirfd::Place, rel: &Path, known: Known, removal: &mut Removal) {
    let (listed, units) = known;
    let Ok((mut dir, base)) = place.enter() else {
        return;
    };
    let mut names = Vec::new();
    while let Some(Ok(entry)) = dir.read() {
        let name = OsStr::from_bytes(entry.file_name().to_bytes()).to_os_string();
        if name == "." || name == ".." {
            continue;
        }
        let kind = match entry.file_type() {
            FileType::Unknown => dir
                .fd()
                .ok()
                .and_then(|fd| dirfd::lstat_in(fd, &name).ok())
                .map_or(FileType::Unknown, |m| m.file_type()),
            kind => kind,
        };
        names.push((name, kind));
    }
    // Closed before descending: open descriptors stay bounded however deep the tree.
    drop(dir);
    names.sort_by(|a, b| a.0.cmp(&b.0));
    for (name, kind) in names {
        let child = rel.join(&name);
        // Manifest entries still here were kept above, with their reasons; a listed folder
        // still here holds something that was not.
        if units.contains(&child.as_path()) {
            continue;
        }
        if listed.contains(&child) {
            if kind == FileType::Directory {
                leftovers_in(&base.child(&name), &child, known, removal);
            }
            continue;
        }
        removal.keep(&child, never_copied(&name, kind));
    }
}

fn never_copied(name: &OsStr, kind: FileType) -> KeptWhy {
    let name = name.as_bytes();
    match kind {
        FileType::Directory if name == b"node_modules" => KeptWhy::NodeModulesNeverCopied,
        FileType::Directory if crate::measure::probe::scratch::is_scratch_name(name) => {
            KeptWhy::ProbeScratch
        }
        FileType::Fifo | FileType::Socket | FileType::BlockDevice | FileType::CharacterDevice => {
            KeptWhy::NeverCopied(kind)
        }
        FileType::Directory => KeptWhy::NotInManifest { folder: true },
        _ => KeptWhy::NotInManifest { folder: false },
    }
}
