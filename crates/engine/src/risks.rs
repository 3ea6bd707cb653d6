//! nDPI's flow risks of a record (issue 22, item 3): what the record holds, judged by
//! [`wirespeed_classify::risk::assess`] once per record, so packets pay nothing for them.

use crate::rules::Rules;
use wirespeed_classify::risk::{
    assess, Risk, RiskFacts, RiskSet, TCP_FIN_ONLY_C2S, TCP_FIN_ONLY_S2C, TCP_NULL_SEEN,
    TCP_XMAS_SEEN,
};
use wirespeed_classify::Method;
use wirespeed_export::{FlowRecord, META_COUNT, META_FIELDS};
use wirespeed_flow::{noted, Flow};

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

/// What the flow table noted of a TCP flow beyond the record, oriented client → server.
pub(crate) struct Tracked {
    tcp_flags: [u8; 2],
    payload: [bool; 2],
    odd: u8,
    entropy: crate::entropy::Track,
}

impl Tracked {
    pub(crate) fn of(
        f: &Flow<crate::classify::FlowExt>,
        entropy: crate::entropy::Track,
    ) -> Tracked {
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
        }
    }
}

/// The risks of the flow `rec` describes, with what the table tracked of it.
pub(crate) fn of(rec: &FlowRecord<'_>, rules: &Rules, t: &Tracked) -> RiskSet {
    let l = rec.label_names();
    let m = |i: usize| Some(rec.meta[i]).filter(|v| !v.is_empty());
    let num = |i: usize| m(i).and_then(|v| v.parse::<u16>().ok());
    // `http_flags` letters (absent: none of them seen; most flows have none).
    let flags = rec.meta[HTTP_FLAGS].as_bytes();
    let flag = |c: u8| Some(!flags.is_empty() && flags.contains(&c));
    let has = |i: usize, c: u8| rec.meta[i].as_bytes().contains(&c);
    let dpi = rec.method == Some(Method::Dpi);
    let learned = rec.method.is_some_and(|m| m.is_learned());
    let mut set = assess(&RiskFacts {
        kind: rules.risk_kind(rec.label),
        l4: rec.l4,
        client_port: rec.src_port,
        server_port: rec.dst_port,
        server_addr: Some(rec.dst_ip),
        master: l.master(),
        app: l.app(),
        category: l.category(),
        breed: l.breed(),
        dpi,
        // Read only for a payload-decided protocol: looked up only then.
        std_port: dpi
            .then(|| rules.std_port(rec.label, rec.l4, rec.dst_port, rec.src_port))
            .flatten(),
        c2s_packets: rec.c2s_pkts,
        c2s_bytes: rec.c2s_bytes,
        s2c_packets: rec.s2c_pkts,
        s2c_bytes: rec.s2c_bytes,
        sni: m(SNI),
        alpn: m(ALPN),
        tls_version: m(TLS_VERSION),
        ja4: m(JA4),
        http_method: m(HTTP_METHOD),
        http_host: m(HTTP_HOST),
        url: m(URL),
        user_agent: m(USER_AGENT),
        http_status: num(HTTP_STATUS),
        dns_query: m(DNS_QUERY),
        dns_rcode: num(DNS_RCODE),
        ssh_client: m(SSH_CLIENT),
        ssh_server: m(SSH_SERVER),
        tls_cert_subject: m(CERT_SUBJECT),
        tls_cert_issuer: m(CERT_ISSUER),
        tls_cipher: num(TLS_CIPHER),
        dns_names: m(DNS_NAMES),
        c2s_tcp_flags: t.tcp_flags[0],
        s2c_tcp_flags: t.tcp_flags[1],
        c2s_payload: t.payload[0],
        s2c_payload: t.payload[1],
        tcp_odd_flags: t.odd,
        http_content_type: m(HTTP_CONTENT_TYPE),
        http_server: m(HTTP_SERVER),
        http_exe_attachment: flag(b'a'),
        http_body_binary: flag(b'b'),
        http_exe_body: flag(b'e'),
        http_susp_header_name: flag(b'h'),
        http_server_nonprint: flag(b's'),
        tls_esni: has(TLS_FLAGS, b'e'),
        gquic_chlo: has(TLS_FLAGS, b'h'),
        tls_webrtc: has(TLS_FLAGS, b'w'),
        dns_malformed: has(DNS_FLAGS, b'm'),
        dns_zero_ttl: has(DNS_FLAGS, b'z'),
        // Only "high" matters to the rule: a value at the bound stands for all of them.
        payload_entropy: t
            .entropy
            .high()
            .then_some(wirespeed_classify::risk::ENTROPY_PLAINTEXT_BELOW),
        // A verdict learned from earlier flows' payload (host cache, DNS, dedicated port
        // table) is known from the first packet, and stands for the payload verdict nDPI
        // reaches on the same servers.
        entropy_before_dpi: t.entropy.before_dpi() && !learned,
        verdict_learned: learned,
        ..RiskFacts::default()
    });
    // A protocol's breed is a fact about the protocol, not about a model's guess at it.
    if rec.method == Some(Method::Stats) {
        set.unset(Risk::UnsafeProtocol);
    }
    set
}
