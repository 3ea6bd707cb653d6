use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// Made here: Debian munin-node 2.0.73-1 on 192.0.2.2 in a network namespace, a Python socket
// client on 192.0.2.1 sending "list\n" and "quit\n", captured with tcpdump (Wireshark has no
// Munin dissector: tshark shows `data`). Frame 16, the node's greeting "# munin node at vm\n".
const GREETING_VEC: &str = "23206d756e696e206e6f646520617420766d0a";
// Frame 18, the master's "list\n".
const LIST: &str = "6c6973740a";

#[test]
fn captured_greeting() {
    let g = hex(GREETING_VEC);
    assert_eq!(run(&INSPECTOR, TCP, 4949, 60166, true, &g), Probe::Certain(&LABEL));
    assert_eq!(classify(TCP, 4949, 60166, &[(false, &g)]), Some("Munin"));
    assert_eq!(classify(TCP, 14949, 60166, &[(false, &g)]), Some("Munin"));
}

#[test]
fn near_misses() {
    for bad in [
        &b"# munin node at vm"[..],          // no newline
        b"# munin node at \n",                 // no host
        b"# munin node at my host\n",          // space in the host
        b"# munin node at vm\nfoo\n",          // more after the line
        b"# Munin node at vm\n",               // case matters
        b"# munin nodes at vm\n",
    ] {
        assert_eq!(run(&INSPECTOR, TCP, 4949, 4000, true, bad), Probe::NotForUs, "{bad:?}");
    }
    assert_eq!(run(&INSPECTOR, TCP, 4949, 4000, false, &hex(LIST)), Probe::NotForUs);
}
