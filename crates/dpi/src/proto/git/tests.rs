use super::*;
use crate::proto::testkit::{classify, probe as run};

// git.pcap frame 4: "0045git-upload-pack /collab-maint/wotsap.git\0host=anonscm..." (69
// bytes); rebuilt with the same length prefix and command.
fn request() -> Vec<u8> {
    let mut v = b"0045git-upload-pack /collab-maint/wotsap.git\0host=".to_vec();
    v.resize(0x45 - 1, b'a');
    v.push(0);
    v
}

#[test]
fn corpus_vector() {
    assert_eq!(classify(TCP, 9418, 47991, &[(true, &request())]), Some("Git"));
}

#[test]
fn length_checked() {
    let mut v = request();
    v.push(0);
    assert_eq!(run(&INSPECTOR, TCP, 9418, 4000, false, &v), Probe::NotForUs);
}

/// git 2.39 over a veth (scripts/netcap's `git` scenario on port 42418): the length prefix in a
/// segment of its own, then the line; named off the protocol's port, once both have come.
#[test]
fn a_length_prefix_in_its_own_segment() {
    let line = b"git-upload-pack /r.git\0host=192.0.2.2:42418\0\0version=2\0";
    let prefix = format!("{:04x}", line.len() + 4);
    assert_eq!(prefix, "003b");
    assert_eq!(
        classify(TCP, 42418, 51018, &[(true, prefix.as_bytes()), (true, line)]),
        Some("Git")
    );
    // Four digits alone wait; a line that does not begin a command, or a length below the
    // shortest command's, does not.
    assert_eq!(run(&INSPECTOR, TCP, 42418, 51018, false, b"003b"), Probe::Unsure);
    assert_eq!(run(&INSPECTOR, TCP, 42418, 51018, false, b"003bgit-up"), Probe::Unsure);
    assert_eq!(run(&INSPECTOR, TCP, 42418, 51018, false, b"003bGET / "), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, TCP, 42418, 51018, false, b"0008"), Probe::NotForUs);
    // A different second segment: not Git.
    assert_ne!(
        classify(TCP, 42418, 51018, &[(true, b"003b"), (true, b"GET / HTTP/1.1\r\n\r\n")]),
        Some("Git")
    );
}
