//! The layering rule of docs/design.md, checked from the repository itself. The layers are the
//! folders of src/ (base, host, store, measure, model, decide, assess, migrate, report, commands,
//! lowest first), so the tree shows the architecture: every source file sits in one of them (only lib.rs
//! and main.rs, the entry, at the root), imports point to its own layer or lower ones and never
//! to the crate root, no two files of one folder import each other round a cycle, clap is seen
//! only by the command layer, and no function outside tests is longer than 100 lines. A file's
//! `#[cfg(test)] mod` block and what follows it is test code (the project keeps unit tests at the
//! end of a file) and is not held to the rule; any other `#[cfg(test)]` item is.
//!
//! `cargo test --release --test it layering::` runs it; each rule's checker is tested on a small
//! made-up source first, so a rule that could never fire would fail here.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layers, lowest first, each a folder of src/; a file may import its own layer and those
/// before it.
const LAYERS: &[&str] = &[
    "base", "host", "store", "measure", "model", "decide", "assess", "migrate", "report",
    "commands",
];

/// The crate root's files: the entry, above every layer, and the tests' facade beside it.
const ENTRY: &[&str] = &["lib", "main", "facade"];

/// Imports that the layers allow but the design forbids, as (file, file) below src/: the policy
/// calls the advice, never the other way round.
const FORBIDDEN: &[(&str, &str)] = &[("decide/advice", "decide/policy")];

/// Only these top-level modules may name clap or the clap definitions in `commands::cli`.
const CLAP_LAYER: &[&str] = &["commands", "lib", "main", "facade"];

const MAX_FUNCTION_LINES: usize = 100;

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file below `dir`, relative to it, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(next) = pending.pop() {
        let entries = std::fs::read_dir(&next).unwrap_or_else(|e| panic!("{next:?}: {e}"));
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                found.push(path.strip_prefix(dir).unwrap().to_path_buf());
            }
        }
    }
    found.sort();
    found
}

/// The top-level module a file belongs to: its layer folder (`measure/scan/walk.rs` is
/// `measure`), or `lib`/`main` for the entry at the root.
fn module_of(relative: &Path) -> String {
    let first = relative.components().next().unwrap();
    let name = first.as_os_str().to_string_lossy();
    name.strip_suffix(".rs").unwrap_or(&name).to_string()
}

/// The part of a file the rule applies to: everything before its `#[cfg(test)] mod` block (the
/// unit tests, kept at the end of a file). A `#[cfg(test)]` on any other item (a helper, an
/// import) does not end the checked part: taking the first one as the start of the tests let
/// 709 lines of `host/mod.rs` skip every rule.
fn non_test_code(text: &str) -> &str {
    const ATTRIBUTE: &str = "#[cfg(test)]";
    let mut from = 0;
    while let Some(found) = text[from..].find(ATTRIBUTE) {
        let at = from + found;
        let item = text[at + ATTRIBUTE.len()..].trim_start();
        // Only a `mod tests { .. }` block is test code: a `#[cfg(test)]` on a function, or on a
        // `mod fixtures;` declaration above more code, hides nothing from the rules.
        let block = item
            .strip_prefix("mod tests")
            .is_some_and(|rest| rest.trim_start().starts_with('{'));
        if block {
            return &text[..at];
        }
        from = at + ATTRIBUTE.len();
    }
    text
}

/// The top-level names `code` reaches through `crate::`: `crate::a::b`, `crate::{a, b::c}`.
fn crate_references(code: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for (at, _) in code.match_indices("crate::") {
        let before = code[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let rest = &code[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let inner = &group[..group.find('}').unwrap_or(group.len())];
            names.extend(inner.split(',').filter_map(leading_name));
        } else {
            names.extend(leading_name(rest));
        }
    }
    names
}

fn leading_name(path: &str) -> Option<String> {
    let name: String = path
        .trim_start()
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    (!name.is_empty() && name != "self").then_some(name)
}

/// Module -> the other top-level modules it imports. A name at the crate root that is not a
/// layer (a function in lib.rs, say) is an import of `lib`.
fn import_graph(files: &[(String, String)]) -> BTreeMap<String, BTreeSet<String>> {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, text) in files {
        let imports = graph.entry(module.clone()).or_default();
        for name in crate_references(non_test_code(text)) {
            let target = if LAYERS.contains(&name.as_str()) {
                name
            } else {
                "lib".to_string()
            };
            if target != *module {
                imports.insert(target);
            }
        }
    }
    graph
}

/// Folder -> (file -> the sibling files and folders it imports), for every folder of src/. An
/// edge A -> B is A naming an item defined in B through a `crate::`, `super::` (any depth) or
/// `self::` path; a re-export (`pub use`) is followed to the file that defines the item and is
/// no edge itself, nor is `mod x;`. A folder's `mod.rs` is a node of its own folder's graph
/// (`mod.rs`), and the folder is one node of its parent's.
fn file_graphs(
    files: &[(PathBuf, String)],
) -> BTreeMap<PathBuf, BTreeMap<String, BTreeSet<String>>> {
    let items = Items::of(files);
    let mut graphs: BTreeMap<PathBuf, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for (relative, text) in files {
        let here = module_path(relative);
        // Every file is a node in its own folder's graph; a subfolder, in its parent's.
        for depth in 0..here.len() {
            let folder: PathBuf = here[..depth].iter().collect();
            graphs
                .entry(folder)
                .or_default()
                .entry(here[depth].clone())
                .or_default();
        }
        let code = without_reexports(non_test_code(text));
        for named in module_references(&code, &here) {
            let Some(target) = items.defining(&named, 0) else {
                continue;
            };
            let common = here.iter().zip(&target).take_while(|(a, b)| a == b).count();
            let node = |module: &[String]| module.get(common).cloned().unwrap_or("mod.rs".into());
            let (from, to) = (node(&here), node(&target));
            if from != to {
                let folder: PathBuf = here[..common].iter().collect();
                graphs
                    .entry(folder)
                    .or_default()
                    .entry(from)
                    .or_default()
                    .insert(to);
            }
        }
    }
    graphs
}

/// What each module of src/ defines and re-exports: enough to follow a path to its file.
struct Items {
    modules: BTreeSet<Vec<String>>,
    defined: BTreeMap<Vec<String>, BTreeSet<String>>,
    reexported: BTreeMap<Vec<String>, BTreeMap<String, Vec<String>>>,
}

impl Items {
    fn of(files: &[(PathBuf, String)]) -> Self {
        let mut items = Items {
            modules: BTreeSet::new(),
            defined: BTreeMap::new(),
            reexported: BTreeMap::new(),
        };
        for (relative, text) in files {
            let here = module_path(relative);
            let code = non_test_code(text);
            items.defined.insert(here.clone(), defined_names(code));
            let mut reexports = BTreeMap::new();
            for statement in reexport_statements(code) {
                let mut paths = Vec::new();
                use_tree(statement, &mut Vec::new(), &mut paths);
                for path in paths {
                    let absolute = absolute(&path, &here);
                    if let Some(name) = absolute.last() {
                        reexports.insert(name.clone(), absolute.clone());
                    }
                }
            }
            items.reexported.insert(here.clone(), reexports);
            items.modules.insert(here);
        }
        items
    }

    /// The module whose file defines what `path` names: the longest module it starts with,
    /// through the re-exports of that module when the next name is one of them.
    fn defining(&self, path: &[String], depth: usize) -> Option<Vec<String>> {
        let known = (0..=path.len())
            .rev()
            .find(|&k| self.modules.contains(&path[..k]))?;
        let module = path[..known].to_vec();
        let Some(name) = path.get(known) else {
            return Some(module);
        };
        if self.defined[&module].contains(name) || depth > 16 {
            return Some(module);
        }
        match self.reexported[&module].get(name) {
            Some(target) if target.as_slice() != path => {
                let mut followed = target.clone();
                followed.extend_from_slice(&path[known + 1..]);
                self.defining(&followed, depth + 1)
            }
            _ => Some(module),
        }
    }
}

/// A `use` path as written in the module `here`, from the crate's root: `crate::`, `super::`
/// (each one level up: a file's folder, a folder's parent), `self::`, or a child of `here`.
fn absolute(path: &[String], here: &[String]) -> Vec<String> {
    match path.first().map(String::as_str) {
        Some("crate") => path[1..].to_vec(),
        Some("self") => here.iter().chain(&path[1..]).cloned().collect(),
        Some("super") => {
            let supers = path.iter().take_while(|p| *p == "super").count();
            let mut up = here[..here.len().saturating_sub(supers)].to_vec();
            up.extend_from_slice(&path[supers..]);
            up
        }
        _ => here.iter().chain(path).cloned().collect(),
    }
}

/// The names `code` defines at any depth: functions, types, traits, constants and statics.
fn defined_names(code: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for keyword in [
        "fn ", "struct ", "enum ", "trait ", "type ", "const ", "static ", "union ",
    ] {
        for (at, _) in code.match_indices(keyword) {
            let before = code[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            names.extend(leading_name(&code[at + keyword.len()..]));
        }
    }
    names
}

/// The trees of the `pub use` statements in `code` (`pub use`, `pub(crate) use`, ...).
fn reexport_statements(code: &str) -> Vec<&str> {
    let mut found = Vec::new();
    for (at, _) in code.match_indices("pub") {
        let before = code[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let mut rest = &code[at + 3..];
        if let Some(scoped) = rest.strip_prefix('(') {
            rest = &scoped[scoped.find(')').map_or(0, |c| c + 1)..];
        }
        if let Some(tree) = rest.trim_start().strip_prefix("use ") {
            found.push(&tree[..tree.find(';').unwrap_or(tree.len())]);
        }
    }
    found
}

/// `code` without its re-exports: they are followed, not edges of the file that makes them.
fn without_reexports(code: &str) -> String {
    let mut kept = code.to_string();
    for statement in reexport_statements(code) {
        kept = kept.replacen(statement, "", 1);
    }
    kept
}

/// A source file's module path below the crate: `measure/deps/samplers/mod.rs` is
/// `[measure, deps, samplers]`, `lib.rs` and `main.rs` are the root.
fn module_path(relative: &Path) -> Vec<String> {
    let mut parts: Vec<String> = relative
        .parent()
        .into_iter()
        .flat_map(Path::components)
        .map(|c| c.as_os_str().to_string_lossy().to_string())
        .collect();
    let stem = relative.file_stem().unwrap().to_string_lossy().to_string();
    if !["mod", "lib", "main"].contains(&stem.as_str()) {
        parts.push(stem);
    }
    parts
}

/// Every module path `code` (of the module `here`: a file, or a folder for its `mod.rs`) names
/// through `crate::` or a chain of `super::`, resolved from the crate's root, use-groups
/// (`super::{a::{self, B}, c}`) unfolded.
fn module_references(code: &str, here: &[String]) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    for start in ["crate::", "super::", "self::"] {
        for (at, _) in code.match_indices(start) {
            let before = code[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let mut rest = &code[at..];
            let mut base: Vec<String> = match start {
                "crate::" => {
                    rest = &rest["crate::".len()..];
                    Vec::new()
                }
                "self::" => {
                    rest = &rest["self::".len()..];
                    here.to_vec()
                }
                _ => {
                    // Each `super` is the module above: a file's folder, a folder's parent.
                    let mut supers = 0;
                    while let Some(after) = rest.strip_prefix("super::") {
                        supers += 1;
                        rest = after;
                    }
                    here[..here.len().saturating_sub(supers)].to_vec()
                }
            };
            use_tree(rest, &mut base, &mut found);
        }
    }
    found
}

/// The paths of one use-tree at the start of `text` (`a::b::C`, `a::{b, c::D}`), each appended
/// to `base`.
fn use_tree(text: &str, base: &mut Vec<String>, found: &mut Vec<Vec<String>>) {
    let text = text.trim_start();
    if let Some(group) = text.strip_prefix('{') {
        let mut depth = 0;
        let mut item_start = 0;
        for (i, c) in group.char_indices() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => {
                    use_tree(&group[item_start..i], &mut base.clone(), found);
                    return;
                }
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    use_tree(&group[item_start..i], &mut base.clone(), found);
                    item_start = i + 1;
                }
                _ => {}
            }
        }
        return;
    }
    let name: String = text
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    if name.is_empty() || (name == "self" && !text[name.len()..].starts_with("::")) {
        found.push(base.clone());
        return;
    }
    base.push(name.clone());
    match text[name.len()..].strip_prefix("::") {
        Some(rest) => use_tree(rest, base, found),
        None => found.push(base.clone()),
    }
}

/// Each cycle's modules (strongly connected components of more than one module, or a module
/// importing itself), by repeated reachability: the graph is a few dozen modules.
fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<BTreeSet<String>> {
    let reachable = |from: &str| {
        let mut seen = BTreeSet::new();
        let mut pending: Vec<&str> = graph
            .get(from)
            .into_iter()
            .flatten()
            .map(|s| s.as_str())
            .collect();
        while let Some(next) = pending.pop() {
            if seen.insert(next.to_string()) {
                pending.extend(graph.get(next).into_iter().flatten().map(|s| s.as_str()));
            }
        }
        seen
    };
    let reach: BTreeMap<&str, BTreeSet<String>> =
        graph.keys().map(|m| (m.as_str(), reachable(m))).collect();
    let mut found: Vec<BTreeSet<String>> = Vec::new();
    for (module, from_here) in &reach {
        if !from_here.contains(*module) {
            continue;
        }
        let component: BTreeSet<String> = from_here
            .iter()
            .filter(|other| {
                reach
                    .get(other.as_str())
                    .is_some_and(|r| r.contains(*module))
            })
            .cloned()
            .collect();
        if !found.contains(&component) {
            found.push(component);
        }
    }
    found
}

fn layer_of(module: &str) -> Option<usize> {
    if ENTRY.contains(&module) {
        return Some(LAYERS.len());
    }
    LAYERS.iter().position(|layer| *layer == module)
}

fn layer_name(at: usize) -> &'static str {
    LAYERS.get(at).copied().unwrap_or("entry")
}

/// Every import that points up a layer or to the crate root, or comes from a file no layer
/// holds.
fn layer_violations(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    let mut found = Vec::new();
    for (module, imports) in graph {
        let Some(own) = layer_of(module) else {
            found.push(format!(
                "src/{module}: in no layer (move it into a layer folder, see docs/design.md)"
            ));
            continue;
        };
        for import in imports {
            match layer_of(import) {
                Some(theirs) if theirs <= own && !ENTRY.contains(&import.as_str()) => {}
                Some(theirs) => found.push(format!(
                    "{module} ({}) imports {import} ({})",
                    layer_name(own),
                    layer_name(theirs)
                )),
                None => found.push(format!("{module} imports {import}, which is in no layer")),
            }
        }
    }
    found
}

/// Imports between files of one folder that the design forbids.
fn forbidden_imports(
    graphs: &BTreeMap<PathBuf, BTreeMap<String, BTreeSet<String>>>,
) -> Vec<String> {
    let mut found = Vec::new();
    for (folder, graph) in graphs {
        for (file, imports) in graph {
            for import in imports {
                let from = folder.join(file);
                let to = folder.join(import);
                let pair = (from.to_string_lossy(), to.to_string_lossy());
                if FORBIDDEN.iter().any(|(a, b)| pair.0 == *a && pair.1 == *b) {
                    found.push(format!("src/{} imports src/{}", pair.0, pair.1));
                }
            }
        }
    }
    found
}

fn uses_clap(code: &str) -> bool {
    code.contains("commands::cli")
        || code.lines().any(|line| {
            let line = line.trim_start();
            !line.starts_with("//") && (line.contains("clap::") || line.starts_with("use clap"))
        })
}

/// The byte offset just past the `}` that closes the `{` at `open`, skipping comments, string
/// and character literals (lifetimes are told apart from character literals by their shape).
fn closing_brace(code: &str, open: usize) -> Option<usize> {
    let bytes = code.as_bytes();
    let (mut i, mut depth) = (open, 0usize);
    while i < bytes.len() {
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                i += code[i..].find('\n').unwrap_or(code.len() - i);
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += code[i..].find("*/").map_or(code.len() - i, |end| end + 1);
            }
            b'r' if matches!(bytes.get(i + 1), Some(b'"' | b'#'))
                && !bytes[..i]
                    .last()
                    .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_') =>
            {
                let hashes = bytes[i + 1..].iter().take_while(|&&c| c == b'#').count();
                if bytes.get(i + 1 + hashes) == Some(&b'"') {
                    let end = format!("\"{}", "#".repeat(hashes));
                    let body = i + 2 + hashes;
                    i = body
                        + code[body..]
                            .find(&end)
                            .map_or(code.len() - body, |e| e + end.len() - 1);
                }
            }
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'\'' if bytes.get(i + 1) == Some(&b'\\') => {
                i += 2 + code[i + 2..].find('\'').unwrap_or(0);
            }
            b'\'' if bytes.get(i + 2) == Some(&b'\'') => i += 2,
            b'{' => depth += 1,
            b'}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// (name, first line, lines) of every function in `code` longer than `limit` lines.
fn long_functions(code: &str, limit: usize) -> Vec<(String, usize, usize)> {
    let mut found = Vec::new();
    let mut offset = 0;
    for line in code.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let Some(name) = function_name(line) else {
            continue;
        };
        let open = match code[start..].find(['{', ';']) {
            Some(at) if code.as_bytes()[start + at] == b'{' => start + at,
            _ => continue,
        };
        let Some(end) = closing_brace(code, open) else {
            continue;
        };
        let first = code[..start].matches('\n').count() + 1;
        let lines = code[start..end].matches('\n').count() + 1;
        if lines > limit {
            found.push((name, first, lines));
        }
    }
    found
}

/// The name of the function a line starts, if it starts one: `pub(crate) async fn name`.
fn function_name(line: &str) -> Option<String> {
    let mut words = line.split_whitespace().peekable();
    while let Some(word) = words.next() {
        match word {
            "fn" => {
                return words.next().map(|w| {
                    w.chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect()
                });
            }
            "pub" | "const" | "async" | "unsafe" | "extern" | "\"C\"" | "default" => {}
            w if w.starts_with("pub(") => {}
            _ => return None,
        }
    }
    None
}

fn project() -> Vec<(String, PathBuf, String)> {
    let src = src_dir();
    rust_files(&src)
        .into_iter()
        .map(|relative| {
            let text = std::fs::read_to_string(src.join(&relative)).unwrap();
            (module_of(&relative), relative, text)
        })
        .collect()
}

#[test]
fn imports_point_down_the_layers_without_cycles() {
    let files: Vec<(String, String)> = project().into_iter().map(|(m, _, t)| (m, t)).collect();
    let graph = import_graph(&files);
    assert_eq!(
        graph.len(),
        LAYERS.len() + ENTRY.len(),
        "modules found: {graph:?}"
    );
    assert!(
        graph["assess"].contains("measure"),
        "assess's imports not seen: {graph:?}"
    );
    let cycles = cycles(&graph);
    assert!(
        cycles.is_empty(),
        "import cycles between layers: {cycles:?}"
    );
    let violations = layer_violations(&graph);
    assert!(
        violations.is_empty(),
        "imports against the layers:\n{}",
        violations.join("\n")
    );
}

#[test]
fn no_cycle_between_the_files_of_a_folder() {
    // What the checker once missed: a folder's `mod.rs`, and a file two folders down reaching
    // up with `super::super::` or by its full path, inside a use-group.
    let made_up = |files: &[(&str, &str)]| {
        let files: Vec<(PathBuf, String)> = files
            .iter()
            .map(|(r, t)| (PathBuf::from(r), t.to_string()))
            .collect();
        cycles(&file_graphs(&files)[Path::new("a")])
    };
    let through_mod = made_up(&[
        ("a/x.rs", "use super::y::Thing;"),
        ("a/y/mod.rs", "use super::{x::{self, Other}, w};"),
        ("a/w.rs", ""),
    ]);
    assert_eq!(through_mod.len(), 1, "{through_mod:?}");
    let through_super_super = made_up(&[
        ("a/x.rs", "fn f() { crate::a::y::z::go(); }"),
        ("a/y/mod.rs", "pub mod z;"),
        ("a/y/z.rs", "use super::super::x;"),
    ]);
    assert_eq!(through_super_super.len(), 1, "{through_super_super:?}");
    // A folder's mod.rs is a node of its own folder, and a re-export is followed to the file
    // that defines the item: mod.rs -> y (self::), y -> x (through mod.rs's `pub use`), x ->
    // mod.rs (an item mod.rs defines).
    let through_reexport = made_up(&[
        (
            "a/mod.rs",
            "mod x;\nmod y;\npub use x::Thing;\npub struct M;\nfn f() { self::y::g(); }",
        ),
        ("a/x.rs", "use super::M;\npub struct Thing;"),
        ("a/y.rs", "use super::Thing;\npub fn g() {}"),
    ]);
    assert_eq!(through_reexport.len(), 1, "{through_reexport:?}");
    assert_eq!(through_reexport[0].len(), 3, "{through_reexport:?}");
    // The re-export alone is no edge: mod.rs showing x's item while x uses mod.rs's is fine.
    let reexport_only = made_up(&[
        ("a/mod.rs", "mod x;\npub use x::Thing;\npub struct M;"),
        ("a/x.rs", "use super::M;\npub struct Thing;"),
    ]);
    assert!(reexport_only.is_empty(), "{reexport_only:?}");
    let files: Vec<(PathBuf, String)> = project().into_iter().map(|(_, r, t)| (r, t)).collect();
    let graphs = file_graphs(&files);
    assert!(
        graphs[Path::new("assess")]["advisory"].contains("pipeline"),
        "the advisory's use of the pipeline not seen: {graphs:?}"
    );
    let found: Vec<String> = graphs
        .iter()
        .flat_map(|(folder, graph)| {
            cycles(graph)
                .into_iter()
                .map(move |c| format!("src/{}/: {c:?}", folder.display()))
        })
        .collect();
    assert!(
        found.is_empty(),
        "import cycles between files:\n{}",
        found.join("\n")
    );
    let forbidden = forbidden_imports(&graphs);
    assert!(forbidden.is_empty(), "forbidden imports: {forbidden:?}");
}

#[test]
fn only_the_command_layer_sees_clap() {
    let below: Vec<String> = project()
        .into_iter()
        .filter(|(module, _, text)| {
            !CLAP_LAYER.contains(&module.as_str()) && uses_clap(non_test_code(text))
        })
        .map(|(_, relative, _)| format!("src/{}", relative.display()))
        .collect();
    assert!(below.is_empty(), "clap below the command layer: {below:?}");
}

#[test]
fn no_function_outside_tests_is_over_100_lines() {
    let limit = std::env::var("MAX_FN_LINES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(MAX_FUNCTION_LINES);
    let every = project()
        .iter()
        .map(|(_, _, text)| long_functions(non_test_code(text), 0).len())
        .sum::<usize>();
    assert!(every > 300, "only {every} functions found in src/");
    let long: Vec<String> = project()
        .into_iter()
        .flat_map(|(_, relative, text)| {
            long_functions(non_test_code(&text), limit).into_iter().map(
                move |(name, line, lines)| {
                    format!("src/{}:{line}: {name} is {lines} lines", relative.display())
                },
            )
        })
        .collect();
    assert!(
        long.is_empty(),
        "functions over {limit} lines:\n{}",
        long.join("\n")
    );
}

/// No function outside tests is over 60 lines (issue 51 asked for at most 10; the splits
/// brought them from 51 to none): a long function now is split, or this says where.
const MAX_FUNCTION_LINES_NOW: usize = 60;

#[test]
fn no_function_outside_tests_is_over_60_lines() {
    let long: Vec<String> = project()
        .into_iter()
        .flat_map(|(_, relative, text)| {
            long_functions(non_test_code(&text), MAX_FUNCTION_LINES_NOW)
                .into_iter()
                .map(move |(name, line, lines)| {
                    format!("src/{}:{line}: {name} is {lines} lines", relative.display())
                })
        })
        .collect();
    assert!(
        long.is_empty(),
        "functions over {MAX_FUNCTION_LINES_NOW} lines (split by meaning):\n{}",
        long.join("\n")
    );
}

/// Lines of code in a file outside its tests, at most (issue 51): blank lines and comments do
/// not count.
const MAX_FILE_CODE_LINES: usize = 500;

fn code_lines(text: &str) -> usize {
    non_test_code(text)
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with("//"))
        .count()
}

#[test]
fn no_file_is_over_500_lines_of_code() {
    // A test-only module declared above more code hides nothing.
    assert!(non_test_code("#[cfg(test)]\nmod fixtures;\nfn f() {}").contains("fn f()"));
    assert_eq!(
        code_lines(
            "fn a() {}\n\n// why\n/// doc\nfn b() {}\n#[cfg(test)]\nmod tests {\n fn t() {}\n}\n"
        ),
        2
    );
    let long: Vec<String> = project()
        .into_iter()
        .filter(|(_, _, text)| code_lines(text) > MAX_FILE_CODE_LINES)
        .map(|(_, relative, text)| {
            format!(
                "src/{}: {} lines of code",
                relative.display(),
                code_lines(&text)
            )
        })
        .collect();
    assert!(
        long.is_empty(),
        "files over {MAX_FILE_CODE_LINES} lines of code (split by concern):\n{}",
        long.join("\n")
    );
}

/// Each checker on made-up sources: it finds what it is there to find.
#[test]
fn the_checkers_catch_what_they_look_for() {
    let files = vec![
        (
            "model".to_string(),
            "use crate::{measure, base::units::duration_ms};".to_string(),
        ),
        (
            "measure".to_string(),
            "fn f() { crate::model::predict(); }".to_string(),
        ),
        (
            "base".to_string(),
            "#[cfg(test)]\nmod tests {\n    use crate::report;\n}".to_string(),
        ),
        (
            "decide".to_string(),
            "#[cfg(test)]\nfn helper() {}\nfn f() { crate::report::x(); }".to_string(),
        ),
        (
            "report".to_string(),
            "fn f() { crate::report_failure(); }".to_string(),
        ),
        ("stray".to_string(), String::new()),
    ];
    let graph = import_graph(&files);
    assert_eq!(
        graph["model"],
        BTreeSet::from(["base".to_string(), "measure".to_string()])
    );
    assert!(graph["base"].is_empty(), "test code counted: {graph:?}");
    let found = cycles(&graph);
    assert_eq!(
        found,
        vec![BTreeSet::from(["measure".to_string(), "model".to_string()])]
    );
    let violations = layer_violations(&graph);
    assert_eq!(
        violations,
        vec![
            "decide (decide) imports report (report)".to_string(),
            "measure (measure) imports model (model)".to_string(),
            "report (report) imports lib (entry)".to_string(),
            "src/stray: in no layer (move it into a layer folder, see docs/design.md)".to_string(),
        ]
    );

    let sources = vec![
        (
            PathBuf::from("decide/mod.rs"),
            "pub mod advice; pub mod policy;".to_string(),
        ),
        (
            PathBuf::from("decide/advice.rs"),
            "use super::policy::Verdict;".to_string(),
        ),
        (
            PathBuf::from("decide/policy.rs"),
            "use crate::decide::advice::Advice;".to_string(),
        ),
        (
            PathBuf::from("decide/observations.rs"),
            "use super::policy;".to_string(),
        ),
    ];
    let graphs = file_graphs(&sources);
    let decide = &graphs[Path::new("decide")];
    assert_eq!(
        cycles(decide),
        vec![BTreeSet::from(["advice".to_string(), "policy".to_string()])]
    );
    assert_eq!(
        forbidden_imports(&graphs),
        vec!["src/decide/advice imports src/decide/policy".to_string()]
    );

    assert!(uses_clap("use clap::Parser;"));
    assert!(uses_clap("fn f(a: &crate::commands::cli::CheckArgs) {}"));
    assert!(!uses_clap("// clap:: only in a comment\nfn f() {}"));

    let body = "    let s = \"}\"; let c = '{'; let r = r#\"{\"#; // }\n".repeat(99);
    let long = format!("pub(crate) fn long<'a>(x: &'a str) {{\n{body}}}\nfn short() {{}}\n");
    assert_eq!(
        long_functions(&long, 100),
        vec![("long".to_string(), 1, 101)]
    );
    assert!(long_functions(&long, 101).is_empty());
    assert!(long_functions("trait T {\n    fn declared(&self);\n}\n", 0).is_empty());
}

/// Migrate's own rule (docs/design.md): `kernel/` is what every operation stands on, and each
/// other folder of `src/migrate/` is one operation on it, so the kernel imports no operation and
/// no operation imports another (what two share goes down into the kernel). Only `mod.rs` at the
/// top, which dispatches, sees them all.
const MIGRATE_KERNEL: &str = "kernel";

/// For each file below `src/migrate/` (as `unit/...`), the other units of migrate it names:
/// through `crate::migrate::unit`, or through as many `super::` as climb back to migrate.
fn migrate_unit_imports(files: &[(PathBuf, String)]) -> Vec<(PathBuf, String, String)> {
    let mut found = Vec::new();
    for (relative, text) in files {
        let Ok(inside) = relative.strip_prefix("migrate") else {
            continue;
        };
        let parts: Vec<String> = inside
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if parts.len() < 2 {
            continue; // migrate/mod.rs: the dispatcher
        }
        let unit = parts[0].trim_end_matches(".rs").to_string();
        // The file's module path below migrate: `sync/plan.rs` is sync::plan, `sync/mod.rs` sync.
        let depth = parts.len() - usize::from(parts.last().is_some_and(|p| p == "mod.rs"));
        let code = non_test_code(text);
        let climb = "super::".repeat(depth);
        let rewritten = code
            .replace("crate::migrate::", "MIGRATE::")
            .replace(&climb, "MIGRATE::")
            .replace("MIGRATE::", "crate::");
        for name in crate_references(&rewritten) {
            let is_unit = files.iter().any(|(other, _)| {
                other.starts_with(Path::new("migrate").join(&name))
                    || other == &Path::new("migrate").join(format!("{name}.rs"))
            });
            if is_unit && name != unit {
                found.push((relative.clone(), unit.clone(), name));
            }
        }
    }
    found
}

fn migrate_rule_breaks(files: &[(PathBuf, String)]) -> Vec<String> {
    migrate_unit_imports(files)
        .into_iter()
        .filter(|(_, from, to)| from == MIGRATE_KERNEL || to != MIGRATE_KERNEL)
        .map(|(file, from, to)| {
            let what = match from == MIGRATE_KERNEL {
                true => "the kernel imports an operation",
                false => "an operation imports another",
            };
            format!("src/{}: {what} ({from} -> {to})", file.display())
        })
        .collect()
}

#[test]
fn migrate_operations_stand_on_the_kernel_alone() {
    let files: Vec<(PathBuf, String)> = project().into_iter().map(|(_, r, t)| (r, t)).collect();
    let seen = migrate_unit_imports(&files);
    assert!(
        seen.iter()
            .any(|(_, from, to)| from == "sync" && to == MIGRATE_KERNEL),
        "the sync's use of the kernel not seen: {seen:?}"
    );
    let breaks = migrate_rule_breaks(&files);
    assert!(breaks.is_empty(), "{}", breaks.join("\n"));

    let made_up = |path: &str, code: &str| (PathBuf::from(path), code.to_string());
    let sources = vec![
        made_up("migrate/mod.rs", "use sync::run; use kernel::Run;"),
        made_up("migrate/kernel/mod.rs", "pub mod plan;"),
        made_up("migrate/kernel/plan.rs", "use super::super::undo::Undo;"),
        made_up("migrate/sync/mod.rs", "use super::kernel::Run;"),
        made_up("migrate/sync/plan.rs", "use crate::migrate::moving::ask;"),
        made_up(
            "migrate/undo/finished.rs",
            "use super::super::kernel::plan;",
        ),
        made_up("migrate/moving/mod.rs", "fn f() {}"),
    ];
    assert_eq!(
        migrate_rule_breaks(&sources),
        vec![
            "src/migrate/kernel/plan.rs: the kernel imports an operation (kernel -> undo)",
            "src/migrate/sync/plan.rs: an operation imports another (sync -> moving)",
        ]
    );
}

/// The names of the host's folders for what the tool keeps (issue 51): only `store/` turns them
/// into files, so the layers that measure and assess ask it for a file by purpose instead.
const STORE_FOLDERS: &[&str] = &["state_dir", "cache_dir", "state_home", "cache_home"];
const ASK_THE_STORE: &[&str] = &["measure", "assess"];

/// Each file of `sources` in an [`ASK_THE_STORE`] layer that names one of [`STORE_FOLDERS`]
/// anywhere (tests and comments too, as `grep` would), with the first name it uses.
fn naming_the_store_folders(sources: &[(PathBuf, String)]) -> Vec<String> {
    sources
        .iter()
        .filter(|(relative, _)| ASK_THE_STORE.contains(&module_of(relative).as_str()))
        .filter_map(|(relative, text)| {
            let name = STORE_FOLDERS.iter().find(|name| text.contains(*name))?;
            Some(format!("src/{}: {name}", relative.display()))
        })
        .collect()
}

/// The most sibling imports a folder of `src/migrate/` may hold (issue 51): a file importing
/// another file or subfolder of its own folder is one edge. The flat kernel had 67, the engine
/// and the repairs after the move side by side in one folder.
const MIGRATE_SIBLING_EDGES_AT_MOST: usize = 40;

/// Each folder's count of (file, sibling) imports, from [`file_graphs`].
fn sibling_edges(
    graphs: &BTreeMap<PathBuf, BTreeMap<String, BTreeSet<String>>>,
) -> BTreeMap<PathBuf, usize> {
    graphs
        .iter()
        .map(|(folder, graph)| (folder.clone(), graph.values().map(BTreeSet::len).sum()))
        .collect()
}

#[test]
fn only_the_store_names_the_state_and_cache_folders() {
    let files: Vec<(PathBuf, String)> = project().into_iter().map(|(_, r, t)| (r, t)).collect();
    let found = naming_the_store_folders(&files);
    assert!(
        found.is_empty(),
        "ask crate::store::Store for the file instead:\n{}",
        found.join("\n")
    );

    let made_up = |path: &str, code: &str| (PathBuf::from(path), code.to_string());
    let sources = vec![
        made_up("measure/accuracy.rs", "let f = env.state_dir()?;"),
        made_up(
            "assess/nudge.rs",
            "// XDG_CACHE_HOME is the store's\nfn f() {}",
        ),
        made_up(
            "assess/pipeline/git_cache.rs",
            "#[cfg(test)]\nmod tests { cache_home(); }",
        ),
        made_up("store/mod.rs", "fn cache_dir() {}"),
    ];
    assert_eq!(
        naming_the_store_folders(&sources),
        vec![
            "src/measure/accuracy.rs: state_dir",
            "src/assess/pipeline/git_cache.rs: cache_home",
        ]
    );
}

#[test]
fn no_folder_of_migrate_is_a_web_of_sibling_imports() {
    let made_up = vec![
        (
            PathBuf::from("migrate/x/mod.rs"),
            "use super::a;".to_string(),
        ),
        (
            PathBuf::from("migrate/x/a.rs"),
            "use super::{b, c}; use crate::migrate::x::b::f;".to_string(),
        ),
        (PathBuf::from("migrate/x/b.rs"), "use super::c;".to_string()),
        (PathBuf::from("migrate/x/c.rs"), String::new()),
    ];
    let counted = sibling_edges(&file_graphs(&made_up));
    assert_eq!(counted[Path::new("migrate/x")], 3, "{counted:?}");

    let files: Vec<(PathBuf, String)> = project().into_iter().map(|(_, r, t)| (r, t)).collect();
    let counted = sibling_edges(&file_graphs(&files));
    let migrate: Vec<(&PathBuf, &usize)> = counted
        .iter()
        .filter(|(folder, _)| folder.starts_with("migrate"))
        .collect();
    assert!(
        migrate.len() > 4,
        "the folders of src/migrate not seen: {counted:?}"
    );
    let over: Vec<String> = migrate
        .iter()
        .filter(|(_, edges)| **edges > MIGRATE_SIBLING_EDGES_AT_MOST)
        .map(|(folder, edges)| format!("src/{}/: {edges} sibling imports", folder.display()))
        .collect();
    assert!(
        over.is_empty(),
        "folders of src/migrate over {MIGRATE_SIBLING_EDGES_AT_MOST} sibling imports (split the \
         folder by what its files are for):\n{}",
        over.join("\n")
    );
}

/// The copy engine of migrate's kernel (`kernel/engine/`) copies what its plan holds and knows
/// nothing of what stands on it: the repairs after the move and the run around them
/// (`kernel/repairs/`, `kernel/*.rs`) import the engine, never the other way round.
const MIGRATE_ENGINE: &str = "migrate/kernel/engine";

/// The files of `sources` below [`MIGRATE_ENGINE`] whose code outside tests reaches out of the
/// engine into the rest of migrate: through `super::super::` or a `migrate::` path elsewhere.
fn engine_reaching_out(sources: &[(PathBuf, String)]) -> Vec<String> {
    sources
        .iter()
        .filter(|(relative, _)| relative.starts_with(MIGRATE_ENGINE))
        .filter(|(relative, text)| {
            let code = non_test_code(text);
            let climbs = relative.file_name().is_some_and(|n| n != "mod.rs")
                && code.contains("super::super::");
            let named = code
                .match_indices("migrate::")
                .any(|(at, _)| !code[at..].starts_with("migrate::kernel::engine::"));
            climbs || named
        })
        .map(|(relative, _)| format!("src/{}", relative.display()))
        .collect()
}

#[test]
fn the_migrate_engine_knows_nothing_of_the_repairs() {
    let made_up = |path: &str, code: &str| (PathBuf::from(path), code.to_string());
    let sources = vec![
        made_up(
            "migrate/kernel/engine/plan.rs",
            "use super::super::repairs::venvs;",
        ),
        made_up(
            "migrate/kernel/engine/copy.rs",
            "use crate::migrate::kernel::outcome::Copied;",
        ),
        made_up(
            "migrate/kernel/engine/stage.rs",
            "use super::copy; use crate::migrate::kernel::engine::plan::Plan;\n#[cfg(test)]\nmod tests { use super::super::super::repairs; }",
        ),
        made_up(
            "migrate/kernel/repairs/venvs.rs",
            "use super::super::engine::plan;",
        ),
    ];
    assert_eq!(
        engine_reaching_out(&sources),
        [
            "src/migrate/kernel/engine/plan.rs",
            "src/migrate/kernel/engine/copy.rs"
        ]
    );
    let files: Vec<(PathBuf, String)> = project().into_iter().map(|(_, r, t)| (r, t)).collect();
    assert!(
        files.iter().any(|(r, _)| r.starts_with(MIGRATE_ENGINE)),
        "{MIGRATE_ENGINE} is missing"
    );
    let out = engine_reaching_out(&files);
    assert!(
        out.is_empty(),
        "the engine imports what stands on it (move the shared type down into the engine): {out:?}"
    );
}

/// The one module allowed to start git: it overrides what a repository's config would make
/// git run (issue 49), so a git started anywhere else would run the repository's commands.
const GIT_MODULE: &str = "host/git/mod.rs";

/// The files of `sources` other than [`GIT_MODULE`] whose code outside tests starts git
/// itself: `Command::new("git")` in any spelling of its whitespace or path.
fn git_started_outside(sources: &[(PathBuf, &str)]) -> Vec<String> {
    code_outside(
        sources,
        GIT_MODULE,
        &["::new(\"git\")", "Command::new(\"git"],
    )
}

/// The files of `sources` other than `module` whose code outside tests, its whitespace taken
/// out, holds any of `needles`.
fn code_outside(sources: &[(PathBuf, &str)], module: &str, needles: &[&str]) -> Vec<String> {
    sources
        .iter()
        .filter(|(relative, _)| relative != Path::new(module))
        .filter(|(_, text)| {
            let squeezed: String = non_test_code(text)
                .chars()
                .filter(|c| !c.is_whitespace())
                .collect();
            needles.iter().any(|needle| squeezed.contains(needle))
        })
        .map(|(relative, _)| relative.display().to_string())
        .collect()
}

#[test]
fn git_is_started_only_by_the_git_module() {
    let made_up = [
        (
            PathBuf::from("measure/x.rs"),
            "fn f() { std::process::Command::new( \"git\" ).arg(\"status\"); }",
        ),
        (
            PathBuf::from(GIT_MODULE),
            "fn base() { Command::new(\"git\"); }",
        ),
        (
            PathBuf::from("measure/y.rs"),
            "fn f() {}\n#[cfg(test)]\nmod tests { fn t() { Command::new(\"git\"); } }",
        ),
    ];
    assert_eq!(git_started_outside(&made_up), ["measure/x.rs"]);
    let files = project();
    let sources: Vec<(PathBuf, &str)> = files
        .iter()
        .map(|(_, relative, text)| (relative.clone(), text.as_str()))
        .collect();
    assert!(
        sources.iter().any(|(r, _)| r == Path::new(GIT_MODULE)),
        "{GIT_MODULE} is missing"
    );
    let outside = git_started_outside(&sources);
    assert!(
        outside.is_empty(),
        "git is started outside {GIT_MODULE}, where the repository's commands are not overridden: {outside:?}"
    );
}

/// The one module that starts processes (issue 65): every run has a limit, its own process
/// group, and obeys Ctrl-C there; a process started anywhere else would do none of it.
const PROCESS_MODULE: &str = "base/process.rs";

/// The files of `sources` other than [`PROCESS_MODULE`] whose code outside tests starts a
/// process itself: `.spawn()`, `.output()` or `.status()` in any spelling of its whitespace.
fn processes_started_outside(sources: &[(PathBuf, &str)]) -> Vec<String> {
    code_outside(
        sources,
        PROCESS_MODULE,
        &[".spawn()", ".output()", ".status()"],
    )
}

#[test]
fn processes_are_started_only_by_the_process_module() {
    let made_up = [
        (
            PathBuf::from("measure/x.rs"),
            "fn f() { Command::new(\"npm\").arg(\"-v\")\n    .spawn ( ); }",
        ),
        (
            PathBuf::from("measure/z.rs"),
            "fn f() { let s = cmd.status (); }",
        ),
        (PathBuf::from(PROCESS_MODULE), "fn run() { cmd.spawn(); }"),
        (
            PathBuf::from("measure/y.rs"),
            "fn f() {}\n#[cfg(test)]\nmod tests { fn t() { cmd.output(); } }",
        ),
    ];
    assert_eq!(
        processes_started_outside(&made_up),
        ["measure/x.rs", "measure/z.rs"]
    );
    let files = project();
    let sources: Vec<(PathBuf, &str)> = files
        .iter()
        .map(|(_, relative, text)| (relative.clone(), text.as_str()))
        .collect();
    assert!(
        sources.iter().any(|(r, _)| r == Path::new(PROCESS_MODULE)),
        "{PROCESS_MODULE} is missing"
    );
    let outside = processes_started_outside(&sources);
    assert!(
        outside.is_empty(),
        "a process is started outside {PROCESS_MODULE}, without its limit, group and Ctrl-C: {outside:?}"
    );
}

/// Issue 65: every child process starts through `base/process.rs` (its time limit, its own
/// process group, Ctrl-C, no input, capped output), the unit tests' included.
#[test]
fn processes_are_made_in_one_file() {
    let made: Vec<String> = project()
        .into_iter()
        .filter(|(_, relative, text)| {
            relative != Path::new("base/process.rs") && text.contains("Command::new(")
        })
        .map(|(_, relative, _)| relative.display().to_string())
        .collect();
    assert!(
        made.is_empty(),
        "Command::new outside src/base/process.rs: {made:?}"
    );
}

/// Issue 65: the layers are the crate's own, so the compiler finds code no command reaches; the
/// binary's `run` and the tests' `facade` are all the library shows.
#[test]
fn the_library_shows_at_most_two_modules() {
    let lib = std::fs::read_to_string(src_dir().join("lib.rs")).unwrap();
    let shown: Vec<&str> = lib
        .lines()
        .filter(|l| l.trim_start().starts_with("pub mod "))
        .collect();
    assert!(shown.len() <= 2, "{shown:?}");
}
