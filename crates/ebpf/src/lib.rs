//! The eBPF data path of `wirespeed inline --datapath ebpf` (issue 39): the kernel enforces, user
//! space classifies. `bpf/verdict.c` is a tc classifier on the forwarding interfaces that looks
//! each packet's flow up in a bounded map (LRU hash, [`MAX_FLOWS`] entries) and drops it,
//! writes a DSCP into it (IPv4 checksum kept right) or passes it; a flow with no entry passes
//! (fail-open by construction). wirespeed writes the entries (`Datapath::set`) and removes
//! them when flows end (`Datapath::remove`).
//!
//! Always built: the map's key and value as the program reads them ([`FlowKey`], [`Verdict`]),
//! normalised the way the program normalises them, and tested without a kernel. With the
//! `ebpf` feature (Linux, clang at build time): the compiled object (`OBJECT`) and
//! `Datapath`, its loader on `aya`.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

use std::net::IpAddr;

/// Entries of the verdict map (`VERDICTS` in `bpf/verdict.c`); past it, the kernel evicts the
/// least recently used.
pub const MAX_FLOWS: u32 = 65_536;

/// What the program does with a flow's packets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Let them through (the same as no entry, but counted apart).
    Pass,
    /// Shoot them (`TC_ACT_SHOT`).
    Drop,
    /// Write this DSCP (0..=63; higher bits ignored) into their IP header, ECN kept.
    Dscp(u8),
    /// Rate-limited: let them through with the top byte of `skb->mark` set to this class
    /// (1..=[`MAX_CLASS`]; the rest of the mark kept), which the classifier program on the
    /// egress interfaces turns into the priority that queues them in the `Shaper`'s HTB class
    /// of that minor number. 0 is written as 1.
    Class(u8),
}

/// The highest [`Verdict::Class`]: the mark's top byte, below 0x80.
pub const MAX_CLASS: u8 = 127;

impl Verdict {
    /// The map value's bytes: `struct verdict { u8 action; u8 dscp; u8 pad[6]; u64
    /// copied_ns; }`, the copy filter's time 0 (its next packet is copied).
    pub fn to_bytes(self) -> [u8; 16] {
        let (action, arg) = match self {
            Verdict::Pass => (0, 0),
            Verdict::Drop => (1, 0),
            Verdict::Dscp(d) => (2, d & 0x3f),
            Verdict::Class(c) => (3, c.clamp(1, MAX_CLASS)),
        };
        let mut b = [0u8; 16];
        b[0] = action;
        b[1] = arg;
        b
    }
}

/// The program's packet counters (slots of the per-CPU array `COUNTERS`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Parsed, no verdict: passed (fail-open).
    pub no_entry: u64,
    /// Verdict pass.
    pub pass: u64,
    /// Verdict drop: shot.
    pub drop: u64,
    /// Verdict DSCP: written (or already that value).
    pub dscp: u64,
    /// Not IPv4/IPv6 over Ethernet, or too short to key: passed.
    pub not_ip: u64,
    /// Verdict class: marked for a rate limit's HTB class, passed.
    pub class: u64,
    /// The copy filter (`Datapath::attach_copy_filter`): packets of decided flows it kept out
    /// of the capture socket (the kernel enforced them; wirespeed did not see them).
    pub copy_skipped: u64,
    /// Their bytes (whole frames).
    pub copy_skipped_bytes: u64,
    /// The ring buffer copy: packets that found the ring full (not copied).
    pub copy_lost: u64,
    /// The ring buffer copy: packets copied into it.
    pub copied: u64,
    /// Packets of decided flows passed untouched because user space's heartbeat was stale
    /// (`Datapath::load_with`'s fail-open).
    pub stale: u64,
}

/// The verdict map's key: `struct flow_key` of `bpf/verdict.c`, 40 bytes. Both addresses as
/// IPv6 (IPv4 mapped, `::ffff:a.b.c.d`), both ports big-endian, the IP protocol; the lower
/// end-point (address bytes, then port) first, so both directions of a flow give one key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(C)]
pub struct FlowKey {
    lo_addr: [u8; 16],
    hi_addr: [u8; 16],
    lo_port: [u8; 2],
    hi_port: [u8; 2],
    proto: u8,
    pad: [u8; 3],
}

/// IP protocol numbers for [`FlowKey::new`].
pub mod proto {
    /// TCP.
    pub const TCP: u8 = 6;
    /// UDP.
    pub const UDP: u8 = 17;
    /// ICMP (keyed with ports 0).
    pub const ICMP: u8 = 1;
}

fn mapped(a: IpAddr) -> [u8; 16] {
    match a {
        IpAddr::V4(v4) => v4.to_ipv6_mapped().octets(),
        IpAddr::V6(v6) => v6.octets(),
    }
}

impl FlowKey {
    /// The key of the flow between (`a`, `a_port`) and (`b`, `b_port`) over IP protocol
    /// `proto`, in either order. Protocols other than TCP and UDP are keyed by the program with
    /// ports 0: give 0 for them.
    pub fn new(a: IpAddr, a_port: u16, b: IpAddr, b_port: u16, proto: u8) -> FlowKey {
        let (ea, eb) = (
            (mapped(a), a_port.to_be_bytes()),
            (mapped(b), b_port.to_be_bytes()),
        );
        let (lo, hi) = if ea > eb { (eb, ea) } else { (ea, eb) };
        FlowKey {
            lo_addr: lo.0,
            hi_addr: hi.0,
            lo_port: lo.1,
            hi_port: hi.1,
            proto,
            pad: [0; 3],
        }
    }

    /// The 40 bytes the program builds for this flow.
    pub fn to_bytes(&self) -> [u8; 40] {
        let mut b = [0u8; 40];
        b[..16].copy_from_slice(&self.lo_addr);
        b[16..32].copy_from_slice(&self.hi_addr);
        b[32..34].copy_from_slice(&self.lo_port);
        b[34..36].copy_from_slice(&self.hi_port);
        b[36] = self.proto;
        b
    }
}

#[cfg(all(feature = "ebpf", target_os = "linux"))]
mod datapath;
#[cfg(all(feature = "ebpf", target_os = "linux"))]
pub use datapath::{
    Attach, Copies, Copy, Datapath, Error, Heartbeat, Hook, RingCopy, COPY_HEADER, OBJECT,
};
#[cfg(all(feature = "ebpf", target_os = "linux"))]
mod shaper;
#[cfg(all(feature = "ebpf", target_os = "linux"))]
mod xsk;
#[cfg(all(feature = "ebpf", target_os = "linux"))]
pub use shaper::{ShapeClass, Shaper, SHAPER_HANDLE};
#[cfg(all(feature = "ebpf", target_os = "linux"))]
pub use xsk::{XdpAttach, XskCapture, MAX_SOCKETS, XSK_MAGIC, XSK_OBJECT};

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::{Ipv4Addr, Ipv6Addr};

    #[test]
    fn key_is_one_for_both_directions() {
        let c = IpAddr::V4(Ipv4Addr::new(192, 0, 2, 1));
        let s = IpAddr::V4(Ipv4Addr::new(192, 0, 2, 2));
        let k = FlowKey::new(c, 40000, s, 53, proto::UDP);
        assert_eq!(k, FlowKey::new(s, 53, c, 40000, proto::UDP));
        let b = k.to_bytes();
        // The lower address first, IPv4 mapped, ports big-endian.
        assert_eq!(
            &b[..16],
            &Ipv4Addr::new(192, 0, 2, 1).to_ipv6_mapped().octets()
        );
        assert_eq!(
            &b[16..32],
            &Ipv4Addr::new(192, 0, 2, 2).to_ipv6_mapped().octets()
        );
        assert_eq!(&b[32..36], &[0x9c, 0x40, 0, 53]);
        assert_eq!(&b[36..], &[17, 0, 0, 0]);
        assert_ne!(k, FlowKey::new(c, 40000, s, 53, proto::TCP));
    }

    #[test]
    fn same_address_orders_by_port() {
        let h = IpAddr::V6(Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 1));
        let k = FlowKey::new(h, 9000, h, 80, proto::TCP).to_bytes();
        assert_eq!(&k[32..36], &[0, 80, 0x23, 0x28]);
        assert_eq!(k, FlowKey::new(h, 80, h, 9000, proto::TCP).to_bytes());
    }

    #[test]
    fn verdict_bytes() {
        assert_eq!(Verdict::Drop.to_bytes()[..2], [1, 0]);
        assert_eq!(Verdict::Dscp(46).to_bytes()[..2], [2, 46]);
        assert_eq!(Verdict::Dscp(0xff).to_bytes()[..2], [2, 63]);
        assert_eq!(Verdict::Pass.to_bytes(), [0; 16]);
        // The copy filter's time starts at 0, the padding too.
        for v in [Verdict::Drop, Verdict::Dscp(46), Verdict::Class(5)] {
            assert_eq!(v.to_bytes()[2..], [0; 14]);
        }
        assert_eq!(Verdict::Class(5).to_bytes()[..2], [3, 5]);
        assert_eq!(Verdict::Class(0).to_bytes()[..2], [3, 1]);
        assert_eq!(Verdict::Class(200).to_bytes()[..2], [3, 127]);
    }
}
