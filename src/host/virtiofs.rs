//! WSL's virtiofs drives, in every form WSL has shipped or merged (microsoft/WSL's sources; no
//! release makes virtiofs the default: `EnableVirtioFs = false` through 2.9.4 and main):
//!
//! - up to 2.7.0 the tag is `drvfs` (`drvfsa` in an elevated session), the drive letter and an
//!   index (`WslCoreVm.cpp`: `drvfsC0`): the letter is read from the tag
//!   (`MountEntry::drive_letter`), wherever the drive is mounted;
//! - since 2.7.1 the tag is a random GUID, and WSL links `/run/wsl/virtiofs/<GUID>` to the
//!   Windows folder it stands for, with a trailing separator (`src/linux/init/drvfs.cpp`,
//!   `SaveVirtiofsTagMapping`);
//! - the aggregate form (merged 2026-07, PR #41129, in no release yet): one device tagged
//!   `drvfs` (`drvfsa` when elevated), mounted at `/run/wsl/virtiofs-mounts/<tag>` and bound
//!   from its `/<GUID>` to each drive, so the mount's root is `/<GUID>`, the link named after it.
//!
//! Pure: the links are read by [`crate::host::HostEnv::virtiofs_tags`].

use crate::host::mounts::{MountEntry, VirtiofsDrive};
use std::collections::BTreeMap;

/// A GUID as WSL writes tags: `8-4-4-4-12` hexadecimal digits, braces allowed.
pub fn is_guid(text: &str) -> bool {
    let bare = text
        .strip_prefix('{')
        .and_then(|t| t.strip_suffix('}'))
        .unwrap_or(text);
    let groups: Vec<&str> = bare.split('-').collect();
    groups.len() == 5
        && groups
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(group, len)| group.len() == len && group.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// The tag WSL recorded for this virtiofs mount, and the folder of it mounted here: the GUID tag
/// itself and the whole root, or the aggregate form's `/<GUID>` root and what follows it.
fn tag_of(entry: &MountEntry) -> Option<(&str, &str)> {
    if entry.fstype != "virtiofs" {
        return None;
    }
    if is_guid(&entry.source) {
        return Some((&entry.source, &entry.root));
    }
    let root = entry.root.strip_prefix('/')?;
    let (head, rest) = root.split_at(root.find('/').unwrap_or(root.len()));
    is_guid(head).then_some((head, rest))
}

/// Fills in each WSL virtiofs mount's Windows folder from `tags` (tag in lower case -> link
/// target). A tag without a record is a drive whose letter is unknown when `on_wsl` or when its
/// device is WSL's (`drvfs`, `drvfsa`): WSL mounts nothing else over virtiofs; elsewhere the
/// mount is left as it is. A record that is not a Windows path (a person's own link to
/// `/mnt/c`, microsoft/WSL#40790) is named and not used.
pub fn resolve(entries: &mut [MountEntry], tags: &BTreeMap<String, String>, on_wsl: bool) {
    for entry in entries.iter_mut() {
        let Some((tag, below)) = tag_of(entry) else {
            continue;
        };
        let wsl_device = entry.source.to_ascii_lowercase().starts_with("drvfs");
        entry.virtiofs_drive = match tags.get(&tag.to_ascii_lowercase()) {
            Some(target) => Some(match windows_form(target) {
                Some(windows) => VirtiofsDrive::Known {
                    windows,
                    below: below.to_string(),
                },
                None => VirtiofsDrive::NotWindows {
                    tag: tag.to_string(),
                    target: target.clone(),
                },
            }),
            None if on_wsl || wsl_device => Some(VirtiofsDrive::Unknown {
                tag: tag.to_string(),
            }),
            None => None,
        };
    }
}

/// A link target as a Windows folder: `X:\...` or `\\server\share...`, without the trailing
/// separator WSL writes (`D:\Projects\`), but for a drive's root (`C:\`). None for anything
/// else, a Linux path among them.
fn windows_form(target: &str) -> Option<String> {
    let bytes = target.as_bytes();
    let drive = bytes.len() >= 2
        && bytes[0].is_ascii_alphabetic()
        && bytes[1] == b':'
        && (bytes.len() == 2 || bytes[2] == b'\\');
    let share = target.starts_with("\\\\") && target.len() > 2;
    if !drive && !share {
        return None;
    }
    let trimmed = target.trim_end_matches('\\');
    Some(if drive && trimmed.len() <= 2 {
        format!("{}\\", &trimmed[..2])
    } else {
        trimmed.to_string()
    })
}

/// Any mount here that [`resolve`] would look up.
pub fn any(entries: &[MountEntry]) -> bool {
    entries.iter().any(|entry| tag_of(entry).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::mounts::{MountKind, mount_for, parse, windows_path_on_drive};
    use std::path::Path;

    const GUID_FORM: &str =
        include_str!("../../tests/fixtures/mountinfo/wsl-2.7.1-virtiofs-guid.mountinfo");
    const GUID_TAGS: &str =
        include_str!("../../tests/fixtures/mountinfo/wsl-2.7.1-virtiofs-guid.tags");
    const LINUX_TARGET_TAGS: &str =
        include_str!("../../tests/fixtures/mountinfo/wsl-2.7.1-virtiofs-guid-linux-target.tags");
    const LETTER_TAGS: &str =
        include_str!("../../tests/fixtures/mountinfo/wsl-2.7.0-virtiofs-letter-tags.mountinfo");
    const AGGREGATE: &str =
        include_str!("../../tests/fixtures/mountinfo/wsl-main-virtiofs-aggregate.mountinfo");
    const AGGREGATE_TAGS: &str =
        include_str!("../../tests/fixtures/mountinfo/wsl-main-virtiofs-aggregate.tags");
    const ELEVATED: &str = include_str!(
        "../../tests/fixtures/mountinfo/wsl-main-virtiofs-aggregate-elevated.mountinfo"
    );
    const ELEVATED_TAGS: &str =
        include_str!("../../tests/fixtures/mountinfo/wsl-main-virtiofs-aggregate-elevated.tags");
    const FALLBACK: &str =
        include_str!("../../tests/fixtures/mountinfo/wsl-main-virtiofs-9p-fallback.mountinfo");
    const FALLBACK_TAGS: &str =
        include_str!("../../tests/fixtures/mountinfo/wsl-main-virtiofs-9p-fallback.tags");
    const NAMED: &str = include_str!("../../tests/fixtures/mountinfo/wsl-virtiofs.mountinfo");

    /// The fixture's `TAG -> TARGET` lines, as `HostEnv::virtiofs_tags` reads the links.
    fn tags(text: &str) -> BTreeMap<String, String> {
        text.lines()
            .filter_map(|line| line.split_once(" -> "))
            .map(|(tag, target)| (tag.to_ascii_lowercase(), target.to_string()))
            .collect()
    }

    /// The fixture's mounts, resolved as `MountTable::read` does.
    fn resolved(mountinfo: &str, tags: &BTreeMap<String, String>, on_wsl: bool) -> Vec<MountEntry> {
        let mut entries = parse(mountinfo).unwrap();
        resolve(&mut entries, tags, on_wsl);
        entries
    }

    /// The mount under `path`: its kind and the Windows path of `path`.
    fn at(entries: &[MountEntry], path: &str) -> (MountKind, Option<String>) {
        let mount = mount_for(entries, Path::new(path)).unwrap();
        (mount.kind(), windows_path_on_drive(mount, Path::new(path)))
    }

    #[test]
    fn guids_are_told_from_other_tags() {
        assert!(is_guid("3f2504e0-4f89-41d3-9a0c-0305e82c3301"));
        assert!(is_guid("{3F2504E0-4F89-41D3-9A0C-0305E82C3301}"));
        assert!(!is_guid("drvfsa"));
        assert!(!is_guid("3f2504e0-4f89-41d3-9a0c-0305e82c330"));
        assert!(!is_guid("3f2504e0-4f89-41d3-9a0c-0305e82c33zz"));
        assert!(!is_guid("3f2504e04f8941d39a0c0305e82c3301"));
    }

    #[test]
    fn a_guid_tag_is_the_drive_wsl_linked_it_to() {
        let entries = resolved(GUID_FORM, &tags(GUID_TAGS), true);
        let virtiofs = MountKind::WslDrvfsVirtiofs;
        assert_eq!(
            at(&entries, "/mnt/c/src/app"),
            (virtiofs, Some(r"C:\src\app".into()))
        );
        assert_eq!(
            at(&entries, "/mnt/d/work"),
            (virtiofs, Some(r"D:\work".into()))
        );
        assert_eq!(at(&entries, "/home/me"), (MountKind::Local, None));
        let c = mount_for(&entries, Path::new("/mnt/c")).unwrap();
        assert_eq!(c.drive_letter(), Some('C'));
        assert_eq!(c.unknown_drive_note(), None);
        // Before: "an unrecognised file system", as nothing knew the tag.
        let unresolved = parse(GUID_FORM).unwrap();
        assert_eq!(at(&unresolved, "/mnt/c/src").0, MountKind::Other);
    }

    #[test]
    fn a_guid_tag_without_a_record_is_a_drive_of_unknown_letter_on_wsl_only() {
        let entries = resolved(GUID_FORM, &BTreeMap::new(), true);
        assert_eq!(
            at(&entries, "/mnt/c/src/app"),
            (MountKind::WslDrvfsVirtiofs, None)
        );
        let c = mount_for(&entries, Path::new("/mnt/c")).unwrap();
        assert_eq!(c.drive_letter(), None);
        let note = c.unknown_drive_note().unwrap();
        assert!(
            note.contains("3f2504e0-4f89-41d3-9a0c-0305e82c3301") && note.contains("unknown"),
            "{note}"
        );
        let off_wsl = resolved(GUID_FORM, &BTreeMap::new(), false);
        assert_eq!(at(&off_wsl, "/mnt/c/src").0, MountKind::Other);
    }

    #[test]
    fn the_aggregate_forms_guid_root_names_the_drive_not_a_folder() {
        // Elevated (`drvfsa`): a bind of a folder of D: keeps the folder below the GUID.
        let entries = resolved(ELEVATED, &tags(ELEVATED_TAGS), true);
        let virtiofs = MountKind::WslDrvfsVirtiofs;
        assert_eq!(
            at(&entries, "/mnt/c/src/app"),
            (virtiofs, Some(r"C:\src\app".into()))
        );
        assert_eq!(
            at(&entries, "/mnt/p/team"),
            (virtiofs, Some(r"D:\Projects\team".into()))
        );
        // The device itself is WSL's, bound nowhere as a drive.
        let device = mount_for(&entries, Path::new("/run/wsl/virtiofs-mounts/drvfsa")).unwrap();
        assert_eq!(device.windows_root(), None);
        // Not elevated (`drvfs`), a share whose record ends in a separator (`D:\Projects\`).
        let entries = resolved(AGGREGATE, &tags(AGGREGATE_TAGS), true);
        assert_eq!(
            at(&entries, "/mnt/p/team"),
            (virtiofs, Some(r"D:\Projects\team".into()))
        );
        assert_eq!(
            at(&entries, "/mnt/p"),
            (virtiofs, Some(r"D:\Projects".into()))
        );
        assert_eq!(at(&entries, "/mnt/c"), (virtiofs, Some(r"C:\".into())));
        // Without the record, on WSL or not: a drive, letter unknown, and never `C:\<GUID>`.
        for on_wsl in [true, false] {
            let entries = resolved(AGGREGATE, &BTreeMap::new(), on_wsl);
            assert_eq!(at(&entries, "/mnt/c/src/app"), (virtiofs, None));
        }
    }

    #[test]
    fn the_bound_shares_line_alone_is_a_windows_drive() {
        let alone: String = AGGREGATE
            .lines()
            .filter(|line| !line.contains("virtiofs-mounts"))
            .map(|line| format!("{line}\n"))
            .collect();
        let entries = resolved(&alone, &tags(AGGREGATE_TAGS), true);
        assert_eq!(
            at(&entries, "/mnt/c/src"),
            (MountKind::WslDrvfsVirtiofs, Some(r"C:\src".into()))
        );
    }

    #[test]
    fn a_letter_tag_of_wsl_2_7_0_names_the_drive_wherever_it_is_mounted() {
        let entries = resolved(LETTER_TAGS, &BTreeMap::new(), true);
        let virtiofs = MountKind::WslDrvfsVirtiofs;
        // `[automount] root = /`: no `/mnt/<letter>` to read a letter from.
        assert_eq!(
            at(&entries, "/c/src/app"),
            (virtiofs, Some(r"C:\src\app".into()))
        );
        assert_eq!(at(&entries, "/d"), (virtiofs, Some(r"D:\".into())));
        // Mounted by hand, elevated (`drvfsa` + `E` + `2`).
        assert_eq!(at(&entries, "/work/e/x"), (virtiofs, Some(r"E:\x".into())));
        let c = mount_for(&entries, Path::new("/c")).unwrap();
        assert_eq!(c.drive_letter(), Some('C'));
        assert_eq!(c.unknown_drive_note(), None);
    }

    #[test]
    fn the_letter_in_a_tag_is_read_only_from_wsls_tag_shape() {
        for (tag, letter) in [
            ("drvfsC0", Some('C')),
            ("drvfsc12", Some('C')),
            ("drvfsaE2", Some('E')),
            ("drvfsa0", Some('A')),
            ("drvfsa", None),
            ("drvfs", None),
            ("drvfsC", None),
            ("drvfsCC0", None),
            ("myfsC0", None),
        ] {
            let line = format!("66 61 0:63 / /x rw,noatime - virtiofs {tag} rw\n");
            let entries = resolved(&line, &BTreeMap::new(), true);
            assert_eq!(entries[0].drive_letter(), letter, "{tag}");
        }
    }

    #[test]
    fn a_record_that_is_a_linux_path_is_named_and_not_used() {
        let entries = resolved(GUID_FORM, &tags(LINUX_TARGET_TAGS), true);
        assert_eq!(
            at(&entries, "/mnt/c/src"),
            (MountKind::WslDrvfsVirtiofs, None)
        );
        let c = mount_for(&entries, Path::new("/mnt/c")).unwrap();
        let note = c.unknown_drive_note().unwrap();
        assert!(
            note.contains("leads to /mnt/c, not a Windows folder"),
            "{note}"
        );
        assert_eq!(at(&entries, "/mnt/d/w").1, Some(r"D:\w".into()));
    }

    #[test]
    fn nine_p_and_virtiofs_side_by_side() {
        let entries = resolved(FALLBACK, &tags(FALLBACK_TAGS), true);
        assert_eq!(
            at(&entries, "/mnt/c/a"),
            (MountKind::WslDrvfsVirtiofs, Some(r"C:\a".into()))
        );
        assert_eq!(
            at(&entries, "/mnt/d/b"),
            (MountKind::WslDrvfs9p, Some(r"D:\b".into()))
        );
    }

    #[test]
    fn the_named_tag_form_is_as_before() {
        let entries = resolved(NAMED, &tags(GUID_TAGS), true);
        let c = mount_for(&entries, Path::new("/mnt/c")).unwrap();
        assert_eq!(c.virtiofs_drive, None);
        assert_eq!(
            at(&entries, "/mnt/c/src/app"),
            (MountKind::WslDrvfsVirtiofs, Some(r"C:\src\app".into()))
        );
    }

    #[test]
    fn a_tag_linked_to_a_share_is_network_storage() {
        let mut entries = parse(GUID_FORM).unwrap();
        let share = [(
            "3f2504e0-4f89-41d3-9a0c-0305e82c3301".to_string(),
            r"\\fileserver\Projects".to_string(),
        )];
        resolve(&mut entries, &share.into_iter().collect(), true);
        assert_eq!(
            at(&entries, "/mnt/c/team"),
            (
                MountKind::Network,
                Some(r"\\fileserver\Projects\team".into())
            )
        );
    }
}
