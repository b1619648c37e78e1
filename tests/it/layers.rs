//! The layering rule of docs/architecture.md ("Layers"), checked against the code: every
//! `crate::` path in a library module (its `use` lines and any path written out in full) must
//! name the module itself or a module of a lower layer, never a name that lib.rs re-exports.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// Modules of the binaries, above the library: not in the layer list.
const BINARIES: [&str; 3] = ["main", "cli", "bin"];

/// The layers of docs/architecture.md, module -> layer number (0 at the bottom).
fn layers(root: &Path) -> BTreeMap<String, u32> {
    let doc = fs::read_to_string(root.join("docs/architecture.md")).expect("docs/architecture.md is readable");
    let start = doc.find("<!-- layers:").expect("docs/architecture.md has the `<!-- layers: ... -->` list");
    let block = &doc[start..];
    let open = block.find("```text\n").expect("the layer list is a ```text block") + "```text\n".len();
    let close = block[open..].find("```").expect("the layer block is closed") + open;
    let mut map = BTreeMap::new();
    for line in block[open..close].lines().filter(|l| !l.trim().is_empty()) {
        let line = line.trim_start();
        let (number, rest) = line.split_once(' ').expect("a layer line starts with its number");
        let layer: u32 = number.parse().unwrap_or_else(|_| panic!("layer number in {line:?}"));
        let modules = rest.trim_start().split("  ").next().expect("modules");
        for module in modules.split_whitespace() {
            assert!(map.insert(module.to_string(), layer).is_none(), "{module} is listed twice");
        }
    }
    assert!(map.len() >= 5, "the layer list has only {} modules", map.len());
    map
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("src/ is readable") {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `text` without its `//` comments (doc comments included).
fn strip_comments(text: &str) -> String {
    text.lines().map(|l| l.find("//").map_or(l, |i| &l[..i])).collect::<Vec<_>>().join("\n")
}

/// The first segment of every `crate::` path in `code`: `crate::a::b` gives `a`, and
/// `crate::{a::b, c}` gives `a` and `c`.
fn crate_paths(code: &str) -> Vec<String> {
    let mut found = Vec::new();
    let ident = |s: &str| s.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect::<String>();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        let before = rest[..i].chars().next_back();
        rest = &rest[i + "crate::".len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        if let Some(group) = rest.strip_prefix('{') {
            // Top-level items of the group: split at commas outside nested braces.
            let (mut depth, mut item) = (0, String::new());
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        found.push(ident(item.trim()));
                        item.clear();
                        continue;
                    }
                    _ => {}
                }
                item.push(c);
            }
            found.push(ident(item.trim()));
        } else {
            found.push(ident(rest));
        }
    }
    found.retain(|s| !s.is_empty() && s != "self");
    found
}

/// Names defined at the crate root (re-exports in lib.rs, exported macros) -> their module.
fn root_names(src: &Path, files: &[PathBuf]) -> BTreeMap<String, String> {
    let mut names = BTreeMap::new();
    let lib = strip_comments(&fs::read_to_string(src.join("lib.rs")).expect("lib.rs"));
    for statement in lib.split(';') {
        let Some(used) = statement.trim().strip_prefix("pub use ") else { continue };
        let (module, items) = used.split_once("::").expect("a re-export names its module");
        for item in items.trim_matches(|c| c == '{' || c == '}').split(',') {
            let name = item.trim().rsplit("::").next().expect("name").trim();
            names.insert(name.to_string(), module.trim().to_string());
        }
    }
    for file in files {
        let text = fs::read_to_string(file).expect("source file");
        for part in text.split("#[macro_export]").skip(1) {
            let name = part.trim_start().strip_prefix("macro_rules!").expect("an exported macro").trim_start();
            let name: String = name.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            names.insert(name, module_of(src, file));
        }
    }
    names
}

/// The top-level module a file belongs to: `src/model/book.rs` -> `model`.
fn module_of(src: &Path, file: &Path) -> String {
    let relative = file.strip_prefix(src).expect("under src/");
    let first = relative.components().next().expect("a path").as_os_str().to_string_lossy();
    first.trim_end_matches(".rs").to_string()
}

#[test]
fn no_module_imports_a_module_above_or_beside_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let src = root.join("src");
    let layer = layers(root);
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let roots = root_names(&src, &files);
    let mut wrong = Vec::new();
    let mut checked = 0;
    for file in &files {
        let module = module_of(&src, file);
        if module == "lib" || BINARIES.contains(&module.as_str()) {
            continue;
        }
        let Some(&own) = layer.get(&module) else {
            wrong.push(format!("{}: module `{module}` is in no layer of docs/architecture.md", file.display()));
            continue;
        };
        let code = strip_comments(&fs::read_to_string(file).expect("source file"));
        for name in crate_paths(&code) {
            checked += 1;
            if let Some(module_of_name) = roots.get(&name) {
                // lib.rs re-exports the public API for users; inside the crate a path names the
                // module, so that no import runs through the root (which imports the pipeline).
                wrong.push(format!("{}: `crate::{name}` goes through lib.rs; write `crate::{module_of_name}::...`", file.display()));
                continue;
            }
            let target = name;
            if target == module {
                continue;
            }
            match layer.get(&target) {
                Some(&other) if other < own => {}
                Some(&other) => wrong.push(format!(
                    "{}: `{module}` (layer {own}) imports `{target}` (layer {other})",
                    file.strip_prefix(root).unwrap_or(file).display()
                )),
                None => wrong.push(format!("{}: `crate::{target}` is no module of the layer list", file.display())),
            }
        }
    }
    assert!(checked > 100, "only {checked} crate paths found: is the parser broken?");
    assert!(wrong.is_empty(), "imports against the layers:\n{}", wrong.join("\n"));
}

#[test]
fn the_path_reader_sees_groups_and_full_paths() {
    let code = "use crate::{chess::Packed, entropy::{Cdf, TOTAL}};\nlet x = crate::model::Model::builtin(1);\nuse crate::Error;";
    assert_eq!(crate_paths(code), ["chess", "entropy", "model", "Error"]);
}
