//! The inspector contract: what a protocol inspector is ([`Inspector`]), what it sees and may
//! write for a packet ([`Cx`], [`Hints`], its [`StateArea`]), and what it answers ([`Probe`],
//! [`Expect`]): what the protocols under `proto/` are written against.

use crate::proto::sig::SigSet;
use crate::{events, reasm, Field, Label, Meta};
use std::net::IpAddr;

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
///
/// [`DpiStats::evidence_dropped`]: crate::DpiStats::evidence_dropped
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
    ///
    /// [`proto::sig::BY_SIGNATURE`]: crate::proto::sig::BY_SIGNATURE
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
///
/// [`Dpi::take_expect`]: crate::Dpi::take_expect
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
    pub(crate) state: &'a mut StateArea,
    /// For UDP flows: a bounded buffer for data the inspector must gather across datagrams (a
    /// QUIC ClientHello over two Initial packets). None for TCP, and when no buffer is free.
    pub stash: Option<reasm::Stash<'a>>,
    pub(crate) more: bool,
    pub(crate) incomplete: bool,
    pub(crate) long: bool,
    pub(crate) malformed: &'a mut u64,
    /// A connection this flow announced (one at a time: a later one replaces it).
    pub(crate) expect: &'a mut Option<Expect>,
    /// The run's byte signatures (read by the `sig` inspector).
    pub(crate) sigs: &'a SigSet,
    /// The worker's memo of fingerprint digests.
    pub(crate) digests: &'a mut crate::memo::Digests,
    /// Transaction events, when the run writes them ([`Dpi::enable_events`]).
    pub(crate) events: Option<events::EvCx<'a>>,
    /// The inspector asked for packets for transaction events ([`Cx::want_events`]).
    pub(crate) ev_more: bool,
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
///
/// [`proto::REGISTRY`]: crate::proto::REGISTRY
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

impl Inspector {
    /// Is either end-point of the flow on one of [`Inspector::ports`]? (What the scheduler
    /// asks of a `ports_required` inspector before its probe; such probes ask it too.)
    pub fn on_ports(&self, hints: &Hints) -> bool {
        self.ports.iter().any(|&p| hints.port(p))
    }
}
