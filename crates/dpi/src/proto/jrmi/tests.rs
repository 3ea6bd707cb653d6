use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// Made here: OpenJDK 17.0.15's `rmiregistry 1099` on 192.0.2.2 and a Java client calling
// `LocateRegistry.getRegistry("192.0.2.2", 1099).list()` from 192.0.2.1 in network namespaces,
// captured with tcpdump; tshark dissects the flow as `rmi`. Frame 16: "JRMI", version 2,
// StreamProtocol.
const HEADER: &str = "4a524d4900024b";
// Frame 18: the registry's ProtocolAck (0x4e), host "192.0.2.1", port 60118.
const ACK: &str = "4e00093139322e302e322e310000ead6";

#[test]
fn captured_header() {
    let h = hex(HEADER);
    assert_eq!(run(&INSPECTOR, TCP, 1099, 60118, false, &h), Probe::Certain(&LABEL));
    assert_eq!(classify(TCP, 1099, 60118, &[(true, &h), (false, &hex(ACK))]), Some("JRMI"));
    assert_eq!(classify(TCP, 41099, 60118, &[(true, &h)]), Some("JRMI"));
}

#[test]
fn single_op_call() {
    // §10.2.1: SingleOpProtocol, then a Call message (0x50) and its serialization stream magic.
    let v = hex("4a524d4900024c50aced0005");
    assert_eq!(run(&INSPECTOR, TCP, 1099, 4000, false, &v), Probe::Certain(&LABEL));
}

#[test]
fn near_misses() {
    for bad in [
        "4a524d4a00024b",   // magic
        "4a524d4900034b",   // version 3
        "4a524d4901024b",   // version high byte
        "4a524d4900024e",   // protocol byte
        "4a524d4900024b50", // stream header followed by more
        "4a524d4900024c51", // single-op with an unknown message
        "4a524d490002",     // cut short
    ] {
        assert_eq!(run(&INSPECTOR, TCP, 1099, 4000, false, &hex(bad)), Probe::NotForUs, "{bad}");
    }
    assert_eq!(run(&INSPECTOR, TCP, 1099, 4000, true, &hex(ACK)), Probe::NotForUs);
}
