//! GTP over UDP, named by plane as nDPI names it (master `GTP`, apps `GTP_U`, `GTP_C` and
//! `GTP_PRIME`).
//!
//! What is checked: GTPv1 (version 1, protocol type 1) with a length equal to the datagram less
//! its 8-byte mandatory header (and covering the 4 optional bytes when a flag says they are
//! there), and GTPv2-C (version 2) with a length equal to the datagram
//! less 4; both with a known message type. GTP' (3GPP TS 32.295, charging records, UDP 3386):
//! protocol type 0, the spare bits set, a 6-byte header (20 in version 0) and a length that ends
//! the datagram, with an echo, node-alive, redirection or data-record-transfer message.
//!
//! Which plane, as the specifications split the message types:
//! * GTPv2 (3GPP TS 29.274) is control plane only: `GTP_C`.
//! * GTPv1-U (TS 29.281 §6.1, table 6.1-1) has its own messages: G-PDU (255), End Marker (254)
//!   and Error Indication (26): `GTP_U`. Echo Request/Response (1, 2) and Supported Extension
//!   Headers Notification (31) exist on both planes (TS 29.060 §7.1 table 1 marks them for
//!   GTP-C and GTP-U), so the registered port decides: 2152 (IANA gtp-user) on either side gives
//!   `GTP_U`, anything else `GTP_C` (2123, IANA gtp-control). Every other GTPv1 message type is
//!   a control message of TS 29.060: `GTP_C`.
//! * GTP' (TS 32.295): `GTP_PRIME`.

use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's label for the GTP user plane (GTPv1-U, TS 29.281).
pub static GTP_U: Label = Label {
    app: "GTP_U",
    master: "GTP",
    category: "Network",
};

/// nDPI's label for the GTP control plane (GTPv1-C, TS 29.060; GTPv2-C, TS 29.274).
pub static GTP_C: Label = Label {
    app: "GTP_C",
    master: "GTP",
    category: "Network",
};

/// nDPI's label for GTP' (GTP prime, TS 32.295).
pub static PRIME: Label = Label {
    app: "GTP_PRIME",
    master: "GTP",
    category: "Network",
};

/// The GTP inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "gtp",
    transports: UDP,
    ports: &[2123, 2152, 3386],
    labels: &[&GTP_U, &GTP_C, &PRIME],
    min_udp: 0,
    ports_required: false,
    probe,
};

/// The registered GTP-U port (IANA gtp-user).
const GTPU_PORT: u16 = 2152;

/// The GTPv1 message types of TS 29.060 §7.1 table 1 (GTP-C, with the echo, error indication
/// and supported-extension-headers messages GTP-U shares) and TS 29.281's End Marker and G-PDU.
fn v1_message(ty: u8) -> bool {
    matches!(
        ty,
        1..=7 | 16..=37 | 48..=62 | 70 | 96..=105 | 112..=121 | 128 | 129 | 254 | 255
    )
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let (Some(&flags), Some(&ty), Some(l)) = (d.first(), d.get(1), d.get(2..4)) else {
        return Probe::NotForUs;
    };
    let len = usize::from(u16::from_be_bytes([l[0], l[1]]));
    // GTP': protocol type bit clear, the three spare bits set.
    if flags & 0x1e == 0x0e && flags >> 5 <= 2 {
        let header = if flags & 0x01 == 0 && flags >> 5 == 0 { 20 } else { 6 };
        let ok = matches!(ty, 1..=7 | 240 | 241) && len + header == d.len();
        return Probe::certain_if(ok, &PRIME);
    }
    match flags >> 5 {
        // With any of E, S and PN set the 4 bytes of sequence number, N-PDU number and next
        // extension type follow the mandatory header and count in the length (TS 29.281 §5.1,
        // TS 29.060 §6).
        1 if flags & 0x10 != 0
            && v1_message(ty)
            && len + 8 == d.len()
            && (flags & 0x07 == 0 || len >= 4) =>
        {
            let user = match ty {
                26 | 254 | 255 => true,
                1 | 2 | 31 => cx.hints.port(GTPU_PORT),
                _ => false,
            };
            Probe::Certain(if user { &GTP_U } else { &GTP_C })
        }
        2 if flags & 0x07 == 0
            && matches!(ty, 1..=3 | 32..=39 | 64..=73 | 95..=101 | 128..=130 | 160..=179 | 200..=203 | 211 | 231..=240)
            && len + 4 == d.len() =>
        {
            Probe::Certain(&GTP_C)
        }
        _ => Probe::NotForUs,
    }
}

#[cfg(test)]
mod tests;
