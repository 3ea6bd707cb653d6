//! TLS over TCP: the handshake's ClientHello (SNI, ALPN offer, highest version, JA3 and JA4
//! client fingerprints) and ServerHello (chosen version and ALPN). A ClientHello cut across
//! segments asks for reassembly. The ClientHello parser is shared with QUIC.

use crate::events::{TxField, TxKind};
use crate::meta::{Field, Meta};
use crate::proto::label;
use crate::util::{md5_hex, Buf, Rd};
use crate::memo::Memo;
use crate::{Cx, Digests, Dir, Inspector, Label, Probe, TCP};

/// nDPI's TLS label.
pub static LABEL: Label = label("TLS", "Web");

/// nDPI's names for TLS on the mail ports (implicit TLS).
pub static IMAPS: Label = label("IMAPS", "Email");
/// POP3 over TLS.
pub static POPS: Label = label("POPS", "Email");
/// SMTP over TLS.
pub static SMTPS: Label = label("SMTPS", "Email");

/// DNS over TLS (RFC 7858): a client that offers the ALPN protocol `dot` (the identifier IANA's
/// TLS ALPN registry lists for DNS-over-TLS) speaks DNS inside, whatever the port. nDPI's name
/// for DoH, DoT and DoQ is one application, DoH_DoT, above TLS.
pub static DOT: Label = Label {
    master: "TLS",
    app: "DoH_DoT",
    category: "Network",
};

/// nDPI's label for a connection that opens with a PROXY protocol header (haproxy.pcap: the
/// TLS behind it is not what nDPI names).
pub static HAPROXY: Label = label("HAProxy", "Web");

/// The label for TLS on this flow's ports: nDPI names implicit-TLS mail by its port.
fn tls_label(cx: &mut Cx<'_>) -> &'static Label {
    if cx.state::<State>().done & DNS_ALPN != 0 {
        return &DOT;
    }
    match cx.hints.server_port {
        993 => &IMAPS,
        995 => &POPS,
        465 => &SMTPS,
        _ => &LABEL,
    }
}

/// Whole TLS records other than handshakes (change cipher spec, alert, application data) that
/// fill the segment exactly: a connection seen from the middle.
fn records_only(d: &[u8]) -> bool {
    let mut r = Rd::new(d);
    let mut n = 0;
    while r.left() > 0 && n < 64 {
        let (Some(ct), Some(ver), Some(len)) = (r.u8(), r.u16(), r.u16()) else {
            return false;
        };
        if !matches!(ct, 20 | 21 | 23) || !(0x0300..=0x0304).contains(&ver) || len == 0 {
            return false;
        }
        if r.skip(len as usize).is_none() {
            return false;
        }
        n += 1;
    }
    n > 0 && r.left() == 0
}

/// The TLS inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "tls",
    transports: TCP,
    ports: &[443, 465, 563, 636, 853, 993, 995, 5061, 8443],
    labels: &[&LABEL, &IMAPS, &POPS, &SMTPS, &HAPROXY, &DOT],
    min_udp: 0,
    ports_required: false,
    probe,
};

/// Per-flow state.
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub(crate) struct State {
    /// What was read: [`CH_DONE`], [`SH_DONE`], [`CERT_DONE`], or [`STARTED`] (0: the flow is
    /// not known to be TLS yet).
    done: u8,
}

/// [`State::done`]: the ClientHello was read.
const CH_DONE: u8 = 1;
/// [`State::done`]: the ServerHello was read.
const SH_DONE: u8 = 2;
/// [`State::done`]: a hello is being gathered over several segments.
const STARTED: u8 = 4;
/// [`State::done`]: the server's certificate names were read, or will never be seen in clear.
const CERT_DONE: u8 = 8;
/// [`State::done`]: the client offered ALPN `dot` (not part of [`ALL`]).
const DNS_ALPN: u8 = 16;
/// Everything this inspector looks for.
const ALL: u8 = CH_DONE | SH_DONE | CERT_DONE;

/// Largest handshake message we wait for (a ClientHello with post-quantum key shares is ~2 KB).
const MAX_HELLO: usize = 16 * 1024;

/// The bytes after a PROXY protocol header (v1 text line or v2 binary header, as HAProxy's
/// spec defines them) that a load balancer puts before the client's first bytes; tshark
/// dissects the TLS behind it. `None` when `d` does not start with one.
fn after_proxy_header(d: &[u8]) -> Option<&[u8]> {
    const V2: &[u8] = b"\r\n\r\n\0\r\nQUIT\n";
    if d.starts_with(b"PROXY ") {
        // v1: one line of at most 107 bytes, CRLF included.
        let line = d.get(..107.min(d.len()))?;
        let end = crate::util::find(line, b"\r\n")?;
        return d.get(end + 2..);
    }
    if d.starts_with(V2) {
        let len = u16::from_be_bytes([*d.get(14)?, *d.get(15)?]) as usize;
        return d.get(16 + len..);
    }
    None
}

/// The bytes after whole warning alerts that fill no segment alone and precede the server's
/// first handshake record (an "unrecognized name" warning before the ServerHello,
/// http_ipv6.pcap); `d` itself otherwise.
fn after_alerts(d: &[u8]) -> &[u8] {
    let mut d = d;
    let mut guard = 0;
    while guard < 4 && d.len() > 7 && d.first() == Some(&21) && d.get(1) == Some(&3) {
        guard += 1;
        if d.get(3..5) != Some(&[0, 2]) || d.get(5) != Some(&1) {
            break;
        }
        d = d.get(7..).unwrap_or(&[]);
    }
    d
}

/// [`probe_tls`], naming the flow HAProxy when its first bytes are a PROXY header (the TLS
/// behind it is still read: SNI, JA3, ...).
fn probe(cx: &mut Cx<'_>) -> Probe {
    let proxied = cx.state::<State>().done == 0
        && cx.hints.dir == Dir::ToServer
        && after_proxy_header(cx.data).is_some();
    match probe_tls(cx) {
        Probe::Certain(_) if proxied => Probe::Certain(&HAPROXY),
        r => r,
    }
}

fn probe_tls(cx: &mut Cx<'_>) -> Probe {
    let mut d = cx.data;
    if cx.state::<State>().done == 0 && cx.hints.dir == Dir::ToServer {
        if let Some(rest) = after_proxy_header(d) {
            d = rest;
        }
    }
    if cx.hints.dir == Dir::ToClient {
        d = after_alerts(d);
    }
    let mut r = Rd::new(d);
    // Record header: handshake (22), version 3.x, length.
    let (Some(ct), Some(maj), Some(min), Some(rlen)) = (r.u8(), r.u8(), r.u8(), r.u16()) else {
        if cx.state::<State>().done != 0 {
            return more(cx);
        }
        if d.first() == Some(&22) && d.get(1).is_none_or(|&v| v == 3) {
            cx.incomplete();
            return Probe::Unsure;
        }
        return Probe::NotForUs;
    };
    if ct != 22 || maj != 3 || min > 4 || rlen == 0 || rlen as usize > 16384 + 2048 {
        return if cx.state::<State>().done != 0 {
            more(cx)
        } else if records_only(d) {
            cx.state::<State>().done = ALL;
            Probe::Certain(tls_label(cx))
        } else {
            Probe::NotForUs
        };
    }
    // Handshake header inside the record.
    let (Some(ht), Some(hlen)) = (r.u8(), r.u24()) else {
        cx.incomplete();
        return Probe::Unsure;
    };
    let want = match (cx.hints.dir, ht) {
        (Dir::ToServer, 1) | (Dir::ToClient, 2) => ht,
        // A ServerHello from the side that spoke first: the capture began after the
        // ClientHello (riot.pcapng); read the server's half all the same.
        (Dir::ToServer, 2) if cx.state::<State>().done == 0 => ht,
        _ if cx.state::<State>().done != 0 => return more(cx),
        // A handshake record of another kind (renegotiation, mid-stream): TLS all the same.
        (_, 0..=24) if hlen as usize <= MAX_HELLO => {
            cx.state::<State>().done = ALL;
            return Probe::Certain(tls_label(cx));
        }
        _ => return Probe::NotForUs,
    };
    if hlen as usize > MAX_HELLO {
        cx.malformed();
        return if cx.state::<State>().done != 0 {
            more(cx)
        } else {
            Probe::NotForUs
        };
    }
    // The message may span records; gather its body from consecutive handshake records (the
    // common case, one record holding it all, is read in place).
    let first = r
        .take((rlen as usize).saturating_sub(4).min(r.left()))
        .unwrap_or(&[]);
    let whole = first.get(..hlen as usize);
    let gathered: Buf<MAX_HELLO>;
    let body: &[u8] = match whole {
        Some(w) => w,
        None if (first.len() as u16) + 4 >= rlen => {
            gathered = gather(first, &mut r, hlen as usize);
            gathered.as_bytes()
        }
        // The first record itself is cut: wait for more bytes.
        None => first,
    };
    let complete = body.len() >= hlen as usize;
    if want == 1 {
        if cx.state::<State>().done & CH_DONE == 0 {
            if !complete {
                cx.incomplete();
                cx.want_more();
                cx.state::<State>().done |= STARTED;
                return Probe::Certain(tls_label(cx));
            }
            match client_hello(body, b't', cx.meta, cx.digests) {
                None => cx.malformed(),
                Some(o) if o.dns => cx.state::<State>().done |= DNS_ALPN,
                Some(_) => {}
            }
            cx.state::<State>().done |= CH_DONE;
        }
    } else if cx.state::<State>().done & SH_DONE == 0 {
        if !complete && body.len() < 40 {
            cx.incomplete();
            cx.want_more();
            cx.state::<State>().done |= STARTED;
            return Probe::Certain(tls_label(cx));
        }
        if server_hello(body, cx.meta).is_none() {
            cx.malformed();
        }
        cx.state::<State>().done |= SH_DONE;
    }
    if want == 2 && cx.state::<State>().done & CERT_DONE == 0 {
        match server_cert(d, cx.meta) {
            Step::More => {
                cx.incomplete();
                cx.want_more();
                return Probe::Certain(tls_label(cx));
            }
            Step::Done => {}
            Step::Bad => cx.malformed(),
        }
        cx.state::<State>().done |= CERT_DONE;
    }
    let read = cx.state::<State>().done & (CH_DONE | SH_DONE) != 0;
    tls_event(cx, read);
    more(cx)
}

/// The handshake's transaction event (`--events`) as it stands: opened at the first hello read
/// (its time is the event's), its values rewritten from the flow's metadata after each message
/// read; complete when inspection of the flow ends (the handshake read as far as it is in
/// clear) or the flow does. Also for a ClientHello read inside a tunnel (HTTP CONNECT, SOCKS,
/// RDP). Nothing without events, or before a hello was `read` (one cut short is not yet; a
/// malformed one is, with the values it gave).
pub(crate) fn tls_event(cx: &mut Cx<'_>, read: bool) {
    if cx.events.is_none() || !read {
        return;
    }
    const TEXTS: [(Field, TxField); 7] = [
        (Field::TlsVersion, TxField::TlsVersion),
        (Field::Sni, TxField::TlsSni),
        (Field::Alpn, TxField::TlsAlpn),
        (Field::Ja3c, TxField::TlsJa3),
        (Field::Ja4, TxField::TlsJa4),
        (Field::TlsCertSubject, TxField::TlsSubject),
        (Field::TlsCertIssuer, TxField::TlsIssuer),
    ];
    let meta = &*cx.meta;
    let Some(t) = cx
        .events
        .as_mut()
        .and_then(|ev| ev.find_or_open(TxKind::Tls))
    else {
        return;
    };
    t.clear();
    for (f, tf) in TEXTS {
        if let Some(v) = meta.get(f) {
            t.set_text(tf, v.as_bytes());
        }
    }
    if let Some(c) = meta.get(Field::TlsCipher).and_then(|v| v.parse().ok()) {
        t.set_num(TxField::TlsCipher, c);
    }
}

/// Where reading the server's certificate stands.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// Names written, or none will be seen in clear (TLS 1.3, a resumed session, no
    /// Certificate message).
    Done,
    /// The bytes end before the names do: show the stream again with the next segment.
    More,
    /// Malformed, or the names lie beyond the reassembly cap (counted as malformed).
    Bad,
}

/// Read the issuer and subject of the first certificate of the server's Certificate message
/// from `d`, the server's stream from its first record (the ServerHello's), and write them.
fn server_cert(d: &[u8], meta: &mut Meta) -> Step {
    // The common case, one handshake record followed by a record of another kind or by nothing
    // yet, is read in place: this runs again at each segment of the server's flight, and copying
    // into a zeroed 16 KiB buffer each time cost 1.2% of the corpus mix's instructions.
    let mut r = Rd::new(d);
    if let (Some(22), Some(_), Some(n)) = (r.u8(), r.u16(), r.u16()) {
        let n = n as usize;
        let part = r.take(n.min(r.left())).unwrap_or(&[]);
        if n <= MAX_HELLO {
            match (r.u8(), r.u16(), r.u16()) {
                (Some(22), Some(_), Some(_)) => {}
                (Some(_), Some(_), Some(_)) => return cert_messages(part, true, Step::More, meta),
                _ => return cert_messages(part, false, Step::More, meta),
            }
        }
    }
    server_cert_joined(d, meta)
}

/// [`server_cert`] over the handshake records at the start of `d` copied together, for a
/// flight that spans records (and, in tests, to hold the in-place read to). The copy goes to
/// the smallest of three buffers that holds them: a zeroed 16 KiB buffer each time cost 38
/// instructions a packet of the corpus mix where a flight takes 3 to 5 KiB.
fn server_cert_joined(d: &[u8], meta: &mut Meta) -> Step {
    match handshake_bytes(d) {
        0..=4096 => joined::<4096>(d, meta),
        4097..=8192 => joined::<8192>(d, meta),
        _ => joined::<MAX_HELLO>(d, meta),
    }
}

fn joined<const N: usize>(d: &[u8], meta: &mut Meta) -> Step {
    let (hs, end) = handshake_records::<N>(d);
    // Only the largest buffer can fall short (the others were chosen to hold it all).
    let cut = if hs.lost { Step::Bad } else { Step::More };
    cert_messages(hs.as_bytes(), end, cut, meta)
}

/// The payload bytes of the handshake records at the start of `d` (as many as are there).
fn handshake_bytes(d: &[u8]) -> usize {
    let mut r = Rd::new(d);
    let (mut total, mut guard) = (0usize, 0);
    while r.left() > 0 && guard < 64 {
        guard += 1;
        let (Some(22), Some(_), Some(n)) = (r.u8(), r.u16(), r.u16()) else {
            break;
        };
        let part = r.take((n as usize).min(r.left())).unwrap_or(&[]);
        total += part.len();
    }
    total
}

/// The bytes of the handshake records at the start of `d`, joined (messages may span records),
/// and whether a record of another type follows them (the handshake in clear is over).
fn handshake_records<const N: usize>(d: &[u8]) -> (Buf<N>, bool) {
    let mut hs = Buf::<N>::default();
    let mut r = Rd::new(d);
    let mut guard = 0;
    while r.left() > 0 && guard < 64 {
        guard += 1;
        let (Some(ct), Some(_), Some(n)) = (r.u8(), r.u16(), r.u16()) else {
            break;
        };
        if ct != 22 {
            return (hs, true);
        }
        let part = r.take((n as usize).min(r.left())).unwrap_or(&[]);
        hs.push(part);
        if part.len() < n as usize || hs.lost {
            break;
        }
    }
    (hs, false)
}

/// Walk the handshake messages `hs` up to the Certificate and read its names. `end`: no more
/// handshake bytes will come; `cut`: what to answer when a message is cut short.
fn cert_messages(hs: &[u8], end: bool, cut: Step, meta: &mut Meta) -> Step {
    let mut m = Rd::new(hs);
    let mut guard = 0;
    while guard < 32 {
        guard += 1;
        let (Some(t), Some(n)) = (m.u8(), m.u24()) else {
            return if end || m.left() > 0 { Step::Done } else { cut };
        };
        let body = m.take((n as usize).min(m.left())).unwrap_or(&[]);
        let whole = body.len() == n as usize;
        match t {
            // ServerHello: TLS 1.3 encrypts the certificate.
            2 if whole && sh_parse(body).is_some_and(|(v, _, _)| v == 0x0304) => return Step::Done,
            11 => return certificate(body, whole, cut, meta),
            // ServerKeyExchange, CertificateRequest, ServerHelloDone, Finished: no certificate
            // came first.
            12..=14 | 20 => return Step::Done,
            _ => {}
        }
        if !whole {
            return if end { Step::Bad } else { cut };
        }
    }
    Step::Done
}

/// The body of a Certificate message (`whole` or a prefix): names of its first certificate
/// (subject and issuer; the subjectAltName's DNS names when that certificate is whole).
pub(crate) fn certificate(body: &[u8], whole: bool, cut: Step, meta: &mut Meta) -> Step {
    let mut r = Rd::new(body);
    let (Some(list), Some(n)) = (r.u24(), r.u24()) else {
        return if whole { Step::Done } else { cut };
    };
    if list == 0 || n == 0 {
        return Step::Done;
    }
    let cert = r.take((n as usize).min(r.left())).unwrap_or(&[]);
    match crate::x509::names(cert) {
        crate::x509::Names::Found { issuer, subject } => {
            let mut ok = true;
            for (f, name) in [
                (Field::TlsCertSubject, subject),
                (Field::TlsCertIssuer, issuer),
            ] {
                let mut s = Buf::<512>::default();
                if crate::x509::write_name(name, &mut s) {
                    meta.set(f, s.as_bytes());
                } else {
                    ok = false;
                }
            }
            // The subjectAltName's DNS names, once the certificate is whole: a flow whose
            // client named no server (no SNI, or an address) waits for the rest of a
            // certificate cut across segments, as its names are what name the flow; others
            // read them only when whole in these bytes (waiting on every flow cost 45
            // instructions a packet of the corpus mix).
            if cert.len() < n as usize
                && !whole
                && matches!(cut, Step::More)
                && !names_server(meta.get(Field::Sni))
            {
                return if ok { Step::More } else { Step::Bad };
            }
            let mut sans = Buf::<255>::default();
            if crate::x509::dns_names(cert, &mut sans) > 0 {
                meta.set(Field::TlsCertNames, sans.as_bytes());
            }
            if ok {
                Step::Done
            } else {
                Step::Bad
            }
        }
        crate::x509::Names::Short if cert.len() < n as usize && !whole => cut,
        _ => Step::Bad,
    }
}

/// Does an SNI value name a server (present, and not an address, which RFC 6066 §3 does not
/// allow there)?
pub fn names_server(sni: Option<&str>) -> bool {
    sni.is_some_and(|n| n.parse::<std::net::IpAddr>().is_err())
}

/// A handshake message of `hlen` bytes whose start is `first`, continued in the handshake
/// records that follow in `r`.
fn gather(first: &[u8], r: &mut Rd<'_>, hlen: usize) -> Buf<MAX_HELLO> {
    let mut body = Buf::<MAX_HELLO>::default();
    body.push(first);
    let mut guard = 0;
    while body.len() < hlen && guard < 16 {
        guard += 1;
        match (r.u8(), r.u8(), r.u8(), r.u16()) {
            (Some(22), Some(3), Some(_), Some(n)) => {
                let part = r.take((n as usize).min(r.left())).unwrap_or(&[]);
                body.push(
                    part.get(..(hlen - body.len()).min(part.len()))
                        .unwrap_or(&[]),
                );
                if part.len() < n as usize {
                    break;
                }
            }
            _ => break,
        }
    }
    body
}

fn more(cx: &mut Cx<'_>) -> Probe {
    if cx.state::<State>().done & ALL != ALL {
        cx.want_more();
    }
    Probe::Certain(tls_label(cx))
}

/// GREASE values (RFC 8701): 0x?a?a with both bytes equal.
pub fn grease(v: u16) -> bool {
    v & 0x0f0f == 0x0a0a && v >> 8 == v & 0xff
}

/// Version name as nDPI prints it.
pub fn version_name(v: u16) -> &'static [u8] {
    match v {
        0x0304 => b"TLSv1.3",
        0x0303 => b"TLSv1.2",
        0x0302 => b"TLSv1.1",
        0x0301 => b"TLSv1",
        0x0300 => b"SSLv3",
        0xfeff => b"DTLSv1.0",
        0xfefd => b"DTLSv1.2",
        0xfefc => b"DTLSv1.3",
        _ => b"",
    }
}

fn ja4_version(v: u16) -> &'static [u8; 2] {
    match v {
        0x0304 => b"13",
        0x0303 => b"12",
        0x0302 => b"11",
        0x0301 => b"10",
        0x0300 => b"s3",
        0x0002 => b"s2",
        0xfeff => b"d1",
        0xfefd => b"d2",
        0xfefc => b"d3",
        _ => b"00",
    }
}

const MAX_LIST: usize = 128;

/// A fixed-capacity list of u16 values, never zeroed (four of them and their sorted copies,
/// zeroed whole, cost ~20 instructions a packet of the corpus mix).
struct List {
    v: arrayvec::ArrayVec<u16, MAX_LIST>,
    lost: bool,
}

impl List {
    fn new() -> Self {
        List {
            v: arrayvec::ArrayVec::new(),
            lost: false,
        }
    }
    fn push(&mut self, x: u16) {
        if self.v.try_push(x).is_err() {
            self.lost = true;
        }
    }
    fn len(&self) -> usize {
        self.v.len()
    }
    fn as_slice(&self) -> &[u16] {
        &self.v
    }
}

/// What a ClientHello offered beyond TLS itself.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Offer {
    /// The use_srtp extension (RFC 5764): DTLS keying SRTP.
    pub use_srtp: bool,
    /// DNS among the protocols offered: ALPN `dot` (DNS over TLS), `doq` or a draft's
    /// `doq-iNN` (DNS over QUIC, RFC 9250 §4.1).
    pub dns: bool,
}

fn u16s(b: &[u8], out: &mut List, skip_grease: bool) {
    for c in b.chunks_exact(2) {
        let v = u16::from_be_bytes([c[0], c[1]]);
        if !(skip_grease && grease(v)) {
            out.push(v);
        }
    }
}

/// Parse a ClientHello body (after the handshake header) and write SNI, ALPN, version, JA3
/// and JA4 (`proto` is JA4's first letter: `t` TCP, `q` QUIC, `d` DTLS, whose ClientHello holds
/// a cookie after the session id, RFC 6347 §4.2.1). A body cut short still gives the fields
/// found before the cut, but no fingerprints. An encrypted_server_name (ESNI) extension writes
/// `e` in `tls_flags`. Some(what the client offered that names more than TLS); None when the
/// body is malformed.
pub fn client_hello(
    b: &[u8],
    proto: u8,
    meta: &mut Meta,
    digests: &mut Digests,
) -> Option<Offer> {
    let mut r = Rd::new(b);
    let legacy = r.u16()?;
    r.skip(32)?;
    r.vec8()?; // session id
    if proto == b'd' {
        r.vec8()?; // cookie
    }
    let cs = r.vec16()?;
    let mut ciphers = List::new();
    u16s(cs, &mut ciphers, true);
    r.vec8()?; // compression
    let mut exts = List::new();
    let mut groups = List::new();
    let mut points: &[u8] = &[];
    let mut sigalgs = List::new();
    let mut alpn_first: &[u8] = &[];
    let mut best = 0u16;
    let mut has_sni = false;
    let mut sni_is_ip = false;
    let mut offer = Offer::default();
    let mut cut = false;
    if r.left() >= 2 {
        let all = r.vec16();
        let all = match all {
            Some(a) => a,
            None => {
                cut = true;
                r.rest().get(2..).unwrap_or(&[])
            }
        };
        let mut e = Rd::new(all);
        let mut guard = 0;
        while e.left() >= 4 && guard < 512 {
            guard += 1;
            let typ = e.u16()?;
            let Some(body) = e.vec16() else {
                cut = true;
                break;
            };
            if !grease(typ) {
                exts.push(typ);
            }
            let mut x = Rd::new(body);
            match typ {
                0 => {
                    has_sni = true;
                    // server_name_list: type 0 host_name.
                    let mut l = Rd::new(x.vec16().unwrap_or(&[]));
                    if l.u8() == Some(0) {
                        if let Some(name) = l.vec16() {
                            meta.set(Field::Sni, name);
                            // An address literal is not a domain name (RFC 6066 §3): JA4 says
                            // 'i' for it, as nDPI does.
                            sni_is_ip = name.iter().all(|c| c.is_ascii_digit() || *c == b'.')
                                || name.contains(&b':');
                        }
                    }
                }
                10 => u16s(x.vec16().unwrap_or(&[]), &mut groups, true),
                11 => points = x.vec8().unwrap_or(&[]),
                13 => u16s(x.vec16().unwrap_or(&[]), &mut sigalgs, false),
                16 => {
                    let mut l = Rd::new(x.vec16().unwrap_or(&[]));
                    let mut s = Buf::<64>::default();
                    let mut g = 0;
                    while l.left() > 0 && g < 32 {
                        g += 1;
                        let Some(p) = l.vec8() else { break };
                        if alpn_first.is_empty() {
                            alpn_first = p;
                        }
                        offer.dns |= p == b"dot" || p == b"doq" || p.starts_with(b"doq-i");
                        if !s.is_empty() {
                            s.push(b",");
                        }
                        s.push(p);
                    }
                    meta.set(Field::Alpn, s.as_bytes());
                }
                43 => {
                    let mut v = List::new();
                    u16s(x.vec8().unwrap_or(&[]), &mut v, true);
                    best = v.as_slice().iter().copied().max().unwrap_or(0);
                }
                14 => offer.use_srtp = true,
                // encrypted_server_name (draft-ietf-tls-esni before ECH): nDPI takes the name
                // as given, so no Missing SNI.
                0xffce => meta.set(Field::TlsFlags, b"e"),
                _ => {}
            }
        }
    }
    let ver = if best != 0 { best } else { legacy };
    if cut {
        // supported_versions may lie in the part not seen yet: no version, no fingerprints.
        return Some(offer);
    }
    meta.set(Field::TlsVersion, version_name(ver));
    let lists = Lists {
        legacy,
        ciphers: &mut ciphers,
        exts: &mut exts,
        groups: &groups,
        points,
        sigalgs: &sigalgs,
    };
    // JA3's digest and JA4's two hashed parts, by the lists they are made of: most
    // ClientHellos on a link repeat a few client builds' lists, and building the fingerprints'
    // texts (some 60 numbers in decimal, two sorted lists in hex) cost ~5,000 instructions a
    // ClientHello where the lists' bytes are one copy, a hash and a comparison. Not kept when
    // fingerprints are off (the zeros are no digest of anything).
    let fp = if meta.no_hash {
        fingerprints(lists, true, &mut digests.ja3, &mut digests.ja4)
    } else {
        let mut key = arrayvec::ArrayVec::<u8, HELLO_KEY>::new();
        lists.key(&mut key);
        let Digests { hello, ja3, ja4, .. } = digests;
        hello.get(&key, |_| fingerprints(lists, false, ja3, ja4))
    };
    if fp[FP_FLAGS] & FP_JA3 != 0 {
        meta.set(Field::Ja3c, &fp[..32]);
    }
    // JA4 (FoxIO): t13d1516h2_<ciphers>_<extensions_sigalgs>.
    let mut a = Buf::<40>::default();
    a.push(&[proto]);
    a.push(ja4_version(ver));
    a.push(if has_sni && !sni_is_ip { b"d" } else { b"i" });
    let two = |n: usize| -> [u8; 2] {
        let n = n.min(99);
        [b'0' + (n / 10) as u8, b'0' + (n % 10) as u8]
    };
    a.push(&two(ciphers.len()));
    a.push(&two(exts.len()));
    match (alpn_first.first(), alpn_first.last()) {
        (Some(&f), Some(&l)) if f.is_ascii_alphanumeric() && l.is_ascii_alphanumeric() => {
            a.push(&[f, l]);
        }
        (Some(&f), Some(&l)) => {
            let mut h = [0u8; 2];
            crate::util::hex(&[f], &mut h);
            let mut k = [0u8; 2];
            crate::util::hex(&[l], &mut k);
            a.push(&[h[0], k[1]]);
        }
        _ => a.push(b"00"),
    }
    a.push(b"_");
    a.push(&fp[32..44]);
    a.push(b"_");
    a.push(&fp[44..56]);
    if fp[FP_FLAGS] & FP_JA4 != 0 && !a.lost {
        meta.set(Field::Ja4, a.as_bytes());
    }
    Some(offer)
}

/// A ClientHello at the start of `d` inside one handshake record (TLS tunnelled through an HTTP
/// CONNECT): fields written, Some(true) when parsed, Some(false) when cut short (more bytes
/// needed), None when `d` is not one.
pub fn hello_in_record(d: &[u8], meta: &mut Meta, digests: &mut Digests) -> Option<bool> {
    let mut r = Rd::new(d);
    let (ct, maj, _min, rlen) = (r.u8()?, r.u8()?, r.u8()?, r.u16()?);
    if ct != 22 || maj != 3 {
        return None;
    }
    let (ht, hlen) = (r.u8()?, r.u24()? as usize);
    if ht != 1 || hlen > MAX_HELLO || hlen + 4 > rlen as usize {
        return None;
    }
    match r.take(hlen) {
        Some(body) => Some(client_hello(body, b't', meta, digests).is_some()),
        None => Some(false),
    }
}

/// The lists of a ClientHello that its fingerprints are made of, GREASE left out, in the
/// order offered.
struct Lists<'a> {
    legacy: u16,
    ciphers: &'a mut List,
    exts: &'a mut List,
    groups: &'a List,
    points: &'a [u8],
    sigalgs: &'a List,
}

/// Longest key [`Lists::key`] writes: the version, a byte of overflow flags, and four lists of
/// at most [`MAX_LIST`] values and the point formats (at most 255 bytes), each after its
/// length. Keys longer than the memo's texts ([`Digests::hello`]) are fingerprinted afresh.
const HELLO_KEY: usize = 2 + 1 + 4 * (1 + 2 * MAX_LIST) + 1 + 255;

/// What [`fingerprints`] returns: JA3's digest (32 hex digits), JA4's cipher part and its
/// extension part (12 each), and a byte of flags: [`FP_JA3`], [`FP_JA4`].
pub(crate) const FP_LEN: usize = crate::memo::FINGERPRINTS;
const FP_FLAGS: usize = 56;
/// JA3 is whole (no list or text cut).
const FP_JA3: u8 = 1;
/// JA4's lists are whole.
const FP_JA4: u8 = 2;

impl Lists<'_> {
    /// Everything the fingerprints depend on, as bytes: two ClientHellos with the same key have
    /// the same JA3 digest and JA4 hashes (the rest of JA4 is read apart, every time).
    fn key<const N: usize>(&self, k: &mut arrayvec::ArrayVec<u8, N>) {
        let mut put = |b: &[u8]| {
            // Cannot overflow: N is HELLO_KEY, the most these lists hold.
            let _ = k.try_extend_from_slice(b);
        };
        put(&self.legacy.to_le_bytes());
        put(&[u8::from(self.ciphers.lost)
            | u8::from(self.exts.lost) << 1
            | u8::from(self.groups.lost) << 2
            | u8::from(self.sigalgs.lost) << 3]);
        for l in [&*self.ciphers, &*self.exts, self.groups, self.sigalgs] {
            put(&[l.len() as u8]);
            for v in l.as_slice() {
                put(&v.to_le_bytes());
            }
        }
        put(&[self.points.len().min(255) as u8]);
        put(self.points.get(..255).unwrap_or(self.points));
    }
}

/// JA3's digest and JA4's hashed parts of `l` ([`FP_LEN`] bytes; zeros for hashes when
/// `skip`: [`crate::DpiConfig::fingerprints`] off). Sorts the cipher and extension lists.
fn fingerprints(
    l: Lists<'_>,
    skip: bool,
    ja3m: &mut Memo<384, 32>,
    ja4m: &mut Memo<256, 12>,
) -> [u8; FP_LEN] {
    let mut out = [0u8; FP_LEN];
    // JA3: version,ciphers,extensions,groups,point formats (decimal, '-' joined, no GREASE).
    let mut ja3 = Buf::<2048>::default();
    ja3.num(u32::from(l.legacy));
    for list in [l.ciphers.as_slice(), l.exts.as_slice(), l.groups.as_slice()] {
        ja3.push(b",");
        for (k, v) in list.iter().enumerate() {
            if k > 0 {
                ja3.push(b"-");
            }
            ja3.num(u32::from(*v));
        }
    }
    ja3.push(b",");
    for (k, p) in l.points.iter().enumerate() {
        if k > 0 {
            ja3.push(b"-");
        }
        ja3.num(u32::from(*p));
    }
    if !ja3.lost && !l.ciphers.lost && !l.exts.lost && !l.groups.lost {
        out[..32].copy_from_slice(&if skip {
            [b'0'; 32]
        } else {
            ja3m.get(ja3.as_bytes(), md5_hex)
        });
        out[FP_FLAGS] |= FP_JA3;
    }
    // JA3 is written: the lists are read sorted from here on.
    let cs = &mut l.ciphers.v[..];
    cs.sort_unstable();
    // The JA3 text is hashed: its bytes hold JA4's lists in turn (a zeroed buffer for each
    // cost 300 instructions a ClientHello).
    let s = &mut ja3;
    s.clear();
    for (k, v) in cs.iter().enumerate() {
        if k > 0 {
            s.push(b",");
        }
        s.hex16(*v);
    }
    out[32..44].copy_from_slice(&hash12(s.as_bytes(), skip, ja4m));
    let es = &mut l.exts.v[..];
    es.sort_unstable();
    let ja4_ciphers_lost = s.lost;
    s.clear();
    let mut k = 0;
    for v in es.iter().filter(|&&v| v != 0 && v != 16) {
        if k > 0 {
            s.push(b",");
        }
        k += 1;
        s.hex16(*v);
    }
    if k == 0 {
        out[44..56].copy_from_slice(b"000000000000");
    } else {
        if !l.sigalgs.as_slice().is_empty() {
            s.push(b"_");
            for (k, v) in l.sigalgs.as_slice().iter().enumerate() {
                if k > 0 {
                    s.push(b",");
                }
                s.hex16(*v);
            }
        }
        out[44..56].copy_from_slice(&hash12(s.as_bytes(), skip, ja4m));
    }
    if !s.lost && !ja4_ciphers_lost && !l.sigalgs.lost {
        out[FP_FLAGS] |= FP_JA4;
    }
    out
}

/// First 12 hex digits of SHA-256 ("000000000000" for nothing, as JA4 writes it; and, not
/// computed, for anything when `skip`: [`crate::DpiConfig::fingerprints`] off).
fn hash12(b: &[u8], skip: bool, memo: &mut Memo<256, 12>) -> [u8; 12] {
    if b.is_empty() || skip {
        return *b"000000000000";
    }
    memo.get(b, |b| {
        let d = ring::digest::digest(&ring::digest::SHA256, b);
        let mut o = [0u8; 12];
        crate::util::hex(&d.as_ref()[..6], &mut o);
        o
    })
}

/// A ServerHello body's chosen version (supported_versions over the legacy field), ALPN
/// choice (empty when none) and cipher suite.
pub(crate) fn sh_parse(b: &[u8]) -> Option<(u16, &[u8], u16)> {
    let mut r = Rd::new(b);
    let legacy = r.u16()?;
    r.skip(32)?;
    r.vec8()?;
    let cipher = r.u16()?;
    r.u8()?; // compression
    let mut ver = legacy;
    let mut alpn: &[u8] = &[];
    if let Some(all) = r.vec16() {
        let mut e = Rd::new(all);
        let mut guard = 0;
        while e.left() >= 4 && guard < 64 {
            guard += 1;
            let typ = e.u16()?;
            let body = e.vec16()?;
            let mut x = Rd::new(body);
            match typ {
                43 => ver = x.u16().unwrap_or(ver),
                16 => {
                    let mut l = Rd::new(x.vec16().unwrap_or(&[]));
                    if let Some(p) = l.vec8() {
                        alpn = p;
                    }
                }
                _ => {}
            }
        }
    }
    Some((ver, alpn, cipher))
}

/// Parse a ServerHello body: the chosen version and ALPN replace the client's offer; the
/// cipher suite the server chose is kept (nDPI's weak-cipher risk reads it).
pub fn server_hello(b: &[u8], meta: &mut Meta) -> Option<()> {
    let (ver, alpn, cipher) = sh_parse(b)?;
    meta.set_num(Field::TlsCipher, u32::from(cipher));
    if !alpn.is_empty() {
        meta.replace(Field::Alpn, alpn);
    }
    let name = version_name(ver);
    if !name.is_empty() {
        meta.replace(Field::TlsVersion, name);
    }
    Some(())
}

#[cfg(test)]
mod tests;
