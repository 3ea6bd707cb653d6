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
