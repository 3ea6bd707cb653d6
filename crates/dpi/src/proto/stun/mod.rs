//! STUN (RFC 5389 and the classic RFC 3489): a 20-byte header whose length matches the message.
//! Over UDP the flow is followed while the budget lasts: DTLS after STUN makes it DTLS, and
//! RTP after the STUN of a WhatsApp call makes it SRTP (nDPI's rule: media of a known calling
//! application is encrypted RTP).

use crate::proto::label;
use crate::util::Rd;
use crate::{Cx, Inspector, Label, Probe, TCP, UDP};

/// nDPI's STUN label.
pub static LABEL: Label = label("STUN", "Network");

/// nDPI's label for the STUN of a WhatsApp call (`STUN.WhatsAppCall`); its media then makes
/// the flow `SRTP.WhatsAppCall` ([`crate::proto::rtp::SRTP_WHATSAPP`]).
pub static WHATSAPP: Label = Label {
    app: "WhatsAppCall",
    master: "STUN",
    category: "VoIP",
};

const fn app(master: &'static str, app: &'static str, category: &'static str) -> Label {
    Label {
        app,
        master,
        category,
    }
}

/// The calling applications a STUN message names by its attributes ([`app_of`]), in
/// [`State::app`]'s order (index + 1), over STUN and over the DTLS that follows it.
static APPS: [(&Label, &Label); 7] = [
    (
        &app("STUN", "Skype_TeamsCall", "VoIP"),
        &app("DTLS", "Skype_TeamsCall", "VoIP"),
    ),
    (
        &app("STUN", "GoogleCall", "VoIP"),
        &app("DTLS", "GoogleCall", "VoIP"),
    ),
    (&app("STUN", "Zoom", "Video"), &app("DTLS", "Zoom", "Video")),
    (
        &app("STUN", "SignalVoip", "VoIP"),
        &app("DTLS", "SignalVoip", "VoIP"),
    ),
    (
        &app("STUN", "FacebookVoip", "VoIP"),
        &app("DTLS", "FacebookVoip", "VoIP"),
    ),
    (
        &app("STUN", "TelegramVoip", "VoIP"),
        &app("DTLS", "TelegramVoip", "VoIP"),
    ),
    (
        &app("STUN", "ViberVoip", "VoIP"),
        &app("DTLS", "ViberVoip", "VoIP"),
    ),
];
const TEAMS: u8 = 1;
const GOOGLE: u8 = 2;
const ZOOM: u8 = 3;
const SIGNAL: u8 = 4;
const FACEBOOK: u8 = 5;
const TELEGRAM: u8 = 6;
const VIBER: u8 = 7;

/// The STUN inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "stun",
    transports: UDP | TCP,
    ports: &[3478, 3479, 5349, 19302],
    labels: &[
        &LABEL,
        &crate::proto::dtls::LABEL,
        &WHATSAPP,
        &crate::proto::rtp::SRTP_WHATSAPP,
        APPS[0].0,
        APPS[0].1,
        APPS[1].0,
        APPS[1].1,
        APPS[2].0,
        APPS[2].1,
        APPS[3].0,
        APPS[3].1,
        APPS[4].0,
        APPS[4].1,
        APPS[5].0,
        APPS[5].1,
        APPS[6].0,
        APPS[6].1,
    ],
    min_udp: 20,
    ports_required: false,
    probe,
};

const COOKIE: u32 = 0x2112_a442;

/// Is `d` one STUN message (or, over TCP, does one start it)?
pub fn is_stun(d: &[u8], tcp: bool) -> bool {
    let mut r = Rd::new(d);
    let (Some(typ), Some(len), Some(cookie)) = (r.u16(), r.u16(), r.u32()) else {
        return false;
    };
    if typ & 0xc000 != 0 || len % 4 != 0 {
        return false;
    }
    let total = 20 + len as usize;
    let fits = if tcp { total <= d.len() } else { total == d.len() };
    if !fits {
        return false;
    }
    if cookie == COOKIE {
        return true;
    }
    // RFC 3489: Binding and Shared Secret requests, responses and errors only.
    matches!(typ, 0x0001 | 0x0101 | 0x0111 | 0x0002 | 0x0102 | 0x0112) && len > 0
}

/// Does the STUN message `d` carry what only WhatsApp calls use: the message types
/// 0x0800-0x0802, 0x0804, 0x0805 or the attributes 0x4000-0x4004 and 0x4007 (nDPI's STUN
/// dissector, src/lib/protocols/stun.c `is_stun`)?
pub fn is_whatsapp(d: &[u8]) -> bool {
    let mut r = Rd::new(d);
    let (Some(typ), Some(_), Some(_), Some(_)) = (r.u16(), r.u16(), r.u32(), r.skip(12)) else {
        return false;
    };
    if matches!(typ, 0x0800..=0x0802 | 0x0804 | 0x0805) {
        return true;
    }
    // A message holds a few dozen attributes at most.
    for _ in 0..64 {
        let (Some(attr), Some(len)) = (r.u16(), r.u16()) else {
            return false;
        };
        if matches!(attr, 0x4000..=0x4004 | 0x4007) {
            return true;
        }
        if r.skip((usize::from(len) + 3) & !3).is_none() {
            return false;
        }
    }
    false
}

/// Is `d` one STUN datagram of a WhatsApp call: the magic cookie, a length that matches, and
/// [`is_whatsapp`]? WhatsApp's own attributes leave the length unpadded (0x006a in
/// whatsapp_login_call.pcap frame 231), which [`is_stun`] refuses.
pub fn is_whatsapp_stun(d: &[u8]) -> bool {
    let mut r = Rd::new(d);
    let (Some(typ), Some(len), Some(cookie)) = (r.u16(), r.u16(), r.u32()) else {
        return false;
    };
    typ & 0xc000 == 0 && cookie == COOKIE && 20 + usize::from(len) == d.len() && is_whatsapp(d)
}

/// The calling application the attributes of the STUN message `d` name (an index + 1 into
/// the table `APPS` of this module, 0 none; the last attribute that names one wins, as in nDPI's STUN dissector,
/// src/lib/protocols/stun.c `is_stun`, at the corpus's commit):
/// - Microsoft's extensions of STUN and TURN for Skype and Teams ([MS-TURN], [MS-ICE2]):
///   0x8006, 0x8036, 0x8054, 0x8055, 0x8070, 0x8095, and 0x0800, 0x24df, 0x3802;
/// - Google's 0xff03; Zoom's 0x0101 and 0x0103;
/// - the REALM (0x0014) of the TURN server: `google.com`, `signal.org` or
///   `whispersystems.org`, `facebook`, `telegram`, `viber` within it.
pub fn app_of(d: &[u8]) -> u8 {
    let mut r = Rd::new(d);
    if r.skip(20).is_none() {
        return 0;
    }
    let mut found = 0;
    // A message holds a few dozen attributes at most.
    for _ in 0..64 {
        let (Some(attr), Some(len)) = (r.u16(), r.u16()) else {
            break;
        };
        let value = r.take(usize::from(len).min(r.left())).unwrap_or(&[]);
        found = match attr {
            0x8006 | 0x8036 | 0x8054 | 0x8055 | 0x8070 | 0x8095 | 0x0800 | 0x24df | 0x3802 => TEAMS,
            0xff03 => GOOGLE,
            0x0101 | 0x0103 => ZOOM,
            0x0014 => {
                let has = |n: &[u8]| value.windows(n.len()).any(|w| w.eq_ignore_ascii_case(n));
                if has(b"google.com") {
                    GOOGLE
                } else if has(b"signal.org") || has(b"whispersystems.org") {
                    SIGNAL
                } else if has(b"facebook") {
                    FACEBOOK
                } else if has(b"telegram") {
                    TELEGRAM
                } else if has(b"viber") {
                    VIBER
                } else {
                    found
                }
            }
            _ => found,
        };
        // Values are padded to 4 bytes.
        if r.skip((4 - usize::from(len) % 4) % 4).is_none() {
            break;
        }
    }
    found
}

/// Per-flow state. DTLS's comes first: a STUN flow that turns to DTLS is handed to
/// [`crate::proto::dtls::handshake`], which keeps its own at the start of the area.
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
struct State {
    /// DTLS's state once the flow carries DTLS.
    dtls: crate::proto::dtls::State,
    /// A STUN message was seen (1).
    seen: u8,
    /// [`WA`].
    flags: u8,
    /// Datagrams of the flow seen since (and with) its first STUN message, capped at 255.
    since: u8,
    /// The calling application its STUN messages named ([`app_of`]), 0 none.
    app: u8,
}

/// [`State::flags`]: the flow showed a WhatsApp call's STUN.
const WA: u8 = 1;

/// nDPI looks at a STUN flow's first message and six more datagrams (its extra dissection:
/// `stun.max_packets_extra_dissection`, default 6 in src/lib/ndpi_main.c's configuration table)
/// for media: RTP later than that leaves the flow STUN (whatsapp_login_call.pcap flow 10, RTP
/// from the eighth datagram on, is `STUN.WhatsAppCall`; flow 8, RTP on the seventh, is SRTP).
const MEDIA_WITHIN: u8 = 7;

/// Is the flow with state `st` a WhatsApp call's (and not DTLS, which WhatsApp does not use and
/// whose label must stay)?
fn whatsapp(st: &State) -> bool {
    st.flags & WA != 0 && st.dtls.flags == 0
}

/// The label of a STUN message on a flow whose state is `st`.
fn stun_label(st: &State) -> &'static Label {
    if whatsapp(st) {
        &WHATSAPP
    } else {
        APPS.get(usize::from(st.app).wrapping_sub(1))
            .map_or(&LABEL, |a| a.0)
    }
}


fn probe(cx: &mut Cx<'_>) -> Probe {
    let tcp = cx.hints.transport == TCP;
    // Over TCP a message may be framed by a two-byte length (RFC 4571, TURN over TCP).
    let framed = tcp
        && cx.data.get(..2).is_some_and(|l| {
            usize::from(u16::from_be_bytes([l[0], l[1]])) + 2 <= cx.data.len()
        })
        && is_stun(cx.data.get(2..).unwrap_or(&[]), true);
    if cx.state::<State>().seen != 0 {
        let st = cx.state::<State>();
        st.since = st.since.saturating_add(1);
        // After STUN, WebRTC media sets up DTLS on the same 5-tuple: nDPI names the flow
        // DTLS then.
        if !tcp && crate::proto::dtls::is_dtls(cx.data) {
            // Its server certificate too, while the budget lasts; the application its STUN
            // named stays (DTLS.GoogleCall).
            let app = cx.state::<State>().app;
            let p = crate::proto::dtls::handshake_after_stun(cx);
            return match (p, APPS.get(usize::from(app).wrapping_sub(1))) {
                (Probe::Certain(l), Some(a)) if std::ptr::eq(l, &crate::proto::dtls::LABEL) => {
                    Probe::Certain(a.1)
                }
                (p, _) => p,
            };
        }
        if !tcp && is_whatsapp_stun(cx.data) {
            cx.state::<State>().flags |= WA;
        }
        let named = if is_stun(cx.data, tcp) { app_of(cx.data) } else { 0 };
        if named != 0 {
            cx.state::<State>().app = named;
        }
        // RTP after a WhatsApp call's STUN is its encrypted media: nDPI's SRTP.WhatsAppCall.
        // (Without an application nDPI keeps STUN as the master: STUN/RTP.)
        if !tcp
            && cx.state::<State>().since <= MEDIA_WITHIN
            && whatsapp(cx.state::<State>())
            && crate::proto::rtp::is_rtp(cx.data)
        {
            return Probe::Certain(&crate::proto::rtp::SRTP_WHATSAPP);
        }
        cx.want_more();
        return Probe::Certain(stun_label(cx.state::<State>()));
    }
    let whatsapp = !tcp && is_whatsapp_stun(cx.data);
    if framed || whatsapp || is_stun(cx.data, tcp) {
        let named = if framed { 0 } else { app_of(cx.data) };
        let st = cx.state::<State>();
        st.seen = 1;
        st.since = 1;
        if named != 0 {
            st.app = named;
        }
        if !tcp {
            if whatsapp {
                st.flags |= WA;
            }
            cx.want_more();
        }
        Probe::Certain(stun_label(cx.state::<State>()))
    } else if cx.data.len() < 20 && cx.hints.transport == TCP {
        Probe::Unsure
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
