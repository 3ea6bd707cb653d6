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
//! reader thread's rings: [`Expectations::with_skew`]); an entry is removed for age only once
//! it is [`LIFE_PACKETS`] + `skew` packets old, when no worker can still use it. Aging entries
//! by capture time, as before, let a worker ahead in the input (into the next capture of a
//! concatenation, years later) drop an announcement the other worker was about to use: one
//! FTP data connection of the corpus mix was named by its payload one run in 25 (Python's
//! timing made it show). Left: which entry [`CAPACITY`] drops, when the table is full, depends
//! on the order the workers' announcements arrived in.
//!
//! [`PacketView`]: crate::classify::PacketView

use std::collections::VecDeque;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
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
}

impl Expectations {
    /// An empty table for one worker.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty table for workers that run at most `skew` packets of the input apart.
    pub fn with_skew(skew: u64) -> Self {
        Expectations {
            skew,
            ..Self::default()
        }
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
    #[inline]
    pub fn take(
        &self,
        client: IpAddr,
        server: IpAddr,
        port: u16,
        now: u64,
        at: u64,
    ) -> Option<LabelId> {
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
        assert_eq!(t.take(ip(1), ip(2), 5000, 0, 1), None);
        t.add(expect(5000), l, 10, 5);
        // Either announced server address; the right client and port only.
        assert_eq!(t.take(ip(3), ip(2), 5000, 20, 6), None);
        assert_eq!(t.take(ip(1), ip(2), 5001, 20, 6), None);
        assert_eq!(t.take(ip(1), ip(9), 5000, 20, 6), Some(l));
        assert_eq!(t.take(ip(1), ip(2), 5000, 20, 7), None, "used once");
        t.add(expect(6000), l, 10, 8);
        assert_eq!(
            t.take(ip(1), ip(2), 6000, 10 + TTL_NS + 1, 9),
            None,
            "expired"
        );
        assert_eq!(
            t.take(ip(1), ip(2), 6000, 20, 9),
            Some(l),
            "kept for its own time"
        );
        for p in 0..CAPACITY as u16 + 5 {
            t.add(expect(p + 1), l, 100, 10 + u64::from(p));
        }
        assert_eq!(t.dropped.load(Ordering::Relaxed), 5);
        let at = 10 + CAPACITY as u64 + 5;
        assert_eq!(t.take(ip(1), ip(2), 1, 100, at), None, "oldest dropped");
        assert_eq!(t.take(ip(1), ip(2), 6, 100, at), Some(l));
        t.clear();
        assert_eq!(t.take(ip(1), ip(2), 7, 100, at), None);
    }

    /// What a packet finds depends on its place in the input, not on what workers ahead of it
    /// did: an announcement later in the input is not seen, and a worker far ahead (a later
    /// capture's times, years on) removes nothing a worker within `skew` behind can still use.
    #[test]
    fn the_answer_depends_on_the_input_order_not_on_the_workers_timing() {
        let l = LabelId::UNKNOWN;
        let skew = 1000;
        let t = Expectations::with_skew(skew);
        t.add(expect(5000), l, 10, 500);
        // A connection before the announcement in the input, looked up after it was added.
        assert_eq!(t.take(ip(1), ip(2), 5000, 20, 499), None);
        // A worker `skew` ahead, at a time far past the TTL, looks up another connection:
        // nothing is removed for it.
        t.add(expect(7000), l, 10 + 10 * TTL_NS, 500 + skew);
        assert_eq!(
            t.take(ip(1), ip(2), 9999, 10 + 10 * TTL_NS, 500 + skew),
            None
        );
        // The worker behind still finds its announcement, at its own time and place.
        assert_eq!(t.take(ip(1), ip(2), 5000, 20, 501), Some(l));
        // Too many packets after the announcement: not used, and removed once no worker can.
        t.add(expect(8000), l, 10, 2000);
        assert_eq!(t.take(ip(1), ip(2), 8000, 20, 2001 + LIFE_PACKETS), None);
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
