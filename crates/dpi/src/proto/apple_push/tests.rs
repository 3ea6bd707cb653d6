use super::*;
use crate::proto::testkit::{classify_at, hex};
use std::net::Ipv4Addr;

const APPLE: IpAddr = IpAddr::V4(Ipv4Addr::new(17, 110, 229, 14));

/// whatsapp_login_call.pcap frame 72: the client's first segment, TLS 1.0 application data
/// (the handshake is not in the capture), to 17.110.229.14:5223. nDPI: ApplePush.
fn app_data() -> Vec<u8> {
    let mut v = hex("1703010020e09df2d6815f20fe9c3b8e35ffff76431f5b41fa02b58c4f64");
    v.resize(1440, 0x5a);
    v
}

#[test]
fn corpus_vector() {
    let got = classify_at(TCP, APPLE, 5223, 49193, &[(true, &app_data())]);
    assert_eq!(got, Some("ApplePush"));
    // The notification port, and the address on the client's side, are the same rule.
    let got = classify_at(TCP, APPLE, 2197, 49193, &[(true, &app_data())]);
    assert_eq!(got, Some("ApplePush"));
}

#[test]
fn not_off_apple_or_off_its_ports() {
    let other = IpAddr::V4(Ipv4Addr::new(18, 110, 229, 14));
    assert_ne!(classify_at(TCP, other, 5223, 49193, &[(true, &app_data())]), Some("ApplePush"));
    assert_ne!(classify_at(TCP, APPLE, 5224, 49193, &[(true, &app_data())]), Some("ApplePush"));
}

#[test]
fn tls_control_records_stay_tls() {
    // anyconnect-vpn.pcap frame 378: the server's first segment, a TLS 1.2 alert record (48
    // bytes of encrypted alert, cut here to its first 30), from 17.57.144.116:5223. nDPI: TLS.
    let mut alert = hex("1503030030d8412223de3918576562218a5e12885e3361d884320d71b62f");
    alert.resize(53, 0);
    let a = IpAddr::V4(Ipv4Addr::new(17, 57, 144, 116));
    assert_eq!(classify_at(TCP, a, 5223, 56886, &[(false, &alert)]), Some("TLS"));
    // A ClientHello to Apple's push port is TLS as well.
    let hello = hex("16030100c6010000c20303");
    assert_ne!(classify_at(TCP, a, 5223, 56886, &[(true, &hello)]), Some("ApplePush"));
}

#[test]
fn apple_blocks() {
    for (a, yes) in [
        ("17.0.0.1", true),
        ("17.255.255.255", true),
        ("16.255.255.255", false),
        ("18.0.0.0", false),
        ("2620:149:a44::1", true),
        ("2620:149:a45::1", false),
        ("2403:300:a42:1::", true),
        ("2403:300:a51::5", true),
        ("2403:300:a52::5", false),
        ("2a01:b740:a42:ffff::", true),
        ("2a01:b740:a43::", false),
    ] {
        assert_eq!(is_apple(a.parse().unwrap()), yes, "{a}");
    }
}
