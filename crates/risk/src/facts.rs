//! What a flow record knows ([`RiskFacts`]) and what a label says of it ([`LabelKind`]).

use std::net::IpAddr;
use wirespeed_classify::Breed;

// ----------------------------------------------------------------------------------- facts

/// What a flow record knows, as plain data, for [`assess`](super::assess).
#[derive(Clone, Copy, Debug, Default)]
pub struct RiskFacts<'a> {
    /// [`LabelKind::of`] the names below, when the caller has it at hand (else computed).
    pub kind: Option<LabelKind>,
    /// IP protocol number (6 TCP, 17 UDP, 1 ICMP).
    pub l4: u8,
    /// Client port (0 without ports).
    pub client_port: u16,
    /// Server port (0 without ports).
    pub server_port: u16,
    /// Server (destination of the first packet) address, for the multicast/broadcast exemption.
    pub server_addr: Option<IpAddr>,
    /// Master protocol, nDPI spelling ("TLS", "HTTP", "DNS"; "Unknown").
    pub master: &'a str,
    /// Application, nDPI spelling ("YouTube"); equal to `master` when there is none.
    pub app: &'a str,
    /// Category, nDPI spelling ("Web", "Download", "DataTransfer", "Unspecified").
    pub category: &'a str,
    /// Breed of the application (nDPI's `ndpi_get_proto_breed(app_protocol)`).
    pub breed: Breed,
    /// Whether the verdict came from payload inspection (nDPI confidence DPI or DPI cache).
    pub dpi: bool,
    /// Whether one of the flow's ports is one of the detected protocol's (master's, else the
    /// application's) default ports for this transport; `None` when the protocol has no default
    /// ports or it is not known.
    pub std_port: Option<bool>,
    /// Packets client to server.
    pub c2s_packets: u64,
    /// Bytes client to server.
    pub c2s_bytes: u64,
    /// Packets server to client.
    pub s2c_packets: u64,
    /// Bytes server to client.
    pub s2c_bytes: u64,
    /// TLS/QUIC server name indication.
    pub sni: Option<&'a str>,
    /// TLS ALPN: the client's offer (comma-separated) or the server's choice.
    pub alpn: Option<&'a str>,
    /// TLS version text ("TLSv1.2"): the server's choice when seen, else the client's highest.
    pub tls_version: Option<&'a str>,
    /// JA4 client fingerprint: its presence means the client hello was seen; its first part
    /// gives the client's version and whether it offered ALPN.
    pub ja4: Option<&'a str>,
    /// HTTP request method (present when a request was seen).
    pub http_method: Option<&'a str>,
    /// HTTP Host header.
    pub http_host: Option<&'a str>,
    /// HTTP URL as nDPI writes it: host and path.
    pub url: Option<&'a str>,
    /// HTTP User-Agent header.
    pub user_agent: Option<&'a str>,
    /// HTTP response status code.
    pub http_status: Option<u16>,
    /// DNS (LLMNR, mDNS) query name.
    pub dns_query: Option<&'a str>,
    /// DNS response code.
    pub dns_rcode: Option<u16>,
    /// SSH client banner.
    pub ssh_client: Option<&'a str>,
    /// SSH server banner.
    pub ssh_server: Option<&'a str>,
    /// Subject of the server's certificate.
    pub tls_cert_subject: Option<&'a str>,
    /// Issuer of the server's certificate.
    pub tls_cert_issuer: Option<&'a str>,
    /// Not yet provided by the engine: the client hello's version field (legacy_version),
    /// which nDPI's Obsolete TLS, Missing SNI and Not Carrying HTTPS rules read. Without it
    /// the JA4 version is used, then [`RiskFacts::tls_version`].
    pub tls_client_version: Option<u16>,
    /// The cipher suite the server chose (Weak TLS Cipher).
    pub tls_cipher: Option<u16>,
    /// Not yet provided: certificate notBefore, Unix seconds.
    pub cert_not_before: Option<i64>,
    /// Not yet provided: certificate notAfter, Unix seconds.
    pub cert_not_after: Option<i64>,
    /// Not yet provided: the time the certificate was seen, Unix seconds (TLS Cert Expired).
    pub now: Option<i64>,
    /// Payload entropy as nDPI measures it (the last payload it would measure; for ICMP, the
    /// first message's data after the 8-byte header; [`shannon_entropy`](super::shannon_entropy)
    /// computes it). The engine measures it only with `--stats entropy`
    /// (`crates/engine/src/observe/entropy.rs`), and
    /// then passes the plain-text bound itself when the value reached it.
    pub payload_entropy: Option<f32>,
    /// Not yet provided: whether credentials were seen in clear (FTP/POP3/IMAP login, HTTP
    /// `Authorization: Basic`/`Digest`), nDPI's Clear-Text Credentials.
    pub clear_text_credentials: Option<bool>,
    /// The DNS names of the flow's messages, `,`-separated — the first
    /// question's name of every DNS/LLMNR message, queries and responses alike, as the record's
    /// `dns_names` column holds them. nDPI checks that name in every message it dissects
    /// (dns.c `ndpi_search_dns`), not only the one [`RiskFacts::dns_query`] keeps. `None`:
    /// only `dns_query` is checked.
    pub dns_names: Option<&'a str>,
    /// Whether a DNS response carried an answer record with TTL 0 among those nDPI's reply
    /// parser reads (dns.c at the corpus's commit; the DNS inspector's `dns_flags` `z` says
    /// where its walk stops). nDPI's Minor Issues ("DNS Record with zero TTL"). `false`:
    /// unknown or none.
    pub dns_zero_ttl: bool,
    /// Whether a DNS message nDPI dissects was malformed as its DNS parser judges it (dns.c:
    /// an invalid header on a message after the first, a query name over 253 bytes or without
    /// room for its type and class): nDPI's Malformed Packet. `false`: unknown or none.
    pub dns_malformed: bool,
    /// Whether nDPI's DNS dissector, copying the first question's name of a message it reads
    /// (dns.c `ndpi_grab_dns_name`, its own offsets, a name it drops included), met a byte
    /// other than a letter, digit, '-' or '_' (not on mDNS): nDPI's Non-Printable/Invalid
    /// Chars Detected. `false`: unknown or none.
    pub dns_invalid_chars: bool,
    /// Whether a message nDPI's DNS dissector reads as a response (QR set) had a non-zero
    /// RCODE (dns.c `search_valid_dns`): nDPI's Error Code. `false`: unknown or none.
    pub dns_error_code: bool,
    /// Whether an early payload of the flow, before any protocol was named, began as a script
    /// (`#!/`): nDPI's Possible Exploit ("Shellscript found").
    pub payload_script: bool,
    /// Whether such a payload began as an executable (PE or ELF): nDPI's Binary App Transfer.
    pub payload_executable: bool,
    /// Whether the flow's first ICMP/ICMPv6 message was malformed as nDPI judges it (type or
    /// code unassigned, bad ICMP checksum): nDPI's Malformed Packet.
    pub icmp_malformed: bool,
    /// Whether the client hello carried an encrypted_server_name (ESNI) extension: nDPI's
    /// Missing SNI is not raised then.
    pub tls_esni: bool,
    /// Whether [`RiskFacts::payload_entropy`] was measured before the flow's protocol (or,
    /// for ICMP, its category) was known, so nDPI's rule raises the risk on entropy alone.
    pub entropy_before_dpi: bool,
    /// Whether the verdict was learned from earlier flows' payload verdicts (host cache, DNS,
    /// dedicated port table): the entropy rule takes it as a payload verdict.
    pub verdict_learned: bool,
    /// Whether a gQUIC CHLO was read (its SNI, if any, is in [`RiskFacts::sni`]).
    pub gquic_chlo: bool,
    /// Whether the flow is WebRTC as nDPI tells it (a DTLS client hello offering use_srtp on a
    /// flow that began with STUN): Missing SNI and Not Carrying HTTPS are not raised then.
    pub tls_webrtc: bool,
    /// OR of the TCP flag byte (byte 13 of the TCP header: FIN 0x01, SYN
    /// 0x02, RST 0x04, PSH 0x08, ACK 0x10, URG 0x20, ECE 0x40, CWR 0x80) of every TCP packet
    /// sent client to server (the record's c2s direction). 0 for non-TCP flows or unknown.
    pub c2s_tcp_flags: u8,
    /// The same OR over the packets sent server to client.
    pub s2c_tcp_flags: u8,
    /// Did a TCP packet client to server carry payload (payload length > 0; pure
    /// ACK/SYN/FIN/RST segments do not count)?
    pub c2s_payload: bool,
    /// Did a TCP packet server to client carry payload?
    pub s2c_payload: bool,
    /// TCP packets whose whole flag byte had a value nDPI reports as a scan
    /// (`ndpi_connection_tracking`), as a bit set of [`TCP_NULL_SEEN`], [`TCP_XMAS_SEEN`],
    /// [`TCP_FIN_ONLY_C2S`] and [`TCP_FIN_ONLY_S2C`]. 0 when none or unknown.
    pub tcp_odd_flags: u8,
    /// The first HTTP response's `Content-Type` value, whole (parameters included).
    pub http_content_type: Option<&'a str>,
    /// The first HTTP response's `Server` header.
    pub http_server: Option<&'a str>,
    /// Whether a request or response header name is one nDPI calls suspicious
    /// (`ndpi_check_http_header`; the record's `http_flags` `h`).
    pub http_susp_header_name: Option<bool>,
    /// Whether the response's `Server` value, over 7 bytes, holds a non-printable byte
    /// (`ndpi_check_http_server`; `http_flags` `s`).
    pub http_server_nonprint: Option<bool>,
    /// Whether the first response's `Content-Disposition` names an `exe`, `msi` or `cab`
    /// attachment as nDPI tests it (`ndpi_http_check_content`; `http_flags` `a`).
    pub http_exe_attachment: Option<bool>,
    /// Whether the first response's `Content-Disposition` names an attachment of another kind
    /// (nDPI's "File download"; `http_flags` `d`).
    pub http_data_attachment: Option<bool>,
    /// Whether the first response's body starts with an executable's signature (nDPI's
    /// `ndpi_analyze_content_signature` on `initial_binary_bytes`; `http_flags` `e`).
    pub http_exe_body: Option<bool>,
    /// Whether the first response's first 4 body bytes (in its head segment) are neither text
    /// nor gzip's magic (`ndpi_http_check_human_redeable_content`; `http_flags` `b`).
    pub http_body_binary: Option<bool>,
}

/// [`RiskFacts::tcp_odd_flags`]: a TCP packet (either direction) with flag byte 0 (nDPI's
/// "TCP NULL scan").
pub const TCP_NULL_SEEN: u8 = 1;
/// [`RiskFacts::tcp_odd_flags`]: a TCP packet (either direction) with flag byte exactly
/// FIN|PSH|URG, 0x29 (nDPI's "TCP XMAS scan").
pub const TCP_XMAS_SEEN: u8 = 2;
/// [`RiskFacts::tcp_odd_flags`]: a client-to-server TCP packet with flag byte exactly FIN, 0x01.
pub const TCP_FIN_ONLY_C2S: u8 = 4;
/// [`RiskFacts::tcp_odd_flags`]: a server-to-client TCP packet with flag byte exactly FIN.
pub const TCP_FIN_ONLY_S2C: u8 = 8;

const TLS_MASTERS: &[&str] = &[
    "TLS", "DTLS", "QUIC", "IMAPS", "POPS", "SMTPS", "FTPS", "MQTTS", "DoH_DoT",
];

fn is_http(master: &str) -> bool {
    matches!(master, "HTTP" | "HTTP_Proxy" | "HTTP_Connect")
}

/// What [`assess`](super::assess) asks of a label's names (master, application, category),
/// answered once: a caller that sees many flows of few labels computes it per label
/// ([`LabelKind::of`]) and passes it in [`RiskFacts::kind`], sparing each flow the string
/// comparisons.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LabelKind(u32);

impl LabelKind {
    /// NetFlow, sFlow, RTP or collectd (one-way by design).
    pub(super) const ONE_WAY: u32 = 1;
    /// Syslog.
    pub(super) const SYSLOG: u32 = 1 << 1;
    /// FTP_DATA, or ntop's own application.
    pub(super) const PORT_EXEMPT: u32 = 1 << 2;
    /// The application is RDP.
    pub(super) const RDP: u32 = 1 << 3;
    /// The application is AnyDesk.
    pub(super) const ANYDESK: u32 = 1 << 4;
    /// The application is TeamViewer.
    pub(super) const TEAMVIEWER: u32 = 1 << 5;
    /// An HTTP master.
    pub(super) const HTTP_MASTER: u32 = 1 << 6;
    /// A master carried over TLS, DTLS or QUIC.
    pub(super) const TLS_MASTER: u32 = 1 << 7;
    /// Master DNS or LLMNR.
    pub(super) const DNS_MASTER: u32 = 1 << 8;
    /// Master LLMNR.
    pub(super) const LLMNR_MASTER: u32 = 1 << 9;
    /// Master mDNS.
    pub(super) const MDNS_MASTER: u32 = 1 << 10;
    /// TLS, QUIC or DTLS by either name.
    pub(super) const ENCRYPTED_NAME: u32 = 1 << 11;
    /// HTTP by either name.
    pub(super) const HTTP_NAME: u32 = 1 << 12;
    /// Category Download.
    pub(super) const DOWNLOAD: u32 = 1 << 13;
    /// Category DataTransfer, Unspecified or Web.
    pub(super) const ENTROPY_CATEGORY: u32 = 1 << 14;

    /// The kind of a label by its names.
    pub fn of(master: &str, app: &str, category: &str) -> LabelKind {
        let either = |name: &str| master == name || app == name;
        let mut k = 0;
        for (on, bit) in [
            (
                ["NetFlow", "sFlow", "RTP", "collectd"]
                    .iter()
                    .any(|p| either(p)),
                Self::ONE_WAY,
            ),
            (either("Syslog"), Self::SYSLOG),
            (either("FTP_DATA") || app == "ntop", Self::PORT_EXEMPT),
            (app == "RDP", Self::RDP),
            (app == "AnyDesk", Self::ANYDESK),
            (app == "TeamViewer", Self::TEAMVIEWER),
            (is_http(master), Self::HTTP_MASTER),
            (TLS_MASTERS.contains(&master), Self::TLS_MASTER),
            (matches!(master, "DNS" | "LLMNR"), Self::DNS_MASTER),
            (master == "LLMNR", Self::LLMNR_MASTER),
            (master == "MDNS", Self::MDNS_MASTER),
            (
                ["TLS", "QUIC", "DTLS"].iter().any(|p| either(p)),
                Self::ENCRYPTED_NAME,
            ),
            (either("HTTP"), Self::HTTP_NAME),
            (category == "Download", Self::DOWNLOAD),
            (
                matches!(category, "DataTransfer" | "Unspecified" | "Web"),
                Self::ENTROPY_CATEGORY,
            ),
        ] {
            if on {
                k |= bit;
            }
        }
        LabelKind(k)
    }

    #[inline]
    pub(super) fn has(self, bit: u32) -> bool {
        self.0 & bit != 0
    }

    /// HTTP by either name (nDPI does not measure an HTTP flow's payload entropy).
    #[inline]
    pub fn http(self) -> bool {
        self.has(Self::HTTP_NAME)
    }

    /// Can a payload-decided flow of this label get Susp Entropy (`ndpi_entropy2risk`) without
    /// a hint risk: not TLS, QUIC or DTLS, and a category the rule names (DataTransfer,
    /// Unspecified, Web, Download over HTTP). (DNS's Malformed Packet is a hint too, but DNS
    /// messages are rarely long and random enough: not measured.)
    #[inline]
    pub fn entropy_counts(self) -> bool {
        !self.has(Self::ENCRYPTED_NAME)
            && (self.has(Self::ENTROPY_CATEGORY)
                || (self.has(Self::DOWNLOAD) && self.has(Self::HTTP_NAME)))
    }
}
