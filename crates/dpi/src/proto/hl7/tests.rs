use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// Made here: python-hl7 0.4.5 (PyPI `hl7`): its `mllp_send` client on 192.0.2.1 sending an ORU^R01
// message to its asyncio MLLP server (`hl7.mllp.start_hl7_server`, answering with the message's
// `create_ack()`) on 192.0.2.2:2575, in network namespaces, captured with tcpdump; tshark
// dissects both as `hl7` ("ORU (R01)", "ACK (R01)"). Frame 16 (185 bytes), the client's message.
const ORU: &str = "0b4d53487c5e7e5c267c474848204c41427c454c41422d337c474848204f457c424c4447347c\
    3230303230323135303933307c7c4f52555e5230317c434e54524c2d333435367c507c322e340d5049447c7c7c\
    3535352d34342d343434347c7c4556455259574f4d414e5e4556455e455e5e5e5e4c7c4a4f4e45537c3139363230\
    3332307c460d4f42587c317c534e7c313535342d355e474c55434f53457c7c5e3138327c6d672f646c7c37305f31\
    30357c487c7c7c461c0d";
// Frame 18, the server's ACK^R01.
const ACK: &str = "0b4d53487c5e7e5c267c474848204f457c424c4447347c474848204c41427c454c41422d337c\
    32303236313132353031323034317c7c41434b5e5230315e41434b7c363332393031323034313637323839344b53\
    4d337c507c322e340d4d53417c41417c434e54524c2d333435360d1c0d";

#[test]
fn captured_messages() {
    assert_eq!(run(&INSPECTOR, TCP, 2575, 47764, false, &hex(ORU)), Probe::Certain(&LABEL));
    assert_eq!(run(&INSPECTOR, TCP, 2575, 47764, true, &hex(ACK)), Probe::Certain(&LABEL));
    assert_eq!(classify(TCP, 2575, 47764, &[(true, &hex(ORU))]), Some("HL7"));
    assert_eq!(classify(TCP, 12575, 47764, &[(true, &hex(ORU))]), Some("HL7"));
    // The first segment of a longer message (no trailer yet).
    let head = &hex(ORU)[..40];
    assert_eq!(run(&INSPECTOR, TCP, 2575, 47764, false, head), Probe::Certain(&LABEL));
}

#[test]
fn near_misses() {
    let v = hex(ORU);
    let cases: [(usize, u8); 6] = [
        (0, 0x0c),  // start block
        (1, b'm'),  // segment name
        (4, b'A'),  // field separator
        (6, b'^'),  // encoding characters repeat
        (8, b'|'),  // three encoding characters only
        (184, 0x0a), // trailer
    ];
    for (at, b) in cases {
        let mut w = v.clone();
        w[at] = b;
        assert_eq!(run(&INSPECTOR, TCP, 2575, 4000, false, &w), Probe::NotForUs, "{at}");
    }
    // Without the MLLP framing.
    assert_eq!(run(&INSPECTOR, TCP, 2575, 4000, false, &v[1..]), Probe::NotForUs);
}
