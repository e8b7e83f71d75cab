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

/// A wheel `NAME-VERSION-py3-none-any.whl` in `dir`, holding `files` (path in the wheel,
/// content) beside its `.dist-info`: what an index offers, built here without the network.
pub fn wheel(dir: &Path, name: &str, version: &str, files: &[(&str, &str)]) -> std::path::PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let file = dir.join(format!("{name}-{version}-py3-none-any.whl"));
    let listed: Vec<serde_json::Value> = files
        .iter()
        .map(|(path, text)| serde_json::json!([path, text]))
        .collect();
    let script = r#"
import base64, hashlib, json, sys, zipfile
out, name, version, files = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
info = f"{name}-{version}.dist-info"
files += [[f"{info}/METADATA", f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"],
          [f"{info}/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"]]
record = []
with zipfile.ZipFile(out, "w") as z:
    for path, text in files:
        data = text.encode()
        info_ = zipfile.ZipInfo(path)
        info_.external_attr = 0o755 << 16
        z.writestr(info_, data)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(data)}")
    record.append(f"{info}/RECORD,,")
    z.writestr(f"{info}/RECORD", "\n".join(record) + "\n")
"#;
    let status = std::process::Command::new("python3")
        .args(["-c", script])
        .arg(&file)
        .args([name, version])
        .arg(serde_json::Value::Array(listed).to_string())
        .status()
        .expect("python3 builds the wheel");
    assert!(status.success(), "building {}", file.display());
    file
}
