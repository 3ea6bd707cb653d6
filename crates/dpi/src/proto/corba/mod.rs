//! CORBA's GIOP (CORBA 3.0 chapter 15.4.1): the magic `GIOP`, version 1.0-1.3, a byte-order
//! byte (1.0) or flags with only the byte-order and fragment bits (1.1 on), a message type
//! (Request to Fragment: 0-7, Fragment from 1.1) and the message size in the stated byte
//! order, at most the rest of a datagram and bounded on TCP. Multicast GIOP (MIOP, OMG
//! ptc/03-01-11) over UDP starts `MIOP` with header version 1.0, flags (byte order, last
//! packet), packet length, number and count, and an id of at most 252 bytes.

use crate::proto::label;
use crate::util::Rd;
use crate::{Cx, Inspector, Label, Probe, TCP, UDP};

/// nDPI's Corba label.
pub static LABEL: Label = label("Corba", "RPC");

/// The CORBA (GIOP, MIOP) inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "corba",
    transports: TCP | UDP,
    ports: &[683, 684],
    labels: &[&LABEL],
    min_udp: 12,
    ports_required: false,
    probe,
};

/// Largest message size believed on TCP.
const MAX_SIZE: u32 = 64 << 20;

fn u32_in(b: &[u8], little: bool) -> Option<u32> {
    let a: [u8; 4] = b.get(..4)?.try_into().ok()?;
    Some(if little {
        u32::from_le_bytes(a)
    } else {
        u32::from_be_bytes(a)
    })
}

/// A GIOP message header at the start of `d`; `datagram` when `d` must hold the whole message.
fn giop(d: &[u8], datagram: bool) -> bool {
    let (Some(b"GIOP"), Some(&1), Some(&minor), Some(&flags), Some(&kind)) =
        (d.get(..4), d.get(4), d.get(5), d.get(6), d.get(7))
    else {
        return false;
    };
    let flags_ok = if minor == 0 { flags <= 1 } else { flags <= 3 };
    let kind_ok = kind <= 6 || (kind == 7 && minor >= 1);
    let Some(size) = d.get(8..).and_then(|s| u32_in(s, flags & 1 == 1)) else {
        return false;
    };
    let rest = d.len() - 12;
    let size_ok = if datagram {
        size as usize <= rest
    } else {
        size <= MAX_SIZE
    };
    minor <= 3 && flags_ok && kind_ok && size_ok
}

/// A MIOP packet header at the start of `d`.
fn miop(d: &[u8]) -> bool {
    let mut r = Rd::new(d);
    let (Some(b"MIOP"), Some(0x10), Some(flags)) = (r.take(4), r.u8(), r.u8()) else {
        return false;
    };
    let little = flags & 1 == 1;
    let Some(len) = r.take(2).map(|b| {
        if little {
            u16::from_le_bytes([b[0], b[1]])
        } else {
            u16::from_be_bytes([b[0], b[1]])
        }
    }) else {
        return false;
    };
    let (Some(num), Some(count)) = (r.take(4), r.take(4)) else {
        return false;
    };
    let (Some(num), Some(count)) = (u32_in(num, little), u32_in(count, little)) else {
        return false;
    };
    let Some(id_len) = r.take(4).and_then(|b| u32_in(b, little)) else {
        return false;
    };
    flags <= 3
        && usize::from(len) <= d.len()
        && count >= 1
        && num < count
        && id_len <= 252
        && r.skip(id_len as usize).is_some()
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let ok = if cx.hints.transport == UDP {
        giop(d, true) || miop(d)
    } else {
        giop(d, false)
    };
    if ok {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
