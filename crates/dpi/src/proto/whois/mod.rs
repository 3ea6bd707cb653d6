//! WHOIS (RFC 3912) and the Domain Availability Service of some registries (nDPI's Whois-DAS).
//! WHOIS: the client connects to TCP 43 and sends one query line ended by CRLF; the server
//! answers with text and closes (RFC 3912 §2). DAS services on TCP 4343 work the same way with
//! a registry's own one-line query (Joker's "Check Domain Availability": `domain:<name>`, CRLF
//! ended; DNS Belgium's DAS: `get 1.0 <name>`).
//!
//! Checked: the client's first segment is exactly one line of printable text (UTF-8 bytes
//! allowed), 1 to 255 bytes before the CRLF, not starting with a space. A bare text line is not
//! distinctive, so the protocol is only ever claimed on its ports (`ports_required`), and only
//! as the server's port.

use crate::proto::label;
use crate::{Cx, Dir, Inspector, Label, Probe, TCP};

/// nDPI's Whois-DAS label.
pub static LABEL: Label = label("Whois-DAS", "Network");

/// The WHOIS / DAS inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "whois",
    transports: TCP,
    ports: &[43, 4343],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: true,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let h = cx.hints;
    if h.dir != Dir::ToServer || h.nth != 0 {
        return Probe::NotForUs;
    }
    let Some(line) = cx.data.strip_suffix(b"\r\n") else {
        return Probe::NotForUs;
    };
    let text = line.iter().all(|&c| c == b' ' || c.is_ascii_graphic() || c >= 0x80);
    if line.is_empty() || line.len() > 255 || !text || line.starts_with(b" ") {
        return Probe::NotForUs;
    }
    if h.server_port == 43 || h.server_port == 4343 {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
