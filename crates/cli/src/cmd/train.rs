//! `wirespeed train`: captures + labels → model file, with a cross-validation report.

use clap::{Args, ValueEnum};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use wirespeed_engine::train::{
    arff, case_folds, cross_validate, extract, keep_repeats, label, predictions_csv, read_labels,
    train, TrainParams,
};
use wirespeed_engine::EngineConfig;
use wirespeed_stats::Model;

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub(crate) enum AlgoArg {
    /// Naive Bayes over signed sizes (and the server port).
    Nb,
    /// C4.5 decision tree over signed sizes and the 12 AtoZ features.
    C45,
}

#[derive(Args)]
pub(crate) struct TrainArgs {
    /// Capture files, or directories of captures.
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    /// Labels: a CSV shaped like nDPI's flows.csv (pcap, l4, src_ip, src_port, dst_ip, dst_port,
    /// master, confidence; rows whose confidence starts with "DPI" are used).
    #[arg(long)]
    labels: PathBuf,
    /// Write the model trained on all labelled flows here.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Algorithm.
    #[arg(long, value_enum, default_value = "nb")]
    algo: AlgoArg,
    /// Size used: ip (IP length, handshake included), payload (transport payload, handshake
    /// included as ±0), data (the first packets that carried payload, wherever they came; at
    /// most 4).
    #[arg(long, default_value = "data")]
    size: String,
    /// Classify at this packet (positions used, 1..=5).
    #[arg(long, default_value_t = 4)]
    packets: u8,
    /// Naive Bayes: bytes per size bin.
    #[arg(long, default_value_t = 32)]
    bin_width: u16,
    /// Naive Bayes: Laplace pseudo-count (1 = add-one; small values suit many bins, few flows).
    #[arg(long, default_value_t = 0.0001)]
    alpha: f32,
    /// Naive Bayes: Gaussian smoothing along the size axis, σ in bins (0 = none).
    #[arg(long, default_value_t = 1.0)]
    sigma: f32,
    /// Naive Bayes: leave the server port out (sizes only, as in seed 000).
    #[arg(long)]
    no_port: bool,
    /// Naive Bayes: answer "unknown" for flows scoring below this quantile of the training flows.
    #[arg(long, default_value_t = 0.0)]
    reject: f64,
    /// C4.5: inter-arrival times are attributes too.
    #[arg(long)]
    iat: bool,
    /// Classes need this many labelled flows.
    #[arg(long, default_value_t = 30)]
    min_class: usize,
    /// Flows of one capture and one class with the same first sizes and port bucket are learnt
    /// at most this many times (a capture that repeats one exchange shows it once; 0 = learn
    /// every flow).
    #[arg(long, default_value_t = wirespeed_engine::train::MAX_REPEATS)]
    max_repeats: usize,
    /// Cross-validation folds, split by capture file (0 = no cross-validation).
    #[arg(long, default_value_t = 5)]
    folds: usize,
    /// Seed of the fold assignment.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Write the held-out predictions (CSV with `stats_app`, for ../shared/tools/score_stats.py).
    #[arg(long)]
    predictions: Option<PathBuf>,
    /// Write the labelled training set as Weka ARFF (C4.5 attributes; a capture's repeats left out as
    /// training leaves them: `--max-repeats`).
    #[arg(long)]
    arff: Option<PathBuf>,
    /// Write each cross-validation fold's training and test sets as ARFF into this directory
    /// (`foldN-train.arff`, `foldN-test.arff`), for scripts/j48_compare.sh.
    #[arg(long)]
    arff_folds: Option<PathBuf>,
}

/// The inputs with each directory replaced by the captures in it and in its subdirectories
/// (`wirespeed_capture::inputs::expand`: sorted by path; pcap, pcapng, and their gzip, zstd or
/// xz compressions, told by their first bytes). Other files inside a directory are skipped,
/// each named in one line on standard error; a file named on the command line is always an
/// input.
pub(crate) fn expand(inputs: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    wirespeed_capture::inputs::expand(inputs, &mut |s| eprintln!("wirespeed: {s}"))
}

/// Largest labels file read, as the other list files (nDPI's flows.csv of the whole corpus is
/// under 3 MiB; every row is held in memory while training, about 3 times the file).
const MAX_LABELS_FILE: u64 = 64 << 20;

pub(crate) fn train_cmd(a: TrainArgs) -> Result<ExitCode, String> {
    let params = TrainParams {
        nb: a.algo == AlgoArg::Nb,
        size: a.size.clone(),
        packets: u64::from(a.packets),
        bin_width: u64::from(a.bin_width),
        alpha: f64::from(a.alpha),
        sigma: f64::from(a.sigma),
        port: !a.no_port,
        reject: a.reject,
        iat: a.iat,
        min_class: a.min_class.max(1) as u64,
        max_repeats: a.max_repeats as u64,
    };
    let o = params
        .opts()
        .map_err(|e| format!("--{} {}", e.name.replace('_', "-"), e.rule))?;
    let mode = o.nb_params.mode;
    let files = expand(&a.inputs)?;
    let outputs: Vec<(&str, &Path)> = [
        ("-o", &a.output),
        ("--predictions", &a.predictions),
        ("--arff", &a.arff),
    ]
    .into_iter()
    .filter_map(|(o, p)| p.as_deref().map(|p| (o, p)))
    .collect();
    let mut inputs: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    inputs.push(&a.labels);
    crate::guard::outputs_apart(&outputs, &inputs)?;
    // Capped as every option file is (issue 33's battery: `--labels /dev/zero` grew until
    // killed).
    let text = String::from_utf8(crate::config::read_capped(
        &a.labels,
        MAX_LABELS_FILE,
        "labels file",
    )?)
    .map_err(|_| format!("{}: the labels file is not UTF-8 text", a.labels.display()))?;
    let labels = read_labels(&text)?;
    let (samples, errors) = extract(&files, EngineConfig::default()).map_err(|e| e.to_string())?;
    let lab = label(&samples, &labels, o.min_class);
    eprintln!(
        "captures {} ({} damaged), flows {}, labelled and in a class {}, classes {}",
        files.len(),
        errors.len(),
        samples.len(),
        lab.cases.len(),
        lab.classes.len()
    );
    if lab.classes.is_empty() {
        return Err("no class has enough labelled flows (see --min-class)".into());
    }
    if a.folds > 1 {
        let cv = cross_validate(&samples, &lab, a.folds, a.seed, &o);
        println!(
            "{}-fold cross-validation by capture file, {} (size {}, P = {}):",
            a.folds,
            if o.nb { "Naive Bayes" } else { "C4.5" },
            mode.name(),
            a.packets
        );
        print!("{}", cv.report);
        if !cv.tree_sizes.is_empty() {
            println!("tree size per fold (nodes): {:?}", cv.tree_sizes);
        }
        if let Some(p) = &a.predictions {
            std::fs::write(p, predictions_csv(&samples, &cv.predictions, &lab.classes))
                .map_err(|e| format!("cannot write {}: {e}", p.display()))?;
        }
    }
    if let Some(dir) = &a.arff_folds {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let k = a.folds.max(2);
        let folds = case_folds(&samples, &lab, k, a.seed);
        for f in 0..k {
            for (part, test) in [("train", false), ("test", true)] {
                let cases: Vec<_> = lab
                    .cases
                    .iter()
                    .zip(&folds)
                    .filter(|(_, &g)| (g == f) == test)
                    .map(|(c, _)| *c)
                    .collect();
                // A training set as `train` learns it (repeats left out); a test set whole.
                let cases = if test {
                    cases
                } else {
                    keep_repeats(&cases, &o.nb_params, o.max_repeats)
                };
                let p = dir.join(format!("fold{f}-{part}.arff"));
                std::fs::write(&p, arff(&cases, &lab.classes, &o))
                    .map_err(|e| format!("cannot write {}: {e}", p.display()))?;
            }
        }
    }
    if let Some(p) = &a.arff {
        let kept = keep_repeats(&lab.cases, &o.nb_params, o.max_repeats);
        std::fs::write(p, arff(&kept, &lab.classes, &o))
            .map_err(|e| format!("cannot write {}: {e}", p.display()))?;
    }
    if let Some(p) = &a.output {
        let m = train(&lab.cases, &lab.classes, &o);
        let b = m.to_bytes();
        // Read back what was written: the file must load.
        Model::from_bytes(&b).map_err(|e| format!("model does not read back: {e}"))?;
        std::fs::write(p, &b).map_err(|e| format!("cannot write {}: {e}", p.display()))?;
        eprintln!(
            "wrote {} ({} model, {} classes, {} bytes)",
            p.display(),
            m.algo_name(),
            m.classes.len(),
            b.len()
        );
    }
    Ok(ExitCode::SUCCESS)
}
