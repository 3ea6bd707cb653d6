//! Training statistical models from captures and labels (`wirespeed train`).
//!
//! Captures go through the engine (the same decoding and flow tracking as `classify`, so the
//! features are exactly what the runtime will see); each flow record is joined to a label file
//! shaped like nDPI's flows.csv by (pcap, transport, the two end-points in either order) — the
//! rule of ../shared/tools/score_labels.py `key()` — keeping rows whose `confidence` starts with
//! "DPI". Cross-validation splits by capture file.

use crate::{run_file, EngineConfig, Worker};
use std::collections::{BTreeMap, HashMap};
use std::io;
use std::net::IpAddr;
use std::path::PathBuf;
use wirespeed_classify::ClassifierSet;
use wirespeed_export::{l4_name, FlowRecord, RecordSink};
use wirespeed_stats::c45::{self, C45Params, FlatTree};
use wirespeed_stats::eval::{folds_by_group, Report};
use wirespeed_stats::model::{c45_attr_names, c45_attrs, Algo, ClassInfo, MAX_ATTRS};
use wirespeed_stats::nb::{NaiveBayes, NbCounts, NbParams, MAX_FEATURES};
use wirespeed_stats::{Early, Model, SizeMode};

/// A flow's identity as the scorers see it: (pcap, transport name, lower end-point, higher).
pub type FlowId = (String, String, (String, String), (String, String));

/// One flow of a capture, with what the models need.
#[derive(Clone, Debug)]
pub struct Sample {
    /// The flow's identity.
    pub id: FlowId,
    /// Client and server as the record has them: (ip, port) each.
    pub ends: [(String, u16); 2],
    /// First packets.
    pub early: Early,
    /// IP protocol.
    pub l4: u8,
    /// Server port.
    pub server_port: u16,
}

fn norm_ip(s: &str) -> String {
    let s = s.trim().trim_matches(|c| c == '[' || c == ']');
    s.parse::<IpAddr>()
        .map(|a| a.to_string())
        .unwrap_or_else(|_| s.to_string())
}

fn norm_l4(s: &str) -> String {
    let s = s.trim().to_uppercase();
    let named = match s.as_str() {
        "1" => "ICMP",
        "6" => "TCP",
        "17" => "UDP",
        "58" => "ICMPV6",
        "132" => "SCTP",
        "2" => "IGMP",
        "47" => "GRE",
        "50" => "ESP",
        _ => return s,
    };
    named.to_string()
}

/// The scorers' key of a flow.
pub fn flow_id(pcap: &str, l4: &str, a: (&str, &str), b: (&str, &str)) -> FlowId {
    let port = |p: &str| {
        let p = p.trim();
        if p.is_empty() {
            "0".to_string()
        } else {
            p.to_string()
        }
    };
    let a = (norm_ip(a.0), port(a.1));
    let b = (norm_ip(b.0), port(b.1));
    let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
    (pcap.to_string(), norm_l4(l4), lo, hi)
}

struct Collect(Vec<Sample>);

impl RecordSink for Collect {
    fn write(&mut self, r: &FlowRecord<'_>) -> io::Result<()> {
        let l4 = l4_name(r.l4)
            .map(str::to_string)
            .unwrap_or_else(|| r.l4.to_string());
        let (a, b) = (r.src_ip.to_string(), r.dst_ip.to_string());
        let (pa, pb) = (r.src_port.to_string(), r.dst_port.to_string());
        self.0.push(Sample {
            id: flow_id(r.pcap.unwrap_or(""), &l4, (&a, &pa), (&b, &pb)),
            ends: [(a, r.src_port), (b, r.dst_port)],
            early: r.early,
            l4: r.l4,
            server_port: r.dst_port,
        });
        Ok(())
    }

    fn finish(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Every flow of the captures, with its first packets. Unreadable captures are reported in the
/// returned list of errors (their good packets count).
pub fn extract(files: &[PathBuf], engine: EngineConfig) -> io::Result<(Vec<Sample>, Vec<String>)> {
    let cfg = EngineConfig {
        // No classifier runs, so the model is never asked.
        classifiers: ClassifierSet::none(),
        ..engine
    };
    let mut w = Worker::new(cfg, Collect(Vec::new()), true);
    let mut errors = Vec::new();
    for f in files {
        let out = run_file(&mut w, f, &mut |_, _| {})?;
        if let Some(e) = out.error {
            errors.push(format!("{}: {e}", f.display()));
        }
    }
    Ok((w.finish()?.0, errors))
}

/// A label from the label file.
#[derive(Clone, Debug)]
pub struct LabelRow {
    /// nDPI master protocol (the class).
    pub master: String,
    /// nDPI category.
    pub category: String,
    /// nDPI's app equals the master (e.g. `STUN`, not `STUN.AdultContent`): the category is the
    /// master's own, not the sub-application's.
    pub plain: bool,
}

/// DPI labels of a flows.csv-shaped file, by flow identity.
pub fn read_labels(text: &str) -> Result<HashMap<FlowId, LabelRow>, String> {
    let t = wirespeed_stats::csv::Table::parse(text).map_err(|e| format!("label file: {e}"))?;
    let col = |n: &str| {
        t.col(n)
            .ok_or_else(|| format!("label file has no '{n}' column"))
    };
    let (pc, l4, si, sp, di, dp, ma, co) = (
        col("pcap")?,
        col("l4")?,
        col("src_ip")?,
        col("src_port")?,
        col("dst_ip")?,
        col("dst_port")?,
        col("master")?,
        col("confidence")?,
    );
    let cat = t.col("category");
    let app = t.col("app");
    let mut m = HashMap::new();
    for r in &t.rows {
        let g = |i: usize| r.get(i).map(String::as_str).unwrap_or("");
        if !g(co).starts_with("DPI") {
            continue;
        }
        let master = g(ma).split('.').next().unwrap_or("").trim().to_string();
        if master.is_empty() || master.eq_ignore_ascii_case("unknown") {
            continue;
        }
        let id = flow_id(g(pc), g(l4), (g(si), g(sp)), (g(di), g(dp)));
        let plain = app.is_some_and(|a| g(a) == master);
        m.entry(id).or_insert(LabelRow {
            master,
            category: cat.map(|c| g(c).to_string()).unwrap_or_default(),
            plain,
        });
    }
    Ok(m)
}

/// Which algorithm and features.
#[derive(Clone, Copy, Debug)]
pub struct TrainOpts {
    /// Naive Bayes (true) or C4.5.
    pub nb: bool,
    /// Naive Bayes parameters (mode and positions apply to C4.5 too).
    pub nb_params: NbParams,
    /// C4.5 parameters.
    pub c45: C45Params,
    /// C4.5 uses inter-arrival times.
    pub iat: bool,
    /// Naive Bayes abstains below this quantile of the training flows' best scores (0 = never).
    pub reject: f64,
    /// Classes need this many labelled flows to be learned.
    pub min_class: usize,
    /// Flows of one capture, one class and the same features (the Naive Bayes bins of sizes
    /// and port) taught at most this many times (0 = every one): [`keep_repeats`].
    pub max_repeats: usize,
}

/// [`TrainOpts::max_repeats`]'s default (DESIGN.md, "Statistical classification": the same
/// held-out figures for each limit tried from 1 to 50; 10 keeps the corpus's cross-validation
/// where it was).
pub const MAX_REPEATS: usize = 10;

impl Default for TrainOpts {
    fn default() -> Self {
        TrainOpts {
            nb: true,
            nb_params: NbParams::default(),
            c45: C45Params::default(),
            iat: false,
            reject: 0.0,
            min_class: 30,
            max_repeats: MAX_REPEATS,
        }
    }
}

/// A training run's parameters as a user gives them (`wirespeed train`'s options, the Python
/// module's `train` arguments), before [`TrainParams::opts`] checks them.
#[derive(Clone, Debug)]
pub struct TrainParams {
    /// Naive Bayes (true) or C4.5.
    pub nb: bool,
    /// Size used: `ip`, `payload` or `data`.
    pub size: String,
    /// Classify at this packet (1 to [`wirespeed_stats::SPLT_CAP`]).
    pub packets: u64,
    /// Naive Bayes: bytes per size bin (1 to 1536).
    pub bin_width: u64,
    /// Naive Bayes: Laplace pseudo-count, in (0, 1000].
    pub alpha: f64,
    /// Naive Bayes: Gaussian smoothing along the size axis, σ in bins, in [0, 64].
    pub sigma: f64,
    /// Naive Bayes: the server port is an attribute.
    pub port: bool,
    /// Naive Bayes: abstain below this quantile of the training flows' scores, in [0, 1).
    pub reject: f64,
    /// C4.5: inter-arrival times are attributes too.
    pub iat: bool,
    /// Classes need this many labelled flows (at least 1).
    pub min_class: u64,
    /// The same flow of one capture taught at most this many times (0 = every time).
    pub max_repeats: u64,
}

impl Default for TrainParams {
    /// `wirespeed train`'s defaults.
    fn default() -> Self {
        TrainParams {
            nb: true,
            size: "data".into(),
            packets: 4,
            bin_width: 32,
            alpha: 0.0001,
            sigma: 1.0,
            port: true,
            reject: 0.0,
            iat: false,
            min_class: 30,
            max_repeats: MAX_REPEATS as u64,
        }
    }
}

/// A [`TrainParams`] value out of its range: the parameter's name (`bin_width`) and the rule
/// it breaks (`must be between 1 and 1536`); each front end spells the name its own way
/// (`--bin-width`, `bin_width`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadParam {
    /// The parameter, as [`TrainParams`]' field is named.
    pub name: &'static str,
    /// What it must be.
    pub rule: String,
}

impl TrainParams {
    /// The options of a training run, every value checked.
    pub fn opts(&self) -> Result<TrainOpts, BadParam> {
        let bad = |name, rule: &str| BadParam {
            name,
            rule: rule.to_string(),
        };
        let mode =
            size_mode(&self.size).ok_or_else(|| bad("size", "must be ip, payload or data"))?;
        let cap = wirespeed_stats::SPLT_CAP as u64;
        if !(1..=cap).contains(&self.packets) {
            return Err(bad("packets", &format!("must be between 1 and {cap}")));
        }
        if !(1..=1536).contains(&self.bin_width) {
            return Err(bad("bin_width", "must be between 1 and 1536"));
        }
        if !(0.0..=64.0).contains(&self.sigma) {
            return Err(bad("sigma", "must be in [0, 64]"));
        }
        if !(0.0..1.0).contains(&self.reject) {
            return Err(bad("reject", "must be in [0, 1)"));
        }
        if !(self.alpha > 0.0 && self.alpha <= 1000.0) {
            return Err(bad("alpha", "must be in (0, 1000]"));
        }
        if self.min_class == 0 || self.min_class > u32::MAX as u64 {
            return Err(bad("min_class", "must be between 1 and 4294967295"));
        }
        let mut o = TrainOpts {
            nb: self.nb,
            iat: self.iat,
            reject: self.reject,
            min_class: self.min_class as usize,
            max_repeats: usize::try_from(self.max_repeats).unwrap_or(usize::MAX),
            ..TrainOpts::default()
        };
        o.nb_params.mode = mode;
        o.nb_params.positions = self.packets as u8;
        o.nb_params.bin_width = self.bin_width as u16;
        o.nb_params.sigma = self.sigma as f32;
        o.nb_params.alpha = self.alpha as f32;
        o.nb_params.port = self.port;
        Ok(o)
    }
}

/// Labelled training data: samples with a class index, and the classes.
pub struct Labelled<'a> {
    /// (sample, class).
    pub cases: Vec<(&'a Sample, u16)>,
    /// Classes (master protocol, category).
    pub classes: Vec<ClassInfo>,
    /// Labelled flows per class.
    pub counts: Vec<usize>,
}

/// Join samples to labels; classes are the masters with ≥ `min_class` flows (sorted by name).
pub fn label<'a>(
    samples: &'a [Sample],
    labels: &HashMap<FlowId, LabelRow>,
    min_class: usize,
) -> Labelled<'a> {
    // Per master: flows, and votes for its category. A flow whose app is the master itself
    // (`STUN`) speaks for the master's category; one with a sub-application (`STUN.AdultContent`)
    // carries that application's category, so it only counts when no plain flow exists.
    type Votes = BTreeMap<(bool, String), usize>;
    let mut count: BTreeMap<String, (usize, Votes)> = BTreeMap::new();
    let mut hits = Vec::new();
    for s in samples {
        if let Some(l) = labels.get(&s.id) {
            let e = count.entry(l.master.clone()).or_default();
            e.0 += 1;
            *e.1.entry((l.plain, l.category.clone())).or_default() += 1;
            hits.push((s, l.master.clone()));
        }
    }
    let classes: Vec<ClassInfo> = count
        .iter()
        .filter(|(_, (n, _))| *n >= min_class)
        .map(|(m, (_, votes))| ClassInfo {
            app: m.clone(),
            // Plain flows first, then the most votes, then the first name (deterministic).
            category: votes
                .iter()
                .max_by(|a, b| (a.0 .0, a.1).cmp(&(b.0 .0, b.1)).then(b.0 .1.cmp(&a.0 .1)))
                .map(|((_, c), _)| c.clone())
                .unwrap_or_default(),
        })
        .collect();
    let index: HashMap<&str, u16> = classes
        .iter()
        .enumerate()
        .map(|(i, c)| (c.app.as_str(), i as u16))
        .collect();
    let counts = classes.iter().map(|c| count[&c.app].0).collect();
    let cases = hits
        .into_iter()
        .filter_map(|(s, m)| index.get(m.as_str()).map(|&c| (s, c)))
        .collect();
    Labelled {
        cases,
        classes,
        counts,
    }
}

/// C4.5 attribute rows of cases.
pub fn attr_rows(cases: &[(&Sample, u16)], o: &TrainOpts) -> Vec<Vec<f32>> {
    cases
        .iter()
        .map(|(s, _)| {
            let mut x = [0f32; MAX_ATTRS];
            let n = c45_attrs(
                &s.early,
                s.l4,
                s.server_port,
                o.nb_params.mode,
                o.nb_params.positions as usize,
                o.iat,
                &mut x,
            );
            x[..n].to_vec()
        })
        .collect()
}

/// The cases a model learns from: each flow of `cases`, in order, except that of the flows of one
/// capture and one class whose features are the same (the Naive Bayes bins of their first
/// sizes and server port under `p`), only the first `max_repeats` are kept (0 keeps all).
///
/// A capture that holds one exchange many times (a scan, an attack replayed, a test that loops)
/// shows one implementation's flow once, however often it repeats it; counted each time, it
/// outweighed every other capture of its class (the corpus's WebattackRCE.pcap: 797 of its
/// 1,068 HTTP flows, one request each, no handshake), and the model learnt that one capture's
/// shape as the protocol's. Different flows of a capture and the same flow in other captures
/// all count.
pub fn keep_repeats<'a>(
    cases: &[(&'a Sample, u16)],
    p: &NbParams,
    max_repeats: usize,
) -> Vec<(&'a Sample, u16)> {
    if max_repeats == 0 {
        return cases.to_vec();
    }
    let mut seen: HashMap<(&str, u16, [u32; MAX_FEATURES]), usize> = HashMap::new();
    cases
        .iter()
        .filter(|(s, c)| {
            let mut bins = [0u32; MAX_FEATURES];
            p.bins(
                &s.early.truncated(p.positions as usize),
                s.l4,
                s.server_port,
                &mut bins,
            );
            let n = seen.entry((s.id.0.as_str(), *c, bins)).or_default();
            *n += 1;
            *n <= max_repeats
        })
        .copied()
        .collect()
}

/// Train a model on `cases` (repeats left out: [`keep_repeats`]).
pub fn train(cases: &[(&Sample, u16)], classes: &[ClassInfo], o: &TrainOpts) -> Model {
    let kept = keep_repeats(cases, &o.nb_params, o.max_repeats);
    let cases = &kept[..];
    let p = o.nb_params;
    let algo = if o.nb {
        let mut counts = NbCounts::train(
            p,
            classes.len(),
            cases
                .iter()
                .map(|(s, c)| (&s.early, s.l4, s.server_port, *c)),
        );
        if o.reject > 0.0 {
            let nb = NaiveBayes::from_counts(&counts);
            let mut best: Vec<i32> = cases
                .iter()
                .map(|(s, _)| {
                    nb.score(
                        &s.early.truncated(p.positions as usize),
                        s.l4,
                        s.server_port,
                    )
                    .1
                })
                .collect();
            best.sort_unstable();
            let i = ((best.len() as f64 * o.reject) as usize).min(best.len().saturating_sub(1));
            counts.threshold = best.get(i).copied().unwrap_or(i32::MIN);
        }
        Algo::Nb(counts)
    } else {
        let x = attr_rows(cases, o);
        let y: Vec<u16> = cases.iter().map(|c| c.1).collect();
        let t = c45::train(
            &c45::Data {
                x: &x,
                y: &y,
                classes: classes.len(),
            },
            o.c45,
        );
        Algo::C45 {
            tree: FlatTree::from_node(&t),
            iat: o.iat,
        }
    };
    Model::new(p.mode, p.positions, classes.to_vec(), algo)
}

/// Held-out result of cross-validation.
pub struct CvResult {
    /// The report over labelled flows.
    pub report: Report,
    /// Every sample's held-out prediction and its posterior probability (None = abstained).
    pub predictions: Vec<Option<(u16, f32)>>,
    /// Tree sizes per fold (C4.5).
    pub tree_sizes: Vec<usize>,
}

/// k-fold cross-validation split by capture file: each fold's model is trained on the other
/// folds' labelled flows and predicts every flow of its own captures.
pub fn cross_validate(
    samples: &[Sample],
    lab: &Labelled<'_>,
    k: usize,
    seed: u64,
    o: &TrainOpts,
) -> CvResult {
    let fold = sample_folds(samples, lab, k, seed);
    let fold_of: HashMap<*const Sample, usize> = samples
        .iter()
        .zip(&fold)
        .map(|(s, &f)| (s as *const Sample, f))
        .collect();
    let mut predictions = vec![None; samples.len()];
    let mut tree_sizes = Vec::new();
    let truth: HashMap<*const Sample, u16> = lab
        .cases
        .iter()
        .map(|(s, c)| (*s as *const Sample, *c))
        .collect();
    let mut report = Report::new(
        lab.classes.iter().map(|c| c.app.clone()).collect(),
        lab.counts.clone(),
        o.min_class,
    );
    for f in 0..k.max(2) {
        let train_cases: Vec<(&Sample, u16)> = lab
            .cases
            .iter()
            .filter(|(s, _)| fold_of[&(*s as *const Sample)] != f)
            .copied()
            .collect();
        let m = train(&train_cases, &lab.classes, o);
        if let Algo::C45 { tree, .. } = &m.algo {
            tree_sizes.push(tree.nodes.len());
        }
        for (i, s) in samples.iter().enumerate() {
            if fold[i] != f {
                continue;
            }
            let p = m.classify(&s.early, s.l4, s.server_port);
            predictions[i] = p;
            if let Some(&t) = truth.get(&(s as *const Sample)) {
                report.add(t, p.map(|r| r.0));
            }
        }
    }
    CvResult {
        report,
        predictions,
        tree_sizes,
    }
}

/// The fold of every sample: captures kept whole, balanced by labelled flows.
fn sample_folds(samples: &[Sample], lab: &Labelled<'_>, k: usize, seed: u64) -> Vec<usize> {
    let labelled: std::collections::HashSet<*const Sample> =
        lab.cases.iter().map(|(s, _)| *s as *const Sample).collect();
    let groups: Vec<&str> = samples.iter().map(|s| s.id.0.as_str()).collect();
    let w: Vec<usize> = samples
        .iter()
        .map(|s| labelled.contains(&(s as *const Sample)) as usize)
        .collect();
    folds_by_group(&groups, &w, k, seed)
}

/// The fold of each labelled case under [`cross_validate`]'s split (for exporting the same folds).
pub fn case_folds(samples: &[Sample], lab: &Labelled<'_>, k: usize, seed: u64) -> Vec<usize> {
    let fold = sample_folds(samples, lab, k, seed);
    let fold_of: HashMap<*const Sample, usize> = samples
        .iter()
        .zip(&fold)
        .map(|(s, &f)| (s as *const Sample, f))
        .collect();
    lab.cases
        .iter()
        .map(|(s, _)| fold_of[&(*s as *const Sample)])
        .collect()
}

/// Held-out predictions as a CSV the scorers read (`stats_app` column), with the posterior
/// probability in `stats_score` (empty when the model abstained), so a threshold can be studied.
pub fn predictions_csv(
    samples: &[Sample],
    pred: &[Option<(u16, f32)>],
    classes: &[ClassInfo],
) -> String {
    let mut s = String::from("pcap,l4,src_ip,src_port,dst_ip,dst_port,stats_app,stats_score\n");
    for (x, p) in samples.iter().zip(pred) {
        let app = p
            .and_then(|(c, _)| classes.get(c as usize))
            .map(|c| c.app.as_str())
            .unwrap_or("Unknown");
        let score = p.map(|(_, v)| format!("{v:.3}")).unwrap_or_default();
        let pcap = &x.id.0;
        let q = if pcap.contains([',', '"']) {
            format!("\"{}\"", pcap.replace('"', "\"\""))
        } else {
            pcap.clone()
        };
        s.push_str(&format!(
            "{q},{},{},{},{},{},{app},{score}\n",
            x.id.1, x.ends[0].0, x.ends[0].1, x.ends[1].0, x.ends[1].1
        ));
    }
    s
}

/// The training set in Weka's ARFF format (C4.5 attributes, missing = '?').
pub fn arff(cases: &[(&Sample, u16)], classes: &[ClassInfo], o: &TrainOpts) -> String {
    let mut s = String::from("@relation wirespeed\n");
    for n in c45_attr_names(o.nb_params.positions as usize, o.iat) {
        s.push_str(&format!("@attribute {n} numeric\n"));
    }
    s.push_str("@attribute class {");
    s.push_str(
        &classes
            .iter()
            .map(|c| format!("'{}'", c.app))
            .collect::<Vec<_>>()
            .join(","),
    );
    s.push_str("}\n@data\n");
    for (row, (_, c)) in attr_rows(cases, o).iter().zip(cases) {
        for v in row {
            if v.is_nan() {
                s.push_str("?,");
            } else {
                s.push_str(&format!("{v},"));
            }
        }
        s.push_str(&format!("'{}'\n", classes[*c as usize].app));
    }
    s
}

/// Parse a size mode name.
pub fn size_mode(s: &str) -> Option<SizeMode> {
    [SizeMode::Ip, SizeMode::Payload, SizeMode::Data]
        .into_iter()
        .find(|m| m.name() == s)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A TCP flow of `pcap` to `port`: handshake, then a request of `req` bytes.
    fn flow(pcap: &str, n: u16, port: u16, req: u32) -> Sample {
        let mut early = Early::default();
        early.push(false, 60, 0, 0x02, 0);
        early.push(true, 60, 0, 0x12, 1_000);
        early.push(false, 52, 0, 0x10, 1_000);
        early.push(false, 52 + req as u16, req, 0x18, 1_000);
        let client = ("192.0.2.1".to_string(), 40_000 + n);
        let server = ("198.51.100.2".to_string(), port);
        Sample {
            id: flow_id(
                pcap,
                "TCP",
                (&client.0, &client.1.to_string()),
                (&server.0, &port.to_string()),
            ),
            ends: [client, server],
            early,
            l4: 6,
            server_port: port,
        }
    }

    /// A capture's repeats of one flow (same class, same bins of size and port) count
    /// `max_repeats` times; the same flow in another capture, of another class, with a size in
    /// another bin or to another port counts apart; sizes within one bin are the same flow;
    /// 0 keeps all; the order is kept.
    #[test]
    fn a_capture_teaches_one_flow_at_most_max_repeats_times() {
        let p = NbParams::default();
        let s = [
            flow("a.pcap", 1, 80, 89),
            flow("a.pcap", 2, 80, 89),
            flow("a.pcap", 3, 80, 90),   // the same 32-byte bin as 89
            flow("b.pcap", 4, 80, 89),   // another capture
            flow("a.pcap", 5, 80, 89),   // another class (below)
            flow("a.pcap", 6, 80, 200),  // another size's bin
            flow("a.pcap", 7, 8080, 89), // another port
            flow("a.pcap", 8, 80, 89),
        ];
        let cases: Vec<(&Sample, u16)> = s
            .iter()
            .enumerate()
            .map(|(i, f)| (f, u16::from(i == 4)))
            .collect();
        let ids = |kept: Vec<(&Sample, u16)>| -> Vec<u16> {
            kept.iter().map(|(f, _)| f.ends[0].1 - 40_000).collect()
        };
        assert_eq!(ids(keep_repeats(&cases, &p, 2)), [1, 2, 4, 5, 6, 7]);
        assert_eq!(ids(keep_repeats(&cases, &p, 1)), [1, 4, 5, 6, 7]);
        assert_eq!(ids(keep_repeats(&cases, &p, 3)), [1, 2, 3, 4, 5, 6, 7]);
        assert_eq!(ids(keep_repeats(&cases, &p, 0)), [1, 2, 3, 4, 5, 6, 7, 8]);
        // A model trained with repeats left out counts what is kept.
        let classes = [
            ClassInfo {
                app: "HTTP".into(),
                category: "Web".into(),
            },
            ClassInfo {
                app: "TLS".into(),
                category: "Web".into(),
            },
        ];
        let o = |max_repeats| TrainOpts {
            max_repeats,
            ..TrainOpts::default()
        };
        let total = |m: Model| match m.algo {
            Algo::Nb(c) => c.class_n.iter().sum::<u32>(),
            _ => unreachable!(),
        };
        assert_eq!(total(train(&cases, &classes, &o(1))), 5);
        assert_eq!(total(train(&cases, &classes, &o(0))), 8);
    }

    const HEAD: &str =
        "pcap,l4,src_ip,src_port,dst_ip,dst_port,master,app,confidence,category,ua\n";

    #[test]
    fn labels_read_quoted_fields_with_commas_and_crlf() {
        let text = format!(
            "{HEAD}a.pcap,TCP,10.0.0.1,40000,10.0.0.2,80,HTTP.Foo,HTTP,DPI,Web,\"Mozilla/5.0 (KHTML, like Gecko)\"\r\n\
             \"a.pcap\",UDP,10.0.0.1,5000,10.0.0.3,53,\"DNS\",\"DNS\",\"DPI (partial, cache)\",\"Network, and more\",\r\n"
        );
        let m = read_labels(&text).unwrap();
        assert_eq!(m.len(), 2);
        let id = flow_id("a.pcap", "TCP", ("10.0.0.2", "80"), ("10.0.0.1", "40000"));
        assert_eq!(m[&id].master, "HTTP");
        assert_eq!(m[&id].category, "Web");
        let id = flow_id("a.pcap", "UDP", ("10.0.0.1", "5000"), ("10.0.0.3", "53"));
        assert_eq!(m[&id].category, "Network, and more");
        assert!(m[&id].plain);
    }

    #[test]
    fn an_unterminated_quote_in_a_label_file_names_its_line() {
        let text = format!("{HEAD}a.pcap,TCP,10.0.0.1,1,10.0.0.2,2,TLS,TLS,DPI,Web,\"open\n");
        let e = read_labels(&text).unwrap_err();
        assert!(e.starts_with("label file: line 2: "), "{e}");
        assert!(e.contains("unterminated quote"), "{e}");
    }
}
