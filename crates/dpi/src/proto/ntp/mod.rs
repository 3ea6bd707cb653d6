//! NTP (RFC 5905) on port 123: a 48-byte header (with optional MAC) of version 1-4 and a
//! client, server, symmetric or broadcast mode; control (mode 6) and private (mode 7) messages.
//! On port 123 the header must fit; the structure alone is too weak a test elsewhere. Off it, an
//! exchange: a client request, then a server answer whose origin timestamp is the request's
//! transmit timestamp (RFC 5905 §8: the server copies it; 64 bits no other protocol repeats).

use crate::proto::label;
use crate::{Cx, Dir, Inspector, Label, Probe, UDP};

/// nDPI's NTP label.
pub static LABEL: Label = label("NTP", "System");

/// The NTP inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "ntp",
    transports: UDP,
    ports: &[123],
    labels: &[&LABEL],
    min_udp: 8,
    ports_required: false,
    probe,
};

/// Off port 123: the client request's transmit timestamp, until the answer shows.
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
struct State {
    transmit: [u8; 8],
}

/// A header of `mode` (1-5: symmetric, client, server, broadcast) of version 1-4, stratum
/// 0-16, of a length an NTP header with or without a MAC has.
fn header(d: &[u8], mode: u8) -> bool {
    let Some(&b0) = d.first() else {
        return false;
    };
    (1..=4).contains(&((b0 >> 3) & 7))
        && b0 & 7 == mode
        && matches!(d.len(), 48 | 52 | 60 | 68 | 72)
        && d.get(1).is_some_and(|&s| s <= 16)
}

/// An NTP client request (mode 3) with a transmit timestamp: what other inspectors whose test
/// an SNTP request happens to pass (EpicGames': 24 zero bytes from byte 10) leave to NTP.
pub(crate) fn client_request(d: &[u8]) -> bool {
    header(d, 3) && d.get(40..48).is_some_and(|t| t.iter().any(|&b| b != 0))
}

/// Off port 123: Unsure at a client request (keeping its transmit timestamp), NTP at a server
/// answer that echoes it.
fn exchange(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    match (cx.hints.dir, cx.hints.nth) {
        (Dir::ToServer, 0) if client_request(d) => {
            if let Some(t) = d.get(40..48) {
                cx.state::<State>().transmit.copy_from_slice(t);
            }
            Probe::Unsure
        }
        (Dir::ToClient, 0) => {
            let sent = cx.state::<State>().transmit;
            let echoed = d.get(24..32).is_some_and(|o| o == sent);
            if sent != [0; 8] && header(d, 4) && echoed {
                Probe::Certain(&LABEL)
            } else {
                Probe::NotForUs
            }
        }
        _ => Probe::NotForUs,
    }
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let Some(&b0) = d.first() else {
        return Probe::NotForUs;
    };
    if !cx.hints.port(123) {
        return exchange(cx);
    }
    let (ver, mode) = ((b0 >> 3) & 7, b0 & 7);
    let ok = (1..=4).contains(&ver)
        && match mode {
            // RFC 5905 §7.3: stratum 0-16 (17-255 reserved). Without it any 48-byte datagram
            // on udp/123 with two bits of its first byte right was NTP (with the corpus's
            // ports moved to 123: 36 DNS, 34 Gnutella, RX and SSDP flows).
            1..=5 => header(d, mode),
            // Control messages (mode 6, RFC 9327 §2): an opcode ntpd knows (1-12, 31), the
            // data count's bytes after the 12-byte header padded to 32 bits, then nothing or a
            // MAC (a key id and an MD5 or SHA-1 digest). Not the leap indicator: ntpsec's ntpq
            // sends 3 there.
            6 => {
                let (Some(&op), Some(c)) = (d.get(1), d.get(10..12)) else {
                    return Probe::NotForUs;
                };
                let body = 12 + usize::from(u16::from_be_bytes([c[0], c[1]])).next_multiple_of(4);
                matches!(op & 0x1f, 1..=12 | 31)
                    && [body, body + 20, body + 24].contains(&d.len())
            }
            // ntpd's private messages (mode 7): implementation 0, 2 or 3 (universal, the two
            // xntpd ones), the 4 bits before the item size zero, the items within the datagram.
            7 => {
                let (Some(&imp), Some(n), Some(z)) = (d.get(2), d.get(4..6), d.get(6..8)) else {
                    return Probe::NotForUs;
                };
                let items = usize::from(u16::from_be_bytes([n[0], n[1]]) & 0x0fff);
                let size = usize::from(u16::from_be_bytes([z[0], z[1]]) & 0x0fff);
                d.len() <= 1024 && matches!(imp, 0 | 2 | 3) && z[0] >> 4 == 0 && 8 + items * size <= d.len()
            }
            _ => false,
        };
    if ok {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
