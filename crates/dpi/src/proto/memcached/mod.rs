//! Memcached: the binary protocol (magic 0x80 request / 0x81 response, a 24-byte header whose
//! body length covers the rest, data type 0) or text commands and replies (`get key`,
//! `set key flags exptime bytes`, `stats`, `version`; `STAT `, `VALUE `, `STORED`...).

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP, UDP};

/// nDPI's Memcached label.
pub static LABEL: Label = label("Memcached", "Network");

/// The Memcached inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "memcached",
    transports: TCP | UDP,
    ports: &[11211],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn binary(d: &[u8]) -> bool {
    let (Some(&magic), Some(&op), Some(&dt), Some(b)) = (d.first(), d.get(1), d.get(5), d.get(8..12))
    else {
        return false;
    };
    let body = u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as usize;
    matches!(magic, 0x80 | 0x81) && op <= 0x48 && dt == 0 && body.checked_add(24) == Some(d.len())
}

fn numbers(words: &[&[u8]]) -> bool {
    words.iter().all(|w| !w.is_empty() && w.iter().all(u8::is_ascii_digit))
}

fn text(d: &[u8]) -> bool {
    let Some(line) = d.split(|&b| b == b'\n').next().and_then(|l| l.strip_suffix(b"\r")) else {
        return false;
    };
    if !line.iter().all(|&b| b.is_ascii_graphic() || b == b' ') {
        return false;
    }
    let mut it = line.split(|&b| b == b' ');
    let cmd = it.next().unwrap_or(&[]);
    let mut words = [&b""[..]; 6];
    let mut n = 0;
    for x in it.take(6) {
        if let Some(s) = words.get_mut(n) {
            *s = x;
        }
        n += 1;
    }
    let args = words.get(..n).unwrap_or(&[]);
    match cmd {
        b"get" | b"gets" => n >= 1,
        b"set" | b"add" | b"replace" | b"append" | b"prepend" => {
            (n == 4 || n == 5) && numbers(args.get(1..4).unwrap_or(&[]))
        }
        b"stats" | b"version" => n <= 1,
        b"STAT" => n == 2,
        b"VALUE" => (n == 3 || n == 4) && numbers(args.get(1..3).unwrap_or(&[])),
        b"STORED" | b"NOT_STORED" | b"END" => n == 0,
        _ => false,
    }
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    // Over UDP each datagram has an 8-byte frame header (request id, sequence, count, 0).
    let m = if cx.hints.transport == UDP {
        match d.get(6..8) {
            Some(&[0, 0]) => d.get(8..).unwrap_or(&[]),
            _ => return Probe::NotForUs,
        }
    } else {
        d
    };
    if binary(m) || text(m) {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
