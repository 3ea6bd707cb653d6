//! Which classifier wins, and why: every rule of precedence between classifiers, in one file.
//!
//! Classifiers only offer verdicts with their evidence (the engine's `classify` stage hands
//! them a `Decide`, which calls the [`Arbiter`]); what a flow keeps is decided here:
//!
//! - **Ranks and confidences**: the [`RANKING`] table, one row per [`Method`], least trusted
//!   first. A verdict is taken over one of a lower rank, never over one of its own rank or
//!   above (the first verdict of a method stands; a method's finer name is a [`Arbiter::refine`]),
//!   except where a row raises its stronger evidence above another method ([`Row::over`]: an
//!   address owner that runs its own application, above the port's guess).
//! - **The statistical verdict** ([`Row::alone_at`], [`Row::refused_by`]): only a flow's first,
//!   at [`STATS_ALONE`] confidence, never against [`Facts::PAYLOAD_RULED_OUT`] or
//!   [`Facts::MODEL_RULED_OUT`], nor for a flow that ends with [`Facts::NO_PAYLOAD`], and
//!   taken back at the flow's end ([`Arbiter::at_end`]) if that fact came after it; the port
//!   table's guess is then asked for again ([`Row::again_at_end`],
//!   [`Arbiter::asks_again_at_end`]).
//! - **Learned labels** ([`Row::learned`]): answered at the first packet from what earlier flows
//!   taught, one lookup per learned method while its verdict would still be taken
//!   ([`Arbiter::would_take`]: the Host Cache's answer makes the DNS cache's and the Dedicated
//!   Port Table's moot). Payload inspection confirms or corrects them
//!   ([`Arbiter::check_learned`]), joining the two names ([`join`]); a payload verdict stands
//!   behind a flow's label ([`FlowClass::lesson`]) when it is payload inspection's or a learned
//!   one it confirmed.
//! - **How a host or owner name joins a protocol** ([`name_payload`]): the payload's protocol
//!   alone (`TLS`) takes the service its host name belongs to (`TLS.YouTube`), else the calling
//!   application its server's owner runs (`STUN.TelegramVoip`); a name of its own that no rule
//!   knows keeps it from joining a learned label that differs. A host name seen only after the
//!   verdict renames payload inspection's own verdict alone ([`FlowClass::own`]).
//!
//! The order of the stage's hooks (the `classifiers!` list in `engine/src/classify/mod.rs`)
//! decides no winner: verdicts of different ranks give the same outcome in any order. It matters
//! only for when things happen within one packet: the learned classifier runs after payload
//! inspection to learn from a verdict at the packet that reaches it, and the statistical
//! model's offer at the packet where payload inspection names the flow is refused rather than
//! taken and replaced (the same verdict either way).
//!
//! `arbiter::tests::precedence` lists the cases, one row each: the offers in, in order, with
//! the enabled classifiers, and the label, method and confidence out.

use crate::{LabelId, Labels, Method};

/// One method's row in the [`RANKING`] table.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Row {
    /// The method; its rank is the row's number (1 first, least trusted).
    pub method: Method,
    /// The confidence of its verdicts (None: each verdict's own, the model's posterior).
    pub confidence: Option<f32>,
    /// Some(t): its verdict is taken only as a flow's first, at confidence `t` or more.
    pub alone_at: Option<f32>,
    /// Facts that refuse its verdict, and take it back at the flow's end if published after.
    pub refused_by: Facts,
    /// It labels from what earlier flows taught: payload inspection confirms or corrects it.
    pub learned: bool,
    /// It is asked again at a flow's end when the flow is left without a verdict.
    pub again_at_end: bool,
    /// Some((m, t)): its verdicts at confidence `t` or more rank above `m`'s as well (taken
    /// over a verdict of `m`, and kept against one): evidence of a stronger kind than the
    /// method's usual, told by the confidence its classifier gives it.
    pub over: Option<(Method, f32)>,
}

/// A row with no rule beyond its rank.
const fn row(method: Method, confidence: f32, learned: bool) -> Row {
    Row {
        method,
        confidence: Some(confidence),
        alone_at: None,
        refused_by: Facts::NONE,
        learned,
        again_at_end: false,
        over: None,
    }
}

/// Which classifier wins: every method, least trusted first (a method's rank is its row's
/// number). `Method` is declared in this order (a compile-time check holds it), so a rank costs
/// no lookup.
pub const RANKING: [Row; 7] = [
    // Who runs the server, not what the flow carries. Two kinds of evidence
    // ([`owner_runs_its_application`]): an owner whose blocks serve other parties'
    // applications or many services of its own (a cloud, a CDN, a web platform) says little
    // about the flow, so its name is taken only where no port guess is made; an owner that runs
    // one application on its blocks (a messenger, a VPN, a game, a conference service) is
    // stronger evidence than a registered port, which any application may use (WhatsApp's
    // clients on XMPP's 5222, Telegram's on 443), so its verdict, at
    // [`OWNER_APP_CONFIDENCE`], ranks above the port's guess.
    Row {
        over: Some((Method::Port, OWNER_APP_CONFIDENCE)),
        ..row(Method::Ip, 0.5, false)
    },
    // A guess: any application can use any port. Asked again at the flow's end.
    Row {
        again_at_end: true,
        ..row(Method::Port, 0.2, false)
    },
    // The Dedicated Port Table: what earlier flows on either end-point were. The weakest hint.
    row(Method::Dpt, 0.4, true),
    // What the client asked for (the name it resolved), over who owns the block and over the
    // port's guess.
    row(Method::DnsCache, 0.6, true),
    // The model: never over another method's verdict, not even the port's guess (see
    // [`STATS_ALONE`]).
    Row {
        method: Method::Stats,
        confidence: None,
        alone_at: Some(STATS_ALONE),
        refused_by: Facts(
            Facts::PAYLOAD_RULED_OUT.0 | Facts::MODEL_RULED_OUT.0 | Facts::NO_PAYLOAD.0,
        ),
        learned: false,
        again_at_end: false,
        over: None,
    },
    // Learned from payload verdicts on this very end-point, so below payload inspection itself,
    // which confirms or corrects it ([`Arbiter::check_learned`]).
    row(Method::HostCache, 0.8, true),
    // Payload inspection.
    row(Method::Dpi, 0.9, false),
];

// `Method` is declared in the table's order: `rank` is the declaration's order.
const _: () = {
    let mut i = 0;
    while i < RANKING.len() {
        assert!(RANKING[i].method as usize == i);
        i += 1;
    }
};

/// The table's fixed confidence of `m` (a compile-time error for a method without one).
const fn fixed(m: Method) -> f32 {
    match RANKING[m as usize].confidence {
        Some(c) => c,
        None => panic!("the method's verdicts carry their own confidence"),
    }
}

/// Confidence of an address owner's verdict ([`RANKING`]).
pub const OWNER_CONFIDENCE: f32 = fixed(Method::Ip);
/// Confidence of the verdict of an address owner that runs its own application on its blocks
/// ([`owner_runs_its_application`]), for a flow with ports: ranks above a port guess
/// ([`Row::over`]).
pub const OWNER_APP_CONFIDENCE: f32 = 0.7;

/// Does an address owner run its own application on its blocks (strong evidence of what a flow
/// to them is), or serve other parties' applications or many services of its own (weak)? Told
/// by the owner's category in the published lists (`../data/app_networks.csv`, nDPI's): `cloud`
/// (AmazonAWS, Azure, GoogleCloud, Edgecast, ...: hosting and delivery for anyone; storage
/// services filed there are counted weak too) and `web` (Google, Apple, Alibaba, Cloudflare,
/// Yandex, ...: platforms whose addresses serve search, mail, stores, video and their
/// customers' sites alike) are weak; any other category (`chat`, `vpn`, `game`, `voip`,
/// `video`, ...) names what its owner runs.
pub fn owner_runs_its_application(category: &str) -> bool {
    !matches!(
        category.trim().to_ascii_lowercase().as_str(),
        "cloud" | "web" | "" | "unspecified"
    )
}

/// Does a verdict of `new` at confidence `conf` rank above the kept verdict of `old` at
/// `old_conf`? By rank, except where a row's [`Row::over`] raises its strong verdicts above
/// another method.
#[inline]
fn above(new: Method, conf: f32, old: Method, old_conf: f32) -> bool {
    let raised = |m: Method, c: f32, over: Method| matches!(m.row().over, Some((o, t)) if o == over && c >= t);
    if new.rank() > old.rank() {
        !raised(old, old_conf, new)
    } else {
        raised(new, conf, old)
    }
}
/// Confidence given to a port-table guess ([`RANKING`]): low, because any application can use
/// any port.
pub const PORT_CONFIDENCE: f32 = fixed(Method::Port);
/// Confidence of a Dedicated Port Table verdict ([`RANKING`]).
pub const DPT_CONFIDENCE: f32 = fixed(Method::Dpt);
/// Confidence of a DNS-learned verdict ([`RANKING`]).
pub const DNS_CACHE_CONFIDENCE: f32 = fixed(Method::DnsCache);
/// Confidence of a host-cache verdict ([`RANKING`]).
pub const HOST_CACHE_CONFIDENCE: f32 = fixed(Method::HostCache);
/// Confidence of a payload verdict ([`RANKING`]).
pub const DPI_CONFIDENCE: f32 = fixed(Method::Dpi);

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
/// payload and ruled every protocol out ([`Facts::PAYLOAD_RULED_OUT`]), or only every protocol
/// the model can name ([`Facts::MODEL_RULED_OUT`]: the inspectors of TLS, HTTP, SSH, ... turned
/// the payload away while some other protocol's inspector still waits), its guess contradicts
/// them and is refused, and taken back at the flow's end if it was given before.
pub const STATS_ALONE: f32 = 0.8;

impl Method {
    /// Every method, in rank order (least trusted first): [`RANKING`]'s.
    pub const ALL: [Method; 7] = {
        let mut all = [Method::Ip; 7];
        let mut i = 0;
        while i < RANKING.len() {
            all[i] = RANKING[i].method;
            i += 1;
        }
        all
    };

    /// This method's row of [`RANKING`].
    #[inline]
    pub const fn row(self) -> Row {
        RANKING[self as usize]
    }

    /// How much a verdict by this method is trusted relative to others (higher wins): its row's
    /// number in [`RANKING`].
    #[inline]
    pub const fn rank(self) -> u8 {
        self as u8 + 1
    }

    /// Is this a method that labels at the first packet from what earlier flows taught
    /// (payload inspection confirms or corrects its verdicts)? [`Row::learned`].
    #[inline]
    pub fn is_learned(self) -> bool {
        self.row().learned
    }
}

/// Facts about a flow that one classifier establishes and the arbiter's rules read (a byte in
/// the flow slot).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Facts(u8);

impl Facts {
    /// No fact.
    pub const NONE: Facts = Facts(0);
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
    /// Payload inspection saw the flow's payload and every inspector that could name one of
    /// the statistical model's classes for it said it is not its protocol (implied by
    /// [`Facts::PAYLOAD_RULED_OUT`]; it comes without it while inspectors of other protocols
    /// are still unsure).
    pub const MODEL_RULED_OUT: Facts = Facts(16);
    /// The flow ended without a byte of payload either way (published at its end): no
    /// application spoke.
    pub const NO_PAYLOAD: Facts = Facts(32);

    /// Are all of `f`'s facts set?
    #[inline]
    pub fn has(self, f: Facts) -> bool {
        self.0 & f.0 == f.0
    }

    /// Is any of `f`'s facts set (never for [`Facts::NONE`])?
    #[inline]
    pub fn any(self, f: Facts) -> bool {
        self.0 & f.0 != 0
    }

    /// Set `f`'s facts.
    #[inline]
    pub fn set(&mut self, f: Facts) {
        self.0 |= f.0;
    }
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

    /// The verdict kept, if method `m` gave it: what a finer name `m` finds later (a host name
    /// seen after payload inspection's verdict, at the flow's end) may refine
    /// ([`Arbiter::refine`]); over another method's verdict (a learned label payload inspection
    /// confirmed) it is not offered.
    #[inline]
    pub fn own(&self, m: Method) -> Option<Verdict> {
        self.verdict().filter(|v| v.method == m)
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

    /// The label payload inspection stands behind, if the flow has one not yet taught
    /// ([`Facts::TAUGHT`]): payload inspection's own verdict, or a learned one it confirmed.
    #[inline]
    pub fn lesson(&self) -> Option<LabelId> {
        let backed = self.method.is_some_and(|m| {
            m == Method::Dpi || (m.is_learned() && self.facts.has(Facts::LEARNED_CONFIRMED))
        });
        if backed && !self.facts.has(Facts::TAUGHT) {
            Some(self.label)
        } else {
            None
        }
    }
}

/// Orders verdicts by the [`RANKING`] table, over the enabled classifiers.
#[derive(Clone, Copy, Debug)]
pub struct Arbiter {
    set: crate::ClassifierSet,
}

impl Arbiter {
    /// An arbiter over the enabled classifiers.
    pub fn new(set: crate::ClassifierSet) -> Self {
        Arbiter { set }
    }

    /// The enabled classifiers.
    pub fn classifiers(&self) -> crate::ClassifierSet {
        self.set
    }

    /// Offer `new` for the flow; returns true if it was taken. A verdict from a disabled method,
    /// or from a method no more trusted than the current one's, is refused (the first verdict
    /// of a method stands); so is one under its row's rules ([`Row::alone_at`]: the statistical
    /// verdict only as the flow's first, at [`STATS_ALONE`] confidence or more;
    /// [`Row::refused_by`]: not against [`Facts::PAYLOAD_RULED_OUT`]).
    #[inline]
    pub fn offer(&self, class: &mut FlowClass, new: Verdict) -> bool {
        if !self.set.has(new.method) {
            return false;
        }
        let row = new.method.row();
        if let Some(at) = row.alone_at {
            if class.method.is_some() || new.confidence < at {
                return false;
            }
        }
        if class.facts.any(row.refused_by) {
            return false;
        }
        match class.method {
            Some(m) if !above(new.method, new.confidence, m, class.confidence) => false,
            _ => {
                class.set(Some(new));
                true
            }
        }
    }

    /// Would a verdict of `m` (at any confidence its row allows) be taken now? A classifier
    /// with several lookups asks before each, so a lookup whose answer cannot win is not made.
    #[inline]
    pub fn would_take(&self, class: &FlowClass, m: Method) -> bool {
        let row = m.row();
        self.set.has(m)
            && !(row.alone_at.is_some() && class.method.is_some())
            && !class.facts.any(row.refused_by)
            && class
                .method
                .is_none_or(|c| above(m, 1.0, c, class.confidence))
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

    /// Payload inspection names a flow that a learned method ([`Row::learned`]) labelled:
    /// `join(learned, payload)` says what the two labels agree on (the learned one, or the
    /// payload's master with the learned application: [`join`]), None if the payload
    /// contradicts it; a payload verdict that carries a name of its own no rule knows
    /// (`own_unknown`, [`name_payload`]) agrees only with the same label. Agreement keeps the
    /// learned verdict and its time to bind, with the joined label
    /// ([`Facts::LEARNED_CONFIRMED`]), except over the Dedicated Port Table's hint, where the
    /// payload's verdict takes the joined label; a contradiction gives the flow the payload's
    /// verdict ([`Facts::LEARNED_CORRECTED`]). Any other flow: an ordinary [`Arbiter::refine`].
    #[inline]
    pub fn check_learned(
        &self,
        class: &mut FlowClass,
        new: Verdict,
        own_unknown: bool,
        join: impl FnOnce(LabelId, LabelId) -> Option<LabelId>,
    ) -> bool {
        match class.method {
            Some(m) if m.is_learned() && new.method == Method::Dpi => {
                let joined = if class.label == new.label || !own_unknown {
                    join(class.label, new.label)
                } else {
                    None
                };
                match joined {
                    // The end-points' history is the weakest hint: the payload named the flow,
                    // the hint only completes its name (`TLS` on a port that served
                    // `TLS.YouTube`).
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
                }
            }
            _ => self.refine(class, new),
        }
    }

    /// The flow ends: a verdict that a fact published after it contradicts
    /// ([`Row::refused_by`]: the statistical verdict, by [`Facts::PAYLOAD_RULED_OUT`]) is taken
    /// back (the flow keeps what another method offers at its end, if anything). Returns true
    /// if the verdict was taken back.
    #[inline]
    pub fn at_end(&self, class: &mut FlowClass) -> bool {
        if let Some(m) = class.method {
            if class.facts.any(m.row().refused_by) {
                class.set(None);
                return true;
            }
        }
        false
    }

    /// At the flow's end (after [`Arbiter::at_end`]), is `m` asked for its verdict again
    /// ([`Row::again_at_end`]: the port table's guess, where the flow was left without one)?
    #[inline]
    pub fn asks_again_at_end(&self, class: &FlowClass, m: Method) -> bool {
        m.row().again_at_end && class.method.is_none()
    }
}

/// Do a learned label and payload inspection's label agree, and on what? The same label; an
/// application alone named by the payload with its master (`YouTube`, `TLS.YouTube`: the
/// latter); or a payload verdict that is a master alone (`TLS`) under a learned label that has
/// that master (`TLS.YouTube` from the host cache: the learned one) or that names an
/// application alone (`YouTube` from DNS: `master_app()`, the payload master's name for that
/// application, `TLS.YouTube`, if the run has one). None: the payload contradicts what was
/// learned.
#[inline]
pub fn join(
    labels: &Labels,
    learned: LabelId,
    payload: LabelId,
    master_app: impl FnOnce() -> Option<LabelId>,
) -> Option<LabelId> {
    if learned == payload {
        return Some(learned);
    }
    let (l, d) = (labels.get(learned), labels.get(payload));
    // An application alone (`YouTube`, from DNS), named by the payload with its master.
    if l.master() == l.app() && l.app() == d.app() {
        return Some(payload);
    }
    if d.master() != d.app() {
        return None;
    }
    if l.master() == d.master() {
        return Some(learned);
    }
    // An application alone under a naming master: that master's name for it.
    if l.master() != l.app() {
        return None;
    }
    master_app()
}

/// The name payload inspection's verdict `label` takes, and whether it carries a name of its
/// own that no rule knows: the service its host name belongs to (`by_host`: `TLS.YouTube` for
/// `TLS` with a known SNI) first; else, when the flow carries no name of its own or one no rule
/// knows (`carries_name`), the calling application whose relay its server is (`by_owner`:
/// `STUN.TelegramVoip`); else the label itself. A name of its own that no rule knows means what
/// was learned about the end-point does not name this flow (a resolver's queries, a CDN's many
/// hosts: [`Arbiter::check_learned`]).
#[inline]
pub fn name_payload(
    label: LabelId,
    by_host: impl FnOnce() -> Option<LabelId>,
    carries_name: impl FnOnce() -> bool,
    by_owner: impl FnOnce() -> Option<LabelId>,
) -> (LabelId, bool) {
    let named = by_host();
    let own_unknown = named.is_none() && carries_name();
    let label = named.or_else(by_owner).unwrap_or(label);
    (label, own_unknown)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Breed, ClassifierSet};

    /// One step of a flow's classification, in the order the stage runs them; a step is one
    /// packet (its number, from 1, is the time to bind of a verdict it gives).
    #[derive(Clone, Copy, Debug)]
    enum Step {
        /// A method's verdict, at its table confidence.
        Offer(Method, u16),
        /// A method's verdict at a confidence of its own (an owner that runs its application).
        OfferAt(Method, u16, f32),
        /// The statistical model's verdict, at its confidence.
        Model(u16, f32),
        /// The learned classifier's lookups at the first packet: what the Host Cache, the DNS
        /// cache and the Dedicated Port Table would answer; each asked only while
        /// [`Arbiter::would_take`] says its verdict would be taken.
        Learned(Option<u16>, Option<u16>, Option<u16>),
        /// A finer name by a method.
        Refine(Method, u16),
        /// Payload inspection's verdict: its label, whether it carries a name of its own no rule
        /// knows, and what [`join`] says of it and the learned label.
        Payload(u16, bool, Option<u16>),
        /// A fact published.
        Publish(Facts),
        /// A finer name a method finds later (a host name after the payload's verdict): it
        /// refines the method's own verdict only.
        Late(Method, u16),
        /// The flow's end: take-backs, then the port table asked again (its guess, if any).
        End(Option<u16>),
    }
    use Step::*;

    // Labels.
    const PORT: u16 = 1;
    const OWNER: u16 = 2;
    const TLS: u16 = 3;
    const DTLS: u16 = 4;
    const LEARNED: u16 = 5;
    const JOINED: u16 = 6;
    const MODEL: u16 = 7;
    const OTHER: u16 = 8;

    /// Which classifier wins: (case, enabled classifiers, the offers in order) → (label,
    /// method, confidence, time to bind in packets) and facts the flow must have; None: no
    /// verdict. A change of precedence is a change of rows here.
    #[rustfmt::skip]
    #[allow(clippy::type_complexity)]
    const CASES: &[(&str, &str, &[Step], Option<(u16, Method, f32, u32)>, Facts)] = &[
        // Ranks: a higher rank wins; the first verdict of a method stands.
        ("port guess alone", "all", &[Offer(Method::Port, PORT)], Some((PORT, Method::Port, 0.2, 1)), Facts::NONE),
        ("first of a method stands", "all", &[Offer(Method::Port, PORT), Offer(Method::Port, OTHER)], Some((PORT, Method::Port, 0.2, 1)), Facts::NONE),
        ("port guess over owner", "all", &[Offer(Method::Port, PORT), Offer(Method::Ip, OWNER)], Some((PORT, Method::Port, 0.2, 1)), Facts::NONE),
        ("owner where no port guess", "all", &[Offer(Method::Ip, OWNER)], Some((OWNER, Method::Ip, 0.5, 1)), Facts::NONE),
        ("port guess after owner", "all", &[Offer(Method::Ip, OWNER), Offer(Method::Port, PORT)], Some((PORT, Method::Port, 0.2, 2)), Facts::NONE),
        // An owner that runs its own application: above the port's guess, below the rest.
        ("app owner over port guess", "all", &[Offer(Method::Port, PORT), OfferAt(Method::Ip, OWNER, OWNER_APP_CONFIDENCE)], Some((OWNER, Method::Ip, 0.7, 2)), Facts::NONE),
        ("port guess not over app owner", "all", &[OfferAt(Method::Ip, OWNER, OWNER_APP_CONFIDENCE), Offer(Method::Port, PORT)], Some((OWNER, Method::Ip, 0.7, 1)), Facts::NONE),
        ("weak owner stays below port", "all", &[Offer(Method::Port, PORT), OfferAt(Method::Ip, OWNER, 0.69)], Some((PORT, Method::Port, 0.2, 1)), Facts::NONE),
        ("dns cache over app owner", "all", &[OfferAt(Method::Ip, OWNER, OWNER_APP_CONFIDENCE), Learned(None, Some(LEARNED), None)], Some((LEARNED, Method::DnsCache, 0.6, 2)), Facts::NONE),
        ("dpt over app owner", "all", &[OfferAt(Method::Ip, OWNER, OWNER_APP_CONFIDENCE), Learned(None, None, Some(LEARNED))], Some((LEARNED, Method::Dpt, 0.4, 2)), Facts::NONE),
        ("payload over app owner", "all", &[OfferAt(Method::Ip, OWNER, OWNER_APP_CONFIDENCE), Payload(TLS, false, None)], Some((TLS, Method::Dpi, 0.9, 2)), Facts::NONE),
        ("model never over app owner", "all", &[OfferAt(Method::Ip, OWNER, OWNER_APP_CONFIDENCE), Model(MODEL, 1.0)], Some((OWNER, Method::Ip, 0.7, 1)), Facts::NONE),
        ("port disabled, app owner alone", "ip", &[Offer(Method::Port, PORT), OfferAt(Method::Ip, OWNER, OWNER_APP_CONFIDENCE)], Some((OWNER, Method::Ip, 0.7, 2)), Facts::NONE),
        ("payload over port", "all", &[Offer(Method::Port, PORT), Payload(TLS, false, None)], Some((TLS, Method::Dpi, 0.9, 2)), Facts::NONE),
        ("disabled payload refused", "port", &[Offer(Method::Port, PORT), Payload(TLS, false, None)], Some((PORT, Method::Port, 0.2, 1)), Facts::NONE),
        ("nothing enabled", "none", &[Offer(Method::Port, PORT), Offer(Method::Ip, OWNER)], None, Facts::NONE),
        // A method's finer name replaces its own label, keeping its time to bind.
        ("payload refines its own", "all", &[Payload(TLS, false, None), Refine(Method::Dpi, DTLS)], Some((DTLS, Method::Dpi, 0.9, 1)), Facts::NONE),
        ("refinement over another's is an offer", "all", &[Offer(Method::Port, PORT), Refine(Method::Dpi, DTLS)], Some((DTLS, Method::Dpi, 0.9, 2)), Facts::NONE),
        ("refinement below is refused", "all", &[Payload(TLS, false, None), Refine(Method::Port, OTHER)], Some((TLS, Method::Dpi, 0.9, 1)), Facts::NONE),
        // The statistical model: alone, sure, not against the payload.
        ("model alone and sure", "all", &[Model(MODEL, 0.8)], Some((MODEL, Method::Stats, 0.8, 1)), Facts::NONE),
        ("model unsure", "all", &[Model(MODEL, 0.79)], None, Facts::NONE),
        ("model never over port", "all", &[Offer(Method::Port, PORT), Model(MODEL, 1.0)], Some((PORT, Method::Port, 0.2, 1)), Facts::NONE),
        ("model never over owner", "all", &[Offer(Method::Ip, OWNER), Model(MODEL, 1.0)], Some((OWNER, Method::Ip, 0.5, 1)), Facts::NONE),
        ("model never over learned", "all", &[Learned(Some(LEARNED), None, None), Model(MODEL, 1.0)], Some((LEARNED, Method::HostCache, 0.8, 1)), Facts::NONE),
        ("model disabled", "port,dpi", &[Model(MODEL, 1.0)], None, Facts::NONE),
        ("model against ruled-out payload", "all", &[Publish(Facts::PAYLOAD_RULED_OUT), Model(MODEL, 1.0)], None, Facts::NONE),
        ("model taken back at end", "all", &[Model(MODEL, 1.0), Publish(Facts::PAYLOAD_RULED_OUT), End(None)], None, Facts::NONE),
        ("port asked again at end", "all", &[Model(MODEL, 1.0), Publish(Facts::PAYLOAD_RULED_OUT), End(Some(PORT))], Some((PORT, Method::Port, 0.2, 3)), Facts::NONE),
        ("model against its classes ruled out", "all", &[Publish(Facts::MODEL_RULED_OUT), Model(MODEL, 1.0)], None, Facts::NONE),
        ("model taken back when its classes are", "all", &[Model(MODEL, 1.0), Publish(Facts::MODEL_RULED_OUT), End(Some(PORT))], Some((PORT, Method::Port, 0.2, 3)), Facts::NONE),
        ("model taken back without payload", "all", &[Model(MODEL, 1.0), Publish(Facts::NO_PAYLOAD), End(None)], None, Facts::NONE),
        ("model stays at end", "all", &[Model(MODEL, 1.0), End(Some(PORT))], Some((MODEL, Method::Stats, 1.0, 1)), Facts::NONE),
        ("payload over model", "all", &[Model(MODEL, 1.0), Payload(TLS, false, None)], Some((TLS, Method::Dpi, 0.9, 2)), Facts::NONE),
        // Learned labels: Host Cache, then DNS cache, then the Dedicated Port Table.
        ("host cache first", "all", &[Offer(Method::Port, PORT), Learned(Some(LEARNED), Some(OTHER), Some(OTHER))], Some((LEARNED, Method::HostCache, 0.8, 2)), Facts::NONE),
        ("dns cache next", "all", &[Offer(Method::Port, PORT), Offer(Method::Ip, OWNER), Learned(None, Some(LEARNED), Some(OTHER))], Some((LEARNED, Method::DnsCache, 0.6, 3)), Facts::NONE),
        ("dpt last", "all", &[Offer(Method::Port, PORT), Learned(None, None, Some(LEARNED))], Some((LEARNED, Method::Dpt, 0.4, 2)), Facts::NONE),
        ("host cache disabled", "port,dns-cache,dpt,dpi", &[Learned(Some(OTHER), Some(LEARNED), None)], Some((LEARNED, Method::DnsCache, 0.6, 1)), Facts::NONE),
        // Payload inspection confirms, completes or corrects a learned label.
        ("payload confirms host cache", "all", &[Learned(Some(LEARNED), None, None), Payload(TLS, false, Some(LEARNED))], Some((LEARNED, Method::HostCache, 0.8, 1)), Facts::LEARNED_CONFIRMED),
        ("payload completes dns cache", "all", &[Learned(None, Some(LEARNED), None), Payload(TLS, false, Some(JOINED))], Some((JOINED, Method::DnsCache, 0.6, 1)), Facts::LEARNED_CONFIRMED),
        ("payload corrects host cache", "all", &[Learned(Some(LEARNED), None, None), Payload(TLS, false, None)], Some((TLS, Method::Dpi, 0.9, 2)), Facts::LEARNED_CORRECTED),
        ("payload over dpt hint, joined", "all", &[Learned(None, None, Some(LEARNED)), Payload(TLS, false, Some(JOINED))], Some((JOINED, Method::Dpi, 0.9, 2)), Facts::NONE),
        ("own unknown name corrects", "all", &[Learned(Some(LEARNED), None, None), Payload(TLS, true, Some(JOINED))], Some((TLS, Method::Dpi, 0.9, 2)), Facts::LEARNED_CORRECTED),
        ("own unknown name, same label", "all", &[Learned(Some(TLS), None, None), Payload(TLS, true, Some(TLS))], Some((TLS, Method::HostCache, 0.8, 1)), Facts::LEARNED_CONFIRMED),
        ("late name renames the payload's own", "all", &[Payload(TLS, false, None), Late(Method::Dpi, JOINED)], Some((JOINED, Method::Dpi, 0.9, 1)), Facts::NONE),
        ("late name leaves a confirmed label", "all", &[Learned(Some(LEARNED), None, None), Payload(TLS, false, Some(LEARNED)), Late(Method::Dpi, JOINED)], Some((LEARNED, Method::HostCache, 0.8, 1)), Facts::LEARNED_CONFIRMED),
        ("payload over port is no check", "all", &[Offer(Method::Port, PORT), Payload(TLS, false, Some(JOINED))], Some((TLS, Method::Dpi, 0.9, 2)), Facts::NONE),
    ];

    /// Run `steps` through an arbiter over `enabled`.
    fn run(enabled: &str, steps: &[Step]) -> FlowClass {
        let a = Arbiter::new(ClassifierSet::parse(enabled).unwrap());
        let mut c = FlowClass::default();
        for (i, s) in steps.iter().enumerate() {
            let v = |m: Method, l: u16| Verdict {
                label: LabelId(l),
                method: m,
                confidence: m.row().confidence.unwrap_or(1.0),
                ttb_pkts: i as u32 + 1,
                ttb_ns: 0,
            };
            match *s {
                Offer(m, l) => {
                    let would = a.would_take(&c, m);
                    let took = a.offer(&mut c, v(m, l));
                    if m.row().over.is_some() {
                        // Its strong verdicts may be taken where this one is not.
                        assert!(!took || would, "would_take {m:?}");
                    } else {
                        assert_eq!(took, would, "would_take {m:?}");
                    }
                }
                OfferAt(m, l, confidence) => {
                    // `would_take` cannot know the confidence: it must not refuse what is taken.
                    let would = a.would_take(&c, m);
                    let took = a.offer(
                        &mut c,
                        Verdict {
                            confidence,
                            ..v(m, l)
                        },
                    );
                    assert!(!took || would, "would_take {m:?}");
                }
                Model(l, confidence) => {
                    a.offer(
                        &mut c,
                        Verdict {
                            confidence,
                            ..v(Method::Stats, l)
                        },
                    );
                }
                Learned(host, dns, dpt) => {
                    for (m, l) in [
                        (Method::HostCache, host),
                        (Method::DnsCache, dns),
                        (Method::Dpt, dpt),
                    ] {
                        if let Some(l) = l.filter(|_| a.would_take(&c, m)) {
                            assert!(a.offer(&mut c, v(m, l)));
                        }
                    }
                }
                Refine(m, l) => {
                    a.refine(&mut c, v(m, l));
                }
                Payload(l, own_unknown, joins) => {
                    a.check_learned(&mut c, v(Method::Dpi, l), own_unknown, |_, _| {
                        joins.map(LabelId)
                    });
                }
                Late(m, l) => {
                    if c.own(m).is_some() {
                        a.refine(&mut c, v(m, l));
                    }
                }
                Publish(f) => c.publish(f),
                End(port) => {
                    a.at_end(&mut c);
                    if let Some(l) = port.filter(|_| a.asks_again_at_end(&c, Method::Port)) {
                        a.offer(&mut c, v(Method::Port, l));
                    }
                }
            }
        }
        c
    }

    #[test]
    fn precedence() {
        for &(case, enabled, steps, want, facts) in CASES {
            let c = run(enabled, steps);
            let got = c
                .verdict()
                .map(|v| (v.label.0, v.method, v.confidence, v.ttb_pkts));
            assert_eq!(got, want, "{case}");
            assert!(c.facts().has(facts), "{case}: facts {:?}", c.facts());
        }
    }

    #[test]
    fn ranks_are_the_tables_order() {
        for (i, r) in RANKING.iter().enumerate() {
            assert_eq!(usize::from(r.method.rank()), i + 1);
            assert_eq!(Method::ALL[i], r.method);
            assert_eq!(r.method.row(), *r);
        }
        assert_eq!(
            (PORT_CONFIDENCE, OWNER_CONFIDENCE, DPT_CONFIDENCE),
            (0.2, 0.5, 0.4)
        );
        assert_eq!(
            (DNS_CACHE_CONFIDENCE, HOST_CACHE_CONFIDENCE, DPI_CONFIDENCE),
            (0.6, 0.8, 0.9)
        );
        let learned: Vec<Method> = Method::ALL.into_iter().filter(|m| m.is_learned()).collect();
        assert_eq!(learned, [Method::Dpt, Method::DnsCache, Method::HostCache]);
    }

    #[test]
    fn a_lesson_is_a_label_payload_inspection_stands_behind_once() {
        let a = Arbiter::new(ClassifierSet::all());
        let v = |m, l| Verdict {
            label: LabelId(l),
            method: m,
            confidence: 1.0,
            ttb_pkts: 1,
            ttb_ns: 0,
        };
        let mut c = FlowClass::default();
        a.offer(&mut c, v(Method::Port, PORT));
        assert_eq!(c.lesson(), None);
        a.offer(&mut c, v(Method::HostCache, LEARNED));
        assert_eq!(c.lesson(), None, "learned, not yet confirmed");
        a.check_learned(&mut c, v(Method::Dpi, TLS), false, |l, _| Some(l));
        assert_eq!(c.lesson(), Some(LabelId(LEARNED)));
        c.publish(Facts::TAUGHT);
        assert_eq!(c.lesson(), None, "taught once");
        let mut c = FlowClass::default();
        a.offer(&mut c, v(Method::Dpi, TLS));
        assert_eq!(c.lesson(), Some(LabelId(TLS)));
    }

    #[test]
    fn names_join_by_master_and_application() {
        let mut labels = Labels::new();
        let mut l = |m: &str, a: &str| labels.intern(m, a, "Web", Breed::Unrated).unwrap();
        let (tls, quic) = (l("TLS", "TLS"), l("QUIC", "QUIC"));
        let (youtube, tls_youtube, quic_youtube) = (
            l("YouTube", "YouTube"),
            l("TLS", "YouTube"),
            l("QUIC", "YouTube"),
        );
        let tls_google = l("TLS", "Google");
        let master_app = || Some(tls_youtube);
        let j = |learned, payload| join(&labels, learned, payload, master_app);
        assert_eq!(j(tls, tls), Some(tls), "the same label");
        assert_eq!(
            j(youtube, tls_youtube),
            Some(tls_youtube),
            "payload names the app"
        );
        assert_eq!(
            j(tls_google, tls_youtube),
            None,
            "payload names another app"
        );
        assert_eq!(
            j(tls_youtube, tls),
            Some(tls_youtube),
            "the learned label has the master"
        );
        assert_eq!(
            j(youtube, tls),
            Some(tls_youtube),
            "the master's name for the app"
        );
        assert_eq!(j(quic_youtube, tls), None, "another master");
        assert_eq!(j(tls_youtube, quic), None, "another master");
        assert_eq!(
            join(&labels, youtube, quic, || None),
            None,
            "no name for it"
        );
    }

    #[test]
    fn a_payload_label_takes_its_host_name_first_then_its_owner() {
        let (tls, named, call) = (LabelId(1), LabelId(2), LabelId(3));
        let n = |host, carries, owner| name_payload(tls, || host, || carries, || owner);
        assert_eq!(n(Some(named), true, Some(call)), (named, false));
        assert_eq!(n(None, false, Some(call)), (call, false));
        assert_eq!(n(None, true, Some(call)), (call, true));
        assert_eq!(n(None, true, None), (tls, true));
        assert_eq!(n(None, false, None), (tls, false));
    }
}
