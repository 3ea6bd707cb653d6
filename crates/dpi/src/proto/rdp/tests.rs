use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// rdp.pcap frame 4: X.224 connection request in TPKT (19 bytes).
const CR: &str = "030000130ee00000000000010008000b000000";

#[test]
fn corpus_vector() {
    assert_eq!(classify(TCP, 3389, 52494, &[(true, &hex(CR))]), Some("RDP"));
    // rdp2.pcap frame 1: RDP-UDP SYN (1232 bytes; first 16 kept, zero-padded).
    let mut u = hex("ffffffff00401801bbff568704d004d0");
    u.resize(1232, 0);
    assert_eq!(classify(UDP, 3389, 54759, &[(true, &u)]), Some("RDP"));
    // rdp2.pcap, flow 60355: flags 0x1a01.
    let mut u2 = hex("ffffffff00401a019fd6752b04d004d0");
    u2.resize(1232, 0);
    assert_eq!(classify(UDP, 3389, 60355, &[(true, &u2)]), Some("RDP"));
}

#[test]
fn lengths_checked() {
    let mut v = hex(CR);
    v.push(0);
    assert_eq!(run(&INSPECTOR, TCP, 3389, 4000, false, &v), Probe::NotForUs);
    // A TPKT carrying X.224 data (0xf0) is not a connection request.
    let dt = hex("0300000702f080");
    assert_eq!(run(&INSPECTOR, TCP, 3389, 4000, false, &dt), Probe::NotForUs);
    // s7comm.pcap: an ISO transport connection request with TSAPs (S7comm), not RDP.
    let s7 = hex("0300001611e00000000700c1020100c2020102c0010a");
    assert_eq!(run(&INSPECTOR, TCP, 102, 4000, false, &s7), Probe::NotForUs);
}

/// rdp2.pcap, flow 54759 -> 3389: the RDP-UDP SYN (frame 1, cut and padded as above), the
/// server's SYN+ACK (frame 2, the same), then the client's datagram carrying a TLS 1.1
/// ClientHello 12 bytes in (frame 3, whole). tshark: SNI WIN-8QSO0D3OKBI.HARDENING.COM; nDPI
/// names the flow RDP.
#[test]
fn client_hello_inside_rdp_udp() {
    use crate::proto::testkit::classify_meta;
    use crate::Field;
    let mut syn = hex("ffffffff00401801bbff568704d004d0");
    syn.resize(1232, 0);
    let mut syn_ack = hex("0000000040001805");
    syn_ack.resize(1232, 0);
    let hello = hex(
        "0014c101f40164e06400010016030200800100007c030260b8d15434f6002eb41acb7d240955bda36c57d6eb\
         ef9bc33073450701d76e9b00000ec00ac009c014c0130035002f000a0100004500000022002000001d57494e\
         2d3851534f3044334f4b42492e48415244454e494e472e434f4d000a00080006001d00170018000b000201\
         000023000000170000ff01000100",
    );
    let pkts = [(true, &syn[..]), (false, &syn_ack[..]), (true, &hello[..])];
    let (label, sni) = classify_meta(UDP, 3389, 54759, &pkts, Some(Field::Sni));
    assert_eq!(label, Some("RDP"));
    assert_eq!(sni.as_deref(), Some("WIN-8QSO0D3OKBI.HARDENING.COM"));
    // Lengths that disagree are no hello.
    let mut bad = hello.clone();
    bad[16] = 0x81;
    let pkts = [(true, &syn[..]), (false, &syn_ack[..]), (true, &bad[..])];
    let (label, sni) = classify_meta(UDP, 3389, 54759, &pkts, Some(Field::Sni));
    assert_eq!(label, Some("RDP"));
    assert_eq!(sni, None);
}
