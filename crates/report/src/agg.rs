//! Bounded aggregates of records: every structure here has a size fixed by [`Config`], whatever
//! the number of records.

use crate::input::Row;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::hash::BuildHasher;

/// Sizes of every aggregate: memory is bounded by these, not by the input.
#[derive(Clone, Copy, Debug)]
pub struct Config {
    /// Rows shown in each top-N table.
    pub top: usize,
    /// Keys the host and conversation summaries hold (Space-Saving capacity).
    pub heavy: usize,
    /// Distinct names an exact table holds (applications, JA4, ports...); more are counted
    /// under `(other)`.
    pub names: usize,
    /// Time buckets of the traffic chart.
    pub buckets: usize,
    /// Flows the page's table holds: the largest by bytes.
    pub rows: usize,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            top: 20,
            heavy: 10_000,
            names: 4096,
            buckets: 120,
            rows: 5000,
        }
    }
}

/// Longest string kept from a record (host names, JA4...): hostile inputs stay bounded.
pub const MAX_STR: usize = 200;

/// `s`, cut to at most [`MAX_STR`] bytes at a character boundary.
pub fn clip(s: &str) -> &str {
    if s.len() <= MAX_STR {
        return s;
    }
    let mut end = MAX_STR;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// Bytes, packets and flows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Bytes both ways.
    pub bytes: u64,
    /// Packets both ways.
    pub pkts: u64,
    /// Records.
    pub flows: u64,
}

impl Tally {
    fn merge(&mut self, o: Tally) {
        self.bytes = self.bytes.saturating_add(o.bytes);
        self.pkts = self.pkts.saturating_add(o.pkts);
        self.flows = self.flows.saturating_add(o.flows);
    }

    fn add(&mut self, bytes: u64, pkts: u64) {
        self.bytes = self.bytes.saturating_add(bytes);
        self.pkts = self.pkts.saturating_add(pkts);
        self.flows += 1;
    }
}

/// An exact table of at most `cap` names; a record whose name does not fit is counted in
/// `other` (and the table says so).
#[derive(Debug, Default)]
pub struct Names {
    cap: usize,
    map: HashMap<String, (usize, Tally)>,
    /// Records whose name found the table full.
    pub other: Tally,
}

impl Names {
    fn new(cap: usize) -> Self {
        Names {
            cap,
            ..Names::default()
        }
    }

    /// Count a record under `name`; its index (order of first appearance), or `None` when it
    /// went to `other`.
    fn add(&mut self, name: &str, bytes: u64, pkts: u64) -> Option<usize> {
        self.add_tally(
            name,
            Tally {
                bytes,
                pkts,
                flows: 1,
            },
        )
    }

    fn add_tally(&mut self, name: &str, t: Tally) -> Option<usize> {
        let name = clip(name);
        if let Some((i, have)) = self.map.get_mut(name) {
            have.merge(t);
            return Some(*i);
        }
        if self.map.len() >= self.cap {
            self.other.merge(t);
            return None;
        }
        let i = self.map.len();
        self.map.insert(name.to_string(), (i, t));
        Some(i)
    }

    /// Add `o`'s names; for each of `o`'s indexes, the index it has here (`cap`: past the
    /// table).
    fn merge(&mut self, o: Names) -> Vec<usize> {
        let mut at = vec![self.cap; o.map.len()];
        let mut v: Vec<_> = o.map.into_iter().collect();
        v.sort_by_key(|e| e.1 .0);
        for (k, (i, t)) in v {
            at[i] = self.add_tally(&k, t).unwrap_or(self.cap);
        }
        self.other.merge(o.other);
        at
    }

    /// Every name with its tally, the largest by `key` first (ties by name).
    pub fn sorted(&self, key: impl Fn(&Tally) -> u64) -> Vec<(&str, Tally, usize)> {
        let mut v: Vec<_> = self
            .map
            .iter()
            .map(|(k, (i, t))| (k.as_str(), *t, *i))
            .collect();
        v.sort_by(|a, b| key(&b.1).cmp(&key(&a.1)).then(a.0.cmp(b.0)));
        v
    }

    /// Distinct names held.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// No name held.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

/// Space-Saving (Metwally et al. 2005), weighted: at most `cap` keys with their counts; a new
/// key when full takes the place of the smallest, inheriting its count as its error. Each
/// count is then over by at most its `err`, and any key whose true weight exceeds total/cap is
/// held. Exact (every `err` 0) while the distinct keys fit. A min-heap indexed by slot keeps
/// each update O(log cap); the key index holds slot numbers under their key's hash (kept per
/// slot), so replacing a key neither hashes nor compares the old one.
pub struct HeavyHitters {
    cap: usize,
    hasher: foldhash::fast::RandomState,
    index: hashbrown::HashTable<usize>,
    /// Per slot: the hash of its key.
    hashes: Vec<u64>,
    /// Per slot: key, count, error, flows.
    slots: Vec<(String, u64, u64, u64)>,
    /// Min-heap of (count, slot): the counts inline, for the cache.
    heap: Vec<(u64, usize)>,
    pos: Vec<usize>,
    /// Keys replaced (0: the counts are exact).
    pub evicted: u64,
}

impl std::fmt::Debug for HeavyHitters {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HeavyHitters")
            .field("cap", &self.cap)
            .field("held", &self.slots.len())
            .field("evicted", &self.evicted)
            .finish()
    }
}

impl HeavyHitters {
    fn new(cap: usize) -> Self {
        HeavyHitters {
            cap: cap.max(1),
            hasher: foldhash::fast::RandomState::default(),
            index: hashbrown::HashTable::new(),
            hashes: Vec::new(),
            slots: Vec::new(),
            heap: Vec::new(),
            pos: Vec::new(),
            evicted: 0,
        }
    }

    fn count(&self, h: usize) -> u64 {
        self.heap[h].0
    }

    fn swap(&mut self, a: usize, b: usize) {
        self.heap.swap(a, b);
        self.pos[self.heap[a].1] = a;
        self.pos[self.heap[b].1] = b;
    }

    fn sift_down(&mut self, mut h: usize) {
        loop {
            let (l, r) = (2 * h + 1, 2 * h + 2);
            let mut m = h;
            if l < self.heap.len() && self.count(l) < self.count(m) {
                m = l;
            }
            if r < self.heap.len() && self.count(r) < self.count(m) {
                m = r;
            }
            if m == h {
                return;
            }
            self.swap(h, m);
            h = m;
        }
    }

    fn sift_up(&mut self, mut h: usize) {
        while h > 0 {
            let p = (h - 1) / 2;
            if self.count(p) <= self.count(h) {
                return;
            }
            self.swap(p, h);
            h = p;
        }
    }

    /// Add `w` to `key`'s count (and one flow).
    pub fn add(&mut self, key: &str, w: u64) {
        let key = clip(key);
        let hash = self.hasher.hash_one(key);
        let slots = &self.slots;
        if let Some(&s) = self.index.find(hash, |&s| slots[s].0 == key) {
            let e = &mut self.slots[s];
            e.1 = e.1.saturating_add(w);
            e.3 += 1;
            let h = self.pos[s];
            self.heap[h].0 = e.1;
            self.sift_down(h);
            return;
        }
        if self.slots.len() < self.cap {
            let s = self.slots.len();
            self.slots.push((key.to_string(), w, 0, 1));
            self.heap.push((w, s));
            self.pos.push(self.heap.len() - 1);
            self.hashes.push(hash);
            let hashes = &self.hashes;
            self.index.insert_unique(hash, s, |&x| hashes[x]);
            let h = self.heap.len() - 1;
            self.sift_up(h);
            return;
        }
        // Full: the smallest gives its place.
        let s = self.heap[0].1;
        if let Ok(e) = self.index.find_entry(self.hashes[s], |&x| x == s) {
            e.remove();
        }
        let min = self.slots[s].1;
        let mut k = std::mem::take(&mut self.slots[s].0);
        k.clear();
        k.push_str(key);
        self.slots[s] = (k, min.saturating_add(w), min, 1);
        self.heap[0].0 = min.saturating_add(w);
        self.hashes[s] = hash;
        let hashes = &self.hashes;
        self.index.insert_unique(hash, s, |&x| hashes[x]);
        self.evicted += 1;
        self.sift_down(0);
    }

    /// The `n` largest: key, count, error bound, flows (counted since the key was last held).
    pub fn top(&self, n: usize) -> Vec<(&str, u64, u64, u64)> {
        let mut v: Vec<_> = self
            .slots
            .iter()
            .map(|(k, c, e, f)| (k.as_str(), *c, *e, *f))
            .collect();
        v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        v.truncate(n);
        v
    }

    /// Keys held at most.
    pub fn capacity(&self) -> usize {
        self.cap
    }

    /// Add another summary (of other records): a key one side lacks is counted there as that
    /// side's smallest count when it replaced keys (its weight there is at most that), else
    /// as 0; the errors add likewise, so every count stays an upper bound within its error.
    fn merge(&mut self, o: HeavyHitters) {
        let floor = |h: &HeavyHitters| match (h.evicted, h.heap.first()) {
            (0, _) | (_, None) => 0,
            (_, Some(&(c, _))) => c,
        };
        let (mine, theirs) = (floor(self), floor(&o));
        // key -> count, error, flows, seen in `o`.
        let mut all: HashMap<String, (u64, u64, u64, bool), foldhash::fast::RandomState> =
            HashMap::default();
        for (k, c, e, f) in self.slots.drain(..) {
            all.insert(k, (c, e, f, false));
        }
        for (k, c, e, f) in o.slots {
            match all.get_mut(&k) {
                Some(v) => *v = (v.0.saturating_add(c), v.1 + e, v.2 + f, true),
                None => {
                    all.insert(k, (c.saturating_add(mine), e + mine, f, true));
                }
            }
        }
        let mut v: Vec<_> = all
            .into_iter()
            .map(|(k, (c, e, f, seen))| {
                if seen {
                    (k, c, e, f)
                } else {
                    (k, c.saturating_add(theirs), e + theirs, f)
                }
            })
            .collect();
        v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        let dropped = v.len().saturating_sub(self.cap) as u64;
        v.truncate(self.cap);
        self.evicted += o.evicted + dropped;
        self.index.clear();
        self.hashes.clear();
        self.heap.clear();
        self.pos.clear();
        for (s, e) in v.into_iter().enumerate() {
            let hash = self.hasher.hash_one(e.0.as_str());
            self.hashes.push(hash);
            let hashes = &self.hashes;
            self.index.insert_unique(hash, s, |&x| hashes[x]);
            self.heap.push((e.1, s));
            self.slots.push(e);
            self.pos.push(s);
        }
        for h in (0..self.heap.len() / 2).rev() {
            self.sift_down(h);
        }
    }

    /// Counts exact: no key was ever replaced.
    pub fn exact(&self) -> bool {
        self.evicted == 0
    }
}

/// Bytes over the capture's own clock in at most `n` buckets of `width` µs, aligned on
/// multiples of the width. When a record falls outside, the width doubles (pairs of buckets
/// merge) until the whole span fits: the sums never change, only their resolution.
#[derive(Debug)]
pub struct Series {
    n: usize,
    /// Bucket width, µs (a power of two).
    pub width: i64,
    /// Absolute index (time / width) of bucket 0.
    pub start: i64,
    lo: i64,
    hi: i64,
    /// Per bucket, bytes per application index (the last slot: applications past the table).
    pub bytes: Vec<Vec<u64>>,
    any: bool,
}

impl Series {
    fn new(n: usize) -> Self {
        let n = n.max(2);
        Series {
            n,
            width: 1,
            start: 0,
            lo: 0,
            hi: 0,
            bytes: vec![Vec::new(); n],
            any: false,
        }
    }

    /// Make `[a, b]` (µs) fit, merging buckets as needed; the bucket indexes (relative) of a
    /// and b.
    fn cover(&mut self, a: i64, b: i64) -> (usize, usize) {
        if !self.any {
            self.any = true;
            self.width = 1;
            self.start = a;
            self.lo = a;
            self.hi = a;
        }
        let n = self.n as i64;
        loop {
            let lo = self.lo.min(a.div_euclid(self.width));
            let hi = self.hi.max(b.div_euclid(self.width));
            if hi - lo < n {
                if lo < self.start || hi >= self.start + n {
                    // Slide: bucket 0 becomes `lo` (every used bucket stays in range).
                    let mut moved = vec![Vec::new(); self.n];
                    for (j, v) in self.bytes.iter_mut().enumerate() {
                        if !v.is_empty() {
                            moved[(self.start + j as i64 - lo) as usize] = std::mem::take(v);
                        }
                    }
                    self.bytes = moved;
                    self.start = lo;
                }
                self.lo = lo;
                self.hi = hi;
                return (
                    (a.div_euclid(self.width) - self.start) as usize,
                    (b.div_euclid(self.width) - self.start) as usize,
                );
            }
            self.halve();
        }
    }

    /// Merge pairs of buckets: absolute index i goes to i / 2, the width doubles.
    fn halve(&mut self) {
        let mut merged = vec![Vec::new(); self.n];
        let new_start = self.start.div_euclid(2);
        for (j, v) in self.bytes.iter().enumerate() {
            if !v.is_empty() {
                let k = ((self.start + j as i64).div_euclid(2) - new_start) as usize;
                add_into(&mut merged[k], v);
            }
        }
        self.bytes = merged;
        self.start = new_start;
        self.width = self.width.saturating_mul(2);
        self.lo = self.lo.div_euclid(2);
        self.hi = self.hi.div_euclid(2);
    }

    /// Add another series (same number of buckets), its application slot `i` being `at[i]`
    /// here (`other`: slots past `at`). Buckets nest (power-of-two widths aligned on 0), so
    /// once this one is at least as coarse, each of `o`'s buckets falls in one of these.
    fn merge(&mut self, o: Series, at: &[usize], other: usize) {
        if !o.any {
            return;
        }
        if !self.any {
            let mut o = o;
            for b in o.bytes.iter_mut().filter(|b| !b.is_empty()) {
                let mut moved = Vec::new();
                for (app, &v) in b.iter().enumerate() {
                    let slot = at.get(app).copied().unwrap_or(other);
                    if moved.len() <= slot {
                        moved.resize(slot + 1, 0);
                    }
                    moved[slot] += v;
                }
                *b = moved;
            }
            *self = o;
            return;
        }
        while self.width < o.width {
            self.halve();
        }
        for (j, b) in o.bytes.iter().enumerate() {
            if b.is_empty() {
                continue;
            }
            let t0 = (o.start + j as i64).saturating_mul(o.width);
            let t1 = t0.saturating_add(o.width - 1);
            for (app, &v) in b.iter().enumerate() {
                if v > 0 {
                    self.add(t0, t1, at.get(app).copied().unwrap_or(other), v);
                }
            }
        }
    }

    /// Spread `bytes` of application `app` evenly over the buckets `[a, b]` (µs) touches; the
    /// remainder to the first, so the sum is exact.
    fn add(&mut self, a: i64, b: i64, app: usize, bytes: u64) {
        let (i, j) = self.cover(a, b);
        let k = (j - i + 1) as u64;
        let (each, rest) = (bytes / k, bytes % k);
        for (m, bucket) in self.bytes[i..=j].iter_mut().enumerate() {
            if bucket.len() <= app {
                bucket.resize(app + 1, 0);
            }
            let v = each + if m == 0 { rest } else { 0 };
            bucket[app] = bucket[app].saturating_add(v);
        }
    }

    /// Any record placed.
    pub fn is_empty(&self) -> bool {
        !self.any
    }

    /// Buckets from the first to the last used.
    pub fn used(&self) -> std::ops::Range<usize> {
        if !self.any {
            return 0..0;
        }
        (self.lo - self.start) as usize..(self.hi - self.start + 1) as usize
    }
}

fn add_into(dst: &mut Vec<u64>, src: &[u64]) {
    if dst.len() < src.len() {
        dst.resize(src.len(), 0);
    }
    for (d, s) in dst.iter_mut().zip(src) {
        *d = d.saturating_add(*s);
    }
}

/// One flow kept for the page's table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Flow {
    /// Bytes both ways (the table keeps the largest).
    pub bytes: u64,
    /// Order of arrival (ties: the first kept).
    pub seq: u64,
    /// First packet, µs.
    pub first_us: i64,
    /// Packets both ways.
    pub pkts: u64,
    /// `src:port`.
    pub client: String,
    /// `dst:port`.
    pub server: String,
    /// Transport.
    pub l4: String,
    /// Application.
    pub app: String,
    /// Category.
    pub category: String,
    /// Method.
    pub method: String,
    /// Host name.
    pub host: String,
    /// Risks.
    pub risks: String,
    /// Capture file.
    pub pcap: String,
}

impl Ord for Flow {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.bytes.cmp(&o.bytes).then(o.seq.cmp(&self.seq))
    }
}

impl PartialOrd for Flow {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}

/// `ttb_pkts` classes: 0 (no verdict), 1..=5, 6-10, 11-20, 21+.
pub const TTB_CLASSES: [&str; 9] = ["none", "1", "2", "3", "4", "5", "6-10", "11-20", "21+"];

fn ttb_class(n: u64) -> usize {
    match n {
        0..=5 => n as usize,
        6..=10 => 6,
        11..=20 => 7,
        _ => 8,
    }
}

/// Records of one risk kind, with a few of the flows that carry it.
#[derive(Debug, Default)]
pub struct Risk {
    /// Flows carrying it.
    pub tally: Tally,
    /// The first few (client, server, application, host).
    pub examples: Vec<[String; 4]>,
}

/// Risk examples kept per kind.
pub const RISK_EXAMPLES: usize = 5;

/// Everything the page shows, each part bounded by [`Config`].
#[derive(Debug)]
pub struct Report {
    /// Sizes.
    pub cfg: Config,
    /// Every record counted (interim records aside): exact.
    pub total: Tally,
    /// Client to server bytes, packets; server to client bytes, packets.
    pub split: [u64; 4],
    /// Interim (`active`) records skipped.
    pub interim: u64,
    /// Records with a time that is no time (negative, not finite, past year 5000): counted in
    /// the totals, not on the clock.
    pub untimed: u64,
    /// First and last packet seen, µs.
    pub span: Option<(i64, i64)>,
    /// Per application.
    pub apps: Names,
    /// Per category.
    pub categories: Names,
    /// Per method.
    pub methods: Names,
    /// Per `ttb_pkts` class ([`TTB_CLASSES`]).
    pub ttb: [Tally; 9],
    /// Unknown flows per server port (`TCP/8080`).
    pub unknown_ports: Names,
    /// Per risk kind.
    pub risks: HashMap<String, Risk>,
    /// Risk kinds past `names`.
    pub risks_other: Tally,
    /// Flows with at least one risk.
    pub risky: Tally,
    /// Per tunnel kind.
    pub tunnels: Names,
    /// Per TLS version.
    pub tls: Names,
    /// Per JA4.
    pub ja4: Names,
    /// Per capture file.
    pub pcaps: Names,
    /// Bytes per host (each end of a flow is credited the flow's bytes).
    pub hosts: HeavyHitters,
    /// Bytes per conversation (client → server addresses).
    pub convs: HeavyHitters,
    /// Traffic over time by application.
    pub series: Series,
    /// The largest flows by bytes (a min-heap of at most `rows`).
    pub flows: BinaryHeap<Reverse<Flow>>,
    seq: u64,
}

/// Seconds to µs, or `None` for a time that is no time.
fn micros(t: f64) -> Option<i64> {
    // Up to the year 5000: enough for any capture, far from i64's end.
    (t.is_finite() && (0.0..1e11).contains(&t)).then(|| (t * 1e6).round() as i64)
}

impl Report {
    /// An empty report of these sizes.
    pub fn new(cfg: Config) -> Self {
        Report {
            cfg,
            total: Tally::default(),
            split: [0; 4],
            interim: 0,
            untimed: 0,
            span: None,
            apps: Names::new(cfg.names),
            categories: Names::new(cfg.names),
            methods: Names::new(cfg.names),
            ttb: [Tally::default(); 9],
            unknown_ports: Names::new(cfg.names),
            risks: HashMap::new(),
            risks_other: Tally::default(),
            risky: Tally::default(),
            tunnels: Names::new(cfg.names),
            tls: Names::new(cfg.names),
            ja4: Names::new(cfg.names),
            pcaps: Names::new(cfg.names),
            hosts: HeavyHitters::new(cfg.heavy),
            convs: HeavyHitters::new(cfg.heavy),
            series: Series::new(cfg.buckets),
            flows: BinaryHeap::new(),
            seq: 0,
        }
    }

    /// Count one record. Interim records (`end_reason` `active`) are skipped: their flow's
    /// final record counts it.
    pub fn add(&mut self, r: &Row<'_>) {
        if r.end_reason.as_deref() == Some("active") {
            self.interim += 1;
            return;
        }
        let (bytes, pkts) = (r.bytes(), r.pkts());
        self.total.add(bytes, pkts);
        for (s, v) in self
            .split
            .iter_mut()
            .zip([r.c2s_bytes, r.c2s_pkts, r.s2c_bytes, r.s2c_pkts])
        {
            *s = s.saturating_add(v);
        }
        let app = self.apps.add(&r.app, bytes, pkts);
        self.categories
            .add(r.category.as_deref().unwrap_or("Unspecified"), bytes, pkts);
        self.methods
            .add(r.method.as_deref().unwrap_or("(none)"), bytes, pkts);
        self.ttb[ttb_class(r.ttb_pkts.unwrap_or(0))].add(bytes, pkts);
        if r.app == "Unknown" {
            let port = format!(
                "{}/{}",
                clip(r.l4.as_deref().unwrap_or("?")),
                r.dst_port.unwrap_or(0)
            );
            self.unknown_ports.add(&port, bytes, pkts);
        }
        if let Some(risks) = r.risks.as_deref().filter(|s| !s.is_empty()) {
            self.risky.add(bytes, pkts);
            for kind in risks.split(';').map(str::trim).filter(|k| !k.is_empty()) {
                let kind = clip(kind);
                if !self.risks.contains_key(kind) && self.risks.len() >= self.cfg.names {
                    self.risks_other.add(bytes, pkts);
                    continue;
                }
                let e = self.risks.entry(kind.to_string()).or_default();
                e.tally.add(bytes, pkts);
                if e.examples.len() < RISK_EXAMPLES {
                    e.examples.push([
                        endpoint(&r.src_ip, r.src_port),
                        endpoint(&r.dst_ip, r.dst_port),
                        clip(&r.app).to_string(),
                        clip(r.host().unwrap_or("")).to_string(),
                    ]);
                }
            }
        }
        if let Some(t) = r.tunnel.as_deref() {
            self.tunnels.add(t, bytes, pkts);
        }
        if let Some(v) = r.tls_version.as_deref() {
            self.tls.add(v, bytes, pkts);
        }
        if let Some(j) = r.ja4.as_deref() {
            self.ja4.add(j, bytes, pkts);
        }
        self.pcaps
            .add(r.pcap.as_deref().unwrap_or("(records)"), bytes, pkts);
        self.hosts.add(&r.src_ip, bytes);
        if r.dst_ip != r.src_ip {
            self.hosts.add(&r.dst_ip, bytes);
        }
        let mut conv = String::with_capacity(r.src_ip.len() + r.dst_ip.len() + 5);
        conv.push_str(clip(&r.src_ip));
        conv.push_str(" \u{2192} ");
        conv.push_str(clip(&r.dst_ip));
        self.convs.add(&conv, bytes);
        let first = micros(r.first_ts);
        match (first, micros(r.last_ts)) {
            (Some(a), Some(b)) => {
                let (a, b) = (a.min(b), a.max(b));
                self.span = Some(match self.span {
                    None => (a, b),
                    Some((x, y)) => (x.min(a), y.max(b)),
                });
                let slot = app.unwrap_or(self.cfg.names);
                self.series.add(a, b, slot, bytes);
            }
            _ => self.untimed += 1,
        }
        self.seq += 1;
        if self.cfg.rows == 0 {
            return;
        }
        let beats = self.flows.len() < self.cfg.rows
            || self.flows.peek().is_some_and(|m| m.0.bytes < bytes);
        if beats {
            let f = Flow {
                bytes,
                seq: self.seq,
                first_us: first.unwrap_or(0),
                pkts,
                client: endpoint(&r.src_ip, r.src_port),
                server: endpoint(&r.dst_ip, r.dst_port),
                l4: clip(r.l4.as_deref().unwrap_or("")).to_string(),
                app: clip(&r.app).to_string(),
                category: clip(r.category.as_deref().unwrap_or("")).to_string(),
                method: clip(r.method.as_deref().unwrap_or("")).to_string(),
                host: clip(r.host().unwrap_or("")).to_string(),
                risks: clip(r.risks.as_deref().unwrap_or("")).to_string(),
                pcap: clip(r.pcap.as_deref().unwrap_or("")).to_string(),
            };
            if self.flows.len() >= self.cfg.rows {
                self.flows.pop();
            }
            self.flows.push(Reverse(f));
        }
    }
}

impl Report {
    /// Add the aggregates of other records (another worker's): totals and exact tables add
    /// up as if this report had seen them all; host and conversation counts merge as
    /// [`HeavyHitters`] do; the flow table keeps the largest of both.
    pub fn merge(&mut self, o: Report) {
        self.total.merge(o.total);
        for (a, b) in self.split.iter_mut().zip(o.split) {
            *a = a.saturating_add(b);
        }
        self.interim += o.interim;
        self.untimed += o.untimed;
        self.span = match (self.span, o.span) {
            (Some((a, b)), Some((c, d))) => Some((a.min(c), b.max(d))),
            (x, y) => x.or(y),
        };
        let at = self.apps.merge(o.apps);
        self.series.merge(o.series, &at, self.cfg.names);
        self.categories.merge(o.categories);
        self.methods.merge(o.methods);
        for (a, b) in self.ttb.iter_mut().zip(o.ttb) {
            a.merge(b);
        }
        self.unknown_ports.merge(o.unknown_ports);
        let mut risks: Vec<_> = o.risks.into_iter().collect();
        risks.sort_by(|a, b| a.0.cmp(&b.0));
        for (k, r) in risks {
            if !self.risks.contains_key(&k) && self.risks.len() >= self.cfg.names {
                self.risks_other.merge(r.tally);
                continue;
            }
            let e = self.risks.entry(k).or_default();
            e.tally.merge(r.tally);
            let room = RISK_EXAMPLES.saturating_sub(e.examples.len());
            e.examples.extend(r.examples.into_iter().take(room));
        }
        self.risks_other.merge(o.risks_other);
        self.risky.merge(o.risky);
        self.tunnels.merge(o.tunnels);
        self.tls.merge(o.tls);
        self.ja4.merge(o.ja4);
        self.pcaps.merge(o.pcaps);
        self.hosts.merge(o.hosts);
        self.convs.merge(o.convs);
        for Reverse(mut f) in o.flows {
            if self.cfg.rows == 0 {
                break;
            }
            self.seq += 1;
            f.seq = self.seq;
            if self.flows.len() < self.cfg.rows {
                self.flows.push(Reverse(f));
            } else if self.flows.peek().is_some_and(|m| m.0.bytes < f.bytes) {
                self.flows.pop();
                self.flows.push(Reverse(f));
            }
        }
        self.seq += o.seq;
    }
}

/// `ip:port` (`[ip]:port` for IPv6), clipped.
fn endpoint(ip: &str, port: Option<u16>) -> String {
    let ip = clip(ip);
    match port {
        Some(p) if ip.contains(':') => format!("[{ip}]:{p}"),
        Some(p) => format!("{ip}:{p}"),
        None => ip.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::borrow::Cow;

    fn row(app: &str, src: &str, dst: &str, t: f64, bytes: u64) -> Row<'static> {
        Row {
            src_ip: Cow::Owned(src.into()),
            dst_ip: Cow::Owned(dst.into()),
            app: Cow::Owned(app.into()),
            first_ts: t,
            last_ts: t,
            c2s_bytes: bytes,
            c2s_pkts: 1,
            ..Row::default()
        }
    }

    proptest! {
        /// The time series' sum is the total, however the records' times spread.
        #[test]
        fn series_keeps_every_byte(recs in proptest::collection::vec((0.0f64..1e9, 0.0f64..1e5, 0u64..1_000_000, 0usize..5), 1..200)) {
            let mut rep = Report::new(Config { buckets: 16, names: 3, ..Config::default() });
            let mut want = 0u64;
            for (t, d, b, a) in &recs {
                let mut r = row(&format!("A{a}"), "1.1.1.1", "2.2.2.2", *t, *b);
                r.last_ts = t + d;
                rep.add(&r);
                want += b;
            }
            let got: u64 = rep.series.bytes.iter().flatten().sum();
            prop_assert_eq!(got, want);
            prop_assert_eq!(rep.total.bytes, want);
            prop_assert!(rep.series.used().end <= 16);
            prop_assert!(rep.series.bytes.len() == 16);
        }

        /// Space-Saving: a key's count is never below its true weight, nor over it by more
        /// than its error; any key heavier than total / capacity is held.
        #[test]
        fn heavy_hitters_bounds(keys in proptest::collection::vec((0u8..40, 1u64..1000), 1..400)) {
            let mut hh = HeavyHitters::new(8);
            let mut truth: HashMap<String, u64> = HashMap::new();
            let mut total = 0;
            for (k, w) in &keys {
                let k = format!("k{k}");
                hh.add(&k, *w);
                *truth.entry(k).or_default() += w;
                total += w;
            }
            let held: HashMap<_, _> = hh.top(usize::MAX).into_iter().map(|(k, c, e, _)| (k.to_string(), (c, e))).collect();
            for (k, (c, e)) in &held {
                let t = truth[k];
                prop_assert!(*c >= t && *c - e <= t, "{} count {} err {} true {}", k, c, e, t);
            }
            for (k, t) in &truth {
                if *t > total / 8 {
                    prop_assert!(held.contains_key(k), "heavy {} ({} of {}) lost", k, t, total);
                }
            }
        }
    }

    #[test]
    fn names_overflow_is_counted() {
        let mut n = Names::new(2);
        for (k, b) in [("a", 1), ("b", 2), ("c", 4), ("a", 8)] {
            n.add(k, b, 1);
        }
        assert_eq!(n.len(), 2);
        assert_eq!(n.other.bytes, 4);
        assert_eq!(n.sorted(|t| t.bytes)[0].0, "a");
    }

    #[test]
    fn flow_table_keeps_the_largest_and_interim_records_are_skipped() {
        let mut rep = Report::new(Config {
            rows: 2,
            ..Config::default()
        });
        for b in [5, 1, 9, 3] {
            rep.add(&row("X", "a", "b", 1.0, b));
        }
        let mut interim = row("X", "a", "b", 1.0, 100);
        interim.end_reason = Some(Cow::Borrowed("active"));
        rep.add(&interim);
        let mut kept: Vec<u64> = rep.flows.iter().map(|f| f.0.bytes).collect();
        kept.sort();
        assert_eq!(kept, vec![5, 9]);
        assert_eq!(rep.total.bytes, 18);
        assert_eq!(rep.interim, 1);
    }

    #[test]
    fn hostile_times_and_long_names_stay_bounded() {
        let mut rep = Report::new(Config::default());
        let long = "x".repeat(100_000);
        for t in [f64::NAN, -1.0, f64::INFINITY, 1e300, 0.0, 1e10] {
            rep.add(&row(&long, &long, "b", t, 1));
        }
        assert_eq!(rep.untimed, 4);
        assert_eq!(rep.total.flows, 6);
        assert!(rep.apps.sorted(|t| t.bytes)[0].0.len() <= MAX_STR);
        assert_eq!(rep.series.bytes.iter().flatten().sum::<u64>(), 2);
    }
}
