use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// tplink_shp.pcap frame 2: {"system":{"get_sysinfo":{}}} obfuscated (decoded by hand).
const QUERY: &str = "d0f281f88bff9af7d5ef94b6d1b4c09fec95e68fe187e8caf08bf68bf6";

#[test]
fn corpus_vector() {
    assert_eq!(classify(UDP, 9999, 9999, &[(true, &hex(QUERY))]), Some("TPLINK_SHP"));
    let mut framed = vec![0, 0, 0, 29];
    framed.extend_from_slice(&hex(QUERY));
    assert_eq!(classify(TCP, 9999, 4000, &[(true, &framed)]), Some("TPLINK_SHP"));
}

#[test]
fn plain_json_is_not_it() {
    assert_eq!(
        run(&INSPECTOR, UDP, 9999, 4000, false, b"{\"system\":{}}"),
        Probe::NotForUs
    );
}
