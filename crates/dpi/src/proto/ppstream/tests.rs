use super::*;
use crate::proto::testkit::{classify, probe as run};

/// A datagram of `n` bytes: the little-endian `len`, then `head` from byte 2, then filler.
fn dgram(n: usize, len: u16, head: &[u8]) -> Vec<u8> {
    let mut v = vec![0x5a; n];
    v[..2].copy_from_slice(&len.to_le_bytes());
    v[2..2 + head.len()].copy_from_slice(head);
    v
}

// Built by hand from the command shapes (module documentation) at the sizes of pps.pcap.out's
// flows (88 and 108 bytes of payload from 22793 to 17788).
fn cmd43(n: usize, len: u16) -> Vec<u8> {
    dgram(n, len, &[0x43, 0x12, 0x34, 0xff, 0, 1, 0, 0, 0, 0, 0, 0, 0])
}

#[test]
fn the_capture_flows_are_ppstream() {
    let v = cmd43(88, 88);
    assert_eq!(classify(UDP, 17788, 22793, &[(true, &v)]), Some("PPStream"));
    // The length field may leave out 4 or 6 bytes.
    for len in [104, 102] {
        let w = cmd43(108, len);
        assert_eq!(run(&INSPECTOR, UDP, 17788, 22793, false, &w), Probe::Certain(&LABEL));
    }
    // 0x44 `73 17`: zeros at 5-8 and 14-20.
    let mut w = dgram(52, 52, &[0x44, 0x73, 0x17, 0, 0, 0, 0, 9, 9, 9, 9, 9, 0, 0, 0, 0, 0, 0, 0]);
    assert_eq!(run(&INSPECTOR, UDP, 22793, 17788, true, &w), Probe::Certain(&LABEL));
    // 0x44 `74 71`: 113 bytes with the name at 94.
    w = dgram(113, 113, &[0x44, 0x74, 0x71]);
    w[94..102].copy_from_slice(b"PPStream");
    assert_eq!(run(&INSPECTOR, UDP, 17788, 22793, false, &w), Probe::Certain(&LABEL));
    w[94] = b'Q';
    assert_eq!(run(&INSPECTOR, UDP, 17788, 22793, false, &w), Probe::NotForUs);
}

#[test]
fn near_misses_are_not_ppstream() {
    // A length that matches none of the three forms.
    let v = cmd43(88, 87);
    assert_eq!(run(&INSPECTOR, UDP, 17788, 22793, false, &v), Probe::NotForUs);
    // One fixed byte off.
    let mut w = cmd43(88, 88);
    w[7] = 2;
    assert_eq!(run(&INSPECTOR, UDP, 17788, 22793, false, &w), Probe::NotForUs);
    // The right bytes off the port.
    let ok = cmd43(88, 88);
    assert_eq!(run(&INSPECTOR, UDP, 17789, 22793, false, &ok), Probe::NotForUs);
    assert_eq!(classify(UDP, 17789, 22793, &[(true, &ok)]), None);
    // Too short to hold a command.
    assert_eq!(run(&INSPECTOR, UDP, 17788, 22793, false, &cmd43(15, 15)[..12]), Probe::NotForUs);
}

#[test]
fn short_forms_on_the_port() {
    let mut v = vec![0u8; 18];
    v[1] = 0x80;
    v[3] = 7;
    v[4] = 7;
    assert_eq!(run(&INSPECTOR, UDP, 17788, 22793, false, &v), Probe::Certain(&LABEL));
    v[4] = 8;
    assert_eq!(run(&INSPECTOR, UDP, 17788, 22793, false, &v), Probe::NotForUs);
    let mut w = vec![0x11u8; 18];
    w[0] = 0x0c;
    w[1] = 0x53;
    w[3] = 0;
    assert_eq!(run(&INSPECTOR, UDP, 17788, 22793, false, &w), Probe::Certain(&LABEL));
    // 17 bytes are too few for these.
    assert_eq!(run(&INSPECTOR, UDP, 17788, 22793, false, &w[..17]), Probe::NotForUs);
}
