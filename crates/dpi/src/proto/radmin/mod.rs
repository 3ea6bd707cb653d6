//! Radmin 3 (Famatech; no public specification: the message shapes below are those of nDPI's
//! dissector, src/lib/protocols/radmin.c; 4899 is Radmin's IANA-registered port). Messages
//! start with the 32-bit word 0x01000000 and a type byte. The client's 10-byte hello (type 1,
//! ending 08 08) is answered by the server's 46-byte
//! reply (type 0x25, bytes 7-10 02 12 08 02, byte 13 0x0A); a reconnecting session exchanges
//! 14-byte messages of type 5 carrying 27 27 at offset 8. The hello alone proves little, so it
//! only keeps the inspector asking (any other packet rules Radmin out); the reply, or a second
//! type-5 message, names the flow.

use crate::proto::label;
use crate::{Cx, Dir, Inspector, Label, Probe, TCP};

/// nDPI's Radmin label.
pub static LABEL: Label = label("Radmin", "RemoteAccess");

/// The Radmin inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "radmin",
    transports: TCP,
    ports: &[4899],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    if d.get(..4) != Some(&[1, 0, 0, 0]) {
        return Probe::NotForUs;
    }
    let from_client = cx.hints.dir == Dir::ToServer;
    let hello = d.len() == 10 && d.get(4) == Some(&1) && d.get(8..10) == Some(&[8, 8]);
    let reply = d.len() == 46
        && d.get(4) == Some(&0x25)
        && d.get(7..11) == Some(&[2, 0x12, 8, 2])
        && d.get(13) == Some(&0x0a);
    let resume = d.len() == 14 && d.get(4) == Some(&5) && d.get(8..10) == Some(&[0x27, 0x27]);
    let first = cx.hints.nth == 0 && from_client;
    match () {
        _ if hello && first => Probe::Unsure,
        _ if reply && !from_client => Probe::Certain(&LABEL),
        _ if resume && first => Probe::Unsure,
        _ if resume => Probe::Certain(&LABEL),
        _ => Probe::NotForUs,
    }
}

#[cfg(test)]
mod tests;
