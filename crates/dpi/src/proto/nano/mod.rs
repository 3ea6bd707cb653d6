//! Nano (the XNO currency's node protocol, TCP/UDP 7075): every message opens with an 8-byte
//! header — `R`, the network (`A` test, `B` beta, `C` live), the maximum, used and minimum
//! protocol versions (max >= used >= min), the message type (2-20) and 16 bits of extensions.
//! Two letters are a weak magic, so the protocol is bound to its port.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP, UDP};

/// nDPI's Nano label.
pub static LABEL: Label = label("Nano", "Crypto_Currency");

/// The Nano inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "nano",
    transports: TCP | UDP,
    ports: &[7075],
    labels: &[&LABEL],
    min_udp: 8,
    ports_required: true,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    // Bound to its port here too, not only by the scheduler's port filter (the property test
    // `inspectors_never_panic` found an 8-byte datagram to port 53 claimed).
    if !INSPECTOR.on_ports(&cx.hints) {
        return Probe::NotForUs;
    }
    let ok = match cx.data.get(..8) {
        Some(&[b'R', net, max, used, min, kind, _, _]) => {
            (b'A'..=b'C').contains(&net) && max >= used && used >= min && min > 0 && (2..=20).contains(&kind)
        }
        _ => false,
    };
    Probe::certain_if(ok, &LABEL)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::testkit::{classify, hex, probe as run};

    // nano.pcapng, 192.168.88.231:59642 -> 37.120.187.138:7075 (nDPI: Nano): the first 40 bytes
    // of the client's node_id_handshake (live network, versions 20/20/18, type 0x0a).
    const HANDSHAKE: &str = "52431414120a0500f0269f5e0110da0ffa6fb70e5c70c46ec3bd3de37cc66ac1395fdde101f35544";

    #[test]
    fn corpus_handshake() {
        assert_eq!(classify(TCP, 7075, 59642, &[(true, &hex(HANDSHAKE))]), Some("Nano"));
        for (at, v) in [(1, b'D'), (3, 0x15), (5, 0x30)] {
            let mut d = hex(HANDSHAKE);
            d[at] = v;
            assert_eq!(run(&INSPECTOR, TCP, 7075, 59642, false, &d), Probe::NotForUs, "{at}");
        }
        assert_eq!(classify(TCP, 7076, 59642, &[(true, &hex(HANDSHAKE))]), None);
        // The probe itself, off the port (the scheduler's filter aside).
        assert_eq!(run(&INSPECTOR, TCP, 7076, 59642, false, &hex(HANDSHAKE)), Probe::NotForUs);
    }
}
