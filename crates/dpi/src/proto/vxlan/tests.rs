use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// Linux kernel VXLAN (Debian 12 kernel, `ip link add vx0 type vxlan id 42 dstport 4789`) between
// two network namespaces, captured with tcpdump (h2-vxlan.pcap frame 2, first 62 bytes of 86):
// VNI 42 carrying an IPv6 neighbour solicitation. tshark: eth:ip:udp:vxlan:eth:ipv6:icmpv6.
const ND: &str = "0800000000002a003333ff8067c75ab52b8067c786dd6000000000203aff00000000000000000000000000000000ff0200000000000000000001ff8067c7";

#[test]
fn kernel_vxlan() {
    assert_eq!(classify(UDP, 4789, 56640, &[(true, &hex(ND))]), Some("VXLAN"));
    assert_eq!(run(&INSPECTOR, UDP, 4789, 56640, false, &hex(ND)), Probe::Certain(&LABEL));
}

#[test]
fn near_misses() {
    let mut v = hex(ND);
    v[0] = 0x0c; // a reserved flag set
    assert_eq!(run(&INSPECTOR, UDP, 4789, 56640, false, &v), Probe::NotForUs);
    let mut v = hex(ND);
    v[2] = 1; // reserved bits after the flags
    assert_eq!(run(&INSPECTOR, UDP, 4789, 56640, false, &v), Probe::NotForUs);
    let mut v = hex(ND);
    v[20] = 0x12; // no EtherType in use
    assert_eq!(run(&INSPECTOR, UDP, 4789, 56640, false, &v), Probe::NotForUs);
    // Header alone, no inner frame.
    assert_eq!(run(&INSPECTOR, UDP, 4789, 56640, false, &hex(ND)[..8]), Probe::NotForUs);
    // Off port 4789.
    assert_eq!(run(&INSPECTOR, UDP, 4790, 56640, false, &hex(ND)), Probe::NotForUs);
}
