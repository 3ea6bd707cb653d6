//! What the run learns as it goes, shared by its workers: addresses DNS answers named
//! ([`DnsCache`]) and server end-points payload inspection labelled ([`HostCache`]).
//!
//! # Determinism (issue 19, item 8)
//!
//! Each worker sees only its share of the flows, yet what it learns must label every worker's
//! later flows, and a capture file must give the same records with 1 or N workers. So the
//! learned state is published in **epochs of capture time** (1 s by default): a worker notes
//! what its flows teach (observations, stamped with the input's clock) in a local buffer; when
//! its input clock enters a new epoch it hands them over and, for files, waits until every
//! worker has reached that epoch. The last to arrive applies all observations of the epochs
//! now closed, sorted by time and content, to the shared state; then all go on reading it. A
//! flow starting in epoch `k` therefore sees exactly what flows taught before epoch `k`
//! began, whichever worker they were on, and nothing of epoch `k` itself: with one worker as
//! with many. The price: a DNS answer names connections from the next epoch on, not the one
//! that follows it within the same second; and at each epoch a worker may wait for the others
//! (a crossing costs one lock; captures where each packet opens a new epoch pay it per packet).
//!
//! Live capture (its clocks are the workers' own) does not wait: a worker's observations are
//! applied when it enters an epoch, and read by all from then on.
//!
//! Each input file is its own capture: what it taught is forgotten at its end.
//!
//! While no epoch is being applied nobody writes the state, so readers (one read lock per new
//! flow) never contend with a writer in file runs.

use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, RwLock, RwLockReadGuard};
use wirespeed_classify::dnscache::{DnsCache, DnsCacheConfig, DnsCacheStats};
use wirespeed_classify::dpt::{Dpt, DptConfig, DptStats};
use wirespeed_classify::hostcache::{Endpoint, HostCache, HostCacheConfig, HostCacheStats};
use wirespeed_classify::hosts::AppId;
use wirespeed_classify::{ClassifierSet, LabelId, Method};
use wirespeed_stats::nb::{NbCounts, MAX_FEATURES};
use wirespeed_stats::LinkModel;

/// How learning is paced and bounded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LearnConfig {
    /// Observations are published at most this often, ns of capture time.
    pub epoch_ns: u64,
    /// The DNS-learned addresses.
    pub dns: DnsCacheConfig,
    /// The Host Cache.
    pub hosts: HostCacheConfig,
    /// The Dedicated Port Table.
    pub dpt: DptConfig,
    /// Observations a worker holds between two epochs (more are dropped and counted).
    pub pending: usize,
    /// The statistical model learns from the link (`--learn-stats`, issue 38 item 3): 0 = no;
    /// otherwise each flow payload inspection labels counts this many times over the shipped
    /// model's counts (the prior). See [`wirespeed_stats::LinkModel`].
    pub stats_weight: u32,
}

impl LearnConfig {
    /// The weight of a link flow against the prior that `--learn-stats` gives by default: the
    /// only one measured that kept prequential macro-F1 at or above 0.90 on every corpus run
    /// (DESIGN.md, "Learning from the link").
    pub const LINK_WEIGHT: u32 = 4;
}

impl Default for LearnConfig {
    fn default() -> Self {
        LearnConfig {
            epoch_ns: 1_000_000_000,
            dns: DnsCacheConfig::default(),
            hosts: HostCacheConfig::default(),
            dpt: DptConfig::default(),
            pending: 1 << 16,
            stats_weight: 0,
        }
    }
}

/// Something a flow taught, at a capture time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Obs {
    /// A DNS answer: `addr` is a server of `app`'s name, for `ttl` seconds.
    Dns { addr: IpAddr, app: AppId, ttl: u32 },
    /// Payload inspection labelled a flow from `client` to `ep`.
    Flow {
        ep: Endpoint,
        client: Endpoint,
        label: LabelId,
    },
}

/// A flow's lesson for the link model (`--learn-stats`): payload inspection labelled a flow of
/// the statistical model's class `.0` whose first packets fall in the model's feature bins `.1`
/// (unused ones 0). Kept apart from [`Obs`]: lessons add counts, so their order changes nothing
/// and they need no sorting, and the caches' path stays as it was when the option is off.
pub(crate) type StatsLesson = (u16, [u16; MAX_FEATURES]);

/// Where a worker's statistical classifier leaves its lessons until the worker's next epoch
/// crossing takes them ([`Learner`]).
pub(crate) type StatsBox = Arc<Mutex<Vec<StatsLesson>>>;

/// Sort an epoch's observation keys (time, the content hash's upper half, the index: each
/// key distinct) ascending. The keys arrive in index order, so a stable sort by time and hash
/// alone gives the order of the whole keys: a radix sort, one pass over the keys for each
/// byte in which they differ, rather than ~15 comparisons a key; a short list by comparison,
/// where the radix sort's histograms cost more.
fn sort_keys(keys: &mut [u128]) {
    if keys.len() < RADIX_FROM {
        keys.sort_unstable();
    } else {
        radsort::sort_by_key(keys, |&k| ((k >> 64) as u64, (k >> 32) as u32));
    }
}

/// Lists shorter than this are sorted by comparison ([`sort_keys`]).
const RADIX_FROM: usize = 64;

/// A fixed-seed hash of an observation's content, from its packed fields (a few word writes).
#[inline]
fn content_hash(fixed: &foldhash::fast::FixedState, o: &Obs) -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = fixed.build_hasher();
    match o {
        Obs::Dns { addr, app, ttl } => {
            let a = match addr {
                IpAddr::V4(a) => u128::from(u32::from(*a)),
                IpAddr::V6(a) => u128::from(*a) ^ (1 << 127),
            };
            h.write_u128(a);
            h.write_u64(u64::from(app.0) << 32 | u64::from(*ttl));
        }
        Obs::Flow { ep, client, label } => {
            let (a, b) = (ep.packed(), client.packed());
            h.write_u128(a.0);
            h.write_u128(b.0);
            h.write_u64(u64::from(a.1) << 32 | u64::from(b.1));
            h.write_u16(label.0 | 0x8000);
        }
    }
    h.finish()
}

/// The shared state: what every worker reads at a flow's first packet.
#[derive(Debug)]
pub struct Learned {
    /// Address → the application its DNS name belongs to.
    pub dns: DnsCache<AppId>,
    /// Server end-point → label.
    pub hosts: HostCache<LabelId>,
    /// Either end-point → labels seen on it (seed 001's Dedicated Port Table).
    pub dpt: Dpt<LabelId>,
    /// The statistical model as the link taught it (`--learn-stats`); None when off.
    pub stats: Option<LinkModel>,
}

/// Counters of the learned state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LearnStats {
    /// The DNS cache's.
    pub dns: DnsCacheStats,
    /// The host cache's.
    pub hosts: HostCacheStats,
    /// The Dedicated Port Table's.
    pub dpt: DptStats,
    /// Observations dropped because a worker's buffer was full.
    pub dropped: u64,
    /// Epochs applied.
    pub epochs: u64,
    /// Flows the link model learned (`--learn-stats`), over the run.
    pub stats_learned: u64,
}

/// An epoch's observations, their sort keys and the Dedicated Port Table's hints.
type Spare = (Vec<(u64, Obs)>, Vec<u128>, Vec<(Endpoint, LabelId)>);

struct HubState {
    /// The epoch each worker has reached (all its observations before it are handed over);
    /// `u64::MAX` once it has finished the input.
    at: Vec<u64>,
    /// Observations of epochs before this one are applied.
    applied: u64,
    /// The Host Cache window the state was last advanced into.
    window: u64,
    pending: Vec<(u64, Obs)>,
    /// An epoch's observations, their sort keys and the Dedicated Port Table's hints, kept
    /// between epochs for their memory (each regrown from empty was ~0.3 M instructions of
    /// the corpus mix's 146 epochs).
    spare: Spare,
    /// The link model's lessons (`--learn-stats`), by input clock.
    lessons: Vec<(u64, StatsLesson)>,
    /// Lessons the link model took, over the run.
    taught: u64,
    dropped: u64,
    epochs: u64,
}

/// The learned state of one run and how its workers hand observations in.
pub struct Hub {
    cfg: LearnConfig,
    /// Which tables learn (their classifiers are enabled).
    hosts_on: bool,
    dpt_on: bool,
    sync: AtomicBool,
    aborted: AtomicBool,
    st: Mutex<HubState>,
    cv: Condvar,
    learned: RwLock<Learned>,
}

impl std::fmt::Debug for Hub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hub").field("cfg", &self.cfg).finish()
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Hub {
    /// A hub for `workers` workers, which wait for each other at epochs (files); the tables of
    /// the classifiers `set` enables learn.
    pub fn new(cfg: LearnConfig, set: ClassifierSet, workers: usize) -> Arc<Hub> {
        Arc::new(Hub {
            hosts_on: set.has(Method::HostCache),
            dpt_on: set.has(Method::Dpt),
            cfg: LearnConfig {
                epoch_ns: cfg.epoch_ns.max(1),
                ..cfg
            },
            sync: AtomicBool::new(true),
            aborted: AtomicBool::new(false),
            st: Mutex::new(HubState {
                at: vec![0; workers.max(1)],
                applied: 0,
                window: 0,
                pending: Vec::new(),
                spare: Default::default(),
                lessons: Vec::new(),
                taught: 0,
                dropped: 0,
                epochs: 0,
            }),
            cv: Condvar::new(),
            learned: RwLock::new(Learned {
                dns: DnsCache::new(cfg.dns),
                hosts: HostCache::new(cfg.hosts),
                dpt: Dpt::new(cfg.dpt),
                stats: None,
            }),
        })
    }

    /// Workers no longer wait for each other (live capture: each has its own clock).
    pub fn set_async(&self) {
        self.sync.store(false, Ordering::Relaxed);
        self.cv.notify_all();
    }

    /// A worker failed: nobody waits any more (the run's results are an error anyway).
    pub fn abort(&self) {
        self.aborted.store(true, Ordering::Relaxed);
        self.cv.notify_all();
    }

    /// The state, to read.
    #[inline]
    pub fn read(&self) -> RwLockReadGuard<'_, Learned> {
        self.learned.read().unwrap_or_else(|e| e.into_inner())
    }

    /// Capture time between two publications, ns.
    pub fn epoch_ns(&self) -> u64 {
        self.cfg.epoch_ns
    }

    /// Counters.
    pub fn stats(&self) -> LearnStats {
        let (dropped, epochs, taught) = {
            let st = lock(&self.st);
            (st.dropped, st.epochs, st.taught)
        };
        let l = self.read();
        LearnStats {
            dns: l.dns.stats(),
            hosts: l.hosts.stats(),
            dpt: l.dpt.stats(),
            dropped,
            epochs,
            stats_learned: taught,
        }
    }

    /// The link model learns from `prior` (the shipped model's counts), if this run learns it
    /// (`stats_weight` > 0) and it has not started yet.
    pub(crate) fn init_stats(&self, prior: &NbCounts) {
        if self.cfg.stats_weight == 0 {
            return;
        }
        let mut l = self.learned.write().unwrap_or_else(|e| e.into_inner());
        if l.stats.is_none() {
            l.stats = Some(LinkModel::new(prior, self.cfg.stats_weight));
        }
    }

    /// Apply the pending observations of epochs before `upto`, in time and content order.
    fn apply(&self, st: &mut HubState, upto: u64) {
        let end = upto.saturating_mul(self.cfg.epoch_ns);
        let window = end / self.cfg.hosts.window_ns.max(1);
        // Most epochs of a sparse capture teach nothing and close no window: no write.
        if upto != u64::MAX
            && window == st.window
            && !st.pending.iter().any(|o| o.0 < end)
            && !st.lessons.iter().any(|o| o.0 < end)
        {
            st.applied = st.applied.max(upto);
            return;
        }
        st.window = window;
        // Usually every pending observation is due (one worker, or workers in step): taken
        // whole, not copied.
        let (mut spare, mut keys, mut hints) = std::mem::take(&mut st.spare);
        let ready: Vec<(u64, Obs)> = if st.pending.iter().all(|o| o.0 < end) {
            spare.clear();
            std::mem::replace(&mut st.pending, spare)
        } else {
            let mut ready = spare;
            ready.clear();
            st.pending.retain(|o| {
                if o.0 < end {
                    ready.push(*o);
                    false
                } else {
                    true
                }
            });
            ready
        };
        // Time order, then a canonical order among equal times, so the order does not depend
        // on which worker handed what in: a fixed-seed hash of the content, the content itself
        // only where those tie. Sorted as small integer keys, not as observations.
        // Each key one integer (time, the hash's upper half, the index): one comparison a
        // step of the sort, not three.
        let fixed = foldhash::fast::FixedState::with_seed(0x1ea2_5eed);
        keys.clear();
        keys.extend(ready.iter().enumerate().map(|(i, o)| {
            let h = content_hash(&fixed, &o.1) >> 32;
            u128::from(o.0) << 64 | u128::from(h) << 32 | i as u128
        }));
        sort_keys(&mut keys);
        let at = |k: u128| k as u32 as usize;
        // Equal keys are almost always equal observations (many flows to one server at one
        // clock), whose order changes nothing; a run that holds different ones (a hash tie) is
        // put in content order.
        for run in keys.chunk_by_mut(|a, b| a >> 32 == b >> 32) {
            let first = ready[at(run[0])].1;
            if run.iter().any(|&k| ready[at(k)].1 != first) {
                run.sort_unstable_by(|&a, &b| ready[at(a)].1.cmp(&ready[at(b)].1));
            }
        }
        let mut l = self.learned.write().unwrap_or_else(|e| e.into_inner());
        hints.clear();
        for &k in &keys {
            let (t, o) = ready[at(k)];
            match o {
                Obs::Dns { addr, app, ttl } => l.dns.learn(addr, app, ttl, t),
                Obs::Flow { ep, client, label } => {
                    if self.hosts_on {
                        l.hosts.observe(ep, label, t);
                    }
                    if self.dpt_on {
                        hints.push((ep, label));
                        // A client's port is a hint only outside the ephemeral ranges (Linux
                        // 32768-60999, IANA and Windows 49152-65535): a peer's listening port,
                        // not a port the client's system picked for this flow alone.
                        if client.port < 32768 {
                            hints.push((client, label));
                        }
                    }
                }
            }
        }
        if !st.lessons.is_empty() {
            st.taught += Self::teach(&mut l, &mut st.lessons, end);
        }
        if upto != u64::MAX && self.hosts_on {
            l.hosts.advance(end);
        }
        if !hints.is_empty() {
            l.dpt.add_batch(&mut hints, end);
        }
        st.spare = (ready, keys, hints);
        st.applied = st.applied.max(upto);
        st.epochs += 1;
    }

    /// The link model learns the lessons of epochs before `end` and rebuilds its tables, once
    /// per epoch that taught it (counts add up in any order: the same tables for any number of
    /// workers).
    /// Returns the number of flows learned.
    #[cold]
    fn teach(l: &mut Learned, lessons: &mut Vec<(u64, StatsLesson)>, end: u64) -> u64 {
        let Some(m) = l.stats.as_mut() else {
            lessons.clear();
            return 0;
        };
        let mut n_taught = 0;
        let n = m.params().features();
        let mut bins = [0u32; MAX_FEATURES];
        lessons.retain(|&(t, (class, b))| {
            if t >= end {
                return true;
            }
            for (x, &y) in bins.iter_mut().zip(b.iter()) {
                *x = u32::from(y);
            }
            n_taught += u64::from(m.add(class, &bins[..n]));
            false
        });
        m.rebuild();
        n_taught
    }

    /// Worker `me` enters epoch `e` with `obs` and `lessons` (its observations and lessons so
    /// far, emptied).
    fn cross(
        &self,
        me: usize,
        e: u64,
        obs: &mut Vec<(u64, Obs)>,
        lessons: &mut Vec<(u64, StatsLesson)>,
        dropped: &mut u64,
    ) {
        let mut st = lock(&self.st);
        // Handed over whole where the hub holds none (one worker, or the first in): the two
        // vectors swapped, not the observations copied; `obs` is left empty either way.
        if st.pending.is_empty() {
            std::mem::swap(&mut st.pending, obs);
        } else {
            st.pending.append(obs);
        }
        if !lessons.is_empty() {
            st.lessons.append(lessons);
        }
        st.dropped += std::mem::take(dropped);
        if let Some(a) = st.at.get_mut(me) {
            *a = e;
        }
        if !self.sync.load(Ordering::Relaxed) {
            let upto = st.applied.max(e);
            self.apply(&mut st, upto);
            return;
        }
        let m = st.at.iter().copied().min().unwrap_or(e);
        if m > st.applied {
            self.apply(&mut st, m);
            self.cv.notify_all();
        }
        while st.applied < e
            && self.sync.load(Ordering::Relaxed)
            && !self.aborted.load(Ordering::Relaxed)
        {
            st = self.cv.wait(st).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Worker `me` has finished the input: the others no longer wait for it; the last one to
    /// finish forgets the input's lessons (the next input is its own capture).
    fn finish(&self, me: usize, obs: &mut Vec<(u64, Obs)>) {
        obs.clear();
        let mut st = lock(&self.st);
        if let Some(a) = st.at.get_mut(me) {
            *a = u64::MAX;
        }
        if st.at.iter().all(|&a| a == u64::MAX) {
            st.at.iter_mut().for_each(|a| *a = 0);
            st.pending.clear();
            st.lessons.clear();
            st.applied = 0;
            st.window = 0;
            let mut l = self.learned.write().unwrap_or_else(|e| e.into_inner());
            l.dns.clear();
            l.hosts.clear();
            l.dpt.clear();
            if let Some(m) = l.stats.as_mut() {
                m.reset();
            }
        } else {
            let m = st.at.iter().copied().min().unwrap_or(0);
            if m > st.applied && self.sync.load(Ordering::Relaxed) {
                self.apply(&mut st, m);
            }
        }
        self.cv.notify_all();
    }
}

/// Releases every worker waiting at an epoch if its thread unwinds, so none waits for it
/// forever.
pub(crate) struct AbortOnUnwind(pub(crate) Arc<Hub>);

impl Drop for AbortOnUnwind {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.abort();
        }
    }
}

/// One worker's side of the hub: its observations between epochs.
pub(crate) struct Learner {
    pub(crate) hub: Arc<Hub>,
    me: usize,
    /// Where the next epoch begins (ns of input clock).
    next_ns: u64,
    obs: Vec<(u64, Obs)>,
    dropped: u64,
    /// Nothing to learn in this run (no learned classifier enabled): no epochs.
    pub(crate) off: bool,
    /// The statistical classifier's lessons (`--learn-stats`), taken at each epoch crossing.
    pub(crate) stats_box: Option<StatsBox>,
    lessons: Vec<(u64, StatsLesson)>,
}

impl Learner {
    pub(crate) fn new(hub: Arc<Hub>, me: usize, off: bool) -> Self {
        Learner {
            hub,
            me,
            next_ns: 0,
            obs: Vec::new(),
            dropped: 0,
            off,
            stats_box: None,
            lessons: Vec::new(),
        }
    }

    /// The input's clock is `clk`: enter its epoch if it is a new one (which may wait for the
    /// other workers: see [`Learner::due`]).
    #[inline]
    pub(crate) fn tick(&mut self, clk: u64) {
        if self.due(clk) {
            self.enter(clk);
        }
    }

    /// `tick(clk)` would enter a new epoch, and so may wait for the other workers: a worker
    /// first tells them how far it has run (one of them may be waiting on that,
    /// [`crate::expect`]).
    #[inline(always)]
    pub(crate) fn due(&self, clk: u64) -> bool {
        clk >= self.next_ns && !self.off
    }

    #[cold]
    fn enter(&mut self, clk: u64) {
        // The statistical classifier's lessons since the last crossing, all of the epoch this
        // worker leaves: stamped with its last instant (the order among them changes nothing,
        // counts add up).
        if let Some(b) = &self.stats_box {
            let t = self.next_ns.saturating_sub(1);
            for l in lock(b).drain(..) {
                if self.lessons.len() < self.hub.cfg.pending {
                    self.lessons.push((t, l));
                } else {
                    self.dropped += 1;
                }
            }
        }
        let e = clk / self.hub.cfg.epoch_ns;
        self.hub.cross(
            self.me,
            e,
            &mut self.obs,
            &mut self.lessons,
            &mut self.dropped,
        );
        self.next_ns = (e + 1).saturating_mul(self.hub.cfg.epoch_ns);
    }

    /// Note an observation at input clock `t`.
    #[inline]
    pub(crate) fn note(&mut self, t: u64, o: Obs) {
        if self.obs.len() < self.hub.cfg.pending {
            self.obs.push((t, o));
        } else {
            self.dropped += 1;
        }
    }

    /// The input is over for this worker.
    pub(crate) fn finish(&mut self) {
        if self.off {
            return;
        }
        if let Some(b) = &self.stats_box {
            lock(b).clear();
        }
        self.lessons.clear();
        self.hub.finish(self.me, &mut self.obs);
        self.next_ns = 0;
    }
}

#[cfg(test)]
mod sort_tests {
    use super::{sort_keys, RADIX_FROM};
    use proptest::prelude::*;

    proptest! {
        /// The radix path gives the comparison sort's order for keys in index order, with
        /// times and hashes drawn from small ranges in any one of their bytes (many ties, which
        /// the index breaks) or from the whole range (every byte differs), on both sides of
        /// the length cut.
        #[test]
        fn radix_order_is_the_comparison_order(
            parts in prop::collection::vec((0u64..4, 0u32..4, any::<u64>(), any::<u32>()), 0..(RADIX_FROM * 5)),
            wide in any::<bool>(),
            (ts, hs) in (0u32..8, 0u32..4),
        ) {
            let mut keys: Vec<u128> = parts
                .iter()
                .enumerate()
                .map(|(i, &(t, h, tw, hw))| {
                    // Narrow: the keys differ in one byte of the time and one of the hash,
                    // which byte drawn per case.
                    let (t, h) = if wide { (tw, hw) } else { (t << (8 * ts) | 7, h << (8 * hs)) };
                    u128::from(t) << 64 | u128::from(h) << 32 | i as u128
                })
                .collect();
            let mut want = keys.clone();
            want.sort_unstable();
            sort_keys(&mut keys);
            prop_assert_eq!(keys, want);
        }
    }
}
