//! Oracle TNS: a packet header (16-bit length equal to the segment, zero packet checksum, a
//! type, a reserved zero byte, zero header checksum); the client's CONNECT carries a TNS
//! version of 300-320, the server answers ACCEPT, REFUSE, REDIRECT or RESEND.

use crate::proto::label;
use crate::{Cx, Dir, Inspector, Label, Probe, TCP};

/// nDPI's Oracle label.
pub static LABEL: Label = label("Oracle", "Database");

/// The Oracle TNS inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "oracle",
    transports: TCP,
    ports: &[1521],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let (Some(l), Some(&[0, 0]), Some(&ty), Some(&[0, 0, 0])) =
        (d.get(..2), d.get(2..4), d.get(4), d.get(5..8))
    else {
        return Probe::NotForUs;
    };
    let len = usize::from(u16::from_be_bytes([l[0], l[1]]));
    if len != d.len() {
        return Probe::NotForUs;
    }
    let ok = match (cx.hints.dir, ty) {
        (Dir::ToServer, 1) => d.get(8..10).is_some_and(|v| {
            (300..=320).contains(&u16::from_be_bytes([v[0], v[1]]))
        }),
        (Dir::ToClient, 2 | 4 | 5 | 11) => true,
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
