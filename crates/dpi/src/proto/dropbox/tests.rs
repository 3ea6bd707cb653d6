use super::*;
use crate::proto::testkit::{classify, probe as run};

// android.pcap frame 24: the discovery broadcast (start of it, as text).
const DISCO: &[u8] = b"{\"version\": [2, 0], \"port\": 17500, \"host_int\": 33040262401316711271";

#[test]
fn corpus_vector() {
    assert_eq!(classify(UDP, 17500, 17500, &[(true, DISCO)]), Some("Dropbox"));
}

#[test]
fn other_json_refused() {
    let j = b"{\"version\": [2, 0], \"port\": 17500}";
    assert_eq!(run(&INSPECTOR, UDP, 17500, 17500, false, j), Probe::NotForUs);
}
