use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

#[test]
fn corpus_vector() {
    // gtp_c.pcap frame 1: GTPv2-C Create Session Request (type 32), length 0xf3 (247 - 4);
    // the first 24 bytes kept and zero-padded to the capture's size (nDPI: GTP.GTP_C).
    let mut v = hex("482000f3000000004b5462000100080089674511223344f5");
    v.resize(247, 0);
    assert_eq!(classify(UDP, 2123, 1024, &[(true, &v)]), Some("GTP"));
    assert_eq!(run(&INSPECTOR, UDP, 2123, 1024, true, &v), Probe::Certain(&GTP_C));
}

#[test]
fn look_alike() {
    // gtp_false_positive.pcapng frame 7 (first 16 bytes): "version 2" but a length of 2.
    let v = hex("4601000002790300c800c58bbda67337");
    assert_eq!(run(&INSPECTOR, UDP, 50140, 2123, true, &v), Probe::NotForUs);
    // gtp_false_positive.pcapng, 50.7.111.134:17000 -> 2123 (nDPI: GTP by port only): flags
    // 0x37 say a sequence number, N-PDU number and extension follow, but the length is 0.
    let v = hex("3703000042000000");
    assert_eq!(run(&INSPECTOR, UDP, 2123, 17000, false, &v), Probe::NotForUs);
    // The same message with its 4 optional bytes is one.
    let v = hex("370300044200000000000000");
    assert_eq!(run(&INSPECTOR, UDP, 2123, 17000, false, &v), Probe::Certain(&GTP_C));
}

// The vectors below were made by scapy 2.8.0's GTP layers (scapy.contrib.gtp, gtp_v2), written
// to a pcap on 192.0.2.1 -> 192.0.2.2 and dissected by tshark 4.0.17 as named in each comment.

#[test]
fn gtpv1_u_g_pdu() {
    // GTP_U_Header(teid=0x11223344) / IP / ICMP / "ping", udp 2152 -> 2152; tshark:
    // eth:ethertype:ip:udp:gtp:ip:icmp:data, Message Type: T-PDU (0xff).
    let v = hex("30ff00201122334445000020000100004001149ec6336401cb0071090800192f0000000070696e67");
    assert_eq!(run(&INSPECTOR, UDP, 2152, 2152, true, &v), Probe::Certain(&GTP_U));
    assert_eq!(classify(UDP, 2152, 2152, &[(true, &v)]), Some("GTP"));
    // A G-PDU names the user plane on any port.
    assert_eq!(run(&INSPECTOR, UDP, 40000, 50000, true, &v), Probe::Certain(&GTP_U));
    let mut short = v.clone();
    short.pop();
    assert_eq!(run(&INSPECTOR, UDP, 2152, 2152, true, &short), Probe::NotForUs);
    let mut pt = v.clone();
    pt[0] &= !0x10; // protocol type 0 without GTP prime's spare bits
    assert_eq!(run(&INSPECTOR, UDP, 2152, 2152, true, &pt), Probe::NotForUs);
}

#[test]
fn gtpv1_u_end_marker() {
    // GTP_U_Header(gtp_type=254, teid=0x11223344); tshark: Message Type: End Marker (0xfe).
    let v = hex("30fe000011223344");
    assert_eq!(run(&INSPECTOR, UDP, 2152, 2152, true, &v), Probe::Certain(&GTP_U));
}

#[test]
fn echo_named_by_port() {
    // GTP_U_Header(gtp_type=1, S=1, seq=7) / GTPEchoRequest on udp 2152 -> 2152 and
    // GTPHeader(gtp_type=1, S=1, seq=9) / GTPEchoRequest on 40000 -> 2123; tshark: gtp,
    // Message Type: Echo request (0x01) both. The echo exists on both planes.
    let u = hex("320100040000000000070000");
    let c = hex("320100040000000000090000");
    assert_eq!(run(&INSPECTOR, UDP, 2152, 2152, true, &u), Probe::Certain(&GTP_U));
    assert_eq!(run(&INSPECTOR, UDP, 2123, 40000, true, &c), Probe::Certain(&GTP_C));
    assert_eq!(classify(UDP, 2123, 40000, &[(true, &c)]), Some("GTP"));
}

#[test]
fn gtpv1_c_create_pdp_context() {
    // GTPHeader(S=1, seq=10) / GTPCreatePDPContextRequest(IMSI, TEID-I, TEID-C, NSAPI, two GSN
    // addresses), 40001 -> 2123; tshark: gtp, Message Type: Create PDP context request (0x10).
    let v = hex("3210001f00000000000a00000200010121436587f9100000100011000020001405850000850000");
    assert_eq!(run(&INSPECTOR, UDP, 2123, 40001, true, &v), Probe::Certain(&GTP_C));
    // On the GTP-U port it is still a control message.
    assert_eq!(run(&INSPECTOR, UDP, 2152, 40001, true, &v), Probe::Certain(&GTP_C));
    assert_eq!(classify(UDP, 2123, 40001, &[(true, &v)]), Some("GTP"));
    let mut ty = v.clone();
    ty[1] = 0x40; // not a message type of TS 29.060
    assert_eq!(run(&INSPECTOR, UDP, 2123, 40001, true, &ty), Probe::NotForUs);
}

#[test]
fn gtpv1_c_beyond_pdp_contexts() {
    // Built from TS 29.060 (§6 header with a sequence number, §7.5.3 SGSN Context Request with
    // the Routeing Area Identity, TEID Control Plane and SGSN Address IEs of §7.7); tshark
    // 4.0.17: gtp, "SGSN context request (0x32)", RAI, TEID-C 0x2000, GSN address 192.0.2.1.
    let v = hex("3232001700000000000700000300f1100001011100002000850004c0000201");
    assert_eq!(run(&INSPECTOR, UDP, 2123, 40000, false, &v), Probe::Certain(&GTP_C));
    assert_eq!(classify(UDP, 2123, 40000, &[(true, &v)]), Some("GTP"));
    let mut ty = v.clone();
    ty[1] = 0x3f; // between UE Registration Query Response (0x3e) and RAN Information Relay
    assert_eq!(run(&INSPECTOR, UDP, 2123, 40000, false, &ty), Probe::NotForUs);
}

#[test]
fn gtpv2_c_echo() {
    // gtp_v2.GTPHeader(P=0, gtp_type=1, seq=11) / GTPV2EchoRequest(Recovery 3), 40002 -> 2123;
    // tshark: gtp:gtpv2, Message Type: Echo Request (1).
    let v = hex("4001000900000b000300010003");
    assert_eq!(run(&INSPECTOR, UDP, 2123, 40002, true, &v), Probe::Certain(&GTP_C));
    assert_eq!(run(&INSPECTOR, UDP, 2152, 40002, true, &v), Probe::Certain(&GTP_C));
    let mut long = v.clone();
    long.push(0);
    assert_eq!(run(&INSPECTOR, UDP, 2123, 40002, true, &long), Probe::NotForUs);
}

#[test]
fn gtp_prime_data_record_transfer() {
    // gtp_prime.pcapng, 10.10.54.1:64580 -> 10.10.39.10:3386 (nDPI: GTP.GTP_PRIME): flags 0x2e
    // (version 1, GTP', spare 111, short header), type 240 (data record transfer request),
    // length 0xf4: 250 bytes in all (the first 20 kept, the rest zero-filled).
    let mut d = hex("2ef000f400047e01fc00ef01011c0600e9bf6082");
    d.resize(250, 0);
    assert_eq!(run(&INSPECTOR, UDP, 3386, 64580, false, &d), Probe::Certain(&PRIME));
    let mut short = d.clone();
    short.pop();
    assert_eq!(run(&INSPECTOR, UDP, 3386, 64580, false, &short), Probe::NotForUs);
    let mut ty = d.clone();
    ty[1] = 200;
    assert_eq!(run(&INSPECTOR, UDP, 3386, 64580, false, &ty), Probe::NotForUs);
}
