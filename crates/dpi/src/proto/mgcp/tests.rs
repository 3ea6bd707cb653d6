use super::*;
use crate::proto::testkit::{classify, classify_meta, probe as run};

// A NotificationRequest in the form of RFC 3435 section 2.3.3's example: transaction id 1201,
// endpoint aaln/1@rgw-2567.whatever.net, notified entity, request id, requested event.
const RQNT: &[u8] = b"RQNT 1201 aaln/1@rgw-2567.whatever.net MGCP 1.0\r\nN: ca@ca1.whatever.net:5678\r\nX: 0123456789AC\r\nR: l/hd(N)\r\n";

#[test]
fn commands_name_the_flow_and_host() {
    let (m, host) = classify_meta(UDP, 2427, 38238, &[(true, RQNT)], Some(Field::Sni));
    assert_eq!(m, Some("MGCP"));
    assert_eq!(host.as_deref(), Some("rgw-2567.whatever.net"));
    // A RestartInProgress (section 2.3.12) for all of a gateway's endpoints ("*", section
    // 2.1.2), sent from the gateway's port 2427 to the call agent's 2727; a host name without
    // a domain.
    let rsip = b"RSIP 5200 *@rgw2567 MGCP 1.0\r\nRM: restart\r\nRD: 0\r\n";
    let (m, host) = classify_meta(UDP, 2727, 2427, &[(true, rsip)], Some(Field::Sni));
    assert_eq!((m, host.as_deref()), (Some("MGCP"), Some("rgw2567")));
    // A command off the MGCP ports is still MGCP.
    assert_eq!(run(&INSPECTOR, UDP, 5000, 6000, false, RQNT), Probe::Certain(&LABEL));
}

#[test]
fn responses_only_on_mgcp_ports() {
    let ok = b"200 1201 OK\r\n";
    assert_eq!(classify(UDP, 2727, 2427, &[(true, ok)]), Some("MGCP"));
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
