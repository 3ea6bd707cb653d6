//! [`assess`] and its per-protocol rules (DNS, TCP, HTTP request and response, TLS).

use super::tls::ja4_hello;
use super::*;
use std::net::{IpAddr, Ipv4Addr};
use wirespeed_classify::Breed;

const TH_SYN: u8 = 0x02;
const TH_RST: u8 = 0x04;

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
pub(super) const EXE_MIMES: [&str; 6] = [
    "exe",
    "java-vm",
    "vnd.ms-cab-compressed",
    "vnd.microsoft.portable-executable",
    "x-msdownload",
    "x-dosexec",
];

/// Media types nDPI's `http.c` takes for file downloads (`download_file_mimes_*`), after
/// `application/`.
pub(super) const DOWNLOAD_MIMES: [&str; 6] =
    ["bz", "bz2", "octet-stream", "x-tar", "x-zip", "x-bzip"];

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
