//! SNMP (v1, v2c: RFC 1157/3416; v3: RFC 3412) over UDP: a BER SEQUENCE covering the
//! datagram, an INTEGER version of 0, 1 or 3, then for v1/v2c a printable community string and
//! a PDU tag (0xa0-0xa8), for v3 a header SEQUENCE.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's SNMP label.
pub static LABEL: Label = label("SNMP", "Network");

/// The SNMP inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "snmp",
    transports: UDP,
    ports: &[161, 162],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};


fn is_snmp(d: &[u8]) -> Option<bool> {
    if *d.first()? != 0x30 {
        return Some(false);
    }
    let (len, n) = crate::ber::len(d, 1)?;
    let at = 1 + n;
    // version: INTEGER, one byte
    if at + len != d.len() || d.get(at..at + 2)? != [0x02, 0x01] {
        return Some(false);
    }
    let ver = *d.get(at + 2)?;
    let next = at + 3;
    Some(match ver {
        0 | 1 => {
            if *d.get(next)? != 0x04 {
                return Some(false);
            }
            let (clen, m) = crate::ber::len(d, next + 1)?;
            let c_at = next + 1 + m;
            let community = d.get(c_at..c_at + clen)?;
            community.iter().all(|&b| b.is_ascii_graphic() || b == b' ')
                && matches!(d.get(c_at + clen), Some(0xa0..=0xa8))
        }
        3 => *d.get(next)? == 0x30,
        _ => false,
    })
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    if is_snmp(cx.data) == Some(true) {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
