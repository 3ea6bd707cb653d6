//! VMware's authentication daemon (`vmware-authd`, nDPI's VMware), TCP 902 (ESXi, Workstation)
//! and 912: the server greets every connection with an FTP-style line `220 VMware
//! Authentication Daemon Version <version>` and a comma-separated list of capabilities, CRLF
//! ended (documented banner: nmap's `nmap-service-probes` entry `vmware-auth`, Metasploit's
//! `vmauthd_login` scanner, and the client in VMware's own `vmauthd` Python examples, which all
//! expect this prefix; the client then sends `USER`/`PASS`).
//!
//! Checked: the greeting literal, a version of digits and dots, and a single printable line
//! ending in CRLF. nDPI's own VMware test is on UDP 902 and not documented; it is not done here.

use crate::proto::label;
use crate::{Cx, Dir, Inspector, Label, Probe, TCP};

/// nDPI's VMware label.
pub static LABEL: Label = label("VMware", "RemoteAccess");

/// The VMware authentication daemon inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "vmware",
    transports: TCP,
    ports: &[902, 903, 912],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

const GREETING: &[u8] = b"220 VMware Authentication Daemon Version ";

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    if cx.hints.dir != Dir::ToClient || d.len() > 512 {
        return Probe::NotForUs;
    }
    let Some(rest) = d.strip_prefix(GREETING) else {
        return Probe::NotForUs;
    };
    let Some(line) = rest.strip_suffix(b"\r\n") else {
        return Probe::NotForUs;
    };
    let version = line.iter().take_while(|c| c.is_ascii_digit() || **c == b'.').count();
    let printable = line.iter().all(|&c| c == b' ' || c.is_ascii_graphic());
    if version > 0 && line.first().is_some_and(u8::is_ascii_digit) && printable {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
