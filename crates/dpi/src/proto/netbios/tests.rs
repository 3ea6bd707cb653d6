use super::*;
use crate::tests::{probe, to_server, vector};
use crate::proto::testkit::probe as run;

/// netbios.pcap, frame 1 (tshark: NBNS query for XSTREAM_HY<00>).
#[test]
fn name_query_from_corpus() {
    let v = vector!("nbns");
    assert_eq!(probe(&INSPECTOR, to_server(UDP, 137), &v).0, Probe::Certain(&LABEL));
    // The same header elsewhere needs a well-encoded name; break one byte of it.
    let mut w = v.clone();
    w[14] = b'z';
    assert_eq!(probe(&INSPECTOR, to_server(UDP, 5000), &w).0, Probe::NotForUs);
}

/// netbios.pcap, frame 20 (tshark: NetBIOS datagram type 0x11, direct group, then SMB command
/// 0x25, Trans, and the browser's Host Announcement): SMB1 in a datagram is NetBIOS.SMBv1.
#[test]
fn browser_datagram_carries_smb1() {
    let v = vector!("nbdgm_browser_smb1");
    assert_eq!(
        probe(&INSPECTOR, to_server(UDP, 138), &v).0,
        Probe::Certain(&crate::proto::smb::SMB1)
    );
    // The SMB signature broken: a datagram still, plain NetBIOS.
    let at = v.windows(4).position(|w| w == b"\xffSMB").unwrap();
    let mut w = v.clone();
    w[at + 1] = b's';
    assert_eq!(probe(&INSPECTOR, to_server(UDP, 138), &w).0, Probe::Certain(&LABEL));
    // Names cut short: never read past the end.
    for n in 0..at {
        assert!(!carries_smb1(&v[..n]));
    }
}

/// RFC 1002 §4.4.3-4.4.4 datagram error and query packets on udp/138: an error of 11 bytes
/// with a known code, a query request with its encoded destination name; the same first byte
/// before other bytes is not NetBIOS.
#[test]
fn datagram_error_and_query() {
    let at138 = |d: &[u8]| run(&INSPECTOR, UDP, 138, 138, false, d);
    let err = [0x13, 0x02, 0x12, 0x34, 192, 0, 2, 1, 0, 138, 0x82];
    assert_eq!(at138(&err), Probe::Certain(&LABEL));
    let mut bad = err;
    bad[10] = 0x11;
    assert_eq!(at138(&bad), Probe::NotForUs);
    let mut q = vec![0x14, 0x02, 0x12, 0x34, 192, 0, 2, 1, 0, 138, 0x20];
    q.extend_from_slice(b"FHEPFCELEHFCEPFFFACACACACACACAAA");
    q.push(0);
    assert_eq!(at138(&q), Probe::Certain(&LABEL));
    let mut other = vec![0x14, 0x31, 0x02, 0xa2, 0x31, 0xce, 0xe3, 0xff, 0x78, 0xc6, 0x53];
    other.resize(30, 0x5a);
    assert_eq!(at138(&other), Probe::NotForUs);
}
