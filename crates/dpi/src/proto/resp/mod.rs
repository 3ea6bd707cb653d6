//! Redis serialization protocol (RESP): a client command is an array (`*N\r\n`) of bulk
//! strings (`$len\r\n...\r\n`) whose first element has exactly its announced length.

use crate::proto::label;
use crate::{Cx, Dir, Inspector, Label, Probe, TCP};

/// nDPI's RESP label.
pub static LABEL: Label = label("RESP", "Database");

/// The RESP inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "resp",
    transports: TCP,
    ports: &[6379],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

/// A decimal number ending in CRLF at `d[at..]`: (value, bytes used).
fn number(d: &[u8], at: usize) -> Option<(usize, usize)> {
    let digits = d.get(at..)?.iter().take(8).take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 || d.get(at + digits..at + digits + 2)? != b"\r\n" {
        return None;
    }
    let v = d.get(at..at + digits)?.iter().fold(0usize, |a, &b| a * 10 + usize::from(b - b'0'));
    Some((v, digits + 2))
}

fn is_command(d: &[u8]) -> Option<bool> {
    if *d.first()? != b'*' {
        return Some(false);
    }
    let (n, used) = number(d, 1)?;
    let at = 1 + used;
    if n == 0 || n > 1024 || *d.get(at)? != b'$' {
        return Some(false);
    }
    let (len, used2) = number(d, at + 1)?;
    let cmd_at = at + 1 + used2;
    let cmd = d.get(cmd_at..cmd_at + len)?;
    Some(
        (1..=32).contains(&len)
            && cmd.iter().all(|b| b.is_ascii_alphabetic() || *b == b'.' || *b == b'_')
            && d.get(cmd_at + len..cmd_at + len + 2)? == b"\r\n",
    )
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    if cx.hints.dir == Dir::ToServer && is_command(cx.data) == Some(true) {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
