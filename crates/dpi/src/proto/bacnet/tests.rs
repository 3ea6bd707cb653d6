use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// Captured from bacpypes3 0.0.110 (PyPI) in two network namespaces (scripts/netcap, scenario
// "bacnet"; tshark 4.0.17 dissects both as bvlc:bacnet:bacapp), the same bytes as ASHRAE 135
// gives: BVLC Original-Broadcast-NPDU (J.2.11, 0x0B, length 12), NPDU version 1 with a global
// broadcast destination (DNET 0xFFFF, DLEN 0, hop count 255), APDU unconfirmed request Who-Is
// (16.10, service 8), to 192.0.2.255.
const WHO_IS: &str = "810b000c 0120ffff00ff 1008";
// The bacpypes3 device's answer: Original-Unicast-NPDU (length 21), NPDU version 1, APDU
// unconfirmed I-Am (16.9, service 0): device 1000, max APDU 1024, segmentation both (0),
// vendor 999.
const I_AM: &str = "810a0015 0100 1000 c4020003e8 220400 9100 2203e7";
// Built by hand from ASHRAE 135: BVLC Original-Unicast-NPDU (J.2.10, 0x0A, length 17), NPDU version 1 expecting a reply, APDU
// confirmed ReadProperty (15.5) of device 4194303's property 75 (object-identifier): a device
// of unknown instance asked for its identifier, 4194303 being the wildcard device instance
// any device answers for.
const READ_PROPERTY: &str = "810a0011 0104 0005010c 0c023fffff 194b";

#[test]
fn whole_registry_names_bacnet() {
    assert_eq!(classify(UDP, 47808, 47808, &[(true, &hex(WHO_IS))]), Some("BACnet"));
    assert_eq!(run(&INSPECTOR, UDP, 47808, 47808, true, &hex(I_AM)), Probe::Certain(&LABEL));
    assert_eq!(classify(UDP, 47808, 36992, &[(true, &hex(READ_PROPERTY))]), Some("BACnet"));
    // The header is checked, not the port.
    assert_eq!(classify(UDP, 40000, 36992, &[(true, &hex(READ_PROPERTY))]), Some("BACnet"));
}

#[test]
fn near_misses() {
    let ok = hex(READ_PROPERTY);
    assert_eq!(run(&INSPECTOR, UDP, 47808, 4000, false, &ok), Probe::Certain(&LABEL));
    let mut v = ok.clone();
    v[0] = 0x82; // BACnet/IPv6 type: not BVLL for IPv4
    assert_eq!(run(&INSPECTOR, UDP, 47808, 4000, false, &v), Probe::NotForUs);
    let mut v = ok.clone();
    v[1] = 0x0c; // no such BVLC function
    assert_eq!(run(&INSPECTOR, UDP, 47808, 4000, false, &v), Probe::NotForUs);
    let mut v = ok.clone();
    v[3] = 0x12; // length one more than the datagram
    assert_eq!(run(&INSPECTOR, UDP, 47808, 4000, false, &v), Probe::NotForUs);
    let mut v = ok.clone();
    v[4] = 0x02; // NPDU version 2
    assert_eq!(run(&INSPECTOR, UDP, 47808, 4000, false, &v), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, UDP, 47808, 4000, false, &ok[..3]), Probe::NotForUs);
}

#[test]
fn forwarded_npdu_reads_past_the_address() {
    // Forwarded-NPDU (J.2.5): 6-byte B/IP address of the originator, then the Who-Is NPDU.
    let v = hex("81040012 c0a80101bac0 0120ffff00ff 1008");
    assert_eq!(run(&INSPECTOR, UDP, 47808, 4000, false, &v), Probe::Certain(&LABEL));
    let mut w = v.clone();
    w[10] = 0; // the NPDU version where it should be
    assert_eq!(run(&INSPECTOR, UDP, 47808, 4000, false, &w), Probe::NotForUs);
}
