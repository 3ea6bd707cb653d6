//! Inputs named by a user: files, and directories standing for the captures in them. One rule
//! for every front end (the command line's `classify` and `train`, the Python module).

use std::path::{Path, PathBuf};

/// Directories nested deeper than this are not entered (a link loop must end).
pub const MAX_DEPTH: usize = 32;

/// What [`expand`] left out of a directory, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Skipped {
    /// A file that does not start as a capture does ([`crate::stream::looks_like_capture`]).
    NotACapture(PathBuf),
    /// A directory nested deeper than [`MAX_DEPTH`].
    TooDeep(PathBuf),
}

impl std::fmt::Display for Skipped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Skipped::NotACapture(p) => write!(f, "skipped (not a capture): {}", p.display()),
            Skipped::TooDeep(p) => write!(
                f,
                "skipped (nested deeper than {MAX_DEPTH} directories): {}",
                p.display()
            ),
        }
    }
}

/// The inputs with each directory replaced by the captures in it and in its subdirectories
/// (sorted by path; pcap, pcapng, and their gzip, zstd or xz compressions, told by their first
/// bytes). Other files inside a directory are left out, each passed to `skipped`; a file named
/// in `inputs` is always an input. An unreadable directory is an error naming it.
pub fn expand(
    inputs: &[PathBuf],
    skipped: &mut dyn FnMut(Skipped),
) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    for p in inputs {
        if p.is_dir() {
            let mut found = Vec::new();
            walk(p, &mut found, 0, skipped)?;
            found.sort();
            for f in found {
                if crate::stream::looks_like_capture(&f) {
                    out.push(f);
                } else {
                    skipped(Skipped::NotACapture(f));
                }
            }
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

/// Every regular file under `dir`, into `out`.
fn walk(
    dir: &Path,
    out: &mut Vec<PathBuf>,
    depth: usize,
    skipped: &mut dyn FnMut(Skipped),
) -> Result<(), String> {
    if depth > MAX_DEPTH {
        skipped(Skipped::TooDeep(dir.to_path_buf()));
        return Ok(());
    }
    let rd = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for e in rd.filter_map(Result::ok) {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out, depth + 1, skipped)?;
        } else if p.is_file() {
            out.push(p);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directories_stand_for_their_captures_sorted_and_files_stay() {
        let root = std::env::temp_dir().join(format!("wirespeed-inputs-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("b/c")).unwrap();
        let pcap = [0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0];
        std::fs::write(root.join("b/c/z.pcap"), pcap).unwrap();
        std::fs::write(root.join("b/a.pcap"), pcap).unwrap();
        std::fs::write(root.join("b/notes.txt"), b"hello").unwrap();
        let named = root.join("b/notes.txt");
        let mut skipped = Vec::new();
        let got = expand(&[root.join("b"), named.clone()], &mut |s| skipped.push(s)).unwrap();
        assert_eq!(
            got,
            [
                root.join("b/a.pcap"),
                root.join("b/c/z.pcap"),
                named.clone()
            ]
        );
        assert_eq!(skipped, [Skipped::NotACapture(named)]);
        assert!(skipped[0]
            .to_string()
            .starts_with("skipped (not a capture): "));
        std::fs::remove_dir_all(&root).unwrap();
    }
}
