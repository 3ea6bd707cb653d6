//! Per-flow observers: analysers that label nothing. They see a flow's packets beside the
//! classifiers ([`crate::classify`], which knows nothing of them) and add their part to its
//! record. Each is there only when its option asks for it; absent, a worker pays one predictable
//! branch a packet for it.
//!
//! # The contract ([`Observer`])
//!
//! An observer keeps its per-flow state in a side table of the flow table's size, found by the
//! flow's slot (not in the slot itself: the slot's size is held by a test) and owned by the
//! flow's serial: a slot's state whose serial is not the flow's is another flow's, and starts
//! afresh. Its hooks, each run by [`Observers`] for every present observer in the list's order
//! (the `observers!` list at the end of this file):
//!
//! - [`Observer::before`]: a packet, after the flow table counted it and *before* the
//!   classifiers see it. Only the entropy analyser needs it: nDPI measures a packet by whether
//!   the flow had its payload verdict before that packet.
//! - [`Observer::packet`]: the same packet *after* the classifiers saw it: the flow's verdict is
//!   the one this packet leaves, so there is no separate hook for a verdict. [`Cx`] gives what
//!   the run knows (rules, the classifiers' stage for payload metadata), the facts of every
//!   observer for the flow's risks (gathered only for an observer that reads them,
//!   [`Observer::READS_FACTS`]: the actor) and where the packet's action goes.
//! - [`Observer::facts`]: what it knows of a flow that risk assessment needs
//!   ([`risks::FlowFacts`]): at the flow's record, and before a hook that reads them.
//! - [`Observer::ended`]: the flow ends (idle, FIN/RST, evicted, the input's end: one hook for
//!   all) or gets an interim record: it adds its columns to the record and, when the flow ends,
//!   frees its state. A slot reused without it (never, as the table ends every flow it drops)
//!   would still start afresh by the serial.
//!
//! Hooks run on the hot path: no allocation, no logging, no clock (time is the capture's), and
//! no dynamic dispatch: [`Observers`] keeps each observer in a typed `Option` field. A worker
//! builds the [`Packet`] only when some observer is present ([`Observers::any`]), and builds it
//! for each hook rather than keeping it across the classifiers' call; an out-of-line part of a
//! hook takes the packet's fields by value, so the `Packet` never lives in memory.
//!
//! # Adding an observer
//!
//! Implement [`Observer`] in a module of its own, add a line to the `observers!` list (before
//! any observer that reads facts when it publishes some), build it in [`Observers::new`] from
//! its option, and give its facts a field of [`Observed`] or its columns a field of the record.
//!
//! # The observers, in order
//!
//! - payload entropy for nDPI's Susp Entropy risk (`--stats entropy`, [`crate::observe::entropy`]);
//!   it publishes facts, so it comes before the actor;
//! - whole-flow distributions (`--stats dist`, [`crate::observe::flowstats`]);
//! - the TCP analysis (`--stats tcp`, [`crate::observe::tcpstats`]);
//! - the inline actor (`wirespeed inline`, [`crate::observe::act`]): it decides each packet by the
//!   flow's label and risks as they stand, so it comes after every classifier and observer.

pub(crate) mod act;
pub(crate) mod entropy;
pub(crate) mod flowstats;
pub(crate) mod risks;
pub(crate) mod tcpstats;

use crate::classify::{FlowExt, Stage};
use crate::config::EngineConfig;
use crate::rules::Rules;
use wirespeed_export::FlowRecord;
use wirespeed_flow::{Flow, FlowTable, SlotLocator};
use wirespeed_wire::TcpInfo;

/// One packet of a flow as observers see it (the flow itself is passed beside it).
#[derive(Clone, Copy)]
pub(crate) struct Packet<'a> {
    /// The flow's slot in the worker's table: the index of each observer's side table.
    pub(crate) slot: u32,
    /// The flow's first packet.
    pub(crate) first: bool,
    /// Sent by the flow's client.
    pub(crate) c2s: bool,
    /// Capture time, ns.
    pub(crate) ts: u64,
    /// Bytes of the frame.
    pub(crate) len: u32,
    /// Length of the innermost IP packet by its header.
    pub(crate) ip_len: u16,
    /// TTL or hop limit of the innermost IP header.
    pub(crate) ttl: u8,
    /// The TCP header's facts (None for other transports).
    pub(crate) tcp: Option<TcpInfo>,
    /// The frame, and where its transport payload begins in it (the TCP options lie just
    /// before; an empty payload's offset may point anywhere: read with `get`).
    pub(crate) frame: &'a [u8],
    pub(crate) payload_off: usize,
    /// Bytes of transport payload the packet carried (link padding counted into a bare ACK's
    /// IP length included).
    pub(crate) payload_len: u32,
    /// The payload as the classifiers saw it (that padding removed).
    pub(crate) payload: &'a [u8],
}

/// What the observers know of a flow that risk assessment needs ([`Observer::facts`]).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Observed {
    /// Payload entropy (`--stats entropy`; default: nothing measured).
    pub(crate) entropy: crate::observe::entropy::Track,
}

/// What a packet hook may read beside the packet and the flow, and where it writes the
/// packet's action.
pub(crate) struct Cx<'a> {
    /// What the run knows: labels, risk rules.
    pub(crate) rules: &'a Rules,
    /// The classifiers (the flow's payload metadata, for its risks).
    pub(crate) stage: &'a Stage,
    /// Every observer's facts of the flow, gathered before the hook of an observer that reads
    /// them ([`Observer::READS_FACTS`]); default elsewhere.
    pub(crate) seen: Observed,
    /// Where this packet's action goes: a slot of an acting batch
    /// ([`crate::Worker::process_batch_acting`]), else None (the actor then decides nothing).
    pub(crate) act: Option<&'a mut wirespeed_act::PacketAct>,
}

/// A per-flow analyser that labels nothing (see the module's contract).
pub(crate) trait Observer {
    /// It has facts for risk assessment ([`Observer::facts`]): without one present, a flow's
    /// facts are not looked up at all.
    const HAS_FACTS: bool = false;

    /// Its [`Observer::packet`] reads [`Cx::seen`] (gathered for it alone: it costs a look-up
    /// a packet per observer with facts).
    const READS_FACTS: bool = false;

    /// A packet of `f`, before the classifiers see it: what an observer must know of the flow
    /// as it was before this packet (the entropy analyser: whether the flow already had its
    /// payload verdict) is read here, not in [`Observer::packet`].
    #[inline(always)]
    fn before(&mut self, _p: &Packet<'_>, _f: &Flow<FlowExt>) {}

    /// The same packet, after the classifiers saw it.
    fn packet(&mut self, p: &Packet<'_>, f: &Flow<FlowExt>, cx: &mut Cx<'_>);

    /// Add what it knows of the flow `serial` in `slot` that risk assessment needs to `into`.
    #[inline(always)]
    fn facts(&self, _slot: u32, _serial: u64, _into: &mut Observed) {}

    /// The flow `f`, in `slot`, ends (`last`) or gets an interim record (`f` may then be a
    /// copy): add its columns to `rec`; free its state when `last`.
    #[inline(always)]
    fn ended<'r>(
        &'r mut self,
        _slot: u32,
        _f: &Flow<FlowExt>,
        _last: bool,
        _rec: &mut FlowRecord<'r>,
    ) {
    }
}

/// The observers: a worker's `Observers`, one typed `Option` field each, whose hooks call
/// every present one's in the list's order.
macro_rules! observers {
    ($($(#[$doc:meta])* $field:ident: $ty:ty,)*) => {
        /// A worker's observers, each present when its option asks for it.
        pub(crate) struct Observers {
            /// Where the table's flows lie: a flow's slot at its end.
            locator: SlotLocator,
            $($(#[$doc])* pub(crate) $field: Option<$ty>,)*
        }

        impl Observers {
            /// Some observer is present. False (most runs): a worker builds no [`Packet`] and
            /// calls no hook.
            #[inline(always)]
            pub(crate) fn any(&self) -> bool {
                false $(|| self.$field.is_some())*
            }

            /// Some observer with facts is present.
            #[inline(always)]
            fn any_facts(&self) -> bool {
                false $(|| (<$ty as Observer>::HAS_FACTS && self.$field.is_some()))*
            }

            /// Before the classifiers see `p` ([`Observer::before`]).
            #[inline(always)]
            pub(crate) fn before(&mut self, p: &Packet<'_>, f: &Flow<FlowExt>) {
                $(if let Some(o) = self.$field.as_mut() {
                    o.before(p, f);
                })*
            }

            /// After the classifiers saw `p` ([`Observer::packet`]).
            #[inline(always)]
            pub(crate) fn packet(&mut self, p: &Packet<'_>, f: &Flow<FlowExt>, cx: &mut Cx<'_>) {
                $(if self.$field.is_some() {
                    if <$ty as Observer>::READS_FACTS {
                        cx.seen = self.facts_at(p.slot, f.serial);
                    }
                    if let Some(o) = self.$field.as_mut() {
                        o.packet(p, f, cx);
                    }
                })*
            }

            /// Every observer's facts of the flow `serial` in `slot`.
            #[inline]
            fn facts_at(&self, slot: u32, serial: u64) -> Observed {
                let mut seen = Observed::default();
                $(if let Some(o) = self.$field.as_ref().filter(|_| <$ty as Observer>::HAS_FACTS) {
                    o.facts(slot, serial, &mut seen);
                })*
                seen
            }

            /// Every observer's facts of `f`, for its risks; none for a flow outside the table
            /// (an interim record's copy).
            #[inline]
            pub(crate) fn facts(&self, f: &Flow<FlowExt>) -> Observed {
                if !self.any_facts() {
                    return Observed::default();
                }
                self.locator
                    .slot(f)
                    .map_or_else(Observed::default, |slot| self.facts_at(slot, f.serial))
            }

            /// The slot of `f` in the table (None for a copy, or without observers): what
            /// [`Observers::ended`] needs, asked before an interim record copies the flow.
            #[inline]
            pub(crate) fn slot(&self, f: &Flow<FlowExt>) -> Option<u32> {
                if !self.any() {
                    return None;
                }
                self.locator.slot(f)
            }

            /// `f`, in `slot`, ends (`last`) or gets an interim record: each observer's columns
            /// into `rec` ([`Observer::ended`]).
            #[inline]
            pub(crate) fn ended<'r>(
                &'r mut self,
                slot: Option<u32>,
                f: &Flow<FlowExt>,
                last: bool,
                rec: &mut FlowRecord<'r>,
            ) {
                let Some(slot) = slot else {
                    return;
                };
                $(if let Some(o) = self.$field.as_mut() {
                    o.ended(slot, f, last, rec);
                })*
            }
        }
    };
}

observers! {
    /// Payload entropy for Susp Entropy (`--stats entropy`): publishes facts, so before the
    /// actor.
    entropy: crate::observe::entropy::Entropy,
    /// Whole-flow distributions (`--stats dist`).
    dist: crate::observe::flowstats::Dist,
    /// The TCP analysis (`--stats tcp`).
    tcp: crate::observe::tcpstats::Tcp,
    /// The acting side (`wirespeed inline`): reads the flow's risks, so after every observer
    /// with facts. None elsewhere; set by [`crate::Worker::act`].
    act: crate::observe::act::Inline,
}

impl Observers {
    /// The observers `cfg` asks for, sized for `table` (the actor comes later, from
    /// [`crate::Worker::act`]).
    pub(crate) fn new<T: Default>(cfg: &EngineConfig, table: &FlowTable<T>) -> Self {
        let slots = table.config().capacity;
        Observers {
            locator: table.locator(),
            entropy: cfg
                .entropy
                .then(|| crate::observe::entropy::Entropy::new(slots)),
            dist: cfg
                .dist
                .then(|| crate::observe::flowstats::Dist::new(slots)),
            tcp: cfg.tcp.then(|| crate::observe::tcpstats::Tcp::new(slots)),
            act: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classify::Env;
    use std::sync::Arc;
    use wirespeed_flow::{EndReason, FlowKey, Lookup, Side};

    fn key(port: u16) -> FlowKey {
        let mut a = [0u8; 16];
        a[..4].copy_from_slice(&[10, 0, 0, 1]);
        let mut b = a;
        b[3] = 2;
        FlowKey::new(4, 17, 0, (a, port), (b, 4000)).0
    }

    /// One packet of the flow in `slot` through both packet hooks, as a worker calls them.
    fn feed(obs: &mut Observers, stage: &Stage, rules: &Rules, slot: u32, f: &Flow<FlowExt>) {
        let payload: Vec<u8> = (0..=255u8).collect();
        let p = Packet {
            slot,
            first: f.pkts[0] + f.pkts[1] == 1,
            c2s: true,
            ts: f.last_ts,
            len: 300,
            ip_len: 284,
            ttl: 64,
            tcp: None,
            frame: &payload,
            payload_off: 0,
            payload_len: 256,
            payload: &payload,
        };
        obs.before(&p, f);
        let mut cx = Cx {
            rules,
            stage,
            seen: Observed::default(),
            act: None,
        };
        obs.packet(&p, f, &mut cx);
    }

    /// The contract as `Observers` runs it: hooks reach the present observers only; a flow's
    /// facts and columns are its slot's while the serial is its own; an interim record's copy
    /// gets no facts (the gap `record.rs` names); the flow's end frees its state.
    #[test]
    fn hooks_reach_the_slot_of_the_flow_they_name() {
        let rules = Arc::new(Rules::builtin());
        let mut cfg = EngineConfig::with_rules(rules.clone());
        cfg.flow.capacity = 4;
        let stage = Stage::new(&Env {
            rules: &rules,
            classifiers: cfg.classifiers,
            dpi: &cfg.dpi,
            learn: &cfg.learn,
        });
        let mut table: FlowTable<FlowExt> = FlowTable::new(cfg.flow);
        let none = Observers::new(&cfg, &table);
        assert!(!none.any());
        cfg.dist = true;
        cfg.entropy = true;
        let mut obs = Observers::new(&cfg, &table);
        assert!(obs.any() && obs.tcp.is_none() && obs.act.is_none());

        let k = key(1000);
        let h = table.hash(&k);
        let Lookup::New(slot) = table.lookup_or_insert(&k, h, Side::A, 1, 1, None, &mut |_, _| {})
        else {
            panic!("a new flow")
        };
        let f = table.get_mut(slot);
        f.serial = 7;
        f.update(Side::A, 1, 300, None);
        feed(&mut obs, &stage, &rules, slot, f);
        f.update(Side::A, 2, 300, None);
        feed(&mut obs, &stage, &rules, slot, f);

        let f = table.get_mut(slot);
        assert_eq!(obs.slot(f), Some(slot));
        assert!(obs.facts(f).entropy.high(), "every byte value once");
        assert!(!none.facts(f).entropy.high(), "no entropy analyser");
        let copy = f.clone();
        assert_eq!(obs.slot(&copy), None);
        assert!(!obs.facts(&copy).entropy.high());

        let columns = |obs: &mut Observers, f: &Flow<FlowExt>, last: bool| {
            let mut rec =
                crate::record::record(f, EndReason::Idle, &rules, crate::record::Want::ALL);
            let seen = obs.facts(f);
            crate::record::judge(&mut rec, f, &stage, seen, &rules, crate::record::Want::ALL);
            obs.ended(Some(slot), f, last, &mut rec);
            (
                rec.dist.map(|d| d.c2s.packets),
                rec.tcp.is_some(),
                rec.act.is_some(),
            )
        };
        // An interim record reads the state; the end frees it.
        assert_eq!(columns(&mut obs, &copy, false), (Some(2), false, false));
        assert_eq!(columns(&mut obs, f, true), (Some(2), false, false));
        assert_eq!(columns(&mut obs, f, true), (None, false, false));

        // Another flow in the slot starts afresh.
        f.serial = 9;
        feed(&mut obs, &stage, &rules, slot, f);
        assert_eq!(columns(&mut obs, f, true), (Some(1), false, false));
    }
}
