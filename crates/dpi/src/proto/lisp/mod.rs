//! LISP's control plane over TCP (the map-server reliable transport, port 4342): a segment is a
//! run of messages, each a 16-bit type (17 registration, 18 its ack, 19 its refusal, 20 refresh,
//! 21 mapping notification, 22 its ack, 23 error), a 16-bit length counting the whole message,
//! then the message. Messages that tile the segment exactly, on port 4342, are the test.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's LISP label.
pub static LABEL: Label = label("LISP", "Cloud");

/// The LISP (TCP control plane) inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "lisp",
    transports: TCP,
    ports: &[4342],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: true,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    // Bound to its ports here too, not only by the scheduler's port filter (as the property
    // test `inspectors_never_panic` asks of every inspector with `ports_required`).
    if !INSPECTOR.on_ports(&cx.hints) {
        return Probe::NotForUs;
    }
    let mut rest = cx.data;
    for _ in 0..32 {
        let Some(h) = rest.get(..4) else {
            return Probe::NotForUs;
        };
        let (kind, len) = (
            u16::from_be_bytes([h[0], h[1]]),
            usize::from(u16::from_be_bytes([h[2], h[3]])),
        );
        if !(17..=23).contains(&kind) || len < 8 || len > rest.len() {
            return Probe::NotForUs;
        }
        rest = &rest[len..];
        if rest.is_empty() {
            return Probe::Certain(&LABEL);
        }
    }
    Probe::NotForUs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::testkit::{classify, hex, probe as run};

    // lisp_registration.pcap, 10.0.123.2:15373 -> 10.0.123.1:4342 (nDPI: LISP): the server's
    // first segment, one registration refresh (type 20, 15 bytes).
    const REFRESH: &str = "0014000f000000000000009facade9";

    #[test]
    fn corpus_segment() {
        assert_eq!(classify(TCP, 4342, 15373, &[(false, &hex(REFRESH))]), Some("LISP"));
        // Two registrations of 100 and 112 bytes in one segment (the client's, zero-filled).
        let mut two = hex("00110064");
        two.resize(100, 0);
        two.extend_from_slice(&hex("00110070"));
        two.resize(212, 0);
        assert_eq!(run(&INSPECTOR, TCP, 4342, 15373, false, &two), Probe::Certain(&LABEL));
    }

    #[test]
    fn near_misses() {
        let good = hex(REFRESH);
        let mut t = good.clone();
        t[1] = 0x18; // type 24
        let mut l = good.clone();
        l[3] = 0x0e; // a length one short of the segment
        for d in [t, l, good[..3].to_vec()] {
            assert_eq!(run(&INSPECTOR, TCP, 4342, 15373, true, &d), Probe::NotForUs, "{d:02x?}");
        }
        assert_eq!(classify(TCP, 4343, 15373, &[(false, &good)]), None);
    }
}
