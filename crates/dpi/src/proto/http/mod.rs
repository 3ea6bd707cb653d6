//! HTTP/1.x: request line and headers (method, Host, URL, User-Agent) from the client, status
//! from the server. Parsed with `httparse`; a request cut across segments asks for reassembly.
//!
//! # Applications carried by HTTP (nDPI's `HTTP.X`)
//!
//! The first request of a flow names what it carries, from what is already read (the method,
//! the path, the headers `httparse` iterates anyway):
//! * WebDAV (RFC 4918 §9): the methods PROPFIND, PROPPATCH, MKCOL, COPY, MOVE, LOCK, UNLOCK.
//! * OCSP (RFC 6960 Appendix A.1.1): a POST whose body is of media type
//!   `application/ocsp-request`.
//! * IPP (RFC 8010 §4): a POST whose body is of media type `application/ipp`, on any port (it
//!   was an inspector of its own tried on 631 only).
//! * SOAP: a `SOAPAction` header (SOAP 1.1, W3C Note, §6.1.1), nDPI's test. SOAP 1.2 without
//!   it (its action a parameter of `application/soap+xml`, RFC 3902) stays HTTP, as in nDPI.
//! * MS_RPCH, RPC over HTTP ([MS-RPCH] §2.1.2.1.1 and §2.1.2.1.2): the IN and OUT channels of
//!   RPC over HTTP v2 are opened by requests with the methods `RPC_IN_DATA` and `RPC_OUT_DATA`
//!   (no other HTTP use of these method names exists), nDPI's test.
//! * MPEG-DASH (nDPI's MpegDash): a GET of a path ending `.m4s` or `.mp4` (the segments of
//!   ISO/IEC 23009-1; nDPI names a request line ending `.mp4 HTTP/1.1` so: a query string after
//!   the name does not count), or a request whose body is `video/mp4`. The manifest (`.mpd`,
//!   `application/dash+xml`) names nothing: nDPI's MpegDash dissector reads only the request
//!   HTTP was named on, and tests the segments' names and a `video/mp4` Content-Type there.
//!
//! When the request named nothing, the first response's `Content-Type` may (one header scan
//! of the response head, once per flow):
//! * OCSP (RFC 6960 Appendix A.2): `application/ocsp-response`, which also names the GET form
//!   whose request is the base64 of the DER request in the path.
//! * HLS (RFC 8216 §4): a playlist, `application/vnd.apple.mpegurl` or `audio/mpegurl` (and the
//!   `x-` forms servers still send). A path ending `.m3u8` alone does not name it: nDPI does
//!   not (quickplay.pcap: such a GET without its answer is HTTP).
//!
//! Requests to a proxy and CONNECT tunnels keep their own labels.
//!
//! # Facts for nDPI's HTTP risks
//!
//! The first response's head gives `http_content_type` and `http_server`, and `http_flags`
//! records what nDPI's `http.c` checks on the raw bytes of a head (read at nDPI's commit of
//! 2023 that the code search holds; facts only, no code): suspicious header names in a request
//! or the response (`ndpi_check_http_header`), a non-printable `Server` value
//! (`ndpi_check_http_server`), an executable named by `Content-Disposition`
//! (`ndpi_http_check_content`), and the first body bytes in the response's head segment —
//! nDPI's `initial_binary_bytes` (`ndpi_analyze_content_signature`) and its text test
//! (`ndpi_http_check_human_redeable_content`). The risk rules themselves are in
//! `wirespeed_risk`.

use crate::events::{TxField, TxKind};
use crate::meta::Field;
use crate::proto::label;
use crate::{Cx, Dir, Inspector, Label, Probe, TCP};

/// nDPI's HTTP label.
pub static LABEL: Label = label("HTTP", "Web");

/// nDPI's label for requests to a proxy (absolute URI).
pub static PROXY: Label = label("HTTP_Proxy", "Web");
/// nDPI's label for CONNECT tunnels.
pub static CONNECT: Label = label("HTTP_Connect", "Web");

/// nDPI's label for HTTP/2 over cleartext TCP (h2c), named by the client's connection preface.
pub static HTTP2: Label = label("HTTP2", "Web");

/// nDPI's WebDAV label (`HTTP.WebDAV`, category as the webdav.pcap verdicts print it).
pub static WEBDAV: Label = sub("WebDAV", "Collaborative");
/// nDPI's OCSP label (`HTTP.OCSP`; Network where the request decided, as in ocsp.pcapng).
pub static OCSP: Label = sub("OCSP", "Network");
/// nDPI's HLS label (`HTTP.HLS`; category as hls.pcapng's verdict prints it).
pub static HLS: Label = sub("HLS", "Web");
/// nDPI's MPEG-DASH label (`HTTP.MpegDash`, as 1kxun.pcap's verdict prints it).
pub static MPEGDASH: Label = sub("MpegDash", "Media");
/// nDPI's SOAP label (`HTTP.SOAP`, as ndpi_match_string_subprotocol__error.pcapng prints it).
pub static SOAP: Label = sub("SOAP", "RPC");
/// nDPI's IPP label (`HTTP.IPP`, as ipp.pcap's verdicts print it).
pub static IPP: Label = sub("IPP", "System");
/// nDPI's label for RPC over HTTP (`HTTP.MS_RPCH`; the category is that of its predecessor,
/// nDPI's `RPC` on the same methods, which no corpus flow prints).
pub static MS_RPCH: Label = sub("MS_RPCH", "RPC");
/// Gnutella's file transfers over HTTP (`HTTP.Gnutella`): the download requests of the
/// Hash/URN Gnutella Extensions (HUGE, `/uri-res/N2R?urn:sha1:…`) and of the Gnutella
/// namespace (`/gnutella/thex/v1?urn:tree:tiger/:…` for THEX hash trees, push proxies).
pub static GNUTELLA: Label = sub("Gnutella", "Download");

/// An application carried by HTTP: master HTTP.
const fn sub(app: &'static str, category: &'static str) -> Label {
    Label {
        app,
        master: "HTTP",
        category,
    }
}

/// The client connection preface of HTTP/2 (RFC 9113 §3.4).
const H2_PREFACE: &[u8; 24] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// The HTTP inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "http",
    transports: TCP,
    ports: &[80, 8080, 8000, 8008, 3128],
    labels: &[
        &LABEL, &PROXY, &CONNECT, &HTTP2, &WEBDAV, &OCSP, &HLS, &MPEGDASH, &SOAP, &IPP, &MS_RPCH,
        &GNUTELLA,
    ],
    min_udp: 0,
    ports_required: false,
    probe,
};

/// Request methods recognised at the start of a client's stream (RFC 9110, WebDAV and
/// [MS-RPCH]).
const METHODS: &[&[u8]] = &[
    b"GET ",
    b"POST ",
    b"HEAD ",
    b"PUT ",
    b"DELETE ",
    b"OPTIONS ",
    b"CONNECT ",
    b"PATCH ",
    b"TRACE ",
    b"PROPFIND ",
    b"PROPPATCH ",
    b"MKCOL ",
    b"COPY ",
    b"MOVE ",
    b"LOCK ",
    b"UNLOCK ",
    b"REPORT ",
    b"SEARCH ",
    b"RPC_IN_DATA ",
    b"RPC_OUT_DATA ",
];

/// Per-flow state (SOCKS keeps its own after it: see `socks`).
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub(crate) struct State {
    /// What was read: [`REQ_DONE`], [`STATUS_DONE`], [`STARTED`].
    done: u8,
    /// What the first request was: [`PLAIN`], [`VIA_PROXY`], [`TUNNEL`] (0: none yet).
    kind: u8,
    /// The application the first request or response named: an index into [`APPS`] plus one
    /// (0: none).
    app: u8,
    /// What the heads showed for nDPI's risk checks: [`F_ATTACHMENT`], [`F_BODY_BINARY`],
    /// [`F_EXE_BODY`], [`F_SUSP_HEADER`], [`F_SERVER_NONPRINT`] (written as `http_flags`).
    flags: u8,
    /// Requests read for transaction events so far (`--events`; saturating).
    depth: u8,
}

/// [`State::flags`]: `Content-Disposition` names an `exe`, `msi` or `cab` attachment (`a`).
const F_ATTACHMENT: u8 = 1;
/// [`State::flags`]: the response body's first 4 bytes are neither text nor gzip's magic (`b`).
const F_BODY_BINARY: u8 = 2;
/// [`State::flags`]: the response body starts with an executable's signature (`e`).
const F_EXE_BODY: u8 = 4;
/// [`State::flags`]: a header name nDPI calls suspicious (`h`).
const F_SUSP_HEADER: u8 = 8;
/// [`State::flags`]: a non-printable byte in the `Server` value (`s`).
const F_SERVER_NONPRINT: u8 = 16;
/// [`State::flags`]: `Content-Disposition` names an attachment of another kind (`d`).
const F_ATTACHMENT_DATA: u8 = 32;
/// Each flag's letter in `http_flags`, in the order written.
const FLAG_LETTERS: [(u8, u8); 6] = [
    (F_ATTACHMENT, b'a'),
    (F_BODY_BINARY, b'b'),
    (F_ATTACHMENT_DATA, b'd'),
    (F_EXE_BODY, b'e'),
    (F_SUSP_HEADER, b'h'),
    (F_SERVER_NONPRINT, b's'),
];

/// Add `bits` to the flow's flags and rewrite `http_flags` when they changed.
fn add_flags(cx: &mut Cx<'_>, bits: u8) {
    let st = cx.state::<State>();
    let all = st.flags | bits;
    if all == st.flags {
        return;
    }
    st.flags = all;
    cx.meta.set_letters(Field::HttpFlags, all, &FLAG_LETTERS);
}

/// Header names nDPI's `http.c` calls suspicious (`suspicious_http_header_keys_*`).
const SUSPICIOUS_HEADERS: [&[u8]; 11] = [
    b"Arch",
    b"Cores",
    b"Mem",
    b"Os",
    b"Osname",
    b"Osversion",
    b"Root",
    b"S",
    b"TLS_version",
    b"Uuid",
    b"X-Hire-Me",
];

/// Is `name` (a header's name, the bytes before its colon) one nDPI calls suspicious? nDPI
/// picks the list by the name's first byte (case counts there), then compares over the name's
/// length ignoring case: a name that is a prefix of a listed one counts too (`O` as `Os`).
fn suspicious_header(name: &[u8]) -> bool {
    let Some(&first) = name.first() else {
        return false;
    };
    SUSPICIOUS_HEADERS.iter().any(|s| {
        s.first() == Some(&first)
            && s.get(..name.len())
                .is_some_and(|p| p.eq_ignore_ascii_case(name))
    })
}

/// Does a body start with an executable's signature (nDPI's `ndpi_analyze_content_signature`):
/// DOS/Windows `MZ`, ELF, Mach-O 64 (`CF FA ED FE`), a script's `#!/`, Dalvik `dex\n035\0`?
fn exe_signature(body: &[u8]) -> bool {
    const SIGS: [&[u8]; 5] = [
        b"MZ",
        b"\x7fELF",
        b"\xcf\xfa\xed\xfe",
        b"#!/",
        b"dex\n035\0",
    ];
    SIGS.iter().any(|s| body.starts_with(s))
}

/// Are a body's first 4 bytes not text (nDPI's `ndpi_http_check_human_redeable_content`: each
/// printable ASCII or tab, CR, LF) and not gzip's `1F 8B 08 00`? `false` under 4 bytes.
fn binary_body(body: &[u8]) -> bool {
    let Some(head) = body.get(..4) else {
        return false;
    };
    let text = |c: &u8| (0x20..0x7f).contains(c) || matches!(c, b'\t' | b'\r' | b'\n');
    !head.iter().all(text) && head != [0x1f, 0x8b, 0x08, 0x00]
}

/// What a `Content-Disposition` value names as nDPI tests it (`ndpi_http_check_content`): an
/// attachment when it starts `attachment; filename` and is over 24 bytes; an executable one
/// (Some(true)) when the three bytes before its last are `exe`, `msi` or `cab` (a quoted
/// name's extension), any other (Some(false)): nDPI's "File download", a data transfer.
fn attachment(v: &[u8]) -> Option<bool> {
    let n = v.len();
    (n > 24 && v.starts_with(b"attachment; filename")).then(|| {
        v.get(n - 4..n - 1)
            .is_some_and(|e| [b"exe", b"msi", b"cab"].iter().any(|x| e == *x))
    })
}

/// What the first response's head gives nDPI's risk checks, in one pass over its lines: the
/// `Content-Type` and `Server` values, and the flags (header names, `Server`,
/// `Content-Disposition`, the body's first bytes).
fn response_facts(d: &[u8]) -> (Option<&[u8]>, Option<&[u8]>, u8) {
    let (mut ctype, mut server, mut disposition) = (None, None, None);
    let mut flags = 0;
    for (k, v) in head_lines(d) {
        if suspicious_header(k) {
            flags |= F_SUSP_HEADER;
        }
        if ctype.is_none() && k.eq_ignore_ascii_case(b"content-type") {
            ctype = Some(trim(v));
        } else if server.is_none() && k.eq_ignore_ascii_case(b"server") {
            server = Some(trim(v));
        } else if disposition.is_none() && k.eq_ignore_ascii_case(b"content-disposition") {
            disposition = Some(trim(v));
        }
    }
    if server.is_some_and(|v| v.len() > 7 && !v.iter().all(|c| (0x20..0x7f).contains(c))) {
        flags |= F_SERVER_NONPRINT;
    }
    if let Some(ct) = ctype {
        // nDPI reads the disposition after the media type, unless that was `mpeg` (streaming).
        let mpeg = ct.get(12..).is_some_and(|a| {
            !a.is_empty()
                && b"mpeg"
                    .get(..a.len())
                    .is_some_and(|m| m.eq_ignore_ascii_case(a))
        });
        match disposition.filter(|_| !mpeg).and_then(attachment) {
            Some(true) => flags |= F_ATTACHMENT,
            Some(false) => flags |= F_ATTACHMENT_DATA,
            None => {}
        }
    }
    // The body: after the first empty line (a scan for CR, then the three bytes after it).
    let mut at = 0;
    while let Some(i) = d.get(at..).and_then(|r| r.iter().position(|&c| c == b'\r')) {
        let i = at + i;
        if d.get(i + 1..i + 4) == Some(b"\n\r\n") {
            let body = &d[i + 4..];
            if exe_signature(body) {
                flags |= F_EXE_BODY;
            }
            if binary_body(body) {
                flags |= F_BODY_BINARY;
            }
            break;
        }
        at = i + 1;
    }
    (ctype, server, flags)
}

/// The applications [`State::app`] names (index + 1).
static APPS: [&Label; 8] = [
    &WEBDAV, &OCSP, &HLS, &MPEGDASH, &SOAP, &IPP, &MS_RPCH, &GNUTELLA,
];
const APP_WEBDAV: u8 = 1;
const APP_OCSP: u8 = 2;
const APP_HLS: u8 = 3;
const APP_MPEGDASH: u8 = 4;
const APP_SOAP: u8 = 5;
const APP_IPP: u8 = 6;
const APP_MS_RPCH: u8 = 7;
const APP_GNUTELLA: u8 = 8;

/// WebDAV's methods (RFC 4918 §9).
const WEBDAV_METHODS: [&str; 7] = [
    "PROPFIND",
    "PROPPATCH",
    "MKCOL",
    "COPY",
    "MOVE",
    "LOCK",
    "UNLOCK",
];

/// The media type of a `Content-Type` value: before any parameter, trimmed.
fn media_type(v: &[u8]) -> &[u8] {
    trim(v.split(|&c| c == b';').next().unwrap_or(&[]))
}

/// The application a request names by its method, path and headers (0: none).
fn request_app(method: &str, path: &str, ctype: &[u8], soap_action: bool) -> u8 {
    if WEBDAV_METHODS.contains(&method) {
        return APP_WEBDAV;
    }
    if method == "RPC_IN_DATA" || method == "RPC_OUT_DATA" {
        return APP_MS_RPCH;
    }
    let media = media_type(ctype);
    let post = method == "POST";
    if post && media.eq_ignore_ascii_case(b"application/ocsp-request") {
        APP_OCSP
    } else if post && media.eq_ignore_ascii_case(b"application/ipp") {
        APP_IPP
    } else if soap_action {
        APP_SOAP
    } else if media.eq_ignore_ascii_case(b"video/mp4")
        || (method == "GET" && [".m4s", ".mp4"].iter().any(|e| ends_with_nocase(path, e)))
    {
        APP_MPEGDASH
    } else if matches!(method, "GET" | "HEAD")
        && (path.starts_with("/uri-res/N2") || path.starts_with("/gnutella/"))
    {
        APP_GNUTELLA
    } else {
        0
    }
}

/// The application a response names by its `Content-Type` (0: none).
fn response_app(ctype: Option<&[u8]>) -> u8 {
    let Some(v) = ctype else {
        return 0;
    };
    let media = media_type(v);
    let is = |t: &[u8]| media.eq_ignore_ascii_case(t);
    if is(b"application/ocsp-response") {
        APP_OCSP
    } else if is(b"application/vnd.apple.mpegurl")
        || is(b"audio/mpegurl")
        || is(b"application/x-mpegurl")
        || is(b"audio/x-mpegurl")
    {
        APP_HLS
    } else {
        0
    }
}

fn ends_with_nocase(s: &str, end: &str) -> bool {
    s.len() >= end.len()
        && s.as_bytes()
            .get(s.len() - end.len()..)
            .is_some_and(|t| t.eq_ignore_ascii_case(end.as_bytes()))
}

/// [`State::done`]: the request was read.
const REQ_DONE: u8 = 1;
/// [`State::done`]: the status line was read.
const STATUS_DONE: u8 = 2;
/// [`State::done`]: a request is being gathered over several segments.
const STARTED: u8 = 4;
/// [`State::done`]: the connection switched protocols (`101`): no more transaction events.
const SWITCHED: u8 = 8;
/// [`State::kind`]: a request to a proxy (absolute URL).
const VIA_PROXY: u8 = 1;
/// [`State::kind`]: a CONNECT request (a tunnel).
const TUNNEL: u8 = 2;
/// [`State::kind`]: a request to the origin server.
const PLAIN: u8 = 3;

/// Does `d` start with an HTTP request method and a space?
pub fn is_request(d: &[u8]) -> bool {
    METHODS.iter().any(|m| d.starts_with(m))
}

/// Parse a response status line "HTTP/1.x NNN".
pub fn status(d: &[u8]) -> Option<u16> {
    let s = d.get(..12)?;
    if !s.starts_with(b"HTTP/1.") || s[8] != b' ' || !s[9..12].iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(
        s[9..12]
            .iter()
            .fold(0u16, |a, &c| a * 10 + u16::from(c - b'0')),
    )
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let st = *cx.state::<State>();
    if st.done & (REQ_DONE | STATUS_DONE) == REQ_DONE | STATUS_DONE
        && st.kind != TUNNEL
        && cx.events().is_some()
    {
        // The first exchange, the record's, is read: later ones are read for transaction
        // events only (the metadata is no longer written), a request or a response by its
        // first bytes (the roles are settled).
        if is_request(d) {
            later_requests(cx, d, true);
        } else if status(d).is_some() {
            responses(cx, d);
        }
        return more(cx);
    }
    // Without a SYN the first packet's sender is taken for the client: a capture that starts
    // inside a response has the roles swapped (http_starting_with_reply.pcapng, where nDPI
    // lists the server's port as the source too). Until a request is seen, a status line
    // from the "client" is a response, and a request from the "server" is the request.
    let no_request = cx.state::<State>().done & REQ_DONE == 0;
    let role = match cx.hints.dir {
        Dir::ToServer if no_request && status(d).is_some() => Dir::ToClient,
        Dir::ToClient if no_request && status(d).is_none() && is_request(d) => Dir::ToServer,
        dir => dir,
    };
    match role {
        Dir::ToServer => {
            if cx.state::<State>().done & REQ_DONE != 0 {
                if cx.state::<State>().kind == TUNNEL && cx.meta.get(Field::Sni).is_none() {
                    // Through a CONNECT tunnel: the TLS ClientHello's SNI, as tshark shows it.
                    let hello = crate::proto::tls::hello_in_record(d, cx.meta, cx.digests);
                    if hello == Some(false) {
                        cx.incomplete();
                    } else {
                        crate::proto::tls::tls_event(cx, hello.is_some());
                    }
                } else if cx.state::<State>().kind != TUNNEL && cx.events().is_some() {
                    // A request after the first, before the first response (pipelined).
                    later_requests(cx, d, true);
                }
                return more(cx);
            }
            if cx.state::<State>().done == 0 && cx.hints.nth == 0 && d.starts_with(H2_PREFACE) {
                return Probe::Certain(&HTTP2);
            }
            if !is_request(d) {
                // Too short to tell: a method's prefix could still become one.
                if d.len() < 10 && METHODS.iter().any(|m| m.starts_with(d)) {
                    cx.incomplete();
                    return Probe::Unsure;
                }
                return if cx.state::<State>().done != 0 {
                    more(cx)
                } else {
                    Probe::NotForUs
                };
            }
            request(cx)
        }
        Dir::ToClient => match status(d) {
            Some(code) => {
                cx.meta.set_num(Field::HttpStatus, u32::from(code));
                let first = cx.state::<State>().done & STATUS_DONE == 0;
                if first {
                    // nDPI's risk facts, from the first response (nDPI stops there too); the
                    // same pass over the head gives the media type.
                    let (ctype, server, flags) = response_facts(d);
                    let st = cx.state::<State>();
                    if st.app == 0 && matches!(st.kind, 0 | PLAIN) {
                        // The request named nothing: the answer's media type may.
                        st.app = response_app(ctype);
                    }
                    if let Some(v) = ctype {
                        cx.set(Field::HttpContentType, v);
                    }
                    if let Some(v) = server {
                        cx.set(Field::HttpServer, v);
                    }
                    add_flags(cx, flags);
                }
                if code == 101 {
                    // Switching Protocols: what the connection carries from now on.
                    if let Some(p) = header(d, b"upgrade") {
                        cx.set(Field::HttpUpgrade, p);
                    }
                }
                // A response before any request (the capture started late) still says HTTP;
                // the next request, if one comes within the budget, is read all the same
                // (http_starting_with_reply.pcapng: tshark's host is in the second request).
                cx.state::<State>().done |= STATUS_DONE;
                if cx.events().is_some() {
                    responses(cx, d);
                }
                more(cx)
            }
            None if cx.state::<State>().done != 0 => more(cx),
            // HTTP/2 with prior knowledge: the server may send its preface, a SETTINGS frame
            // (RFC 9113 §3.4), before the client's arrives; the client's decides.
            None if cx.hints.nth == 0 && settings_frame(d) => Probe::Unsure,
            None if d.len() < 12
                && b"HTTP/1.".starts_with(d.get(..d.len().min(7)).unwrap_or(&[])) =>
            {
                cx.incomplete();
                Probe::Unsure
            }
            None => Probe::NotForUs,
        },
    }
}

/// Does `d` start with an HTTP/2 SETTINGS frame on stream 0 (RFC 9113 §6.5: type 4, flags 0
/// or ACK, a length that is a multiple of 6, 0 with ACK) that the segment holds whole?
fn settings_frame(d: &[u8]) -> bool {
    let Some(h) = d.get(..9) else {
        return false;
    };
    let len = usize::from(h[0]) << 16 | usize::from(h[1]) << 8 | usize::from(h[2]);
    let stream = u32::from_be_bytes([h[5], h[6], h[7], h[8]]);
    h[3] == 4
        && (h[4] == 0 || (h[4] == 1 && len == 0))
        && len % 6 == 0
        && stream == 0
        && d.len() >= 9 + len
}

/// The value of header `name` (lower case) in the head of a message (its first 2 KiB, up to the
/// empty line), trimmed.
fn header<'d>(d: &'d [u8], name: &[u8]) -> Option<&'d [u8]> {
    head_lines(d)
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| trim(v))
}

/// The header lines of a message's head (its first 2 KiB, at most 64 lines, up to the empty
/// line) as (name, value after the colon); lines without a colon are skipped.
fn head_lines(d: &[u8]) -> impl Iterator<Item = (&[u8], &[u8])> {
    let head = d.get(..d.len().min(2048)).unwrap_or(&[]);
    head.split(|&c| c == b'\n')
        .skip(1)
        .take(64)
        .map(|line| line.strip_suffix(b"\r").unwrap_or(line))
        .take_while(|line| !line.is_empty())
        .filter_map(|line| {
            let colon = line.iter().position(|&c| c == b':')?;
            let (k, v) = line.split_at(colon);
            Some((k, v.get(1..).unwrap_or(&[])))
        })
}

/// Certain; keep listening while the request or the status is missing.
fn more(cx: &mut Cx<'_>) -> Probe {
    let tunnel = cx.state::<State>().kind == TUNNEL && cx.meta.get(Field::Sni).is_none();
    if cx.state::<State>().done & (REQ_DONE | STATUS_DONE) != REQ_DONE | STATUS_DONE || tunnel {
        cx.want_more();
    }
    let st = cx.state::<State>();
    if st.kind != TUNNEL && st.done & SWITCHED == 0 {
        // Later requests and responses, for transaction events (nothing without them).
        cx.want_events();
    }
    let st = cx.state::<State>();
    Probe::Certain(match st.kind {
        VIA_PROXY => &PROXY,
        TUNNEL => &CONNECT,
        _ => APPS
            .get(usize::from(st.app).wrapping_sub(1))
            .copied()
            .unwrap_or(&LABEL),
    })
}

fn request(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let mut hdrs = [httparse::EMPTY_HEADER; 48];
    let mut req = httparse::Request::new(&mut hdrs);
    let (complete, head) = match req.parse(d) {
        Ok(httparse::Status::Complete(n)) => (true, n),
        Ok(httparse::Status::Partial) => (false, 0),
        Err(_) => {
            // A valid method and a version on the first line: HTTP with a malformed header.
            let line = d.split(|&c| c == b'\n').next().unwrap_or(&[]);
            if crate::util::contains(line, b" HTTP/1") {
                cx.malformed();
                let app = lenient_headers(cx);
                let st = cx.state::<State>();
                if st.done & REQ_DONE == 0 && app != 0 {
                    st.app = app;
                }
                st.done |= REQ_DONE;
                if cx.events().is_some() {
                    lenient_event(cx, d);
                }
                return more(cx);
            }
            return Probe::NotForUs;
        }
    };
    let (Some(method), Some(path)) = (req.method, req.path) else {
        // Request line not complete yet.
        cx.incomplete();
        return Probe::Unsure;
    };
    let mut host: &[u8] = &[];
    let mut ua: &[u8] = &[];
    let mut ctype: &[u8] = &[];
    let mut soap_action = false;
    let mut susp = 0;
    let mut body = None;
    for h in req.headers.iter().take_while(|h| !h.name.is_empty()) {
        if h.name.eq_ignore_ascii_case("host") {
            host = trim(h.value);
        } else if h.name.eq_ignore_ascii_case("user-agent") {
            ua = trim(h.value);
        } else if h.name.eq_ignore_ascii_case("content-type") {
            ctype = h.value;
        } else if h.name.eq_ignore_ascii_case("soapaction") {
            soap_action = true;
        } else if h.name.eq_ignore_ascii_case("content-length") {
            body = content_length(h.value);
        }
        if suspicious_header(h.name.as_bytes()) {
            susp = F_SUSP_HEADER;
        }
    }
    add_flags(cx, susp);
    cx.set(Field::HttpMethod, method.as_bytes());
    let st = cx.state::<State>();
    if st.done & REQ_DONE == 0 {
        // The first request (read whole again when its headers were cut) names the flow.
        let app = request_app(method, path, ctype, soap_action);
        if app != 0 {
            st.app = app;
        }
    }
    if st.kind == 0 {
        st.kind = if method == "CONNECT" {
            TUNNEL
        } else if path.starts_with("http://") {
            VIA_PROXY
        } else {
            PLAIN
        };
    }
    cx.set(Field::HttpHost, host);
    cx.set(Field::UserAgent, ua);
    if !host.is_empty() || complete {
        let mut url = crate::util::Buf::<255>::default();
        // Origin form, and the asterisk form of OPTIONS and SSDP's M-SEARCH (as tshark joins
        // them): host then path.
        if path.starts_with('/') || path == "*" {
            url.push(host);
        }
        url.push(path.as_bytes());
        cx.set(Field::Url, url.as_bytes());
    }
    if !complete && (host.is_empty() || ua.is_empty()) {
        // Headers continue in the next segment: show me the whole request then.
        cx.incomplete();
        cx.want_more();
        cx.state::<State>().done |= STARTED;
        return more(cx);
    }
    cx.state::<State>().done |= REQ_DONE;
    if cx.events().is_some() {
        request_event(cx, method.as_bytes(), path.as_bytes(), host, ua, body);
        if complete {
            // Requests pipelined after it in the same bytes.
            let next = head.saturating_add(body.unwrap_or(0).min(usize::MAX as u64) as usize);
            if let Some(rest) = d.get(next..).filter(|r| !r.is_empty()) {
                later_requests(cx, rest, false);
            }
        }
    }
    more(cx)
}

/// Requests pipelined in one stream's bytes this inspector reads at most, after the first.
const MAX_PIPELINED: usize = 8;

/// The transaction events of the requests at the start of `d` (`--events`), one after the
/// other by their `Content-Length` (at most [`MAX_PIPELINED`]); a request whose head is cut at
/// the end of `d` is shown again whole with the following bytes when it is the first and `d`
/// is the start of the bytes shown (`at_start`: [`Cx::incomplete`] shows them all again), and
/// left out otherwise. Writes no metadata.
fn later_requests(cx: &mut Cx<'_>, d: &[u8], at_start: bool) {
    let mut at = 0usize;
    for _ in 0..MAX_PIPELINED {
        let Some(rest) = d.get(at..).filter(|r| is_request(r)) else {
            return;
        };
        let mut hdrs = [httparse::EMPTY_HEADER; 48];
        let mut req = httparse::Request::new(&mut hdrs);
        let head = match req.parse(rest) {
            Ok(httparse::Status::Complete(n)) => n,
            Ok(httparse::Status::Partial) => {
                if at == 0 && at_start {
                    cx.incomplete();
                }
                return;
            }
            Err(_) => return,
        };
        let (Some(method), Some(path)) = (req.method, req.path) else {
            return;
        };
        let (mut host, mut ua, mut body): (&[u8], &[u8], _) = (&[], &[], None);
        for h in req.headers.iter().take_while(|h| !h.name.is_empty()) {
            if h.name.eq_ignore_ascii_case("host") {
                host = trim(h.value);
            } else if h.name.eq_ignore_ascii_case("user-agent") {
                ua = trim(h.value);
            } else if h.name.eq_ignore_ascii_case("content-length") {
                body = content_length(h.value);
            }
        }
        request_event(cx, method.as_bytes(), path.as_bytes(), host, ua, body);
        let len = head.saturating_add(body.unwrap_or(0).min(usize::MAX as u64) as usize);
        at = at.saturating_add(len);
    }
}

/// The transaction event of a request read whole enough (`--events`): opened, to be completed
/// by its response.
fn request_event(
    cx: &mut Cx<'_>,
    method: &[u8],
    uri: &[u8],
    host: &[u8],
    ua: &[u8],
    body: Option<u64>,
) {
    let st = cx.state::<State>();
    st.depth = st.depth.saturating_add(1);
    let depth = st.depth;
    let Some(t) = cx.events().and_then(|ev| ev.open(TxKind::Http, 0)) else {
        return;
    };
    t.set_num(TxField::HttpDepth, u64::from(depth));
    t.set_text(TxField::HttpMethod, method);
    t.set_text(TxField::HttpHost, host);
    t.set_text(TxField::HttpUri, uri);
    t.set_text(TxField::HttpUserAgent, ua);
    if let Some(n) = body {
        t.set_num(TxField::HttpReqLen, n);
    }
}

/// The transaction event of a request `httparse` refused, read as [`lenient_headers`] reads it.
fn lenient_event(cx: &mut Cx<'_>, d: &[u8]) {
    let mut lines = d.split(|&c| c == b'\n');
    let mut parts = lines.next().unwrap_or(&[]).splitn(3, |&c| c == b' ');
    let (method, path) = (parts.next().unwrap_or(&[]), parts.next().unwrap_or(&[]));
    let (mut host, mut ua, mut body): (&[u8], &[u8], _) = (&[], &[], None);
    for line in lines.take(64) {
        let line = trim(line);
        if line.is_empty() {
            break;
        }
        let Some(colon) = line.iter().position(|&c| c == b':') else {
            continue;
        };
        let (name, value) = (trim(&line[..colon]), trim(&line[colon + 1..]));
        if name.eq_ignore_ascii_case(b"host") {
            host = value;
        } else if name.eq_ignore_ascii_case(b"user-agent") {
            ua = value;
        } else if name.eq_ignore_ascii_case(b"content-length") {
            body = content_length(value);
        }
    }
    request_event(cx, method, path, host, ua, body);
}

/// The transaction events of the responses at the start of `d` (`--events`): each completes
/// the flow's oldest open request, or is an event alone when none is open; an interim `1xx`
/// other than `101` completes nothing. Responses pipelined after the first are found by its
/// `Content-Length` (at most [`MAX_PIPELINED`]). Writes no metadata.
fn responses(cx: &mut Cx<'_>, d: &[u8]) {
    let mut at = 0usize;
    for _ in 0..MAX_PIPELINED {
        let Some(rest) = d.get(at..) else {
            return;
        };
        let Some(code) = status(rest) else {
            return;
        };
        let (mut ctype, mut body): (&[u8], _) = (&[], None);
        for (k, v) in head_lines(rest) {
            if k.eq_ignore_ascii_case(b"content-type") {
                ctype = trim(v);
            } else if k.eq_ignore_ascii_case(b"content-length") {
                body = content_length(v);
            }
        }
        if code == 101 {
            // What follows is another protocol's.
            cx.state::<State>().done |= SWITCHED;
        }
        if !(100..200).contains(&code) || code == 101 {
            let Some(ev) = cx.events() else {
                return;
            };
            if let Some((t, _)) = ev.answer_or_add(TxKind::Http, None) {
                t.set_num(TxField::HttpStatus, u64::from(code));
                t.set_text(TxField::HttpContentType, ctype);
                if let Some(n) = body {
                    t.set_num(TxField::HttpRespLen, n);
                }
            }
        }
        // The next response starts after this one's head and body, when both are known.
        let Some(head) = rest
            .get(..rest.len().min(8192))
            .and_then(|h| crate::util::find(h, b"\r\n\r\n"))
        else {
            return;
        };
        let body = if (100..200).contains(&code) || code == 204 || code == 304 {
            0
        } else {
            match body {
                Some(n) => n.min(usize::MAX as u64) as usize,
                None => return,
            }
        };
        at = at.saturating_add(head + 4).saturating_add(body);
    }
}

/// A `Content-Length` value (decimal digits, at most 18), trimmed.
fn content_length(v: &[u8]) -> Option<u64> {
    let v = trim(v);
    if v.is_empty() || v.len() > 18 || !v.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(v.iter().fold(0u64, |a, &c| a * 10 + u64::from(c - b'0')))
}

/// Request line and headers by hand, for requests `httparse` refuses (a bad byte in a header):
/// nDPI still reads their Host and User-Agent, and what they carry (a NUL in the Content-Type
/// of ndpi_match_string_subprotocol__error.pcapng's request, HTTP.SOAP by its SOAPAction).
/// Returns the application the request names, as [`State::app`] (0: none).
pub(crate) fn lenient_headers(cx: &mut Cx<'_>) -> u8 {
    let d = cx.data;
    let mut lines = d.split(|&c| c == b'\n');
    let first = lines.next().unwrap_or(&[]);
    let mut parts = first.splitn(3, |&c| c == b' ');
    let method = parts.next().unwrap_or(&[]);
    let path = parts.next().unwrap_or(&[]);
    cx.set(Field::HttpMethod, method);
    let mut host: &[u8] = &[];
    let mut ctype: &[u8] = &[];
    let mut soap_action = false;
    for line in lines.take(64) {
        let line = trim(line);
        if line.is_empty() {
            break;
        }
        let Some(colon) = line.iter().position(|&c| c == b':') else {
            continue;
        };
        if suspicious_header(&line[..colon]) {
            add_flags(cx, F_SUSP_HEADER);
        }
        let (name, value) = (trim(&line[..colon]), trim(&line[colon + 1..]));
        if name.eq_ignore_ascii_case(b"host") {
            host = value;
            cx.set(Field::HttpHost, value);
        } else if name.eq_ignore_ascii_case(b"user-agent") {
            cx.set(Field::UserAgent, value);
        } else if name.eq_ignore_ascii_case(b"content-type") {
            ctype = value;
        } else if name.eq_ignore_ascii_case(b"soapaction") {
            soap_action = true;
        }
    }
    let mut url = crate::util::Buf::<255>::default();
    if path.starts_with(b"/") || path == b"*" {
        url.push(host);
    }
    url.push(path);
    cx.set(Field::Url, url.as_bytes());
    let text = |b| std::str::from_utf8(b).unwrap_or_default();
    request_app(text(method), text(path), ctype, soap_action)
}

fn trim(v: &[u8]) -> &[u8] {
    let s = v
        .iter()
        .position(|c| !c.is_ascii_whitespace())
        .unwrap_or(v.len());
    let e = v
        .iter()
        .rposition(|c| !c.is_ascii_whitespace())
        .map_or(s, |e| e + 1);
    v.get(s..e).unwrap_or(&[])
}

#[cfg(test)]
mod tests;
