//! MNDP, the MikroTik Neighbor Discovery Protocol (RouterOS "IP > Neighbors" discovery), UDP
//! port 5678, usually broadcast. Format as MikroTik's manual lists the fields and Wireshark's
//! MNDP dissector decodes them: a 4-byte header (two bytes, then a 16-bit sequence number), then
//! TLVs of a 16-bit big-endian type, a 16-bit length and the value: 1 MAC address, 5 identity,
//! 7 version, 8 platform, 10 uptime, 11 software id, 12 board, 14 unpack, 15 IPv6 address,
//! 16 interface name, 17 IPv4 address.
//!
//! Checked: the TLVs (types 1-17, at most 32) end exactly at the end of the datagram, there are
//! at least two, and one is a 6-byte MAC address. The header has no magic, so the flow must use
//! port 5678 (`ports_required`). The 4-byte discovery request alone is not recognised.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's Mikrotik label.
pub static LABEL: Label = label("Mikrotik", "Network");

/// The MNDP inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "mikrotik",
    transports: UDP,
    ports: &[5678],
    labels: &[&LABEL],
    min_udp: 18,
    ports_required: true,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let (mut at, mut n, mut mac) = (4, 0, false);
    while at < d.len() && n < 32 {
        let Some(h) = d.get(at..at + 4) else {
            return Probe::NotForUs;
        };
        let (t, len) = (u16::from_be_bytes([h[0], h[1]]), u16::from_be_bytes([h[2], h[3]]));
        if !(1..=17).contains(&t) {
            return Probe::NotForUs;
        }
        mac |= t == 1 && len == 6;
        at += 4 + usize::from(len);
        n += 1;
    }
    if cx.hints.port(5678) && at == d.len() && n >= 2 && mac {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
