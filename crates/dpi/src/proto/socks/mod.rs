//! SOCKS: a version 4 request (command, port, address, NUL-terminated user id) or a version 5
//! greeting (method count and methods filling the segment) answered by the server's two-byte
//! choice of one of them.

use crate::proto::label;
use crate::{Cx, Dir, Inspector, Label, Probe, TCP};

/// nDPI's SOCKS label.
pub static LABEL: Label = label("SOCKS", "Web");

/// The SOCKS inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "socks",
    transports: TCP,
    ports: &[1080],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    match (cx.hints.dir, cx.hints.nth, d.first()) {
        (Dir::ToServer, 0, Some(5)) => {
            let n = d.get(1).map_or(0, |&n| usize::from(n));
            let methods = d.get(2..);
            let ok = (1..=9).contains(&n)
                && d.len() == 2 + n
                && methods.is_some_and(|m| m.iter().all(|&x| x <= 9 || x >= 0x80));
            if ok {
                Probe::Unsure
            } else {
                Probe::NotForUs
            }
        }
        (Dir::ToServer, 0, Some(4)) => {
            let user = d.get(8..d.len().saturating_sub(1)).unwrap_or(&[]);
            let ok = matches!(d.get(1), Some(1 | 2))
                && d.len() >= 9
                && d.len() <= 300
                && d.last() == Some(&0)
                && user.iter().all(|&b| b == 0 || b.is_ascii_graphic());
            if ok {
                Probe::Certain(&LABEL)
            } else {
                Probe::NotForUs
            }
        }
        (Dir::ToClient, 0, Some(5)) if d.len() == 2 => match d.get(1) {
            Some(0..=9 | 0xff) => Probe::Certain(&LABEL),
            _ => Probe::NotForUs,
        },
        _ => Probe::NotForUs,
    }
}

#[cfg(test)]
mod tests;
