//! One shared-nothing pipeline: batches in, flow records out.

use crate::classify::{FlowExt, PacketView, Stage};
pub use crate::config::{stats_families, EngineConfig};
pub use crate::input::FileOutcome;
use crate::observe::{self, Observers};
use crate::record::{Output, Want};
use crate::summary::Counters;
use std::io;
use std::path::Path;
use wirespeed_capture::{CaptureFile, RawPacket};
use wirespeed_classify::Arbiter;
use wirespeed_export::RecordSink;
use wirespeed_flow::{EndReason, Flow, FlowKey, FlowTable, FragTable, Lookup, Side};
use wirespeed_wire::{decode, DecodeConfig, DropReason, LinkType, TcpInfo, Tunnel};

/// A packet decoded and keyed, waiting for its flow lookup (the batch's middle stage).
#[derive(Clone, Copy)]
struct Pending {
    key: FlowKey,
    hash: u64,
    ts: u64,
    /// The input's clock at this packet: the latest time of a packet counted in a flow so far.
    clk: u64,
    len: u32,
    side: Side,
    tcp: Option<TcpInfo>,
    tunnel: Tunnel,
    /// Index of the packet in its batch, and where its transport payload lies in the frame:
    /// stage 3 hands `batch[idx].data[payload_off..payload_off + payload_len]` to classifiers
    /// (offsets, not a slice, so `Pending` needs no lifetime and its buffer is reused; u32 because
    /// a pcap record may be larger than 64 KiB).
    idx: u32,
    payload_off: u32,
    payload_len: u32,
    /// Length of the innermost IP packet by its header (the statistical features' size).
    ip_len: u16,
    /// TTL or hop limit of the innermost IP header.
    ttl: u8,
    /// `--tunnels both`: this is the packet's outer flow's (pushed just before its inner one).
    outer: bool,
}

/// Bytes of memory available to this process: the kernel's MemAvailable, or less where a
/// cgroup (v2) limit leaves less. None where neither can be read. What
/// [`reserved_bytes`](crate::runtime::reserved_bytes) is compared with before a run starts (the
/// CLI and the Python module).
pub fn memory_available() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kib: u64 = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemAvailable:"))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()?;
    let mut avail = kib.saturating_mul(1024);
    let cgroup = |f: &str| -> Option<u64> {
        std::fs::read_to_string(std::path::Path::new("/sys/fs/cgroup").join(f))
            .ok()?
            .trim()
            .parse()
            .ok()
    };
    if let (Some(max), Some(cur)) = (cgroup("memory.max"), cgroup("memory.current")) {
        avail = avail.min(max.saturating_sub(cur));
    }
    Some(avail)
}

/// One pipeline: owns a flow table and writes records to its sink. Nothing is shared with other
/// workers.
pub struct Worker<S: RecordSink> {
    cfg: EngineConfig,
    table: FlowTable<FlowExt>,
    frag: FragTable,
    arbiter: Arbiter,
    stage: Stage,
    obs: Observers,
    pending: Vec<Pending>,
    out: Output<S>,
    counters: Counters,
    now: u64,
    /// Flow ids of packets numbered by this worker (no [`Stamp`]): a packet's id is its number
    /// among this worker's packets × `id_stride` + `id_base` ([`Worker::numbered`]).
    id_base: u64,
    id_stride: u64,
}

/// What a dispatcher tells a worker about each packet of its share of an input
/// ([`Worker::process_batch_stamped`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stamp {
    /// The input's clock at the packet: the latest time of a packet counted in a flow so far,
    /// across all workers.
    pub clock: u64,
    /// The packet's number in the run's input (0 for its first packet, counted over every
    /// input of the run): a flow's id is its first packet's number.
    pub ordinal: u64,
}

impl<S: RecordSink> Worker<S> {
    /// A worker writing to `sink`; `with_source` stamps each record with its input file.
    pub fn new(cfg: EngineConfig, sink: S, with_source: bool) -> Self {
        let batch = cfg.batch_size.max(1);
        let table = FlowTable::new(cfg.flow);
        // Events carry the fingerprints: with them, the hashes are computed whatever else asks.
        let dpi = wirespeed_dpi::DpiConfig {
            fingerprints: cfg.dpi.fingerprints || cfg.events.is_some(),
            ..cfg.dpi
        };
        let mut stage = Stage::new(&crate::classify::Env {
            rules: &cfg.rules,
            classifiers: cfg.classifiers,
            dpi: &dpi,
            learn: &cfg.learn,
        });
        let obs = Observers::new(&cfg, &table);
        let mut out = Output::new(sink, with_source);
        out.want = Want {
            risks: cfg.risks,
            ip_owner: cfg.ip_owner,
        };
        if cfg.outer_flows && cfg.decode.decode_tunnels {
            let mut p = crate::tunnels::Parents::new(table.config().capacity);
            p.locator = Some(table.locator());
            out.parents = Some(p);
        }
        if let Some(e) = &cfg.events {
            stage.dpi.dpi.enable_events();
            out.events = Some(crate::events::EventOut::new(e));
        }
        Worker {
            table,
            frag: match cfg.dispatch_seed {
                Some(k) => FragTable::with_key(cfg.frag_capacity, cfg.frag_timeout_ns, k),
                None => FragTable::new(cfg.frag_capacity, cfg.frag_timeout_ns),
            },
            arbiter: Arbiter::new(cfg.classifiers),
            stage,
            obs,
            pending: Vec::with_capacity(batch),
            out,
            cfg,
            counters: Counters::default(),
            now: 0,
            id_base: 0,
            id_stride: 1,
        }
    }

    /// This is worker `index` of a run's `count`. A flow's id (`flow_id` in records, and in
    /// the events that join them) is the number of its first packet in the run's input: given
    /// by the dispatcher with each packet ([`Worker::process_batch_stamped`]: capture files and
    /// pipes, whatever the number of workers or the dispatch key), or else counted by the
    /// worker itself (a lone worker: the same numbers; a worker reading its own feed, such as a
    /// live ring: its packets' numbers interleaved with the other workers', `n × count +
    /// index`, so ids stay unique in the run).
    pub fn numbered(mut self, index: usize, count: usize) -> Self {
        self.id_base = index as u64;
        self.id_stride = count.max(1) as u64;
        self
    }

    /// This worker is worker `index` of those sharing `hub`'s learned state (a pool's).
    pub fn learning(mut self, hub: std::sync::Arc<crate::learn::Hub>, index: usize) -> Self {
        let off = self.stage.learned.learner.off;
        self.stage.learned.learner = crate::learn::Learner::new(hub, index, off);
        self.stage.link_stats();
        self
    }

    /// Share the run's announced connections ([`crate::expect`]) with this worker, worker
    /// `index` of those sharing them.
    pub fn expecting(
        mut self,
        expect: std::sync::Arc<crate::expect::Expectations>,
        index: usize,
    ) -> Self {
        self.stage.dpi.expect = expect;
        self.stage.dpi.me = index;
        self
    }

    /// Act on `cell`'s policy (`wirespeed inline`): each packet of
    /// [`Worker::process_batch_acting`] gets its [`wirespeed_act::PacketAct`]; `bypass` hands a
    /// flow to the kernel once its action is final.
    pub fn act(&mut self, cell: std::sync::Arc<wirespeed_act::PolicyCell>, bypass: bool) {
        let slots = self.table.config().capacity;
        self.obs.act = Some(crate::observe::act::Inline::new(
            cell,
            slots,
            bypass,
            self.cfg.classifiers.has(wirespeed_classify::Method::Dpi),
        ));
    }

    /// Tell `e` of each flow's final action and of its end (after [`Worker::act`], with the
    /// hand-off on): the eBPF data path of `inline`, which enforces outside the packet path.
    pub fn enforce(&mut self, e: std::sync::Arc<dyn wirespeed_act::Enforce>) {
        if let Some(a) = self.obs.act.as_mut() {
            if e.rate_limits() {
                a.actor.kernel_rates();
            }
            a.enforce = Some(e);
        }
    }

    /// Fold this worker's per-rule counters into its policy cell's totals (the end of a run).
    pub fn fold_act(&mut self) {
        if let Some(a) = self.obs.act.as_mut() {
            a.actor.fold();
        }
    }

    /// Does this worker learn (a learned classifier is enabled)?
    pub fn learns(&self) -> bool {
        !self.stage.learned.learner.off
    }

    /// The learned state this worker reads and feeds.
    pub fn learn_hub(&self) -> &std::sync::Arc<crate::learn::Hub> {
        &self.stage.learned.learner.hub
    }

    /// Configuration in force.
    pub fn config(&self) -> &EngineConfig {
        &self.cfg
    }

    /// Counters so far (table and fragment counters included).
    pub fn counters(&self) -> Counters {
        let mut c = self.counters;
        c.table = self.table.stats();
        c.frag = self.frag.stats();
        c.records = self.out.records;
        c.by_method = self.out.by_method;
        c.by_risk = self.out.by_risk;
        c.learned = self.out.learned;
        c.dpi = self.stage.dpi.dpi.stats();
        c
    }

    /// Copy this worker's counters, per-label totals and open flows into `s` (reusing its
    /// memory: the per-label vector grows to the run's label count at most).
    /// Asked to ([`crate::runtime::Published::count_open`]) and holding at most
    /// [`OPEN_SCAN_MAX`] flows, also its open flows by the label each has
    /// so far (a walk of the table, off the packet path).
    pub(crate) fn snapshot_into(&self, s: &mut WorkerSnapshot) {
        s.counters = self.counters();
        s.by_label.clone_from(&self.out.by_label);
        s.active = self.table.len() as u64;
        s.open_by_label.iter_mut().for_each(|n| *n = [0; 3]);
        s.open_counted = s.want_open && self.table.len() <= OPEN_SCAN_MAX;
        if s.open_counted {
            for f in self.table.iter() {
                let i = f.ext.class.verdict().map_or(0, |v| v.label.index());
                if s.open_by_label.len() <= i {
                    // Grows to the run's label count at most.
                    s.open_by_label.resize(i + 1, [0; 3]);
                }
                let n = &mut s.open_by_label[i];
                n[0] += 1;
                n[1] += f.pkts[0] + f.pkts[1];
                n[2] += f.bytes[0] + f.bytes[1];
            }
        }
    }

    /// Records written so far, interim ones included.
    pub fn records_written(&self) -> u64 {
        self.out.written
    }

    /// Transaction events written so far (`--events`).
    pub fn events_written(&self) -> u64 {
        self.out.events.as_ref().map_or(0, |e| e.written())
    }

    /// Hand what the sink holds to its output now (the sink's `finish`, which a sink may be
    /// asked for more than once), so records do not wait in a buffer on a quiet link; and the
    /// transaction events.
    pub fn flush_output(&mut self) -> io::Result<()> {
        self.out.sink.finish()?;
        match self.out.events.as_mut() {
            Some(e) => e.finish(),
            None => Ok(()),
        }
    }

    /// Per-application totals of the flows ended so far.
    pub fn apps(&self) -> crate::AppStats {
        self.out.apps(self.cfg.rules.labels())
    }

    /// Call `call` with the value of one of `fields` when payload inspection first extracts it
    /// on a flow (HTTP URL, SMTP recipient, DNS name, …): [`wirespeed_dpi::Dpi::subscribe`].
    pub fn subscribe(
        &mut self,
        fields: &[wirespeed_dpi::Field],
        call: impl FnMut(wirespeed_dpi::Field, &str) + Send + 'static,
    ) {
        self.stage.dpi.dpi.subscribe(fields, call);
    }

    /// Records from now on carry `path` as their source (and its base name as `pcap`).
    pub fn set_source(&mut self, path: &str) {
        self.out.set_source(path);
    }

    /// Records from now on carry `name` as their source and no `pcap` (a source that is not a
    /// file, such as a live capture's interfaces).
    pub fn name_source(&mut self, name: &str) {
        self.out.set_source(name);
        self.out.base.clear();
    }

    /// Run one batch through the pipeline. Per-packet work allocates nothing and reads no clock:
    /// time is the capture timestamps.
    pub fn process_batch(&mut self, batch: &[RawPacket<'_>]) -> io::Result<()> {
        self.run_batch(batch, None, &mut [])
    }

    /// [`Worker::process_batch`] of an inline run ([`Worker::act`]): `acts[i]` is set to
    /// what `batch[i]` gets (left as it was for a packet that is not a flow's: not IP, a
    /// fragment whose first part was not seen, ...: the caller's default, accept).
    pub fn process_batch_acting(
        &mut self,
        batch: &[RawPacket<'_>],
        acts: &mut [wirespeed_act::PacketAct],
    ) -> io::Result<()> {
        if let Some(a) = self.obs.act.as_mut() {
            a.actor.begin_batch();
        }
        self.run_batch(batch, None, acts)
    }

    /// [`Worker::process_batch`] for a share of an input: `stamps[i]` is what the dispatcher
    /// knows of `batch[i]`, the input's clock at it (the latest time of a packet counted in a
    /// flow so far, across all workers: flows expire exactly when one worker reading the whole
    /// input would end them) and its number in the input (a new flow's id).
    pub fn process_batch_stamped(
        &mut self,
        batch: &[RawPacket<'_>],
        stamps: &[Stamp],
    ) -> io::Result<()> {
        self.run_batch(batch, Some(stamps), &mut [])
    }

    fn run_batch(
        &mut self,
        batch: &[RawPacket<'_>],
        stamps: Option<&[Stamp]>,
        acts: &mut [wirespeed_act::PacketAct],
    ) -> io::Result<()> {
        let Worker {
            cfg,
            table,
            frag,
            arbiter,
            stage,
            obs,
            pending,
            out,
            counters: c,
            now,
            id_base,
            id_stride,
            ..
        } = self;
        pending.clear();
        // This worker's count of packets before the batch (the ids of unstamped packets).
        let counted = c.packets;
        // `--tunnels both`: tunnelled packets count in their outer flow too.
        let both = out.parents.is_some();
        // Stage 1: decode, key, hash.
        for (idx, p) in batch.iter().enumerate() {
            let stamp = stamps.and_then(|k| k.get(idx).copied());
            c.packets += 1;
            c.bytes += p.data.len() as u64;
            // Matched by reference: the decoded packet (~80 bytes) is read where decode wrote
            // it, not moved out of its `Result` first.
            let decoded = decode(LinkType(p.link), p.data, &cfg.decode);
            let d = match &decoded {
                Ok(d) if d.beyond_frame(p.wire_len as usize, p.data.len()) => {
                    // `--tunnels both`: what tunnels off decode counts in its outer flow.
                    if both && push_outer(p, idx, stamp, table, frag, now, pending) {
                        c.decoded += 1;
                        continue;
                    }
                    c.drops[DropReason::IpBeyondFrame.index()] += 1;
                    continue;
                }
                Ok(d) => d,
                Err(r) => {
                    if both && push_outer(p, idx, stamp, table, frag, now, pending) {
                        c.decoded += 1;
                        continue;
                    }
                    c.drops[r.index()] += 1;
                    continue;
                }
            };
            // `--tunnels both`: the outer flow's packet first, then the inner one's.
            let outer = both
                && d.tunnel != Tunnel::None
                && push_outer(p, idx, stamp, table, frag, now, pending);
            // Later fragments carry no ports: their first fragment's ports key them.
            let Some((sport, dport)) = frag.ports(d, p.ts_ns) else {
                if outer {
                    c.decoded += 1;
                } else {
                    c.frag_orphans += 1;
                }
                continue;
            };
            let (key, side) = FlowKey::new(
                d.ip_version,
                d.proto,
                d.vlan,
                (d.src, sport),
                (d.dst, dport),
            );
            // No prefetch of the index entry here: stage 2's loads of the entries overlap by
            // themselves (independent iterations), and a prefetch per packet in this loop only
            // competed with the packet reads (worst case, 4 sets of 6-8 interleaved runs:
            // medians 1.20-1.30 s without it against 1.23-1.41 s with it). The flow's slot
            // prefetch (stage 2) is the one that pays: without it 1.93 s.
            let hash = table.hash(&key);
            c.decoded += 1;
            // One monotonic clock for every expiry decision (lookup and sweep alike).
            let clk = stamp.map_or(p.ts_ns, |s| s.clock);
            if clk > *now {
                *now = clk;
            }
            pending.push(Pending {
                key,
                hash,
                ts: p.ts_ns,
                clk: *now,
                len: p.data.len() as u32,
                side,
                tcp: d.tcp,
                tunnel: d.tunnel,
                idx: idx as u32,
                // The payload is a sub-slice of the frame (decode is zero-copy), except an empty
                // payload, which may point anywhere: wrapping, and stage 3 reads it with `get`.
                payload_off: (d.payload.as_ptr() as usize).wrapping_sub(p.data.as_ptr() as usize)
                    as u32,
                payload_len: d.payload.len() as u32,
                ip_len: d.ip_len,
                ttl: d.ttl,
                outer: false,
            });
        }
        // Stage 2: read each index entry and prefetch the flow it names.
        for q in pending.iter() {
            table.prefetch_slot(q.hash);
        }
        // Stage 3: look up or create each flow, update it, and run the classifiers.
        let rules = &*cfg.rules;
        // `--tunnels both`: the packet and id of the last outer flow's packet.
        let mut outer_of: Option<(u32, u64)> = None;
        // Observers are set between batches, never in one.
        let observing = obs.any();
        for q in pending.iter() {
            // Entering an epoch may wait for the other workers; one of them may be waiting for
            // this worker to run its packets before this one ([`crate::expect`]): it has.
            if stage.learned.due(q.clk) {
                progress_at(&stage.dpi, stamps, q.idx);
            }
            stage.learned.tick(q.clk);
            let mut on_end =
                |f: &mut Flow<FlowExt>, why: EndReason| out.end(f, why, stage, obs, arbiter, rules);
            let r = table.lookup_or_insert(
                &q.key,
                q.hash,
                q.side,
                q.ts,
                q.clk,
                q.tcp.as_ref(),
                &mut on_end,
            );
            let f = table.get_mut(r.slot());
            if let Lookup::New(_) = r {
                // The flow's number is its id: its first packet's in the input, not the
                // table's count, so that it does not depend on which worker took the flow.
                f.serial = flow_id(stamps, q.idx as usize, counted, *id_stride, *id_base);
                if both {
                    f.serial = crate::tunnels::flow_id(f.serial, q.outer);
                }
                f.tunnel = q.tunnel;
                stage.start(arbiter, f);
                if matches!(f.key.proto, 1 | 58) {
                    // The whole message: the 8-byte header lies before the payload. (A message
                    // of the header alone ends the frame, which ends where IP ends.)
                    let data = &batch[q.idx as usize].data;
                    let (off, len) = (q.payload_off as usize, q.payload_len as usize);
                    let msg = off
                        .checked_sub(8)
                        .filter(|_| len > 0 || off == data.len())
                        .and_then(|s| data.get(s..off + len));
                    if msg.is_some_and(|m| crate::observe::risks::icmp_malformed(f.key.proto, m)) {
                        f.noted |= wirespeed_flow::noted::ICMP_MALFORMED;
                    }
                }
            }
            if both {
                if q.outer {
                    outer_of = Some((q.idx, f.serial));
                } else if let (Lookup::New(slot), Some((idx, parent))) = (r, outer_of) {
                    // The inner flow begun by a packet whose outer flow was just counted.
                    if idx == q.idx && q.tunnel != Tunnel::None {
                        if let Some(p) = out.parents.as_mut() {
                            p.set(slot, f.serial, parent);
                        }
                    }
                }
            }
            let gap = q.ts.saturating_sub(f.last_ts);
            f.update(q.side, q.ts, q.len as u64, q.tcp.map(|t| t.flags));
            if q.tcp.map_or(q.payload_len > 0, |t| t.seg_len > 0) {
                f.payload_from(q.side);
            }
            // A quiet flow's packet (its classifiers done with it; most packets of long flows):
            // counted above, and nothing else to do unless observers watch every packet.
            if !observing && stage.quiet(f) {
                #[cfg(test)]
                {
                    stage.skipped += 1;
                }
                continue;
            }
            let off = q.payload_off as usize;
            let payload = batch[q.idx as usize]
                .data
                .get(off..off + q.payload_len as usize)
                .unwrap_or(&[]);
            // Link padding a sender counted into a bare ACK's IP length is not data: the
            // classifiers see none (the flow's byte counters and TCP analysis keep the segment).
            let payload = match q.tcp {
                Some(t) if q.ip_len <= 46 && t.padding_counted_as_data(q.ip_len, payload) => {
                    &[][..]
                }
                _ => payload,
            };
            let p = PacketView {
                side: q.side,
                ts: q.ts,
                gap_ns: gap,
                seq: q.tcp.map_or(0, |t| t.seq),
                tcp_flags: q.tcp.map_or(0, |t| t.flags),
                ip_len: q.ip_len,
                payload,
                ordinal: match stamps.and_then(|k| k.get(q.idx as usize)) {
                    Some(s) => s.ordinal,
                    None => (counted + u64::from(q.idx)) * *id_stride + *id_base,
                },
                slot: r.slot(),
            };
            // The observers (`--stats`, `wirespeed inline`; observe/) see the same packet,
            // built for each hook from `q` and `p` (kept across the classifiers' call, its
            // fields would be spilled for every packet).
            let first = matches!(r, Lookup::New(_));
            if observing {
                obs.before(&observed(q, batch, &p, r.slot(), first, f.client), f);
            }
            stage.packet(arbiter, f, &p);
            // The transactions payload inspection completed at this packet (`--events`).
            out.events(&mut stage.dpi.dpi);
            if first {
                f.ext.class.mark_first();
            }
            if observing {
                let mut cx = observe::Cx {
                    rules,
                    stage,
                    seen: Default::default(),
                    act: acts.get_mut(q.idx as usize),
                };
                let o = observed(q, batch, &p, r.slot(), first, f.client);
                obs.packet(&o, f, &mut cx);
            }
            // Payload inspection gave this flow the context of a flow that held it long with
            // nothing decided (a full pool, `--dpi-reclaim-after`): that flow's handle names it
            // no more.
            if let Some(v) = stage.dpi.dpi.take_reclaimed() {
                stage.dpi.lost(&mut table.get_mut(v).ext.dpi);
            }
        }
        // One small sweep step per batch (ΔT/M): no packet ever waits on a full scan.
        table.gc_step(*now, &mut |f, why| {
            out.end(f, why, stage, obs, arbiter, rules)
        });
        out.take_error()
    }

    /// Move this worker's capture clock forward to `now` (a dispatcher's clock: the latest time
    /// read from the input), so flows expire by the input's time, not by the share of it this
    /// worker sees.
    pub fn advance_clock(&mut self, now: u64) {
        self.now = self.now.max(now);
        // Callers publish how far this worker has run before they move its clock.
        self.stage.learned.tick(self.now);
    }

    /// End every open flow (end of an input file, or shutdown) and write their records.
    pub fn flush(&mut self) -> io::Result<()> {
        let (out, stage, obs) = (&mut self.out, &mut self.stage, &mut self.obs);
        let (rules, arbiter) = (&*self.cfg.rules, &self.arbiter);
        let mut end =
            |f: &mut Flow<FlowExt>, why: EndReason| out.end(f, why, stage, obs, arbiter, rules);
        // Flows already idle at the input's last time end as such, wherever the sweep was.
        self.table.expire_all(self.now, &mut end);
        self.table.flush(&mut end);
        // The next input has its own clock: times of this one must not expire its flows, and
        // what it taught is forgotten.
        self.now = 0;
        self.stage.learned.learner.finish();
        out.take_error()
    }

    /// Flush all flows and the sink; returns the sink.
    pub fn finish(mut self) -> io::Result<S> {
        self.flush()?;
        self.out.sink.finish()?;
        if let Some(e) = self.out.events.as_mut() {
            e.finish()?;
        }
        Ok(self.out.sink)
    }
}

/// This worker has run every packet of its own before `batch[i]` (the packet whose stamp is
/// `stamps[i]`): told to the run's other workers before it enters a new epoch.
#[cold]
#[inline(never)]
fn progress_at(dpi: &crate::classify::dpi::DpiClassifier, stamps: Option<&[Stamp]>, i: u32) {
    if let Some(s) = stamps.and_then(|k| k.get(i as usize)) {
        dpi.progress(s.ordinal);
    }
}

/// The id of a flow whose first packet is `batch[i]`: its [`Stamp::ordinal`], or else its
/// number among this worker's packets (`counted` before the batch) × `stride` + `base`. Once a
/// flow: out of line.
#[inline(never)]
fn flow_id(stamps: Option<&[Stamp]>, i: usize, counted: u64, stride: u64, base: u64) -> u64 {
    match stamps.and_then(|k| k.get(i)) {
        Some(s) => s.ordinal,
        None => (counted + i as u64) * stride + base,
    }
}

/// The packet `q` of `batch` as the observers see it ([`observe::Packet`]): the classifiers'
/// view of it `p`, the flow's `slot` and `client`, `first` when it begins the flow.
#[inline(always)]
fn observed<'a>(
    q: &Pending,
    batch: &'a [RawPacket<'_>],
    p: &PacketView<'a>,
    slot: u32,
    first: bool,
    client: Side,
) -> observe::Packet<'a> {
    observe::Packet {
        slot,
        first,
        c2s: q.side == client,
        ts: q.ts,
        len: q.len,
        ip_len: q.ip_len,
        ttl: q.ttl,
        tcp: q.tcp,
        frame: batch.get(q.idx as usize).map_or(&[], |b| b.data),
        payload_off: q.payload_off as usize,
        payload_len: q.payload_len,
        payload: p.payload,
    }
}

/// `--tunnels both`: push the outer flow's packet of `batch[idx]` (`p`), decoded with tunnels
/// off and keyed as `--tunnels outer` keys it; false when its outermost headers make no flow
/// (nothing pushed). Out of line: runs without the mode never call it.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn push_outer(
    p: &RawPacket<'_>,
    idx: usize,
    stamp: Option<Stamp>,
    table: &FlowTable<FlowExt>,
    frag: &mut FragTable,
    now: &mut u64,
    pending: &mut Vec<Pending>,
) -> bool {
    let off = DecodeConfig {
        decode_tunnels: false,
    };
    let d = match decode(LinkType(p.link), p.data, &off) {
        Ok(d) if !d.beyond_frame(p.wire_len as usize, p.data.len()) => d,
        _ => return false,
    };
    let Some((sport, dport)) = frag.ports(&d, p.ts_ns) else {
        return false;
    };
    let (key, side) = FlowKey::new(
        d.ip_version,
        d.proto,
        d.vlan,
        (d.src, sport),
        (d.dst, dport),
    );
    let clk = stamp.map_or(p.ts_ns, |s| s.clock);
    if clk > *now {
        *now = clk;
    }
    pending.push(Pending {
        key,
        hash: table.hash(&key),
        ts: p.ts_ns,
        clk: *now,
        len: p.data.len() as u32,
        side,
        tcp: d.tcp,
        tunnel: Tunnel::None,
        idx: idx as u32,
        payload_off: (d.payload.as_ptr() as usize).wrapping_sub(p.data.as_ptr() as usize) as u32,
        payload_len: d.payload.len() as u32,
        ip_len: d.ip_len,
        ttl: d.ttl,
        outer: true,
    });
    true
}

/// Feed the capture file at `path` through `worker` in batches, then end its flows (each input
/// file is its own capture). `progress(consumed, total)` is called after each batch with byte
/// offsets, for progress bars. A damaged file processes every packet before the damage and
/// reports the error in the outcome; only a sink error is returned as `Err`.
pub fn run_file<S: RecordSink>(
    worker: &mut Worker<S>,
    path: &Path,
    progress: &mut dyn FnMut(u64, u64),
) -> io::Result<FileOutcome> {
    worker.set_source(&path.to_string_lossy());
    // Each file is its own capture: connections announced in one name none of the next's.
    worker.stage.dpi.expect.clear();
    let outcome = if wirespeed_capture::stream::is_stream(path) {
        let stop = worker.cfg.stop.clone();
        crate::input::stream(path, stop.as_ref(), progress, &mut |file, p| {
            run_packets(worker, file, p)
        })?
    } else {
        match CaptureFile::open(path) {
            Ok(mut file) => {
                if let Some(stop) = &worker.cfg.stop {
                    file.stop_when(stop.clone());
                }
                let total = file.len();
                let o = run_packets(worker, &file, &mut |at| progress(at, total))?;
                progress(total, total);
                o
            }
            Err(e) => FileOutcome {
                packets: 0,
                error: Some(e),
            },
        }
    };
    worker.counters.capture_errors += u64::from(outcome.error.is_some());
    worker.flush()?;
    Ok(outcome)
}

/// Every packet of `file` through `worker`, in batches, flows left open: the packets read and
/// the error that ended the file early, if one did.
fn run_packets<S: RecordSink>(
    worker: &mut Worker<S>,
    file: &CaptureFile,
    progress: &mut dyn FnMut(u64),
) -> io::Result<FileOutcome> {
    let mut reader = file.reader();
    let bs = worker.cfg.batch_size.max(1);
    let mut batch: Vec<RawPacket<'_>> = Vec::with_capacity(bs);
    let mut packets = 0u64;
    loop {
        batch.clear();
        let r = reader.next_batch(&mut batch, bs);
        if !batch.is_empty() {
            packets += batch.len() as u64;
            worker.process_batch(&batch)?;
            progress(reader.position());
        }
        match r {
            Ok(0) => {
                return Ok(FileOutcome {
                    packets,
                    error: None,
                })
            }
            Ok(_) => {}
            Err(e) => {
                return Ok(FileOutcome {
                    packets,
                    error: Some(e),
                })
            }
        }
    }
}

/// What one worker of a feed run last published ([`crate::runtime::Published`]).
#[derive(Clone, Debug, Default)]
pub struct WorkerSnapshot {
    /// The worker's counters ([`Worker::counters`]).
    pub counters: Counters,
    /// Flows, packets and bytes of the flows ended so far, by label id (the index).
    pub by_label: Vec<[u64; 3]>,
    /// Flows the worker holds now.
    pub active: u64,
    /// Flows, packets and bytes of the flows held now, by the label each has so far (the
    /// index): counted only by a worker publishing for a live page ([`crate::runtime::Published::count_open`])
    /// and holding at most [`OPEN_SCAN_MAX`] flows; empty otherwise.
    pub open_by_label: Vec<[u64; 3]>,
    /// Whether every worker added up counted its open flows (false when one held more than
    /// [`OPEN_SCAN_MAX`], or none was asked to).
    pub open_counted: bool,
    /// Whether this worker is to count its open flows ([`crate::runtime::Published::count_open`], set in its
    /// slot before the run).
    pub(crate) want_open: bool,
}

/// Most flows a worker walks to count its open flows by label when it publishes (about twice a
/// second): a bounded cost off the packet path (65,536 flows took 0.35 ms a walk on the
/// development machine, so this is about 1.5 ms, 0.3 % of a worker's time); above it, only
/// ended flows are counted.
pub const OPEN_SCAN_MAX: usize = 1 << 18;

impl WorkerSnapshot {
    /// Add another worker's snapshot to this one.
    pub fn add(&mut self, o: &WorkerSnapshot) {
        self.counters.add(&o.counters);
        add_by_label(&mut self.by_label, &o.by_label);
        add_by_label(&mut self.open_by_label, &o.open_by_label);
        self.active += o.active;
    }
}

fn add_by_label(to: &mut Vec<[u64; 3]>, from: &[[u64; 3]]) {
    if to.len() < from.len() {
        to.resize(from.len(), [0; 3]);
    }
    for (a, b) in to.iter_mut().zip(from) {
        for (x, y) in a.iter_mut().zip(b) {
            *x += y;
        }
    }
}

#[cfg(test)]
mod size_tests {
    /// What a run reserves follows the table size, the workers and the statistics families.
    #[test]
    fn reserved_bytes_follow_capacity_workers_and_families() {
        let mut cfg = super::EngineConfig::default();
        cfg.flow.capacity = 1 << 20;
        let one = crate::reserved_bytes(&cfg, 1);
        // Slots of at most 192 bytes, a 4-byte free-list entry and 16 bytes of index a flow.
        assert!(
            ((1 << 20) * (192 + 4)..=(1 << 20) * (200 + 4 + 16)).contains(&one),
            "{one}"
        );
        // Two workers share the capacity, with at most 1/8 headroom each.
        let two = crate::reserved_bytes(&cfg, 2);
        assert!(two >= one && two <= one * 9 / 8 + 64, "{two} vs {one}");
        cfg.dist = true;
        cfg.tcp = true;
        assert!(crate::reserved_bytes(&cfg, 1) > one);
        // `--tunnels both`: 16 bytes a flow for the parents (crates/engine/src/tunnels.rs).
        let before = crate::reserved_bytes(&cfg, 1);
        cfg.outer_flows = true;
        assert_eq!(crate::reserved_bytes(&cfg, 1), before + (1 << 20) * 16);
        // The largest table asked for (2^28 flows) is tens of GiB, never an overflow.
        cfg.flow.capacity = 1 << 28;
        assert!(crate::reserved_bytes(&cfg, 1) > 50 << 30);
    }

    /// Memory per flow is the table's budget (capacity × slot): a field added to every slot must
    /// be a deliberate choice, so growing the slot fails here. 136 → 184 bytes: the statistical
    /// classifier (issue 3) keeps the first 5 packets' sizes, flags and gaps (40 bytes,
    /// `wirespeed_stats::Early`) until its verdict, and the verdict itself (4 bytes) so records
    /// can compare it with the method that won.
    #[test]
    fn flow_slot_stays_within_budget() {
        // 136 -> 144: the DPI context handle (`FlowExt::dpi`, a u32 padded to 8). All payload
        // state lives in the DPI pools; the slot keeps only the handle.
        assert_eq!(std::mem::size_of::<wirespeed_stats::Early>(), 48);
        // 184 -> 192: `Flow::seen`, the input's clock at the flow's last packet, so expiry
        // measures on one monotonic clock in captures whose time goes back (issue 5: records
        // independent of batch size and workers); worst case measured within noise.
        // 192 -> 184: the verdict's label is a 2-byte id, not a reference (issue 17); 184 ->
        // 192: the facts classifiers publish for the arbiter (a byte, padded to 8).
        // 192 -> 200: the first 4 payload-carrying packets' sizes (`Early::lead`, 8 bytes) that
        // a model of the data packets reads however long the handshake was (twentieth
        // session; the statistical model's held-out figures, DESIGN.md "Statistical models").
        let slot = std::mem::size_of::<wirespeed_flow::Flow<super::FlowExt>>();
        assert!(slot <= 200, "{slot}");
        assert!(std::mem::size_of::<Option<wirespeed_classify::Verdict>>() <= 24);
    }
}

/// Quiet flows (`Classifier::quiet`): once every classifier says it is done with a flow's
/// packets, the stage calls none of them again. Checked against the stage that calls them for
/// every packet: the same records, byte for byte.
#[cfg(test)]
mod quiet_tests {
    use super::*;
    use std::path::PathBuf;
    use wirespeed_export::JsonLinesWriter;

    /// The JSON records of `files` with one worker, and the packets skipped.
    fn records(files: &[PathBuf], cfg: &EngineConfig, every_packet: bool) -> (String, u64) {
        // With the first packets' columns (`--features`): what the statistical classifier
        // records of them, which it must go on recording after the flow's verdict.
        let sink = JsonLinesWriter::new(Vec::new(), false).with_features(true);
        let mut w = Worker::new(cfg.clone(), sink, true);
        w.stage.every_packet = every_packet;
        for f in files {
            run_file(&mut w, f, &mut |_, _| {}).unwrap();
        }
        let skipped = w.stage.skipped;
        let out = w.finish().unwrap().into_inner().unwrap();
        (String::from_utf8(out).unwrap(), skipped)
    }

    /// Generated traffic (the demo, heavy-tailed flows of the corpus's protocols) and, where
    /// the corpus is present, its captures; by default, with the statistical model learning
    /// from the link, and with only the port and statistical classifiers.
    #[test]
    fn skipping_quiet_flows_changes_no_record() {
        let dir = std::env::temp_dir().join(format!("ws-quiet-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let demo = dir.join("demo.pcap");
        crate::gen::demo(std::fs::File::create(&demo).unwrap()).unwrap();
        let heavy = dir.join("heavy.pcap");
        let p = crate::gen::HeavyTail {
            flows: 400,
            ..Default::default()
        };
        crate::gen::heavy_tail(std::fs::File::create(&heavy).unwrap(), &p, |_| {}).unwrap();
        let mut files = vec![demo, heavy];
        if let Some(c) = wirespeed_testkit::corpus("skipping_quiet_flows_changes_no_record") {
            files.extend(c.pcaps());
        }
        let mut learning = EngineConfig::default();
        learning.learn.stats_weight = 1;
        let few = EngineConfig {
            classifiers: wirespeed_classify::ClassifierSet::parse("port,stats").unwrap(),
            ..Default::default()
        };
        for (name, cfg) in [
            ("default", EngineConfig::default()),
            ("learning", learning),
            ("port,stats", few),
        ] {
            let (all, none_skipped) = records(&files, &cfg, true);
            let (quiet, skipped) = records(&files, &cfg, false);
            assert_eq!(none_skipped, 0, "{name}");
            // The skip is taken (most packets of the heavy-tailed flows come after their
            // verdict), and changes nothing.
            assert!(skipped > 1000, "{name}: {skipped} packets skipped");
            assert!(all.lines().count() > 400, "{name}");
            assert!(all == quiet, "{name}: records differ");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
