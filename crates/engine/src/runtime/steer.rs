//! Keeping each FTP data connection on its control connection's worker.
//!
//! An FTP control connection announces its data connections (`227`/`229` replies, `PORT`/`EPRT`
//! commands), and payload inspection names each data connection by that announcement
//! ([`crate::expect`]). For the records not to depend on the number of workers, the worker
//! that reads the announcement must be the one that sees the data connection, every packet of
//! it. So when the dispatcher meets an input's first packet of TCP port 21, it reads every
//! packet of port 21 in the input with the inspector's own parser
//! ([`wirespeed_dpi::proto::ftp::announcements`]) in a pass of its own
//! (`reader::plan`), and from then on sends every packet of each announced connection
//! to the control connection's worker — the packets that come before the announcement too.
//! Learning the routes as the packets came (as before) split a connection whose first packets
//! preceded its announcement in the input (a capture whose records are out of time order):
//! those had gone to their hash's worker, the rest to the control connection's, and with one
//! worker the connection was one flow (issue 33). An input without port 21 costs nothing more;
//! one with it is read twice. The one case left: an announced connection with packets before
//! the input's first packet of port 21 stays whole on its hash's worker ([`Steer::pinned`]),
//! where its naming by the announcement may depend on the workers' timing.
//!
//! Bounded: at most [`CAPACITY`] routes an input (announcements past it are counted and go by
//! the hash); a pipe, planned window by window, drops the older half of its routes when full.
//! Announcements are rare, so the per-packet cost is a check of the two ports against a bitmap
//! of announced ports.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use wirespeed_dpi::proto::ftp::announcements;

/// Most routes kept.
pub const CAPACITY: usize = 16_384;

/// Set in what [`Steer::route`] answers (with the hash's worker) when the input's routes must
/// be planned first.
pub const PLAN: usize = 1 << 62;

/// A data connection's end-points: (client, server, server port).
type Key = (IpAddr, IpAddr, u16);

/// The dispatcher's routes for one input.
#[derive(Debug)]
pub struct Steer {
    routes: HashMap<Key, usize>,
    /// Keys in the order they were added.
    order: VecDeque<Key>,
    /// Bit `p` set: some route's server port is `p` (checked for every TCP packet).
    ports: Box<[u64; 1024]>,
    /// Connections (both directions' 4-tuples) kept on their hash's worker: announced, but with
    /// packets dispatched before the routes were planned.
    pinned: std::collections::HashSet<(IpAddr, u16, IpAddr, u16)>,
    /// The input's routes have been planned (its first packet of port 21 was met).
    pub planned: bool,
    /// Packets sent to another worker than their hash's.
    pub steered: u64,
    /// Announcements not routed: the table was full.
    pub unrouted: u64,
}

impl Default for Steer {
    fn default() -> Self {
        Steer {
            routes: HashMap::new(),
            order: VecDeque::new(),
            ports: Box::new([0; 1024]),
            pinned: Default::default(),
            planned: false,
            steered: 0,
            unrouted: 0,
        }
    }
}

impl Steer {
    #[inline(always)]
    fn port_bit(&self, p: u16) -> bool {
        self.ports[usize::from(p >> 6)] & (1 << (p & 63)) != 0
    }

    /// Nothing to do for a TCP packet between these ports: no route to look up, no plan to
    /// make (the common case: two compares before the plan, one branch after it when no
    /// connection was announced, two bit tests otherwise).
    #[inline(always)]
    pub fn idle(&self, sport: u16, dport: u16) -> bool {
        if self.routes.is_empty() {
            return self.planned || (sport != 21 && dport != 21);
        }
        !(self.port_bit(sport) || self.port_bit(dport))
    }

    /// Forget every route (a new input).
    pub fn clear(&mut self) {
        self.routes.clear();
        self.order.clear();
        self.ports.fill(0);
        self.pinned.clear();
        self.planned = false;
    }

    /// Keep the connection of a packet `src:sport → dst:dport` (hash's worker `q`, announced
    /// for worker `w`) on `q`: some of its packets went there before the plan.
    pub fn pin(&mut self, src: IpAddr, dst: IpAddr, sport: u16, dport: u16, q: usize) {
        // Two bit tests before two hash lookups: the plan asks this of every TCP packet before
        // it (11,606 packets of the corpus mix x2, 900 instructions each without them).
        if self.idle(sport, dport) {
            return;
        }
        if self
            .route_of(src, dst, sport, dport)
            .is_some_and(|w| w != q)
        {
            self.pinned.insert((src, sport, dst, dport));
            self.pinned.insert((dst, dport, src, sport));
        }
    }

    /// Routes held.
    pub fn routes(&self) -> usize {
        self.routes.len()
    }

    /// Every route, in order (for tests comparing two plans).
    #[cfg(test)]
    pub(crate) fn table(&self) -> Vec<(Key, usize)> {
        let mut t: Vec<_> = self.routes.iter().map(|(k, q)| (*k, *q)).collect();
        t.sort();
        t
    }

    /// Connections kept on their hash's worker ([`Steer::pin`]).
    pub fn pinned(&self) -> usize {
        self.pinned.len() / 2
    }

    fn route_of(&self, src: IpAddr, dst: IpAddr, sport: u16, dport: u16) -> Option<usize> {
        if dport == 21 || sport == 21 {
            return None;
        }
        [(src, dst, dport), (dst, src, sport)]
            .iter()
            .find_map(|k| self.routes.get(k).copied())
    }

    /// Make room for a pipe's next window (whose routes are planned anew): when more than
    /// half full, drop the older half.
    pub fn make_room(&mut self) {
        self.planned = false;
        self.pinned.clear();
        if self.routes.len() <= CAPACITY / 2 {
            return;
        }
        while self.routes.len() > CAPACITY / 4 {
            match self.order.pop_front() {
                Some(k) => {
                    self.routes.remove(&k);
                }
                None => break,
            }
        }
        self.ports.fill(0);
        for k in self.routes.keys() {
            self.ports[usize::from(k.2 >> 6)] |= 1 << (k.2 & 63);
        }
    }

    /// Read a TCP packet of port 21 `src:sport → dst:dport` (whose hash's worker is `q`: the
    /// control connection's) for announcements, and route each announced connection to `q`.
    /// A connection already routed keeps its worker.
    pub fn learn(
        &mut self,
        src: IpAddr,
        dst: IpAddr,
        sport: u16,
        dport: u16,
        payload: &[u8],
        q: usize,
    ) {
        if dport != 21 && sport != 21 {
            return;
        }
        let from_client = dport == 21;
        let (client, server) = if from_client { (src, dst) } else { (dst, src) };
        announcements(payload, from_client, |a| {
            // The same end-points the inspector announces to the engine.
            let (c, servers, port) = a.endpoints(client, server);
            for s in servers {
                self.add((c, s, port), q);
            }
        });
    }

    /// The worker for a TCP packet `src:sport → dst:dport` that the hash gives `q`: its
    /// connection's route, if it was announced (never for the control connections themselves).
    /// For a packet of port 21 before the input's routes are planned, `q | PLAN`: the caller
    /// plans them (`reader::plan`) before it dispatches the next packet.
    #[cold]
    pub fn route(&mut self, src: IpAddr, dst: IpAddr, sport: u16, dport: u16, q: usize) -> usize {
        if !self.planned && (dport == 21 || sport == 21) {
            return q | PLAN;
        }
        match self.route_of(src, dst, sport, dport) {
            Some(w) if w != q && !self.pinned.contains(&(src, sport, dst, dport)) => {
                self.steered += 1;
                w
            }
            _ => q,
        }
    }

    fn add(&mut self, key: Key, worker: usize) {
        if self.routes.contains_key(&key) {
            return;
        }
        if self.routes.len() >= CAPACITY {
            self.unrouted += 1;
            return;
        }
        self.routes.insert(key, worker);
        self.order.push_back(key);
        self.ports[usize::from(key.2 >> 6)] |= 1 << (key.2 & 63);
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
        assert!(
            !s.idle(40000, 21),
            "port 21: the input's routes are to be planned"
        );
        assert_eq!(s.route(ip(1), ip(2), 40000, 21, 1), 1 | PLAN);
        s.planned = true;
        assert!(s.idle(40000, 21), "planned, nothing announced");
        let (c, srv) = (ip(1), ip(2));
        // The server's PASV reply on worker 1; the data connection hashes to worker 0.
        let r = b"227 Entering passive mode (192,0,2,2,195,135).\r\n";
        s.learn(srv, c, 21, 45868, r, 1);
        assert!(!s.idle(52762, 50055));
        assert!(s.idle(52762, 50056), "another port: no route to look up");
        assert_eq!(s.route(c, srv, 52762, 50055, 0), 1);
        assert_eq!(s.route(srv, c, 50055, 52762, 0), 1);
        assert_eq!(s.steered, 2);
        // Another port, another client: the hash's worker.
        assert_eq!(s.route(c, srv, 52763, 50056, 0), 0);
        assert_eq!(s.route(ip(3), srv, 52762, 50055, 0), 0);
        // The control connection itself is never moved.
        assert_eq!(s.route(srv, c, 21, 50055, 0), 0);
        // Announced again from a connection on another worker: the first route stays.
        s.learn(srv, c, 21, 45869, r, 0);
        assert_eq!(s.route(c, srv, 52762, 50055, 0), 1);
        // Active mode: the server connects to the client's address.
        s.learn(c, srv, 45868, 21, b"PORT 192,0,2,1,142,47\r\n", 1);
        assert_eq!(s.route(srv, c, 20, 36399, 0), 1);
        // Bounded.
        for p in 0..CAPACITY as u32 + 10 {
            let port = 1 + (p % 60000) as u16;
            let a = IpAddr::V4(Ipv4Addr::from(0xc000_0200 + p));
            s.add((a, srv, port), 1);
        }
        assert_eq!(s.routes.len(), CAPACITY);
        assert!(s.unrouted >= 10);
        // A connection with packets dispatched before the plan stays on its hash's worker.
        s.pin(c, srv, 52764, 50055, 0);
        s.pin(c, srv, 52765, 50055, 1);
        assert_eq!(s.pinned(), 1);
        assert_eq!(s.route(srv, c, 50055, 52764, 0), 0);
        assert_eq!(s.route(c, srv, 52765, 50055, 0), 1);
        s.make_room();
        assert_eq!(s.routes.len(), CAPACITY / 4);
        assert!(s.routes.keys().all(|k| s.port_bit(k.2)));
        assert!(!s.planned && s.pinned() == 0);
        s.clear();
        assert!(s.idle(1, 2) && s.idle(52762, 50055));
    }
}
