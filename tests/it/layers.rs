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

/// `code` with its comments, string and char literals blanked (same length, newlines kept), so
/// that braces and `::` in them are not read as code.
fn blank_literals(code: &str) -> String {
    let chars: Vec<char> = code.chars().collect();
    let mut out = String::with_capacity(code.len());
    let mut i = 0;
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == 'r'
            && (next == Some('"') || next == Some('#'))
            && !chars[..i].last().is_some_and(|p| p.is_alphanumeric() || *p == '_')
        {
            // A raw string r"..." or r#"..."#.
            let mut j = i + 1;
            let mut hashes = 0;
            while chars.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if chars.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            loop {
                if j >= chars.len() {
                    break;
                }
                if chars[j] == '"' && (0..hashes).all(|h| chars.get(j + 1 + h) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            out.extend(chars[i..j.min(chars.len())].iter().map(|&c| blank(c)));
            i = j;
        } else if c == '"' {
            let mut j = i + 1;
            while j < chars.len() && chars[j] != '"' {
                j += if chars[j] == '\\' { 2 } else { 1 };
            }
            let j = (j + 1).min(chars.len());
            out.extend(chars[i..j].iter().map(|&c| blank(c)));
            i = j;
        } else if c == '\'' && (chars.get(i + 2) == Some(&'\'') || next == Some('\\')) {
            // A char literal ('x' or '\n', '\u{..}'); a lifetime has no closing quote.
            let mut j = i + 1;
            while j < chars.len() && chars[j] != '\'' {
                j += if chars[j] == '\\' { 2 } else { 1 };
            }
            let j = (j + 1).min(chars.len());
            out.extend(chars[i..j].iter().map(|&c| blank(c)));
            i = j;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// The module path of a file below `src/`: `model/features.rs` -> `[model, features]`,
/// `model/mod.rs` -> `[model]`, `lib.rs` -> `[]`.
fn module_path(src: &Path, file: &Path) -> Vec<String> {
    let relative = file.strip_prefix(src).expect("under src/");
    let mut path: Vec<String> = relative.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
    let last = path.pop().expect("a file name");
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" {
        path.push(stem.to_string());
    }
    path
}

/// Every path written with `crate::`, `super::` or `self::` in `code` (literals blanked),
/// resolved to an absolute module path, with `own` the module path of the file: inline
/// modules (`mod tests { .. }`) are followed, so that `super::` inside one names the file.
/// `use` groups are expanded: `crate::a::{b, c::d}` gives `a::b` and `a::c::d`. Paths inside a
/// `mod tests` (a file's unit tests) are left out: a test may build its case with any file of
/// its folder (the released models, the parser), the code it tests may not.
fn resolved_paths(code: &str, own: &[String]) -> Vec<Vec<String>> {
    let chars: Vec<char> = code.chars().collect();
    let ident_at = |mut i: usize| -> (String, usize) {
        let start = i;
        while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
            i += 1;
        }
        (chars[start..i].iter().collect(), i)
    };
    // A path's segments from index i on (`a::b::{c, d}` and the like).
    fn segments(chars: &[char], i: usize, base: Vec<String>, out: &mut Vec<Vec<String>>) {
        let ident_at = |mut i: usize| -> (String, usize) {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            (chars[start..i].iter().collect(), i)
        };
        let skip_ws = |mut i: usize| {
            while i < chars.len() && chars[i].is_whitespace() {
                i += 1;
            }
            i
        };
        let mut path = base;
        let mut i = i;
        loop {
            i = skip_ws(i);
            if chars.get(i) == Some(&'{') {
                // A group: each item at depth 0.
                let mut depth = 0;
                let mut j = i + 1;
                let mut item_start = j;
                while j < chars.len() {
                    match chars[j] {
                        '{' => depth += 1,
                        '}' if depth == 0 => {
                            segments(chars, item_start, path.clone(), out);
                            return;
                        }
                        '}' => depth -= 1,
                        ',' if depth == 0 => {
                            segments(chars, item_start, path.clone(), out);
                            item_start = j + 1;
                        }
                        _ => {}
                    }
                    j += 1;
                }
                return;
            }
            let (name, end) = ident_at(i);
            if name.is_empty() {
                break;
            }
            if name != "self" || path.is_empty() {
                path.push(name);
            }
            i = end;
            if chars.get(i) == Some(&':') && chars.get(i + 1) == Some(&':') {
                i += 2;
            } else {
                break;
            }
        }
        out.push(path);
    }
    let mut found = Vec::new();
    // The stack of inline modules: (name, brace depth at which it opened).
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut pending_mod: Option<String> = None;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let boundary = i == 0 || !(chars[i - 1].is_alphanumeric() || chars[i - 1] == '_' || chars[i - 1] == ':' || chars[i - 1] == '$');
        if c == '{' {
            depth += 1;
            if let Some(name) = pending_mod.take() {
                inline.push((name, depth));
            }
            i += 1;
            continue;
        }
        if c == '}' {
            if inline.last().is_some_and(|(_, d)| *d == depth) {
                inline.pop();
            }
            depth = depth.saturating_sub(1);
            i += 1;
            continue;
        }
        if c == ';' {
            pending_mod = None;
        }
        if !boundary || !(c.is_alphabetic() || c == '_') {
            i += 1;
            continue;
        }
        let (word, end) = ident_at(i);
        if inline.iter().any(|(name, _)| name == "tests") {
            i = end;
            continue;
        }
        if word == "mod" {
            let mut j = end;
            while j < chars.len() && chars[j].is_whitespace() {
                j += 1;
            }
            let (name, _) = ident_at(j);
            pending_mod = Some(name);
            i = end;
            continue;
        }
        let current: Vec<String> = own.iter().cloned().chain(inline.iter().map(|(n, _)| n.clone())).collect();
        let rest = |j: usize| chars.get(j) == Some(&':') && chars.get(j + 1) == Some(&':');
        let base = match word.as_str() {
            "crate" if rest(end) => Some((Vec::new(), end + 2)),
            "self" if rest(end) => Some((current.clone(), end + 2)),
            "super" if rest(end) => {
                let mut base = current.clone();
                base.pop();
                let mut j = end + 2;
                while chars[j..].starts_with(&['s', 'u', 'p', 'e', 'r', ':', ':']) {
                    base.pop();
                    j += 7;
                }
                Some((base, j))
            }
            _ => None,
        };
        match base {
            Some((base, from)) => {
                segments(&chars, from, base, &mut found);
                i = from;
            }
            None => i = end,
        }
    }
    found
}

/// The per-folder file order of docs/architecture.md: folder (`model`, `model/network`) ->
/// file stem -> level (0 at the bottom). A folder's root file (`mod.rs`, or `network.rs` beside
/// `network/`) is above all of its files and not listed.
fn folder_orders(root: &Path) -> BTreeMap<String, BTreeMap<String, u32>> {
    let doc = fs::read_to_string(root.join("docs/architecture.md")).expect("docs/architecture.md is readable");
    let start = doc.find("<!-- files:").expect("docs/architecture.md has the `<!-- files: ... -->` list");
    let block = &doc[start..];
    let open = block.find("```text\n").expect("the file order is a ```text block") + "```text\n".len();
    let close = block[open..].find("```").expect("the file order block is closed") + open;
    let mut orders = BTreeMap::new();
    for line in block[open..close].lines().filter(|l| !l.trim().is_empty()) {
        let (folder, rest) = line.trim().split_once(' ').unwrap_or_else(|| panic!("a folder line: {line:?}"));
        let mut order = BTreeMap::new();
        for (level, files) in rest.split('<').enumerate() {
            for file in files.split_whitespace() {
                assert!(order.insert(file.to_string(), level as u32).is_none(), "{folder}: {file} is listed twice");
            }
        }
        assert!(orders.insert(folder.trim_end_matches('/').to_string(), order).is_none(), "{folder} is listed twice");
    }
    orders
}

#[test]
fn no_file_imports_a_file_above_or_beside_it_in_its_folder() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let src = root.join("src");
    let orders = folder_orders(root);
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let paths: Vec<Vec<String>> = files.iter().map(|f| module_path(&src, f)).collect();
    let mut wrong = Vec::new();
    // Every folder's files are listed, and every listed file exists.
    let mut children: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for path in paths.iter().filter(|p| p.len() >= 2) {
        let (file, folder) = path.split_last().expect("two segments");
        if !BINARIES.contains(&folder[0].as_str()) {
            children.entry(folder.join("/")).or_default().push(file.clone());
        }
    }
    for (folder, files) in &children {
        match orders.get(folder) {
            None => wrong.push(format!("src/{folder}/ has no line in the file order of docs/architecture.md")),
            Some(order) => {
                wrong.extend(
                    files
                        .iter()
                        .filter(|f| !order.contains_key(*f))
                        .map(|f| format!("src/{folder}/{f}.rs is not in the file order of src/{folder}/")),
                );
                wrong.extend(
                    order
                        .keys()
                        .filter(|f| !files.contains(f))
                        .map(|f| format!("the file order of src/{folder}/ lists `{f}`, which is no file there")),
                );
            }
        }
    }
    wrong.extend(
        orders.keys().filter(|f| !children.contains_key(*f)).map(|f| format!("the file order lists `{f}`, which is no folder of src/")),
    );
    let mut checked = 0;
    for (file, own) in files.iter().zip(&paths) {
        if own.is_empty() || BINARIES.contains(&own[0].as_str()) {
            continue;
        }
        let code = blank_literals(&fs::read_to_string(file).expect("source file"));
        for target in resolved_paths(&code, own) {
            // The deepest folder that holds both files: the two are compared there.
            let common = own.iter().zip(&target).take_while(|(a, b)| a == b).count();
            if common == 0 || common == own.len() {
                // Another top-level module (the layer test's concern), or the file's own items
                // and its submodules.
                continue;
            }
            let folder = own[..common].join("/");
            let Some(order) = orders.get(&folder) else { continue };
            checked += 1;
            let from = &own[common];
            // A name that is not a file of the folder is an item of (or re-exported by) its root.
            let to = target.get(common).filter(|t| order.contains_key(*t));
            let Some(to) = to else {
                wrong.push(format!(
                    "{}: `{}` reaches back up through src/{folder}'s root; name the file that defines it",
                    file.strip_prefix(root).unwrap_or(file).display(),
                    target.join("::")
                ));
                continue;
            };
            if to == from {
                continue;
            }
            let (a, b) = (order.get(from), order.get(to));
            if let (Some(a), Some(b)) = (a, b)
                && b >= a
            {
                wrong.push(format!(
                    "{}: `{folder}/{from}` (level {a}) imports `{folder}/{to}` (level {b}): `{}`",
                    file.strip_prefix(root).unwrap_or(file).display(),
                    target.join("::")
                ));
            }
        }
    }
    wrong.sort();
    wrong.dedup();
    assert!(checked > 50, "only {checked} paths inside folders found: is the reader broken?");
    assert!(wrong.is_empty(), "imports against the file order of their folder:\n{}", wrong.join("\n"));
}

#[test]
fn the_folder_reader_follows_super_and_inline_modules() {
    let own = ["model".to_string(), "features".to_string()];
    let code = blank_literals(
        "use super::game::{GameState, play};\nuse crate::chess::{Packed, check::role_index};\nlet s = \"super::nope\";\nmod tests {\n    use super::*;\n    use crate::model::Model;\n    fn f() { super::super::book::x(); }\n}\nfn g() { self::h(); }",
    );
    let found: Vec<String> = resolved_paths(&code, &own).iter().map(|p| p.join("::")).collect();
    assert_eq!(found, ["model::game::GameState", "model::game::play", "chess::Packed", "chess::check::role_index", "model::features::h"]);
}
