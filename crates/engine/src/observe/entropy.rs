//! nDPI's Susp Entropy (issue 22): which payload's entropy nDPI's verdict rests on, followed
//! per flow with two bytes and no allocation (`--stats entropy` only).
//!
//! nDPI at the corpus's commit 3c626c38 (ndpi_main.c, `ndpi_internal_detection_process_packet`;
//! `ndpi_entropy2risk` in ndpi_utils.c; the same in the 4.15 development line) measures the
//! Shannon entropy of the current packet's transport payload on every packet it dissects while
//! fewer than 5 packets with payload were seen, and decides the risk again each time: so the
//! packet that counts is the last one dissected, and a packet without payload (entropy 0)
//! clears it. ndpiReader stops handing it a flow at the packet that detects the protocol, and
//! packets of extra dissection return before this step. An HTTP flow keeps the entropy it had
//! (its payload is not measured). ICMP is measured once, on the first packet, after the 8-byte
//! header, before any category is known (`guess_protocol_id`), so any value at or above the
//! plain-text bound raises the risk. ICMPv6 is measured with its Network category, which needs
//! a hint risk that ICMPv6 flows do not get here: not measured.
//!
//! Where this differs: nDPI's fully-encrypted heuristic (on by default at that commit) spares
//! an unknown TCP flow whose first payload looks fully encrypted; that heuristic is not here.
//! A flow nDPI names later than wirespeed (an HTTP request split over segments, which nDPI
//! waits for and wirespeed reassembles) is measured on fewer packets here.
//!
//! What the record then needs ([`Track::high`], [`Track::before_dpi`]) goes to
//! [`wirespeed_risk::assess`], which applies `ndpi_entropy2risk`'s rule.

use crate::classify::FlowExt;
use crate::observe::{Cx, Observed, Observer, Packet};
use crate::rules::Rules;
use wirespeed_classify::{Method, Verdict};
use wirespeed_flow::Flow;
use wirespeed_risk::entropy_high;

/// Bytes [`Entropy`] reserves a flow slot.
pub(crate) const SLOT_BYTES: usize = std::mem::size_of::<(u64, Track)>();

/// The tracks of every flow of one worker's table (`--stats entropy`), by slot, each with its
/// flow's serial plus one (0: free); a slot's track starts afresh when a new flow (another
/// serial) takes it.
pub(crate) struct Entropy {
    slots: Vec<(u64, Track)>,
    /// From [`Observer::before`] to [`Observer::packet`] of one packet: whether the flow had
    /// its payload verdict before it, when its track still measures (None: nothing to measure).
    had_dpi: Option<bool>,
}

impl Entropy {
    /// Zeroed memory: the kernel gives its pages as flows first touch them, nothing is
    /// written at start.
    pub(crate) fn new(slots: usize) -> Self {
        Entropy {
            slots: bytemuck::zeroed_vec(slots),
            had_dpi: None,
        }
    }

    /// [`Track::packet`] for the packet the classifiers just saw. (Out of line, with the
    /// packet's facts by value: a [`Packet`] whose address escaped would be built in memory
    /// for every packet.)
    #[inline(never)]
    fn measure(
        &mut self,
        slot: u32,
        f: &Flow<FlowExt>,
        had_dpi: bool,
        rules: &Rules,
        payload: &[u8],
        first: bool,
    ) {
        if let Some(s) = self.slots.get_mut(slot as usize) {
            let now = f.ext.class.verdict();
            s.1.packet(f.key.proto, had_dpi, now, rules, payload, first);
        }
    }
}

impl Observer for Entropy {
    /// The track: Susp Entropy is judged from it.
    const HAS_FACTS: bool = true;

    /// The track of the flow in its slot (afresh for a new flow); when it still measures,
    /// whether the flow had its payload verdict before this packet.
    #[inline]
    fn before(&mut self, p: &Packet<'_>, f: &Flow<FlowExt>) {
        self.had_dpi = self.slots.get_mut(p.slot as usize).and_then(|s| {
            if s.0 != f.serial + 1 {
                *s = (f.serial + 1, Track::default());
            }
            (!s.1.done()).then(|| {
                f.ext
                    .class
                    .verdict()
                    .is_some_and(|v| v.method == Method::Dpi)
            })
        });
    }

    #[inline]
    fn packet(&mut self, p: &Packet<'_>, f: &Flow<FlowExt>, cx: &mut Cx<'_>) {
        if let Some(had) = self.had_dpi.take() {
            self.measure(p.slot, f, had, cx.rules, p.payload, p.first);
        }
    }

    /// The flow's track (default: nothing measured).
    #[inline]
    fn facts(&self, slot: u32, serial: u64, into: &mut Observed) {
        if let Some(s) = self.slots.get(slot as usize).filter(|s| s.0 == serial + 1) {
            into.entropy = s.1;
        }
    }
}

/// The payload packets nDPI measures (its `packet_counter` below 5).
const MEASURED: u8 = 4;

/// Per-flow state: payload packets seen and what the last measured packet gave.
#[derive(Clone, Copy, Debug, Default, bytemuck::Zeroable)]
pub struct Track {
    /// Packets with payload measured so far.
    n: u8,
    /// [`HIGH`], [`BEFORE_DPI`], [`DONE`].
    flags: u8,
}

/// The last measured payload was at or above nDPI's plain-text bound (4.941 bits a byte).
const HIGH: u8 = 1;
/// The flow had no payload verdict yet at that packet (nDPI's confidence not DPI: the risk is
/// raised on entropy alone).
const BEFORE_DPI: u8 = 2;
/// No later packet is measured.
const DONE: u8 = 4;

impl Track {
    /// The last measured payload's entropy was at or above the plain-text bound.
    pub fn high(&self) -> bool {
        self.flags & HIGH != 0
    }

    /// That packet came before the flow's payload verdict.
    pub fn before_dpi(&self) -> bool {
        self.flags & BEFORE_DPI != 0
    }

    /// Nothing more to measure: the caller may skip [`Track::packet`].
    #[inline]
    pub fn done(&self) -> bool {
        self.flags & DONE != 0
    }

    /// One packet of the flow (IP protocol `proto`), after the classifiers saw it: `had_dpi`
    /// whether the flow had a payload verdict before it, `now` the verdict after it, `first`
    /// whether it is the flow's first packet.
    pub fn packet(
        &mut self,
        proto: u8,
        had_dpi: bool,
        now: Option<Verdict>,
        rules: &Rules,
        payload: &[u8],
        first: bool,
    ) {
        match proto {
            1 => {
                // ICMP: the first packet only, its data after the header (the payload here).
                if first {
                    self.set(entropy_high(payload));
                }
                // Decided before the label's category counts.
                self.flags |= DONE | BEFORE_DPI;
                return;
            }
            6 | 17 => {}
            // ICMPv6 (see above), and transports nDPI does not dissect.
            _ => {
                self.flags |= DONE;
                return;
            }
        }
        if had_dpi {
            self.flags |= DONE;
            return;
        }
        if !payload.is_empty() {
            if self.n >= MEASURED {
                self.flags |= DONE;
                return;
            }
            self.n += 1;
        }
        let dpi = now.filter(|v| v.method == Method::Dpi);
        let kind = dpi.and_then(|v| rules.risk_kind(v.label));
        if !kind.is_some_and(|k| k.http()) {
            // Measured only where the value can count: before the verdict, or for a label
            // whose category lets nDPI's rule raise it.
            let counts = dpi.is_none() || kind.is_some_and(|k| k.entropy_counts());
            self.set(counts && entropy_high(payload));
        }
        if dpi.is_some() {
            self.flags = (self.flags & !BEFORE_DPI) | DONE;
        } else {
            self.flags |= BEFORE_DPI;
        }
    }

    fn set(&mut self, high: bool) {
        if high {
            self.flags |= HIGH;
        } else {
            self.flags &= !HIGH;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bytes with entropy log2(256) = 8: every value once.
    fn random() -> Vec<u8> {
        (0..=255u8).collect()
    }

    fn verdict(rules: &Rules, master: &str) -> Verdict {
        let (label, _) = rules
            .labels()
            .iter()
            .find(|(_, n)| n.master() == master && n.app() == master)
            .expect("label");
        Verdict {
            label,
            method: Method::Dpi,
            confidence: 0.9,
            ttb_pkts: 1,
            ttb_ns: 0,
        }
    }

    /// Before any verdict, the last measured packet decides: high, then cleared by a packet
    /// without payload, then high again; the fifth payload packet is not measured.
    #[test]
    fn the_last_measured_packet_decides() {
        let rules = Rules::builtin();
        let text = b"GET / HTTP/1.1\r\nHost: example.com\r\n\r\n".repeat(2);
        let mut t = Track::default();
        t.packet(17, false, None, &rules, &random(), true);
        assert!(t.high() && t.before_dpi() && !t.done());
        t.packet(6, false, None, &rules, &[], false);
        assert!(!t.high(), "an empty packet measures 0");
        for _ in 0..3 {
            t.packet(6, false, None, &rules, &random(), false);
        }
        assert!(t.high());
        t.packet(6, false, None, &rules, &text, false);
        assert!(
            t.high() && t.done(),
            "the fifth payload packet is not measured"
        );
        // Short payloads cannot reach the bound (log2(30) < 4.941).
        let mut t = Track::default();
        t.packet(17, false, None, &rules, &random()[..30], true);
        assert!(!t.high());
    }

    /// The packet that brings the payload verdict is the last measured; a TLS verdict is never
    /// measured (nDPI exempts it), a flow that had the verdict before is not measured again.
    #[test]
    fn measuring_ends_at_the_verdict() {
        let rules = Rules::builtin();
        let tls = verdict(&rules, "TLS");
        let mut t = Track::default();
        t.packet(6, false, Some(tls), &rules, &random(), true);
        assert!(!t.high() && !t.before_dpi() && t.done());
        let unknown = verdict(&rules, "Unknown");
        let mut t = Track::default();
        t.packet(17, false, Some(unknown), &rules, &random(), true);
        assert!(
            t.high() && !t.before_dpi() && t.done(),
            "category Unspecified counts"
        );
        let mut t = Track::default();
        t.packet(17, true, Some(unknown), &rules, &random(), false);
        assert!(!t.high() && t.done());
    }

    /// ICMP: the first packet's data only, decided before any category; ICMPv6 and other
    /// transports are not measured.
    #[test]
    fn icmp_first_packet_only() {
        let rules = Rules::builtin();
        let mut t = Track::default();
        t.packet(1, false, None, &rules, &random(), true);
        assert!(t.high() && t.before_dpi() && t.done());
        for proto in [58, 50, 132] {
            let mut t = Track::default();
            t.packet(proto, false, None, &rules, &random(), true);
            assert!(!t.high() && t.done(), "{proto}");
        }
    }
}
