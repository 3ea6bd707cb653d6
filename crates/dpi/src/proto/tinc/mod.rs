//! tinc VPN: each side opens with its ID line, `0 <name> <major>[.<minor>]\n` (request 0,
//! a node name of letters, digits and underscores, protocol 17 for tinc 1.0/1.1).

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's TINC label.
pub static LABEL: Label = label("TINC", "VPN");

/// The tinc inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "tinc",
    transports: TCP,
    ports: &[655],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let Some(line) = d.strip_prefix(b"0 ").and_then(|l| l.strip_suffix(b"\n")) else {
        return Probe::NotForUs;
    };
    let name = line
        .iter()
        .take(64)
        .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
        .count();
    let ver = line.get(name + 1..).unwrap_or(&[]);
    let ver_ok = ver.starts_with(b"17")
        && ver.iter().all(|b| b.is_ascii_digit() || *b == b'.')
        && ver.len() <= 6;
    if cx.hints.nth == 0 && name > 0 && line.get(name) == Some(&b' ') && ver_ok {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
