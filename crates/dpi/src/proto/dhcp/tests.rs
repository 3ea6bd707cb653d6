use super::*;
use crate::tests::{probe, to_server, vector};

/// 1kxun.pcap, frame 11: tshark's dhcp.option.hostname is "Shen".
#[test]
fn request_from_corpus() {
    let (r, m) = probe(&INSPECTOR, to_server(UDP, 67), &vector!("dhcp"));
    assert_eq!(r, Probe::Certain(&LABEL));
    assert_eq!(m.get(Field::DhcpHost), Some("Shen"));
    let v = vector!("dhcp");
    assert_eq!(probe(&INSPECTOR, to_server(UDP, 67), &v[..239]).0, Probe::NotForUs);
}
