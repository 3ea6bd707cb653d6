//! Test support shared by the workspace's crates: where the shared capture corpus is, in one
//! place (it was six copies with two environment variables).
//!
//! The corpus is `../shared/corpus` beside the checkout (`flows.csv` and `pcap/`), or the
//! directory `WIRESPEED_CORPUS` names. A test that needs it calls [`corpus`]: on a user's clone
//! without it the test says `SKIPPED` and passes; under `CI=true` a missing corpus fails the
//! test, so CI can never pass by skipping.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

use std::path::{Path, PathBuf};

/// The shared corpus: nDPI's verdicts (`flows.csv`) on real captures (`pcap/`).
#[derive(Clone, Debug)]
pub struct Corpus {
    dir: PathBuf,
}

impl Corpus {
    /// The corpus directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The captures' directory.
    pub fn pcap_dir(&self) -> PathBuf {
        self.dir.join("pcap")
    }

    /// One capture by file name.
    pub fn pcap(&self, name: &str) -> PathBuf {
        self.pcap_dir().join(name)
    }

    /// nDPI's verdicts.
    pub fn flows_csv(&self) -> PathBuf {
        self.dir.join("flows.csv")
    }

    /// Every capture, sorted by path.
    pub fn pcaps(&self) -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(self.pcap_dir())
            .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        v.sort();
        v
    }
}

/// Where the corpus should be: `WIRESPEED_CORPUS`, else `../shared/corpus` beside the checkout.
pub fn corpus_path() -> PathBuf {
    match std::env::var_os("WIRESPEED_CORPUS") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"),
    }
}

/// The corpus, if it is there (both `flows.csv` and `pcap/`). Without it: under `CI=true` a
/// panic naming the path (CI must not pass by skipping); elsewhere `SKIPPED` on standard error
/// and None, so `test` passes on a clone without the corpus.
pub fn corpus(test: &str) -> Option<Corpus> {
    let dir = corpus_path();
    if dir.join("flows.csv").is_file() && dir.join("pcap").is_dir() {
        return Some(Corpus { dir });
    }
    let why = format!(
        "{test}: the corpus is not at {} (set WIRESPEED_CORPUS to its directory)",
        dir.display()
    );
    if under_ci() {
        panic!("{why}; CI=true, so a missing corpus fails instead of skipping");
    }
    eprintln!("SKIPPED: {why}");
    None
}

/// Is this a CI run (`CI=true`), where no test may pass by skipping?
pub fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// A test that cannot run here (`why`: an outside program missing, no root): under `CI=true`
/// a panic naming it (.ci/run installs what the tests use; CI must not pass by skipping);
/// elsewhere `SKIPPED` on standard error, and the caller returns. README lists what each test
/// needs, with one install line.
pub fn skip(test: &str, why: &str) {
    if under_ci() {
        panic!("{test}: {why}; CI=true, so this fails instead of skipping");
    }
    eprintln!("SKIPPED: {test}: {why}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_inside_the_corpus() {
        let c = Corpus {
            dir: PathBuf::from("/x/corpus"),
        };
        assert_eq!(c.flows_csv(), PathBuf::from("/x/corpus/flows.csv"));
        assert_eq!(c.pcap("a.pcap"), PathBuf::from("/x/corpus/pcap/a.pcap"));
        assert!(c.pcaps().is_empty());
    }
}
