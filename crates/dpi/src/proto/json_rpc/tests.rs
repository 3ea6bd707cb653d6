use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// Made here: a request built by jsonrpcclient 4.0.3 (`request("add", params={"a": 2, "b": 3})`)
// sent as one line over TCP from 192.0.2.1 to 192.0.2.2:4444, answered by jsonrpcserver 5.0.9's
// `dispatch`, in network namespaces, captured with tcpdump. Decoded as JSON
// (`tshark -d tcp.port==4444,json`), tshark shows the members jsonrpc, method, params, id and
// jsonrpc, result, id. Frame 16, the request; frame 18, the response.
const REQUEST: &str = "7b226a736f6e727063223a2022322e30222c20226d6574686f64223a2022616464222c2022\
    706172616d73223a207b2261223a20322c202262223a20337d2c20226964223a20317d0a";
const RESPONSE: &str =
    "7b226a736f6e727063223a2022322e30222c2022726573756c74223a20352c20226964223a20317d0a";

#[test]
fn captured_messages() {
    assert_eq!(run(&INSPECTOR, TCP, 4444, 43274, false, &hex(REQUEST)), Probe::Certain(&LABEL));
    assert_eq!(run(&INSPECTOR, TCP, 4444, 43274, true, &hex(RESPONSE)), Probe::Certain(&LABEL));
    assert_eq!(classify(TCP, 4444, 43274, &[(true, &hex(REQUEST))]), Some("JSON-RPC"));
}

#[test]
fn spec_forms() {
    // §6's batch, and §5.1's error object (both from the specification's examples).
    let batch = br#"[{"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"}]"#;
    let error = br#"{"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found"}, "id": "1"}"#;
    for v in [&batch[..], error] {
        assert_eq!(run(&INSPECTOR, TCP, 4444, 4000, false, v), Probe::Certain(&LABEL));
    }
}

#[test]
fn near_misses() {
    for bad in [
        &br#"{"jsonrpc": "1.0", "method": "add", "id": 1}"#[..], // version
        br#"{"method": "add", "params": [], "id": 1}"#,          // JSON-RPC 1.0: no member
        br#"{"jsonrpc": "2.0", "id": 1}"#,                       // neither method nor result
        br#"x{"jsonrpc": "2.0", "method": "add"}"#,              // not an object
        b"{\"jsonrpc\": \"2.0\", \"method\": \"a\x01\"}",         // control byte
        br#"{"jsonrpc" "2.0", "method": "add"}"#,                // no colon
        br#"{"xjsonrpc": "2.0", "method": "add"}"#,               // another member
    ] {
        assert_eq!(run(&INSPECTOR, TCP, 4444, 4000, false, bad), Probe::NotForUs, "{bad:?}");
    }
    // An HTTP request carrying JSON-RPC stays HTTP.
    let http = b"POST / HTTP/1.1\r\nHost: x\r\n\r\n{\"jsonrpc\": \"2.0\", \"method\": \"a\"}";
    assert_eq!(run(&INSPECTOR, TCP, 80, 4000, false, http), Probe::NotForUs);
}
