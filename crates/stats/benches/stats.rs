//! Microbenchmarks of the statistical classifier (no framework: a timed loop, best of 5 runs,
//! timed by the thread's CPU time so a busy shared machine inflates the figures less):
//! Naive Bayes classifications/s with the shipped model, C4.5 inferences/s with models/c45.wsm,
//! and the per-packet feature upkeep. `cargo bench -p wirespeed-stats`.
//!
//! Inputs are 4,096 flows built before timing and cycled, each read through `black_box`, the
//! verdicts summed (nothing can be hoisted out of the loop): uniformly random flows (sizes over
//! the whole range, 1-5 packets, 8 ports), and for Naive Bayes also flows drawn from the shipped
//! model's own training counts (class by its prior, then each position's size bin and the port
//! bucket by that class's counts), which have the corpus's mix of sizes, lengths and ports.

use std::hint::black_box;
use std::time::Instant;
use wirespeed_stats::{Early, Model};

/// Flows with varied first packets (a fixed pseudo-random sequence).
fn flows(n: usize) -> Vec<(Early, u8, u16)> {
    let mut s = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    (0..n)
        .map(|_| {
            let mut e = Early::default();
            let k = 1 + next() % 5;
            for _ in 0..k {
                let r = next();
                let pl = (r % 1460) as u32 * (r >> 20 & 1) as u32;
                e.push(
                    r >> 30 & 1 == 1,
                    pl as u16 + 40,
                    pl,
                    (r >> 40) as u8,
                    r >> 44 & 0xffff,
                );
            }
            let l4 = if next() & 1 == 0 { 6 } else { 17 };
            let port = [53u16, 80, 443, 5353, 1900, 3478, 6881, 40000][(next() % 8) as usize];
            (e, l4, port)
        })
        .collect()
}

/// A xorshift64 generator (deterministic inputs, no dependency).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// An index drawn with the given weights (cumulative, last = total > 0).
    fn pick(&mut self, cum: &[u64]) -> usize {
        let total = cum.last().copied().unwrap_or(0).max(1);
        let r = self.next() % total;
        cum.partition_point(|&c| c <= r)
    }
}

/// Flows drawn from a Naive Bayes model's training counts (see the module doc).
fn flows_from_model(m: &Model, n: usize) -> Vec<(Early, u8, u16)> {
    use wirespeed_stats::nb::{NbCounts, SIZE_CLAMP};
    let wirespeed_stats::model::Algo::Nb(c) = &m.algo else {
        return Vec::new();
    };
    let NbCounts {
        params,
        classes,
        class_n,
        cells,
        ..
    } = c;
    let nf = params.features();
    // Per (feature, class): the bins seen and their cumulative counts.
    let mut dist = vec![(Vec::new(), Vec::new()); nf * classes];
    for &(f, bin, cl, cnt) in cells {
        let (bins, cum): &mut (Vec<u32>, Vec<u64>) = &mut dist[f as usize * classes + cl as usize];
        bins.push(bin);
        cum.push(cum.last().copied().unwrap_or(0) + cnt as u64);
    }
    let prior: Vec<u64> = class_n
        .iter()
        .scan(0u64, |s, &k| {
            *s += k as u64;
            Some(*s)
        })
        .collect();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let w = params.bin_width.max(1) as i64;
    let p = params.positions as usize;
    (0..n)
        .map(|_| {
            let cl = rng.pick(&prior);
            let mut e = Early::default();
            for f in 0..p {
                let (bins, cum) = &dist[f * classes + cl];
                let bin = bins.get(rng.pick(cum)).copied().unwrap_or(0) as i64;
                if bin == 0 {
                    break; // the flow ended before this position
                }
                // A size inside the bin: bin b holds (b-1)·w ..= b·w-1, shifted by the clamp.
                let v = (bin - 1) * w + (rng.next() % w as u64) as i64 - SIZE_CLAMP as i64 - 1;
                let a = v.unsigned_abs().min(1500) as u32;
                let pl = match params.mode {
                    wirespeed_stats::SizeMode::Ip => a.saturating_sub(40),
                    _ => a,
                };
                e.push(v < 0, (pl + 40) as u16, pl, 0x18, 1000);
            }
            let (l4, port) = if params.port {
                let (bins, cum) = &dist[p * classes + cl];
                let b = bins.get(rng.pick(cum)).copied().unwrap_or(0);
                let l4 = [6u8, 17, 1][(b / 4096).min(2) as usize];
                let port = match b % 4096 {
                    4095 => 49152 + (rng.next() % 16384) as u16,
                    x => x as u16,
                };
                (l4, port)
            } else {
                (6, 443)
            };
            (e, l4, port)
        })
        .collect()
}

fn nb_tables(m: &Model) -> Option<wirespeed_stats::nb::NaiveBayes> {
    match &m.algo {
        wirespeed_stats::model::Algo::Nb(c) => {
            Some(wirespeed_stats::nb::NaiveBayes::from_counts(c))
        }
        _ => None,
    }
}

/// Nanoseconds this thread has been on a CPU (Linux `/proc/thread-self/schedstat`), so that
/// time spent waiting for a core on a shared machine does not count; wall time elsewhere.
fn cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

fn best_of<F: FnMut() -> u64>(runs: usize, mut f: F) -> f64 {
    (0..runs)
        .map(|_| {
            let t = Instant::now();
            let c = cpu_ns();
            let n = f();
            let ns = match (c, cpu_ns()) {
                (Some(a), Some(b)) if b > a => (b - a) as f64,
                _ => t.elapsed().as_secs_f64() * 1e9,
            };
            ns / n as f64
        })
        .fold(f64::MAX, f64::min)
}

fn main() {
    let fl = flows(4096);
    let rounds = 500u64;
    let nb =
        Model::from_bytes(include_bytes!("../../../models/default.wsm")).expect("default model");
    let drawn = flows_from_model(&nb, 4096);
    for (what, set) in [
        ("flows drawn from the model", &drawn),
        ("uniform random flows", &fl),
    ] {
        let ns = best_of(5, || {
            let mut acc = 0u64;
            for _ in 0..rounds {
                for (e, l4, p) in set {
                    acc += nb
                        .classify(black_box(e), black_box(*l4), black_box(*p))
                        .map_or(0, |r| r.0 as u64);
                }
            }
            black_box(acc);
            rounds * set.len() as u64
        });
        println!(
            "naive bayes ({} classes, {} positions + port), {what}: {ns:.1} ns/classification, {:.1} M/s",
            nb.classes.len(),
            nb.positions,
            1e3 / ns
        );
    }
    if let Some(m) = nb_tables(&nb) {
        let ns = best_of(5, || {
            let mut acc = 0u64;
            for _ in 0..rounds {
                for (e, l4, p) in &fl {
                    acc += m.score(black_box(e), *l4, *p).0 as u64;
                }
            }
            black_box(acc);
            rounds * fl.len() as u64
        });
        println!(
            "naive bayes arg-max only (no posterior): {ns:.1} ns/classification, {:.1} M/s",
            1e3 / ns
        );
    }
    let c45 = Model::from_bytes(include_bytes!("../../../models/c45.wsm")).expect("c45 model");
    let ns = best_of(5, || {
        let mut acc = 0u64;
        for _ in 0..rounds {
            for (e, l4, p) in &fl {
                acc += c45
                    .classify(black_box(e), *l4, *p)
                    .map_or(0, |r| r.0 as u64);
            }
        }
        black_box(acc);
        rounds * fl.len() as u64
    });
    let nodes = match &c45.algo {
        wirespeed_stats::model::Algo::C45 { tree, .. } => tree.nodes.len(),
        _ => 0,
    };
    println!("c4.5 ({nodes} nodes, attributes computed from the flow's packets each time): {ns:.1} ns/inference, {:.1} M/s", 1e3 / ns);
    if let wirespeed_stats::model::Algo::C45 { tree, iat } = &c45.algo {
        let xs: Vec<Vec<f32>> = fl
            .iter()
            .map(|(e, l4, p)| {
                let mut x = [0f32; wirespeed_stats::model::MAX_ATTRS];
                let n = wirespeed_stats::model::c45_attrs(
                    e,
                    *l4,
                    *p,
                    c45.mode,
                    c45.positions as usize,
                    *iat,
                    &mut x,
                );
                x[..n].to_vec()
            })
            .collect();
        let ns = best_of(5, || {
            let mut acc = 0u64;
            for _ in 0..rounds {
                for x in &xs {
                    acc += tree.classify(black_box(x)).0 as u64;
                }
            }
            black_box(acc);
            rounds * xs.len() as u64
        });
        println!(
            "c4.5 tree walk only (attributes given): {ns:.1} ns/inference, {:.1} M/s",
            1e3 / ns
        );
    }
    let ns = best_of(5, || {
        let mut slots = vec![Early::default(); 4096];
        let mut n = 0u64;
        for r in 0..20u32 {
            for (i, e) in slots.iter_mut().enumerate() {
                // 8 packets a flow: 5 recorded, then the cap check only.
                e.push(
                    r & 1 == 1,
                    40 + (i as u16 & 1023),
                    i as u32 & 1023,
                    0x10,
                    1000,
                );
                n += 1;
            }
            if r % 8 == 7 {
                slots.iter_mut().for_each(|e| *e = Early::default());
            }
        }
        black_box(&slots);
        n
    });
    println!("feature upkeep: {ns:.2} ns/packet (Early::push over 4096 flow slots)");
}
