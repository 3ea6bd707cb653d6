use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// Captured from aMule 2.3.3 (Debian amuled 1:2.3.3-3) in network namespaces: client
// 198.51.100.1 logging in to a stub server on 198.51.100.2:4661 and then downloading from a
// second amuled on 198.51.100.2:4662. tshark 4.x dissects every TCP vector below as
// eDonkey ("eDonkey TCP: Hello", "ID Change", "Hello Answer", "eMule Extensions TCP: Hello").
/// Login request (client to server, E3 01, 77 bytes).
const LOGIN: &str = "e34d000000018268b154600ec4ed5e3144ed201d6f2a00000000361204000000020100011400\
    687474703a2f2f7777772e614d756c652e6f7267030100113c000000030100201d070000030100fb800d0403";
/// ID change from the server (E3 40); written by the stub server from the specification,
/// tshark: "eDonkey TCP: ID Change".
const ID_CHANGE: &str = "e30500000040c6336401";
/// Server message (E3 38, "hello!"), written by the stub server from the specification;
/// tshark: "eDonkey TCP: Server Message".
const SERVER_MESSAGE: &str = "e30900000038060068656c6c6f21";
/// Client-to-client Hello (E3 01, hash size 16).
const HELLO: &str = "e36c00000001108268b154600ec4ed5e3144ed201d6f2ac6336401361207000000020100011400\
    687474703a2f2f7777772e614d756c652e6f7267030100113c000000030100f940120000030100fb800d040303\
    0100fa16321334030100feb8050000030100ef01000000c63364023512";
/// Hello answer (E3 4C) from the second amuled.
const HELLO_ANSWER: &str = "e36b0000004c8268b154600ec4ed5e3144ed201d6f2a0000000036120700000002010001\
    1400687474703a2f2f7777772e614d756c652e6f7267030100113c000000030100f940120000030100fb800d04\
    03030100fa16321334030100feb8050000030100ef01000000000000000000";
/// eMule info (C5 01, aMule's OS-info form: protocol version 0xFF, one tag "Linux"), tshark:
/// "eMule Extensions TCP: Hello".
const EMULE_INFO: &str = "c5120000000147ff010000000201009405004c696e7578";
/// Global server status request over UDP (E3 96, challenge 0x55AA35CD); tshark: "eDonkey UDP:
/// Server Status Request".
const UDP_STATUS: &str = "e396cd35aa55";

/// Kad KADEMLIA2_REQ (find node), from the same aMule with protocol obfuscation turned off
/// (IsClientCryptLayerSupported=0), bootstrapping from the second amuled on udp/4672; tshark:
/// "Kademlia UDP: KADEMLIA2_REQ", "Request Type: 0x0b (Find Node)".
const KAD_REQ: &str = "e4210b154968cb4d757486e30e276f3c031fcf000102030405060708090a0b0c0d0e0f";

/// The server's status answer (E3 97) to a request with challenge 0x55AA03F4 (aMule's, from the
/// second capture): built from the specification (section 7, global server status: challenge,
/// users, files, max users), written to a pcap on udp/4665: tshark shows "eDonkey UDP:
/// Server Status", every field decoded.
const UDP_STATUS_ANSWER: &str = "e397f403aa550c000000480d0000e8030000";

#[test]
fn status_answer() {
    let v = hex(UDP_STATUS_ANSWER);
    assert_eq!(run(&INSPECTOR, UDP, 4665, 4672, true, &v), Probe::Certain(&LABEL));
    assert_eq!(run(&INSPECTOR, UDP, 4665, 4672, true, &v[..17]), Probe::NotForUs);
    let mut w = v;
    w[4] = 0xab; // challenge without eMule's 0x55AA
    assert_eq!(run(&INSPECTOR, UDP, 4665, 4672, true, &w), Probe::NotForUs);
}

#[test]
fn kad_request() {
    let v = hex(KAD_REQ);
    assert_eq!(run(&INSPECTOR, UDP, 4672, 4672, false, &v), Probe::Certain(&LABEL));
    assert_eq!(classify(UDP, 4672, 4672, &[(true, &v)]), Some("eDonkey"));
    let mut w = v.clone();
    w[2] = 3; // no such request type
    assert_eq!(run(&INSPECTOR, UDP, 4672, 4672, false, &w), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, UDP, 4672, 4672, false, &v[..34]), Probe::NotForUs);
    // Kad's PING (E4 60) alone is too short to name.
    assert_eq!(run(&INSPECTOR, UDP, 4672, 4672, false, &hex("e460")), Probe::NotForUs);
}

#[test]
fn amule_vectors() {
    for v in [LOGIN, HELLO, HELLO_ANSWER, EMULE_INFO] {
        assert_eq!(run(&INSPECTOR, TCP, 4662, 47374, false, &hex(v)), Probe::Certain(&LABEL), "{v}");
    }
    assert_eq!(run(&INSPECTOR, TCP, 4661, 41460, true, &hex(ID_CHANGE)), Probe::Certain(&LABEL));
    let msg = hex(SERVER_MESSAGE);
    assert_eq!(run(&INSPECTOR, TCP, 4661, 41460, true, &msg), Probe::Certain(&LABEL));
    let mut short = msg.clone();
    short[6] = 7; // text length past the packet
    assert_eq!(run(&INSPECTOR, TCP, 4661, 41460, true, &short), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, UDP, 4665, 4672, false, &hex(UDP_STATUS)), Probe::Certain(&LABEL));
}

#[test]
fn classify_through_registry() {
    assert_eq!(classify(TCP, 4661, 41460, &[(true, &hex(LOGIN))]), Some("eDonkey"));
    // Off the usual ports too (eD2k clients pick their own).
    assert_eq!(classify(TCP, 31000, 47374, &[(true, &hex(HELLO))]), Some("eDonkey"));
    assert_eq!(classify(UDP, 4665, 4672, &[(true, &hex(UDP_STATUS))]), Some("eDonkey"));
}

#[test]
fn a_second_packet_may_follow() {
    let mut v = hex(HELLO);
    v.extend_from_slice(&hex(EMULE_INFO)[..8]);
    assert_eq!(run(&INSPECTOR, TCP, 4662, 47374, false, &v), Probe::Certain(&LABEL));
    let mut w = hex(HELLO);
    w.extend_from_slice(b"GET ");
    assert_eq!(run(&INSPECTOR, TCP, 4662, 47374, false, &w), Probe::NotForUs);
}

#[test]
fn near_misses() {
    let no = |v: &[u8]| run(&INSPECTOR, TCP, 4662, 47374, false, v) == Probe::NotForUs;
    let mut v = hex(HELLO);
    v[0] = 0xe4; // Kad's protocol byte is not a TCP header
    assert!(no(&v));
    let mut v = hex(HELLO);
    v[1] += 1; // size one past the segment
    assert!(no(&v));
    let v = hex(LOGIN);
    assert!(no(&v[..v.len() - 1]));
    let mut v = hex(LOGIN);
    v[5] = 0x02; // not an opening opcode
    assert!(no(&v));
    let mut v = hex(LOGIN);
    v[31] = 0xff; // tag count 255
    assert!(no(&v));
    let mut v = hex(ID_CHANGE);
    v.push(0);
    v[1] = 6; // a 5-byte client id
    assert!(no(&v));
    let mut v = hex(EMULE_INFO);
    v[7] = 2; // eMule protocol version other than 1 (or aMule's 0xFF)
    assert!(no(&v));
    let mut v = hex(UDP_STATUS);
    v[5] = 0x56; // challenge without eMule's 0x55AA
    assert_eq!(run(&INSPECTOR, UDP, 4665, 4672, false, &v), Probe::NotForUs);
    let mut v = hex(UDP_STATUS);
    v.push(0);
    assert_eq!(run(&INSPECTOR, UDP, 4665, 4672, false, &v), Probe::NotForUs);
}
