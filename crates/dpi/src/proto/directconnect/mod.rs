//! Direct Connect (nDPI's DirectConnect): the two hub protocols, NMDC and ADC, as a connection
//! opens.
//!
//! * NMDC (the "NMDC protocol" documentation, nmdc.sourceforge.io, commands `$Lock` and
//!   `$MyNick`): commands are `$Name params|`. A hub greets a client with
//!   `$Lock <lock> Pk=<pk>|`; a client connecting to another opens with `$MyNick <nick>|`
//!   followed by its own `$Lock`. Checked: the command name, a `Pk=` inside the first command,
//!   the `|` that ends it, printable text and no space inside the nick. A `$MyNick` alone in
//!   its segment (ncdc sends the `$Lock` in the next) asks for the stream's next bytes.
//! * ADC (ADC 1.0.3 specification, adc.sourceforge.io, sections 3 "Message syntax" and 5.3.1
//!   "SUP"): lines `<type><CMD> params\n`; every session opens with SUP from the client
//!   (`HSUP` to a hub, `CSUP` to a client) answered by the hub's `ISUP` or the client's
//!   `CSUP`. Checked: the SUP command, every parameter `AD`/`RM` and a four-character feature
//!   name of upper-case letters or digits, `ADBASE` (mandatory) among them, the line's `\n`.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's DirectConnect label.
pub static LABEL: Label = label("DirectConnect", "Download");

/// The Direct Connect inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "directconnect",
    transports: TCP,
    ports: &[411, 412, 1511],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

/// A greeting or SUP line longer than this is not one.
const MAX_LINE: usize = 1024;

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    // Every NMDC command opens with `$`, every SUP line with a type letter and `SUP`: other
    // payloads are not scanned for a command's end (up to 1,024 bytes, twice; ~6,600
    // instructions a payload of the corpus mix).
    let (dollar, sup) = (d.first() == Some(&b'$'), d.get(1..4) == Some(b"SUP"));
    if !dollar && !sup {
        return Probe::NotForUs;
    }
    if nmdc(d) || adc(d) {
        Probe::Certain(&LABEL)
    } else if mynick_alone(d) {
        // ncdc sends `$MyNick` and `$Lock` in separate segments: read on with the stream.
        cx.incomplete();
        Probe::Unsure
    } else {
        Probe::NotForUs
    }
}

/// `$MyNick <nick>|` with the `$Lock` that must follow not (wholly) there yet.
fn mynick_alone(d: &[u8]) -> bool {
    let Some(nick) = command(d).and_then(|c| c.strip_prefix(b"$MyNick ")) else {
        return false;
    };
    let rest = d.get(nick.len() + 9..).unwrap_or_default();
    nick_ok(nick) && rest.len() < MAX_LINE && !rest.contains(&b'|')
}

fn nick_ok(nick: &[u8]) -> bool {
    !nick.is_empty() && !nick.contains(&b' ')
}

/// The first `|`-terminated command of `d`, without the `|`.
fn command(d: &[u8]) -> Option<&[u8]> {
    let end = d.iter().take(MAX_LINE).position(|&b| b == b'|')?;
    let c = d.get(..end)?;
    c.iter().all(|&b| b >= 0x20 && b != 0x7f).then_some(c)
}

/// `$Lock <lock> Pk=<pk>` (the lock's bytes are arbitrary printable text).
fn is_lock(c: &[u8]) -> bool {
    let Some(rest) = c.strip_prefix(b"$Lock ") else {
        return false;
    };
    let Some(pk) = crate::util::find(rest, b" Pk=") else {
        return false;
    };
    pk > 0 && rest.len() > pk + 4
}

fn nmdc(d: &[u8]) -> bool {
    let Some(first) = command(d) else {
        return false;
    };
    if is_lock(first) {
        return true;
    }
    // $MyNick <nick>|$Lock ...|
    let Some(nick) = first.strip_prefix(b"$MyNick ") else {
        return false;
    };
    nick_ok(nick)
        && d.get(first.len() + 1..)
            .and_then(command)
            .is_some_and(is_lock)
}

fn adc(d: &[u8]) -> bool {
    let Some(end) = d.iter().take(MAX_LINE).position(|&b| b == b'\n') else {
        return false;
    };
    let Some(line) = d.get(..end) else {
        return false;
    };
    let Some(params) = [&b"HSUP "[..], b"ISUP ", b"CSUP "]
        .iter()
        .find_map(|p| line.strip_prefix(*p))
    else {
        return false;
    };
    let mut base = false;
    for p in params.split(|&b| b == b' ').take(64) {
        let (Some(op), Some(feature), 6) = (p.get(..2), p.get(2..), p.len()) else {
            return false;
        };
        if !(op == b"AD" || op == b"RM")
            || !feature
                .iter()
                .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
        {
            return false;
        }
        base |= p == b"ADBASE";
    }
    base
}

#[cfg(test)]
mod tests;
