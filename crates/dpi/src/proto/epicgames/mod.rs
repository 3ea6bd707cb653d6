//! Epic Games (Unreal Engine) UDP handshake, as nDPI tests it: the opening packet has bit 3 of
//! its first word clear and 24 zero bytes from byte 10; the answer sets that bit.

use crate::proto::label;
use crate::{Cx, Dir, Inspector, Label, Probe, UDP};

/// nDPI's EpicGames label.
pub static LABEL: Label = label("EpicGames", "Game");

/// The Epic Games inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "epicgames",
    transports: UDP,
    ports: &[],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let Some(&w3) = d.get(3) else {
        return Probe::NotForUs;
    };
    match (cx.hints.dir, cx.hints.nth) {
        (Dir::ToServer, 0) => {
            let zeros = d.get(10..34).is_some_and(|z| z.iter().all(|&b| b == 0));
            // An SNTP request (48 bytes, mostly zeros) passes the test: it is NTP's (whose
            // inspector names it off port 123 by the server's echo of its timestamp).
            if w3 & 8 == 0 && zeros && !crate::proto::ntp::client_request(d) {
                Probe::Unsure
            } else {
                Probe::NotForUs
            }
        }
        (Dir::ToClient, 0) if w3 & 8 != 0 && d.len() > 4 => Probe::Certain(&LABEL),
        (Dir::ToServer, _) => Probe::Unsure,
        _ => Probe::NotForUs,
    }
}

#[cfg(test)]
mod tests;
