//! MySQL/MariaDB: the server's greeting, a packet (24-bit little-endian length equal to the
//! segment less 4, sequence 0) of protocol version 10 and a printable server version ending in
//! NUL; or the client's login answer (sequence 1) with the capability "protocol 4.1" set.

use crate::proto::label;
use crate::{Cx, Dir, Inspector, Label, Probe, TCP};

/// nDPI's MySQL label.
pub static LABEL: Label = label("MySQL", "Database");

/// The MySQL inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "mysql",
    transports: TCP,
    ports: &[3306],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let (Some(l), Some(&seq)) = (d.get(..3), d.get(3)) else {
        return Probe::NotForUs;
    };
    let len = usize::from(l[0]) | (usize::from(l[1]) << 8) | (usize::from(l[2]) << 16);
    if len + 4 != d.len() || len < 8 {
        return Probe::NotForUs;
    }
    let ok = match (cx.hints.dir, seq) {
        (Dir::ToClient, 0) => {
            let ver = d.get(5..).unwrap_or(&[]);
            let end = ver.iter().take(64).position(|&b| b == 0);
            d.get(4) == Some(&10)
                && end.is_some_and(|e| e >= 3 && ver.iter().take(e).all(u8::is_ascii_graphic))
                && ver.first().is_some_and(u8::is_ascii_digit)
        }
        // Login request: capabilities with CLIENT_PROTOCOL_41 (0x0200), max packet, charset,
        // 23 reserved zero bytes.
        (Dir::ToServer, 1) => {
            d.get(4..6).is_some_and(|c| c[1] & 0x02 != 0)
                && d.get(13..36).is_some_and(|z| z.iter().all(|&b| b == 0))
        }
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
