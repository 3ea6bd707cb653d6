//! Syslog (RFC 3164 and RFC 5424) over UDP or TCP: a `<PRI>` of at most three digits (0-191)
//! followed by a version digit and space (5424) or a timestamp or host text (3164); over TCP
//! a message may be preceded by its length (octet counting, RFC 6587).

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP, UDP};

/// nDPI's Syslog label.
pub static LABEL: Label = label("Syslog", "System");

/// The Syslog inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "syslog",
    transports: UDP | TCP,
    ports: &[514, 601, 6514],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn is_syslog(d: &[u8]) -> bool {
    let Some(rest) = d.strip_prefix(b"<") else {
        return false;
    };
    let digits = rest.iter().take(4).take_while(|b| b.is_ascii_digit()).count();
    if !(1..=3).contains(&digits) || rest.get(digits) != Some(&b'>') {
        return false;
    }
    let pri: u32 = rest
        .iter()
        .take(digits)
        .fold(0, |a, &b| a * 10 + u32::from(b - b'0'));
    let msg = rest.get(digits + 1..).unwrap_or(&[]);
    let text = msg.iter().take(16).all(|&b| b.is_ascii_graphic() || b == b' ');
    pri <= 191 && msg.len() >= 4 && text && (digits == 1 || rest.first() != Some(&b'0'))
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let mut ok = is_syslog(d);
    if !ok && cx.hints.transport == TCP {
        // Octet counting: "LEN <PRI>...".
        let n = d.iter().take(6).take_while(|b| b.is_ascii_digit()).count();
        ok = n > 0 && d.get(n) == Some(&b' ') && is_syslog(d.get(n + 1..).unwrap_or(&[]));
    }
    if ok {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
