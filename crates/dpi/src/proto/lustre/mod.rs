//! Lustre's network layer (LNet over TCP, the acceptor port 988): a connection opens with the
//! acceptor's request — magic 0xacce7100 (little-endian), version, the peer's NID — or with
//! LNet's HELLO, magic 0x45726963 (`cirE` on the wire) and protocol version 1-3. Four-byte magics
//! alone are weak, so both are bound to port 988.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's Lustre label.
pub static LABEL: Label = label("Lustre", "DataTransfer");

/// The Lustre inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "lustre",
    transports: TCP,
    ports: &[988],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: true,
    probe,
};

/// The acceptor's connection request magic (little-endian on the wire).
const ACCEPTOR: [u8; 4] = 0xacce_7100u32.to_le_bytes();
/// LNet's HELLO magic (little-endian on the wire).
const HELLO: [u8; 4] = 0x4572_6963u32.to_le_bytes();

fn probe(cx: &mut Cx<'_>) -> Probe {
    // Bound to its ports here too, not only by the scheduler's port filter (as the property
    // test `inspectors_never_panic` asks of every inspector with `ports_required`).
    if !INSPECTOR.on_ports(&cx.hints) {
        return Probe::NotForUs;
    }
    let d = cx.data;
    let le32 = |at: usize| d.get(at..at + 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
    let ok = match d.get(..4) {
        // Acceptor request: magic, version 1, a 64-bit NID (16 bytes in all).
        Some(m) if m == ACCEPTOR => d.len() == 16 && le32(4) == Some(1),
        // HELLO: magic, version (major 1-3 in the low half), then fixed fields.
        Some(m) if m == HELLO => d.len() >= 24 && le32(4).is_some_and(|v| (1..=3).contains(&(v & 0xffff))),
        _ => false,
    };
    Probe::certain_if(ok, &LABEL)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::testkit::{classify, hex, probe as run};

    // lustre.pcapng, 192.168.88.132:1022 -> 192.168.88.131:988 (nDPI: Lustre): the acceptor
    // request (16 bytes) and the first 24 bytes of the HELLO that follows (56 bytes).
    const REQUEST: &str = "0071ceac010000008358a8c000000200";
    const HELLO_MSG: &str = "63697245030000008458a8c0000002008358a8c000000200";

    #[test]
    fn corpus_openings() {
        assert_eq!(classify(TCP, 988, 1022, &[(true, &hex(REQUEST))]), Some("Lustre"));
        let mut h = hex(HELLO_MSG);
        h.resize(56, 0);
        assert_eq!(classify(TCP, 988, 1022, &[(false, &h)]), Some("Lustre"));
    }

    #[test]
    fn near_misses() {
        let mut r = hex(REQUEST);
        r[4] = 2; // acceptor version 2
        assert_eq!(run(&INSPECTOR, TCP, 988, 1022, false, &r), Probe::NotForUs);
        let mut h = hex(HELLO_MSG);
        h[4] = 9; // LNet version 9
        assert_eq!(run(&INSPECTOR, TCP, 988, 1022, false, &h), Probe::NotForUs);
        // Off port 988: not claimed.
        assert_eq!(classify(TCP, 989, 1022, &[(true, &hex(REQUEST))]), None);
    }
}
