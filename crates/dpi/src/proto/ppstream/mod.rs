//! PPStream (PPS, now iQIYI's) peer-to-peer video over UDP to its tracker port 17788. A
//! datagram starts with its length as a little-endian u16 (the whole datagram, or 4 or 6
//! bytes less), then a command byte; nDPI knows four command shapes by their fixed bytes:
//! 0x43 (`ff 00 01` then seven zero bytes at 5-14), 0x44 (sub-types `b1 71`, `73 17` and
//! `74 71`, the last a 113-byte datagram carrying the text `PPStream` at 94), and two 0x55
//! forms with zero runs. On the port it also takes two shorter patterns (second byte 0x80 or
//! 0x84 with bytes 3 and 4 equal; second byte 0x53 after 0x08/0x0c with a zero fourth byte).
//! Everything is gated by the port, as nDPI's own rule is. PPStream over HTTP (iQIYI hosts) is
//! HTTP's sub-protocol and not this inspector's.
//!
//! Facts (nDPI's `pps.pcap.out`): five flows from port 22793 to peers' 17788, each one or two
//! datagrams of 52-108 bytes, named on the first; category Streaming. No corpus flow uses
//! port 17788.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's PPStream label.
pub static LABEL: Label = label("PPStream", "Streaming");

/// PPStream's UDP port.
const PORT: u16 = 17788;

/// The PPStream inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "ppstream",
    transports: UDP,
    ports: &[PORT],
    labels: &[&LABEL],
    min_udp: 13,
    ports_required: true,
    probe,
};

/// Are the bytes of `d` at `at..` equal to `want`?
fn at(d: &[u8], at: usize, want: &[u8]) -> bool {
    d.get(at..at + want.len()) == Some(want)
}

/// Does `d` have one of the command shapes behind a matching length?
fn command(d: &[u8]) -> bool {
    let Some(l) = d.get(..2).map(|l| usize::from(u16::from_le_bytes([l[0], l[1]]))) else {
        return false;
    };
    let n = d.len();
    if l != n && l + 4 != n && l + 6 != n {
        return false;
    }
    let zeros7 = |from: usize| at(d, from, &[0; 7]);
    match (d.get(2), d.get(3), d.get(4)) {
        (Some(0x43), _, _) => at(d, 5, &[0xff, 0, 1, 0, 0, 0, 0, 0, 0, 0]),
        (Some(0x44), Some(0xb1), Some(0x71)) => {
            at(d, 13, &[0, 0, 1, 0])
                && (matches!(d.get(17), Some(2..=5)) && at(d, 18, &[0, 0, 0])
                    || at(d, 17, &[0xff; 4]))
        }
        (Some(0x44), Some(0x73), Some(0x17)) => at(d, 5, &[0; 4]) && zeros7(14),
        (Some(0x44), Some(0x74), Some(0x71)) => n == 113 && at(d, 94, b"PPStream"),
        (Some(0x55), _, _) => {
            at(d, 13, &[0x1b, 0xa0, 0, 0, 0, 0, 0, 0])
                || d.get(1) == Some(&0) && at(d, 5, &[0; 4]) && zeros7(14)
        }
        _ => false,
    }
}

/// nDPI's shorter patterns on the port (datagrams over 17 bytes).
fn short_form(d: &[u8]) -> bool {
    let (Some(&b0), Some(&b1), Some(&b3), Some(&b4)) = (d.first(), d.get(1), d.get(3), d.get(4))
    else {
        return false;
    };
    d.len() > 17
        && (matches!(b1, 0x80 | 0x84) && b3 == b4 || b1 == 0x53 && b3 == 0 && matches!(b0, 8 | 0x0c))
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    if cx.hints.port(PORT) && d.len() > 12 && (command(d) || short_form(d)) {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
