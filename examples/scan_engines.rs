//! Times the scan's traversal engines on one tree, for `bench/scan.sh`:
//! `scan_engines <dir> <engine>...` with engines `sequential`, `parallel:N` and `walkdir` (a plain
//! walkdir loop with one `lstat` per file, the reference the scan's own walk must beat).
//! Prints one line per engine: `<engine> <milliseconds> <files> <bytes>`.

use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::time::{Duration, Instant};
use wsl_place::facade::measure::scan::{Engine, ScanOptions, scan_with};

fn walkdir_reference(dir: &Path) -> (u64, u64) {
    let (mut files, mut bytes) = (0, 0);
    for entry in walkdir::WalkDir::new(dir).into_iter().flatten() {
        if entry.file_type().is_file() {
            files += 1;
            bytes += entry.metadata().map_or(0, |m| m.size());
        }
    }
    (files, bytes)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((dir, engines)) = args.split_first() else {
        eprintln!("usage: scan_engines <dir> sequential|parallel:N|walkdir...");
        std::process::exit(2);
    };
    let dir = Path::new(dir);
    let options = ScanOptions {
        budget: Duration::from_secs(3600),
        automount_root: wsl_place::facade::host::DEFAULT_AUTOMOUNT_ROOT.into(),
        exact: true,
        known: Vec::new(),
    };
    for name in engines {
        let start = Instant::now();
        let (files, bytes) = match name.split_once(':') {
            _ if name == "walkdir" => walkdir_reference(dir),
            _ if name == "sequential" => {
                let r = scan_with(dir, &options, Engine::Sequential);
                (r.totals.files, r.totals.bytes)
            }
            Some(("parallel", n)) => {
                let threads = n.parse().unwrap_or(4);
                let r = scan_with(dir, &options, Engine::Parallel(threads));
                (r.totals.files, r.totals.bytes)
            }
            _ => {
                eprintln!("unknown engine {name}");
                std::process::exit(2);
            }
        };
        println!("{name} {} {files} {bytes}", start.elapsed().as_millis());
    }
}
