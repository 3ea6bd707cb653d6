use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

#[test]
fn corpus_vectors() {
    // mysql.pcapng frame 19: the greeting of "8.0.36" (78 bytes; the first 24 kept, padded).
    let mut g = hex("4a0000000a382e302e3336000c00000031747567785f2356");
    g.resize(78, 0);
    assert_eq!(classify(TCP, 3306, 36272, &[(false, &g)]), Some("MySQL"));
    // mysql.pcapng frame 21: the client's 36-byte SSL request (sequence 1).
    let ssl = hex("2000000185aeff1900000001ff0000000000000000000000000000000000000000000000");
    assert_eq!(classify(TCP, 3306, 36272, &[(true, &ssl)]), Some("MySQL"));
}

#[test]
fn length_and_version() {
    let mut g = hex("4a0000000a382e302e3336000c00000031747567785f2356");
    g.resize(77, 0);
    assert_eq!(run(&INSPECTOR, TCP, 3306, 4000, true, &g), Probe::NotForUs);
    g.resize(78, 0);
    g[4] = 9;
    assert_eq!(run(&INSPECTOR, TCP, 3306, 4000, true, &g), Probe::NotForUs);
}
