//! NetFlow and IPFIX export over UDP: version 5 (24-byte header, 1-30 records of 48 bytes
//! filling the datagram), version 9 (20-byte header, then flowsets whose lengths fill it) and
//! IPFIX, version 10 (its length field equals the datagram, sets fill it).

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's NetFlow label.
pub static LABEL: Label = label("NetFlow", "Network");

/// The NetFlow/IPFIX inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "netflow",
    transports: UDP,
    ports: &[2055, 2056, 2057, 9995, 9996, 4739],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

/// Sets (id, 16-bit length of at least 4) from `at` fill `d` exactly.
fn sets_fill(d: &[u8], mut at: usize) -> bool {
    for _ in 0..64 {
        if at == d.len() {
            return true;
        }
        let (Some(id), Some(l)) = (d.get(at..at + 2), d.get(at + 2..at + 4)) else {
            return false;
        };
        let id = u16::from_be_bytes([id[0], id[1]]);
        let len = usize::from(u16::from_be_bytes([l[0], l[1]]));
        if len < 4 || (id > 3 && id < 256) {
            return false;
        }
        at += len;
    }
    false
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let (Some(v), Some(c)) = (d.get(..2), d.get(2..4)) else {
        return Probe::NotForUs;
    };
    let count = usize::from(u16::from_be_bytes([c[0], c[1]]));
    let ok = match u16::from_be_bytes([v[0], v[1]]) {
        5 => (1..=30).contains(&count) && d.len() == 24 + 48 * count,
        9 => d.len() > 20 && sets_fill(d, 20),
        10 => count == d.len() && d.len() > 16 && sets_fill(d, 16),
        _ => false,
    };
    if ok {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
