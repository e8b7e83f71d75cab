//! Native builds for Windows inside a `node_modules`: npm run on Windows installs the win32
//! variant of every platform package and compiles addons as PE files, none of which run on
//! Linux, so such a `node_modules` has to be reinstalled, not copied.

use std::io::Read;
use std::path::Path;

/// Examples kept per `node_modules`: enough to recognise the case, short enough for one line.
pub const EXAMPLES: usize = 3;
/// `.node` addons opened per `node_modules` to read their header (each open crosses the slow mount).
pub const ADDONS_READ: usize = 32;

/// What one path inside a `node_modules` says about the platform it was installed for.
#[derive(Debug, PartialEq, Eq)]
pub enum Sign {
    /// A Windows build by its name: `*.exe`, `*.dll`, or a win32 platform package.
    Windows,
    /// A native addon: Windows only if its header is a PE's (`MZ`).
    Addon,
    None,
}

/// Looks at `rel`'s name only (`is_file`: a regular file, not a folder or link).
pub fn sign(rel: &Path, is_file: bool) -> Sign {
    let Some(name) = rel.file_name().and_then(|n| n.to_str()) else {
        return Sign::None;
    };
    let lower = name.to_ascii_lowercase();
    if is_file {
        return if lower.ends_with(".exe") || lower.ends_with(".dll") {
            Sign::Windows
        } else if lower.ends_with(".node") {
            Sign::Addon
        } else {
            Sign::None
        };
    }
    // Platform packages: `@esbuild/win32-x64`, `@rollup/rollup-win32-x64-msvc`,
    // `@img/sharp-win32-x64`, `lightningcss-win32-x64-msvc`; only a package folder counts.
    let in_node_modules = rel
        .parent()
        .and_then(|p| p.file_name())
        .is_some_and(|p| p == "node_modules" || p.to_string_lossy().starts_with('@'));
    let platform =
        lower.starts_with("win32-") || lower.contains("-win32-") || lower.ends_with("-win32");
    if in_node_modules && platform {
        Sign::Windows
    } else {
        Sign::None
    }
}

/// Whether the file at `path` starts like a Windows executable or DLL.
pub fn is_pe(path: &Path) -> bool {
    let mut header = [0u8; 2];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut header))
        .is_ok_and(|()| &header == b"MZ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_say_windows() {
        let dir = |p: &str| sign(Path::new(p), false);
        let file = |p: &str| sign(Path::new(p), true);
        assert_eq!(dir("node_modules/@esbuild/win32-x64"), Sign::Windows);
        assert_eq!(
            dir("node_modules/@rollup/rollup-win32-x64-msvc"),
            Sign::Windows
        );
        assert_eq!(
            dir("node_modules/lightningcss-win32-x64-msvc"),
            Sign::Windows
        );
        assert_eq!(dir("node_modules/@esbuild/linux-x64"), Sign::None);
        // Only package folders: a source folder of that name is not a build.
        assert_eq!(dir("node_modules/x/src/win32-x64"), Sign::None);
        assert_eq!(file("node_modules/7zip-bin/win/x64/7za.EXE"), Sign::Windows);
        assert_eq!(file("node_modules/x/build/Release/x.node"), Sign::Addon);
        assert_eq!(file("node_modules/x/index.js"), Sign::None);
    }
}
