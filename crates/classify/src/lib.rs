//! What decides a flow's label: the vocabulary (the run's [`Labels`], [`Method`]), the knowledge
//! tables classifiers consult (ports, host names, address owners, nDPI's protocol rules and
//! defaults), the learned tables (DNS answers, Host Cache, Dedicated Port Table) and the arbiter
//! that orders verdicts. The classifiers themselves run in the engine
//! (`wirespeed_engine::classify`); flow risks are the `wirespeed-risk` crate.
//!
//! Every classifier produces a [`Verdict`]: a [`LabelId`] into the run's [`Labels`] (nDPI's
//! master-protocol and application names, so results compare directly with nDPI), the
//! [`Method`] that decided, a confidence and the time to bind. The [`Arbiter`] alone decides
//! which verdict a flow keeps ([`FlowClass`]), among the enabled classifiers
//! ([`ClassifierSet`]): every rule of precedence is in [`arbiter`] (the ranking table
//! [`arbiter::RANKING`], the statistical classifier's rules, learned labels, how a host or owner
//! name joins a protocol).
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod arbiter;
pub mod builtin;
pub mod category;
mod csvrows;
pub mod dnscache;
pub mod dpt;
pub mod hostcache;
pub mod hosts;
pub mod ipproto;
pub mod labels;
pub mod networks;
pub mod port;
pub mod protodefs;
pub mod protos;

pub use arbiter::{Arbiter, Facts, FlowClass, Verdict, PORT_CONFIDENCE, STATS_ALONE};
pub use labels::{Breed, LabelEntry, LabelError, LabelId, Labels};
pub use port::PortTable;

use std::fmt;

/// Which classifier decided. Declared in rank order, least trusted first: the order of the
/// ranking table [`arbiter::RANKING`] (a compile-time check holds it), where each method's rank,
/// confidence and rules are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Method {
    /// The owner of an end-point's address (nDPI's "match by IP"): who runs the server, where
    /// nothing else is known.
    Ip,
    /// Well-known-port table: a guess.
    Port,
    /// Dedicated Port Table of learned {host, port} hints.
    Dpt,
    /// An address a DNS answer named earlier in the capture: the service of the name.
    DnsCache,
    /// Statistical model over the first packets' sizes, directions and timing.
    Stats,
    /// Learned server end-point (Host Cache).
    HostCache,
    /// Payload inspection.
    Dpi,
}

impl Method {
    /// Name written in flow records.
    pub const fn as_str(self) -> &'static str {
        match self {
            Method::Port => "port",
            Method::Ip => "ip",
            Method::Dpt => "dpt",
            Method::DnsCache => "dns-cache",
            Method::Stats => "stats",
            Method::Dpi => "dpi",
            Method::HostCache => "host-cache",
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

/// The set of classifiers enabled for a run (`--classifiers port,dpi,stats`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClassifierSet {
    bits: u8,
}

/// Classifiers that exist in this build, by their command-line names.
pub const AVAILABLE: &[(&str, Method)] = &[
    ("port", Method::Port),
    ("ip", Method::Ip),
    ("dpt", Method::Dpt),
    ("dns-cache", Method::DnsCache),
    ("host-cache", Method::HostCache),
    ("stats", Method::Stats),
    ("dpi", Method::Dpi),
];

/// Classifiers planned but not built yet: naming one is a clear error, not a silent no-op.
pub const PLANNED: &[&str] = &[];

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
        if list.split(',').all(|n| n.trim().is_empty()) {
            return Err(ParseClassifiersError(format!(
                "no classifier named (give a list of {}, or all, or none)",
                AVAILABLE.iter().map(|a| a.0).collect::<Vec<_>>().join(", ")
            )));
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_lists() {
        assert!(ClassifierSet::parse("port").unwrap().has(Method::Port));
        assert!(!ClassifierSet::parse("none").unwrap().has(Method::Port));
        assert_eq!(ClassifierSet::parse("all").unwrap(), ClassifierSet::all());
        let e = ClassifierSet::parse("port,bogus").unwrap_err().to_string();
        assert!(e.contains("unknown classifier 'bogus'"), "{e}");
        assert!(ClassifierSet::parse("dpi").unwrap().has(Method::Dpi));
        assert!(ClassifierSet::parse("stats").unwrap().has(Method::Stats));
        assert!(ClassifierSet::parse("dpt").unwrap().has(Method::Dpt));
        assert!(ClassifierSet::parse("host-cache")
            .unwrap()
            .has(Method::HostCache));
        for empty in ["", " ", ",", " , "] {
            let e = ClassifierSet::parse(empty).unwrap_err().to_string();
            assert!(e.contains("no classifier named"), "{e}");
        }
    }
}
