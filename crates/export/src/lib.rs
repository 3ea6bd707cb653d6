//! Flow records and the sinks that write them.
//!
//! [`FlowRecord`] is one finished flow, with borrowed strings. [`JsonLinesWriter`] and
//! [`CsvWriter`] format it by hand into a reusable buffer: at worst-case rates the engine ends
//! three million flows a second, and a generic serializer would cost more than the rest of the
//! pipeline. Both escape every string (flow metadata comes from hostile packets). The schema —
//! field names, types and meaning — is documented in `docs/SCHEMA.md` and listed in [`FIELDS`].
// `unsafe` only where the record writers append without a check per append (`out`, `format`).
#![deny(unsafe_code)]
#![deny(missing_docs)]

#[cfg(feature = "arrow")]
pub mod arrow;
mod community;
mod csv;
pub mod events;
mod format;
pub mod ipfix;
mod json;
#[cfg(feature = "kafka")]
pub mod kafka;
mod out;
#[cfg(feature = "parquet")]
pub mod parquet;
#[cfg(test)]
mod reference;
mod select;
pub mod shared;

pub use community::community_id;
pub use csv::CsvWriter;
pub use format::{Columns, Keep};
pub use json::JsonLinesWriter;

use std::io;
use std::net::IpAddr;
use wirespeed_classify::{LabelEntry, LabelId, Labels, Method};
use wirespeed_flow::EndReason;
use wirespeed_risk::RiskSet;

/// One finished flow, typed: the verdict is a label id with the run's registry to name it, the
/// method and end reason are enums, metadata is indexed by field id. Sinks format it (names for
/// JSON and CSV; ids for the sinks that key by them). `src` is the client.
#[derive(Clone, Debug)]
pub struct FlowRecord<'a> {
    /// The input file as given on the command line (written when several inputs are given).
    pub source: Option<&'a str>,
    /// The input file's base name (written with `source`; what nDPI's test suite keys on).
    pub pcap: Option<&'a str>,
    /// The flow's id, unique within the run: an interim record (`end_reason` `active`) and the
    /// flow's final record share it.
    pub flow_id: u64,
    /// Client address.
    pub src_ip: IpAddr,
    /// Client port (0 when the transport has none).
    pub src_port: u16,
    /// Server address.
    pub dst_ip: IpAddr,
    /// Server port.
    pub dst_port: u16,
    /// IP protocol number (written as its IANA keyword when it has one we know).
    pub l4: u8,
    /// VLAN id (0 = untagged).
    pub vlan: u16,
    /// Outermost tunnel removed ("" = none).
    pub tunnel: &'a str,
    /// The `flow_id` of the tunnel's outer flow this flow was carried in (`--tunnels both`:
    /// Zeek's `tunnel_parents`); None for a flow in no tunnel, and in the other modes.
    pub tunnel_parent: Option<u64>,
    /// First packet's capture time, ns since the epoch.
    pub first_ts_ns: u64,
    /// Last packet's capture time, ns since the epoch.
    pub last_ts_ns: u64,
    /// Client-to-server packets.
    pub c2s_pkts: u64,
    /// Client-to-server bytes, as captured on the wire (link header included, like nDPI).
    pub c2s_bytes: u64,
    /// Server-to-client packets.
    pub s2c_pkts: u64,
    /// Server-to-client bytes.
    pub s2c_bytes: u64,
    /// Why the flow ended (written as idle, fin, rst, evicted, end).
    pub end_reason: EndReason,
    /// The verdict's label ([`LabelId::UNKNOWN`] when no classifier named the flow): its
    /// application, master protocol and category in `labels`.
    pub label: LabelId,
    /// The run's labels, which name `label`.
    pub labels: &'a Labels,
    /// Who owns the server's address block, else the client's ("" when no list names one).
    pub ip_owner: &'a str,
    /// Which classifier decided (written as port, dpi, stats, host-cache, dpt; "" when none).
    pub method: Option<Method>,
    /// Confidence of the verdict in [0, 1].
    pub confidence: f32,
    /// Packets seen when the verdict was reached (time to bind, in packets; 0 = none).
    pub ttb_pkts: u32,
    /// Microseconds from the first packet to the verdict.
    pub ttb_us: u64,
    /// The label the flow had after its first packet (nDPI's first-packet classification,
    /// `fpc`), and the method that gave it; None when nothing named the flow at packet 1.
    pub fpc: Option<(LabelId, Method)>,
    /// The flow's first packets (sizes, directions, flags, gaps) for `splt_*` and `atoz_*`.
    pub early: wirespeed_stats::Early,
    /// The statistical model's verdict ("" when it did not run, "Unknown" when it abstained).
    pub stats_app: &'a str,
    /// Coarse class of `stats_app` (WEB, MAIL, …; "" when the model did not run).
    pub stats_class: &'a str,
    /// Confidence of the statistical verdict in [0, 1].
    pub stats_score: f32,
    /// Payload metadata ("" = not seen), indexed by field id (`wirespeed_dpi::Field as usize`)
    /// and named by [`META_FIELDS`] in the same order.
    pub meta: [&'a str; META_COUNT],
    /// What an inline run did to the flow (`wirespeed inline`); None elsewhere.
    pub act: Option<ActFields<'a>>,
    /// Whole-flow distributions per direction (`--stats dist`); None when not computed.
    pub dist: Option<DistFields>,
    /// The TCP analysis (`--stats tcp`), for a TCP flow of a run that asked for it.
    pub tcp: Option<TcpFields>,
    /// nDPI's flow risks.
    pub risks: RiskSet,
    /// Is the flow's protocol an encrypted one (nDPI's `encrypted`)?
    pub encrypted: bool,
}

/// One direction's TCP analysis (its sender's segments; RTT samples are of its segments, timed
/// from the segment to the other side's ACK as seen at the capture point).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DirTcp {
    /// Retransmitted segments (fast retransmissions and duplicates included).
    pub retrans: u32,
    /// Their payload bytes.
    pub retrans_bytes: u64,
    /// Out-of-order segments.
    pub ooo: u32,
    /// Duplicate segments: all their data was already acknowledged (tshark's spurious
    /// retransmissions).
    pub dup: u32,
    /// RTT samples (Karn's rule: none from a segment sent more than once).
    pub rtt_n: u32,
    /// Smallest sample, µs.
    pub rtt_min_us: u32,
    /// Mean of the samples, µs.
    pub rtt_mean_us: f64,
    /// Largest sample, µs.
    pub rtt_max_us: u32,
    /// Population standard deviation of the samples, µs.
    pub rtt_std_us: f64,
    /// Smallest and largest IP TTL (hop limit).
    pub ttl: Option<(u8, u8)>,
    /// MSS option of this side's SYN.
    pub mss: Option<u16>,
    /// Window scale option of this side's SYN.
    pub wscale: Option<u8>,
    /// SACK permitted in this side's SYN (absent without a SYN).
    pub sack_ok: Option<bool>,
    /// Timestamps option in this side's SYN (absent without a SYN).
    pub ts_ok: Option<bool>,
    /// The window field of this side's first segment (unscaled, as on the wire).
    pub win_init: Option<u16>,
    /// Segments advertising a zero window (SYN, FIN and RST aside).
    pub zero_win: u32,
    /// Payload bytes sent once: every segment's but a retransmission's, of which only what lies
    /// past the highest sequence number seen before counts.
    pub unique_bytes: u64,
    /// First payload's time, µs after the flow's first packet.
    pub first_payload_us: Option<u64>,
    /// Last payload's time, µs after the flow's first packet.
    pub last_payload_us: Option<u64>,
}

/// Longest Zeek history string kept.
pub const HISTORY_MAX: usize = 20;

/// A TCP flow's analysis ([`TCP_FIELDS`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TcpFields {
    /// The client's segments.
    pub c2s: DirTcp,
    /// The server's segments.
    pub s2c: DirTcp,
    /// The handshake's RTT: the client's SYN to its ACK of the server's SYN-ACK, µs.
    pub hs_rtt_us: Option<u64>,
    /// Who closed first: `client_fin`, `server_fin`, `client_rst`, `server_rst`, or "".
    pub close: &'static str,
    /// Zeek's history letters (the first `history_len` bytes, ASCII).
    pub history: [u8; HISTORY_MAX],
    /// How many letters `history` holds.
    pub history_len: u8,
    /// Zeek's `conn_state` (`S0`, `S1`, `SF`, `REJ`, `S2`, `S3`, `RSTO`, `RSTR`, `RSTOS0`,
    /// `RSTRH`, `SH`, `SHR`, `OTH`).
    pub conn_state: &'static str,
}

impl TcpFields {
    /// The history as text.
    pub fn history(&self) -> &str {
        let n = usize::from(self.history_len).min(HISTORY_MAX);
        std::str::from_utf8(&self.history[..n]).unwrap_or("")
    }
}

/// One direction's whole-flow distributions ([`FlowRecord::dist`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DirDist {
    /// Packets counted.
    pub packets: u64,
    /// Smallest IP length.
    pub size_min: u32,
    /// Mean IP length.
    pub size_mean: f64,
    /// Largest IP length.
    pub size_max: u32,
    /// Population standard deviation of the IP length.
    pub size_std: f64,
    /// Gaps between consecutive packets of this direction (packets − 1).
    pub gaps: u64,
    /// Smallest gap, µs.
    pub gap_min_us: f64,
    /// Mean gap, µs.
    pub gap_mean_us: f64,
    /// Largest gap, µs.
    pub gap_max_us: f64,
    /// Population standard deviation of the gaps, µs.
    pub gap_std_us: f64,
    /// Packets with SYN, FIN, RST, PSH, ACK, URG, ECE, CWR set (TCP).
    pub flags: [u32; 8],
}

/// Both directions' distributions: the client's packets, the server's.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DistFields {
    /// Client to server.
    pub c2s: DirDist,
    /// Server to client.
    pub s2c: DirDist,
}

/// What an inline run did to a flow: the rule that decided and its action, what was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ActFields<'a> {
    /// The decision's name: a rule's, `unclassified` or `default`.
    pub rule: &'a str,
    /// Its action: `forward`, `drop`, `mark`, `rate-limit`.
    pub action: &'a str,
    /// Packets of the flow dropped.
    pub dropped_pkts: u64,
    /// Their IP bytes.
    pub dropped_bytes: u64,
    /// The flow was handed to the kernel once its action was final: its later packets did not
    /// come to user space, and the counters stop there.
    pub bound: bool,
}

impl<'a> FlowRecord<'a> {
    /// The verdict's label, by name.
    #[inline]
    pub fn label_names(&self) -> &'a LabelEntry {
        self.labels.get(self.label)
    }
}

/// Number of payload metadata fields.
pub const META_COUNT: usize = 33;

/// Joins lists of names into one array at compile time (`N` is their total length; a wrong `N`
/// fails the build), so each name is written once: the AtoZ names are the statistics crate's.
const fn concat<const N: usize>(parts: &[&[&'static str]]) -> [&'static str; N] {
    let mut out = [""; N];
    let (mut k, mut i) = (0, 0);
    while i < parts.len() {
        let mut j = 0;
        while j < parts[i].len() {
            out[k] = parts[i][j];
            k += 1;
            j += 1;
        }
        i += 1;
    }
    assert!(k == N, "concat: N is not the total length");
    out
}

/// The fields every record has, in order (after `source` and `pcap`, when written): those
/// before [`TUNNEL_PARENT_FIELD`], then [`CORE_TAIL`].
const CORE_FIELDS: [&str; 9] = [
    "flow_id", "src_ip", "src_port", "dst_ip", "dst_port", "l4", "ip_proto", "vlan", "tunnel",
];

/// The fields every record has after `tunnel` (and [`TUNNEL_PARENT_FIELD`], when written).
const CORE_TAIL: [&str; 22] = [
    "first_ts",
    "last_ts",
    "duration",
    "c2s_pkts",
    "c2s_bytes",
    "s2c_pkts",
    "s2c_bytes",
    "end_reason",
    "proto",
    "app",
    "master",
    "category",
    "ip_owner",
    "method",
    "confidence",
    "ttb_pkts",
    "ttb_us",
    "fpc",
    "fpc_method",
    "encrypted",
    "risks",
    "risk_score",
];

/// The first packets' sizes, gaps and flags (feature fields before the AtoZ ones).
const SPLT_FIELDS: [&str; 4] = ["splt_ip", "splt_payload", "splt_iat_us", "splt_flags"];

/// Fields written only with `with_features(true)`: the `splt_*` lists, then the AtoZ features.
pub const FEATURE_FIELDS: &[&str] = &concat::<
    { SPLT_FIELDS.len() + wirespeed_stats::ATOZ_NAMES.len() },
>(&[&SPLT_FIELDS, &wirespeed_stats::ATOZ_NAMES]);

/// The statistical verdict's fields.
const STATS_FIELDS: [&str; 3] = ["stats_app", "stats_class", "stats_score"];

/// Defines the metadata field names once, and from them the JSON text the writer appends whole
/// (every key with `null`, for a record with no metadata, or runs of it).
macro_rules! meta_fields {
    ($($name:literal),* $(,)?) => {
        /// Payload metadata fields (DPI), at the end of the record in this order; in every
        /// record, an unseen one as the format's absent value (`null` in JSON, an empty field
        /// in CSV).
        pub const META_FIELDS: [&str; META_COUNT] = [$($name),*];
        /// Every metadata field absent, in JSON.
        pub(crate) const META_JSON_NULLS: &str = concat!($(",\"", $name, "\":null"),*);
    };
}

meta_fields!(
    "sni",
    "alpn",
    "tls_version",
    "ja3c",
    "ja4",
    "http_method",
    "http_host",
    "url",
    "user_agent",
    "http_status",
    "dns_query",
    "dns_qtype",
    "dns_rcode",
    "quic_version",
    "ssh_client",
    "ssh_server",
    "hassh",
    "dhcp_host",
    "matches",
    "tls_cert_subject",
    "tls_cert_issuer",
    "smtp_from",
    "smtp_rcpt",
    "dns_names",
    "http_upgrade",
    "tls_cipher",
    "http_content_type",
    "http_server",
    "http_flags",
    "tls_flags",
    "dns_flags",
    "payload_flags",
    "tls_cert_names",
);

/// Metadata fields written as numbers (bit i: `META_FIELDS[i]`): `http_status`, `dns_qtype`,
/// `dns_rcode`, `tls_cipher`. Read through [`numeric_meta`].
const NUMERIC_META: u64 = 1 << 9 | 1 << 11 | 1 << 12 | 1 << 25;

// One bit a field: the mask must be wide enough for every field (it was a u32 while the 33rd
// field was added: `1 << 32` overflowed, a panic in debug builds, and in release read bit 0).
const _: () = assert!(META_COUNT <= u64::BITS as usize);

/// Whether metadata field `i` (`META_FIELDS[i]`) is written as a number.
#[inline(always)]
pub(crate) const fn numeric_meta(i: usize) -> bool {
    i < META_COUNT && NUMERIC_META & (1 << i) != 0
}

/// The record's fields in output order (CSV header). `source` and `pcap` come first and only when
/// the writer was built with `with_source`.
pub const FIELDS: &[&str] = &concat::<
    {
        CORE_FIELDS.len()
            + 1
            + CORE_TAIL.len()
            + 1
            + ACT_FIELDS.len()
            + DIST_FIELDS.len()
            + TCP_FIELDS.len()
            + FEATURE_FIELDS.len()
            + STATS_FIELDS.len()
            + META_COUNT
    },
>(&[
    &CORE_FIELDS,
    &[TUNNEL_PARENT_FIELD],
    &CORE_TAIL,
    &[COMMUNITY_FIELD],
    &ACT_FIELDS,
    &DIST_FIELDS,
    &TCP_FIELDS,
    FEATURE_FIELDS,
    &STATS_FIELDS,
    &META_FIELDS,
]);

/// The Community ID field, written only with `with_community_id(true)` ([`community_id`]).
pub const COMMUNITY_FIELD: &str = "community_id";

/// The outer flow's id of a flow carried in a tunnel ([`FlowRecord::tunnel_parent`]), written
/// only with [`Columns::tunnel_parent`] (`--tunnels both`), right after `tunnel`.
pub const TUNNEL_PARENT_FIELD: &str = "tunnel_parent";

/// Whole-flow distributions ([`DistFields`]), written only with `with_dist(true)`, after the
/// inline fields: per direction, packet size (IP length) and inter-arrival min / mean / max /
/// population standard deviation (µs), then the SYN, FIN, RST, PSH, ACK, URG, ECE and CWR counts.
pub const DIST_FIELDS: [&str; 32] = [
    "c2s_ps_min",
    "c2s_ps_mean",
    "c2s_ps_max",
    "c2s_ps_std",
    "c2s_piat_min_us",
    "c2s_piat_mean_us",
    "c2s_piat_max_us",
    "c2s_piat_std_us",
    "c2s_syn",
    "c2s_fin",
    "c2s_rst",
    "c2s_psh",
    "c2s_ack",
    "c2s_urg",
    "c2s_ece",
    "c2s_cwr",
    "s2c_ps_min",
    "s2c_ps_mean",
    "s2c_ps_max",
    "s2c_ps_std",
    "s2c_piat_min_us",
    "s2c_piat_mean_us",
    "s2c_piat_max_us",
    "s2c_piat_std_us",
    "s2c_syn",
    "s2c_fin",
    "s2c_rst",
    "s2c_psh",
    "s2c_ack",
    "s2c_urg",
    "s2c_ece",
    "s2c_cwr",
];

/// The TCP analysis ([`TcpFields`]), written only with `with_tcp(true)`, after the
/// distributions: per direction retransmissions, out-of-order and duplicate segments, RTT
/// samples, TTL range, SYN options, first window, zero windows, unique bytes and payload times;
/// then the handshake's RTT, who closed, Zeek's history and conn_state.
pub const TCP_FIELDS: [&str; 44] = [
    "c2s_retrans",
    "c2s_retrans_bytes",
    "c2s_ooo",
    "c2s_dup",
    "c2s_rtt_n",
    "c2s_rtt_min_us",
    "c2s_rtt_mean_us",
    "c2s_rtt_max_us",
    "c2s_rtt_std_us",
    "c2s_ttl_min",
    "c2s_ttl_max",
    "c2s_mss",
    "c2s_wscale",
    "c2s_sack_ok",
    "c2s_ts_ok",
    "c2s_win_init",
    "c2s_zero_win",
    "c2s_unique_bytes",
    "c2s_first_payload_us",
    "c2s_last_payload_us",
    "s2c_retrans",
    "s2c_retrans_bytes",
    "s2c_ooo",
    "s2c_dup",
    "s2c_rtt_n",
    "s2c_rtt_min_us",
    "s2c_rtt_mean_us",
    "s2c_rtt_max_us",
    "s2c_rtt_std_us",
    "s2c_ttl_min",
    "s2c_ttl_max",
    "s2c_mss",
    "s2c_wscale",
    "s2c_sack_ok",
    "s2c_ts_ok",
    "s2c_win_init",
    "s2c_zero_win",
    "s2c_unique_bytes",
    "s2c_first_payload_us",
    "s2c_last_payload_us",
    "hs_rtt_us",
    "tcp_close",
    "history",
    "conn_state",
];

/// What an inline run did ([`ActFields`]), written only with `with_action(true)`, after
/// `community_id`.
pub const ACT_FIELDS: [&str; 5] = ["rule", "action", "dropped_pkts", "dropped_bytes", "bound"];

/// The keyword of an IP protocol number, if it is one we name — the names nDPI prints, so records
/// compare directly; others are written as numbers.
pub const fn l4_name(proto: u8) -> Option<&'static str> {
    Some(match proto {
        1 => "ICMP",
        2 => "IGMP",
        6 => "TCP",
        17 => "UDP",
        47 => "GRE",
        50 => "ESP",
        51 => "AH",
        58 => "ICMPV6",
        89 => "OSPF",
        112 => "VRRP",
        113 => "PGM",
        132 => "SCTP",
        _ => return None,
    })
}

/// A sink for flow records.
pub trait RecordSink {
    /// Write one record.
    fn write(&mut self, r: &FlowRecord<'_>) -> io::Result<()>;
    /// Write anything buffered and flush the output.
    fn finish(&mut self) -> io::Result<()>;
}

impl<T: RecordSink + ?Sized> RecordSink for Box<T> {
    fn write(&mut self, r: &FlowRecord<'_>) -> io::Result<()> {
        (**self).write(r)
    }

    fn finish(&mut self) -> io::Result<()> {
        (**self).finish()
    }
}

/// Two sinks fed the same records (JSON to a file and IPFIX to a collector, say).
pub struct Tee<A, B>(pub A, pub B);

impl<A: RecordSink, B: RecordSink> RecordSink for Tee<A, B> {
    fn write(&mut self, r: &FlowRecord<'_>) -> io::Result<()> {
        self.0.write(r)?;
        self.1.write(r)
    }

    fn finish(&mut self) -> io::Result<()> {
        let a = self.0.finish();
        let b = self.1.finish();
        a.and(b)
    }
}

/// A sink that discards records (benchmarks of the pipeline without output, and tests).
#[derive(Clone, Copy, Debug, Default)]
pub struct NullSink {
    /// Records received.
    pub records: u64,
}

impl RecordSink for NullSink {
    fn write(&mut self, _r: &FlowRecord<'_>) -> io::Result<()> {
        self.records += 1;
        Ok(())
    }

    fn finish(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::format::Fmt;

    /// A registry holding the labels the tests name.
    pub(crate) fn labels() -> Labels {
        let mut l = Labels::new();
        l.intern("TLS", "Google", "Web", Default::default())
            .unwrap();
        l.intern("TLS", "we\"ird\\app", "Web", Default::default())
            .unwrap();
        l.intern("DNS", "DNS", "Network", Default::default())
            .unwrap();
        l
    }

    pub(crate) fn rec(labels: &Labels) -> FlowRecord<'_> {
        FlowRecord {
            source: Some("dir/a,b.pcap"),
            pcap: Some("a,b.pcap"),
            flow_id: 7,
            src_ip: "192.168.1.2".parse().unwrap(),
            src_port: 40000,
            dst_ip: "2001:db8::1".parse().unwrap(),
            dst_port: 443,
            l4: 6,
            vlan: 12,
            tunnel: "",
            tunnel_parent: None,
            first_ts_ns: 1_600_000_000_000_001_999,
            last_ts_ns: 1_600_000_001_500_000_000,
            c2s_pkts: 3,
            c2s_bytes: 300,
            s2c_pkts: 2,
            s2c_bytes: 2000,
            end_reason: EndReason::Fin,
            label: labels.find("TLS", "Google", "Web").unwrap(),
            labels,
            ip_owner: "",
            method: Some(Method::Port),
            confidence: 0.256,
            ttb_pkts: 1,
            ttb_us: 0,
            fpc: Some((labels.find("TLS", "Google", "Web").unwrap(), Method::Port)),
            early: {
                let mut e = wirespeed_stats::Early::default();
                e.push(false, 60, 0, 0x02, 0);
                e.push(true, 1452, 1400, 0x18, 1_500_000);
                e
            },
            stats_app: "TLS",
            stats_class: "WEB",
            stats_score: 0.5,
            meta: [""; META_COUNT],
            act: None,
            dist: None,
            tcp: None,
            risks: RiskSet::EMPTY,
            encrypted: false,
        }
    }

    /// A record with every metadata field set, one of them needing escapes.
    fn rec_meta(labels: &Labels) -> FlowRecord<'_> {
        let mut r = rec(labels);
        r.meta = ["x"; META_COUNT];
        r.meta[0] = "a\"b,c";
        r
    }

    #[test]
    fn metadata_fields_close_the_record() {
        let mut w = JsonLinesWriter::new(Vec::new(), false);
        w.write(&rec(&labels())).unwrap();
        w.write(&rec_meta(&labels())).unwrap();
        let out = String::from_utf8(w.into_inner().unwrap()).unwrap();
        let mut lines = out.lines();
        let plain: serde_json::Value = serde_json::from_str(lines.next().unwrap()).unwrap();
        assert_eq!(
            plain.get("sni"),
            Some(&serde_json::Value::Null),
            "unset metadata is null in JSON"
        );
        let full: serde_json::Value = serde_json::from_str(lines.next().unwrap()).unwrap();
        assert_eq!(full["sni"], "a\"b,c");
        assert_eq!(full["dhcp_host"], "x");
        // Numbers on the wire are numbers in the record; text where digits belong is absent.
        assert_eq!(full["dns_qtype"], serde_json::Value::Null);
        let mut c = CsvWriter::new(Vec::new(), false);
        c.write(&rec_meta(&labels())).unwrap();
        let text = String::from_utf8(c.into_inner().unwrap()).unwrap();
        let mut rd = ::csv::Reader::from_reader(text.as_bytes());
        let row = rd.records().next().unwrap().unwrap();
        // Without --features, --community-id, the inline fields and `tunnel_parent` the CSV
        // has every other column.
        assert_eq!(
            row.len(),
            FIELDS.len()
                - FEATURE_FIELDS.len()
                - 2
                - ACT_FIELDS.len()
                - DIST_FIELDS.len()
                - TCP_FIELDS.len()
        );
        assert_eq!(&row[row.len() - META_COUNT], "a\"b,c");
    }

    #[test]
    fn json_line_parses_and_round_trips_fields() {
        let mut w = JsonLinesWriter::new(Vec::new(), true).with_features(true);
        let l = labels();
        let mut r = rec(&l);
        r.label = l.find("TLS", "we\"ird\\app", "Web").unwrap();
        r.stats_app = "st\"at\u{1}\n";
        w.write(&r).unwrap();
        w.finish().unwrap();
        let text = String::from_utf8(w.out).unwrap();
        assert!(text.ends_with('\n') && text.lines().count() == 1);
        let v: serde_json::Value = serde_json::from_str(text.trim_end()).unwrap();
        assert_eq!(v["src_ip"], "192.168.1.2");
        assert_eq!(v["dst_ip"], "2001:db8::1");
        assert_eq!(v["l4"], "TCP");
        assert_eq!(v["app"], "we\"ird\\app");
        assert_eq!(v["proto"], "TLS.we\"ird\\app");
        assert_eq!(v["method"], "port");
        assert_eq!(v["end_reason"], "fin");
        assert_eq!(v["stats_app"], "st\"at\u{1}\n");
        assert_eq!(v["first_ts"].as_f64().unwrap(), 1_600_000_000.000_001);
        assert!(text.contains("\"last_ts\":1600000001.500000,"), "{text}");
        assert!(text.contains("\"confidence\":0.26,"), "{text}");
        assert_eq!(v["source"], "dir/a,b.pcap");
        assert_eq!(v["c2s_bytes"], 300);
        assert_eq!(v["splt_ip"], serde_json::json!([60, -1452]));
        assert_eq!(v["splt_payload"], serde_json::json!([0, -1400]));
        assert_eq!(v["splt_iat_us"], serde_json::json!([1500]));
        assert_eq!(v["splt_flags"], serde_json::json!([2, 24]));
        assert_eq!(v["atoz_server_port"], 443);
        assert_eq!(v["atoz_min_seg_c2s"], serde_json::Value::Null);
        assert_eq!(v["atoz_avg_seg_s2c"], 1400);
        assert_eq!(v["stats_class"], "WEB");
        assert_eq!(v["stats_score"].as_f64(), Some(0.5));
    }

    #[test]
    fn csv_header_matches_columns_and_quotes() {
        let mut w = CsvWriter::new(Vec::new(), true)
            .with_features(true)
            .with_community_id(true)
            .with_action(true)
            .with_dist(true)
            .with_tcp(true)
            .with_tunnel_parent(true);
        let l = labels();
        let mut r = rec(&l);
        r.l4 = 253;
        r.encrypted = true;
        // Written in nDPI's id order (NDPI_KNOWN_PROTOCOL_ON_NON_STANDARD_PORT is 5,
        // NDPI_UNIDIRECTIONAL_TRAFFIC 46), whatever the order they were named in.
        r.risks = RiskSet::parse("Unidirectional Traffic;Known Proto on Non Std Port").unwrap();
        let score = r.risks.score();
        // The client: one retransmission of 100 bytes, two RTT samples of 10 and 30 ms, TTL 64,
        // a SYN with MSS 1460 and SACK, first window 64240, 300 bytes at 1 and 2 ms; the
        // server: nothing known but its TTL.
        r.tcp = Some(TcpFields {
            c2s: DirTcp {
                retrans: 1,
                retrans_bytes: 100,
                rtt_n: 2,
                rtt_min_us: 10_000,
                rtt_mean_us: 20_000.0,
                rtt_max_us: 30_000,
                rtt_std_us: 10_000.0,
                ttl: Some((64, 64)),
                mss: Some(1460),
                sack_ok: Some(true),
                ts_ok: Some(false),
                win_init: Some(64240),
                unique_bytes: 300,
                first_payload_us: Some(1000),
                last_payload_us: Some(2000),
                ..DirTcp::default()
            },
            s2c: DirTcp {
                ttl: Some((50, 52)),
                ..DirTcp::default()
            },
            hs_rtt_us: Some(10_500),
            close: "client_fin",
            history: *b"ShADTF\0\0\0\0\0\0\0\0\0\0\0\0\0\0",
            history_len: 6,
            conn_state: "S2",
        });
        r.act = Some(ActFields {
            rule: "no,web",
            action: "drop",
            dropped_pkts: 3,
            dropped_bytes: 180,
            bound: true,
        });
        // Client: two packets of 60 and 101 bytes 1.5 ms apart, SYN then ACK; server: none.
        r.dist = Some(DistFields {
            c2s: DirDist {
                packets: 2,
                size_min: 60,
                size_mean: 80.5,
                size_max: 101,
                size_std: 20.5,
                gaps: 1,
                gap_min_us: 1500.0,
                gap_mean_us: 1500.0,
                gap_max_us: 1500.0,
                gap_std_us: 0.0,
                flags: [1, 0, 0, 0, 1, 0, 0, 0],
            },
            s2c: DirDist::default(),
        });
        w.write(&r).unwrap();
        w.finish().unwrap();
        let text = String::from_utf8(w.out).unwrap();
        let mut lines = text.lines();
        let header: Vec<&str> = lines.next().unwrap().split(',').collect();
        assert_eq!(header.len(), FIELDS.len() + 2);
        let row = lines.next().unwrap();
        assert!(row.starts_with(
            "\"dir/a,b.pcap\",\"a,b.pcap\",7,192.168.1.2,40000,2001:db8::1,443,253,253,12,,"
        ));
        assert!(
            row.contains(
                &format!(
                    ",fin,TLS.Google,Google,TLS,Web,,port,0.26,1,0,TLS.Google,port,true,\
                     Known Proto on Non Std Port;Unidirectional Traffic,{score},,\"no,web\",drop,3,180,true,\
                     60,80.500,101,20.500,1500.000,1500.000,1500.000,0.000,1,0,0,0,1,0,0,0,\
                     ,,,,,,,,0,0,0,0,0,0,0,0,\
                     1,100,0,0,2,10000,20000.000,30000,10000.000,64,64,1460,,true,false,64240,0,300,1000,2000,\
                     0,0,0,0,0,,,,,50,52,,,,,,0,0,,,\
                     10500,client_fin,ShADTF,S2,\
                     60 -1452,0 -1400,1500,2 24,443,"
                )
            ),
            "{row}"
        );
        // The statistical verdict, then the payload metadata (none set here) close the row.
        let tail = format!(",253,TLS,WEB,0.50{}", ",".repeat(META_COUNT));
        assert!(row.ends_with(&tail), "{row}");
        // source and pcap, and a comma inside each of the three quoted fields.
        assert_eq!(row.split(',').count(), FIELDS.len() + 5, "{row}");
    }

    /// `http_status`, `dns_qtype` and `dns_rcode` are JSON numbers, checked by name (the writer
    /// picks them by index); leading zeros and non-digits do not make invalid JSON.
    #[test]
    fn numeric_metadata_is_numbers_or_null() {
        let l = labels();
        let mut r = rec(&l);
        let at = |n: &str| META_FIELDS.iter().position(|f| *f == n).unwrap();
        r.meta[at("http_status")] = "404";
        r.meta[at("dns_qtype")] = "0028";
        r.meta[at("dns_rcode")] = "3x";
        r.meta[at("dns_query")] = "12";
        let mut w = JsonLinesWriter::new(Vec::new(), false);
        w.write(&r).unwrap();
        let line = String::from_utf8(w.into_inner().unwrap()).unwrap();
        let v: serde_json::Value = serde_json::from_str(line.trim_end()).unwrap();
        assert_eq!(v["http_status"], 404);
        assert_eq!(v["dns_qtype"], 28);
        assert_eq!(v["dns_rcode"], serde_json::Value::Null);
        assert_eq!(v["dns_query"], "12", "other metadata stays text");
        assert_eq!(v["flow_id"], 7);
        assert_eq!(v["tunnel"], serde_json::Value::Null, "no tunnel is absent");
        let numeric: Vec<&str> = (0..META_COUNT)
            .filter(|&i| numeric_meta(i))
            .map(|i| META_FIELDS[i])
            .collect();
        assert_eq!(
            numeric,
            ["http_status", "dns_qtype", "dns_rcode", "tls_cipher"]
        );
        // Not asked: the model's three fields are absent together.
        r.stats_app = "";
        r.stats_class = "";
        let mut w = JsonLinesWriter::new(Vec::new(), false);
        w.write(&r).unwrap();
        let line = String::from_utf8(w.into_inner().unwrap()).unwrap();
        let v: serde_json::Value = serde_json::from_str(line.trim_end()).unwrap();
        assert_eq!(v["stats_score"], serde_json::Value::Null);
        assert_eq!(v["stats_app"], serde_json::Value::Null);
    }

    /// The JSON writer and the CSV header are written separately; this keeps them from drifting
    /// apart: the same fields, in the same order.
    #[test]
    fn json_keys_follow_fields_in_order() {
        // With metadata and without (whose nulls are written as one run): the same keys.
        for r in [rec_meta(&labels()), rec(&labels())] {
            let mut w = JsonLinesWriter::new(Vec::new(), false)
                .with_features(true)
                .with_community_id(true)
                .with_action(true)
                .with_dist(true)
                .with_tcp(true)
                .with_tunnel_parent(true);
            w.write(&r).unwrap();
            let line = String::from_utf8(w.into_inner().unwrap()).unwrap();
            let mut at = 0;
            for f in FIELDS {
                let key = format!("\"{f}\":");
                let pos = line[at..]
                    .find(&key)
                    .unwrap_or_else(|| panic!("{f} missing or out of order"));
                at += pos + key.len();
            }
            let v: serde_json::Value = serde_json::from_str(line.trim_end()).unwrap();
            assert_eq!(v.as_object().unwrap().len(), FIELDS.len());
        }
        // Without features and Community ID: every other field, still in order, and the CSV
        // header agrees.
        let mut w = JsonLinesWriter::new(Vec::new(), false);
        w.write(&rec_meta(&labels())).unwrap();
        let line = String::from_utf8(w.into_inner().unwrap()).unwrap();
        let v: serde_json::Value = serde_json::from_str(line.trim_end()).unwrap();
        let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
        let want: Vec<&&str> = FIELDS
            .iter()
            .filter(|f| {
                !FEATURE_FIELDS.contains(f)
                    && **f != COMMUNITY_FIELD
                    && **f != TUNNEL_PARENT_FIELD
                    && !ACT_FIELDS.contains(f)
                    && !DIST_FIELDS.contains(f)
                    && !TCP_FIELDS.contains(f)
            })
            .collect();
        assert_eq!(keys.len(), want.len());
        let c = CsvWriter::new(Vec::new(), false).into_inner().unwrap();
        let header = String::from_utf8(c).unwrap();
        assert_eq!(header.trim_end().split(',').count(), want.len());
        assert!(FEATURE_FIELDS.iter().all(|f| FIELDS.contains(f)));
    }

    /// `tunnel_parent` is a column only when asked for (`--tunnels both`), right after
    /// `tunnel`: the outer flow's id, or null (JSON) / empty (CSV) for a flow in no tunnel.
    #[test]
    fn tunnel_parent_only_when_asked_after_tunnel() {
        let l = labels();
        let mut inner = rec(&l);
        inner.tunnel = "VXLAN";
        inner.tunnel_parent = Some(41);
        let plain = rec(&l);
        let json = |on: bool| {
            let mut w = JsonLinesWriter::new(Vec::new(), false).with_tunnel_parent(on);
            w.write(&inner).unwrap();
            w.write(&plain).unwrap();
            String::from_utf8(w.into_inner().unwrap()).unwrap()
        };
        let on = json(true);
        let lines: Vec<&str> = on.lines().collect();
        assert!(lines[0].contains(r#""tunnel":"VXLAN","tunnel_parent":41,"first_ts""#));
        assert!(lines[1].contains(r#""tunnel":null,"tunnel_parent":null,"first_ts""#));
        assert!(
            !json(false).contains("tunnel_parent"),
            "not a column by default"
        );
        let mut w = CsvWriter::new(Vec::new(), false).with_tunnel_parent(true);
        w.write(&inner).unwrap();
        w.write(&plain).unwrap();
        let text = String::from_utf8(w.into_inner().unwrap()).unwrap();
        let rows: Vec<Vec<&str>> = text.lines().map(|l| l.split(',').collect()).collect();
        let at = rows[0].iter().position(|f| *f == "tunnel_parent").unwrap();
        assert_eq!(rows[0][at - 1], "tunnel");
        assert_eq!((rows[1][at], rows[2][at]), ("41", ""));
        let header = String::from_utf8(CsvWriter::new(Vec::new(), false).into_inner().unwrap());
        assert!(!header.unwrap().contains("tunnel_parent"));
    }

    proptest::proptest! {
        /// The hand-built IPv4 text is the standard library's.
        #[test]
        fn ipv4_text_is_std_display(a in proptest::prelude::any::<u32>()) {
            let ip = IpAddr::V4(std::net::Ipv4Addr::from(a));
            let mut b = Vec::new();
            Fmt::ip(&mut b, &ip);
            proptest::prop_assert_eq!(String::from_utf8(b).unwrap(), ip.to_string());
        }

        /// Two decimals, rounded half away from zero like `f32::round` (the libm call the
        /// writer avoids), clamped to [0, 1].
        #[test]
        fn confidence_rounds_as_f32_round(c in proptest::prelude::any::<f32>()) {
            let mut b = Vec::new();
            Fmt::conf(&mut b, c);
            let c = if c.is_finite() { c.clamp(0.0, 1.0) } else { 0.0 };
            let h = (c * 100.0).round() as u32;
            let want = format!("{}.{:02}", h / 100, h % 100);
            proptest::prop_assert_eq!(String::from_utf8(b).unwrap(), want);
        }

        /// A CSV field reads back as one field, whatever it holds.
        #[test]
        fn csv_fields_read_back(s in "[a-z,\"\n\r. ]{1,20}") {
            let mut b = Vec::new();
            Fmt::csv_str(&mut b, &s);
            b.push(b'\n');
            let mut rd = ::csv::ReaderBuilder::new().has_headers(false).from_reader(&b[..]);
            let rows: Vec<::csv::StringRecord> = rd.records().map(|r| r.unwrap()).collect();
            proptest::prop_assert_eq!(rows.len(), 1);
            let row = &rows[0];
            proptest::prop_assert_eq!(row.len(), 1);
            proptest::prop_assert_eq!(&row[0], s.as_str());
        }
    }
}
