//! Payload inspection (DPI): protocol inspectors over the first payload packets of a flow, the
//! metadata operators look for (names, fingerprints), and bounded TCP reassembly.
//!
//! # How it fits
//!
//! The engine calls [`Dpi::inspect`] for every packet that carries payload, with the flow's
//! `u32` handle (kept in the flow-table slot, 0 to start) and a [`Packet`] describing it. The
//! first call takes an inspection context from a fixed pool; inspection runs until an inspector
//! is [`Probe::Certain`], every inspector said [`Probe::NotForUs`], or the per-flow budget of
//! payload packets ([`DpiConfig::budget`] per direction) is spent. The verdict is returned once,
//! on the packet that decided it. The flow's [`Meta`] stays readable through [`Dpi::meta`] until
//! the engine calls [`Dpi::release`] when the flow ends.
//!
//! # Memory is bounded by configuration, never by traffic
//!
//! * At most [`DpiConfig::contexts`] flows hold a context at once (each a fixed-size
//!   [`Meta`] area of [`META_BYTES`] plus a few dozen bytes of state); when the pool is empty a
//!   new flow takes the context of a flow that has held one for [`DpiConfig::reclaim_ns`] with
//!   nothing decided or kept ([`DpiStats::reclaimed`], [`Dpi::take_reclaimed`]), else it is not
//!   inspected and [`DpiStats::no_context`] counts it. A context whose flow ended inspection
//!   with no metadata is returned to the pool at once.
//! * Metadata values are copied into the flow's [`Meta`] area, each truncated to its field's cap
//!   ([`Field::cap`]), written as tshark shows text (valid UTF-8 kept, control characters as
//!   `\ooo`, invalid sequences as U+FFFD). Nothing is allocated per packet.
//! * TCP reassembly ([`reasm`]) uses at most [`DpiConfig::reasm_buffers`] buffers of
//!   [`DpiConfig::reasm_bytes`] each, shared by all flows; every cap hit is counted.
//!
//! # Adding a protocol (one folder, one line)
//!
//! 1. Create `src/proto/<name>/mod.rs` with a `pub static INSPECTOR: Inspector` naming the
//!    protocol, its transports ([`TCP`], [`UDP`] or both), the ports it is usually seen on (a hint
//!    that orders the inspectors tried, never a verdict: the probe must check the payload), the
//!    labels it can answer with, two cheap filters applied before the probe runs (`min_udp`,
//!    `ports_required`; 0 and false when unsure), and its probe function
//!    `fn(&mut Cx) -> Probe`. The probe reads `cx.data` (the payload, or the
//!    in-order reassembled stream prefix for TCP when an earlier probe asked for more with
//!    [`Cx::incomplete`]) and `cx.hints`, and answers:
//!    * [`Probe::NotForUs`]: this flow is not the protocol; the inspector is not asked again.
//!    * [`Probe::Unsure`]: could be; ask again with the next payload packet.
//!    * [`Probe::Certain`]`(&LABEL)`: it is. Labels are `static` [`Label`]s in nDPI's vocabulary
//!      (master name and category as `ndpiReader` prints them). Call [`Cx::want_more`] before
//!      returning to keep receiving this flow's packets (only this inspector) to extract more
//!      metadata, e.g. the server's answer; stop with a `Certain` without `want_more`.
//!
//!    It writes metadata with [`Cx::set`] (first value of a field wins), may keep up to
//!    [`STATE_BYTES`] of its own state in `cx.state` once chosen, and counts malformed input with
//!    [`Cx::malformed`]. Parsers never panic: use `.get()`, cap every loop. Put unit tests with
//!    hex vectors from real captures (name the capture) in the same folder.
//! 2. Add its module name to the `protocols!` list in `src/proto/mod.rs`. The order of that list
//!    breaks ties between inspectors that both claim a packet (after the port hint).
//!
//! The fuzz target `dpi` and the property tests drive every registered inspector with arbitrary
//! bytes and hints, so a new protocol is fuzzed without further work.
//!
//! # Layout
//!
//! The framework is four private modules, re-exported here: the inspector contract
//! (`contract.rs`: [`Inspector`], [`Cx`], [`Probe`], [`Hints`], [`StateArea`]), the run's rules
//! (`rules.rs`: [`DpiRules`]), the scheduler that picks the inspectors a packet goes to
//! (`schedule.rs`: candidate sets by transport, port and length, ruled-out sets, pending
//! evidence; [`probe_each`]), and the worker's context pool and per-packet driver (`pool.rs`:
//! [`Dpi`], flow handles, [`DpiConfig`], [`DpiStats`]). The protocols are under [`proto`].
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod ber;
mod contract;
pub mod events;
pub mod matcher;
mod memo;
mod meta;
mod pool;
pub mod proto;
pub mod reasm;
mod rules;
mod schedule;
pub mod util;
pub mod x509;

pub use contract::{
    Cx, Dir, Expect, Hints, Inspector, Probe, StateArea, LONG_BUDGET, NO_ADDR, PENDING,
    STATE_BYTES, TCP, UDP,
};
pub use memo::Digests;
pub use meta::{Field, Meta, META_BYTES};
pub use pool::{
    holds_context, inspection_over, is_done, payload_signature, Dpi, DpiConfig, DpiStats, Packet,
    DONE, NO_HANDLE, RULED_OUT,
};
pub use rules::{DpiRules, RulesError};
pub use schedule::{probe_each, MAX_INSPECTORS};
pub use wirespeed_classify::{Label, LabelId, Labels};

#[cfg(test)]
mod tests;
