//! CIP implicit (I/O) messaging over UDP 2222 (EtherNet/IP, ODVA vol. 2 ch. 2-7): a common
//! packet format without the encapsulation header — a little-endian item count of 2, an address
//! item (0x8002 sequenced address, 8 bytes; or 0x00a1 connected address, 4 bytes) and a
//! connected data item (0x00b1) whose length ends the datagram.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's CIP label.
pub static LABEL: Label = label("CIP", "IoT-Scada");

/// The CIP I/O inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "cip",
    transports: UDP,
    ports: &[2222],
    labels: &[&LABEL],
    min_udp: 14,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let le16 = |at: usize| d.get(at..at + 2).map(|b| u16::from_le_bytes([b[0], b[1]]));
    let addr = match (le16(0), le16(2), le16(4)) {
        (Some(2), Some(0x8002), Some(8)) => 8,
        (Some(2), Some(0x00a1), Some(4)) => 4,
        _ => return Probe::NotForUs,
    };
    let data = 6 + addr;
    let ok = le16(data) == Some(0x00b1)
        && le16(data + 2).is_some_and(|len| data + 4 + usize::from(len) == d.len());
    Probe::certain_if(ok, &LABEL)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::testkit::{classify, hex, probe as run};

    // cip_io.pcap, 192.168.5.62:2222 -> 192.168.5.50:2222 (nDPI: CIP): sequenced address item
    // (connection 0x003a7b78, sequence 0x5ecbe8), connected data of 12 bytes.
    const IO: &str = "020002800800787b3a00e8cb5e04b1000c000300fdffffffffffffff0000";

    #[test]
    fn corpus_datagram() {
        assert_eq!(classify(UDP, 2222, 2222, &[(true, &hex(IO))]), Some("CIP"));
        let good = hex(IO);
        let mut count = good.clone();
        count[0] = 3;
        let mut len = good.clone();
        len[16] = 0x0d;
        let mut item = good.clone();
        item[14] = 0xb2;
        for d in [count, len, item] {
            assert_eq!(run(&INSPECTOR, UDP, 2222, 2222, false, &d), Probe::NotForUs, "{d:02x?}");
        }
    }
}
