use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

/// An A-ASSOCIATE-RQ built by hand from PS3.8 section 9.3.2: type 1, reserved, PDU length 93
/// (68 fixed bytes after the length field and a 25-byte Application Context item), version 1,
/// reserved, called AE "testserver", calling AE "testclient" (dicom.pcap.out's PLAIN TEXT),
/// 32 reserved bytes, then item 0x10 holding the DICOM application context name
/// "1.2.840.10008.3.1.1.1" (PS3.7 Annex A.2.1).
fn associate_rq() -> Vec<u8> {
    let mut v = hex("0100 0000005d 0001 0000");
    v.extend_from_slice(b"testserver      testclient      ");
    v.extend_from_slice(&[0; 32]);
    v.extend_from_slice(&hex("1000 0015"));
    v.extend_from_slice(b"1.2.840.10008.3.1.1.1");
    assert_eq!(v.len(), 99);
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
    v[5] = 0x5c; // PDU length one short of the segment
    assert_eq!(run(&INSPECTOR, TCP, 104, 4000, false, &v), Probe::NotForUs);
    // A cut prefix is not yet decided.
    assert_eq!(run(&INSPECTOR, TCP, 104, 4000, false, &ok[..30]), Probe::Unsure);
}
