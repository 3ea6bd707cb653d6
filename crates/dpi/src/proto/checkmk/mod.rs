//! Checkmk agent (nDPI's CHECKMK), TCP 6556: the monitoring server connects and the agent
//! writes its whole report in plain text, without a request. The report is a series of
//! sections, each opened by a header line `<<<name>>>` (optionally `<<<name:options>>>`), and
//! the first is always the agent's own section `<<<check_mk>>>` with `Version:`, `AgentOS:`,
//! `Hostname:` lines (Checkmk documentation "The Checkmk agent", and `section_checkmk` in
//! `agents/check_mk_agent.linux` of the Checkmk sources, which prints it).
//!
//! Checked: the header line `<<<check_mk>>>` then a newline at the start of the segment, and,
//! when the segment holds more, the next line starting `Version: ` as the agents print it.
//! Encrypted agent output (a two-digit scheme prefix and ciphertext) and the TLS of registered
//! agents from Checkmk 2.1 on are not recognised.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's CHECKMK label.
pub static LABEL: Label = label("CHECKMK", "DataTransfer");

/// The Checkmk agent inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "checkmk",
    transports: TCP,
    ports: &[6556],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

const HEADER: &[u8] = b"<<<check_mk>>>\n";
const VERSION: &[u8] = b"Version: ";

fn probe(cx: &mut Cx<'_>) -> Probe {
    let Some(rest) = cx.data.strip_prefix(HEADER) else {
        return Probe::NotForUs;
    };
    let n = rest.len().min(VERSION.len());
    if rest.get(..n) == VERSION.get(..n) {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
