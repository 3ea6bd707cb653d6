//! Flow classifiers and the arbiter that orders them.
//!
//! Every classifier produces a [`Verdict`]: a [`Label`] (nDPI's master-protocol and application
//! names, so results compare directly with nDPI), the [`Method`] that decided, a confidence and
//! the time to bind. The [`Arbiter`] keeps, for each flow, the verdict of the most trusted method
//! among the enabled ones ([`ClassifierSet`]): host cache and DPI outrank the statistical
//! classifier, which outranks the Dedicated Port Table, which outranks the plain port table.
//! (The engine offers the statistical verdict only to flows no other method labelled: see
//! `wirespeed-engine`'s `stats` module for the held-out evidence.)
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod ipproto;
pub mod labels;
pub mod port;

pub use labels::{Breed, LabelEntry, LabelError, LabelId, Labels};
pub use port::PortTable;

use std::fmt;

/// Which classifier decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Method {
    /// Well-known-port table: a guess.
    Port,
    /// Dedicated Port Table of learned {host, port} hints.
    Dpt,
    /// Statistical model over the first packets' sizes, directions and timing.
    Stats,
    /// Payload inspection.
    Dpi,
    /// Learned server end-point (Host Cache).
    HostCache,
}

impl Method {
    /// Name written in flow records.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Port => "port",
            Method::Dpt => "dpt",
            Method::Stats => "stats",
            Method::Dpi => "dpi",
            Method::HostCache => "host-cache",
        }
    }

    /// How much a verdict by this method is trusted relative to others (higher wins).
    pub fn rank(self) -> u8 {
        match self {
            Method::Port => 1,
            Method::Dpt => 2,
            Method::Stats => 3,
            Method::Dpi => 4,
            Method::HostCache => 5,
        }
    }
}

/// A built-in application label in nDPI's vocabulary, as the static tables (port table,
/// inspectors) write it; a run interns these into its [`Labels`] and verdicts carry the
/// [`LabelId`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Label {
    /// Application (e.g. "Google"), equal to `master` when nothing finer is known.
    pub app: &'static str,
    /// Master protocol (e.g. "TLS", "DNS").
    pub master: &'static str,
    /// Category (e.g. "Web").
    pub category: &'static str,
}

impl Label {
    /// The label of flows nobody could classify.
    pub const UNKNOWN: Label = Label {
        app: "Unknown",
        master: "Unknown",
        category: "Unspecified",
    };
}

/// A classifier's decision about a flow. 24 bytes: it lives in every flow-table slot, so the
/// label is its id in the run's [`Labels`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Verdict {
    /// What the flow is.
    pub label: LabelId,
    /// Who said so.
    pub method: Method,
    /// How sure, in [0, 1].
    pub confidence: f32,
    /// Packets of the flow seen when it was decided.
    pub ttb_pkts: u32,
    /// Capture time from the flow's first packet to the decision, ns.
    pub ttb_ns: u64,
}

/// Confidence given to a port-table guess: low, because any application can use any port.
pub const PORT_CONFIDENCE: f32 = 0.2;

/// The set of classifiers enabled for a run (`--classifiers port,dpi,stats`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClassifierSet {
    bits: u8,
}

/// Classifiers that exist in this build, by their command-line names.
pub const AVAILABLE: &[(&str, Method)] = &[
    ("port", Method::Port),
    ("stats", Method::Stats),
    ("dpi", Method::Dpi),
];

/// Classifiers planned but not built yet: naming one is a clear error, not a silent no-op.
pub const PLANNED: &[&str] = &["host-cache", "dpt"];

/// Error parsing a classifier list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseClassifiersError(String);

impl fmt::Display for ParseClassifiersError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ParseClassifiersError {}

impl ClassifierSet {
    /// Every classifier available in this build.
    pub fn all() -> Self {
        let mut s = ClassifierSet { bits: 0 };
        for (_, m) in AVAILABLE {
            s.bits |= 1 << m.rank();
        }
        s
    }

    /// No classifier: flows are tracked and counted only.
    pub fn none() -> Self {
        ClassifierSet { bits: 0 }
    }

    /// Parse a comma-separated list of names ("port,dpi"); "none" and "all" are accepted.
    pub fn parse(list: &str) -> Result<Self, ParseClassifiersError> {
        let mut s = ClassifierSet::none();
        for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            match name {
                "all" => s = ClassifierSet::all(),
                "none" => {}
                _ => match AVAILABLE.iter().find(|(n, _)| *n == name) {
                    Some((_, m)) => s.bits |= 1 << m.rank(),
                    None if PLANNED.contains(&name) => {
                        return Err(ParseClassifiersError(format!(
                            "classifier '{name}' is not built yet in this version (available: {})",
                            AVAILABLE.iter().map(|a| a.0).collect::<Vec<_>>().join(", ")
                        )))
                    }
                    None => {
                        return Err(ParseClassifiersError(format!(
                            "unknown classifier '{name}' (available: {})",
                            AVAILABLE.iter().map(|a| a.0).collect::<Vec<_>>().join(", ")
                        )))
                    }
                },
            }
        }
        Ok(s)
    }

    /// Is `m` enabled?
    #[inline]
    pub fn has(self, m: Method) -> bool {
        self.bits & (1 << m.rank()) != 0
    }
}

/// Orders verdicts: keeps the one from the most trusted enabled method.
#[derive(Clone, Copy, Debug)]
pub struct Arbiter {
    set: ClassifierSet,
}

impl Arbiter {
    /// An arbiter over the enabled classifiers.
    pub fn new(set: ClassifierSet) -> Self {
        Arbiter { set }
    }

    /// The enabled classifiers.
    pub fn classifiers(&self) -> ClassifierSet {
        self.set
    }

    /// Offer `new` for a flow whose current verdict is `current`; returns true if it was taken.
    /// A verdict from a disabled method, or from a method no more trusted than the current
    /// one's, is ignored (the first verdict of a method stands).
    #[inline]
    pub fn offer(&self, current: &mut Option<Verdict>, new: Verdict) -> bool {
        if !self.set.has(new.method) {
            return false;
        }
        match current {
            Some(c) if c.method.rank() >= new.method.rank() => false,
            _ => {
                *current = Some(new);
                true
            }
        }
    }

    /// The port-table verdict for a flow's first packet ([`PortTable::flow`]). None when the
    /// port classifier is disabled or nothing matches.
    #[inline]
    pub fn by_port(
        &self,
        table: &PortTable,
        proto: u8,
        server_port: u16,
        client_port: u16,
    ) -> Option<Verdict> {
        if !self.set.has(Method::Port) {
            return None;
        }
        Some(Verdict {
            label: table.flow(proto, server_port, client_port)?,
            method: Method::Port,
            confidence: PORT_CONFIDENCE,
            ttb_pkts: 1,
            ttb_ns: 0,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(m: Method, id: u16) -> Verdict {
        Verdict {
            label: LabelId(id),
            method: m,
            confidence: 1.0,
            ttb_pkts: 1,
            ttb_ns: 0,
        }
    }

    #[test]
    fn parse_lists() {
        assert!(ClassifierSet::parse("port").unwrap().has(Method::Port));
        assert!(!ClassifierSet::parse("none").unwrap().has(Method::Port));
        assert_eq!(ClassifierSet::parse("all").unwrap(), ClassifierSet::all());
        let e = ClassifierSet::parse("port,bogus").unwrap_err().to_string();
        assert!(e.contains("unknown classifier 'bogus'"), "{e}");
        assert!(ClassifierSet::parse("dpi").unwrap().has(Method::Dpi));
        assert!(ClassifierSet::parse("stats").unwrap().has(Method::Stats));
        let e = ClassifierSet::parse("host-cache").unwrap_err().to_string();
        assert!(e.contains("not built yet"), "{e}");
    }

    #[test]
    fn higher_rank_wins_and_first_of_a_rank_stands() {
        let a = Arbiter::new(ClassifierSet::all());
        let mut cur = None;
        assert!(a.offer(&mut cur, v(Method::Port, 7)));
        assert!(!a.offer(&mut cur, v(Method::Port, 8)));
        assert_eq!(cur.unwrap().label, LabelId(7));
        // Disabled methods are ignored even when they would outrank.
        let only_none = Arbiter::new(ClassifierSet::none());
        let mut cur2 = None;
        assert!(!only_none.offer(&mut cur2, v(Method::Port, 7)));
        assert!(cur2.is_none());
    }

    #[test]
    fn method_ranks_follow_design_order() {
        let order = [
            Method::Port,
            Method::Dpt,
            Method::Stats,
            Method::Dpi,
            Method::HostCache,
        ];
        for w in order.windows(2) {
            assert!(w[0].rank() < w[1].rank());
        }
    }
}
