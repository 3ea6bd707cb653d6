//! The decoding context carried across layers, and the entry point.
//!
//! Offsets are absolute in the frame, so `Decoded::l3_offset` needs no bookkeeping across tunnel
//! levels. Layers call each other directly (no dynamic dispatch); the only recursion is through
//! tunnels and through Ethernet frames nested in Ethernet frames (MPLS pseudowires, 802.1ah,
//! FabricPath), and both are capped here.

use crate::link::{self, MAX_PSEUDOWIRES};
use crate::tunnel::MAX_TUNNEL_DEPTH;
use crate::{DecodeConfig, Decoded, DropReason, LinkType, Tunnel};

/// State that outer layers hand to inner ones: options, the VLAN seen so far, the outermost
/// tunnel, and the nesting counters that keep recursion bounded.
#[derive(Clone, Copy)]
pub(crate) struct Ctx {
    /// Whether tunnels are followed.
    pub(crate) tunnels: bool,
    /// VLAN id of the innermost tag seen so far (0: none).
    pub(crate) vlan: u16,
    /// The outermost tunnel removed so far.
    pub(crate) tunnel: Tunnel,
    /// Tunnel levels removed so far.
    pub(crate) depth: u8,
    /// Ethernet frames entered inside Ethernet frames so far (MPLS pseudowires, 802.1ah I-TAGs,
    /// FabricPath headers).
    pub(crate) inner_frames: u8,
    /// Set when a tunnel further in carried a link-layer frame typed as not IP: the
    /// [`DropReason::NotIp`] then passes every outer tunnel instead of leaving its packet as the
    /// flow.
    pub(crate) not_ip_inside: bool,
}

impl Ctx {
    /// Enter one more Ethernet frame held by an Ethernet frame (an MPLS pseudowire, an 802.1ah
    /// customer frame, a FabricPath frame), or fail when the frame nests too deep. (Tunnels are
    /// capped by `depth`; these are the other ways an Ethernet frame can hold another.)
    #[inline]
    pub(crate) fn enter_inner_frame(&mut self) -> Result<(), DropReason> {
        if self.inner_frames >= MAX_PSEUDOWIRES {
            return Err(DropReason::TooManyLabels);
        }
        self.inner_frames += 1;
        Ok(())
    }

    /// Whether one more tunnel level may be removed.
    #[inline]
    pub(crate) fn may_tunnel(&self) -> bool {
        self.tunnels && self.depth < MAX_TUNNEL_DEPTH
    }

    /// Remove one tunnel level of kind `t` with `inner`. When the inner packet cannot be decoded
    /// (or tunnels are off, or the cap is reached) the context is left as it was and `Ok(None)`
    /// tells the caller to report the outer packet as the flow.
    ///
    /// `Err(NotIp)` is the one exception: when `inner` decodes a link-layer frame (`frame`: an
    /// Ethernet or 802.11 frame) whose own type field says it is not IP, or when a tunnel further
    /// in did. The tunnel was real and what it carries is no IP flow, so the frame is dropped as
    /// that inner frame would be on its own, rather than keyed on the outer packet.
    #[inline]
    pub(crate) fn tunnel<'a>(
        &mut self,
        t: Tunnel,
        frame: bool,
        inner: impl FnOnce(&mut Ctx) -> Result<Decoded<'a>, DropReason>,
    ) -> Result<Option<Decoded<'a>>, DropReason> {
        if !self.may_tunnel() {
            return Ok(None);
        }
        let saved = *self;
        self.depth += 1;
        if self.tunnel == Tunnel::None {
            self.tunnel = t;
        }
        match inner(self) {
            Ok(d) => Ok(Some(d)),
            Err(DropReason::NotIp) if frame || self.not_ip_inside => {
                self.not_ip_inside = true;
                Err(DropReason::NotIp)
            }
            Err(_) => {
                *self = saved;
                Ok(None)
            }
        }
    }
}

#[inline]
pub(crate) fn decode<'a>(
    link: LinkType,
    frame: &'a [u8],
    cfg: &DecodeConfig,
) -> Result<Decoded<'a>, DropReason> {
    let mut ctx = Ctx {
        tunnels: cfg.decode_tunnels,
        vlan: 0,
        tunnel: Tunnel::None,
        depth: 0,
        inner_frames: 0,
        not_ip_inside: false,
    };
    link::link_layer(link, frame, 0, &mut ctx, true)
}
