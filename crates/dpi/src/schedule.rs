//! The scheduler: which inspectors a packet goes to and in what order. Per packet, the
//! candidate set from the transport and the ports ([`Choice`], computed once from the registry),
//! minus those the flow ruled out ([`Set`]); then the port-hinted candidates first, each at most
//! once, with the evidence of up to [`PENDING`] unsure ones kept between packets ([`run`]), or
//! the chosen inspector alone once one claimed the flow.

use crate::memo::Digests;
use crate::proto::sig::SigSet;
use crate::{
    events, matcher, proto, reasm, Cx, Dir, DpiRules, DpiStats, Expect, Hints, Inspector, LabelId,
    Meta, Probe, StateArea, PENDING, STATE_BYTES, TCP, UDP,
};
use reasm::{ReasmPool, Stream};

/// Most inspectors the registry can hold (the per-flow "ruled out" set is a fixed bitmap).
pub const MAX_INSPECTORS: usize = 512;

/// Words of a [`Set`]: as many as the registry needs (not [`MAX_INSPECTORS`]'s eight: every
/// candidate walk and set operation of every payload packet goes over them).
pub(crate) const SET_WORDS: usize = proto::REGISTRY.len().div_ceil(64);

/// A set of registry indices below [`MAX_INSPECTORS`]: a fixed 512-bit map (no allocation, a
/// copy is eight words).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Set([u64; SET_WORDS]);

impl Set {
    pub(crate) const EMPTY: Set = Set([0; SET_WORDS]);

    /// The set holding only `i` (empty when `i` is out of range).
    #[inline]
    pub(crate) fn one(i: usize) -> Set {
        let mut s = Set::EMPTY;
        if let Some(w) = s.0.get_mut(i / 64) {
            *w = 1 << (i % 64);
        }
        s
    }

    #[inline]
    pub(crate) fn is_empty(self) -> bool {
        self.0 == [0; SET_WORDS]
    }

    /// Remove and return the lowest index.
    #[cfg(test)]
    pub(crate) fn pop(&mut self) -> Option<usize> {
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

/// Run every registered inspector once on `data` with `hints` and private `state`, calling
/// `seen` with each answer and the metadata it wrote. For fuzzing and tests: it reaches every
/// parser whatever the port, which [`Dpi::inspect`] does not promise.
///
/// [`Dpi::inspect`]: crate::Dpi::inspect
pub fn probe_each(
    rules: &DpiRules,
    hints: Hints,
    data: &[u8],
    state: [u8; STATE_BYTES],
    mut seen: impl FnMut(&Inspector, Probe, &Meta),
) {
    let mut digests = crate::memo::Digests::default();
    for ins in proto::REGISTRY {
        let mut meta = Meta::default();
        let mut st = StateArea::from_bytes(state);
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
            digests: &mut digests,
            events: None,
            ev_more: false,
        };
        let r = (ins.probe)(&mut cx);
        seen(ins, r, &meta);
    }
}

/// Which inspectors a packet may go to: those of its transport, and those hinted by its ports.
#[derive(Clone, Copy)]
pub(crate) struct Select {
    pub(crate) transport: Set,
    pub(crate) hinted: Set,
    /// Left out of this datagram only, as too short for their header: still candidates for
    /// the flow's later datagrams (a first datagram cut short ends nothing).
    pub(crate) short: Set,
}

/// Per-port sets of hinted inspectors and per-transport sets, computed once from the registry.
///
/// `select` runs for every inspected packet, so it is two table loads and a few word
/// operations: before, two binary searches over the hinted ports and a walk over the
/// inspectors' minimum UDP lengths took ~500 instructions a packet, 9% of the worst case's.
pub(crate) struct Choice {
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
    pub(crate) fn new() -> Self {
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
    pub(crate) fn select(&self, transport: u8, a: u16, b: u16, len: usize) -> Select {
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
    (sigs, digests): (&SigSet, &mut Digests),
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
        digests,
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
pub(crate) fn keep(
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
pub(crate) fn run(
    (rules, digests): (&DpiRules, &mut Digests),
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
        let (r, more, ev_more, inc) = call(
            (&rules.sigs, digests),
            ins,
            ctx,
            d,
            hints,
            data,
            malformed,
            pool,
            evs,
        );
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
        digests,
        events: ev.map(|ev| events::EvCx { ev, flow }),
        ev_more: false,
    };
    // A candidate that claims the flow: the answer, and what it asked for.
    macro_rules! claim {
        ($i:expr, $l:expr, $tag:expr) => {{
            let l = Some(rules.id($i, $l, cx.state));
            *chosen = $tag;
            *label = l;
            *done = !(cx.more || cx.ev_more);
            *long = cx.long;
            *ev_more = cx.ev_more;
            // Nothing more for the record, more for transaction events.
            *ev_only = !cx.more && cx.ev_more;
            *pending = [(0, StateArea::ZERO); PENDING];
            return (l, cx.incomplete && (cx.more || cx.ev_more));
        }};
    }
    // Usually no candidate kept evidence on an earlier packet (a flow's first payload, most
    // of all an unknown one that every candidate rules itself out of): a loop without the
    // evidence slots, ~10 instructions a candidate less. (A slot filled on this packet is an
    // earlier candidate's: no lookup needed when none was filled before it.)
    let any_pending = pending.iter().any(|p| p.0 != 0);
    for part in [todo & sel.hinted, todo & !sel.hinted] {
        for (k, mut w) in part.0.into_iter().enumerate() {
            // The candidates of this word that rule themselves out, written once after it.
            let mut out = 0u64;
            while w != 0 {
                let at = w.trailing_zeros();
                w &= w - 1;
                let i = k * 64 + at as usize;
                let Some(ins) = reg.get(i) else { break };
                cx.more = false;
                cx.ev_more = false;
                cx.incomplete = false;
                let tag = (i + 1) as u16;
                if !any_pending {
                    match (ins.probe)(&mut cx) {
                        Probe::NotForUs => {
                            out |= 1 << at;
                            // A probe that ruled itself out leaves no state behind.
                            *cx.state = StateArea::ZERO;
                        }
                        Probe::Unsure => {
                            any_left = true;
                            incomplete |= cx.incomplete;
                            if *cx.state != StateArea::ZERO {
                                keep(pending, None, tag, cx.state, evidence_dropped);
                                *cx.state = StateArea::ZERO;
                            }
                        }
                        Probe::Certain(l) => {
                            if let Some(r) = ruled_out.0.get_mut(k) {
                                *r |= out;
                            }
                            claim!(i, l, tag)
                        }
                    }
                    continue;
                }
                // The evidence this candidate kept on an earlier packet, if any (the area is
                // all zero between candidates).
                let slot = pending.iter().position(|p| p.0 == tag);
                if let Some(p) = slot.and_then(|k| pending.get(k)) {
                    *cx.state = p.1;
                }
                match (ins.probe)(&mut cx) {
                    Probe::NotForUs => {
                        out |= 1 << at;
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
                        if let Some(r) = ruled_out.0.get_mut(k) {
                            *r |= out;
                        }
                        claim!(i, l, tag)
                    }
                }
            }
            if let Some(r) = ruled_out.0.get_mut(k) {
                *r |= out;
            }
        }
    }
    if !any_left && (sel.short & !ctx.ruled_out).is_empty() {
        ctx.done = true;
        ctx.excluded = true;
    }
    (None, incomplete)
}

/// Per-flow inspection context (pooled).
pub(crate) struct Ctx {
    pub(crate) ruled_out: Set,
    /// Every candidate said `NotForUs` (inspection ended by exclusion, not by the budget).
    pub(crate) excluded: bool,
    /// Every watched candidate ([`Dpi::watch`]) said `NotForUs` (told once).
    ///
    /// [`Dpi::watch`]: crate::Dpi::watch
    pub(crate) watched_out: bool,
    /// Index + 1 of the inspector that claimed the flow (0 = none yet).
    pub(crate) chosen: u16,
    pub(crate) label: Option<LabelId>,
    pub(crate) counted: bool,
    pub(crate) done: bool,
    pub(crate) pkts: [u8; 2],
    pub(crate) state: StateArea,
    /// Evidence of candidates that answered Unsure with state: (registry index + 1, state),
    /// 0 = a free slot.
    pub(crate) pending: [(u16, StateArea); PENDING],
    /// The chosen inspector follows the flow past the budget ([`Cx::want_long`]).
    pub(crate) long: bool,
    /// A connection the flow announced, not yet taken by the engine.
    pub(crate) expect: Option<Expect>,
    pub(crate) stream: [Stream; 2],
    pub(crate) meta: Meta,
    pub(crate) matches: matcher::Matches,
    /// The chosen inspector's last answer asked for packets for transaction events.
    pub(crate) ev_more: bool,
    /// Inspection for the record is over; it goes on for transaction events only.
    pub(crate) ev_only: bool,
}

impl Ctx {
    pub(crate) fn new() -> Self {
        Ctx {
            ruled_out: Set::EMPTY,
            excluded: false,
            watched_out: false,
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

    pub(crate) fn reset(&mut self) {
        self.ruled_out = Set::EMPTY;
        self.excluded = false;
        self.watched_out = false;
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
