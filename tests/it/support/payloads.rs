//! Payloads hostile repositories plant: code that leaves a marker when something runs it.

use super::gitrepo::write;
use std::path::Path;

/// A Python package folder (`evilpkg` 1.0) whose in-tree build backend runs `command` when
/// imported, then fails: building it (pip, uv) runs it, without the network.
pub fn evil_python_package(dir: &Path, command: &str) {
    write(
        &dir.join("pyproject.toml"),
        b"[project]\nname = \"evilpkg\"\nversion = \"1.0\"\n\n[build-system]\nrequires = []\nbuild-backend = \"backend\"\nbackend-path = [\".\"]\n",
    );
    write(
        &dir.join("backend.py"),
        format!("import os\nos.system({command:?})\nraise SystemExit(1)\n").as_bytes(),
    );
}
