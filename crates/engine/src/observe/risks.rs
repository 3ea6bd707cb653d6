//! nDPI's flow risks of a flow (issue 22, item 3): the flow's own facts ([`FlowFacts`]: its
//! key and counters, the verdict the arbiter kept, the payload metadata inspection holds for it,
//! what the flow table and the entropy analyser tracked), judged by
//! [`wirespeed_risk::assess`] once per record, so packets pay nothing for them. The
//! record takes the result (and the metadata) from here; nothing is read back from a record.

use crate::classify::{FlowExt, Stage};
use crate::observe::Observed;
use crate::rules::Rules;
use std::net::IpAddr;
use wirespeed_classify::{LabelId, Method};
use wirespeed_export::{META_COUNT, META_FIELDS};
use wirespeed_flow::{noted, Flow};
use wirespeed_risk::{
    assess, Risk, RiskFacts, RiskSet, TCP_FIN_ONLY_C2S, TCP_FIN_ONLY_S2C, TCP_NULL_SEEN,
    TCP_XMAS_SEEN,
};

/// Index of a metadata field by name, at compile time (a wrong name fails the build).
const fn at(name: &str) -> usize {
    let mut i = 0;
    while i < META_COUNT {
        let f = META_FIELDS[i].as_bytes();
        let n = name.as_bytes();
        if f.len() == n.len() {
            let mut k = 0;
            while k < n.len() && f[k] == n[k] {
                k += 1;
            }
            if k == n.len() {
                return i;
            }
        }
        i += 1;
    }
    panic!("no such metadata field")
}

const SNI: usize = at("sni");
const ALPN: usize = at("alpn");
const TLS_VERSION: usize = at("tls_version");
const JA4: usize = at("ja4");
const HTTP_METHOD: usize = at("http_method");
const HTTP_HOST: usize = at("http_host");
const URL: usize = at("url");
const USER_AGENT: usize = at("user_agent");
const HTTP_STATUS: usize = at("http_status");
const DNS_QUERY: usize = at("dns_query");
const DNS_RCODE: usize = at("dns_rcode");
const SSH_CLIENT: usize = at("ssh_client");
const SSH_SERVER: usize = at("ssh_server");
const CERT_SUBJECT: usize = at("tls_cert_subject");
const CERT_ISSUER: usize = at("tls_cert_issuer");
const TLS_CIPHER: usize = at("tls_cipher");
const DNS_NAMES: usize = at("dns_names");
const HTTP_CONTENT_TYPE: usize = at("http_content_type");
const HTTP_SERVER: usize = at("http_server");
const HTTP_FLAGS: usize = at("http_flags");
const TLS_FLAGS: usize = at("tls_flags");
const DNS_FLAGS: usize = at("dns_flags");
const PAYLOAD_FLAGS: usize = at("payload_flags");

/// Is this ICMP (`proto` 1) or ICMPv6 (58) message, header included, malformed as nDPI's
/// first-packet check judges it (ndpi_main.c at the corpus's commit; non_tcp_udp.c later)?
/// ICMP: a type from 44 to 252 or a code above 15 (unassigned, IANA's registry), or, with
/// data after the header, a checksum (RFC 792's ones' complement sum over the message) that
/// does not add up. ICMPv6: a type from 5 to 127 (unassigned error types), or a code of 156
/// and up for a type other than 255.
pub(crate) fn icmp_malformed(proto: u8, m: &[u8]) -> bool {
    let (Some(&t), Some(&c)) = (m.first(), m.get(1)) else {
        return false;
    };
    if proto == 58 {
        return (5..=127).contains(&t) || (c >= 156 && t != 255);
    }
    if (44..=252).contains(&t) || c > 15 {
        return true;
    }
    if m.len() <= 8 {
        return false;
    }
    let mut sum: u32 = m
        .chunks(2)
        .map(|w| u32::from(u16::from_be_bytes([w[0], w.get(1).copied().unwrap_or(0)])))
        .sum();
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    sum != 0xffff
}

/// What a flow's risks are judged from, gathered from the flow itself (its verdict, key and
/// counters, what the table and the entropy analyser tracked) and the payload metadata
/// inspection holds for it; oriented client → server.
pub(crate) struct FlowFacts<'a> {
    /// The verdict's label ([`LabelId::UNKNOWN`] without one).
    label: LabelId,
    /// The method that named the flow, if one did.
    method: Option<Method>,
    /// The IP protocol.
    l4: u8,
    client_port: u16,
    server_port: u16,
    server_ip: IpAddr,
    /// Packets and bytes, client → server then server → client.
    pkts: [u64; 2],
    bytes: [u64; 2],
    /// The flow's payload metadata, by [`wirespeed_export::META_FIELDS`] index ("": not seen;
    /// [`metadata`]).
    meta: &'a [&'a str; META_COUNT],
    /// The flow holds a payload-inspection context: without one `meta` is all empty.
    any_meta: bool,
    tracked: Tracked,
}

impl<'a> FlowFacts<'a> {
    /// The facts of `f` as it stands, with its payload metadata `meta` ([`metadata`]) and what
    /// the observers know of it (`seen`: the entropy analyser's track).
    #[inline]
    pub(crate) fn of(f: &Flow<FlowExt>, meta: &'a [&'a str; META_COUNT], seen: Observed) -> Self {
        let (c, s) = (f.client, f.server());
        let (label, method) = match f.ext.class.verdict() {
            Some(v) => (v.label, Some(v.method)),
            None => (LabelId::UNKNOWN, None),
        };
        FlowFacts {
            label,
            method,
            l4: f.key.proto,
            client_port: f.key.port[c.index()],
            server_port: f.key.port[s.index()],
            server_ip: f.key.ip(s),
            pkts: [f.pkts[c.index()], f.pkts[s.index()]],
            bytes: [f.bytes[c.index()], f.bytes[s.index()]],
            meta,
            any_meta: wirespeed_dpi::holds_context(f.ext.dpi),
            tracked: Tracked::of(f, seen.entropy),
        }
    }
}

/// The payload metadata `stage`'s inspection holds for `f`, by
/// [`wirespeed_export::META_FIELDS`] index ("": not seen): a fact of the flow, which its risks
/// are judged from and its record carries.
#[inline]
pub(crate) fn metadata<'s>(f: &Flow<FlowExt>, stage: &'s Stage) -> [&'s str; META_COUNT] {
    stage.dpi.meta(&f.ext.dpi)
}

/// [`metadata`] written into `out` (all "" before): a record's own array.
#[inline]
pub(crate) fn fill_metadata<'s>(
    f: &Flow<FlowExt>,
    stage: &'s Stage,
    out: &mut [&'s str; META_COUNT],
) {
    stage.dpi.fill_meta(&f.ext.dpi, out)
}

/// The risks of the flow `f` as it stands: its facts ([`FlowFacts`]), judged by `rules`. What
/// the inline actor asks for when a flow is decided; a record judges the facts it gathered.
#[inline]
pub(crate) fn of_flow(f: &Flow<FlowExt>, stage: &Stage, seen: Observed, rules: &Rules) -> RiskSet {
    let meta = metadata(f, stage);
    of(&FlowFacts::of(f, &meta, seen), rules)
}

/// What the flow table noted of a TCP flow beyond its counters, oriented client → server.
struct Tracked {
    tcp_flags: [u8; 2],
    payload: [bool; 2],
    odd: u8,
    entropy: crate::observe::entropy::Track,
    icmp_malformed: bool,
}

impl Tracked {
    #[inline]
    fn of(f: &Flow<FlowExt>, entropy: crate::observe::entropy::Track) -> Tracked {
        let (c, s) = (f.client.index(), f.server().index());
        let bit = |a: u8, i: usize| f.noted & (a << i) != 0;
        let mut odd = 0;
        for (have, v) in [
            (f.noted & noted::TCP_NULL != 0, TCP_NULL_SEEN),
            (f.noted & noted::TCP_XMAS != 0, TCP_XMAS_SEEN),
            (bit(noted::FIN_ONLY_A, c), TCP_FIN_ONLY_C2S),
            (bit(noted::FIN_ONLY_A, s), TCP_FIN_ONLY_S2C),
        ] {
            if have {
                odd |= v;
            }
        }
        Tracked {
            tcp_flags: [f.tcp_flags[c], f.tcp_flags[s]],
            payload: [bit(noted::PAYLOAD_A, c), bit(noted::PAYLOAD_A, s)],
            odd,
            entropy,
            icmp_malformed: f.noted & noted::ICMP_MALFORMED != 0,
        }
    }
}

/// The risks of the flow whose facts are `f`, by `rules`' knowledge of its label.
pub(crate) fn of(f: &FlowFacts<'_>, rules: &Rules) -> RiskSet {
    let t = &f.tracked;
    let l = rules.labels().get(f.label);
    let dpi = f.method == Some(Method::Dpi);
    let learned = f.method.is_some_and(|m| m.is_learned());
    let mut facts = RiskFacts {
        kind: rules.risk_kind(f.label),
        l4: f.l4,
        client_port: f.client_port,
        server_port: f.server_port,
        server_addr: Some(f.server_ip),
        master: l.master(),
        app: l.app(),
        category: l.category(),
        breed: l.breed(),
        dpi,
        // Read only for a payload-decided protocol: looked up only then.
        std_port: dpi
            .then(|| rules.std_port(f.label, f.l4, f.server_port, f.client_port))
            .flatten(),
        c2s_packets: f.pkts[0],
        c2s_bytes: f.bytes[0],
        s2c_packets: f.pkts[1],
        s2c_bytes: f.bytes[1],
        c2s_tcp_flags: t.tcp_flags[0],
        s2c_tcp_flags: t.tcp_flags[1],
        c2s_payload: t.payload[0],
        s2c_payload: t.payload[1],
        tcp_odd_flags: t.odd,
        // `http_flags` letters: none seen (the metadata below says otherwise).
        http_exe_attachment: Some(false),
        http_data_attachment: Some(false),
        http_body_binary: Some(false),
        http_exe_body: Some(false),
        http_susp_header_name: Some(false),
        http_server_nonprint: Some(false),
        icmp_malformed: t.icmp_malformed,
        // Only "high" matters to the rule: a value at the bound stands for all of them.
        payload_entropy: t
            .entropy
            .high()
            .then_some(wirespeed_risk::ENTROPY_PLAINTEXT_BELOW),
        // A verdict learned from earlier flows' payload (host cache, DNS, dedicated port
        // table) is known from the first packet, and stands for the payload verdict nDPI
        // reaches on the same servers.
        entropy_before_dpi: t.entropy.before_dpi() && !learned,
        verdict_learned: learned,
        ..RiskFacts::default()
    };
    // The metadata's facts, read only where there can be some (a flow without a payload
    // inspection context has none: most flows of a flood, ~100 instructions a record).
    if f.any_meta {
        let m = |i: usize| Some(f.meta[i]).filter(|v| !v.is_empty());
        let num = |i: usize| m(i).and_then(|v| v.parse::<u16>().ok());
        // `http_flags` letters (absent: none of them seen; most flows have none).
        let flags = f.meta[HTTP_FLAGS].as_bytes();
        let flag = |c: u8| Some(!flags.is_empty() && flags.contains(&c));
        let has = |i: usize, c: u8| f.meta[i].as_bytes().contains(&c);
        facts.sni = m(SNI);
        facts.alpn = m(ALPN);
        facts.tls_version = m(TLS_VERSION);
        facts.ja4 = m(JA4);
        facts.http_method = m(HTTP_METHOD);
        facts.http_host = m(HTTP_HOST);
        facts.url = m(URL);
        facts.user_agent = m(USER_AGENT);
        facts.http_status = num(HTTP_STATUS);
        facts.dns_query = m(DNS_QUERY);
        facts.dns_rcode = num(DNS_RCODE);
        facts.ssh_client = m(SSH_CLIENT);
        facts.ssh_server = m(SSH_SERVER);
        facts.tls_cert_subject = m(CERT_SUBJECT);
        facts.tls_cert_issuer = m(CERT_ISSUER);
        facts.tls_cipher = num(TLS_CIPHER);
        facts.dns_names = m(DNS_NAMES);
        facts.http_content_type = m(HTTP_CONTENT_TYPE);
        facts.http_server = m(HTTP_SERVER);
        facts.http_exe_attachment = flag(b'a');
        facts.http_data_attachment = flag(b'd');
        facts.http_body_binary = flag(b'b');
        facts.http_exe_body = flag(b'e');
        facts.http_susp_header_name = flag(b'h');
        facts.http_server_nonprint = flag(b's');
        facts.tls_esni = has(TLS_FLAGS, b'e');
        facts.gquic_chlo = has(TLS_FLAGS, b'h');
        facts.tls_webrtc = has(TLS_FLAGS, b'w');
        facts.dns_malformed = has(DNS_FLAGS, b'm');
        facts.dns_invalid_chars = has(DNS_FLAGS, b'i');
        facts.dns_error_code = has(DNS_FLAGS, b'e');
        facts.payload_script = has(PAYLOAD_FLAGS, b's');
        facts.payload_executable = has(PAYLOAD_FLAGS, b'e');
        facts.dns_zero_ttl = has(DNS_FLAGS, b'z');
    }
    let mut set = assess(&facts);
    // A protocol's breed is a fact about the protocol, not about a model's guess at it.
    if f.method == Some(Method::Stats) {
        set.unset(Risk::UnsafeProtocol);
    }
    set
}

#[cfg(test)]
mod tests {
    use super::{icmp_malformed, of, FlowFacts, Tracked};
    use crate::rules::Rules;
    use proptest::prelude::*;
    use wirespeed_classify::{LabelId, Method};
    use wirespeed_export::META_COUNT;

    proptest! {
        /// A flow without a payload-inspection context (metadata all empty) is judged as
        /// reading every metadata field would judge it: whatever its label, method, ports,
        /// counters and TCP marks.
        #[test]
        fn no_context_is_judged_as_empty_metadata(
            label in 0u16..400,
            method in 0usize..4,
            l4 in prop_oneof![Just(6u8), Just(17), Just(1)],
            ports in any::<(u16, u16)>(),
            pkts in any::<(u8, u8)>(),
            flags in any::<(u8, u8, u8)>(),
            payload in any::<(bool, bool, bool)>(),
        ) {
            let rules = Rules::builtin();
            let empty = [""; META_COUNT];
            let methods = [None, Some(Method::Dpi), Some(Method::Port), Some(Method::Stats)];
            let facts = |any_meta| FlowFacts {
                label: LabelId(label),
                method: methods[method],
                l4,
                client_port: ports.0,
                server_port: ports.1,
                server_ip: std::net::IpAddr::from([198, 51, 100, 7]),
                pkts: [u64::from(pkts.0), u64::from(pkts.1)],
                bytes: [u64::from(pkts.0) * 60, u64::from(pkts.1) * 1400],
                meta: &empty,
                any_meta,
                tracked: Tracked {
                    tcp_flags: [flags.0, flags.1],
                    payload: [payload.0, payload.1],
                    odd: flags.2 & 15,
                    entropy: Default::default(),
                    icmp_malformed: payload.2,
                },
            };
            prop_assert_eq!(of(&facts(false), &rules), of(&facts(true), &rules));
        }

        /// Any bytes: an answer, no panic; an echo request whose checksum is set as RFC 792
        /// says (the complement of the sum with the field zero) is well formed, and changing
        /// one data byte breaks it.
        #[test]
        fn icmp_any_bytes(m in proptest::collection::vec(any::<u8>(), 0..64), v6: bool) {
            let _ = icmp_malformed(if v6 { 58 } else { 1 }, &m);
            let mut e = vec![8u8, 0, 0, 0, 0, 1, 0, 1];
            e.extend_from_slice(&m);
            e.push(0x5a);
            let mut sum: u32 = e
                .chunks(2)
                .map(|w| u32::from(u16::from_be_bytes([w[0], w.get(1).copied().unwrap_or(0)])))
                .sum();
            while sum > 0xffff {
                sum = (sum & 0xffff) + (sum >> 16);
            }
            let ck = !(sum as u16);
            e[2..4].copy_from_slice(&ck.to_be_bytes());
            prop_assert!(!icmp_malformed(1, &e));
            let last = e.len() - 1;
            e[last] ^= 0x01;
            prop_assert!(icmp_malformed(1, &e));
        }
    }

    /// RFC 1071 §3's example: 00 01 f2 03 f4 f5 f6 f7 sums (ones' complement) to 0xddf2, so
    /// with 0x220d appended the message adds up; any changed byte breaks it. Types and codes
    /// outside IANA's assigned ranges are malformed whatever the sum.
    #[test]
    fn icmp_checks() {
        let good = [0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7, 0x22, 0x0d];
        assert!(!icmp_malformed(1, &good));
        let mut bad = good;
        bad[9] ^= 1;
        assert!(icmp_malformed(1, &bad));
        // Odd length: the last byte is padded with zero (0x0800 + 0xf6ff + 0x0100 = 0xffff).
        assert!(!icmp_malformed(
            1,
            &[8, 0, 0xf6, 0xff, 0, 0, 0, 0, 0, 0, 0x01]
        ));
        // malformed_icmp.pcap frame 1 (tshark: type 165, an 8-byte message): by its type.
        assert!(icmp_malformed(1, &[0xa5, 0x00, 0x5a, 0xff, 0, 0, 0, 0]));
        // Header alone, assigned type: no checksum test.
        assert!(!icmp_malformed(1, &[8, 0, 0, 0, 0, 0, 0, 0]));
        assert!(icmp_malformed(1, &[8, 16, 0, 0, 0, 0, 0, 0]));
        // ICMPv6: echo request fine; type 5 unassigned; code 156 only for type 255.
        assert!(!icmp_malformed(58, &[128, 0, 0, 0]));
        assert!(icmp_malformed(58, &[5, 0, 0, 0]));
        assert!(icmp_malformed(58, &[1, 156, 0, 0]));
        assert!(!icmp_malformed(58, &[255, 156, 0, 0]));
        assert!(!icmp_malformed(1, &[]));
    }
}
