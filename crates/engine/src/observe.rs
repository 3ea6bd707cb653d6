//! Per-flow analysers that label nothing: they observe a flow's packets beside the classifiers
//! ([`crate::classify`]) and add their part to its record. Each is there only when its option
//! asks for it; absent, a worker pays one predictable branch a packet for it.
//!
//! - whole-flow distributions (`--stats dist`, [`crate::flowstats`]),
//! - the TCP analysis (`--stats tcp`, [`crate::tcpstats`]),
//! - payload entropy for nDPI's Susp Entropy risk (`--stats entropy`, [`crate::entropy`]),
//! - the inline actor (`wirespeed inline`, [`crate::act`]).
//!
//! Each keeps its per-flow state in a side table of the flow table's size, found by the
//! flow's slot, not in the slot itself (the slot's size is held by a test).

use crate::worker::EngineConfig;
use wirespeed_flow::FlowTable;

/// A worker's analysers, each present when its option asks for it.
#[derive(Default)]
pub(crate) struct Observers {
    /// The acting side, after every classifier (`wirespeed inline`); None elsewhere.
    pub(crate) act: Option<crate::act::Inline>,
    /// Whole-flow distributions (`--stats dist`).
    pub(crate) dist: Option<crate::flowstats::Dist>,
    /// The TCP analysis (`--stats tcp`).
    pub(crate) tcp: Option<crate::tcpstats::Tcp>,
    /// Payload entropy for Susp Entropy (`--stats entropy`).
    pub(crate) entropy: Option<crate::entropy::Entropy>,
}

impl Observers {
    /// The analysers `cfg` asks for, sized for `table` (the actor comes later, from
    /// [`crate::Worker::act`]).
    pub(crate) fn new<T: Default>(cfg: &EngineConfig, table: &FlowTable<T>) -> Self {
        let slots = table.config().capacity;
        Observers {
            act: None,
            dist: cfg.dist.then(|| {
                let mut d = crate::flowstats::Dist::new(slots);
                d.locator = Some(table.locator());
                d
            }),
            tcp: cfg.tcp.then(|| {
                let mut t = crate::tcpstats::Tcp::new(slots);
                t.locator = Some(table.locator());
                t
            }),
            entropy: cfg.entropy.then(|| {
                let mut e = crate::entropy::Entropy::new(slots);
                e.locator = Some(table.locator());
                e
            }),
        }
    }
}
