//! The acting side of a worker (`wirespeed inline`, issue 21): after the classifiers, each
//! packet's flow is decided by the policy ([`wirespeed_act::Actor`]) and the packet gets its
//! [`PacketAct`]; a flow's record says what was done to it.

use crate::classify::{FlowExt, Stage};
use crate::observe::{Cx, Observed, Observer, Packet};
use crate::rules::Rules;
use std::sync::Arc;
use wirespeed_act::{Actor, Ended, Enforce, FlowEnds, FlowFacts, FlowRef, PacketAct, PolicyCell};
use wirespeed_export::{ActFields, FlowRecord};
use wirespeed_flow::Flow;

/// A worker's actor.
pub(crate) struct Inline {
    pub(crate) actor: Actor,
    /// Payload inspection runs: a flow's classification is settled when it is done with the
    /// flow (else at once).
    dpi: bool,
    /// Told of each flow's final action and of its end (`inline --datapath ebpf`), instead of
    /// the packets' [`PacketAct::bind`] going to the kernel.
    pub(crate) enforce: Option<Arc<dyn Enforce>>,
}

/// `f`'s end-points, client first (ports 0 for protocols other than TCP and UDP, as the eBPF
/// program keys them).
fn ends(f: &Flow<FlowExt>) -> FlowEnds {
    let (c, s) = (f.client, f.server());
    let ported = matches!(f.key.proto, 6 | 17);
    let port = |i: usize| if ported { f.key.port[i] } else { 0 };
    FlowEnds {
        proto: f.key.proto,
        client: (f.key.ip(c), port(c.index())),
        server: (f.key.ip(s), port(s.index())),
    }
}

impl Inline {
    pub(crate) fn new(cell: Arc<PolicyCell>, slots: usize, bypass: bool, dpi: bool) -> Self {
        Inline {
            actor: Actor::new(cell, slots, bypass),
            dpi,
            enforce: None,
        }
    }

    /// Decide a packet of `f` (in `slot`), `len` bytes at `ts`; `payload`: it carried one. The
    /// flow's risks (its facts `seen`, payload metadata from `stage`, judged by `rules`) are
    /// asked for only when the flow is (re)decided. Out of line: the packet loop of runs
    /// without the actor stays small.
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn decide(
        &mut self,
        slot: u32,
        f: &Flow<FlowExt>,
        len: u32,
        ts: u64,
        payload: bool,
        stage: &Stage,
        seen: Observed,
        rules: &Rules,
    ) -> PacketAct {
        let verdict = f
            .ext
            .class
            .verdict()
            .map(|v| (v.label, v.method, v.confidence));
        // Settled: payload inspection is done with the flow (or goes on for transaction events
        // only), or it will never start (it saw a payload and took no context: a transport it
        // does not inspect, or its pool is full), so the label other methods gave is the last.
        let h = f.ext.dpi;
        let settled = !self.dpi
            || wirespeed_dpi::inspection_over(h)
            || (payload && h == wirespeed_dpi::NO_HANDLE);
        let flow = FlowRef {
            slot,
            serial: f.serial,
            verdict,
            settled,
        };
        let a = self.actor.packet(flow, len, ts, || {
            let (c, s) = (f.client, f.server());
            FlowFacts {
                verdict,
                risks: crate::observe::risks::of_flow(f, stage, seen, rules),
                proto: f.key.proto,
                src: (f.key.ip(c), f.key.port[c.index()]),
                dst: (f.key.ip(s), f.key.port[s.index()]),
            }
        });
        // Once per final action, never per packet.
        if a.bind_new {
            if let Some(e) = &self.enforce {
                e.set(&ends(f), a.bind);
            }
        }
        a
    }

    /// The record's fields for `e`.
    fn fields(&self, e: &Ended) -> ActFields<'_> {
        let o = self.actor.describe(e);
        ActFields {
            rule: o.rule,
            action: o.action,
            dropped_pkts: o.dropped_packets,
            dropped_bytes: o.dropped_bytes,
            bound: o.bound,
        }
    }
}

impl Observer for Inline {
    /// The flow's risks, judged when it is (re)decided, read the other observers' facts.
    const READS_FACTS: bool = true;

    /// What the packet gets, by its flow's label and risks now (in an acting batch only).
    #[inline]
    fn packet(&mut self, p: &Packet<'_>, f: &Flow<FlowExt>, cx: &mut Cx<'_>) {
        if let Some(a) = cx.act.as_deref_mut() {
            *a = self.decide(
                p.slot,
                f,
                p.len,
                p.ts,
                p.payload_len > 0,
                cx.stage,
                cx.seen,
                cx.rules,
            );
        }
    }

    /// What was done to the flow, freeing its state when `last` (else an interim record).
    #[inline]
    fn ended<'r>(&'r mut self, slot: u32, f: &Flow<FlowExt>, last: bool, rec: &mut FlowRecord<'r>) {
        let e = if last {
            self.actor.end(slot, f.serial)
        } else {
            self.actor.peek(slot, f.serial)
        };
        if let Some(e) = e {
            if last && self.enforce.is_some() && self.actor.describe(&e).bound {
                if let Some(x) = &self.enforce {
                    x.remove(&ends(f));
                }
            }
            let this: &'r Self = self;
            rec.act = Some(this.fields(&e));
        }
    }
}
