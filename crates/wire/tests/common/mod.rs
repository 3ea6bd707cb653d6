//! A small packet builder for the tests, written apart from the decoder: each function wraps a
//! body in one header with the lengths filled in, so frames are built inside out.
#![allow(dead_code)]

pub const SRC4: [u8; 4] = [192, 0, 2, 1];
pub const DST4: [u8; 4] = [198, 51, 100, 7];
pub const SRC6: [u8; 16] = [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1];
pub const DST6: [u8; 16] = [
    0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xbe, 0xef,
];
pub const SEQ: u32 = 0x0102_0304;
pub const ACK: u32 = 0x0506_0708;
pub const WINDOW: u16 = 0x1234;
pub const TTL: u8 = 61;

pub const ET_IPV4: u16 = 0x0800;
pub const ET_IPV6: u16 = 0x86dd;

/// An IPv4 address in the 16-byte form of `Decoded`.
pub fn a4(a: [u8; 4]) -> [u8; 16] {
    let mut x = [0; 16];
    x[..4].copy_from_slice(&a);
    x
}

pub fn tcp_with(sport: u16, dport: u16, flags: u8, options: &[u8], payload: &[u8]) -> Vec<u8> {
    assert_eq!(options.len() % 4, 0);
    let mut t = Vec::new();
    t.extend_from_slice(&sport.to_be_bytes());
    t.extend_from_slice(&dport.to_be_bytes());
    t.extend_from_slice(&SEQ.to_be_bytes());
    t.extend_from_slice(&ACK.to_be_bytes());
    t.push((((20 + options.len()) / 4) as u8) << 4);
    t.push(flags);
    t.extend_from_slice(&WINDOW.to_be_bytes());
    t.extend_from_slice(&[0, 0, 0, 0]);
    t.extend_from_slice(options);
    t.extend_from_slice(payload);
    t
}

pub fn tcp(sport: u16, dport: u16, payload: &[u8]) -> Vec<u8> {
    tcp_with(sport, dport, 0x18, &[], payload)
}

pub fn udp(sport: u16, dport: u16, payload: &[u8]) -> Vec<u8> {
    let mut u = Vec::new();
    u.extend_from_slice(&sport.to_be_bytes());
    u.extend_from_slice(&dport.to_be_bytes());
    u.extend_from_slice(&((8 + payload.len()) as u16).to_be_bytes());
    u.extend_from_slice(&[0, 0]);
    u.extend_from_slice(payload);
    u
}

pub fn icmp(kind: u8, code: u8, payload: &[u8]) -> Vec<u8> {
    let mut i = vec![kind, code, 0, 0, 0, 1, 0, 2];
    i.extend_from_slice(payload);
    i
}

pub fn sctp(sport: u16, dport: u16, payload: &[u8]) -> Vec<u8> {
    let mut s = Vec::new();
    s.extend_from_slice(&sport.to_be_bytes());
    s.extend_from_slice(&dport.to_be_bytes());
    s.extend_from_slice(&[0xde, 0xad, 0xbe, 0xef, 0, 0, 0, 0]);
    s.extend_from_slice(payload);
    s
}

/// IPv4 header fields a test may want to change.
#[derive(Clone)]
pub struct V4 {
    pub src: [u8; 4],
    pub dst: [u8; 4],
    pub proto: u8,
    pub ttl: u8,
    pub id: u16,
    /// Flags and fragment offset word (offset in 8-byte units).
    pub frag: u16,
    pub options: Vec<u8>,
    /// Total length to write instead of the true one.
    pub total_len: Option<u16>,
}

impl V4 {
    pub fn new(proto: u8) -> V4 {
        V4 {
            src: SRC4,
            dst: DST4,
            proto,
            ttl: TTL,
            id: 0x4242,
            frag: 0x4000, // DF
            options: Vec::new(),
            total_len: None,
        }
    }

    pub fn build(&self, body: &[u8]) -> Vec<u8> {
        assert_eq!(self.options.len() % 4, 0);
        let hl = 20 + self.options.len();
        let total = self.total_len.unwrap_or((hl + body.len()) as u16);
        let mut p = vec![0x40 | (hl / 4) as u8, 0];
        p.extend_from_slice(&total.to_be_bytes());
        p.extend_from_slice(&self.id.to_be_bytes());
        p.extend_from_slice(&self.frag.to_be_bytes());
        p.extend_from_slice(&[self.ttl, self.proto, 0, 0]);
        p.extend_from_slice(&self.src);
        p.extend_from_slice(&self.dst);
        p.extend_from_slice(&self.options);
        p.extend_from_slice(body);
        p
    }
}

pub fn ipv4(proto: u8, body: &[u8]) -> Vec<u8> {
    V4::new(proto).build(body)
}

pub fn ipv4_addrs(src: [u8; 4], dst: [u8; 4], proto: u8, body: &[u8]) -> Vec<u8> {
    V4 {
        src,
        dst,
        ..V4::new(proto)
    }
    .build(body)
}

pub fn ipv6_addrs(src: [u8; 16], dst: [u8; 16], next: u8, body: &[u8]) -> Vec<u8> {
    let mut p = vec![0x60, 0, 0, 0];
    p.extend_from_slice(&(body.len() as u16).to_be_bytes());
    p.extend_from_slice(&[next, TTL]);
    p.extend_from_slice(&src);
    p.extend_from_slice(&dst);
    p.extend_from_slice(body);
    p
}

pub fn ipv6(next: u8, body: &[u8]) -> Vec<u8> {
    ipv6_addrs(SRC6, DST6, next, body)
}

/// A generic IPv6 extension header (hop-by-hop, routing, destination options) of
/// `8 * (units + 1)` bytes.
pub fn ext6(next: u8, units: u8, body: &[u8]) -> Vec<u8> {
    let mut e = vec![next, units];
    e.resize(8 * (units as usize + 1), 0);
    e.extend_from_slice(body);
    e
}

/// An IPv6 fragment header: `offset` in bytes (a multiple of 8).
pub fn frag6(next: u8, offset: u16, more: bool, id: u32, body: &[u8]) -> Vec<u8> {
    let mut e = vec![next, 0];
    e.extend_from_slice(&(offset | more as u16).to_be_bytes());
    e.extend_from_slice(&id.to_be_bytes());
    e.extend_from_slice(body);
    e
}

/// An authentication header of `(len + 2) * 4` bytes.
pub fn ah(next: u8, len: u8, body: &[u8]) -> Vec<u8> {
    let mut e = vec![next, len];
    e.resize((len as usize + 2) * 4, 0xa5);
    e.extend_from_slice(body);
    e
}

pub const DST_MAC: [u8; 6] = [0x02, 0, 0, 0, 0, 0x02];
pub const SRC_MAC: [u8; 6] = [0x02, 0, 0, 0, 0, 0x01];

/// Ethernet II with `tags` (TPID, TCI) before the ethertype `et`.
pub fn eth_tagged(tags: &[(u16, u16)], et: u16, body: &[u8]) -> Vec<u8> {
    let mut e = Vec::new();
    e.extend_from_slice(&DST_MAC);
    e.extend_from_slice(&SRC_MAC);
    for (tpid, tci) in tags {
        e.extend_from_slice(&tpid.to_be_bytes());
        e.extend_from_slice(&tci.to_be_bytes());
    }
    e.extend_from_slice(&et.to_be_bytes());
    e.extend_from_slice(body);
    e
}

pub fn eth(et: u16, body: &[u8]) -> Vec<u8> {
    eth_tagged(&[], et, body)
}

/// An MPLS label stack of `labels` entries (bottom of stack on the last).
pub fn mpls(labels: usize, body: &[u8]) -> Vec<u8> {
    let mut m = Vec::new();
    for i in 0..labels {
        let label = 100 + i as u32;
        let bos = u32::from(i + 1 == labels);
        m.extend_from_slice(&((label << 12) | (bos << 8) | 64).to_be_bytes());
    }
    m.extend_from_slice(body);
    m
}

/// A PPPoE session header carrying PPP protocol `proto`.
pub fn pppoe(proto: u16, body: &[u8]) -> Vec<u8> {
    let mut p = vec![0x11, 0x00, 0x12, 0x34];
    p.extend_from_slice(&((body.len() + 2) as u16).to_be_bytes());
    p.extend_from_slice(&proto.to_be_bytes());
    p.extend_from_slice(body);
    p
}

/// A GRE header: `flags_ver` as on the wire, with zeroed optional fields for each of C, K, S
/// (and A for version 1) that `flags_ver` sets.
pub fn gre(flags_ver: u16, proto: u16, body: &[u8]) -> Vec<u8> {
    let mut g = Vec::new();
    g.extend_from_slice(&flags_ver.to_be_bytes());
    g.extend_from_slice(&proto.to_be_bytes());
    let v1 = flags_ver & 7 == 1;
    let mut opt = |bit: u16, fill: u8| {
        if flags_ver & bit != 0 {
            g.extend_from_slice(&[fill; 4]);
        }
    };
    opt(0x8000, 0xcc);
    opt(0x2000, 0xee);
    opt(0x1000, 0x55);
    if v1 {
        opt(0x0080, 0xaa);
    }
    g.extend_from_slice(body);
    g
}

pub fn vxlan(body: &[u8]) -> Vec<u8> {
    let mut v = vec![0x08, 0, 0, 0, 0, 0x12, 0x34, 0];
    v.extend_from_slice(body);
    v
}

/// A GTPv1-U G-PDU with TEID 1; `exts` are (type, content) extension headers.
pub fn gtpu(seq: Option<u16>, exts: &[(u8, Vec<u8>)], body: &[u8]) -> Vec<u8> {
    let mut flags = 0x30;
    if seq.is_some() {
        flags |= 0x02;
    }
    if !exts.is_empty() {
        flags |= 0x04;
    }
    let mut rest = Vec::new();
    if flags & 0x07 != 0 {
        rest.extend_from_slice(&seq.unwrap_or(0).to_be_bytes());
        rest.push(0);
        rest.push(exts.first().map_or(0, |e| e.0));
        for (i, (_, content)) in exts.iter().enumerate() {
            let len = (content.len() + 2).div_ceil(4);
            rest.push(len as u8);
            let mut c = content.clone();
            c.resize(len * 4 - 2, 0);
            rest.extend_from_slice(&c);
            rest.push(exts.get(i + 1).map_or(0, |e| e.0));
        }
    }
    rest.extend_from_slice(body);
    let mut g = vec![flags, 0xff];
    let len = if flags & 0x07 != 0 {
        rest.len()
    } else {
        body.len()
    };
    g.extend_from_slice(&(len as u16).to_be_bytes());
    g.extend_from_slice(&1u32.to_be_bytes());
    g.extend_from_slice(&rest);
    g
}

/// Hex to bytes (for frames cut from captures).
pub fn unhex(s: &str) -> Vec<u8> {
    let s: String = s.split_whitespace().collect();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// A Geneve header (RFC 8926 §3.4): version 0, `opts` (whole 4-byte words) as the options,
/// neither O nor C, protocol type `proto`, VNI 0x123456.
pub fn geneve(opts: &[u8], proto: u16, body: &[u8]) -> Vec<u8> {
    assert_eq!(opts.len() % 4, 0);
    let mut g = vec![(opts.len() / 4) as u8, 0x00];
    g.extend_from_slice(&proto.to_be_bytes());
    g.extend_from_slice(&[0x12, 0x34, 0x56, 0x00]);
    g.extend_from_slice(opts);
    g.extend_from_slice(body);
    g
}

/// A Geneve option TLV (RFC 8926 §3.5): class, type, then `data` (whole 4-byte words).
pub fn geneve_opt(class: u16, kind: u8, data: &[u8]) -> Vec<u8> {
    assert_eq!(data.len() % 4, 0);
    let mut o = class.to_be_bytes().to_vec();
    o.push(kind);
    o.push((data.len() / 4) as u8);
    o.extend_from_slice(data);
    o
}

/// Teredo's authentication indicator (RFC 4380 §5.1.1): 00 01, the lengths, client identifier
/// `id`, authentication value `au`, an 8-byte nonce and the confirmation byte.
pub fn teredo_auth(id: &[u8], au: &[u8], body: &[u8]) -> Vec<u8> {
    let mut t = vec![0x00, 0x01, id.len() as u8, au.len() as u8];
    t.extend_from_slice(id);
    t.extend_from_slice(au);
    t.extend_from_slice(&[0x5a; 8]);
    t.push(0x00);
    t.extend_from_slice(body);
    t
}

/// Teredo's origin indication (RFC 4380 §5.1.1): 00 00, then the origin port and IPv4 address,
/// each with every bit inverted.
pub fn teredo_origin(port: u16, addr: [u8; 4], body: &[u8]) -> Vec<u8> {
    let mut t = vec![0x00, 0x00];
    t.extend_from_slice(&(!port).to_be_bytes());
    t.extend_from_slice(&addr.map(|b| !b));
    t.extend_from_slice(body);
    t
}

/// An AYIYA header (draft-massar-v6ops-ayiya-02 §5): an integer identity of 2^`id_len` bytes, a
/// SHA-1 signature of `sig_words` * 4 bytes with shared-secret authentication, `opcode`, next
/// header `next`, an epoch; then `body`.
pub fn ayiya(id_len: u8, sig_words: u8, opcode: u8, next: u8, body: &[u8]) -> Vec<u8> {
    let mut a = vec![
        (id_len << 4) | 0x1,
        (sig_words << 4) | 0x2,
        0x10 | opcode,
        next,
    ];
    a.extend_from_slice(&0x4e20_1234u32.to_be_bytes());
    a.extend(std::iter::repeat_n(0x1d, 1 << id_len));
    a.extend(std::iter::repeat_n(0x5e, usize::from(sig_words) * 4));
    a.extend_from_slice(body);
    a
}

/// An 802.1ah I-TAG TCI (IEEE 802.1Q-2018 §9.7: priority 3, DEI 0, UCA 0, the 24-bit I-SID),
/// then the customer frame `customer` from its destination address on.
pub fn itag(isid: u32, customer: &[u8]) -> Vec<u8> {
    let mut t = ((3u32 << 29) | (isid & 0x00ff_ffff)).to_be_bytes().to_vec();
    t.extend_from_slice(customer);
    t
}

/// A VN-Tag: direction 1, pointer 0, destination vif (14 bits), looped 0, reserved, version 0,
/// source vif (12 bits); then the ethertype `et` and `body`.
pub fn vntag(dvif: u16, svif: u16, et: u16, body: &[u8]) -> Vec<u8> {
    let tag = (1u32 << 31) | ((u32::from(dvif) & 0x3fff) << 16) | (u32::from(svif) & 0x0fff);
    let mut t = tag.to_be_bytes().to_vec();
    t.extend_from_slice(&et.to_be_bytes());
    t.extend_from_slice(body);
    t
}

/// A Cisco FabricPath frame: outer destination and source (hierarchical MACs: switch 0xabd and
/// 0xabc), the FabricPath ethertype 0x8903, FTag (10 bits) and TTL (6 bits), then the classical
/// Ethernet frame `inner`.
pub fn fabricpath(ftag: u16, ttl: u8, inner: &[u8]) -> Vec<u8> {
    let mut f = vec![
        0x02, 0x0a, 0xbd, 0, 0, 0, 0x02, 0x0a, 0xbc, 0, 0, 0, 0x89, 0x03,
    ];
    f.extend_from_slice(&((ftag << 6) | u16::from(ttl & 0x3f)).to_be_bytes());
    f.extend_from_slice(inner);
    f
}

/// LLC/SNAP (RFC 1042: AA AA 03, OUI 00-00-00) with ethertype `et`.
pub fn snap(et: u16, body: &[u8]) -> Vec<u8> {
    let mut s = vec![0xaa, 0xaa, 0x03, 0x00, 0x00, 0x00];
    s.extend_from_slice(&et.to_be_bytes());
    s.extend_from_slice(body);
    s
}

/// An IEEE 802.11 frame (IEEE 802.11-2020 §9.3.2.1): frame control `fc` as sent, duration, three
/// addresses, sequence control; a fourth address when To DS and From DS are both set; for QoS
/// data subtypes the QoS control `qos`, and an HT control field when +HTC/Order is set; then
/// `pad` zero bytes (capture padding) and `body`.
pub fn wifi80211(fc: [u8; 2], qos: [u8; 2], pad: usize, body: &[u8]) -> Vec<u8> {
    let mut w = fc.to_vec();
    w.extend_from_slice(&[0x2c, 0x00]); // duration
    w.extend_from_slice(&[0x00, 0x11, 0x22, 0x33, 0x44, 0x01]); // address 1
    w.extend_from_slice(&[0x00, 0x11, 0x22, 0x33, 0x44, 0x02]); // address 2
    w.extend_from_slice(&[0x00, 0x11, 0x22, 0x33, 0x44, 0x03]); // address 3
    w.extend_from_slice(&[0x10, 0x00]); // sequence control
    if fc[1] & 0x03 == 0x03 {
        w.extend_from_slice(&[0x00, 0x11, 0x22, 0x33, 0x44, 0x04]);
    }
    let data = fc[0] & 0x0c == 0x08;
    if data && fc[0] & 0x80 != 0 {
        w.extend_from_slice(&qos);
        if fc[1] & 0x80 != 0 {
            w.extend_from_slice(&[0x00, 0x00, 0x00, 0x00]);
        }
    }
    w.extend(std::iter::repeat_n(0, pad));
    w.extend_from_slice(body);
    w
}

/// A radiotap header (radiotap.org): version 0, pad, the little-endian length, the presence
/// words `present` (little-endian), then `fields` laid out by the caller with their alignment.
pub fn radiotap(present: &[u32], fields: &[u8], body: &[u8]) -> Vec<u8> {
    let len = 4 + 4 * present.len() + fields.len();
    let mut r = vec![0x00, 0x00];
    r.extend_from_slice(&(len as u16).to_le_bytes());
    for p in present {
        r.extend_from_slice(&p.to_le_bytes());
    }
    r.extend_from_slice(fields);
    r.extend_from_slice(body);
    r
}

/// A 144-byte Prism monitor-mode header (message code 0x44, length 144, little-endian as on
/// x86; device "wlan0"; ten DID items of 12 bytes), then `body`.
pub fn prism(body: &[u8]) -> Vec<u8> {
    let mut p = 0x44u32.to_le_bytes().to_vec();
    p.extend_from_slice(&144u32.to_le_bytes());
    let mut dev = b"wlan0".to_vec();
    dev.resize(16, 0);
    p.extend_from_slice(&dev);
    for i in 0..10u32 {
        p.extend_from_slice(&(((i + 1) << 12) | 0x41).to_le_bytes()); // DID
        p.extend_from_slice(&0u16.to_le_bytes()); // status
        p.extend_from_slice(&4u16.to_le_bytes()); // length
        p.extend_from_slice(&i.to_le_bytes()); // data
    }
    assert_eq!(p.len(), 144);
    p.extend_from_slice(body);
    p
}

/// An AVS (wlancap version 1) header, big-endian: magic 0x80211001, length 64, MAC and host
/// times, PHY type, channel, rate, antenna, priority, SSI type, signal and noise, preamble,
/// encoding; then `body`.
pub fn avs(body: &[u8]) -> Vec<u8> {
    let mut a = 0x8021_1001u32.to_be_bytes().to_vec();
    a.extend_from_slice(&64u32.to_be_bytes());
    a.extend_from_slice(&0x0102_0304_0506_0708u64.to_be_bytes());
    a.extend_from_slice(&0x1112_1314_1516_1718u64.to_be_bytes());
    for v in [4u32, 6, 540, 1, 0, 1, 0xffff_ffc4, 0xffff_ffa0, 1, 1] {
        a.extend_from_slice(&v.to_be_bytes());
    }
    assert_eq!(a.len(), 64);
    a.extend_from_slice(body);
    a
}

/// A PPPoE header (RFC 2516 §4): version 1, type 1, `code`, session 0x1234, the length of `body`.
pub fn pppoe_hdr(code: u8, body: &[u8]) -> Vec<u8> {
    let mut p = vec![0x11, code, 0x12, 0x34];
    p.extend_from_slice(&(body.len() as u16).to_be_bytes());
    p.extend_from_slice(body);
    p
}
