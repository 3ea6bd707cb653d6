//! A reader thread dispatches packets to the workers by the symmetric hash (with
//! `ParallelConfig::reader_thread`, and for live links): see [`super::pool`].

use super::pool::*;
use super::steer::Steer;
use crate::rss;
use crate::worker::{FileOutcome, Stamp};
use crossbeam_channel::{bounded, unbounded, Receiver, Sender, TrySendError};
use std::io;
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::sync::Mutex;
use wirespeed_capture::{CaptureFile, PacketReader, RawPacket};
use wirespeed_export::RecordSink;
use wirespeed_flow::FragTable;
use wirespeed_wire::{decode, DecodeConfig, FastAddrs, FastFlow, LinkType};

/// IP protocol number of TCP.
const TCP: u8 = 6;

impl<S: RecordSink + Send> Pool<S> {
    /// [`Pool::run_file`] with a reader thread dispatching to the workers.
    pub(crate) fn run_file_reader(
        &mut self,
        file: &CaptureFile,
        progress: &mut dyn FnMut(u64, u64),
    ) -> io::Result<FileOutcome> {
        let Pool {
            workers,
            frag,
            key,
            ordinal,
            steer,
            decode: dcfg,
            batch: bs,
            pin,
            stats,
            ..
        } = self;
        let (wbs, n) = (*bs, workers.len());
        // The reader sends a few worker batches at once: fewer wake-ups of a waiting worker.
        let bs = wbs * SEND_BATCHES;
        let cores = if *pin {
            core_affinity::get_core_ids().unwrap_or_default()
        } else {
            Vec::new()
        };
        let total = file.len();
        let mut reader = file.reader();
        let reader_cpu0 = thread_cpu_ns();
        let first = *ordinal;
        // Workers that learn wait for each other at epochs of the input's clock
        // ([`crate::learn`]): every worker is sent the clock that opens an epoch before any
        // packet of it, so none waits on a packet stuck behind a waiting worker's ring.
        let epoch_ns = workers
            .first()
            .filter(|w| w.learns())
            .map_or(u64::MAX, |w| w.learn_hub().epoch_ns());
        std::thread::scope(|s| {
            let (back_tx, back_rx) = unbounded::<(Vec<RawPacket<'_>>, Vec<Stamp>)>();
            let mut rings = Vec::with_capacity(n);
            let mut handles = Vec::with_capacity(n);
            for (i, w) in workers.iter_mut().enumerate() {
                let (tx, rx) = bounded::<Batch<'_>>(stats.ring_batches);
                rings.push(tx);
                let back = back_tx.clone();
                let core = (!cores.is_empty()).then(|| cores[i % cores.len()]);
                handles.push(s.spawn(move || -> (io::Result<()>, u64) {
                    let _release = crate::learn::AbortOnUnwind(w.learn_hub().clone());
                    let cpu0 = thread_cpu_ns();
                    if let Some(c) = core {
                        core_affinity::set_for_current(c);
                    }
                    let mut res = Ok(());
                    // Ends when the reader drops its end. After a sink error the worker keeps
                    // draining its ring so the reader never waits on it forever.
                    for Batch {
                        end,
                        mut pkts,
                        mut stamps,
                    } in rx.iter()
                    {
                        // Each packet comes with the input's clock at it (expiry is decided as
                        // one worker reading the whole input would decide it) and its number.
                        for (chunk, st) in pkts.chunks(wbs).zip(stamps.chunks(wbs)) {
                            if res.is_ok() {
                                res = w.process_batch_stamped(chunk, st);
                            }
                        }
                        w.advance_clock(end);
                        pkts.clear();
                        stamps.clear();
                        let _ = back.send((pkts, stamps));
                    }
                    if res.is_ok() {
                        res = w.flush();
                    }
                    (res, thread_cpu_ns().saturating_sub(cpu0))
                }));
            }
            drop(back_tx);
            let mut inb: Vec<RawPacket<'_>> = Vec::with_capacity(bs);
            let mut out: Vec<(Vec<RawPacket<'_>>, Vec<Stamp>)> = (0..n)
                .map(|_| (Vec::with_capacity(bs), Vec::with_capacity(bs)))
                .collect();
            let mut packets = 0u64;
            let mut error = None;
            let mut alive = true;
            // The input's clock: the latest time of a packet that counts in a flow.
            let mut now = 0u64;
            let reta = redirection_table(n);
            let mut next_epoch = 0u64;
            while alive {
                inb.clear();
                let r = reader.next_batch(&mut inb, bs);
                packets += inb.len() as u64;
                for p in &inb {
                    let ord = *ordinal;
                    *ordinal += 1;
                    let (mut q, in_flow) = pick(p, key, &reta, dcfg, frag, steer, stats);
                    if q >= n {
                        // The input's first packet of port 21: its routes, before the next.
                        q &= !super::steer::PLAN;
                        stats.planned(plan(file, key, &reta, dcfg, steer, ord - first, None));
                    }
                    if in_flow {
                        now = now.max(p.ts_ns);
                        if now >= next_epoch && epoch_ns != u64::MAX {
                            next_epoch = (now / epoch_ns + 1).saturating_mul(epoch_ns);
                            for w in 0..n {
                                if alive {
                                    alive = send(w, now, &mut out, &rings, &back_rx, bs, stats);
                                }
                            }
                            if !alive {
                                break;
                            }
                        }
                    }
                    stats.per_worker[q] += 1;
                    let o = &mut out[q];
                    o.0.push(*p);
                    o.1.push(Stamp {
                        clock: now,
                        ordinal: ord,
                    });
                    if o.0.len() >= bs && !send(q, now, &mut out, &rings, &back_rx, bs, stats) {
                        alive = false;
                        break;
                    }
                }
                progress(reader.position(), total);
                match r {
                    Ok(0) => break,
                    Ok(_) => {}
                    Err(e) => {
                        error = Some(e);
                        break;
                    }
                }
            }
            // Every worker gets its last packets and the input's final time, before it ends the
            // file's flows.
            for q in 0..n {
                if alive {
                    alive = send(q, now, &mut out, &rings, &back_rx, bs, stats);
                }
            }
            drop(rings);
            let mut res = Ok(());
            for (i, h) in handles.into_iter().enumerate() {
                let (r, cpu) = h
                    .join()
                    .unwrap_or_else(|_| (Err(io::Error::other("a worker thread panicked")), 0));
                stats.worker_cpu_ns[i] += cpu;
                if res.is_ok() {
                    res = r;
                }
            }
            stats.reader_cpu_ns += thread_cpu_ns().saturating_sub(reader_cpu0);
            res?;
            progress(total, total);
            Ok(FileOutcome { packets, error })
        })
    }
}

/// A NIC's 128-entry redirection table filled round-robin over `n` workers: entry `i` is
/// [`rss::queue`]`(i, n)`, looked up (at [`rss::slot`] of a packet's hash) instead of dividing
/// per packet.
pub(crate) fn redirection_table(n: usize) -> [u8; 128] {
    let mut t = [0u8; 128];
    for (i, e) in t.iter_mut().enumerate() {
        *e = rss::queue(i as u32, n.min(128)) as u8;
    }
    t
}

/// Send worker `q`'s batch, waiting while its ring is full (counted); false if the worker is gone.
pub(crate) fn send<'a>(
    q: usize,
    end: u64,
    out: &mut [(Vec<RawPacket<'a>>, Vec<Stamp>)],
    rings: &[Sender<Batch<'a>>],
    back: &Receiver<(Vec<RawPacket<'a>>, Vec<Stamp>)>,
    bs: usize,
    stats: &mut DispatchStats,
) -> bool {
    let fresh = back
        .try_recv()
        .unwrap_or_else(|_| (Vec::with_capacity(bs), Vec::with_capacity(bs)));
    let (pkts, stamps) = std::mem::replace(&mut out[q], fresh);
    let b = Batch { end, pkts, stamps };
    stats.batches += 1;
    match rings[q].try_send(b) {
        Ok(()) => true,
        Err(TrySendError::Full(b)) => {
            stats.ring_full_waits += 1;
            rings[q].send(b).is_ok()
        }
        Err(TrySendError::Disconnected(_)) => false,
    }
}

/// The dispatch hash ([`rss::DispatchKey`]) of the commonest frames, read straight from the bytes
/// ([`wirespeed_wire::fast_flow`]: Ethernet, IPv4 that is no fragment or IPv6 without extension
/// headers, TCP or UDP that is no tunnel). `None` for every other frame, and for any frame the
/// full decoder might reject or key otherwise: those take the full decoder. The reader then
/// spends a few loads per packet, not a whole decode (the profile of the worst case showed the
/// full decode as the largest part of the reader).
#[inline(always)]
pub fn fast_hash(key: &rss::DispatchKey, p: &RawPacket<'_>) -> Option<u32> {
    let f = wirespeed_wire::fast_flow(LinkType(p.link), p.data, p.wire_len as usize)?;
    Some(hash_of(key, &f))
}

/// The dispatch hash of a flow's end-points, from whole words.
#[inline(always)]
fn hash_of(key: &rss::DispatchKey, f: &FastFlow<'_>) -> u32 {
    match f.addrs {
        FastAddrs::V4(s, d) => key.v4(*s, f.sport, *d, f.dport),
        FastAddrs::V6(s, d) => key.v6(*s, f.sport, *d, f.dport),
    }
}

/// Packets for one worker, and the input's clock when they were sent.
pub(crate) struct Batch<'a> {
    /// The input's time when the message was sent (its last packet's, or the input's end).
    end: u64,
    pkts: Vec<RawPacket<'a>>,
    /// The input's clock at each packet of `pkts` (the latest time of a packet counted in a
    /// flow so far, across all workers), and its number in the input.
    stamps: Vec<Stamp>,
}

/// The worker for `p` (its innermost flow's end-points under the run's dispatch hash), and
/// whether the packet will count in a flow (and so moves the clock, as in a single worker).
/// Packets that do not decode go to worker 0, which counts why.
#[inline(always)]
pub(crate) fn pick(
    p: &RawPacket<'_>,
    key: &rss::DispatchKey,
    reta: &[u8; 128],
    cfg: &DecodeConfig,
    frag: &mut FragTable,
    steer: &mut Steer,
    stats: &mut DispatchStats,
) -> (usize, bool) {
    let Some(f) = wirespeed_wire::fast_flow(LinkType(p.link), p.data, p.wire_len as usize) else {
        return pick_decoded(p, key, reta, cfg, frag, steer, stats);
    };
    let q = usize::from(reta[rss::slot(hash_of(key, &f))]);
    if f.proto != TCP || steer.idle(f.sport, f.dport) {
        return (q, true);
    }
    (steer_fast(&f, q, steer), true)
}

/// [`Steer::route`] for a packet of the fast path.
#[cold]
#[inline(never)]
fn steer_fast(f: &FastFlow<'_>, q: usize, steer: &mut Steer) -> usize {
    let (src, dst) = match f.addrs {
        FastAddrs::V4(s, d) => (IpAddr::from(*s), IpAddr::from(*d)),
        FastAddrs::V6(s, d) => (IpAddr::from(*s), IpAddr::from(*d)),
    };
    steer.route(src, dst, f.sport, f.dport, q)
}

/// The address of a decoded packet's 16-byte field, `alen` bytes long.
fn ip_of(a: &[u8; 16], alen: usize) -> IpAddr {
    if alen == 4 {
        IpAddr::from([a[0], a[1], a[2], a[3]])
    } else {
        IpAddr::from(*a)
    }
}

/// A packet of TCP port 21 with payload, decoded: what the plan reads announcements from.
/// Most packets are not: known from the fast path's ports, without the full decoder.
#[inline]
fn control<'p>(p: &RawPacket<'p>, cfg: &DecodeConfig) -> Option<wirespeed_wire::Decoded<'p>> {
    if let Some(f) = wirespeed_wire::fast_flow(LinkType(p.link), p.data, p.wire_len as usize) {
        if f.proto != TCP || (f.sport != 21 && f.dport != 21) {
            return None;
        }
    }
    let d = decode(LinkType(p.link), p.data, cfg).ok()?;
    (d.proto == TCP && (d.src_port == 21 || d.dst_port == 21) && !d.payload.is_empty()).then_some(d)
}

/// Files smaller than this are planned in one pass: splitting would save less than it costs.
const SPLIT_MIN: u64 = 8 << 20;

/// Most packets of port 21 a worker collects in the half it reads for the plan: past this,
/// the planning worker reads that half again itself (memory bounded by this, not the input).
const HALF_FOUND: usize = 1 << 16;

// [`Half`]'s states.
const IDLE: u8 = 0;
const OFFERED: u8 = 1;
const TAKEN: u8 = 2;
const DONE: u8 = 3;
const WITHDRAWN: u8 = 4;

/// The second half of the plan's pass over a classic pcap file, offered by the worker that
/// plans (under the shared scan's lock) to one that waits for the scan, so two read the file
/// at once. The half starts at a guessed record ([`CaptureFile::record_near`]): the helper
/// collects its packets of port 21, and the planner uses them only if its own reading, in
/// order, lands exactly on that guess (then the helper read what the planner would have);
/// otherwise, or if no worker took the offer, the planner reads on itself. The routes are
/// learnt in the input's order either way, by the planner alone: the records do not depend
/// on who read which half.
pub(crate) struct Half<'f> {
    state: AtomicU8,
    start: AtomicU64,
    found: Mutex<Vec<RawPacket<'f>>>,
    /// The helper stopped collecting at [`HALF_FOUND`] packets.
    full: AtomicBool,
    cfg: DecodeConfig,
    /// Tests: the planner waits for a worker to take its offer before it reads, so that the
    /// split is exercised whatever the machine's load.
    #[cfg(test)]
    wait_taken: bool,
}

impl<'f> Half<'f> {
    pub(crate) fn new(cfg: DecodeConfig) -> Self {
        Half {
            state: AtomicU8::new(IDLE),
            start: AtomicU64::new(0),
            found: Mutex::new(Vec::new()),
            full: AtomicBool::new(false),
            cfg,
            #[cfg(test)]
            wait_taken: false,
        }
    }

    /// A waiting worker reads the offered half, if there is one and no other took it first;
    /// true if it did.
    pub(crate) fn take(&self, file: &'f CaptureFile) -> bool {
        if self.state.load(Ordering::Acquire) != OFFERED
            || self
                .state
                .compare_exchange(OFFERED, TAKEN, Ordering::Acquire, Ordering::Relaxed)
                .is_err()
        {
            return false;
        }
        let mut found = Vec::new();
        let mut full = false;
        if let Some(mut r) = file.reader_at(self.start.load(Ordering::Relaxed)) {
            while !full {
                let k = r.next_batch_visit(256, |p| {
                    if found.len() >= HALF_FOUND {
                        full = true;
                    } else if control(&p, &self.cfg).is_some() {
                        found.push(p);
                    }
                });
                if !matches!(k, Ok(k) if k > 0) {
                    break;
                }
            }
        }
        *super::scan::lock(&self.found) = found;
        self.full.store(full, Ordering::Relaxed);
        self.state.store(DONE, Ordering::Release);
        true
    }

    /// The planner, done with the first half: the helper's packets once it is done, or `None`
    /// if no worker took the offer (withdrawn now), the helper gave up, or the scan aborted.
    fn settle(&self, abort: &AtomicBool) -> Option<Vec<RawPacket<'f>>> {
        let taken = self
            .state
            .compare_exchange(OFFERED, WITHDRAWN, Ordering::Acquire, Ordering::Relaxed)
            .is_err();
        if !taken
            || !super::scan::wait_for(abort, || self.state.load(Ordering::Acquire) == DONE)
            || self.full.load(Ordering::Relaxed)
        {
            return None;
        }
        Some(std::mem::take(&mut *super::scan::lock(&self.found)))
    }
}

/// The shared scan's part in a plan: where the pass publishes its position for the waiting
/// workers, the half it may offer them, and the scan's abort flag.
pub(crate) struct Shared<'s, 'f> {
    pub(crate) at: &'s AtomicUsize,
    pub(crate) half: &'s Half<'f>,
    pub(crate) abort: &'s AtomicBool,
}

/// The routes of an input ([`super::steer`]), planned when its first packet of TCP port 21 is
/// met, `done` packets into it: every FTP announcement its packets of port 21 make, routed to
/// the control connection's worker (its hash's, as [`pick`] gives it), so that each announced
/// connection goes to that worker from its first packet, wherever in the input its
/// announcement lies; then the connections of the `done` packets already dispatched by their
/// hash are pinned there ([`Steer::pin`]).
///
/// With a shared scan (whose other workers wait while this runs), a classic pcap file of
/// [`SPLIT_MIN`] or more is read in two halves at once ([`Half`]): this thread the first, a
/// waiting worker the second. Otherwise the pass maps and gives back none of the file's pages
/// itself: it publishes its position in `at` after each batch, and the waiting workers map
/// the pages ahead of it ([`CaptureFile::populate_ahead`]) and give back those behind it
/// ([`CaptureFile::release_behind`]): that was 70% of the pass, on the thread all wait for.
#[cold]
#[inline(never)]
pub(crate) fn plan<'f>(
    file: &'f CaptureFile,
    key: &rss::DispatchKey,
    reta: &[u8; 128],
    cfg: &DecodeConfig,
    steer: &mut Steer,
    done: u64,
    shared: Option<Shared<'_, 'f>>,
) -> Planned {
    steer.planned = true;
    let mut planned = Planned { halves: false };
    let learn = |p: &RawPacket<'_>, steer: &mut Steer| {
        let Some(d) = control(p, cfg) else {
            return;
        };
        let alen = if d.ip_version == 4 { 4 } else { 16 };
        let ports = (d.src_port, d.dst_port);
        let q = usize::from(reta[rss::slot(key.hash(&d.src[..alen], &d.dst[..alen], ports))]);
        let (src, dst) = (ip_of(&d.src, alen), ip_of(&d.dst, alen));
        steer.learn(src, dst, ports.0, ports.1, d.payload, q);
    };
    // The second half offered to a waiting worker, from a guessed record.
    let offered = shared.as_ref().and_then(|sh| {
        let mid = (file.len() >= SPLIT_MIN)
            .then(|| file.record_near(file.len() / 2))
            .flatten()?;
        sh.half.start.store(mid, Ordering::Relaxed);
        sh.half.state.store(OFFERED, Ordering::Release);
        #[cfg(test)]
        if sh.half.wait_taken {
            super::scan::wait_for(sh.abort, || {
                sh.half.state.load(Ordering::Acquire) != OFFERED
            });
        }
        Some((sh.half, mid, sh.abort))
    });
    let at = shared
        .as_ref()
        .map(|sh| sh.at)
        .filter(|_| offered.is_none());
    let mut reader = match (&offered, at) {
        // Reading beside the helper, nobody maps pages for this pass: it maps its own.
        (Some(_), _) | (None, None) => file.reader(),
        (None, Some(_)) => file.reader().shared(),
    };
    if let Some((_, mid, _)) = offered {
        reader.stop_at(mid);
    }
    let read = |reader: &mut PacketReader<'f>, steer: &mut Steer| loop {
        if let Some(at) = at {
            at.store(PacketReader::position(reader) as usize, Ordering::Release);
        }
        let r = reader.next_batch_visit(256, |p| learn(&p, steer));
        if !matches!(r, Ok(k) if k > 0) {
            break;
        }
    };
    read(&mut reader, steer);
    if let Some((half, mid, abort)) = offered {
        let landed = reader.position() == mid;
        match half.settle(abort) {
            Some(found) if landed => {
                planned.halves = true;
                for p in &found {
                    learn(p, steer);
                }
            }
            _ => {
                reader.stop_at(u64::MAX);
                read(&mut reader, steer);
            }
        }
    }
    if steer.routes() == 0 {
        return planned;
    }
    let mut reader = file.reader();
    let mut left = done;
    while left > 0 {
        let r = reader.next_batch_visit(left.min(256) as usize, |p| {
            // Most packets are on no announced port: known from the fast path's ports, without
            // the full decoder.
            if let Some(f) =
                wirespeed_wire::fast_flow(LinkType(p.link), p.data, p.wire_len as usize)
            {
                if f.proto != TCP || steer.idle(f.sport, f.dport) {
                    return;
                }
            }
            let Ok(d) = decode(LinkType(p.link), p.data, cfg) else {
                return;
            };
            if d.proto != TCP || d.frag.is_some_and(|f| f.offset != 0) {
                return;
            }
            let alen = if d.ip_version == 4 { 4 } else { 16 };
            let ports = (d.src_port, d.dst_port);
            let q = usize::from(reta[rss::slot(key.hash(&d.src[..alen], &d.dst[..alen], ports))]);
            let (src, dst) = (ip_of(&d.src, alen), ip_of(&d.dst, alen));
            steer.pin(src, dst, ports.0, ports.1, q);
        });
        match r {
            Ok(k) if k > 0 => left = left.saturating_sub(k as u64),
            _ => break,
        }
    }
    planned
}

/// What [`plan`] did, for the run's summary.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Planned {
    /// Two workers read the input in halves at once.
    pub(crate) halves: bool,
}

impl DispatchStats {
    /// Count a plan.
    pub(crate) fn planned(&mut self, p: Planned) {
        self.plans += 1;
        self.plan_halves += u64::from(p.halves);
    }
}

/// [`pick`] for the frames the fast path leaves: the full decoder, and fragments mapped to their
/// first fragment's ports.
#[inline(never)]
pub(crate) fn pick_decoded(
    p: &RawPacket<'_>,
    key: &rss::DispatchKey,
    reta: &[u8; 128],
    cfg: &DecodeConfig,
    frag: &mut FragTable,
    steer: &mut Steer,
    stats: &mut DispatchStats,
) -> (usize, bool) {
    let d = match decode(LinkType(p.link), p.data, cfg) {
        Ok(d) if !d.beyond_frame(p.wire_len as usize, p.data.len()) => d,
        _ => {
            stats.undecoded += 1;
            return (0, false);
        }
    };
    // An orphan fragment (no first fragment seen) will not count in a flow in its worker
    // either: it keeps its own (zero) ports and does not move the clock.
    let (ports, in_flow) = match frag.ports(&d, p.ts_ns) {
        Some(pp) => {
            if d.frag.is_some_and(|f| f.offset != 0) {
                stats.frags_mapped += 1;
            }
            (pp, true)
        }
        None => ((d.src_port, d.dst_port), false),
    };
    let alen = if d.ip_version == 4 { 4 } else { 16 };
    let h = key.hash(&d.src[..alen], &d.dst[..alen], ports);
    let q = usize::from(reta[rss::slot(h)]);
    if d.proto != TCP || steer.idle(ports.0, ports.1) {
        return (q, in_flow);
    }
    let (src, dst) = (ip_of(&d.src, alen), ip_of(&d.dst, alen));
    (steer.route(src, dst, ports.0, ports.1, q), in_flow)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ftp_path() -> std::path::PathBuf {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/netcap/ftp.pcap")
    }

    /// ftp.pcap (a real FTP session), ~9 MiB of UDP packets, ftp.pcap again with its passive
    /// port one higher: announcements of different routes in both halves of a file the plan
    /// splits.
    fn ftp_file() -> CaptureFile {
        let ftp =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/netcap/ftp.pcap");
        let ftp = CaptureFile::open(&ftp).unwrap();
        let mut w = wirespeed_capture::PcapWriter::new(Vec::new(), 1, true).unwrap();
        let mut ts = 1_000_000_000u64;
        let copy = |w: &mut wirespeed_capture::PcapWriter<Vec<u8>>, ts: &mut u64, again: bool| {
            for p in ftp.reader() {
                let mut data = p.unwrap().data.to_vec();
                if let Some(i) = data.windows(8).position(|b| b == b"195,135)") {
                    data[i + 6] += u8::from(again);
                }
                *ts += 1_000;
                w.write(*ts, &data, data.len() as u32).unwrap();
            }
        };
        copy(&mut w, &mut ts, false);
        let mut udp = vec![0u8; 1_400];
        udp[12..14].copy_from_slice(&[0x08, 0x00]);
        udp[14..24].copy_from_slice(&[0x45, 0, 0x05, 0x6a, 0, 0, 0, 0, 64, 17]);
        udp[26..34].copy_from_slice(&[192, 0, 2, 1, 198, 51, 100, 2]);
        udp[34..38].copy_from_slice(&[0x30, 0x39, 0x00, 0x35]);
        for _ in 0..(9 << 20) / 1_416 {
            ts += 1_000;
            w.write(ts, &udp, udp.len() as u32).unwrap();
        }
        copy(&mut w, &mut ts, true);
        CaptureFile::from_bytes("ftp-udp-ftp", w.finish().unwrap()).unwrap()
    }

    fn planned<'f>(
        file: &'f CaptureFile,
        shared: Option<Shared<'_, 'f>>,
    ) -> (Steer, DispatchStats) {
        let key = rss::DispatchKey::from_seed(7);
        let (mut steer, mut stats) = (Steer::default(), DispatchStats::default());
        let cfg = DecodeConfig::default();
        stats.planned(plan(
            file,
            &key,
            &redirection_table(2),
            &cfg,
            &mut steer,
            0,
            shared,
        ));
        (steer, stats)
    }

    /// The plan's routes are the same whether a waiting worker read the second half or no
    /// worker took it.
    #[test]
    fn a_plan_in_halves_learns_the_routes_of_one_pass() {
        let file = ftp_file();
        assert!(file.len() >= SPLIT_MIN);
        let (one, st) = planned(&file, None);
        let (first, _) = planned(&CaptureFile::open(&ftp_path()).unwrap(), None);
        assert!(
            one.routes() > first.routes(),
            "announcements in both copies"
        );
        assert_eq!((st.plans, st.plan_halves), (1, 0));
        let (at, abort) = (AtomicUsize::new(0), AtomicBool::new(false));
        // Nobody takes the offer: the planner withdraws it and reads on.
        let half = Half::new(DecodeConfig::default());
        let shared = Shared {
            at: &at,
            half: &half,
            abort: &abort,
        };
        let (alone, st) = planned(&file, Some(shared));
        assert_eq!(alone.table(), one.table());
        assert_eq!((st.plans, st.plan_halves), (1, 0));
        assert!(!half.take(&file), "a withdrawn offer is not taken");
        // A waiting worker takes it.
        let mut half = Half::new(DecodeConfig::default());
        half.wait_taken = true;
        let (split, st) = std::thread::scope(|s| {
            s.spawn(|| {
                while !half.take(&file) {
                    std::thread::yield_now();
                }
            });
            let shared = Shared {
                at: &at,
                half: &half,
                abort: &abort,
            };
            planned(&file, Some(shared))
        });
        assert_eq!(split.table(), one.table());
        assert_eq!((st.plans, st.plan_halves), (1, 1));
    }

    /// The offer's protocol, step by step: a taken half is read and handed over once; an
    /// offer withdrawn first is never taken.
    #[test]
    fn a_half_is_read_once_and_handed_to_the_planner() {
        let file = ftp_file();
        let mid = file.record_near(file.len() / 2).unwrap();
        let abort = AtomicBool::new(false);
        let cfg = DecodeConfig::default();
        let half = Half::new(cfg);
        half.start.store(mid, Ordering::Relaxed);
        half.state.store(OFFERED, Ordering::Release);
        assert!(half.take(&file));
        assert!(!half.take(&file), "taken once");
        let found = half.settle(&abort).unwrap();
        let want: Vec<_> = file
            .reader_at(mid)
            .unwrap()
            .map(Result::unwrap)
            .filter(|p| control(p, &cfg).is_some())
            .collect();
        assert!(!want.is_empty());
        assert_eq!(found, want);
        let half = Half::new(cfg);
        half.start.store(mid, Ordering::Relaxed);
        half.state.store(OFFERED, Ordering::Release);
        assert!(half.settle(&abort).is_none(), "withdrawn");
        assert!(!half.take(&file));
    }
}
