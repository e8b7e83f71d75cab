//! `/proc/self/mountinfo`: parsing, classification, and finding the mount under a path.
//!
//! Pure functions over text and paths; the file itself is read by the caller through
//! [`crate::host::HostEnv`].

use serde::{Deserialize, Serialize};
use std::ffi::OsString;
use std::fmt;
use std::os::unix::ffi::OsStringExt;
use std::path::{Component, Path, PathBuf};

/// One line of mountinfo, unescaped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MountEntry {
    pub id: u32,
    pub parent_id: u32,
    pub device: String,
    /// The directory of the source file system that is mounted here (not `/` for bind mounts).
    pub root: String,
    pub mount_point: PathBuf,
    pub mount_options: String,
    pub optional_fields: Vec<String>,
    pub fstype: String,
    pub source: String,
    pub super_options: String,
    /// The `\\server\share` Windows maps this mount's drive letter to, when it is a mapped
    /// network drive: mountinfo cannot tell, so the host facts fill it in (see
    /// `MountTable::mount_for`).
    pub mapped_share: Option<String>,
    /// What WSL's record of a virtiofs tag says: mountinfo shows only the tag, a GUID since WSL
    /// 2.7.1, so the host facts fill it in (see `virtiofs::resolve`).
    pub virtiofs_drive: Option<VirtiofsDrive>,
}

/// The Windows folder behind a WSL virtiofs mount, from WSL's record of its tag.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VirtiofsDrive {
    /// The tag stands for `windows` (`C:\`, `\\server\share`); `below` is the folder of it
    /// mounted here: the mount's root, less the `/<GUID>` that names the drive in the
    /// aggregate form (one `drvfsa` device bound to every drive).
    Known { windows: String, below: String },
    /// A WSL host that keeps no record of `tag`: still a Windows drive (WSL mounts nothing
    /// else over virtiofs), but which one is unknown.
    Unknown { tag: String },
    /// The record of `tag` leads to `target`, which is not a Windows path (a person's own
    /// link to `/mnt/c`): named, and not used as one.
    NotWindows { tag: String, target: String },
}

/// A mountinfo line that could not be understood.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub line: usize,
    pub reason: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.reason)
    }
}

/// Undoes the kernel's octal escapes (`\040` space, `\011` tab, `\012` newline, `\134` backslash).
/// A backslash not followed by three octal digits is kept as it is.
pub fn unescape(field: &str) -> String {
    String::from_utf8_lossy(&unescape_bytes(field.as_bytes())).into_owned()
}

/// [`unescape`] on raw bytes: mount points are bytes, and need not be UTF-8.
pub fn unescape_bytes(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\'
            && i + 3 < bytes.len()
            && bytes[i + 1..=i + 3]
                .iter()
                .all(|b| (b'0'..=b'7').contains(b))
        {
            let value = (bytes[i + 1] - b'0') as u32 * 64
                + (bytes[i + 2] - b'0') as u32 * 8
                + (bytes[i + 3] - b'0') as u32;
            if let Ok(byte) = u8::try_from(value) {
                out.push(byte);
                i += 4;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    out
}

/// Parses a whole mountinfo file, for the tests' fixtures written as text.
#[cfg(test)]
pub fn parse(text: &str) -> Result<Vec<MountEntry>, ParseError> {
    parse_bytes(text.as_bytes())
}

/// Parses mountinfo as the kernel writes it: bytes. A mount point that is not UTF-8 (anywhere on
/// the machine) is kept exactly; the other text fields are read lossily, as nothing matches on
/// their odd bytes.
pub fn parse_bytes(text: &[u8]) -> Result<Vec<MountEntry>, ParseError> {
    text.split(|b| *b == b'\n')
        .map(|line| line.strip_suffix(b"\r").unwrap_or(line))
        .enumerate()
        .filter(|(_, line)| !line.trim_ascii().is_empty())
        .map(|(index, line)| parse_line(line, index + 1))
        .collect()
}

fn lossy(field: &[u8]) -> String {
    String::from_utf8_lossy(&unescape_bytes(field)).into_owned()
}

fn parse_line(line: &[u8], number: usize) -> Result<MountEntry, ParseError> {
    let fail = |reason: String| ParseError {
        line: number,
        reason,
    };
    let fields: Vec<&[u8]> = line
        .split(|b| *b == b' ')
        .filter(|f| !f.is_empty())
        .collect();
    let separator = separator_of(&fields).map_err(fail)?;
    let shown = |index: usize| String::from_utf8_lossy(fields[index]).into_owned();
    let number_field = |index: usize, what: &str| {
        std::str::from_utf8(fields[index])
            .ok()
            .and_then(|f| f.parse::<u32>().ok())
            .ok_or_else(|| fail(format!("{what} {:?} is not a number", shown(index))))
    };
    let id = number_field(0, "mount id")?;
    let parent_id = number_field(1, "parent id")?;
    if !is_device(fields[2]) {
        return Err(fail(format!(
            "device {:?} is not of the form major:minor",
            shown(2)
        )));
    }
    let mount_point = PathBuf::from(OsString::from_vec(unescape_bytes(fields[4])));
    if !mount_point.is_absolute() {
        return Err(fail(format!(
            "mount point {:?} is not an absolute path",
            mount_point.to_string_lossy()
        )));
    }
    Ok(MountEntry {
        id,
        parent_id,
        device: shown(2),
        root: lossy(fields[3]),
        mount_point,
        mount_options: shown(5),
        optional_fields: (6..separator).map(shown).collect(),
        fstype: lossy(fields[separator + 1]),
        source: lossy(fields[separator + 2]),
        // Super options may in theory contain spaces only escaped; join defensively.
        super_options: lossy(&fields[separator + 3..].join(&b' ')),
        mapped_share: None,
        virtiofs_drive: None,
    })
}

/// Where the ` - ` separator is among a line's fields, checked against the fields each side of
/// it must have; Err: what is missing.
fn separator_of(fields: &[&[u8]]) -> Result<usize, String> {
    let separator = fields.iter().position(|f| *f == b"-").ok_or_else(|| {
        "no ' - ' separator between the mount fields and the file system fields".to_string()
    })?;
    if separator < 6 {
        return Err(format!(
            "expected at least 6 fields before ' - ', found {separator}"
        ));
    }
    if fields.len() < separator + 3 {
        return Err("expected file system type, source and super options after ' - '".into());
    }
    Ok(separator)
}

/// A device field of the form `major:minor`, both numbers.
fn is_device(field: &[u8]) -> bool {
    let is_number = |part: &[u8]| !part.is_empty() && part.iter().all(u8::is_ascii_digit);
    field
        .split(|b| *b == b':')
        .map(is_number)
        .collect::<Vec<_>>()
        == [true, true]
}

/// The categories that decide placement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MountKind {
    #[serde(rename = "wsl-drvfs-9p")]
    WslDrvfs9p,
    WslDrvfsVirtiofs,
    Wsl1Drvfs,
    /// WSL 1's own Linux file system (`lxfs`, later `wslfs`): files kept in NTFS by Windows.
    Wsl1Lxfs,
    Local,
    Tmpfs,
    Network,
    Fuse,
    Overlay,
    Other,
}

impl MountKind {
    pub fn as_str(self) -> &'static str {
        match self {
            MountKind::WslDrvfs9p => "wsl-drvfs-9p",
            MountKind::WslDrvfsVirtiofs => "wsl-drvfs-virtiofs",
            MountKind::Wsl1Drvfs => "wsl1-drvfs",
            MountKind::Wsl1Lxfs => "wsl1-lxfs",
            MountKind::Local => "local",
            MountKind::Tmpfs => "tmpfs",
            MountKind::Network => "network",
            MountKind::Fuse => "fuse",
            MountKind::Overlay => "overlay",
            MountKind::Other => "other",
        }
    }

    /// A Windows drive reached through WSL (drvfs); network shares are [`MountKind::Network`].
    pub fn is_windows_drive(self) -> bool {
        matches!(
            self,
            MountKind::WslDrvfs9p | MountKind::WslDrvfsVirtiofs | MountKind::Wsl1Drvfs
        )
    }

    /// Every file operation is a round trip to another machine or process: a Windows drive,
    /// a network share or a FUSE file system.
    pub fn is_remote(self) -> bool {
        self.is_windows_drive() || matches!(self, MountKind::Network | MountKind::Fuse)
    }

    pub fn describe(self) -> &'static str {
        match self {
            MountKind::WslDrvfs9p => "a Windows drive reached over 9p (DrvFs)",
            MountKind::WslDrvfsVirtiofs => "a Windows drive reached over virtiofs",
            MountKind::Wsl1Drvfs => "a Windows drive (WSL 1 DrvFs)",
            MountKind::Wsl1Lxfs => "WSL 1's Linux file system, itself stored on NTFS",
            MountKind::Local => "a local disk file system",
            MountKind::Tmpfs => "memory (tmpfs): fast, but gone at reboot",
            MountKind::Network => "a network file system",
            MountKind::Fuse => "a FUSE file system",
            MountKind::Overlay => "an overlay file system (container layer)",
            MountKind::Other => "an unrecognised file system",
        }
    }
}

impl fmt::Display for MountKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

const LOCAL_FSTYPES: &[&str] = &[
    "ext2", "ext3", "ext4", "xfs", "btrfs", "zfs", "f2fs", "jfs", "reiserfs", "bcachefs", "nilfs2",
    "vfat", "exfat", "ntfs3", "hfsplus", "apfs",
];
const NETWORK_FSTYPES: &[&str] = &[
    "nfs",
    "nfs4",
    "cifs",
    "smb3",
    "smbfs",
    "ceph",
    "glusterfs",
    "afs",
    "lustre",
    "gpfs",
    "beegfs",
    "davfs",
    "fuse.sshfs",
    "fuse.rclone",
    "fuse.s3fs",
    "fuse.gcsfuse",
    "fuse.glusterfs",
    "fuse.davfs2",
];

impl MountEntry {
    /// The same mount as `other`: same mount point, source and file-system type.
    pub fn is_same_mount(&self, other: &MountEntry) -> bool {
        self.mount_point == other.mount_point
            && self.source == other.source
            && self.fstype == other.fstype
    }

    /// The `aname=` of a 9p mount, and the `;`-separated options that follow it in one field.
    fn ninep_aname(&self) -> Option<(&str, Vec<(&str, &str)>)> {
        let field = self
            .super_options
            .split(',')
            .find(|o| o.starts_with("aname="))?;
        let mut parts = field["aname=".len()..].split(';');
        let aname = parts.next().unwrap_or_default();
        let extra = parts.filter_map(|p| p.split_once('=')).collect();
        Some((aname, extra))
    }

    /// Any of WSL's ways to show a Windows folder: 9p with `aname=drvfs`, virtiofs from
    /// `drvfs*`, WSL 1's `drvfs`. Network shares mounted this way are drvfs too.
    pub fn is_drvfs(&self) -> bool {
        match self.fstype.as_str() {
            "9p" => matches!(self.ninep_aname(), Some(("drvfs", _))),
            "virtiofs" => {
                self.virtiofs_drive.is_some()
                    || self.source.to_ascii_lowercase().starts_with("drvfs")
            }
            "drvfs" => true,
            _ => false,
        }
    }

    /// The `\\server\share` a drvfs mount shows, when it is a network share: WSL 2 records
    /// `path=UNC\server\share` (and the source `\\server\share`), WSL 1 only the source.
    pub fn unc_share(&self) -> Option<String> {
        if !self.is_drvfs() {
            return None;
        }
        let from_path = self.drvfs_option("path").and_then(|p| {
            let head = p.get(..4)?;
            head.eq_ignore_ascii_case("UNC\\")
                .then(|| format!("\\\\{}", &p[4..]))
        });
        let recorded = match &self.virtiofs_drive {
            Some(VirtiofsDrive::Known { windows, .. }) => Some(windows.clone()),
            _ => None,
        };
        from_path
            .or_else(|| Some(self.source.clone()).filter(|s| s.starts_with("\\\\")))
            .or_else(|| recorded.filter(|s| s.starts_with("\\\\")))
            .map(|share| share.trim_end_matches('\\').to_string())
            .filter(|share| share.len() > 2)
    }

    /// A drvfs option such as `path=`, whether it sits in a 9p `aname=` field or stands alone.
    pub fn drvfs_option(&self, key: &str) -> Option<String> {
        if let Some((_, extra)) = self.ninep_aname()
            && let Some((_, value)) = extra.iter().find(|(k, _)| *k == key)
        {
            return Some(value.to_string());
        }
        self.super_options
            .split(',')
            .filter_map(|o| o.split_once('='))
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.to_string())
    }

    /// The drive letter a drvfs mount of a Windows drive shows (`Z` for `path=Z:\`); None for
    /// network shares and anything else.
    pub fn drive_letter(&self) -> Option<char> {
        if !self.is_drvfs() || self.unc_share().is_some() {
            return None;
        }
        self.drive_root().and_then(|root| root.chars().next())
    }

    /// `X:\...` from WSL's record of a virtiofs tag, else the `path=` option, else the source,
    /// else a `/mnt/<letter>` mount point; None for a virtiofs tag WSL has no record of.
    fn drive_root(&self) -> Option<String> {
        let drive = |s: &str| {
            let b = s.as_bytes();
            (b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':')
                .then(|| format!("{}\\{}", &s[..2], s[2..].trim_start_matches('\\')))
        };
        match &self.virtiofs_drive {
            Some(VirtiofsDrive::Known { windows, .. }) => return drive(windows),
            Some(VirtiofsDrive::Unknown { .. } | VirtiofsDrive::NotWindows { .. }) => return None,
            None => {}
        }
        self.drvfs_option("path")
            .and_then(|p| drive(&p))
            .or_else(|| drive(&self.source))
            .or_else(|| {
                let letter =
                    virtiofs_tag_letter(&self.source).filter(|_| self.fstype == "virtiofs");
                letter.map(|letter| format!("{letter}:\\"))
            })
            .or_else(|| {
                let name = self.mount_point.file_name()?.to_str()?;
                let parent = self.mount_point.parent()?;
                (name.len() == 1
                    && name.as_bytes()[0].is_ascii_alphabetic()
                    && parent == Path::new("/mnt"))
                .then(|| format!("{}:\\", name.to_ascii_uppercase()))
            })
    }

    /// Why this Windows drive's letter is unknown, in one sentence: WSL keeps no record of its
    /// virtiofs tag. None for every other mount.
    pub fn unknown_drive_note(&self) -> Option<String> {
        match &self.virtiofs_drive {
            Some(VirtiofsDrive::Unknown { tag }) => Some(format!(
                "a Windows drive over virtiofs, but WSL keeps no record of its tag {tag} (/run/wsl/virtiofs/{tag}), so its drive letter is unknown"
            )),
            Some(VirtiofsDrive::NotWindows { tag, target }) => Some(format!(
                "a Windows drive over virtiofs, but the record of its tag (/run/wsl/virtiofs/{tag}) leads to {}, not a Windows folder, so its drive letter is unknown",
                crate::base::pathtext::display(Path::new(target))
            )),
            _ => None,
        }
    }

    pub fn kind(&self) -> MountKind {
        let fstype = self.fstype.as_str();
        if self.unc_share().is_some() || self.mapped_share.is_some() {
            // A Windows network share, however WSL reaches it: its latency is the network's.
            return MountKind::Network;
        }
        match fstype {
            "9p" if self.is_drvfs() => MountKind::WslDrvfs9p,
            // WSL's own 9p shares (aname=drivers, /usr/lib/wsl/...) and other 9p exports.
            "9p" => MountKind::Other,
            "virtiofs" if self.is_drvfs() => MountKind::WslDrvfsVirtiofs,
            "drvfs" => MountKind::Wsl1Drvfs,
            "lxfs" | "wslfs" => MountKind::Wsl1Lxfs,
            "tmpfs" | "ramfs" => MountKind::Tmpfs,
            "overlay" | "overlayfs" | "aufs" => MountKind::Overlay,
            _ if LOCAL_FSTYPES.contains(&fstype) => MountKind::Local,
            _ if NETWORK_FSTYPES.contains(&fstype) => MountKind::Network,
            _ if fstype == "fuse" || fstype == "fuseblk" || fstype.starts_with("fuse.") => {
                MountKind::Fuse
            }
            _ => MountKind::Other,
        }
    }

    /// The Windows folder this drvfs mount shows: `C:\\` or `\\\\server\\share`.
    ///
    /// Taken from the `path=` option; WSL 1 and virtiofs captures may lack it, then the source
    /// (`C:\\`, `C:`, `\\\\server\\share`) or, last, a `/mnt/<letter>` mount point is used. A
    /// mapped network drive gives its share instead of its letter.
    pub fn windows_root(&self) -> Option<String> {
        if !self.is_drvfs() {
            return None;
        }
        let base = match (self.unc_share(), &self.mapped_share) {
            (Some(share), _) => share,
            // A mapped drive's folders are the share's: `Z:\team` is `\\server\share\team`.
            (None, Some(share)) => {
                let on_drive = self.drive_root()?;
                let mut path = share.trim_end_matches('\\').to_string();
                for part in on_drive[2..].split('\\').filter(|p| !p.is_empty()) {
                    push_windows_component(&mut path, part);
                }
                path
            }
            (None, None) => self.drive_root()?,
        };
        let mut root = base;
        // A bind of a sub-folder of the drive: mountinfo's root field names it.
        let below = match &self.virtiofs_drive {
            Some(VirtiofsDrive::Known { below, .. }) => below,
            _ => &self.root,
        };
        for part in below.split('/').filter(|p| !p.is_empty()) {
            push_windows_component(&mut root, part);
        }
        Some(root)
    }
}

/// The drive letter in a virtiofs tag of WSL 2.7.0 and earlier: `drvfs` (`drvfsa` when
/// elevated), the letter, an index (`drvfsC0`, `drvfsaE2`). `drvfsa0` is drive `A:`.
fn virtiofs_tag_letter(tag: &str) -> Option<char> {
    let rest = tag
        .get(..5)?
        .eq_ignore_ascii_case("drvfs")
        .then(|| &tag[5..])?;
    let letter_and_index = |text: &str| {
        let mut chars = text.chars();
        let letter = chars.next().filter(char::is_ascii_alphabetic)?;
        let index = chars.as_str();
        (!index.is_empty() && index.bytes().all(|b| b.is_ascii_digit()))
            .then(|| letter.to_ascii_uppercase())
    };
    letter_and_index(rest).or_else(|| {
        let elevated = rest
            .get(..1)?
            .eq_ignore_ascii_case("a")
            .then(|| &rest[1..])?;
        letter_and_index(elevated)
    })
}

fn push_windows_component(path: &mut String, component: &str) {
    if !path.ends_with('\\') {
        path.push('\\');
    }
    path.push_str(component);
}

/// Kernel file systems whose files are generated when read (`/proc`, `/sys`, ...): nothing there is
/// a repository, and copying them never ends in what was planned.
pub fn is_kernel_interface(fstype: &str) -> bool {
    matches!(
        fstype,
        "proc"
            | "sysfs"
            | "devtmpfs"
            | "devpts"
            | "cgroup"
            | "cgroup2"
            | "debugfs"
            | "tracefs"
            | "securityfs"
            | "pstore"
            | "bpf"
            | "configfs"
            | "fusectl"
            | "mqueue"
            | "binfmt_misc"
            | "efivarfs"
            | "selinuxfs"
            | "nsfs"
            | "rpc_pipefs"
            | "hugetlbfs"
    )
}

/// Makes a path absolute and lexically clean without touching the file system.
pub fn lexical_normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::from("/");
    for component in path.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(part) => out.push(part),
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
    out
}

/// The mount that contains `path` (which should already be canonical): the deepest mount point
/// that is a component-wise prefix; among mounts stacked on the same point, the last one wins,
/// because it hides the ones below.
pub fn mount_for<'a>(mounts: &'a [MountEntry], path: &Path) -> Option<&'a MountEntry> {
    let path = lexical_normalise(path);
    mounts
        .iter()
        .enumerate()
        .filter(|(_, m)| path.starts_with(&m.mount_point))
        .max_by_key(|(index, m)| (m.mount_point.components().count(), *index))
        .map(|(_, m)| m)
}

/// `/mnt/c/Users/me/app` on a mount of `C:\` -> `C:\Users\me\app`.
pub fn windows_path_on_drive(mount: &MountEntry, path: &Path) -> Option<String> {
    let mut out = mount.windows_root()?;
    let relative = lexical_normalise(path)
        .strip_prefix(&mount.mount_point)
        .ok()?
        .to_path_buf();
    for component in relative.components() {
        if let Component::Normal(part) = component {
            push_windows_component(&mut out, &part.to_string_lossy());
        }
    }
    Some(out)
}

/// The two forms Windows tools use to reach a Linux path of a WSL distro:
/// `\\wsl.localhost\<distro>\...` (Windows build 21354 and later) and `\\wsl$\<distro>\...`.
pub fn wsl_unc_paths(distro: &str, path: &Path) -> (String, String) {
    let mut tail = String::new();
    for component in lexical_normalise(path).components() {
        if let Component::Normal(part) = component {
            tail.push('\\');
            tail.push_str(&part.to_string_lossy());
        }
    }
    (
        format!("\\\\wsl.localhost\\{distro}{tail}"),
        format!("\\\\wsl$\\{distro}{tail}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const WSL_9P: &str = include_str!("../../tests/fixtures/mountinfo/wsl-9p-drvfs.mountinfo");
    const WSL_VIRTIOFS: &str =
        include_str!("../../tests/fixtures/mountinfo/wsl-virtiofs.mountinfo");
    const LINUX: &str = include_str!("../../tests/fixtures/mountinfo/linux-plain.mountinfo");
    const WSL_UNC: &str = include_str!("../../tests/fixtures/mountinfo/wsl-unc-share.mountinfo");
    const WSL1: &str = include_str!("../../tests/fixtures/mountinfo/wsl1.mountinfo");

    fn at<'a>(mounts: &'a [MountEntry], path: &str) -> &'a MountEntry {
        mount_for(mounts, Path::new(path)).expect("a mount")
    }

    #[test]
    fn unescapes_octal_sequences() {
        assert_eq!(unescape(r"C:\134"), r"C:\");
        assert_eq!(
            unescape(r"/srv/bind\040with\040space"),
            "/srv/bind with space"
        );
        assert_eq!(unescape(r"a\011b\012c"), "a\tb\nc");
        // Not an escape: kept verbatim.
        assert_eq!(unescape(r"path=C:\;uid=1000"), r"path=C:\;uid=1000");
        assert_eq!(unescape(r"end\13"), r"end\13");
        assert_eq!(unescape(r"\"), r"\");
    }

    #[test]
    fn parses_the_9p_fixture() {
        let mounts = parse(WSL_9P).unwrap();
        assert_eq!(mounts.len(), 6);
        let c = at(&mounts, "/mnt/c/Users/me/app");
        assert_eq!(c.fstype, "9p");
        assert_eq!(c.source, r"C:\");
        assert_eq!(c.kind(), MountKind::WslDrvfs9p);
        assert_eq!(c.drvfs_option("path").as_deref(), Some(r"C:\"));
        assert_eq!(c.drvfs_option("uid").as_deref(), Some("1000"));
        assert_eq!(at(&mounts, "/home/me").kind(), MountKind::Local);
        assert_eq!(at(&mounts, "/tmp/x").kind(), MountKind::Tmpfs);
        assert_eq!(at(&mounts, "/mnt/d").kind(), MountKind::WslDrvfs9p);
        assert_eq!(at(&mounts, "/mnt/wsl/x").kind(), MountKind::Tmpfs);
        // WSL's GPU driver share is 9p too, but not a drive.
        let drivers = at(&mounts, "/usr/lib/wsl/drivers/x");
        assert_eq!(drivers.fstype, "9p");
        assert_eq!(drivers.kind(), MountKind::Other);
        assert_eq!(drivers.windows_root(), None);
        // Mount points are matched by component, not by string prefix.
        assert_eq!(at(&mounts, "/mnt/cd").kind(), MountKind::Local);
    }

    #[test]
    fn parses_the_virtiofs_fixture() {
        let mounts = parse(WSL_VIRTIOFS).unwrap();
        let c = at(&mounts, "/mnt/c/src");
        assert_eq!(c.kind(), MountKind::WslDrvfsVirtiofs);
        assert_eq!(c.source, "drvfsa");
        // No path= option here: the /mnt/<letter> convention is the last resort.
        assert_eq!(
            windows_path_on_drive(c, Path::new("/mnt/c/src/app")).as_deref(),
            Some(r"C:\src\app")
        );
    }

    #[test]
    fn parses_the_plain_linux_fixture() {
        let mounts = parse(LINUX).unwrap();
        assert_eq!(at(&mounts, "/home/dev/remote/x").kind(), MountKind::Network);
        assert_eq!(at(&mounts, "/home/dev/remote").fstype, "fuse.sshfs");
        assert_eq!(at(&mounts, "/net/share").kind(), MountKind::Network);
        assert_eq!(at(&mounts, "/home/dev").kind(), MountKind::Local);
        let bind = at(&mounts, "/srv/bind with space/app");
        assert_eq!(bind.mount_point, PathBuf::from("/srv/bind with space"));
        assert_eq!(bind.root, "/projects");
        assert_eq!(bind.kind(), MountKind::Local);
        assert_eq!(
            windows_path_on_drive(bind, Path::new("/srv/bind with space")),
            None
        );
    }

    #[test]
    fn optional_fields_are_kept() {
        let mounts = parse(WSL_9P).unwrap();
        let wsl = at(&mounts, "/mnt/wsl");
        assert_eq!(wsl.optional_fields, vec!["shared:1".to_string()]);
        assert_eq!(at(&mounts, "/mnt/c").optional_fields, Vec::<String>::new());
    }

    #[test]
    fn escaped_path_option_is_understood() {
        let line = r"66 61 0:63 / /mnt/e rw,noatime - 9p E:\134 rw,aname=drvfs;path=E:\134;uid=1000,msize=65536";
        let mounts = parse(line).unwrap();
        assert_eq!(mounts[0].drvfs_option("path").as_deref(), Some(r"E:\"));
        assert_eq!(
            windows_path_on_drive(&mounts[0], Path::new("/mnt/e/work/app")).as_deref(),
            Some(r"E:\work\app")
        );
    }

    #[test]
    fn a_mapped_drive_letter_is_a_network_share_with_its_unc_path() {
        let line = r"72 61 0:85 / /mnt/z rw,noatime - 9p Z:\134 rw,aname=drvfs;path=Z:\;uid=1000";
        let mut z = parse(line).unwrap().remove(0);
        assert_eq!(z.drive_letter(), Some('Z'));
        assert_eq!(z.kind(), MountKind::WslDrvfs9p);
        z.mapped_share = Some(r"\\fileserver\Projects\".to_string());
        assert_eq!(z.kind(), MountKind::Network);
        assert_eq!(
            windows_path_on_drive(&z, Path::new("/mnt/z/team/app")).as_deref(),
            Some(r"\\fileserver\Projects\team\app")
        );
        // A folder of the drive mounted on its own keeps its place on the share.
        let line = r"73 61 0:86 / /mnt/t rw - 9p drvfs rw,aname=drvfs;path=Z:\team;uid=1000";
        let mut team = parse(line).unwrap().remove(0);
        team.mapped_share = Some(r"\\fileserver\Projects".to_string());
        assert_eq!(
            team.windows_root().as_deref(),
            Some(r"\\fileserver\Projects\team")
        );
        // A UNC mount has no drive letter to ask about.
        let unc = parse(WSL_UNC).unwrap();
        assert!(
            unc.iter()
                .all(|m| m.unc_share().is_none() || m.drive_letter().is_none())
        );
    }

    #[test]
    fn windows_path_uses_the_path_option_not_the_folder_name() {
        let line = r"70 61 0:70 / /win/data rw - 9p D:\134 rw,aname=drvfs;path=D:\;uid=1000";
        let mounts = parse(line).unwrap();
        assert_eq!(
            windows_path_on_drive(&mounts[0], Path::new("/win/data/src/x")).as_deref(),
            Some(r"D:\src\x")
        );
        assert_eq!(
            windows_path_on_drive(&mounts[0], Path::new("/win/data")).as_deref(),
            Some(r"D:\")
        );
    }

    #[test]
    fn wsl1_drvfs() {
        let line = r"40 35 0:40 / /mnt/c rw,noatime - drvfs C:\134 rw,case=off";
        let mounts = parse(line).unwrap();
        assert_eq!(mounts[0].kind(), MountKind::Wsl1Drvfs);
        assert_eq!(
            windows_path_on_drive(&mounts[0], Path::new("/mnt/c/Users/me")).as_deref(),
            Some(r"C:\Users\me")
        );
    }

    #[test]
    fn unc_share_is_network_storage_with_a_unc_windows_path() {
        let mounts = parse(WSL_UNC).unwrap();
        let share = at(&mounts, "/mnt/share/team/app");
        assert_eq!(share.source, r"\\fileserver\Projects");
        assert!(share.is_drvfs());
        assert_eq!(share.unc_share().as_deref(), Some(r"\\fileserver\Projects"));
        assert_eq!(share.kind(), MountKind::Network);
        assert_eq!(
            windows_path_on_drive(share, Path::new("/mnt/share/team/app")).as_deref(),
            Some(r"\\fileserver\Projects\team\app")
        );
        assert_eq!(
            windows_path_on_drive(share, Path::new("/mnt/share")).as_deref(),
            Some(r"\\fileserver\Projects")
        );
        // The drive next to it is still a drive.
        let c = at(&mounts, "/mnt/c/src");
        assert_eq!(c.kind(), MountKind::WslDrvfs9p);
        assert_eq!(c.unc_share(), None);
    }

    #[test]
    fn wsl1_root_drive_and_share() {
        let mounts = parse(WSL1).unwrap();
        assert_eq!(at(&mounts, "/home/me/src").kind(), MountKind::Wsl1Lxfs);
        let c = at(&mounts, "/mnt/c/Users/me");
        assert_eq!(c.kind(), MountKind::Wsl1Drvfs);
        // WSL 1 records the bare drive, `C:`, as the source.
        assert_eq!(
            windows_path_on_drive(c, Path::new("/mnt/c")).as_deref(),
            Some(r"C:\")
        );
        assert_eq!(
            windows_path_on_drive(c, Path::new("/mnt/c/Users/me")).as_deref(),
            Some(r"C:\Users\me")
        );
        let share = at(&mounts, "/mnt/share/app");
        assert_eq!(share.kind(), MountKind::Network);
        assert_eq!(
            windows_path_on_drive(share, Path::new("/mnt/share/app")).as_deref(),
            Some(r"\\fileserver\Projects\app")
        );
        let old = parse("1 0 0:1 / / rw,noatime - lxfs rootfs rw").unwrap();
        assert_eq!(old[0].kind(), MountKind::Wsl1Lxfs);
    }

    #[test]
    fn stacked_mounts_last_one_wins() {
        let text = "1 0 8:1 / / rw - ext4 /dev/sda rw\n2 1 0:2 / /a rw - ext4 /dev/sdb rw\n3 1 0:3 / /a rw - tmpfs tmpfs rw\n";
        let mounts = parse(text).unwrap();
        assert_eq!(at(&mounts, "/a/b").kind(), MountKind::Tmpfs);
    }

    #[test]
    fn fuse_and_overlay_kinds() {
        let text = "1 0 0:1 / / rw - overlay overlay rw,lowerdir=/a\n2 1 0:2 / /f rw - fuse.slowfs slowfs rw\n3 1 0:3 / /n rw - fuseblk /dev/sdc rw\n";
        let mounts = parse(text).unwrap();
        assert_eq!(at(&mounts, "/x").kind(), MountKind::Overlay);
        assert_eq!(at(&mounts, "/f/x").kind(), MountKind::Fuse);
        assert_eq!(at(&mounts, "/n").kind(), MountKind::Fuse);
    }

    #[test]
    fn malformed_lines_name_the_line() {
        let text = "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\nthis is not mountinfo\n";
        let err = parse(text).unwrap_err();
        assert_eq!(err.line, 2);
        let err = parse("x 1 254:0 / / rw - ext4 /dev/vda rw").unwrap_err();
        assert!(err.reason.contains("mount id"), "{err}");
        let err = parse("1 1 254:0 / / rw - ext4").unwrap_err();
        assert!(err.reason.contains("after ' - '"), "{err}");
        let err = parse("1 1 254:0 / relative rw - ext4 a b").unwrap_err();
        assert!(err.reason.contains("absolute"), "{err}");
    }

    #[test]
    fn serialised_kind_names_match_the_documented_ones() {
        for kind in [
            MountKind::WslDrvfs9p,
            MountKind::WslDrvfsVirtiofs,
            MountKind::Wsl1Drvfs,
            MountKind::Wsl1Lxfs,
            MountKind::Local,
            MountKind::Tmpfs,
            MountKind::Network,
            MountKind::Fuse,
            MountKind::Overlay,
            MountKind::Other,
        ] {
            assert_eq!(
                serde_json::to_value(kind).unwrap(),
                serde_json::Value::String(kind.as_str().to_string())
            );
        }
    }

    #[test]
    fn unc_paths_for_linux_paths() {
        let (new, legacy) = wsl_unc_paths("Ubuntu-24.04", Path::new("/home/me/src/app"));
        assert_eq!(new, r"\\wsl.localhost\Ubuntu-24.04\home\me\src\app");
        assert_eq!(legacy, r"\\wsl$\Ubuntu-24.04\home\me\src\app");
    }
}
