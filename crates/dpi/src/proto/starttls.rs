//! Protocols that switch to TLS on the same connection (STARTTLS: SMTP, IMAP, POP3, FTP's
//! `AUTH TLS`, XMPP): the shared part. Once the server agreed, the TLS inspector reads the
//! handshake that follows with this flow's context (SNI, ALPN, JA3/JA4, the certificate), as
//! tshark does, while the protocol's inspector keeps naming the flow (`IMAPS`, `POPS`,
//! `SMTPS`, `FTPS` as nDPI names them).
//!
//! The state of such an inspector is [`Upgrade`]: TLS's state first (the TLS inspector keeps
//! its own at the start of the area), then where the protocol stands.

use crate::proto::tls;
use crate::{Cx, Label, Probe};

/// Per-flow state of a protocol that may switch to TLS.
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub(crate) struct Upgrade {
    /// The TLS inspector's state, once the handshake is read.
    tls: tls::State,
    /// [`OPEN`], [`ASKED`] or [`TLS`] (0: nothing seen yet).
    pub(crate) phase: u8,
    /// Lines or packets read since the flow opened, capped (the protocol's own use).
    pub(crate) seen: u8,
}

/// [`Upgrade::phase`]: the protocol was recognised; its commands are read.
pub(crate) const OPEN: u8 = 1;
/// [`Upgrade::phase`]: the client asked for TLS; the server's answer decides.
pub(crate) const ASKED: u8 = 2;
/// [`Upgrade::phase`]: the server agreed; TLS follows.
pub(crate) const TLS: u8 = 3;

/// How many of the flow's packets an inspector reads for a STARTTLS before it lets the flow go.
pub(crate) const LOOK: u8 = 12;

/// Where the flow stands.
pub(crate) fn phase(cx: &mut Cx<'_>) -> u8 {
    cx.state::<Upgrade>().phase
}

/// Set the flow's phase.
pub(crate) fn set(cx: &mut Cx<'_>, phase: u8) {
    cx.state::<Upgrade>().phase = phase;
}

/// Count one more packet read while the flow is open; false once [`LOOK`] were read.
pub(crate) fn again(cx: &mut Cx<'_>) -> bool {
    let st = cx.state::<Upgrade>();
    st.seen = st.seen.saturating_add(1);
    st.seen < LOOK
}

/// After the switch: the TLS inspector reads the handshake for its metadata, asking for the
/// packets it needs (and, for a record cut at the segment's end, the following bytes); the flow
/// keeps `label`.
pub(crate) fn handshake(cx: &mut Cx<'_>, label: &'static Label) -> Probe {
    if (tls::INSPECTOR.probe)(cx) == Probe::Unsure {
        cx.want_more();
    }
    Probe::Certain(label)
}

/// The client's line is `command` (any case), alone or, when `tagged` (IMAP), after a tag and
/// a space.
pub(crate) fn asks(line: &[u8], command: &[u8], tagged: bool) -> bool {
    let l = line.strip_suffix(b"\r\n").unwrap_or(line).trim_ascii_end();
    let Some(at) = l.len().checked_sub(command.len()) else {
        return false;
    };
    let ends = l.get(at..).is_some_and(|c| c.eq_ignore_ascii_case(command));
    let tag = l.get(..at).unwrap_or(&[]);
    ends && if tagged {
        tag.len() >= 2
            && tag.ends_with(b" ")
            && tag[..tag.len() - 1].iter().all(|b| b.is_ascii_graphic())
    } else {
        tag.is_empty()
    }
}
