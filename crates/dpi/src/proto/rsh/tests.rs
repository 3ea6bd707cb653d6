use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// Made here: Debian rsh-redone-client 85-4 (`rsh -l root 192.0.2.2 echo hello-from-rsh`) from
// 192.0.2.1 to rsh-redone-server's `in.rshd` on 192.0.2.2, in network namespaces, captured with
// tcpdump; tshark dissects it as `rsh`. Frame 16: stderr port "1022", "root", "root", the
// command, each NUL-terminated, in one segment.
const REQUEST: &str = "3130323200726f6f7400726f6f74006563686f2068656c6c6f2d66726f6d2d72736800";

#[test]
fn captured_request() {
    let r = hex(REQUEST);
    assert_eq!(run(&INSPECTOR, TCP, 514, 1023, false, &r), Probe::Certain(&LABEL));
    assert_eq!(classify(TCP, 514, 1023, &[(true, &r)]), Some("RSH"));
}

#[test]
fn port_string_first() {
    // BSD rsh writes the port string alone, then the rest: reassembled, it is the same request.
    let r = hex(REQUEST);
    assert_eq!(run(&INSPECTOR, TCP, 514, 1023, false, &r[..5]), Probe::Unsure);
    assert_eq!(classify(TCP, 514, 1023, &[(true, &r[..5]), (true, &r[5..])]), Some("RSH"));
    // No stderr connection: an empty port string (rshd(8) step 2).
    let mut none = vec![0u8];
    none.extend(&r[5..]);
    assert_eq!(run(&INSPECTOR, TCP, 514, 1023, false, &none), Probe::Certain(&LABEL));
}

#[test]
fn near_misses() {
    let r = hex(REQUEST);
    for bad in [
        &b"70000\0root\0root\0ls\0"[..], // port out of range
        b"1022\0ro ot\0root\0ls\0",       // space in a user name
        b"1022\0root\0root\0ls",          // command not terminated
        b"1022\0root\0root\0ls\0x",       // bytes after the command
        b"1022\0root\0root\0\0",          // empty command
        b"1022x\0root\0root\0ls\0",       // not digits
        b"1022\0root\0ls\0",              // a field missing
    ] {
        assert_eq!(run(&INSPECTOR, TCP, 514, 1023, false, bad), Probe::NotForUs, "{bad:?}");
    }
    // Elsewhere than 514, and from the server's side.
    assert_eq!(run(&INSPECTOR, TCP, 5514, 1023, false, &r), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, TCP, 514, 1023, true, &r), Probe::NotForUs);
}
