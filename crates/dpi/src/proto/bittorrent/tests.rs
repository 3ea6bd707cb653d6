use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// bittorrent.pcap frame 59: the peer handshake (first 40 bytes).
const TCP_HS: &str = "13426974546f7272656e742070726f746f636f6c0000000000100005dcfcdccfb9e670ccc3dd40c78c161f2b";
// bittorrent_utp.pcap: uTP SYN, STATE, then a DATA packet carrying the handshake.
const UTP_SYN: &str = "4100530210eeb2f00000000000000000e7f50000";
const UTP_STATE: &str = "2102530206ff3f5f7fffffff0000f00049c7e7f500080000000000000000";
const UTP_DATA: &str = "0100530310f0687609f1291700100000e7f649c613426974546f7272656e742070726f746f636f6c";
// targusdataspeed_false_positives.pcap: a DHT find_node query (start and end of it).
const DHT: &str = "64313a6164323a696432303af60277019862c11c95bef4f300ef5056b7684a7065";

#[test]
fn corpus_vectors() {
    assert_eq!(classify(TCP, 60163, 52915, &[(true, &hex(TCP_HS))]), Some("BitTorrent"));
    let (syn, st, data) = (hex(UTP_SYN), hex(UTP_STATE), hex(UTP_DATA));
    assert_eq!(
        classify(UDP, 40959, 64969, &[(true, &syn), (false, &st), (true, &data)]),
        Some("BitTorrent")
    );
    assert_eq!(classify(UDP, 5201, 23994, &[(true, &hex(DHT))]), Some("BitTorrent"));
}

#[test]
fn look_alikes_are_refused() {
    let mut hs = hex(TCP_HS);
    hs[1] = b'b';
    assert_eq!(run(&INSPECTOR, TCP, 6881, 4000, false, &hs), Probe::NotForUs);
    // A uTP-looking header with an impossible extension chain.
    let mut syn = hex(UTP_SYN);
    syn[1] = 9;
    assert_eq!(run(&INSPECTOR, UDP, 6881, 4000, false, &syn), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, UDP, 6881, 4000, false, b"d1:ad2:id20:x"), Probe::NotForUs);
}
