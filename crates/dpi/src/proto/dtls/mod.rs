//! DTLS (RFC 6347, RFC 9147): a record header with a DTLS version and a length that matches the
//! datagram (or the first of several records in it). Then the hellos as TLS reads them (SNI,
//! ALPN, versions, cipher suite, JA3, JA4 with `d` for DTLS) and, up to DTLS 1.2, the server's
//! certificate names ([`handshake`]): its Certificate message, often in fragments over several
//! datagrams, is gathered in the flow's bounded stash by fragment offset.

use crate::proto::label;
use crate::proto::tls::{certificate, client_hello, server_hello, sh_parse, Step};
use crate::util::Rd;
use crate::Field;
use crate::{Cx, Dir, Inspector, Label, Probe, UDP};

/// nDPI's DTLS label.
pub static LABEL: Label = label("DTLS", "Web");

/// The DTLS inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "dtls",
    transports: UDP,
    ports: &[443, 4433, 4739, 5061, 5349],
    labels: &[&LABEL],
    min_udp: 13,
    ports_required: false,
    probe,
};

/// Per-flow state, at the start of the area: STUN, which hands a flow to [`handshake`] once
/// DTLS follows it, keeps its own after this.
#[derive(Clone, Copy, Default, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub(crate) struct State {
    /// [`SEEN`], [`CERT_DONE`], [`HELLO_DONE`], [`AFTER_STUN`].
    pub(crate) flags: u8,
    /// The server's direction + 1 (the side that sent the ServerHello), 0 until then.
    server: u8,
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    if is_dtls(cx.data) {
        handshake(cx)
    } else if cx.state::<State>().flags != 0 {
        // Chosen already: a datagram of something else on the flow.
        more(cx)
    } else {
        Probe::NotForUs
    }
}

/// [`State::flags`]: the certificate was read, or will not be seen in clear.
const CERT_DONE: u8 = 1;
/// [`State::flags`]: the flow is DTLS (set on the first record).
const SEEN: u8 = 2;
/// [`State::flags`]: the client's hello was read.
const HELLO_DONE: u8 = 4;
/// [`State::flags`]: the flow began with STUN ([`handshake_after_stun`]).
const AFTER_STUN: u8 = 8;

/// [`handshake`] on a flow that began with STUN (WebRTC's ICE, then DTLS-SRTP).
pub fn handshake_after_stun(cx: &mut Cx<'_>) -> Probe {
    cx.state::<State>().flags |= AFTER_STUN;
    handshake(cx)
}

fn more(cx: &mut Cx<'_>) -> Probe {
    if cx.state::<State>().flags & CERT_DONE == 0 {
        cx.want_more();
    }
    Probe::Certain(&LABEL)
}

/// The DTLS records of a datagram: read the server's certificate names (issuer, subject) and
/// answer DTLS, asking for more datagrams until they are read. Keeps its `State` at the start
/// of the state area (STUN calls this once DTLS follows it, and keeps its own after it).
pub fn handshake(cx: &mut Cx<'_>) -> Probe {
    cx.state::<State>().flags |= SEEN;
    if cx.state::<State>().flags & CERT_DONE == 0 {
        match server_cert(cx) {
            Step::More => {}
            Step::Done => cx.state::<State>().flags |= CERT_DONE,
            Step::Bad => {
                cx.malformed();
                cx.state::<State>().flags |= CERT_DONE;
            }
        }
    }
    more(cx)
}

/// Walk the datagram's records and handshake fragments for the client's and the server's
/// hellos and the server's Certificate. The server is the side that sent the ServerHello
/// ([`State::server`]).
fn server_cert(cx: &mut Cx<'_>) -> Step {
    let dir = if cx.hints.dir == Dir::ToServer { 1 } else { 2 };
    let mut r = Rd::new(cx.data);
    let mut guard = 0;
    while r.left() >= 13 && guard < 16 {
        guard += 1;
        let (Some(ct), Some(_), Some(epoch)) = (r.u8(), r.u16(), r.u16()) else {
            break;
        };
        let (Some(_), Some(len)) = (r.skip(6), r.u16()) else {
            break;
        };
        let Some(rec) = r.take(len as usize) else {
            break;
        };
        if cx.state::<State>().server == dir && (ct != 22 || epoch != 0) {
            // ChangeCipherSpec or encrypted records from the server: no certificate came.
            return Step::Done;
        }
        if ct != 22 || epoch != 0 {
            continue;
        }
        let mut h = Rd::new(rec);
        let mut g = 0;
        while h.left() >= 12 && g < 16 {
            g += 1;
            let (Some(t), Some(mlen), Some(_), Some(off), Some(flen)) =
                (h.u8(), h.u24(), h.u16(), h.u24(), h.u24())
            else {
                break;
            };
            let Some(frag) = h.take(flen as usize) else {
                break;
            };
            let (off, mlen) = (off as usize, mlen as usize);
            let whole = off == 0 && frag.len() >= mlen;
            match t {
                // The client's hello, whole in one fragment: SNI, ALPN, version, JA3, JA4 as
                // TLS has them (one that spans fragments is not gathered).
                1 if whole && cx.state::<State>().flags & HELLO_DONE == 0 => {
                    cx.state::<State>().flags |= HELLO_DONE;
                    match client_hello(frag, b'd', cx.meta, cx.digests) {
                        None => cx.malformed(),
                        // nDPI's WebRTC: DTLS-SRTP keying after STUN (no SNI expected).
                        Some(o) if o.use_srtp && cx.state::<State>().flags & AFTER_STUN != 0 => {
                            cx.meta.add_letter(Field::TlsFlags, b'w', b"ehw");
                        }
                        Some(_) => {}
                    }
                }
                2 => {
                    cx.state::<State>().server = dir;
                    if whole {
                        // The chosen version, cipher suite and ALPN, as for TLS.
                        let _ = server_hello(frag, cx.meta);
                    }
                    // DTLS 1.3 encrypts the certificate.
                    if off == 0 && sh_parse(frag).is_some_and(|(v, _, _)| v == 0xfefc) {
                        return Step::Done;
                    }
                }
                11 if cx.state::<State>().server == dir => {
                    if whole {
                        return certificate(frag, true, Step::More, cx.meta);
                    }
                    // Gather the fragments by offset in the stash (bounded, counted).
                    let Some(st) = cx.stash.as_mut() else {
                        // No buffer: only a first fragment that holds the names will do.
                        if off != 0 {
                            continue;
                        }
                        return match certificate(frag, false, Step::Bad, cx.meta) {
                            Step::Bad => Step::Done,
                            s => s,
                        };
                    };
                    if !st.put(off, frag) && off == 0 {
                        return Step::Done;
                    }
                    let body = st.bytes();
                    let have = body.len().min(mlen);
                    let body = body.get(..have).unwrap_or(&[]);
                    match certificate(body, have >= mlen, Step::More, cx.meta) {
                        // The next fragment may be in this datagram.
                        Step::More => continue,
                        s => return s,
                    }
                }
                12..=14 if cx.state::<State>().server == dir => return Step::Done,
                _ => {}
            }
        }
    }
    Step::More
}

/// Does `d` start with a whole DTLS record (and is followed by nothing or another record)?
pub fn is_dtls(d: &[u8]) -> bool {
    let mut r = Rd::new(d);
    let (Some(ct), Some(ver), Some(_epoch)) = (r.u8(), r.u16(), r.u16()) else {
        return false;
    };
    if r.skip(6).is_none() {
        return false;
    }
    let Some(len) = r.u16() else {
        return false;
    };
    // Handshake, change cipher spec, alert or application data, DTLS 1.0 / 1.2 / 1.3 record,
    // or 0x0100: the DTLS of OpenSSL before 0.9.8f (`DTLS1_BAD_VER`), which Cisco AnyConnect
    // still speaks (anyconnect-vpn.pcap; tshark: "DTLS 1.0 (OpenSSL pre 0.9.8f)").
    let ok = matches!(ct, 20..=23)
        && matches!(ver, 0xfeff | 0xfefd | 0xfefc | 0x0100)
        && len > 0
        && 13 + len as usize <= d.len()
        && (13 + len as usize == d.len()
            || d.get(13 + len as usize)
                .is_some_and(|&c| matches!(c, 20..=23)));
    ok
}

#[cfg(test)]
mod tests;
