//! Telnet (RFC 854): option negotiation first, a segment made only of IAC commands (`IAC
//! WILL/WONT/DO/DONT option`, or a whole `IAC SB ... IAC SE` subnegotiation).

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's Telnet label.
pub static LABEL: Label = label("Telnet", "RemoteAccess");

/// The Telnet inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "telnet",
    transports: TCP,
    ports: &[23],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

const IAC: u8 = 0xff;

fn all_iac(d: &[u8]) -> bool {
    let mut at = 0;
    for _ in 0..128 {
        if at == d.len() {
            return at >= 3;
        }
        match (d.get(at), d.get(at + 1)) {
            (Some(&IAC), Some(0xfb..=0xfe)) if d.get(at + 2).is_some() => at += 3,
            (Some(&IAC), Some(0xfa)) => {
                // Subnegotiation up to IAC SE.
                let rest = d.get(at + 2..).unwrap_or(&[]);
                match crate::util::find(rest, &[IAC, 0xf0]) {
                    Some(e) if e <= 64 => at += 2 + e + 2,
                    _ => return false,
                }
            }
            _ => return false,
        }
    }
    false
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    if cx.hints.nth == 0 && all_iac(cx.data) {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
