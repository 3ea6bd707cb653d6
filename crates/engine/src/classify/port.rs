//! The port table as a classifier: a guess from the flow's ports (or IP protocol number) at its
//! first packet ([`wirespeed_classify::PortTable`]); its rank and confidence are the arbiter's
//! ([`wirespeed_classify::arbiter::RANKING`]).

use super::{Classifier, Decide, FlowView};
use crate::rules::Rules;
use std::sync::Arc;
use wirespeed_classify::arbiter::PORT_CONFIDENCE;
use wirespeed_classify::{Method, Verdict};

/// The port table's classifier: no per-flow state (the table answers the same at any time).
pub struct PortClassifier {
    rules: Arc<Rules>,
    enabled: bool,
}

impl PortClassifier {
    #[inline]
    fn offer(&self, flow: &FlowView<'_>, d: &mut Decide<'_>) {
        if !self.enabled {
            return;
        }
        let ports = self.rules.ports();
        if let Some(label) = ports.flow(flow.key.proto, flow.server_port(), flow.client_port()) {
            d.offer(Verdict {
                label,
                method: Method::Port,
                confidence: PORT_CONFIDENCE,
                ttb_pkts: 1,
                ttb_ns: 0,
            });
        }
    }
}

impl Classifier for PortClassifier {
    type State = ();

    fn new(cfg: &super::Env<'_>) -> Self {
        PortClassifier {
            rules: cfg.rules.clone(),
            enabled: cfg.classifiers.has(Method::Port),
        }
    }

    #[inline]
    fn start(&mut self, flow: &FlowView<'_>, _: &mut (), d: &mut Decide<'_>) {
        self.offer(flow, d);
    }

    /// No packet hook: nothing to do for any packet.
    #[inline]
    fn quiet(&self, _: &FlowView<'_>, _: &(), _: &wirespeed_classify::FlowClass) -> bool {
        true
    }

    /// Asked again at the flow's end where the arbiter says so (a flow left without a verdict:
    /// a statistical guess taken back).
    #[inline]
    fn end(&mut self, flow: &FlowView<'_>, _: &mut (), d: &mut Decide<'_>) {
        if d.asks_again_at_end(Method::Port) {
            self.offer(flow, d);
        }
    }
}
