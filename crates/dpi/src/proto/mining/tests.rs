use super::*;
use crate::proto::testkit::{classify, probe as run};

// mining.pcapng: the first client messages of three flows.
const STRATUM: &[u8] =
    b"{\"id\":1,\"method\":\"mining.subscribe\",\"params\":[\"EWBF 0.3.4b\",null]}\n";
const ETH: &[u8] = b"{\"worker\": \"eth1.0\", \"jsonrpc\": \"2.0\", \"id\": 2, \"method\": \"eth_submitLogin\"}\n";

#[test]
fn corpus_vectors() {
    assert_eq!(classify(TCP, 3333, 46838, &[(true, STRATUM)]), Some("Mining"));
    assert_eq!(classify(TCP, 9999, 49307, &[(true, ETH)]), Some("Mining"));
}

#[test]
fn other_json_rpc() {
    let other = b"{\"jsonrpc\":\"2.0\",\"method\":\"eth_blockNumber\",\"id\":1}";
    assert_eq!(run(&INSPECTOR, TCP, 8545, 4000, false, other), Probe::NotForUs);
}
