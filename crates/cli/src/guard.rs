//! An output never overwrites an input: every file a run would write is compared, before
//! anything is opened for writing, with every file it reads (captures, rules, model, policy)
//! and with the run's other outputs.
//!
//! Files are compared by device and inode (`stat`, which follows symbolic links), so a link, a
//! hard link or another spelling of the path (`./x.pcap`, `dir/../x.pcap`) is still the same
//! file. An output that does not exist yet cannot be an input. Standard input and output (`-`)
//! are not files here.

use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// The file's identity, if it exists and can be stat'ed.
fn identity(p: &Path) -> Option<(u64, u64)> {
    if p.as_os_str() == "-" {
        return None;
    }
    std::fs::metadata(p).ok().map(|m| (m.dev(), m.ino()))
}

/// Refuse a run whose outputs (`(option, path)`, e.g. `("-o", out)`) include one of its
/// `inputs`, or the same file twice. The error names the option and both paths.
pub(crate) fn outputs_apart(outputs: &[(&str, &Path)], inputs: &[&Path]) -> Result<(), String> {
    let ins: Vec<(&Path, (u64, u64))> = inputs
        .iter()
        .filter_map(|p| identity(p).map(|id| (*p, id)))
        .collect();
    for (i, (opt, out)) in outputs.iter().enumerate() {
        let Some(id) = identity(out) else {
            // Not there yet: only another output can name it, by the same path.
            if let Some((other, _)) = outputs[..i].iter().find(|(_, p)| p == out) {
                if out.as_os_str() != "-" {
                    return Err(format!(
                        "{opt} and {other} both name {}: one output a file",
                        out.display()
                    ));
                }
            }
            continue;
        };
        if let Some((input, _)) = ins.iter().find(|(_, x)| *x == id) {
            return Err(format!(
                "{opt} {} is the input {}: refusing to overwrite an input",
                out.display(),
                input.display()
            ));
        }
        if let Some((other, p)) = outputs[..i].iter().find(|(_, p)| identity(p) == Some(id)) {
            return Err(format!(
                "{opt} {} and {other} {} are the same file",
                out.display(),
                p.display()
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn dir() -> PathBuf {
        let d = std::env::temp_dir().join(format!(
            "wirespeed-guard-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn the_same_file_by_any_name_is_refused() {
        let d = dir();
        let input = d.join("in.pcap");
        std::fs::write(&input, b"capture").unwrap();
        let link = d.join("link.pcap");
        std::os::unix::fs::symlink(&input, &link).unwrap();
        let hard = d.join("hard.pcap");
        std::fs::hard_link(&input, &hard).unwrap();
        let dotted = d.join(".").join("in.pcap");
        for out in [&input, &link, &hard, &dotted] {
            let e = outputs_apart(&[("-o", out)], &[&input]).unwrap_err();
            assert!(e.contains("refusing to overwrite an input"), "{e}");
        }
        // The input through a link is the same file too.
        assert!(outputs_apart(&[("-o", &input)], &[&link]).is_err());
        // A new file, or another existing one, is fine; standard output is no file.
        let other = d.join("other.json");
        assert!(outputs_apart(&[("-o", &other)], &[&input]).is_ok());
        std::fs::write(&other, b"").unwrap();
        assert!(outputs_apart(&[("-o", &other)], &[&input]).is_ok());
        assert!(outputs_apart(&[("-o", Path::new("-"))], &[Path::new("-")]).is_ok());
        // Two outputs in one file, there or not yet.
        let new = d.join("new.json");
        let e = outputs_apart(&[("-o", &new), ("--events", &new)], &[&input]).unwrap_err();
        assert!(e.contains("one output a file"), "{e}");
        let e = outputs_apart(&[("-o", &other), ("--events", &other)], &[&input]).unwrap_err();
        assert!(e.contains("same file"), "{e}");
        assert_eq!(std::fs::read(&input).unwrap(), b"capture");
        let _ = std::fs::remove_dir_all(&d);
    }
}
