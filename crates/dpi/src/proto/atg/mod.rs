//! ATG: the serial command protocol of Veeder-Root TLS automatic tank gauges, reachable over
//! TCP (usually port 10001) through their serial-to-Ethernet interfaces (the command format of
//! Veeder-Root's serial interface manual for the TLS-300/350 consoles). A command is
//! `SOH` (0x01), a function code of a letter (`I` inquiry or `S` set, upper case for display format,
//! lower case for computer format) and three characters, a two-digit tank or sensor number and
//! optional data, ended by the line or by `ETX` (0x03); an answer opens with `SOH` (0x01), echoes the
//! function code (after a line end in display format) and ends with `ETX` (0x03).
//!
//! Checked: `SOH` (0x01), the function letter, three alphanumeric characters and two digits, then the
//! end of the segment, CR, LF or `ETX` (0x03) (a command), or a whole answer of that opening ending
//! in `ETX` (0x03). The opening is short and generic, so the flow must use port 10001
//! (`ports_required`).

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's ATG label.
pub static LABEL: Label = label("ATG", "IoT-Scada");

/// The ATG inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "atg",
    transports: TCP,
    ports: &[10001],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: true,
    probe,
};

const SOH: u8 = 0x01;
const ETX: u8 = 0x03;

/// Length of a function code and tank number at the start of `d`, if there is one.
fn function(d: &[u8]) -> Option<usize> {
    let (&letter, code, tank) = (d.first()?, d.get(1..4)?, d.get(4..6)?);
    let ok = b"IiSs".contains(&letter)
        && code.iter().all(u8::is_ascii_alphanumeric)
        && tank.iter().all(u8::is_ascii_digit);
    ok.then_some(6)
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    if !cx.hints.port(10001) || d.first() != Some(&SOH) {
        return Probe::NotForUs;
    }
    let ok = match cx.hints.dir {
        crate::Dir::ToServer => function(&d[1..]).is_some_and(|n| {
            matches!(d.get(1 + n), None | Some(b'\r' | b'\n' | 0x03 | b'0'..=b'9')) && d.len() <= 64
        }),
        crate::Dir::ToClient => {
            let rest = &d[1..];
            let body = rest.strip_prefix(b"\r\n").or(rest.strip_prefix(b"\n")).unwrap_or(rest);
            function(body).is_some() && d.last() == Some(&ETX)
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
