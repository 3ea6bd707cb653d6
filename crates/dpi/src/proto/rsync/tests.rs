use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// Made here: Debian rsync 3.2.7 (package 3.5.0+ds1-0+deb12u1), `rsync --daemon` on 192.0.2.2 and
// `rsync rsync://192.0.2.2/mod/` from 192.0.2.1 in network namespaces, captured with tcpdump;
// tshark dissects both as `rsync`. Frame 16, the client's greeting (the server's frame 18 is the
// same bytes): "@RSYNCD: 32.0 sha512 sha256 sha1 md5 md4\n".
const CLIENT_GREETING: &str =
    "405253594e43443a2033322e3020736861353132207368613235362073686131206d6435206d64340a";
// Frame 20, the client's module name "mod\n", and frame 21, the server's "@RSYNCD: OK\n".
const MODULE: &str = "6d6f640a";
const OK: &str = "405253594e43443a204f4b0a";

#[test]
fn captured_greeting() {
    let g = hex(CLIENT_GREETING);
    assert_eq!(run(&INSPECTOR, TCP, 873, 51776, false, &g), Probe::Certain(&LABEL));
    assert_eq!(run(&INSPECTOR, TCP, 873, 51776, true, &g), Probe::Certain(&LABEL));
    assert_eq!(classify(TCP, 873, 51776, &[(true, &g)]), Some("RSYNC"));
    // Off its port too: the greeting alone names it.
    assert_eq!(classify(TCP, 10873, 51776, &[(true, &g)]), Some("RSYNC"));
}

#[test]
fn old_protocol_greeting() {
    // Before protocol 30 the greeting carries no digest list (rsync(1)): "@RSYNCD: 29.0\n".
    assert_eq!(run(&INSPECTOR, TCP, 873, 4000, false, b"@RSYNCD: 29.0\n"), Probe::Certain(&LABEL));
}

#[test]
fn near_misses() {
    for bad in [
        &b"@RSYNCD: 32.0 sha512"[..],     // no newline
        b"@RSYNCD:32.0\n",                  // no space after the colon
        b"@RSYNCD: 32\n",                   // no minor version
        b"@RSYNCD: x2.0\n",                 // not a number
        b"@RSYNCD: 32.0\x01md5\n",          // bad separator
        b"@RSYNCD: 32.0 md5\nmod\n",         // more after the line
        b"@rsyncd: 32.0\n",                 // case matters
    ] {
        assert_eq!(run(&INSPECTOR, TCP, 873, 4000, false, bad), Probe::NotForUs, "{bad:?}");
    }
    assert_eq!(run(&INSPECTOR, TCP, 873, 4000, false, &hex(MODULE)), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, TCP, 873, 4000, true, &hex(OK)), Probe::NotForUs);
    let mut long = b"@RSYNCD: 32.0 ".to_vec();
    long.extend(std::iter::repeat_n(b'a', 300));
    long.push(b'\n');
    assert_eq!(run(&INSPECTOR, TCP, 873, 4000, false, &long), Probe::NotForUs);
}
