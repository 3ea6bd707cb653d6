//! Beckhoff ADS over AMS/TCP (TCP 48898): a 6-byte AMS/TCP header — two reserved zero bytes
//! and the little-endian length of what follows — then the 32-byte AMS header: target and
//! source AMS NetId and port, command id (0-9), state flags, the little-endian data length
//! (the AMS/TCP length minus 32), error code and invoke id.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's BeckhoffADS label.
pub static LABEL: Label = label("BeckhoffADS", "IoT-Scada");

/// The Beckhoff ADS inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "beckhoff_ads",
    transports: TCP,
    ports: &[48898],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let le32 = |at: usize| d.get(at..at + 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize);
    let le16 = |at: usize| d.get(at..at + 2).map(|b| u16::from_le_bytes([b[0], b[1]]));
    let ok = d.get(..2) == Some(&[0, 0])
        && le32(2).is_some_and(|len| len >= 32 && len + 6 <= d.len())
        && le16(22).is_some_and(|cmd| cmd <= 9)
        && le32(26).zip(le32(2)).is_some_and(|(data, len)| data + 32 == len);
    Probe::certain_if(ok, &LABEL)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::testkit::{classify, hex, probe as run};

    // beckhoff_ads.pcapng, 192.168.1.99:49201 -> 192.168.1.8:48898 (nDPI: BeckhoffADS): the
    // client's Read State request (AMS/TCP length 32, command 4, no data) and the answer
    // (length 40, 8 bytes of data).
    const REQUEST: &str = "000020000000050d756001011027c0a801630101038004000400000000000000000005000000";
    const ANSWER: &str = "000028000000c0a8016301010380050d756001011027040005000800000000000000050000000000000005000200";

    #[test]
    fn corpus_exchange() {
        assert_eq!(classify(TCP, 48898, 49201, &[(true, &hex(REQUEST))]), Some("BeckhoffADS"));
        assert_eq!(classify(TCP, 48898, 49201, &[(false, &hex(ANSWER))]), Some("BeckhoffADS"));
    }

    #[test]
    fn near_misses() {
        let good = hex(REQUEST);
        for (at, v) in [(0, 1), (2, 0x21), (22, 0x0a), (26, 1)] {
            let mut d = good.clone();
            d[at] = v;
            assert_eq!(run(&INSPECTOR, TCP, 48898, 49201, false, &d), Probe::NotForUs, "{at}");
        }
    }
}
