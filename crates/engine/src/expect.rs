//! Connections that one flow announces for another (FTP's data connections, from the control
//! connection's `PASV`/`EPSV` replies and `PORT`/`EPRT` commands: [`wirespeed_dpi::Expect`]),
//! shared by a run's workers: a flow's payload inspection adds one, and the announced
//! connection, on whichever worker it lands, is named by it at its first payload packet.
//!
//! Bounded by configuration, never by traffic: at most [`CAPACITY`] expectations, oldest
//! dropped first (counted), each kept [`TTL_NS`] of capture time and used once. The table is
//! looked at only while it holds something (one atomic load per new flow otherwise).
//!
//! With several workers the control connection's worker must have read the announcement before
//! the data connection's worker reads that connection's first payload: capture order makes
//! this so for a reply that precedes the connection by a round trip, and the workers' queues
//! keep them within a batch of each other, but a connection whose first payload the other
//! worker reaches first is not named (it keeps what its own payload says).

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

#[derive(Clone, Copy, Debug)]
struct Entry {
    e: Expect,
    label: LabelId,
    until: u64,
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
}

impl Expectations {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// Remember `e`, named `label`, announced at capture time `now` (ns).
    pub fn add(&self, e: Expect, label: LabelId, now: u64) {
        let mut q = self.entries.lock().unwrap_or_else(|p| p.into_inner());
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
        });
        self.len.store(q.len(), Ordering::Release);
    }

    /// The label of a TCP connection from `client` to `server`:`port` starting at `now`, if
    /// one was announced (and not yet used, nor expired): used up.
    #[inline]
    pub fn take(&self, client: IpAddr, server: IpAddr, port: u16, now: u64) -> Option<LabelId> {
        if self.len.load(Ordering::Acquire) == 0 {
            return None;
        }
        self.take_slow(client, server, port, now)
    }

    #[cold]
    fn take_slow(&self, client: IpAddr, server: IpAddr, port: u16, now: u64) -> Option<LabelId> {
        let mut q = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        // Entries are in announcement order; capture time only grows (within a file).
        while q.front().is_some_and(|x| x.until < now) {
            q.pop_front();
        }
        let k = q.iter().position(|x| {
            x.e.client == client && x.e.port == port && x.e.servers.contains(&server)
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
        assert_eq!(t.take(ip(1), ip(2), 5000, 0), None);
        t.add(expect(5000), l, 10);
        // Either announced server address; the right client and port only.
        assert_eq!(t.take(ip(3), ip(2), 5000, 20), None);
        assert_eq!(t.take(ip(1), ip(2), 5001, 20), None);
        assert_eq!(t.take(ip(1), ip(9), 5000, 20), Some(l));
        assert_eq!(t.take(ip(1), ip(2), 5000, 20), None, "used once");
        t.add(expect(6000), l, 10);
        assert_eq!(t.take(ip(1), ip(2), 6000, 10 + TTL_NS + 1), None, "expired");
        for p in 0..CAPACITY as u16 + 5 {
            t.add(expect(p + 1), l, 100);
        }
        assert_eq!(t.dropped.load(Ordering::Relaxed), 5);
        assert_eq!(t.take(ip(1), ip(2), 1, 100), None, "oldest dropped");
        assert_eq!(t.take(ip(1), ip(2), 6, 100), Some(l));
        t.clear();
        assert_eq!(t.take(ip(1), ip(2), 7, 100), None);
    }
}
