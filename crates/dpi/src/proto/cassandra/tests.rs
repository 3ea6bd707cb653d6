use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// Captured from cassandra-driver 3.30.1 (PyPI) in two network namespaces, against a few lines
// answering as a node (scripts/netcap, scenario "cassandra"; tshark 4.0.17 dissects both as
// cql). OPTIONS (native_protocol_v4.spec sections 2 and 4.1.3): version 4, no flags, stream
// 0, opcode 5, empty body.
const OPTIONS: &str = "04 00 0000 05 00000000";
// The driver's STARTUP (opcode 1, stream 1, section 4.1.1) with the string map
// {DRIVER_NAME: Apache Cassandra Python Driver, DRIVER_VERSION: 3.30.1, CQL_VERSION: 3.4.5}.
const STARTUP: &str = "
    04000001010000005b0003000b4452495645525f4e414d45001e4170616368652043617373616e64726120507974686f
    6e20447269766572000e4452495645525f56455253494f4e0006332e33302e31000b43514c5f56455253494f4e000533
    2e342e35";

fn startup_frame() -> Vec<u8> {
    hex(STARTUP)
}

/// STARTUP built by hand with the string map {CQL_VERSION: 3.0.0, COMPRESSION: lz4} (section
/// 4.1.1: COMPRESSION is one of the options the spec lists).
fn startup_compressed() -> Vec<u8> {
    let mut body = vec![0, 2];
    for s in ["CQL_VERSION", "3.0.0", "COMPRESSION", "lz4"] {
        body.extend_from_slice(&(s.len() as u16).to_be_bytes());
        body.extend_from_slice(s.as_bytes());
    }
    let mut f = hex("04 00 0001 01");
    f.extend_from_slice(&(body.len() as u32).to_be_bytes());
    f.extend_from_slice(&body);
    f
}

#[test]
fn opening_requests() {
    assert_eq!(classify(TCP, 9042, 46536, &[(true, &hex(OPTIONS))]), Some("Cassandra"));
    // Off the CQL port only the opening requests count.
    assert_eq!(run(&INSPECTOR, TCP, 19042, 46536, false, &hex(OPTIONS)), Probe::Certain(&LABEL));
    let s = startup_frame();
    assert_eq!(classify(TCP, 9042, 37942, &[(true, &hex(OPTIONS)), (true, &s)]), Some("Cassandra"));
    assert_eq!(classify(TCP, 19042, 46537, &[(true, &s)]), Some("Cassandra"));
    assert_eq!(classify(TCP, 19042, 46537, &[(true, &startup_compressed())]), Some("Cassandra"));
    // A QUERY (opcode 7) with a body is enough on 9042 but not elsewhere.
    let q = hex("04 00 0002 07 00000004 00000000");
    assert_eq!(run(&INSPECTOR, TCP, 9042, 46536, false, &q), Probe::Certain(&LABEL));
    assert_eq!(run(&INSPECTOR, TCP, 19042, 46536, false, &q), Probe::NotForUs);
}

#[test]
fn near_misses() {
    // A response version from the client, a request opcode from the server.
    assert_eq!(run(&INSPECTOR, TCP, 9042, 4000, false, &hex("84 00 0000 06 00000000")), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, TCP, 9042, 4000, true, &hex(OPTIONS)), Probe::NotForUs);
    // Undefined flag bits, opcode 4 (unused), version 6, a body shorter than the segment.
    for h in ["04 20 0000 05 00000000", "04 00 0000 04 00000000", "06 00 0000 05 00000000", "04 00 0000 05 00000000 00"] {
        assert_eq!(run(&INSPECTOR, TCP, 9042, 4000, false, &hex(h)), Probe::NotForUs, "{h}");
    }
    // STARTUP without CQL_VERSION off port.
    let mut s = startup_frame();
    let at = s.iter().position(|&b| b == b'Q').unwrap();
    s[at] = b'X';
    assert_eq!(run(&INSPECTOR, TCP, 19042, 4000, false, &s), Probe::NotForUs);
}
