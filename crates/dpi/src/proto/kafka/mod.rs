//! Apache Kafka requests: a 32-bit size covering the rest of the message, an API key and
//! version in range, a correlation id and a client id (a 16-bit length, -1 for none) that fits.

use crate::proto::label;
use crate::util::Rd;
use crate::{Cx, Dir, Inspector, Label, Probe, TCP};

/// nDPI's Kafka label.
pub static LABEL: Label = label("Kafka", "RPC");

/// The Kafka inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "kafka",
    transports: TCP,
    ports: &[9092],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    if cx.hints.dir != Dir::ToServer {
        return Probe::Unsure;
    }
    let d = cx.data;
    let mut r = Rd::new(d);
    let (Some(size), Some(key), Some(ver), Some(_corr), Some(cid)) =
        (r.u32(), r.u16(), r.u16(), r.u32(), r.u16())
    else {
        return Probe::NotForUs;
    };
    let size_ok = size as usize + 4 == d.len();
    let client_ok = cid == 0xffff
        || r.take(usize::from(cid)).is_some_and(|c| {
            !c.is_empty() && c.iter().all(|b| b.is_ascii_graphic() || *b == b' ')
        });
    if size_ok && key <= 80 && ver <= 20 && client_ok {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
