//! What JSON lines and CSV share: number and address formatting, the one walk over a record's
//! fields in [`crate::FIELDS`] order ([`record`]), parameterised by the format's [`Syntax`].

use crate::{l4_name, FlowRecord, META_COUNT, META_JSON_KEYS, META_JSON_NULLS, NUMERIC_META};
use std::io::{self, Write};
use std::net::IpAddr;
use wirespeed_classify::{LabelEntry, Method};

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

/// nDPI's "MASTER.APP" form (just "APP" when both are the same).
pub(crate) fn proto_label(l: &LabelEntry) -> (&str, Option<&str>) {
    let (master, app) = (l.master(), l.app());
    if master.is_empty() || master == app || master == "Unknown" {
        (app, None)
    } else {
        (master, Some(app))
    }
}

pub(crate) const FLUSH_AT: usize = 1 << 16;

/// Hand the buffered records to `out` once there are at least `at` bytes of them.
pub(crate) fn flush_at<W: Write>(out: &mut W, buf: &mut Vec<u8>, at: usize) -> io::Result<()> {
    if buf.len() >= at {
        out.write_all(buf)?;
        buf.clear();
    }
    Ok(())
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

/// Which optional groups of fields a writer adds to every record (all off by default).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Columns {
    /// `source` and `pcap`, first (set by the writer's constructor).
    pub with_source: bool,
    /// [`crate::FEATURE_FIELDS`].
    pub features: bool,
    /// [`crate::COMMUNITY_FIELD`].
    pub community: bool,
    /// [`crate::ACT_FIELDS`].
    pub action: bool,
    /// [`crate::DIST_FIELDS`].
    pub dist: bool,
    /// [`crate::TCP_FIELDS`].
    pub tcp: bool,
    /// [`crate::TUNNEL_PARENT_FIELD`] (`--tunnels both`).
    pub tunnel_parent: bool,
}

impl Columns {
    /// Is `field` (a name of [`crate::FIELDS`]) written?
    pub fn writes(&self, field: &str) -> bool {
        (self.features || !crate::FEATURE_FIELDS.contains(&field))
            && (self.community || field != crate::COMMUNITY_FIELD)
            && (self.action || !crate::ACT_FIELDS.contains(&field))
            && (self.dist || !crate::DIST_FIELDS.contains(&field))
            && (self.tcp || !crate::TCP_FIELDS.contains(&field))
            && (self.tunnel_parent || field != crate::TUNNEL_PARENT_FIELD)
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
            b.extend_from_slice(META_JSON_NULLS.as_bytes());
        } else {
            b.extend_from_slice(&[b','; META_COUNT]);
        }
    } else {
        for (i, v) in r.meta.iter().enumerate() {
            if S::JSON {
                b.extend_from_slice(META_JSON_KEYS[i].as_bytes());
            } else {
                b.push(b',');
            }
            if NUMERIC_META & (1 << i) != 0 {
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

#[cfg(test)]
mod fmt_tests {
    use super::Fmt;
    use proptest::prelude::*;

    proptest! {
        /// Seconds, a point and six decimals of microseconds (truncated), as `format!` writes them.
        #[test]
        fn timestamps_are_seconds_and_six_decimals(ns in any::<u64>()) {
            let mut b = Vec::new();
            Fmt::ts(&mut b, ns);
            let want = format!("{}.{:06}", ns / 1_000_000_000, ns % 1_000_000_000 / 1000);
            prop_assert_eq!(String::from_utf8(b).unwrap(), want);
        }

        /// Two decimals, rounded half away from zero, of the value clamped to [0, 1].
        #[test]
        fn confidences_have_two_decimals(c in any::<f32>()) {
            let mut b = Vec::new();
            Fmt::conf(&mut b, c);
            let v = if c.is_finite() { c.clamp(0.0, 1.0) } else { 0.0 };
            let want = format!("{:.2}", (f64::from(v * 100.0)).round() / 100.0 + 0.0);
            prop_assert_eq!(String::from_utf8(b).unwrap(), want);
        }
    }
}
