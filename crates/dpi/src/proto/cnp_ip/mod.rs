//! CN/IP (ISO/IEC 14908-4: LonWorks control networks tunnelled over IP, UDP 1628/1629): a
//! common header of the packet length (16 bits, the whole datagram), version 1, the packet type
//! (1 data; 3-15 configuration, status and time services; 0x60-0x7f vendor), extended header
//! size, flags, vendor code, session id and sequence number. Bound to its ports: the header's
//! fixed parts are few.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's CNP-IP label.
pub static LABEL: Label = label("CNP-IP", "IoT-Scada");

/// The CN/IP inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "cnp_ip",
    transports: UDP,
    ports: &[1628, 1629],
    labels: &[&LABEL],
    min_udp: 20,
    ports_required: true,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    // Bound to its ports here too, not only by the scheduler's port filter (as the property
    // test `inspectors_never_panic` asks of every inspector with `ports_required`).
    if !INSPECTOR.on_ports(&cx.hints) {
        return Probe::NotForUs;
    }
    let d = cx.data;
    let ok = match d.get(..4) {
        Some(&[hi, lo, version, kind]) => {
            usize::from(u16::from_be_bytes([hi, lo])) == d.len()
                && d.len() >= 20
                && version == 1
                && matches!(kind, 1 | 3..=15 | 0x60..=0x7f)
        }
        _ => false,
    };
    Probe::certain_if(ok, &LABEL)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::testkit::{classify, hex, probe as run};

    // cnp_ip.pcapng, 127.0.0.1:39819 -> 127.0.0.1:1628 (nDPI: CNP-IP): a data packet of 32 bytes.
    const DATA: &str = "00200101000000006b8b45670000000000000000010901aa01a90103810d00ca";

    #[test]
    fn corpus_datagram() {
        assert_eq!(classify(UDP, 1628, 39819, &[(true, &hex(DATA))]), Some("CNP-IP"));
        let good = hex(DATA);
        for (at, v) in [(1, 0x21), (2, 2), (3, 0x20)] {
            let mut d = good.clone();
            d[at] = v;
            assert_eq!(run(&INSPECTOR, UDP, 1628, 39819, false, &d), Probe::NotForUs, "{at}");
        }
        assert_eq!(classify(UDP, 1630, 39819, &[(true, &good)]), None);
    }
}
