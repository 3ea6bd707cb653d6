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

// Captured from tftp-hpa 5.2 (Debian tftp-hpa client, tftpd-hpa server) in two network
// namespaces (scripts/netcap, scenario "tftp"; tshark 4.0.17 dissects every datagram as tftp):
// a read of the 600-byte "hello.txt" in octet mode (two DATA blocks), then a write of "up.txt"
// in netascii mode.
const RRQ: &str = "0001 68656c6c6f2e747874 00 6f63746574 00";
const WRQ: &str = "0002 75702e747874 00 6e65746173636969 00";
// The write's DATA 1: "note" with netascii's CR LF.
const WRITE_DATA1: &str = "00030001 6e6f74650d0a";

/// The read's DATA 1: block 1, 512 bytes of "N" (the file the scenario serves).
fn read_data1() -> Vec<u8> {
    let mut v = hex("00030001");
    v.extend_from_slice(&[b'N'; 512]);
    v
}

#[test]
fn requests_from_the_capture() {
    let rrq = hex(RRQ);
    assert_eq!(rrq, req(1, "hello.txt", "octet"));
    assert_eq!(classify(UDP, 69, 43246, &[(true, &rrq)]), Some("TFTP"));
    let wrq = hex(WRQ);
    assert_eq!(wrq, req(2, "up.txt", "netascii"));
    assert_eq!(classify(UDP, 69, 36828, &[(true, &wrq)]), Some("TFTP"));
    // RFC 2347 options after the mode (section 2), built by hand: tftp-hpa's client sends none.
    let mut opt = req(1, "hello.txt", "OCTET");
    opt.extend_from_slice(b"blksize\x001468\x00tsize\x000\x00");
    assert_eq!(run(&INSPECTOR, UDP, 69, 35840, false, &opt), Probe::Certain(&LABEL));
}

#[test]
fn option_ack_alone() {
    // An OACK (RFC 2347 section 2, opcode 6) granting blksize and tsize, built by hand, seen
    // alone between the transfer's two fresh ports.
    let oack = b"\x00\x06blksize\x001468\x00tsize\x00600\x00";
    assert_eq!(classify(UDP, 35840, 47649, &[(true, oack)]), Some("TFTP"));
    // An option name TFTP does not define, or a value that is not a number.
    let odd = b"\x00\x06blocks\x001468\x00";
    assert_eq!(run(&INSPECTOR, UDP, 35840, 47649, false, odd), Probe::NotForUs);
    let text = b"\x00\x06blksize\x00big\x00";
    assert_eq!(run(&INSPECTOR, UDP, 35840, 47649, false, text), Probe::NotForUs);
}

#[test]
fn data_flows_need_the_answer() {
    // The captured read: DATA 1 from the server's fresh port 43520, ACK 1 back.
    let data1 = read_data1();
    let ack1 = hex("00040001");
    assert_eq!(run(&INSPECTOR, UDP, 43520, 43246, false, &data1), Probe::Unsure);
    assert_eq!(
        classify(UDP, 43520, 43246, &[(true, &data1), (false, &ack1)]),
        Some("TFTP")
    );
    // The captured write: ACK 0 from the server's fresh port 33767, then DATA 1 from the client.
    let ack0 = hex("00040000");
    assert_eq!(
        classify(UDP, 33767, 36828, &[(true, &ack0), (false, &hex(WRITE_DATA1))]),
        Some("TFTP")
    );
    // An error answering the opening (RFC 1350 section 5: code 1, file not found).
    let err = b"\x00\x05\x00\x01File not found\x00";
    assert_eq!(
        classify(UDP, 33767, 36828, &[(true, &ack0), (false, err)]),
        Some("TFTP")
    );
    // One side alone is not enough.
    assert_eq!(classify(UDP, 43520, 43246, &[(true, &data1), (true, &data1)]), None);
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
