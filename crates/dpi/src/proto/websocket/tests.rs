use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

/// An unmasked final text frame (RFC 6455 section 5.7: "a single-frame unmasked text message").
fn text_frame(s: &str) -> Vec<u8> {
    let mut v = vec![0x81, s.len() as u8];
    v.extend_from_slice(s.as_bytes());
    v
}

// Captured from websockets 10.4 (Python) client and server in two network namespaces, without
// permessage-deflate (scripts/netcap, scenario "websocket_plain"; tshark 4.0.17 dissects both
// frames as websocket): the server's unmasked greeting, then the client's masked text message.
const GREETING: &str = "811e 6772656574696e67732066726f6d20746865206563686f20736572766572";
const MASKED_HELLO: &str = "818f b37796a8 db12fac4dc57e1c1c112e5d8d612f2";

#[test]
fn frames_mid_connection() {
    // The capture without its handshake: the first payload packet decides.
    let w = hex(GREETING);
    assert_eq!(w, text_frame("greetings from the echo server"));
    assert_eq!(classify(TCP, 8765, 59160, &[(true, &w)]), Some("WebSocket"));
    let masked = hex(MASKED_HELLO);
    assert_eq!(run(&INSPECTOR, TCP, 8765, 59160, false, &masked), Probe::Certain(&LABEL));
    // RFC 6455 section 5.7's masked "Hello".
    let masked = hex("818537fa213d7f9f4d5158");
    assert_eq!(run(&INSPECTOR, TCP, 8765, 59160, false, &masked), Probe::Certain(&LABEL));
    // A ping (section 5.7: unmasked "Hello") then its pong: the second packet decides.
    let ping = hex("890548656c6c6f");
    let pong = hex("8a0548656c6c6f");
    assert_eq!(run(&INSPECTOR, TCP, 8765, 59160, false, &ping), Probe::Unsure);
    assert_eq!(
        classify(TCP, 8765, 59160, &[(true, &ping), (false, &pong)]),
        Some("WebSocket")
    );
    // A 256-byte binary frame with a 16-bit length (section 5.7), then a text frame.
    let mut bin = hex("827e0100");
    bin.extend_from_slice(&[0xab; 256]);
    assert_eq!(run(&INSPECTOR, TCP, 8765, 59160, false, &bin), Probe::Unsure);
    let mut both = bin.clone();
    both.extend_from_slice(&w);
    assert_eq!(run(&INSPECTOR, TCP, 8765, 59160, false, &both), Probe::Certain(&LABEL));
}

#[test]
fn the_handshake_stays_http() {
    let req = b"GET /chat HTTP/1.1\r\nHost: server.example.com\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n";
    assert_eq!(classify(TCP, 80, 50000, &[(true, req)]), Some("HTTP"));
}

#[test]
fn near_misses() {
    let w = text_frame("greetings");
    let mut short = w.clone();
    short.pop(); // length says more than the segment holds
    let mut extra = w.clone();
    extra.push(b'!'); // a byte after the frame
    let mut rsv = w.clone();
    rsv[0] = 0xc1; // RSV1 without an extension
    let mut op = w.clone();
    op[0] = 0x83; // reserved opcode
    let mut nofin = w.clone();
    nofin[0] = 0x01;
    let binary_text = text_frame("\u{1}\u{2}\u{3}"); // a text frame of control characters
    let long_ping = {
        let mut v = hex("897e007e");
        v.extend_from_slice(&[0; 126]);
        v
    };
    for (i, v) in [short, extra, rsv, op, nofin, long_ping].iter().enumerate() {
        assert_eq!(run(&INSPECTOR, TCP, 5000, 6000, false, v), Probe::NotForUs, "case {i}");
    }
    assert_eq!(run(&INSPECTOR, TCP, 5000, 6000, false, &binary_text), Probe::Unsure);
    // A first binary frame followed by something else ends it.
    assert_eq!(
        classify(TCP, 5000, 6000, &[(true, &hex("820301 0203")), (false, b"hello there")]),
        None
    );
}
