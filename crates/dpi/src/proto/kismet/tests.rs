use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// Built from the Kismet client protocol description (no Kismet 2016 release installs here): the
// server's greeting "*KISMET: 0.0.0 1480000000 \001h2server\001 20160701 0.0.0 " and a
// "*PROTOCOLS:" line. tshark 4.0.17 dissects it on TCP port 2501 as "Kismet Client/Server
// Protocol", Version 0.0.0, Server name h2server, Build revision 20160701.
const GREETING: &str = "2a4b49534d45543a20302e302e302031343830303030303030200168327365727665720120323031363037303120302e302e30200a2a50524f544f434f4c533a204b49534d45542c4552524f522c41434b2c50524f544f434f4c532c4341504142494c4954592c5445524d494e4154452c54494d450a";

#[test]
fn server_greeting() {
    // The client connects and the server speaks first.
    assert_eq!(classify(TCP, 2501, 40000, &[(false, &hex(GREETING))]), Some("Kismet"));
}

#[test]
fn near_misses() {
    let mut v = hex(GREETING);
    v[1] = b'k';
    assert_eq!(run(&INSPECTOR, TCP, 2501, 40000, true, &v), Probe::NotForUs);
    // No end of line in the first 256 bytes.
    let mut w = b"*KISMET: ".to_vec();
    w.resize(300, b'a');
    assert_eq!(run(&INSPECTOR, TCP, 2501, 40000, true, &w), Probe::NotForUs);
}
