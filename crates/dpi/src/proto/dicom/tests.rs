use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// Captured from pynetdicom 3.0.4 (PyPI) in two network namespaces (scripts/netcap, scenario
// "dicom"; tshark 4.0.17 dissects it as dicom): the A-ASSOCIATE-RQ (PS3.8 section 9.3.2) of a
// C-ECHO SCU, type 1, reserved, PDU length 281, version 1, reserved, called AE "ECHOSCP",
// calling AE "ECHOSCU" (space padded), 32 reserved bytes, the Application Context item (0x10,
// "1.2.840.10008.3.1.1.1", PS3.7 Annex A.2.1), presentation contexts (0x20) and the user
// information item (0x50).
const ASSOCIATE_RQ: &str = "
    010000000119000100004543484f5343502020202020202020204543484f534355202020202020202020000000000000
    000000000000000000000000000000000000000000000000000010000015312e322e3834302e31303030382e332e312e
    312e31200000760100000030000011312e322e3834302e31303030382e312e3140000011312e322e3834302e31303030
    382e312e3240000013312e322e3834302e31303030382e312e322e3140000016312e322e3834302e31303030382e312e
    322e312e393940000013312e322e3834302e31303030382e312e322e325000003e5100000400003ffe52000020312e32
    2e3832362e302e312e333638303034332e392e333831312e332e302e345500000e50594e45544449434f4d5f333034";

fn associate_rq() -> Vec<u8> {
    let v = hex(ASSOCIATE_RQ);
    assert_eq!(v.len(), 287);
    v
}

#[test]
fn whole_registry_names_dicom() {
    assert_eq!(classify(TCP, 104, 49541, &[(true, &associate_rq())]), Some("DICOM"));
    assert_eq!(classify(TCP, 11112, 49541, &[(true, &associate_rq())]), Some("DICOM"));
    // Off DICOM's ports the Modbus inspector, earlier in the registry and not bound to 502,
    // takes it: an RQ shorter than 64 KiB reads as an MBAP header (bytes 2-3 zero, bytes 4-5
    // the rest of the segment). DICOM's probe itself still says yes there.
    assert_eq!(run(&INSPECTOR, TCP, 4242, 49541, false, &associate_rq()), Probe::Certain(&LABEL));
}

#[test]
fn split_across_segments() {
    let v = associate_rq();
    let (a, b) = v.split_at(40);
    assert_eq!(classify(TCP, 104, 52180, &[(true, a), (true, b)]), Some("DICOM"));
}

#[test]
fn near_misses() {
    let ok = associate_rq();
    assert_eq!(run(&INSPECTOR, TCP, 104, 4000, false, &ok), Probe::Certain(&LABEL));
    let mut v = ok.clone();
    v[0] = 0x04; // P-DATA-TF does not open an association
    assert_eq!(run(&INSPECTOR, TCP, 104, 4000, false, &v), Probe::NotForUs);
    let mut v = ok.clone();
    v[7] = 0x00; // protocol version bit 0 clear
    assert_eq!(run(&INSPECTOR, TCP, 104, 4000, false, &v), Probe::NotForUs);
    let mut v = ok.clone();
    v[12] = 0x01; // a control character in the called AE title
    assert_eq!(run(&INSPECTOR, TCP, 104, 4000, false, &v), Probe::NotForUs);
    let mut v = ok.clone();
    v[74] = 0x20; // a presentation context where the application context must come first
    assert_eq!(run(&INSPECTOR, TCP, 104, 4000, false, &v), Probe::NotForUs);
    let mut v = ok.clone();
    v[5] = 0x18; // PDU length one short of the segment
    assert_eq!(run(&INSPECTOR, TCP, 104, 4000, false, &v), Probe::NotForUs);
    // A cut prefix is not yet decided.
    assert_eq!(run(&INSPECTOR, TCP, 104, 4000, false, &ok[..30]), Probe::Unsure);
}
