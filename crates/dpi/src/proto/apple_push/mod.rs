//! Apple Push Notification service: TCP 5223 (or 2197, the HTTP/2 notification port) to one of
//! Apple's address blocks. Its payload is TLS, so nothing in the bytes tells it from any other
//! TLS: nDPI names the flow by the address block and the port, and so does this inspector
//! (whatsapp_login_call.pcap: TLS application data to 17.110.229.14:5223 is `ApplePush`).
//! A packet that starts a TLS handshake, alert or change-cipher-spec record is left to the TLS
//! inspector, which nDPI runs first: anyconnect-vpn.pcap's alert from 17.57.144.116:5223 is
//! `TLS`.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};
use std::net::IpAddr;

/// nDPI's ApplePush label.
pub static LABEL: Label = label("ApplePush", "Cloud");

/// The Apple push inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "apple_push",
    transports: TCP,
    ports: &[5223, 2197],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: true,
    probe,
};

/// Apple's blocks as nDPI lists them for this protocol: 17.0.0.0/8, and the IPv6 /48s
/// 2620:149:a44::, 2403:300:a42::, 2403:300:a51:: and 2a01:b740:a42::.
pub fn is_apple(a: IpAddr) -> bool {
    match a {
        IpAddr::V4(a) => a.octets()[0] == 17,
        IpAddr::V6(a) => matches!(
            a.segments(),
            [0x2620, 0x0149, 0x0a44, ..]
                | [0x2403, 0x0300, 0x0a42, ..]
                | [0x2403, 0x0300, 0x0a51, ..]
                | [0x2a01, 0xb740, 0x0a42, ..]
        ),
    }
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let h = &cx.hints;
    let port = h.port(5223) || h.port(2197);
    let tls_control = matches!(cx.data.first(), Some(20..=22)) && cx.data.get(1) == Some(&3);
    if port && !tls_control && (is_apple(h.server_ip) || is_apple(h.client_ip)) {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
