//! Transaction events as JSON lines (`--events FILE`, docs/EVENTS.md): one object per DNS
//! query/answer pair, HTTP request/response pair and TLS handshake, as Zeek's dns.log, http.log
//! and ssl.log hold them. Each line starts with what joins it to the flow's record (`ts`,
//! `event_type`, `flow_id`, the end-points, `community_id`), then the event type's own keys,
//! every one of them on every line of that type (`null` when not seen), then `truncated`.
//!
//! Like the record writers, an [`EventWriter`] formats into its own buffer and hands its output
//! chunks of whole lines (about 64 KiB), so several workers can share one output
//! ([`crate::shared::SharedWriter`], [`crate::shared::LossyWriter`]).
//!
//! Values come from packets: strings are cut at [`MAX_STR`] bytes (between characters) and
//! lists at [`MAX_LIST`] items whatever the caller passes, and JSON-escaped (quotes,
//! backslashes, control characters), so a hostile value can neither break a line nor grow it
//! without bound.

use crate::format::{flush_at, Fmt, FLUSH_AT};
use std::io::{self, Write};
use std::net::IpAddr;

/// Most bytes of a string value written.
pub const MAX_STR: usize = 1024;
/// Most items of a list written.
pub const MAX_LIST: usize = 32;

/// What every event carries: when, which flow, its end-points.
#[derive(Clone, Copy, Debug)]
pub struct EventHead {
    /// Capture time of the packet that opened the transaction (the query, the request, the
    /// ClientHello), ns since the epoch.
    pub ts_ns: u64,
    /// The flow's `flow_id`, as in its record.
    pub flow_id: u64,
    /// The client's address and port.
    pub src: (IpAddr, u16),
    /// The server's address and port.
    pub dst: (IpAddr, u16),
    /// IP protocol number.
    pub ip_proto: u8,
    /// A value was cut at its cap or left out for want of room.
    pub truncated: bool,
}

/// A DNS query and its answer (Zeek's dns.log): the query's values, and the response's when it
/// was seen.
#[derive(Clone, Copy, Debug, Default)]
pub struct DnsEvent<'a> {
    /// Transaction id.
    pub trans_id: Option<u16>,
    /// Response time, µs from the query to its answer (both seen).
    pub rtt_us: Option<u64>,
    /// Question name.
    pub query: Option<&'a str>,
    /// Question class.
    pub qclass: Option<u16>,
    /// Question type.
    pub qtype: Option<u16>,
    /// Response code (absent: no response seen).
    pub rcode: Option<u8>,
    /// Header flags AA, TC, RD, RA as bits 0 to 3 (the response's, else the query's).
    pub flags: Option<u8>,
    /// Each answer's data as text.
    pub answers: &'a [&'a str],
    /// Each answer's TTL, seconds.
    pub ttls: &'a [u32],
}

/// An HTTP request and its response (Zeek's http.log).
#[derive(Clone, Copy, Debug, Default)]
pub struct HttpEvent<'a> {
    /// The request's position in its connection (1 for the first).
    pub trans_depth: Option<u32>,
    /// Request method.
    pub method: Option<&'a str>,
    /// `Host` header.
    pub host: Option<&'a str>,
    /// Request target as sent.
    pub uri: Option<&'a str>,
    /// `User-Agent` header.
    pub user_agent: Option<&'a str>,
    /// Request body length (`Content-Length`).
    pub request_body_len: Option<u64>,
    /// Response status code (absent: no response seen).
    pub status: Option<u16>,
    /// Response `Content-Type`.
    pub content_type: Option<&'a str>,
    /// Response body length (`Content-Length`).
    pub response_body_len: Option<u64>,
}

/// A TLS handshake (Zeek's ssl.log, with the fingerprints).
#[derive(Clone, Copy, Debug, Default)]
pub struct TlsEvent<'a> {
    /// Version: the server's choice, else the client's highest offer.
    pub version: Option<&'a str>,
    /// Server name indication.
    pub sni: Option<&'a str>,
    /// ALPN: the server's choice, else the client's offer.
    pub alpn: Option<&'a str>,
    /// Cipher suite the server chose (IANA number).
    pub cipher: Option<u16>,
    /// JA3 client fingerprint.
    pub ja3: Option<&'a str>,
    /// JA4 client fingerprint.
    pub ja4: Option<&'a str>,
    /// The server certificate's subject (RFC 4514).
    pub subject: Option<&'a str>,
    /// Its issuer.
    pub issuer: Option<&'a str>,
}

/// One transaction.
#[derive(Clone, Copy, Debug)]
pub enum Event<'a> {
    /// `event_type` `dns`.
    Dns(DnsEvent<'a>),
    /// `event_type` `http`.
    Http(HttpEvent<'a>),
    /// `event_type` `tls`.
    Tls(TlsEvent<'a>),
}

impl Event<'_> {
    /// The `event_type` value.
    pub fn type_name(&self) -> &'static str {
        match self {
            Event::Dns(_) => "dns",
            Event::Http(_) => "http",
            Event::Tls(_) => "tls",
        }
    }
}

/// Writes one JSON object per event, in chunks of whole lines.
pub struct EventWriter<W: Write> {
    out: W,
    buf: Vec<u8>,
    /// Events written (formatted) so far.
    pub written: u64,
}

impl<W: Write> EventWriter<W> {
    /// A writer to `out`.
    pub fn new(out: W) -> Self {
        EventWriter {
            out,
            buf: Vec::with_capacity(FLUSH_AT + 4096),
            written: 0,
        }
    }

    /// Format one event; hand the buffer to the output once it holds about 64 KiB.
    pub fn write(&mut self, head: &EventHead, ev: &Event<'_>) -> io::Result<()> {
        line(&mut self.buf, head, ev);
        self.written += 1;
        flush_at(&mut self.out, &mut self.buf, FLUSH_AT)
    }

    /// Hand what is buffered to the output and flush it.
    pub fn finish(&mut self) -> io::Result<()> {
        if !self.buf.is_empty() {
            self.out.write_all(&self.buf)?;
            self.buf.clear();
        }
        self.out.flush()
    }

    /// The output.
    pub fn get_ref(&self) -> &W {
        &self.out
    }
}

/// `s` cut at [`MAX_STR`] bytes, between characters.
fn capped(s: &str) -> &str {
    if s.len() <= MAX_STR {
        return s;
    }
    let mut end = MAX_STR;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// The writing of one line's `"key":value` pairs.
struct Obj<'b> {
    buf: &'b mut Vec<u8>,
    first: bool,
}

impl Obj<'_> {
    fn key(&mut self, k: &str) {
        if !self.first {
            self.buf.push(b',');
        }
        self.first = false;
        self.buf.push(b'"');
        self.buf.extend_from_slice(k.as_bytes());
        self.buf.extend_from_slice(b"\":");
    }

    fn str(&mut self, k: &str, v: Option<&str>) {
        self.key(k);
        match v {
            Some(v) => Fmt::json_str(self.buf, capped(v)),
            None => self.buf.extend_from_slice(b"null"),
        }
    }

    fn int(&mut self, k: &str, v: Option<u64>) {
        self.key(k);
        match v {
            Some(v) => Fmt::int(self.buf, v),
            None => self.buf.extend_from_slice(b"null"),
        }
    }

    fn bool(&mut self, k: &str, v: Option<bool>) {
        self.key(k);
        self.buf.extend_from_slice(match v {
            Some(true) => b"true",
            Some(false) => b"false",
            None => b"null",
        });
    }
}

/// Format one event as a JSON line into `buf`.
pub fn line(buf: &mut Vec<u8>, head: &EventHead, ev: &Event<'_>) {
    buf.push(b'{');
    let mut o = Obj { buf, first: true };
    o.key("ts");
    Fmt::ts(o.buf, head.ts_ns);
    o.str("event_type", Some(ev.type_name()));
    o.int("flow_id", Some(head.flow_id));
    o.key("src_ip");
    o.buf.push(b'"');
    Fmt::ip(o.buf, &head.src.0);
    o.buf.push(b'"');
    o.int("src_port", Some(u64::from(head.src.1)));
    o.key("dst_ip");
    o.buf.push(b'"');
    Fmt::ip(o.buf, &head.dst.0);
    o.buf.push(b'"');
    o.int("dst_port", Some(u64::from(head.dst.1)));
    o.key("l4");
    o.buf.push(b'"');
    match crate::l4_name(head.ip_proto) {
        Some(n) => o.buf.extend_from_slice(n.as_bytes()),
        None => Fmt::int(o.buf, head.ip_proto),
    }
    o.buf.push(b'"');
    o.key("community_id");
    let mark = o.buf.len();
    o.buf.push(b'"');
    if crate::community_id(o.buf, head.src, head.dst, head.ip_proto) {
        o.buf.push(b'"');
    } else {
        o.buf.truncate(mark);
        o.buf.extend_from_slice(b"null");
    }
    match ev {
        Event::Dns(d) => {
            o.int("trans_id", d.trans_id.map(u64::from));
            o.int("rtt_us", d.rtt_us);
            o.str("query", d.query);
            o.int("qclass", d.qclass.map(u64::from));
            o.int("qtype", d.qtype.map(u64::from));
            o.int("rcode", d.rcode.map(u64::from));
            for (k, bit) in [("aa", 0), ("tc", 1), ("rd", 2), ("ra", 3)] {
                o.bool(k, d.flags.map(|f| f >> bit & 1 != 0));
            }
            o.key("answers");
            o.buf.push(b'[');
            for (i, a) in d.answers.iter().take(MAX_LIST).enumerate() {
                if i > 0 {
                    o.buf.push(b',');
                }
                Fmt::json_str(o.buf, capped(a));
            }
            o.buf.push(b']');
            o.key("ttls");
            o.buf.push(b'[');
            for (i, t) in d.ttls.iter().take(MAX_LIST).enumerate() {
                if i > 0 {
                    o.buf.push(b',');
                }
                Fmt::int(o.buf, *t);
            }
            o.buf.push(b']');
        }
        Event::Http(h) => {
            o.int("trans_depth", h.trans_depth.map(u64::from));
            o.str("method", h.method);
            o.str("host", h.host);
            o.str("uri", h.uri);
            o.str("user_agent", h.user_agent);
            o.int("request_body_len", h.request_body_len);
            o.int("status", h.status.map(u64::from));
            o.str("content_type", h.content_type);
            o.int("response_body_len", h.response_body_len);
        }
        Event::Tls(t) => {
            o.str("version", t.version);
            o.str("sni", t.sni);
            o.str("alpn", t.alpn);
            o.int("cipher", t.cipher.map(u64::from));
            o.str("ja3", t.ja3);
            o.str("ja4", t.ja4);
            o.str("subject", t.subject);
            o.str("issuer", t.issuer);
        }
    }
    o.bool("truncated", Some(head.truncated));
    buf.extend_from_slice(b"}\n");
}

/// The keys of an event of type `event_type` (`dns`, `http`, `tls`), in the order written;
/// empty for another type.
pub fn keys(event_type: &str) -> Vec<&'static str> {
    let own: &[&str] = match event_type {
        "dns" => &[
            "trans_id", "rtt_us", "query", "qclass", "qtype", "rcode", "aa", "tc", "rd", "ra",
            "answers", "ttls",
        ],
        "http" => &[
            "trans_depth",
            "method",
            "host",
            "uri",
            "user_agent",
            "request_body_len",
            "status",
            "content_type",
            "response_body_len",
        ],
        "tls" => &[
            "version", "sni", "alpn", "cipher", "ja3", "ja4", "subject", "issuer",
        ],
        _ => return Vec::new(),
    };
    let mut k = vec![
        "ts",
        "event_type",
        "flow_id",
        "src_ip",
        "src_port",
        "dst_ip",
        "dst_port",
        "l4",
        "community_id",
    ];
    k.extend_from_slice(own);
    k.push("truncated");
    k
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head() -> EventHead {
        EventHead {
            ts_ns: 1_600_000_000_123_456_789,
            flow_id: 42,
            src: ("2001:db8::2".parse().unwrap(), 40000),
            dst: ("2001:db8::1".parse().unwrap(), 53),
            ip_proto: 17,
            truncated: false,
        }
    }

    fn one(ev: &Event<'_>) -> (String, serde_json::Value) {
        let mut buf = Vec::new();
        line(&mut buf, &head(), ev);
        let s = String::from_utf8(buf).unwrap();
        assert!(s.ends_with('\n') && s.matches('\n').count() == 1, "{s:?}");
        let v: serde_json::Value = serde_json::from_str(&s).unwrap();
        (s, v)
    }

    fn key_order(s: &str) -> Vec<String> {
        // serde_json's map is sorted; read the keys in line order by hand.
        let v: serde_json::Map<String, serde_json::Value> = serde_json::from_str(s).unwrap();
        let mut ks: Vec<(usize, String)> = v
            .keys()
            .map(|k| (s.find(&format!("\"{k}\":")).unwrap(), k.clone()))
            .collect();
        ks.sort();
        ks.into_iter().map(|(_, k)| k).collect()
    }

    #[test]
    fn every_key_of_the_type_in_order_absent_as_null() {
        for ev in [
            Event::Dns(DnsEvent::default()),
            Event::Http(HttpEvent::default()),
            Event::Tls(TlsEvent::default()),
        ] {
            let (s, v) = one(&ev);
            assert_eq!(key_order(&s), keys(ev.type_name()), "{s}");
            assert_eq!(v["event_type"], ev.type_name());
            assert_eq!(v["flow_id"], 42);
            assert_eq!(v["ts"].as_f64().unwrap(), 1_600_000_000.123_456);
            assert!(s.contains("\"ts\":1600000000.123456,"), "{s}");
            assert_eq!(v["src_ip"], "2001:db8::2");
            assert_eq!(v["dst_ip"], "2001:db8::1");
            assert_eq!(v["l4"], "UDP");
            assert!(v["community_id"].as_str().unwrap().starts_with("1:"));
            assert_eq!(v["truncated"], false);
        }
    }

    #[test]
    fn values_are_written() {
        let answers = ["192.0.2.7", "cdn.example"];
        let (_, v) = one(&Event::Dns(DnsEvent {
            trans_id: Some(0xbeef),
            rtt_us: Some(1500),
            query: Some("www.example.com"),
            qclass: Some(1),
            qtype: Some(28),
            rcode: Some(3),
            flags: Some(0b1101),
            answers: &answers,
            ttls: &[60, 3600],
        }));
        assert_eq!(v["trans_id"], 0xbeef);
        assert_eq!(v["rtt_us"], 1500);
        assert_eq!(v["query"], "www.example.com");
        assert_eq!(v["qtype"], 28);
        assert_eq!(v["rcode"], 3);
        let flags: Vec<_> = ["aa", "tc", "rd", "ra"].map(|k| v[k].as_bool()).into();
        assert_eq!(flags, [Some(true), Some(false), Some(true), Some(true)]);
        assert_eq!(
            v["answers"],
            serde_json::json!(["192.0.2.7", "cdn.example"])
        );
        assert_eq!(v["ttls"], serde_json::json!([60, 3600]));
        let (_, v) = one(&Event::Http(HttpEvent {
            trans_depth: Some(3),
            method: Some("GET"),
            status: Some(404),
            response_body_len: Some(0),
            ..Default::default()
        }));
        assert_eq!(v["trans_depth"], 3);
        assert_eq!(v["status"], 404);
        assert_eq!(v["response_body_len"], 0);
        assert_eq!(v["host"], serde_json::Value::Null);
    }

    #[test]
    fn hostile_strings_stay_one_line_of_valid_json() {
        let nasty =
            "a\"b\\c\nd\re\tf\u{0}g\u{1b}[31m\u{7f}\u{2028}é\u{fffd}}\n{\"event_type\":\"x\"";
        let (s, v) = one(&Event::Http(HttpEvent {
            method: Some(nasty),
            host: Some(nasty),
            uri: Some(nasty),
            user_agent: Some(nasty),
            content_type: Some(nasty),
            ..Default::default()
        }));
        for k in ["method", "host", "uri", "user_agent", "content_type"] {
            assert_eq!(v[k], nasty);
        }
        assert!(!s.trim_end().contains(['\n', '\r', '\u{0}']), "{s:?}");
        assert_eq!(v["event_type"], "http");
        let answers = [nasty, "\"]}"];
        let (_, v) = one(&Event::Dns(DnsEvent {
            query: Some(nasty),
            answers: &answers,
            ..Default::default()
        }));
        assert_eq!(v["answers"][0], nasty);
        assert_eq!(v["answers"][1], "\"]}");
    }

    #[test]
    fn strings_and_lists_are_capped() {
        let long = "é".repeat(MAX_STR); // 2 bytes each: cut between characters
        let many: Vec<&str> = (0..MAX_LIST + 10).map(|_| "x").collect();
        let ttls: Vec<u32> = (0..MAX_LIST as u32 + 10).collect();
        let (s, v) = one(&Event::Dns(DnsEvent {
            query: Some(&long),
            answers: &many,
            ttls: &ttls,
            ..Default::default()
        }));
        let q = v["query"].as_str().unwrap();
        assert_eq!(q.len(), MAX_STR);
        assert!(long.starts_with(q));
        assert_eq!(v["answers"].as_array().unwrap().len(), MAX_LIST);
        assert_eq!(v["ttls"].as_array().unwrap().len(), MAX_LIST);
        assert!(s.len() < 2 * MAX_STR + 64 * MAX_LIST + 1024);
        let odd = "x".repeat(MAX_STR - 1) + "é";
        let (_, v) = one(&Event::Tls(TlsEvent {
            sni: Some(&odd),
            ..Default::default()
        }));
        assert_eq!(v["sni"].as_str().unwrap().len(), MAX_STR - 1);
    }

    #[test]
    fn writer_hands_over_whole_lines_in_chunks() {
        /// Records the size of each write.
        struct Chunks(Vec<Vec<u8>>);
        impl Write for Chunks {
            fn write(&mut self, b: &[u8]) -> io::Result<usize> {
                self.0.push(b.to_vec());
                Ok(b.len())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let mut w = EventWriter::new(Chunks(Vec::new()));
        let ua = "u".repeat(900);
        for _ in 0..200 {
            let ev = Event::Http(HttpEvent {
                user_agent: Some(&ua),
                ..Default::default()
            });
            w.write(&head(), &ev).unwrap();
        }
        w.finish().unwrap();
        assert_eq!(w.written, 200);
        let chunks = &w.get_ref().0;
        assert!(chunks.len() >= 2);
        let mut lines = 0;
        for c in chunks {
            assert!(c.ends_with(b"\n"));
            for l in c.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
                serde_json::from_slice::<serde_json::Value>(l).unwrap();
                lines += 1;
            }
        }
        assert_eq!(lines, 200);
    }
}
