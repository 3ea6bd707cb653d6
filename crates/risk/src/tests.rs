use super::assess::{DOWNLOAD_MIMES, EXE_MIMES};
use super::url::{find_ci, rce_needle, PWSH, SHELL_SNIPPETS};
use super::*;
use proptest::prelude::*;
use wirespeed_classify::Breed;

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
    let xss =
        "h/dv/vulnerabilities/xss_r/?name=%3Cscript%3Econsole.log%28%27X%27%29%3B%3C%2Fscript%3E";
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

    /// The byte table answers as the character classes written plainly (any bytes, as text).
    #[test]
    fn name_checks_are_the_character_classes(
        v in proptest::collection::vec(
            prop_oneof![
                8 => proptest::sample::select(b"aZ09.-_:".to_vec()),
                1 => any::<u8>(),
            ],
            0..12,
        ),
    ) {
        let s = String::from_utf8_lossy(&v);
        let host = s.bytes().all(|b| matches!(b, b'.' | b'-' | b'_' | b':') || b.is_ascii_alphanumeric());
        let dns = s.bytes().all(|b| matches!(b, b'.' | b'_' | b'-') || b.is_ascii_alphanumeric());
        prop_assert_eq!(is_valid_hostname(&s), host);
        prop_assert_eq!(is_valid_dns_name(&s), dns);
    }

    /// The byte searches answer as nDPI's string tests do (written here with `str`'s own).
    #[test]
    fn suspicious_user_agent_is_the_string_tests(
        ua in "(<\\?|test|jndi:ldap://)?[a-zA-Z0-9 $:/ps{}.]{0,30}(://|[$]|[{]|[}])?[a-zA-Z :/]{0,8}",
    ) {
        let b = ua.as_bytes();
        let n = b.len();
        let naive = n != 0 && {
            let upper = b.iter().filter(|c| c.is_ascii_uppercase()).count();
            let shouting =
                n > 12 && b.iter().all(u8::is_ascii_alphabetic) && upper as f32 / n as f32 >= 0.2;
            let scheme = ua
                .find("://")
                .is_some_and(|i| i > 0 && b[i - 1] != b'p' && b[i - 1] != b's');
            if shouting || ua.starts_with("<?") || ua.contains('$') || scheme {
                true
            } else if ua.starts_with("jndi:ldap://") {
                false
            } else {
                !(4..=256).contains(&n)
                    || ua.starts_with("test")
                    || ua.contains('{')
                    || ua.contains('}')
            }
        };
        prop_assert_eq!(suspicious_user_agent(&ua), naive);
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
