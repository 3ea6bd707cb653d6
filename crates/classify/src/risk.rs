//! Flow risks in nDPI's vocabulary: the kinds ([`Risk`]), a set of them ([`RiskSet`]), the pure
//! checks nDPI applies to flow metadata, and [`assess`], which decides every kind it can from
//! what a flow record knows ([`RiskFacts`]). Nothing here allocates; every input is a borrowed
//! string or plain number, so the checks can run on the record path.
//!
//! # Source
//!
//! Facts were read in nDPI's source at commit `3c626c38` (2024, the commit
//! docs/NDPI-ACCOUNTING.md reads; the corpus was made with 3b1286ab, a neighbouring October 2024
//! commit): `ndpi_risk_enum` (`src/include/ndpi_typedefs.h`), `ndpi_risk2str` and
//! `ndpi_risk2score` (`src/lib/ndpi_utils.c`), `ndpi_known_risks` (`src/lib/ndpi_main.c`), and the
//! conditions in `tls.c`, `http.c`, `ndpi_main.c` and `ndpi_utils.c` named on each item. No code
//! was copied; test expectations of nDPI were not read. `scripts/risk_proto.py` applies the same
//! flow rules to the corpus and prints precision/recall per kind against nDPI's own verdicts.
//!
//! # What [`assess`] decides
//!
//! Unidirectional Traffic, Known Proto on Non Std Port, Unsafe Protocol, Desktop/File Sharing
//! (RDP, AnyDesk/TCP, TeamViewer/UDP), Numeric Hostname/SNI, Non-Printable/Invalid Chars (HTTP
//! Host, SNI, DNS/LLMNR names — [`is_valid_dns_name`] — and the names nDPI's DNS parser copies,
//! [`RiskFacts::dns_invalid_chars`]), Possible Exploit (invalid host/SNI characters, Log4J
//! user agent, URL path starting with `/.`, WordPress probes answered with an error, a script
//! at the start of an unnamed flow's first payloads, [`RiskFacts::payload_script`]), HTTP Susp
//! User-Agent, Crawler/Bot, RCE / SQL Injection / XSS / HTTP Susp URL (see [`url_risk`] for how
//! far this follows nDPI), Error Code (HTTP status, DNS rcode of any message nDPI reads),
//! Obsolete TLS, Missing SNI (with nDPI's ESNI and WebRTC exemptions, and gQUIC CHLOs), ALPN/SNI
//! Mismatch, TLS (probably) Not Carrying HTTPS, Self-signed Cert, Weak TLS Cipher
//! ([`RiskFacts::tls_cipher`]), TCP Connection Issues ([`RiskFacts::c2s_tcp_flags`],
//! [`RiskFacts::s2c_tcp_flags`], [`RiskFacts::c2s_payload`], [`RiskFacts::s2c_payload`],
//! [`RiskFacts::tcp_odd_flags`]; see `assess_tcp`), Malformed Packet (DNS,
//! [`RiskFacts::dns_malformed`]; ICMP, [`RiskFacts::icmp_malformed`]), Minor Issues (DNS zero
//! TTL, [`RiskFacts::dns_zero_ttl`]), Susp Entropy ([`RiskFacts::payload_entropy`], which the
//! engine measures only when asked: `--stats entropy`), and from the first HTTP response's head
//! (`assess_http_response`): Binary App Transfer (also an executable at the start of an unnamed
//! flow, [`RiskFacts::payload_executable`]), Binary File/Data Transfer (download media types,
//! attachments), HTTP Susp Content, HTTP Susp Header, HTTP Obsolete Server. TLS Cert Expired /
//! Validity Too Long and Clear-Text Credentials are decided once the engine fills their facts
//! ([`RiskFacts::cert_not_after`], [`RiskFacts::clear_text_credentials`]); it does not yet.
//!
//! The HTTP response rules follow the `http.c` of late 2024 (ntop/nDPI 3b0d2d9c; the corpus's
//! commit is not stored in the code search); the DNS, ICMP and first-payload rules follow
//! `dns.c` and `ndpi_main.c` at the corpus's commit 3c626c38.
//!
//! # Left to later (nDPI decides them on data a flow record does not hold)
//!
//! * Probing Attempt, Fully Encrypted Flow, Obfuscated Traffic, TLS Fatal Alert, TLS Susp
//!   Extn, TLS Susp ESNI Usage, Uncommon TLS ALPN, Large/Fragmented DNS, Susp DNS Traffic:
//!   per-packet parser events (record lengths, extension ids) the dissectors do not report.
//! * SSH Obsolete Cli/Ser Vers/Cipher, SMB Insecure Vers: need the SSH key-exchange cipher lists
//!   and the SMB dialect.
//! * TLS Cert Mismatch, TLS Cert About To Expire: need the certificate's SAN list and nDPI's
//!   configured warning window.
//! * Susp DGA Domain name: nDPI's `ndpi_check_dga_name` scores names with bigram tables and
//!   several numeric heuristics; not describable in a few rules, so it is left out.
//! * Malicious Fingerpint, Malicious SSL Cert/SHA1 Fingerp., Risky ASN, Risky Domain Name,
//!   Client Contacted A Malware Host, Anonymous Subscriber, Periodic Flow, IDN Domain Name:
//!   lists loaded into nDPI (JA4/SHA1 blacklists, ASN, malware hosts) or application-level
//!   state.
//!
//! # Where this differs from nDPI
//!
//! nDPI sets risks packet by packet while it dissects; `assess` sees the record at the end. So a
//! risk nDPI set and later cleared in a flow (e.g. an HTTP request answered on a second request
//! in the same connection) may differ. Numeric SNI is flagged even where nDPI first matched the
//! SNI against its host list (it then skips the check); the TLS checks assume the client hello
//! did not carry `use_srtp` (nDPI's WebRTC exemption), which the record does not say.

use crate::Breed;
use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// nDPI's risk severity (`ndpi_risk_severity`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    /// `NDPI_RISK_LOW`, score 10.
    Low,
    /// `NDPI_RISK_MEDIUM`, score 50.
    Medium,
    /// `NDPI_RISK_HIGH`, score 100.
    High,
    /// `NDPI_RISK_SEVERE`, score 150.
    Severe,
    /// `NDPI_RISK_CRITICAL`, score 200 (no kind has it in nDPI's table).
    Critical,
    /// `NDPI_RISK_EMERGENCY`, score 250 (no kind has it in nDPI's table).
    Emergency,
}

impl Severity {
    /// nDPI's score for the severity (`ndpi_risk_score`: 10, 50, 100, 150, 200, 250).
    pub fn score(self) -> u16 {
        match self {
            Severity::Low => 10,
            Severity::Medium => 50,
            Severity::High => 100,
            Severity::Severe => 150,
            Severity::Critical => 200,
            Severity::Emergency => 250,
        }
    }

    /// nDPI's spelling (`ndpi_severity2str`).
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Low => "Low",
            Severity::Medium => "Medium",
            Severity::High => "High",
            Severity::Severe => "Severe",
            Severity::Critical => "Critical",
            Severity::Emergency => "Emergency",
        }
    }
}

macro_rules! risks {
    ($($(#[$doc:meta])* $v:ident = $id:literal, $name:literal, $sev:ident, $pct:literal;)*) => {
        /// A flow-risk kind, numbered as nDPI's `ndpi_risk_enum` (the discriminant is nDPI's
        /// risk id and the bit index in [`RiskSet`]).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum Risk { $($(#[$doc])* $v = $id,)* }

        impl Risk {
            /// Every kind, in id order.
            pub const ALL: &'static [Risk] = &[$(Risk::$v,)*];

            /// The text nDPI prints for the kind (`ndpi_risk2str`, its spelling kept).
            pub fn name(self) -> &'static str {
                match self { $(Risk::$v => $name,)* }
            }

            /// Severity in nDPI's risk table (`ndpi_known_risks`).
            pub fn severity(self) -> Severity {
                match self { $(Risk::$v => Severity::$sev,)* }
            }

            /// Percentage of the score nDPI charges to the client (`default_client_risk_pctg`
            /// in `ndpi_known_risks`); the rest goes to the server.
            pub fn client_percent(self) -> u8 {
                match self { $(Risk::$v => $pct,)* }
            }

            /// The kind with nDPI id `id` (1 to 56).
            pub fn from_id(id: u8) -> Option<Risk> {
                match id { $($id => Some(Risk::$v),)* _ => None }
            }
        }
    };
}

risks! {
    /// `NDPI_URL_POSSIBLE_XSS`.
    UrlPossibleXss = 1, "XSS Attack", Severe, 90;
    /// `NDPI_URL_POSSIBLE_SQL_INJECTION`.
    UrlPossibleSqlInjection = 2, "SQL Injection", Severe, 90;
    /// `NDPI_URL_POSSIBLE_RCE_INJECTION`.
    UrlPossibleRceInjection = 3, "RCE Injection", Severe, 90;
    /// `NDPI_BINARY_APPLICATION_TRANSFER`.
    BinaryApplicationTransfer = 4, "Binary App Transfer", Severe, 50;
    /// `NDPI_KNOWN_PROTOCOL_ON_NON_STANDARD_PORT`.
    KnownProtocolOnNonStandardPort = 5, "Known Proto on Non Std Port", Medium, 50;
    /// `NDPI_TLS_SELFSIGNED_CERTIFICATE`.
    TlsSelfsignedCertificate = 6, "Self-signed Cert", High, 90;
    /// `NDPI_TLS_OBSOLETE_VERSION`.
    TlsObsoleteVersion = 7, "Obsolete TLS (v1.1 or older)", High, 90;
    /// `NDPI_TLS_WEAK_CIPHER`.
    TlsWeakCipher = 8, "Weak TLS Cipher", High, 90;
    /// `NDPI_TLS_CERTIFICATE_EXPIRED`.
    TlsCertificateExpired = 9, "TLS Cert Expired", High, 10;
    /// `NDPI_TLS_CERTIFICATE_MISMATCH`.
    TlsCertificateMismatch = 10, "TLS Cert Mismatch", High, 50;
    /// `NDPI_HTTP_SUSPICIOUS_USER_AGENT`.
    HttpSuspiciousUserAgent = 11, "HTTP Susp User-Agent", High, 90;
    /// `NDPI_NUMERIC_IP_HOST`.
    NumericIpHost = 12, "HTTP/TLS/QUIC Numeric Hostname/SNI", Low, 50;
    /// `NDPI_HTTP_SUSPICIOUS_URL`.
    HttpSuspiciousUrl = 13, "HTTP Susp URL", High, 90;
    /// `NDPI_HTTP_SUSPICIOUS_HEADER`.
    HttpSuspiciousHeader = 14, "HTTP Susp Header", High, 90;
    /// `NDPI_TLS_NOT_CARRYING_HTTPS`.
    TlsNotCarryingHttps = 15, "TLS (probably) Not Carrying HTTPS", Low, 50;
    /// `NDPI_SUSPICIOUS_DGA_DOMAIN`.
    SuspiciousDgaDomain = 16, "Susp DGA Domain name", High, 90;
    /// `NDPI_MALFORMED_PACKET`.
    MalformedPacket = 17, "Malformed Packet", Low, 50;
    /// `NDPI_SSH_OBSOLETE_CLIENT_VERSION_OR_CIPHER`.
    SshObsoleteClientVersionOrCipher = 18, "SSH Obsolete Cli Vers/Cipher", High, 90;
    /// `NDPI_SSH_OBSOLETE_SERVER_VERSION_OR_CIPHER`.
    SshObsoleteServerVersionOrCipher = 19, "SSH Obsolete Ser Vers/Cipher", Medium, 10;
    /// `NDPI_SMB_INSECURE_VERSION`.
    SmbInsecureVersion = 20, "SMB Insecure Vers", High, 90;
    /// `NDPI_TLS_SUSPICIOUS_ESNI_USAGE`.
    TlsSuspiciousEsniUsage = 21, "TLS Susp ESNI Usage", Medium, 50;
    /// `NDPI_UNSAFE_PROTOCOL`.
    UnsafeProtocol = 22, "Unsafe Protocol", Low, 50;
    /// `NDPI_DNS_SUSPICIOUS_TRAFFIC`.
    DnsSuspiciousTraffic = 23, "Susp DNS Traffic", Medium, 90;
    /// `NDPI_TLS_MISSING_SNI`.
    TlsMissingSni = 24, "Missing SNI TLS Extn", Medium, 50;
    /// `NDPI_HTTP_SUSPICIOUS_CONTENT`.
    HttpSuspiciousContent = 25, "HTTP Susp Content", High, 90;
    /// `NDPI_RISKY_ASN`.
    RiskyAsn = 26, "Risky ASN", Medium, 50;
    /// `NDPI_RISKY_DOMAIN`.
    RiskyDomain = 27, "Risky Domain Name", Medium, 50;
    /// `NDPI_MALICIOUS_FINGERPRINT` (nDPI prints it "Fingerpint").
    MaliciousFingerprint = 28, "Malicious Fingerpint", Medium, 50;
    /// `NDPI_MALICIOUS_SHA1_CERTIFICATE`.
    MaliciousSha1Certificate = 29, "Malicious SSL Cert/SHA1 Fingerp.", Medium, 50;
    /// `NDPI_DESKTOP_OR_FILE_SHARING_SESSION`.
    DesktopOrFileSharingSession = 30, "Desktop/File Sharing", Low, 50;
    /// `NDPI_TLS_UNCOMMON_ALPN`.
    TlsUncommonAlpn = 31, "Uncommon TLS ALPN", Medium, 50;
    /// `NDPI_TLS_CERT_VALIDITY_TOO_LONG`.
    TlsCertValidityTooLong = 32, "TLS Cert Validity Too Long", Medium, 50;
    /// `NDPI_TLS_SUSPICIOUS_EXTENSION`.
    TlsSuspiciousExtension = 33, "TLS Susp Extn", High, 90;
    /// `NDPI_TLS_FATAL_ALERT`.
    TlsFatalAlert = 34, "TLS Fatal Alert", Low, 50;
    /// `NDPI_SUSPICIOUS_ENTROPY`.
    SuspiciousEntropy = 35, "Susp Entropy", Low, 50;
    /// `NDPI_CLEAR_TEXT_CREDENTIALS`.
    ClearTextCredentials = 36, "Clear-Text Credentials", High, 90;
    /// `NDPI_DNS_LARGE_PACKET`.
    DnsLargePacket = 37, "Large DNS Packet (512+ bytes)", Medium, 50;
    /// `NDPI_DNS_FRAGMENTED`.
    DnsFragmented = 38, "Fragmented DNS Message", Medium, 50;
    /// `NDPI_INVALID_CHARACTERS`.
    InvalidCharacters = 39, "Non-Printable/Invalid Chars Detected", High, 90;
    /// `NDPI_POSSIBLE_EXPLOIT`.
    PossibleExploit = 40, "Possible Exploit Attempt", Severe, 90;
    /// `NDPI_TLS_CERTIFICATE_ABOUT_TO_EXPIRE`.
    TlsCertificateAboutToExpire = 41, "TLS Cert About To Expire", Medium, 10;
    /// `NDPI_PUNYCODE_IDN`.
    PunycodeIdn = 42, "IDN Domain Name", Low, 10;
    /// `NDPI_ERROR_CODE_DETECTED`.
    ErrorCodeDetected = 43, "Error Code", Low, 10;
    /// `NDPI_HTTP_CRAWLER_BOT`.
    HttpCrawlerBot = 44, "Crawler/Bot", Low, 10;
    /// `NDPI_ANONYMOUS_SUBSCRIBER`.
    AnonymousSubscriber = 45, "Anonymous Subscriber", Medium, 50;
    /// `NDPI_UNIDIRECTIONAL_TRAFFIC`.
    UnidirectionalTraffic = 46, "Unidirectional Traffic", Low, 50;
    /// `NDPI_HTTP_OBSOLETE_SERVER`.
    HttpObsoleteServer = 47, "HTTP Obsolete Server", Medium, 10;
    /// `NDPI_PERIODIC_FLOW`.
    PeriodicFlow = 48, "Periodic Flow", Low, 10;
    /// `NDPI_MINOR_ISSUES`.
    MinorIssues = 49, "Minor Issues", Low, 10;
    /// `NDPI_TCP_ISSUES`.
    TcpIssues = 50, "TCP Connection Issues", Medium, 50;
    /// `NDPI_FULLY_ENCRYPTED`.
    FullyEncrypted = 51, "Fully Encrypted Flow", Medium, 50;
    /// `NDPI_TLS_ALPN_SNI_MISMATCH`.
    TlsAlpnSniMismatch = 52, "ALPN/SNI Mismatch", Medium, 50;
    /// `NDPI_MALWARE_HOST_CONTACTED`.
    MalwareHostContacted = 53, "Client Contacted A Malware Host", Severe, 90;
    /// `NDPI_BINARY_DATA_TRANSFER`.
    BinaryDataTransfer = 54, "Binary File/Data Transfer (Attempt)", Medium, 50;
    /// `NDPI_PROBING_ATTEMPT`.
    ProbingAttempt = 55, "Probing Attempt", Medium, 50;
    /// `NDPI_OBFUSCATED_TRAFFIC`.
    ObfuscatedTraffic = 56, "Obfuscated Traffic", High, 90;
}

impl Risk {
    /// nDPI's risk id (the bit index in nDPI's `ndpi_risk` bitmap and in [`RiskSet`]).
    pub fn id(self) -> u8 {
        self as u8
    }

    /// nDPI's score for the kind: its severity's score.
    pub fn score(self) -> u16 {
        self.severity().score()
    }

    /// The kind nDPI prints as `name` (exact, case-sensitive).
    pub fn from_name(name: &str) -> Option<Risk> {
        Risk::ALL.iter().copied().find(|r| r.name() == name)
    }
}

impl fmt::Display for Risk {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A set of [`Risk`]s: bit *i* is nDPI risk id *i* (nDPI has 56 kinds, so 64 bits suffice, as
/// nDPI's own `u_int64_t ndpi_risk`). Bit 0 (`NDPI_NO_RISK`) is never set.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct RiskSet(u64);

impl RiskSet {
    /// No risk.
    pub const EMPTY: RiskSet = RiskSet(0);

    /// The set from nDPI's bitmap value (bits that name no kind are dropped).
    pub fn from_bits(bits: u64) -> RiskSet {
        let known = Risk::ALL.iter().fold(0u64, |m, r| m | 1 << r.id());
        RiskSet(bits & known)
    }

    /// nDPI's bitmap value.
    pub fn bits(self) -> u64 {
        self.0
    }

    /// Add `r`.
    pub fn set(&mut self, r: Risk) {
        self.0 |= 1 << r.id();
    }

    /// Remove `r`.
    pub fn unset(&mut self, r: Risk) {
        self.0 &= !(1 << r.id());
    }

    /// Whether `r` is in the set.
    pub fn has(self, r: Risk) -> bool {
        self.0 & (1 << r.id()) != 0
    }

    /// Whether the set is empty.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Number of kinds in the set.
    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// The kinds in id order.
    pub fn iter(self) -> impl Iterator<Item = Risk> {
        let mut bits = self.0;
        std::iter::from_fn(move || {
            while bits != 0 {
                let i = bits.trailing_zeros() as u8;
                bits &= bits - 1;
                if let Some(r) = Risk::from_id(i) {
                    return Some(r);
                }
            }
            None
        })
    }

    /// The flow's score as nDPI computes it (`ndpi_risk2score`'s return value): the sum of the
    /// kinds' severity scores. This is the *total*, which equals nDPI's client score plus server
    /// score exactly (nDPI gives the client `score × pct / 100`, rounded down, and the server
    /// the remainder), so it does not depend on which end is blamed — the number to rank flows
    /// by; [`RiskSet::client_score`] and [`RiskSet::server_score`] give the split.
    pub fn score(self) -> u32 {
        self.iter().map(|r| u32::from(r.score())).sum()
    }

    /// The client's share of [`RiskSet::score`] (nDPI's `client_score`).
    pub fn client_score(self) -> u32 {
        self.iter()
            .map(|r| u32::from(r.score()) * u32::from(r.client_percent()) / 100)
            .sum()
    }

    /// The server's share of [`RiskSet::score`] (nDPI's `server_score`).
    pub fn server_score(self) -> u32 {
        self.score() - self.client_score()
    }

    /// Parse nDPI's printed list (names `;`-separated, as [`Display`](fmt::Display) writes and
    /// the corpus's `risks` column holds); an empty string is the empty set. `None` if a name is
    /// not one of nDPI's.
    pub fn parse(s: &str) -> Option<RiskSet> {
        let mut set = RiskSet::EMPTY;
        if s.is_empty() {
            return Some(set);
        }
        for name in s.split(';') {
            set.set(Risk::from_name(name)?);
        }
        Some(set)
    }
}

impl FromIterator<Risk> for RiskSet {
    fn from_iter<I: IntoIterator<Item = Risk>>(iter: I) -> Self {
        let mut s = RiskSet::EMPTY;
        for r in iter {
            s.set(r);
        }
        s
    }
}

impl fmt::Display for RiskSet {
    /// nDPI's names in id order, `;`-separated, no spaces around `;`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, r) in self.iter().enumerate() {
            if i > 0 {
                f.write_str(";")?;
            }
            f.write_str(r.name())?;
        }
        Ok(())
    }
}

impl fmt::Debug for RiskSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RiskSet({self})")
    }
}

// ------------------------------------------------------------------------------------ hosts

/// Whether `s` is an IP literal: IPv4 (dotted quad, no leading zeros, as `inet_pton` takes it)
/// or IPv6, optionally with a port (`1.2.3.4:80`) or in brackets (`[::1]`, `[::1]:443`). This
/// is the union of nDPI's two checks; [`assess`] uses the exact one per protocol
/// ([`is_numeric_sni`] for TLS/QUIC, [`is_numeric_http_host`] for HTTP).
pub fn is_numeric_host(s: &str) -> bool {
    if let Some(rest) = s.strip_prefix('[') {
        let Some(end) = rest.find(']') else {
            return false;
        };
        let after = &rest[end + 1..];
        let port_ok = after.is_empty() || after.strip_prefix(':').is_some_and(is_port);
        return port_ok && rest[..end].parse::<Ipv6Addr>().is_ok();
    }
    if s.parse::<Ipv6Addr>().is_ok() || s.parse::<Ipv4Addr>().is_ok() {
        return true;
    }
    match s.rsplit_once(':') {
        Some((h, p)) => is_port(p) && h.parse::<Ipv4Addr>().is_ok(),
        None => false,
    }
}

fn is_port(p: &str) -> bool {
    !p.is_empty() && p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit())
}

/// nDPI's TLS/QUIC check (`check_sni_is_numeric_ip`, tls.c): the SNI parses as an IPv4 or IPv6
/// address with `inet_pton` — no port, no brackets.
pub fn is_numeric_sni(sni: &str) -> bool {
    sni.parse::<Ipv4Addr>().is_ok() || sni.parse::<Ipv6Addr>().is_ok()
}

/// nDPI's HTTP check (`ndpi_check_numeric_ip`, http.c): the Host header starts with a digit, is
/// shorter than 21 bytes, and — with any `:port` cut — is an IPv4 address in canonical dotted
/// form (`inet_addr` then `inet_ntoa` gives it back unchanged). Bracketed IPv6 hosts are not
/// flagged by nDPI's HTTP dissector.
pub fn is_numeric_http_host(host: &str) -> bool {
    if !host.as_bytes().first().is_some_and(u8::is_ascii_digit) || host.len() >= 21 {
        return false;
    }
    let h = host.split(':').next().unwrap_or(host);
    h.parse::<Ipv4Addr>().is_ok()
}

/// nDPI's host-name character check (`ndpi_is_valid_hostname`, ndpi_utils.c), applied to the
/// HTTP Host and the TLS SNI (DNS names have their own, [`is_valid_dns_name`]): every byte printable ASCII, no space, no
/// punctuation except `.` `-` `_` `:`.
///
/// Input is text as this project writes metadata: a control byte appears as `\ooo` and an
/// invalid UTF-8 sequence as U+FFFD. Both fail (`\` is punctuation; any non-ASCII character is
/// not `isprint` in nDPI's C locale), as the raw bytes fail in nDPI.
pub fn is_valid_hostname(s: &str) -> bool {
    s.bytes()
        .all(|b| matches!(b, b'.' | b'-' | b'_' | b':') || b.is_ascii_alphanumeric())
}

/// nDPI's DNS name check (dns.c `ndpi_grab_dns_name` with its `dns_validchar` table): every byte
/// of every label is a letter, digit, `_` or `-`; `.` joins labels. The empty name (written
/// `<root>` in the record) and a name nDPI stops reading at a compressed or extended label
/// (written `<Unknown extended label>`) are valid: nDPI reads no character of them.
pub fn is_valid_dns_name(name: &str) -> bool {
    name.bytes()
        .all(|b| matches!(b, b'.' | b'_' | b'-') || b.is_ascii_alphanumeric())
        || (name.starts_with('<') && (name == "<root>" || name == "<Unknown extended label>"))
}

/// Whether every character is printable ASCII (nDPI's `ndpi_is_printable_buffer` /
/// `ndpi_normalize_printable_string`, used on TLS ALPN and certificate fields). A `\ooo` escape
/// (how this project writes a control byte) counts as non-printable.
pub fn is_printable_name(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if !(0x20..0x7f).contains(&c) {
            return false;
        }
        if c == b'\\'
            && b.len() >= i + 4
            && b[i + 1..i + 4].iter().all(|d| (b'0'..=b'7').contains(d))
        {
            return false;
        }
        i += 1;
    }
    true
}

/// Whether `addr` is what nDPI treats as multicast or broadcast (`ndpi_is_multi_or_broadcast`,
/// ndpi_main.c), the destinations exempt from Unidirectional Traffic: IPv4 with the top three
/// bits set (224.0.0.0/3), or a last octet of 0 or 255 (nDPI's own approximation of subnet
/// broadcast); IPv6 `ff00::/8`.
pub fn is_multi_or_broadcast(addr: IpAddr) -> bool {
    match addr {
        IpAddr::V4(a) => {
            let o = a.octets();
            o[0] & 0xe0 == 0xe0 || o[3] == 0 || o[3] == 0xff
        }
        IpAddr::V6(a) => a.octets()[0] == 0xff,
    }
}

// ------------------------------------------------------------------------------ user agent

/// Whether nDPI's HTTP dissector flags the User-Agent as suspicious (`ndpi_check_user_agent`,
/// http.c): longer than 12 characters, letters only, and at least 20% of them upper case;
/// starting with `<?` or holding `$`; holding `://` not at the start and not preceded by `p` or
/// `s` (i.e. not `http://`/`https://`); shorter than 4 or longer than 256 characters; starting
/// with `test`; holding `{` or `}`. A Log4J lookup (`jndi:ldap://…`) is Possible Exploit instead
/// ([`ua_is_exploit`]), unless one of the first three rules also holds. An empty or missing
/// User-Agent on a request is flagged by [`assess`], not here.
pub fn suspicious_user_agent(ua: &str) -> bool {
    let b = ua.as_bytes();
    let n = b.len();
    if n == 0 {
        return false;
    }
    if n > 12 && b.iter().all(u8::is_ascii_alphabetic) {
        let upper = b.iter().filter(|c| c.is_ascii_uppercase()).count();
        if upper as f32 / n as f32 >= 0.2 {
            return true;
        }
    }
    if ua.starts_with("<?") || ua.contains('$') {
        return true;
    }
    if let Some(i) = ua.find("://") {
        if i > 0 && b[i - 1] != b'p' && b[i - 1] != b's' {
            return true;
        }
    }
    if ua_is_exploit(ua) {
        return false;
    }
    !(4..=256).contains(&n) || ua.starts_with("test") || ua.contains('{') || ua.contains('}')
}

/// A Log4J lookup as the User-Agent (`jndi:ldap://` prefix): nDPI's Possible Exploit.
pub fn ua_is_exploit(ua: &str) -> bool {
    ua.starts_with("jndi:ldap://")
}

/// nDPI's crawler test on the User-Agent (http.c): holds `+http:` or ` http:`, or `Crawler` or
/// `Bot` in any case.
pub fn ua_is_crawler(ua: &str) -> bool {
    // One pass: each position is tried only by the needles its byte can start.
    let b = ua.as_bytes();
    (0..b.len()).any(|i| {
        let rest = &b[i..];
        match b[i] {
            b'+' | b' ' => rest[1..].starts_with(b"http:"),
            b'c' | b'C' => rest
                .get(..7)
                .is_some_and(|w| w.eq_ignore_ascii_case(b"crawler")),
            b'b' | b'B' => rest
                .get(..3)
                .is_some_and(|w| w.eq_ignore_ascii_case(b"bot")),
            _ => false,
        }
    })
}

// ------------------------------------------------------------------------------------- URL

/// Most bytes of one query value decoded for the injection checks (longer values are checked
/// on their first `DECODE_CAP` decoded bytes).
pub const DECODE_CAP: usize = 1024;

/// nDPI's URL validation (`ndpi_validate_url`, ndpi_utils.c) on an HTTP URL as nDPI records it
/// (`host/path?query`). For each `name=value` pair of the query (split on `&`, stopping at the
/// first pair without `=`), the non-empty value is URL-decoded once (`+` is a space; a value
/// with a bad `%` escape is skipped) and checked for XSS, then SQL injection, then RCE; the
/// first hit is the answer. With no hit, a URL holding `..` is HTTP Susp URL.
///
/// nDPI decides XSS and SQLi with libinjection and RCE with ModSecurity CRS 932 regexes
/// (PCRE2) plus lists of shell paths and PowerShell cmdlets. This is a bounded approximation:
///
/// * XSS: an HTML tag that can run script (`<script`, `<iframe`, `<svg`, `<img`, `<object`,
///   …), an `on…=` event attribute inside a tag, or a `javascript:`/`vbscript:` URL.
///   libinjection parses HTML states and catches more obfuscations.
/// * SQLi: `union … select`; a quote (optionally `)`) followed by an SQL keyword or operator
///   word (`or`, `and`, `union`, `select`, `order by`, `sleep`, …); a quote followed by a
///   comment (`--`, `#`, `/*`). libinjection tokenises SQL and matches fingerprints, so it
///   finds numeric-context injections without quotes that this misses.
/// * RCE: CRS 932150's "direct" form (the value starts with a Unix command and a separator,
///   `ls -al`); CRS 932100's form (after `;` `|` `||` `&` `&&` `` ` `` `$(` `${` `<(` `>(` or a
///   newline, optional quotes/`{`/`(`/`!`/`$` and a path, a Unix command word); the shell-path
///   list (`bin/sh`, `etc/passwd`, `/dev/tcp/`, …) and common PowerShell cmdlets. The command
///   list is shorter than CRS's and quote-splitting evasions (`l'"s`) are not undone.
///
/// Values are decoded into a stack buffer of [`DECODE_CAP`] bytes.
pub fn url_risk(url: &str) -> Option<Risk> {
    if let Some(q) = url.find('?') {
        let mut buf = [0u8; DECODE_CAP];
        for pair in url[q + 1..].split('&') {
            let Some(eq) = pair.find('=') else {
                break;
            };
            let value = &pair[eq + 1..];
            if value.is_empty() {
                continue;
            }
            let Some(len) = url_decode(value.as_bytes(), &mut buf) else {
                continue;
            };
            let v = &buf[..len];
            if v.is_empty() {
                continue;
            }
            if is_xss(v) {
                return Some(Risk::UrlPossibleXss);
            }
            if is_sqli(v) {
                return Some(Risk::UrlPossibleSqlInjection);
            }
            if is_rce(v) {
                return Some(Risk::UrlPossibleRceInjection);
            }
        }
    }
    url.contains("..").then_some(Risk::HttpSuspiciousUrl)
}

/// nDPI's checks on the URL path (`ndpi_check_http_url`, http.c): `<php>` anywhere or a
/// `/shell?` prefix is RCE Injection; a `/.` prefix (`/.env`, `/.git`) is Possible Exploit.
/// `path` starts at the first `/` after the host.
pub fn http_path_risk(path: &str) -> Option<Risk> {
    if path.contains("<php>") || path.starts_with("/shell?") {
        Some(Risk::UrlPossibleRceInjection)
    } else if path.starts_with("/.") {
        Some(Risk::PossibleExploit)
    } else {
        None
    }
}

/// Decode `%XX` and `+` into `out`; `None` on a bad escape (nDPI skips such a value). Output
/// past `out`'s length is dropped.
fn url_decode(s: &[u8], out: &mut [u8]) -> Option<usize> {
    let (mut i, mut o) = (0, 0);
    while i < s.len() {
        let c = match s[i] {
            b'+' => b' ',
            b'%' => {
                let h = hex(*s.get(i + 1)?)?;
                let l = hex(*s.get(i + 2)?)?;
                i += 2;
                h << 4 | l
            }
            c => c,
        };
        if o < out.len() {
            out[o] = c;
            o += 1;
        }
        i += 1;
    }
    Some(o)
}

fn hex(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

fn contains_ci(hay: &[u8], needle: &[u8]) -> bool {
    find_ci(hay, needle, 0).is_some()
}

/// First index at or after `from` where `needle` (lower-case ASCII) occurs, ignoring case.
/// Candidates are found by the first byte alone (a tight scan), then the rest compared.
fn find_ci(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    let (&first, rest) = needle.split_first()?;
    let last = hay.len().checked_sub(needle.len())?;
    let mut i = from;
    while i <= last {
        i += hay[i..=last]
            .iter()
            .position(|c| c.to_ascii_lowercase() == first)?;
        if hay[i + 1..i + needle.len()].eq_ignore_ascii_case(rest) {
            return Some(i);
        }
        i += 1;
    }
    None
}

fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

fn skip_ws(v: &[u8], mut i: usize) -> usize {
    while i < v.len() && v[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

const XSS_TAGS: &[&[u8]] = &[
    b"script",
    b"iframe",
    b"frame",
    b"frameset",
    b"object",
    b"embed",
    b"applet",
    b"svg",
    b"meta",
    b"base",
    b"link",
    b"style",
    b"form",
    b"xml",
    b"img",
    b"body",
    b"input",
    b"video",
    b"audio",
    b"marquee",
    b"isindex",
];

fn is_xss(v: &[u8]) -> bool {
    if contains_ci(v, b"javascript:") || contains_ci(v, b"vbscript:") {
        return true;
    }
    let mut i = 0;
    while let Some(lt) = v[i..].iter().position(|&c| c == b'<') {
        let start = lt + i;
        let mut j = skip_ws(v, start + 1);
        if j < v.len() && v[j] == b'/' {
            j = skip_ws(v, j + 1);
        }
        let name_end = (j..v.len())
            .find(|&k| !v[k].is_ascii_alphabetic())
            .unwrap_or(v.len());
        let name = &v[j..name_end];
        if !name.is_empty() && XSS_TAGS.iter().any(|t| name.eq_ignore_ascii_case(t)) {
            return true;
        }
        // An event-handler attribute inside this tag: whitespace or '/', "on", letters, '='.
        let tag_end = v[start..]
            .iter()
            .position(|&c| c == b'>')
            .map_or(v.len(), |p| start + p);
        let tag = &v[start..tag_end];
        let mut k = 1;
        while k + 2 < tag.len() {
            if (tag[k].is_ascii_whitespace() || tag[k] == b'/')
                && tag[k + 1..].len() >= 2
                && tag[k + 1..k + 3].eq_ignore_ascii_case(b"on")
            {
                let mut e = k + 3;
                while e < tag.len() && tag[e].is_ascii_alphabetic() {
                    e += 1;
                }
                e = skip_ws(tag, e);
                if e > k + 3 && e < tag.len() && tag[e] == b'=' {
                    return true;
                }
            }
            k += 1;
        }
        i = start + 1;
    }
    false
}

const SQL_WORDS: &[&[u8]] = &[
    b"union",
    b"select",
    b"insert",
    b"update",
    b"delete",
    b"drop",
    b"or",
    b"and",
    b"having",
    b"order",
    b"group",
    b"sleep",
    b"benchmark",
    b"waitfor",
    b"exec",
    b"xor",
    b"like",
];

fn is_sqli(v: &[u8]) -> bool {
    // union [all] select
    let mut from = 0;
    while let Some(u) = find_ci(v, b"union", from) {
        let mut j = skip_ws(v, u + 5);
        if j > u + 5 || v.get(j) == Some(&b'(') || v.get(j) == Some(&b'/') {
            if v.len() >= j + 3 && v[j..j + 3].eq_ignore_ascii_case(b"all") {
                j = skip_ws(v, j + 3);
            }
            if v.len() >= j + 6 && v[j..j + 6].eq_ignore_ascii_case(b"select") {
                return true;
            }
        }
        from = u + 1;
    }
    // a quote, then (optionally ')' or ';') a keyword or a comment
    for (q, _) in v
        .iter()
        .enumerate()
        .filter(|(_, &c)| matches!(c, b'\'' | b'"' | b'`'))
    {
        let mut j = skip_ws(v, q + 1);
        if j < v.len() && (v[j] == b')' || v[j] == b';') {
            j = skip_ws(v, j + 1);
        }
        let rest = &v[j..];
        if rest.starts_with(b"--") || rest.starts_with(b"#") || rest.starts_with(b"/*") {
            return true;
        }
        let w = rest.iter().position(|&c| !is_word(c)).unwrap_or(rest.len());
        if w > 0 && SQL_WORDS.iter().any(|k| rest[..w].eq_ignore_ascii_case(k)) {
            return true;
        }
    }
    false
}

/// Unix command words for the RCE approximation (a subset of CRS 932's lists).
const UNIX_CMDS: &[&[u8]] = &[
    b"awk",
    b"base64",
    b"bash",
    b"cat",
    b"chmod",
    b"chown",
    b"cp",
    b"crontab",
    b"csh",
    b"curl",
    b"echo",
    b"env",
    b"find",
    b"ftp",
    b"gcc",
    b"grep",
    b"gzip",
    b"head",
    b"id",
    b"ifconfig",
    b"kill",
    b"ksh",
    b"less",
    b"ls",
    b"mkdir",
    b"more",
    b"mv",
    b"nc",
    b"ncat",
    b"netcat",
    b"netstat",
    b"nmap",
    b"nslookup",
    b"passwd",
    b"perl",
    b"php",
    b"ping",
    b"ps",
    b"python",
    b"python2",
    b"python3",
    b"rm",
    b"ruby",
    b"sed",
    b"sh",
    b"sleep",
    b"socat",
    b"su",
    b"sudo",
    b"tail",
    b"tar",
    b"telnet",
    b"tftp",
    b"touch",
    b"uname",
    b"unzip",
    b"uptime",
    b"useradd",
    b"wget",
    b"who",
    b"whoami",
    b"xargs",
    b"zsh",
];

/// Shell paths and variables whose mere presence nDPI treats as RCE (a subset of its list).
const SHELL_SNIPPETS: &[&[u8]] = &[
    b"${IFS}",
    b"$IFS",
    b"${PATH}",
    b"bin/bash",
    b"bin/cat",
    b"bin/ls",
    b"bin/nc",
    b"bin/sh",
    b"bin/uname",
    b"dev/tcp/",
    b"dev/udp/",
    b"etc/passwd",
    b"etc/shadow",
    b"etc/group",
    b"proc/self/",
    b"usr/bin/",
    b"usr/local/bin/",
];

/// PowerShell words nDPI treats as RCE (a subset of its cmdlet list).
const PWSH: &[&[u8]] = &[
    b"powershell.exe",
    b"Invoke-Expression",
    b"Invoke-Command",
    b"Invoke-WebRequest",
    b"Start-Process",
    b"New-Object",
    b"Get-Content",
    b"Set-Content",
    b"-EncodedCommand",
    b"-ExecutionPolicy",
];

/// The first bytes of the RCE needles ([`SHELL_SNIPPETS`], [`PWSH`]), so one pass over a value
/// tries only the positions where one of them may start.
const RCE_FIRST: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < SHELL_SNIPPETS.len() {
        t[SHELL_SNIPPETS[i][0] as usize] = true;
        i += 1;
    }
    i = 0;
    while i < PWSH.len() {
        t[PWSH[i][0] as usize] = true;
        i += 1;
    }
    t
};

/// Does any shell snippet or PowerShell cmdlet occur in `v` (exact bytes)? One pass: a position
/// is tried against the needles only when a needle starts with its byte.
fn rce_needle(v: &[u8]) -> bool {
    v.iter().enumerate().any(|(i, &c)| {
        RCE_FIRST[usize::from(c)]
            && SHELL_SNIPPETS
                .iter()
                .chain(PWSH)
                .any(|s| v[i..].starts_with(s))
    })
}

/// A command word at `i` (after quotes, prefixes and an optional path), followed by
/// `need_sep` (a separator) or by any non-word byte.
fn command_at(v: &[u8], mut i: usize, need_sep: bool) -> bool {
    while i < v.len()
        && matches!(
            v[i],
            b' ' | b'\t' | b'\'' | b'"' | b'\\' | b'{' | b'(' | b'!' | b'$'
        )
    {
        i += 1;
    }
    // optional path: word chars, '.', '-' then '/'
    let mut j = i;
    let mut last_slash = None;
    while j < v.len() && (is_word(v[j]) || matches!(v[j], b'.' | b'-' | b'/')) {
        if v[j] == b'/' {
            last_slash = Some(j);
        }
        j += 1;
    }
    if let Some(s) = last_slash {
        i = s + 1;
    }
    let end = (i..v.len()).find(|&k| !is_word(v[k])).unwrap_or(v.len());
    let word = &v[i..end];
    if word.is_empty() || !UNIX_CMDS.iter().any(|c| word.eq_ignore_ascii_case(c)) {
        return false;
    }
    match v.get(end) {
        None => !need_sep,
        Some(&c) => {
            if need_sep {
                c.is_ascii_whitespace() || matches!(c, b';' | b'|' | b'&' | b'<' | b'>')
            } else {
                !is_word(c)
            }
        }
    }
}

fn is_rce(v: &[u8]) -> bool {
    if rce_needle(v) {
        return true;
    }
    if command_at(v, 0, true) {
        return true;
    }
    let mut i = 0;
    while i < v.len() {
        let tok = match v[i] {
            b';' | b'|' | b'&' | b'`' | b'\n' | b'\r' => 1,
            b'$' | b'<' | b'>' if matches!(v.get(i + 1), Some(b'(') | Some(b'{')) => 2,
            _ => 0,
        };
        if tok > 0 && command_at(v, i + tok, false) {
            return true;
        }
        i += 1;
    }
    false
}

// --------------------------------------------------------------------------------- entropy

/// Shannon entropy of `data` in bits per byte, in [0, 8] (`ndpi_entropy`, ndpi_utils.c); 0 for
/// empty input. Counts live on the stack.
pub fn shannon_entropy(data: &[u8]) -> f32 {
    if data.is_empty() {
        return 0.0;
    }
    let mut counts = [0u32; 256];
    for &b in data {
        counts[b as usize] += 1;
    }
    shannon_of_counts(&counts, data.len())
}

/// Is the Shannon entropy of `data` at or above nDPI's plain-text bound
/// ([`ENTROPY_PLAINTEXT_BELOW`])? Equal to `shannon_entropy(data) >= ENTROPY_PLAINTEXT_BELOW`,
/// cheaper: the entropy lies between the min-entropy, log2(n / most frequent count), and
/// log2(distinct values), so when either bound settles the question (fewer than 31 distinct
/// bytes; or no byte value more frequent than 1/30.7 of them, as in encrypted or compressed
/// data) no logarithm of the counts is needed.
pub fn entropy_high(data: &[u8]) -> bool {
    if data.len() < 31 {
        return false;
    }
    let mut counts = [0u32; 256];
    for &b in data {
        counts[b as usize] += 1;
    }
    let (mut distinct, mut most) = (0u32, 0u32);
    for &c in &counts {
        distinct += u32::from(c > 0);
        most = most.max(c);
    }
    if distinct < 31 {
        return false;
    }
    // log2(n / most) >= bound  <=>  n >= most * 2^bound.
    if data.len() as f32 >= most as f32 * ENTROPY_PLAINTEXT_BELOW.exp2() {
        return true;
    }
    shannon_of_counts(&counts, data.len()) >= ENTROPY_PLAINTEXT_BELOW
}

fn shannon_of_counts(counts: &[u32; 256], len: usize) -> f32 {
    let n = len as f32;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = c as f32 / n;
            -p * p.log2()
        })
        .sum::<f32>()
        .clamp(0.0, 8.0)
}

/// nDPI's entropy classes (`NDPI_ENTROPY_*` in ndpi_main.h): below this is plain text, and
/// nDPI never raises Susp Entropy.
pub const ENTROPY_PLAINTEXT_BELOW: f32 = 4.941;
/// At or above: "Compressed Executable" in nDPI's wording.
pub const ENTROPY_EXECUTABLE_PACKED: f32 = 6.677;
/// At or above: "Encrypted Executable".
pub const ENTROPY_EXECUTABLE_ENCRYPTED: f32 = 7.174;
/// At or above: "Encrypted or Random".
pub const ENTROPY_ENCRYPTED_OR_RANDOM: f32 = 7.312;

// ------------------------------------------------------------------------------------- TLS

/// The wire version for this project's version text (`crates/dpi`'s TLS dissector writes
/// "SSLv3", "TLSv1", "TLSv1.1", "TLSv1.2", "TLSv1.3", "DTLSv1.0", "DTLSv1.2", "DTLSv1.3").
pub fn tls_version_code(v: &str) -> Option<u16> {
    Some(match v {
        "SSLv2" => 0x0002,
        "SSLv3" => 0x0300,
        "TLSv1" | "TLSv1.0" => 0x0301,
        "TLSv1.1" => 0x0302,
        "TLSv1.2" => 0x0303,
        "TLSv1.3" => 0x0304,
        "DTLSv1.0" => 0xfeff,
        "DTLSv1.2" => 0xfefd,
        "DTLSv1.3" => 0xfefc,
        _ => return None,
    })
}

/// Whether a TLS version is obsolete by nDPI's rule (tls.c: the client hello's version below
/// 0x0303, TLS 1.2): SSLv2, SSLv3, TLSv1, TLSv1.1. DTLS versions (0xfeXX) never are, since nDPI
/// compares the raw number. Unknown text is not obsolete.
pub fn is_obsolete_tls(version: &str) -> bool {
    tls_version_code(version).is_some_and(|v| v < 0x0303)
}

/// How nDPI rates a TLS cipher suite (`ndpi_is_safe_ssl_cipher`, from Qualys' list).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CipherStrength {
    /// Not on nDPI's list.
    Safe,
    /// `NDPI_CIPHER_WEAK`: static-RSA key exchange, 3DES, SEED, IDEA, CAMELLIA-CBC.
    Weak,
    /// `NDPI_CIPHER_INSECURE`: RC4.
    Insecure,
}

/// nDPI's rating of the server's chosen cipher suite (IANA code points).
pub fn cipher_strength(suite: u16) -> CipherStrength {
    match suite {
        // TLS_ECDHE_RSA_WITH_RC4_128_SHA, TLS_RSA_WITH_RC4_128_SHA, TLS_RSA_WITH_RC4_128_MD5
        0xc011 | 0x0005 | 0x0004 => CipherStrength::Insecure,
        // TLS_RSA_WITH_AES_256_GCM_SHA384, _AES_256_CBC_SHA256, _AES_256_CBC_SHA,
        // _CAMELLIA_256_CBC_SHA, _AES_128_GCM_SHA256, _AES_128_CBC_SHA256, _AES_128_CBC_SHA,
        // _CAMELLIA_128_CBC_SHA; TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA,
        // TLS_DHE_RSA_WITH_3DES_EDE_CBC_SHA, TLS_RSA_WITH_3DES_EDE_CBC_SHA,
        // TLS_RSA_WITH_SEED_CBC_SHA, TLS_RSA_WITH_IDEA_CBC_SHA
        0x009d | 0x003d | 0x0035 | 0x0084 | 0x009c | 0x003c | 0x002f | 0x0041 | 0xc012 | 0x0016
        | 0x000a | 0x0096 | 0x0007 => CipherStrength::Weak,
        _ => CipherStrength::Safe,
    }
}

/// Whether nDPI raises Weak TLS Cipher for the server's chosen suite: tls.c compares
/// `ndpi_is_safe_ssl_cipher` with 1, `NDPI_CIPHER_WEAK`, so the *insecure* suites (RC4) raise
/// nothing in the nDPI the corpus was made with (later nDPI compares with
/// `NDPI_CIPHER_SAFE` and raises both; the corpus's RC4 sessions, webex.pcap's
/// TLS_RSA_WITH_RC4_128_MD5 among them, carry no such risk).
pub fn weak_cipher(suite: u16) -> bool {
    cipher_strength(suite) == CipherStrength::Weak
}

/// nDPI's limit for a certificate's lifetime (tls.c `TLS_THRESHOLD`, 398 days in seconds),
/// applied to certificates issued from 2020-09-01 (`TLS_LIMIT_DATE`).
pub const CERT_MAX_VALIDITY_SECS: i64 = 34_387_200;
/// 2020-09-01T00:00:00Z, from which nDPI applies [`CERT_MAX_VALIDITY_SECS`].
pub const CERT_LIMIT_DATE: i64 = 1_598_918_400;

/// Version (wire code) and "offered ALPN" read from a JA4 client fingerprint (its first ten
/// characters: protocol, version, SNI flag, two counts, first and last ALPN characters).
///
/// A QUIC fingerprint (`q…`) whose version characters name no TLS version (`q00…`, as for
/// drafts without supported_versions) still stands for a TLS 1.3 client hello: QUIC carries
/// TLS 1.3 only (RFC 9001 §4.2), whose client hello has `legacy_version` 0x0303 (RFC 8446
/// §4.1.2) — the field nDPI's checks read (`ssl_version` in tls.c `processClientServerHello`).
fn ja4_hello(ja4: &str) -> Option<(Option<u16>, bool)> {
    let b = ja4.as_bytes();
    if b.len() < 10 {
        return None;
    }
    let v = match &b[1..3] {
        b"13" => Some(0x0304),
        b"12" => Some(0x0303),
        b"11" => Some(0x0302),
        b"10" => Some(0x0301),
        b"s3" => Some(0x0300),
        b"s2" => Some(0x0002),
        b"d1" => Some(0xfeff),
        b"d2" => Some(0xfefd),
        b"d3" => Some(0xfefc),
        _ if b[0] == b'q' => Some(0x0303),
        _ => None,
    };
    Some((v, &b[8..10] != b"00"))
}

// ----------------------------------------------------------------------------------- facts

/// What a flow record knows, as plain data, for [`assess`].
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
    /// first message's data after the 8-byte header; [`shannon_entropy`] computes it). The
    /// engine measures it only with `--stats entropy` (`crates/engine/src/entropy.rs`), and
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

const TH_SYN: u8 = 0x02;
const TH_RST: u8 = 0x04;

const TLS_MASTERS: &[&str] = &[
    "TLS", "DTLS", "QUIC", "IMAPS", "POPS", "SMTPS", "FTPS", "MQTTS", "DoH_DoT",
];

fn is_http(master: &str) -> bool {
    matches!(master, "HTTP" | "HTTP_Proxy" | "HTTP_Connect")
}

/// What [`assess`] asks of a label's names (master, application, category), answered once: a
/// caller that sees many flows of few labels computes it per label ([`LabelKind::of`]) and
/// passes it in [`RiskFacts::kind`], sparing each flow the string comparisons.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LabelKind(u32);

impl LabelKind {
    /// NetFlow, sFlow, RTP or collectd (one-way by design).
    const ONE_WAY: u32 = 1;
    /// Syslog.
    const SYSLOG: u32 = 1 << 1;
    /// FTP_DATA, or ntop's own application.
    const PORT_EXEMPT: u32 = 1 << 2;
    /// The application is RDP.
    const RDP: u32 = 1 << 3;
    /// The application is AnyDesk.
    const ANYDESK: u32 = 1 << 4;
    /// The application is TeamViewer.
    const TEAMVIEWER: u32 = 1 << 5;
    /// An HTTP master.
    const HTTP_MASTER: u32 = 1 << 6;
    /// A master carried over TLS, DTLS or QUIC.
    const TLS_MASTER: u32 = 1 << 7;
    /// Master DNS or LLMNR.
    const DNS_MASTER: u32 = 1 << 8;
    /// Master LLMNR.
    const LLMNR_MASTER: u32 = 1 << 9;
    /// Master mDNS.
    const MDNS_MASTER: u32 = 1 << 10;
    /// TLS, QUIC or DTLS by either name.
    const ENCRYPTED_NAME: u32 = 1 << 11;
    /// HTTP by either name.
    const HTTP_NAME: u32 = 1 << 12;
    /// Category Download.
    const DOWNLOAD: u32 = 1 << 13;
    /// Category DataTransfer, Unspecified or Web.
    const ENTROPY_CATEGORY: u32 = 1 << 14;

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
    fn has(self, bit: u32) -> bool {
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

/// Decide every kind nDPI would raise that these facts allow (see the module docs for the list
/// and what is left to later). Each rule names the nDPI code it follows.
pub fn assess(f: &RiskFacts) -> RiskSet {
    let mut s = RiskSet::EMPTY;
    let k = f
        .kind
        .unwrap_or_else(|| LabelKind::of(f.master, f.app, f.category));

    // ndpi_main.c: set while dissecting when one direction has no packet, unless the packet's
    // destination is multicast/broadcast; cleared for NetFlow, sFlow, RTP, collectd and UDP
    // Syslog (protocols that are one-way by design).
    if f.c2s_packets > 0
        && f.s2c_packets == 0
        && !f.server_addr.is_some_and(is_multi_or_broadcast)
        && !k.has(LabelKind::ONE_WAY)
        && !(f.l4 == 17 && k.has(LabelKind::SYSLOG))
    {
        s.set(Risk::UnidirectionalTraffic);
    }

    // ndpi_main.c: a payload-detected protocol whose default ports (for this transport) hold
    // neither of the flow's ports; nDPI exempts FTP_DATA and ntop's own HTTP.
    if f.dpi && f.std_port == Some(false) && !k.has(LabelKind::PORT_EXEMPT) {
        s.set(Risk::KnownProtocolOnNonStandardPort);
    }

    // ndpi_main.c (ndpi_reconcile_protocols): by the application's breed.
    if matches!(
        f.breed,
        Breed::Unsafe | Breed::PotentiallyDangerous | Breed::Dangerous
    ) {
        s.set(Risk::UnsafeProtocol);
    }
    // ndpi_main.c (ndpi_reconcile_protocols): RDP, and AnyDesk over TCP; teamviewer.c
    // (ndpi_search_teamview): TeamViewer found in a UDP payload.
    if k.has(LabelKind::RDP)
        || (k.has(LabelKind::ANYDESK) && f.l4 == 6)
        || (k.has(LabelKind::TEAMVIEWER) && f.l4 == 17 && f.dpi)
    {
        s.set(Risk::DesktopOrFileSharingSession);
    }

    if k.has(LabelKind::HTTP_MASTER) {
        assess_http(f, &mut s);
    }
    if k.has(LabelKind::TLS_MASTER) {
        assess_tls(f, &mut s);
    }
    if k.has(LabelKind::DNS_MASTER) {
        assess_dns(f, k, &mut s);
    }
    // dns.c search_valid_dns: an answer record with TTL 0.
    if k.has(LabelKind::DNS_MASTER | LabelKind::MDNS_MASTER) && f.dns_zero_ttl {
        s.set(Risk::MinorIssues);
    }
    // ndpi_main.c (ndpi_search_shellscript, _elf, _portable_executable): the first payloads
    // of a flow not yet named; the risk stays whatever the flow turns out to be.
    if f.payload_script {
        s.set(Risk::PossibleExploit);
    }
    if f.payload_executable {
        s.set(Risk::BinaryApplicationTransfer);
    }
    // ndpi_main.c: the first ICMP message's type, code or checksum.
    if f.icmp_malformed {
        s.set(Risk::MalformedPacket);
    }
    // dns.c: an invalid header after the first message, or a bad query name length.
    if k.has(LabelKind::DNS_MASTER | LabelKind::MDNS_MASTER) && f.dns_malformed {
        s.set(Risk::MalformedPacket);
    }
    if f.l4 == 6 {
        assess_tcp(f, &mut s);
    }

    if f.clear_text_credentials == Some(true) {
        s.set(Risk::ClearTextCredentials);
    }

    // ndpi_utils.c ndpi_entropy2risk: never below the plain-text threshold nor for
    // TLS/QUIC/DTLS; always when the verdict is not from DPI; else only with a risk that hints
    // at a transfer/exploit or a Download-over-HTTP, DataTransfer, Unspecified or Web category.
    if let Some(e) = f.payload_entropy {
        let encrypted = k.has(LabelKind::ENCRYPTED_NAME) && !f.entropy_before_dpi;
        if e >= ENTROPY_PLAINTEXT_BELOW && !encrypted {
            let hinted = [
                Risk::MalwareHostContacted,
                Risk::BinaryDataTransfer,
                Risk::BinaryApplicationTransfer,
                Risk::PossibleExploit,
                Risk::HttpSuspiciousContent,
                Risk::DnsSuspiciousTraffic,
                Risk::MalformedPacket,
            ]
            .iter()
            .any(|r| s.has(*r));
            let category = (k.has(LabelKind::DOWNLOAD) && k.has(LabelKind::HTTP_NAME))
                || k.has(LabelKind::ENTROPY_CATEGORY);
            let guessed = !f.dpi && !f.verdict_learned;
            if guessed || f.entropy_before_dpi || hinted || category {
                s.set(Risk::SuspiciousEntropy);
            }
        }
    }
    s
}

/// Messages nDPI's DNS dissector reads in a DNS flow: the packet that classifies it and at most
/// `max_extra_packets_to_check` (5) more (dns.c `ndpi_search_dns`); LLMNR gets no extra
/// dissection, so only its first message is read.
const DNS_MESSAGES_READ: usize = 6;

fn assess_dns(f: &RiskFacts, k: LabelKind, s: &mut RiskSet) {
    // dns.c ndpi_grab_dns_name: the first question's name of each message read must be made
    // of letters, digits, '_' and '-' (mDNS, port 5353 on either side, is not checked).
    let mdns = f.client_port == 5353 || f.server_port == 5353;
    let bad = |n: &str| !is_valid_dns_name(n);
    let read = if k.has(LabelKind::LLMNR_MASTER) {
        1
    } else {
        DNS_MESSAGES_READ
    };
    if f.dns_invalid_chars
        || (!mdns
            && (f.dns_query.is_some_and(bad)
                || f.dns_names
                    .is_some_and(|l| l.split(',').take(read).any(bad))))
    {
        s.set(Risk::InvalidCharacters);
    }
    // dns.c search_valid_dns: a response with a non-zero rcode.
    if f.dns_error_code || f.dns_rcode.is_some_and(|r| r != 0) {
        s.set(Risk::ErrorCodeDetected);
    }
}

/// nDPI's TCP checks (ndpi_main.c). Per packet, in `ndpi_connection_tracking`: a flag byte of
/// 0 (NULL scan) or FIN|PSH|URG (XMAS scan) in either direction, or exactly FIN in nDPI's
/// direction 0, is TCP Connection Issues. At give-up, in `ndpi_check_tcp_flags` (called only by
/// `ndpi_detection_giveup`, which nDPI's reader calls for flows its DPI did not classify —
/// here, `!dpi`): with `f0`/`f1` the OR of the flags of directions 0/1,
///
/// * `f0` has SYN, `f1` has RST, and no packet carried payload ("Connection refused
///   (server)"), or
/// * `f0` has SYN and RST and no packet carried payload ("Connection refused (client)"), or
/// * `f1` has RST and direction 1 sent exactly one packet ("Connection refused"),
///
/// is TCP Connection Issues. (nDPI sets Probing Attempt at the same point, but no flow of the
/// corpus nDPI labelled carries Probing Attempt at all, so its run does not report it; it is
/// left unset here until that is understood.) nDPI's direction 0 is not the client's: with
/// different ports it is the packets whose source port is the higher (`packet_direction` in
/// `ndpi_connection_tracking`); with equal ports nDPI compares the addresses, which the facts do
/// not hold, so the client's direction is taken.
fn assess_tcp(f: &RiskFacts, s: &mut RiskSet) {
    let c2s_is_d0 = f.client_port >= f.server_port;
    let (f0, f1, d1_packets, fin_d0) = if c2s_is_d0 {
        (
            f.c2s_tcp_flags,
            f.s2c_tcp_flags,
            f.s2c_packets,
            TCP_FIN_ONLY_C2S,
        )
    } else {
        (
            f.s2c_tcp_flags,
            f.c2s_tcp_flags,
            f.c2s_packets,
            TCP_FIN_ONLY_S2C,
        )
    };
    if f.tcp_odd_flags & (TCP_NULL_SEEN | TCP_XMAS_SEEN | fin_d0) != 0 {
        s.set(Risk::TcpIssues);
    }
    if f.dpi {
        return;
    }
    let no_payload = !f.c2s_payload && !f.s2c_payload;
    let syn0 = f0 & TH_SYN != 0;
    // "(server)": SYN in 0, RST in 1; "(client)": SYN and RST in 0; both with no payload.
    let refused_no_data = syn0 && (f1 | f0) & TH_RST != 0 && no_payload;
    let refused = refused_no_data || (f1 & TH_RST != 0 && d1_packets == 1);
    if refused {
        s.set(Risk::TcpIssues);
    }
}

fn assess_http(f: &RiskFacts, s: &mut RiskSet) {
    // http.c: Host header checks.
    if let Some(host) = f.http_host.filter(|h| !h.is_empty()) {
        if is_numeric_http_host(host) {
            s.set(Risk::NumericIpHost);
        }
        if !is_valid_hostname(host) {
            s.set(Risk::InvalidCharacters);
            s.set(Risk::PossibleExploit);
        }
    }
    // http.c: a request without (or with an empty) User-Agent, else the UA tests.
    match f.user_agent.filter(|u| !u.is_empty()) {
        None if f.http_method.is_some() => s.set(Risk::HttpSuspiciousUserAgent),
        None => {}
        Some(ua) => {
            if suspicious_user_agent(ua) {
                s.set(Risk::HttpSuspiciousUserAgent);
            }
            if ua_is_exploit(ua) {
                s.set(Risk::PossibleExploit);
            }
            if ua_is_crawler(ua) {
                s.set(Risk::HttpCrawlerBot);
            }
        }
    }
    if let Some(url) = f.url {
        let path = url.find('/').map_or("", |i| &url[i..]);
        if let Some(r) = http_path_risk(path) {
            s.set(r);
        }
        if let Some(r) = url_risk(url) {
            s.set(r);
        }
    }
    assess_http_response(f, s);
    // http.c parse_response_code: codes outside 100..=509 are ignored; 400 and up are errors,
    // and on WordPress admin/upload paths a possible exploit.
    if f.http_status.is_some_and(|c| (400..=509).contains(&c)) {
        s.set(Risk::ErrorCodeDetected);
        let path = f
            .url
            .and_then(|u| u.find('/').map(|i| &u[i..]))
            .unwrap_or("");
        if (f.http_method == Some("POST") && path.starts_with("/wp-admin/"))
            || (f.http_method == Some("GET") && path.starts_with("/wp-content/uploads/"))
        {
            s.set(Risk::PossibleExploit);
        }
    }
}

/// Media types nDPI's `http.c` takes for executables (`binary_file_mimes_*`), after
/// `application/`.
const EXE_MIMES: [&str; 6] = [
    "exe",
    "java-vm",
    "vnd.ms-cab-compressed",
    "vnd.microsoft.portable-executable",
    "x-msdownload",
    "x-dosexec",
];

/// Media types nDPI's `http.c` takes for file downloads (`download_file_mimes_*`), after
/// `application/`.
const DOWNLOAD_MIMES: [&str; 6] = ["bz", "bz2", "octet-stream", "x-tar", "x-zip", "x-bzip"];

/// Does a `Content-Type` value name one of `mimes` as nDPI's `ndpi_http_check_content` tests
/// it? It skips the value's first 12 bytes (the length of `application/`, whatever they are),
/// needs more than 3 bytes after them, picks the list by the first of those (case counts
/// there) and compares them, ignoring case, with the name's first bytes: so the rest must be
/// the whole name or a prefix of it (`application/octet-stream; charset=binary` is none).
pub fn content_type_is(ct: &str, mimes: &[&str]) -> bool {
    let Some(app) = ct.as_bytes().get(12..) else {
        return false;
    };
    app.len() > 3
        && mimes.iter().any(|m| {
            m.as_bytes().first() == app.first()
                && m.as_bytes()
                    .get(..app.len())
                    .is_some_and(|p| p.eq_ignore_ascii_case(app))
        })
}

/// Is a `Server` value an Apache older than 2.4.0 or an nginx older than 1.22.0 (nDPI's
/// `ndpi_check_http_server`: over 7 bytes, `Apache/` or `nginx/` in any case, then the digits
/// and dots that follow, at most 15, read as three numbers `a.b.c`)?
pub fn obsolete_http_server(server: &str) -> bool {
    let b = server.as_bytes();
    if b.len() <= 7 {
        return false;
    }
    let (off, min) = if b[..7].eq_ignore_ascii_case(b"Apache/") {
        (7, 2_004_000u64)
    } else if b[..6].eq_ignore_ascii_case(b"nginx/") {
        (6, 1_022_000u64)
    } else {
        return false;
    };
    let run = b[off..]
        .iter()
        .take(15)
        .take_while(|c| c.is_ascii_digit() || **c == b'.')
        .count();
    let mut parts = b[off..off + run].split(|&c| c == b'.');
    let mut num = || -> Option<u64> {
        let p = parts.next().filter(|p| !p.is_empty())?;
        // Long runs saturate: nDPI's int would overflow; no real version has them.
        Some(p.iter().fold(0u64, |a, &c| {
            a.saturating_mul(10).saturating_add(u64::from(c - b'0'))
        }))
    };
    match (num(), num(), num()) {
        (Some(a), Some(m), Some(c)) => {
            a.saturating_mul(1_000_000)
                .saturating_add(m.saturating_mul(1000))
                .saturating_add(c)
                < min
        }
        _ => false,
    }
}

/// Does an HTTP Host that reads as an IPv4 address (nDPI's `sscanf("%d.%d.%d.%d")` on the
/// host without its port) name another address than the server's (nDPI compares it with the
/// request's destination, IPv4 packets only)? A host that is not exactly a dotted quad after
/// its four numbers counts as another address, as `inet_addr` fails on it.
fn host_ip_mismatch(host: &str, server: Option<IpAddr>) -> bool {
    let Some(IpAddr::V4(server)) = server else {
        return false;
    };
    let name = host.split(':').next().unwrap_or("");
    let b = name.as_bytes();
    // Four dot-separated numbers at the start.
    let mut i = 0;
    for k in 0..4 {
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == start {
            return false;
        }
        if k < 3 {
            if b.get(i) != Some(&b'.') {
                return false;
            }
            i += 1;
        }
    }
    name.parse::<Ipv4Addr>() != Ok(server)
}

/// http.c, what the first response's head (and the request's header names) give: binary
/// transfers by media type, attachment name and body signature; suspicious headers; the
/// server's version; body bytes that are not text where the type says text.
fn assess_http_response(f: &RiskFacts, s: &mut RiskSet) {
    let yes = |b: Option<bool>| b == Some(true);
    // ndpi_set_binary_application_transfer (and the data-transfer twin): no risk for hosts
    // under windowsupdate.com (the host name as nDPI keeps it: without the port).
    let host = f
        .http_host
        .map(|h| h.split(':').next().unwrap_or(""))
        .unwrap_or("");
    let update = host.len() >= 18
        && host.as_bytes()[host.len() - 18..].eq_ignore_ascii_case(b".windowsupdate.com");
    let ct = f.http_content_type.filter(|c| !c.is_empty());
    // ndpi_http_check_content: the response's media type names an executable, or
    // Content-Disposition an executable attachment.
    let exe_type = ct.is_some_and(|c| content_type_is(c, &EXE_MIMES));
    let exe_by_head = exe_type || (ct.is_some() && yes(f.http_exe_attachment));
    // ndpi_search_http_tcp: once the host and the status are known, the body's first bytes
    // (ndpi_analyze_content_signature).
    let exe_by_body =
        yes(f.http_exe_body) && !host.is_empty() && f.http_status.is_some_and(|c| c != 0);
    if (exe_by_head || exe_by_body) && !update {
        s.set(Risk::BinaryApplicationTransfer);
    }
    // ndpi_http_check_content: a download media type (octet-stream, archives). nDPI at the
    // corpus's commit reports it as Binary File/Data Transfer (Attempt).
    if ct.is_some_and(|c| content_type_is(c, &DOWNLOAD_MIMES)) && !update {
        s.set(Risk::BinaryDataTransfer);
    }
    // ndpi_http_check_content: an attachment that is not an executable is a file download
    // (with a media type in the same head, as nDPI reads the disposition only then).
    if ct.is_some() && yes(f.http_data_attachment) && !update {
        s.set(Risk::BinaryDataTransfer);
    }
    // ndpi_validate_http_content: Java downloading Java (Log4J) once an executable was named
    // by the head.
    if exe_by_head
        && !update
        && ct == Some("application/java-vm")
        && f.user_agent.is_some_and(|u| u.starts_with("Java/"))
    {
        s.set(Risk::PossibleExploit);
    }
    // ndpi_validate_http_content: a text, JSON or form body whose first bytes are not text.
    if yes(f.http_body_binary)
        && ct.is_some_and(|c| {
            c.contains("text/") || c.contains("/json") || c.contains("x-www-form-urlencoded")
        })
    {
        s.set(Risk::HttpSuspiciousContent);
    }
    // ndpi_check_http_header, ndpi_check_http_server, and the Host check of
    // check_content_type_and_change_protocol.
    if yes(f.http_susp_header_name)
        || yes(f.http_server_nonprint)
        || f.http_host
            .is_some_and(|h| host_ip_mismatch(h, f.server_addr))
    {
        s.set(Risk::HttpSuspiciousHeader);
    }
    // ndpi_check_http_server.
    if f.http_server.is_some_and(obsolete_http_server) {
        s.set(Risk::HttpObsoleteServer);
    }
}

fn assess_tls(f: &RiskFacts, s: &mut RiskSet) {
    let sni = f.sni.filter(|x| !x.is_empty());
    // tls.c client hello: SNI checks.
    if let Some(name) = sni {
        if is_numeric_sni(name) {
            s.set(Risk::NumericIpHost);
        }
        if !is_valid_hostname(name) {
            s.set(Risk::InvalidCharacters);
            s.set(Risk::PossibleExploit);
        }
    }
    // tls.c client hello: version and extension checks. Need the client hello: a JA4 or the
    // client version says it was seen.
    let hello = f.ja4.and_then(ja4_hello);
    let ch_seen = hello.is_some() || f.tls_client_version.is_some();
    let version = f
        .tls_client_version
        .or(hello.and_then(|h| h.0))
        .or(f.tls_version.and_then(tls_version_code));
    if let Some(v) = version {
        if v < 0x0303 {
            s.set(Risk::TlsObsoleteVersion);
        }
    }
    // quic.c: a gQUIC CHLO without an SNI tag.
    if f.gquic_chlo && sni.is_none() {
        s.set(Risk::TlsMissingSni);
    }
    // tls.c: a WebRTC flow (DTLS-SRTP after STUN) is spared both checks; an ESNI extension
    // counts as a name.
    if ch_seen && !f.tls_webrtc {
        if let Some(v) = version {
            let alpn_offered = f.alpn.is_some_and(|a| !a.is_empty()) || hello.is_some_and(|h| h.1);
            if v >= 0x0303 && !alpn_offered {
                s.set(Risk::TlsNotCarryingHttps);
            }
            if sni.is_none() && v >= 0x0302 && !f.tls_esni {
                s.set(Risk::TlsMissingSni);
                if f.alpn
                    .is_some_and(|a| a.split(',').any(|p| p.starts_with('h')))
                {
                    s.set(Risk::TlsAlpnSniMismatch);
                }
            }
        }
    }
    // tls.c certificate: self-signed when subject and issuer are equal.
    if let (Some(sub), Some(iss)) = (f.tls_cert_subject, f.tls_cert_issuer) {
        if !sub.is_empty() && sub == iss {
            s.set(Risk::TlsSelfsignedCertificate);
        }
    }
    if f.tls_cipher.is_some_and(weak_cipher) {
        s.set(Risk::TlsWeakCipher);
    }
    if let (Some(nb), Some(na)) = (f.cert_not_before, f.cert_not_after) {
        if f.now.is_some_and(|t| t < nb || t > na) {
            s.set(Risk::TlsCertificateExpired);
        }
        if nb >= CERT_LIMIT_DATE && na - nb > CERT_MAX_VALIDITY_SECS {
            s.set(Risk::TlsCertValidityTooLong);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn ids_follow_ndpi_enum() {
        // Spot checks against ndpi_risk_enum's numbering (comments there mark 10, 20, 30).
        assert_eq!(Risk::UrlPossibleXss.id(), 1);
        assert_eq!(Risk::KnownProtocolOnNonStandardPort.id(), 5);
        assert_eq!(Risk::TlsCertificateMismatch.id(), 10);
        assert_eq!(Risk::NumericIpHost.id(), 12);
        assert_eq!(Risk::SmbInsecureVersion.id(), 20);
        assert_eq!(Risk::UnsafeProtocol.id(), 22);
        assert_eq!(Risk::DesktopOrFileSharingSession.id(), 30);
        assert_eq!(Risk::SuspiciousEntropy.id(), 35);
        assert_eq!(Risk::InvalidCharacters.id(), 39);
        assert_eq!(Risk::UnidirectionalTraffic.id(), 46);
        assert_eq!(Risk::TcpIssues.id(), 50);
        assert_eq!(Risk::ObfuscatedTraffic.id(), 56);
        assert_eq!(Risk::ALL.len(), 56);
        for (i, r) in Risk::ALL.iter().enumerate() {
            assert_eq!(usize::from(r.id()), i + 1);
            assert_eq!(Risk::from_id(r.id()), Some(*r));
            assert_eq!(Risk::from_name(r.name()), Some(*r));
            assert!(!r.name().contains(';'));
        }
        assert_eq!(Risk::from_id(0), None);
        assert_eq!(Risk::from_id(57), None);
    }

    #[test]
    fn names_as_ndpi_prints_them() {
        assert_eq!(
            Risk::KnownProtocolOnNonStandardPort.name(),
            "Known Proto on Non Std Port"
        );
        assert_eq!(
            Risk::NumericIpHost.name(),
            "HTTP/TLS/QUIC Numeric Hostname/SNI"
        );
        assert_eq!(
            Risk::TlsObsoleteVersion.name(),
            "Obsolete TLS (v1.1 or older)"
        );
        assert_eq!(
            Risk::TlsNotCarryingHttps.name(),
            "TLS (probably) Not Carrying HTTPS"
        );
        assert_eq!(Risk::MaliciousFingerprint.name(), "Malicious Fingerpint");
        assert_eq!(Risk::SuspiciousEntropy.name(), "Susp Entropy");
    }

    #[test]
    fn severities_and_scores_from_ndpi_table() {
        assert_eq!(Risk::UrlPossibleXss.severity(), Severity::Severe);
        assert_eq!(Risk::UrlPossibleXss.score(), 150);
        assert_eq!(Risk::KnownProtocolOnNonStandardPort.score(), 50);
        assert_eq!(Risk::TlsObsoleteVersion.score(), 100);
        assert_eq!(Risk::UnidirectionalTraffic.score(), 10);
        assert_eq!(Risk::TlsCertificateExpired.client_percent(), 10);
        let set: RiskSet = [Risk::UrlPossibleXss, Risk::UnidirectionalTraffic]
            .into_iter()
            .collect();
        assert_eq!(set.score(), 160);
        // XSS: 150 * 90% = 135 client; Unidirectional: 10 * 50% = 5 client.
        assert_eq!(set.client_score(), 140);
        assert_eq!(set.server_score(), 20);
    }

    #[test]
    fn set_display_and_parse() {
        let mut s = RiskSet::EMPTY;
        assert!(s.is_empty());
        assert_eq!(s.to_string(), "");
        s.set(Risk::TlsObsoleteVersion);
        s.set(Risk::KnownProtocolOnNonStandardPort);
        assert_eq!(
            s.to_string(),
            "Known Proto on Non Std Port;Obsolete TLS (v1.1 or older)"
        );
        assert_eq!(RiskSet::parse(&s.to_string()), Some(s));
        assert_eq!(s.len(), 2);
        s.unset(Risk::TlsObsoleteVersion);
        assert!(!s.has(Risk::TlsObsoleteVersion));
        assert_eq!(RiskSet::parse("Not A Risk"), None);
        assert_eq!(RiskSet::parse(""), Some(RiskSet::EMPTY));
        assert_eq!(RiskSet::from_bits(1).bits(), 0, "bit 0 is NDPI_NO_RISK");
    }

    #[test]
    fn numeric_hosts() {
        for yes in [
            "1.2.3.4",
            "1.2.3.4:8080",
            "::1",
            "[::1]",
            "[2001:db8::1]:443",
            "255.255.255.255",
        ] {
            assert!(is_numeric_host(yes), "{yes}");
        }
        for no in [
            "example.com",
            "1.2.3",
            "256.1.1.1",
            "01.2.3.4",
            "[::1",
            "1.2.3.4:http",
            "",
        ] {
            assert!(!is_numeric_host(no), "{no}");
        }
        assert!(is_numeric_sni("10.0.0.1"));
        assert!(is_numeric_sni("fe80::1"));
        assert!(!is_numeric_sni("10.0.0.1:443"), "inet_pton takes no port");
        assert!(is_numeric_http_host("192.168.1.1:8080"));
        assert!(
            !is_numeric_http_host("[::1]:80"),
            "nDPI's HTTP check is IPv4 only"
        );
        assert!(!is_numeric_http_host("1.1.1.1.example.com"));
    }

    #[test]
    fn host_characters() {
        assert!(is_valid_hostname("_sip._udp.example.com"));
        assert!(is_valid_hostname("host:8080"));
        assert!(!is_valid_hostname("a b.com"));
        assert!(!is_valid_hostname("evil$.com"));
        assert!(!is_valid_hostname("caf\u{e9}.fr"));
        assert!(!is_valid_hostname("a\\001b"));
        assert!(is_printable_name("h2,http/1.1"));
        assert!(!is_printable_name("a\\001b"));
        assert!(!is_printable_name("\u{fffd}"));
        assert!(is_printable_name("C:\\dir"));
    }

    #[test]
    fn multicast_broadcast() {
        assert!(is_multi_or_broadcast("224.0.0.251".parse().unwrap()));
        assert!(is_multi_or_broadcast("255.255.255.255".parse().unwrap()));
        assert!(is_multi_or_broadcast("192.168.1.255".parse().unwrap()));
        assert!(is_multi_or_broadcast("ff02::fb".parse().unwrap()));
        assert!(!is_multi_or_broadcast("192.168.1.20".parse().unwrap()));
        assert!(!is_multi_or_broadcast("fe80::1".parse().unwrap()));
    }

    #[test]
    fn user_agents() {
        // Each rule of ndpi_check_user_agent.
        assert!(
            suspicious_user_agent("ABCDEFGHIJKLMN"),
            "letters only, >=20% upper"
        );
        assert!(
            !suspicious_user_agent("abcdefghijklmn"),
            "letters only but lower case"
        );
        assert!(suspicious_user_agent("<?php system($x); ?>"));
        assert!(suspicious_user_agent("a$b and more"));
        assert!(suspicious_user_agent("Mozilla file://x"));
        // Only the byte before "://" is looked at: "ftp://" passes like "http://".
        assert!(!suspicious_user_agent("Mozilla ftp://x"));
        assert!(!suspicious_user_agent(
            "Mozilla/5.0 (+http://example.com/bot)"
        ));
        assert!(suspicious_user_agent("abc"), "too short");
        assert!(suspicious_user_agent(&"a".repeat(257)), "too long");
        assert!(suspicious_user_agent("test agent"));
        assert!(suspicious_user_agent("() { :; }; echo"));
        assert!(!suspicious_user_agent(
            "Mozilla/5.0 (X11; Linux x86_64) Firefox/115.0"
        ));
        assert!(ua_is_exploit("jndi:ldap://1.2.3.4/a"));
        assert!(!suspicious_user_agent("jndi:ldap://1.2.3.4/a"));
        assert!(ua_is_crawler("Mozilla/5.0 (compatible; YandexBot/3.0)"));
        assert!(!ua_is_crawler("curl/8.4.0"));
    }

    #[test]
    fn urls() {
        // The two examples in ndpi_utils.c's comment above its URL decoder.
        let xss = "h/dv/vulnerabilities/xss_r/?name=%3Cscript%3Econsole.log%28%27X%27%29%3B%3C%2Fscript%3E";
        assert_eq!(url_risk(xss), Some(Risk::UrlPossibleXss));
        let sqli = "h/dv/vulnerabilities/sqli/?id=1%27+and+1%3D1+union+select+null%2C+table_name+from+information_schema.tables%23&Submit=Submit";
        assert_eq!(url_risk(sqli), Some(Risk::UrlPossibleSqlInjection));
        // The msadc traversal in ndpi_validate_url's comment.
        assert_eq!(
            url_risk("127.0.0.1/msadc/..%255c../..%255c../winnt/system32/cmd.exe"),
            Some(Risk::HttpSuspiciousUrl)
        );
        assert_eq!(
            url_risk("h/x?cmd=ls+-al"),
            Some(Risk::UrlPossibleRceInjection)
        );
        assert_eq!(
            url_risk("h/x?f=a.jpg%3Buname+-a"),
            Some(Risk::UrlPossibleRceInjection)
        );
        assert_eq!(
            url_risk("h/x?f=..%2F..%2Fetc%2Fpasswd"),
            Some(Risk::UrlPossibleRceInjection)
        );
        assert_eq!(
            url_risk("h/x?a=<img src=x onerror=alert(1)>"),
            Some(Risk::UrlPossibleXss)
        );
        assert_eq!(url_risk("h/search?q=rust+ownership&page=2"), None);
        assert_eq!(url_risk("h/x?q=it%27s+fine"), None);
        assert_eq!(
            url_risk("h/x?q=%zz%3Cscript%3E"),
            None,
            "bad escape: value skipped"
        );
        assert_eq!(
            http_path_risk("/shell?cd+/tmp"),
            Some(Risk::UrlPossibleRceInjection)
        );
        assert_eq!(http_path_risk("/.env"), Some(Risk::PossibleExploit));
        assert_eq!(http_path_risk("/index.html"), None);
    }

    #[test]
    fn entropy_values() {
        assert_eq!(shannon_entropy(&[]), 0.0);
        assert_eq!(shannon_entropy(&[7; 100]), 0.0);
        let all: Vec<u8> = (0..=255).collect();
        assert!((shannon_entropy(&all) - 8.0).abs() < 1e-4);
        assert!((shannon_entropy(b"abab") - 1.0).abs() < 1e-6);
    }

    #[test]
    fn tls_versions_and_ciphers() {
        for v in ["SSLv3", "TLSv1", "TLSv1.1"] {
            assert!(is_obsolete_tls(v), "{v}");
        }
        for v in ["TLSv1.2", "TLSv1.3", "DTLSv1.0", "DTLSv1.2", "bogus"] {
            assert!(!is_obsolete_tls(v), "{v}");
        }
        // RFC 5246 / 4492 / 5288 code points.
        assert_eq!(cipher_strength(0x0004), CipherStrength::Insecure); // RSA_WITH_RC4_128_MD5
        assert_eq!(cipher_strength(0xc011), CipherStrength::Insecure); // ECDHE_RSA_WITH_RC4_128_SHA
        assert_eq!(cipher_strength(0x002f), CipherStrength::Weak); // RSA_WITH_AES_128_CBC_SHA
        assert_eq!(cipher_strength(0x000a), CipherStrength::Weak); // RSA_WITH_3DES_EDE_CBC_SHA
        assert!(weak_cipher(0x002f) && weak_cipher(0x000a));
        assert!(
            !weak_cipher(0x0004),
            "insecure is not weak to tls.c's comparison"
        );
        assert!(!weak_cipher(0xc02f)); // ECDHE_RSA_WITH_AES_128_GCM_SHA256
        assert!(!weak_cipher(0x1301)); // TLS_AES_128_GCM_SHA256 (RFC 8446)
    }

    fn tls<'a>() -> RiskFacts<'a> {
        RiskFacts {
            l4: 6,
            client_port: 50000,
            server_port: 443,
            server_addr: Some("93.184.216.34".parse().unwrap()),
            master: "TLS",
            app: "TLS",
            category: "Web",
            dpi: true,
            std_port: Some(true),
            c2s_packets: 5,
            s2c_packets: 5,
            ..RiskFacts::default()
        }
    }

    #[test]
    fn assess_unidirectional() {
        let mut f = tls();
        f.s2c_packets = 0;
        assert!(assess(&f).has(Risk::UnidirectionalTraffic));
        f.server_addr = Some("239.255.255.250".parse().unwrap());
        assert!(
            !assess(&f).has(Risk::UnidirectionalTraffic),
            "multicast destination"
        );
        f.server_addr = None;
        f.master = "RTP";
        f.app = "RTP";
        assert!(
            !assess(&f).has(Risk::UnidirectionalTraffic),
            "one-way by design"
        );
        f.master = "Syslog";
        f.app = "Syslog";
        f.l4 = 17;
        assert!(!assess(&f).has(Risk::UnidirectionalTraffic));
        f.l4 = 6;
        assert!(
            assess(&f).has(Risk::UnidirectionalTraffic),
            "TCP syslog is not exempt"
        );
    }

    #[test]
    fn assess_ports_and_breed() {
        let mut f = tls();
        f.std_port = Some(false);
        assert!(assess(&f).has(Risk::KnownProtocolOnNonStandardPort));
        f.dpi = false;
        assert!(
            !assess(&f).has(Risk::KnownProtocolOnNonStandardPort),
            "port guesses never"
        );
        f.dpi = true;
        f.std_port = None;
        assert!(!assess(&f).has(Risk::KnownProtocolOnNonStandardPort));
        f.breed = Breed::Unsafe;
        assert!(assess(&f).has(Risk::UnsafeProtocol));
        f.breed = Breed::Acceptable;
        assert!(!assess(&f).has(Risk::UnsafeProtocol));
    }

    /// The kind computed once per label decides as the names compared per flow do.
    #[test]
    fn label_kind_given_or_computed_agree() {
        for (m, a, c) in [
            ("DNS", "DNS", "Network"),
            ("LLMNR", "LLMNR", "Network"),
            ("HTTP", "ntop", "Web"),
            ("TLS", "YouTube", "Media"),
            ("RTP", "RTP", "Media"),
            ("Syslog", "Syslog", "System"),
            ("TeamViewer", "TeamViewer", "RemoteAccess"),
            ("HTTP", "HTTP", "Download"),
        ] {
            let mut f = tls();
            f.master = m;
            f.app = a;
            f.category = c;
            f.s2c_packets = 0;
            f.payload_entropy = Some(7.9);
            f.dns_names = Some("a,b_c,d e");
            let computed = assess(&f);
            f.kind = Some(LabelKind::of(m, a, c));
            assert_eq!(assess(&f), computed, "{m}.{a}");
        }
    }

    /// nDPI's exemptions (tls.c, quic.c): an ESNI extension counts as a name; a WebRTC flow
    /// (DTLS-SRTP after STUN) is not checked for SNI nor ALPN; a gQUIC CHLO without an SNI tag
    /// is Missing SNI whatever its version.
    #[test]
    fn tls_hello_exemptions_and_gquic() {
        let mut f = tls();
        f.ja4 = Some("t13i1813h2_29a2cd9e9f10_0d6ff543c596");
        f.alpn = Some("h2,http/1.1");
        assert!(assess(&f).has(Risk::TlsMissingSni));
        f.tls_esni = true;
        assert!(!assess(&f).has(Risk::TlsMissingSni));
        let mut d = tls();
        d.l4 = 17;
        d.master = "DTLS";
        d.app = "DTLS";
        d.ja4 = Some("dd2i120700_7c0e62f61317_d9dd6182da81");
        let r = assess(&d);
        assert!(r.has(Risk::TlsMissingSni) && r.has(Risk::TlsNotCarryingHttps));
        d.tls_webrtc = true;
        let r = assess(&d);
        assert!(!r.has(Risk::TlsMissingSni) && !r.has(Risk::TlsNotCarryingHttps));
        let mut q = tls();
        q.l4 = 17;
        q.master = "QUIC";
        q.app = "QUIC";
        assert!(!assess(&q).has(Risk::TlsMissingSni), "no hello read");
        q.gquic_chlo = true;
        assert!(assess(&q).has(Risk::TlsMissingSni));
        q.sni = Some("www.example.com");
        assert!(!assess(&q).has(Risk::TlsMissingSni));
    }

    /// ndpi_main.c's checks on an unnamed flow's first payloads, whatever the flow's label
    /// then; http.c's file download by `Content-Disposition` (with a media type only).
    #[test]
    fn payload_signatures_and_attachments() {
        let mut f = tls();
        f.master = "Unknown";
        f.app = "Unknown";
        f.dpi = false;
        assert!(!assess(&f).has(Risk::PossibleExploit));
        f.payload_script = true;
        assert!(assess(&f).has(Risk::PossibleExploit));
        f.payload_executable = true;
        assert!(assess(&f).has(Risk::BinaryApplicationTransfer));
        let mut h = tls();
        h.master = "HTTP";
        h.app = "HTTP";
        h.server_port = 80;
        h.http_data_attachment = Some(true);
        assert!(!assess(&h).has(Risk::BinaryDataTransfer), "no media type");
        h.http_content_type = Some("application/x-msdownload");
        let r = assess(&h);
        assert!(r.has(Risk::BinaryDataTransfer) && r.has(Risk::BinaryApplicationTransfer));
        h.http_host = Some("download.windowsupdate.com");
        assert!(!assess(&h).has(Risk::BinaryDataTransfer));
    }

    proptest! {
        /// The bounds' shortcut decides as the whole computation does.
        #[test]
        fn entropy_high_is_the_bound_test(
            data in proptest::collection::vec(any::<u8>(), 0..1600),
            alphabet in 1u8..=255,
        ) {
            let text: Vec<u8> = data.iter().map(|b| b % alphabet).collect();
            for d in [&data, &text] {
                prop_assert_eq!(
                    entropy_high(d),
                    shannon_entropy(d) >= ENTROPY_PLAINTEXT_BELOW
                );
            }
        }
    }

    #[test]
    fn assess_tls_hello() {
        let mut f = tls();
        f.ja4 = Some("t13d1516h2_8daaf6152771_e5627efa2ab1");
        f.sni = Some("example.com");
        f.alpn = Some("h2,http/1.1");
        assert!(assess(&f).is_empty());
        // No SNI, TLS 1.3 offering h2: Missing SNI and ALPN/SNI mismatch.
        f.sni = None;
        let r = assess(&f);
        assert!(r.has(Risk::TlsMissingSni) && r.has(Risk::TlsAlpnSniMismatch));
        // No ALPN at TLS 1.2+: not carrying HTTPS.
        f.sni = Some("example.com");
        f.alpn = None;
        f.ja4 = Some("t12d150700_aaaaaaaaaaaa_bbbbbbbbbbbb");
        assert!(assess(&f).has(Risk::TlsNotCarryingHttps));
        // TLS 1.0 client hello: obsolete, and no ALPN rule (below 1.2), and no SNI rule below 1.1.
        f.ja4 = Some("t10d020200_aaaaaaaaaaaa_bbbbbbbbbbbb");
        f.sni = None;
        let r = assess(&f);
        assert!(r.has(Risk::TlsObsoleteVersion));
        assert!(!r.has(Risk::TlsNotCarryingHttps) && !r.has(Risk::TlsMissingSni));
        // Numeric SNI, self-signed, weak cipher, expired.
        let mut f = tls();
        f.sni = Some("203.0.113.7");
        f.tls_cert_subject = Some("CN=x");
        f.tls_cert_issuer = Some("CN=x");
        f.tls_cipher = Some(0x002f); // RSA_WITH_AES_128_CBC_SHA: weak
        f.cert_not_before = Some(1_600_000_000);
        f.cert_not_after = Some(1_700_000_000);
        f.now = Some(1_800_000_000);
        let r = assess(&f);
        for k in [
            Risk::NumericIpHost,
            Risk::TlsSelfsignedCertificate,
            Risk::TlsWeakCipher,
            Risk::TlsCertificateExpired,
            Risk::TlsCertValidityTooLong,
        ] {
            assert!(r.has(k), "{k}");
        }
    }

    #[test]
    fn assess_http_request() {
        let mut f = tls();
        f.master = "HTTP";
        f.app = "HTTP";
        f.server_port = 80;
        f.http_method = Some("GET");
        f.http_host = Some("10.0.0.1:8080");
        f.url = Some("10.0.0.1:8080/.env");
        let r = assess(&f);
        assert!(r.has(Risk::NumericIpHost));
        assert!(
            r.has(Risk::HttpSuspiciousUserAgent),
            "request without User-Agent"
        );
        assert!(r.has(Risk::PossibleExploit), "path starting with /.");
        f.user_agent = Some("Mozilla/5.0 (X11; Linux x86_64) Firefox/115.0");
        f.http_status = Some(404);
        f.url = Some("10.0.0.1:8080/index.html");
        let r = assess(&f);
        assert!(!r.has(Risk::HttpSuspiciousUserAgent));
        assert!(r.has(Risk::ErrorCodeDetected));
        f.http_status = Some(200);
        assert!(!assess(&f).has(Risk::ErrorCodeDetected));
    }

    fn http_response<'a>() -> RiskFacts<'a> {
        let mut f = tls();
        f.master = "HTTP";
        f.app = "HTTP";
        f.server_port = 80;
        f.http_method = Some("GET");
        f.http_host = Some("example.com");
        f.url = Some("example.com/file");
        f.user_agent = Some("Mozilla/5.0 (X11; Linux x86_64) Firefox/115.0");
        f.http_status = Some(200);
        f
    }

    #[test]
    fn content_type_is_follows_ndpi_offsets() {
        // Twelve bytes skipped, more than three compared, a prefix of a listed name.
        assert!(content_type_is("application/octet-stream", &DOWNLOAD_MIMES));
        assert!(content_type_is("APPLICATION/octet-STREAM", &DOWNLOAD_MIMES));
        assert!(content_type_is("application/octe", &DOWNLOAD_MIMES));
        assert!(
            !content_type_is("application/oct", &DOWNLOAD_MIMES),
            "3 bytes"
        );
        assert!(!content_type_is(
            "application/octet-stream; x=1",
            &DOWNLOAD_MIMES
        ));
        assert!(
            !content_type_is("application/Octet-stream", &DOWNLOAD_MIMES),
            "first byte"
        );
        assert!(content_type_is("application/x-zip", &DOWNLOAD_MIMES));
        assert!(
            !content_type_is("application/bz2", &DOWNLOAD_MIMES),
            "not over 3 bytes"
        );
        assert!(content_type_is("application/x-msdownload", &EXE_MIMES));
        assert!(content_type_is("application/java-vm", &EXE_MIMES));
        assert!(content_type_is(
            "application/vnd.microsoft.portable-executable",
            &EXE_MIMES
        ));
        assert!(!content_type_is("application/x-msdownloads", &EXE_MIMES));
        assert!(!content_type_is("text/html", &EXE_MIMES));
    }

    #[test]
    fn obsolete_servers_by_version() {
        assert!(obsolete_http_server("Apache/2.2.15 (CentOS)"));
        assert!(!obsolete_http_server("Apache/2.4.0"));
        assert!(obsolete_http_server("nginx/1.21.6"));
        assert!(obsolete_http_server("NGINX/1.10.3"));
        assert!(!obsolete_http_server("nginx/1.22.0"));
        assert!(!obsolete_http_server("nginx/1.18"), "three numbers needed");
        assert!(!obsolete_http_server("Apache"));
        assert!(!obsolete_http_server("nginx/1"), "not over 7 bytes");
        assert!(!obsolete_http_server("lighttpd/1.4.35"));
        assert!(!obsolete_http_server("nginx/99999999999999999999.1.1"));
    }

    #[test]
    fn assess_http_binary_transfers() {
        let mut f = http_response();
        assert!(!assess(&f).has(Risk::BinaryDataTransfer));
        f.http_content_type = Some("application/octet-stream");
        let r = assess(&f);
        assert!(r.has(Risk::BinaryDataTransfer));
        assert!(!r.has(Risk::BinaryApplicationTransfer));
        f.http_content_type = Some("application/x-dosexec");
        let r = assess(&f);
        assert!(r.has(Risk::BinaryApplicationTransfer));
        assert!(!r.has(Risk::BinaryDataTransfer));
        // windowsupdate.com hosts are exempt, port or not.
        f.http_host = Some("download.windowsupdate.com:80");
        assert!(!assess(&f).has(Risk::BinaryApplicationTransfer));
        f.http_content_type = Some("application/octet-stream");
        assert!(!assess(&f).has(Risk::BinaryDataTransfer));
        // An attachment named .exe needs a Content-Type in the same head.
        f.http_host = Some("example.com");
        f.http_content_type = Some("text/plain");
        f.http_exe_attachment = Some(true);
        assert!(assess(&f).has(Risk::BinaryApplicationTransfer));
        f.http_content_type = None;
        assert!(!assess(&f).has(Risk::BinaryApplicationTransfer));
        // An executable body once host and status are known.
        f.http_exe_attachment = None;
        f.http_exe_body = Some(true);
        assert!(assess(&f).has(Risk::BinaryApplicationTransfer));
        f.http_status = None;
        assert!(!assess(&f).has(Risk::BinaryApplicationTransfer));
    }

    #[test]
    fn assess_http_java_downloads_java() {
        let mut f = http_response();
        f.http_content_type = Some("application/java-vm");
        f.user_agent = Some("Java/1.8.0_51");
        let r = assess(&f);
        assert!(r.has(Risk::BinaryApplicationTransfer));
        assert!(r.has(Risk::PossibleExploit));
        f.user_agent = Some("curl/8.0");
        assert!(!assess(&f).has(Risk::PossibleExploit));
    }

    #[test]
    fn assess_http_suspicious_content_and_headers() {
        let mut f = http_response();
        f.http_body_binary = Some(true);
        assert!(!assess(&f).has(Risk::HttpSuspiciousContent), "no type");
        f.http_content_type = Some("image/png");
        assert!(!assess(&f).has(Risk::HttpSuspiciousContent));
        for t in [
            "text/html",
            "application/json",
            "application/x-www-form-urlencoded",
        ] {
            f.http_content_type = Some(t);
            assert!(assess(&f).has(Risk::HttpSuspiciousContent), "{t}");
        }
        f.http_body_binary = Some(false);
        assert!(!assess(&f).has(Risk::HttpSuspiciousContent));

        assert!(!assess(&f).has(Risk::HttpSuspiciousHeader));
        f.http_susp_header_name = Some(true);
        assert!(assess(&f).has(Risk::HttpSuspiciousHeader));
        f.http_susp_header_name = None;
        f.http_server_nonprint = Some(true);
        assert!(assess(&f).has(Risk::HttpSuspiciousHeader));
        f.http_server_nonprint = None;
        // A Host that is an IPv4 address other than the server's.
        f.http_host = Some("93.184.216.34:8080");
        assert!(!assess(&f).has(Risk::HttpSuspiciousHeader));
        f.http_host = Some("10.1.2.3");
        assert!(assess(&f).has(Risk::HttpSuspiciousHeader));
        f.http_host = Some("10.1.2.3.4");
        assert!(
            assess(&f).has(Risk::HttpSuspiciousHeader),
            "inet_addr fails"
        );
        f.http_host = Some("10.1.2");
        assert!(
            !assess(&f).has(Risk::HttpSuspiciousHeader),
            "not four numbers"
        );
        f.server_addr = Some("2001:db8::1".parse().unwrap());
        f.http_host = Some("10.1.2.3");
        assert!(
            !assess(&f).has(Risk::HttpSuspiciousHeader),
            "IPv4 packets only"
        );

        f.http_server = Some("Apache/2.2.3");
        assert!(assess(&f).has(Risk::HttpObsoleteServer));
    }

    #[test]
    fn assess_dns_and_entropy() {
        let mut f = tls();
        f.master = "DNS";
        f.app = "DNS";
        f.category = "Network";
        f.dns_query = Some("bad name.example");
        f.dns_rcode = Some(3);
        let r = assess(&f);
        assert!(r.has(Risk::InvalidCharacters) && r.has(Risk::ErrorCodeDetected));
        let mut f = tls();
        f.master = "Unknown";
        f.app = "Unknown";
        f.dpi = false;
        f.payload_entropy = Some(7.5);
        assert!(assess(&f).has(Risk::SuspiciousEntropy));
        f.payload_entropy = Some(3.0);
        assert!(!assess(&f).has(Risk::SuspiciousEntropy), "plain text");
        f.master = "TLS";
        f.payload_entropy = Some(7.9);
        assert!(
            !assess(&f).has(Risk::SuspiciousEntropy),
            "encrypted by design"
        );
    }

    #[test]
    fn dns_names() {
        // dns.c dns_validchar: letters, digits, '_' and '-' in labels joined by '.'.
        for ok in [
            "_sip._udp.example.com",
            "a-b.c0",
            "",
            "<root>",
            "<Unknown extended label>",
        ] {
            assert!(is_valid_dns_name(ok), "{ok}");
        }
        // ':' passes ndpi_is_valid_hostname but not dns_validchar; '\\' (an escaped control
        // byte), space, '$' and non-ASCII fail.
        for bad in [
            "host:53",
            "a b.com",
            "cyber\\015.dk",
            "x$.com",
            "caf\u{e9}.fr",
            "<root",
        ] {
            assert!(!is_valid_dns_name(bad), "{bad}");
        }
        let mut f = tls();
        f.master = "DNS";
        f.app = "DNS";
        f.server_port = 53;
        f.dns_query = Some("<root>");
        assert!(!assess(&f).has(Risk::InvalidCharacters), "empty name");
        f.dns_query = Some("host:53");
        assert!(assess(&f).has(Risk::InvalidCharacters));
        // Any message's name counts, within the messages nDPI reads.
        f.dns_query = Some("ok.example");
        f.dns_names = Some("ok.example,o\\001k.example");
        assert!(assess(&f).has(Risk::InvalidCharacters));
        f.dns_names = Some("a,b,c,d,e,f,g h");
        assert!(
            !assess(&f).has(Risk::InvalidCharacters),
            "7th message unread"
        );
        f.master = "LLMNR";
        f.app = "LLMNR";
        f.dns_names = Some("ok,o k");
        assert!(
            !assess(&f).has(Risk::InvalidCharacters),
            "LLMNR: first only"
        );
        // mDNS (port 5353) names are not checked.
        f.master = "DNS";
        f.app = "DNS";
        f.server_port = 5353;
        f.dns_query = Some("My Printer._ipp._tcp.local");
        assert!(!assess(&f).has(Risk::InvalidCharacters));
    }

    #[test]
    fn dns_zero_ttl_is_minor_issue() {
        let mut f = tls();
        f.master = "DNS";
        f.app = "DNS";
        assert!(!assess(&f).has(Risk::MinorIssues));
        f.dns_zero_ttl = true;
        assert!(assess(&f).has(Risk::MinorIssues));
        f.master = "TLS";
        assert!(!assess(&f).has(Risk::MinorIssues), "a DNS fact");
    }

    #[test]
    fn dns_invalid_chars_and_error_code_facts() {
        // What nDPI's dissector read, where the record's names and rcode do not show it: a
        // name it copied before dropping it, a fuzzed "response" sent to the server.
        let mut f = tls();
        f.master = "DNS";
        f.app = "DNS";
        f.server_port = 53;
        f.dns_query = Some("ok.example");
        f.dns_rcode = None;
        let r = assess(&f);
        assert!(!r.has(Risk::InvalidCharacters) && !r.has(Risk::ErrorCodeDetected));
        f.dns_invalid_chars = true;
        assert!(assess(&f).has(Risk::InvalidCharacters));
        f.dns_invalid_chars = false;
        f.dns_error_code = true;
        assert!(assess(&f).has(Risk::ErrorCodeDetected));
        // DNS facts: not for another protocol.
        f.dns_invalid_chars = true;
        f.master = "TLS";
        f.app = "TLS";
        let r = assess(&f);
        assert!(!r.has(Risk::InvalidCharacters) && !r.has(Risk::ErrorCodeDetected));
    }

    #[test]
    fn teamviewer_udp_is_desktop_sharing() {
        let mut f = tls();
        f.master = "TeamViewer";
        f.app = "TeamViewer";
        f.l4 = 17;
        assert!(assess(&f).has(Risk::DesktopOrFileSharingSession));
        f.l4 = 6;
        assert!(
            !assess(&f).has(Risk::DesktopOrFileSharingSession),
            "UDP only"
        );
        f.l4 = 17;
        f.dpi = false;
        assert!(
            !assess(&f).has(Risk::DesktopOrFileSharingSession),
            "found in payload"
        );
    }

    #[test]
    fn quic_client_hello_is_tls13() {
        // A QUIC JA4 without a version (q00) is still a TLS 1.3 client hello (RFC 9001 4.2):
        // legacy_version 0x0303, so Missing SNI applies (and ALPN/SNI mismatch on "h3").
        let mut f = tls();
        f.l4 = 17;
        f.master = "QUIC";
        f.app = "QUIC";
        f.ja4 = Some("q00i0307h3_55b375c5d22e_af0a630e9e67");
        f.alpn = Some("h3-34,hq-34");
        let r = assess(&f);
        assert!(r.has(Risk::TlsMissingSni) && r.has(Risk::TlsAlpnSniMismatch));
        assert!(!r.has(Risk::TlsObsoleteVersion) && !r.has(Risk::TlsNotCarryingHttps));
        f.sni = Some("example.com");
        assert!(assess(&f).is_empty());
        // Not for TLS over TCP: an unknown version decides nothing.
        f.sni = None;
        f.master = "TLS";
        f.ja4 = Some("t00i0307h2_55b375c5d22e_af0a630e9e67");
        assert!(!assess(&f).has(Risk::TlsMissingSni));
    }

    fn tcp() -> RiskFacts<'static> {
        RiskFacts {
            l4: 6,
            client_port: 50000,
            server_port: 8081,
            master: "Unknown",
            app: "Unknown",
            c2s_packets: 1,
            s2c_packets: 1,
            ..RiskFacts::default()
        }
    }

    const SYN: u8 = 0x02;
    const RST: u8 = 0x04;
    const ACK: u8 = 0x10;

    #[test]
    fn tcp_refused_by_server() {
        // SYN, then RST|ACK from the server, no payload: "Connection refused (server)".
        let mut f = tcp();
        f.c2s_tcp_flags = SYN;
        f.s2c_tcp_flags = RST | ACK;
        assert!(assess(&f).has(Risk::TcpIssues));
        // Unknown facts (all zero) decide nothing.
        assert!(assess(&tcp()).is_empty());
        // Only at give-up: a flow DPI classified is not checked.
        f.dpi = true;
        assert!(!assess(&f).has(Risk::TcpIssues));
        // Not for UDP.
        f.dpi = false;
        f.l4 = 17;
        assert!(!assess(&f).has(Risk::TcpIssues));
    }

    #[test]
    fn tcp_refused_conditions() {
        // Three-way handshake, data, then the server's RST among several server packets:
        // payload was exchanged and the server sent more than one packet.
        let mut f = tcp();
        f.c2s_packets = 4;
        f.s2c_packets = 3;
        f.c2s_tcp_flags = SYN | ACK | 0x08;
        f.s2c_tcp_flags = SYN | ACK | RST;
        f.c2s_payload = true;
        f.s2c_payload = true;
        assert!(!assess(&f).has(Risk::TcpIssues));
        // The same with a single server packet (its RST): "Connection refused".
        f.s2c_packets = 1;
        f.s2c_tcp_flags = RST | ACK;
        f.s2c_payload = false;
        assert!(assess(&f).has(Risk::TcpIssues));
        // The client's own SYN and RST, no payload: "Connection refused (client)".
        let mut f = tcp();
        f.s2c_packets = 0;
        f.c2s_packets = 2;
        f.c2s_tcp_flags = SYN | RST;
        assert!(assess(&f).has(Risk::TcpIssues));
        f.c2s_payload = true;
        assert!(!assess(&f).has(Risk::TcpIssues), "payload exchanged");
    }

    #[test]
    fn tcp_direction_is_ndpis() {
        // nDPI's direction 0 is the higher source port. Client port below the server's: the
        // server's packets are direction 0, so the server's SYN and the client's RST count.
        let mut f = tcp();
        f.client_port = 1044;
        f.server_port = 8080;
        f.c2s_tcp_flags = SYN;
        f.s2c_tcp_flags = RST | ACK;
        f.s2c_packets = 2;
        assert!(!assess(&f).has(Risk::TcpIssues));
        f.c2s_tcp_flags = RST;
        f.s2c_tcp_flags = SYN | ACK;
        f.c2s_packets = 1;
        assert!(assess(&f).has(Risk::TcpIssues));
    }

    #[test]
    fn tcp_scans() {
        let mut f = tcp();
        f.dpi = true; // checked on every packet, whatever the classification
        for (odd, want) in [
            (TCP_NULL_SEEN, true),
            (TCP_XMAS_SEEN, true),
            (TCP_FIN_ONLY_C2S, true),
            (TCP_FIN_ONLY_S2C, false),
            (0, false),
        ] {
            f.tcp_odd_flags = odd;
            assert_eq!(assess(&f).has(Risk::TcpIssues), want, "{odd}");
        }
        // Client port below the server's: the server's lone FIN is nDPI's direction 0.
        f.client_port = 80;
        f.tcp_odd_flags = TCP_FIN_ONLY_S2C;
        assert!(assess(&f).has(Risk::TcpIssues));
    }

    proptest! {
        /// The one-pass crawler test is nDPI's four searches.
        #[test]
        fn crawler_in_one_pass(ua in "[a-zA-Z +:/.]{0,40}(crawler|Bot|bOT| http:|\\+http:)?[a-z ]{0,10}") {
            let naive = ua.contains("+http:")
                || ua.contains(" http:")
                || ua.to_ascii_lowercase().contains("crawler")
                || ua.to_ascii_lowercase().contains("bot");
            prop_assert_eq!(ua_is_crawler(&ua), naive);
        }

        /// The one-pass needle search finds what searching for each needle finds.
        #[test]
        fn rce_needles_in_one_pass(
            pre in proptest::collection::vec(any::<u8>(), 0..12),
            k in 0usize..40,
            post in proptest::collection::vec(any::<u8>(), 0..12),
        ) {
            let needles: Vec<&[u8]> = SHELL_SNIPPETS.iter().chain(PWSH).copied().collect();
            let mut v = pre.clone();
            if let Some(n) = needles.get(k) {
                v.extend_from_slice(&n[..n.len() / 2 + 1]);
            }
            v.extend_from_slice(&post);
            let naive = needles.iter().any(|n| v.windows(n.len()).any(|w| w == *n));
            prop_assert_eq!(rce_needle(&v), naive);
        }

        /// The first-byte scan finds what a plain case-blind search finds.
        #[test]
        fn find_ci_is_a_case_blind_search(
            hay in proptest::collection::vec(prop_oneof![Just(b'a'), Just(b'B'), Just(b'b'), Just(b'%')], 0..40),
            needle in proptest::collection::vec(prop_oneof![Just(b'a'), Just(b'b'), Just(b'%')], 1..4),
            from in 0usize..10,
        ) {
            let naive = (from..hay.len().saturating_add(1))
                .filter(|&i| i + needle.len() <= hay.len())
                .find(|&i| hay[i..i + needle.len()].eq_ignore_ascii_case(&needle));
            prop_assert_eq!(find_ci(&hay, &needle, from), naive);
        }
    }

    proptest! {
        #[test]
        fn entropy_in_range(data in proptest::collection::vec(any::<u8>(), 0..2048)) {
            let e = shannon_entropy(&data);
            prop_assert!((0.0..=8.0).contains(&e));
        }

        #[test]
        fn display_parses_back(bits in any::<u64>()) {
            let s = RiskSet::from_bits(bits);
            prop_assert_eq!(RiskSet::parse(&s.to_string()), Some(s));
            prop_assert_eq!(s.score(), s.client_score() + s.server_score());
        }

        #[test]
        fn checks_never_panic(s in "\\PC{0,300}") {
            let _ = url_risk(&s);
            let _ = http_path_risk(&s);
            let _ = suspicious_user_agent(&s);
            let _ = is_numeric_host(&s);
            let _ = is_printable_name(&s);
            let _ = is_obsolete_tls(&s);
        }

        #[test]
        fn url_checks_on_ascii(s in "[ -~]{0,300}") {
            let _ = url_risk(&s);
        }
    }
}
