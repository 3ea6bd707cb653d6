use super::*;
use crate::proto::testkit::{classify, classify_meta, probe as run};

// RFC 3435 section 2.3.3's RQNT example, whose transaction id and endpoint domain match the
// PLAIN TEXT "RQNT 1 " and host "gateway44.myplace.com" of mgcp.pcap.out flows 2-5.
const RQNT: &[u8] = b"RQNT 1 aaln/1@gateway44.myplace.com MGCP 1.0\r\nN: ca@ca1.myplace.com:5678\r\nX: 0123456789AB\r\nR: hd\r\n";

#[test]
fn commands_name_the_flow_and_host() {
    let (m, host) = classify_meta(UDP, 2427, 38238, &[(true, RQNT)], Some(Field::Sni));
    assert_eq!(m, Some("MGCP"));
    assert_eq!(host.as_deref(), Some("gateway44.myplace.com"));
    // mgcp.pcap.out flow 1: "RSIP 262662134 ", host vg224, between two 2427 ports.
    let rsip = b"RSIP 262662134 *@vg224 MGCP 1.0\r\nRM: restart\r\n";
    let (m, host) = classify_meta(UDP, 2427, 2427, &[(true, rsip)], Some(Field::Sni));
    assert_eq!((m, host.as_deref()), (Some("MGCP"), Some("vg224")));
    // A command off the MGCP ports is still MGCP.
    assert_eq!(run(&INSPECTOR, UDP, 5000, 6000, false, RQNT), Probe::Certain(&LABEL));
}

#[test]
fn responses_only_on_mgcp_ports() {
    let ok = b"200 1 OK\r\n";
    assert_eq!(classify(UDP, 2427, 2427, &[(true, ok)]), Some("MGCP"));
    assert_eq!(run(&INSPECTOR, UDP, 5000, 6000, false, ok), Probe::NotForUs);
}

#[test]
fn near_misses() {
    // Not MGCP's version token, no endpoint domain, a verb MGCP lacks, a long transaction id.
    let cases: &[&[u8]] = &[
        b"RQNT 1 aaln/1@gw MGCP 2.0\r\n",
        b"RQNT 1 aaln/1 MGCP 1.0\r\n",
        b"SEND 1 aaln/1@gw MGCP 1.0\r\n",
        b"RQNT 1234567890 aaln/1@gw MGCP 1.0\r\n",
        b"RQNT 1 aaln/1@gw SIP 1.0\r\n",
        b"RQNT 1 aaln/1@gw MGCP 1.0",
    ];
    for c in cases {
        assert_eq!(run(&INSPECTOR, UDP, 2427, 2427, false, c), Probe::NotForUs, "{c:?}");
    }
}

#[test]
fn verbs_in_any_case() {
    let lower = b"rqnt 1 aaln/1@gw1 mgcp 1.0\r\n";
    assert_eq!(run(&INSPECTOR, UDP, 2427, 2427, false, lower), Probe::Certain(&LABEL));
}
