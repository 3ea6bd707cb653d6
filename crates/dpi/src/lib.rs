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
//!   new flow is not inspected and [`DpiStats::no_context`] counts it. A context whose flow ended
//!   inspection with no metadata is returned to the pool at once.
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
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod ber;
pub mod events;
pub mod matcher;
mod meta;
pub mod proto;
pub mod reasm;
pub mod util;
pub mod x509;

pub use meta::{Field, Meta, META_BYTES};
pub use wirespeed_classify::{Label, LabelId, Labels};

use proto::sig::SigSet;
use reasm::{ReasmPool, Stream};
use std::net::IpAddr;
use std::sync::Arc;

/// Transport bit for TCP in [`Inspector::transports`].
pub const TCP: u8 = 1;
/// Transport bit for UDP in [`Inspector::transports`].
pub const UDP: u8 = 2;

/// Bytes of private state an inspector may keep per flow.
pub const STATE_BYTES: usize = 16;

/// How many times the budget an inspector that asked with [`Cx::want_long`] may follow a flow.
pub const LONG_BUDGET: u8 = 8;

/// Candidate inspectors per flow that may keep evidence (state) while still unsure, before one
/// claims the flow; a further candidate's evidence is dropped and counted
/// ([`DpiStats::evidence_dropped`]), and that inspector starts afresh on its next packet.
pub const PENDING: usize = 2;

/// An inspector's per-flow state: [`STATE_BYTES`] bytes, aligned to 8, that the inspector reads
/// and writes as its own plain-data type through [`Cx::state`] (all zero at the start). It is
/// kept while the inspector answers [`Probe::Unsure`] (evidence over several packets, for up to
/// [`PENDING`] candidates at once) and after it claims the flow; it is cleared when the
/// inspector answers [`Probe::NotForUs`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C, align(8))]
pub struct StateArea([u8; STATE_BYTES]);

impl StateArea {
    /// All zero: no state.
    pub const ZERO: StateArea = StateArea([0; STATE_BYTES]);

    /// An area holding `bytes` (tests and fuzzing start inspectors from arbitrary state).
    pub const fn from_bytes(bytes: [u8; STATE_BYTES]) -> Self {
        StateArea(bytes)
    }

    /// The raw bytes.
    pub const fn bytes(&self) -> &[u8; STATE_BYTES] {
        &self.0
    }

    /// The area as the inspector's state type `T` (a `#[repr(C)]` plain-data struct with
    /// `bytemuck::Pod`, at most [`STATE_BYTES`] long and aligned to at most 8: checked when
    /// the program is built).
    #[inline]
    pub fn get<T: bytemuck::Pod>(&mut self) -> &mut T {
        const {
            assert!(
                std::mem::size_of::<T>() <= STATE_BYTES && std::mem::align_of::<T>() <= 8,
                "an inspector's state must fit STATE_BYTES and align to at most 8"
            )
        };
        // The area's start is aligned to 8 and the slice is exactly T's size, so this cannot
        // fail.
        bytemuck::from_bytes_mut(&mut self.0[..std::mem::size_of::<T>()])
    }

    /// Read-only [`StateArea::get`].
    #[inline]
    pub fn view<T: bytemuck::Pod>(&self) -> &T {
        const {
            assert!(
                std::mem::size_of::<T>() <= STATE_BYTES && std::mem::align_of::<T>() <= 8,
                "an inspector's state must fit STATE_BYTES and align to at most 8"
            )
        };
        bytemuck::from_bytes(&self.0[..std::mem::size_of::<T>()])
    }
}

/// Most inspectors the registry can hold (the per-flow "ruled out" set is a fixed bitmap).
pub const MAX_INSPECTORS: usize = 512;

/// Words of a [`Set`]: as many as the registry needs (not [`MAX_INSPECTORS`]'s eight: every
/// candidate walk and set operation of every payload packet goes over them).
const SET_WORDS: usize = proto::REGISTRY.len().div_ceil(64);

/// What an inspector says about a flow after seeing a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Probe {
    /// Not this protocol: do not ask again for this flow.
    NotForUs,
    /// Could be; show me the next payload packet.
    Unsure,
    /// It is this protocol, with this label. (The `sig` inspector, whose labels come from the
    /// run's files, answers [`proto::sig::BY_SIGNATURE`] and keeps the signature's index in its
    /// state; the engine names the label. One pointer keeps a `Probe` at 8 bytes: a variant
    /// with an index made every probe's answer 16 and cost 3% of the worst case's instructions.)
    Certain(&'static Label),
}

impl Probe {
    /// The answer of a one-packet test: [`Probe::Certain`] with `label` when `ok`, else
    /// [`Probe::NotForUs`].
    #[inline]
    pub fn certain_if(ok: bool, label: &'static Label) -> Probe {
        if ok {
            Probe::Certain(label)
        } else {
            Probe::NotForUs
        }
    }
}

/// Which way a packet goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    /// From the client (the flow's initiator) to the server.
    ToServer,
    /// From the server to the client.
    ToClient,
}

/// Cheap facts about the packet, for inspectors to choose and check by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hints {
    /// [`TCP`] or [`UDP`].
    pub transport: u8,
    /// The server's port.
    pub server_port: u16,
    /// The client's port.
    pub client_port: u16,
    /// Direction of this packet.
    pub dir: Dir,
    /// Payload packets seen before this one in this direction (0 for the first).
    pub nth: u8,
    /// The server address is a multicast or broadcast address (mDNS, SSDP, LLMNR, NetBIOS).
    pub multicast: bool,
    /// The server's address (of the innermost IP header), for the few protocols nDPI names by
    /// an operator's address block as well as by payload (Apple push on 17.0.0.0/8).
    pub server_ip: IpAddr,
    /// The client's address.
    pub client_ip: IpAddr,
}

/// An address for hints and packets that have none (tests, fuzzing): 0.0.0.0.
pub const NO_ADDR: IpAddr = IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED);

impl Hints {
    /// True if either end uses `port`.
    #[inline]
    pub fn port(&self, port: u16) -> bool {
        self.server_port == port || self.client_port == port
    }
}

/// A connection that a flow announces (FTP's `PASV`/`EPSV` replies, `PORT`/`EPRT` commands):
/// a TCP connection from `client` to one of `servers` on `port`, to be named `label` however its
/// payload looks (an FTP data connection carries files, not a protocol). The engine keeps it a
/// while and names the connection when it comes ([`Dpi::take_expect`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Expect {
    /// The address the connection will come from.
    pub client: IpAddr,
    /// The address the announcement names, and the announcing flow's own server (a server
    /// behind NAT names its inside address; clients connect to the outside one). Both may be
    /// the same.
    pub servers: [IpAddr; 2],
    /// The port the connection goes to.
    pub port: u16,
    /// What to name it.
    pub label: &'static Label,
}

/// What a probe sees and may write.
pub struct Cx<'a> {
    /// Facts about this packet.
    pub hints: Hints,
    /// The payload (for TCP: the in-order stream bytes, possibly reassembled).
    pub data: &'a [u8],
    /// The flow's metadata area.
    pub meta: &'a mut Meta,
    /// Inspector-private state: read and write it with [`Cx::state`].
    state: &'a mut StateArea,
    /// For UDP flows: a bounded buffer for data the inspector must gather across datagrams (a
    /// QUIC ClientHello over two Initial packets). None for TCP, and when no buffer is free.
    pub stash: Option<reasm::Stash<'a>>,
    more: bool,
    incomplete: bool,
    long: bool,
    malformed: &'a mut u64,
    /// A connection this flow announced (one at a time: a later one replaces it).
    expect: &'a mut Option<Expect>,
    /// The run's byte signatures (read by the `sig` inspector).
    sigs: &'a SigSet,
    /// Transaction events, when the run writes them ([`Dpi::enable_events`]).
    events: Option<events::EvCx<'a>>,
    /// The inspector asked for packets for transaction events ([`Cx::want_events`]).
    ev_more: bool,
}

impl<'a> Cx<'a> {
    /// The store of transaction events ([`events`]), when the run writes them: None otherwise,
    /// and then an inspector does nothing more than for the record.
    #[inline]
    pub fn events(&mut self) -> Option<&mut events::EvCx<'a>> {
        self.events.as_mut()
    }

    /// With a [`Probe::Certain`]: when the run writes transaction events, keep feeding this
    /// flow's packets to this inspector for them (later DNS transactions, HTTP requests of a
    /// persistent connection), past the budget, for as long as it asks. Once the record needs
    /// nothing more of the flow, the inspector sees an empty metadata area whose values are
    /// discarded, and its answers name nothing: the record is the same with events or without.
    /// Without events, nothing.
    #[inline]
    pub fn want_events(&mut self) {
        self.ev_more = self.events.is_some();
    }

    /// This inspector's state for the flow, as its own plain-data type `T` (see [`StateArea`]):
    /// all zero on the inspector's first look, then as the inspector left it after its
    /// [`Probe::Unsure`] and [`Probe::Certain`] answers.
    #[inline]
    pub fn state<T: bytemuck::Pod>(&mut self) -> &mut T {
        self.state.get()
    }

    /// With a [`Probe::Certain`]: keep feeding this flow's packets to this inspector (for
    /// metadata), within the budget.
    #[inline]
    pub fn want_more(&mut self) {
        self.more = true;
    }

    /// With [`Cx::want_more`]: follow this flow past the per-flow budget, up to
    /// [`LONG_BUDGET`] times it in each direction (a control channel whose later lines matter:
    /// FTP's `PASV` replies come after the login). Bounded all the same.
    #[inline]
    pub fn want_long(&mut self) {
        self.long = true;
    }

    /// Announce a connection this flow has set up ([`Expect`]); the engine names it when it
    /// comes.
    #[inline]
    pub fn expect(&mut self, e: Expect) {
        *self.expect = Some(e);
    }

    /// With a [`Probe::Unsure`]: the message is cut at the end of this TCP segment; buffer it
    /// and show it again with the following in-order bytes appended (bounded reassembly).
    #[inline]
    pub fn incomplete(&mut self) {
        self.incomplete = true;
    }

    /// Count a malformed field (the flow is not dropped; the count shows in the summary).
    #[inline]
    pub fn malformed(&mut self) {
        *self.malformed += 1;
    }

    /// Write a metadata field (kept only if the field is still empty).
    #[inline]
    pub fn set(&mut self, f: Field, v: &[u8]) {
        self.meta.set(f, v);
    }
}

/// One protocol inspector, registered in [`proto::REGISTRY`].
#[derive(Debug)]
pub struct Inspector {
    /// Short name (the module's), for reports.
    pub name: &'static str,
    /// Transports it applies to ([`TCP`] | [`UDP`] bits).
    pub transports: u8,
    /// Ports the protocol is usually seen on: inspectors with a matching port are tried first.
    /// A hint only; the probe decides from the payload.
    pub ports: &'static [u16],
    /// Every label its probe can answer with (checked by the property tests; empty when they
    /// come from a dictionary loaded at run time, as for `sig`), the generic one first: once chosen, a later answer with another label than the first replaces the flow's
    /// label (STUN, then DTLS); the first never replaces a finer one.
    pub labels: &'static [&'static Label],
    /// Shortest UDP payload the protocol can have: shorter datagrams (always whole messages)
    /// are ruled out without calling the probe. 0 when any length may do.
    pub min_udp: u16,
    /// The protocol is only ever claimed on one of `ports` (its header alone is too weak a
    /// test): off those ports it is ruled out without calling the probe.
    pub ports_required: bool,
    /// The probe.
    pub probe: fn(&mut Cx<'_>) -> Probe,
}

/// Sizes and budgets, all fixed at start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DpiConfig {
    /// Payload packets inspected per direction before inspection stops.
    pub budget: u8,
    /// Flows inspected (or holding metadata) at once.
    pub contexts: usize,
    /// TCP reassembly buffers shared by all flows.
    pub reasm_buffers: usize,
    /// Bytes per reassembly buffer (the most of one direction's stream a probe can see at once).
    pub reasm_bytes: usize,
    /// Out-of-order segments remembered per buffer.
    pub reasm_segments: usize,
}

impl Default for DpiConfig {
    fn default() -> Self {
        DpiConfig {
            budget: 8,
            contexts: 1 << 16,
            reasm_buffers: 1024,
            reasm_bytes: 16 * 1024,
            reasm_segments: 8,
        }
    }
}

/// DPI events, every cap hit included.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DpiStats {
    /// Flows given a context.
    pub flows: u64,
    /// Flows identified.
    pub identified: u64,
    /// Flows whose budget ran out unidentified.
    pub budget_spent: u64,
    /// Flows every inspector ruled out.
    pub ruled_out: u64,
    /// Flows not inspected because the context pool was empty.
    pub no_context: u64,
    /// Packets shown to inspectors.
    pub packets: u64,
    /// Malformed fields seen by inspectors.
    pub malformed: u64,
    /// Metadata values truncated to their cap, or dropped because the area was full.
    pub meta_truncated: u64,
    /// Unsure candidates' evidence dropped because [`PENDING`] others already kept theirs.
    pub evidence_dropped: u64,
    /// Transaction events completed ([`Dpi::enable_events`]; 0 without).
    pub events: u64,
    /// Of those, completed before their answer because their flow, or the store, held too many
    /// open ones ([`events::PER_FLOW`], [`events::MAX_OPEN`]).
    pub events_early: u64,
    /// Transaction events lost for want of a free slot (see [`events::Events::dropped`]).
    pub events_dropped: u64,
    /// Reassembly events.
    pub reasm: reasm::ReasmStats,
}

impl DpiStats {
    /// Add another worker's counters.
    pub fn add(&mut self, o: &DpiStats) {
        self.flows += o.flows;
        self.identified += o.identified;
        self.budget_spent += o.budget_spent;
        self.ruled_out += o.ruled_out;
        self.no_context += o.no_context;
        self.packets += o.packets;
        self.malformed += o.malformed;
        self.meta_truncated += o.meta_truncated;
        self.evidence_dropped += o.evidence_dropped;
        self.events += o.events;
        self.events_early += o.events_early;
        self.events_dropped += o.events_dropped;
        self.reasm.add(&o.reasm);
    }
}

/// A packet as the engine hands it over.
#[derive(Clone, Copy, Debug)]
pub struct Packet<'a> {
    /// IP protocol number (6 TCP, 17 UDP; others are not inspected).
    pub ip_proto: u8,
    /// The server's port.
    pub server_port: u16,
    /// The client's port.
    pub client_port: u16,
    /// Sent by the client?
    pub from_client: bool,
    /// TCP sequence number (ignored for UDP).
    pub seq: u32,
    /// Server address is multicast or broadcast.
    pub multicast: bool,
    /// The server's address.
    pub server_ip: IpAddr,
    /// The client's address.
    pub client_ip: IpAddr,
    /// Transport payload.
    pub payload: &'a [u8],
    /// Capture time, ns (read only by transaction events).
    pub ts: u64,
    /// The engine's number for the flow, carried by its transaction events (read only by them).
    pub flow: u64,
}

/// A flow handle with no context yet.
pub const NO_HANDLE: u32 = 0;
/// A flow handle whose inspection is over with nothing kept.
pub const DONE: u32 = u32::MAX;
/// A flow handle whose inspection is over because every candidate inspector saw its payload and
/// said [`Probe::NotForUs`], with nothing kept: see [`Dpi::ruled_out`].
pub const RULED_OUT: u32 = DONE_BIT;
/// Set in a handle whose inspection is over but whose context still holds metadata: later
/// packets are turned away without touching the pool.
const DONE_BIT: u32 = 1 << 31;
/// Set in a handle whose inspection is over for the record but goes on for transaction events
/// ([`Cx::want_events`]).
const EV_BIT: u32 = 1 << 30;

/// Is inspection over for the flow with this handle (nothing more to do per packet)?
#[inline]
pub fn is_done(handle: u32) -> bool {
    handle & DONE_BIT != 0
}

/// Is inspection over for the record of the flow with this handle: done ([`is_done`]), or going
/// on only for transaction events ([`Cx::want_events`])? What inspection says of the flow no
/// longer changes.
#[inline]
pub fn inspection_over(handle: u32) -> bool {
    handle & (DONE_BIT | EV_BIT) != 0
}

/// What a payload starts with, as nDPI's checks for unnamed flows read it (ndpi_main.c at the
/// corpus's commit): `b'e'` a PE image (`MZ`, and at the little-endian offset in bytes
/// 0x3c..0x40 the signature `PE\0\0`, within the payload) or an ELF header (at least 24 bytes,
/// `\x7fELF`, version byte `e_ident[6]` at most 6), `b's'` a script (`#!/` or `#! `), 0 none.
pub fn payload_signature(d: &[u8]) -> u8 {
    if d.len() >= 0x40 && d.starts_with(b"MZ") {
        let at = u32::from_le_bytes([d[0x3c], d[0x3d], d[0x3e], d[0x3f]]) as usize;
        if at.checked_add(4).and_then(|e| d.get(at..e)) == Some(b"PE\0\0") {
            return b'e';
        }
    }
    if d.len() >= 24 && d.starts_with(b"\x7fELF") && d[6] <= 6 {
        return b'e';
    }
    if d.starts_with(b"#!/") || d.starts_with(b"#! ") {
        return b's';
    }
    0
}

/// The pool slot of a handle that has one.
#[inline]
fn slot(handle: u32) -> Option<usize> {
    match handle {
        NO_HANDLE | DONE | RULED_OUT => None,
        h => Some((h & !(DONE_BIT | EV_BIT)) as usize - 1),
    }
}

/// A set of registry indices below [`MAX_INSPECTORS`]: a fixed 512-bit map (no allocation, a
/// copy is eight words).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Set([u64; SET_WORDS]);

impl Set {
    const EMPTY: Set = Set([0; SET_WORDS]);

    /// The set holding only `i` (empty when `i` is out of range).
    #[inline]
    fn one(i: usize) -> Set {
        let mut s = Set::EMPTY;
        if let Some(w) = s.0.get_mut(i / 64) {
            *w = 1 << (i % 64);
        }
        s
    }

    #[inline]
    fn is_empty(self) -> bool {
        self.0 == [0; SET_WORDS]
    }

    /// Remove and return the lowest index.
    #[cfg(test)]
    fn pop(&mut self) -> Option<usize> {
        for (k, w) in self.0.iter_mut().enumerate() {
            if *w != 0 {
                let i = w.trailing_zeros() as usize;
                *w &= *w - 1;
                return Some(k * 64 + i);
            }
        }
        None
    }
}

impl std::ops::BitOr for Set {
    type Output = Set;
    #[inline]
    fn bitor(self, o: Set) -> Set {
        Set(std::array::from_fn(|k| self.0[k] | o.0[k]))
    }
}

impl std::ops::BitAnd for Set {
    type Output = Set;
    #[inline]
    fn bitand(self, o: Set) -> Set {
        Set(std::array::from_fn(|k| self.0[k] & o.0[k]))
    }
}

impl std::ops::Not for Set {
    type Output = Set;
    #[inline]
    fn not(self) -> Set {
        Set(self.0.map(|w| !w))
    }
}

impl std::ops::BitOrAssign for Set {
    #[inline]
    fn bitor_assign(&mut self, o: Set) {
        *self = *self | o;
    }
}

impl std::ops::BitAndAssign for Set {
    #[inline]
    fn bitand_assign(&mut self, o: Set) {
        *self = *self & o;
    }
}

/// Per-flow inspection context (pooled).
struct Ctx {
    ruled_out: Set,
    /// Every candidate said `NotForUs` (inspection ended by exclusion, not by the budget).
    excluded: bool,
    /// Index + 1 of the inspector that claimed the flow (0 = none yet).
    chosen: u16,
    label: Option<LabelId>,
    counted: bool,
    done: bool,
    pkts: [u8; 2],
    state: StateArea,
    /// Evidence of candidates that answered Unsure with state: (registry index + 1, state),
    /// 0 = a free slot.
    pending: [(u16, StateArea); PENDING],
    /// The chosen inspector follows the flow past the budget ([`Cx::want_long`]).
    long: bool,
    /// A connection the flow announced, not yet taken by the engine.
    expect: Option<Expect>,
    stream: [Stream; 2],
    meta: Meta,
    matches: matcher::Matches,
    /// The chosen inspector's last answer asked for packets for transaction events.
    ev_more: bool,
    /// Inspection for the record is over; it goes on for transaction events only.
    ev_only: bool,
}

impl Ctx {
    fn new() -> Self {
        Ctx {
            ruled_out: Set::EMPTY,
            excluded: false,
            chosen: 0,
            label: None,
            counted: false,
            done: false,
            pkts: [0; 2],
            state: StateArea::ZERO,
            pending: [(0, StateArea::ZERO); PENDING],
            long: false,
            expect: None,
            stream: [Stream::default(); 2],
            meta: Meta::default(),
            matches: matcher::Matches::default(),
            ev_more: false,
            ev_only: false,
        }
    }

    fn reset(&mut self) {
        self.ruled_out = Set::EMPTY;
        self.excluded = false;
        self.chosen = 0;
        self.label = None;
        self.counted = false;
        self.done = false;
        self.pkts = [0; 2];
        self.state = StateArea::ZERO;
        self.pending = [(0, StateArea::ZERO); PENDING];
        self.long = false;
        self.expect = None;
        self.stream = [Stream::default(); 2];
        self.meta.clear();
        self.matches = matcher::Matches::default();
        self.ev_more = false;
        self.ev_only = false;
    }
}

/// Why a run's inspection rules could not be built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RulesError {
    /// The signature text (the message names its line).
    Signatures(String),
    /// The pattern text (the message names its line).
    Patterns(String),
    /// The labels would not fit the registry.
    Labels(String),
}

impl std::fmt::Display for RulesError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RulesError::Signatures(m) | RulesError::Patterns(m) | RulesError::Labels(m) => {
                f.write_str(m)
            }
        }
    }
}

impl std::error::Error for RulesError {}

/// What payload inspection knows in one run, shared read-only by its workers: the inspectors'
/// candidate tables, the byte signatures (built-in and the run's files), the payload search
/// patterns, and the run's label id of every label an inspector or signature can answer with.
/// Nothing of it is global: two runs in one process each inspect with their own.
pub struct DpiRules {
    choice: Choice,
    sigs: SigSet,
    /// The label of each signature, in file order.
    sig_ids: Box<[LabelId]>,
    matcher: Option<matcher::Matcher>,
    /// Per inspector (registry order), the id of each of its `labels`.
    ids: Box<[Box<[LabelId]>]>,
}

impl std::fmt::Debug for DpiRules {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DpiRules")
            .field("inspectors", &self.ids.len())
            .field("signatures", &self.sigs.len())
            .field("patterns", &self.matcher.is_some())
            .finish()
    }
}

impl DpiRules {
    /// The built-in inspectors and signatures, no search patterns; labels interned in `labels`.
    pub fn builtin(labels: &mut Labels) -> Result<Self, RulesError> {
        DpiRules::new(labels, None, None)
    }

    /// The built-in inspectors and signatures, followed by `signatures` (a file's text in the
    /// format of `signatures.txt`: tried after the built-in ones), and the payload search
    /// `patterns` (a pattern file's text, [`matcher`]). Errors name the line of the text given.
    pub fn new(
        labels: &mut Labels,
        signatures: Option<&str>,
        patterns: Option<&str>,
    ) -> Result<Self, RulesError> {
        let sigs = match signatures {
            Some(user) => {
                // Checked alone first, so errors give the user's line numbers.
                SigSet::parse(user, proto::sig::SEED).map_err(RulesError::Signatures)?;
                SigSet::parse(
                    &format!("{}\n{user}", proto::sig::BUILTIN),
                    proto::sig::SEED,
                )
                .map_err(RulesError::Signatures)?
            }
            None => SigSet::parse(proto::sig::BUILTIN, proto::sig::SEED)
                .map_err(RulesError::Signatures)?,
        };
        let label_err = |e: wirespeed_classify::LabelError| RulesError::Labels(e.to_string());
        let sig_ids = sigs
            .sigs()
            .iter()
            .map(|s| labels.intern(&s.master, &s.master, &s.category, Default::default()))
            .collect::<Result<_, _>>()
            .map_err(label_err)?;
        let ids = proto::REGISTRY
            .iter()
            .map(|ins| ins.labels.iter().map(|l| labels.intern_label(l)).collect())
            .collect::<Result<_, _>>()
            .map_err(label_err)?;
        let matcher = patterns
            .map(matcher::Matcher::new)
            .transpose()
            .map_err(RulesError::Patterns)?;
        Ok(DpiRules {
            choice: Choice::new(),
            sigs,
            sig_ids,
            matcher,
            ids,
        })
    }

    /// The run's byte signatures.
    pub fn signatures(&self) -> &SigSet {
        &self.sigs
    }

    /// The run's payload search patterns, if it has any.
    pub fn matcher(&self) -> Option<&matcher::Matcher> {
        self.matcher.as_ref()
    }

    /// The label id of inspector `i`'s answer `l`, with the inspector's `state`. A label
    /// missing from the inspector's `labels` (the property tests forbid it) is looked for among
    /// every inspector's, and is Unknown if none has it.
    fn id(&self, i: usize, l: &'static Label, state: &StateArea) -> LabelId {
        if std::ptr::eq(l, &proto::sig::BY_SIGNATURE) {
            let k = proto::sig::chosen(state);
            return self.sig_ids.get(k).copied().unwrap_or(LabelId::UNKNOWN);
        }
        // The inspector's own list, by address: a few pointer compares.
        let own = proto::REGISTRY.get(i).and_then(|ins| {
            let k = ins.labels.iter().position(|x| std::ptr::eq(*x, l))?;
            self.ids.get(i)?.get(k).copied()
        });
        own.unwrap_or_else(|| self.id_by_name(l))
    }

    /// The slow path of [`DpiRules::id`]: a label no list holds by address, by its names.
    #[cold]
    fn id_by_name(&self, l: &Label) -> LabelId {
        proto::REGISTRY
            .iter()
            .zip(self.ids.iter())
            .find_map(|(ins, ids)| {
                let k = ins.labels.iter().position(|x| **x == *l)?;
                ids.get(k).copied()
            })
            .unwrap_or(LabelId::UNKNOWN)
    }

    /// The id of inspector `i`'s generic (first) label.
    fn generic(&self, i: usize) -> Option<LabelId> {
        self.ids.get(i).and_then(|ids| ids.first().copied())
    }
}

/// The DPI engine of one worker: a context pool, reassembly buffers and counters.
pub struct Dpi {
    cfg: DpiConfig,
    rules: Arc<DpiRules>,
    pool: Vec<Ctx>,
    free: Vec<u32>,
    reasm: ReasmPool,
    stats: DpiStats,
    subscriber: Option<Subscriber>,
    /// The connection the last inspected packet announced ([`Dpi::take_expect`]).
    announced: Option<Expect>,
    /// Transaction events, when the run writes them ([`Dpi::enable_events`]).
    events: Option<Box<EventsOn>>,
}

/// The transaction events of a [`Dpi`], and the metadata area an inspector writes to once the
/// record needs nothing more of its flow (empty, discarded).
struct EventsOn {
    ev: events::Events,
    scratch: Meta,
}

/// A field subscription: the fields wanted (a bit per [`Field`]) and the callback.
struct Subscriber {
    fields: u64,
    call: Box<FieldCallback>,
}

/// A field subscriber's callback: the field and its value.
type FieldCallback = dyn FnMut(Field, &str) + Send;

impl Dpi {
    /// A DPI engine with `cfg`'s sizes, inspecting with the run's `rules`. Contexts are
    /// allocated as flows need them, up to `cfg.contexts`, and reused.
    pub fn new(cfg: DpiConfig, rules: Arc<DpiRules>) -> Self {
        // `Ctx::chosen` keeps index + 1 in a u16 (0 = none), and the bitmap holds every index.
        const { assert!(proto::REGISTRY.len() < MAX_INSPECTORS && MAX_INSPECTORS.is_multiple_of(64)) };
        Dpi {
            cfg,
            rules,
            pool: Vec::new(),
            free: Vec::new(),
            reasm: ReasmPool::new(cfg.reasm_buffers, cfg.reasm_bytes, cfg.reasm_segments),
            stats: DpiStats::default(),
            subscriber: None,
            announced: None,
            events: None,
        }
    }

    /// Write transaction events ([`events`]): the inspectors that know them (DNS, HTTP, TLS)
    /// add them as they parse, and [`Dpi::events`] holds them until taken. Allocates the
    /// store once; without this call nothing of it runs.
    pub fn enable_events(&mut self) {
        self.events = Some(Box::new(EventsOn {
            ev: events::Events::new(),
            scratch: Meta::default(),
        }));
    }

    /// The store of transaction events, when enabled: take its complete transactions
    /// ([`events::Events::ready`], then [`events::Events::clear_ready`]) after each packet and
    /// after each [`Dpi::release`].
    #[inline]
    pub fn events(&mut self) -> Option<&mut events::Events> {
        self.events.as_deref_mut().map(|e| &mut e.ev)
    }

    /// Call `call` with the value of one of `fields` when an inspector first sets it on a flow
    /// (once per field and flow; a later replacement, as of a DNS name taken from a response
    /// before the query showed, is not reported again). One subscriber per engine;
    /// a second call replaces the first. Without a subscriber this costs one branch a packet.
    pub fn subscribe(&mut self, fields: &[Field], call: impl FnMut(Field, &str) + Send + 'static) {
        const { assert!(Field::COUNT <= 64) };
        let fields = fields.iter().fold(0u64, |m, f| m | 1 << (*f as u8));
        self.subscriber = Some(Subscriber {
            fields,
            call: Box::new(call),
        });
    }

    /// Counters so far.
    pub fn stats(&self) -> DpiStats {
        let mut s = self.stats;
        s.reasm = self.reasm.stats;
        if let Some(e) = &self.events {
            (s.events, s.events_early, s.events_dropped) =
                (e.ev.completed, e.ev.early, e.ev.dropped);
        }
        s
    }

    /// The metadata of the flow with `handle`, if it holds any.
    pub fn meta(&self, handle: u32) -> Option<&Meta> {
        self.pool.get(slot(handle)?).map(|c| &c.meta)
    }

    /// The connection the packet just inspected announced, if any ([`Expect`]), with its
    /// label's id in the run's registry: taken once.
    pub fn take_expect(&mut self) -> Option<(Expect, LabelId)> {
        let e = self.announced.take()?;
        Some((e, self.rules.id_by_name(e.label)))
    }

    /// Did inspection of the flow with this handle end because every inspector that could speak
    /// for it saw its payload and ruled itself out? Then no protocol this engine knows by payload
    /// is the flow's, and a guess from elsewhere (the statistical model) must not name one.
    /// False while inspection goes on, when it identified the flow, when it stopped at the
    /// per-flow budget with inspectors still unsure, and when it never started.
    pub fn ruled_out(&self, handle: u32) -> bool {
        handle == RULED_OUT
            || slot(handle)
                .and_then(|i| self.pool.get(i))
                .is_some_and(|c| c.excluded && c.chosen == 0)
    }

    /// The flow ended: return its context (and buffers) to the pools.
    pub fn release(&mut self, handle: &mut u32) {
        let h = *handle;
        *handle = DONE;
        let Some(i) = slot(h) else {
            return;
        };
        if let Some(e) = self.events.as_deref_mut() {
            e.ev.flush(i as u32 + 1);
        }
        if let Some(c) = self.pool.get_mut(i) {
            for s in c.stream.iter_mut() {
                self.reasm.free(s);
            }
            c.reset();
            self.free.push(i as u32 + 1);
        }
    }

    /// Inspect one packet of the flow with `handle`. Returns the label on the packet that
    /// identified the flow, and again if the chosen inspector later names it more finely (STUN,
    /// then DTLS on the same flow): the newer label replaces the older.
    pub fn inspect(&mut self, handle: &mut u32, p: &Packet<'_>) -> Option<LabelId> {
        if is_done(*handle) || p.payload.is_empty() {
            return None;
        }
        let transport = match p.ip_proto {
            6 => TCP,
            17 => UDP,
            _ => {
                *handle = DONE;
                return None;
            }
        };
        if *handle == NO_HANDLE {
            *handle = match self.free.pop() {
                Some(h) => h,
                None if self.pool.len() < self.cfg.contexts.min(EV_BIT as usize - 1) => {
                    self.pool.push(Ctx::new());
                    self.pool.len() as u32
                }
                None => {
                    self.stats.no_context += 1;
                    *handle = DONE;
                    return None;
                }
            };
            self.stats.flows += 1;
        }
        let Some(ctx) = slot(*handle).and_then(|i| self.pool.get_mut(i)) else {
            *handle = DONE;
            return None;
        };
        if ctx.done {
            return None;
        }
        let d = usize::from(!p.from_client);
        let hints = Hints {
            transport,
            server_port: p.server_port,
            client_port: p.client_port,
            dir: if p.from_client {
                Dir::ToServer
            } else {
                Dir::ToClient
            },
            nth: ctx.pkts[d],
            multicast: p.multicast,
            server_ip: p.server_ip,
            client_ip: p.client_ip,
        };
        ctx.pkts[d] = ctx.pkts[d].saturating_add(1);
        // Packets inspected for transaction events only are not the record's: not counted.
        let ev_only = ctx.ev_only;
        self.stats.packets += u64::from(!ev_only);
        let (mut ev, mut scratch, flow) = match self.events.as_deref_mut() {
            Some(e) => {
                e.ev.now = p.ts;
                e.ev.who = events::Who {
                    flow: p.flow,
                    client: (p.client_ip, p.client_port),
                    server: (p.server_ip, p.server_port),
                    ip_proto: p.ip_proto,
                };
                let flow = slot(*handle).map_or(0, |i| i as u32 + 1);
                (Some(&mut e.ev), Some(&mut e.scratch), flow)
            }
            None => (None, None, 0),
        };
        let before = ctx.meta.truncated;
        let had = match self.subscriber {
            Some(_) => ctx.meta.present(),
            None => 0,
        };
        let rules = &*self.rules;
        let sel = rules
            .choice
            .select(transport, p.server_port, p.client_port, p.payload.len());
        let found = if transport == TCP {
            // In-order bytes only; a segment that completes buffered data shows the whole.
            match self.reasm.accept(&mut ctx.stream[d], p.seq, p.payload) {
                reasm::Deliver::Nothing => None,
                reasm::Deliver::Direct => {
                    let evs = (ev.take(), scratch.take(), flow);
                    let (f, inc) = run(
                        rules,
                        ctx,
                        sel,
                        &hints,
                        p.payload,
                        &mut self.stats,
                        None,
                        evs,
                    );
                    if inc {
                        self.reasm.start(&mut ctx.stream[d], p.seq, p.payload);
                    }
                    f
                }
                reasm::Deliver::Buffered => {
                    let (f, inc) = {
                        let data = self.reasm.data(&ctx.stream[d]);
                        let evs = (ev.take(), scratch.take(), flow);
                        run(rules, ctx, sel, &hints, data, &mut self.stats, None, evs)
                    };
                    if !inc {
                        self.reasm.free(&mut ctx.stream[d]);
                    }
                    f
                }
            }
        } else {
            let pool = Some(&mut self.reasm);
            let evs = (ev.take(), scratch.take(), flow);
            run(
                rules,
                ctx,
                sel,
                &hints,
                p.payload,
                &mut self.stats,
                pool,
                evs,
            )
            .0
        };
        // nDPI's checks after its dissectors, on the first five payload packets of a flow
        // still unnamed: a script or an executable sent as is.
        if found.is_none()
            && ctx.chosen == 0
            && u16::from(ctx.pkts[0]) + u16::from(ctx.pkts[1]) <= 5
        {
            let letter = payload_signature(p.payload);
            if letter != 0 {
                ctx.meta.add_letter(Field::PayloadFlags, letter, b"es");
            }
        }
        if let Some(sub) = &mut self.subscriber {
            for (f, v) in ctx.meta.iter() {
                let bit = 1 << (f as u8 & 63);
                if sub.fields & bit != 0 && had & bit == 0 {
                    (sub.call)(f, v);
                }
            }
        }
        if let Some(m) = rules.matcher().filter(|_| !ev_only) {
            // The packet as received (not the reassembled stream), while inspection lasts.
            let was = ctx.matches;
            m.scan(p.payload, &mut ctx.matches);
            if ctx.matches != was {
                let mut buf = [0u8; 255];
                let n = matcher::format(ctx.matches, &mut buf);
                ctx.meta
                    .replace(Field::Matches, buf.get(..n).unwrap_or_default());
            }
        }
        self.stats.meta_truncated += u64::from(ctx.meta.truncated.saturating_sub(before));
        if ctx.done && ctx.chosen == 0 {
            self.stats.ruled_out += 1;
        }
        if found.is_some() && !ctx.counted {
            ctx.counted = true;
            self.stats.identified += 1;
        }
        let budget = if ctx.long {
            self.cfg.budget.saturating_mul(LONG_BUDGET)
        } else {
            self.cfg.budget
        };
        if !ctx.done && ctx.pkts[0] >= budget && ctx.pkts[1] >= budget {
            // The record's budget is spent; transaction events go on while the inspector asks
            // (what it then writes is discarded, see `call`).
            if ctx.ev_more {
                ctx.ev_only = true;
            } else {
                ctx.done = true;
                if ctx.chosen == 0 {
                    self.stats.budget_spent += 1;
                }
            }
        }
        if !ctx.done
            && ctx.chosen == 0
            && (ctx.pkts[0] >= self.cfg.budget.saturating_mul(2)
                || ctx.pkts[1] >= self.cfg.budget.saturating_mul(2))
        {
            // One-way flows: twice the budget in one direction ends it too.
            ctx.done = true;
            self.stats.budget_spent += 1;
        }
        if let Some(e) = ctx.expect.take().filter(|_| !ev_only) {
            self.announced = Some(e);
        }
        if ctx.ev_only {
            *handle |= EV_BIT;
        }
        if ctx.done {
            if let Some(e) = self.events.as_deref_mut() {
                // Inspection of the flow ends: its open transactions are complete as they are.
                e.ev.flush(flow);
            }
            for s in ctx.stream.iter_mut() {
                self.reasm.free(s);
            }
            if ctx.meta.is_empty() {
                let excluded = ctx.excluded && ctx.chosen == 0;
                self.release(handle);
                *handle = if excluded { RULED_OUT } else { DONE };
            } else {
                *handle |= DONE_BIT;
            }
        }
        found
    }
}

/// Run every registered inspector once on `data` with `hints` and private `state`, calling
/// `seen` with each answer and the metadata it wrote. For fuzzing and tests: it reaches every
/// parser whatever the port, which [`Dpi::inspect`] does not promise.
pub fn probe_each(
    rules: &DpiRules,
    hints: Hints,
    data: &[u8],
    state: [u8; STATE_BYTES],
    mut seen: impl FnMut(&Inspector, Probe, &Meta),
) {
    for ins in proto::REGISTRY {
        let mut meta = Meta::default();
        let mut st = StateArea(state);
        let mut bad = 0;
        let mut expect = None;
        let mut cx = Cx {
            hints,
            data,
            meta: &mut meta,
            state: &mut st,
            stash: None,
            more: false,
            incomplete: false,
            long: false,
            malformed: &mut bad,
            expect: &mut expect,
            sigs: &rules.sigs,
            events: None,
            ev_more: false,
        };
        let r = (ins.probe)(&mut cx);
        seen(ins, r, &meta);
    }
}

/// Which inspectors a packet may go to: those of its transport, and those hinted by its ports.
#[derive(Clone, Copy)]
struct Select {
    transport: Set,
    hinted: Set,
    /// Left out of this datagram only, as too short for their header: still candidates for
    /// the flow's later datagrams (a first datagram cut short ends nothing).
    short: Set,
}

/// Per-port sets of hinted inspectors and per-transport sets, computed once from the registry.
///
/// `select` runs for every inspected packet, so it is two table loads and a few word
/// operations: before, two binary searches over the hinted ports and a walk over the
/// inspectors' minimum UDP lengths took ~500 instructions a packet, 9% of the worst case's.
struct Choice {
    /// Index into `sets` of each port's hinted inspectors (0: none), by port number.
    port_set: Box<[u16]>,
    /// The distinct sets of inspectors naming a port; `sets[0]` is empty.
    sets: Vec<Set>,
    tcp: Set,
    udp: Set,
    /// Inspectors that need one of their ports.
    port_bound: Set,
    /// By UDP payload length, while shorter than the longest minimum: the inspectors whose
    /// fixed header does not fit.
    short_by_len: Vec<Set>,
}

impl Choice {
    fn new() -> Self {
        let mut ports: Vec<(u16, Set)> = Vec::new();
        let (mut tcp, mut udp, mut port_bound) = (Set::EMPTY, Set::EMPTY, Set::EMPTY);
        let longest = proto::REGISTRY.iter().map(|i| i.min_udp).max().unwrap_or(0);
        let mut short_by_len = vec![Set::EMPTY; usize::from(longest)];
        for (i, ins) in proto::REGISTRY.iter().enumerate().take(MAX_INSPECTORS) {
            if ins.transports & TCP != 0 {
                tcp |= Set::one(i);
            }
            if ins.transports & UDP != 0 {
                udp |= Set::one(i);
            }
            if ins.ports_required {
                port_bound |= Set::one(i);
            }
            for short in short_by_len.iter_mut().take(usize::from(ins.min_udp)) {
                *short |= Set::one(i);
            }
            for &p in ins.ports {
                match ports.binary_search_by_key(&p, |e| e.0) {
                    Ok(k) => ports[k].1 |= Set::one(i),
                    Err(k) => ports.insert(k, (p, Set::one(i))),
                }
            }
        }
        let mut sets = vec![Set::EMPTY];
        let mut port_set = vec![0u16; 1 << 16].into_boxed_slice();
        for (p, s) in ports {
            let k = sets.iter().position(|t| *t == s).unwrap_or_else(|| {
                sets.push(s);
                sets.len() - 1
            });
            // At most one set per named port: far below 65,536.
            port_set[usize::from(p)] = k as u16;
        }
        Choice {
            port_set,
            sets,
            tcp,
            udp,
            port_bound,
            short_by_len,
        }
    }

    #[inline]
    fn hint(&self, port: u16) -> Set {
        let k = self.port_set.get(usize::from(port)).copied().unwrap_or(0);
        self.sets.get(usize::from(k)).copied().unwrap_or(Set::EMPTY)
    }

    #[inline]
    fn select(&self, transport: u8, a: u16, b: u16, len: usize) -> Select {
        let hinted = self.hint(a) | self.hint(b);
        let mut allowed = if transport == TCP { self.tcp } else { self.udp };
        allowed &= hinted | !self.port_bound;
        let mut short = Set::EMPTY;
        if transport == UDP {
            // Datagrams too short for a protocol's fixed header.
            if let Some(&too_long) = self.short_by_len.get(len) {
                short = allowed & too_long;
                allowed &= !too_long;
            }
        }
        Select {
            transport: allowed,
            hinted,
            short,
        }
    }
}

/// Transaction events for a probe: the store, the metadata area to write to once the record
/// needs nothing more of the flow, and the flow's number in the store.
type EvArgs<'e> = (Option<&'e mut events::Events>, Option<&'e mut Meta>, u32);

/// Run `ins`'s probe on `data` with the flow's metadata, state and (UDP) stash for direction
/// `d`: its answer, whether it asked for more packets for the record and for transaction
/// events, and whether it asked for more bytes. Once the flow is inspected for events only
/// (`ctx.ev_only`), the probe sees an empty metadata area, discarded (clearing it costs
/// nothing, a copy of the flow's would cost every such packet), and what it counts as
/// malformed is not counted.
#[allow(clippy::too_many_arguments)]
fn call(
    sigs: &SigSet,
    ins: &Inspector,
    ctx: &mut Ctx,
    d: usize,
    hints: &Hints,
    data: &[u8],
    malformed: &mut u64,
    pool: Option<&mut ReasmPool>,
    (ev, scratch, flow): EvArgs<'_>,
) -> (Probe, bool, bool, bool) {
    let mut uncounted = 0;
    let (meta, malformed) = match scratch {
        Some(m) if ctx.ev_only => {
            m.clear();
            (m, &mut uncounted)
        }
        _ => (&mut ctx.meta, malformed),
    };
    let mut cx = Cx {
        hints: *hints,
        data,
        meta,
        state: &mut ctx.state,
        stash: pool.map(|p| reasm::Stash::new(p, &mut ctx.stream[d])),
        more: false,
        incomplete: false,
        long: false,
        malformed,
        expect: &mut ctx.expect,
        sigs,
        events: ev.map(|ev| events::EvCx { ev, flow }),
        ev_more: false,
    };
    let r = (ins.probe)(&mut cx);
    let (more, ev_more, incomplete, long) = (cx.more, cx.ev_more, cx.incomplete, cx.long);
    if !ctx.ev_only {
        ctx.long |= long;
    }
    (r, more, ev_more, incomplete)
}

/// Keep an unsure candidate's evidence `state` in its slot (`slot`, or a free one; none free:
/// dropped and counted). All-zero evidence frees the slot.
fn keep(
    pending: &mut [(u16, StateArea); PENDING],
    slot: Option<usize>,
    tag: u16,
    state: &StateArea,
    dropped: &mut u64,
) {
    let entry = if *state == StateArea::ZERO {
        (0, StateArea::ZERO)
    } else {
        (tag, *state)
    };
    match slot.or_else(|| pending.iter().position(|p| p.0 == 0)) {
        Some(k) => {
            if let Some(p) = pending.get_mut(k) {
                *p = entry;
            }
        }
        None => *dropped += 1,
    }
}

/// Show `data` to the chosen inspector, or to every candidate not yet ruled out (port-hinted
/// ones first). Returns the label if identified now, and whether a probe asked for more bytes.
#[allow(clippy::too_many_arguments)]
fn run(
    rules: &DpiRules,
    ctx: &mut Ctx,
    sel: Select,
    hints: &Hints,
    data: &[u8],
    stats: &mut DpiStats,
    pool: Option<&mut ReasmPool>,
    evs: EvArgs<'_>,
) -> (Option<LabelId>, bool) {
    let DpiStats {
        malformed,
        evidence_dropped,
        ..
    } = stats;
    let d = usize::from(hints.dir == Dir::ToClient);
    let reg = proto::REGISTRY;
    if ctx.chosen != 0 {
        let Some(ins) = reg.get(ctx.chosen as usize - 1) else {
            ctx.done = true;
            return (None, false);
        };
        let i = ctx.chosen as usize - 1;
        let (r, more, ev_more, inc) =
            call(&rules.sigs, ins, ctx, d, hints, data, malformed, pool, evs);
        ctx.ev_more = ev_more;
        if ctx.ev_only {
            // For transaction events only: the answer names nothing; ruling itself out, or
            // wanting nothing more, ends it.
            match r {
                Probe::Certain(_) => ctx.done = !(more || ev_more),
                Probe::NotForUs => ctx.done = true,
                Probe::Unsure => {}
            }
            return (None, inc);
        }
        let mut refined = None;
        match r {
            Probe::Certain(l) => {
                ctx.done = !(more || ev_more);
                // Nothing more for the record, more for transaction events: from now on.
                ctx.ev_only = !more && ev_more;
                // A finer answer than before (STUN, then DTLS on the same flow): report it. The
                // inspector's first label is its generic one and never replaces a finer one.
                let l = Some(rules.id(i, l, &ctx.state));
                let generic = !ins.labels.is_empty() && l == rules.generic(i);
                if !generic && ctx.label.is_some_and(|old| Some(old) != l) {
                    ctx.label = l;
                    refined = l;
                }
            }
            Probe::NotForUs => ctx.done = true,
            Probe::Unsure => {}
        }
        return (refined, inc);
    }
    let mut incomplete = false;
    let mut any_left = false;
    // Port-hinted inspectors first, then the transport's others; each at most once. One
    // context serves every candidate (building it per call was a fifth of this loop), and the
    // set is walked a word at a time: each step clears a bit, so it ends after 512 at most.
    let todo = sel.transport & !ctx.ruled_out;
    let Ctx {
        ruled_out,
        chosen,
        label,
        done,
        state,
        pending,
        long,
        expect,
        stream,
        meta,
        ev_more,
        ev_only,
        ..
    } = ctx;
    let (ev, _, flow) = evs;
    let mut cx = Cx {
        hints: *hints,
        data,
        meta,
        state,
        stash: pool.map(|p| reasm::Stash::new(p, &mut stream[d])),
        more: false,
        incomplete: false,
        long: false,
        malformed,
        expect,
        sigs: &rules.sigs,
        events: ev.map(|ev| events::EvCx { ev, flow }),
        ev_more: false,
    };
    let any_pending = pending.iter().any(|p| p.0 != 0);
    for part in [todo & sel.hinted, todo & !sel.hinted] {
        for (k, mut w) in part.0.into_iter().enumerate() {
            while w != 0 {
                let bit = w & w.wrapping_neg();
                w ^= bit;
                let i = k * 64 + bit.trailing_zeros() as usize;
                let Some(ins) = reg.get(i) else { break };
                cx.more = false;
                cx.ev_more = false;
                cx.incomplete = false;
                // The evidence this candidate kept on an earlier packet, if any (the area is
                // all zero between candidates).
                let tag = (i + 1) as u16;
                // (A slot filled on this packet is an earlier candidate's: no lookup needed
                // when none was filled before it.)
                let slot = if any_pending {
                    pending.iter().position(|p| p.0 == tag)
                } else {
                    None
                };
                if let Some(p) = slot.and_then(|k| pending.get(k)) {
                    *cx.state = p.1;
                }
                match (ins.probe)(&mut cx) {
                    Probe::NotForUs => {
                        if let Some(r) = ruled_out.0.get_mut(k) {
                            *r |= bit;
                        }
                        // A probe that ruled itself out leaves no state behind.
                        if let Some(p) = slot.and_then(|k| pending.get_mut(k)) {
                            *p = (0, StateArea::ZERO);
                        }
                        *cx.state = StateArea::ZERO;
                    }
                    Probe::Unsure => {
                        any_left = true;
                        incomplete |= cx.incomplete;
                        if *cx.state != StateArea::ZERO || slot.is_some() {
                            keep(pending, slot, tag, cx.state, evidence_dropped);
                            *cx.state = StateArea::ZERO;
                        }
                    }
                    Probe::Certain(l) => {
                        let l = Some(rules.id(i, l, cx.state));
                        *chosen = tag;
                        *label = l;
                        *done = !(cx.more || cx.ev_more);
                        *long = cx.long;
                        *ev_more = cx.ev_more;
                        // Nothing more for the record, more for transaction events.
                        *ev_only = !cx.more && cx.ev_more;
                        *pending = [(0, StateArea::ZERO); PENDING];
                        return (l, cx.incomplete && (cx.more || cx.ev_more));
                    }
                }
            }
        }
    }
    if !any_left && (sel.short & !ctx.ruled_out).is_empty() {
        ctx.done = true;
        ctx.excluded = true;
    }
    (None, incomplete)
}

#[cfg(test)]
mod tests;
