//! Connections that one flow announces for another (FTP's data connections, from the control
//! connection's `PASV`/`EPSV` replies and `PORT`/`EPRT` commands: [`wirespeed_dpi::Expect`]),
//! shared by a run's workers: a flow's payload inspection adds one, and the announced
//! connection, on whichever worker it lands, is named by it at its first payload packet.
//!
//! Bounded by configuration, never by traffic: at most [`CAPACITY`] expectations, oldest
//! dropped first (counted), each used once, and good for [`TTL_NS`] of capture time and
//! [`LIFE_PACKETS`] packets of the input after the announcement. The table is looked at only
//! while it holds something (one atomic load per new flow otherwise).
//!
//! The same answers whatever the number of workers: an expectation is good for a packet only
//! if the announcement came before it in the input (by the packets' numbers, [`PacketView`]'s
//! `ordinal`), and its age is checked by the connection's own packet. Workers run apart from
//! each other in the input by at most `skew` packets (the shared scan's chunks in flight, the
//! reader thread's rings: [`Expectations::with_workers`]); an entry is removed for age only once
//! it is [`LIFE_PACKETS`] + `skew` packets old, when no worker can still use it. Aging entries
//! by capture time, as before, let a worker ahead in the input (into the next capture of a
//! concatenation, years later) drop an announcement the other worker was about to use: one
//! FTP data connection of the corpus mix was named by its payload one run in 25 (Python's
//! timing made it show). Left: which entry [`CAPACITY`] drops, when the table is full, depends
//! on the order the workers' announcements arrived in.
//!
//! # Waiting for the announcing worker
//!
//! The announcement is added by the control connection's worker when it gets to that packet;
//! the data connection may be on another worker, ahead of it in the input. So the dispatcher,
//! which reads every packet in the input's order before any worker runs it, reads the
//! announcements of port 21 itself ([`crate::runtime::watch`]) and *watches* each announced
//! connection: it notes the announcing packet's number and the workers whose packets must be run
//! before the connection's first payload is looked up (the control connection's worker, and
//! every worker sent a packet of an announced connection of the same end-points, which might
//! use the announcement up first). Each worker publishes how far it has run
//! ([`Expectations::progress`]); a worker about to look up a watched connection at packet `at`
//! first waits until each of those workers has run every packet of its own before `at`
//! ([`Expectations::take`]). Then the table holds exactly what one worker would have added and
//! taken by then. Nothing else waits: the wait is for a watched connection's first payload only
//! (a few per FTP session). Left, as before: an announcement the dispatcher cannot read
//! from one packet (split over two TCP segments) is not watched, and its connection's naming may
//! depend on the workers' timing when it lands on another worker than its control connection.
//!
//! [`PacketView`]: crate::classify::PacketView

use crossbeam_utils::CachePadded;
use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use wirespeed_classify::LabelId;
use wirespeed_dpi::Expect;

/// Most expectations held at once.
pub const CAPACITY: usize = 4096;
/// How long an expectation waits for its connection, in capture time (ns).
pub const TTL_NS: u64 = 120_000_000_000;
/// How long an expectation waits for its connection, in packets of the input (an FTP data
/// connection begins a round trip after its announcement: 4 s of a 1 Mpps link).
pub const LIFE_PACKETS: u64 = 1 << 22;

#[derive(Clone, Copy, Debug)]
struct Entry {
    e: Expect,
    label: LabelId,
    until: u64,
    /// The announcing packet's number in the input.
    at: u64,
}

/// Most connections watched at once ([`Expectations::watch`]).
pub const WATCH_CAPACITY: usize = 16_384;

/// An announced connection's end-points: (client, server, server port).
pub type Key = (IpAddr, IpAddr, u16);

/// What the dispatcher knows of one announced connection.
#[derive(Clone, Copy, Debug)]
struct Watched {
    /// The first and the latest announcing packet's number.
    first: u64,
    last: u64,
    /// Workers whose packets before a lookup must have been run first (bit `i`: worker `i`).
    workers: u128,
    /// Client ports of the connections whose first payload the dispatcher has seen (for a
    /// reader thread's flush, [`Expectations::dispatched`]); `paid` of them.
    ports: [u16; PAID],
    paid: u8,
}

/// Connections of one announced end-point whose first payload the dispatcher remembers; past
/// this, every payload packet of the end-point counts as a first one (correct, only slower).
const PAID: usize = 8;

/// The dispatcher's watched connections.
#[derive(Debug, Default)]
struct Watch {
    keys: HashMap<Key, Watched>,
    /// Keys in the order they were announced, with that announcement's packet number.
    order: VecDeque<(Key, u64)>,
    /// Watched connections per server port (65,536 entries from the first announcement on):
    /// a port's bit in [`Expectations::watch_ports`] is cleared when its last one goes, so
    /// the ports of connections long gone stop costing their packets a lookup.
    per_port: Vec<u16>,
}

/// The run's expectations.
#[derive(Debug, Default)]
pub struct Expectations {
    len: AtomicUsize,
    entries: Mutex<VecDeque<Entry>>,
    /// Expectations dropped because the table was full.
    pub dropped: AtomicU64,
    /// Connections named by an expectation.
    pub met: AtomicU64,
    /// How far apart in the input (packets) the workers sharing the table can be.
    skew: u64,
    /// Connections the dispatcher read announced, and their number (0: lookups never wait).
    watch: Mutex<Watch>,
    watching: AtomicUsize,
    /// Bit `p`: some watched connection's server port is `p`.
    watch_ports: Box<[AtomicU64]>,
    /// Connections not watched: [`WATCH_CAPACITY`] were.
    pub unwatched: AtomicU64,
    /// Worker `i` has run every packet of its own numbered below `progress[i]`.
    progress: Box<[CachePadded<AtomicU64>]>,
    /// The run failed: nobody waits any more.
    aborted: AtomicBool,
    /// Lookups that waited for another worker.
    pub waits: AtomicU64,
    /// Their wall time waiting, ns.
    pub wait_ns: AtomicU64,
}

impl Expectations {
    /// An empty table for one worker.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty table for `workers` workers that run at most `skew` packets of the input apart,
    /// fed by a dispatcher that watches announced connections ([`Expectations::watch`]).
    pub fn with_workers(workers: usize, skew: u64) -> Self {
        Expectations {
            skew,
            watch_ports: (0..1024).map(|_| AtomicU64::new(0)).collect(),
            progress: (0..workers.min(128))
                .map(|_| CachePadded::new(AtomicU64::new(0)))
                .collect(),
            ..Self::default()
        }
    }

    /// A new input begins at packet number `first`: no worker has run any of it.
    pub fn begin(&self, first: u64) {
        for p in self.progress.iter() {
            p.store(first, Ordering::Release);
        }
        self.aborted.store(false, Ordering::Relaxed);
    }

    /// Worker `me` has run every packet of its own numbered below `upto` (`u64::MAX`: all of
    /// the input's).
    #[inline]
    pub fn progress(&self, me: usize, upto: u64) {
        if let Some(p) = self.progress.get(me) {
            p.fetch_max(upto, Ordering::Release);
        }
    }

    /// How far worker `i` has published it has run (tests).
    #[cfg(test)]
    pub(crate) fn progress_of(&self, i: usize) -> u64 {
        self.progress
            .get(i)
            .map_or(0, |p| p.load(Ordering::Acquire))
    }

    /// A worker failed: lookups stop waiting for the others.
    pub fn abort(&self) {
        self.aborted.store(true, Ordering::Relaxed);
    }

    /// The dispatcher read, in packet number `at` of the input (sent to worker `q`), the
    /// announcement of the connection `key`: a lookup of it after `at` waits for `q`.
    /// `Some(true)` if it was not watched before, `None` if it could not be (the table full:
    /// counted).
    pub fn watch(&self, key: Key, q: usize, at: u64) -> Option<bool> {
        let mut w = self.watch.lock().unwrap_or_else(|p| p.into_inner());
        self.prune_watch(&mut w, at);
        let bit = 1u128 << q.min(127);
        let new = if let Some(x) = w.keys.get_mut(&key) {
            // Announced again: aged from now on ([`Expectations::prune_watch`]), one entry still.
            x.workers |= bit;
            x.last = at;
            false
        } else {
            if w.keys.len() >= WATCH_CAPACITY {
                self.unwatched.fetch_add(1, Ordering::Relaxed);
                return None;
            }
            if w.per_port.is_empty() {
                w.per_port = vec![0; 1 << 16];
            }
            if let Some(n) = w.per_port.get_mut(usize::from(key.2)) {
                *n += 1;
            }
            w.keys.insert(
                key,
                Watched {
                    first: at,
                    last: at,
                    workers: bit,
                    ports: [0; PAID],
                    paid: 0,
                },
            );
            if let Some(b) = self.watch_ports.get(usize::from(key.2 >> 6)) {
                b.fetch_or(1 << (key.2 & 63), Ordering::Release);
            }
            w.order.push_back((key, at));
            true
        };
        self.watching.store(w.keys.len(), Ordering::Release);
        Some(new)
    }

    /// Watched connections forget announcements no packet can use any more (see
    /// [`Expectations::prune`]). `order` holds one entry per key, so both are bounded by
    /// [`WATCH_CAPACITY`] however often a connection is announced again: an entry found old
    /// whose key was announced since goes to the back, aged from that announcement.
    fn prune_watch(&self, w: &mut Watch, at: u64) {
        let gone = LIFE_PACKETS.saturating_add(self.skew);
        let mut guard = w.order.len();
        while let Some(&(k, a)) = w.order.front() {
            if at.saturating_sub(a) <= gone || guard == 0 {
                break;
            }
            guard -= 1;
            w.order.pop_front();
            match w.keys.get(&k).map(|x| x.last) {
                Some(last) if at.saturating_sub(last) <= gone => w.order.push_back((k, last)),
                _ => {
                    if w.keys.remove(&k).is_some() {
                        self.unwatch_port(w, k.2);
                    }
                }
            }
        }
        self.watching.store(w.keys.len(), Ordering::Release);
    }

    /// One watched connection of server port `port` is gone: the port's bit goes with its
    /// last one.
    fn unwatch_port(&self, w: &mut Watch, port: u16) {
        if let Some(n) = w.per_port.get_mut(usize::from(port)) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                if let Some(b) = self.watch_ports.get(usize::from(port >> 6)) {
                    b.fetch_and(!(1 << (port & 63)), Ordering::Release);
                }
            }
        }
    }

    /// Connections watched, and entries of their order (tests: both stay bounded).
    #[cfg(test)]
    pub(crate) fn watch_sizes(&self) -> (usize, usize) {
        let w = self.watch.lock().unwrap_or_else(|p| p.into_inner());
        (w.keys.len(), w.order.len())
    }

    /// Is server port `port` some watched connection's? (The dispatcher's own copy of this
    /// answer is [`crate::runtime::watch::Watch::idle`], which asks this one again when it
    /// finds a port's bit set.)
    #[inline(always)]
    pub(crate) fn watched_port(&self, port: u16) -> bool {
        self.watch_ports
            .get(usize::from(port >> 6))
            .is_some_and(|b| b.load(Ordering::Acquire) & (1 << (port & 63)) != 0)
    }

    /// The dispatcher sent worker `q` packet `at` of the TCP connection `client:cport →
    /// server:port` (either direction), `payload` true if it carries payload. If that
    /// connection is watched, `q` joins the workers a lookup of it waits for (it may use the
    /// announcement up first); true if this is the first payload the dispatcher has seen of
    /// that connection (a reader thread sends every worker its packets so far before it: the
    /// lookup may wait on them).
    pub fn dispatched(
        &self,
        key: Key,
        cport: u16,
        q: usize,
        payload: bool,
        at: u64,
    ) -> Option<bool> {
        if self.watching.load(Ordering::Relaxed) == 0 || !self.watched_port(key.2) {
            return None;
        }
        let mut w = self.watch.lock().unwrap_or_else(|p| p.into_inner());
        // Connections age here too, not only at announcements: with none announced any more,
        // the old ones still go, and their ports' packets stop coming here.
        self.prune_watch(&mut w, at);
        let x = w.keys.get_mut(&key).filter(|x| x.first < at)?;
        x.workers |= 1u128 << q.min(127);
        if !payload {
            return Some(false);
        }
        let n = usize::from(x.paid);
        if x.ports[..n].contains(&cport) {
            return Some(false);
        }
        if n < PAID {
            x.ports[n] = cport;
            x.paid += 1;
        }
        Some(true)
    }

    /// Worker `me` is about to look up `key` at packet `at`: if the dispatcher watched it
    /// announced before `at`, wait until every other worker of its announcement has run its
    /// packets before `at`.
    #[cold]
    #[inline(never)]
    fn settle(&self, me: usize, key: Key, at: u64) {
        let workers = {
            let w = self.watch.lock().unwrap_or_else(|p| p.into_inner());
            match w.keys.get(&key) {
                Some(x) if x.first < at => x.workers,
                _ => return,
            }
        };
        let others = workers & !(1u128 << me.min(127));
        if others == 0 {
            return;
        }
        // Every packet of this worker's own before `at` has been run: those waiting on it
        // need not wait for more.
        self.progress(me, at);
        let behind = || {
            self.progress
                .iter()
                .enumerate()
                .any(|(i, p)| others & (1 << i) != 0 && p.load(Ordering::Acquire) < at)
        };
        if !behind() {
            return;
        }
        let t = std::time::Instant::now();
        crate::spin::wait_for(&self.aborted, || !behind());
        self.waits.fetch_add(1, Ordering::Relaxed);
        self.wait_ns
            .fetch_add(t.elapsed().as_nanos() as u64, Ordering::Relaxed);
    }

    /// Entries no worker can use any more at packet `at` (front first: entries are in about
    /// announcement order, within the workers' skew).
    fn prune(&self, q: &mut VecDeque<Entry>, at: u64) {
        let gone = LIFE_PACKETS.saturating_add(self.skew);
        while q.front().is_some_and(|x| at.saturating_sub(x.at) > gone) {
            q.pop_front();
        }
    }

    /// Remember `e`, named `label`, announced by packet number `at` of the input at capture
    /// time `now` (ns).
    pub fn add(&self, e: Expect, label: LabelId, now: u64, at: u64) {
        let mut q = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        self.prune(&mut q, at);
        // The same connection announced again (a retried PASV): one entry.
        q.retain(|x| x.e != e);
        if q.len() >= CAPACITY {
            q.pop_front();
            self.dropped.fetch_add(1, Ordering::Relaxed);
        }
        q.push_back(Entry {
            e,
            label,
            until: now.saturating_add(TTL_NS),
            at,
        });
        self.len.store(q.len(), Ordering::Release);
    }

    /// The label of a TCP connection from `client` to `server`:`port` whose first payload is
    /// packet number `at` of the input, at capture time `now`, if one was announced earlier in
    /// the input (and not yet used, nor too old): used up.
    ///
    /// Worker `me` asks; if the dispatcher watched the connection, the lookup first waits for
    /// the workers that must have run their packets before `at` (see the module's
    /// documentation).
    #[inline]
    pub fn take(
        &self,
        me: usize,
        client: IpAddr,
        server: IpAddr,
        port: u16,
        now: u64,
        at: u64,
    ) -> Option<LabelId> {
        if self.watching.load(Ordering::Acquire) != 0 && self.watched_port(port) {
            self.settle(me, (client, server, port), at);
        }
        if self.len.load(Ordering::Acquire) == 0 {
            return None;
        }
        self.take_slow(client, server, port, now, at)
    }

    #[cold]
    fn take_slow(
        &self,
        client: IpAddr,
        server: IpAddr,
        port: u16,
        now: u64,
        at: u64,
    ) -> Option<LabelId> {
        let mut q = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        self.prune(&mut q, at);
        let k = q.iter().position(|x| {
            x.e.client == client
                && x.e.port == port
                && x.e.servers.contains(&server)
                && x.at < at
                && at - x.at <= LIFE_PACKETS
                && now <= x.until
        });
        let found = k.and_then(|k| q.remove(k)).map(|x| x.label);
        self.len.store(q.len(), Ordering::Release);
        if found.is_some() {
            self.met.fetch_add(1, Ordering::Relaxed);
        }
        found
    }

    /// Forget everything (a new capture file: its times start over).
    pub fn clear(&self) {
        let mut q = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        q.clear();
        self.len.store(0, Ordering::Release);
        let mut w = self.watch.lock().unwrap_or_else(|p| p.into_inner());
        w.keys.clear();
        w.order.clear();
        w.per_port.fill(0);
        self.watching.store(0, Ordering::Release);
        for b in self.watch_ports.iter() {
            b.store(0, Ordering::Relaxed);
        }
    }
}

/// Stops every lookup's wait if its thread unwinds, so none waits for it forever.
pub(crate) struct AbortOnUnwind(pub(crate) std::sync::Arc<Expectations>);

impl Drop for AbortOnUnwind {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.abort();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;

    fn ip(d: u8) -> IpAddr {
        IpAddr::V4(Ipv4Addr::new(192, 0, 2, d))
    }

    fn expect(port: u16) -> Expect {
        Expect {
            client: ip(1),
            servers: [ip(9), ip(2)],
            port,
            label: &wirespeed_dpi::proto::ftp::DATA,
        }
    }

    #[test]
    fn used_once_within_its_time_and_bounded() {
        let t = Expectations::new();
        let l = LabelId::UNKNOWN;
        assert_eq!(t.take(0, ip(1), ip(2), 5000, 0, 1), None);
        t.add(expect(5000), l, 10, 5);
        // Either announced server address; the right client and port only.
        assert_eq!(t.take(0, ip(3), ip(2), 5000, 20, 6), None);
        assert_eq!(t.take(0, ip(1), ip(2), 5001, 20, 6), None);
        assert_eq!(t.take(0, ip(1), ip(9), 5000, 20, 6), Some(l));
        assert_eq!(t.take(0, ip(1), ip(2), 5000, 20, 7), None, "used once");
        t.add(expect(6000), l, 10, 8);
        assert_eq!(
            t.take(0, ip(1), ip(2), 6000, 10 + TTL_NS + 1, 9),
            None,
            "expired"
        );
        assert_eq!(
            t.take(0, ip(1), ip(2), 6000, 20, 9),
            Some(l),
            "kept for its own time"
        );
        for p in 0..CAPACITY as u16 + 5 {
            t.add(expect(p + 1), l, 100, 10 + u64::from(p));
        }
        assert_eq!(t.dropped.load(Ordering::Relaxed), 5);
        let at = 10 + CAPACITY as u64 + 5;
        assert_eq!(t.take(0, ip(1), ip(2), 1, 100, at), None, "oldest dropped");
        assert_eq!(t.take(0, ip(1), ip(2), 6, 100, at), Some(l));
        t.clear();
        assert_eq!(t.take(0, ip(1), ip(2), 7, 100, at), None);
    }

    /// What a packet finds depends on its place in the input, not on what workers ahead of it
    /// did: an announcement later in the input is not seen, and a worker far ahead (a later
    /// capture's times, years on) removes nothing a worker within `skew` behind can still use.
    #[test]
    fn the_answer_depends_on_the_input_order_not_on_the_workers_timing() {
        let l = LabelId::UNKNOWN;
        let skew = 1000;
        let t = Expectations::with_workers(2, skew);
        t.add(expect(5000), l, 10, 500);
        // A connection before the announcement in the input, looked up after it was added.
        assert_eq!(t.take(0, ip(1), ip(2), 5000, 20, 499), None);
        // A worker `skew` ahead, at a time far past the TTL, looks up another connection:
        // nothing is removed for it.
        t.add(expect(7000), l, 10 + 10 * TTL_NS, 500 + skew);
        assert_eq!(
            t.take(0, ip(1), ip(2), 9999, 10 + 10 * TTL_NS, 500 + skew),
            None
        );
        // The worker behind still finds its announcement, at its own time and place.
        assert_eq!(t.take(0, ip(1), ip(2), 5000, 20, 501), Some(l));
        // Too many packets after the announcement: not used, and removed once no worker can.
        t.add(expect(8000), l, 10, 2000);
        assert_eq!(t.take(0, ip(1), ip(2), 8000, 20, 2001 + LIFE_PACKETS), None);
        let ports = |t: &Expectations| -> Vec<u16> {
            t.entries.lock().unwrap().iter().map(|x| x.e.port).collect()
        };
        assert_eq!(ports(&t), [7000, 8000]);
        // `skew` packets past the last packet that could use it, an entry stays; one more, and
        // it goes.
        t.add(expect(8001), l, 10, 2000 + LIFE_PACKETS + skew);
        assert_eq!(ports(&t), [8000, 8001]);
        t.add(expect(8002), l, 10, 2001 + LIFE_PACKETS + skew);
        assert_eq!(ports(&t), [8001, 8002]);
    }
}
