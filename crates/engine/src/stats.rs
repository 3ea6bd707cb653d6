//! The statistical classifier's hooks in the pipeline: feature upkeep per packet, the model asked
//! once per flow (at packet P, or when the flow ends before), its verdict offered to the arbiter
//! and kept in the flow for the record's `stats_*` fields.

use crate::rules::Rules;
use crate::worker::FlowExt;
use wirespeed_classify::{Arbiter, Method, Verdict};
use wirespeed_dpi::Dpi;
use wirespeed_flow::Flow;
use wirespeed_stats::{Loaded, StatsResult};

/// `StatsResult::class` before the model was asked.
pub(crate) const NOT_ASKED: u16 = 0;
/// `StatsResult::class` when the model abstained.
pub(crate) const ABSTAINED: u16 = 1;

/// Confidence the statistical verdict needs to label a flow no other method labelled; below it
/// the flow stays unknown (its `stats_*` fields still say what the model thought). Held out by
/// capture on the corpus (`wirespeed train --predictions`, which writes the posterior), the
/// shipped model's verdicts below 0.8 are mostly one cluster at 0.77 where the prior decides
/// (flows that look like nothing it was trained on): at 0.8, wrong labels on nDPI's DPI flows
/// fall from 1,793 to 1,085, right ones from 2,937 to 2,872, flows nDPI calls unknown that get
/// a label from 2,334 to 296, and macro-F1 goes from 0.568 to 0.579.
pub(crate) const ALONE: f32 = 0.8;

/// Per packet, after the flow's counters are updated: record the packet among the first ones
/// and ask the model when the flow reaches its P-th packet. No allocation. `dpi` says, when the
/// model is asked, whether the payload inspectors saw the flow and every one said it is not its
/// protocol ([`wirespeed_dpi::Dpi::ruled_out`]; not read per packet: it touches the flow's
/// inspection context).
#[inline]
#[allow(clippy::too_many_arguments)]
pub(crate) fn on_packet(
    f: &mut Flow<FlowExt>,
    s2c: bool,
    ip_len: u16,
    payload_len: u32,
    flags: u8,
    gap_ns: u64,
    rules: &Rules,
    arbiter: &Arbiter,
    dpi: &Dpi,
) {
    f.ext.early.push(s2c, ip_len, payload_len, flags, gap_ns);
    if let Some(m) = rules.model() {
        if f.ext.stats.class == NOT_ASKED
            && f.total_pkts() >= m.model.positions as u64
            && arbiter.classifiers().has(Method::Stats)
        {
            ask(f, m, arbiter, dpi.ruled_out(f.ext.dpi));
        }
    }
}

/// When a flow ends before reaching P packets, ask the model with what there is. A label the
/// model gave before the payload inspectors had finished, and that they have since contradicted
/// by ruling every protocol out, is taken back: the flow keeps what the port table says, if
/// anything.
#[inline]
pub(crate) fn on_end(f: &mut Flow<FlowExt>, rules: &Rules, arbiter: &Arbiter, dpi: &Dpi) {
    let handle = f.ext.dpi;
    let ruled_out = || dpi.ruled_out(handle);
    if f.ext.verdict.is_some_and(|v| v.method == Method::Stats) && ruled_out() {
        f.ext.verdict = None;
        crate::worker::offer_port(f, arbiter, rules.ports());
    }
    if let Some(m) = rules.model() {
        if f.ext.stats.class == NOT_ASKED
            && !f.ext.early.is_empty()
            && arbiter.classifiers().has(Method::Stats)
        {
            ask(f, m, arbiter, ruled_out());
        }
    }
}

#[inline]
fn ask(f: &mut Flow<FlowExt>, m: &Loaded, arbiter: &Arbiter, ruled_out: bool) {
    let port = f.key.port[f.server().index()];
    match m.model.classify(&f.ext.early, f.key.proto, port) {
        Some((c, conf)) if (c as usize) < m.labels.len() => {
            f.ext.stats = StatsResult {
                class: c + 2,
                score: (conf.clamp(0.0, 1.0) * 65535.0) as u16,
            };
            let v = Verdict {
                label: m.labels[c as usize],
                method: Method::Stats,
                confidence: conf,
                ttb_pkts: f.total_pkts().min(u32::MAX as u64) as u32,
                ttb_ns: f.last_ts.saturating_sub(f.first_ts),
            };
            // The model labels a flow no other method labelled, when it is fairly sure
            // (`ALONE`); it never replaces the port table's guess. Held out by capture
            // (`wirespeed train --predictions`), on the corpus flows nDPI names by payload and
            // our inspectors do not, where a port label exists: at confidence >= 0.9 the model
            // agreed with a right port label on 59 flows, contradicted it with a wrong one on 65,
            // and was right where the port was wrong on none (below 0.9, where it did not replace
            // the port label before either: right where the port was wrong on 1, wrong on 49). Its
            // classes are all protocols the payload inspectors know, so when those saw the payload
            // and ruled every protocol out, its guess contradicts them and is not offered either.
            // Its verdict stays in `stats_*` in every case.
            if !ruled_out && f.ext.verdict.is_none() && conf >= ALONE {
                arbiter.offer(&mut f.ext.verdict, v);
            }
        }
        _ => {
            f.ext.stats = StatsResult {
                class: ABSTAINED,
                score: 0,
            }
        }
    }
}

/// The record's (`stats_app`, `stats_class`, `stats_score`).
pub(crate) fn fields<'r>(ext: &FlowExt, rules: &'r Rules) -> (&'r str, &'static str, f32) {
    match (ext.stats.class, rules.model()) {
        (NOT_ASKED, _) | (_, None) => ("", "", 0.0),
        (ABSTAINED, _) => ("Unknown", "UNKNOWN", 0.0),
        (c, Some(m)) => {
            let i = (c - 2) as usize;
            match (rules.class_label(i), m.coarse.get(i)) {
                (Some(l), Some(k)) => (
                    rules.labels().get(l).app(),
                    k.as_str(),
                    ext.stats.score as f32 / 65535.0,
                ),
                _ => ("", "", 0.0),
            }
        }
    }
}
