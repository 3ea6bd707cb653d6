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
/// Classes scored at once: i16 lanes of one table row (rows are padded to whole blocks).
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
            // The first payload-carrying packets (Bernaille, Crotti): held out, they tell
            // applications apart better than every packet with the handshake's empty ones
            // (DESIGN.md "Statistical models").
            mode: SizeMode::Data,
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

/// One row of the scoring table: the log-probabilities of [`BLOCK`] classes for one bin, 32 bytes
/// aligned to 32 so that a row never straddles a cache line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(32))]
struct Row([i16; BLOCK]);

/// Score of a padding class, and the floor of every accumulator (i16 adds saturate).
const PAD: i16 = i16::MIN;
/// Lowest log-probability stored (fixed point).
const LP_MIN: f32 = -4000.0;
/// Lowest log prior stored (fixed point; reached only past e^125 training flows).
const PRIOR_MIN: f32 = -8000.0;
// A real class sums at least PRIOR_MIN + MAX_FEATURES · LP_MIN, which must stay above PAD: then
// i16 accumulators never saturate for a real class and every sum is the exact integer.
const _: () = assert!(PRIOR_MIN as i32 + MAX_FEATURES as i32 * LP_MIN as i32 > PAD as i32);
/// Index of the "absent" entry of the size-to-bin table.
const ABSENT: usize = 4096;
/// Largest score margin the confidence looks at (fixed point): the runner-up is taken as at
/// least this far below the best.
const MARGIN_CAP: i32 = 4000;

/// The posterior of the best class against the runner-up, from their score margin.
fn posterior(margin: i32) -> f32 {
    let d = margin as f32 / SCALE;
    1.0 / (1.0 + (-d).exp())
}

/// The scoring tables, built at load from the counts of a model file.
///
/// Layout: one row per (feature, bin) holding the log-probabilities of all classes side by side,
/// padded to whole blocks of [`BLOCK`] i16 (row `(first row of the feature + bin) · blocks +
/// block`). A classification reads six rows of 32 contiguous bytes (the size positions and the
/// port; unused ones read a row of zeros), each inside one cache line, and adds them lane by lane
/// into 16 i16 accumulators (two SSE2 registers, saturating adds), then takes the arg-max of the
/// lanes. Sums are exact: a real class never reaches the saturation floor.
#[derive(Clone, Debug)]
pub struct NaiveBayes {
    /// Parameters.
    pub params: NbParams,
    classes: usize,
    /// First row of each scoring slot: the [`SPLT_CAP`] size positions, then the port. Slots the
    /// model does not use point at an all-zero row (their bin is 0: sizes past P are "absent",
    /// the port bin is masked with `port_used`), so every classification adds the same
    /// [`MAX_FEATURES`] rows: no loop bound or branch that depends on the model.
    base: [usize; MAX_FEATURES],
    /// All ones when the model scores the port, else 0.
    port_used: usize,
    /// Blocks of [`BLOCK`] classes in a row: ⌈classes / BLOCK⌉.
    blocks: usize,
    /// `table[(base[f] + bin) * blocks + b].0[j]` = round(SCALE · ln P(bin | class, f)) of
    /// class `b·BLOCK + j`; padding classes are [`PAD`].
    table: Vec<Row>,
    /// round(SCALE · ln π_c), one row per block, padding classes [`PAD`].
    prior: Vec<Row>,
    threshold: i32,
    /// Size positions scored (≤ [`SPLT_CAP`]).
    positions: usize,
    /// The bin (+1) of every size, by direction and magnitude: `size_bin[d << 11 | min(|s|,
    /// 2047)]`, d = 1 for server→client; `size_bin[ABSENT]` = 0, the "absent" bin. One load per
    /// position instead of a clamp and a division; a power-of-two length, so that a masked
    /// index needs no bounds check.
    size_bin: Box<[u16; 2 * ABSENT]>,
    /// [`posterior`] of every margin 0..len (1.0 from there on): no `exp` per flow.
    conf: Vec<f32>,
}

/// Largest lane, as a tree of element-wise maxima (16 → 8 → 4 → 2 → 1), which vectorises.
#[inline(always)]
fn hmax(mut x: [i16; BLOCK]) -> i16 {
    let mut w = BLOCK / 2;
    while w > 0 {
        for j in 0..w {
            x[j] = x[j].max(x[j + w]);
        }
        w /= 2;
    }
    x[0]
}

/// Arg-max of a block: (first lane with the maximum, maximum, best of the other lanes — equal to
/// the maximum when two lanes tie). Written as element-wise masks and tree reductions so that it
/// compiles to SSE2 compares, masks and maxima (no branch, no scalar loop over the lanes).
#[inline(always)]
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn argmax2_portable(a: &[i16; BLOCK]) -> (usize, i16, i16) {
    let m = hmax(*a);
    let mut eq = [0i16; BLOCK];
    for j in 0..BLOCK {
        eq[j] = -((a[j] == m) as i16);
    }
    let mut rest = [0i16; BLOCK];
    for j in 0..BLOCK {
        rest[j] = (a[j] & !eq[j]) | (eq[j] & PAD);
    }
    let mut mask = 0u32;
    for (j, &e) in eq.iter().enumerate() {
        mask |= ((e as u16 as u32) >> 15) << j;
    }
    let r = hmax(rest);
    let m2 = if mask & mask.wrapping_sub(1) != 0 {
        m
    } else {
        r
    };
    (mask.trailing_zeros() as usize % BLOCK, m, m2)
}

/// Arg-max of a block, as [`argmax2_portable`] (a test checks they agree). On x86_64 it is
/// written with SSE2 intrinsics: the compiler's vectoriser turns the portable form into a mix of
/// vector and scalar code that changes with small edits, this one is 20-odd instructions.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn argmax2(a: &[i16; BLOCK]) -> (usize, i16, i16) {
    argmax2_portable(a)
}

/// See the other target's `argmax2`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
#[allow(unsafe_code)]
fn argmax2(a: &[i16; BLOCK]) -> (usize, i16, i16) {
    // SAFETY: SSE2 is part of every x86_64 target (the baseline), so the target feature the
    // function enables is always present; it reads only the 32 bytes of `a`.
    unsafe { sse2::argmax2(a) }
}

/// SSE2 (x86_64 baseline) arg-max of 16 i16 lanes. The only `unsafe` of the crate: calling a
/// `#[target_feature]` function and loading two unaligned vectors from a `&[i16; 16]`.
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod sse2 {
    use core::arch::x86_64::*;

    /// Every lane = the maximum of the 8 lanes.
    #[inline]
    #[target_feature(enable = "sse2")]
    unsafe fn hmax8(v: __m128i) -> __m128i {
        let v = _mm_max_epi16(v, _mm_shuffle_epi32::<0b01_00_11_10>(v));
        let v = _mm_max_epi16(v, _mm_shuffle_epi32::<0b10_11_00_01>(v));
        _mm_max_epi16(
            v,
            _mm_shufflelo_epi16::<0b10_11_00_01>(_mm_shufflehi_epi16::<0b10_11_00_01>(v)),
        )
    }

    /// (first lane with the maximum, maximum, best of the other lanes).
    #[inline]
    #[target_feature(enable = "sse2")]
    pub(super) unsafe fn argmax2(a: &[i16; 16]) -> (usize, i16, i16) {
        let p = a.as_ptr().cast::<__m128i>();
        let lo = _mm_loadu_si128(p);
        let hi = _mm_loadu_si128(p.add(1));
        let m = hmax8(_mm_max_epi16(lo, hi));
        let el = _mm_cmpeq_epi16(lo, m);
        let eh = _mm_cmpeq_epi16(hi, m);
        let mask = _mm_movemask_epi8(_mm_packs_epi16(el, eh)) as u32;
        // The maximal lanes become i16::MIN (min with 0x8000), the others stay (min with 0x7fff).
        let k = _mm_set1_epi16(0x7fff);
        let rest = _mm_max_epi16(
            _mm_min_epi16(lo, _mm_xor_si128(el, k)),
            _mm_min_epi16(hi, _mm_xor_si128(eh, k)),
        );
        let top = _mm_cvtsi128_si32(m) as i16;
        let r = _mm_cvtsi128_si32(hmax8(rest)) as i16;
        let m2 = if mask & mask.wrapping_sub(1) != 0 {
            top
        } else {
            r
        };
        ((mask.trailing_zeros() as usize) & 15, top, m2)
    }
}

/// Gaussian smoothing along the size axis of the size positions starting at `offsets` (not
/// the "absent" bin 0, not the port): each bin becomes the kernel-weighted sum of the counts
/// around it, divided by the kernel's sum. Each non-zero count is added, in bin order, to the
/// bins within reach: for any one bin the same terms in the same order as summing under the
/// kernel, less the zeros, which add nothing (+0.0; counts are never negative).
fn smooth(cnt: &mut [f32], offsets: &[usize], k: usize, p: &NbParams) {
    let r = (3.0 * p.sigma).ceil() as i64;
    let kern: Vec<f32> = (-r..=r)
        .map(|d| (-(d * d) as f32 / (2.0 * p.sigma * p.sigma)).exp())
        .collect();
    let ks: f32 = kern.iter().sum();
    let r = r as usize;
    let nb = p.size_bins() as usize;
    let mut acc = vec![0f32; nb * k];
    for &off in offsets {
        let cells = &mut cnt[off * k..(off + nb) * k];
        acc.fill(0.0);
        for bb in 1..nb {
            for cl in 0..k {
                let v = cells[bb * k + cl];
                if v != 0.0 {
                    for b in bb.saturating_sub(r).max(1)..=(bb + r).min(nb - 1) {
                        acc[b * k + cl] += kern[bb + r - b] * v;
                    }
                }
            }
        }
        for (c, &a) in cells[k..].iter_mut().zip(&acc[k..]) {
            *c = a / ks;
        }
    }
}

impl NaiveBayes {
    /// Build the tables from counts (Laplace, then optional Gaussian smoothing of the sizes).
    ///
    /// Done at every start for the shipped model, so it touches only what holds a count: the
    /// smoothing adds the kernel around each non-zero count (not the kernel under every bin),
    /// and of the port's 12,288 bins a class, nearly all empty, only those of a cell are
    /// computed, the others copied from one row of the empty bin's value. That took a start
    /// from 7.3 M instructions here to a few hundred thousand (issue 37 item 3). The same
    /// floating-point operations in the same order as the straightforward loops give the same
    /// bits: `tests::the_tables_are_the_straightforward_ones` keeps those loops as its oracle.
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
        let psz = (p.positions as usize).min(SPLT_CAP);
        let mut cnt = vec![0f32; rows * k];
        // The rows that may hold a count, in order: every row of the size positions
        // (smoothing spreads them), then the port's rows of a cell.
        let mut counted: Vec<usize> = (0..offsets[psz]).collect();
        for &(f, b, cl, n) in &c.cells {
            let f = f as usize;
            if f < nf && b < p.bins_of(f) && (cl as usize) < k {
                let row = offsets[f] + b as usize;
                cnt[row * k + cl as usize] += n as f32;
                if row >= offsets[psz] {
                    counted.push(row);
                }
            }
        }
        counted[offsets[psz]..].sort_unstable();
        counted.dedup();
        if p.sigma > 0.0 {
            smooth(&mut cnt, &offsets[..psz], k, p);
        }
        let blocks = k.div_ceil(BLOCK);
        let mut base = [rows; MAX_FEATURES];
        base[..psz].copy_from_slice(&offsets[..psz]);
        if p.port {
            base[SPLT_CAP] = offsets[psz];
        }
        let mut table = Vec::with_capacity((rows + 1) * blocks);
        let mut den = vec![0f32; k];
        // Each class's value for a bin it has no count in (the same for every such bin).
        let mut zero = vec![0i16; k];
        let mut empty = vec![Row([PAD; BLOCK]); blocks];
        for f in 0..nf {
            let nb = p.bins_of(f) as usize;
            let lo = counted.partition_point(|&r| r < offsets[f]);
            let hi = counted.partition_point(|&r| r < offsets[f + 1]);
            let counted = &counted[lo..hi];
            // Each class's total, in bin order (the zeros left out add nothing: +0.0).
            den.fill(0.0);
            for &r in counted {
                for (t, &n) in den.iter_mut().zip(&cnt[r * k..(r + 1) * k]) {
                    *t += n;
                }
            }
            for t in &mut den {
                *t += p.alpha * nb as f32;
            }
            let lp = |n: f32, den: f32| {
                let lp = ((n + p.alpha) / den).ln() * SCALE;
                lp.round().clamp(LP_MIN, 0.0) as i16
            };
            // Every bin takes the empty bin's value (padding classes PAD), then the counted
            // ones their own. A port no training flow used says nothing about the class: its
            // bin adds 0 to every class (Laplace's value there would favour the classes with
            // the fewest flows by the log of the ratio of their counts).
            let port = p.port && f == psz;
            for (cl, &d) in den.iter().enumerate() {
                zero[cl] = lp(0.0, d);
                empty[cl / BLOCK].0[cl % BLOCK] = if port { 0 } else { zero[cl] };
            }
            if let [row] = empty[..] {
                table.resize(table.len() + nb, row);
            } else {
                for _ in 0..nb {
                    table.extend_from_slice(&empty);
                }
            }
            for &r in counted {
                for (cl, (&n, &d)) in cnt[r * k..(r + 1) * k].iter().zip(&den).enumerate() {
                    if n != 0.0 {
                        table[r * blocks + cl / BLOCK].0[cl % BLOCK] = lp(n, d);
                    } else if port {
                        table[r * blocks + cl / BLOCK].0[cl % BLOCK] = zero[cl];
                    }
                }
            }
        }
        // One more row of zeros at the end: what unused slots add.
        table.resize((rows + 1) * blocks, Row([0; BLOCK]));
        let total: u64 = c.class_n.iter().map(|&n| n as u64).sum();
        let mut prior = vec![Row([PAD; BLOCK]); blocks];
        for cl in 0..k {
            let n = c.class_n.get(cl).copied().unwrap_or(0) as f32 + 1.0;
            let lp = ((n / (total as f32 + k as f32)).ln() * SCALE).round();
            prior[cl / BLOCK].0[cl % BLOCK] = lp.clamp(PRIOR_MIN, 0.0) as i16;
        }
        let w = p.bin_width.max(1) as i32;
        let mut size_bin = Box::new([0u16; 2 * ABSENT]);
        for (i, b) in size_bin.iter_mut().take(ABSENT).enumerate() {
            let a = (i & 2047) as i32;
            let s = if i >> 11 != 0 { -a } else { a };
            // As NbParams::bins.
            *b = ((s.clamp(-SIZE_CLAMP - 1, SIZE_CLAMP) + SIZE_CLAMP + 1) / w + 1) as u16;
        }
        let mut conf: Vec<f32> = (0..=MARGIN_CAP).map(posterior).collect();
        while conf.last() == Some(&1.0) {
            conf.pop();
        }
        NaiveBayes {
            params: *p,
            classes: k,
            base,
            port_used: if p.port { !0 } else { 0 },
            blocks,
            table,
            prior,
            threshold: c.threshold,
            positions: psz,
            size_bin,
            conf,
        }
    }

    /// Number of classes.
    pub fn classes(&self) -> usize {
        self.classes
    }

    /// The table row (in rows of all blocks: × `blocks` for the index) of every scoring slot of
    /// a flow (see `base`). The same bins as
    /// [`NbParams::bins`] (a test checks it), computed without branching on the packets: fixed
    /// loops over the slot's [`SPLT_CAP`] packets, masks instead of conditions, a multiply for
    /// the bin.
    #[inline(always)]
    fn rows(&self, e: &Early, l4: u8, server_port: u16) -> [usize; MAX_FEATURES] {
        let n = e.len().min(self.positions);
        // Each packet's index into `size_bin`: direction and saturated magnitude.
        let hdr = if self.params.mode == SizeMode::Ip {
            0xff
        } else {
            0
        };
        let mut key = [0usize; SPLT_CAP];
        let k = if self.params.mode == SizeMode::Data {
            // The first packets that carried payload, wherever they came.
            for (k, &l) in key.iter_mut().zip(e.lead.iter()) {
                *k = (l as usize >> 15) << 11 | (l as usize & 0x7fff).min(2047);
            }
            e.nlead().min(self.positions)
        } else {
            for (i, k) in key.iter_mut().enumerate() {
                let a = (e.payload[i] as usize + (e.hdr[i] as usize & hdr)).min(2047);
                *k = ((e.s2c as usize) >> i & 1) << 11 | a;
            }
            n
        };
        let mut bins = [0usize; MAX_FEATURES];
        for (f, b) in bins.iter_mut().take(SPLT_CAP).enumerate() {
            let at = if f < k { key[f] } else { ABSENT };
            *b = self.size_bin[at & (2 * ABSENT - 1)] as usize;
        }
        let t = match l4 {
            6 => 0,
            17 => 1,
            _ => 2,
        };
        // server_port % 4095 by a multiply (exact for 16-bit ports; a test checks every port).
        let port = server_port as u64;
        let q = (port * 1_048_833) >> 32;
        let b = if server_port >= 49152 {
            PORT_BUCKETS as u64 - 1
        } else {
            port - q * (PORT_BUCKETS as u64 - 1)
        };
        bins[SPLT_CAP] = (t * PORT_BUCKETS as usize + b as usize) & self.port_used;
        let mut out = [0usize; MAX_FEATURES];
        for f in 0..MAX_FEATURES {
            out[f] = self.base[f] + bins[f];
        }
        out
    }

    /// Score every class; returns (best class, best score, second-best score; i32::MIN when
    /// there is no other class). P+1 row additions in i16 lanes and one arg-max per block of
    /// [`BLOCK`] classes; no allocation.
    #[inline]
    pub fn score(&self, e: &Early, l4: u8, server_port: u16) -> (u16, i32, i32) {
        let rows = self.rows(e, l4, server_port);
        const FAIL: (u16, i32, i32) = (0, i32::MIN, i32::MIN);
        let wide = |m2: i16| if m2 == PAD { i32::MIN } else { m2 as i32 };
        if self.blocks == 1 {
            // Up to 16 classes (the shipped model): one block, no bookkeeping across blocks.
            let Some(prior) = self.prior.first() else {
                return FAIL;
            };
            let mut acc = prior.0;
            for &r in &rows {
                let Some(row) = self.table.get(r) else {
                    return FAIL;
                };
                for (a, &v) in acc.iter_mut().zip(row.0.iter()) {
                    *a = a.saturating_add(v);
                }
            }
            let (at, m, m2) = argmax2(&acc);
            return (at as u16, m as i32, wide(m2));
        }
        self.score_blocks(&rows)
    }

    /// [`NaiveBayes::score`] for more than [`BLOCK`] classes: block by block, best and
    /// runner-up carried across blocks (kept out of line: the one-block path stays small).
    #[inline(never)]
    fn score_blocks(&self, rows: &[usize; MAX_FEATURES]) -> (u16, i32, i32) {
        const FAIL: (u16, i32, i32) = (0, i32::MIN, i32::MIN);
        let wide = |m2: i16| if m2 == PAD { i32::MIN } else { m2 as i32 };
        let (mut best, mut bs, mut second) = (0usize, i32::MIN, i32::MIN);
        for (b, prior) in self.prior.iter().enumerate() {
            let mut acc = prior.0;
            for &r in rows {
                let Some(row) = self.table.get(r * self.blocks + b) else {
                    return FAIL;
                };
                for (a, &v) in acc.iter_mut().zip(row.0.iter()) {
                    *a = a.saturating_add(v);
                }
            }
            let (at, m, m2) = argmax2(&acc);
            let (m, m2) = (m as i32, wide(m2));
            if m > bs {
                second = bs.max(m2);
                bs = m;
                best = b * BLOCK + at;
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
        // Posterior of the best against the runner-up only (an upper bound), from a table.
        let margin = s - s2.max(s - MARGIN_CAP);
        Some((c, self.conf.get(margin as usize).copied().unwrap_or(1.0)))
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

    /// The tables as the straightforward loops built them before (issue 37 item 3): the
    /// smoothing sums the kernel under every bin, every bin of every class takes its
    /// logarithm. [`NaiveBayes::from_counts`] must give the same bits.
    fn reference_table(c: &NbCounts) -> (Vec<Row>, [usize; MAX_FEATURES]) {
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
        let blocks = k.div_ceil(BLOCK);
        // One more row of zeros at the end: what unused slots add.
        let mut table = vec![Row([PAD; BLOCK]); (rows + 1) * blocks];
        for r in &mut table[rows * blocks..] {
            *r = Row([0; BLOCK]);
        }
        let mut base = [rows; MAX_FEATURES];
        base[..psz].copy_from_slice(&offsets[..psz]);
        if p.port {
            base[SPLT_CAP] = offsets[psz];
        }
        for f in 0..nf {
            let nb = p.bins_of(f) as usize;
            for cl in 0..k {
                let tot: f32 = (0..nb).map(|b| cnt[(offsets[f] + b) * k + cl]).sum();
                let den = tot + p.alpha * nb as f32;
                // Runs of equal counts (the zeros far from any observed size, most of the
                // table) take the previous cell's value: the same inputs give the same bits,
                // and a start computes a few thousand logarithms instead of ~200,000.
                let mut last: Option<(u32, i16)> = None;
                for b in 0..nb {
                    let n = cnt[(offsets[f] + b) * k + cl];
                    let v = match last {
                        Some((bits, v)) if bits == n.to_bits() => v,
                        _ => {
                            let lp = ((n + p.alpha) / den).ln() * SCALE;
                            lp.round().clamp(LP_MIN, 0.0) as i16
                        }
                    };
                    last = Some((n.to_bits(), v));
                    table[(offsets[f] + b) * blocks + cl / BLOCK].0[cl % BLOCK] = v;
                }
            }
            // A port no class was counted on adds 0 to every class.
            if p.port && f == psz {
                for b in 0..nb {
                    let row = offsets[f] + b;
                    if (0..k).all(|cl| cnt[row * k + cl] == 0.0) {
                        for cl in 0..k {
                            table[row * blocks + cl / BLOCK].0[cl % BLOCK] = 0;
                        }
                    }
                }
            }
        }
        (table, base)
    }

    /// The shipped model, and variants of it (smoothing widths, no port, fewer positions, more
    /// than one block of classes, bins out of range), give the tables of the straightforward
    /// loops, bit for bit: the predictions are those of before.
    #[test]
    fn the_tables_are_the_straightforward_ones() {
        let m = crate::model::Model::from_bytes(crate::DEFAULT_MODEL_BYTES).unwrap();
        let crate::model::Algo::Nb(shipped) = &m.algo else {
            panic!("the shipped model is Naive Bayes")
        };
        let mut variants = vec![shipped.clone()];
        for sigma in [0.0, 0.4, 2.5, 7.0] {
            let mut c = shipped.clone();
            c.params.sigma = sigma;
            variants.push(c);
        }
        let mut c = shipped.clone();
        c.params.port = false;
        c.params.positions = 2;
        variants.push(c);
        let mut c = shipped.clone();
        c.params.bin_width = 7;
        c.params.alpha = 0.5;
        variants.push(c);
        let mut c = shipped.clone();
        c.params.bin_width = 64;
        variants.push(c);
        // 40 classes (three blocks, padding lanes), each cell counted again in another class.
        let mut c = shipped.clone();
        c.classes = 40;
        c.class_n.resize(40, 3);
        let more: Vec<_> = c
            .cells
            .iter()
            .map(|&(f, b, cl, n)| (f, b, (cl * 7 + 3) % 40, n * 3 + 1))
            .collect();
        c.cells.extend(more);
        variants.push(c);
        for (i, c) in variants.iter().enumerate() {
            let nb = NaiveBayes::from_counts(c);
            let (table, base) = reference_table(c);
            assert_eq!(nb.base, base, "variant {i}");
            assert!(nb.table == table, "variant {i}: tables differ");
        }
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

    /// A server port no training flow used says nothing: such a flow scores as a model without
    /// the port scores it (sizes and prior alone), where Laplace's value for an empty bin had
    /// favoured the class with the fewest flows. A port that was used still counts.
    #[test]
    fn a_port_no_class_was_trained_on_adds_nothing() {
        let with = NbParams {
            positions: 2,
            ..NbParams::default()
        };
        let without = NbParams {
            port: false,
            ..with
        };
        let (a, b) = (flow(&[100, -300]), flow(&[120, -900]));
        // Class 0: many flows on port 80; class 1: two on 443.
        let mut data: Vec<(&Early, u8, u16, u16)> = vec![(&a, 6, 80, 0); 50];
        data.extend([(&b, 6, 443, 1), (&b, 6, 443, 1)]);
        let port = NaiveBayes::from_counts(&NbCounts::train(with, 2, data.iter().copied()));
        let sizes = NaiveBayes::from_counts(&NbCounts::train(without, 2, data.iter().copied()));
        for e in [&a, &b, &flow(&[110, -500])] {
            assert_eq!(port.score(e, 6, 41_000), sizes.score(e, 6, 41_000));
            assert_eq!(port.score(e, 17, 80), sizes.score(e, 17, 80));
        }
        // Class 0's flow sizes on class 1's port: the port pulls towards class 1.
        assert_eq!(port.score(&a, 6, 80).0, 0);
        assert!(port.score(&a, 6, 443).1 < sizes.score(&a, 6, 443).1);
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

    /// The rows a flow's features select, by the training path's [`NbParams::bins`] and the
    /// file-order offsets: what [`NaiveBayes::rows`] must reproduce, slot by slot.
    fn reference_rows(nb: &NaiveBayes, e: &Early, l4: u8, port: u16) -> [usize; MAX_FEATURES] {
        let mut bins = [0u32; MAX_FEATURES];
        let nf = nb.params.bins(e, l4, port, &mut bins);
        let p = nb.positions;
        let zero = nb.table.len() / nb.blocks - 1;
        let mut out = [zero; MAX_FEATURES];
        let mut offset = 0;
        for (f, &b) in bins.iter().enumerate().take(nf) {
            let slot = if f < p { f } else { SPLT_CAP };
            out[slot] = offset + b as usize;
            offset += nb.params.bins_of(f) as usize;
        }
        out
    }

    /// Plain scoring: i32 sums class by class from the reference rows, first maximum wins,
    /// runner-up = best of the other classes (what the i16-lane code must equal exactly).
    fn reference_score(nb: &NaiveBayes, e: &Early, l4: u8, port: u16) -> (u16, i32, i32) {
        let rows = reference_rows(nb, e, l4, port);
        let mut s: Vec<i32> = (0..nb.classes)
            .map(|c| {
                let mut v = nb.prior[c / BLOCK].0[c % BLOCK] as i32;
                for &r in &rows {
                    v += nb.table[r * nb.blocks + c / BLOCK].0[c % BLOCK] as i32;
                }
                v
            })
            .collect();
        let mut best = 0;
        for c in 1..s.len() {
            if s[c] > s[best] {
                best = c;
            }
        }
        let top = s[best];
        s.remove(best);
        (best as u16, top, s.into_iter().max().unwrap_or(i32::MIN))
    }

    fn model(
        classes: usize,
        params: NbParams,
        flows: &[(Early, u8, u16)],
        labels: &[u16],
    ) -> NaiveBayes {
        let data = flows
            .iter()
            .zip(labels)
            .map(|((e, l4, p), &c)| (e, *l4, *p, c % classes as u16));
        NaiveBayes::from_counts(&NbCounts::train(params, classes, data))
    }

    #[test]
    fn size_and_port_bins_match_the_training_path() {
        for mode in [SizeMode::Ip, SizeMode::Payload, SizeMode::Data] {
            for bin_width in [1u16, 3, 32, 100, 1536] {
                let params = NbParams {
                    mode,
                    positions: 5,
                    bin_width,
                    ..NbParams::default()
                };
                let nb = model(2, params, &[], &[]);
                for pl in (0..=2100u32).chain([4095, 65535]) {
                    for s2c in [false, true] {
                        // The size under test at every position, after a packet without payload.
                        let mut e = Early::default();
                        e.push(!s2c, 40, 0, 0, 0);
                        for _ in 1..SPLT_CAP {
                            e.push(s2c, 40 + pl.min(65000) as u16, pl, 0, 0);
                        }
                        assert_eq!(
                            nb.rows(&e, 6, 80),
                            reference_rows(&nb, &e, 6, 80),
                            "{mode:?} width {bin_width} payload {pl} s2c {s2c}"
                        );
                    }
                }
            }
        }
        let nb = model(2, NbParams::default(), &[], &[]);
        let e = flow(&[100, -200]);
        for port in 0..=u16::MAX {
            for l4 in [6, 17, 1] {
                assert_eq!(nb.rows(&e, l4, port), reference_rows(&nb, &e, l4, port));
            }
        }
    }

    fn any_flow() -> impl Strategy<Value = (Early, u8, u16)> {
        (
            proptest::collection::vec((any::<bool>(), 0u32..3000, any::<u8>()), 0..7),
            prop_oneof![Just(6u8), Just(17), Just(1)],
            prop_oneof![0u16..1024, any::<u16>()],
        )
            .prop_map(|(pk, l4, port)| {
                let mut e = Early::default();
                for (s2c, pl, h) in pk {
                    // Sizes beyond the clamp, and empty packets, included.
                    let pl = if h == 255 { 65535 } else { pl * (h as u32 & 1) };
                    e.push(s2c, (pl + h as u32).min(65535) as u16, pl, 0, 0);
                }
                (e, l4, port)
            })
    }

    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// The fast path (size table, i16 lanes, unused slots on the zero row, arg-max by
        /// masks, one or several blocks) gives exactly the plain i32 scores, winner and
        /// runner-up, for any model shape and any flow.
        #[test]
        fn scores_equal_the_plain_reference(
            classes in 1usize..40,
            mode in prop_oneof![Just(SizeMode::Ip), Just(SizeMode::Payload), Just(SizeMode::Data)],
            positions in 1u8..=5,
            bin_width in prop_oneof![Just(1u16), Just(7), Just(32), Just(1536)],
            port in any::<bool>(),
            sigma in prop_oneof![Just(0.0f32), Just(1.0)],
            train in proptest::collection::vec((any_flow(), any::<u16>()), 1..60),
            test in proptest::collection::vec(any_flow(), 1..40),
        ) {
            let params = NbParams { mode, positions, bin_width, port, sigma, alpha: 0.01 };
            let (flows, labels): (Vec<_>, Vec<_>) = train.into_iter().unzip();
            let nb = model(classes, params, &flows, &labels);
            for (e, l4, p) in test.iter().chain(flows.iter()) {
                let e = e.truncated(positions as usize);
                prop_assert_eq!(nb.score(&e, *l4, *p), reference_score(&nb, &e, *l4, *p));
            }
        }
    }

    proptest! {
        /// The arg-max the target uses (SSE2 on x86_64) and the portable one agree, and both
        /// equal a plain scan: first maximal lane, maximum, best of the other lanes. Narrow
        /// values make ties common.
        #[test]
        fn argmax_paths_agree(
            wide in proptest::array::uniform16(any::<i16>()),
            narrow in proptest::array::uniform16(-3i16..=0),
        ) {
            for a in [wide, narrow, [PAD; BLOCK], [0; BLOCK]] {
                let at = (0..BLOCK).fold(0, |b, j| if a[j] > a[b] { j } else { b });
                let m2 = (0..BLOCK).filter(|&j| j != at).map(|j| a[j]).max().unwrap_or(PAD);
                let want = (at, a[at], m2);
                prop_assert_eq!(argmax2(&a), want);
                prop_assert_eq!(argmax2_portable(&a), want);
            }
        }
    }

    #[test]
    fn ties_go_to_the_first_class_and_leave_no_margin() {
        // Two classes with identical training data score the same on every flow.
        let a = flow(&[100, -300]);
        let nb = model(
            3,
            NbParams::default(),
            &[(a, 6, 443), (a, 6, 443), (flow(&[-50]), 17, 53)],
            &[1, 2, 0],
        );
        let (c, s, s2) = nb.score(&a, 6, 443);
        assert_eq!((c, s), (1, s2));
        assert_eq!(nb.classify(&a, 6, 443), Some((1, 0.5)));
    }

    #[test]
    fn confidence_table_is_the_posterior() {
        let nb = model(2, NbParams::default(), &[], &[]);
        for m in 0..=MARGIN_CAP {
            let want = 1.0 / (1.0 + (-(m as f32 / SCALE)).exp());
            assert_eq!(nb.conf.get(m as usize).copied().unwrap_or(1.0), want, "{m}");
        }
    }
}
