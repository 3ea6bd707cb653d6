use super::*;
use crate::proto::testkit::{classify_meta, hex, probe as run};

// agora-sd-rtn.pcap frame 166 (first 46 bytes plus a few after the name).
const JOIN: &str = "00602d94000021000000000004534e49001c003130342d3136362d3136312d37352e656467652e61676f72612e696f50444d44";

#[test]
fn corpus_vector_and_name() {
    let (m, sni) = classify_meta(UDP, 8130, 55322, &[(true, &hex(JOIN))], Some(Field::Sni));
    assert_eq!(m, Some("SD-RTN"));
    // tshark shows the name in the payload at offset 19: "104-166-161-75.edge.agora.io".
    assert_eq!(sni.as_deref(), Some("104-166-161-75.edge.agora.io"));
}

#[test]
fn name_must_fit() {
    let mut v = hex(JOIN);
    v[18] = 0x10; // length beyond the datagram
    assert_eq!(run(&INSPECTOR, UDP, 8130, 4000, false, &v), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, UDP, 8130, 4000, false, &[0; 40]), Probe::NotForUs);
}
