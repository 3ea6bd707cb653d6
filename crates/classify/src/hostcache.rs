//! Seed 002's Host Cache (AtoZ §4.2): rules {server IP, port, transport} → label, learned from
//! the flows payload inspection labelled, so later flows to a known server end-point are
//! labelled at their first packet (time to bind zero).
//!
//! Per time window: every flow labelled by payload counts for its server end-point (`x` flows,
//! `p` the share of the majority label). At the window's end each end-point's utility is
//! `U = x·p` (the flows of the majority label), the seed's `f(x, p)` increasing in both. End-
//! points with `U ≥ U_th` become rules (or renew theirs); a rule whose end-point's flows now
//! mostly carry another label is replaced or, below `U_th`, dropped; more rules than the
//! capacity `H` keep the top `H` by utility. A rule lives `ttl` from its admission, however well
//! it performs (the seed expires entries periodically "to maintain accurate traffic
//! classification"); one window later the end-point may be admitted again.
//!
//! Rules learned in a window are used from the next one: lookups never change the cache. Every
//! choice is ordered (utility, then the end-point) so two runs that observe the same flows hold
//! the same rules. Memory: at most `H` rules and `candidates` end-points per window.

use std::collections::HashMap;
use std::net::IpAddr;

/// foldhash with a per-process random seed (the flow table's hash family): a few multiplies a
/// key instead of SipHash's rounds; keys are addresses traffic chooses, so the seed is random.
type Hasher = foldhash::fast::RandomState;

/// A server end-point: address, port, transport.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Endpoint {
    /// The server's address.
    pub ip: IpAddr,
    /// The server's port.
    pub port: u16,
    /// The IP protocol (6 TCP, 17 UDP, …).
    pub proto: u8,
}

/// An end-point packed as two integers ([`Endpoint::packed`]).
type Key = (u128, u32);

impl Endpoint {
    /// The end-point as two integers: the address, then port, transport and family. One hash
    /// write instead of four, and integer comparisons (the tables' keys and orders).
    #[inline]
    pub fn packed(&self) -> (u128, u32) {
        let (a, v6) = match self.ip {
            IpAddr::V4(a) => (u128::from(u32::from(a)), 0),
            IpAddr::V6(a) => (u128::from(a), 1),
        };
        (
            a,
            u32::from(self.port) << 16 | u32::from(self.proto) << 8 | v6,
        )
    }
}

/// The cache's parameters (seed 002: window 30–45 s, U_th 10, H 128–2048).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostCacheConfig {
    /// H: most rules held.
    pub capacity: usize,
    /// Length of a measurement window, ns.
    pub window_ns: u64,
    /// U_th: the utility an end-point needs in a window to become a rule.
    pub uth: u32,
    /// How long a rule lives from its admission, ns.
    pub ttl_ns: u64,
    /// Most end-points counted in one window (more are not counted, and counted as such).
    pub candidates: usize,
}

impl Default for HostCacheConfig {
    fn default() -> Self {
        HostCacheConfig {
            capacity: 2048,
            window_ns: 30_000_000_000,
            uth: 10,
            ttl_ns: 3_600_000_000_000,
            candidates: 1 << 16,
        }
    }
}

/// What the cache did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HostCacheStats {
    /// Windows closed.
    pub windows: u64,
    /// Rules admitted (end-points new to the cache).
    pub admitted: u64,
    /// Rules renewed by a later window's flows (same label).
    pub renewed: u64,
    /// Rules whose end-point's flows mostly carried another label: replaced by it, or dropped.
    pub contradicted: u64,
    /// Rules that reached their time to live.
    pub expired: u64,
    /// Rules dropped to keep the top H.
    pub evicted: u64,
    /// Flows not counted because the window's end-point table was full.
    pub uncounted: u64,
}

/// Distinct labels counted apart per end-point and window; flows of further labels count in
/// `x` only (they lower `p`).
const LABELS_PER_ENDPOINT: usize = 4;

#[derive(Clone, Copy, Debug)]
struct Candidate<V> {
    counts: [(V, u32); LABELS_PER_ENDPOINT],
    used: u8,
    total: u32,
}

impl<V: Copy + Ord> Candidate<V> {
    fn new(v: V) -> Self {
        Candidate {
            counts: [(v, 0); LABELS_PER_ENDPOINT],
            used: 0,
            total: 0,
        }
    }

    fn add(&mut self, v: V) {
        self.total = self.total.saturating_add(1);
        let used = usize::from(self.used);
        if let Some(c) = self.counts[..used].iter_mut().find(|c| c.0 == v) {
            c.1 += 1;
        } else if used < LABELS_PER_ENDPOINT {
            self.counts[used] = (v, 1);
            self.used += 1;
        }
    }

    /// The majority label and its count (`x·p`); ties go to the smaller label.
    fn majority(&self) -> (V, u32) {
        let mut best = self.counts[0];
        for &c in &self.counts[1..usize::from(self.used)] {
            if c.1 > best.1 || (c.1 == best.1 && c.0 < best.0) {
                best = c;
            }
        }
        best
    }
}

#[derive(Clone, Copy, Debug)]
struct Rule<V> {
    value: V,
    utility: u32,
    born_ns: u64,
}

/// The Host Cache: the rules in force and the current window's counts.
#[derive(Clone, Debug)]
pub struct HostCache<V> {
    cfg: HostCacheConfig,
    /// Index of the window being counted.
    window: u64,
    cand: HashMap<Key, Candidate<V>, Hasher>,
    rules: HashMap<Key, Rule<V>, Hasher>,
    stats: HostCacheStats,
}

impl<V: Copy + Ord> HostCache<V> {
    /// An empty cache.
    pub fn new(cfg: HostCacheConfig) -> Self {
        HostCache {
            cfg: HostCacheConfig {
                window_ns: cfg.window_ns.max(1),
                ..cfg
            },
            window: 0,
            cand: HashMap::default(),
            rules: HashMap::default(),
            stats: HostCacheStats::default(),
        }
    }

    /// A flow to `ep` was labelled `value` by payload at `now_ns` (times never go back: the
    /// engine applies observations in capture order).
    pub fn observe(&mut self, ep: Endpoint, value: V, now_ns: u64) {
        self.advance(now_ns);
        let ep = ep.packed();
        let n = self.cand.len();
        if let Some(c) = self.cand.get_mut(&ep) {
            c.add(value);
        } else if n < self.cfg.candidates {
            let mut c = Candidate::new(value);
            c.add(value);
            self.cand.insert(ep, c);
        } else {
            self.stats.uncounted += 1;
        }
    }

    /// Capture time is `now_ns`: close every window that ended by then.
    pub fn advance(&mut self, now_ns: u64) {
        let w = now_ns / self.cfg.window_ns;
        if w > self.window {
            let end = (self.window + 1).saturating_mul(self.cfg.window_ns);
            self.close(end);
            self.window = w;
            // Windows without flows change nothing but the rules' age.
            self.expire(w.saturating_mul(self.cfg.window_ns));
        }
    }

    fn expire(&mut self, now_ns: u64) {
        let ttl = self.cfg.ttl_ns;
        let before = self.rules.len();
        self.rules
            .retain(|_, r| r.born_ns.saturating_add(ttl) > now_ns);
        self.stats.expired += (before - self.rules.len()) as u64;
    }

    fn close(&mut self, end_ns: u64) {
        self.stats.windows += 1;
        self.expire(end_ns);
        let uth = self.cfg.uth.max(1);
        // Each end-point's outcome depends on its own counts only (the capacity is applied
        // after, in a fixed order), so the map's order does not matter.
        let cands = std::mem::take(&mut self.cand);
        for (ep, c) in cands {
            let (value, u) = c.majority();
            let fresh = Rule {
                value,
                utility: u,
                born_ns: end_ns,
            };
            match self.rules.get_mut(&ep) {
                Some(r) if r.value == value && u >= uth => {
                    r.utility = u;
                    self.stats.renewed += 1;
                }
                Some(r) if r.value == value => {}
                Some(_) if u * 2 > c.total => {
                    // Most of the end-point's flows now carry another label.
                    self.stats.contradicted += 1;
                    if u >= uth {
                        self.rules.insert(ep, fresh);
                    } else {
                        self.rules.remove(&ep);
                    }
                }
                Some(_) => {}
                None if u >= uth => {
                    self.stats.admitted += 1;
                    self.rules.insert(ep, fresh);
                }
                None => {}
            }
        }
        if self.rules.len() > self.cfg.capacity {
            let mut all: Vec<(Key, Rule<V>)> = self.rules.drain().collect();
            all.sort_unstable_by(|a, b| b.1.utility.cmp(&a.1.utility).then(a.0.cmp(&b.0)));
            self.stats.evicted += (all.len() - self.cfg.capacity) as u64;
            all.truncate(self.cfg.capacity);
            self.rules.extend(all);
        }
    }

    /// The rule's label for `ep`, if one is in force at `now_ns`.
    #[inline]
    pub fn get(&self, ep: &Endpoint, now_ns: u64) -> Option<V> {
        let r = self.rules.get(&ep.packed())?;
        (r.born_ns.saturating_add(self.cfg.ttl_ns) > now_ns).then_some(r.value)
    }

    /// Rules in force.
    pub fn len(&self) -> usize {
        self.rules.len()
    }

    /// No rule?
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// What the cache did.
    pub fn stats(&self) -> HostCacheStats {
        self.stats
    }

    /// Forget every rule and count (counters stay): a new capture.
    pub fn clear(&mut self) {
        self.rules.clear();
        self.cand.clear();
        self.window = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const S: u64 = 1_000_000_000;

    fn ep(n: u8, port: u16) -> Endpoint {
        Endpoint {
            ip: IpAddr::from([192, 0, 2, n]),
            port,
            proto: 6,
        }
    }

    fn cfg(uth: u32, capacity: usize) -> HostCacheConfig {
        HostCacheConfig {
            capacity,
            window_ns: 30 * S,
            uth,
            ttl_ns: 300 * S,
            candidates: 64,
        }
    }

    #[test]
    fn rules_are_learned_in_one_window_and_used_from_the_next() {
        let mut c = HostCache::new(cfg(3, 8));
        for i in 0..3 {
            c.observe(ep(1, 443), 7u16, i * S);
        }
        // Two flows only: below U_th.
        c.observe(ep(2, 443), 8, 4 * S);
        c.observe(ep(2, 443), 8, 5 * S);
        assert_eq!(
            c.get(&ep(1, 443), 6 * S),
            None,
            "not before the window ends"
        );
        c.advance(30 * S);
        assert_eq!(c.get(&ep(1, 443), 30 * S), Some(7));
        assert_eq!(
            c.get(&ep(1, 80), 30 * S),
            None,
            "another port is another end-point"
        );
        assert_eq!(c.get(&ep(2, 443), 30 * S), None);
        assert_eq!(c.stats().admitted, 1);
        // The rule dies its TTL after admission (at 30 s), renewals notwithstanding.
        for i in 0..3 {
            c.observe(ep(1, 443), 7, 40 * S + i);
        }
        c.advance(60 * S);
        assert_eq!(c.stats().renewed, 1);
        assert_eq!(c.get(&ep(1, 443), 329 * S), Some(7));
        assert_eq!(c.get(&ep(1, 443), 330 * S), None);
        c.advance(331 * S);
        assert_eq!(c.stats().expired, 1);
        assert!(c.is_empty());
    }

    #[test]
    fn utility_is_the_majority_count_and_a_contradicted_rule_goes() {
        let mut c = HostCache::new(cfg(3, 8));
        // x = 5, p = 3/5: U = 3, admitted with the majority label.
        for v in [7u16, 7, 9, 7, 9] {
            c.observe(ep(1, 443), v, S);
        }
        c.advance(30 * S);
        assert_eq!(c.get(&ep(1, 443), 30 * S), Some(7));
        // Next window: most flows say 9, but only 2 of them: the rule goes, none replaces it.
        for v in [9u16, 9, 7] {
            c.observe(ep(1, 443), v, 31 * S);
        }
        c.advance(60 * S);
        assert_eq!(c.get(&ep(1, 443), 60 * S), None);
        assert_eq!(c.stats().contradicted, 1);
        // Then 9 with U_th: admitted as 9.
        for _ in 0..3 {
            c.observe(ep(1, 443), 9u16, 61 * S);
        }
        c.advance(90 * S);
        assert_eq!(c.get(&ep(1, 443), 90 * S), Some(9));
    }

    #[test]
    fn the_top_h_by_utility_stay() {
        let mut c = HostCache::new(cfg(1, 2));
        for (n, flows) in [(1u8, 3), (2, 5), (3, 4), (4, 1)] {
            for _ in 0..flows {
                c.observe(ep(n, 443), u16::from(n), S);
            }
        }
        c.advance(30 * S);
        assert_eq!(c.len(), 2);
        assert!(c.get(&ep(2, 443), 30 * S).is_some());
        assert!(c.get(&ep(3, 443), 30 * S).is_some());
        assert_eq!(c.stats().evicted, 2);
    }

    #[test]
    fn a_full_window_counts_what_it_cannot_hold() {
        let mut c = HostCache::new(HostCacheConfig {
            candidates: 2,
            ..cfg(1, 8)
        });
        for n in 0..5 {
            c.observe(ep(n, 443), 1u16, S);
        }
        assert_eq!(c.stats().uncounted, 3);
        c.advance(30 * S);
        assert_eq!(c.len(), 2);
    }

    proptest! {
        /// Bounded by H, and a rule in force names the label some flow to its end-point had.
        #[test]
        fn bounded_and_learned_from_what_was_seen(
            obs in proptest::collection::vec((0u8..12, 0u16..3, 0u64..200), 0..300),
            h in 1usize..6, uth in 1u32..4,
        ) {
            let mut c = HostCache::new(cfg(uth, h));
            let mut sorted = obs.clone();
            sorted.sort_by_key(|o| o.2);
            let mut seen = std::collections::HashSet::new();
            for (n, v, t) in sorted {
                c.observe(ep(n, 443), v, t * S);
                seen.insert((n, v));
                prop_assert!(c.len() <= h);
            }
            c.advance(1000 * S);
            prop_assert!(c.len() <= h);
            for n in 0..12u8 {
                if let Some(v) = c.get(&ep(n, 443), 200 * S) {
                    prop_assert!(seen.contains(&(n, v)));
                }
            }
        }
    }
}
