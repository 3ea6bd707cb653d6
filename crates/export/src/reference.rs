//! The record writers as they were before issue 37's rewrite (commit cdf57ba: `Vec` appends,
//! `itoa`, `Display` for IPv6), kept for the tests only: the rewrite must write the same bytes
//! for every record (`crate::tests::writers_match_the_reference`).

#![allow(dead_code)]

use crate::format::Columns;
use crate::{l4_name, numeric_meta, FlowRecord, META_COUNT, META_FIELDS};
use std::io::Write;
use std::net::IpAddr;
use wirespeed_classify::LabelEntry;
use wirespeed_classify::Method;

/// nDPI's "MASTER.APP" form (just "APP" when both are the same).
fn proto_label(l: &LabelEntry) -> (&str, Option<&str>) {
    let (master, app) = (l.master(), l.app());
    if master.is_empty() || master == app || master == "Unknown" {
        (app, None)
    } else {
        (master, Some(app))
    }
}

/// `,"name":` of each metadata field.
fn meta_json_key(i: usize) -> String {
    format!(",\"{}\":", META_FIELDS[i])
}

/// "00" to "99", for writing two decimal digits at once.
const DIGIT_PAIRS: [u8; 200] = {
    let mut t = [0u8; 200];
    let mut i = 0;
    while i < 100 {
        t[2 * i] = b'0' + (i / 10) as u8;
        t[2 * i + 1] = b'0' + (i % 10) as u8;
        i += 1;
    }
    t
};

/// Formatting helpers writing into a byte buffer.
pub(crate) struct Fmt;

impl Fmt {
    #[inline]
    pub(crate) fn int(buf: &mut Vec<u8>, v: impl itoa::Integer) {
        let mut b = itoa::Buffer::new();
        buf.extend_from_slice(b.format(v).as_bytes());
    }

    #[inline]
    pub(crate) fn ip(buf: &mut Vec<u8>, ip: &IpAddr) {
        match ip {
            IpAddr::V4(a) => {
                // Built in a block and appended by one copy: four integer formats and seven
                // appends cost 10% of the worst case's record time (`cargo bench -p
                // wirespeed-export`).
                let mut t = [0u8; 15];
                let mut n = 0;
                for (i, &o) in a.octets().iter().enumerate() {
                    if i > 0 {
                        t[n] = b'.';
                        n += 1;
                    }
                    if o >= 100 {
                        t[n] = b'0' + o / 100;
                        n += 1;
                    }
                    if o >= 10 {
                        t[n] = b'0' + o / 10 % 10;
                        n += 1;
                    }
                    t[n] = b'0' + o % 10;
                    n += 1;
                }
                buf.extend_from_slice(&t[..n]);
            }
            // Display gives the RFC 5952 text form; IPv6 is rarer, so this is fine.
            IpAddr::V6(a) => {
                let _ = write!(buf, "{a}");
            }
        }
    }

    /// Seconds with microseconds: `1600000000.123456`.
    #[inline]
    pub(crate) fn ts(buf: &mut Vec<u8>, ns: u64) {
        Fmt::int(buf, ns / 1_000_000_000);
        // The six decimals, two digits at a time from a table, in one append.
        let us = ((ns % 1_000_000_000) / 1000) as usize;
        let pair = |n: usize| &DIGIT_PAIRS[2 * n..2 * n + 2];
        let mut t = [b'.'; 7];
        t[1..3].copy_from_slice(pair(us / 10_000));
        t[3..5].copy_from_slice(pair(us / 100 % 100));
        t[5..7].copy_from_slice(pair(us % 100));
        buf.extend_from_slice(&t);
    }

    /// A non-negative number with three decimals (rounded half up); a value that is not
    /// finite, or negative, as 0.
    #[inline]
    pub(crate) fn fixed3(buf: &mut Vec<u8>, v: f64) {
        let v = if v.is_finite() && v > 0.0 { v } else { 0.0 };
        // Past 2^53 thousandths a double has no third decimal left to write.
        let t = (v * 1000.0 + 0.5).min(9.0e15) as u64;
        Fmt::int(buf, t / 1000);
        buf.push(b'.');
        let f = t % 1000;
        buf.push(b'0' + (f / 100) as u8);
        buf.push(b'0' + (f / 10 % 10) as u8);
        buf.push(b'0' + (f % 10) as u8);
    }

    /// A fraction in [0, 1] with two decimals.
    #[inline]
    pub(crate) fn conf(buf: &mut Vec<u8>, c: f32) {
        let c = if c.is_finite() {
            c.clamp(0.0, 1.0)
        } else {
            0.0
        };
        // Round half away from zero, as `f32::round`, without its libm call: c * 100 is in
        // [0, 100], and in f64 adding 0.5 is exact, so truncating is the same rounding.
        let hundredths = ((f64::from(c * 100.0) + 0.5) as usize).min(100);
        let h = hundredths % 100;
        buf.extend_from_slice(&[
            b'0' + (hundredths / 100) as u8,
            b'.',
            DIGIT_PAIRS[2 * h],
            DIGIT_PAIRS[2 * h + 1],
        ]);
    }
}

/// What differs between the two record formats. The fields and their order are written once,
/// in [`record`]; JSON keys are spelt out at compile time by its `key!` macro.
pub(crate) trait Syntax {
    /// JSON (`"key":value`, metadata only when set) rather than CSV (every column, in order).
    const JSON: bool;
    /// Opens and closes a record.
    const OPEN: &'static [u8];
    const CLOSE: &'static [u8];
    /// A string value.
    fn str(b: &mut Vec<u8>, s: &str);
    /// A value that JSON quotes and CSV writes bare (an address, a protocol name).
    fn quoted(b: &mut Vec<u8>, write: impl FnOnce(&mut Vec<u8>));
    /// `MASTER.APP` (or `APP`) as one string.
    fn proto(b: &mut Vec<u8>, master: &str, app: Option<&str>);

    /// An absent value: `null` in JSON, an empty field in CSV (the one way each format says it).
    #[inline]
    fn null(b: &mut Vec<u8>) {
        if Self::JSON {
            b.extend_from_slice(b"null");
        }
    }

    /// A string that is absent when empty.
    #[inline]
    fn opt_str(b: &mut Vec<u8>, s: &str) {
        if s.is_empty() {
            Self::null(b);
        } else {
            Self::str(b, s);
        }
    }

    /// A metadata value that is a number on the wire (a DNS query type or response code, an
    /// HTTP status): written bare when it is one, absent otherwise (not seen, or a hostile
    /// packet's text where digits belong).
    #[inline]
    fn opt_num(b: &mut Vec<u8>, s: &str) {
        if !s.is_empty() && s.len() <= 10 && s.bytes().all(|c| c.is_ascii_digit()) {
            // Leading zeros would not be a JSON number: write the value, not the text.
            match s.parse::<u64>() {
                Ok(v) => Fmt::int(b, v),
                Err(_) => Self::null(b),
            }
        } else {
            Self::null(b);
        }
    }
}

/// One record in `S`'s syntax: the core fields, the early-flow features and the statistical
/// verdict ([`early_fields`]), then the metadata, in [`FIELDS`] order.
#[inline]
pub(crate) fn record<S: Syntax>(b: &mut Vec<u8>, r: &FlowRecord<'_>, cols: &Columns) {
    let Columns {
        with_source,
        features,
        community,
        action,
        dist,
        tcp,
        tunnel_parent,
        keep: _,
    } = *cols;
    // Before every field but the first: `,"name":` in JSON, `,` in CSV.
    macro_rules! key {
        ($name:literal) => {
            if S::JSON {
                b.extend_from_slice(concat!(",\"", $name, "\":").as_bytes());
            } else {
                b.push(b',');
            }
        };
    }
    b.extend_from_slice(S::OPEN);
    if with_source {
        if S::JSON {
            b.extend_from_slice(b"\"source\":");
        }
        S::str(b, r.source.unwrap_or(""));
        key!("pcap");
        S::opt_str(b, r.pcap.unwrap_or(""));
        b.push(b',');
    }
    if S::JSON {
        b.extend_from_slice(b"\"flow_id\":");
    }
    Fmt::int(b, r.flow_id);
    key!("src_ip");
    S::quoted(b, |b| Fmt::ip(b, &r.src_ip));
    key!("src_port");
    Fmt::int(b, r.src_port);
    key!("dst_ip");
    S::quoted(b, |b| Fmt::ip(b, &r.dst_ip));
    key!("dst_port");
    Fmt::int(b, r.dst_port);
    // `l4` is always a string (the keyword, or the number as text), `ip_proto` the number.
    key!("l4");
    match l4_name(r.l4) {
        Some(n) => S::quoted(b, |b| b.extend_from_slice(n.as_bytes())),
        None => S::quoted(b, |b| Fmt::int(b, r.l4)),
    }
    key!("ip_proto");
    Fmt::int(b, r.l4);
    key!("vlan");
    Fmt::int(b, r.vlan);
    key!("tunnel");
    S::opt_str(b, r.tunnel);
    if tunnel_parent {
        key!("tunnel_parent");
        match r.tunnel_parent {
            Some(id) => Fmt::int(b, id),
            None => S::null(b),
        }
    }
    key!("first_ts");
    Fmt::ts(b, r.first_ts_ns);
    key!("last_ts");
    Fmt::ts(b, r.last_ts_ns);
    key!("duration");
    Fmt::ts(b, r.last_ts_ns.saturating_sub(r.first_ts_ns));
    key!("c2s_pkts");
    Fmt::int(b, r.c2s_pkts);
    key!("c2s_bytes");
    Fmt::int(b, r.c2s_bytes);
    key!("s2c_pkts");
    Fmt::int(b, r.s2c_pkts);
    key!("s2c_bytes");
    Fmt::int(b, r.s2c_bytes);
    key!("end_reason");
    S::str(b, r.end_reason.as_str());
    let label = r.label_names();
    key!("proto");
    let (m, a) = proto_label(label);
    S::proto(b, m, a);
    key!("app");
    S::str(b, label.app());
    key!("master");
    S::str(b, label.master());
    key!("category");
    S::str(b, label.category());
    key!("ip_owner");
    S::opt_str(b, r.ip_owner);
    key!("method");
    S::opt_str(b, r.method.map_or("", Method::as_str));
    key!("confidence");
    Fmt::conf(b, r.confidence);
    key!("ttb_pkts");
    Fmt::int(b, r.ttb_pkts);
    key!("ttb_us");
    Fmt::int(b, r.ttb_us);
    key!("fpc");
    match r.fpc {
        Some((l, _)) => {
            let (m, a) = proto_label(r.labels.get(l));
            S::proto(b, m, a);
        }
        None => S::null(b),
    }
    key!("fpc_method");
    S::opt_str(b, r.fpc.map_or("", |f| f.1.as_str()));
    key!("encrypted");
    b.extend_from_slice(if r.encrypted { b"true" } else { b"false" });
    // nDPI's names, `;`-separated; absent when there is none.
    key!("risks");
    if r.risks.is_empty() {
        S::null(b);
    } else {
        S::quoted(b, |b| {
            for (i, k) in r.risks.iter().enumerate() {
                if i > 0 {
                    b.push(b';');
                }
                // The names are fixed ASCII without quotes, backslashes or commas.
                b.extend_from_slice(k.name().as_bytes());
            }
        });
    }
    key!("risk_score");
    Fmt::int(b, r.risks.score());
    if community {
        // Undefined (ICMP, whose ID needs the message type): null in JSON, empty in CSV.
        key!("community_id");
        let at = b.len();
        if S::JSON {
            b.push(b'"');
        }
        if crate::community_id(b, (r.src_ip, r.src_port), (r.dst_ip, r.dst_port), r.l4) {
            if S::JSON {
                b.push(b'"');
            }
        } else {
            b.truncate(at);
            S::null(b);
        }
    }
    if action {
        // Absent (a record of a run that did not act): null in JSON, empty in CSV.
        match r.act.as_ref() {
            Some(a) => {
                key!("rule");
                S::str(b, a.rule);
                key!("action");
                S::str(b, a.action);
                key!("dropped_pkts");
                Fmt::int(b, a.dropped_pkts);
                key!("dropped_bytes");
                Fmt::int(b, a.dropped_bytes);
                key!("bound");
                b.extend_from_slice(if a.bound { b"true" } else { b"false" });
            }
            None => {
                key!("rule");
                S::null(b);
                key!("action");
                S::null(b);
                key!("dropped_pkts");
                S::null(b);
                key!("dropped_bytes");
                S::null(b);
                key!("bound");
                S::null(b);
            }
        }
    }
    if dist {
        dist_fields::<S>(b, r);
    }
    if tcp {
        tcp_fields::<S>(b, r);
    }
    early_fields::<S>(b, r, features);
    // Every metadata field in every record (the columns depend on options only), absent ones
    // as the format's null; most flows have none, and get the whole run of nulls in one copy.
    if r.meta.iter().all(|v| v.is_empty()) {
        if S::JSON {
            b.extend_from_slice(crate::META_JSON_NULLS.as_bytes());
        } else {
            b.extend_from_slice(&[b','; META_COUNT]);
        }
    } else {
        for (i, v) in r.meta.iter().enumerate() {
            if S::JSON {
                b.extend_from_slice(meta_json_key(i).as_bytes());
            } else {
                b.push(b',');
            }
            if numeric_meta(i) {
                S::opt_num(b, v);
            } else {
                S::opt_str(b, v);
            }
        }
    }
    b.extend_from_slice(S::CLOSE);
}

/// Writes the keys of a run of named fields in turn: `,"name":` in JSON, `,` in CSV.
struct Keys<'n>(std::slice::Iter<'n, &'static str>);

impl Keys<'_> {
    fn next<S: Syntax>(&mut self, b: &mut Vec<u8>) {
        b.push(b',');
        if S::JSON {
            b.push(b'"');
            b.extend_from_slice(self.0.next().map_or("", |n| n).as_bytes());
            b.extend_from_slice(b"\":");
        }
    }
}

/// Every field of `names` absent (null in JSON, empty in CSV).
fn absent<S: Syntax>(b: &mut Vec<u8>, names: &[&'static str]) {
    let mut keys = Keys(names.iter());
    for _ in names {
        keys.next::<S>(b);
        S::null(b);
    }
}

/// The `c2s_*` / `s2c_*` distribution fields ([`crate::DIST_FIELDS`], in its order); null in
/// JSON, empty in CSV, when the record has none.
fn dist_fields<S: Syntax>(b: &mut Vec<u8>, r: &FlowRecord<'_>) {
    let mut keys = Keys(crate::DIST_FIELDS.iter());
    let mut key = |b: &mut Vec<u8>| keys.next::<S>(b);
    let Some(d) = r.dist.as_ref() else {
        return absent::<S>(b, &crate::DIST_FIELDS);
    };
    for dir in [&d.c2s, &d.s2c] {
        // No packet this way: sizes absent; no gap: gaps absent.
        let sizes = dir.packets > 0;
        let gaps = dir.gaps > 0;
        key(b);
        if sizes {
            Fmt::int(b, dir.size_min)
        } else {
            S::null(b)
        }
        key(b);
        if sizes {
            Fmt::fixed3(b, dir.size_mean)
        } else {
            S::null(b)
        }
        key(b);
        if sizes {
            Fmt::int(b, dir.size_max)
        } else {
            S::null(b)
        }
        key(b);
        if sizes {
            Fmt::fixed3(b, dir.size_std)
        } else {
            S::null(b)
        }
        for v in [
            dir.gap_min_us,
            dir.gap_mean_us,
            dir.gap_max_us,
            dir.gap_std_us,
        ] {
            key(b);
            if gaps {
                Fmt::fixed3(b, v)
            } else {
                S::null(b)
            }
        }
        for c in dir.flags {
            key(b);
            Fmt::int(b, c);
        }
    }
}

/// The TCP analysis fields ([`crate::TCP_FIELDS`], in its order); null in JSON, empty in CSV,
/// when the record has none (not TCP) or a value is unknown.
fn tcp_fields<S: Syntax>(b: &mut Vec<u8>, r: &FlowRecord<'_>) {
    let mut keys = Keys(crate::TCP_FIELDS.iter());
    let mut key = |b: &mut Vec<u8>| keys.next::<S>(b);
    let Some(t) = r.tcp.as_ref() else {
        return absent::<S>(b, &crate::TCP_FIELDS);
    };
    fn opt<S: Syntax>(b: &mut Vec<u8>, v: Option<impl itoa::Integer>) {
        match v {
            Some(v) => Fmt::int(b, v),
            None => S::null(b),
        }
    }
    fn flag<S: Syntax>(b: &mut Vec<u8>, v: Option<bool>) {
        match v {
            Some(true) => b.extend_from_slice(b"true"),
            Some(false) => b.extend_from_slice(b"false"),
            None => S::null(b),
        }
    }
    for d in [&t.c2s, &t.s2c] {
        let rtt = d.rtt_n > 0;
        key(b);
        Fmt::int(b, d.retrans);
        key(b);
        Fmt::int(b, d.retrans_bytes);
        key(b);
        Fmt::int(b, d.ooo);
        key(b);
        Fmt::int(b, d.dup);
        key(b);
        Fmt::int(b, d.rtt_n);
        key(b);
        opt::<S>(b, rtt.then_some(d.rtt_min_us));
        key(b);
        if rtt {
            Fmt::fixed3(b, d.rtt_mean_us)
        } else {
            S::null(b)
        }
        key(b);
        opt::<S>(b, rtt.then_some(d.rtt_max_us));
        key(b);
        if rtt {
            Fmt::fixed3(b, d.rtt_std_us)
        } else {
            S::null(b)
        }
        key(b);
        opt::<S>(b, d.ttl.map(|t| t.0));
        key(b);
        opt::<S>(b, d.ttl.map(|t| t.1));
        key(b);
        opt::<S>(b, d.mss);
        key(b);
        opt::<S>(b, d.wscale);
        key(b);
        flag::<S>(b, d.sack_ok);
        key(b);
        flag::<S>(b, d.ts_ok);
        key(b);
        opt::<S>(b, d.win_init);
        key(b);
        Fmt::int(b, d.zero_win);
        key(b);
        Fmt::int(b, d.unique_bytes);
        key(b);
        opt::<S>(b, d.first_payload_us);
        key(b);
        opt::<S>(b, d.last_payload_us);
    }
    key(b);
    opt::<S>(b, t.hs_rtt_us);
    key(b);
    S::opt_str(b, t.close);
    key(b);
    S::opt_str(b, t.history());
    key(b);
    S::opt_str(b, t.conn_state);
}

/// The `splt_*` and `atoz_*` fields (when `features`), then `stats_*`: JSON (arrays, null for
/// undefined) or CSV (space-separated lists, empty for undefined).
pub(crate) fn early_fields<S: Syntax>(b: &mut Vec<u8>, r: &FlowRecord<'_>, features: bool) {
    if features {
        feature_fields(b, r, S::JSON);
    }
    // The model did not run: all three absent.
    let ran = !r.stats_app.is_empty();
    for (name, v) in [
        (&b"stats_app"[..], r.stats_app),
        (b"stats_class", r.stats_class),
    ] {
        b.push(b',');
        if S::JSON {
            b.push(b'"');
            b.extend_from_slice(name);
            b.extend_from_slice(b"\":");
        }
        S::opt_str(b, v);
    }
    b.push(b',');
    if S::JSON {
        b.extend_from_slice(b"\"stats_score\":");
    }
    if ran {
        Fmt::conf(b, r.stats_score);
    } else {
        S::null(b);
    }
}

pub(crate) fn feature_fields(b: &mut Vec<u8>, r: &FlowRecord<'_>, json: bool) {
    use wirespeed_stats::SizeMode;
    let e = &r.early;
    let n = e.len();
    let sep = if json { b',' } else { b' ' };
    for (li, name) in [
        &b"splt_ip"[..],
        b"splt_payload",
        b"splt_iat_us",
        b"splt_flags",
    ]
    .iter()
    .enumerate()
    {
        b.push(b',');
        if json {
            b.push(b'"');
            b.extend_from_slice(name);
            b.extend_from_slice(b"\":[");
        }
        let k = if li == 2 { n.saturating_sub(1) } else { n };
        for i in 0..k {
            if i > 0 {
                b.push(sep);
            }
            match li {
                0 => Fmt::int(b, e.signed(i, SizeMode::Ip)),
                1 => Fmt::int(b, e.signed(i, SizeMode::Payload)),
                2 => Fmt::int(b, e.iat_us[i]),
                _ => Fmt::int(b, e.flags[i]),
            }
        }
        if json {
            b.push(b']');
        }
    }
    let f = e.atoz(r.l4, r.dst_port);
    for (name, v) in wirespeed_stats::ATOZ_NAMES.iter().zip(f) {
        b.push(b',');
        if json {
            b.push(b'"');
            b.extend_from_slice(name.as_bytes());
            b.extend_from_slice(b"\":");
        }
        if (0.0..1e15).contains(&v) {
            // Two decimals by integer formatting (no float formatter on the record path).
            let h = (v as f64 * 100.0).round() as u64;
            Fmt::int(b, h / 100);
            if !h.is_multiple_of(100) {
                b.push(b'.');
                b.push(b'0' + (h % 100 / 10) as u8);
                b.push(b'0' + (h % 10) as u8);
            }
        } else if json {
            b.extend_from_slice(b"null");
        }
    }
}

/// JSON string escaping (RFC 8259): quotes, backslash and control characters.
pub(crate) fn json_str(buf: &mut Vec<u8>, s: &str) {
    buf.push(b'"');
    json_esc(buf, s);
    buf.push(b'"');
}

/// The inside of a JSON string (no quotes).
#[inline]
pub(crate) fn json_esc(buf: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    // Fast path: labels and names almost never need escaping.
    if !needs_escape(bytes) {
        buf.extend_from_slice(bytes);
        return;
    }
    json_esc_slow(buf, bytes);
}

/// Does `b` hold a byte JSON escapes (a control character, `"` or `\`)? Eight bytes at a time:
/// for a word `w`, `(w - k·0x01…01) & !w & 0x80…80` is non-zero exactly when some byte of `w`
/// is below `k` (k ≤ 0x80); a byte equal to `c` is a zero byte of `w ^ c·0x01…01`. The answer
/// is exact, not a filter (the test `escape_scan_agrees_with_the_bytewise_test` holds it to the
/// byte-by-byte definition).
#[inline]
fn needs_escape(b: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let below = |w: u64, k: u64| w.wrapping_sub(k * ONES) & !w & HIGH != 0;
    let mut words = b.chunks_exact(8);
    for c in &mut words {
        let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        if below(w, 0x20)
            || below(w ^ (u64::from(b'"') * ONES), 1)
            || below(w ^ (u64::from(b'\\') * ONES), 1)
        {
            return true;
        }
    }
    words
        .remainder()
        .iter()
        .any(|&c| c < 0x20 || c == b'"' || c == b'\\')
}

#[cold]
pub(crate) fn json_esc_slow(buf: &mut Vec<u8>, bytes: &[u8]) {
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let esc: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0..=0x1f => b"",
            _ => continue,
        };
        buf.extend_from_slice(&bytes[start..i]);
        if esc.is_empty() {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            buf.extend_from_slice(b"\\u00");
            buf.push(HEX[(b >> 4) as usize]);
            buf.push(HEX[(b & 15) as usize]);
        } else {
            buf.extend_from_slice(esc);
        }
        start = i + 1;
    }
    buf.extend_from_slice(&bytes[start..]);
}

/// JSON lines (RFC 8259 strings).
pub(crate) struct Json;

impl Syntax for Json {
    const JSON: bool = true;
    const OPEN: &'static [u8] = b"{";
    const CLOSE: &'static [u8] = b"}\n";

    #[inline]
    fn str(b: &mut Vec<u8>, s: &str) {
        json_str(b, s);
    }

    #[inline]
    fn quoted(b: &mut Vec<u8>, write: impl FnOnce(&mut Vec<u8>)) {
        b.push(b'"');
        write(b);
        b.push(b'"');
    }

    #[inline]
    fn proto(b: &mut Vec<u8>, master: &str, app: Option<&str>) {
        b.push(b'"');
        json_esc(b, master);
        if let Some(a) = app {
            b.push(b'.');
            json_esc(b, a);
        }
        b.push(b'"');
    }
}

/// CSV field (RFC 4180): quoted when it holds a comma, quote, CR or LF; quotes doubled.
pub(crate) fn csv_str(buf: &mut Vec<u8>, s: &str) {
    if !s.bytes().any(|b| matches!(b, b',' | b'"' | b'\n' | b'\r')) {
        buf.extend_from_slice(s.as_bytes());
        return;
    }
    buf.push(b'"');
    for b in s.bytes() {
        if b == b'"' {
            buf.push(b'"');
        }
        buf.push(b);
    }
    buf.push(b'"');
}

/// CSV (RFC 4180 fields).
pub(crate) struct Csv;

impl Syntax for Csv {
    const JSON: bool = false;
    const OPEN: &'static [u8] = b"";
    const CLOSE: &'static [u8] = b"\n";

    #[inline]
    fn str(b: &mut Vec<u8>, s: &str) {
        csv_str(b, s);
    }

    #[inline]
    fn quoted(b: &mut Vec<u8>, write: impl FnOnce(&mut Vec<u8>)) {
        write(b);
    }

    #[inline]
    fn proto(b: &mut Vec<u8>, master: &str, app: Option<&str>) {
        match app {
            Some(a) => csv_pair(b, master, a),
            None => csv_str(b, master),
        }
    }
}

/// `MASTER.APP` as one CSV field, quoted when either part needs it (no `String` per record).
pub(crate) fn csv_pair(buf: &mut Vec<u8>, m: &str, a: &str) {
    let special = |s: &str| s.bytes().any(|b| matches!(b, b',' | b'"' | b'\n' | b'\r'));
    if !special(m) && !special(a) {
        buf.extend_from_slice(m.as_bytes());
        buf.push(b'.');
        buf.extend_from_slice(a.as_bytes());
        return;
    }
    buf.push(b'"');
    for b in m.bytes().chain(std::iter::once(b'.')).chain(a.bytes()) {
        if b == b'"' {
            buf.push(b'"');
        }
        buf.push(b);
    }
    buf.push(b'"');
}

#[cfg(test)]
mod tests {
    use crate::format::{self, Columns};
    use crate::{
        ActFields, DirDist, DirTcp, DistFields, FlowRecord, TcpFields, HISTORY_MAX, META_COUNT,
    };
    use proptest::prelude::*;
    use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
    use wirespeed_classify::{LabelId, Labels, Method};
    use wirespeed_flow::EndReason;
    use wirespeed_risk::RiskSet;

    /// Text a packet could carry: empty, plain, any character, every byte that JSON escapes or
    /// CSV quotes, long.
    fn text() -> BoxedStrategy<String> {
        prop_oneof![
            3 => Just(String::new()),
            3 => "[a-z.]{1,12}",
            1 => "\\PC{0,40}",
            1 => "[\\x00-\\x7f]{0,40}",
            1 => "[,\"\n\r\t\\\\;a]{1,8}",
            1 => "[ -~]{20,300}",
        ]
        .boxed()
    }

    /// A label's name: what a registry takes (not empty, no control character), quotes,
    /// backslashes, commas and points included.
    fn name() -> BoxedStrategy<String> {
        prop_oneof!["[A-Za-z]{1,10}", "[A-Za-z\",\\\\. é]{1,10}", "Unknown"].boxed()
    }

    fn ip() -> BoxedStrategy<IpAddr> {
        let group = prop_oneof![Just(0u16), Just(0xffff), 1u16..16, any::<u16>()];
        prop_oneof![
            any::<u32>().prop_map(|a| IpAddr::V4(Ipv4Addr::from(a))),
            proptest::array::uniform8(group).prop_map(|g| IpAddr::V6(Ipv6Addr::from(g))),
            any::<u32>().prop_map(|a| IpAddr::V6(Ipv4Addr::from(a).to_ipv6_mapped())),
        ]
        .boxed()
    }

    fn num() -> BoxedStrategy<u64> {
        prop_oneof![any::<u64>(), 0u64..1000, Just(u64::MAX), Just(0)].boxed()
    }

    fn float() -> BoxedStrategy<f64> {
        prop_oneof![
            any::<f64>(),
            0.0..1e6,
            Just(0.0),
            Just(f64::NAN),
            Just(1e300)
        ]
        .boxed()
    }

    fn method() -> BoxedStrategy<Method> {
        prop::sample::select(vec![
            Method::Port,
            Method::Ip,
            Method::Dpt,
            Method::DnsCache,
            Method::Stats,
            Method::Dpi,
            Method::HostCache,
        ])
        .boxed()
    }

    fn dir_dist() -> BoxedStrategy<DirDist> {
        (
            prop_oneof![Just(0u64), Just(1), any::<u64>()],
            any::<u32>(),
            float(),
            any::<u32>(),
            float(),
            prop_oneof![Just(0u64), any::<u64>()],
            proptest::array::uniform4(float()),
            proptest::array::uniform8(any::<u32>()),
        )
            .prop_map(
                |(packets, size_min, size_mean, size_max, size_std, gaps, g, flags)| DirDist {
                    packets,
                    size_min,
                    size_mean,
                    size_max,
                    size_std,
                    gaps,
                    gap_min_us: g[0],
                    gap_mean_us: g[1],
                    gap_max_us: g[2],
                    gap_std_us: g[3],
                    flags,
                },
            )
            .boxed()
    }

    fn dir_tcp() -> BoxedStrategy<DirTcp> {
        (
            (any::<u32>(), num(), any::<u32>(), any::<u32>()),
            (
                prop_oneof![Just(0u32), any::<u32>()],
                any::<u32>(),
                float(),
                any::<u32>(),
                float(),
            ),
            (
                any::<Option<(u8, u8)>>(),
                any::<Option<u16>>(),
                any::<Option<u8>>(),
                any::<Option<bool>>(),
                any::<Option<bool>>(),
                any::<Option<u16>>(),
            ),
            (
                any::<u32>(),
                num(),
                any::<Option<u64>>(),
                any::<Option<u64>>(),
            ),
        )
            .prop_map(|(a, b, c, d)| DirTcp {
                retrans: a.0,
                retrans_bytes: a.1,
                ooo: a.2,
                dup: a.3,
                rtt_n: b.0,
                rtt_min_us: b.1,
                rtt_mean_us: b.2,
                rtt_max_us: b.3,
                rtt_std_us: b.4,
                ttl: c.0,
                mss: c.1,
                wscale: c.2,
                sack_ok: c.3,
                ts_ok: c.4,
                win_init: c.5,
                zero_win: d.0,
                unique_bytes: d.1,
                first_payload_us: d.2,
                last_payload_us: d.3,
            })
            .boxed()
    }

    /// Zeek's names, and hostile ones (the fields are `&'static str`).
    const STATIC_TEXT: [&str; 5] = ["", "client_fin", "SF", "a\"b,c", "x\ny\\"];

    fn tcp() -> BoxedStrategy<TcpFields> {
        (
            dir_tcp(),
            dir_tcp(),
            any::<Option<u64>>(),
            prop::sample::select(&STATIC_TEXT[..]),
            proptest::array::uniform20(prop_oneof![
                Just(b'S'),
                Just(b'h'),
                Just(b'"'),
                any::<u8>()
            ]),
            any::<u8>(),
            prop::sample::select(&STATIC_TEXT[..]),
        )
            .prop_map(
                |(c2s, s2c, hs_rtt_us, close, history, history_len, conn_state)| TcpFields {
                    c2s,
                    s2c,
                    hs_rtt_us,
                    close,
                    history,
                    history_len: history_len % (HISTORY_MAX as u8 + 4),
                    conn_state,
                },
            )
            .boxed()
    }

    fn early() -> BoxedStrategy<wirespeed_stats::Early> {
        proptest::collection::vec(
            (
                any::<bool>(),
                any::<u16>(),
                any::<u32>(),
                any::<u8>(),
                num(),
            ),
            0..7,
        )
        .prop_map(|pkts| {
            let mut e = wirespeed_stats::Early::default();
            for (s2c, ip, pl, fl, gap) in pkts {
                e.push(s2c, ip, pl % 3000, fl, gap);
            }
            e
        })
        .boxed()
    }

    /// End reason, label, owner, method, confidence, time to bind (packets, µs), first-packet
    /// label and method.
    type Verdict = (
        EndReason,
        u16,
        String,
        Option<Method>,
        f32,
        u32,
        u64,
        Option<(u16, Method)>,
    );

    /// A record's values, owned; [`Case::record`] borrows them.
    #[derive(Debug, Clone)]
    struct Case {
        labels: Vec<(String, String, String)>,
        cols: [bool; 7],
        source: (Option<String>, Option<String>),
        ids: (u64, IpAddr, u16, IpAddr, u16, u8, u16),
        tunnel: (String, Option<u64>),
        times: (u64, u64),
        counters: [u64; 4],
        verdict: Verdict,
        early: wirespeed_stats::Early,
        stats: (String, String, f32),
        meta: Vec<String>,
        act: Option<(String, String, u64, u64, bool)>,
        dist: Option<DistFields>,
        tcp: Option<TcpFields>,
        risks: (u64, bool),
    }

    fn case() -> BoxedStrategy<Case> {
        let meta = proptest::collection::vec(
            prop_oneof![8 => Just(String::new()), 1 => text(), 1 => "0{0,3}[0-9]{0,12}"],
            META_COUNT,
        );
        (
            (
                proptest::collection::vec((name(), name(), name()), 0..4),
                any::<[bool; 7]>(),
                (proptest::option::of(text()), proptest::option::of(text())),
                (
                    num(),
                    ip(),
                    any::<u16>(),
                    ip(),
                    any::<u16>(),
                    prop_oneof![
                        Just(6u8),
                        Just(17),
                        Just(1),
                        Just(58),
                        Just(132),
                        any::<u8>()
                    ],
                    // The VLAN: none (most records, written with the tunnel as one text) or any.
                    prop_oneof![Just(0u16), any::<u16>()],
                ),
                (text(), any::<Option<u64>>()),
                prop_oneof![
                    (num(), num()),
                    // A flow's times: within seconds, minutes or hours of each other.
                    (
                        1_000_000_000_000_000_000u64..9_999_000_000_000_000_000,
                        prop_oneof![0u64..2_000_000_000, 0u64..10_000_000_000_000]
                    )
                        .prop_map(|(a, d)| (a, a + d)),
                    // Within a microsecond (a flow of one packet, or of two at once), either way.
                    (num(), 0u64..1000, any::<bool>()).prop_map(|(a, d, up)| if up {
                        (a, a.saturating_add(d))
                    } else {
                        (a, a.saturating_sub(d))
                    }),
                ],
                proptest::array::uniform4(num()),
            ),
            (
                (
                    prop::sample::select(vec![
                        EndReason::Idle,
                        EndReason::Fin,
                        EndReason::Rst,
                        EndReason::Evicted,
                        EndReason::EndOfInput,
                        EndReason::Active,
                    ]),
                    0u16..6,
                    text(),
                    proptest::option::of(method()),
                    any::<f32>(),
                    any::<u32>(),
                    num(),
                    proptest::option::of((0u16..6, method())),
                ),
                early(),
                (text(), text(), any::<f32>()),
                meta,
                proptest::option::of((text(), text(), num(), num(), any::<bool>())),
                proptest::option::of(
                    (dir_dist(), dir_dist()).prop_map(|(c2s, s2c)| DistFields { c2s, s2c }),
                ),
                proptest::option::of(tcp()),
                (any::<u64>(), any::<bool>()),
            ),
        )
            .prop_map(|(a, b)| Case {
                labels: a.0,
                cols: a.1,
                source: a.2,
                ids: a.3,
                tunnel: a.4,
                times: a.5,
                counters: a.6,
                verdict: b.0,
                early: b.1,
                stats: b.2,
                meta: b.3,
                act: b.4,
                dist: b.5,
                tcp: b.6,
                risks: b.7,
            })
            .boxed()
    }

    impl Case {
        fn registry(&self) -> Labels {
            let mut l = Labels::new();
            for (m, a, c) in &self.labels {
                l.intern(m, a, c, Default::default()).unwrap();
            }
            l
        }

        fn columns(&self) -> Columns {
            let c = self.cols;
            Columns {
                with_source: c[0],
                features: c[1],
                community: c[2],
                action: c[3],
                dist: c[4],
                tcp: c[5],
                tunnel_parent: c[6],
                keep: None,
            }
        }

        fn record<'a>(&'a self, labels: &'a Labels) -> FlowRecord<'a> {
            let (flow_id, src_ip, src_port, dst_ip, dst_port, l4, vlan) = self.ids;
            let v = &self.verdict;
            let mut meta = [""; META_COUNT];
            for (m, s) in meta.iter_mut().zip(&self.meta) {
                *m = s;
            }
            FlowRecord {
                source: self.source.0.as_deref(),
                pcap: self.source.1.as_deref(),
                flow_id,
                src_ip,
                src_port,
                dst_ip,
                dst_port,
                l4,
                vlan,
                tunnel: &self.tunnel.0,
                tunnel_parent: self.tunnel.1,
                first_ts_ns: self.times.0,
                last_ts_ns: self.times.1,
                c2s_pkts: self.counters[0],
                c2s_bytes: self.counters[1],
                s2c_pkts: self.counters[2],
                s2c_bytes: self.counters[3],
                end_reason: v.0,
                label: LabelId(v.1),
                labels,
                ip_owner: &v.2,
                method: v.3,
                confidence: v.4,
                ttb_pkts: v.5,
                ttb_us: v.6,
                fpc: v.7.map(|(l, m)| (LabelId(l), m)),
                early: self.early,
                stats_app: &self.stats.0,
                stats_class: &self.stats.1,
                stats_score: self.stats.2,
                meta,
                act: self.act.as_ref().map(|a| ActFields {
                    rule: &a.0,
                    action: &a.1,
                    dropped_pkts: a.2,
                    dropped_bytes: a.3,
                    bound: a.4,
                }),
                dist: self.dist,
                tcp: self.tcp,
                risks: if self.risks.1 {
                    RiskSet::from_bits(self.risks.0)
                } else {
                    RiskSet::EMPTY
                },
                encrypted: self.risks.0 & 1 != 0,
            }
        }
    }

    /// A record as the writers write it: the copy of the code for its columns' groups, the last
    /// time's digits kept in `digits`.
    fn writers_way<S: format::Syntax>(
        b: &mut Vec<u8>,
        r: &FlowRecord<'_>,
        cols: &Columns,
        digits: &mut crate::out::TsDigits,
    ) {
        if cols.groups() {
            format::record_with::<S, true>(b, r, cols, digits);
        } else {
            format::record_with::<S, false>(b, r, cols, digits);
        }
    }

    /// Both formats' bytes for `records` (each with its columns) written one after the other
    /// by the writers and by the reference; and each record's length against its reservation.
    fn both(records: &[(FlowRecord<'_>, Columns)]) {
        for json in [true, false] {
            let (mut new, mut old) = (b"prefix".to_vec(), b"prefix".to_vec());
            // The writers' way: the last time's digits kept from record to record.
            let (mut kept, mut digits) = (b"prefix".to_vec(), crate::out::TsDigits::default());
            for (r, cols) in records {
                let at = new.len();
                if json {
                    writers_way::<crate::json::Json>(&mut kept, r, cols, &mut digits);
                    format::record::<crate::json::Json>(&mut new, r, cols);
                    super::record::<super::Json>(&mut old, r, cols);
                    assert!(new.len() - at <= format::record_bound::<crate::json::Json>(r, cols));
                } else {
                    writers_way::<crate::csv::Csv>(&mut kept, r, cols, &mut digits);
                    format::record::<crate::csv::Csv>(&mut new, r, cols);
                    super::record::<super::Csv>(&mut old, r, cols);
                    assert!(new.len() - at <= format::record_bound::<crate::csv::Csv>(r, cols));
                }
            }
            assert_eq!(
                String::from_utf8_lossy(&new),
                String::from_utf8_lossy(&old),
                "json {json}"
            );
            assert_eq!(new, old, "bytes, json {json}");
            assert_eq!(kept, old, "bytes with the digits kept, json {json}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1000))]

        /// The writers write, byte for byte, what the writers before the rewrite wrote, for
        /// any records and any columns (and within their reservation: test builds check every
        /// append's room).
        #[test]
        fn writers_match_the_reference(cases in proptest::collection::vec(case(), 1..4)) {
            let labels: Vec<Labels> = cases.iter().map(Case::registry).collect();
            let records: Vec<(FlowRecord<'_>, Columns)> = cases
                .iter()
                .zip(&labels)
                .map(|(c, l)| (c.record(l), c.columns()))
                .collect();
            both(&records);
        }
    }

    /// The largest record: every column, every string as long as the generators make them and
    /// of bytes JSON writes as `\u00XX` (six each), every risk, the longest numbers and
    /// addresses, every metadata field set.
    #[test]
    fn the_largest_record_fits_its_reservation() {
        let ctl = "\u{1}".repeat(300);
        let mut labels = Labels::new();
        let q = "\"".repeat(200);
        labels.intern(&q, &q, &q, Default::default()).unwrap();
        let c = Case {
            labels: vec![],
            cols: [true; 7],
            source: (Some(ctl.clone()), Some(ctl.clone())),
            ids: (
                u64::MAX,
                IpAddr::V6(Ipv6Addr::from([0xffff; 8])),
                u16::MAX,
                IpAddr::V6(Ipv6Addr::from([0xfff0; 8])),
                u16::MAX,
                132,
                u16::MAX,
            ),
            tunnel: (ctl.clone(), Some(u64::MAX)),
            times: (0, u64::MAX),
            counters: [u64::MAX; 4],
            verdict: (
                EndReason::Evicted,
                1,
                ctl.clone(),
                Some(Method::HostCache),
                1.0,
                u32::MAX,
                u64::MAX,
                Some((1, Method::HostCache)),
            ),
            early: {
                let mut e = wirespeed_stats::Early::default();
                for i in 0..5 {
                    e.push(i % 2 == 1, u16::MAX, u32::MAX, 0xff, u64::MAX);
                }
                e
            },
            stats: (ctl.clone(), ctl.clone(), 1.0),
            meta: vec![ctl.clone(); META_COUNT],
            act: Some((ctl.clone(), ctl.clone(), u64::MAX, u64::MAX, true)),
            dist: Some(DistFields {
                c2s: DirDist {
                    packets: 1,
                    size_min: u32::MAX,
                    size_mean: 1e300,
                    size_max: u32::MAX,
                    size_std: 1e300,
                    gaps: 1,
                    gap_min_us: 1e300,
                    gap_mean_us: 1e300,
                    gap_max_us: 1e300,
                    gap_std_us: 1e300,
                    flags: [u32::MAX; 8],
                },
                s2c: DirDist::default(),
            }),
            tcp: Some(TcpFields {
                c2s: DirTcp {
                    retrans: u32::MAX,
                    retrans_bytes: u64::MAX,
                    rtt_n: u32::MAX,
                    rtt_mean_us: 1e300,
                    rtt_std_us: 1e300,
                    unique_bytes: u64::MAX,
                    first_payload_us: Some(u64::MAX),
                    last_payload_us: Some(u64::MAX),
                    ..DirTcp::default()
                },
                s2c: DirTcp::default(),
                hs_rtt_us: Some(u64::MAX),
                close: STATIC_TEXT[4],
                history: [b'"'; HISTORY_MAX],
                history_len: HISTORY_MAX as u8,
                conn_state: STATIC_TEXT[3],
            }),
            risks: (u64::MAX, true),
        };
        let r = c.record(&labels);
        assert_eq!(r.label_names().app(), q);
        both(&[(r, c.columns())]);
    }

    /// The digits kept from record to record: times in the 100 seconds of the one before,
    /// in others, and short ones, each flow of one microsecond and of seconds.
    #[test]
    fn kept_digits_follow_the_times() {
        let labels = crate::tests::labels();
        let starts = [
            1_600_000_000_123_456_789u64,
            1_600_000_050_000_000_000,
            1_600_000_200_999_999_999,
            1_600_000_000_000_000_000,
            5,
            1_600_000_099_999_999_999,
        ];
        let records: Vec<(FlowRecord<'_>, Columns)> = starts
            .iter()
            .flat_map(|&t| [(t, t + 999), (t, t + 7_000_000_000)])
            .map(|(first, last)| {
                let mut r = crate::tests::rec(&labels);
                r.first_ts_ns = first;
                r.last_ts_ns = last;
                (r, Columns::default())
            })
            .collect();
        both(&records);
    }
}
