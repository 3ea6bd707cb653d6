//! The statistical model as a classifier: features of the first packets kept per flow, the
//! model asked once per flow (at packet P, or when the flow ends before), its verdict offered to
//! the arbiter (whose rules, [`wirespeed_classify::STATS_ALONE`], say when it may label a flow)
//! and kept for the record's `stats_*` fields in every case.

use super::{Classifier, Decide, FlowView, PacketView};
use crate::rules::Rules;
use std::sync::Arc;
use wirespeed_classify::{Method, Verdict};
use wirespeed_export::FlowRecord;
use wirespeed_stats::{Early, Loaded, StatsResult};

/// `StatsResult::class` before the model was asked.
const NOT_ASKED: u16 = 0;
/// `StatsResult::class` when the model abstained.
const ABSTAINED: u16 = 1;

/// The statistical classifier of one worker.
pub struct StatsClassifier {
    rules: Arc<Rules>,
    enabled: bool,
}

/// Per flow: the first packets (statistical features, `splt_*` and `atoz_*` of the record) and
/// the model's verdict, kept even when another method decided.
#[derive(Clone, Copy, Debug, Default)]
pub struct StatsState {
    /// The first packets.
    pub early: Early,
    /// The model's verdict.
    pub result: StatsResult,
}

impl StatsClassifier {
    /// Ask the model about the flow and offer its verdict.
    #[inline]
    fn ask(&self, m: &Loaded, flow: &FlowView<'_>, st: &mut StatsState, d: &mut Decide<'_>) {
        match m
            .model
            .classify(&st.early, flow.key.proto, flow.server_port())
        {
            Some((c, conf)) if (c as usize) < m.labels.len() => {
                st.result = StatsResult {
                    class: c + 2,
                    score: (conf.clamp(0.0, 1.0) * 65535.0) as u16,
                };
                d.offer(Verdict {
                    label: m.labels[c as usize],
                    method: Method::Stats,
                    confidence: conf,
                    ttb_pkts: flow.total_pkts().min(u32::MAX as u64) as u32,
                    ttb_ns: flow.last_ts.saturating_sub(flow.first_ts),
                });
            }
            _ => {
                st.result = StatsResult {
                    class: ABSTAINED,
                    score: 0,
                }
            }
        }
    }
}

impl Classifier for StatsClassifier {
    type State = StatsState;

    fn new(cfg: &super::Env<'_>) -> Self {
        StatsClassifier {
            rules: cfg.rules.clone(),
            enabled: cfg.classifiers.has(Method::Stats),
        }
    }

    /// Record the packet among the first ones (for the record too, whether or not the model
    /// runs) and ask the model when the flow reaches its P-th packet. No allocation.
    #[inline]
    fn packet(
        &mut self,
        flow: &FlowView<'_>,
        p: &PacketView<'_>,
        st: &mut StatsState,
        d: &mut Decide<'_>,
    ) {
        let s2c = p.side != flow.client;
        st.early
            .push(s2c, p.ip_len, p.payload.len() as u32, p.tcp_flags, p.gap_ns);
        if let Some(m) = self.rules.model() {
            if self.enabled
                && st.result.class == NOT_ASKED
                && flow.total_pkts() >= m.model.positions as u64
            {
                self.ask(m, flow, st, d);
            }
        }
    }

    /// A flow that ends before P packets: ask the model with what there is.
    #[inline]
    fn end(&mut self, flow: &FlowView<'_>, st: &mut StatsState, d: &mut Decide<'_>) {
        if let Some(m) = self.rules.model() {
            if self.enabled && st.result.class == NOT_ASKED && !st.early.is_empty() {
                self.ask(m, flow, st, d);
            }
        }
    }

    /// `splt_*`/`atoz_*` (the first packets) and `stats_app`, `stats_class`, `stats_score`.
    fn fill<'r>(&'r self, st: &StatsState, rec: &mut FlowRecord<'r>) {
        rec.early = st.early;
        let (app, class, score) = match (st.result.class, self.rules.model()) {
            (NOT_ASKED, _) | (_, None) => ("", "", 0.0),
            (ABSTAINED, _) => ("Unknown", "UNKNOWN", 0.0),
            (c, Some(m)) => {
                let i = usize::from(c - 2);
                match (m.labels.get(i), m.coarse.get(i)) {
                    (Some(&l), Some(k)) => (
                        self.rules.labels().get(l).app(),
                        k.as_str(),
                        st.result.score as f32 / 65535.0,
                    ),
                    _ => ("", "", 0.0),
                }
            }
        };
        rec.stats_app = app;
        rec.stats_class = class;
        rec.stats_score = score;
    }
}
