//! A package registry on 127.0.0.1 serving a few packages packed in the test (`npm pack`): what
//! pnpm, yarn and bun fetch from when a test installs a project from its lock, so that their
//! caches are filled as a real first install fills them, without the network. Stopped, it
//! refuses every connection, so what a manager does afterwards is offline for certain.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

pub struct Registry {
    url: String,
    stopped: Arc<AtomicBool>,
    server: Option<std::thread::JoinHandle<()>>,
}

impl Registry {
    /// A registry of `n` packages `wsl-place-test-leaf-<i>` at version 1.0.0, each of a few
    /// files and no dependencies, packed with npm in `work`.
    pub fn with_leaves(work: &Path, n: usize) -> Registry {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a port on 127.0.0.1");
        let url = format!("http://{}/", listener.local_addr().unwrap());
        let mut files: BTreeMap<String, Vec<u8>> = BTreeMap::new();
        for i in 0..n {
            let name = format!("wsl-place-test-leaf-{i}");
            let (tarball, integrity, shasum) = packed(work, &name);
            let tarball_path = format!("{name}/-/{name}-1.0.0.tgz");
            let document = serde_json::json!({
                "name": name,
                "dist-tags": {"latest": "1.0.0"},
                "versions": {"1.0.0": {
                    "name": name,
                    "version": "1.0.0",
                    "main": "index.js",
                    "dist": {
                        "tarball": format!("{url}{tarball_path}"),
                        "integrity": integrity,
                        "shasum": shasum,
                    },
                }},
            });
            files.insert(name, document.to_string().into_bytes());
            files.insert(tarball_path, tarball);
        }
        let stopped = Arc::new(AtomicBool::new(false));
        let server = {
            let stopped = Arc::clone(&stopped);
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    if stopped.load(Ordering::SeqCst) {
                        break;
                    }
                    if let Ok(stream) = stream {
                        answer(stream, &files);
                    }
                }
            })
        };
        Registry {
            url,
            stopped,
            server: Some(server),
        }
    }

    /// `http://127.0.0.1:PORT/`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Stops answering and closes the port: every later request is refused.
    pub fn stop(&mut self) {
        self.stopped.store(true, Ordering::SeqCst);
        // The server waits in accept(): one connection wakes it to see the flag.
        let _ = TcpStream::connect(self.url.trim_start_matches("http://").trim_end_matches('/'));
        if let Some(server) = self.server.take() {
            server.join().expect("the registry's thread ends");
        }
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The package `name` (a package.json, an index.js and four files in lib/) packed by npm in
/// `work`: its tarball, sha512 integrity and sha1 shasum.
fn packed(work: &Path, name: &str) -> (Vec<u8>, String, String) {
    let source = work.join(name);
    super::gitrepo::write(
        &source.join("package.json"),
        format!(r#"{{"name":"{name}","version":"1.0.0","main":"index.js","license":"MIT"}}"#)
            .as_bytes(),
    );
    super::gitrepo::write(&source.join("index.js"), b"module.exports = 0;\n");
    for f in 0..4 {
        super::gitrepo::write(
            &source.join(format!("lib/f{f}.js")),
            b"module.exports = 1;\n",
        );
    }
    let out = std::process::Command::new("npm")
        .args(["pack", "--json", "--pack-destination", ".."])
        .current_dir(&source)
        .env("npm_config_cache", work.join(".npm-pack-cache"))
        .output()
        .expect("npm runs");
    assert!(out.status.success(), "npm pack: {}", super::text(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let tarball = std::fs::read(work.join(report[0]["filename"].as_str().unwrap())).unwrap();
    let field = |k: &str| report[0][k].as_str().unwrap().to_string();
    (tarball, field("integrity"), field("shasum"))
}

/// One request: the file its path names (a package document or a tarball), or 404.
fn answer(mut stream: TcpStream, files: &BTreeMap<String, Vec<u8>>) {
    let mut request = Vec::new();
    let mut buf = [0u8; 4096];
    while !request.windows(4).any(|w| w == b"\r\n\r\n") {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => request.extend_from_slice(&buf[..n]),
        }
    }
    let head = String::from_utf8_lossy(&request);
    let path = head.split_whitespace().nth(1).unwrap_or("/");
    // Scoped names come escaped (`@scope%2fname`); the test's names are plain.
    let key = path.trim_start_matches('/').split('?').next().unwrap_or("");
    let (status, body): (&str, &[u8]) = match files.get(key) {
        Some(body) => ("200 OK", body),
        None => ("404 Not Found", b"{}"),
    };
    let kind = if key.ends_with(".tgz") {
        "application/octet-stream"
    } else {
        "application/json"
    };
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(body);
}
