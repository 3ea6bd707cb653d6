//! The runtime's one facade: a [`Session`] is built from a configuration (classifiers, rules,
//! model, limits: [`EngineConfig`]; cores: [`ParallelConfig`]) and one record sink per worker,
//! is fed inputs (capture files, directories' files, pipes and standard input), hands every
//! ended flow's record to the sinks, and returns a [`Summary`].
//!
//! ```no_run
//! use wirespeed_engine::{EngineConfig, ParallelConfig, Session};
//! use wirespeed_export::NullSink;
//!
//! let (cfg, par) = (EngineConfig::default(), ParallelConfig::default());
//! let mut s = Session::new(cfg, par, |_| NullSink::default(), false);
//! s.run_file("trace.pcap".as_ref(), &mut |_, _| {})?;
//! let (summary, _sinks) = s.finish()?;
//! println!("{} flows", summary.counters.records);
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! One worker runs on the calling thread ([`Worker`]); more share the input by the symmetric
//! hash ([`Pool`]); the records are the same either way.

use super::feed::{run_worker, Feed, FeedCounters, Published};
use super::pool::{DispatchStats, ParallelConfig, Pool};
use crate::rules::Rules;
use crate::summary::{AppStats, Counters, Summary};
use crate::worker::{run_file, EngineConfig, FileOutcome, Worker};
use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;
use wirespeed_export::RecordSink;

/// A run: its workers, their sinks, and what every input did.
pub struct Session<S: RecordSink + Send> {
    run: Run<S>,
    rules: Arc<Rules>,
    files: Vec<(String, u64, Option<String>)>,
    start: Instant,
    /// Where the workers of [`Session::run_feeds`] publish snapshots (a metrics endpoint).
    published: Option<Arc<Published>>,
}

enum Run<S: RecordSink + Send> {
    One(Box<Worker<S>>),
    Many(Box<Pool<S>>),
}

impl<S: RecordSink + Send> Session<S> {
    /// A session of `par.workers` workers (1: on the calling thread), worker `i` writing to
    /// `sink(i)`; `with_source` stamps every record with its input's path.
    pub fn new(
        cfg: EngineConfig,
        par: ParallelConfig,
        mut sink: impl FnMut(usize) -> S,
        with_source: bool,
    ) -> Self {
        let rules = cfg.rules.clone();
        let run = if par.workers <= 1 {
            Run::One(Box::new(Worker::new(cfg, sink(0), with_source)))
        } else {
            Run::Many(Box::new(Pool::new(cfg, par, sink, with_source)))
        };
        Session {
            run,
            rules,
            files: Vec::new(),
            start: Instant::now(),
            published: None,
        }
    }

    /// The workers of [`Session::run_feeds`] publish a snapshot of their counters and
    /// per-label totals to `p` about twice a second, off the packet path, for readers on other
    /// threads (a metrics endpoint); with a policy ([`Session::act`]), they fold their per-rule
    /// counters into its totals as often.
    pub fn publish_to(&mut self, p: Arc<Published>) {
        self.published = Some(p);
    }

    /// Every packet of the capture at `path` (a pcap or pcapng file, or a pipe or `-` for
    /// standard input, read as a stream), then the end of its flows: each input is its own
    /// capture. `progress(consumed, total)` is called with byte offsets as it goes. A damaged
    /// input processes every packet before the damage; its error is in the outcome and the
    /// summary. Only a sink's error is `Err`.
    pub fn run_file(
        &mut self,
        path: &Path,
        progress: &mut dyn FnMut(u64, u64),
    ) -> io::Result<FileOutcome> {
        let outcome = match &mut self.run {
            Run::One(w) => run_file(w, path, progress)?,
            Run::Many(p) => p.run_file(path, progress)?,
        };
        self.files.push((
            path.display().to_string(),
            outcome.packets,
            outcome.error.as_ref().map(|e| e.to_string()),
        ));
        Ok(outcome)
    }

    /// Records from now on carry `name` as their `source` and no `pcap` (a source that is not
    /// a file: a live capture's interfaces). Files given to [`Session::run_file`] name
    /// themselves.
    pub fn name_source(&mut self, name: &str) {
        match &mut self.run {
            Run::One(w) => w.name_source(name),
            Run::Many(p) => p.workers.iter_mut().for_each(|w| w.name_source(name)),
        }
    }

    /// Workers in this session.
    pub fn workers(&self) -> usize {
        match &self.run {
            Run::One(_) => 1,
            Run::Many(p) => p.workers(),
        }
    }

    /// Run worker `i` over `feeds[i]` (one feed per worker: sources that spread flows by
    /// themselves, such as live rings with kernel fanout), each on a thread of its own (pinned
    /// to core `i mod cores` with `pin`), until `stop` is set or `tick` returns false. `tick`
    /// runs on the calling thread about every 50 ms with the run's counters (a status line, a
    /// time limit). At the stop every worker processes what its feed still holds and ends its
    /// flows. A worker's error stops the others and is returned.
    pub fn run_feeds<F: Feed>(
        &mut self,
        mut feeds: Vec<F>,
        stop: &AtomicBool,
        pin: bool,
        tick: &mut dyn FnMut(&FeedCounters) -> bool,
    ) -> io::Result<()> {
        let workers: Vec<&mut Worker<S>> = match &mut self.run {
            Run::One(w) => vec![&mut **w],
            Run::Many(p) => p.workers.iter_mut().map(|w| &mut **w).collect(),
        };
        if feeds.len() != workers.len() {
            return Err(io::Error::other(format!(
                "{} feeds for {} workers: one each",
                feeds.len(),
                workers.len()
            )));
        }
        // Live workers have clocks of their own: what one learns is shared without waiting.
        if let Some(w) = workers.first() {
            w.learn_hub().set_async();
        }
        let counters = FeedCounters::default();
        let published = self.published.clone();
        if let Some(p) = &published {
            p.init(workers.len());
        }
        let cores = if pin {
            core_affinity::get_core_ids().unwrap_or_default()
        } else {
            Vec::new()
        };
        let results: Vec<io::Result<()>> = std::thread::scope(|sc| {
            let handles: Vec<_> = workers
                .into_iter()
                .zip(feeds.iter_mut())
                .enumerate()
                .map(|(i, (w, feed))| {
                    let core = (!cores.is_empty()).then(|| cores[i % cores.len()]);
                    let counters = &counters;
                    let slot = published.as_deref().and_then(|p| p.slot(i));
                    sc.spawn(move || {
                        if let Some(c) = core {
                            core_affinity::set_for_current(c);
                        }
                        run_worker(w, feed, stop, counters, slot)
                    })
                })
                .collect();
            while !stop.load(Ordering::Relaxed) {
                std::thread::sleep(std::time::Duration::from_millis(50));
                // A worker that ended early failed: stop the others.
                if handles.iter().any(|h| h.is_finished()) || !tick(&counters) {
                    stop.store(true, Ordering::Relaxed);
                }
            }
            handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|_| Err(io::Error::other("a worker thread panicked")))
                })
                .collect()
        });
        tick(&counters);
        results.into_iter().collect()
    }

    /// Every worker acts on `cell`'s policy ([`Worker::act`]): feeds that act on packets
    /// (NFQUEUE) get each packet's [`wirespeed_act::PacketAct`].
    pub fn act(&mut self, cell: &std::sync::Arc<wirespeed_act::PolicyCell>, bypass: bool) {
        match &mut self.run {
            Run::One(w) => w.act(cell.clone(), bypass),
            Run::Many(p) => {
                for w in p.workers.iter_mut() {
                    w.act(cell.clone(), bypass);
                }
            }
        }
    }

    /// Every worker tells `e` of each flow's final action and of its end
    /// ([`Worker::enforce`]; after [`Session::act`]).
    pub fn enforce(&mut self, e: &std::sync::Arc<dyn wirespeed_act::Enforce>) {
        match &mut self.run {
            Run::One(w) => w.enforce(e.clone()),
            Run::Many(p) => {
                for w in p.workers.iter_mut() {
                    w.enforce(e.clone());
                }
            }
        }
    }

    /// The run's rules (labels, tables, model).
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// Counters so far, all workers together.
    pub fn counters(&self) -> Counters {
        match &self.run {
            Run::One(w) => w.counters(),
            Run::Many(p) => p.counters(),
        }
    }

    /// Flows, packets and bytes per application of the flows ended so far.
    pub fn apps(&self) -> AppStats {
        match &self.run {
            Run::One(w) => w.apps(),
            Run::Many(p) => p.apps(),
        }
    }

    /// What the learned state did (None when no learned classifier runs). The workers share
    /// one state: its counters are the run's, not a sum.
    pub fn learn_stats(&self) -> Option<crate::learn::LearnStats> {
        let w: &Worker<S> = match &self.run {
            Run::One(w) => w,
            Run::Many(p) => p.workers.first()?,
        };
        w.learns().then(|| w.learn_hub().stats())
    }

    /// How the input was spread over the workers (None with one worker).
    pub fn dispatch_stats(&self) -> Option<&DispatchStats> {
        match &self.run {
            Run::One(_) => None,
            Run::Many(p) => Some(p.dispatch_stats()),
        }
    }

    /// The summary so far: counters, applications, inputs, and the time since the session
    /// started.
    pub fn summary(&self) -> Summary {
        let apps = self.apps();
        Summary {
            counters: self.counters(),
            categories: crate::summary::app_categories(&apps, self.rules.labels()),
            apps,
            files: self.files.clone(),
            elapsed_s: self.start.elapsed().as_secs_f64(),
            learn: self.learn_stats(),
        }
    }

    /// End every open flow, write their records, finish the sinks; the final summary and the
    /// sinks.
    pub fn finish(self) -> io::Result<(Summary, Vec<S>)> {
        let mut summary = self.summary();
        let sinks = match self.run {
            Run::One(w) => vec![w.finish()?],
            Run::Many(p) => p.finish()?,
        };
        summary.elapsed_s = self.start.elapsed().as_secs_f64();
        Ok((summary, sinks))
    }
}
