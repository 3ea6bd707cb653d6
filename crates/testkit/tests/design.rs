//! DESIGN.md is a reference to the tree: every path it names must exist, so a renamed or removed
//! file, module or script fails here instead of leaving the map stale.
//!
//! Checked:
//!
//! - every path anywhere in the text that starts at a top-level folder of the repository
//!   (`crates/`, `python/`, `scripts/`, `docs/`, `data/`, `models/`, `fuzz/`), or at a crate's
//!   folder under `crates/` (`engine/src/worker.rs` is `crates/engine/src/worker.rs`), with
//!   `{a,b}` groups expanded;
//! - the crate map (the first fenced block under the heading "Crate map"): a line that starts
//!   in the first column names a folder, and each line indented by exactly two spaces names a
//!   path inside it as its first word; bare file and folder names in a line's description
//!   (`mod.rs`, `vectors/`) are paths too;
//! - the map lists every crate folder and every workspace member.
//!
//! Not checked: whether what the text says of a file is still true.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Top-level folders of the repository a path in the text may start at.
const ROOTS: &[&str] = &[
    "crates/", "python/", "scripts/", "docs/", "data/", "models/", "fuzz/",
];

/// The repository's root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Characters of a path (besides its `{...}` groups).
fn path_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '/' | '-')
}

/// `s` with every `{a,b}` group expanded (no nesting): `x/{a,b}.rs` is `x/a.rs`, `x/b.rs`.
fn expand(s: &str) -> Vec<String> {
    let Some(open) = s.find('{') else {
        return vec![s.to_string()];
    };
    let Some(len) = s[open..].find('}') else {
        return vec![s.to_string()];
    };
    let (head, alts, tail) = (&s[..open], &s[open + 1..open + len], &s[open + len + 1..]);
    alts.split(',')
        .flat_map(|a| expand(&format!("{head}{a}{tail}")))
        .collect()
}

/// The path that starts at byte `at` of `text`: path characters, and `{...}` groups (which may
/// hold commas); a final `.` or `,` is the sentence's, not the path's.
fn path_at(text: &str, at: usize) -> &str {
    let mut depth = 0usize;
    let mut end = at;
    for (i, c) in text[at..].char_indices() {
        let ok = match c {
            '{' => {
                depth += 1;
                true
            }
            '}' if depth > 0 => {
                depth -= 1;
                true
            }
            ',' => depth > 0,
            c => path_char(c),
        };
        if !ok {
            break;
        }
        end = at + i + c.len_utf8();
    }
    text[at..end].trim_end_matches(['.', ','])
}

/// Every path of the text that starts at one of `roots` (each ending in `/`) at the start of a
/// word, as written.
fn paths_in(text: &str, roots: &[String]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (i, _) in text.char_indices() {
        let starts_word = text[..i].chars().next_back().is_none_or(|c| !path_char(c));
        if starts_word && roots.iter().any(|r| text[i..].starts_with(r.as_str())) {
            out.insert(path_at(text, i).to_string());
        }
    }
    out
}

/// Extensions of the files a crate map line's description may name by their bare name.
const EXTS: &[&str] = &[
    "rs", "md", "csv", "py", "pyi", "sh", "txt", "toml", "wsm", "hex", "pcap", "json", "js", "css",
];

/// One path the crate map names.
struct MapEntry {
    /// Its line in DESIGN.md.
    line: usize,
    /// As written.
    written: String,
    /// From the repository's root.
    path: String,
    /// A folder line (first column): the folder the indented lines below it are in.
    folder: bool,
}

/// The bare names a description names: `name.ext` (a known extension) or `name/`, without a
/// `/` inside (paths with one are checked wherever they are written, see [`paths_in`]).
fn bare_names(desc: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for (i, c) in desc.char_indices() {
        let starts_word = desc[..i].chars().next_back().is_none_or(|c| !path_char(c));
        if !starts_word || !(c.is_ascii_alphanumeric() || c == '_') {
            continue;
        }
        let p = path_at(desc, i);
        let folder = p.len() > 1 && p.ends_with('/') && !p[..p.len() - 1].contains('/');
        let file = !p.contains('/')
            && p.rsplit_once('.')
                .is_some_and(|(stem, ext)| !stem.is_empty() && EXTS.contains(&ext));
        if folder || file {
            out.push(p);
        }
    }
    out
}

/// The crate map: the first fenced block after the heading that says "Crate map". A line in
/// the first column names a folder (its first word); a line indented by exactly two spaces names
/// a path in the folder above it (its first word, `{a,b}` groups allowed). The rest of a line
/// describes; the bare file and folder names it holds are paths too: on a folder line, in that
/// folder; on an indented line, in the folder its path names, or beside the file it names.
fn crate_map(text: &str) -> Vec<MapEntry> {
    let mut lines = text.lines().enumerate();
    let heading = lines
        .by_ref()
        .find(|(_, l)| l.starts_with('#') && l.to_ascii_lowercase().contains("crate map"));
    assert!(heading.is_some(), "DESIGN.md has no heading \"Crate map\"");
    let mut lines = lines.skip_while(|(_, l)| !l.starts_with("```")).skip(1);
    let mut base = String::new();
    let mut out = Vec::new();
    for (n, l) in lines.by_ref() {
        let line = n + 1;
        if l.starts_with("```") {
            return out;
        }
        if l.trim().is_empty() {
            continue;
        }
        let (written, dir, desc) = if !l.starts_with(' ') {
            let p = path_at(l, 0);
            base = p.to_string();
            out.push(MapEntry {
                line,
                written: p.to_string(),
                path: p.to_string(),
                folder: true,
            });
            (p, base.clone(), &l[p.len()..])
        } else if l.starts_with("  ") && !l[2..].starts_with(' ') {
            let p = path_at(l, 2);
            assert!(
                !p.is_empty() && !base.is_empty(),
                "DESIGN.md line {line}: a crate map entry names no path: {l:?}"
            );
            let path = format!("{base}{p}");
            let dir = match path.rfind('/') {
                Some(i) if !path.ends_with('/') => path[..=i].to_string(),
                _ => path.clone(),
            };
            out.push(MapEntry {
                line,
                written: p.to_string(),
                path,
                folder: false,
            });
            (p, dir, &l[2 + p.len()..])
        } else {
            continue;
        };
        for name in bare_names(desc) {
            out.push(MapEntry {
                line,
                written: format!("{name} (on the line of {written})"),
                path: format!("{dir}{name}"),
                folder: false,
            });
        }
    }
    panic!("DESIGN.md: the crate map's block is not closed");
}

/// What DESIGN.md (`text`) names that does not exist under `root`, one line each.
fn missing(text: &str, root: &Path) -> (Vec<String>, usize) {
    let crates: Vec<String> = std::fs::read_dir(root.join("crates"))
        .map(|d| {
            d.flatten()
                .filter(|e| e.path().is_dir())
                .map(|e| format!("{}/", e.file_name().to_string_lossy()))
                .collect()
        })
        .unwrap_or_default();
    let mut roots: Vec<String> = ROOTS.iter().map(|r| r.to_string()).collect();
    roots.extend(crates.iter().cloned());
    let mut named = Vec::new();
    for p in paths_in(text, &roots) {
        let from_root = if ROOTS.iter().any(|r| p.starts_with(r)) {
            p.clone()
        } else {
            format!("crates/{p}")
        };
        named.push((p, from_root));
    }
    for e in crate_map(text) {
        named.push((
            format!("{} (crate map, line {})", e.written, e.line),
            e.path,
        ));
    }
    let mut bad = Vec::new();
    let mut checked = 0;
    for (written, from_root) in &named {
        for p in expand(from_root) {
            checked += 1;
            if !root.join(&p).exists() {
                bad.push(format!("{written}: {p} does not exist"));
            }
        }
    }
    (bad, checked)
}

/// The workspace's members, from the root Cargo.toml's `members = [...]`.
fn members(cargo_toml: &str) -> Vec<String> {
    let Some(at) = cargo_toml.find("members") else {
        return Vec::new();
    };
    let list = &cargo_toml[at..];
    let list = &list[list.find('[').unwrap_or(0)..list.find(']').unwrap_or(0)];
    list.split('"')
        .skip(1)
        .step_by(2)
        .map(|m| format!("{m}/"))
        .collect()
}

#[test]
fn every_path_design_md_names_exists() {
    let root = root();
    let text = std::fs::read_to_string(root.join("DESIGN.md")).expect("DESIGN.md");
    let (bad, checked) = missing(&text, &root);
    assert!(
        bad.is_empty(),
        "DESIGN.md names {} path(s) that do not exist:\n{}",
        bad.len(),
        bad.join("\n")
    );
    // The extraction found the paths it should: a map of the whole tree names hundreds.
    assert!(checked >= 150, "only {checked} paths found in DESIGN.md");
}

#[test]
fn the_crate_map_lists_every_crate_and_member() {
    let root = root();
    let text = std::fs::read_to_string(root.join("DESIGN.md")).expect("DESIGN.md");
    let bases: BTreeSet<String> = crate_map(&text)
        .into_iter()
        .filter(|e| e.folder)
        .map(|e| e.path)
        .collect();
    let mut want: BTreeSet<String> = std::fs::read_dir(root.join("crates"))
        .expect("crates/")
        .flatten()
        .filter(|e| e.path().is_dir())
        .map(|e| format!("crates/{}/", e.file_name().to_string_lossy()))
        .collect();
    let cargo = std::fs::read_to_string(root.join("Cargo.toml")).expect("Cargo.toml");
    let m = members(&cargo);
    assert!(m.len() >= 10, "workspace members not read: {m:?}");
    want.extend(m);
    let absent: Vec<_> = want.difference(&bases).collect();
    assert!(
        absent.is_empty(),
        "the crate map of DESIGN.md lacks {absent:?}"
    );
}

/// The checker itself: a path that is not there is reported, wherever it is written.
#[test]
fn a_wrong_path_is_reported() {
    // A tree of its own, so that the check does not hang on the repository's files.
    let root = std::env::temp_dir().join(format!("wirespeed-design-{}", std::process::id()));
    for f in [
        "crates/flow/Cargo.toml",
        "crates/flow/src/table.rs",
        "crates/flow/src/key.rs",
        "crates/flow/src/frag.rs",
        "crates/flow/src/lib.rs",
        "crates/engine/src/lib.rs",
        "docs/SCHEMA.md",
    ] {
        let f = root.join(f);
        std::fs::create_dir_all(f.parent().unwrap()).unwrap();
        std::fs::write(&f, "").unwrap();
    }
    let map =
        "## Crate map\n\n```\ncrates/flow/          the flow table (Cargo.toml, nope.toml)\n  \
               src/table.rs        the table, beside key.rs and gone.rs, in IPv4/IPv6\n  \
               src/tabel.rs        misspelt\n  src/                holds lib.rs, tests/\n```\n";
    let text = format!(
        "{map}\nSee `crates/flow/src/key.rs`, `flow/src/frag.rs` and \
         `crates/flow/src/{{key,nope}}.rs`; also engine/src/gone.rs, docs/NOPE.md.\n"
    );
    let (bad, checked) = missing(&text, &root);
    std::fs::remove_dir_all(&root).unwrap();
    let bad = bad.join("\n");
    for wrong in [
        "crates/flow/nope.toml",
        "crates/flow/src/gone.rs",
        "crates/flow/src/tabel.rs",
        "crates/flow/src/tests/",
        "crates/flow/src/nope.rs",
        "crates/engine/src/gone.rs",
        "docs/NOPE.md",
    ] {
        assert!(bad.contains(wrong), "{wrong} not reported; got:\n{bad}");
    }
    assert_eq!(bad.lines().count(), 7, "{bad}");
    // And found there: crates/flow/ (as a folder line, and as written anywhere), Cargo.toml,
    // src/table.rs, key.rs (in the map, and as written anywhere), src/, lib.rs, flow/src/frag.rs.
    assert_eq!(checked, 17, "{bad}");
}

#[test]
fn braces_expand_and_sentences_end() {
    assert_eq!(expand("a/{b,c}.rs"), ["a/b.rs", "a/c.rs"]);
    assert_eq!(
        expand("a/{b,c}/{d,e}"),
        ["a/b/d", "a/b/e", "a/c/d", "a/c/e"]
    );
    let t = "x crates/a/{b,c}.rs, then docs/X.md. and `scripts/y.sh`";
    assert_eq!(path_at(t, 2), "crates/a/{b,c}.rs");
    assert_eq!(path_at(t, t.find("docs").unwrap()), "docs/X.md");
    assert_eq!(path_at(t, t.find("scripts").unwrap()), "scripts/y.sh");
    assert_eq!(
        bare_names("mod.rs, e.g. vectors/ and x.rs: IPv4/IPv6 0.9 a/b.rs tests/x/"),
        ["mod.rs", "vectors/", "x.rs"]
    );
    // Not the start of a word: `../shared/data/x` names no path of the repository.
    let roots = vec!["data/".to_string()];
    assert!(paths_in("../shared/data/x and data/y", &roots)
        .into_iter()
        .eq(["data/y".to_string()]));
}
