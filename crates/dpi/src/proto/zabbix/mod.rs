//! Zabbix agent/server protocol: the header `ZBXD`, a flags byte (bit 0 set), and a 32-bit
//! little-endian data length; the whole message is 13 bytes of header plus the data.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's Zabbix label.
pub static LABEL: Label = label("Zabbix", "Network");

/// The Zabbix inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "zabbix",
    transports: TCP,
    ports: &[10050, 10051],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let (Some(b"ZBXD"), Some(&flags), Some(l)) = (d.get(..4), d.get(4), d.get(5..9)) else {
        return Probe::NotForUs;
    };
    let len = u32::from_le_bytes([l[0], l[1], l[2], l[3]]) as usize;
    if flags & 1 == 1 && flags < 8 && len.checked_add(13).is_some_and(|n| n >= d.len()) {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
