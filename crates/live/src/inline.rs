//! Inline: packets from NFQUEUE queues, one worker per queue, each packet answered by the
//! policy (`wirespeed inline`, issue 21). Flows are spread over the queues by the kernel
//! (`--queue-balance`, whose hash is symmetric: both directions of a connection share a queue).
//!
//! Failing open, by construction: the firewall rule carries `--queue-bypass` (no process bound:
//! packets pass), the queue is bound with the kernel's fail-open flag (a full queue, or a
//! receive buffer the process does not empty in time: packets pass unseen; the second kind is
//! counted here by the gaps in the kernel's packet ids, the first the kernel counts nowhere),
//! and a packet this process cannot parse is accepted.

use crate::nfqueue::{self, Queue, QueueConfig, Queued, MARK_MASK, MARK_SHIFT};
pub use crate::nfqueue::{QueueCounters, QueueSnapshot};
use crate::sys;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use wirespeed_act::{dscp, PacketAct, PolicyCell};
use wirespeed_capture::RawPacket;
use wirespeed_engine::runtime::feed::MAX_BATCH;
use wirespeed_engine::runtime::Feed;
use wirespeed_engine::{AppStats, Counters, EngineConfig, ParallelConfig, Session};
use wirespeed_export::RecordSink;

/// What to read and how to act.
#[derive(Clone)]
pub struct InlineConfig {
    /// The queues, one worker each.
    pub queues: Vec<u16>,
    /// The policy, shared by the workers (replaced on SIGHUP).
    pub policy: Arc<PolicyCell>,
    /// Hand flows whose action is final to the kernel (connection mark).
    pub bypass: bool,
    /// Queue length and socket buffer.
    pub queue: QueueConfig,
    /// Pin worker `i` to core `i mod cores`.
    pub pin: bool,
    /// Print a status line this often (none when zero).
    pub status_every: Duration,
    /// Stop by itself after this long.
    pub duration: Option<Duration>,
    /// The engine per worker.
    pub engine: EngineConfig,
    /// Publish the run's counters here as it goes (a metrics endpoint; its queue counters are
    /// the run's).
    pub metrics: Option<Arc<crate::metrics::RunStats>>,
}

/// How an inline run went.
#[derive(Debug, Default)]
pub struct InlineOutcome {
    /// Engine counters of all workers.
    pub counters: Counters,
    /// Per-application totals.
    pub apps: AppStats,
    /// Queue counters.
    pub queue: QueueSnapshot,
    /// Seconds it ran.
    pub elapsed_s: f64,
}

/// Run until `stop` (SIGINT/SIGTERM) or `cfg.duration`; every open flow is then ended and
/// written. `opened` is called once every queue is bound, before the first sink is asked for.
/// `tick` is called about every 50 ms (the caller reloads the policy there on SIGHUP).
pub fn run<S: RecordSink + Send>(
    cfg: &InlineConfig,
    sink: impl FnMut(usize) -> S,
    stop: Arc<AtomicBool>,
    opened: &mut dyn FnMut() -> io::Result<()>,
    status: &mut dyn FnMut(&str),
    tick: &mut dyn FnMut(),
) -> io::Result<InlineOutcome> {
    if cfg.queues.is_empty() {
        return Err(io::Error::other("no queue"));
    }
    let counters = cfg
        .metrics
        .as_ref()
        .and_then(|m| m.queue_counters())
        .unwrap_or_default();
    let mut feeds = Vec::with_capacity(cfg.queues.len());
    for &num in &cfg.queues {
        let q = Queue::open(num, &cfg.queue)?;
        feeds.push(NfqFeed::new(q, cfg.bypass, counters.clone()));
    }
    opened()?;
    status(&format!(
        "inline: ready: {} queue(s) {} with {} rules, kernel hand-off {}",
        cfg.queues.len(),
        cfg.queues
            .iter()
            .map(|q| q.to_string())
            .collect::<Vec<_>>()
            .join(","),
        cfg.policy.policy().rules.len(),
        if cfg.bypass { "on" } else { "off" }
    ));
    let par = ParallelConfig {
        workers: cfg.queues.len(),
        pin: cfg.pin,
        buffer_mb: 16,
        reader_thread: false,
    };
    let mut session = Session::new(cfg.engine.clone(), par, sink, true);
    session.name_source(&format!(
        "nfqueue:{}",
        cfg.queues
            .iter()
            .map(|q| q.to_string())
            .collect::<Vec<_>>()
            .join(",")
    ));
    session.act(&cfg.policy, cfg.bypass);
    if let Some(m) = &cfg.metrics {
        session.publish_to(m.published().clone());
    }
    let start = Instant::now();
    let mut last_status = Instant::now();
    let mut last_packets = 0u64;
    let run = session.run_feeds(feeds, &stop, cfg.pin, &mut |c| {
        tick();
        if !cfg.status_every.is_zero() && last_status.elapsed() >= cfg.status_every {
            let dt = last_status.elapsed().as_secs_f64();
            last_status = Instant::now();
            let p = c.packets.load(Ordering::Relaxed);
            let q = counters.snapshot();
            status(&format!(
                "inline: {:.0} s, {} packets ({:.1} kpps), {} flows ended, {} dropped, {} marked, {} hand-offs to the kernel, {} not delivered (fail open)",
                start.elapsed().as_secs_f64(),
                p,
                (p - last_packets) as f64 / dt / 1e3,
                c.records.load(Ordering::Relaxed),
                q.dropped,
                q.marked,
                q.bound,
                q.unseen,
            ));
            last_packets = p;
        }
        cfg.duration.is_none_or(|d| start.elapsed() < d)
    });
    let out = InlineOutcome {
        elapsed_s: start.elapsed().as_secs_f64(),
        counters: session.counters(),
        apps: session.apps(),
        queue: counters.snapshot(),
    };
    let finished = session.finish();
    run?;
    finished?;
    Ok(out)
}

/// One worker's queue: datagrams received into one arena per read, packets handed to the
/// worker in one batch, verdicts sent back in as few datagrams as fit.
struct NfqFeed {
    q: Queue,
    arena: Vec<u8>,
    pkts: Vec<Queued>,
    acts: Vec<PacketAct>,
    out: Vec<u8>,
    bypass: bool,
    /// The next packet id expected (0: none seen yet).
    next_id: u32,
    counters: Arc<QueueCounters>,
}

/// The arena: room for a batch of full-size packets' datagrams is not needed (most are small);
/// a read stops when less than one largest datagram is left.
const ARENA: usize = 4 << 20;
/// Verdicts are sent when this much is pending (a netlink datagram must fit the socket's send
/// buffer, about 200 KiB by default).
const SEND_AT: usize = 64 << 10;

impl NfqFeed {
    fn new(q: Queue, bypass: bool, counters: Arc<QueueCounters>) -> Self {
        NfqFeed {
            q,
            arena: vec![0u8; ARENA],
            pkts: Vec::with_capacity(MAX_BATCH),
            acts: vec![PacketAct::default(); MAX_BATCH],
            out: Vec::with_capacity(SEND_AT + nfqueue::DATAGRAM_MAX),
            bypass,
            next_id: 0,
            counters,
        }
    }

    fn verdict(
        &mut self,
        id: u32,
        v: u32,
        mark: Option<u32>,
        payload: Option<(usize, usize)>,
    ) -> io::Result<()> {
        let p = payload.and_then(|(o, l)| self.arena.get(o..o + l));
        nfqueue::verdict_msg(&mut self.out, self.q.num, id, v, mark, p);
        if self.out.len() >= SEND_AT {
            self.q.send(&self.out)?;
            self.out.clear();
        }
        Ok(())
    }
}

impl Feed for NfqFeed {
    fn read(&mut self, each: &mut wirespeed_engine::runtime::feed::Each<'_>) -> io::Result<u64> {
        self.pkts.clear();
        self.out.clear();
        let mut used = 0usize;
        let mut malformed = 0u64;
        let mut overflow = 0u64;
        while self.pkts.len() < MAX_BATCH && ARENA.saturating_sub(used) >= nfqueue::DATAGRAM_MAX {
            let Some(n) = self.q.recv(&mut self.arena[used..], false)? else {
                break;
            };
            let mut st = nfqueue::ParseStats::default();
            let (pkts, out, num) = (&mut self.pkts, &mut self.out, self.q.num);
            nfqueue::parse(&self.arena[used..used + n], num, &mut st, &mut |mut p| {
                p.off += used as u32;
                if pkts.len() < MAX_BATCH {
                    pkts.push(p);
                } else {
                    // More packets in one datagram than a batch holds (the kernel sends one a
                    // message, so never seen): accepted unseen, never left without a verdict.
                    nfqueue::verdict_msg(out, num, p.id, nfqueue::NF_ACCEPT, None, None);
                    overflow += 1;
                }
            });
            malformed += st.malformed;
            // The next datagram 8-aligned, never past the arena.
            used = (used + n).next_multiple_of(8).min(ARENA);
        }
        if malformed > 0 {
            self.counters
                .malformed
                .fetch_add(malformed, Ordering::Relaxed);
        }
        if overflow > 0 {
            self.counters.unseen.fetch_add(overflow, Ordering::Relaxed);
        }
        let n = self.pkts.len();
        if n == 0 {
            self.q.send(&self.out)?;
            self.out.clear();
            return Ok(0);
        }
        // Ids the kernel gave packets this process never saw: accepted by the fail-open flag.
        let mut unseen = 0u64;
        for p in &self.pkts {
            if self.next_id != 0 && p.id > self.next_id {
                unseen += u64::from(p.id - self.next_id);
            }
            self.next_id = p.id.wrapping_add(1);
        }
        // One clock per batch.
        let now = sys::realtime_ns();
        {
            let mut batch = [RawPacket::EMPTY; MAX_BATCH];
            for (slot, p) in batch.iter_mut().zip(&self.pkts) {
                let (o, l) = (p.off as usize, p.len as usize);
                *slot = RawPacket {
                    ts_ns: now,
                    wire_len: p.orig_len,
                    link: wirespeed_wire::LinkType::RAW.0,
                    iface: 0,
                    data: self.arena.get(o..o + l).unwrap_or(&[]),
                };
            }
            let acts = &mut self.acts[..n];
            acts.fill(PacketAct::default());
            each(&batch[..n], acts)?;
        }
        let (mut accepted, mut dropped, mut marked, mut bound, mut missing) = (0, 0, 0, 0, 0);
        for i in 0..n {
            let p = self.pkts[i];
            let a = self.acts[i];
            let ours = p.mark & MARK_MASK;
            if ours != 0 {
                // Came back after a hand-off: the firewall has no rule acting on the mark.
                missing += 1;
            }
            if a.bind != 0 && self.bypass && ours == 0 {
                let mark = (p.mark & !MARK_MASK) | (u32::from(a.bind) << MARK_SHIFT);
                bound += 1;
                self.verdict(p.id, nfqueue::NF_REPEAT, Some(mark), None)?;
            } else if a.drop {
                dropped += 1;
                self.verdict(p.id, nfqueue::NF_DROP, None, None)?;
            } else if let Some(d) = a.dscp {
                let (o, l) = (p.off as usize, p.len as usize);
                let changed = self
                    .arena
                    .get_mut(o..o + l)
                    .is_some_and(|b| dscp::set_dscp(b, d) == Ok(true));
                marked += 1;
                if changed && p.len == p.orig_len {
                    self.verdict(p.id, nfqueue::NF_ACCEPT, None, Some((o, l)))?;
                } else {
                    self.verdict(p.id, nfqueue::NF_ACCEPT, None, None)?;
                }
            } else {
                accepted += 1;
                self.verdict(p.id, nfqueue::NF_ACCEPT, None, None)?;
            }
        }
        self.q.send(&self.out)?;
        self.out.clear();
        let c = &self.counters;
        c.packets.fetch_add(n as u64, Ordering::Relaxed);
        c.accepted.fetch_add(accepted, Ordering::Relaxed);
        c.dropped.fetch_add(dropped, Ordering::Relaxed);
        c.marked.fetch_add(marked, Ordering::Relaxed);
        c.bound.fetch_add(bound, Ordering::Relaxed);
        c.unseen.fetch_add(unseen, Ordering::Relaxed);
        c.rules_missing.fetch_add(missing, Ordering::Relaxed);
        Ok(n as u64)
    }

    fn wait(&mut self, timeout: Duration) -> io::Result<()> {
        let ms = timeout.as_millis().min(i32::MAX as u128) as i32;
        if sys::poll_readable(&[self.q.fd()], ms)? != 0 {
            // An error on a netlink socket: the next recv reports it.
            std::thread::sleep(timeout);
        }
        Ok(())
    }

    fn now_ns(&self) -> u64 {
        sys::realtime_ns()
    }
}

impl Drop for NfqFeed {
    fn drop(&mut self) {
        // Best effort: closing the socket unbinds the queue too.
        let _ = self.q.unbind();
    }
}

/// The firewall rules that put packets in the queues and act on flows handed to the kernel,
/// for `iptables-legacy` (and `ip6tables-legacy`): `cmd` is the command name, `queues` the
/// queue numbers, `dscps` every DSCP the policy writes.
pub fn kernel_rules(
    cmd: &str,
    chain: &str,
    queues: &[u16],
    dscps: &[u8],
    bypass: bool,
) -> Vec<String> {
    let mask = format!("{MARK_MASK:#010x}");
    let code = |c: u32| format!("{:#010x}", c << MARK_SHIFT);
    let mut v = Vec::new();
    let q = match queues {
        [one] => format!("--queue-num {one}"),
        _ => {
            let (lo, hi) = (
                queues.iter().min().copied().unwrap_or(0),
                queues.iter().max().copied().unwrap_or(0),
            );
            format!("--queue-balance {lo}:{hi}")
        }
    };
    if bypass {
        v.push(format!(
            "{cmd} -A {chain} -m mark ! --mark 0x0/{mask} -j CONNMARK --save-mark --nfmask {mask} --ctmask {mask}"
        ));
        v.push(format!(
            "{cmd} -A {chain} -m connmark --mark {}/{mask} -j ACCEPT",
            code(1)
        ));
        v.push(format!(
            "{cmd} -A {chain} -m connmark --mark {}/{mask} -j DROP",
            code(2)
        ));
        v.push(format!(
            "{cmd} -A {chain} -m connmark --mark {}/{:#010x} -j ACCEPT",
            code(0x40),
            0xc0u32 << MARK_SHIFT
        ));
    }
    v.push(format!("{cmd} -A {chain} -j NFQUEUE {q} --queue-bypass"));
    if bypass {
        for d in dscps {
            v.push(format!(
                "{cmd} -t mangle -A POSTROUTING -m connmark --mark {}/{mask} -j DSCP --set-dscp {d}",
                code(0x40 | u32::from(*d))
            ));
        }
    }
    v
}
