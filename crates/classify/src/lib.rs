//! Flow classifiers and the arbiter that orders them.
//!
//! Every classifier produces a [`Verdict`]: a [`LabelId`] into the run's [`Labels`] (nDPI's
//! master-protocol and application names, so results compare directly with nDPI), the
//! [`Method`] that decided, a confidence and the time to bind. The [`Arbiter`] alone decides
//! which verdict a flow keeps ([`FlowClass`]): the most trusted method among the enabled ones
//! ([`ClassifierSet`]) — host cache and DPI outrank the statistical classifier, which outranks
//! the Dedicated Port Table, which outranks the plain port table — with the statistical
//! classifier's own rules ([`STATS_ALONE`]) and the facts classifiers publish ([`Facts`]).
#![forbid(unsafe_code)]
#![deny(missing_docs)]

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
pub mod risk;

pub use labels::{Breed, LabelEntry, LabelError, LabelId, Labels};
pub use port::PortTable;

use std::fmt;

/// Which classifier decided.
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
    /// Every method, in rank order (least trusted first).
    pub const ALL: [Method; 7] = [
        Method::Ip,
        Method::Port,
        Method::Dpt,
        Method::DnsCache,
        Method::Stats,
        Method::HostCache,
        Method::Dpi,
    ];

    /// Name written in flow records.
    pub fn as_str(self) -> &'static str {
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

    /// How much a verdict by this method is trusted relative to others (higher wins).
    pub fn rank(self) -> u8 {
        match self {
            // An owner's name only where no port guess is made (nDPI's order: on the corpus,
            // nDPI keeps the port's `TLS` for 103 flows to Line's addresses).
            Method::Ip => 1,
            Method::Port => 2,
            Method::Dpt => 3,
            // What the client asked for, over who owns the block and over the port's guess.
            Method::DnsCache => 4,
            Method::Stats => 5,
            // Learned from payload verdicts, so below payload inspection itself, which confirms
            // or corrects it ([`Arbiter::check_learned`]).
            Method::HostCache => 6,
            Method::Dpi => 7,
        }
    }

    /// Is this a method that labels at the first packet from what earlier flows taught
    /// (payload inspection confirms or corrects its verdicts)?
    #[inline]
    pub fn is_learned(self) -> bool {
        matches!(self, Method::Dpt | Method::DnsCache | Method::HostCache)
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

/// Confidence the statistical verdict needs to label a flow no other method labelled; below it
/// the flow stays unknown (the record's `stats_*` fields still say what the model thought). Held
/// out by capture on the corpus (`wirespeed train --predictions`, which writes the posterior),
/// the shipped model's verdicts below 0.8 are mostly one cluster at 0.77 where the prior decides
/// (flows that look like nothing it was trained on): at 0.8, wrong labels on nDPI's DPI flows
/// fall from 1,793 to 1,085, right ones from 2,937 to 2,872, flows nDPI calls unknown that get a
/// label from 2,334 to 296, and macro-F1 goes from 0.568 to 0.579.
///
/// The statistical verdict never replaces another method's, not even the port table's guess.
/// Held out by capture (`wirespeed train --predictions`), on the corpus flows nDPI names by
/// payload and our inspectors do not, where a port label exists: at confidence >= 0.9 the model
/// agreed with a right port label on 59 flows, contradicted it with a wrong one on 65, and was
/// right where the port was wrong on none (below 0.9: right where the port was wrong on 1, wrong
/// on 49). Its classes are all protocols the payload inspectors know, so when those saw the
/// payload and ruled every protocol out ([`Facts::PAYLOAD_RULED_OUT`]), its guess contradicts
/// them and is refused, and taken back at the flow's end if it was given before.
pub const STATS_ALONE: f32 = 0.8;

/// Facts about a flow that one classifier establishes and the arbiter's rules read (a byte in
/// the flow slot).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Facts(u8);

impl Facts {
    /// Payload inspection saw the flow's payload and every inspector that could speak for it
    /// said it is not its protocol.
    pub const PAYLOAD_RULED_OUT: Facts = Facts(1);
    /// Payload inspection agreed with the learned verdict the flow had (the verdict stays).
    pub const LEARNED_CONFIRMED: Facts = Facts(2);
    /// Payload inspection contradicted the learned verdict the flow had (its own replaced it).
    pub const LEARNED_CORRECTED: Facts = Facts(4);
    /// The flow's payload verdict was handed to the Host Cache as a lesson (once per flow; kept
    /// here rather than in a state of the learned classifier's own, which would grow every
    /// flow-table slot by 8 bytes).
    pub const TAUGHT: Facts = Facts(8);

    /// Are all of `f`'s facts set?
    #[inline]
    pub fn has(self, f: Facts) -> bool {
        self.0 & f.0 == f.0
    }

    /// Set `f`'s facts.
    #[inline]
    pub fn set(&mut self, f: Facts) {
        self.0 |= f.0;
    }
}

/// A flow's classification: the verdict it keeps and the facts published about it. Changed only
/// through the [`Arbiter`].
///
/// The verdict's fields are held flat, not as an `Option<Verdict>` beside the facts: that takes
/// 24 bytes of every flow-table slot instead of 32 (the 8 hold the flow's id).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FlowClass {
    ttb_ns: u64,
    confidence: f32,
    ttb_pkts: u32,
    label: LabelId,
    /// The label after the flow's first packet (nDPI's first-packet classification).
    first_label: LabelId,
    /// None: no verdict (the other verdict fields are then meaningless).
    method: Option<Method>,
    /// The method that named the flow at its first packet (None: nothing did).
    first_method: Option<Method>,
    facts: Facts,
}

impl FlowClass {
    /// The verdict kept, if any.
    #[inline]
    pub fn verdict(&self) -> Option<Verdict> {
        self.method.map(|method| Verdict {
            label: self.label,
            method,
            confidence: self.confidence,
            ttb_pkts: self.ttb_pkts,
            ttb_ns: self.ttb_ns,
        })
    }

    #[inline]
    fn set(&mut self, v: Option<Verdict>) {
        match v {
            Some(v) => {
                self.label = v.label;
                self.method = Some(v.method);
                self.confidence = v.confidence;
                self.ttb_pkts = v.ttb_pkts;
                self.ttb_ns = v.ttb_ns;
            }
            None => self.method = None,
        }
    }

    /// The method of the verdict kept, if any (without building the verdict).
    #[inline]
    pub fn method(&self) -> Option<Method> {
        self.method
    }

    /// The flow's first packet was seen: what it is labelled now is its first-packet label.
    #[inline]
    pub fn mark_first(&mut self) {
        self.first_method = self.method;
        self.first_label = self.label;
    }

    /// The label and method the flow had after its first packet, if any.
    #[inline]
    pub fn first(&self) -> Option<(LabelId, Method)> {
        self.first_method.map(|m| (self.first_label, m))
    }

    /// The facts published.
    #[inline]
    pub fn facts(&self) -> Facts {
        self.facts
    }

    /// Publish `f` (a classifier's finding the arbiter's rules read).
    #[inline]
    pub fn publish(&mut self, f: Facts) {
        self.facts.set(f);
    }
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

    /// Offer `new` for the flow; returns true if it was taken. A verdict from a disabled method,
    /// or from a method no more trusted than the current one's, is refused (the first verdict
    /// of a method stands); a statistical verdict is taken only as the flow's first, at
    /// [`STATS_ALONE`] confidence or more, and not against [`Facts::PAYLOAD_RULED_OUT`].
    #[inline]
    pub fn offer(&self, class: &mut FlowClass, new: Verdict) -> bool {
        if !self.set.has(new.method) {
            return false;
        }
        if new.method == Method::Stats
            && (class.method.is_some()
                || new.confidence < STATS_ALONE
                || class.facts.has(Facts::PAYLOAD_RULED_OUT))
        {
            return false;
        }
        match class.method {
            Some(m) if m.rank() >= new.method.rank() => false,
            _ => {
                class.set(Some(new));
                true
            }
        }
    }

    /// A method names the flow more finely than it did (an inspector's STUN, then DTLS): if the
    /// flow's verdict is that method's, its label becomes `new`'s (the time to bind stays the
    /// first answer's); otherwise `new` is offered as a first answer would be.
    #[inline]
    pub fn refine(&self, class: &mut FlowClass, new: Verdict) -> bool {
        match class.method {
            Some(m) if m == new.method => {
                class.label = new.label;
                true
            }
            _ => self.offer(class, new),
        }
    }

    /// Payload inspection names a flow that a learned method ([`Method::is_learned`]) labelled:
    /// `joined` is the label the two agree on (the learned one, or the payload's master with
    /// the learned application), None if the payload contradicts it. Agreement keeps the learned
    /// verdict and its time to bind, with the joined label
    /// ([`Facts::LEARNED_CONFIRMED`]), except over the Dedicated Port Table's hint, where the
    /// payload's verdict takes the joined label; a contradiction gives the flow the payload's
    /// verdict ([`Facts::LEARNED_CORRECTED`]). Any other flow: an ordinary [`Arbiter::refine`].
    #[inline]
    pub fn check_learned(
        &self,
        class: &mut FlowClass,
        new: Verdict,
        joined: Option<LabelId>,
    ) -> bool {
        match class.method {
            Some(m) if m.is_learned() && new.method == Method::Dpi => match joined {
                // The end-points' history is the weakest hint: the payload named the flow, the
                // hint only completes its name (`TLS` on a port that served `TLS.YouTube`).
                Some(l) if m == Method::Dpt => {
                    class.set(Some(Verdict { label: l, ..new }));
                    true
                }
                Some(l) => {
                    class.label = l;
                    class.facts.set(Facts::LEARNED_CONFIRMED);
                    true
                }
                None => {
                    class.facts.set(Facts::LEARNED_CORRECTED);
                    class.set(Some(new));
                    true
                }
            },
            _ => self.refine(class, new),
        }
    }

    /// The flow ends: a statistical verdict given before payload inspection ruled every
    /// protocol out contradicts it and is taken back (the flow keeps what another method offers
    /// at its end, if anything). Returns true if the verdict was taken back.
    #[inline]
    pub fn at_end(&self, class: &mut FlowClass) -> bool {
        if class.method == Some(Method::Stats) && class.facts.has(Facts::PAYLOAD_RULED_OUT) {
            class.set(None);
            return true;
        }
        false
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
        assert!(ClassifierSet::parse("dpt").unwrap().has(Method::Dpt));
        assert!(ClassifierSet::parse("host-cache")
            .unwrap()
            .has(Method::HostCache));
        for empty in ["", " ", ",", " , "] {
            let e = ClassifierSet::parse(empty).unwrap_err().to_string();
            assert!(e.contains("no classifier named"), "{e}");
        }
    }

    #[test]
    fn higher_rank_wins_and_first_of_a_rank_stands() {
        let a = Arbiter::new(ClassifierSet::all());
        let mut cur = FlowClass::default();
        assert!(a.offer(&mut cur, v(Method::Port, 7)));
        assert!(!a.offer(&mut cur, v(Method::Port, 8)));
        assert_eq!(cur.verdict().unwrap().label, LabelId(7));
        assert!(a.offer(&mut cur, v(Method::Dpi, 9)));
        assert!(!a.offer(&mut cur, v(Method::Port, 8)));
        assert_eq!(cur.verdict().unwrap().label, LabelId(9));
        // Disabled methods are ignored even when they would outrank.
        let only_none = Arbiter::new(ClassifierSet::none());
        let mut cur2 = FlowClass::default();
        assert!(!only_none.offer(&mut cur2, v(Method::Port, 7)));
        assert!(cur2.verdict().is_none());
    }

    fn stats(label: u16, confidence: f32) -> Verdict {
        Verdict {
            confidence,
            ..v(Method::Stats, label)
        }
    }

    #[test]
    fn the_model_labels_only_unlabelled_flows_when_sure_and_not_against_the_payload() {
        let a = Arbiter::new(ClassifierSet::all());
        // Sure enough, alone: taken.
        let mut c = FlowClass::default();
        assert!(a.offer(&mut c, stats(3, STATS_ALONE)));
        // Below the threshold: refused.
        let mut c = FlowClass::default();
        assert!(!a.offer(&mut c, stats(3, STATS_ALONE - 0.01)));
        // Never over a port guess, though it outranks the port table.
        let mut c = FlowClass::default();
        a.offer(&mut c, v(Method::Port, 7));
        assert!(!a.offer(&mut c, stats(3, 1.0)));
        assert_eq!(c.verdict().unwrap().label, LabelId(7));
        // Not when the payload ruled every protocol out; and taken back at the end when the
        // payload did so after the model spoke.
        let mut c = FlowClass::default();
        c.publish(Facts::PAYLOAD_RULED_OUT);
        assert!(!a.offer(&mut c, stats(3, 1.0)));
        let mut c = FlowClass::default();
        assert!(a.offer(&mut c, stats(3, 1.0)));
        assert!(!a.at_end(&mut c), "no contradiction, the verdict stays");
        c.publish(Facts::PAYLOAD_RULED_OUT);
        assert!(a.at_end(&mut c));
        assert!(c.verdict().is_none());
        // Payload inspection outranks it whenever it speaks.
        let mut c = FlowClass::default();
        a.offer(&mut c, stats(3, 1.0));
        assert!(a.offer(&mut c, v(Method::Dpi, 9)));
    }

    #[test]
    fn a_refinement_changes_the_label_of_its_own_method_only() {
        let a = Arbiter::new(ClassifierSet::all());
        let mut c = FlowClass::default();
        let mut first = v(Method::Dpi, 9);
        first.ttb_pkts = 2;
        a.offer(&mut c, first);
        let mut finer = v(Method::Dpi, 10);
        finer.ttb_pkts = 6;
        assert!(a.refine(&mut c, finer));
        let got = c.verdict().unwrap();
        assert_eq!((got.label, got.ttb_pkts), (LabelId(10), 2));
        // Over another method's verdict, a refinement is an ordinary offer.
        let mut c = FlowClass::default();
        a.offer(&mut c, v(Method::Port, 7));
        assert!(a.refine(&mut c, v(Method::Dpi, 10)));
        assert_eq!(c.verdict().unwrap().method, Method::Dpi);
    }

    #[test]
    fn payload_confirms_or_corrects_a_learned_verdict() {
        let a = Arbiter::new(ClassifierSet::all());
        let learned = Verdict {
            confidence: 0.7,
            ..v(Method::HostCache, 5)
        };
        let mut dpi = v(Method::Dpi, 6);
        dpi.ttb_pkts = 4;
        // Agreement: the learned verdict and its time to bind stay, with the joined label.
        let mut c = FlowClass::default();
        assert!(a.offer(&mut c, learned));
        c.mark_first();
        assert!(a.check_learned(&mut c, dpi, Some(LabelId(5))));
        let got = c.verdict().unwrap();
        assert_eq!(
            (got.method, got.label, got.ttb_pkts),
            (Method::HostCache, LabelId(5), 1)
        );
        assert!(c.facts().has(Facts::LEARNED_CONFIRMED));
        assert_eq!(c.first(), Some((LabelId(5), Method::HostCache)));
        // Contradiction: the payload's verdict, and the first-packet label is still known.
        let mut c = FlowClass::default();
        a.offer(&mut c, learned);
        c.mark_first();
        assert!(a.check_learned(&mut c, dpi, None));
        let got = c.verdict().unwrap();
        assert_eq!(
            (got.method, got.label, got.ttb_pkts),
            (Method::Dpi, LabelId(6), 4)
        );
        assert!(c.facts().has(Facts::LEARNED_CORRECTED));
        assert_eq!(c.first(), Some((LabelId(5), Method::HostCache)));
        // Over the Dedicated Port Table's hint, the payload's verdict with the joined label.
        let mut c = FlowClass::default();
        a.offer(&mut c, v(Method::Dpt, 5));
        assert!(a.check_learned(&mut c, dpi, Some(LabelId(5))));
        let got = c.verdict().unwrap();
        assert_eq!(
            (got.method, got.label, got.ttb_pkts),
            (Method::Dpi, LabelId(5), 4)
        );
        // Over a port guess it is an ordinary refinement.
        let mut c = FlowClass::default();
        a.offer(&mut c, v(Method::Port, 3));
        assert!(a.check_learned(&mut c, dpi, None));
        assert!(!c.facts().has(Facts::LEARNED_CORRECTED));
        assert_eq!(c.verdict().unwrap().method, Method::Dpi);
        // A learned method outranks the port table but not the payload.
        let mut c = FlowClass::default();
        a.offer(&mut c, v(Method::Port, 3));
        assert!(a.offer(&mut c, v(Method::DnsCache, 4)));
        assert!(a.offer(&mut c, v(Method::HostCache, 4)));
        assert!(!a.offer(&mut c, v(Method::DnsCache, 4)));
    }

    #[test]
    fn method_ranks_follow_design_order() {
        let order = [
            Method::Ip,
            Method::Port,
            Method::Dpt,
            Method::DnsCache,
            Method::Stats,
            Method::HostCache,
            Method::Dpi,
        ];
        for w in order.windows(2) {
            assert!(w[0].rank() < w[1].rank());
        }
    }
}
