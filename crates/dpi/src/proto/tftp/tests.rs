use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

/// A request (RFC 1350 section 5, figure 5-1): opcode, file name, NUL, mode, NUL.
fn req(op: u8, file: &str, mode: &str) -> Vec<u8> {
    let mut v = vec![0, op];
    v.extend_from_slice(file.as_bytes());
    v.push(0);
    v.extend_from_slice(mode.as_bytes());
    v.push(0);
    v
}

#[test]
fn requests_from_the_capture() {
    // tftp.pcap.out: "Filename: rfc1350.txt" in a 62-byte frame (20 bytes of payload), and
    // "zz.bin" in a 60-byte frame (18 bytes: the mode must be netascii).
    let rrq = req(1, "rfc1350.txt", "octet");
    assert_eq!(rrq.len(), 20);
    assert_eq!(classify(UDP, 69, 50618, &[(true, &rrq)]), Some("TFTP"));
    let wrq = req(2, "zz.bin", "netascii");
    assert_eq!(wrq.len(), 18);
    assert_eq!(classify(UDP, 69, 44618, &[(true, &wrq)]), Some("TFTP"));
    // RFC 2347 options after the mode.
    let mut opt = req(1, "empty100KB", "OCTET");
    opt.extend_from_slice(b"blksize\x001468\x00tsize\x000\x00");
    assert_eq!(run(&INSPECTOR, UDP, 69, 35840, false, &opt), Probe::Certain(&LABEL));
}

#[test]
fn option_ack_alone() {
    // tftp.pcap.out flow 4: one 28-byte OACK (PLAIN TEXT blksize) between two fresh ports.
    let oack = b"\x00\x06blksize\x001468\x00tsize\x00102400\x00";
    assert_eq!(oack.len(), 28);
    assert_eq!(classify(UDP, 35840, 47649, &[(true, oack)]), Some("TFTP"));
    // An option name TFTP does not define, or a value that is not a number.
    let odd = b"\x00\x06blocks\x001468\x00";
    assert_eq!(run(&INSPECTOR, UDP, 35840, 47649, false, odd), Probe::NotForUs);
    let text = b"\x00\x06blksize\x00big\x00";
    assert_eq!(run(&INSPECTOR, UDP, 35840, 47649, false, text), Probe::NotForUs);
}

#[test]
fn data_flows_need_the_answer() {
    // A read: DATA 1 (512 bytes of the file) from the server's fresh port, ACK 1 back
    // (tftp.pcap.out flow 1: 558-byte frames one way, 60-byte ACK frames the other).
    let mut data1 = hex("00030001");
    data1.extend_from_slice(&[b'N'; 512]);
    let ack1 = hex("00040001");
    assert_eq!(run(&INSPECTOR, UDP, 50618, 3445, false, &data1), Probe::Unsure);
    assert_eq!(
        classify(UDP, 50618, 3445, &[(true, &data1), (false, &ack1)]),
        Some("TFTP")
    );
    // A write: ACK 0 from the server's fresh port, then DATA 1 from the client.
    let ack0 = hex("00040000");
    assert_eq!(
        classify(UDP, 44618, 62058, &[(true, &ack0), (false, &data1)]),
        Some("TFTP")
    );
    // An error answering the opening (RFC 1350 section 5: code 1, file not found).
    let err = b"\x00\x05\x00\x01File not found\x00";
    assert_eq!(
        classify(UDP, 44618, 62058, &[(true, &ack0), (false, err)]),
        Some("TFTP")
    );
    // One side alone is not enough.
    assert_eq!(classify(UDP, 50618, 3445, &[(true, &data1), (true, &data1)]), None);
}

#[test]
fn near_misses() {
    // A data flow must open with block 1 (DATA) or 0 (ACK).
    let mut data7 = hex("00030007");
    data7.extend_from_slice(&[0; 100]);
    assert_eq!(run(&INSPECTOR, UDP, 5000, 6000, false, &data7), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, UDP, 5000, 6000, false, &hex("00040003")), Probe::NotForUs);
    // An ACK carries nothing after its block number.
    assert_eq!(run(&INSPECTOR, UDP, 5000, 6000, false, &hex("0004000000")), Probe::NotForUs);
    // The answer to DATA 1 must acknowledge block 1.
    let mut data1 = hex("00030001");
    data1.extend_from_slice(&[1; 20]);
    assert_eq!(
        classify(UDP, 5000, 6000, &[(true, &data1), (false, &hex("00040005"))]),
        None
    );
    // Requests: unknown mode, missing final NUL, unprintable name.
    assert_eq!(run(&INSPECTOR, UDP, 69, 6000, false, &req(1, "a.txt", "binary")), Probe::NotForUs);
    let mut cut = req(1, "a.txt", "octet");
    cut.pop();
    assert_eq!(run(&INSPECTOR, UDP, 69, 6000, false, &cut), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, UDP, 69, 6000, false, &req(1, "a\x01b", "octet")), Probe::NotForUs);
    // An error code past 8.
    let err = b"\x00\x05\x00\x09oops\x00";
    assert_eq!(run(&INSPECTOR, UDP, 5000, 6000, true, err), Probe::NotForUs);
}
