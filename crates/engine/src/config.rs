//! The engine's configuration ([`EngineConfig`]): what a worker, the observers and a pool of
//! workers are set up from, below all of them.

use crate::rules::Rules;
use std::sync::Arc;
use wirespeed_classify::ClassifierSet;
use wirespeed_dpi::DpiConfig;
use wirespeed_flow::FlowConfig;
use wirespeed_wire::DecodeConfig;

/// Engine configuration.
#[derive(Clone, Debug)]
pub struct EngineConfig {
    /// Flow table: capacity, timeouts, sweep pacing.
    pub flow: FlowConfig,
    /// Decoder options (tunnels).
    pub decode: DecodeConfig,
    /// Which classifiers run.
    pub classifiers: ClassifierSet,
    /// Packets per batch (seed 000 uses 128).
    pub batch_size: usize,
    /// Datagrams remembered for fragment mapping.
    pub frag_capacity: usize,
    /// How long a first fragment's ports are remembered, ns.
    pub frag_timeout_ns: u64,
    /// What the run knows: labels, port table, signatures, patterns, the statistical model
    /// (the built-in ones by default). Shared read-only by the run's workers.
    pub rules: Arc<Rules>,
    /// Payload inspection: budget, context pool, reassembly buffers.
    pub dpi: DpiConfig,
    /// What the run learns as it goes (DNS-learned addresses, the Host Cache): bounds, epochs.
    pub learn: crate::learn::LearnConfig,
    /// Whole-flow distributions per direction in every record (`--stats dist`: packet size,
    /// inter-arrival time, TCP flag counts; [`wirespeed_export::DIST_FIELDS`]).
    pub dist: bool,
    /// The TCP analysis in every record (`--stats tcp`: retransmissions, RTT, options, Zeek's
    /// history and state; [`wirespeed_export::TCP_FIELDS`]).
    pub tcp: bool,
    /// Measure payload entropy as nDPI does, for its Susp Entropy risk (`--stats entropy`:
    /// up to four payloads a flow, `crates/engine/src/observe/entropy.rs`); off, no flow gets that
    /// risk.
    pub entropy: bool,
    /// Judge each record's risks (nDPI's flow risks: `risks`, `risk_score`, and the summary's
    /// counts by risk). Off (a run that writes neither column, `--columns`): records carry no
    /// risk and nothing of the judgement runs. The inline actor judges its own flows' risks
    /// whatever this says.
    pub risks: bool,
    /// Look up each record's `ip_owner` (the server's block, else the client's). Off (a run
    /// that does not write it): "" in every record. Labels never depend on it.
    pub ip_owner: bool,
    /// Where transaction events go (`--events`: DNS, HTTP, TLS, [`crate::events`]); None: no
    /// events, and nothing of them runs.
    pub events: Option<crate::events::EventsConfig>,
    /// Seed of the run's secret hash keys: which worker takes a flow ([`crate::rss::DispatchKey`])
    /// and the fragment tables' sets. None (the default) draws them per run, so nobody can aim
    /// packets at one worker or one set; a seed (`--dispatch-seed`) makes the dispatch
    /// reproducible, for tests. Records never depend on it.
    pub dispatch_seed: Option<u64>,
    /// `--tunnels both` (`crates/engine/src/tunnels.rs`): with `decode.decode_tunnels`, a
    /// tunnelled packet counts in its inner flow and also in its outer flow (its outermost
    /// headers, keyed as with tunnels off), and each inner flow's record names that outer flow
    /// (`tunnel_parent`); the dispatcher then hashes the outermost addresses alone. Off (the
    /// default), nothing of it runs.
    pub outer_flows: bool,
    /// Once set, every input stops being read at its next batch, as if it ended there with
    /// [`wirespeed_capture::CaptureErrorKind::Interrupted`]: the flows of what was read are
    /// ended and written, and the input's outcome carries that error (Ctrl-C in the Python
    /// module). None (the default): inputs are read to their end.
    pub stop: Option<Arc<std::sync::atomic::AtomicBool>>,
}

/// The statistics families `names` ask for, as (distributions, TCP analysis, payload
/// entropy): `dist`, `tcp`, `entropy`; empty names and `none` ask for nothing. `Err` holds the
/// first name that is no family, for the front end to say so in its own words.
pub fn stats_families<'a>(
    names: impl IntoIterator<Item = &'a str>,
) -> Result<(bool, bool, bool), &'a str> {
    let (mut dist, mut tcp, mut entropy) = (false, false, false);
    for f in names {
        match f.trim() {
            "dist" => dist = true,
            "tcp" => tcp = true,
            "entropy" => entropy = true,
            "" | "none" => {}
            other => return Err(other),
        }
    }
    Ok((dist, tcp, entropy))
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig::with_rules(Arc::new(Rules::builtin()))
    }
}

impl EngineConfig {
    /// Can the statistical model learn from the link as configured (`--learn-stats`,
    /// [`crate::learn::LearnConfig::stats_weight`])? It needs payload inspection's labels to
    /// learn from, the statistical classifier to answer, and a Naive Bayes model to add counts
    /// to (a C4.5 tree has none): otherwise the option would do nothing, silently. The error
    /// says which is missing, in the command line's terms.
    pub fn check_learn_stats(&self) -> Result<(), String> {
        if self.learn.stats_weight == 0 {
            return Ok(());
        }
        use wirespeed_classify::Method;
        if !self.classifiers.has(Method::Dpi) || !self.classifiers.has(Method::Stats) {
            return Err(
                "learning the statistical model from the link needs the dpi and stats \
                        classifiers (it learns from payload inspection's labels)"
                    .into(),
            );
        }
        match self.rules.model().map(|m| &m.model.algo) {
            Some(wirespeed_stats::model::Algo::Nb(_)) => Ok(()),
            Some(_) => Err(
                "learning the statistical model from the link needs a Naive Bayes \
                            model (the shipped one, or one `wirespeed train --algo nb` made): a \
                            C4.5 tree has no counts to add to"
                    .into(),
            ),
            None => Err("learning the statistical model from the link needs a model".into()),
        }
    }

    /// Compute for records only what the columns `cols` keeps need (`--columns`, Python's
    /// `columns=`; decided once, at start): without [`wirespeed_export::Columns::keep`],
    /// everything as configured. Off: the risks without `risks` or `risk_score` (and payload
    /// entropy, which only feeds one), the fingerprints' hashes without `ja3c`, `ja4` or
    /// `hassh` (a worker with events computes them anyway), the owner without `ip_owner`, a
    /// `--stats` family none of whose columns is kept. Labels never depend on any of them.
    pub fn compute_for(&mut self, cols: &wirespeed_export::Columns) {
        let Some(k) = cols.keep else {
            return;
        };
        self.risks = k.any(&["risks", "risk_score"]);
        self.entropy &= self.risks;
        self.ip_owner = k.has("ip_owner");
        self.dpi.fingerprints = k.any(&["ja3c", "ja4", "hassh"]);
        self.dist &= k.any(&wirespeed_export::DIST_FIELDS);
        self.tcp &= k.any(&wirespeed_export::TCP_FIELDS);
    }

    /// The default configuration with these rules (loading the built-in ones costs as much as
    /// a few thousand packets: the model's tables are built from its counts).
    pub fn with_rules(rules: Arc<Rules>) -> Self {
        EngineConfig {
            flow: FlowConfig::default(),
            decode: DecodeConfig::default(),
            classifiers: ClassifierSet::all(),
            batch_size: 128,
            frag_capacity: 4096,
            frag_timeout_ns: 30_000_000_000,
            rules,
            dpi: DpiConfig::default(),
            learn: crate::learn::LearnConfig::default(),
            dist: false,
            tcp: false,
            entropy: false,
            risks: true,
            ip_owner: true,
            events: None,
            stop: None,
            dispatch_seed: None,
            outer_flows: false,
        }
    }
}
