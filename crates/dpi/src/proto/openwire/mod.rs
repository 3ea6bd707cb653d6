//! ActiveMQ's OpenWire protocol (TCP 61616): every command is a 4-byte big-endian size and the
//! command; a connection opens, from both ends, with a WireFormatInfo command (type 1) whose
//! body starts with the magic `ActiveMQ`. That opening, with a size equal to the rest of the
//! segment (or more, when it continues), is the test.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's OpenWire label.
pub static LABEL: Label = label("OpenWire", "RPC");

/// The OpenWire inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "openwire",
    transports: TCP,
    ports: &[61616],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let size = d
        .get(..4)
        .map(|s| u32::from_be_bytes([s[0], s[1], s[2], s[3]]) as usize);
    let ok = d.get(4..13) == Some(b"\x01ActiveMQ") && size.is_some_and(|s| s >= 9 && s + 4 >= d.len());
    Probe::certain_if(ok, &LABEL)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::testkit::{classify, hex, probe as run};

    // openwire.pcapng, [::1]:51157 -> [::1]:61616 (nDPI: OpenWire): the first 40 of the client's
    // 222 bytes (size 0xda = 218, WireFormatInfo, "ActiveMQ", version 10, ...), zero-filled.
    const HELLO: &str = "000000da014163746976654d510000000a01000000c800000008000c4361636865456e61626c6564";

    #[test]
    fn corpus_opening() {
        let mut d = hex(HELLO);
        d.resize(222, 0);
        assert_eq!(classify(TCP, 61616, 51157, &[(true, &d)]), Some("OpenWire"));
        // Off its port too: the magic and the size are enough.
        assert_eq!(run(&INSPECTOR, TCP, 5000, 51157, false, &d), Probe::Certain(&LABEL));
    }

    #[test]
    fn near_misses() {
        let mut d = hex(HELLO);
        d.resize(222, 0);
        let mut short = d.clone();
        short[3] = 0x10; // a size shorter than the segment
        assert_eq!(run(&INSPECTOR, TCP, 61616, 51157, false, &short), Probe::NotForUs);
        let mut other = d.clone();
        other[4] = 3; // another command first
        assert_eq!(run(&INSPECTOR, TCP, 61616, 51157, false, &other), Probe::NotForUs);
        assert_eq!(run(&INSPECTOR, TCP, 61616, 51157, false, &d[..8]), Probe::NotForUs);
    }
}
