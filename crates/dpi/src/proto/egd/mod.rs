//! GE's Ethernet Global Data (UDP 18246): a producer's datagram opens with a 32-byte header —
//! PDU type 0x0d, version 1, request id, producer id, exchange id, timestamp, status,
//! configuration signature, reserved — then the exchange's data. Two fixed bytes are weak, so
//! the protocol is bound to its port on both ends.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's EthernetGlobalData label.
pub static LABEL: Label = label("EthernetGlobalData", "IoT-Scada");

/// The Ethernet Global Data inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "egd",
    transports: UDP,
    ports: &[18246],
    labels: &[&LABEL],
    min_udp: 32,
    ports_required: true,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let h = &cx.hints;
    let ok = h.server_port == 18246
        && h.client_port == 18246
        && cx.data.len() >= 32
        && cx.data.get(..2) == Some(&[0x0d, 0x01]);
    Probe::certain_if(ok, &LABEL)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::testkit::{classify, hex, probe as run};

    // egd.pcapng, 192.168.8.77:18246 -> 192.168.8.169:18246 (nDPI: EthernetGlobalData): the
    // first 32 of 59 bytes (type 0x0d, version 1, request 0xf0d4, producer 192.168.8.77, ...).
    const PDU: &str = "0d01d4f0c0a8084d7b000000be8a7e3800811b2c000000000000000000000000";

    #[test]
    fn corpus_datagram() {
        let mut d = hex(PDU);
        d.resize(59, 0);
        assert_eq!(classify(UDP, 18246, 18246, &[(true, &d)]), Some("EthernetGlobalData"));
        // Another PDU type or version, another source port, or a short datagram: not EGD.
        let mut t = d.clone();
        t[0] = 0x0e;
        assert_eq!(run(&INSPECTOR, UDP, 18246, 18246, false, &t), Probe::NotForUs);
        assert_eq!(run(&INSPECTOR, UDP, 18246, 40000, false, &d), Probe::NotForUs);
        assert_eq!(run(&INSPECTOR, UDP, 18246, 18246, false, &d[..31]), Probe::NotForUs);
    }
}
