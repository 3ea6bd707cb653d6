//! The context pool of one worker ([`Dpi`]): flow handles, the pooled per-flow contexts, the
//! per-packet driver ([`Dpi::inspect`]: context, budget, reassembly, search patterns, field
//! subscription), and the sizes and counters it runs with ([`DpiConfig`], [`DpiStats`]).

use crate::schedule::{run, Ctx, Set, MAX_INSPECTORS};
use crate::{
    events, matcher, proto, reasm, Dir, DpiRules, Expect, Field, Hints, LabelId, Meta, LONG_BUDGET,
    TCP, UDP,
};
use reasm::ReasmPool;
use std::net::IpAddr;
use std::sync::Arc;

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
    /// Compute the client fingerprints' hashes (JA3's MD5, JA4's two SHA-256, HASSH's MD5).
    /// Off (a run that keeps no fingerprint column, writes no events and subscribes to no
    /// fingerprint), each hash is written as as many `0` digits: the fields keep their length,
    /// so the metadata area's room, and every other field, are as with the hashes, and JA4's
    /// first part (which the risks read) is the same.
    pub fingerprints: bool,
    /// When the pool is full, a new flow takes the context of a flow that has held it this
    /// long (capture time, ns, from its first inspected packet) with nothing decided and
    /// nothing kept: no inspector claimed it, no metadata, no transaction open. That flow is
    /// inspected no further ([`DpiStats::reclaimed`]; its owner is told through
    /// [`Dpi::take_reclaimed`]). Without it a flood of flows no inspector can name would hold
    /// every context until those flows time out, and no flow starting meanwhile would be
    /// inspected. 0: never.
    pub reclaim_ns: u64,
}

/// Contexts looked at for one to take when the pool is full ([`DpiConfig::reclaim_ns`]): the
/// oldest of them that may be taken (their times in an array apart from the contexts: two
/// cache lines, not eight contexts).
pub const RECLAIM_PROBES: usize = 8;

impl Default for DpiConfig {
    fn default() -> Self {
        DpiConfig {
            budget: 8,
            contexts: 1 << 16,
            reasm_buffers: 1024,
            reasm_bytes: 16 * 1024,
            reasm_segments: 8,
            fingerprints: true,
            reclaim_ns: 1_000_000_000,
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
    /// Contexts a new flow took from a flow that had held one for [`DpiConfig::reclaim_ns`]
    /// with nothing decided: that flow was inspected no further.
    pub reclaimed: u64,
    /// Packets shown to inspectors.
    pub packets: u64,
    /// Malformed fields seen by inspectors.
    pub malformed: u64,
    /// Metadata values truncated to their cap, or dropped because the area was full.
    pub meta_truncated: u64,
    /// Unsure candidates' evidence dropped because [`PENDING`](crate::PENDING) others already
    /// kept theirs.
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
        self.reclaimed += o.reclaimed;
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
    /// The caller's name for the flow's place (the engine's flow-table slot): given back by
    /// [`Dpi::take_reclaimed`] when another flow takes this flow's context.
    pub owner: u32,
}

/// A flow handle with no context yet.
pub const NO_HANDLE: u32 = 0;
/// A flow handle whose inspection is over with nothing kept.
pub const DONE: u32 = u32::MAX;
/// A flow handle whose inspection is over because every candidate inspector saw its payload and
/// said [`Probe::NotForUs`], with nothing kept: see [`Dpi::ruled_out`].
///
/// [`Probe::NotForUs`]: crate::Probe::NotForUs
pub const RULED_OUT: u32 = DONE_BIT;
/// Set in a handle whose inspection is over but whose context still holds metadata: later
/// packets are turned away without touching the pool.
pub(crate) const DONE_BIT: u32 = 1 << 31;
/// Set in a handle whose inspection is over for the record but goes on for transaction events
/// ([`Cx::want_events`]).
pub(crate) const EV_BIT: u32 = 1 << 30;

/// Is inspection over for the flow with this handle (nothing more to do per packet)?
#[inline]
pub fn is_done(handle: u32) -> bool {
    handle & DONE_BIT != 0
}

/// Is inspection over for the record of the flow with this handle: done ([`is_done`]), or going
/// on only for transaction events ([`Cx::want_events`])? What inspection says of the flow no
/// longer changes.
///
/// [`Cx::want_events`]: crate::Cx::want_events
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

/// Does the flow with this handle hold a context (so it may hold metadata: [`Dpi::meta`] is
/// None for every handle that holds none)?
#[inline]
pub fn holds_context(handle: u32) -> bool {
    slot(handle).is_some()
}

/// The pool slot of a handle that has one.
#[inline]
pub(crate) fn slot(handle: u32) -> Option<usize> {
    match handle {
        NO_HANDLE | DONE | RULED_OUT => None,
        h => Some((h & !(DONE_BIT | EV_BIT)) as usize - 1),
    }
}

/// The DPI engine of one worker: a context pool, reassembly buffers and counters.
pub struct Dpi {
    cfg: DpiConfig,
    rules: Arc<DpiRules>,
    pub(crate) pool: Vec<Ctx>,
    /// By context: since when its flow holds it ([`DpiConfig::reclaim_ns`]; `u64::MAX`: it
    /// may not be taken), and its flow's owner name ([`Packet::owner`]).
    held: Vec<Held>,
    /// Where the next look for a context to take starts.
    hand: usize,
    /// The owner whose context the last [`Dpi::inspect`] took, until taken.
    reclaimed: Option<u32>,
    pub(crate) free: Vec<u32>,
    pub(crate) reasm: ReasmPool,
    /// Fingerprint digests already computed ([`crate::memo`]).
    digests: crate::memo::Digests,
    stats: DpiStats,
    subscriber: Option<Subscriber>,
    /// The connection the last inspected packet announced ([`Dpi::take_expect`]).
    announced: Option<Expect>,
    /// The inspectors [`Dpi::watch`] names, and whether the last inspected packet was the one
    /// at which all of them that could speak for its flow had ruled themselves out
    /// ([`Dpi::take_watched_out`]).
    watch: Set,
    watched_out: bool,
    /// Transaction events, when the run writes them ([`Dpi::enable_events`]).
    events: Option<Box<EventsOn>>,
}

/// What the pool keeps of a context apart from it, for finding one to take: written once a
/// flow (at its first inspected packet), never per packet.
#[derive(Clone, Copy, Debug)]
struct Held {
    /// The capture time of its flow's first inspected packet; `u64::MAX` once found not to be
    /// taken (a verdict or metadata, which stay).
    since: u64,
    owner: u32,
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
    /// written as flows need them, up to `cfg.contexts`, and reused; their memory is reserved
    /// now (address space only: a page becomes resident when a context first lands on it), so
    /// the pool never moves as it grows (growing by doubling copied what it held each time:
    /// 0.76 M instructions of the corpus mix ×2; no change in the worst case's time).
    pub fn new(cfg: DpiConfig, rules: Arc<DpiRules>) -> Self {
        // `Ctx::chosen` keeps index + 1 in a u16 (0 = none), and the bitmap holds every index.
        const { assert!(proto::REGISTRY.len() < MAX_INSPECTORS && MAX_INSPECTORS.is_multiple_of(64)) };
        let most = cfg.contexts.min(EV_BIT as usize - 1);
        Dpi {
            cfg,
            rules,
            pool: Vec::with_capacity(most),
            held: Vec::with_capacity(most),
            hand: 0,
            reclaimed: None,
            free: Vec::new(),
            reasm: ReasmPool::new(cfg.reasm_buffers, cfg.reasm_bytes, cfg.reasm_segments),
            digests: Default::default(),
            stats: DpiStats::default(),
            subscriber: None,
            announced: None,
            watch: Set::EMPTY,
            watched_out: false,
            events: None,
        }
    }

    /// Watch these inspectors (indices in [`proto::REGISTRY`]; others are ignored): from then
    /// on [`Dpi::take_watched_out`] tells, once a flow, the packet at which every watched
    /// inspector that could speak for the flow (its transport's, its ports') has seen its
    /// payload and ruled itself out, while no inspector named it. The engine watches the
    /// inspectors of the statistical model's classes: a flow whose payload all of them turned
    /// away is none of the model's classes, whatever its sizes suggest.
    pub fn watch(&mut self, inspectors: &[u16]) {
        self.watch = Set::EMPTY;
        for &i in inspectors {
            self.watch |= Set::one(usize::from(i));
        }
    }

    /// Did the packet just inspected rule out the last watched inspector that could speak for
    /// its flow ([`Dpi::watch`])? True at that one packet of the flow, then false.
    pub fn take_watched_out(&mut self) -> bool {
        std::mem::take(&mut self.watched_out)
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

    /// The owner ([`Packet::owner`]) of the flow whose context the last [`Dpi::inspect`] gave
    /// to its packet's flow ([`DpiConfig::reclaim_ns`]), once. The caller must set that flow's
    /// handle to [`DONE`] before it uses it again: the handle now names another flow's context.
    #[inline]
    pub fn take_reclaimed(&mut self) -> Option<u32> {
        // A read, no write, for every packet that took none.
        self.reclaimed?;
        self.reclaimed.take()
    }

    /// A context to take from a flow that has held it since `now - reclaim_ns` or before with
    /// nothing decided or kept: of the next [`RECLAIM_PROBES`] from the hand, the oldest whose
    /// context, read then, may be taken (one found not to is marked so: a verdict or
    /// metadata stays). Its flow's owner is kept for [`Dpi::take_reclaimed`]; the context is
    /// cleared as at a release.
    #[cold]
    fn reclaim(&mut self, now: u64) -> Option<u32> {
        let n = self.held.len();
        if self.cfg.reclaim_ns == 0 || n == 0 {
            return None;
        }
        let until = now.checked_sub(self.cfg.reclaim_ns)?;
        let probes = RECLAIM_PROBES.min(n);
        let mut found = None;
        // Oldest first among the probes: at most `probes` passes over `probes` words.
        for _ in 0..probes {
            let mut best: Option<(u64, usize)> = None;
            for k in 0..probes {
                let i = (self.hand + k) % n;
                let q = self.held[i].since;
                if q <= until && best.is_none_or(|(b, _)| q < b) {
                    best = Some((q, i));
                }
            }
            let Some((_, i)) = best else { break };
            let c = self.pool.get(i)?;
            if !c.done && c.chosen == 0 && !c.ev_only && !c.ev_more && c.meta.is_empty() {
                found = Some(i);
                break;
            }
            self.held[i].since = u64::MAX;
        }
        self.hand = (self.hand + probes) % n;
        let i = found?;
        if let Some(e) = self.events.as_deref_mut() {
            e.ev.flush(i as u32 + 1);
        }
        let c = self.pool.get_mut(i)?;
        for s in c.stream.iter_mut() {
            self.reasm.free(s);
        }
        c.reset();
        self.reclaimed = Some(self.held[i].owner);
        self.stats.reclaimed += 1;
        Some(i as u32 + 1)
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
                    let mut c = Ctx::new();
                    c.meta.no_hash = !self.cfg.fingerprints;
                    self.pool.push(c);
                    self.held.push(Held {
                        since: u64::MAX,
                        owner: 0,
                    });
                    self.pool.len() as u32
                }
                None => match self.reclaim(p.ts) {
                    Some(h) => h,
                    None => {
                        self.stats.no_context += 1;
                        *handle = DONE;
                        return None;
                    }
                },
            };
            if let Some(h) = slot(*handle).and_then(|i| self.held.get_mut(i)) {
                *h = Held {
                    since: p.ts,
                    owner: p.owner,
                };
            }
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
                        (rules, &mut self.digests),
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
                        let rd = (rules, &mut self.digests);
                        run(rd, ctx, sel, &hints, data, &mut self.stats, None, evs)
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
                (rules, &mut self.digests),
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
        if found.is_none() && ctx.chosen == 0 && !ctx.watched_out {
            // (An inspector left out of this datagram as too short is still a candidate.)
            let could = self.watch & (sel.transport | sel.short);
            if !could.is_empty() && (could & !ctx.ruled_out).is_empty() {
                ctx.watched_out = true;
                self.watched_out = true;
            }
        }
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
