//! Seed 001's Dedicated Port Table (ALGORITHMS.md §5.3): once an end-point {address, port,
//! transport} is seen in flows that payload inspection identified as application `A`, that port
//! on that host is taken as dedicated to `A`, and later flows touching it inherit `A` when
//! nothing better names them ("end-point inheritance"). Both end-points of a flow count: a
//! peer-to-peer node's port is a hint whichever side it is on.
//!
//! Hints arrive in batches (the engine's epochs) and are aggregated as seed 001 does on the GPU:
//! the batch is sorted by end-point and label and each run of equal pairs reduced to one count
//! (a segmented reduction), then merged into the table, so a batch costs one sort and one probe
//! per distinct pair, not one per hint. Each end-point keeps its two most frequent labels.
//!
//! A flow's verdict adds both end-points' counts: the label with at least two thirds of them
//! (and `min_hits`), else none. Bounded: at most `capacity` end-points; beyond, the least used
//! (then the stalest) go, and entries unused for `ttl` are ignored and dropped first. Counted.

use crate::hostcache::Endpoint;
use std::collections::HashMap;

type Hasher = foldhash::fast::RandomState;

/// The table's bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DptConfig {
    /// Most end-points held.
    pub capacity: usize,
    /// An end-point without a new hint for this long is forgotten, ns.
    pub ttl_ns: u64,
    /// Hints a verdict needs.
    pub min_hits: u32,
}

impl Default for DptConfig {
    fn default() -> Self {
        DptConfig {
            capacity: 1 << 16,
            ttl_ns: 3_600_000_000_000,
            min_hits: 1,
        }
    }
}

/// What the table did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DptStats {
    /// Hints added.
    pub hints: u64,
    /// End-points dropped to make room.
    pub evicted: u64,
    /// End-points dropped because unused for their time.
    pub expired: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Entry<V> {
    counts: [(V, u32); 2],
    /// Hints of every label, those not kept in `counts` included: a server of many names (a
    /// resolver, a CDN) never has two thirds for one of them.
    total: u32,
    last_ns: u64,
}

/// {end-point} → the applications seen on it, with counts.
#[derive(Clone, Debug)]
pub struct Dpt<V> {
    cfg: DptConfig,
    map: HashMap<Key, Entry<V>, Hasher>,
    /// The batch's hints counted by (end-point, label), then listed in that order (both kept
    /// for their memory).
    counted: HashMap<(Key, V), u32, Hasher>,
    packed: Vec<((Key, V), u32)>,
    /// The batch's end-points, true for one with hints of two labels or more, and those
    /// hints (both kept for their memory).
    seen: HashMap<Key, bool, Hasher>,
    multi: Vec<((Key, V), u32)>,
    stats: DptStats,
}

/// An end-point packed as two integers.
type Key = (u128, u32);

/// Count `n` hints of label `v` on end-point `ep` at `now_ns` (entries older than `ttl` ns
/// start over).
#[inline]
fn apply<V: Copy + Eq>(
    map: &mut HashMap<Key, Entry<V>, Hasher>,
    ttl: u64,
    now_ns: u64,
    ((ep, v), n): ((Key, V), u32),
) {
    let e = map.entry(ep).or_insert(Entry {
        counts: [(v, 0); 2],
        total: 0,
        last_ns: now_ns,
    });
    if e.last_ns.saturating_add(ttl) <= now_ns {
        // Stale: start over.
        e.counts = [(v, 0); 2];
        e.total = 0;
    }
    e.last_ns = now_ns;
    e.total = e.total.saturating_add(n);
    if let Some(c) = e.counts.iter_mut().find(|c| c.0 == v && c.1 > 0) {
        c.1 = c.1.saturating_add(n);
    } else {
        // A new label takes the weaker slot if it is at least as strong.
        let weak = if e.counts[0].1 <= e.counts[1].1 { 0 } else { 1 };
        if n >= e.counts[weak].1 {
            e.counts[weak] = (v, n);
        }
    }
}

impl<V: Copy + Ord + std::hash::Hash> Dpt<V> {
    /// An empty table.
    pub fn new(cfg: DptConfig) -> Self {
        Dpt {
            cfg,
            map: HashMap::default(),
            counted: HashMap::default(),
            packed: Vec::new(),
            seen: HashMap::default(),
            multi: Vec::new(),
            stats: DptStats::default(),
        }
    }

    /// Add a batch of hints (`end-point` served `label`) at `now_ns`; `batch` is left empty.
    pub fn add_batch(&mut self, batch: &mut Vec<(Endpoint, V)>, now_ns: u64) {
        if self.cfg.capacity == 0 {
            batch.clear();
            return;
        }
        self.stats.hints += batch.len() as u64;
        // Counted by (end-point, label) first (a link's hints repeat: the corpus mix's 11,345
        // are 4,820 distinct), then applied so that the result does not depend on the batch's
        // order. End-points packed once (the address as one integer, then port, transport and
        // family): integers compared, not addresses field by field.
        let mut counted = std::mem::take(&mut self.counted);
        for (ep, v) in batch.drain(..) {
            let c = counted.entry((ep.packed(), v)).or_insert(0);
            *c = c.saturating_add(1);
        }
        let mut packed = std::mem::take(&mut self.packed);
        packed.clear();
        packed.extend(counted.drain());
        self.counted = counted;
        // Only an end-point's hints of different labels depend on their order (a new label
        // takes the weaker slot): those are applied in the order of (end-point, label), the
        // others as they come (end-points apart change each other's entries in no order). A
        // set's two lookups a hint where sorting them all cost ~470 instructions a hint on the
        // corpus mix.
        let seen = &mut self.seen;
        seen.clear();
        for ((k, _), _) in &packed {
            seen.entry(*k)
                .and_modify(|two| *two = true)
                .or_insert(false);
        }
        let mut multi = std::mem::take(&mut self.multi);
        multi.clear();
        let (map, ttl) = (&mut self.map, self.cfg.ttl_ns);
        for &g in &packed {
            if seen.get(&g.0 .0).copied().unwrap_or(true) {
                multi.push(g);
            } else {
                apply(map, ttl, now_ns, g);
            }
        }
        multi.sort_unstable_by_key(|g| g.0);
        for &g in &multi {
            apply(map, ttl, now_ns, g);
        }
        self.multi = multi;
        self.packed = packed;
        if self.map.len() > self.cfg.capacity {
            self.shrink(now_ns);
        }
    }

    /// Down to 7/8 of the capacity: the expired first, then the least used, then the stalest
    /// (ties by end-point, so two runs drop the same ones).
    fn shrink(&mut self, now_ns: u64) {
        let ttl = self.cfg.ttl_ns;
        let keep = self.cfg.capacity - self.cfg.capacity / 8;
        let mut all: Vec<(Key, Entry<V>)> = self.map.drain().collect();
        let live = |e: &Entry<V>| e.last_ns.saturating_add(ttl) > now_ns;
        all.sort_unstable_by(|a, b| {
            let hits = |e: &Entry<V>| e.total;
            live(&b.1)
                .cmp(&live(&a.1))
                .then(hits(&b.1).cmp(&hits(&a.1)))
                .then(b.1.last_ns.cmp(&a.1.last_ns))
                .then(a.0.cmp(&b.0))
        });
        for (_, e) in all.iter().skip(keep) {
            if live(e) {
                self.stats.evicted += 1;
            } else {
                self.stats.expired += 1;
            }
        }
        all.truncate(keep);
        self.map.extend(all);
    }

    /// The label both end-points' hints agree on at `now_ns`: two thirds of all their hints
    /// (of every label, kept or not) and at least `min_hits`.
    #[inline]
    pub fn verdict(&self, a: &Endpoint, b: &Endpoint, now_ns: u64) -> Option<V> {
        let ttl = self.cfg.ttl_ns;
        let mut tally: [(Option<V>, u32); 4] = [(None, 0); 4];
        let mut total = 0u32;
        for ep in [a, b] {
            let Some(e) = self.map.get(&ep.packed()) else {
                continue;
            };
            if e.last_ns.saturating_add(ttl) <= now_ns {
                continue;
            }
            total = total.saturating_add(e.total);
            for &(v, n) in &e.counts {
                if n == 0 {
                    continue;
                }
                if let Some(t) = tally.iter_mut().find(|t| t.0 == Some(v)) {
                    t.1 = t.1.saturating_add(n);
                } else if let Some(t) = tally.iter_mut().find(|t| t.0.is_none()) {
                    *t = (Some(v), n);
                }
            }
        }
        let best = tally
            .iter()
            .max_by(|x, y| x.1.cmp(&y.1).then(y.0.cmp(&x.0)))?;
        let v = best.0?;
        (best.1 >= self.cfg.min_hits.max(1) && u64::from(best.1) * 3 >= u64::from(total) * 2)
            .then_some(v)
    }

    /// End-points held.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Nothing held?
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// What the table did.
    pub fn stats(&self) -> DptStats {
        self.stats
    }

    /// Forget everything (counters stay).
    pub fn clear(&mut self) {
        self.map.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::net::IpAddr;

    const S: u64 = 1_000_000_000;

    fn ep(n: u8, port: u16) -> Endpoint {
        Endpoint {
            ip: IpAddr::from([198, 51, 100, n]),
            port,
            proto: 17,
        }
    }

    fn cfg(capacity: usize) -> DptConfig {
        DptConfig {
            capacity,
            ttl_ns: 100 * S,
            min_hits: 1,
        }
    }

    #[test]
    fn a_port_seen_serving_an_application_names_later_flows_touching_it() {
        let mut d = Dpt::new(cfg(16));
        let mut b = vec![(ep(1, 6346), 7u16), (ep(1, 6346), 7), (ep(2, 5000), 7)];
        d.add_batch(&mut b, S);
        assert!(b.is_empty());
        // Either side of the new flow may be the known end-point.
        assert_eq!(d.verdict(&ep(9, 1234), &ep(1, 6346), S), Some(7));
        assert_eq!(d.verdict(&ep(2, 5000), &ep(9, 1234), S), Some(7));
        assert_eq!(d.verdict(&ep(9, 1234), &ep(1, 6347), S), None);
        // Unused for its TTL: forgotten.
        assert_eq!(d.verdict(&ep(9, 1), &ep(1, 6346), 101 * S), None);
        assert_eq!(d.stats().hints, 3);
    }

    #[test]
    fn mixed_hints_need_two_thirds() {
        let mut d = Dpt::new(cfg(16));
        let mut b = vec![(ep(1, 80), 1u16), (ep(1, 80), 1), (ep(1, 80), 2)];
        d.add_batch(&mut b, S);
        assert_eq!(d.verdict(&ep(1, 80), &ep(9, 9), S), Some(1), "2 of 3");
        let mut b = vec![(ep(2, 80), 2u16), (ep(2, 80), 2)];
        d.add_batch(&mut b, S);
        // 1 + 2 for label 2 against 2 for label 1: 3 of 5, short of two thirds.
        assert_eq!(d.verdict(&ep(1, 80), &ep(2, 80), S), None);
        assert_eq!(d.verdict(&ep(2, 80), &ep(9, 9), S), Some(2));
        let mut b = vec![(ep(3, 80), 1u16), (ep(3, 80), 1), (ep(3, 80), 1)];
        d.add_batch(&mut b, S);
        // 3 for 1 against 2 for 2: neither has two thirds.
        assert_eq!(d.verdict(&ep(2, 80), &ep(3, 80), S), None);
        assert_eq!(d.verdict(&ep(1, 80), &ep(3, 80), S), Some(1), "5 of 6");
    }

    #[test]
    fn a_server_of_many_names_names_none() {
        let mut d = Dpt::new(cfg(16));
        // A resolver: DNS.A, DNS.B, DNS.C, ... one query each, then two more of A.
        let mut b: Vec<(Endpoint, u16)> = (0..10u16).map(|l| (ep(53, 53), l)).collect();
        b.extend([(ep(53, 53), 0), (ep(53, 53), 0)]);
        d.add_batch(&mut b, S);
        // 3 of 12 for label 0: no verdict, though it is the most frequent of those kept.
        assert_eq!(d.verdict(&ep(53, 53), &ep(9, 9), S), None);
    }

    #[test]
    fn the_least_used_go_first_when_full() {
        let mut d = Dpt::new(cfg(8));
        let mut b: Vec<(Endpoint, u16)> = Vec::new();
        for n in 0..8u8 {
            for _ in 0..=n {
                b.push((ep(n, 1), 1));
            }
        }
        d.add_batch(&mut b, S);
        assert_eq!(d.len(), 8);
        let mut b = vec![(ep(100, 1), 1u16)];
        d.add_batch(&mut b, S);
        assert_eq!(d.len(), 7);
        assert_eq!(d.stats().evicted, 2);
        assert!(d.verdict(&ep(0, 1), &ep(0, 1), S).is_none());
        assert!(d.verdict(&ep(100, 1), &ep(100, 1), S).is_none());
        assert!(d.verdict(&ep(7, 1), &ep(7, 1), S).is_some());
    }

    proptest! {
        /// Bounded, and any verdict is a label some hint gave one of the two end-points.
        #[test]
        fn bounded_and_never_invented(
            batches in proptest::collection::vec(proptest::collection::vec((0u8..20, 0u16..4), 0..40), 1..10),
            cap in 1usize..12,
        ) {
            let mut d = Dpt::new(cfg(cap));
            let mut seen = std::collections::HashSet::new();
            for (i, b) in batches.iter().enumerate() {
                let mut v: Vec<(Endpoint, u16)> = b.iter().map(|(n, l)| (ep(*n, 1), *l)).collect();
                for (n, l) in b {
                    seen.insert((*n, *l));
                }
                d.add_batch(&mut v, i as u64 * S);
                prop_assert!(d.len() <= cap);
            }
            let now = (batches.len() as u64 - 1) * S;
            for a in 0..20u8 {
                for c in 0..20u8 {
                    if let Some(l) = d.verdict(&ep(a, 1), &ep(c, 1), now) {
                        prop_assert!(seen.contains(&(a, l)) || seen.contains(&(c, l)));
                    }
                }
            }
        }

        /// A batch counted then applied leaves every end-point as the batch sorted whole and
        /// applied run by run did (the reduction before it, written again here as it was), in
        /// any order of its hints.
        #[test]
        fn counting_first_changes_nothing(
            batches in prop::collection::vec(
                prop::collection::vec((0u8..120, 1u16..4, 0u16..4), 0..300), 1..8),
        ) {
            const S: u64 = 1_000_000_000;
            let mut d = Dpt::new(cfg(1024));
            let mut r: Dpt<u16> = Dpt::new(cfg(1024));
            for (i, b) in batches.iter().enumerate() {
                let now = i as u64 * S;
                // (Handed in backwards: the order of a batch's hints changes nothing.)
                let mut v: Vec<(Endpoint, u16)> =
                    b.iter().rev().map(|(n, port, l)| (ep(*n, *port), *l)).collect();
                d.add_batch(&mut v, now);
                // The reduction as it was: sort the packed hints, apply each run of equal ones.
                let mut p: Vec<(Key, u16)> =
                    b.iter().map(|(n, port, l)| (ep(*n, *port).packed(), *l)).collect();
                p.sort_unstable();
                r.stats.hints += p.len() as u64;
                for run in p.chunk_by(|a, b| a == b) {
                    let ((key, v), n) = (run[0], run.len() as u32);
                    let e = r.map.entry(key).or_insert(Entry { counts: [(v, 0); 2], total: 0, last_ns: now });
                    if e.last_ns.saturating_add(r.cfg.ttl_ns) <= now {
                        e.counts = [(v, 0); 2];
                        e.total = 0;
                    }
                    e.last_ns = now;
                    e.total = e.total.saturating_add(n);
                    if let Some(c) = e.counts.iter_mut().find(|c| c.0 == v && c.1 > 0) {
                        c.1 = c.1.saturating_add(n);
                    } else {
                        let weak = if e.counts[0].1 <= e.counts[1].1 { 0 } else { 1 };
                        if n >= e.counts[weak].1 {
                            e.counts[weak] = (v, n);
                        }
                    }
                }
                prop_assert_eq!(d.map.len(), r.map.len());
                for (k, e) in &r.map {
                    prop_assert_eq!(d.map.get(k), Some(e));
                }
            }
        }
    }
}
