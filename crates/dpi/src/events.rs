//! Transaction events (`--events`): one per DNS query and its answer, per HTTP request and its
//! response, per TLS handshake, written by the inspectors as they parse (no second parse), kept
//! in a bounded store of one [`Dpi`](crate::Dpi) and taken by the engine after each packet.
//!
//! Off by default ([`Dpi::enable_events`](crate::Dpi::enable_events)): an inspector then sees
//! `None` from [`Cx::events`](crate::Cx::events) and does nothing more than before.
//!
//! # Memory
//!
//! A transaction ([`Tx`]) is a fixed-size value: at most [`TX_VALUES`] values and [`TX_TEXT`]
//! bytes of text, each text cut at its field's cap ([`TxField::cap`]) and written as tshark
//! shows text, like [`Meta`](crate::Meta)'s values. The store holds [`SLOTS`] of them, allocated
//! once: transactions waiting for their answer (a DNS query, an HTTP request, a TLS handshake
//! still going on), at most [`PER_FLOW`] a flow, and those complete, which the engine takes
//! after every packet. A flow's open transactions are completed as they are when its
//! inspection ends or the flow ends; a full store completes its oldest open one early; a
//! transaction that finds no slot at all is dropped and counted ([`Events::dropped`]).

use crate::meta::escape_into;
use std::net::IpAddr;

/// Transactions a store holds (open and complete together).
pub const SLOTS: usize = 320;
/// Open transactions a store holds: beyond, the oldest is completed as it is. The other
/// `SLOTS - MAX_OPEN` slots keep room for the transactions a packet completes.
pub const MAX_OPEN: usize = 256;
/// Open transactions a flow may hold: beyond, its oldest is completed as it is (an HTTP request
/// whose response has not come, a DNS query not yet answered).
pub const PER_FLOW: usize = 16;
/// Values a transaction holds.
pub const TX_VALUES: usize = 40;
/// Bytes of text a transaction holds (all its text values together).
pub const TX_TEXT: usize = 2048;
/// Answers a DNS transaction lists, at most.
pub const MAX_ANSWERS: usize = 16;

/// Which log a transaction belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TxKind {
    /// A DNS (LLMNR, mDNS) query and its answer.
    Dns,
    /// An HTTP request and its response.
    Http,
    /// A TLS handshake.
    Tls,
}

macro_rules! tx_fields {
    ($($(#[$doc:meta])* $v:ident = $cap:literal;)*) => {
        /// A value of a transaction. Numbers have cap 0; a text is cut at [`TxField::cap`].
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        #[repr(u8)]
        pub enum TxField { $($(#[$doc])* $v,)* }

        impl TxField {
            /// Most bytes kept of a text value (0 for a number).
            pub fn cap(self) -> usize {
                match self { $(TxField::$v => $cap,)* }
            }
        }
    };
}

tx_fields! {
    /// DNS transaction id (number).
    DnsId = 0;
    /// DNS question name (dotted; `<root>` for the root).
    DnsQuery = 255;
    /// DNS question type (number).
    DnsQtype = 0;
    /// DNS question class (number, the unicast-response bit of mDNS removed).
    DnsQclass = 0;
    /// DNS response code (number).
    DnsRcode = 0;
    /// DNS header flags of the response, or of the query when no response came: bit 0 AA, 1
    /// TC, 2 RD, 3 RA (number).
    DnsFlags = 0;
    /// One answer record's data as text: an A or AAAA address, a CNAME, PTR, NS or MX target,
    /// a TXT record's first string; repeated, in record order.
    DnsAnswer = 255;
    /// The TTL of the answer before it (number, seconds), repeated.
    DnsTtl = 0;
    /// HTTP request method.
    HttpMethod = 16;
    /// HTTP `Host` header as sent.
    HttpHost = 128;
    /// HTTP request target as sent (path and query, or the absolute URI to a proxy).
    HttpUri = 1024;
    /// HTTP `User-Agent`.
    HttpUserAgent = 200;
    /// HTTP request body length by its `Content-Length` (number).
    HttpReqLen = 0;
    /// HTTP response status code (number).
    HttpStatus = 0;
    /// HTTP response `Content-Type`.
    HttpContentType = 64;
    /// HTTP response body length by its `Content-Length` (number).
    HttpRespLen = 0;
    /// The request's position in its connection, 1 for the first (number).
    HttpDepth = 0;
    /// TLS version: the server's choice when seen, else the client's highest offer.
    TlsVersion = 8;
    /// TLS server name indication.
    TlsSni = 255;
    /// TLS ALPN: the client's offer (comma-separated), or the server's choice once seen.
    TlsAlpn = 64;
    /// TLS cipher suite the server chose (number).
    TlsCipher = 0;
    /// JA3 client fingerprint.
    TlsJa3 = 32;
    /// JA4 client fingerprint.
    TlsJa4 = 40;
    /// Subject of the server's certificate (RFC 4514 text).
    TlsSubject = 255;
    /// Issuer of the server's certificate.
    TlsIssuer = 255;
    /// The server certificate's notBefore, `YYYY-MM-DDTHH:MM:SSZ`.
    TlsNotBefore = 20;
    /// The server certificate's notAfter.
    TlsNotAfter = 20;
}

/// A value as read back: text or number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TxVal<'a> {
    /// A text value (valid UTF-8, control characters written `\ooo`).
    Text(&'a str),
    /// A number.
    Num(u64),
}

/// One value's place: the field, and its number or the span of its text.
#[derive(Clone, Copy, Debug)]
struct Slot {
    f: TxField,
    text: bool,
    /// The number, or the text's offset and length (`off << 16 | len`).
    v: u64,
}

const EMPTY: Slot = Slot {
    f: TxField::DnsId,
    text: false,
    v: 0,
};

/// Where a slot of the store stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Free,
    /// Waiting for its answer.
    Open,
    /// Complete, for the engine to take.
    Ready,
}

/// Whose a transaction is: the flow of the packet that opened it, as the engine handed it over
/// ([`Packet`](crate::Packet)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Who {
    /// The engine's number for the flow ([`Packet::flow`](crate::Packet::flow)).
    pub flow: u64,
    /// The client's address and port.
    pub client: (IpAddr, u16),
    /// The server's address and port.
    pub server: (IpAddr, u16),
    /// IP protocol number.
    pub ip_proto: u8,
}

impl Default for Who {
    fn default() -> Self {
        Who {
            flow: 0,
            client: (crate::NO_ADDR, 0),
            server: (crate::NO_ADDR, 0),
            ip_proto: 0,
        }
    }
}

/// One transaction: its kind, flow, times, and values (fixed size, reused).
#[derive(Clone)]
pub struct Tx {
    kind: TxKind,
    who: Who,
    state: State,
    /// Capture time of the packet that opened it, ns.
    ts: u64,
    /// Capture time of the packet that completed it (the answer, the response), ns; 0 when it
    /// was completed without one.
    end_ts: u64,
    /// The flow's inspection handle (while open).
    flow: u32,
    /// What an answer is matched by (the DNS id).
    key: u32,
    /// Opening order, for completing the oldest first.
    seq: u64,
    n: usize,
    vals: [Slot; TX_VALUES],
    used: usize,
    text: [u8; TX_TEXT],
    /// A value was cut or left out.
    truncated: bool,
}

impl std::fmt::Debug for Tx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tx")
            .field("kind", &self.kind)
            .field("ts", &self.ts)
            .field("end_ts", &self.end_ts)
            .field("vals", &self.iter().collect::<Vec<_>>())
            .finish()
    }
}

impl Tx {
    fn new() -> Self {
        Tx {
            kind: TxKind::Dns,
            who: Who::default(),
            state: State::Free,
            ts: 0,
            end_ts: 0,
            flow: 0,
            key: 0,
            seq: 0,
            n: 0,
            vals: [EMPTY; TX_VALUES],
            used: 0,
            text: [0; TX_TEXT],
            truncated: false,
        }
    }

    /// Which log it belongs to.
    pub fn kind(&self) -> TxKind {
        self.kind
    }

    /// Its flow: the engine's number for it and its end-points. (A transaction completed early
    /// to make room is taken after another flow's packet: it says whose it is.)
    pub fn who(&self) -> &Who {
        &self.who
    }

    /// Capture time of the packet that opened it (the query, the request, the ClientHello), ns.
    pub fn ts(&self) -> u64 {
        self.ts
    }

    /// Capture time of the packet that answered it, ns, if one did.
    pub fn end_ts(&self) -> Option<u64> {
        (self.end_ts != 0).then_some(self.end_ts)
    }

    /// Was a value cut at its cap, or left out for want of room?
    pub fn truncated(&self) -> bool {
        self.truncated
    }

    /// Every value, in the order written.
    pub fn iter(&self) -> impl Iterator<Item = (TxField, TxVal<'_>)> + '_ {
        self.vals.iter().take(self.n).map(|s| (s.f, self.val(s)))
    }

    /// The first value of `f` (only its text is read as text).
    pub fn get(&self, f: TxField) -> Option<TxVal<'_>> {
        self.all(f).next()
    }

    /// Every value of `f`, in the order written (only their texts are read as text).
    pub fn all(&self, f: TxField) -> impl Iterator<Item = TxVal<'_>> + '_ {
        self.vals
            .iter()
            .take(self.n)
            .filter(move |s| s.f == f)
            .map(|s| self.val(s))
    }

    /// The first text of `f`.
    pub fn text(&self, f: TxField) -> Option<&str> {
        match self.get(f)? {
            TxVal::Text(t) => Some(t),
            TxVal::Num(_) => None,
        }
    }

    /// The first number of `f`.
    pub fn num(&self, f: TxField) -> Option<u64> {
        match self.get(f)? {
            TxVal::Num(n) => Some(n),
            TxVal::Text(_) => None,
        }
    }

    fn val(&self, s: &Slot) -> TxVal<'_> {
        if !s.text {
            return TxVal::Num(s.v);
        }
        let (off, len) = ((s.v >> 16) as usize, (s.v & 0xffff) as usize);
        // Only valid UTF-8 is ever stored.
        TxVal::Text(
            self.text
                .get(off..off + len)
                .and_then(|b| std::str::from_utf8(b).ok())
                .unwrap_or(""),
        )
    }

    fn reset(&mut self, kind: TxKind, who: Who, flow: u32, key: u32, ts: u64, seq: u64) {
        self.kind = kind;
        self.who = who;
        self.ts = ts;
        self.end_ts = 0;
        self.flow = flow;
        self.key = key;
        self.seq = seq;
        self.n = 0;
        self.used = 0;
        self.truncated = false;
    }

    /// Add the number `v` of `f`.
    pub fn set_num(&mut self, f: TxField, v: u64) {
        match self.vals.get_mut(self.n) {
            Some(s) => {
                *s = Slot { f, text: false, v };
                self.n += 1;
            }
            None => self.truncated = true,
        }
    }

    /// Add the text `v` of `f`, cut at the field's cap, written as tshark shows text (see
    /// [`Meta`](crate::Meta)); an empty value is not added. False when nothing was added (an
    /// empty value, or no room left: counted as truncated). A number added after a text needs
    /// a value's room too: `set_text` leaves one.
    pub fn set_text(&mut self, f: TxField, v: &[u8]) -> bool {
        if v.is_empty() {
            return false;
        }
        if self.n + 1 >= TX_VALUES {
            self.truncated = true;
            return false;
        }
        let room = f.cap().min(TX_TEXT - self.used);
        let Some(dst) = self.text.get_mut(self.used..self.used + room) else {
            self.truncated = true;
            return false;
        };
        let mut cut = false;
        let n = if v.iter().all(|&b| (0x20..0x7f).contains(&b)) {
            let n = v.len().min(dst.len());
            dst[..n].copy_from_slice(&v[..n]);
            cut = n < v.len();
            n
        } else {
            escape_into(dst, v, &mut cut)
        };
        self.truncated |= cut;
        if n == 0 {
            return false;
        }
        self.vals[self.n] = Slot {
            f,
            text: true,
            v: (self.used as u64) << 16 | n as u64,
        };
        self.n += 1;
        self.used += n;
        true
    }

    /// Remove every value (to write them all again: a TLS handshake's as they stand now).
    pub fn clear(&mut self) {
        self.n = 0;
        self.used = 0;
        self.truncated = false;
    }
}

/// Buckets of [`Events`]' count of open transactions by flow.
const OPEN_BUCKETS: usize = 1024;

/// The bucket of flow handle `flow`.
#[inline]
fn bucket(flow: u32) -> usize {
    flow as usize % OPEN_BUCKETS
}

/// The transactions of one [`Dpi`](crate::Dpi): open ones by flow, complete ones in order.
pub struct Events {
    txs: Vec<Tx>,
    free: Vec<u16>,
    /// Complete transactions, in the order completed.
    ready: Vec<u16>,
    /// The open transactions, as (flow, slot): at most [`MAX_OPEN`] (room reserved in
    /// [`Events::new`]). A flow's open transactions are found here, not by reading every slot
    /// (2 KB each): reading all [`SLOTS`] at each flow's end and each new transaction took
    /// `--events` from 768 to 1,242 instructions a packet of the corpus mix ×2.
    open: Vec<(u32, u16)>,
    /// How many of `open` are of a flow whose handle falls in each bucket (handle mod
    /// [`OPEN_BUCKETS`]): a flow with none open is told at once, without reading `open`.
    open_in: Box<[u16; OPEN_BUCKETS]>,
    seq: u64,
    /// Transactions lost because no slot was free (only when the complete ones are not taken).
    pub dropped: u64,
    /// Transactions completed (with their answer or without).
    pub completed: u64,
    /// Open transactions completed before their answer because their flow or the store held
    /// too many.
    pub early: u64,
    /// Capture time of the packet being inspected, ns.
    pub(crate) now: u64,
    /// Its flow.
    pub(crate) who: Who,
}

impl std::fmt::Debug for Events {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Events")
            .field("open", &self.open.len())
            .field("ready", &self.ready.len())
            .field("dropped", &self.dropped)
            .finish()
    }
}

impl Default for Events {
    fn default() -> Self {
        Events::new()
    }
}

impl Events {
    /// An empty store of [`SLOTS`] transactions (allocated here, once).
    pub fn new() -> Self {
        Events {
            txs: (0..SLOTS).map(|_| Tx::new()).collect(),
            free: (0..SLOTS as u16).rev().collect(),
            ready: Vec::with_capacity(SLOTS),
            open: Vec::with_capacity(MAX_OPEN + 1),
            open_in: Box::new([0; OPEN_BUCKETS]),
            seq: 0,
            dropped: 0,
            completed: 0,
            early: 0,
            now: 0,
            who: Who::default(),
        }
    }

    /// The complete transactions, in the order completed.
    pub fn ready(&self) -> impl Iterator<Item = &Tx> + '_ {
        self.ready
            .iter()
            .filter_map(|&i| self.txs.get(usize::from(i)))
    }

    /// Are there complete transactions to take?
    #[inline]
    pub fn has_ready(&self) -> bool {
        !self.ready.is_empty()
    }

    /// Forget the complete transactions (taken), freeing their slots.
    pub fn clear_ready(&mut self) {
        for &i in &self.ready {
            if let Some(t) = self.txs.get_mut(usize::from(i)) {
                t.state = State::Free;
                self.free.push(i);
            }
        }
        self.ready.clear();
    }

    /// Transactions waiting for their answer.
    pub fn open_count(&self) -> usize {
        self.open.len()
    }

    /// A free slot; None (counted as dropped) when none is.
    fn slot(&mut self) -> Option<usize> {
        let i = self.free.pop().map(usize::from);
        if i.is_none() {
            self.dropped += 1;
        }
        i
    }

    fn complete_at(&mut self, i: usize, answered: bool) {
        let now = self.now;
        if let Some(t) = self.txs.get_mut(i) {
            if t.state == State::Open {
                if let Some(k) = self.open.iter().position(|&(_, s)| usize::from(s) == i) {
                    let (flow, _) = self.open.swap_remove(k);
                    let n = &mut self.open_in[bucket(flow)];
                    *n = n.saturating_sub(1);
                }
            }
            t.state = State::Ready;
            if answered {
                t.end_ts = now;
            }
            self.ready.push(i as u16);
            self.completed += 1;
        }
    }

    /// A new transaction of `kind` for flow `flow`, complete as soon as it is filled; None
    /// when no slot is free (counted).
    pub(crate) fn add(&mut self, kind: TxKind, flow: u32) -> Option<&mut Tx> {
        let i = self.slot()?;
        self.seq += 1;
        self.completed += 1;
        let (now, seq, who) = (self.now, self.seq, self.who);
        self.ready.push(i as u16);
        let t = self.txs.get_mut(i)?;
        t.reset(kind, who, flow, 0, now, seq);
        t.state = State::Ready;
        Some(t)
    }

    /// A new open transaction of `kind` for flow `flow`, to be answered by `key`; a flow already
    /// holding [`PER_FLOW`] has its oldest completed first.
    pub(crate) fn open(&mut self, kind: TxKind, flow: u32, key: u32) -> Option<&mut Tx> {
        let mine = match self.open_in[bucket(flow)] {
            0 => 0,
            _ => self.open.iter().filter(|&&(f, _)| f == flow).count(),
        };
        let oldest = if mine >= PER_FLOW {
            self.oldest(flow, |_| true)
        } else if self.open.len() >= MAX_OPEN {
            self.oldest_any()
        } else {
            None
        };
        if let Some(i) = oldest {
            self.early += 1;
            self.complete_at(i, false);
        }
        let i = self.slot()?;
        self.seq += 1;
        self.open.push((flow, i as u16));
        let n = &mut self.open_in[bucket(flow)];
        *n = n.saturating_add(1);
        let (now, seq, who) = (self.now, self.seq, self.who);
        let t = self.txs.get_mut(i)?;
        t.reset(kind, who, flow, key, now, seq);
        t.state = State::Open;
        Some(t)
    }

    /// The oldest open transaction of `flow` that `pick` accepts.
    fn oldest(&self, flow: u32, pick: impl Fn(&Tx) -> bool) -> Option<usize> {
        if self.open_in[bucket(flow)] == 0 {
            return None;
        }
        self.open
            .iter()
            .filter(|&&(f, _)| f == flow)
            .filter_map(|&(_, s)| {
                let t = self.txs.get(usize::from(s))?;
                pick(t).then_some((t.seq, usize::from(s)))
            })
            .min()
            .map(|(_, i)| i)
    }

    /// The oldest open transaction of any flow.
    fn oldest_any(&self) -> Option<usize> {
        self.open
            .iter()
            .filter_map(|&(_, s)| Some((self.txs.get(usize::from(s))?.seq, usize::from(s))))
            .min()
            .map(|(_, i)| i)
    }

    /// The oldest open transaction of `kind` of flow `flow` (with `key`, when given), still
    /// open.
    pub(crate) fn find(&mut self, kind: TxKind, flow: u32, key: Option<u32>) -> Option<&mut Tx> {
        if self.open.is_empty() {
            return None;
        }
        let i = self.oldest(flow, |t| t.kind == kind && key.is_none_or(|k| t.key == k))?;
        self.txs.get_mut(i)
    }

    /// Complete the oldest open transaction of `kind` of flow `flow` (with `key`, when given) as
    /// answered by the packet being inspected; it is returned to add the answer's values.
    pub(crate) fn answer(&mut self, kind: TxKind, flow: u32, key: Option<u32>) -> Option<&mut Tx> {
        if self.open.is_empty() {
            return None;
        }
        let i = self.oldest(flow, |t| t.kind == kind && key.is_none_or(|k| t.key == k))?;
        self.complete_at(i, true);
        self.txs.get_mut(i)
    }

    /// Complete every open transaction of flow `flow` as it is (its inspection or the flow
    /// ended), oldest first.
    pub(crate) fn flush(&mut self, flow: u32) {
        while !self.open.is_empty() {
            match self.oldest(flow, |_| true) {
                Some(i) => self.complete_at(i, false),
                None => break,
            }
        }
    }
}

/// What an inspector sees of the store: it and the flow's handle.
pub struct EvCx<'a> {
    pub(crate) ev: &'a mut Events,
    pub(crate) flow: u32,
}

impl EvCx<'_> {
    /// A complete transaction of `kind` (no answer awaited), to fill now.
    pub fn add(&mut self, kind: TxKind) -> Option<&mut Tx> {
        self.ev.add(kind, self.flow)
    }

    /// An open transaction of `kind`, answered later by [`EvCx::answer`] with the same `key`.
    pub fn open(&mut self, kind: TxKind, key: u32) -> Option<&mut Tx> {
        self.ev.open(kind, self.flow, key)
    }

    /// This flow's oldest open transaction of `kind` (with `key`, when given), still open.
    pub fn find(&mut self, kind: TxKind, key: Option<u32>) -> Option<&mut Tx> {
        self.ev.find(kind, self.flow, key)
    }

    /// Complete this flow's oldest open transaction of `kind` (with `key`, when given) as
    /// answered by this packet; None when none is open.
    pub fn answer(&mut self, kind: TxKind, key: Option<u32>) -> Option<&mut Tx> {
        self.ev.answer(kind, self.flow, key)
    }

    /// This flow's oldest open transaction of `kind`, else a new open one (key 0).
    pub fn find_or_open(&mut self, kind: TxKind) -> Option<&mut Tx> {
        let open =
            !self.ev.open.is_empty() && self.ev.oldest(self.flow, |t| t.kind == kind).is_some();
        if open {
            self.find(kind, None)
        } else {
            self.open(kind, 0)
        }
    }

    /// [`EvCx::answer`], else a complete transaction of `kind` alone ([`EvCx::add`]): the
    /// transaction and whether it was open (its opening values are there).
    pub fn answer_or_add(&mut self, kind: TxKind, key: Option<u32>) -> Option<(&mut Tx, bool)> {
        let open = !self.ev.open.is_empty()
            && self
                .ev
                .oldest(self.flow, |t| {
                    t.kind == kind && key.is_none_or(|k| t.key == k)
                })
                .is_some();
        if open {
            self.answer(kind, key).map(|t| (t, true))
        } else {
            self.add(kind).map(|t| (t, false))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{DpiConfig, Packet};

    /// An event as the tests see it: kind, values as text, times.
    type Seen = (TxKind, String, u64, Option<u64>);

    /// A flow of `pkts` (`true`: from the client; payload; capture time) on `port` through a
    /// fresh engine, with events or without: the events, the flow's metadata, and the labels
    /// reported.
    fn flow(
        tcp: bool,
        port: u16,
        pkts: &[(bool, &[u8], u64)],
        events: bool,
    ) -> (Vec<Seen>, String, Vec<String>) {
        let (mut dpi, labels) = crate::tests::engine(DpiConfig::default());
        if events {
            dpi.enable_events();
        }
        let mut h = crate::NO_HANDLE;
        let mut seq = [1000u32, 9000u32];
        let (mut got, mut named) = (Vec::new(), Vec::new());
        let take = |dpi: &mut crate::Dpi, got: &mut Vec<_>| {
            if let Some(ev) = dpi.events() {
                for t in ev.ready() {
                    assert_eq!(t.who().flow, 77);
                    assert_eq!(t.who().server.1, port);
                    let vals: Vec<String> = t
                        .iter()
                        .map(|(f, v)| match v {
                            TxVal::Text(s) => format!("{f:?}={s}"),
                            TxVal::Num(n) => format!("{f:?}={n}"),
                        })
                        .collect();
                    got.push((t.kind(), vals.join(" "), t.ts(), t.end_ts()));
                }
                ev.clear_ready();
            }
        };
        for &(up, payload, ts) in pkts {
            let d = usize::from(!up);
            let p = Packet {
                ip_proto: if tcp { 6 } else { 17 },
                server_port: port,
                client_port: 40000,
                from_client: up,
                seq: seq[d],
                multicast: false,
                server_ip: crate::NO_ADDR,
                client_ip: crate::NO_ADDR,
                payload,
                ts,
                flow: 77,
                owner: 0,
            };
            seq[d] = seq[d].wrapping_add(payload.len() as u32);
            if let Some(l) = dpi.inspect(&mut h, &p) {
                named.push(labels.get(l).app().to_string());
            }
            take(&mut dpi, &mut got);
        }
        let meta = format!("{:?}", dpi.meta(h));
        dpi.release(&mut h);
        take(&mut dpi, &mut got);
        (got, meta, named)
    }

    /// A DNS message: header, one question of `name` (type A, class IN), and `answers` (type,
    /// rdata) each owned by the question's name, TTL 60.
    fn dns(id: u16, flags: u16, name: &str, answers: &[(u16, &[u8])]) -> Vec<u8> {
        let mut m = Vec::new();
        for v in [id, flags, 1, answers.len() as u16, 0, 0] {
            m.extend_from_slice(&v.to_be_bytes());
        }
        for l in name.split('.') {
            m.push(l.len() as u8);
            m.extend_from_slice(l.as_bytes());
        }
        m.extend_from_slice(&[0, 0, 1, 0, 1]);
        for (t, rdata) in answers {
            m.extend_from_slice(&[0xc0, 12]);
            m.extend_from_slice(&t.to_be_bytes());
            m.extend_from_slice(&[0, 1, 0, 0, 0, 60]);
            m.extend_from_slice(&(rdata.len() as u16).to_be_bytes());
            m.extend_from_slice(rdata);
        }
        m
    }

    #[test]
    fn dns_queries_pair_with_their_answers() {
        // `cdn.example` as a CNAME target: 3 labels, then the root.
        let cname = b"\x03cdn\x07example\x00";
        let q1 = dns(0x1234, 0x0100, "a.example", &[]);
        let q2 = dns(0x5678, 0x0100, "b.example", &[]);
        let r1 = dns(
            0x1234,
            0x8180,
            "a.example",
            &[(5, cname), (1, &[192, 0, 2, 1])],
        );
        let r3 = dns(0x9abc, 0x8183, "c.example", &[]);
        let pkts: [(bool, &[u8], u64); 4] = [
            (true, &q1, 1_000_000),
            (true, &q2, 2_000_000),
            (false, &r1, 3_500_000),
            (false, &r3, 4_000_000),
        ];
        let (ev, meta, _) = flow(false, 53, &pkts, true);
        let want = [
            (
                TxKind::Dns,
                "DnsId=4660 DnsQuery=a.example DnsQtype=1 DnsQclass=1 DnsFlags=4 DnsRcode=0 \
                 DnsFlags=12 DnsAnswer=cdn.example DnsTtl=60 DnsAnswer=192.0.2.1 DnsTtl=60"
                    .to_string(),
                1_000_000,
                Some(3_500_000),
            ),
            // An answer whose query was not seen: alone, with its question.
            (
                TxKind::Dns,
                "DnsId=39612 DnsQuery=c.example DnsQtype=1 DnsQclass=1 DnsRcode=3 DnsFlags=12"
                    .to_string(),
                4_000_000,
                None,
            ),
            // Never answered: complete as it is when the flow ends.
            (
                TxKind::Dns,
                "DnsId=22136 DnsQuery=b.example DnsQtype=1 DnsQclass=1 DnsFlags=4".to_string(),
                2_000_000,
                None,
            ),
        ];
        assert_eq!(ev, want);
        // The record is the same with events or without.
        let (none, meta_off, _) = flow(false, 53, &pkts, false);
        assert!(none.is_empty());
        assert_eq!(meta, meta_off);
    }

    #[test]
    fn every_http_request_of_a_persistent_connection() {
        let req = |path: &str| {
            format!("GET {path} HTTP/1.1\r\nHost: h.example\r\nUser-Agent: ua/1\r\n\r\n")
        };
        let resp = |code: u16, body: &str| {
            format!(
                "HTTP/1.1 {code} X\r\nContent-Type: text/plain\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            )
        };
        let (r1, r2, r3, r4) = (req("/1"), req("/2"), req("/3"), req("/4"));
        // Two pipelined in one segment, answered in one segment too.
        let (p34, a34) = (r3.clone() + &r4, resp(200, "three") + &resp(404, "four!"));
        let (a1, a2) = (resp(200, "one"), resp(301, ""));
        let mut pkts: Vec<(bool, &[u8], u64)> = vec![
            (true, r1.as_bytes(), 10),
            (false, a1.as_bytes(), 20),
            (true, r2.as_bytes(), 30),
            (false, a2.as_bytes(), 40),
            (true, p34.as_bytes(), 50),
            (false, a34.as_bytes(), 60),
        ];
        // Past the record's budget of 8 payload packets a direction: still followed.
        let (r5, a5) = (req("/5"), resp(200, "5"));
        for k in 0..10 {
            pkts.push((true, r5.as_bytes(), 100 + 2 * k));
            pkts.push((false, a5.as_bytes(), 101 + 2 * k));
        }
        let (ev, meta, named) = flow(true, 80, &pkts, true);
        let line = |d: u32, path: &str, code: u16, ct: &str, len: usize| {
            format!(
                "HttpDepth={d} HttpMethod=GET HttpHost=h.example HttpUri={path} \
                 HttpUserAgent=ua/1 HttpStatus={code}{ct} HttpRespLen={len}"
            )
        };
        let ct = " HttpContentType=text/plain";
        assert_eq!(ev.len(), 14, "{ev:#?}");
        assert_eq!(
            ev[0],
            (TxKind::Http, line(1, "/1", 200, ct, 3), 10, Some(20))
        );
        assert_eq!(
            ev[1],
            (TxKind::Http, line(2, "/2", 301, ct, 0), 30, Some(40))
        );
        assert_eq!(
            ev[2],
            (TxKind::Http, line(3, "/3", 200, ct, 5), 50, Some(60))
        );
        assert_eq!(
            ev[3],
            (TxKind::Http, line(4, "/4", 404, ct, 5), 50, Some(60))
        );
        assert_eq!(
            ev[13],
            (TxKind::Http, line(14, "/5", 200, ct, 1), 118, Some(119))
        );
        // The record is the first request's, with events or without; so is the label.
        let (none, meta_off, named_off) = flow(true, 80, &pkts, false);
        assert!(none.is_empty());
        assert_eq!(meta, meta_off);
        assert_eq!(named, named_off);
        assert!(
            meta.contains("h.example/1") && !meta.contains("/5"),
            "{meta}"
        );
    }

    /// One event per handshake, complete once the server's certificate is read, with what the
    /// record holds (the vectors of `server_certificate_names_over_two_segments_and_the_cap`).
    #[test]
    fn a_tls_handshake_is_one_event_with_the_records_values() {
        let hello = crate::tests::parse_hex(include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/vectors/tls_client_hello.hex"
        )));
        let flight = crate::tests::parse_hex(include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/vectors/tls_server_flight_94.hex"
        )));
        let (a, b) = flight.split_at(300);
        let pkts: [(bool, &[u8], u64); 3] = [(true, &hello, 5), (false, a, 6), (false, b, 7)];
        let (ev, meta, _) = flow(true, 443, &pkts, true);
        assert_eq!(ev.len(), 1, "{ev:?}");
        let (kind, vals, ts, _) = &ev[0];
        assert_eq!((*kind, *ts), (TxKind::Tls, 5));
        for f in [
            "TlsVersion=TLSv1.2",
            "TlsSubject=CN=shop.ntop.org,OU=PositiveSSL,OU=Domain Control Validated",
            "TlsIssuer=CN=COMODO RSA Domain Validation Secure Server CA,",
            "TlsJa3=",
            "TlsJa4=",
            "TlsCipher=",
        ] {
            assert!(vals.contains(f), "{f} in {vals}");
        }
        let (none, meta_off, _) = flow(true, 443, &pkts, false);
        assert!(none.is_empty());
        assert_eq!(meta, meta_off);
    }

    proptest::proptest! {
        /// Whatever the packets, events change nothing of the record (metadata, labels), and
        /// their texts hold no control character.
        #[test]
        fn events_never_change_the_record(
            port in proptest::sample::select(vec![53u16, 80, 443, 5353, 8080, 1234]),
            tcp in proptest::bool::ANY,
            pkts in proptest::collection::vec(
                (proptest::bool::ANY, proptest::collection::vec(proptest::num::u8::ANY, 0..200)),
                1..24),
            seed in proptest::sample::select(vec![
                b"GET / HTTP/1.1\r\nHost: a\r\n\r\n".to_vec(),
                b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".to_vec(),
                vec![0x12, 0x34, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, b'a', 0, 0, 1, 0, 1],
                Vec::new(),
            ]),
        ) {
            // Some packets start as the protocol would, the rest of them arbitrary.
            let pkts: Vec<(bool, Vec<u8>, u64)> = pkts
                .into_iter()
                .enumerate()
                .map(|(i, (up, tail))| {
                    let mut b = if i % 2 == 0 { seed.clone() } else { Vec::new() };
                    b.extend_from_slice(&tail);
                    (up, b, i as u64 + 1)
                })
                .collect();
            let view: Vec<(bool, &[u8], u64)> =
                pkts.iter().map(|(u, b, t)| (*u, b.as_slice(), *t)).collect();
            let (ev, meta, named) = flow(tcp, port, &view, true);
            let (none, meta_off, named_off) = flow(tcp, port, &view, false);
            proptest::prop_assert!(none.is_empty());
            proptest::prop_assert_eq!(meta, meta_off);
            proptest::prop_assert_eq!(named, named_off);
            for (_, vals, _, _) in &ev {
                proptest::prop_assert!(!vals.chars().any(char::is_control), "{}", vals);
            }
        }
    }

    /// The store on its own: flows whose handles share a bucket of the open count (5, 1029,
    /// 2053) keep their own transactions; answers pair by flow and key, oldest first; a flow's
    /// end completes only its own; the limits per flow and in all still complete the oldest.
    #[test]
    fn open_transactions_by_flow_whatever_their_bucket() {
        let mut e = Events::new();
        let (a, b, c) = (5u32, 5 + OPEN_BUCKETS as u32, 5 + 2 * OPEN_BUCKETS as u32);
        for (flow, key) in [(a, 1), (b, 1), (a, 2), (c, 7)] {
            assert!(e.open(TxKind::Dns, flow, key).is_some());
        }
        assert_eq!(e.open_count(), 4);
        assert!(e.find(TxKind::Dns, 6, None).is_none());
        assert!(e.find(TxKind::Http, a, None).is_none());
        // b's key 1, not a's.
        assert_eq!(e.answer(TxKind::Dns, b, Some(1)).map(|t| t.flow), Some(b));
        assert!(e.find(TxKind::Dns, b, None).is_none());
        // a's oldest first.
        assert_eq!(e.find(TxKind::Dns, a, None).map(|t| t.key), Some(1));
        e.flush(a);
        assert_eq!(e.open_count(), 1);
        assert!(e.find(TxKind::Dns, a, None).is_none());
        assert_eq!(e.find(TxKind::Dns, c, None).map(|t| t.key), Some(7));
        e.flush(c);
        assert_eq!((e.open_count(), e.completed, e.early), (0, 4, 0));
        e.clear_ready();
        // PER_FLOW open in one flow: the next completes its oldest early.
        for k in 0..=PER_FLOW as u32 {
            assert!(e.open(TxKind::Http, b, k).is_some());
        }
        assert_eq!((e.open_count(), e.early), (PER_FLOW, 1));
        assert_eq!(e.find(TxKind::Http, b, None).map(|t| t.key), Some(1));
        e.flush(b);
        e.clear_ready();
        // MAX_OPEN in all (one a flow): the next completes the oldest of any flow.
        for f in 0..MAX_OPEN as u32 {
            assert!(e.open(TxKind::Dns, 100 + f, f).is_some());
        }
        assert!(e.open(TxKind::Dns, a, 9).is_some());
        assert_eq!((e.open_count(), e.early), (MAX_OPEN, 2));
        assert!(e.find(TxKind::Dns, 100, None).is_none());
        assert_eq!(e.find(TxKind::Dns, 101, None).map(|t| t.key), Some(1));
        assert_eq!(e.find(TxKind::Dns, a, None).map(|t| t.key), Some(9));
    }

    /// The store's memory (docs/EVENTS.md says under 3 KiB a transaction).
    #[test]
    fn a_transaction_is_under_3_kib() {
        assert!(
            std::mem::size_of::<Tx>() < 3 * 1024,
            "{}",
            std::mem::size_of::<Tx>()
        );
    }

    #[test]
    fn texts_are_capped_escaped_and_numbers_kept() {
        let mut ev = Events::new();
        ev.now = 7;
        let t = ev.add(TxKind::Http, 1).unwrap();
        t.set_text(TxField::HttpMethod, b"GET-WITH-A-VERY-LONG-NAME");
        t.set_text(TxField::HttpHost, b"a\x01b\xffc");
        t.set_num(TxField::HttpStatus, 200);
        t.set_text(TxField::HttpUri, b"");
        assert_eq!(t.text(TxField::HttpMethod), Some("GET-WITH-A-VERY-"));
        assert_eq!(t.text(TxField::HttpHost), Some("a\\001b\u{fffd}c"));
        assert_eq!(t.num(TxField::HttpStatus), Some(200));
        assert_eq!(t.get(TxField::HttpUri), None);
        assert!(t.truncated());
        assert_eq!(t.ts(), 7);
        assert_eq!(ev.ready().count(), 1);
        ev.clear_ready();
        assert_eq!(ev.ready().count(), 0);
    }

    #[test]
    fn the_text_area_and_values_never_overflow() {
        let mut ev = Events::new();
        let t = ev.add(TxKind::Dns, 1).unwrap();
        for _ in 0..100 {
            t.set_text(TxField::DnsAnswer, &[b'x'; 300]);
            t.set_num(TxField::DnsTtl, 60);
        }
        assert!(t.truncated());
        assert!(t.iter().count() <= TX_VALUES);
        let text: usize = t
            .iter()
            .map(|(_, v)| match v {
                TxVal::Text(s) => s.len(),
                TxVal::Num(_) => 0,
            })
            .sum();
        assert!(text <= TX_TEXT);
    }

    #[test]
    fn answers_match_their_query_and_flows_flush() {
        let mut ev = Events::new();
        ev.now = 100;
        ev.open(TxKind::Dns, 5, 0x1234)
            .unwrap()
            .set_text(TxField::DnsQuery, b"a.example");
        ev.open(TxKind::Dns, 5, 0x9999)
            .unwrap()
            .set_text(TxField::DnsQuery, b"b.example");
        ev.open(TxKind::Http, 6, 0).unwrap();
        ev.now = 250;
        let a = ev.answer(TxKind::Dns, 5, Some(0x9999)).unwrap();
        a.set_num(TxField::DnsRcode, 0);
        assert!(ev.answer(TxKind::Dns, 5, Some(0x4444)).is_none());
        let got: Vec<_> = ev
            .ready()
            .map(|t| (t.text(TxField::DnsQuery), t.ts(), t.end_ts()))
            .collect();
        assert_eq!(got, [(Some("b.example"), 100, Some(250))]);
        ev.clear_ready();
        ev.flush(5);
        let got: Vec<_> = ev
            .ready()
            .map(|t| (t.text(TxField::DnsQuery), t.end_ts()))
            .collect();
        assert_eq!(got, [(Some("a.example"), None)]);
        assert_eq!(ev.open_count(), 1);
        ev.clear_ready();
        ev.flush(6);
        assert_eq!(ev.ready().count(), 1);
    }

    #[test]
    fn a_flow_holds_at_most_per_flow_open_and_the_store_is_bounded() {
        let mut ev = Events::new();
        for k in 0..(PER_FLOW as u32 + 3) {
            ev.open(TxKind::Dns, 9, k).unwrap();
        }
        assert_eq!(ev.open_count(), PER_FLOW);
        assert_eq!(ev.ready().count(), 3);
        assert_eq!(ev.early, 3);
        // Many flows, never taken: the open ones stay under their bound, the oldest completed
        // early; once the slots are all complete and untaken, new ones are dropped.
        for f in 0..(2 * SLOTS as u32) {
            let _ = ev.open(TxKind::Dns, 100 + f, 0);
            assert!(ev.open_count() <= MAX_OPEN);
        }
        assert!(ev.open_count() + ev.ready().count() <= SLOTS);
        assert!(ev.dropped > 0);
        ev.clear_ready();
        assert!(ev.open(TxKind::Dns, 1, 0).is_some());
    }
}
