//! Microbenchmarks of the statistical classifier (no framework: a timed loop, best of 5 runs,
//! timed by the thread's CPU time so a busy shared machine inflates the figures less):
//! Naive Bayes classifications/s with the shipped model, C4.5 inferences/s with models/c45.wsm,
//! and the per-packet feature upkeep. `cargo bench -p wirespeed-stats`.

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
    let ns = best_of(5, || {
        let mut acc = 0u64;
        for _ in 0..rounds {
            for (e, l4, p) in &fl {
                acc += nb.classify(black_box(e), *l4, *p).map_or(0, |r| r.0 as u64);
            }
        }
        black_box(acc);
        rounds * fl.len() as u64
    });
    println!(
        "naive bayes ({} classes, {} positions + port): {ns:.1} ns/classification, {:.1} M/s",
        nb.classes.len(),
        nb.positions,
        1e3 / ns
    );
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
