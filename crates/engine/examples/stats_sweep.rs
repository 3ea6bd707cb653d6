//! Cross-validated macro-F1 of the statistical models over a grid of options, on a corpus laid
//! out like ../shared/corpus (pcap/ and flows.csv). The figures in DESIGN.md come from this:
//! `cargo run --release -p wirespeed-engine --example stats_sweep -- ../shared/corpus`.

use std::path::PathBuf;
use wirespeed_engine::train::{cross_validate, extract, label, read_labels, TrainOpts};
use wirespeed_engine::EngineConfig;
use wirespeed_stats::SizeMode;

fn main() {
    let dir = PathBuf::from(std::env::args().nth(1).unwrap_or("../shared/corpus".into()));
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join("pcap"))
        .expect("pcap dir")
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let (samples, _) = extract(&files, EngineConfig::default()).unwrap();
    let labels = read_labels(&std::fs::read_to_string(dir.join("flows.csv")).unwrap()).unwrap();
    let lab = label(&samples, &labels, 30);
    println!(
        "flows {} labelled {} classes {}",
        samples.len(),
        lab.cases.len(),
        lab.classes.len()
    );
    for (w, sigma, alpha) in [
        (8u16, 1.0f32, 0.0001f32),
        (32, 1.0, 0.001),
        (32, 1.0, 0.0001),
        (64, 1.0, 0.001),
        (16, 1.0, 0.001),
        (8, 2.0, 0.001),
        (8, 4.0, 0.001),
        (32, 0.0, 0.001),
    ] {
        let mut o = TrainOpts::default();
        o.nb_params.bin_width = w;
        o.nb_params.sigma = sigma;
        o.nb_params.alpha = alpha;
        let r = cross_validate(&samples, &lab, 5, 1, &o);
        println!(
            "nb  mode={} P=4 port=true bin={w} sigma={sigma} alpha={alpha} acc={:.3} macroF1={:.3}",
            o.nb_params.mode.name(),
            r.report.accuracy(),
            r.report.macro_f1()
        );
    }
    let o = TrainOpts {
        nb: false,
        iat: true,
        ..TrainOpts::default()
    };
    let r = cross_validate(&samples, &lab, 5, 1, &o);
    println!(
        "c45 mode={} P=4 iat acc={:.3} macroF1={:.3}",
        o.nb_params.mode.name(),
        r.report.accuracy(),
        r.report.macro_f1()
    );
    if std::env::args().nth(2).as_deref() != Some("all") {
        return;
    }
    for nb in [true, false] {
        for mode in [SizeMode::Ip, SizeMode::Payload, SizeMode::Data] {
            for positions in [4u8, 5] {
                for port in [false, true] {
                    if !nb && !port {
                        continue;
                    }
                    let mut o = TrainOpts {
                        nb,
                        ..TrainOpts::default()
                    };
                    o.nb_params.mode = mode;
                    o.nb_params.positions = positions;
                    o.nb_params.port = port;
                    let r = cross_validate(&samples, &lab, 5, 1, &o);
                    println!(
                        "{} mode={} P={} port={} acc={:.3} macroF1={:.3} trees={:?}",
                        if nb { "nb " } else { "c45" },
                        mode.name(),
                        positions,
                        port,
                        r.report.accuracy(),
                        r.report.macro_f1(),
                        r.tree_sizes
                    );
                }
            }
        }
    }
}
