//! A reader thread dispatches packets to the workers by the symmetric hash (with
//! `ParallelConfig::reader_thread`, and for live links): see [`super::pool`].

use super::pool::*;
use super::watch::Watch;
use crate::rss;
use crate::worker::{FileOutcome, Stamp};
use crossbeam_channel::{bounded, unbounded, Receiver, Sender, TrySendError};
use std::io;
use std::net::IpAddr;
use wirespeed_capture::{CaptureFile, RawPacket};
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
            watch,
            expect,
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
        expect.begin(*ordinal);
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
                let ex = expect.clone();
                handles.push(s.spawn(move || -> (io::Result<()>, u64) {
                    let _release = crate::learn::AbortOnUnwind(w.learn_hub().clone());
                    let _waits = crate::expect::AbortOnUnwind(ex.clone());
                    let cpu0 = thread_cpu_ns();
                    if let Some(c) = core {
                        core_affinity::set_for_current(c);
                    }
                    let mut res = Ok(());
                    // Ends when the reader drops its end. After a sink error the worker keeps
                    // draining its ring so the reader never waits on it forever.
                    for Batch {
                        end,
                        through,
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
                        // Every packet of this worker's before `through` has been run: a
                        // lookup waiting on it may go on ([`crate::expect`]). Published before
                        // the clock moves: entering an epoch may wait for the others.
                        ex.progress(i, through);
                        w.advance_clock(end);
                        pkts.clear();
                        stamps.clear();
                        let _ = back.send((pkts, stamps));
                    }
                    ex.progress(i, u64::MAX);
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
                    let (q, in_flow) = pick(p, key, &reta, dcfg, frag, watch, stats, ord);
                    if watch.take_flush() {
                        // A watched connection's first payload: its worker may wait for the
                        // others to run their packets before it, so each gets them now, with
                        // word that it has them all.
                        for w in (0..n).filter(|&w| w != q) {
                            if alive {
                                alive = send(w, now, ord, &mut out, &rings, &back_rx, bs, stats);
                            }
                        }
                        if !alive {
                            break;
                        }
                    }
                    if in_flow {
                        now = now.max(p.ts_ns);
                        if now >= next_epoch && epoch_ns != u64::MAX {
                            next_epoch = (now / epoch_ns + 1).saturating_mul(epoch_ns);
                            for w in 0..n {
                                if alive {
                                    alive =
                                        send(w, now, ord, &mut out, &rings, &back_rx, bs, stats);
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
                    if o.0.len() >= bs
                        && !send(q, now, ord + 1, &mut out, &rings, &back_rx, bs, stats)
                    {
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
                    alive = send(q, now, *ordinal, &mut out, &rings, &back_rx, bs, stats);
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

/// Send worker `q`'s batch, waiting while its ring is full (counted); false if the worker is
/// gone. `through`: the number of the next packet the reader dispatches (all of `q`'s before it
/// are in this batch or an earlier one).
#[allow(clippy::too_many_arguments)]
pub(crate) fn send<'a>(
    q: usize,
    end: u64,
    through: u64,
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
    let b = Batch {
        end,
        through,
        pkts,
        stamps,
    };
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
    /// The number of the next packet the reader dispatches: every packet of this worker's
    /// before it is in this batch or an earlier one.
    through: u64,
    pkts: Vec<RawPacket<'a>>,
    /// The input's clock at each packet of `pkts` (the latest time of a packet counted in a
    /// flow so far, across all workers), and its number in the input.
    stamps: Vec<Stamp>,
}

/// The worker for `p` (its innermost flow's end-points under the run's dispatch hash), and
/// whether the packet will count in a flow (and so moves the clock, as in a single worker).
/// Packets that do not decode go to worker 0, which counts why. `at` is the packet's number
/// in the input; a packet of FTP's control connection or of a connection it announced is shown
/// to `watch` ([`super::watch`]).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn pick(
    p: &RawPacket<'_>,
    key: &rss::DispatchKey,
    reta: &[u8; 128],
    cfg: &DecodeConfig,
    frag: &mut FragTable,
    watch: &mut Watch,
    stats: &mut DispatchStats,
    at: u64,
) -> (usize, bool) {
    let Some(f) = wirespeed_wire::fast_flow(LinkType(p.link), p.data, p.wire_len as usize) else {
        return pick_decoded(p, key, reta, cfg, frag, watch, stats, at);
    };
    let q = usize::from(reta[rss::slot(hash_of(key, &f))]);
    if f.proto != TCP || watch.idle(f.sport, f.dport) {
        return (q, true);
    }
    watch_fast(p, cfg, q, watch, at);
    (q, true)
}

/// [`Watch::packet`] for a packet of the fast path: decoded again for its payload (the fast
/// path reads no further than the ports).
#[cold]
#[inline(never)]
fn watch_fast(p: &RawPacket<'_>, cfg: &DecodeConfig, q: usize, watch: &mut Watch, at: u64) {
    if let Ok(d) = decode(LinkType(p.link), p.data, cfg) {
        if d.proto == TCP && d.frag.is_none_or(|f| f.offset == 0) {
            let alen = if d.ip_version == 4 { 4 } else { 16 };
            let (src, dst) = (ip_of(&d.src, alen), ip_of(&d.dst, alen));
            watch.packet(src, dst, d.src_port, d.dst_port, d.payload, q, at);
        }
    }
}

/// The address of a decoded packet's 16-byte field, `alen` bytes long.
fn ip_of(a: &[u8; 16], alen: usize) -> IpAddr {
    if alen == 4 {
        IpAddr::from([a[0], a[1], a[2], a[3]])
    } else {
        IpAddr::from(*a)
    }
}

/// [`pick`] for the frames the fast path leaves: the full decoder, and fragments mapped to their
/// first fragment's ports.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn pick_decoded(
    p: &RawPacket<'_>,
    key: &rss::DispatchKey,
    reta: &[u8; 128],
    cfg: &DecodeConfig,
    frag: &mut FragTable,
    watch: &mut Watch,
    stats: &mut DispatchStats,
    at: u64,
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
    if d.proto != TCP || watch.idle(ports.0, ports.1) {
        return (q, in_flow);
    }
    if d.frag.is_none_or(|f| f.offset == 0) {
        let (src, dst) = (ip_of(&d.src, alen), ip_of(&d.dst, alen));
        watch.packet(src, dst, ports.0, ports.1, d.payload, q, at);
    }
    (q, in_flow)
}
