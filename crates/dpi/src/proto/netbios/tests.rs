use super::*;
use crate::tests::{probe, to_server, vector};

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
