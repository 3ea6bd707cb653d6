//! The record path: where a worker's ended flows go. A flow ends (idle, FIN/RST, evicted, the
//! input's end) or reaches its active timeout; [`Output::end`] lets the classifiers conclude,
//! makes its record ([`record`]: the flow's verdict, counters, metadata and risks, then each
//! classifier's fields and the observers' columns), writes it to the worker's sink, counts it
//! for the run's report ([`crate::summary`]) and gives back what the flow held.

use crate::classify::{FlowExt, Stage};
use crate::observe::risks::FlowFacts;
use crate::observe::{Observed, Observers};
use crate::rules::Rules;
use crate::summary::{method_slot, AppStats, LearnedOutcome, RiskCounts, METHOD_SLOTS};
use std::io;
use wirespeed_classify::{Arbiter, Facts, LabelId, Labels, Method};
use wirespeed_export::{FlowRecord, RecordSink};
use wirespeed_flow::{EndReason, Flow};

/// Index of a learned method in [`crate::summary::Counters::learned`].
fn learned_slot(m: Method) -> Option<usize> {
    match m {
        Method::DnsCache => Some(0),
        Method::HostCache => Some(1),
        _ => None,
    }
}

/// What a record is given beyond what labels need, decided once at start from the columns a
/// run writes ([`crate::EngineConfig::risks`], [`crate::EngineConfig::ip_owner`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Want {
    /// Judge the flow's risks.
    pub(crate) risks: bool,
    /// Look up the owner of its addresses.
    pub(crate) ip_owner: bool,
}

impl Want {
    /// Everything (the default).
    pub(crate) const ALL: Want = Want {
        risks: true,
        ip_owner: true,
    };
}

/// Where a worker's ended flows go.
pub(crate) struct Output<S> {
    /// What each record is given ([`Want`]).
    pub(crate) want: Want,
    pub(crate) sink: S,
    with_source: bool,
    source: String,
    pub(crate) base: String,
    /// Flows, packets and bytes by label id (a vector indexed by id: one add per ended flow).
    pub(crate) by_label: Vec<[u64; 3]>,
    pub(crate) records: u64,
    /// Final records by the method that named the flow ([`method_slot`]).
    pub(crate) by_method: [u64; METHOD_SLOTS],
    /// Flows by risk id (final records only).
    pub(crate) by_risk: RiskCounts,
    /// Final records of flows a learned method named at packet 1, and what became of them.
    pub(crate) learned: [LearnedOutcome; 2],
    /// Records handed to the sink, interim ones included.
    pub(crate) written: u64,
    error: Option<io::Error>,
    /// Where transaction events go (`--events`); None without.
    pub(crate) events: Option<crate::events::EventOut>,
    /// The outer flow of each inner flow (`--tunnels both`, [`crate::tunnels`]); None without.
    pub(crate) parents: Option<crate::tunnels::Parents>,
}

impl<S: RecordSink> Output<S> {
    pub(crate) fn new(sink: S, with_source: bool) -> Self {
        Output {
            want: Want::ALL,
            sink,
            with_source,
            source: String::new(),
            base: String::new(),
            by_label: Vec::new(),
            records: 0,
            by_method: [0; METHOD_SLOTS],
            by_risk: RiskCounts::default(),
            learned: Default::default(),
            written: 0,
            error: None,
            events: None,
            parents: None,
        }
    }

    /// Write the transactions payload inspection completed (`--events`): after each packet,
    /// and after a flow's end. Without events, one branch.
    #[inline]
    pub(crate) fn events(&mut self, dpi: &mut wirespeed_dpi::Dpi) {
        if let Some(e) = self.events.as_mut() {
            if let Some(ev) = dpi.events() {
                // A flow's number is its id (`Worker::numbered`).
                e.take(ev, |serial| serial);
            }
        }
    }

    /// The per-label totals by application name.
    pub(crate) fn apps(&self, labels: &Labels) -> AppStats {
        crate::summary::apps_by_label(&self.by_label, labels)
    }

    pub(crate) fn set_source(&mut self, path: &str) {
        self.source.clear();
        self.source.push_str(path);
        self.base.clear();
        self.base
            .push_str(path.rsplit(['/', '\\']).next().unwrap_or(path));
    }

    /// A flow ended (`why`): let the classifiers conclude, write its record, give back what
    /// it held. An interim ([`EndReason::Active`]) writes the record the flow would have if it
    /// ended now, from a copy, and leaves the flow as it was: it goes on being classified and
    /// counted, and its final record carries the same id. Sink errors are kept and reported
    /// after the batch.
    #[inline]
    pub(crate) fn end(
        &mut self,
        f: &mut Flow<FlowExt>,
        why: EndReason,
        stage: &mut Stage,
        obs: &mut Observers,
        arbiter: &Arbiter,
        rules: &Rules,
    ) {
        let last = why != EndReason::Active;
        // Found in the table before an interim record's copy: the observers' state is the
        // slot's, and so is the outer flow.
        let slot = obs.slot(f);
        let tunnel_parent = self.parents.as_mut().and_then(|p| p.ended(f, last));
        if !last {
            let mut now = f.clone();
            stage.end(arbiter, &mut now);
            self.emit(&now, slot, why, stage, obs, rules, tunnel_parent);
        } else {
            stage.end(arbiter, f);
            self.emit(f, slot, why, stage, obs, rules, tunnel_parent);
            stage.release(&mut f.ext);
            // Transactions still open at the flow's end are complete as they are.
            self.events(&mut stage.dpi.dpi);
        }
    }

    /// Write the record of `f` (in `slot` of the table; `f` is a copy for an interim record).
    #[inline]
    #[allow(clippy::too_many_arguments)]
    fn emit(
        &mut self,
        f: &Flow<FlowExt>,
        slot: Option<u32>,
        why: EndReason,
        stage: &Stage,
        obs: &mut Observers,
        rules: &Rules,
        tunnel_parent: Option<u64>,
    ) {
        // The risks take the observers' facts of `f`. An interim record's copy is not in the
        // table and gets none: its Susp Entropy is judged without the entropy analyser's track
        // (a known gap, left so that records stay as they are).
        let mut rec = record(f, why, rules, self.want);
        judge(&mut rec, f, stage, obs.facts(f), rules, self.want);
        stage.fill(&f.ext, &mut rec);
        let (id, method) = (rec.label, rec.method);
        if self.with_source {
            rec.source = Some(self.source.as_str());
            rec.pcap = Some(self.base.as_str());
        }
        rec.flow_id = f.serial;
        // The observers' columns (each family is large: set only where a run asks for it).
        obs.ended(slot, f, why != EndReason::Active, &mut rec);
        rec.tunnel_parent = tunnel_parent;
        self.written += 1;
        if why == EndReason::Active {
            // Interim records are not flows: the flow is counted once, at its end.
            if self.error.is_none() {
                if let Err(e) = self.sink.write(&rec) {
                    self.error = Some(e);
                }
            }
            return;
        }
        if self.by_label.len() <= id.index() {
            // Grows to the run's label count at most (ids are the registry's), not per flow.
            self.by_label.resize(id.index() + 1, [0; 3]);
        }
        self.by_method[method_slot(method)] += 1;
        for r in rec.risks.iter() {
            self.by_risk.0[usize::from(r.id()) % 64] += 1;
        }
        if let Some((_, m)) = f.ext.class.first() {
            if let Some(i) = learned_slot(m) {
                let o = &mut self.learned[i];
                let facts = f.ext.class.facts();
                o.named += 1;
                // Corrected after a confirmation (a finer payload verdict later) is corrected.
                let corrected = facts.has(Facts::LEARNED_CORRECTED);
                o.corrected += u64::from(corrected);
                o.confirmed += u64::from(!corrected && facts.has(Facts::LEARNED_CONFIRMED));
            }
        }
        let e = &mut self.by_label[id.index()];
        e[0] += 1;
        e[1] += f.total_pkts();
        e[2] += f.bytes[0] + f.bytes[1];
        self.records += 1;
        if self.error.is_none() {
            if let Err(e) = self.sink.write(&rec) {
                self.error = Some(e);
            }
        }
    }

    pub(crate) fn take_error(&mut self) -> io::Result<()> {
        if let Some(e) = self.events.as_mut() {
            e.take_error()?;
        }
        match self.error.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// The record of `f` as it stands (its verdict, counters), without its metadata and risks
/// ([`judge`], the caller's next step), the classifiers' own fields ([`Stage::fill`]), what
/// only the output knows (source, id) or the observers' columns ([`Observers::ended`]), with
/// what `want` asks for. Returned as it is made and completed where the caller keeps it: the
/// record is ~1 KB (its metadata 33 strings, 528 bytes), and a record made, then changed, then
/// returned, or its metadata made apart and moved in, was copied whole (`memcpy`, ~160
/// instructions a record).
#[inline]
pub(crate) fn record<'a>(
    f: &Flow<FlowExt>,
    why: EndReason,
    rules: &'a Rules,
    want: Want,
) -> FlowRecord<'a> {
    let c = f.client;
    let s = f.server();
    let (id, method, confidence, ttb_pkts, ttb_ns) = match f.ext.class.verdict() {
        Some(v) => (v.label, Some(v.method), v.confidence, v.ttb_pkts, v.ttb_ns),
        None => (LabelId::UNKNOWN, None, 0.0, 0, 0),
    };
    FlowRecord {
        source: None,
        pcap: None,
        flow_id: 0,
        src_ip: f.key.ip(c),
        src_port: f.key.port[c.index()],
        dst_ip: f.key.ip(s),
        dst_port: f.key.port[s.index()],
        l4: f.key.proto,
        vlan: f.key.vlan,
        tunnel: f.tunnel.as_str(),
        tunnel_parent: None,
        first_ts_ns: f.first_ts,
        last_ts_ns: f.last_ts,
        c2s_pkts: f.pkts[c.index()],
        c2s_bytes: f.bytes[c.index()],
        s2c_pkts: f.pkts[s.index()],
        s2c_bytes: f.bytes[s.index()],
        end_reason: why,
        label: id,
        labels: rules.labels(),
        // nDPI's `ip_owner`: the server's block, else the client's.
        ip_owner: if want.ip_owner {
            rules
                .owner_name(f.key.ip(s))
                .or_else(|| rules.owner_name(f.key.ip(c)))
                .unwrap_or("")
        } else {
            ""
        },
        method,
        confidence,
        ttb_pkts,
        ttb_us: ttb_ns / 1000,
        fpc: f.ext.class.first(),
        early: Default::default(),
        stats_app: "",
        stats_class: "",
        stats_score: 0.0,
        meta: [""; wirespeed_export::META_COUNT],
        act: None,
        dist: None,
        tcp: None,
        risks: wirespeed_risk::RiskSet::EMPTY,
        encrypted: rules.encrypted(id),
    }
}

/// [`record`]'s second step, on the caller's record of `f`: the metadata `stage`'s inspection
/// holds, and, when `want` asks for them, the risks judged from the flow's facts
/// ([`FlowFacts`], the observers' `seen` among them) with that metadata.
#[inline]
pub(crate) fn judge<'a>(
    r: &mut FlowRecord<'a>,
    f: &Flow<FlowExt>,
    stage: &'a Stage,
    seen: Observed,
    rules: &Rules,
    want: Want,
) {
    crate::observe::risks::fill_metadata(f, stage, &mut r.meta);
    if want.risks {
        r.risks = crate::observe::risks::of(&FlowFacts::of(f, &r.meta, seen), rules);
    }
}
