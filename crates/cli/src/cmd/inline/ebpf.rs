//! `wirespeed inline --datapath ebpf` (issue 39): the tc program of `wirespeed-ebpf` on the
//! ingress of each `--interface`, the traffic those interfaces receive classified from a copy
//! (the AF_PACKET capture of `live`), and the policy's actor as with NFQUEUE; where the NFQUEUE
//! path would hand a flow to the kernel (its action is final), the flow's key goes into the
//! program's map with the verdict, and leaves it when the flow ends. Rate limits: the program
//! marks a rate-limited flow's packets and an HTB class per rule on the interfaces' egress
//! shapes them (`wirespeed_ebpf::Shaper`).

use super::InlineArgs;
use std::process::ExitCode;
use wirespeed_act::{Action, Policy};
use wirespeed_engine::EngineConfig;
use wirespeed_export::Columns;

/// Refuse a policy the eBPF data path cannot carry out, named, rather than let its flows pass
/// unlimited: rate limits are HTB classes on the egress interfaces, so only bit rates (HTB
/// counts bytes, not packets), shared by the rule's flows (one class per rule: `per = "flow"`
/// would need a class per flow), and only the first 127 decisions' (the mark's top byte).
pub(super) fn enforceable(p: &Policy) -> Result<(), String> {
    let named = p
        .rules
        .iter()
        .map(|r| (r.name.as_str(), r.action))
        .chain([("unclassified", p.unclassified), ("default", p.default)]);
    for (index, (name, action)) in named.enumerate() {
        let Action::RateLimit { rate, per_flow, .. } = action else {
            continue;
        };
        let why = if let wirespeed_act::Rate::Packets(_) = rate {
            "a rate in packets per second cannot be enforced by --datapath ebpf (its HTB \
             classes count bits: give the rate in bit, kbit, mbit or gbit)"
        } else if per_flow {
            "per = \"flow\" cannot be enforced by --datapath ebpf (one HTB class per rule, \
             shared by its flows: use per = \"rule\")"
        } else if wirespeed_act::rate_code(index).is_none() {
            "a rate limit past the 127th rule cannot be enforced by --datapath ebpf (the \
             mark's top byte names the class)"
        } else {
            continue;
        };
        return Err(format!(
            "rule {name:?}: {why}; or use --datapath nfqueue for this policy"
        ));
    }
    Ok(())
}

/// The run, once the policy is read and the options checked.
pub(super) fn run(
    a: &InlineArgs,
    cfg: EngineConfig,
    cols: Columns,
    policy: Policy,
) -> Result<ExitCode, String> {
    enforceable(&policy)?;
    imp::run(a, cfg, cols, policy)
}

#[cfg(not(all(feature = "ebpf", target_os = "linux")))]
mod imp {
    use super::*;

    pub(super) fn run(
        _: &InlineArgs,
        _: EngineConfig,
        _: Columns,
        _: Policy,
    ) -> Result<ExitCode, String> {
        Err(
            "--datapath ebpf: this wirespeed was built without the ebpf feature; build with \
             --features ebpf (clang and libbpf-dev needed at build time, Linux)"
                .into(),
        )
    }
}

#[cfg(all(feature = "ebpf", target_os = "linux"))]
mod imp {
    use super::super::reload_policy;
    use super::*;
    use crate::config::{duration_arg, fits_in_memory, stop_flag};
    use crate::outputs::{serve_metrics, LiveOutputs};
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    use std::sync::{Arc, Mutex};
    use std::time::Duration;
    use wirespeed_act::{bound_action, bound_rate, Enforce, FlowEnds, PolicyCell, Rate};
    use wirespeed_ebpf::{Datapath, FlowKey, Hook, RingCopy, ShapeClass, Shaper, Verdict};
    use wirespeed_engine::Summary;
    use wirespeed_live::metrics::RunStats;

    /// The program's map, written by the workers once per flow decision.
    struct MapEnforcer {
        dp: Mutex<Datapath>,
        set: AtomicU64,
        removed: AtomicU64,
        failed: AtomicU64,
        /// The first failure's words (the status line says it once).
        first_failure: Mutex<Option<String>>,
    }

    impl MapEnforcer {
        fn failed(&self, what: &str, e: impl std::fmt::Display) {
            if self.failed.fetch_add(1, Ordering::Relaxed) == 0 {
                if let Ok(mut f) = self.first_failure.lock() {
                    *f = Some(format!("{what}: {e}"));
                }
            }
        }

        fn key(f: &FlowEnds) -> FlowKey {
            FlowKey::new(f.client.0, f.client.1, f.server.0, f.server.1, f.proto)
        }
    }

    /// The verdict program's ring buffer as the capture's source of copies.
    /// With `wakes`, the program wakes the reader (`--copy undecided`: few copies).
    struct Ring(wirespeed_ebpf::Copies, bool);

    impl wirespeed_live::copies::CopySource for Ring {
        fn drain(&mut self, max: usize, f: &mut wirespeed_live::copies::OnCopy<'_>) -> usize {
            self.0
                .drain(max, &mut |c| f(c.mono_ns, c.len, c.ifindex, c.data))
        }

        fn wakes(&self) -> Option<std::os::fd::RawFd> {
            use std::os::fd::{AsFd, AsRawFd};
            self.1.then(|| self.0.as_fd().as_raw_fd())
        }
    }

    /// The shaper's classes for `p`'s rate limits (those `enforceable` lets through): the
    /// decision's index + 1 is the class (and the mark's top byte the program writes).
    fn classes(p: &Policy) -> Vec<ShapeClass> {
        let actions = p
            .rules
            .iter()
            .map(|r| r.action)
            .chain([p.unclassified, p.default]);
        actions
            .enumerate()
            .filter_map(|(i, a)| match a {
                Action::RateLimit {
                    rate: Rate::Bits(bps),
                    burst,
                    per_flow: false,
                } => Some(ShapeClass {
                    class: u8::try_from(i + 1).ok()?,
                    rate_bps: bps.round() as u64,
                    burst_bytes: (burst / 8.0).round() as u64,
                }),
                _ => None,
            })
            .filter(|c| c.class <= wirespeed_ebpf::MAX_CLASS)
            .collect()
    }

    impl Enforce for MapEnforcer {
        fn rate_limits(&self) -> bool {
            true
        }

        fn set(&self, flow: &FlowEnds, code: u8) {
            let v = match (bound_action(code), bound_rate(code)) {
                (Some(Action::Forward), _) => Verdict::Pass,
                (Some(Action::Drop), _) => Verdict::Drop,
                (Some(Action::Mark(d)), _) => Verdict::Dscp(d),
                // The decision's class (its index + 1, as `classes` made them).
                (_, Some(i)) => match u8::try_from(i + 1) {
                    Ok(c) if c <= wirespeed_ebpf::MAX_CLASS => Verdict::Class(c),
                    _ => return,
                },
                _ => return,
            };
            let r = match self.dp.lock() {
                Ok(mut dp) => dp.set(&Self::key(flow), v),
                Err(p) => p.into_inner().set(&Self::key(flow), v),
            };
            match r {
                Ok(()) => {
                    self.set.fetch_add(1, Ordering::Relaxed);
                }
                Err(e) => self.failed("writing a verdict", e),
            }
        }

        fn remove(&self, flow: &FlowEnds) {
            let r = match self.dp.lock() {
                Ok(mut dp) => dp.remove(&Self::key(flow)),
                Err(p) => p.into_inner().remove(&Self::key(flow)),
            };
            match r {
                Ok(true) => {
                    self.removed.fetch_add(1, Ordering::Relaxed);
                }
                // Evicted by the map's LRU already: nothing to do.
                Ok(false) => {}
                Err(e) => self.failed("removing a verdict", e),
            }
        }
    }

    pub(super) fn run(
        a: &InlineArgs,
        cfg: EngineConfig,
        cols: Columns,
        policy: Policy,
    ) -> Result<ExitCode, String> {
        fits_in_memory(&cfg, 1, a.engine.max_flows)?;
        if a.copy == super::super::CopyArg::Undecided {
            // A decided flow is copied once a second (bpf/verdict.c, KEEPALIVE_NS): an idle
            // timeout as short would end it here while it runs, and remove its entry.
            let t = &cfg.flow.timeouts;
            let shortest = t.tcp_ns.min(t.udp_ns).min(t.other_ns);
            if shortest <= 2_000_000_000 {
                return Err(format!(
                    "--copy undecided copies a decided flow's packets once a second: its idle \
                     timeouts must be longer than 2 s (the shortest is {} s)",
                    shortest as f64 / 1e9
                ));
            }
        }
        let mut ifaces: Vec<String> = Vec::new();
        for i in &a.interface {
            if !ifaces.contains(i) {
                ifaces.push(i.clone());
            }
        }
        for i in &ifaces {
            // Two runs' verdicts on one hook would mix: the second is refused.
            if Datapath::attached_elsewhere(i, Hook::Ingress).map_err(|e| e.to_string())? {
                return Err(format!(
                    "{i}: a wirespeed verdict program is already attached to its ingress \
                     (another `wirespeed inline --datapath ebpf`?); stop that one first"
                ));
            }
        }
        // The rate limits' HTB qdisc on the interfaces' egress (refused where another qdisc is
        // the root), installed before the program marks anything; dropped last, which removes it.
        let shaper = Shaper::install(&ifaces, &classes(&policy))
            .map_err(|e| format!("--datapath ebpf: rate limits: {e}"))?;
        let shaper = Mutex::new(shaper);
        let ring = a.capture == super::super::CaptureArg::Ringbuf;
        let undecided = a.copy == super::super::CopyArg::Undecided;
        let mode = match (ring, undecided) {
            (false, _) => RingCopy::Off,
            (true, false) => RingCopy::All,
            (true, true) => RingCopy::Undecided,
        };
        let failopen = (a.fail_open_ms > 0).then(|| Duration::from_millis(a.fail_open_ms));
        let mut dp =
            Datapath::load_with(mode, failopen).map_err(|e| format!("--datapath ebpf: {e}"))?;
        // The heartbeat, written once before the program is attached (until then, and from
        // when it lapses, verdicts are not applied: fail-open), then by its own thread.
        let mut heartbeat = match failopen {
            Some(_) => {
                let mut h = dp
                    .take_heartbeat()
                    .map_err(|e| format!("--datapath ebpf: {e}"))?;
                h.beat(wirespeed_live::sys::monotonic_coarse_ns())
                    .map_err(|e| format!("--datapath ebpf: {e}"))?;
                Some(h)
            }
            None => None,
        };
        // The ring buffer's reader, taken by the one worker's feed.
        let copies = if ring {
            Some(
                dp.take_copies()
                    .map_err(|e| format!("--datapath ebpf: {e}"))?,
            )
        } else {
            None
        };
        for i in &ifaces {
            // On failure `dp` is dropped, which detaches from those already attached.
            dp.attach(i, Hook::Ingress)
                .map_err(|e| format!("--datapath ebpf: {e}"))?;
            // The shaper's classifier: marked packets to their HTB class (a few instructions a
            // packet; on every run, so a reload can bring the first rate limit).
            dp.attach_classifier(i)
                .map_err(|e| format!("--datapath ebpf: {e}"))?;
        }
        let enforcer = Arc::new(MapEnforcer {
            dp: Mutex::new(dp),
            set: AtomicU64::new(0),
            removed: AtomicU64::new(0),
            failed: AtomicU64::new(0),
            first_failure: Mutex::new(None),
        });
        let cell = PolicyCell::new(policy);
        let labels = cfg.rules.clone();
        let lc = wirespeed_live::LiveConfig {
            ifaces: ifaces.clone(),
            workers: 1,
            pin: a.pin,
            buffer_mb: 64,
            filter: None,
            user: None,
            status_every: duration_arg(a.status, "status")?,
            duration: a
                .duration
                .map(|d| duration_arg(d, "duration"))
                .transpose()?,
            metrics: a
                .metrics
                .map(|_| RunStats::inline(cfg.rules.clone(), cell.clone())),
            act: Some(wirespeed_live::CaptureAct {
                policy: cell.clone(),
                enforce: enforcer.clone(),
                copy_filter: (undecided && !ring).then(|| {
                    let e = enforcer.clone();
                    let f: wirespeed_live::CopyFilter = Arc::new(move |fd| {
                        let dp = match e.dp.lock() {
                            Ok(dp) => dp,
                            Err(p) => p.into_inner(),
                        };
                        dp.attach_copy_filter(fd)
                            .map_err(|e| std::io::Error::other(e.to_string()))
                    });
                    f
                }),
            }),
            // The ring buffer's counters as the kernel's: what the program copied or found no
            // room for, and the latter.
            source_stats: ring.then(|| {
                let e = enforcer.clone();
                wirespeed_live::SourceStats(Arc::new(move || {
                    let c = match e.dp.lock() {
                        Ok(dp) => dp.counters(),
                        Err(p) => p.into_inner().counters(),
                    };
                    c.map(|c| wirespeed_live::sys::KernelStats {
                        packets: c.copied + c.copy_lost,
                        drops: c.copy_lost,
                        freezes: 0,
                    })
                    .unwrap_or_default()
                }))
            }),
            source: copies.map(|c| {
                let slot = Mutex::new(Some(c));
                wirespeed_live::FeedMaker(Arc::new(move || {
                    let c = match slot.lock() {
                        Ok(mut s) => s.take(),
                        Err(p) => p.into_inner().take(),
                    };
                    let c = c.ok_or_else(|| {
                        std::io::Error::other("the ring buffer has one reader (one worker)")
                    })?;
                    Ok(Box::new(wirespeed_live::copies::CopyFeed::new(
                        Ring(c, undecided),
                        true,
                    ))
                        as Box<dyn wirespeed_engine::runtime::Feed>)
                }))
            }),
            engine: cfg,
        };
        let _metrics = serve_metrics(a.metrics, lc.metrics.as_ref(), a.quiet)?;
        let stop = stop_flag()?;
        let reload = Arc::new(AtomicBool::new(false));
        signal_hook::flag::register(signal_hook::consts::SIGHUP, reload.clone())
            .map_err(|e| format!("signals: {e}"))?;
        let quiet = a.quiet;
        let status = |line: &str| {
            if !quiet {
                eprintln!("{line}");
            }
        };
        let outs = LiveOutputs::start(
            a.output.as_deref(),
            a.format.into(),
            cols,
            a.ipfix.as_deref(),
            a.kafka.as_deref(),
            &stop,
            lc.metrics.as_ref(),
        )?;
        let mut opened = outs.opener();
        status(&format!(
            "inline: ebpf: verdict program on the ingress of {}, {} rules; {}",
            ifaces.join(","),
            cell.policy().rules.len(),
            match (a.copy, ring) {
                (super::super::CopyArg::All, false) => "every packet copied to this process",
                (super::super::CopyArg::All, true) =>
                    "every packet copied to this process by the program (ring buffer)",
                (super::super::CopyArg::Undecided, false) =>
                    "undecided flows copied to this process (decided ones: SYN, FIN, RST and \
                     one packet a second)",
                (super::super::CopyArg::Undecided, true) =>
                    "undecided flows copied to this process by the program (ring buffer; \
                     decided ones: SYN, FIN, RST and one packet a second)",
            }
        ));
        let shaping = |shaper: &Shaper| {
            if shaper.installed().is_empty() {
                "no rate limits: no shaper".to_string()
            } else {
                format!(
                    "rate limits: HTB qdisc {:x}: on the egress of {}",
                    wirespeed_ebpf::SHAPER_HANDLE,
                    shaper.installed().join(",")
                )
            }
        };
        if let Ok(s) = shaper.lock() {
            status(&format!("inline: ebpf: {}", shaping(&s)));
        }
        // At a reload: the policy checked, then the shaper's classes made for it (before the
        // workers take it, so a flow's new class is there when its mark is written).
        let check = |p: &Policy| -> Result<(), String> {
            enforceable(p)?;
            let mut s = match shaper.lock() {
                Ok(s) => s,
                Err(e) => e.into_inner(),
            };
            s.update(&classes(p))
                .map_err(|e| format!("rate limits: {e}"))?;
            status(&format!("inline: ebpf: {}", shaping(&s)));
            Ok(())
        };
        let done = AtomicBool::new(false);
        let beats_failed = AtomicU64::new(0);
        let run = std::thread::scope(|sc| {
            // The heartbeat: six beats in the fail-open time, at a real-time priority where
            // the process may (so busy processes on the machine do not make it lapse).
            if let (Some(h), Some(f)) = (heartbeat.as_mut(), failopen) {
                let (done, beats_failed) = (&done, &beats_failed);
                sc.spawn(move || {
                    let _ = wirespeed_live::sys::realtime_priority();
                    let every = (f / 6).clamp(Duration::from_millis(1), Duration::from_millis(100));
                    while !done.load(Ordering::Relaxed) {
                        if h.beat(wirespeed_live::sys::monotonic_coarse_ns()).is_err() {
                            beats_failed.fetch_add(1, Ordering::Relaxed);
                        }
                        std::thread::sleep(every);
                    }
                });
            }
            // SIGHUP: the policy read again, here rather than in the capture loop.
            sc.spawn(|| {
                while !done.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(50));
                    reload_policy(&reload, &a.policy, labels.labels(), &cell, &check, &status);
                }
            });
            let mut said_failure = false;
            let r = wirespeed_live::run(&lc, outs.sink(), stop.clone(), &mut opened, &mut |l| {
                status(l);
                if !said_failure && enforcer.failed.load(Ordering::Relaxed) > 0 {
                    said_failure = true;
                    if let Ok(f) = enforcer.first_failure.lock() {
                        status(&format!(
                            "inline: ebpf: a map write failed (those flows pass; counted at the \
                             end): {}",
                            f.as_deref().unwrap_or("")
                        ));
                    }
                }
            });
            done.store(true, Ordering::Relaxed);
            r
        });
        let end = outs.finish(&run, quiet)?;
        let o = run.map_err(|e| e.to_string())?;
        // Every flow ended and its entry removed; the program detached (the map freed) when
        // the enforcer goes, here.
        let (flows_left, counters) = match enforcer.dp.lock() {
            Ok(dp) => (dp.flows().ok(), dp.counters().ok()),
            Err(_) => (None, None),
        };
        if !quiet {
            let summary = Summary {
                counters: o.counters,
                categories: wirespeed_engine::app_categories(&o.apps, lc.engine.rules.labels()),
                apps: o.apps,
                files: Vec::new(),
                elapsed_s: o.elapsed_s,
                learn: o.learn,
            };
            eprint!("{}", summary.render(false));
            eprintln!(
                "ebpf: {} verdicts written, {} removed as their flows ended, {} map writes failed; \
                 {} entries left at exit",
                enforcer.set.load(Ordering::Relaxed),
                enforcer.removed.load(Ordering::Relaxed),
                enforcer.failed.load(Ordering::Relaxed),
                flows_left.map_or("?".to_string(), |n| n.to_string()),
            );
            if let Some(c) = counters {
                eprintln!(
                    "ebpf program: {} packets without a verdict (passed), {} passed, {} dropped, \
                     {} marked, {} rate-limited (to the shaper), {} not IP, {} passed with the \
                     heartbeat stale (fail-open; {} heartbeat writes failed)",
                    c.no_entry,
                    c.pass,
                    c.drop,
                    c.dscp,
                    c.class,
                    c.not_ip,
                    c.stale,
                    beats_failed.load(Ordering::Relaxed)
                );
                if ring {
                    eprintln!(
                        "ring buffer: {} packets copied by the program, {} lost with the ring \
                         full (their flows may be decided late)",
                        c.copied, c.copy_lost
                    );
                }
                if undecided {
                    eprintln!(
                        "copy filter: {} packets ({} bytes) of decided flows not copied to this \
                         process (enforced by the program; not in their records)",
                        c.copy_skipped, c.copy_skipped_bytes
                    );
                }
            }
            if !ring {
                eprintln!(
                    "capture: {} packets, {} lost with the ring full (their flows may be decided \
                     late)",
                    o.kernel.packets, o.kernel.drops
                );
            }
            eprintln!(
                "rule\taction\tflows\tpackets\tbytes\tdropped_pkts\tdropped_bytes\tmarked\tbound"
            );
            for (name, action, c) in cell.totals() {
                eprintln!(
                    "{name}\t{action}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
                    c.flows,
                    c.packets,
                    c.bytes,
                    c.dropped_packets,
                    c.dropped_bytes,
                    c.marked,
                    c.bound
                );
            }
        }
        drop(lc);
        drop(enforcer);
        // The program is gone: nothing is marked any more. Now the qdiscs.
        let mut shaper = match shaper.into_inner() {
            Ok(s) => s,
            Err(e) => e.into_inner(),
        };
        if let Err(e) = shaper.remove() {
            eprintln!("inline: ebpf: removing the rate limits' qdisc: {e}");
        }
        end.exit()
    }
}
