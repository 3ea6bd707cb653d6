//! Keeping each FTP data connection on its control connection's worker.
//!
//! An FTP control connection announces its data connections (`227`/`229` replies, `PORT`/`EPRT`
//! commands), and payload inspection names each data connection by that announcement
//! ([`crate::expect`]). For the records not to depend on the number of workers, the worker
//! that reads the announcement must be the one that sees the data connection: the dispatcher
//! (the reader thread, or the shared scan, which see every packet in capture order) reads the
//! packets of TCP port 21 with the inspector's own parser
//! ([`wirespeed_dpi::proto::ftp::announcements`]) and sends the packets of each announced
//! connection to the control connection's worker. Bounded: at most [`CAPACITY`] routes, the
//! oldest dropped first; a route unused for [`IDLE_NS`] of capture time is forgotten.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use wirespeed_dpi::proto::ftp::announcements;

/// Most routes kept.
pub const CAPACITY: usize = 4096;
/// How long a route lasts unused, in capture time (ns): longer than an announcement waits for
/// its connection ([`crate::expect::TTL_NS`]).
pub const IDLE_NS: u64 = 300_000_000_000;

/// A data connection's end-points: (client, server, server port).
type Key = (IpAddr, IpAddr, u16);

/// The dispatcher's routes.
#[derive(Debug, Default)]
pub struct Steer {
    routes: HashMap<Key, (usize, u64)>,
    /// Keys in the order they were added (some may have been forgotten since).
    order: VecDeque<Key>,
    /// Packets sent to another worker than their hash's.
    pub steered: u64,
}

impl Steer {
    /// No route, and none to learn from this packet (the common case: two compares).
    #[inline(always)]
    pub fn idle(&self, sport: u16, dport: u16) -> bool {
        self.routes.is_empty() && sport != 21 && dport != 21
    }

    /// Forget every route (a new capture file).
    pub fn clear(&mut self) {
        self.routes.clear();
        self.order.clear();
    }

    /// The worker for a TCP packet `src:sport → dst:dport` at capture time `ts` that the hash
    /// gives `q`; a packet of port 21 is first read for announcements (`payload`).
    #[allow(clippy::too_many_arguments)]
    #[cold]
    pub fn route(
        &mut self,
        src: IpAddr,
        dst: IpAddr,
        sport: u16,
        dport: u16,
        payload: &[u8],
        ts: u64,
        q: usize,
    ) -> usize {
        if dport == 21 || sport == 21 {
            let from_client = dport == 21;
            let (client, server) = if from_client { (src, dst) } else { (dst, src) };
            announcements(payload, from_client, |a| {
                // The same end-points the inspector announces to the engine.
                let (c, servers, port) = a.endpoints(client, server);
                for s in servers {
                    self.add((c, s, port), q, ts);
                }
            });
            return q;
        }
        for key in [(src, dst, dport), (dst, src, sport)] {
            if let Some((w, last)) = self.routes.get_mut(&key) {
                if ts.saturating_sub(*last) > IDLE_NS {
                    self.routes.remove(&key);
                    continue;
                }
                *last = (*last).max(ts);
                let w = *w;
                if w != q {
                    self.steered += 1;
                }
                return w;
            }
        }
        q
    }

    fn add(&mut self, key: Key, worker: usize, ts: u64) {
        if self.routes.insert(key, (worker, ts)).is_some() {
            return;
        }
        self.order.push_back(key);
        while self.routes.len() > CAPACITY {
            match self.order.pop_front() {
                Some(k) => {
                    self.routes.remove(&k);
                }
                None => break,
            }
        }
        if self.order.len() > 2 * CAPACITY {
            let routes = &self.routes;
            self.order.retain(|k| routes.contains_key(k));
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

    #[test]
    fn data_connections_follow_their_control_connection() {
        let mut s = Steer::default();
        assert!(s.idle(40000, 80));
        assert!(!s.idle(40000, 21));
        let (c, srv) = (ip(1), ip(2));
        // The server's PASV reply on worker 1; the data connection hashes to worker 0.
        let r = b"227 Entering passive mode (192,0,2,2,195,135).\r\n";
        assert_eq!(s.route(srv, c, 21, 45868, r, 10, 1), 1);
        assert!(!s.idle(52762, 50055));
        assert_eq!(s.route(c, srv, 52762, 50055, b"", 20, 0), 1);
        assert_eq!(s.route(srv, c, 50055, 52762, b"", 30, 0), 1);
        assert_eq!(s.steered, 2);
        // Another port, another client: the hash's worker.
        assert_eq!(s.route(c, srv, 52763, 50056, b"", 30, 0), 0);
        assert_eq!(s.route(ip(3), srv, 52762, 50055, b"", 30, 0), 0);
        // Active mode: the server connects to the client's address.
        assert_eq!(
            s.route(c, srv, 45868, 21, b"PORT 192,0,2,1,142,47\r\n", 40, 1),
            1
        );
        assert_eq!(s.route(srv, c, 20, 36399, b"", 50, 0), 1);
        // Unused for longer than IDLE_NS: forgotten.
        assert_eq!(s.route(c, srv, 52762, 50055, b"", 60 + IDLE_NS, 0), 0);
        // Bounded.
        for p in 0..CAPACITY as u32 + 10 {
            let port = 1 + (p % 60000) as u16;
            let a = IpAddr::V4(Ipv4Addr::from(0xc000_0200 + p));
            s.add((a, srv, port), 1, 100);
        }
        assert!(s.routes.len() <= CAPACITY && s.order.len() <= 2 * CAPACITY + 1);
        s.clear();
        assert!(s.idle(1, 2));
    }
}
