//! No import cycle between the top-level modules of a crate (issue 35): a module that names
//! another through `crate::` (or `super::` from a top-level module's own file) depends on it,
//! and no two modules may depend on each other, directly or round a ring.
//!
//! The graph of a crate under `crates/NAME/src/`: each file belongs to its top-level module
//! (`engine/src/runtime/feed.rs` to `runtime`); the crate root (`lib.rs`, `main.rs`) and
//! `src/bin/` are left out. An edge is each `crate::m` (and each entry of a `crate::{a, b::c}`
//! group) and each `super::` path that climbs to the crate root, where `m` is a top-level module
//! of the crate other than the file's own. Comments, string and char literals, `#[cfg(test)] mod
//! NAME { ... }` blocks and files named `tests.rs` (or under a `tests/` folder) are not read.
//! `$crate::` (a macro's) is not an edge.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Cycles allowed for good: the wire decoders recurse (a tunnel's payload is a frame again,
/// decoded from the top), so the link, ip, l4, tunnel and wifi decoders and their driver call
/// one another by design.
const ALLOWED: &[(&str, &[&str])] = &[("wire", &["decode", "ip", "l4", "link", "tunnel", "wifi"])];

/// Cycles still there, to be broken (none now). This list may only shrink: the test fails when
/// a listed cycle no longer exists (or has changed), so it is kept exact, and fails on any new
/// one.
const KNOWN: &[(&str, &[&str])] = &[];

/// The repository's root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// `src` with comments removed and the contents of string and char literals emptied (lifetimes
/// kept); line breaks are kept.
fn strip(src: &str) -> String {
    let s: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    let prev_ident = |out: &String| out.chars().next_back().is_some_and(ident_char);
    while i < s.len() {
        let c = s[i];
        let next = s.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < s.len() && s[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < s.len() {
                if s[i] == '/' && s.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if s[i] == '*' && s.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    if s[i] == '\n' {
                        out.push('\n');
                    }
                    i += 1;
                }
            }
        } else if c == 'r' && !prev_ident(&out) && matches!(next, Some('"') | Some('#')) && {
            let mut j = i + 1;
            while s.get(j) == Some(&'#') {
                j += 1;
            }
            s.get(j) == Some(&'"')
        } {
            // A raw string: r"..." or r#"..."#, closed by `"` and as many `#`.
            let mut j = i + 1;
            let mut hashes = 0;
            while s[j] == '#' {
                hashes += 1;
                j += 1;
            }
            j += 1;
            while j < s.len() {
                if s[j] == '"' && (1..=hashes).all(|k| s.get(j + k) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            out.push_str("\"\"");
            i = j;
        } else if c == '"' {
            let mut j = i + 1;
            while j < s.len() && s[j] != '"' {
                j += if s[j] == '\\' { 2 } else { 1 };
            }
            out.push_str("\"\"");
            i = j + 1;
        } else if c == '\'' {
            // A char literal ('x', '\n', '\u{..}'), or else a lifetime or label.
            if next == Some('\\') {
                let mut j = i + 2;
                while j < s.len() && s[j] != '\'' {
                    j += 1;
                }
                out.push_str("''");
                i = j + 1;
            } else if s.get(i + 2) == Some(&'\'') {
                out.push_str("''");
                i += 3;
            } else {
                out.push(c);
                i += 1;
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// The byte offset of the brace that closes the one at `open`.
fn close_of(t: &str, open: usize) -> usize {
    let mut depth = 0usize;
    for (i, c) in t[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return open + i;
                }
            }
            _ => {}
        }
    }
    t.len()
}

/// Inline modules `mod NAME { ... }` of a stripped text: name, and the byte range of the body.
fn inline_mods(t: &str) -> Vec<(String, usize, usize)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(k) = t[from..].find("mod") {
        let at = from + k;
        from = at + 3;
        if t[..at].chars().next_back().is_some_and(ident_char) {
            continue;
        }
        let rest = &t[at + 3..];
        let Some(r) = rest.strip_prefix(char::is_whitespace) else {
            continue;
        };
        let r = r.trim_start();
        let name: String = r.chars().take_while(|&c| ident_char(c)).collect();
        if name.is_empty() {
            continue;
        }
        let after = r[name.len()..].trim_start();
        if after.starts_with('{') {
            let open = t.len() - after.len();
            out.push((name, open, close_of(t, open)));
        }
    }
    out
}

/// `t` (stripped) without its `#[cfg(test)] mod NAME { ... }` blocks.
fn drop_test_mods(t: &str) -> String {
    let mut t = t.to_string();
    while let Some(at) = t.find("#[cfg(test)]") {
        let rest = t[at + "#[cfg(test)]".len()..].trim_start();
        // Further attributes may stand between (`#[allow(...)]`).
        let mut r = rest;
        while r.starts_with("#[") {
            let Some(e) = r.find(']') else { break };
            r = r[e + 1..].trim_start();
        }
        let r2 = r.strip_prefix("pub ").unwrap_or(r).trim_start();
        let cut = r2.strip_prefix("mod").and_then(|m| {
            let m = m.trim_start();
            let n = m.chars().take_while(|&c| ident_char(c)).count();
            let after = m[n..].trim_start();
            after.starts_with('{').then(|| t.len() - after.len())
        });
        match cut {
            Some(open) => {
                let close = close_of(&t, open);
                t.replace_range(at..(close + 1).min(t.len()), "");
            }
            // Not an inline test module: leave it, and look past it.
            None => t.replace_range(at..at + "#[cfg(test)]".len(), ""),
        }
    }
    t
}

/// The first name of each entry of the path that starts at byte `at` (just after `crate::`, or
/// after the `super::`s): `m` of `m::x`, or `a` and `b` of `{a, b::c}`.
fn heads(t: &str, at: usize) -> Vec<String> {
    let rest = t[at..].trim_start();
    if rest.starts_with('{') {
        let open = t.len() - rest.len();
        let close = close_of(t, open);
        let body = &t[open + 1..close.min(t.len())];
        let mut out = Vec::new();
        let mut depth = 0usize;
        let mut start = 0;
        for (i, c) in body.char_indices().chain([(body.len(), ',')]) {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    let e = body[start..i].trim_start();
                    let n: String = e.chars().take_while(|&c| ident_char(c)).collect();
                    if !n.is_empty() {
                        out.push(n);
                    }
                    start = i + 1;
                }
                _ => {}
            }
        }
        out
    } else {
        let n: String = rest.chars().take_while(|&c| ident_char(c)).collect();
        if n.is_empty() {
            vec![]
        } else {
            vec![n]
        }
    }
}

/// The top-level modules that the file of module path `path` (`["runtime", "feed"]`) names,
/// given its text.
fn refs(path: &[String], text: &str) -> BTreeSet<String> {
    let t = drop_test_mods(&strip(text));
    let inline = inline_mods(&t);
    let mut out = BTreeSet::new();
    let word_start = |at: usize| {
        !t[..at]
            .chars()
            .next_back()
            .is_some_and(|c| ident_char(c) || c == '$')
    };
    let mut from = 0;
    while let Some(k) = t[from..].find("crate::") {
        let at = from + k;
        from = at + 7;
        if word_start(at) {
            out.extend(heads(&t, at + 7));
        }
    }
    let mut from = 0;
    while let Some(k) = t[from..].find("super::") {
        let at = from + k;
        from = at + 7;
        if !word_start(at) || t[..at].ends_with("super::") {
            continue;
        }
        let mut end = at;
        let mut ups = 0;
        while t[end..].starts_with("super::") {
            ups += 1;
            end += 7;
        }
        // The module this `super::` is written in: the file's, and the inline modules round it.
        let mut here: Vec<String> = path.to_vec();
        here.extend(
            inline
                .iter()
                .filter(|(_, o, c)| *o < at && at < *c)
                .map(|(n, _, _)| n.clone()),
        );
        if ups == here.len() {
            out.extend(heads(&t, end));
        }
    }
    out
}

/// Module path of a file under `src` (`runtime/mod.rs` is `["runtime"]`), or `None` for the
/// crate root, `src/bin/` and test files.
fn module_path(src: &Path, file: &Path) -> Option<Vec<String>> {
    let rel = file.strip_prefix(src).ok()?;
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop()?;
    let stem = last.strip_suffix(".rs")?;
    if stem == "tests"
        || parts.iter().any(|p| p == "tests")
        || parts.first().is_some_and(|p| p == "bin")
    {
        return None;
    }
    if !matches!(stem, "mod" | "lib" | "main") || !parts.is_empty() && stem != "mod" {
        parts.push(stem.to_string());
    }
    (!parts.is_empty()).then_some(parts)
}

fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            rs_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The crate's graph: top-level module to the top-level modules it names.
fn graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    rs_files(src, &mut files);
    let tops: BTreeSet<String> = files
        .iter()
        .filter_map(|f| module_path(src, f))
        .map(|p| p[0].clone())
        .collect();
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in &files {
        let Some(path) = module_path(src, f) else {
            continue;
        };
        let text = std::fs::read_to_string(f).expect("a source file");
        let e = g.entry(path[0].clone()).or_default();
        for m in refs(&path, &text) {
            if m != path[0] && tops.contains(&m) {
                e.insert(m);
            }
        }
    }
    g
}

/// Strongly connected components of more than one module, each sorted.
fn cycles(g: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct T<'a> {
        g: &'a BTreeMap<String, BTreeSet<String>>,
        idx: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(t: &mut T<'a>, v: &'a str) {
        let n = t.idx.len();
        t.idx.insert(v, n);
        t.low.insert(v, n);
        t.stack.push(v);
        t.on.insert(v);
        let g = t.g;
        for w in g.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !t.idx.contains_key(w) {
                visit(t, w);
                let l = t.low[v].min(t.low[w]);
                t.low.insert(v, l);
            } else if t.on.contains(w) {
                let l = t.low[v].min(t.idx[w]);
                t.low.insert(v, l);
            }
        }
        if t.low[v] == t.idx[v] {
            let mut comp = Vec::new();
            loop {
                let w = t.stack.pop().unwrap();
                t.on.remove(w);
                comp.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                t.out.push(comp);
            }
        }
    }
    let mut t = T {
        g,
        idx: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in g.keys() {
        if !t.idx.contains_key(v.as_str()) {
            visit(&mut t, v);
        }
    }
    t.out.sort();
    t.out
}

/// Every cycle of every crate under `root/crates/`, as `(crate, modules)`.
fn all_cycles(root: &Path) -> BTreeSet<(String, Vec<String>)> {
    let mut out = BTreeSet::new();
    let mut crates: Vec<_> = std::fs::read_dir(root.join("crates"))
        .expect("crates/")
        .flatten()
        .map(|e| e.path())
        .collect();
    crates.sort();
    for c in crates {
        let src = c.join("src");
        if !src.is_dir() {
            continue;
        }
        let name = c.file_name().unwrap().to_string_lossy().into_owned();
        for comp in cycles(&graph(&src)) {
            out.insert((name.clone(), comp));
        }
    }
    out
}

fn listed(l: &[(&str, &[&str])]) -> BTreeSet<(String, Vec<String>)> {
    l.iter()
        .map(|(c, m)| (c.to_string(), m.iter().map(|s| s.to_string()).collect()))
        .collect()
}

#[test]
fn no_module_cycle_but_the_allowed_and_known() {
    let found = all_cycles(&root());
    let allowed = listed(ALLOWED);
    let known = listed(KNOWN);
    let new: Vec<_> = found
        .iter()
        .filter(|c| !allowed.contains(*c) && !known.contains(*c))
        .collect();
    assert!(
        new.is_empty(),
        "import cycles between modules of a crate: {new:?}\n(all found: {found:?})"
    );
    let gone: Vec<_> = known.difference(&found).collect();
    assert!(
        gone.is_empty(),
        "KNOWN lists cycles that no longer exist (or changed): {gone:?}; shrink it to what is \
         found: {found:?}"
    );
}

/// The checker itself, on a tree of its own: a ring a → b → c → a made of a plain path, a
/// `use crate::{...}` group and a `super::super::` path, amid references that are not edges.
#[test]
fn a_planted_cycle_is_found() {
    let root = std::env::temp_dir().join(format!("wirespeed-modcycles-{}", std::process::id()));
    let src = root.join("crates/x/src");
    let write = |f: &str, s: &str| {
        let f = src.join(f);
        std::fs::create_dir_all(f.parent().unwrap()).unwrap();
        std::fs::write(&f, s).unwrap();
    };
    write(
        "lib.rs",
        "pub mod a; pub mod b; pub mod c; pub mod d;\nuse crate::a::A;\n",
    );
    write(
        "a.rs",
        "// crate::d::D in a comment\n/* and crate::d /* nested */ crate::d */\n\
         pub struct A(crate::b::B);\nconst S: &str = \"crate::d\";\n\
         const R: &str = r#\"crate::d\"#;\n\
         fn f<'a>(x: &'a str) -> char { 'x' }\nmacro_rules! m { () => { $crate::d::D } }\n\
         #[cfg(test)]\nmod tests {\n    use crate::d::D;\n    fn g() { let _ = { 1 }; }\n}\n",
    );
    write(
        "b.rs",
        "use crate::{\n    c::{self, C},\n};\npub struct B;\n",
    );
    write(
        "c/mod.rs",
        "mod e;\npub struct C;\nmod inner { use super::C; }\n",
    );
    write("c/e.rs", "use super::super::{a::A};\nuse super::C;\n");
    write("d.rs", "pub struct D;\n");
    write("tests.rs", "use crate::d::D;\n");
    let g = graph(&src);
    let found = all_cycles(&root);
    // Take one edge of the ring away, and no cycle is left.
    write("c/e.rs", "use super::C;\n");
    let after = all_cycles(&root);
    // `super::` from a top-level file climbs to the root: a second, direct cycle d ↔ c.
    write("d.rs", "use super::c::C;\n");
    write("c/e.rs", "fn f() -> crate::d::D { todo!() }\n");
    let direct = all_cycles(&root);
    std::fs::remove_dir_all(&root).unwrap();
    let set = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
    assert_eq!(g["a"], set(&["b"]), "{g:?}");
    assert_eq!(g["b"], set(&["c"]), "{g:?}");
    assert_eq!(g["c"], set(&["a"]), "{g:?}");
    assert!(g.get("d").is_none_or(|e| e.is_empty()), "{g:?}");
    let abc = vec!["a".to_string(), "b".to_string(), "c".to_string()];
    assert!(found.iter().eq([&("x".to_string(), abc)]), "{found:?}");
    assert!(after.is_empty(), "{after:?}");
    let cd = vec!["c".to_string(), "d".to_string()];
    assert!(direct.iter().eq([&("x".to_string(), cd)]), "{direct:?}");
}

#[test]
fn stripping_keeps_code_and_drops_the_rest() {
    assert_eq!(strip("a // b\nc"), "a \nc");
    assert_eq!(strip("a /* b /* c */ d */ e"), "a  e");
    assert_eq!(strip(r#"x("a\"b") y"#), "x(\"\") y");
    assert_eq!(strip("f<'a>('\\n', 'z')"), "f<'a>('', '')");
    assert_eq!(
        heads("crate::{a, b::{c, d}, e::f}", 7),
        ["a".to_string(), "b".to_string(), "e".to_string()]
    );
}
