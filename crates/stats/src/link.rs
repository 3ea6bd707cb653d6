//! A Naive Bayes model that learns from the link (issue 38 item 3, seed 002's idea): it starts
//! from a trained model's counts (the prior, usually the shipped model's) and adds the flows
//! payload inspection labels on the link, each with a weight, into a count table whose size
//! is fixed by the prior's parameters and classes (memory does not grow with the link).
//!
//! Counts are additive: adding flows here and rebuilding gives the same tables as
//! [`NaiveBayes::from_counts`] over the prior's counts plus those flows' (a test checks it), so
//! the link model is the model one would train offline on the prior's flows and the link's.
//! Rebuilding is [`NaiveBayes::from_counts`], called by the owner when it chooses (the engine:
//! once per learning epoch that taught something, never per packet).

use crate::features::Early;
use crate::nb::{NaiveBayes, NbCounts, NbParams, MAX_FEATURES};

/// The prior's counts plus the link's flows, and the tables built from them.
#[derive(Clone, Debug)]
pub struct LinkModel {
    prior: NbCounts,
    weight: u32,
    /// First row of each feature in `link`.
    offsets: [usize; MAX_FEATURES + 1],
    /// Link flows per (feature row, class): `link[row * classes + class]`.
    link: Vec<u32>,
    /// The cells of `link` that are not 0, in the order they were first counted: what
    /// [`LinkModel::counts`] walks instead of the whole table.
    touched: Vec<u32>,
    /// The prior's cells as (`link` index, count), sorted.
    prior_cells: Vec<(u32, u32)>,
    /// Link flows per class.
    link_n: Vec<u32>,
    /// Link flows added since the start (or the last [`LinkModel::reset`]).
    learned: u64,
    /// Flows added since the last rebuild.
    dirty: bool,
    nb: NaiveBayes,
    /// The prior's tables, to go back to without rebuilding them.
    prior_nb: NaiveBayes,
}

impl LinkModel {
    /// A link model whose prior is `prior`; each link flow counts `weight` times (at least 1).
    pub fn new(prior: &NbCounts, weight: u32) -> LinkModel {
        let p = &prior.params;
        let nf = p.features();
        let mut offsets = [0usize; MAX_FEATURES + 1];
        for f in 0..nf {
            offsets[f + 1] = offsets[f] + p.bins_of(f) as usize;
        }
        for f in nf..MAX_FEATURES {
            offsets[f + 1] = offsets[f];
        }
        let k = prior.classes.max(1);
        let mut prior_cells: Vec<(u32, u32)> = prior
            .cells
            .iter()
            .filter(|&&(f, b, c, _)| {
                (f as usize) < nf && b < p.bins_of(f as usize) && (c as usize) < prior.classes
            })
            .map(|&(f, b, c, n)| {
                (
                    ((offsets[f as usize] + b as usize) * k + c as usize) as u32,
                    n,
                )
            })
            .collect();
        prior_cells.sort_unstable();
        let nb = NaiveBayes::from_counts(prior);
        LinkModel {
            prior: prior.clone(),
            touched: Vec::new(),
            prior_cells,
            weight: weight.max(1),
            link: vec![0; offsets[nf] * k],
            link_n: vec![0; k],
            offsets,
            learned: 0,
            dirty: false,
            nb: nb.clone(),
            prior_nb: nb,
        }
    }

    /// The parameters (what a flow's features are binned by).
    pub fn params(&self) -> &NbParams {
        &self.prior.params
    }

    /// Number of classes.
    pub fn classes(&self) -> usize {
        self.prior.classes
    }

    /// Link flows added (since the start or the last reset).
    pub fn learned(&self) -> u64 {
        self.learned
    }

    /// Bytes the count table holds (fixed at construction).
    pub fn table_bytes(&self) -> usize {
        self.link.len() * 4
    }

    /// The bins of a flow as the model sees it when asked at P packets (`out` is
    /// [`NbParams::bins`]'s, on the flow cut to P packets); returns the number of features.
    pub fn bins(
        &self,
        e: &Early,
        l4: u8,
        server_port: u16,
        out: &mut [u32; MAX_FEATURES],
    ) -> usize {
        let p = &self.prior.params;
        p.bins(&e.truncated(p.positions as usize), l4, server_port, out)
    }

    /// Add a flow of `class` with feature bins `bins` (as [`LinkModel::bins`]); false (nothing
    /// added) when the class or a bin is out of range. The tables change at the next
    /// [`LinkModel::rebuild`].
    pub fn add(&mut self, class: u16, bins: &[u32]) -> bool {
        let p = &self.prior.params;
        let k = self.prior.classes;
        let c = class as usize;
        if c >= k
            || bins.len() != p.features()
            || bins.iter().enumerate().any(|(f, &b)| b >= p.bins_of(f))
        {
            return false;
        }
        for (f, &b) in bins.iter().enumerate() {
            let i = (self.offsets[f] + b as usize) * k + c;
            if self.link[i] == 0 {
                self.touched.push(i as u32);
            }
            self.link[i] = self.link[i].saturating_add(1);
        }
        self.link_n[c] = self.link_n[c].saturating_add(1);
        self.learned += 1;
        self.dirty = true;
        true
    }

    /// The counts the tables are built from: the prior's plus `weight` × the link's. Walks
    /// the cells that are not 0 (the prior's and the link's, merged in order), not the table.
    pub fn counts(&self) -> NbCounts {
        let k = self.prior.classes.max(1);
        let w = self.weight;
        let mut link: Vec<u32> = self.touched.clone();
        link.sort_unstable();
        let nf = self.prior.params.features();
        let cell = |i: u32, n: u32| {
            let (row, c) = (i as usize / k, i as usize % k);
            let f = (0..nf)
                .rfind(|&f| self.offsets[f] <= row)
                .unwrap_or_default();
            (f as u8, (row - self.offsets[f]) as u32, c as u16, n)
        };
        let mut cells = Vec::with_capacity(self.prior_cells.len() + link.len());
        let (mut a, mut b) = (self.prior_cells.iter().peekable(), link.iter().peekable());
        loop {
            let (i, n) = match (a.peek(), b.peek()) {
                (None, None) => break,
                (Some(&&(i, n)), Some(&&j)) if i == j => {
                    a.next();
                    b.next();
                    (i, n.saturating_add(self.link[j as usize].saturating_mul(w)))
                }
                (Some(&&(i, n)), Some(&&j)) if i < j => {
                    a.next();
                    (i, n)
                }
                (Some(&&(i, n)), None) => {
                    a.next();
                    (i, n)
                }
                (_, Some(&&j)) => {
                    b.next();
                    (j, self.link[j as usize].saturating_mul(w))
                }
            };
            if n > 0 {
                cells.push(cell(i, n));
            }
        }
        let class_n = (0..self.prior.classes)
            .map(|c| {
                let prior = self.prior.class_n.get(c).copied().unwrap_or(0);
                prior.saturating_add(self.link_n[c].saturating_mul(w))
            })
            .collect();
        NbCounts {
            params: self.prior.params,
            classes: self.prior.classes,
            class_n,
            cells,
            threshold: self.prior.threshold,
        }
    }

    /// Rebuild the tables if flows were added since the last rebuild; true if it did.
    pub fn rebuild(&mut self) -> bool {
        if !self.dirty {
            return false;
        }
        self.nb = NaiveBayes::from_counts(&self.counts());
        self.dirty = false;
        true
    }

    /// Forget the link's flows: back to the prior.
    pub fn reset(&mut self) {
        if self.learned == 0 {
            return;
        }
        for &i in &self.touched {
            self.link[i as usize] = 0;
        }
        self.touched.clear();
        self.link_n.iter_mut().for_each(|n| *n = 0);
        self.learned = 0;
        self.dirty = false;
        self.nb = self.prior_nb.clone();
    }

    /// The tables as last built.
    pub fn nb(&self) -> &NaiveBayes {
        &self.nb
    }

    /// Classify a flow with the tables as last built ([`NaiveBayes::classify`]).
    #[inline]
    pub fn classify(&self, e: &Early, l4: u8, server_port: u16) -> Option<(u16, f32)> {
        self.nb.classify(e, l4, server_port)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::SizeMode;

    fn flow(sizes: &[i32]) -> Early {
        let mut e = Early::default();
        for &s in sizes {
            e.push(s < 0, s.unsigned_abs() as u16 + 40, s.unsigned_abs(), 0, 0);
        }
        e
    }

    /// A small deterministic set of flows: (flow, l4, port, class).
    fn flows(seed: u64, n: usize, classes: u16) -> Vec<(Early, u8, u16, u16)> {
        let mut x = seed;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        (0..n)
            .map(|_| {
                let c = (next() % classes as u64) as u16;
                let k = 1 + (next() % 5) as usize;
                let sizes: Vec<i32> = (0..k)
                    .map(|i| {
                        let s = (c as i32 * 200 + (next() % 300) as i32) % 1400;
                        if i % 2 == 1 {
                            -s
                        } else {
                            s
                        }
                    })
                    .collect();
                let port = [443u16, 53, 80, 50000][(next() % 4) as usize];
                (flow(&sizes), if port == 53 { 17 } else { 6 }, port, c)
            })
            .collect()
    }

    fn params() -> NbParams {
        NbParams {
            mode: SizeMode::Payload,
            positions: 4,
            ..NbParams::default()
        }
    }

    fn train(p: NbParams, k: usize, d: &[(Early, u8, u16, u16)]) -> NbCounts {
        NbCounts::train(p, k, d.iter().map(|(e, l4, port, c)| (e, *l4, *port, *c)))
    }

    /// The prior's counts plus the link's flows are the counts of training offline on both, so
    /// the rebuilt tables score every flow as `from_counts` of those counts does.
    #[test]
    fn link_counts_equal_offline_training_on_prior_and_link_flows() {
        let p = params();
        let k = 5;
        let a = flows(1, 300, k as u16);
        let b = flows(2, 200, k as u16);
        let mut m = LinkModel::new(&train(p, k, &a), 1);
        let mut bins = [0u32; MAX_FEATURES];
        for (e, l4, port, c) in &b {
            let n = m.bins(e, *l4, *port, &mut bins);
            assert!(m.add(*c, &bins[..n]));
        }
        assert_eq!(m.learned(), 200);
        let both: Vec<_> = a.iter().chain(b.iter()).copied().collect();
        let offline = train(p, k, &both);
        assert_eq!(m.counts(), offline);
        assert!(m.rebuild());
        assert!(!m.rebuild());
        let nb = NaiveBayes::from_counts(&offline);
        for (e, l4, port, _) in flows(3, 200, k as u16) {
            assert_eq!(m.nb().score(&e, l4, port), nb.score(&e, l4, port));
            assert_eq!(m.classify(&e, l4, port), nb.classify(&e, l4, port));
        }
        // Forgetting the link gives the prior back.
        m.reset();
        let prior = NaiveBayes::from_counts(&train(p, k, &a));
        for (e, l4, port, _) in flows(4, 50, k as u16) {
            assert_eq!(m.nb().score(&e, l4, port), prior.score(&e, l4, port));
        }
    }

    /// A weight w counts each link flow as w flows of offline training.
    #[test]
    fn a_weighted_link_flow_counts_as_that_many_flows() {
        let p = params();
        let k = 3;
        let a = flows(5, 100, k as u16);
        let b = flows(6, 40, k as u16);
        let mut m = LinkModel::new(&train(p, k, &a), 3);
        let mut bins = [0u32; MAX_FEATURES];
        for (e, l4, port, c) in &b {
            let n = m.bins(e, *l4, *port, &mut bins);
            assert!(m.add(*c, &bins[..n]));
        }
        let mut both = a.clone();
        for _ in 0..3 {
            both.extend(b.iter().copied());
        }
        // Cells come out sorted by (feature, bin, class) either way.
        assert_eq!(m.counts(), train(p, k, &both));
    }

    /// Hand-built counts: one position, no port, two classes.
    #[test]
    fn counts_by_hand() {
        let p = NbParams {
            positions: 1,
            port: false,
            ..params()
        };
        let prior = NbCounts {
            params: p,
            classes: 2,
            class_n: vec![2, 1],
            cells: vec![(0, 10, 0, 2), (0, 40, 1, 1)],
            threshold: i32::MIN,
        };
        let mut m = LinkModel::new(&prior, 2);
        assert!(m.add(1, &[10]));
        assert!(m.add(1, &[41]));
        assert!(!m.add(2, &[10]), "no such class");
        assert!(!m.add(0, &[10, 3]), "one feature only");
        assert!(!m.add(0, &[p.size_bins()]), "bin out of range");
        let want = NbCounts {
            params: p,
            classes: 2,
            class_n: vec![2, 5],
            cells: vec![(0, 10, 0, 2), (0, 10, 1, 2), (0, 40, 1, 1), (0, 41, 1, 2)],
            threshold: i32::MIN,
        };
        assert_eq!(m.counts(), want);
        assert!(m.table_bytes() == p.size_bins() as usize * 2 * 4);
    }
}
