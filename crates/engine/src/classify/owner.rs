//! Address owners as a classifier (`method: "ip"`, nDPI's "match by IP"): at a flow's first
//! packet, the owner of the server's address block, else of the client's (nDPI's order), names
//! the flow where nothing else is known: a port guess, payload inspection and the statistical
//! model's confident verdicts override it (nDPI's order: it keeps a port's `TLS` over an
//! owner's name). One lookup in
//! [`wirespeed_classify::networks::Networks`] per end-point of a new flow (a few nanoseconds),
//! none per packet; no per-flow state.

use super::{Classifier, Decide, FlowView};
use crate::rules::Rules;
use std::sync::Arc;
use wirespeed_classify::{Method, Verdict};

/// Confidence of an address owner's verdict: who runs the server, not what the flow carries.
pub const OWNER_CONFIDENCE: f32 = 0.5;

/// The address-owner classifier: the run's owner table, read-only.
pub struct OwnerClassifier {
    rules: Arc<Rules>,
    enabled: bool,
}

impl Classifier for OwnerClassifier {
    type State = ();

    fn new(cfg: &super::Env<'_>) -> Self {
        OwnerClassifier {
            rules: cfg.rules.clone(),
            enabled: cfg.classifiers.has(Method::Ip),
        }
    }

    #[inline]
    fn start(&mut self, flow: &FlowView<'_>, _: &mut (), d: &mut Decide<'_>) {
        if !self.enabled {
            return;
        }
        let server = flow.server();
        let owner = self
            .rules
            .owner_of(flow.key.ip(server))
            .or_else(|| self.rules.owner_of(flow.key.ip(server.other())));
        if let Some(label) = owner {
            d.offer(Verdict {
                label,
                method: Method::Ip,
                confidence: OWNER_CONFIDENCE,
                ttb_pkts: 1,
                ttb_ns: 0,
            });
        }
    }
}
