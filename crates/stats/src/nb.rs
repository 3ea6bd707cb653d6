//! Naive Bayes over the signed sizes of the first packets (seed 000; Santiago del Rio et al.,
//! Crotti et al.): one table per packet position, indexed by the binned signed size, holding
//! fixed-point log-probabilities; optionally one more table for the server port.
//!
//! Training keeps counts (that is what a model file stores: small and sparse); loading turns them
//! into log-probability tables with Laplace smoothing and an optional Gaussian smoothing along the
//! size axis. Scoring is integer: P+1 table rows added, one arg-max.

use crate::features::{Early, SizeMode, SPLT_CAP};

/// Largest |signed size| with its own bin; larger sizes share the edge bins.
pub const SIZE_CLAMP: i32 = 1535;
/// Port buckets per transport in the optional port table.
pub const PORT_BUCKETS: u32 = 4096;
/// Log-probabilities are stored as round(SCALE · ln p).
pub const SCALE: f32 = 64.0;
/// Classes scored at once (accumulators on the stack; rows are padded to a multiple).
pub const BLOCK: usize = 16;
/// Most features (size positions + port).
pub const MAX_FEATURES: usize = SPLT_CAP + 1;

/// What a Naive Bayes model looks at.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NbParams {
    /// Which size.
    pub mode: SizeMode,
    /// Positions scored (≤ [`SPLT_CAP`]).
    pub positions: u8,
    /// Bytes per size bin (1 = exact-byte resolution).
    pub bin_width: u16,
    /// Also score the server port (bucketed per transport).
    pub port: bool,
    /// Gaussian smoothing along the size axis, standard deviation in bins (0 = none).
    pub sigma: f32,
    /// Laplace pseudo-count.
    pub alpha: f32,
}

impl Default for NbParams {
    fn default() -> Self {
        NbParams {
            mode: SizeMode::Payload,
            positions: 4,
            bin_width: 32,
            port: true,
            sigma: 1.0,
            // Chosen by cross-validation on the corpus (DESIGN.md): with thousands of bins, a
            // pseudo-count of 1 drowns the classes that have few training flows.
            alpha: 0.0001,
        }
    }
}

impl NbParams {
    /// Bins of one size position: one "absent" bin, then the clamped signed sizes.
    pub fn size_bins(&self) -> u32 {
        (2 * (SIZE_CLAMP as u32 + 1)) / self.bin_width.max(1) as u32 + 2
    }

    /// Number of features (size positions, plus the port).
    pub fn features(&self) -> usize {
        (self.positions as usize).min(SPLT_CAP) + self.port as usize
    }

    /// Bins of feature `f`.
    pub fn bins_of(&self, f: usize) -> u32 {
        if f < (self.positions as usize).min(SPLT_CAP) {
            self.size_bins()
        } else {
            3 * PORT_BUCKETS
        }
    }

    /// The bin of every feature of a flow; returns the number of features.
    #[inline]
    pub fn bins(
        &self,
        e: &Early,
        l4: u8,
        server_port: u16,
        out: &mut [u32; MAX_FEATURES],
    ) -> usize {
        let p = (self.positions as usize).min(SPLT_CAP);
        let mut s = [0i32; SPLT_CAP];
        let k = e.sizes(self.mode, &mut s[..p]);
        let w = self.bin_width.max(1) as u32;
        // Bin widths are usually powers of two: a shift instead of a division (5 a flow).
        let shift = w.trailing_zeros();
        let pow2 = w.is_power_of_two();
        for i in 0..p {
            out[i] = if i < k {
                let v = (s[i].clamp(-SIZE_CLAMP - 1, SIZE_CLAMP) + SIZE_CLAMP + 1) as u32;
                (if pow2 { v >> shift } else { v / w }) + 1
            } else {
                0
            };
        }
        if self.port {
            let t = match l4 {
                6 => 0,
                17 => 1,
                _ => 2,
            };
            // Ephemeral ports share one bucket; ports of other transports are 0.
            let b = if server_port >= 49152 {
                PORT_BUCKETS - 1
            } else {
                server_port as u32 % (PORT_BUCKETS - 1)
            };
            out[p] = t * PORT_BUCKETS + b;
            p + 1
        } else {
            p
        }
    }
}

/// Training counts: `counts[f][bin][class]` (sparse), flows per class.
#[derive(Clone, Debug, PartialEq)]
pub struct NbCounts {
    /// Parameters.
    pub params: NbParams,
    /// Number of classes.
    pub classes: usize,
    /// Training flows per class.
    pub class_n: Vec<u32>,
    /// (feature, bin, class, count), sorted, counts > 0.
    pub cells: Vec<(u8, u32, u16, u32)>,
    /// Reject (say "unknown") when the best score is below this (fixed point); i32::MIN = never.
    pub threshold: i32,
}

impl NbCounts {
    /// Count a training set: `(flow, l4, server port, class)`.
    pub fn train<'a>(
        params: NbParams,
        classes: usize,
        data: impl Iterator<Item = (&'a Early, u8, u16, u16)>,
    ) -> NbCounts {
        let mut map = std::collections::BTreeMap::<(u8, u32, u16), u32>::new();
        let mut class_n = vec![0u32; classes];
        let mut bins = [0u32; MAX_FEATURES];
        for (e, l4, port, c) in data {
            if c as usize >= classes {
                continue;
            }
            class_n[c as usize] += 1;
            let nf = params.bins(e, l4, port, &mut bins);
            for (f, &b) in bins[..nf].iter().enumerate() {
                *map.entry((f as u8, b, c)).or_insert(0) += 1;
            }
        }
        NbCounts {
            params,
            classes,
            class_n,
            cells: map.into_iter().map(|((f, b, c), n)| (f, b, c, n)).collect(),
            threshold: i32::MIN,
        }
    }
}

/// The scoring tables.
#[derive(Clone, Debug)]
pub struct NaiveBayes {
    /// Parameters.
    pub params: NbParams,
    classes: usize,
    /// Row offset of each feature's first bin.
    offsets: [usize; MAX_FEATURES + 1],
    /// Row length: `classes` rounded up to [`BLOCK`] (the padding never wins).
    stride: usize,
    /// `table[(offset[f] + bin) * stride + class]` = round(SCALE · ln P(bin | class, f)).
    table: Vec<i16>,
    /// round(SCALE · ln π_c), padded to `stride`.
    prior: Vec<i32>,
    threshold: i32,
}

impl NaiveBayes {
    /// Build the tables from counts (Laplace, then optional Gaussian smoothing of the sizes).
    pub fn from_counts(c: &NbCounts) -> NaiveBayes {
        let p = &c.params;
        let nf = p.features();
        let k = c.classes.max(1);
        let mut offsets = [0usize; MAX_FEATURES + 1];
        for f in 0..nf {
            offsets[f + 1] = offsets[f] + p.bins_of(f) as usize;
        }
        for f in nf..MAX_FEATURES {
            offsets[f + 1] = offsets[f];
        }
        let rows = offsets[nf];
        let mut cnt = vec![0f32; rows * k];
        for &(f, b, cl, n) in &c.cells {
            let f = f as usize;
            if f < nf && b < p.bins_of(f) && (cl as usize) < k {
                cnt[(offsets[f] + b as usize) * k + cl as usize] += n as f32;
            }
        }
        // Gaussian smoothing along the size axis (not the "absent" bin, not the port).
        let psz = (p.positions as usize).min(SPLT_CAP);
        if p.sigma > 0.0 {
            let r = (3.0 * p.sigma).ceil() as i64;
            let kern: Vec<f32> = (-r..=r)
                .map(|d| (-(d * d) as f32 / (2.0 * p.sigma * p.sigma)).exp())
                .collect();
            let ks: f32 = kern.iter().sum();
            let nb = p.size_bins() as i64;
            for &off in offsets.iter().take(psz) {
                for cl in 0..k {
                    let at = |b: i64| (off + b as usize) * k + cl;
                    let src: Vec<f32> = (0..nb).map(|b| cnt[at(b)]).collect();
                    for b in 1..nb {
                        let mut s = 0.0;
                        for (j, w) in kern.iter().enumerate() {
                            let bb = b + j as i64 - r;
                            if bb >= 1 && bb < nb {
                                s += w * src[bb as usize];
                            }
                        }
                        cnt[at(b)] = s / ks;
                    }
                }
            }
        }
        let stride = k.div_ceil(BLOCK) * BLOCK;
        let mut table = vec![-4000i16; rows * stride];
        for f in 0..nf {
            let nb = p.bins_of(f) as usize;
            for cl in 0..k {
                let tot: f32 = (0..nb).map(|b| cnt[(offsets[f] + b) * k + cl]).sum();
                let den = tot + p.alpha * nb as f32;
                for b in 0..nb {
                    let lp = ((cnt[(offsets[f] + b) * k + cl] + p.alpha) / den).ln() * SCALE;
                    table[(offsets[f] + b) * stride + cl] = lp.round().clamp(-4000.0, 0.0) as i16;
                }
            }
        }
        let total: u64 = c.class_n.iter().map(|&n| n as u64).sum();
        let prior = (0..stride)
            .map(|cl| {
                if cl >= k {
                    return -1_000_000;
                }
                let n = c.class_n.get(cl).copied().unwrap_or(0) as f32 + 1.0;
                ((n / (total as f32 + k as f32)).ln() * SCALE).round() as i32
            })
            .collect();
        NaiveBayes {
            params: *p,
            classes: k,
            offsets,
            stride,
            table,
            prior,
            threshold: c.threshold,
        }
    }

    /// Number of classes.
    pub fn classes(&self) -> usize {
        self.classes
    }

    /// Score every class; returns (best class, best score, second-best score). Integer adds
    /// only, in blocks of [`BLOCK`] classes on the stack (rows are padded to whole blocks, so
    /// the loops have fixed lengths and vectorise); no allocation.
    #[inline]
    pub fn score(&self, e: &Early, l4: u8, server_port: u16) -> (u16, i32, i32) {
        let mut bins = [0u32; MAX_FEATURES];
        let nf = self.params.bins(e, l4, server_port, &mut bins);
        let st = self.stride;
        let mut starts = [0usize; MAX_FEATURES];
        for f in 0..nf {
            starts[f] = (self.offsets[f] + bins[f] as usize) * st;
            if starts[f] + st > self.table.len() {
                return (0, i32::MIN, i32::MIN);
            }
        }
        let (mut best, mut bs, mut second) = (0usize, i32::MIN, i32::MIN);
        for base in (0..st).step_by(BLOCK) {
            let Some(p) = self.prior.get(base..base + BLOCK) else {
                break;
            };
            let mut acc = [0i32; BLOCK];
            acc.copy_from_slice(p);
            for &s0 in &starts[..nf] {
                let row = &self.table[s0 + base..s0 + base + BLOCK];
                for j in 0..BLOCK {
                    acc[j] += row[j] as i32;
                }
            }
            let m = acc.iter().copied().max().unwrap_or(i32::MIN);
            let at = acc.iter().position(|&v| v == m).unwrap_or(0);
            acc[at] = i32::MIN;
            let m2 = acc.iter().copied().max().unwrap_or(i32::MIN);
            if m > bs {
                second = bs.max(m2);
                bs = m;
                best = base + at;
            } else {
                second = second.max(m);
            }
        }
        (best as u16, bs, second)
    }

    /// The verdict: class and posterior probability, or None below the threshold.
    #[inline]
    pub fn classify(&self, e: &Early, l4: u8, server_port: u16) -> Option<(u16, f32)> {
        let (c, s, s2) = self.score(e, l4, server_port);
        if s < self.threshold || s == i32::MIN {
            return None;
        }
        // Posterior of the best against the runner-up only (an upper bound): one exp per flow.
        let d = (s - s2.max(s - 4000)) as f32 / SCALE;
        Some((c, 1.0 / (1.0 + (-d).exp())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flow(sizes: &[i32]) -> Early {
        let mut e = Early::default();
        for &s in sizes {
            // 40 bytes of headers, the rest payload
            e.push(s < 0, s.unsigned_abs() as u16, s.unsigned_abs() - 40, 0, 0);
        }
        e
    }

    /// Two classes, one position, exact bins, no smoothing beyond Laplace: the table entries are
    /// hand-computable.
    #[test]
    fn laplace_tables_by_hand() {
        let params = NbParams {
            mode: SizeMode::Ip,
            positions: 1,
            bin_width: 1024,
            port: false,
            sigma: 0.0,
            alpha: 1.0,
        };
        // bins: absent, [-1536,-513], [-512, 511], [512, 1535]  => size_bins = 3072/1024 + 2 = 5
        assert_eq!(params.size_bins(), 5);
        let a = flow(&[100]);
        let b = flow(&[-1000]);
        let data = [(&a, 0u16), (&a, 0), (&a, 0), (&b, 1)];
        let c = NbCounts::train(params, 2, data.iter().map(|(e, c)| (*e, 6, 80, *c)));
        let nb = NaiveBayes::from_counts(&c);
        // class 0: 3 flows in the bin of +100 → (3+1)/(3+5); class 1: (0+1)/(1+5)
        let (cl, s, s2) = nb.score(&a, 6, 80);
        assert_eq!(cl, 0);
        let prior0 = ((4.0f32 / 6.0).ln() * SCALE).round() as i32;
        let prior1 = ((2.0f32 / 6.0).ln() * SCALE).round() as i32;
        assert_eq!(s, prior0 + ((4.0f32 / 8.0).ln() * SCALE).round() as i32);
        assert_eq!(s2, prior1 + ((1.0f32 / 6.0).ln() * SCALE).round() as i32);
        assert_eq!(nb.classify(&b, 6, 80).unwrap().0, 1);
    }

    #[test]
    fn below_the_threshold_is_unknown() {
        let params = NbParams {
            positions: 1,
            port: false,
            ..NbParams::default()
        };
        let a = flow(&[100]);
        let mut c = NbCounts::train(params, 1, [(&a, 6u8, 80u16, 0u16)].into_iter());
        let seen = NaiveBayes::from_counts(&c).score(&a, 6, 80).1;
        c.threshold = seen;
        let nb = NaiveBayes::from_counts(&c);
        assert_eq!(nb.classify(&a, 6, 80).map(|r| r.0), Some(0));
        // A size the class never had scores lower: rejected.
        assert_eq!(nb.classify(&flow(&[-1400]), 6, 80), None);
    }

    #[test]
    fn gaussian_smoothing_spreads_to_neighbour_bins() {
        let mut params = NbParams {
            positions: 1,
            bin_width: 1,
            port: false,
            sigma: 0.0,
            ..NbParams::default()
        };
        let a = flow(&[100]);
        let near = flow(&[102]);
        let c0 = NbCounts::train(params, 1, [(&a, 6u8, 80u16, 0u16)].into_iter());
        let sharp = NaiveBayes::from_counts(&c0);
        params.sigma = 2.0;
        let c1 = NbCounts::train(params, 1, [(&a, 6u8, 80u16, 0u16)].into_iter());
        let smooth = NaiveBayes::from_counts(&c1);
        assert!(smooth.score(&near, 6, 80).1 > sharp.score(&near, 6, 80).1);
        assert!(smooth.score(&a, 6, 80).1 < sharp.score(&a, 6, 80).1);
    }
}
