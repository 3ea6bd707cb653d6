//! Ether-SIO (Kontron/ISaGRAF remote I/O, UDP 6060): every datagram opens with the magic
//! `ESIO` and a 16-bit version (1 or 2) — a four-byte magic and a small version are proof enough
//! on any port.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's EtherSIO label.
pub static LABEL: Label = label("EtherSIO", "IoT-Scada");

/// The Ether-SIO inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "ethersio",
    transports: UDP,
    ports: &[6060],
    labels: &[&LABEL],
    min_udp: 20,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let ok = d.len() >= 20
        && d.get(..4) == Some(b"ESIO")
        && matches!(d.get(4..6), Some([0, 1 | 2]));
    Probe::certain_if(ok, &LABEL)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::testkit::{classify, hex, probe as run};

    // ethersio.pcap, 172.23.2.27:1024 -> 172.23.2.15:6060 (nDPI: EtherSIO): the first 48 bytes.
    const DGRAM: &str = "4553494f0001000000317616000000180000000d01000000005c00000001001100000b30000000000000000000000000ff";

    #[test]
    fn corpus_datagram() {
        assert_eq!(classify(UDP, 6060, 1024, &[(true, &hex(DGRAM))]), Some("EtherSIO"));
        let mut v = hex(DGRAM);
        v[5] = 7; // version 7
        assert_eq!(run(&INSPECTOR, UDP, 6060, 1024, false, &v), Probe::NotForUs);
        assert_eq!(run(&INSPECTOR, UDP, 6060, 1024, false, b"ESIO\0\x01"), Probe::NotForUs);
    }
}
