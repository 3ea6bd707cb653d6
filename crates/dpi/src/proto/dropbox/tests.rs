use super::*;
use crate::proto::testkit::{classify, probe as run};

// android.pcap frame 24: the discovery broadcast (start of it, as text).
const DISCO: &[u8] = b"{\"version\": [2, 0], \"port\": 17500, \"host_int\": 33040262401316711271";

// dropbox.pcap, 192.168.1.105: the same with "host_int" first.
const DISCO2: &[u8] = b"{\"host_int\": 274363570036934823360341409051841573579, \"version\": [2, 0]";

#[test]
fn corpus_vector() {
    assert_eq!(classify(UDP, 17500, 17500, &[(true, DISCO)]), Some("Dropbox"));
    assert_eq!(classify(UDP, 17500, 17500, &[(true, DISCO2)]), Some("Dropbox"));
}

#[test]
fn other_json_refused() {
    let j = b"{\"version\": [2, 0], \"port\": 17500}";
    assert_eq!(run(&INSPECTOR, UDP, 17500, 17500, false, j), Probe::NotForUs);
}
