//! Zoom's own media transport over UDP to its servers' ports 8801-8810 (Zoom's firewall
//! guide): every datagram starts with an 8-byte "SFU" header whose first byte is its type.
//! Types 1 and 2 open a session (the client's first datagram starts `01 00 03` or `01 00 02`,
//! the server's `02 00 03` or `02 00 02`): nDPI names the flow `Zoom` and looks at the next
//! four datagrams for type 5, media (RTP/RTCP behind a 15-byte media header whose first byte
//! is the media type: 13/30 screen sharing, 15 audio, 16 video, 33-35 RTCP), which makes it
//! `SRTP.Zoom` (Zoom encrypts its media). Types 3 and 4 alone are too weak; a type 5 datagram
//! first names the flow `SRTP.Zoom` at once. The header layout follows the public analyses
//! of Zoom's traffic (Princeton-Cabernet zoom-analysis, Citizen Lab 2020).
//!
//! Facts (nDPI's `zoom.pcap.out`): four flows to 8801 named `SRTP.Zoom` on their fifth
//! datagram, category Video; no corpus capture has Zoom's SFU transport.

use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's Zoom label (the session, before media shows).
pub static LABEL: Label = Label {
    app: "Zoom",
    master: "Zoom",
    category: "Video",
};

/// nDPI's label for Zoom's media: encrypted RTP.
pub static SRTP: Label = Label {
    app: "Zoom",
    master: "SRTP",
    category: "Video",
};

/// Zoom's server ports for its UDP media.
const PORTS: [u16; 10] = [8801, 8802, 8803, 8804, 8805, 8806, 8807, 8808, 8809, 8810];

/// The Zoom inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "zoom",
    transports: UDP,
    ports: &PORTS,
    labels: &[&LABEL, &SRTP],
    min_udp: 9,
    ports_required: true,
    probe,
};

/// Length of the SFU header.
const SFU: usize = 8;
/// Length of the media header after it.
const MEDIA: usize = 15;
/// Datagrams after the session's opening in which media is looked for (as nDPI).
const LOOK: u8 = 4;

/// Does `d` open a Zoom session (SFU types 1 and 2)?
pub fn is_open(d: &[u8]) -> bool {
    d.len() > SFU && matches!(d.get(..3), Some([1 | 2, 0, 2 | 3]))
}

/// Is `d` Zoom media (SFU type 5) whose media header fits its type?
pub fn is_media(d: &[u8]) -> bool {
    if d.first() != Some(&5) || d.len() <= SFU + MEDIA {
        return false;
    }
    let need = match d.get(SFU) {
        Some(13 | 30 | 15) => 27,
        Some(16) => 32,
        Some(33..=35) => 36,
        _ => 0,
    };
    d.len() >= need
}

/// Per-flow state.
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
struct State {
    /// Datagrams seen since an opening claimed the flow (0: none yet), capped at 255.
    since_open: u8,
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    if !PORTS.iter().any(|&p| cx.hints.port(p)) {
        return Probe::NotForUs;
    }
    if is_media(d) {
        return Probe::Certain(&SRTP);
    }
    let st = cx.state::<State>();
    if st.since_open != 0 {
        // Chosen on an opening: media may follow within a few datagrams.
        st.since_open = st.since_open.saturating_add(1);
        if st.since_open <= LOOK {
            cx.want_more();
        }
        return Probe::Certain(&LABEL);
    }
    if is_open(d) {
        cx.state::<State>().since_open = 1;
        cx.want_more();
        return Probe::Certain(&LABEL);
    }
    // SFU types 3 and 4: wait for another kind of datagram, early in the flow only.
    if matches!(d.first(), Some(3 | 4)) && cx.hints.nth < 2 {
        return Probe::Unsure;
    }
    Probe::NotForUs
}

#[cfg(test)]
mod tests;
