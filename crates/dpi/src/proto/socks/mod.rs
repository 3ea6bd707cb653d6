//! SOCKS: a version 4 request (command, port, address, NUL-terminated user id) or a version 5
//! greeting (method count and methods filling the segment) answered by the server's two-byte
//! choice of one of them.
//!
//! The flow stays SOCKS (nDPI's name), but what the client then sends through the proxy is read
//! as tshark reads it: a TLS ClientHello's SNI and fingerprints, or an HTTP request's host, URL
//! and user agent (socks.pcap, shadowsocks.pcap and the tls_heur__* captures tunnel HTTP and TLS
//! through a local SOCKS proxy).

use crate::proto::label;
use crate::{Cx, Dir, Inspector, Label, Probe, STATE_BYTES, TCP};

/// nDPI's SOCKS label.
pub static LABEL: Label = label("SOCKS", "Web");

/// The SOCKS inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "socks",
    transports: TCP,
    ports: &[1080],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

/// Per-flow state. The HTTP inspector, called on an HTTP tunnel with this flow's context, keeps
/// its own state at the start of the area: `tunnel` is the last byte, after it.
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
struct State {
    /// The HTTP inspector's state while it reads a tunnelled request.
    http: [u8; STATE_BYTES - 1],
    /// [`SOCKS`] once the handshake was seen, with what the tunnel carries.
    tunnel: u8,
}

const _: () = assert!(std::mem::size_of::<crate::proto::http::State>() < STATE_BYTES);

/// [`State::tunnel`]: the handshake was seen.
const SOCKS: u8 = 0x80;
/// The client's first data after the handshake was a TLS handshake record.
const TLS: u8 = 1;
/// ... an HTTP request.
const HTTP: u8 = 2;
/// ... something else, or the tunnel has been read.
const DONE: u8 = 3;

fn probe(cx: &mut Cx<'_>) -> Probe {
    if cx.state::<State>().tunnel & SOCKS != 0 {
        return tunnel(cx);
    }
    let r = handshake(cx);
    if matches!(r, Probe::Certain(_)) {
        cx.state::<State>().tunnel = SOCKS;
        cx.want_more();
    }
    r
}

/// Later packets of a SOCKS flow: the proxy's replies, the client's requests, then the tunnel.
fn tunnel(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let to_server = cx.hints.dir == Dir::ToServer;
    let what = cx.state::<State>().tunnel & !SOCKS;
    let what = match what {
        0 if to_server && d.first() == Some(&0x16) && d.get(1) == Some(&3) => TLS,
        0 if to_server && crate::proto::http::is_request(d) => HTTP,
        // A SOCKS 5 request or a user/password sub-negotiation (both start with a version
        // byte, 5 or 1); the proxy's replies.
        0 if !to_server || matches!(d.first(), Some(1 | 5)) => {
            cx.want_more();
            return Probe::Certain(&LABEL);
        }
        0 => DONE,
        w => w,
    };
    cx.state::<State>().tunnel = SOCKS | what;
    match what {
        TLS if to_server => {
            // A cut hello: the reassembled stream is shown again with the next segment.
            let hello = crate::proto::tls::hello_in_record(d, cx.meta, cx.digests);
            if hello == Some(false) {
                cx.incomplete();
                cx.want_more();
            } else {
                crate::proto::tls::tls_event(cx, hello.is_some());
                cx.state::<State>().tunnel = SOCKS | DONE;
            }
        }
        TLS => cx.want_more(),
        HTTP => {
            // The HTTP inspector reads the request and the status line into the metadata; its
            // verdict is not the flow's.
            let http = (crate::proto::http::INSPECTOR.probe)(cx);
            if http == Probe::NotForUs {
                cx.state::<State>().tunnel = SOCKS | DONE;
            }
        }
        _ => {}
    }
    Probe::Certain(&LABEL)
}

fn handshake(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    match (cx.hints.dir, cx.hints.nth, d.first()) {
        (Dir::ToServer, 0, Some(5)) => {
            let n = d.get(1).map_or(0, |&n| usize::from(n));
            let methods = d.get(2..);
            let ok = (1..=9).contains(&n)
                && d.len() == 2 + n
                && methods.is_some_and(|m| m.iter().all(|&x| x <= 9 || x >= 0x80));
            if ok {
                Probe::Unsure
            } else {
                Probe::NotForUs
            }
        }
        (Dir::ToServer, 0, Some(4)) => {
            let user = d.get(8..d.len().saturating_sub(1)).unwrap_or(&[]);
            let ok = matches!(d.get(1), Some(1 | 2))
                && d.len() >= 9
                && d.len() <= 300
                && d.last() == Some(&0)
                && user.iter().all(|&b| b == 0 || b.is_ascii_graphic());
            if ok {
                Probe::Certain(&LABEL)
            } else {
                Probe::NotForUs
            }
        }
        (Dir::ToClient, 0, Some(5)) if d.len() == 2 => match d.get(1) {
            Some(0..=9 | 0xff) => Probe::Certain(&LABEL),
            _ => Probe::NotForUs,
        },
        _ => Probe::NotForUs,
    }
}

#[cfg(test)]
mod tests;
