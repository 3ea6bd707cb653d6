//! NFQUEUE (`nfnetlink_queue`): packets the kernel's firewall queues to user space, each
//! waiting for a verdict — the inline half of wirespeed (`wirespeed inline`, issue 21).
//!
//! Hand-written over a netlink socket ([`crate::sys::NetlinkSocket`]) rather than through the
//! `nfq` crate, for four reasons measured against the hot path: `nfq` allocates a receive buffer
//! whenever a message of the previous one is still held (a batch always holds them), sends one
//! system call per verdict where one datagram carries a whole batch's, asserts (panics) on
//! attributes it does not expect, and cannot set the packet mark and payload together with a
//! repeat verdict, which the kernel enforcement after the verdict rests on. What is here is the
//! message format of `<linux/netfilter/nfnetlink_queue.h>`: a netlink header, a `nfgenmsg`,
//! then type-length-value attributes.
//!
//! Parsing ([`parse`]) is pure, bounded and fuzzed (`fuzz/fuzz_targets/nfqueue.rs`): a
//! malformed message is skipped and counted, never trusted.

use crate::sys::NetlinkSocket;
use std::io;
use std::sync::atomic::{AtomicU64, Ordering};

/// `NFNL_SUBSYS_QUEUE`.
const SUBSYS_QUEUE: u16 = 3;
/// `NFQNL_MSG_PACKET`, `NFQNL_MSG_VERDICT`, `NFQNL_MSG_CONFIG`.
const MSG_PACKET: u16 = SUBSYS_QUEUE << 8;
const MSG_VERDICT: u16 = (SUBSYS_QUEUE << 8) | 1;
const MSG_CONFIG: u16 = (SUBSYS_QUEUE << 8) | 2;
/// `NLMSG_ERROR` (an acknowledgement when its error is 0), `NLMSG_DONE`.
const NLMSG_ERROR: u16 = 2;
const NLMSG_DONE: u16 = 3;
/// `NLM_F_REQUEST`, `NLM_F_ACK`.
const F_REQUEST: u16 = 1;
const F_ACK: u16 = 4;

/// Packet attributes (`enum nfqnl_attr_type`).
const NFQA_PACKET_HDR: u16 = 1;
const NFQA_VERDICT_HDR: u16 = 2;
const NFQA_MARK: u16 = 3;
const NFQA_PAYLOAD: u16 = 10;
const NFQA_CAP_LEN: u16 = 13;
/// Configuration attributes (`enum nfqnl_attr_config`).
const NFQA_CFG_CMD: u16 = 1;
const NFQA_CFG_PARAMS: u16 = 2;
const NFQA_CFG_QUEUE_MAXLEN: u16 = 3;
const NFQA_CFG_MASK: u16 = 4;
const NFQA_CFG_FLAGS: u16 = 5;
/// `NFQNL_CFG_CMD_BIND`, `NFQNL_CFG_CMD_UNBIND`.
const CMD_BIND: u8 = 1;
const CMD_UNBIND: u8 = 2;
/// `NFQNL_COPY_PACKET`.
const COPY_PACKET: u8 = 2;
/// `NFQA_CFG_F_FAIL_OPEN`: a full queue accepts packets instead of dropping them.
const F_FAIL_OPEN: u32 = 1;

/// `NF_DROP`, `NF_ACCEPT`, `NF_REPEAT`.
pub const NF_DROP: u32 = 0;
/// Let the packet go on.
pub const NF_ACCEPT: u32 = 1;
/// Run the hook again (the firewall's chain from its start, with the mark the verdict set).
pub const NF_REPEAT: u32 = 4;

/// The bits of the packet and connection mark that are wirespeed's: the top byte. A flow's
/// final action is left there as [`wirespeed_act::bind_code`] `<< MARK_SHIFT`.
pub const MARK_MASK: u32 = 0xff00_0000;
/// Where the action code sits in the mark.
pub const MARK_SHIFT: u32 = 24;

/// Netlink attributes and messages are aligned to 4 bytes.
#[inline]
fn align4(n: usize) -> usize {
    (n + 3) & !3
}

/// One queued packet, as the kernel described it: where its bytes lie in the receive buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Queued {
    /// The kernel's id for the verdict.
    pub id: u32,
    /// The packet's mark when queued.
    pub mark: u32,
    /// Ethertype of the packet (0x0800 IPv4, 0x86dd IPv6).
    pub hw_protocol: u16,
    /// Offset of the packet (its IP header) in the buffer parsed.
    pub off: u32,
    /// Bytes of it given (the copy range may cut it).
    pub len: u32,
    /// The packet's length before any cut (`NFQA_CAP_LEN`; `len` when absent).
    pub orig_len: u32,
}

/// What [`parse`] found besides packets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ParseStats {
    /// Packet messages without a packet header, with a payload outside the message, or
    /// otherwise malformed: skipped (the kernel's verdict timeout does not exist: such a packet,
    /// if real, stays queued; none has been seen from a kernel).
    pub malformed: u64,
    /// Acknowledgements (error 0) and errors of our configuration messages.
    pub acks: u64,
    /// The first non-zero error a message reported (a negative errno), if any.
    pub error: Option<i32>,
}

/// Walk the netlink messages of one received datagram `buf` (at most `buf.len()` bytes are
/// read, every length checked), calling `each` for every queued packet of queue `queue`.
pub fn parse(buf: &[u8], queue: u16, stats: &mut ParseStats, each: &mut dyn FnMut(Queued)) {
    let mut at = 0usize;
    // Each message is at least 16 bytes: at most len/16 of them.
    while at + 16 <= buf.len() {
        let h = &buf[at..];
        let len = u32::from_ne_bytes([h[0], h[1], h[2], h[3]]) as usize;
        let typ = u16::from_ne_bytes([h[4], h[5]]);
        if len < 16 || len > h.len() {
            stats.malformed += 1;
            return;
        }
        let msg = &h[..len];
        match typ {
            NLMSG_ERROR => {
                stats.acks += 1;
                if let Some(e) = msg.get(16..20) {
                    let e = i32::from_ne_bytes([e[0], e[1], e[2], e[3]]);
                    if e != 0 && stats.error.is_none() {
                        stats.error = Some(e);
                    }
                }
            }
            NLMSG_DONE => {}
            MSG_PACKET => match packet(msg, at, queue) {
                Some(p) => each(p),
                None => stats.malformed += 1,
            },
            _ => {}
        }
        at += align4(len);
    }
}

/// One packet message (`msg` starts at `base` in the datagram).
fn packet(msg: &[u8], base: usize, queue: u16) -> Option<Queued> {
    // nfgenmsg: family, version, queue number (big-endian).
    let g = msg.get(16..20)?;
    if u16::from_be_bytes([g[2], g[3]]) != queue {
        return None;
    }
    let mut q = Queued::default();
    let mut have_hdr = false;
    let mut have_payload = false;
    let mut at = 20usize;
    while at + 4 <= msg.len() {
        let a = &msg[at..];
        let alen = u16::from_ne_bytes([a[0], a[1]]) as usize;
        // The type's top two bits are flags (nested, byte order).
        let typ = u16::from_ne_bytes([a[2], a[3]]) & 0x3fff;
        if alen < 4 || alen > a.len() {
            return None;
        }
        let v = &a[4..alen];
        match typ {
            NFQA_PACKET_HDR if v.len() >= 7 => {
                q.id = u32::from_be_bytes([v[0], v[1], v[2], v[3]]);
                q.hw_protocol = u16::from_be_bytes([v[4], v[5]]);
                have_hdr = true;
            }
            NFQA_MARK if v.len() >= 4 => q.mark = u32::from_be_bytes([v[0], v[1], v[2], v[3]]),
            NFQA_CAP_LEN if v.len() >= 4 => {
                q.orig_len = u32::from_be_bytes([v[0], v[1], v[2], v[3]]);
            }
            NFQA_PAYLOAD => {
                q.off = u32::try_from(base + at + 4).ok()?;
                q.len = u32::try_from(v.len()).ok()?;
                have_payload = true;
            }
            _ => {}
        }
        at += align4(alen);
    }
    if q.orig_len == 0 {
        q.orig_len = q.len;
    }
    // A packet without payload (copy mode "meta") cannot be inspected; one without header
    // cannot be answered.
    (have_hdr && have_payload).then_some(q)
}

/// Append a netlink message header and nfgenmsg for queue `queue`; returns where the message
/// starts (its length is set by [`finish`]).
fn begin(b: &mut Vec<u8>, typ: u16, flags: u16, seq: u32, queue: u16) -> usize {
    let start = b.len();
    b.extend_from_slice(&0u32.to_ne_bytes());
    b.extend_from_slice(&typ.to_ne_bytes());
    b.extend_from_slice(&flags.to_ne_bytes());
    b.extend_from_slice(&seq.to_ne_bytes());
    b.extend_from_slice(&0u32.to_ne_bytes());
    // nfgenmsg: AF_UNSPEC, NFNETLINK_V0, the queue number.
    b.extend_from_slice(&[0, 0]);
    b.extend_from_slice(&queue.to_be_bytes());
    start
}

fn attr(b: &mut Vec<u8>, typ: u16, v: &[u8]) {
    let len = 4 + v.len();
    b.extend_from_slice(&(len as u16).to_ne_bytes());
    b.extend_from_slice(&typ.to_ne_bytes());
    b.extend_from_slice(v);
    b.resize(b.len() + (align4(len) - len), 0);
}

fn finish(b: &mut [u8], start: usize) {
    let len = (b.len() - start) as u32;
    b[start..start + 4].copy_from_slice(&len.to_ne_bytes());
}

/// Append one verdict message: `verdict` for packet `id` of `queue`, with a new mark and a new
/// payload when given.
pub fn verdict_msg(
    b: &mut Vec<u8>,
    queue: u16,
    id: u32,
    verdict: u32,
    mark: Option<u32>,
    payload: Option<&[u8]>,
) {
    let s = begin(b, MSG_VERDICT, F_REQUEST, 0, queue);
    let mut vh = [0u8; 8];
    vh[..4].copy_from_slice(&verdict.to_be_bytes());
    vh[4..].copy_from_slice(&id.to_be_bytes());
    attr(b, NFQA_VERDICT_HDR, &vh);
    if let Some(m) = mark {
        attr(b, NFQA_MARK, &m.to_be_bytes());
    }
    if let Some(p) = payload {
        attr(b, NFQA_PAYLOAD, p);
    }
    finish(b, s);
}

/// How a queue is set up.
#[derive(Clone, Copy, Debug)]
pub struct QueueConfig {
    /// Packets the kernel holds for this queue before it accepts new ones unseen (fail open).
    pub max_len: u32,
    /// The socket's receive buffer, bytes.
    pub rcvbuf: usize,
}

impl Default for QueueConfig {
    fn default() -> Self {
        QueueConfig {
            max_len: 4096,
            rcvbuf: 8 << 20,
        }
    }
}

/// Most bytes of one datagram: a packet message of the largest copy (65,535 bytes) and its
/// attributes.
pub const DATAGRAM_MAX: usize = 65_535 + 4096;

/// One bound queue.
pub struct Queue {
    sock: NetlinkSocket,
    /// The queue's number.
    pub num: u16,
    seq: u32,
    /// Packets answered during configuration (accepted unseen).
    pub early_accepts: u64,
}

impl Queue {
    /// Bind queue `num`: copy whole packets, fail open when full, hold at most `cfg.max_len`.
    /// An error names what the kernel refused (a queue another process holds: "Device or
    /// resource busy"; no netfilter queue support; no permission).
    pub fn open(num: u16, cfg: &QueueConfig) -> io::Result<Queue> {
        let sock = NetlinkSocket::open(cfg.rcvbuf)?;
        let mut q = Queue {
            sock,
            num,
            seq: 0,
            early_accepts: 0,
        };
        q.config(|b, seq| {
            let s = begin(b, MSG_CONFIG, F_REQUEST | F_ACK, seq, num);
            attr(b, NFQA_CFG_CMD, &[CMD_BIND, 0, 0, 0]);
            finish(b, s);
        })
        .map_err(|e| {
            // The kernel answers EPERM both to a process without CAP_NET_ADMIN and to a bind of
            // a queue another process holds.
            let hint = if e.raw_os_error() == Some(libc::EPERM) {
                " (another process holds this queue, or binding needs root or CAP_NET_ADMIN)"
            } else {
                ""
            };
            io::Error::new(e.kind(), format!("binding NFQUEUE {num}: {e}{hint}"))
        })?;
        q.config(|b, seq| {
            let s = begin(b, MSG_CONFIG, F_REQUEST | F_ACK, seq, num);
            let mut p = [0u8; 5];
            p[..4].copy_from_slice(&65_535u32.to_be_bytes());
            p[4] = COPY_PACKET;
            attr(b, NFQA_CFG_PARAMS, &p);
            attr(b, NFQA_CFG_QUEUE_MAXLEN, &cfg.max_len.to_be_bytes());
            attr(b, NFQA_CFG_MASK, &F_FAIL_OPEN.to_be_bytes());
            attr(b, NFQA_CFG_FLAGS, &F_FAIL_OPEN.to_be_bytes());
            finish(b, s);
        })
        .map_err(|e| io::Error::new(e.kind(), format!("configuring NFQUEUE {num}: {e}")))?;
        Ok(q)
    }

    /// Send one configuration message and wait for its acknowledgement; packets that arrive
    /// meanwhile are accepted unseen.
    fn config(&mut self, build: impl FnOnce(&mut Vec<u8>, u32)) -> io::Result<()> {
        self.seq = self.seq.wrapping_add(1);
        let mut b = Vec::with_capacity(128);
        build(&mut b, self.seq);
        self.sock.send(&b)?;
        let mut buf = vec![0u8; DATAGRAM_MAX];
        // An acknowledgement comes within a few datagrams; bounded all the same.
        for _ in 0..10_000 {
            let Some(n) = self.sock.recv(&mut buf, true)? else {
                continue;
            };
            let mut st = ParseStats::default();
            let mut ids = Vec::new();
            parse(&buf[..n], self.num, &mut st, &mut |p| ids.push(p.id));
            if !ids.is_empty() {
                let mut v = Vec::new();
                for id in &ids {
                    verdict_msg(&mut v, self.num, *id, NF_ACCEPT, None, None);
                }
                self.sock.send(&v)?;
                self.early_accepts += ids.len() as u64;
            }
            if let Some(e) = st.error {
                return Err(io::Error::from_raw_os_error(-e));
            }
            if st.acks > 0 {
                return Ok(());
            }
        }
        Err(io::Error::other("no acknowledgement from the kernel"))
    }

    /// The socket's descriptor (to poll).
    pub fn fd(&self) -> std::os::fd::RawFd {
        self.sock.fd()
    }

    /// Receive one datagram into `buf` (at least [`DATAGRAM_MAX`] bytes); None when nothing
    /// is queued and `wait` is false.
    pub fn recv(&self, buf: &mut [u8], wait: bool) -> io::Result<Option<usize>> {
        self.sock.recv(buf, wait)
    }

    /// Send verdict messages built with [`verdict_msg`] (one datagram).
    pub fn send(&self, msgs: &[u8]) -> io::Result<()> {
        if msgs.is_empty() {
            return Ok(());
        }
        self.sock.send(msgs)
    }

    /// Unbind the queue (the kernel also does when the socket closes, however the process
    /// ends: packets then take the rule's `--queue-bypass`).
    pub fn unbind(&mut self) -> io::Result<()> {
        let num = self.num;
        self.config(|b, seq| {
            let s = begin(b, MSG_CONFIG, F_REQUEST | F_ACK, seq, num);
            attr(b, NFQA_CFG_CMD, &[CMD_UNBIND, 0, 0, 0]);
            finish(b, s);
        })
    }
}

/// Counters of the queues, all workers together.
#[derive(Debug, Default)]
pub struct QueueCounters {
    /// Packets received.
    pub packets: AtomicU64,
    /// Packets accepted unchanged.
    pub accepted: AtomicU64,
    /// Packets dropped by the policy.
    pub dropped: AtomicU64,
    /// Packets accepted with their DSCP rewritten here.
    pub marked: AtomicU64,
    /// Packets answered with a hand-off to the kernel (a repeat verdict with the action in the
    /// mark): a flow's first once it is settled, and any of a connection the kernel tracks apart.
    pub bound: AtomicU64,
    /// Packets the kernel gave an id but could not hand over (its socket buffer was full), and
    /// so accepted unseen (fail open), from the gaps in its packet ids. Packets accepted because
    /// the queue was full get no id and are counted by the kernel nowhere: the NFQUEUE rule's
    /// packet counter (`iptables-legacy -L -v -x`) minus the packets received says how many.
    /// Also any packet past a batch's room in one datagram, answered accept at once.
    pub unseen: AtomicU64,
    /// Packets that came back with a bound action in their mark: the firewall lacks the rules
    /// that act on it (`--print-rules`); answered here.
    pub rules_missing: AtomicU64,
    /// Messages that could not be parsed.
    pub malformed: AtomicU64,
}

/// The queue counters' values.
#[derive(Clone, Copy, Debug, Default)]
pub struct QueueSnapshot {
    /// See [`QueueCounters`].
    pub packets: u64,
    /// See [`QueueCounters`].
    pub accepted: u64,
    /// See [`QueueCounters`].
    pub dropped: u64,
    /// See [`QueueCounters`].
    pub marked: u64,
    /// See [`QueueCounters`].
    pub bound: u64,
    /// See [`QueueCounters`].
    pub unseen: u64,
    /// See [`QueueCounters`].
    pub rules_missing: u64,
    /// See [`QueueCounters`].
    pub malformed: u64,
}

impl QueueCounters {
    /// The values now.
    pub fn snapshot(&self) -> QueueSnapshot {
        let l = |a: &AtomicU64| a.load(Ordering::Relaxed);
        QueueSnapshot {
            packets: l(&self.packets),
            accepted: l(&self.accepted),
            dropped: l(&self.dropped),
            marked: l(&self.marked),
            bound: l(&self.bound),
            unseen: l(&self.unseen),
            rules_missing: l(&self.rules_missing),
            malformed: l(&self.malformed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A packet message as the kernel builds it (`nfqnl_build_packet_message`): header, then
    /// packet header, mark, payload.
    fn kernel_msg(queue: u16, id: u32, mark: Option<u32>, payload: &[u8]) -> Vec<u8> {
        let mut b = Vec::new();
        let s = begin(&mut b, MSG_PACKET, 0, 0, queue);
        let mut ph = [0u8; 7];
        ph[..4].copy_from_slice(&id.to_be_bytes());
        ph[4..6].copy_from_slice(&0x0800u16.to_be_bytes());
        ph[6] = 2; // NF_INET_FORWARD
        attr(&mut b, NFQA_PACKET_HDR, &ph);
        if let Some(m) = mark {
            attr(&mut b, NFQA_MARK, &m.to_be_bytes());
        }
        attr(&mut b, NFQA_PAYLOAD, payload);
        finish(&mut b, s);
        b
    }

    #[test]
    fn parses_what_the_kernel_sends() {
        let mut d = kernel_msg(7, 41, Some(0x0100_0000), &[0x45, 0, 0, 20, 1, 2, 3]);
        d.extend(kernel_msg(7, 42, None, &[0x60; 40]));
        // Another queue's message is not ours.
        d.extend(kernel_msg(8, 43, None, &[0x45; 20]));
        let mut st = ParseStats::default();
        let mut got = Vec::new();
        parse(&d, 7, &mut st, &mut |p| got.push(p));
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].id, 41);
        assert_eq!(got[0].mark, 0x0100_0000);
        assert_eq!(got[0].hw_protocol, 0x0800);
        let p0 = &d[got[0].off as usize..(got[0].off + got[0].len) as usize];
        assert_eq!(p0, &[0x45, 0, 0, 20, 1, 2, 3]);
        assert_eq!(got[1].len, 40);
        assert_eq!(got[1].orig_len, 40);
        assert_eq!(st.malformed, 1, "the other queue's message");
    }

    #[test]
    fn verdicts_are_laid_out_as_the_header_says() {
        let mut b = Vec::new();
        verdict_msg(
            &mut b,
            3,
            99,
            NF_REPEAT,
            Some(0x4e00_0000),
            Some(&[1, 2, 3]),
        );
        // nlmsghdr(16) + nfgenmsg(4) + verdict hdr(4+8) + mark(4+4) + payload(4+3, padded 8).
        assert_eq!(b.len(), 16 + 4 + 12 + 8 + 8);
        assert_eq!(
            u32::from_ne_bytes(b[0..4].try_into().unwrap()) as usize,
            b.len()
        );
        assert_eq!(u16::from_ne_bytes([b[4], b[5]]), MSG_VERDICT);
        assert_eq!(&b[18..20], &3u16.to_be_bytes());
        assert_eq!(&b[24..28], &NF_REPEAT.to_be_bytes());
        assert_eq!(&b[28..32], &99u32.to_be_bytes());
        assert_eq!(&b[36..40], &0x4e00_0000u32.to_be_bytes());
        assert_eq!(&b[44..47], &[1, 2, 3]);
    }

    #[test]
    fn acks_and_errors() {
        let mut b = Vec::new();
        let s = begin(&mut b, NLMSG_ERROR, 0, 1, 0);
        b.truncate(s + 16);
        b.extend_from_slice(&(-16i32).to_ne_bytes());
        b.extend_from_slice(&[0; 16]);
        finish(&mut b, s);
        let mut st = ParseStats::default();
        parse(&b, 0, &mut st, &mut |_| panic!("no packet"));
        assert_eq!(st.acks, 1);
        assert_eq!(st.error, Some(-16));
    }

    proptest! {
        /// Any bytes: never a panic, and every packet found lies inside the buffer.
        #[test]
        fn any_datagram_is_safe(b in proptest::collection::vec(any::<u8>(), 0..400)) {
            let mut st = ParseStats::default();
            parse(&b, 0, &mut st, &mut |p| {
                assert!((p.off as usize) + (p.len as usize) <= b.len());
            });
        }

        /// A real message with its bytes changed anywhere: the same.
        #[test]
        fn mutated_messages_are_safe(i in 0usize..200, v in any::<u8>(), cut in 0usize..200) {
            let mut d = kernel_msg(0, 1, Some(5), &[0x45; 60]);
            let n = d.len();
            d[i % n] = v;
            d.truncate(n - cut % n);
            let mut st = ParseStats::default();
            parse(&d, 0, &mut st, &mut |p| {
                assert!((p.off as usize) + (p.len as usize) <= d.len());
            });
        }
    }
}
