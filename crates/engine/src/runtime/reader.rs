//! A reader thread dispatches packets to the workers by the symmetric hash (with
//! `ParallelConfig::reader_thread`, and for live links): see [`super::pool`].

use super::pool::*;
use super::steer::Steer;
use crate::rss;
use crate::worker::FileOutcome;
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
        // Workers that learn wait for each other at epochs of the input's clock
        // ([`crate::learn`]): every worker is sent the clock that opens an epoch before any
        // packet of it, so none waits on a packet stuck behind a waiting worker's ring.
        let epoch_ns = workers
            .first()
            .filter(|w| w.learns())
            .map_or(u64::MAX, |w| w.learn_hub().epoch_ns());
        std::thread::scope(|s| {
            let (back_tx, back_rx) = unbounded::<(Vec<RawPacket<'_>>, Vec<u64>)>();
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
                        mut clocks,
                    } in rx.iter()
                    {
                        // Each packet comes with the input's clock at it: expiry is decided as
                        // one worker reading the whole input would decide it.
                        for (chunk, clk) in pkts.chunks(wbs).zip(clocks.chunks(wbs)) {
                            if res.is_ok() {
                                res = w.process_batch_clocked(chunk, clk);
                            }
                        }
                        w.advance_clock(end);
                        pkts.clear();
                        clocks.clear();
                        let _ = back.send((pkts, clocks));
                    }
                    if res.is_ok() {
                        res = w.flush();
                    }
                    (res, thread_cpu_ns().saturating_sub(cpu0))
                }));
            }
            drop(back_tx);
            let mut inb: Vec<RawPacket<'_>> = Vec::with_capacity(bs);
            let mut out: Vec<(Vec<RawPacket<'_>>, Vec<u64>)> = (0..n)
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
                    let (q, in_flow) = pick(p, &reta, dcfg, frag, steer, stats);
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
                    o.1.push(now);
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
/// [`rss::queue`]`(i, n)`, looked up instead of dividing per packet.
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
    out: &mut [(Vec<RawPacket<'a>>, Vec<u64>)],
    rings: &[Sender<Batch<'a>>],
    back: &Receiver<(Vec<RawPacket<'a>>, Vec<u64>)>,
    bs: usize,
    stats: &mut DispatchStats,
) -> bool {
    let fresh = back
        .try_recv()
        .unwrap_or_else(|_| (Vec::with_capacity(bs), Vec::with_capacity(bs)));
    let (pkts, clocks) = std::mem::replace(&mut out[q], fresh);
    let b = Batch { end, pkts, clocks };
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

/// The symmetric hash of the commonest frames, read straight from the bytes
/// ([`wirespeed_wire::fast_flow`]: Ethernet, IPv4 that is no fragment or IPv6 without extension
/// headers, TCP or UDP that is no tunnel). `None` for every other frame, and for any frame the
/// full decoder might reject or key otherwise: those take the full decoder. The reader then
/// spends a few loads per packet, not a whole decode (the profile of the worst case showed the
/// full decode as the largest part of the reader).
#[inline(always)]
pub fn fast_hash(p: &RawPacket<'_>) -> Option<u32> {
    let f = wirespeed_wire::fast_flow(LinkType(p.link), p.data, p.wire_len as usize)?;
    Some(hash_of(&f))
}

/// The symmetric hash of a flow's end-points.
#[inline(always)]
fn hash_of(f: &FastFlow<'_>) -> u32 {
    // The addresses folded as whole words (~110 instructions a packet before, most of a
    // 2-worker run's dispatch cost).
    let addrs = match f.addrs {
        FastAddrs::V4(s, d) => rss::fold_v4(*s, *d),
        FastAddrs::V6(s, d) => rss::fold_v6(*s, *d),
    };
    rss::from_fold(addrs ^ f.sport ^ f.dport)
}

/// Packets for one worker, and the input's clock when they were sent.
pub(crate) struct Batch<'a> {
    /// The input's time when the message was sent (its last packet's, or the input's end).
    end: u64,
    pkts: Vec<RawPacket<'a>>,
    /// The input's clock at each packet of `pkts` (the latest time of a packet counted in a
    /// flow so far, across all workers).
    clocks: Vec<u64>,
}

/// The worker for `p` (its innermost flow's end-points under the symmetric hash), and whether the
/// packet will count in a flow (and so moves the clock, as in a single worker). Packets that do
/// not decode go to worker 0, which counts why.
#[inline(always)]
pub(crate) fn pick(
    p: &RawPacket<'_>,
    reta: &[u8; 128],
    cfg: &DecodeConfig,
    frag: &mut FragTable,
    steer: &mut Steer,
    stats: &mut DispatchStats,
) -> (usize, bool) {
    let Some(f) = wirespeed_wire::fast_flow(LinkType(p.link), p.data, p.wire_len as usize) else {
        return pick_decoded(p, reta, cfg, frag, steer, stats);
    };
    let q = usize::from(reta[hash_of(&f) as usize & 127]);
    if f.proto != TCP || steer.idle(f.sport, f.dport) {
        return (q, true);
    }
    (steer_fast(p, &f, q, cfg, steer), true)
}

/// [`Steer::route`] for a packet of the fast path: its payload is decoded only on port 21.
#[cold]
#[inline(never)]
fn steer_fast(
    p: &RawPacket<'_>,
    f: &FastFlow<'_>,
    q: usize,
    cfg: &DecodeConfig,
    steer: &mut Steer,
) -> usize {
    let (src, dst) = match f.addrs {
        FastAddrs::V4(s, d) => (IpAddr::from(*s), IpAddr::from(*d)),
        FastAddrs::V6(s, d) => (IpAddr::from(*s), IpAddr::from(*d)),
    };
    let payload = if f.sport == 21 || f.dport == 21 {
        match decode(LinkType(p.link), p.data, cfg) {
            Ok(d) => d.payload,
            Err(_) => &[],
        }
    } else {
        &[]
    };
    steer.route(src, dst, f.sport, f.dport, payload, p.ts_ns, q)
}

/// [`pick`] for the frames the fast path leaves: the full decoder, and fragments mapped to their
/// first fragment's ports.
#[inline(never)]
pub(crate) fn pick_decoded(
    p: &RawPacket<'_>,
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
    let h = rss::symmetric(&d.src[..alen], &d.dst[..alen], Some(ports));
    let q = usize::from(reta[h as usize & 127]);
    if d.proto != TCP || steer.idle(ports.0, ports.1) {
        return (q, in_flow);
    }
    let ip = |a: &[u8; 16]| -> IpAddr {
        if alen == 4 {
            IpAddr::from([a[0], a[1], a[2], a[3]])
        } else {
            IpAddr::from(*a)
        }
    };
    let w = steer.route(
        ip(&d.src),
        ip(&d.dst),
        ports.0,
        ports.1,
        d.payload,
        p.ts_ns,
        q,
    );
    (w, in_flow)
}
