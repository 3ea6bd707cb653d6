//! The dispatcher's part in naming FTP data connections alike for any number of workers.
//!
//! An FTP control connection announces its data connections (`227`/`229` replies, `PORT`/`EPRT`
//! commands), and payload inspection names each data connection by that announcement
//! ([`crate::expect`]). The announcement is added to the run's table by the control
//! connection's worker; the data connection goes to its own hash's worker like every other
//! connection, and that worker may be ahead in the input. So the dispatcher, which reads every
//! packet in the input's order before any worker runs it, reads each packet of TCP port 21 with
//! the inspector's own parser ([`wirespeed_dpi::proto::ftp::announcements`]) and *watches* each
//! announced connection in the table ([`Expectations::watch`]): a worker that looks one up
//! waits until the workers that matter have run their packets before it
//! ([`Expectations::take`]). No connection is moved, none is split, and the input is read once.
//!
//! Before (issue 33 to the sixth session), the dispatcher routed each announced connection to
//! its control connection's worker, which needed every announcement before the connection's
//! first packet, wherever in the input it lay: a pass over the whole input at its first packet
//! of port 21, while the other workers waited. On the corpus mix ×20 that pass and its second
//! mapping of the file's pages cost two workers ~0.14 s of CPU out of ~0.46 s.
//!
//! Per packet: two compares of the ports while nothing is announced, two bit tests after.

use crate::expect::{Expectations, Key};
use std::net::IpAddr;
use std::sync::Arc;
use wirespeed_dpi::proto::ftp::announcements;

/// The dispatcher's view of the announced connections of one run.
#[derive(Debug)]
pub struct Watch {
    expect: Arc<Expectations>,
    /// Bit `p`: some announced connection's server port is `p` (checked for every TCP packet).
    ports: Box<[u64; 1024]>,
    /// Something was announced in this input.
    any: bool,
    /// The packet just given to [`Watch::packet`] is a watched connection's first payload: a
    /// reader thread sends every worker its packets so far first ([`Watch::take_flush`]).
    flush: bool,
    /// Connections watched.
    pub watched: u64,
}

impl Watch {
    /// Watching for the run whose workers share `expect`.
    pub fn new(expect: Arc<Expectations>) -> Self {
        Watch {
            expect,
            ports: Box::new([0; 1024]),
            any: false,
            flush: false,
            watched: 0,
        }
    }

    #[inline(always)]
    fn port_bit(&self, p: u16) -> bool {
        self.ports[usize::from(p >> 6)] & (1 << (p & 63)) != 0
    }

    /// Nothing to do for a TCP packet between these ports: no control connection, no
    /// announced one (two compares while nothing is announced, two bit tests after).
    #[inline(always)]
    pub fn idle(&self, sport: u16, dport: u16) -> bool {
        sport != 21 && dport != 21 && (!self.any || !(self.port_bit(sport) || self.port_bit(dport)))
    }

    /// Forget this input's announcements (a new input; the run's table is cleared with it).
    pub fn clear(&mut self) {
        self.ports.fill(0);
        self.any = false;
        self.flush = false;
    }

    /// A TCP packet `src:sport → dst:dport` carrying `payload`, packet number `at` of the input,
    /// sent to worker `q`, on a port [`Watch::idle`] did not pass: a control connection's
    /// packet is read for announcements; a watched connection's joins its watch.
    #[cold]
    #[allow(clippy::too_many_arguments)]
    pub fn packet(
        &mut self,
        src: IpAddr,
        dst: IpAddr,
        sport: u16,
        dport: u16,
        payload: &[u8],
        q: usize,
        at: u64,
    ) {
        if sport == 21 || dport == 21 {
            if payload.is_empty() {
                return;
            }
            let from_client = dport == 21;
            let (client, server) = if from_client { (src, dst) } else { (dst, src) };
            let (expect, ports, any, watched) = (
                &self.expect,
                &mut self.ports,
                &mut self.any,
                &mut self.watched,
            );
            announcements(payload, from_client, |a| {
                // The same end-points the inspector announces to the engine.
                let (c, servers, port) = a.endpoints(client, server);
                for s in servers {
                    if let Some(new) = expect.watch((c, s, port), q, at) {
                        *watched += u64::from(new);
                        ports[usize::from(port >> 6)] |= 1 << (port & 63);
                        *any = true;
                    }
                }
            });
            return;
        }
        // Either end may be the announced server.
        let keys: [(Key, u16); 2] = [((src, dst, dport), sport), ((dst, src, sport), dport)];
        for (key, cport) in keys {
            if self.port_bit(key.2) {
                if let Some(first) = self
                    .expect
                    .dispatched(key, cport, q, !payload.is_empty(), at)
                {
                    self.flush |= first;
                    return;
                }
                // Every connection watched on this port has aged out of the table: its
                // packets stop coming here (a long live run announces many ports in turn).
                if !self.expect.watched_port(key.2) {
                    self.ports[usize::from(key.2 >> 6)] &= !(1 << (key.2 & 63));
                }
            }
        }
    }

    /// The last packet given to [`Watch::packet`] was a watched connection's first payload
    /// (cleared by asking).
    #[inline(always)]
    pub fn take_flush(&mut self) -> bool {
        std::mem::take(&mut self.flush)
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
    fn announced_connections_are_watched_with_the_workers_that_saw_them() {
        let t = Arc::new(Expectations::with_workers(3, 0));
        let mut w = Watch::new(t.clone());
        assert!(w.idle(40000, 80));
        assert!(!w.idle(40000, 21), "port 21 is always read");
        let (c, srv) = (ip(1), ip(2));
        // The server's PASV reply, on worker 1.
        let r = b"227 Entering passive mode (192,0,2,2,195,135).\r\n";
        w.packet(srv, c, 21, 45868, r, 1, 10);
        assert_eq!(w.watched, 1);
        assert!(!w.idle(52762, 50055));
        assert!(w.idle(52762, 50056), "another port: nothing to look up");
        // The data connection on worker 0: its SYN, then its first payload (a reader thread
        // flushes for it), then more payload of the same connection (no flush).
        w.packet(c, srv, 52762, 50055, b"", 0, 11);
        assert!(!w.take_flush());
        w.packet(srv, c, 50055, 52762, b"data", 0, 12);
        assert!(w.take_flush());
        w.packet(c, srv, 52762, 50055, b"more", 0, 13);
        assert!(!w.take_flush());
        // Another connection to the same end-point, on worker 2: a rival for the announcement.
        w.packet(c, srv, 52763, 50055, b"x", 2, 14);
        assert!(w.take_flush());
        // Worker 0's lookup at its first payload (12) waits for workers 1 and 2 to run their
        // packets before 12.
        t.begin(0);
        t.progress(1, 12);
        t.progress(2, 12);
        assert_eq!(t.take(0, c, srv, 50055, 0, 12), None);
        assert_eq!(t.waits.load(std::sync::atomic::Ordering::Relaxed), 0);
        // Active mode: the server connects to the client's address, from port 20.
        w.packet(c, srv, 45868, 21, b"PORT 192,0,2,1,142,47\r\n", 1, 20);
        assert_eq!(w.watched, 2);
        assert!(!w.idle(20, 36399));
        w.clear();
        t.clear();
        assert!(w.idle(52762, 50055) && w.idle(1, 2));
    }

    /// A lookup waits for the announcing worker, and no longer than until it has run the
    /// packets before the lookup's (the other worker here is a thread that publishes its
    /// progress only after the lookup began: the lookup must see its announcement).
    #[test]
    fn a_lookup_waits_for_the_announcing_worker() {
        let t = Arc::new(Expectations::with_workers(2, 0));
        let mut w = Watch::new(t.clone());
        t.begin(0);
        let (c, srv) = (ip(1), ip(2));
        let r = b"227 Entering passive mode (192,0,2,2,195,135).\r\n";
        w.packet(srv, c, 21, 45868, r, 1, 10);
        w.packet(c, srv, 52762, 50055, b"data", 0, 30);
        let e = wirespeed_dpi::Expect {
            client: c,
            servers: [srv, srv],
            port: 50055,
            label: &wirespeed_dpi::proto::ftp::DATA,
        };
        let label = wirespeed_classify::LabelId::UNKNOWN;
        let lookup = {
            let t = t.clone();
            std::thread::spawn(move || t.take(0, c, srv, 50055, 0, 30))
        };
        // Worker 1 runs the announcing packet (10): its inspection adds the expectation, then
        // it publishes that it has run its packets up to 31. Until then the lookup waits.
        while t.progress_of(0) != 30 {
            std::thread::yield_now();
        }
        assert!(!lookup.is_finished(), "the lookup waits for worker 1");
        t.add(e, label, 0, 10);
        t.progress(1, 31);
        assert_eq!(lookup.join().unwrap(), Some(label));
        assert_eq!(t.waits.load(std::sync::atomic::Ordering::Relaxed), 1);
    }

    /// Announcing one connection again and again (a hostile control connection) keeps one
    /// entry; old ones go once no packet can use them, re-announced ones are kept.
    #[test]
    fn announcements_again_and_again_stay_bounded() {
        let t = Arc::new(Expectations::with_workers(2, 0));
        let mut w = Watch::new(t.clone());
        let (c, srv) = (ip(1), ip(2));
        let r = b"227 Entering passive mode (192,0,2,2,195,135).\r\n".repeat(20);
        for at in 0..10_000u64 {
            w.packet(srv, c, 21, 45868, &r, 1, at);
        }
        assert_eq!(t.watch_sizes(), (1, 1));
        // Another connection, then much later: the first, re-announced, stays; a third
        // announced only long ago goes.
        let other = b"227 Entering passive mode (192,0,2,2,195,136).\r\n";
        w.packet(srv, c, 21, 45868, other, 1, 10_000);
        assert_eq!(t.watch_sizes(), (2, 2));
        let late = 10_000 + crate::expect::LIFE_PACKETS + 1;
        w.packet(srv, c, 21, 45868, &r, 1, late);
        assert_eq!(
            t.watch_sizes(),
            (1, 1),
            "the connection announced only long ago is gone"
        );
    }

    /// A port announced once stops sending its packets to the slow path when its connection
    /// has aged out, with no announcement after it (a long live run: FTP's passive ports are
    /// the clients' ephemeral range, and a hostile control connection may announce a busy
    /// port such as 443).
    #[test]
    fn an_aged_announcement_stops_watching_its_port() {
        let t = Arc::new(Expectations::with_workers(2, 0));
        let mut w = Watch::new(t.clone());
        let (c, srv, other) = (ip(1), ip(2), ip(3));
        // 192.0.2.2 port 443 (1,187), announced on worker 1.
        let r = b"227 Entering passive mode (192,0,2,2,1,187).\r\n";
        w.packet(srv, c, 21, 45868, r, 1, 10);
        assert!(!w.idle(50000, 443));
        // Another client's packets to port 443 still go through the lookup while the
        // announcement may be used.
        w.packet(other, srv, 50000, 443, b"x", 0, 11);
        assert!(!w.idle(50000, 443));
        assert_eq!(t.watch_sizes(), (1, 1));
        // Long after: the next packet of the port ages the announcement out, and the port is
        // idle again, in the table and in the dispatcher's copy.
        let late = 11 + crate::expect::LIFE_PACKETS + 1;
        w.packet(other, srv, 50001, 443, b"x", 0, late);
        assert_eq!(t.watch_sizes(), (0, 0));
        assert!(w.idle(50001, 443), "port 443 is not watched any more");
        // Announced again: watched again.
        w.packet(srv, c, 21, 45868, r, 1, late + 1);
        assert!(!w.idle(50002, 443));
        assert_eq!(t.watch_sizes(), (1, 1));
    }

    /// Two connections announced on one port: the port stays watched until the last goes.
    #[test]
    fn a_port_stays_watched_until_its_last_connection_goes() {
        let t = Arc::new(Expectations::with_workers(2, 0));
        let mut w = Watch::new(t.clone());
        let (c, srv, srv2) = (ip(1), ip(2), ip(4));
        w.packet(
            srv,
            c,
            21,
            45868,
            b"227 Entering passive mode (192,0,2,2,195,135).\r\n",
            1,
            10,
        );
        let half = crate::expect::LIFE_PACKETS / 2;
        w.packet(
            srv2,
            c,
            21,
            45869,
            b"227 Entering passive mode (192,0,2,4,195,135).\r\n",
            1,
            10 + half,
        );
        assert_eq!(t.watch_sizes(), (2, 2));
        // The first has aged, the second not: the port is still watched.
        let at = 11 + crate::expect::LIFE_PACKETS;
        w.packet(c, srv2, 52000, 50055, b"", 0, at);
        assert_eq!(t.watch_sizes(), (1, 1));
        assert!(!w.idle(52000, 50055));
        // Then the second.
        w.packet(c, srv2, 52000, 50055, b"", 0, at + half + 1);
        assert_eq!(t.watch_sizes(), (0, 0));
        assert!(w.idle(52000, 50055));
    }
}
