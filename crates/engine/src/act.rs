//! The acting side of a worker (`wirespeed inline`, issue 21): after the classifiers, each
//! packet's flow is decided by the policy ([`wirespeed_act::Actor`]) and the packet gets its
//! [`PacketAct`]; a flow's record says what was done to it.

use crate::classify::FlowExt;
use std::sync::Arc;
use wirespeed_act::{Actor, Ended, FlowFacts, FlowRef, PacketAct, PolicyCell};
use wirespeed_classify::risk::RiskSet;
use wirespeed_export::ActFields;
use wirespeed_flow::{Flow, SlotLocator};

/// A worker's actor and where its table's flows lie.
pub(crate) struct Inline {
    pub(crate) actor: Actor,
    locator: SlotLocator,
    /// Payload inspection runs: a flow's classification is settled when it is done with the
    /// flow (else at once).
    dpi: bool,
}

impl Inline {
    pub(crate) fn new(
        cell: Arc<PolicyCell>,
        locator: SlotLocator,
        slots: usize,
        bypass: bool,
        dpi: bool,
    ) -> Self {
        Inline {
            actor: Actor::new(cell, slots, bypass),
            locator,
            dpi,
        }
    }

    /// Decide a packet of `f` (in `slot`), `len` bytes at `ts`; `payload`: it carried one;
    /// `risks`: the flow's risks as known now, asked for only when the flow is (re)decided.
    #[inline]
    pub(crate) fn packet(
        &mut self,
        slot: u32,
        f: &Flow<FlowExt>,
        len: u32,
        ts: u64,
        payload: bool,
        risks: impl FnOnce() -> RiskSet,
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
        self.actor.packet(flow, len, ts, || {
            let (c, s) = (f.client, f.server());
            FlowFacts {
                verdict,
                risks: risks(),
                proto: f.key.proto,
                src: (f.key.ip(c), f.key.port[c.index()]),
                dst: (f.key.ip(s), f.key.port[s.index()]),
            }
        })
    }

    /// What was done to `f`, freeing its state when `last` (the flow ends; else an interim
    /// record).
    pub(crate) fn ended(&mut self, f: &Flow<FlowExt>, last: bool) -> Option<Ended> {
        let slot = self.locator.slot(f)?;
        if last {
            self.actor.end(slot, f.serial)
        } else {
            self.actor.peek(slot, f.serial)
        }
    }

    /// The record's fields for `e`.
    pub(crate) fn fields(&self, e: &Ended) -> ActFields<'_> {
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
