//! The BSD remote shell, rsh (nDPI's RSH), TCP 514 (`rshd(8)`, "shell" in IANA's registry). The
//! client opens with NUL-terminated ASCII strings: the port number of a second connection for
//! standard error (empty when none is wanted), the user name on the client, the user name on
//! the server, and the command line (`rshd(8)`, steps 2 to 7, and `rcmd(3)`). Some clients send
//! the port string in a segment of its own before the rest.
//!
//! Checked: a port of at most five digits (not above 65535) ending in NUL, then two user names
//! of portable characters (letters, digits, `.`, `_`, `-`, `$`; at most 64) and a printable
//! command line, each NUL-terminated, ending the segment. A port string alone asks for the
//! rest. Only on port 514 (`ports_required`): strings of digits and names separated by NULs are
//! not distinctive enough to claim any port.

use crate::proto::label;
use crate::{Cx, Dir, Inspector, Label, Probe, TCP};

/// nDPI's RSH label.
pub static LABEL: Label = label("RSH", "RemoteAccess");

/// The rsh inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "rsh",
    transports: TCP,
    ports: &[514],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: true,
    probe,
};

/// Longest command line accepted (the daemon's argument limit is the system's, but the first
/// segment of a real request is short).
const MAX_COMMAND: usize = 1024;

fn user(u: &[u8]) -> bool {
    (1..=64).contains(&u.len())
        && u.iter().all(|&c| c.is_ascii_alphanumeric() || b"._-$".contains(&c))
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    if cx.hints.dir != Dir::ToServer || !cx.hints.port(514) {
        return Probe::NotForUs;
    }
    let d = cx.data;
    let mut parts = d.splitn(5, |&c| c == 0);
    let port = parts.next().unwrap_or(&[]);
    if port.len() > 5 || !port.iter().all(u8::is_ascii_digit) {
        return Probe::NotForUs;
    }
    let value = port.iter().fold(0u32, |a, &c| a * 10 + u32::from(c - b'0'));
    if value > 65535 || d.get(port.len()) != Some(&0) {
        return Probe::NotForUs;
    }
    if d.len() == port.len() + 1 {
        // The port string alone: the names and the command follow.
        cx.incomplete();
        return Probe::Unsure;
    }
    let (Some(local), Some(remote), Some(cmd), Some(rest)) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Probe::NotForUs;
    };
    let cmd_ok = (1..=MAX_COMMAND).contains(&cmd.len())
        && cmd.iter().all(|&c| c == b' ' || c == b'\t' || c.is_ascii_graphic());
    if user(local) && user(remote) && cmd_ok && rest.is_empty() {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
