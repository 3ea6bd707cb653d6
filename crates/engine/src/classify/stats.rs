//! The statistical model as a classifier: features of the first packets kept per flow, the
//! model asked once per flow (at packet P, or when the flow ends before), its verdict offered to
//! the arbiter (whose rules, [`wirespeed_classify::STATS_ALONE`], say when it may label a flow)
//! and kept for the record's `stats_*` fields in every case.
//!
//! # Learning from the link (`--learn-stats`, issue 38 item 3)
//!
//! With [`crate::learn::LearnConfig::stats_weight`] set, the model asked is the run's link
//! model ([`wirespeed_stats::LinkModel`], in the learned state of [`crate::learn`]): the
//! shipped model's counts (the prior) plus the flows payload inspection labelled with one of
//! the model's classes. A flow teaches once, at the first packet at which its features are
//! complete (P packets) and payload inspection has labelled it (or confirmed a learned label);
//! the lesson is published at the worker's next epoch crossing and the tables are rebuilt when
//! the epoch is applied, never per packet. A flow is asked before it teaches and sees only
//! earlier epochs' lessons: scoring is test-then-train (prequential) by construction.
//!
//! The model is read only at a flow's packets (the epoch a packet falls in is the same with
//! any number of workers; the moment a sweep ends an idle flow is not): a flow shorter than P
//! packets is asked at each of its packets, and the answer of its last one is its verdict at
//! its end. Flows shorter than P packets do not teach (their end is not at a packet).
//!
//! Off (the default), nothing changes: the same records, and per packet two compares where
//! there were three tests.

use super::{Classifier, Decide, FlowView, PacketView};
use crate::learn::{Hub, StatsBox};
use crate::rules::Rules;
use std::sync::{Arc, Mutex};
use wirespeed_classify::{Facts, LabelId, Method, Verdict};
use wirespeed_export::FlowRecord;
use wirespeed_stats::model::Algo;
use wirespeed_stats::nb::{NbParams, MAX_FEATURES};
use wirespeed_stats::{Early, Loaded, SizeMode, StatsResult, LEAD_CAP};

// `StatsResult::class`: 0, not asked; below DECIDED, the answer at the flow's latest packet
// (a flow shorter than P packets, `--learn-stats`): 1 abstained, 2 + c class c; from DECIDED
// on, the verdict: DECIDED abstained, DECIDED + 1 + c class c; TAUGHT is set once the flow
// has taught the link model (or cannot).
/// Before the model was asked.
const NOT_ASKED: u16 = 0;
/// The model's verdict is final from here on.
const DECIDED: u16 = 0x8000;
/// The model abstained.
const ABSTAINED: u16 = DECIDED;
/// The flow taught the link model (or will not).
const TAUGHT: u16 = 0x4000;
/// No class of the model.
const NO_CLASS: u16 = u16::MAX;

/// Where a flow's [`Early::progress`] has come when the model is asked: its P, or for a model
/// of [`SizeMode::Data`] with more positions than [`LEAD_CAP`] payload-carrying packets kept,
/// the last one kept (the rest are absent to it in training too).
fn ask_at(m: &Loaded) -> u64 {
    let p = usize::from(m.model.positions);
    let p = if m.model.mode == SizeMode::Data {
        p.min(LEAD_CAP)
    } else {
        p
    };
    p as u64
}

/// Does this run's statistical classifier learn from the link?
pub(crate) fn learns(env: &super::Env<'_>) -> bool {
    env.learn.stats_weight > 0
        && env.classifiers.has(Method::Stats)
        && env.classifiers.has(Method::Dpi)
}

/// What the statistical classifier keeps to learn from the link.
struct Link {
    hub: Arc<Hub>,
    outbox: StatsBox,
    params: NbParams,
    /// Label index → the model's class of its master, [`NO_CLASS`] if none.
    class_of: Vec<u16>,
    /// Most lessons held between two epoch crossings.
    cap: usize,
}

/// The statistical classifier of one worker.
pub struct StatsClassifier {
    rules: Arc<Rules>,
    enabled: bool,
    /// Learn from the link (`--learn-stats`).
    learn: bool,
    link: Option<Link>,
    /// Most lessons a worker holds between two epoch crossings (the learner's bound).
    cap: usize,
    /// A packet looks at the model while `class` is below this: [`DECIDED`] (off), or
    /// [`DECIDED`] | [`TAUGHT`] (learning: until the flow taught); 0 when disabled.
    gate: u16,
    /// ... and the flow has this many packets (payload-carrying ones for a model of
    /// [`SizeMode::Data`]): P (off), 1 (learning); never without a model.
    from: u64,
    /// The model's size mode (how [`StatsClassifier::from`] counts).
    mode: SizeMode,
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
    /// The model's answer about the flow: the link model's as of the last applied epoch when
    /// learning, else the loaded model's.
    #[inline]
    fn answer(&self, m: &Loaded, flow: &FlowView<'_>, e: &Early) -> Option<(u16, f32)> {
        // A protocol is never named for a flow shorter than the model's P packets none of
        // which carried payload (a scan's SYN, a refused connection: no application spoke;
        // asked at its end, or, learning, at its packets so far), nor on a transport it does
        // not run on (TLS over UDP, QUIC over TCP, ICMP over IGMP): the model, which learnt
        // sizes, abstains instead. The first is known before the model is read.
        if !e.speaks(m.model.mode, usize::from(m.model.positions)) {
            return None;
        }
        let a = match &self.link {
            None => m.model.classify(e, flow.key.proto, flow.server_port()),
            Some(link) => Self::answer_link(link, m, flow, e),
        };
        a.filter(|&(c, _)| self.rules.model_admits(c, flow.key.proto))
    }

    /// [`StatsClassifier::answer`] when learning (kept out of line: the path without it stays
    /// as it was).
    #[inline(never)]
    fn answer_link(link: &Link, m: &Loaded, flow: &FlowView<'_>, e: &Early) -> Option<(u16, f32)> {
        let (l4, port) = (flow.key.proto, flow.server_port());
        match link.hub.read().stats.as_ref() {
            Some(lm) => lm.classify(e, l4, port),
            None => m.model.classify(e, l4, port),
        }
    }

    /// Ask the model about the flow and offer its verdict.
    #[inline]
    fn ask(&self, m: &Loaded, flow: &FlowView<'_>, st: &mut StatsState, d: &mut Decide<'_>) {
        let a = self.answer(m, flow, &st.early);
        self.settle(m, flow, a, st, d);
    }

    /// Keep the model's answer as the flow's verdict and offer it.
    #[inline]
    fn settle(
        &self,
        m: &Loaded,
        flow: &FlowView<'_>,
        a: Option<(u16, f32)>,
        st: &mut StatsState,
        d: &mut Decide<'_>,
    ) {
        match a {
            Some((c, conf)) if (c as usize) < m.labels.len() => {
                st.result = StatsResult {
                    class: DECIDED + 1 + c,
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

    /// A packet of a flow not yet asked at P packets or not yet taught, when learning.
    #[inline(never)]
    fn learning(&self, m: &Loaded, flow: &FlowView<'_>, st: &mut StatsState, d: &mut Decide<'_>) {
        if st.result.class >= DECIDED {
            self.teach(flow, st, d);
        } else if st.early.progress(m.model.mode, flow.total_pkts()) < ask_at(m) {
            self.tentative(m, flow, st);
        } else {
            self.ask(m, flow, st, d);
            // The flow may teach at this very packet (after it was asked).
            self.teach(flow, st, d);
        }
    }

    /// Learning, before P packets: the model's answer at this packet, kept (not offered) in
    /// case the flow ends before its next one.
    #[cold]
    fn tentative(&self, m: &Loaded, flow: &FlowView<'_>, st: &mut StatsState) {
        st.result = match self.answer(m, flow, &st.early) {
            Some((c, conf)) if (c as usize) < m.labels.len() => StatsResult {
                class: 2 + c,
                score: (conf.clamp(0.0, 1.0) * 65535.0) as u16,
            },
            _ => StatsResult { class: 1, score: 0 },
        };
    }

    /// Learning, after the verdict: once payload inspection has labelled the flow (or
    /// confirmed a learned label), its lesson for the link model, if the label is one of the
    /// model's classes.
    #[cold]
    fn teach(&self, flow: &FlowView<'_>, st: &mut StatsState, d: &Decide<'_>) {
        let Some(link) = &self.link else {
            st.result.class |= TAUGHT;
            return;
        };
        let class = d.class();
        let Some(v) = class.verdict() else {
            return;
        };
        let backed = v.method == Method::Dpi
            || (v.method.is_learned() && class.facts().has(Facts::LEARNED_CONFIRMED));
        if !backed {
            return;
        }
        st.result.class |= TAUGHT;
        let c = link.class(&self.rules, v.label);
        if c == NO_CLASS {
            return;
        }
        let p = link.params;
        let mut b = [0u32; MAX_FEATURES];
        let n = p.bins(
            &st.early.truncated(p.positions as usize),
            flow.key.proto,
            flow.server_port(),
            &mut b,
        );
        let mut bins = [0u16; MAX_FEATURES];
        for (x, &y) in bins.iter_mut().zip(b[..n].iter()) {
            *x = y.min(u32::from(u16::MAX)) as u16;
        }
        // Bounded as the learner's buffer: more lessons in one epoch are dropped.
        let mut b = link.outbox.lock().unwrap_or_else(|e| e.into_inner());
        if b.len() < link.cap {
            b.push((c, bins));
        }
    }

    /// Learning: share the learned state of `hub` (the worker's); returns where lessons wait
    /// for the worker's next epoch crossing. None when off, or when the model is not Naive
    /// Bayes (a tree has no counts to add to).
    pub(crate) fn link(&mut self, hub: Arc<Hub>) -> Option<StatsBox> {
        if !self.learn {
            return None;
        }
        let m = self.rules.model()?;
        let Algo::Nb(prior) = &m.model.algo else {
            return None;
        };
        hub.init_stats(prior);
        let labels = self.rules.labels();
        let class_of = labels
            .iter()
            .map(|(_, e)| {
                m.model
                    .classes
                    .iter()
                    .position(|c| c.app == e.master())
                    .map_or(NO_CLASS, |c| c as u16)
            })
            .collect();
        let outbox: StatsBox = Arc::new(Mutex::new(Vec::new()));
        self.link = Some(Link {
            hub,
            outbox: outbox.clone(),
            params: prior.params,
            class_of,
            cap: self.cap,
        });
        self.gate = DECIDED | TAUGHT;
        self.from = 1;
        Some(outbox)
    }
}

impl Link {
    /// The model's class of `label`'s master.
    fn class(&self, rules: &Rules, label: LabelId) -> u16 {
        match self.class_of.get(label.index()) {
            Some(&c) => c,
            None => {
                let master = rules.labels().get(label).master();
                match rules.model() {
                    Some(m) => m
                        .model
                        .classes
                        .iter()
                        .position(|c| c.app == master)
                        .map_or(NO_CLASS, |c| c as u16),
                    None => NO_CLASS,
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
            learn: learns(cfg),
            link: None,
            cap: cfg.learn.pending,
            gate: if cfg.classifiers.has(Method::Stats) {
                DECIDED
            } else {
                0
            },
            from: cfg.rules.model().map_or(u64::MAX, ask_at),
            mode: cfg
                .rules
                .model()
                .map_or(SizeMode::Payload, |m| m.model.mode),
        }
    }

    /// The first packets all recorded (the SPLT arrays and the payload-carrying lead full:
    /// [`Early::push`] no longer writes) and the model asked (`gate`), or none to ask.
    #[inline]
    fn quiet(&self, _: &FlowView<'_>, st: &StatsState, _: &wirespeed_classify::FlowClass) -> bool {
        usize::from(st.early.n) >= wirespeed_stats::SPLT_CAP
            && st.early.lead[wirespeed_stats::LEAD_CAP - 1] != 0
            && (st.result.class >= self.gate || self.from == u64::MAX)
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
        // Off: `gate` is DECIDED (0 when the classifier is disabled) and `from` P (never
        // without a model), so this is "enabled, not asked yet, P packets (payload-carrying
        // ones for a model of those)": two compares and the mode's branch.
        if st.result.class < self.gate
            && st.early.progress(self.mode, flow.total_pkts()) >= self.from
        {
            if let Some(m) = self.rules.model() {
                if self.link.is_none() {
                    self.ask(m, flow, st, d);
                } else {
                    self.learning(m, flow, st, d);
                }
            }
        }
    }

    /// A flow that ends before P packets: ask the model with what there is.
    #[inline]
    fn end(&mut self, flow: &FlowView<'_>, st: &mut StatsState, d: &mut Decide<'_>) {
        if let Some(m) = self.rules.model() {
            if self.enabled && st.result.class < DECIDED && !st.early.is_empty() {
                if st.result.class == NOT_ASKED {
                    self.ask(m, flow, st, d);
                } else {
                    // Learning: the answer at the flow's last packet.
                    let a = match st.result.class - 1 {
                        0 => None,
                        c => Some((c - 1, st.result.score as f32 / 65535.0)),
                    };
                    self.settle(m, flow, a, st, d);
                }
            }
        }
    }

    /// `splt_*`/`atoz_*` (the first packets) and `stats_app`, `stats_class`, `stats_score`.
    fn fill<'r>(&'r self, st: &StatsState, rec: &mut FlowRecord<'r>) {
        rec.early = st.early;
        let (app, class, score) = match (st.result.class & !TAUGHT, self.rules.model()) {
            (c, _) if c < DECIDED => ("", "", 0.0),
            (_, None) => ("", "", 0.0),
            (ABSTAINED, _) => ("Unknown", "UNKNOWN", 0.0),
            (c, Some(m)) => {
                let i = usize::from(c - DECIDED - 1);
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
