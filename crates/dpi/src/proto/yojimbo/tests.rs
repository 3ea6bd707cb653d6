use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// The connection request (1078 bytes) of a renetcode 2.0.0 client (a Rust implementation of the
// netcode 1.02 standard, crates.io) to a renetcode server, both in network namespaces (client
// 192.0.2.1:51770, server 192.0.2.2:40000), secure mode with a generated connect token, captured
// with tcpdump. tshark 4.0.17 has no netcode dissector ("eth:ethertype:ip:udp:data"). Prefix 00,
// "NETCODE 1.02\0", protocol id 0x1122334455667788, expire timestamp, nonce, encrypted token.
const REQUEST: &str = "
    004e4554434f444520312e30320088776655443322119f40066b00000000b966e4ca656e3154bc3a0034d11c2ced7034
    8c3b0f9f523e13d66c418a7797c0baec1b9e547535e5bcd4934277fa616a7714b7fcae07409a2508b07d2b85f7d13ef4
    fdbc5977588677fabaa1a82f126a34fbd61a1814601abc6e59ebcba6eefa6d62ff93236daad9d39d1299be8b737e2274
    2c3f60cfe004cffcccda6e60fbaf47112116d92f637ee72766ce17bb3ea790b7b9e9c6dacb7b2e33e20ba187825e62f3
    48c86cfd149bb7b258432963e369db8ea38f35c37a5afaef836654665079b170f6d8465a13889d764f8774aa9f487b21
    e416ec243c8f71cc2af668e427fad21160f533e9fd3898b649b58b0287e29af804b9821580bc8ca40539272b212c5046
    ac2fd274ab548679a46ab68a0ce0e54da22b913fb3616bfcaecaa02f4d4e17c31c0e9e2dc79816bf8d59e1ef303d548c
    dc90562dcfed828c7ad9bee8904f1f2fc78e81d8f1004ab75038d49f8dd8ddb0792b2d0107de408936bceeb66a864c3a
    48199f6a46dcbf9e23ba7343c83c3e606172525f8e2837f2d5eac4362682ecdb03d8885fbe0b72e89171ef9ef0ed4c13
    e4dfd3541e786ad6062f2d85c22e542b35b569513de5bd7d53e7cb1d642be9e0ef17d4b39f22277c9cad09dbe6d33014
    6efad97df5a8368f937319ba6c973c004593717d32a6153a33ca809ac1f61711f42a13a1eecae41e8fb38e2b481ea210
    50ecd02811c2dc162cd7fe89d752eff1d43ecd162a2f0953c3f6e10df00403b0b093efb880b15133ea5cb2e1c0910a7a
    bfedcb8de8f10915500fa0d3b4a93aa1bdb45a1aee1292822b357513481cc8b148696bbbd39985f131a7caa930577536
    a1b43bcf137436475f15aa0fd1abae1d354905d45a5c035f204c79e943b362b3ba46d9a38b2cf11aeb7741932f8c3ab0
    248b1b5f87b408b6702d2dfed32d883d7b8eff84c637d16ce34aabe9130070526d9b89bf97cc0814ff3a74d3ff288f8e
    0f9849c2ab9d945b8877b9d2afeeab08c875bee632d9bdfa7cf1c3d112e988b7ba4e1dab7053b5a5e9d3a5f9ac66c49a
    5fddd451b134ec34aaff14321a828b6da2aa0cba808f9ae02ad5ef7b2b32067115bebebca60d3a793c0959f1778949a5
    f9b88eb205842c5c1d2b316541c4006761a91bdbf3c0241f4a560f8596a32d9a3491cbbcc1a4de7b81172dc43361d015
    bd1d7e9b428a0f0b13b343b45e113416ca53e96f08f059a4e760976a91380936f752625009e84e8e7f44672b1c702b62
    1cbe0b2420b54bbc766ada4ec5f9bd7d2f1473ac93fc582905cccf3254a4f7bac4757ce70c36d69cec77dffff0d969c7
    9900a2336d232c1f8ecf3f0dab412f3a149542b29fffadf46db47df9670d32be805ce480b89648bae195e6427819ad06
    0b76d34ef866404afa722c44d159013799afe32c58ef02aa84189db221d716885084322ca9f22cc6ea9a1b565151a425
    8ac31729c70cae3d6b33485e98067cec6ccbcae4207b
";

#[test]
fn captured_connection_request() {
    let v = hex(REQUEST);
    assert_eq!(v.len(), 1078);
    assert_eq!(run(&INSPECTOR, UDP, 40000, 51770, false, &v), Probe::Certain(&LABEL));
    assert_eq!(classify(UDP, 40000, 51770, &[(true, &v)]), Some("Yojimbo"));
}

#[test]
fn near_misses() {
    let v = hex(REQUEST);
    // A datagram one byte short or long is not a connection request.
    assert_eq!(run(&INSPECTOR, UDP, 40000, 51770, false, &v[..1077]), Probe::NotForUs);
    let mut long = v.clone();
    long.push(0);
    assert_eq!(run(&INSPECTOR, UDP, 40000, 51770, false, &long), Probe::NotForUs);
    // Another packet type in the prefix byte.
    let mut w = v.clone();
    w[0] = 1;
    assert_eq!(run(&INSPECTOR, UDP, 40000, 51770, false, &w), Probe::NotForUs);
    // The version info's NUL, its major version, its magic.
    let mut x = v.clone();
    x[13] = b' ';
    assert_eq!(run(&INSPECTOR, UDP, 40000, 51770, false, &x), Probe::NotForUs);
    let mut y = v.clone();
    y[9] = b'2';
    assert_eq!(run(&INSPECTOR, UDP, 40000, 51770, false, &y), Probe::NotForUs);
    let mut z = v;
    z[1] = b'n';
    assert_eq!(run(&INSPECTOR, UDP, 40000, 51770, false, &z), Probe::NotForUs);
}
