//! What DNS answers taught: address → the service its name belongs to, for a time (nDPI's
//! first-packet classification from DNS). A later flow to the address is named at its first
//! packet, even when it carries no name itself (QUIC without SNI, ECH, plain TCP).
//!
//! Bounded: at most `capacity` addresses. When full, the address answered longest ago goes
//! first (first in, first out, an answer again for an address counting as new), and each entry
//! lives the answer's TTL, capped. Lookups never change the cache, so many readers share it
//! without a write (the engine's workers read one snapshot); what was evicted or expired is
//! counted.

use std::collections::hash_map::Entry;
use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;

/// foldhash with a per-process random seed (the flow table's hash family): a few multiplies a
/// key instead of SipHash's rounds; keys are addresses traffic chooses, so the seed is random.
type Hasher = foldhash::fast::RandomState;

/// How the cache is bounded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DnsCacheConfig {
    /// Most addresses held (0: the cache learns nothing).
    pub capacity: usize,
    /// Longest an answer is believed, ns, whatever its TTL says.
    pub max_ttl_ns: u64,
    /// Shortest, ns: an answer with TTL 0 still names the connection that follows it.
    pub min_ttl_ns: u64,
}

impl Default for DnsCacheConfig {
    fn default() -> Self {
        DnsCacheConfig {
            capacity: 1 << 16,
            max_ttl_ns: 3_600_000_000_000,
            min_ttl_ns: 60_000_000_000,
        }
    }
}

/// Counters of what the cache did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DnsCacheStats {
    /// Answers learned (an address answered again counts again).
    pub learned: u64,
    /// Addresses dropped to make room.
    pub evicted: u64,
    /// Addresses dropped because their time was up (found so when making room).
    pub expired: u64,
}

#[derive(Clone, Copy, Debug)]
struct Slot<V> {
    value: V,
    expires_ns: u64,
    /// Which insertion this is, to tell a stale place in the order from the live one.
    stamp: u64,
}

/// Address → value (the service), each until its answer's TTL runs out.
#[derive(Clone, Debug)]
pub struct DnsCache<V> {
    cfg: DnsCacheConfig,
    map: HashMap<IpAddr, Slot<V>, Hasher>,
    /// Insertion order, with stale places (an address answered again) left in and skipped.
    order: VecDeque<(IpAddr, u64)>,
    next_stamp: u64,
    stats: DnsCacheStats,
}

impl<V: Copy + PartialEq> DnsCache<V> {
    /// An empty cache bounded by `cfg`.
    pub fn new(cfg: DnsCacheConfig) -> Self {
        DnsCache {
            cfg,
            map: HashMap::default(),
            order: VecDeque::new(),
            next_stamp: 0,
            stats: DnsCacheStats::default(),
        }
    }

    /// `addr` was answered at `now_ns` with a name of `value`, for `ttl_s` seconds.
    pub fn learn(&mut self, addr: IpAddr, value: V, ttl_s: u32, now_ns: u64) {
        if self.cfg.capacity == 0 {
            return;
        }
        let ttl = (u64::from(ttl_s) * 1_000_000_000).clamp(
            self.cfg.min_ttl_ns,
            self.cfg.max_ttl_ns.max(self.cfg.min_ttl_ns),
        );
        let stamp = self.next_stamp;
        self.next_stamp += 1;
        let slot = Slot {
            value,
            expires_ns: now_ns.saturating_add(ttl),
            stamp,
        };
        self.stats.learned += 1;
        match self.map.entry(addr) {
            Entry::Occupied(mut e) => {
                e.insert(slot);
            }
            Entry::Vacant(e) => {
                e.insert(slot);
            }
        }
        self.order.push_back((addr, stamp));
        while self.map.len() > self.cfg.capacity {
            self.pop_oldest(now_ns);
        }
        // Stale places are at most one per answer since the last compaction: keep the order
        // within twice the map.
        if self.order.len() > 2 * self.map.len() + 16 {
            let map = &self.map;
            self.order
                .retain(|(a, s)| map.get(a).is_some_and(|slot| slot.stamp == *s));
        }
    }

    fn pop_oldest(&mut self, now_ns: u64) {
        while let Some((a, s)) = self.order.pop_front() {
            if self.map.get(&a).is_some_and(|slot| slot.stamp == s) {
                let slot = self.map.remove(&a);
                if slot.is_some_and(|x| x.expires_ns <= now_ns) {
                    self.stats.expired += 1;
                } else {
                    self.stats.evicted += 1;
                }
                return;
            }
        }
    }

    /// What `addr` was last answered for, if its time is not up at `now_ns`.
    #[inline]
    pub fn get(&self, addr: IpAddr, now_ns: u64) -> Option<V> {
        let s = self.map.get(&addr)?;
        (s.expires_ns > now_ns).then_some(s.value)
    }

    /// Addresses held (expired ones not yet dropped included).
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Nothing learned?
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// What the cache did.
    pub fn stats(&self) -> DnsCacheStats {
        self.stats
    }

    /// Forget everything (counters stay).
    pub fn clear(&mut self) {
        self.map.clear();
        self.order.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const S: u64 = 1_000_000_000;

    fn ip(n: u32) -> IpAddr {
        IpAddr::from(n.to_be_bytes())
    }

    fn cfg(capacity: usize) -> DnsCacheConfig {
        DnsCacheConfig {
            capacity,
            max_ttl_ns: 300 * S,
            min_ttl_ns: 10 * S,
        }
    }

    #[test]
    fn an_answer_names_its_address_for_its_ttl_within_the_caps() {
        let mut c = DnsCache::new(cfg(8));
        c.learn(ip(1), 7u16, 60, 100 * S);
        assert_eq!(c.get(ip(1), 100 * S), Some(7));
        assert_eq!(c.get(ip(1), 159 * S), Some(7));
        assert_eq!(c.get(ip(1), 160 * S), None, "60 s later");
        assert_eq!(c.get(ip(2), 100 * S), None);
        // TTL 0 lives the floor; a day lives the cap.
        c.learn(ip(2), 8, 0, 0);
        assert_eq!(c.get(ip(2), 9 * S), Some(8));
        assert_eq!(c.get(ip(2), 10 * S), None);
        c.learn(ip(3), 9, 86_400, 0);
        assert_eq!(c.get(ip(3), 299 * S), Some(9));
        assert_eq!(c.get(ip(3), 300 * S), None);
        // A newer answer replaces the older one.
        c.learn(ip(1), 5, 60, 120 * S);
        assert_eq!(c.get(ip(1), 170 * S), Some(5));
    }

    #[test]
    fn when_full_the_address_answered_longest_ago_goes() {
        let mut c = DnsCache::new(cfg(2));
        c.learn(ip(1), 1u16, 60, 0);
        c.learn(ip(2), 2, 60, 0);
        // Answered again: now the newest.
        c.learn(ip(1), 1, 60, S);
        c.learn(ip(3), 3, 60, 2 * S);
        assert_eq!(c.get(ip(2), 2 * S), None);
        assert_eq!(c.get(ip(1), 2 * S), Some(1));
        assert_eq!(c.get(ip(3), 2 * S), Some(3));
        assert_eq!(c.stats().evicted, 1);
        // One past its time is counted as expired, not evicted.
        c.learn(ip(4), 4, 10, 100 * S);
        assert_eq!(c.stats().expired, 1);
        assert_eq!(c.len(), 2);
    }

    #[test]
    fn capacity_zero_learns_nothing() {
        let mut c = DnsCache::new(cfg(0));
        c.learn(ip(1), 1u16, 60, 0);
        assert!(c.is_empty());
    }

    proptest! {
        /// Against a model that keeps every answer: the cache holds at most `capacity`
        /// addresses, its order stays bounded, and what it answers is the model's latest answer
        /// for the address whenever it answers.
        #[test]
        fn bounded_and_never_wrong(ops in proptest::collection::vec((0u32..40, 0u16..5, 0u32..100), 1..400), cap in 1usize..16) {
            let mut c = DnsCache::new(cfg(cap));
            let mut model: HashMap<IpAddr, (u16, u64)> = HashMap::new();
            for (i, (a, v, ttl)) in ops.iter().enumerate() {
                let now = i as u64 * S / 4;
                c.learn(ip(*a), *v, *ttl, now);
                let t = (u64::from(*ttl) * S).clamp(10 * S, 300 * S);
                model.insert(ip(*a), (*v, now + t));
                prop_assert!(c.len() <= cap);
                prop_assert!(c.order.len() <= 2 * c.len() + 17);
                for q in 0..40 {
                    if let Some(got) = c.get(ip(q), now) {
                        let (v, exp) = model[&ip(q)];
                        prop_assert_eq!(got, v);
                        prop_assert!(exp > now);
                    }
                }
            }
            // The newest answer is always there.
            let (a, v, _) = ops[ops.len() - 1];
            prop_assert_eq!(c.get(ip(a), (ops.len() as u64 - 1) * S / 4), Some(v));
        }
    }
}
