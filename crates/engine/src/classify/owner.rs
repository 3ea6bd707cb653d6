//! Address owners as a classifier (`method: "ip"`, nDPI's "match by IP"): at a flow's first
//! packet, the owner of the server's address block, else of the client's (nDPI's order), names
//! the flow where nothing else is known (its rank and confidence are the arbiter's:
//! [`wirespeed_classify::arbiter::RANKING`]). An owner that runs its own application on its
//! blocks gives a flow with ports its stronger verdict
//! ([`wirespeed_classify::arbiter::OWNER_APP_CONFIDENCE`], above the port's guess); a flow
//! without ports (ICMP, ESP, ...) is named by its IP protocol number, the protocol itself, so
//! there the owner's verdict stays the weak one. One lookup in
//! [`wirespeed_classify::networks::Networks`] per end-point of a new flow (a few nanoseconds),
//! none per packet; no per-flow state.

use super::{Classifier, Decide, FlowView};
use crate::rules::Rules;
use std::sync::Arc;
use wirespeed_classify::arbiter::{OWNER_APP_CONFIDENCE, OWNER_CONFIDENCE};
use wirespeed_classify::{Method, Verdict};

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

    /// No packet hook: nothing to do for any packet.
    #[inline]
    fn quiet(&self, _: &FlowView<'_>, _: &(), _: &wirespeed_classify::FlowClass) -> bool {
        true
    }

    #[inline]
    fn start(&mut self, flow: &FlowView<'_>, _: &mut (), d: &mut Decide<'_>) {
        if !self.enabled {
            return;
        }
        let server = flow.server();
        let owner = self
            .rules
            .owner_evidence(flow.key.ip(server))
            .or_else(|| self.rules.owner_evidence(flow.key.ip(server.other())));
        if let Some((label, runs_app)) = owner {
            let ports = matches!(flow.key.proto, 6 | 17 | 132);
            d.offer(Verdict {
                label,
                method: Method::Ip,
                confidence: if runs_app && ports {
                    OWNER_APP_CONFIDENCE
                } else {
                    OWNER_CONFIDENCE
                },
                ttb_pkts: 1,
                ttb_ns: 0,
            });
        }
    }
}
