//! Cross-validation by group (capture file) and the accuracy report.

use std::collections::BTreeMap;
use std::fmt::{self, Write as _};

/// Fold of each case, `k` folds, whole groups per fold: no capture has flows in both the
/// training and the test part. Groups are shuffled with a fixed seed (reproducible) and dealt
/// to the fold with the least weight so far (heaviest groups first) to balance folds; a case's
/// weight is 1 when it is labelled, 0 otherwise, so folds hold similar numbers of scored cases.
pub fn folds_by_group(groups: &[&str], weights: &[usize], k: usize, seed: u64) -> Vec<usize> {
    let k = k.max(2);
    let mut size: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, g) in groups.iter().enumerate() {
        *size.entry(g).or_insert(0) += weights.get(i).copied().unwrap_or(1);
    }
    let mut names: Vec<(&str, usize)> = size.into_iter().collect();
    // Deterministic shuffle (xorshift), then a stable sort by size, largest first.
    let mut s = seed | 1;
    let mut keyed: Vec<(u64, &str, usize)> = names
        .drain(..)
        .map(|(n, c)| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s, n, c)
        })
        .collect();
    keyed.sort_by(|a, b| b.2.cmp(&a.2).then(a.0.cmp(&b.0)));
    let mut load = vec![0usize; k];
    let mut fold_of: BTreeMap<&str, usize> = BTreeMap::new();
    for (_, n, c) in keyed {
        let f = (0..k).min_by_key(|&f| (load[f], f)).unwrap_or(0);
        load[f] += c;
        fold_of.insert(n, f);
    }
    groups.iter().map(|g| fold_of[g]).collect()
}

/// Confusion matrix and per-class figures. `None` predictions count as "unknown".
pub struct Report {
    /// Class names.
    pub names: Vec<String>,
    /// Training cases per class (whole data set), for the macro-F1 filter.
    pub train_n: Vec<usize>,
    /// `m[truth][pred]`; the last column is "unknown".
    pub m: Vec<Vec<usize>>,
    /// Classes with at least this many training cases enter the macro-F1.
    pub min_train: usize,
}

impl Report {
    /// An empty report.
    pub fn new(names: Vec<String>, train_n: Vec<usize>, min_train: usize) -> Report {
        let k = names.len();
        Report {
            names,
            train_n,
            m: vec![vec![0; k + 1]; k],
            min_train,
        }
    }

    /// Count one case.
    pub fn add(&mut self, truth: u16, pred: Option<u16>) {
        let k = self.names.len();
        let p = pred.map(|p| p as usize).filter(|&p| p < k).unwrap_or(k);
        if let Some(r) = self.m.get_mut(truth as usize) {
            r[p] += 1;
        }
    }

    /// (precision, recall, F1, support) of class c.
    pub fn prf(&self, c: usize) -> (f64, f64, f64, usize) {
        let tp = self.m[c][c];
        let support: usize = self.m[c].iter().sum();
        let predicted: usize = self.m.iter().map(|r| r[c]).sum();
        let p = tp as f64 / predicted.max(1) as f64;
        let r = tp as f64 / support.max(1) as f64;
        let f = if p + r > 0.0 {
            2.0 * p * r / (p + r)
        } else {
            0.0
        };
        (p, r, f, support)
    }

    /// Macro-F1 over classes with ≥ `min_train` training cases and some test cases.
    pub fn macro_f1(&self) -> f64 {
        let fs: Vec<f64> = (0..self.names.len())
            .filter(|&c| self.train_n[c] >= self.min_train && self.prf(c).3 > 0)
            .map(|c| self.prf(c).2)
            .collect();
        fs.iter().sum::<f64>() / fs.len().max(1) as f64
    }

    /// Share of cases predicted right.
    pub fn accuracy(&self) -> f64 {
        let ok: usize = (0..self.names.len()).map(|c| self.m[c][c]).sum();
        let all: usize = self.m.iter().flatten().sum();
        ok as f64 / all.max(1) as f64
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let k = self.names.len();
        let short = |s: &str| s.chars().take(6).collect::<String>();
        let mut s = String::new();
        let _ = writeln!(
            s,
            "confusion matrix (rows: truth, columns: prediction; ? = unknown)"
        );
        let _ = write!(s, "{:>26}", "");
        for n in &self.names {
            let _ = write!(s, " {:>6}", short(n));
        }
        let _ = writeln!(s, " {:>6}", "?");
        for (c, row) in self.m.iter().enumerate() {
            let _ = write!(s, "{:>26}", self.names[c]);
            for v in row {
                let _ = write!(s, " {v:>6}");
            }
            let _ = writeln!(s);
        }
        let _ = writeln!(
            s,
            "{:>26} {:>6} {:>9} {:>6} {:>5} {:>6}",
            "class", "train", "precision", "recall", "F1", "test"
        );
        for c in 0..k {
            let (p, r, f1, n) = self.prf(c);
            let mark = if self.train_n[c] >= self.min_train {
                ""
            } else {
                "  (not in macro-F1)"
            };
            let _ = writeln!(
                s,
                "{:>26} {:>6} {:>9.3} {:>6.3} {:>5.3} {:>6}{mark}",
                self.names[c], self.train_n[c], p, r, f1, n
            );
        }
        let _ = writeln!(
            s,
            "accuracy {:.3}  macro-F1 {:.3} (classes with >= {} training flows)",
            self.accuracy(),
            self.macro_f1(),
            self.min_train
        );
        f.write_str(&s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_keep_groups_whole_and_balanced() {
        let g: Vec<&str> = ["a", "a", "b", "c", "c", "c", "d", "e"].to_vec();
        let f = folds_by_group(&g, &[1; 8], 2, 7);
        for i in 0..g.len() {
            for j in 0..g.len() {
                if g[i] == g[j] {
                    assert_eq!(f[i], f[j]);
                }
            }
        }
        let n0 = f.iter().filter(|&&x| x == 0).count();
        assert_eq!(n0, 4);
    }

    #[test]
    fn f1_by_hand() {
        let mut r = Report::new(vec!["a".into(), "b".into()], vec![100, 100], 30);
        // a: 8 right, 2 as b; b: 5 right, 5 unknown
        for _ in 0..8 {
            r.add(0, Some(0));
        }
        for _ in 0..2 {
            r.add(0, Some(1));
        }
        for _ in 0..5 {
            r.add(1, Some(1));
            r.add(1, None);
        }
        let (p, rc, f, _) = r.prf(1);
        assert!((p - 5.0 / 7.0).abs() < 1e-12 && (rc - 0.5).abs() < 1e-12);
        let fa = 2.0 * 1.0 * 0.8 / 1.8;
        assert!((r.macro_f1() - (fa + f) / 2.0).abs() < 1e-12);
    }
}
