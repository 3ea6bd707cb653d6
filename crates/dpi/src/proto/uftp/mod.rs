//! UFTP, the encrypted multicast file transfer of uftp/uftpd (UDP, port 1044 by default).
//! Every packet starts with the 16-byte UFTP header of the protocol description shipped with
//! the implementation (`protocol.txt`, section 5.2.1): a version byte (0x30 for 3.x, 0x40 for
//! 4.x, 0x50 for 5.x), the function (message type 1-21, section 5.3.1), a sequence number, the
//! source and group ids, the group instance, GRTT, group size and a reserved byte (zero). Each
//! message but ENCRYPTED (18) then begins with its own function byte and a header length in
//! 4-byte words (sections 5.2.3 onwards).
//!
//! Checked: a known version byte, a function of 1-21, the reserved byte zero, and for a clear
//! message the function repeated at byte 16 and a header length (at least one word) that fits
//! in the datagram; ENCRYPTED messages need their signature and payload lengths (multiples of
//! 4, section 5.2.2) to fit.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's UFTP label.
pub static LABEL: Label = label("UFTP", "Download");

/// The UFTP inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "uftp",
    transports: UDP,
    ports: &[1044],
    labels: &[&LABEL],
    min_udp: 20,
    ports_required: false,
    probe,
};

const ENCRYPTED: u8 = 18;

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let (Some(&ver), Some(&func), Some(&0)) = (d.first(), d.get(1), d.get(15)) else {
        return Probe::NotForUs;
    };
    if ![0x30, 0x40, 0x50].contains(&ver) || !(1..=21).contains(&func) {
        return Probe::NotForUs;
    }
    let body = d.len() - 16;
    let ok = if func == ENCRYPTED {
        match d.get(24..28) {
            Some(l) => {
                let sig = usize::from(u16::from_be_bytes([l[0], l[1]]));
                let pay = usize::from(u16::from_be_bytes([l[2], l[3]]));
                sig % 4 == 0 && pay % 4 == 0 && pay > 0 && 12 + sig + pay <= body
            }
            None => false,
        }
    } else {
        match (d.get(16), d.get(17)) {
            (Some(&f), Some(&words)) => f == func && words > 0 && usize::from(words) * 4 <= body,
            _ => false,
        }
    };
    if ok {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
