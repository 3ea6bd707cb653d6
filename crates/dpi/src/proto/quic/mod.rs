//! QUIC: the version of any long-header packet, and from a client Initial of v1, v2 or drafts
//! 27-34 (decrypted with the keys every observer can derive from the packet, RFC 9001 §5) the
//! TLS ClientHello inside: SNI, ALPN, JA3/JA4. Google QUIC's Q0xx versions are recognised by
//! their public header.

use crate::meta::{Field, Meta};
use crate::proto::label;
use crate::reasm::Stash;
use crate::proto::tls::Offer;
use crate::util::{Buf, Rd};
use crate::{Cx, Digests, Dir, Inspector, Label, Probe, STATE_BYTES, UDP};
use arrayvec::ArrayVec;
use ring::{aead, hkdf};

/// nDPI's QUIC label.
pub static LABEL: Label = label("QUIC", "Web");

/// DNS over QUIC (RFC 9250 §4.1: ALPN `doq`; its drafts' `doq-i00`... before it): nDPI's
/// DoH_DoT above QUIC, as TLS's `dot` is above TLS.
pub static DOQ: Label = Label {
    master: "QUIC",
    app: "DoH_DoT",
    category: "Network",
};

/// The QUIC inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "quic",
    transports: UDP,
    ports: &[443, 80, 8443, 4433],
    labels: &[&LABEL, &DOQ],
    min_udp: 7,
    ports_required: false,
    probe,
};

const V1: u32 = 0x0000_0001;
const V2: u32 = 0x6b33_43cf;

/// nDPI's name for a QUIC version ("V-1", "Draft-29", "Q046"); None for unknown ones.
pub fn version_name(v: u32, out: &mut Buf<16>) -> bool {
    match v {
        0 => out.push(b"Ver-Negotiation"),
        V1 => out.push(b"V-1"),
        V2 => out.push(b"V-2"),
        0xff00_0000..=0xff00_00ff => {
            out.push(b"Draft-");
            out.num(v & 0xff);
        }
        0xfaceb001 => out.push(b"MVFST-22"),
        0xfaceb002 => out.push(b"MVFST-27"),
        0xfaceb00e => out.push(b"MVFST-EXP"),
        _ => {
            // Google QUIC: 'Q' or 'T' and three digits.
            let b = v.to_be_bytes();
            if (b[0] == b'Q' || b[0] == b'T') && b[1..].iter().all(u8::is_ascii_digit) {
                out.push(&b);
            } else {
                return false;
            }
        }
    }
    true
}

/// The Initial salt of a version (RFC 9001 §5.2, RFC 9369 §3.3.1, drafts 22-34: 33 and 34 have
/// RFC 9001's, as tshark decrypts them).
fn salt(v: u32) -> Option<&'static [u8; 20]> {
    const S_V1: [u8; 20] = [
        0x38, 0x76, 0x2c, 0xf7, 0xf5, 0x59, 0x34, 0xb3, 0x4d, 0x17, 0x9a, 0xe6, 0xa4, 0xc8, 0x0c,
        0xad, 0xcc, 0xbb, 0x7f, 0x0a,
    ];
    const S_V2: [u8; 20] = [
        0x0d, 0xed, 0xe3, 0xde, 0xf7, 0x00, 0xa6, 0xdb, 0x81, 0x93, 0x81, 0xbe, 0x6e, 0x26, 0x9d,
        0xcb, 0xf9, 0xbd, 0x2e, 0xd9,
    ];
    const S_D29: [u8; 20] = [
        0xaf, 0xbf, 0xec, 0x28, 0x99, 0x93, 0xd2, 0x4c, 0x9e, 0x97, 0x86, 0xf1, 0x9c, 0x61, 0x11,
        0xe0, 0x43, 0x90, 0xa8, 0x99,
    ];
    const S_D23: [u8; 20] = [
        0xc3, 0xee, 0xf7, 0x12, 0xc7, 0x2e, 0xbb, 0x5a, 0x11, 0xa7, 0xd2, 0x43, 0x2b, 0xb4, 0x63,
        0x65, 0xbe, 0xf9, 0xf5, 0x02,
    ];
    // Draft 22's salt; Facebook's mvfst uses it for its draft-22 version and draft 23's for the
    // others (as Wireshark does).
    const S_D22: [u8; 20] = [
        0x7f, 0xbc, 0xdb, 0x0e, 0x7c, 0x66, 0xbb, 0xe9, 0x19, 0x3a, 0x96, 0xcd, 0x21, 0x51, 0x9e,
        0xbd, 0x7a, 0x02, 0x64, 0x4a,
    ];
    match v {
        V1 => Some(&S_V1),
        0xfaceb001 | 0xff00_0016 => Some(&S_D22),
        0xfaceb002 | 0xfaceb00e => Some(&S_D23),
        V2 => Some(&S_V2),
        // Drafts 29-32; drafts 33 and 34 already use the salt RFC 9001 kept.
        0xff00_001d..=0xff00_0020 => Some(&S_D29),
        0xff00_0021..=0xff00_0022 => Some(&S_V1),
        0xff00_0017..=0xff00_001c => Some(&S_D23),
        // Reserved versions that force negotiation: the interop runner's clients protect them
        // with the draft-29 salt (tshark opens them so too; the v1 salt fails the AEAD check).
        _ if v & 0x0f0f_0f0f == 0x0a0a_0a0a => Some(&S_D29),
        _ => None,
    }
}

/// HKDF-Expand-Label (RFC 8446 §7.1) with an empty context.
fn expand_label(prk: &hkdf::Prk, label: &[u8], out: &mut [u8]) -> Option<()> {
    let len = (out.len() as u16).to_be_bytes();
    let label_len = [(6 + label.len()) as u8];
    let info: [&[u8]; 5] = [&len, &label_len, b"tls13 ", label, &[0]];
    prk.expand(&info, OutLen(out.len())).ok()?.fill(out).ok()
}

/// An HKDF-Expand output length, as ring asks for one.
struct OutLen(usize);

impl hkdf::KeyType for OutLen {
    fn len(&self) -> usize {
        self.0
    }
}

/// Client Initial keys: (key, iv, header-protection key), from the worker's memo when this
/// version and connection id were seen before ([`Digests::quic`]).
pub fn client_keys(
    version: u32,
    dcid: &[u8],
    digests: &mut Digests,
) -> Option<([u8; 16], [u8; 12], [u8; 16])> {
    let salt = salt(version)?;
    let mut text = ArrayVec::<u8, 24>::new();
    text.try_extend_from_slice(&version.to_be_bytes()).ok()?;
    let keys = match text.try_extend_from_slice(dcid) {
        // (A connection id longer than 20 bytes is no QUIC v1's: derived, not kept.)
        Err(_) => derive(salt, version, dcid, &mut digests.salts)?,
        Ok(()) => {
            let salts = &mut digests.salts;
            // Derivation cannot fail for these lengths; were it to, zero keys open nothing.
            let keys = digests.quic.get(&text, |_| {
                derive(salt, version, dcid, salts).unwrap_or([0; 44])
            });
            if keys == [0; 44] {
                return None;
            }
            keys
        }
    };
    let (mut k, mut iv, mut hp) = ([0u8; 16], [0u8; 12], [0u8; 16]);
    k.copy_from_slice(keys.get(..16)?);
    iv.copy_from_slice(keys.get(16..28)?);
    hp.copy_from_slice(keys.get(28..44)?);
    Some((k, iv, hp))
}

/// The client Initial keys of `version` (whose salt is `salt`) and connection id `dcid`
/// (RFC 9001 §5.2), as one 44-byte string: key, IV, header-protection key.
fn derive(
    salt: &'static [u8; 20],
    version: u32,
    dcid: &[u8],
    salts: &mut crate::memo::Salts,
) -> Option<[u8; 44]> {
    // HKDF-Extract (RFC 5869 §2.2): HMAC keyed with the salt, of the connection id.
    let initial = salts.extract(salt, dcid);
    let mut secret = [0u8; 32];
    expand_label(&initial, b"client in", &mut secret)?;
    let c = hkdf::Prk::new_less_safe(hkdf::HKDF_SHA256, &secret);
    let v2 = version == V2;
    let mut keys = [0u8; 44];
    let (k, rest) = keys.split_at_mut(16);
    let (iv, hp) = rest.split_at_mut(12);
    expand_label(&c, if v2 { b"quicv2 key" } else { b"quic key" }, k)?;
    expand_label(&c, if v2 { b"quicv2 iv" } else { b"quic iv" }, iv)?;
    expand_label(&c, if v2 { b"quicv2 hp" } else { b"quic hp" }, hp)?;
    Some(keys)
}

/// A QUIC variable-length integer.
fn varint(r: &mut Rd<'_>) -> Option<u64> {
    let b0 = r.u8()?;
    let n = 1usize << (b0 >> 6);
    let mut v = u64::from(b0 & 0x3f);
    for _ in 1..n {
        v = (v << 8) | u64::from(r.u8()?);
    }
    Some(v)
}

/// Largest Initial we decrypt (Initials are padded to 1200 bytes; jumbo frames are rare).
const MAX_PKT: usize = 4096;
/// CRYPTO bytes gathered from one Initial.
const MAX_CRYPTO: usize = 4096;

/// Zeros for the gaps between CRYPTO frames (the buffers below are never zeroed whole: an
/// Initial's 9 KiB of zeroing was ~24 instructions a packet of the corpus mix).
static ZEROS: [u8; MAX_CRYPTO] = [0; MAX_CRYPTO];

/// Write `data` at `off` of `buf`, zeros in any gap before it; the caller keeps `off +
/// data.len()` within the capacity.
fn put_at<const N: usize>(buf: &mut ArrayVec<u8, N>, off: usize, data: &[u8]) -> Option<()> {
    let len = buf.len();
    if off > len {
        buf.try_extend_from_slice(ZEROS.get(..off - len)?).ok()?;
    }
    // The part of `data` over bytes already there is copied, the rest appended.
    let over = (buf.len() - off).min(data.len());
    buf.get_mut(off..off + over)?.copy_from_slice(data.get(..over)?);
    buf.try_extend_from_slice(data.get(over..)?).ok()
}

/// Per-flow state.
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
struct State {
    /// The flow is QUIC (1), and [`DNS_ALPN`].
    seen: u8,
    /// Length of `dcid` (0: not kept).
    dcid_len: u8,
    /// The client's first destination connection id, when it fits: its keys protect later
    /// Initials too.
    dcid: [u8; DCID_KEPT],
}

/// [`State::seen`]: the client's hello offered DNS over QUIC.
const DNS_ALPN: u8 = 2;

/// Longest first DCID kept.
const DCID_KEPT: usize = STATE_BYTES - 2;

fn probe(cx: &mut Cx<'_>) -> Probe {
    if cx.state::<State>().seen != 0 {
        // Chosen already: a later packet may name the version (after a reserved one) and a
        // later client Initial may still carry the SNI.
        let d = cx.data;
        if d.first().is_some_and(|b| b & 0x80 != 0) {
            let v = d
                .get(1..5)
                .map_or(0, |v| u32::from_be_bytes([v[0], v[1], v[2], v[3]]));
            let mut name = Buf::<16>::default();
            if d.len() >= 7 && version_name(v, &mut name) {
                if v != 0 && cx.meta.get(Field::QuicVersion) == Some("Ver-Negotiation") {
                    // Negotiation done: the version in use names the flow.
                    cx.meta.replace(Field::QuicVersion, name.as_bytes());
                } else {
                    cx.meta.set(Field::QuicVersion, name.as_bytes());
                }
            }
        }
        if cx.hints.dir == Dir::ToServer && cx.meta.get(Field::Ja4).is_none() {
            let st = *cx.state::<State>();
            let first = st.dcid.get(..usize::from(st.dcid_len)).unwrap_or(&[]);
            let hello = initial(cx.data, cx.meta, cx.digests, cx.stash.as_mut(), first);
            if hello.flatten().is_some_and(|o| o.dns) {
                cx.state::<State>().seen |= DNS_ALPN;
            }
        }
        return done(cx);
    }
    let d = cx.data;
    let Some(&b0) = d.first() else {
        return Probe::NotForUs;
    };
    if b0 & 0x80 == 0 {
        return gquic_public(cx);
    }
    let mut r = Rd::new(d);
    r.skip(1);
    let Some(version) = r.u32() else {
        return Probe::NotForUs;
    };
    let mut name = Buf::<16>::default();
    let named = version_name(version, &mut name);
    let google = matches!(version >> 24, 0x51 | 0x54) && named;
    if google {
        // Google QUIC Q046+: the connection-id lengths share one byte; Initials are not
        // protected with the IETF keys.
        if d.len() < 7 || b0 & 0x40 == 0 {
            return Probe::NotForUs;
        }
        cx.meta.set(Field::QuicVersion, name.as_bytes());
        // Q046's CHLO is still in clear (Q050 on encrypts it: not found then).
        gquic_chlo(cx);
        cx.state::<State>().seen |= 1;
        return Probe::Certain(&LABEL);
    }
    let (Some(dcid), Some(scid)) = (r.vec8(), r.vec8()) else {
        return Probe::NotForUs;
    };
    if dcid.len() > 20 || scid.len() > 20 {
        return Probe::NotForUs;
    }
    // Version 0 is a Version Negotiation packet (RFC 9000 §17.2.1): a server's answer to a
    // client's packet, listing the versions it supports (4 bytes each, at least one). A flow's
    // first packet toward the server is not one: a DNS-format query with ID 0x8000-0xff00
    // and flags 0 (LLMNR's, mDNS's) reads as version 0 with a one-byte DCID.
    if version == 0
        && ((cx.hints.dir == Dir::ToServer && cx.hints.nth == 0)
            || r.rest_peek().is_empty()
            || !r.rest_peek().len().is_multiple_of(4))
    {
        return Probe::NotForUs;
    }
    // Reserved versions 0x?a?a?a?a force version negotiation (RFC 9000 §15): QUIC too, and
    // named as nDPI does until a real version shows.
    let reserved = version & 0x0f0f_0f0f == 0x0a0a_0a0a;
    if !named && !reserved {
        return Probe::NotForUs;
    }
    if reserved {
        name.push(b"Ver-Negotiation");
    }
    if version != 0 && b0 & 0x40 == 0 {
        // The fixed bit must be set.
        return Probe::NotForUs;
    }
    cx.meta.set(Field::QuicVersion, name.as_bytes());
    if cx.hints.dir == Dir::ToServer && salt(version).is_some() {
        // Remember the first DCID (its keys protect later Initials too) when it fits.
        let st = cx.state::<State>();
        if let Some(keep) = st.dcid.get_mut(..dcid.len()) {
            keep.copy_from_slice(dcid);
            st.dcid_len = dcid.len() as u8;
        }
        match initial(d, cx.meta, cx.digests, cx.stash.as_mut(), &[]) {
            Some(Some(o)) if o.dns => cx.state::<State>().seen |= DNS_ALPN,
            Some(_) => {}
            None => cx.malformed(),
        }
    }
    cx.state::<State>().seen |= 1;
    done(cx)
}

fn done(cx: &mut Cx<'_>) -> Probe {
    if (cx.meta.get(Field::Ja4).is_none() || cx.meta.get(Field::QuicVersion).is_none())
        && cx.hints.nth < 3
    {
        cx.want_more();
    }
    Probe::Certain(if cx.state::<State>().seen & DNS_ALPN != 0 {
        &DOQ
    } else {
        &LABEL
    })
}

/// Google QUIC before Q046: public flags with the version bit, 8-byte connection id, version.
fn gquic_public(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let Some(&flags) = d.first() else {
        return Probe::NotForUs;
    };
    if flags & 0x01 == 0 || flags & 0x08 == 0 || flags & 0x80 != 0 {
        return Probe::NotForUs;
    }
    let Some(v) = d.get(9..13) else {
        return Probe::NotForUs;
    };
    if v[0] != b'Q' || !v[1..].iter().all(u8::is_ascii_digit) {
        return Probe::NotForUs;
    }
    cx.meta.set(Field::QuicVersion, v);
    gquic_chlo(cx);
    cx.state::<State>().seen |= 1;
    Probe::Certain(&LABEL)
}

/// A gQUIC CHLO in clear text: its SNI tag, and `h` in `tls_flags` (a client hello was read,
/// with or without a name: nDPI's Missing SNI reads it).
fn gquic_chlo(cx: &mut Cx<'_>) {
    if let Some(sni) = gquic_sni(cx.data) {
        cx.meta.set(Field::TlsFlags, b"h");
        if let Some(name) = sni.filter(|n| !n.is_empty()) {
            cx.meta.set(Field::Sni, name);
        }
    }
}

/// A gQUIC CHLO in clear text (Q0xx up to Q046): Some(its SNI tag's value, if any); None when
/// there is no whole CHLO tag table.
fn gquic_sni(d: &[u8]) -> Option<Option<&[u8]>> {
    let at = crate::util::find(d, b"CHLO")?;
    let mut r = Rd::new(d.get(at + 4..)?);
    let n = u16::from_le_bytes([r.u8()?, r.u8()?]) as usize;
    r.skip(2)?;
    let mut prev = 0usize;
    let mut tags = [(0u32, 0usize, 0usize); 64];
    let n = n.min(64);
    for t in tags.iter_mut().take(n) {
        let tag = r.take(4)?;
        let end = u32::from_le_bytes([r.u8()?, r.u8()?, r.u8()?, r.u8()?]) as usize;
        *t = (
            u32::from_be_bytes([tag[0], tag[1], tag[2], tag[3]]),
            prev,
            end,
        );
        prev = end;
    }
    let vals = r.rest();
    let sni = u32::from_be_bytes(*b"SNI\0");
    Some(
        tags.iter()
            .take(n)
            .find(|t| t.0 == sni)
            .and_then(|t| vals.get(t.1..t.2)),
    )
}

/// Remove header protection and decrypt the Initial whose header ends its token at `pn_off` and
/// whose protected part is `len` bytes, with the keys of `key_dcid`. Returns the plaintext's
/// length in `out`.
fn open(
    d: &[u8],
    digests: &mut Digests,
    version: u32,
    key_dcid: &[u8],
    pn_off: usize,
    len: usize,
    out: &mut ArrayVec<u8, MAX_PKT>,
) -> Option<usize> {
    let b0 = *d.first()?;
    let (key, iv, hp) = client_keys(version, key_dcid, digests)?;
    // Header protection (RFC 9001 §5.4): AES-ECB of a 16-byte sample.
    let sample = d.get(pn_off + 4..pn_off + 20)?;
    let mask = aead::quic::HeaderProtectionKey::new(&aead::quic::AES_128, &hp)
        .ok()?
        .new_mask(sample)
        .ok()?;
    let first = b0 ^ (mask[0] & 0x0f);
    let pn_len = usize::from(first & 3) + 1;
    // The header is the AEAD's associated data; tokens make it long (164 bytes seen).
    let mut hdr = ArrayVec::<u8, MAX_HDR>::new();
    let hlen = pn_off + pn_len;
    hdr.try_extend_from_slice(d.get(..hlen)?).ok()?;
    hdr[0] = first;
    let mut pn = 0u64;
    for i in 0..pn_len {
        hdr[pn_off + i] ^= mask[1 + i];
        pn = (pn << 8) | u64::from(hdr[pn_off + i]);
    }
    let mut nonce = iv;
    for (i, b) in pn.to_be_bytes().iter().enumerate() {
        nonce[4 + i] ^= b;
    }
    let body = d.get(hlen..pn_off + len)?;
    if body.len() < 16 {
        return None;
    }
    // Ciphertext and tag opened in place (`len` is at most MAX_PKT: `initial`).
    out.clear();
    out.try_extend_from_slice(body).ok()?;
    let key = aead::LessSafeKey::new(aead::UnboundKey::new(&aead::AES_128_GCM, &key).ok()?);
    let n = key
        .open_in_place(
            aead::Nonce::assume_unique_for_key(nonce),
            aead::Aad::from(hdr.as_slice()),
            out.as_mut_slice(),
        )
        .ok()?
        .len();
    Some(n)
}

/// Longest long header we authenticate (token included).
const MAX_HDR: usize = 1024;

/// Decrypt a client Initial and parse the ClientHello in its CRYPTO frames. Some(Some(what it
/// offered)) when the ClientHello was found, Some(None) when the packet is not an Initial we
/// can open, None when it is malformed.
///
/// A ClientHello larger than one packet (post-quantum key shares make it so in Chrome) is
/// gathered across Initials in `stash` when one is given.
pub fn initial(
    d: &[u8],
    meta: &mut Meta,
    digests: &mut Digests,
    stash: Option<&mut Stash<'_>>,
    first_dcid: &[u8],
) -> Option<Option<Offer>> {
    let mut r = Rd::new(d);
    let b0 = r.u8()?;
    let version = r.u32()?;
    let typ = (b0 >> 4) & 3;
    let is_initial = if version == V2 { typ == 1 } else { typ == 0 };
    if !is_initial || b0 & 0x80 == 0 {
        return Some(None);
    }
    let dcid = r.vec8()?;
    r.vec8()?;
    let tok = varint(&mut r)? as usize;
    r.skip(tok)?;
    let len = varint(&mut r)? as usize;
    let pn_off = r.pos();
    if !(20..=MAX_PKT).contains(&len) || pn_off + len > d.len() {
        return None;
    }
    let mut buf = ArrayVec::<u8, MAX_PKT>::new();
    // Keys come from the DCID of the client's first Initial (RFC 9001 §5.2): a later Initial
    // sent to the server's chosen connection id is still protected with them.
    let n = match open(d, digests, version, dcid, pn_off, len, &mut buf) {
        Some(n) => n,
        None if !first_dcid.is_empty() && first_dcid != dcid => {
            open(d, digests, version, first_dcid, pn_off, len, &mut buf)?
        }
        None => return None,
    };
    let plain = buf.get(..n)?;
    // Frames: gather CRYPTO data by offset (gaps read as zeros).
    let mut crypto = ArrayVec::<u8, MAX_CRYPTO>::new();
    let mut ranges = [(0usize, 0usize); 32];
    let mut nr = 0;
    let mut f = Rd::new(plain);
    let mut guard = 0;
    while f.left() > 0 && guard < MAX_PKT {
        guard += 1;
        // PADDING frames (type 0x00, one byte each) fill most of an Initial: a run of them is
        // skipped at once, not read as hundreds of one-byte frames.
        let zeros = zero_run(f.rest_peek());
        if zeros > 0 {
            f.skip(zeros)?;
            continue;
        }
        match varint(&mut f)? {
            0x00 | 0x01 => {}
            t @ (0x02 | 0x03) => {
                // ACK: largest, delay, range count, first range, ranges, ECN counts (0x03).
                for _ in 0..2 {
                    varint(&mut f)?;
                }
                let ranges = varint(&mut f)?;
                varint(&mut f)?;
                if ranges > 256 {
                    return None;
                }
                for _ in 0..2 * ranges + if t == 0x03 { 3 } else { 0 } {
                    varint(&mut f)?;
                }
            }
            0x06 => {
                let off = varint(&mut f)? as usize;
                let n = varint(&mut f)? as usize;
                let data = f.take(n)?;
                if off < MAX_CRYPTO && nr < ranges.len() {
                    let m = n.min(MAX_CRYPTO - off);
                    put_at(&mut crypto, off, &data[..m])?;
                    ranges[nr] = (off, off + m);
                    nr += 1;
                }
            }
            0x1c | 0x1d => break,
            _ => return None,
        }
    }
    // Contiguous prefix from offset 0.
    let mut have = 0usize;
    for _ in 0..nr {
        for &(a, b) in &ranges[..nr] {
            if a <= have && b > have {
                have = b;
            }
        }
    }
    // The handshake message's length, its bytes past what was written read as zeros (as in
    // a zeroed buffer).
    let at = |i: usize| usize::from(crypto.get(i).copied().unwrap_or(0));
    let need = 4 + (at(1) << 16 | at(2) << 8 | at(3));
    if nr == 0 {
        return Some(None);
    }
    if have >= need {
        return hello(crypto.get(..have)?, meta, digests);
    }
    // The hello continues in another Initial: gather this packet's pieces with the others'.
    if let Some(st) = stash {
        for &(a, b) in &ranges[..nr] {
            st.put(a, crypto.get(a..b).unwrap_or(&[]));
        }
        let all = st.bytes();
        if all.len() > have {
            return hello(all, meta, digests);
        }
    }
    hello(crypto.get(..have)?, meta, digests)
}

/// Length of the run of zero bytes that starts `b`, compared 16 bytes at a time.
fn zero_run(b: &[u8]) -> usize {
    let mut n = 0;
    for c in b.chunks_exact(16) {
        if c.iter().fold(0u8, |a, &x| a | x) != 0 {
            break;
        }
        n += 16;
    }
    n + b[n..].iter().take_while(|&&x| x == 0).count()
}

fn hello(c: &[u8], meta: &mut Meta, digests: &mut Digests) -> Option<Option<Offer>> {
    let mut r = Rd::new(c);
    if r.u8()? != 1 {
        return Some(None);
    }
    let n = r.u24()? as usize;
    let body = r.rest();
    let body = body.get(..n.min(body.len()))?;
    crate::proto::tls::client_hello(body, b'q', meta, digests).map(Some)
}

#[cfg(test)]
mod tests;
