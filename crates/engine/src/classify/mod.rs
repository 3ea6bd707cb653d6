//! The classification stage: one contract every classifier implements ([`Classifier`]), and the
//! list of classifiers a worker runs (the `classifiers!` list at the end of this file, one line
//! each).
//!
//! # Adding a classifier (one module, one line)
//!
//! 1. Write `src/classify/<name>.rs` with a type implementing [`Classifier`]: its per-flow
//!    `State` (small and `Copy`: it sits in every flow-table slot, and the slot's size is held by
//!    a test), how it is built from the run's [`Env`] (its rules, the enabled classifiers,
//!    the payload inspection and learning settings: not the runtime's configuration), and
//!    whichever hooks it needs.
//! 2. Add `name: name::Type` to the `classifiers!` list below. The list's order is the order
//!    the hooks run in, for every flow and packet; it decides no winner (the arbiter's ranking
//!    table does: [`wirespeed_classify::arbiter`]), only what a hook sees of the same packet.
//!
//! # What a classifier may touch
//!
//! - Its own per-flow state, mutably; the flow's key and counters ([`FlowView`]) and the packet
//!   ([`PacketView`]), read-only.
//! - The flow's classification only through [`Decide`]: it offers verdicts and publishes facts
//!   ([`Facts`]); the [`Arbiter`] alone decides which verdict the flow keeps. Every rule of
//!   precedence (ranks, confidences, thresholds, take-backs, learned labels, how a host or owner
//!   name joins a protocol) is in [`wirespeed_classify::arbiter`]; the list's order decides no
//!   winner. No classifier sees another's state.
//! - Its own fields of the flow's record ([`Classifier::fill`]).
//!
//! Hooks run on the hot path: no allocation, no logging, no clock (time is the capture's).
//!
//! Per-flow analysers that label nothing (distributions, TCP analysis, entropy, the inline
//! actor) are not classifiers: they observe the flow beside this stage (`observe/`).

pub mod dpi;
pub mod learned;
pub mod owner;
pub mod port;
pub mod stats;

pub use wirespeed_classify::arbiter::DPI_CONFIDENCE;

use crate::rules::Rules;
use std::sync::Arc;
use wirespeed_classify::{Arbiter, ClassifierSet, Facts, FlowClass, LabelId, Method, Verdict};
use wirespeed_export::FlowRecord;
use wirespeed_flow::{noted, Flow, FlowKey, Side};

/// What a classifier is built from: the run's knowledge and the few settings classifiers read
/// (a worker makes it from its configuration, [`crate::EngineConfig`]).
#[derive(Clone, Copy, Debug)]
pub struct Env<'a> {
    /// What the run knows: labels, tables, signatures, the model.
    pub rules: &'a Arc<Rules>,
    /// Which classifiers run.
    pub classifiers: ClassifierSet,
    /// Payload inspection: budget, context pool, reassembly buffers.
    pub dpi: &'a wirespeed_dpi::DpiConfig,
    /// What the run learns as it goes: bounds, epochs.
    pub learn: &'a crate::learn::LearnConfig,
}

/// A flow as classifiers see it: its key and counters, read-only.
#[derive(Clone, Copy, Debug)]
pub struct FlowView<'a> {
    /// The bidirectional key.
    pub key: &'a FlowKey,
    /// Which side started the flow.
    pub client: Side,
    /// Capture time of the flow's first packet, ns.
    pub first_ts: u64,
    /// Capture time of its latest packet (this one, in [`Classifier::packet`]), ns.
    pub last_ts: u64,
    /// Packets per side (this one included, in [`Classifier::packet`]).
    pub pkts: [u64; 2],
    /// The flow's number: its record's `flow_id` (its first packet's number in the run's input).
    pub serial: u64,
}

impl FlowView<'_> {
    /// The server's side.
    #[inline]
    pub fn server(&self) -> Side {
        self.client.other()
    }

    /// The server's port.
    #[inline]
    pub fn server_port(&self) -> u16 {
        self.key.port[self.server().index()]
    }

    /// The client's port.
    #[inline]
    pub fn client_port(&self) -> u16 {
        self.key.port[self.client.index()]
    }

    /// Packets of both sides.
    #[inline]
    pub fn total_pkts(&self) -> u64 {
        self.pkts[0] + self.pkts[1]
    }
}

/// One packet of a flow.
#[derive(Clone, Copy, Debug)]
pub struct PacketView<'a> {
    /// The sender's side.
    pub side: Side,
    /// Capture time, ns.
    pub ts: u64,
    /// Time since the flow's previous packet, ns (0 for the first).
    pub gap_ns: u64,
    /// TCP sequence number (0 for other transports).
    pub seq: u32,
    /// TCP flags (0 for other transports).
    pub tcp_flags: u8,
    /// Length of the innermost IP packet by its header.
    pub ip_len: u16,
    /// The transport payload (empty when none).
    pub payload: &'a [u8],
    /// The packet's number in the run's input ([`crate::worker::Stamp::ordinal`]; with one
    /// worker and no stamps, its number among the worker's packets): the same whatever the
    /// number of workers, so what is decided by it ([`crate::expect`]'s aging) is too.
    pub ordinal: u64,
    /// The flow's slot in the worker's flow table (payload inspection's name for the flow
    /// whose context another may take: [`wirespeed_dpi::Dpi::take_reclaimed`]).
    pub slot: u32,
}

/// What a hook may do with its flow's classification: offer verdicts and publish facts, which
/// the [`Arbiter`] weighs.
pub struct Decide<'a> {
    arbiter: &'a Arbiter,
    class: &'a mut FlowClass,
}

impl Decide<'_> {
    /// Offer a verdict ([`Arbiter::offer`]); true if the flow keeps it.
    #[inline]
    pub fn offer(&mut self, v: Verdict) -> bool {
        self.arbiter.offer(self.class, v)
    }

    /// Offer a finer label from a method that already named the flow ([`Arbiter::refine`]).
    #[inline]
    pub fn refine(&mut self, v: Verdict) -> bool {
        self.arbiter.refine(self.class, v)
    }

    /// Payload inspection's verdict, over a learned one if the flow has one
    /// ([`Arbiter::check_learned`]: `own_unknown`, the payload carries a name of its own no rule
    /// knows; `join(learned, payload)`, what the two labels agree on, None if they do not).
    #[inline]
    pub fn check_learned(
        &mut self,
        v: Verdict,
        own_unknown: bool,
        join: impl FnOnce(LabelId, LabelId) -> Option<LabelId>,
    ) -> bool {
        self.arbiter.check_learned(self.class, v, own_unknown, join)
    }

    /// Would a verdict of `m` be taken now ([`Arbiter::would_take`])? Asked before a lookup
    /// whose answer may no longer win.
    #[inline]
    pub fn would_take(&self, m: Method) -> bool {
        self.arbiter.would_take(self.class, m)
    }

    /// At the flow's end, is `m` asked for its verdict again ([`Arbiter::asks_again_at_end`])?
    #[inline]
    pub fn asks_again_at_end(&self, m: Method) -> bool {
        self.arbiter.asks_again_at_end(self.class, m)
    }

    /// Publish a fact about the flow, for the arbiter's rules.
    #[inline]
    pub fn publish(&mut self, f: Facts) {
        self.class.publish(f);
    }

    /// The flow's classification so far.
    #[inline]
    pub fn class(&self) -> &FlowClass {
        self.class
    }

    /// Is `m`'s classifier enabled in this run?
    #[inline]
    pub fn enabled(&self, m: Method) -> bool {
        self.arbiter.classifiers().has(m)
    }
}

/// A classifier: per-flow state, hooks at a flow's start, each packet and its end, and its
/// fields of the flow's record. See the module's documentation for what it may touch.
pub trait Classifier: Sized {
    /// What it keeps per flow, in the flow-table slot.
    type State: Copy + Default + std::fmt::Debug;

    /// The classifier of one worker, for a run in `env`.
    fn new(env: &Env<'_>) -> Self;

    /// The flow's first packet, before the flow's counters include it.
    #[inline]
    fn start(&mut self, _flow: &FlowView<'_>, _st: &mut Self::State, _d: &mut Decide<'_>) {}

    /// Every packet, after the flow's counters include it.
    #[inline]
    fn packet(
        &mut self,
        _flow: &FlowView<'_>,
        _p: &PacketView<'_>,
        _st: &mut Self::State,
        _d: &mut Decide<'_>,
    ) {
    }

    /// Would [`Classifier::packet`] leave everything as it is for every later packet of this
    /// flow, given its state and the flow's classification after the packet just seen? When
    /// every classifier says so, the stage calls none of them for the flow's remaining packets
    /// (most packets of a long flow: its verdict reached, its first packets recorded). Asked
    /// after each packet the classifiers saw; the flow is quiet only when all say so, so a
    /// classifier may count on the others' answers too (the learned classifier on payload
    /// inspection's, whose verdicts are what it learns from). A classifier that overrides
    /// `packet` answers for it; the default, false, keeps every packet coming.
    #[inline]
    fn quiet(&self, _flow: &FlowView<'_>, _st: &Self::State, _class: &FlowClass) -> bool {
        false
    }

    /// The flow ends, before its record is written (after the arbiter's end rules).
    #[inline]
    fn end(&mut self, _flow: &FlowView<'_>, _st: &mut Self::State, _d: &mut Decide<'_>) {}

    /// Write this classifier's fields of the flow's record.
    #[inline]
    fn fill<'r>(&'r self, _st: &Self::State, _rec: &mut FlowRecord<'r>) {}

    /// The record is written: give back what the flow held (pooled contexts).
    #[inline]
    fn release(&mut self, _st: &mut Self::State) {}
}

/// The flow's key and counters as a [`FlowView`], and its classifier states, borrowed apart.
#[inline]
fn split(f: &mut Flow<FlowExt>) -> (FlowView<'_>, &mut FlowExt) {
    let Flow {
        key,
        client,
        first_ts,
        last_ts,
        pkts,
        ext,
        serial,
        ..
    } = f;
    let view = FlowView {
        key,
        client: *client,
        first_ts: *first_ts,
        last_ts: *last_ts,
        pkts: *pkts,
        serial: *serial,
    };
    (view, ext)
}

/// Does every classifier of the list say [`Classifier::quiet`]? Asked from the last to the
/// first: the statistical classifier, listed last, says no until a flow's fifth packet, the
/// answer for most packets of short flows (a flood's: ~20 instructions a packet where the
/// list's order asked payload inspection and the learned caches first).
macro_rules! all_quiet {
    ($s:ident, $view:ident, $ext:ident;) => { true };
    ($s:ident, $view:ident, $ext:ident; $first:ident $($rest:ident)*) => {
        all_quiet!($s, $view, $ext; $($rest)*)
            && $s.$first.quiet(&$view, &$ext.$first, &$ext.class)
    };
}

/// The registered classifiers: the per-flow states ([`FlowExt`]) and one worker's stage
/// (`Stage`), whose hooks call every classifier's in the list's order.
macro_rules! classifiers {
    ($($(#[$doc:meta])* $field:ident: $ty:ty,)*) => {
        /// What the engine keeps per flow beyond the flow table's own counters: the flow's
        /// classification and each registered classifier's state.
        #[derive(Clone, Copy, Debug, Default)]
        pub struct FlowExt {
            /// The verdict the arbiter kept and the facts classifiers published.
            pub class: FlowClass,
            $($(#[$doc])* pub $field: <$ty as Classifier>::State,)*
        }

        /// The classifiers of one worker.
        pub(crate) struct Stage {
            $(pub(crate) $field: $ty,)*
            /// Tests: call the classifiers for every packet, quiet flows' too, so that a test
            /// can check that skipping them changes no record.
            #[cfg(test)]
            pub(crate) every_packet: bool,
            /// Tests: packets of quiet flows no classifier was called for.
            #[cfg(test)]
            pub(crate) skipped: u64,
        }

        impl Stage {
            pub(crate) fn new(env: &Env<'_>) -> Self {
                let mut s = Stage {
                    $($field: <$ty as Classifier>::new(env),)*
                    #[cfg(test)]
                    every_packet: false,
                    #[cfg(test)]
                    skipped: 0,
                };
                s.link_stats();
                s
            }

            #[inline]
            pub(crate) fn start(&mut self, arbiter: &Arbiter, f: &mut Flow<FlowExt>) {
                let (view, ext) = split(f);
                let mut d = Decide { arbiter, class: &mut ext.class };
                $(self.$field.start(&view, &mut ext.$field, &mut d);)*
            }

            #[inline]
            pub(crate) fn packet(
                &mut self,
                arbiter: &Arbiter,
                f: &mut Flow<FlowExt>,
                p: &PacketView<'_>,
            ) {
                if self.quiet(f) {
                    #[cfg(test)]
                    {
                        self.skipped += 1;
                    }
                    return;
                }
                let (view, ext) = split(f);
                let mut d = Decide { arbiter, class: &mut ext.class };
                $(self.$field.packet(&view, p, &mut ext.$field, &mut d);)*
                if all_quiet!(self, view, ext; $($field)*) {
                    f.noted |= noted::CALLER;
                }
            }

            #[inline]
            pub(crate) fn end(&mut self, arbiter: &Arbiter, f: &mut Flow<FlowExt>) {
                let silent = f.noted & (noted::PAYLOAD_A | noted::PAYLOAD_B) == 0;
                let (view, ext) = split(f);
                if silent {
                    // No application spoke: what the flow's sizes suggested is no verdict.
                    ext.class.publish(Facts::NO_PAYLOAD);
                }
                arbiter.at_end(&mut ext.class);
                let mut d = Decide { arbiter, class: &mut ext.class };
                $(self.$field.end(&view, &mut ext.$field, &mut d);)*
            }

            #[inline]
            pub(crate) fn fill<'r>(&'r self, ext: &FlowExt, rec: &mut FlowRecord<'r>) {
                $(self.$field.fill(&ext.$field, rec);)*
            }

            #[inline]
            pub(crate) fn release(&mut self, ext: &mut FlowExt) {
                $(self.$field.release(&mut ext.$field);)*
            }
        }
    };
}

impl Stage {
    /// Has every classifier said it is done with the flow's packets ([`Classifier::quiet`],
    /// kept in the flow table's bit for its user: a slot has no byte to spare)? Its packets
    /// are then counted in the flow and handed to no classifier.
    #[inline]
    pub(crate) fn quiet(&self, f: &Flow<FlowExt>) -> bool {
        f.noted & noted::CALLER != 0 && !self.every_packet()
    }

    /// Are quiet flows' packets handed to the classifiers all the same (tests only)?
    #[cfg(test)]
    fn every_packet(&self) -> bool {
        self.every_packet
    }

    #[cfg(not(test))]
    #[inline(always)]
    fn every_packet(&self) -> bool {
        false
    }

    /// The statistical classifier asks and teaches the link model of the learner's hub
    /// (`--learn-stats`; nothing when off): after the stage is built, and again when the worker
    /// joins a pool's hub ([`crate::Worker::learning`]).
    pub(crate) fn link_stats(&mut self) {
        let hub = self.learned.learner.hub.clone();
        self.learned.learner.stats_box = self.stats.link(hub);
    }
}

classifiers! {
    /// Well-known ports and IP protocol numbers (`method: "port"`).
    port: port::PortClassifier,
    /// The owners of address blocks (`method: "ip"`).
    owner: owner::OwnerClassifier,
    /// Payload inspection (`method: "dpi"`): the flow's handle into the worker's DPI pools.
    dpi: dpi::DpiClassifier,
    /// What earlier flows taught: the Host Cache, DNS-learned addresses and the Dedicated Port
    /// Table (`method: "host-cache"`, `"dns-cache"`, `"dpt"`); after payload inspection, to
    /// learn from a payload verdict at the packet that reaches it.
    learned: learned::LearnedClassifier,
    /// The statistical model over the first packets (`method: "stats"`).
    stats: stats::StatsClassifier,
}
