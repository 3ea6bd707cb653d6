//! The decoding context carried across layers, and the entry point.
//!
//! Offsets are absolute in the frame, so `Decoded::l3_offset` needs no bookkeeping across tunnel
//! levels. Layers call each other directly (no dynamic dispatch); the only recursion is through
//! tunnels and pseudowires, and both are capped here.

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
    /// MPLS pseudowires entered so far.
    pub(crate) pseudowires: u8,
}

impl Ctx {
    /// Enter one more MPLS pseudowire, or fail when the frame nests too deep. (Tunnels are
    /// capped by `depth`; pseudowires are the other way an Ethernet frame can hold another.)
    #[inline]
    pub(crate) fn enter_pseudowire(&mut self) -> Result<(), DropReason> {
        if self.pseudowires >= MAX_PSEUDOWIRES {
            return Err(DropReason::TooManyLabels);
        }
        self.pseudowires += 1;
        Ok(())
    }

    /// Whether one more tunnel level may be removed.
    #[inline]
    pub(crate) fn may_tunnel(&self) -> bool {
        self.tunnels && self.depth < MAX_TUNNEL_DEPTH
    }

    /// Remove one tunnel level of kind `t` with `inner`. When the inner packet cannot be decoded
    /// (or tunnels are off, or the cap is reached) the context is left as it was and `None`
    /// tells the caller to report the outer packet as the flow.
    #[inline]
    pub(crate) fn tunnel<'a>(
        &mut self,
        t: Tunnel,
        inner: impl FnOnce(&mut Ctx) -> Result<Decoded<'a>, DropReason>,
    ) -> Option<Decoded<'a>> {
        if !self.may_tunnel() {
            return None;
        }
        let saved = *self;
        self.depth += 1;
        if self.tunnel == Tunnel::None {
            self.tunnel = t;
        }
        match inner(self) {
            Ok(d) => Some(d),
            Err(_) => {
                *self = saved;
                None
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
        pseudowires: 0,
    };
    link::link_layer(link, frame, 0, &mut ctx, true)
}
