use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// Made here: pyzmq 24.0.1 on libzmq 4.3.4 (Debian python3-zmq), a REP socket bound on
// 192.0.2.2:5555 and a REQ socket connecting from 192.0.2.1 in network namespaces, captured with
// tcpdump (tshark's ZMTP dissector is not enabled on this port: it shows `tcp`). The client's
// frame 16 is the signature alone, frame 20 the rest of its greeting: version 3.1, mechanism
// NULL, as-server 0 and the filler (54 bytes: the greeting's 64 with the signature).
const SIGNATURE: &str = "ff00000000000000017f";
const REST: &str = "03014e554c4c000000000000000000000000000000000000000000000000000000000000\
                    000000000000000000000000000000000000";
// The server's frame 18: signature and major version 3 in one segment.
const SERVER_SIG: &str = "ff00000000000000017f03";

fn greeting() -> Vec<u8> {
    let mut g = hex(SIGNATURE);
    g.extend(hex(REST));
    g
}

#[test]
fn captured_greeting() {
    let g = greeting();
    assert_eq!(g.len(), 64);
    assert_eq!(run(&INSPECTOR, TCP, 5555, 56690, false, &g), Probe::Certain(&LABEL));
    // The signature alone is not enough: wait for the rest.
    assert_eq!(run(&INSPECTOR, TCP, 5555, 56690, false, &hex(SIGNATURE)), Probe::Unsure);
    assert_eq!(run(&INSPECTOR, TCP, 5555, 56690, true, &hex(SERVER_SIG)), Probe::Unsure);
    // Through the registry, as libzmq sends it: signature, the server's, then the rest.
    let pkts: [(bool, &[u8]); 3] =
        [(true, &hex(SIGNATURE)), (false, &hex(SERVER_SIG)), (true, &hex(REST))];
    assert_eq!(classify(TCP, 5555, 56690, &pkts), Some("ZeroMQ"));
}

#[test]
fn near_misses() {
    let g = greeting();
    let cases: [(usize, u8); 7] = [
        (0, 0xfe),  // signature start
        (9, 0x7e),  // signature end
        (10, 2),    // major version
        (11, 2),    // minor version
        (12, b'n'), // lower-case mechanism
        (20, b'X'), // a byte after the mechanism's NULs
        (32, 2),    // as-server flag
    ];
    for (at, v) in cases {
        let mut b = g.clone();
        b[at] = v;
        assert_eq!(run(&INSPECTOR, TCP, 5555, 4000, false, &b), Probe::NotForUs, "{at}");
    }
    let mut filler = g.clone();
    filler[50] = 1;
    assert_eq!(run(&INSPECTOR, TCP, 5555, 4000, false, &filler), Probe::NotForUs);
    let mut empty = g;
    empty[12..16].fill(0);
    assert_eq!(run(&INSPECTOR, TCP, 5555, 4000, false, &empty), Probe::NotForUs);
}
