//! WSL's virtiofs drives: since WSL 2.7.1 mountinfo shows a drive's virtiofs tag, a random GUID,
//! and WSL links `/run/wsl/virtiofs/<GUID>` to the Windows folder it stands for
//! (microsoft/WSL `src/linux/init/drvfs.cpp`, `SaveVirtiofsTagMapping`). In the aggregate form
//! one device, tagged `drvfsa`, is bound from `/run/wsl/virtiofs-mounts/drvfsa/<GUID>` to each
//! drive, so the mount's root is `/<GUID>`. Pure: the links are read by
//! [`crate::host::HostEnv::virtiofs_tags`].

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

/// Fills in each WSL virtiofs mount's Windows folder from `tags` (tag in lower case -> Windows
/// path). A tag without a record is a drive whose letter is unknown when `on_wsl`: WSL mounts
/// nothing else over virtiofs; elsewhere the mount is left as it is.
pub fn resolve(entries: &mut [MountEntry], tags: &BTreeMap<String, String>, on_wsl: bool) {
    for entry in entries.iter_mut() {
        let Some((tag, below)) = tag_of(entry) else {
            continue;
        };
        entry.virtiofs_drive = match tags.get(&tag.to_ascii_lowercase()) {
            Some(windows) => Some(VirtiofsDrive::Known {
                windows: windows.clone(),
                below: below.to_string(),
            }),
            None if on_wsl => Some(VirtiofsDrive::Unknown {
                tag: tag.to_string(),
            }),
            None => None,
        };
    }
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
        include_str!("../../tests/fixtures/mountinfo/wsl-virtiofs-guid.mountinfo");
    const GUID_TAGS: &str = include_str!("../../tests/fixtures/mountinfo/wsl-virtiofs-guid.tags");
    const AGGREGATE: &str =
        include_str!("../../tests/fixtures/mountinfo/wsl-virtiofs-drvfsa.mountinfo");
    const AGGREGATE_TAGS: &str =
        include_str!("../../tests/fixtures/mountinfo/wsl-virtiofs-drvfsa.tags");
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
        let entries = resolved(AGGREGATE, &tags(AGGREGATE_TAGS), true);
        let virtiofs = MountKind::WslDrvfsVirtiofs;
        assert_eq!(
            at(&entries, "/mnt/c/src/app"),
            (virtiofs, Some(r"C:\src\app".into()))
        );
        // A bind of a folder of D: keeps the folder below the GUID.
        assert_eq!(
            at(&entries, "/mnt/p/team"),
            (virtiofs, Some(r"D:\Projects\team".into()))
        );
        // The device itself is WSL's, bound nowhere as a drive.
        let device = mount_for(&entries, Path::new("/run/wsl/virtiofs-mounts/drvfsa")).unwrap();
        assert_eq!(device.windows_root(), None);
        // Without the record: a drive, letter unknown, and never `C:\<GUID>`.
        let entries = resolved(AGGREGATE, &BTreeMap::new(), true);
        assert_eq!(at(&entries, "/mnt/c/src/app"), (virtiofs, None));
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
