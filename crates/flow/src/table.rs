//! The fixed-capacity flow table.
//!
//! Layout: a slab of at most `capacity` [`Flow`]s and an open-addressing index of
//! `next_pow2(2 × capacity)` 64-bit entries (`hash32 << 32 | slot + 1`, 0 = empty), probed
//! linearly. The load factor never exceeds ½, so probe sequences stay short, and removal uses
//! backward-shift deletion (no tombstones), so the index never degrades. Both are allocated once
//! in [`FlowTable::new`]; nothing on the per-packet path allocates.

use crate::key::{FlowHasher, FlowKey, Side};
use wirespeed_wire::{ip_proto, tcp_flags, TcpInfo, Tunnel};

/// Marker for a flow whose client is not known yet (never stored: a flow's client is decided at
/// its first packet).
pub const CLIENT_UNKNOWN: u8 = 0xff;

/// Idle timeouts by transport, in nanoseconds of capture time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timeouts {
    /// TCP flows idle this long end (`idle`).
    pub tcp_ns: u64,
    /// UDP flows idle this long end.
    pub udp_ns: u64,
    /// Flows of other transports (ICMP, SCTP, ESP, …) idle this long end.
    pub other_ns: u64,
    /// A TCP flow closed by FIN in both directions or by RST lingers this long after its last
    /// packet, so trailing ACKs and retransmissions still count toward it, then ends
    /// (`fin` / `rst`).
    pub closed_ns: u64,
    /// Active timeout: a flow still open this long after its first packet gets an interim
    /// record (`active`), and another each time as much more has passed, so a crash loses at
    /// most this much of a long flow (NetFlow's and Tstat's convention). [`Timeouts::NEVER`]
    /// (the default): only final records.
    pub active_ns: u64,
}

/// Defaults for capture files: idle timeouts of a day, so a 5-tuple is one flow for the length
/// of a typical capture, as in nDPI's accounting that users compare against (measured on the
/// corpus: 300/120/60 s splits 2% of nDPI's flows; no timeout at all would join 4 more corpus
/// flows but feeds the statistical model flows whose packets are days apart: see DESIGN.md).
/// Memory stays bounded by the table's capacity either way: a full table evicts. Live capture
/// wants Tstat-like values (300/120/60 s), which the command line sets.
impl Default for Timeouts {
    fn default() -> Self {
        const S: u64 = 1_000_000_000;
        Timeouts {
            tcp_ns: 86_400 * S,
            udp_ns: 86_400 * S,
            other_ns: 86_400 * S,
            closed_ns: 10 * S,
            active_ns: Timeouts::NEVER,
        }
    }
}

impl Timeouts {
    /// An idle timeout that never runs out.
    pub const NEVER: u64 = u64::MAX;
}

/// Flow-table configuration. Memory is `capacity × size_of::<Flow<V>>()` plus 16 bytes a flow
/// for the index, allocated at start.
#[derive(Clone, Copy, Debug)]
pub struct FlowConfig {
    /// Most flows held at once.
    pub capacity: usize,
    /// Idle timeouts.
    pub timeouts: Timeouts,
    /// ΔT: the stepwise sweep visits every slot at least once per this much capture time.
    pub sweep_ns: u64,
    /// M: the least number of slots a sweep step visits.
    pub min_sweep_step: usize,
    /// The index's hash key: None (the default) draws a random one per table, so tuples chosen
    /// to collide cannot be aimed at it ([`crate::FlowHasher`]); a fixed key makes the index's
    /// layout reproducible (tests). Records never depend on it.
    pub hash_key: Option<u64>,
    /// The sweep also writes interim records of quiet flows (a live link, where a crash must
    /// lose at most an active timeout of a flow that went quiet). Off for files: there an
    /// interim is written only at a flow's own packet ([`FlowTable::lookup_or_insert`]), so which
    /// interims are written depends on the flow's packets and the input's clock alone, never on
    /// how far the sweep had got: the same for any number of workers and any batch size.
    pub sweep_interims: bool,
}

impl Default for FlowConfig {
    fn default() -> Self {
        FlowConfig {
            capacity: 1 << 20,
            timeouts: Timeouts::default(),
            sweep_ns: 1_000_000_000,
            min_sweep_step: 64,
            hash_key: None,
            sweep_interims: false,
        }
    }
}

/// Packets after which a flow is no longer the first choice for eviction from a full table
/// (S3-LRU's climb through its segments: a flow that came back three times).
pub const PROVED: u64 = 4;

/// Why a flow ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EndReason {
    /// No packet for longer than the idle timeout.
    Idle,
    /// FIN seen in both directions.
    Fin,
    /// RST seen.
    Rst,
    /// Evicted to make room for a new flow in a full table.
    Evicted,
    /// Still open when the input ended.
    EndOfInput,
    /// Not an end: the flow is still open and its active timeout ran out, so an interim record
    /// is written ([`Timeouts::active_ns`]); the flow goes on, with its counters, and keeps its id.
    Active,
}

impl EndReason {
    /// Name written in flow records.
    pub const fn as_str(self) -> &'static str {
        match self {
            EndReason::Idle => "idle",
            EndReason::Fin => "fin",
            EndReason::Rst => "rst",
            EndReason::Evicted => "evicted",
            EndReason::EndOfInput => "end",
            EndReason::Active => "active",
        }
    }
}

/// Bits of [`Flow::noted`].
pub mod noted {
    /// Side A (index 0) sent payload.
    pub const PAYLOAD_A: u8 = 1;
    /// Side B (index 1) sent payload.
    pub const PAYLOAD_B: u8 = 2;
    /// A TCP packet with no flag set (nDPI's NULL scan).
    pub const TCP_NULL: u8 = 4;
    /// A TCP packet whose flags are FIN, PSH and URG alone (nDPI's XMAS scan).
    pub const TCP_XMAS: u8 = 8;
    /// Side A sent a TCP packet with FIN alone (no ACK).
    pub const FIN_ONLY_A: u8 = 16;
    /// Side B sent a TCP packet with FIN alone.
    pub const FIN_ONLY_B: u8 = 32;
    /// The flow's first ICMP or ICMPv6 message is malformed as nDPI judges it (a type or code
    /// out of the assigned ranges; for ICMP, a checksum that does not add up).
    pub const ICMP_MALFORMED: u8 = 64;
    /// The table's user's own bit: never set or read by the table, cleared with the others
    /// when a slot takes a new flow. The engine sets it once a flow's classifiers need none of
    /// its later packets.
    pub const CALLER: u8 = 128;
}

const CLOSE_NONE: u8 = 0;
const CLOSE_FIN: u8 = 1;
const CLOSE_RST: u8 = 2;

/// One flow: key, counters per side, timing, TCP closing state, and the caller's data `V`.
#[derive(Clone, Debug, Default)]
pub struct Flow<V> {
    /// The key; `key.ip_version == 0` marks a free slot.
    pub key: FlowKey,
    /// Which side is the client (sent the SYN, else the first packet).
    pub client: Side,
    /// The outermost tunnel the flow's first packet came through.
    pub tunnel: Tunnel,
    /// TCP flags seen from each side (OR of all).
    pub tcp_flags: [u8; 2],
    close: u8,
    fin: u8,
    /// What nDPI's TCP connection tracking notes beyond the flags' OR ([`noted`] bits): payload
    /// from each side, a flag byte of 0 (NULL scan) or FIN|PSH|URG (XMAS), FIN alone per side.
    pub noted: u8,
    /// Sequence number of the client's SYN (0 when none was seen): a later SYN with the same
    /// number is a retransmission, not a new connection.
    syn_seq: u32,
    /// Interim records written so far (active timeout).
    interims: u32,
    /// Which flow this is: set by the table to its count of flows started before it (0 for the
    /// first), unique within the table's life whatever slot it is in; an engine worker then
    /// overwrites it with the run's flow id (the flow's first packet's number in the input).
    pub serial: u64,
    /// Capture time of the first packet (ns).
    pub first_ts: u64,
    /// Capture time of the latest packet (ns).
    pub last_ts: u64,
    /// The input's clock at the latest packet (ns): the latest capture time seen so far then,
    /// `last_ts` where time never goes back. Expiry measures from here, as ndpiReader measures
    /// from a packet's time raised to the latest seen: a capture that jumps back in time (pieces
    /// of several days spliced together) does not end each flow of an earlier piece at once.
    seen: u64,
    /// Packets sent by each side.
    pub pkts: [u64; 2],
    /// Bytes sent by each side (as the caller counts them, e.g. captured frame length).
    pub bytes: [u64; 2],
    /// The caller's per-flow data (classification state, features, …).
    pub ext: V,
}

impl<V> Flow<V> {
    /// Packets in both directions.
    #[inline]
    pub fn total_pkts(&self) -> u64 {
        self.pkts[0] + self.pkts[1]
    }

    /// The server side (the other end from the client).
    #[inline]
    pub fn server(&self) -> Side {
        self.client.other()
    }

    /// `side` sent payload (the caller knows where the transport's payload is).
    #[inline]
    pub fn payload_from(&mut self, side: Side) {
        self.noted |= noted::PAYLOAD_A << side.index();
    }

    /// Count one packet of `len` bytes sent by `side` at `ts`, with TCP `flags` when TCP.
    #[inline]
    pub fn update(&mut self, side: Side, ts: u64, len: u64, flags: Option<u8>) {
        let i = side.index();
        self.pkts[i] += 1;
        self.bytes[i] += len;
        if ts > self.last_ts {
            self.last_ts = ts;
        }
        if let Some(f) = flags {
            self.tcp_flags[i] |= f;
            self.noted |= match f {
                0 => noted::TCP_NULL,
                0x29 => noted::TCP_XMAS,
                0x01 => noted::FIN_ONLY_A << i,
                _ => 0,
            };
            if f & tcp_flags::RST != 0 && self.close == CLOSE_NONE {
                self.close = CLOSE_RST;
            } else if f & tcp_flags::FIN != 0 {
                self.fin |= 1 << i;
                if self.fin == 3 && self.close == CLOSE_NONE {
                    self.close = CLOSE_FIN;
                }
            }
        }
    }

    /// True once FIN was seen both ways or RST was seen.
    #[inline]
    pub fn is_closed(&self) -> bool {
        self.close != CLOSE_NONE
    }

    #[inline]
    fn is_free(&self) -> bool {
        self.key.ip_version == 0
    }

    /// Why this flow would end at capture time `now`, if it would.
    #[inline]
    fn expiry(&self, now: u64, t: &Timeouts) -> Option<EndReason> {
        if self.close != CLOSE_NONE {
            // Closed flows linger `closed_ns` after their last packet.
            if now.saturating_sub(self.seen) > t.closed_ns {
                return Some(if self.close == CLOSE_RST {
                    EndReason::Rst
                } else {
                    EndReason::Fin
                });
            }
            return None;
        }
        let idle = match self.key.proto {
            ip_proto::TCP => t.tcp_ns,
            ip_proto::UDP => t.udp_ns,
            _ => t.other_ns,
        };
        (now.saturating_sub(self.seen) > idle).then_some(EndReason::Idle)
    }

    /// True when the flow's next interim record is due at capture time `now`: the flow has been
    /// open more than `interims + 1` active timeouts.
    #[inline]
    fn interim_due(&self, now: u64, t: &Timeouts) -> bool {
        t.active_ns != Timeouts::NEVER
            && now.saturating_sub(self.first_ts)
                > t.active_ns.saturating_mul(u64::from(self.interims) + 1)
    }

    /// The interim a packet at input clock `now` finds due, as the number of the active
    /// timeout it closes: the flow had packets after its last interim's timeout (or has had
    /// only its first interval so far), and `now` is past the first timeout after its last
    /// packet. Only the flow's own packets and the clock at them decide it (issue 33: with the
    /// sweep deciding, two workers wrote 19,767 to 20,828 records of the corpus with
    /// `--active-timeout 1`, one worker 25,771).
    #[inline]
    fn interim_at_packet(&self, now: u64, t: &Timeouts) -> Option<u32> {
        if t.active_ns == Timeouts::NEVER {
            return None;
        }
        let a = t.active_ns.max(1);
        let last = self.seen.saturating_sub(self.first_ts);
        let fresh = self.interims == 0 || last > a.saturating_mul(u64::from(self.interims));
        let k = last.div_ceil(a).max(1);
        (fresh && now.saturating_sub(self.first_ts) > a.saturating_mul(k))
            .then(|| k.min(u64::from(u32::MAX)) as u32)
    }

    /// Interim records written for this flow so far.
    #[inline]
    pub fn interims(&self) -> u32 {
        self.interims
    }

    fn close_reason(&self) -> EndReason {
        match self.close {
            CLOSE_RST => EndReason::Rst,
            _ => EndReason::Fin,
        }
    }
}

/// Result of [`FlowTable::lookup_or_insert`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// The packet belongs to an existing flow in this slot.
    Found(u32),
    /// A new flow was started in this slot.
    New(u32),
}

impl Lookup {
    /// The slot either way.
    #[inline]
    pub fn slot(self) -> u32 {
        match self {
            Lookup::Found(s) | Lookup::New(s) => s,
        }
    }
}

/// Counters of the table's own events.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TableStats {
    /// Flows started.
    pub created: u64,
    /// Flows evicted from a full table.
    pub evicted: u64,
    /// Flows ended by idle timeout.
    pub idle: u64,
    /// Flows ended by FIN/RST.
    pub closed: u64,
    /// Interim records of flows still open (active timeout).
    pub interim: u64,
    /// Most flows held at once.
    pub peak: u64,
    /// Slots visited by the stepwise sweep.
    pub swept: u64,
}

/// Where a table's flows lie: names a flow's slot from a reference to it, inside the callbacks
/// that end flows (where the table itself is borrowed). The slots are reserved once and never
/// move, so the answer holds for the table's life.
#[derive(Clone, Copy, Debug)]
pub struct SlotLocator {
    base: usize,
    size: usize,
    len: usize,
}

impl SlotLocator {
    /// The slot of `f`, if it is one of the table's flows (not a copy of one).
    #[inline]
    pub fn slot<V>(&self, f: &Flow<V>) -> Option<u32> {
        let off = (f as *const Flow<V> as usize).checked_sub(self.base)?;
        if self.size == 0 || off % self.size != 0 || off / self.size >= self.len {
            return None;
        }
        u32::try_from(off / self.size).ok()
    }
}

/// A fixed-capacity, bidirectional flow table (see the module docs).
pub struct FlowTable<V> {
    cfg: FlowConfig,
    index: Vec<u64>,
    mask: usize,
    slots: Vec<Flow<V>>,
    free: Vec<u32>,
    live: usize,
    cursor: usize,
    last_sweep_ts: u64,
    stats: TableStats,
    hasher: FlowHasher,
}

impl<V: Default> FlowTable<V> {
    /// A table with room for `cfg.capacity` flows (at least 1), all memory reserved now.
    pub fn new(cfg: FlowConfig) -> Self {
        let capacity = cfg.capacity.clamp(1, u32::MAX as usize - 1);
        let index_len = (capacity * 2).next_power_of_two();
        let index = vec![0u64; index_len];
        let slots: Vec<Flow<V>> = Vec::with_capacity(capacity);
        crate::advise_huge_pages(index.as_ptr().cast(), index_len * 8);
        crate::advise_huge_pages(
            slots.as_ptr().cast(),
            capacity * std::mem::size_of::<Flow<V>>(),
        );
        FlowTable {
            cfg: FlowConfig { capacity, ..cfg },
            index,
            mask: index_len - 1,
            slots,
            free: Vec::with_capacity(capacity),
            live: 0,
            cursor: 0,
            last_sweep_ts: 0,
            stats: TableStats::default(),
            hasher: match cfg.hash_key {
                Some(k) => FlowHasher::with_key(k),
                None => FlowHasher::random(),
            },
        }
    }

    /// The hash of `key` in this table's index (keyed, [`FlowConfig::hash_key`]): what
    /// [`FlowTable::lookup_or_insert`] and [`FlowTable::prefetch_slot`] take.
    #[inline]
    pub fn hash(&self, key: &FlowKey) -> u64 {
        self.hasher.hash(key)
    }

    /// How many index entries a lookup of `key` reads before it finds the key's entry (1: at
    /// its home position), or None if the key is not held. For measuring probe lengths.
    pub fn probe_len(&self, key: &FlowKey) -> Option<usize> {
        let hash = self.hash(key);
        let h32 = hash as u32 as u64;
        let mut i = hash as usize & self.mask;
        for n in 1..=self.mask + 1 {
            let e = *self.index.get(i)?;
            if e == 0 {
                return None;
            }
            if e >> 32 == h32 {
                let slot = (e as u32).checked_sub(1)? as usize;
                if self.slots.get(slot).is_some_and(|f| f.key == *key) {
                    return Some(n);
                }
            }
            i = (i + 1) & self.mask;
        }
        None
    }

    /// Configuration in force.
    pub fn config(&self) -> &FlowConfig {
        &self.cfg
    }

    /// Flows held now.
    pub fn len(&self) -> usize {
        self.live
    }

    /// True when no flow is held.
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// Every flow held now, in slot order: a walk of the slots ever used (free ones skipped),
    /// for a reader that wants them all at once (a live page's per-application totals), never
    /// the packet path.
    pub fn iter(&self) -> impl Iterator<Item = &Flow<V>> {
        self.slots.iter().filter(|f| f.key.ip_version != 0)
    }

    /// Event counters.
    pub fn stats(&self) -> TableStats {
        self.stats
    }

    /// Where this table's flows lie ([`SlotLocator`]).
    pub fn locator(&self) -> SlotLocator {
        SlotLocator {
            base: self.slots.as_ptr() as usize,
            size: std::mem::size_of::<Flow<V>>(),
            len: self.cfg.capacity,
        }
    }

    /// The flow in `slot` (from a [`Lookup`]).
    #[inline]
    pub fn get_mut(&mut self, slot: u32) -> &mut Flow<V> {
        &mut self.slots[slot as usize]
    }

    /// Prefetch the flow the index entry for `hash` points at, if any: read every packet's entry
    /// of a batch first, prefetching, then look the flows up.
    #[inline]
    pub fn prefetch_slot(&self, hash: u64) {
        let e = self.index[hash as usize & self.mask];
        if e != 0 {
            if let Some(f) = self.slots.get((e as u32 as usize).wrapping_sub(1)) {
                crate::prefetch(f);
            }
        }
    }

    /// Find the flow of `key` (hash from [`FlowTable::hash`]), or start one with `sender` as its
    /// first packet's sender. A flow found idle-expired, or closed and hit by a SYN with a new
    /// initial sequence number (a new connection on the same 5-tuple; a SYN retransmitted with
    /// the old number stays in the flow), is ended through `on_end` first and a new one started
    /// in its place. A new flow
    /// in a full table evicts the stalest of a few flows near the sweep cursor.
    ///
    /// Expiry is judged at `now`, the input's clock at this packet (the latest capture time
    /// seen so far, this packet's included, so never below `ts`), the same clock
    /// [`FlowTable::gc_step`] is given: a flow the sweep ended is one this lookup would have
    /// found expired too, so how far the sweep got cannot change the records, even in a capture
    /// whose time goes back.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub fn lookup_or_insert(
        &mut self,
        key: &FlowKey,
        hash: u64,
        sender: Side,
        ts: u64,
        now: u64,
        tcp: Option<&TcpInfo>,
        on_end: &mut impl FnMut(&mut Flow<V>, EndReason),
    ) -> Lookup {
        let h32 = hash as u32 as u64;
        let mut i = hash as usize & self.mask;
        // Probing is capped by the index size; at load factor <= 1/2 it ends after a few steps.
        for _ in 0..=self.mask {
            let e = self.index[i];
            if e == 0 {
                break;
            }
            if e >> 32 == h32 {
                let slot = (e as u32 - 1) as usize;
                let f = &mut self.slots[slot];
                if f.key == *key {
                    let ended = match f.expiry(now, &self.cfg.timeouts) {
                        Some(r) => Some(r),
                        None if f.is_closed()
                            && tcp.is_some_and(|t| {
                                t.flags & (tcp_flags::SYN | tcp_flags::ACK) == tcp_flags::SYN
                                    && t.seq != f.syn_seq
                            }) =>
                        {
                            Some(f.close_reason())
                        }
                        None => None,
                    };
                    if let Some(reason) = ended {
                        self.count_end(reason);
                        on_end(&mut self.slots[slot], reason);
                        self.init_slot(slot, key, sender, ts, now, tcp);
                        return Lookup::New(slot as u32);
                    }
                    let f = &self.slots[slot];
                    if !f.is_closed() {
                        if let Some(k) = f.interim_at_packet(now, &self.cfg.timeouts) {
                            // Before this packet counts: the interim holds what came up to
                            // the timeout, whoever looks.
                            self.count_end(EndReason::Active);
                            let f = &mut self.slots[slot];
                            f.interims = k;
                            on_end(f, EndReason::Active);
                        }
                    }
                    let f = &mut self.slots[slot];
                    f.seen = f.seen.max(now);
                    return Lookup::Found(slot as u32);
                }
            }
            i = (i + 1) & self.mask;
        }
        // Not found. Allocating may evict and so shift index entries: find the empty entry after.
        let slot = self.alloc_slot(now, on_end);
        let mut j = hash as usize & self.mask;
        for _ in 0..=self.mask {
            if self.index[j] == 0 {
                break;
            }
            j = (j + 1) & self.mask;
        }
        self.index[j] = h32 << 32 | (slot as u64 + 1);
        self.init_slot(slot, key, sender, ts, now, tcp);
        self.live += 1;
        if self.live as u64 > self.stats.peak {
            self.stats.peak = self.live as u64;
        }
        Lookup::New(slot as u32)
    }

    fn init_slot(
        &mut self,
        slot: usize,
        key: &FlowKey,
        sender: Side,
        ts: u64,
        now: u64,
        tcp: Option<&TcpInfo>,
    ) {
        // The client sent the SYN; a SYN-ACK's sender is the server; otherwise the first sender.
        let syn_ack = tcp_flags::SYN | tcp_flags::ACK;
        let client = match tcp {
            Some(t) if t.flags & syn_ack == syn_ack => sender.other(),
            _ => sender,
        };
        let syn_seq = match tcp {
            Some(t) if t.flags & syn_ack == tcp_flags::SYN => t.seq,
            _ => 0,
        };
        let f = &mut self.slots[slot];
        f.key = *key;
        f.client = client;
        f.tunnel = Tunnel::None;
        f.tcp_flags = [0; 2];
        f.noted = 0;
        f.close = CLOSE_NONE;
        f.fin = 0;
        f.syn_seq = syn_seq;
        f.interims = 0;
        f.serial = self.stats.created;
        self.stats.created += 1;
        f.first_ts = ts;
        f.last_ts = ts;
        f.seen = now.max(ts);
        f.pkts = [0; 2];
        f.bytes = [0; 2];
        f.ext = V::default();
    }

    fn count_end(&mut self, r: EndReason) {
        match r {
            EndReason::Idle => self.stats.idle += 1,
            EndReason::Fin | EndReason::Rst => self.stats.closed += 1,
            EndReason::Evicted => self.stats.evicted += 1,
            EndReason::EndOfInput => {}
            EndReason::Active => self.stats.interim += 1,
        }
    }

    /// A free slot: from the free list, the never-used tail, or by evicting.
    fn alloc_slot(&mut self, now: u64, on_end: &mut impl FnMut(&mut Flow<V>, EndReason)) -> usize {
        if let Some(s) = self.free.pop() {
            return s as usize;
        }
        if self.slots.len() < self.cfg.capacity {
            // Within the capacity reserved in `new`: no reallocation.
            self.slots.push(Flow::default());
            return self.slots.len() - 1;
        }
        // Full: end a flow that is due anyway, else, of 8 slots at the cursor (sampled, as a
        // CLOCK hand would pick), the one that has proved itself least, stalest first: seed
        // 002's S3-LRU policy (`crate::s3lru`) in the table's own terms. A flow's packets are
        // its hits; one with `PROVED` or more is in the protected segment. A flood of one-packet
        // flows then evicts its own kind, not the long-lived flows (a recency-only LRU lost
        // them all once the flood outran the table: `s3lru` tests, and
        // `proved_flows_survive_a_flood` below).
        // Proved flows may sit side by side (a burst of them took consecutive slots): when 8
        // slots hold only proved flows, the hand looks further for one that is not, up to 128
        // slots (bounded work a new flow; a longer run of proved flows loses its stalest).
        let n = self.slots.len();
        let mut victim = self.cursor % n;
        let mut least = (u64::MAX, u64::MAX);
        for k in 0..128.min(n) {
            if k >= 8 && least.0 < PROVED {
                break;
            }
            let s = (self.cursor + k) % n;
            let f = &self.slots[s];
            if f.expiry(now, &self.cfg.timeouts).is_some() {
                victim = s;
                break;
            }
            let rank = (f.total_pkts().min(PROVED), f.seen);
            if rank < least {
                least = rank;
                victim = s;
            }
        }
        self.cursor = (victim + 1) % n;
        let reason = self.slots[victim]
            .expiry(now, &self.cfg.timeouts)
            .unwrap_or(EndReason::Evicted);
        self.end_and_unlink(victim, reason, on_end);
        victim
    }

    /// End the flow in `slot` and take it out of the index; the slot is then unused.
    fn end_and_unlink(
        &mut self,
        slot: usize,
        reason: EndReason,
        on_end: &mut impl FnMut(&mut Flow<V>, EndReason),
    ) {
        self.count_end(reason);
        // The flow's index entry was last touched at its last packet, long ago for an idle flow:
        // ask for its line now so that the miss overlaps the end's record work.
        let hash = self.hasher.hash(&self.slots[slot].key);
        crate::prefetch(&self.index[hash as usize & self.mask]);
        on_end(&mut self.slots[slot], reason);
        self.remove_index(slot, hash);
        self.slots[slot].key.ip_version = 0;
        self.live -= 1;
    }

    /// Remove the index entry pointing at `slot` (whose key hashes to `hash`) with
    /// backward-shift deletion.
    fn remove_index(&mut self, slot: usize, hash: u64) {
        let target = slot as u64 + 1;
        let mut i = hash as usize & self.mask;
        let mut found = false;
        for _ in 0..=self.mask {
            let e = self.index[i];
            if e == 0 {
                break;
            }
            if e as u32 as u64 == target {
                found = true;
                break;
            }
            i = (i + 1) & self.mask;
        }
        if !found {
            return;
        }
        // Shift later members of the cluster back into the hole when their home allows it.
        let mut hole = i;
        let mut j = (i + 1) & self.mask;
        for _ in 0..=self.mask {
            let e = self.index[j];
            if e == 0 {
                break;
            }
            let home = (e >> 32) as usize & self.mask;
            // Move e into the hole unless its home lies cyclically in (hole, j].
            let dist_home = j.wrapping_sub(home) & self.mask;
            let dist_hole = j.wrapping_sub(hole) & self.mask;
            if dist_home >= dist_hole {
                self.index[hole] = e;
                hole = j;
            }
            j = (j + 1) & self.mask;
        }
        self.index[hole] = 0;
    }

    /// One step of the incremental sweep at capture time `now`: visit enough slots that the
    /// whole table is covered once per `sweep_ns` of capture time (at least `min_sweep_step`),
    /// ending flows that are idle or closed, and handing `on_end` an interim
    /// ([`EndReason::Active`]) for each open flow whose active timeout ran out (the flow stays).
    /// Call once per batch.
    pub fn gc_step(&mut self, now: u64, on_end: &mut impl FnMut(&mut Flow<V>, EndReason)) {
        let n = self.slots.len();
        if n == 0 {
            self.last_sweep_ts = now;
            return;
        }
        let dt = now.saturating_sub(self.last_sweep_ts);
        let share = ((n as u128 * dt as u128) / self.cfg.sweep_ns.max(1) as u128) as usize;
        let steps = share.max(self.cfg.min_sweep_step).min(n);
        if share > 0 || self.last_sweep_ts == 0 {
            self.last_sweep_ts = now;
        }
        // The hand wraps by a compare, not a division a slot (one `% n` a call keeps whatever
        // cursor it finds in range).
        let mut next = self.cursor % n;
        for _ in 0..steps {
            let s = next;
            next = if s + 1 == n { 0 } else { s + 1 };
            let f = &self.slots[s];
            if f.is_free() {
                continue;
            }
            if let Some(r) = f.expiry(now, &self.cfg.timeouts) {
                self.end_and_unlink(s, r, on_end);
                self.free.push(s as u32);
            } else if self.cfg.sweep_interims
                && !f.is_closed()
                && f.interim_due(now, &self.cfg.timeouts)
            {
                self.count_end(EndReason::Active);
                let f = &mut self.slots[s];
                // However long the sweep took to come by, one interim, and the next one due a
                // whole active timeout after it (not a burst to catch up).
                f.interims = (now.saturating_sub(f.first_ts) / self.cfg.timeouts.active_ns.max(1))
                    .min(u64::from(u32::MAX)) as u32;
                on_end(f, EndReason::Active);
            }
        }
        self.cursor = next;
        self.stats.swept += steps as u64;
    }

    /// End every flow that is idle or closed at capture time `now`: the sweep's whole round at
    /// once. Called at the end of an input, so whether a flow ended idle does not depend on how
    /// far the stepwise sweep had got (nor, with several workers, on which worker held it).
    pub fn expire_all(&mut self, now: u64, on_end: &mut impl FnMut(&mut Flow<V>, EndReason)) {
        for s in 0..self.slots.len() {
            if self.slots[s].is_free() {
                continue;
            }
            if let Some(r) = self.slots[s].expiry(now, &self.cfg.timeouts) {
                self.end_and_unlink(s, r, on_end);
                self.free.push(s as u32);
            }
        }
    }

    /// End every flow still held (end of input, or shutdown) in slot order: `fin`/`rst` for flows
    /// already closed, `end` for the others.
    pub fn flush(&mut self, on_end: &mut impl FnMut(&mut Flow<V>, EndReason)) {
        // The index holds an entry for each live flow and nothing else (removal shifts back), so
        // an empty table has nothing to clear: a second flush (end of input, then shutdown) does
        // not write the whole index again.
        let was_empty = self.live == 0;
        // Few flows (the end of a small capture): take each one's entry out, a probe each,
        // instead of writing the whole index (16 MiB at the default capacity, 17 M instructions
        // and its pages faulted in for a one-flow capture). Many: clear it at once.
        let one_by_one = self.live < self.index.len() / 256;
        for s in 0..self.slots.len() {
            if !self.slots[s].is_free() {
                // A flow already closed by FIN/RST says so, even if its linger had not run out.
                let why = if self.slots[s].is_closed() {
                    self.slots[s].close_reason()
                } else {
                    EndReason::EndOfInput
                };
                self.count_end(why);
                on_end(&mut self.slots[s], why);
                if one_by_one {
                    let hash = self.hasher.hash(&self.slots[s].key);
                    self.remove_index(s, hash);
                }
                self.slots[s].key.ip_version = 0;
                self.free.push(s as u32);
            }
        }
        if !was_empty && !one_by_one {
            self.index.fill(0);
        }
        self.live = 0;
        self.last_sweep_ts = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    const S: u64 = 1_000_000_000;

    fn key(n: u32, port: u16) -> (FlowKey, Side) {
        let mut a = [0u8; 16];
        a[..4].copy_from_slice(&n.to_be_bytes());
        let b = [10, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        FlowKey::new(4, ip_proto::UDP, 0, (a, port), (b, 53))
    }

    /// A file's table (no sweep interims): the interims are written at the flow's own packets
    /// and are the same whether the sweep runs after every packet, never, or at any points in
    /// between (with several workers and batch sizes it runs at other points); a quiet flow
    /// gets its interim at its next packet, holding what came before the quiet.
    #[test]
    fn file_interims_do_not_depend_on_the_sweep() {
        let run = |sweep_every: u64| {
            let mut t = FlowTable::<u32>::new(FlowConfig {
                capacity: 16,
                timeouts: Timeouts {
                    active_ns: 120 * S,
                    ..Timeouts::default()
                },
                min_sweep_step: 16,
                ..FlowConfig::default()
            });
            let mut events = vec![];
            let k = key(1, 1000);
            let base = 1_000 * S;
            // Every 10 s to 300 s, then quiet until 1,000 s, then every 10 s to 1,100 s.
            let times = (0..=30u64).chain(100..=110).map(|i| base + i * 10 * S);
            for (n, ts) in times.enumerate() {
                let r = t.lookup_or_insert(&k.0, t.hash(&k.0), k.1, ts, ts, None, &mut |f, why| {
                    events.push((why, f.total_pkts()))
                });
                t.get_mut(r.slot()).update(k.1, ts, 100, None);
                if sweep_every > 0 && (n as u64).is_multiple_of(sweep_every) {
                    t.gc_step(ts + 5 * S, &mut |f, why| events.push((why, f.total_pkts())));
                }
            }
            events
        };
        let want = vec![
            (EndReason::Active, 13),
            (EndReason::Active, 25),
            // At 1,000 s: what came up to 300 s (31 packets), once.
            (EndReason::Active, 31),
            // At 1,090 s (the first packet past 1,080 s, nine timeouts): 40 packets.
            (EndReason::Active, 40),
        ];
        for every in [0, 1, 2, 7, 40] {
            assert_eq!(run(every), want, "sweep every {every} packets");
        }
    }

    fn cfg(capacity: usize) -> FlowConfig {
        FlowConfig {
            capacity,
            ..FlowConfig::default()
        }
    }

    /// Runs one packet through the table; returns the slot and records ended flows.
    fn pkt(
        t: &mut FlowTable<u32>,
        k: &(FlowKey, Side),
        ts: u64,
        tcp: Option<u8>,
        ended: &mut Vec<(FlowKey, EndReason, u64)>,
    ) -> Lookup {
        seg(t, k, ts, tcp.map(|flags| (flags, 1000)), ended)
    }

    /// Like `pkt` with a TCP sequence number.
    fn seg(
        t: &mut FlowTable<u32>,
        k: &(FlowKey, Side),
        ts: u64,
        tcp: Option<(u8, u32)>,
        ended: &mut Vec<(FlowKey, EndReason, u64)>,
    ) -> Lookup {
        let info = tcp.map(|(flags, seq)| TcpInfo {
            flags,
            seq,
            ..TcpInfo::default()
        });
        let r = t.lookup_or_insert(
            &k.0,
            t.hash(&k.0),
            k.1,
            ts,
            ts,
            info.as_ref(),
            &mut |f, why| ended.push((f.key, why, f.total_pkts())),
        );
        t.get_mut(r.slot()).update(k.1, ts, 64, tcp.map(|x| x.0));
        r
    }

    #[test]
    fn finds_existing_flows_both_directions() {
        let mut t = FlowTable::<u32>::new(cfg(16));
        let mut ended = vec![];
        let k = key(1, 1000);
        assert!(matches!(
            pkt(&mut t, &k, 1, None, &mut ended),
            Lookup::New(_)
        ));
        let rev = (k.0, k.1.other());
        assert!(matches!(
            pkt(&mut t, &rev, 2, None, &mut ended),
            Lookup::Found(_)
        ));
        let slot = pkt(&mut t, &k, 3, None, &mut ended).slot();
        let f = t.get_mut(slot);
        assert_eq!(f.pkts[k.1.index()], 2);
        assert_eq!(f.pkts[k.1.other().index()], 1);
        assert_eq!(f.client, k.1);
        assert!(ended.is_empty());
    }

    /// Issue 19, item 7: a flood of new one-packet flows through a full table, mixed with
    /// long-lived flows that each send a packet far less often than the flood fills the table.
    /// They must survive; by recency alone every one of them was evicted.
    #[test]
    fn proved_flows_survive_a_flood() {
        let mut t = FlowTable::<u32>::new(cfg(1024));
        let mut ended = vec![];
        let mut ts = 0u64;
        let long = 64u32;
        for _ in 0..PROVED {
            for f in 0..long {
                ts += 1;
                pkt(&mut t, &key(f, 7000), ts, None, &mut ended);
            }
        }
        // Each long-lived flow sends once per 64 × 64 = 4,096 packets, 4,032 of them new
        // flows: four times what the table holds.
        for i in 0..400_000u32 {
            ts += 1;
            if i % 64 == 0 {
                pkt(&mut t, &key((i / 64) % long, 7000), ts, None, &mut ended);
            } else {
                pkt(&mut t, &key(1_000_000 + i, 1), ts, None, &mut ended);
            }
        }
        let lost = ended.iter().filter(|e| e.0.port.contains(&7000)).count();
        assert_eq!(lost, 0, "long-lived flows evicted");
        assert!(t.stats().evicted > 300_000);
    }

    #[test]
    fn full_table_evicts_instead_of_growing() {
        let mut t = FlowTable::<u32>::new(cfg(100));
        let mut ended = vec![];
        for n in 0..10_000u32 {
            pkt(&mut t, &key(n, 1), n as u64, None, &mut ended);
        }
        assert_eq!(t.len(), 100);
        assert_eq!(ended.len(), 9_900);
        assert!(ended.iter().all(|e| e.1 == EndReason::Evicted));
        assert_eq!(t.stats().evicted, 9_900);
        // Every flow still held is found again, not duplicated.
        let mut flushed = vec![];
        t.flush(&mut |f, _| flushed.push(f.key));
        assert_eq!(flushed.len(), 100);
    }

    /// A flushed table is empty and reusable, and a second flush (end of input, then shutdown)
    /// ends nothing: every key of the first input starts a new flow again, found once after.
    /// Both ways of clearing the index: all at once (50 flows of 64) and entry by entry (50 of
    /// 8,192).
    #[test]
    fn flush_twice_then_reuse() {
        for capacity in [64, 8192] {
            flush_twice_then_reuse_at(capacity);
        }
    }

    fn flush_twice_then_reuse_at(capacity: usize) {
        let mut t = FlowTable::<u32>::new(cfg(capacity));
        let mut ended = vec![];
        for n in 0..50u32 {
            pkt(&mut t, &key(n, 7), 1, None, &mut ended);
        }
        let mut flushed = 0;
        t.flush(&mut |_, _| flushed += 1);
        t.flush(&mut |_, _| flushed += 1);
        assert_eq!((flushed, t.len()), (50, 0));
        assert!(t.index.iter().all(|&e| e == 0));
        for n in 0..50u32 {
            assert!(matches!(
                pkt(&mut t, &key(n, 7), 2, None, &mut ended),
                Lookup::New(_)
            ));
            assert!(matches!(
                pkt(&mut t, &key(n, 7), 3, None, &mut ended),
                Lookup::Found(_)
            ));
        }
        assert_eq!(t.len(), 50);
        assert!(ended.is_empty());
    }

    /// A 16-flow table with Tstat's timeouts (TCP 300 s, UDP 120 s, others 60 s, closed 10 s).
    fn tstat_table() -> FlowTable<u32> {
        FlowTable::<u32>::new(FlowConfig {
            capacity: 16,
            timeouts: Timeouts {
                tcp_ns: 300 * S,
                udp_ns: 120 * S,
                other_ns: 60 * S,
                closed_ns: 10 * S,
                active_ns: Timeouts::NEVER,
            },
            ..FlowConfig::default()
        })
    }

    /// Active timeout 120 s (hand count), a live table (the sweep writes interims too): a UDP
    /// flow with a packet every 10 s from t = 0 to 300 s gets interims at its first packet
    /// after 120 s and after 240 s, holding what came before; a sweep long after gets one
    /// however late it comes, none after its end; its serial stays; a closed flow lingering gets
    /// none; `interim` counts them, and they are not ends.
    #[test]
    fn active_timeout_writes_interims_of_open_flows() {
        let mut t = FlowTable::<u32>::new(FlowConfig {
            capacity: 16,
            timeouts: Timeouts {
                active_ns: 120 * S,
                ..Timeouts::default()
            },
            min_sweep_step: 16,
            sweep_interims: true,
            ..FlowConfig::default()
        });
        let mut events = vec![];
        let k = key(1, 1000);
        let base = 1_000 * S;
        for i in 0..=30u64 {
            let ts = base + i * 10 * S;
            let r = t.lookup_or_insert(&k.0, t.hash(&k.0), k.1, ts, ts, None, &mut |f, why| {
                events.push((f.serial, why, f.total_pkts()))
            });
            let f = t.get_mut(r.slot());
            f.update(k.1, ts, 100, None);
            t.gc_step(ts, &mut |f, why| {
                events.push((f.serial, why, f.total_pkts()))
            });
        }
        // Due once more than 120 s have passed: at the packet of 130 s, before it counts (13
        // packets, up to 120 s), and at 250 s (25 packets).
        assert_eq!(
            events,
            vec![(0, EndReason::Active, 13), (0, EndReason::Active, 25)]
        );
        assert_eq!(t.stats().interim, 2);
        assert_eq!(t.stats().idle + t.stats().closed + t.stats().evicted, 0);
        // A sweep long after (the flow still open under a day's idle timeout): one interim,
        // not a burst; then the next is a whole timeout later.
        events.clear();
        let late = base + 1_000 * S;
        t.gc_step(late, &mut |f, why| {
            events.push((f.serial, why, f.total_pkts()))
        });
        t.gc_step(late + 60 * S, &mut |f, why| events.push((f.serial, why, 0)));
        assert_eq!(events, vec![(0, EndReason::Active, 31)]);
        t.gc_step(late + 121 * S, &mut |f, why| {
            events.push((f.serial, why, 0))
        });
        assert_eq!(events.len(), 2);
        // Its end: a final record, same serial.
        events.clear();
        t.flush(&mut |f, why| events.push((f.serial, why, f.total_pkts())));
        assert_eq!(events, vec![(0, EndReason::EndOfInput, 31)]);
        // A second flow gets the next serial; closed by RST 200 s after its start, it lingers
        // 10 s without an interim, though one would be due.
        let k2 = key(2, 2000);
        let r = t.lookup_or_insert(&k2.0, t.hash(&k2.0), k2.1, base, base, None, &mut |_, _| {});
        assert_eq!(t.get_mut(r.slot()).serial, 1);
        let rst = base + 200 * S;
        let r = t.lookup_or_insert(&k2.0, t.hash(&k2.0), k2.1, rst, rst, None, &mut |_, _| {});
        assert!(matches!(r, Lookup::Found(_)));
        t.get_mut(r.slot())
            .update(k2.1, rst, 60, Some(tcp_flags::RST));
        events.clear();
        t.gc_step(base + 205 * S, &mut |f, why| {
            events.push((f.serial, why, 0))
        });
        assert!(events.is_empty(), "{events:?}");
    }

    /// A capture spliced from pieces of different days: time jumps back by two days. Expiry
    /// judges at the input's clock (the latest time so far) from the clock at a flow's last
    /// packet, so a flow of the earlier piece lives on (hand count: its packets 1 s apart, the
    /// UDP timeout 120 s), a flow idle for 130 s of the clock ends, and the sweep ends exactly
    /// the flows a lookup would.
    #[test]
    fn time_going_back_judged_at_the_input_clock() {
        let mut t = tstat_table();
        let mut ended = vec![];
        let mut at = |t: &mut FlowTable<u32>, k: &(FlowKey, Side), ts: u64, now: u64| {
            t.lookup_or_insert(&k.0, t.hash(&k.0), k.1, ts, now, None, &mut |f, why| {
                ended.push((f.key, why))
            })
        };
        let (late, early) = (key(1, 1000), key(2, 1000));
        let day2 = 3 * 86_400 * S;
        assert!(matches!(at(&mut t, &late, day2, day2), Lookup::New(_)));
        // Two days earlier, while the clock stands at day2 and then day2 + 20 s (another
        // flow's packets): one flow, not one per packet.
        let early0 = day2 - 2 * 86_400 * S;
        assert!(matches!(at(&mut t, &early, early0, day2), Lookup::New(_)));
        assert!(matches!(
            at(&mut t, &early, early0 + S, day2 + 20 * S),
            Lookup::Found(_)
        ));
        // At day2 + 130 s, `late` is idle (130 s > 120 s), `early` not (110 s).
        let now = day2 + 130 * S;
        let mut swept = vec![];
        t.gc_step(now, &mut |f, why| swept.push((f.key, why)));
        assert_eq!(swept, vec![(late.0, EndReason::Idle)]);
        assert!(matches!(
            at(&mut t, &early, early0 + 2 * S, now),
            Lookup::Found(_)
        ));
        // 121 s of the clock later, its next packet finds it idle and starts a new flow.
        assert!(matches!(
            at(&mut t, &early, early0 + 3 * S, now + 121 * S),
            Lookup::New(_)
        ));
        assert_eq!(ended, vec![(early.0, EndReason::Idle)]);
    }

    /// `Timeouts::NEVER` (`--udp-timeout inf`): softether.pcap's flows span six months, and
    /// nDPI counts each 5-tuple as one flow; with no idle timeout, a year later the 5-tuple is
    /// still the same flow, for the sweep and for a lookup alike. The default (a day) ends it.
    #[test]
    fn with_no_idle_timeout_a_five_tuple_never_goes_idle() {
        let never = Timeouts {
            tcp_ns: Timeouts::NEVER,
            udp_ns: Timeouts::NEVER,
            other_ns: Timeouts::NEVER,
            ..Timeouts::default()
        };
        let mut t = FlowTable::<u32>::new(FlowConfig {
            capacity: 16,
            timeouts: never,
            ..FlowConfig::default()
        });
        let mut ended = 0;
        let udp = key(7, 5004);
        let year = 365 * 86_400 * S;
        let mut at = |t: &mut FlowTable<u32>, ts: u64| {
            t.lookup_or_insert(&udp.0, t.hash(&udp.0), udp.1, ts, ts, None, &mut |_, _| {
                ended += 1
            })
        };
        assert!(matches!(at(&mut t, S), Lookup::New(_)));
        t.gc_step(year, &mut |_, _| panic!("swept an idle flow"));
        t.expire_all(year, &mut |_, _| panic!("expired an idle flow"));
        assert!(matches!(at(&mut t, year), Lookup::Found(_)));
        assert!(matches!(at(&mut t, u64::MAX), Lookup::Found(_)));
        assert_eq!(ended, 0);
        let mut t = FlowTable::<u32>::new(FlowConfig {
            capacity: 16,
            ..FlowConfig::default()
        });
        let mut idle = vec![];
        t.lookup_or_insert(&udp.0, t.hash(&udp.0), udp.1, S, S, None, &mut |_, _| {});
        t.expire_all(year, &mut |_, why| idle.push(why));
        assert_eq!(idle, vec![EndReason::Idle]);
    }

    #[test]
    fn idle_flow_restarts_on_lookup_and_sweep_expires() {
        let mut t = tstat_table();
        let mut ended = vec![];
        let k = key(1, 1000);
        pkt(&mut t, &k, S, None, &mut ended);
        // Within the UDP timeout the flow goes on...
        assert!(matches!(
            pkt(&mut t, &k, 100 * S, None, &mut ended),
            Lookup::Found(_)
        ));
        // ...past it, the same tuple is a new flow.
        let r = pkt(&mut t, &k, 221 * S, None, &mut ended);
        assert!(matches!(r, Lookup::New(_)));
        assert_eq!(ended, vec![(k.0, EndReason::Idle, 2)]);
        // The sweep ends it later without any packet of its own.
        let k2 = key(2, 1000);
        pkt(&mut t, &k2, 400 * S, None, &mut ended);
        t.gc_step(400 * S + 1, &mut |f, why| {
            ended.push((f.key, why, f.total_pkts()))
        });
        assert_eq!(ended.len(), 2, "{ended:?}");
        assert_eq!(t.len(), 1);
    }

    #[test]
    fn tcp_close_lingers_then_new_syn_starts_new_flow() {
        let mut t = FlowTable::<u32>::new(cfg(16));
        let mut ended = vec![];
        let (k, c) = key(1, 1000);
        let s = c.other();
        let syn = Some(tcp_flags::SYN);
        let synack = Some(tcp_flags::SYN | tcp_flags::ACK);
        let ack = Some(tcp_flags::ACK);
        let fin = Some(tcp_flags::FIN | tcp_flags::ACK);
        pkt(&mut t, &(k, c), 1, syn, &mut ended);
        pkt(&mut t, &(k, s), 2, synack, &mut ended);
        pkt(&mut t, &(k, c), 3, fin, &mut ended);
        pkt(&mut t, &(k, s), 4, fin, &mut ended);
        // The last ACK still belongs to the closed flow.
        assert!(matches!(
            pkt(&mut t, &(k, c), 5, ack, &mut ended),
            Lookup::Found(_)
        ));
        assert!(ended.is_empty());
        // A SYN retransmitted with the first SYN's number is not a new connection...
        let r = seg(&mut t, &(k, c), 6, Some((0x02, 1000)), &mut ended);
        assert!(matches!(r, Lookup::Found(_)));
        assert!(ended.is_empty());
        // ...a SYN with a new initial sequence number is.
        let r = seg(&mut t, &(k, c), 7, Some((0x02, 77)), &mut ended);
        assert!(matches!(r, Lookup::New(_)));
        assert_eq!(ended, vec![(k, EndReason::Fin, 6)]);
    }

    #[test]
    fn syn_ack_first_makes_receiver_the_client() {
        let mut t = FlowTable::<u32>::new(cfg(4));
        let mut ended = vec![];
        let (k, srv) = key(1, 1000);
        let slot = pkt(&mut t, &(k, srv), 1, Some(0x12), &mut ended).slot();
        assert_eq!(t.get_mut(slot).client, srv.other());
    }

    /// The sweep's hand covers every slot once a round, whether a call takes the whole table or
    /// a few slots a call, and whatever slot the round starts from: n idle flows all end after
    /// ⌈n / step⌉ calls, each call ending `step` more, so no slot is visited twice before the
    /// others.
    #[test]
    fn a_sweep_round_visits_every_slot_once() {
        for n in [1usize, 2, 5, 10] {
            for step in 1..=n + 1 {
                for start in 0..n {
                    let mut t = FlowTable::<u32>::new(FlowConfig {
                        capacity: n,
                        min_sweep_step: step,
                        sweep_ns: u64::MAX,
                        timeouts: Timeouts {
                            udp_ns: S,
                            ..Timeouts::default()
                        },
                        ..FlowConfig::default()
                    });
                    let mut ended = vec![];
                    for i in 0..n {
                        pkt(&mut t, &key(i as u32 + 1, 1000), S, None, &mut ended);
                    }
                    // The round starts at slot `start`.
                    t.cursor = start;
                    let mut swept = vec![];
                    let calls = n.div_ceil(step);
                    for c in 0..calls {
                        t.gc_step(3 * S, &mut |f, _| swept.push(f.key));
                        assert_eq!(swept.len(), (step * (c + 1)).min(n), "n {n} step {step}");
                    }
                    assert_eq!(t.len(), 0, "n {n} step {step} start {start}");
                    assert!(ended.is_empty());
                }
            }
        }
    }

    /// Model check against a HashMap: random inserts, lookups and sweeps keep the index
    /// consistent with the slab (backward-shift deletion included).
    #[test]
    fn index_agrees_with_model_under_churn() {
        let mut t = FlowTable::<u32>::new(FlowConfig {
            capacity: 64,
            min_sweep_step: 7,
            ..FlowConfig::default()
        });
        let mut model: HashMap<FlowKey, u64> = HashMap::new();
        let mut x = 12345u64;
        let mut ts = S;
        for _ in 0..50_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let k = key((x % 97) as u32, 1);
            ts += (x >> 40) % (3 * S);
            let mut gone = vec![];
            let r = t.lookup_or_insert(&k.0, t.hash(&k.0), k.1, ts, ts, None, &mut |f, _| {
                gone.push(f.key)
            });
            for g in &gone {
                if *g != k.0 {
                    assert!(model.remove(g).is_some());
                } else {
                    model.remove(g);
                }
            }
            match r {
                Lookup::New(_) => assert!(model.insert(k.0, ts).is_none()),
                Lookup::Found(_) => assert!(model.contains_key(&k.0)),
            }
            t.get_mut(r.slot()).update(k.1, ts, 1, None);
            model.insert(k.0, ts);
            if x.is_multiple_of(5) {
                let mut swept = vec![];
                t.gc_step(ts, &mut |f, _| swept.push(f.key));
                for g in swept {
                    assert!(model.remove(&g).is_some());
                }
            }
            assert_eq!(t.len(), model.len());
        }
    }
}
