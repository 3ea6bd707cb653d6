//! `wirespeed live`: classify the flows of live interfaces (AF_PACKET rings).

use crate::args::{EngineArgs, ParallelArgs, TextFormat};
use crate::config::{duration_arg, fits_in_memory, stop_flag};
use crate::outputs::{self, serve_metrics, LiveOutputs};
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;
use wirespeed_engine::{EngineConfig, Summary};
use wirespeed_export::Columns;
use wirespeed_live::metrics::RunStats;

/// `--capture`: how frames reach this process.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum LiveCapture {
    /// AF_PACKET TPACKET_V3 rings, one per worker and interface, spread by the kernel's fanout
    /// hash; the host's own stack still receives every frame.
    AfPacket,
    /// AF_XDP: an XDP program (in the driver where it can) redirects every frame to an XDP
    /// socket per receive queue. The frames leave the kernel's stack: for a monitoring port
    /// (a mirror or TAP), not a link the host itself uses. Needs `--features ebpf` and root.
    Xdp,
}

#[derive(Args)]
pub(crate) struct LiveArgs {
    /// Interfaces, comma-separated.
    #[arg(short, long, required = true, value_delimiter = ',')]
    interface: Vec<String>,
    /// How frames reach this process: `af-packet` (packet sockets; the host keeps receiving
    /// them) or `xdp` (XDP sockets, one per receive queue, the workers sharing them; the frames
    /// are taken from the host's stack; `--filter` is not applied; README's live links).
    #[arg(long, value_enum, default_value = "af-packet")]
    capture: LiveCapture,
    /// Filter in tcpdump syntax (compiled by tcpdump -ddd, run by the kernel).
    #[arg(long)]
    filter: Option<String>,
    /// Switch to this user once the capture sockets are open.
    #[arg(long)]
    user: Option<String>,
    /// Seconds between status lines on standard error (0: none).
    #[arg(long, default_value_t = 1.0)]
    status: f64,
    /// Stop after this many seconds (default: at SIGINT or SIGTERM).
    #[arg(long)]
    duration: Option<f64>,
    /// Record format (Parquet files are written by `classify` alone).
    #[arg(long, value_enum, default_value = "json")]
    format: TextFormat,
    /// Write records here instead of standard output (`-`: standard output).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Add the early-flow features to every record (`splt_*`, `atoz_*`; docs/SCHEMA.md).
    #[arg(long)]
    features: bool,
    /// Add each flow's Community ID (`community_id`, v1, seed 0), as `classify` does.
    #[arg(long)]
    community_id: bool,
    /// No run summary on standard error.
    #[arg(short, long)]
    quiet: bool,
    /// Also the engine's internals in the summary (fragments, payload inspection, reassembly
    /// caps, how the work was spread over the workers).
    #[arg(short, long, conflicts_with = "quiet")]
    verbose: bool,
    /// Serve the run's counters to Prometheus (OpenMetrics text) at http://ADDR:PORT/metrics,
    /// e.g. 127.0.0.1:9477, and its live page at http://ADDR:PORT/ (throughput by application,
    /// active flows, drops, the newest risky flows, inline rules' counters; redrawn every
    /// second from /live.json). Read-only, on that address alone; `--http` is the same option
    /// (docs/METRICS.md).
    #[arg(long, visible_alias = "http", value_name = "ADDR:PORT")]
    metrics: Option<std::net::SocketAddr>,
    /// Also export the records as IPFIX (`udp://HOST:PORT`, `tcp://HOST:PORT`, `file:PATH`; see
    /// `classify --help`). A collector that is down or slow costs records (counted), never
    /// capture. With it, JSON or CSV records are written only where `-o` sends them.
    #[arg(long, value_name = "TARGET")]
    ipfix: Option<String>,
    /// Also send every record to a Kafka topic (`BROKERS/TOPIC`; see `classify --help`). A
    /// broker that is down or slow costs records (counted), never capture. With it, JSON or CSV
    /// records are written only where `-o` sends them. Needs the cargo feature `kafka`.
    #[arg(long, value_name = "BROKERS/TOPIC")]
    kafka: Option<String>,
    #[arg(long, value_name = "LIST", help = "Keep only these record columns, in the record's order (more with --help)", long_help = crate::args::COLUMNS_HELP)]
    columns: Option<String>,
    #[command(flatten)]
    engine: EngineArgs,
    #[command(flatten)]
    par: ParallelArgs,
}

pub(crate) fn live(a: LiveArgs) -> Result<ExitCode, String> {
    outputs::check_apart(
        &a.engine,
        a.output.as_deref(),
        a.ipfix.as_deref(),
        &a.engine.inputs(),
    )?;
    let cols = crate::args::keep_columns(
        a.columns.as_deref(),
        Columns {
            features: a.features,
            community: a.community_id,
            ..a.engine.stats_columns()?
        },
        a.ipfix.is_some() || a.kafka.is_some(),
        "JSON and CSV",
    )?;
    let (mut cfg, events) = a.engine.live_config()?;
    cfg.compute_for(&cols);
    let r = run(&a, cfg, cols);
    // The run is over, its workers and their handles to the `--events` output gone: close it.
    events.close().and(r)
}

/// The run, with the engine's configuration `cfg`.
fn run(a: &LiveArgs, cfg: EngineConfig, cols: Columns) -> Result<ExitCode, String> {
    let par = a.par.config_for(&a.engine)?;
    fits_in_memory(&cfg, par.workers, a.engine.max_flows)?;
    let filter = match &a.filter {
        Some(f) => Some(wirespeed_live::bpf::compile(f)?),
        None => None,
    };
    let mut workers = par.workers;
    // `--capture xdp`: the program and its sockets, kept until the run is over (dropping the
    // program detaches it from the interfaces).
    let xdp = match a.capture {
        LiveCapture::AfPacket => None,
        LiveCapture::Xdp => {
            if filter.is_some() {
                return Err(
                    "--filter is for packet sockets (a classic BPF program on them): \
                            not with --capture xdp"
                        .into(),
                );
            }
            let x = xdp::open(&a.interface, par.workers, par.buffer_mb)?;
            workers = x.workers;
            if !a.quiet {
                eprintln!("{}", x.said);
            }
            Some(x)
        }
    };
    let lc = wirespeed_live::LiveConfig {
        ifaces: a.interface.clone(),
        workers,
        pin: par.pin,
        buffer_mb: par.buffer_mb,
        filter,
        user: a.user.clone(),
        status_every: duration_arg(a.status, "status")?,
        duration: a
            .duration
            .map(|d| duration_arg(d, "duration"))
            .transpose()?,
        metrics: a.metrics.map(|_| RunStats::live(cfg.rules.clone())),
        act: None,
        source: xdp.as_ref().map(|x| x.feeds.clone()),
        source_stats: xdp.as_ref().map(|x| x.stats.clone()),
        engine: cfg,
    };
    let _metrics = serve_metrics(a.metrics, lc.metrics.as_ref(), a.quiet)?;
    let stop = stop_flag()?;
    let (quiet, verbose) = (a.quiet, a.verbose);
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
    let run = wirespeed_live::run(&lc, outs.sink(), stop, &mut opened, &mut |line| {
        if !quiet {
            eprintln!("{line}");
        }
    });
    let end = outs.finish(&run, quiet)?;
    // The sockets' own counters, apart, for the summary; then the program detached.
    let xdp_detail = xdp.as_ref().map(|x| (x.detail)());
    drop(xdp);
    // A failed run (an interface gone) still wrote the records of its flows: written above.
    let o = match run {
        Ok(o) => o,
        Err(e) => {
            if end.closed.lost > 0 {
                let lost = end.closed.lost;
                eprintln!("wirespeed: {lost} records lost because the output did not keep up");
            }
            return Err(e.to_string());
        }
    };
    if !a.quiet {
        let summary = Summary {
            counters: o.counters,
            categories: wirespeed_engine::app_categories(&o.apps, lc.engine.rules.labels()),
            apps: o.apps,
            files: Vec::new(),
            elapsed_s: o.elapsed_s,
            learn: o.learn,
        };
        eprint!("{}", summary.render(verbose));
        if let Some(d) = &xdp_detail {
            eprintln!(
                "kernel: {} frames seen by the XDP program, {} dropped by its sockets ({d})",
                o.kernel.packets, o.kernel.drops
            );
        } else {
            eprintln!(
                "kernel: {} packets passed the filter, {} dropped with the ring full, {} queue \
                 freezes; {} frames arrived with their VLAN tag already removed",
                o.kernel.packets, o.kernel.drops, o.kernel.freezes, o.vlan_stripped
            );
        }
        eprintln!(
            "output: {} records ({} bytes) dropped because the output did not keep up",
            end.closed.dropped, end.closed.dropped_bytes
        );
    }
    end.exit()
}

/// `--capture xdp`'s program, sockets and counters.
mod xdp {
    use wirespeed_live::{FeedMaker, SourceStats};

    /// What `open` made.
    pub(super) struct Xdp {
        /// Each worker's share of the sockets.
        pub(super) feeds: FeedMaker,
        pub(super) stats: SourceStats,
        /// Workers: no more than sockets.
        pub(super) workers: usize,
        /// A line for standard error: where the program runs, how many sockets.
        pub(super) said: String,
        /// The sockets' drops by cause, in words.
        pub(super) detail: Box<dyn Fn() -> String>,
        #[cfg(all(feature = "ebpf", target_os = "linux"))]
        _program: std::sync::Arc<wirespeed_ebpf::XskCapture>,
    }

    #[cfg(not(all(feature = "ebpf", target_os = "linux")))]
    pub(super) fn open(_: &[String], _: usize, _: usize) -> Result<Xdp, String> {
        Err(
            "--capture xdp: this wirespeed was built without the ebpf feature; build with \
             --features ebpf (clang and libbpf-dev needed at build time, Linux)"
                .into(),
        )
    }

    /// The receive queues of `iface` (its `rx-N` entries in sysfs; 1 if they cannot be read).
    #[cfg(all(feature = "ebpf", target_os = "linux"))]
    fn rx_queues(iface: &str) -> u32 {
        std::fs::read_dir(format!("/sys/class/net/{iface}/queues"))
            .map(|d| {
                d.filter_map(Result::ok)
                    .filter(|e| e.file_name().to_string_lossy().starts_with("rx-"))
                    .count() as u32
            })
            .unwrap_or(0)
            .max(1)
    }

    /// Load the program, open a socket on every receive queue of `ifaces` (UMEMs of
    /// `buffer_mb` MiB in all), put them in its map, attach it, and share the sockets among at
    /// most `workers` workers.
    #[cfg(all(feature = "ebpf", target_os = "linux"))]
    pub(super) fn open(ifaces: &[String], workers: usize, buffer_mb: usize) -> Result<Xdp, String> {
        use std::os::fd::AsRawFd;
        use std::sync::{Arc, Mutex};
        use wirespeed_ebpf::{XdpAttach, XskCapture};
        use wirespeed_live::sys::{self, XskSocket, XSK_FRAME};
        use wirespeed_live::xsk::XskFeed;

        let e = |e: &dyn std::fmt::Display| format!("--capture xdp: {e}");
        let mut cap = XskCapture::load().map_err(|x| e(&x))?;
        let mut queues = Vec::new();
        for iface in ifaces {
            let ifindex = sys::ifindex(iface).map_err(|x| e(&format!("{iface}: {x}")))?;
            let q = rx_queues(iface);
            cap.add_interface(ifindex, q).map_err(|x| e(&x))?;
            queues.extend((0..q).map(|q| (iface.as_str(), ifindex, q)));
        }
        // The UMEMs share the buffer: a power of two of frames each, 512 to 32,768.
        let per = ((buffer_mb << 20) / queues.len().max(1) / XSK_FRAME as usize).max(1);
        let frames = (1u32 << (usize::BITS - 1 - per.leading_zeros()).min(15)).max(512);
        let mut sockets = Vec::new();
        let mut fds = Vec::new();
        for &(iface, ifindex, q) in &queues {
            let s = XskSocket::open(ifindex, q, frames).map_err(|x| {
                let hint = if x.kind() == std::io::ErrorKind::PermissionDenied {
                    " (AF_XDP needs root, or CAP_NET_RAW and CAP_BPF)"
                } else {
                    ""
                };
                e(&format!("{iface} queue {q}: an XDP socket: {x}{hint}"))
            })?;
            cap.set_socket(ifindex, q, s.fd()).map_err(|x| e(&x))?;
            // A second descriptor of the socket, to read its counters while a worker owns it.
            fds.push(s.try_clone_fd().map_err(|x| e(&x))?);
            sockets.push((s, ifindex));
        }
        let zero_copy = sockets.iter().filter(|(s, _)| s.zero_copy()).count();
        let mut modes = Vec::new();
        for iface in ifaces {
            let m = cap.attach(iface).map_err(|x| e(&x))?;
            modes.push(format!(
                "{iface} ({})",
                match m {
                    XdpAttach::Driver => "in the driver",
                    XdpAttach::Generic => "generic",
                }
            ));
        }
        let n = sockets.len();
        let workers = workers.clamp(1, n.max(1));
        let mut shares: Vec<Vec<(XskSocket, u32)>> = (0..workers).map(|_| Vec::new()).collect();
        for (i, s) in sockets.into_iter().enumerate() {
            shares[i % workers].push(s);
        }
        let said = format!(
            "live: xdp: program on {}; {n} sockets ({} zero-copy), {frames} frames of {} bytes \
             each, {workers} workers",
            modes.join(", "),
            zero_copy,
            XSK_FRAME
        );
        let cap = Arc::new(cap);
        let shares = Mutex::new(shares);
        let feeds = FeedMaker(Arc::new(move || {
            let share = match shares.lock() {
                Ok(mut s) => s.pop(),
                Err(p) => p.into_inner().pop(),
            };
            let share = share.ok_or_else(|| std::io::Error::other("more workers than sockets"))?;
            Ok(Box::new(XskFeed::new(share)) as Box<dyn wirespeed_engine::runtime::Feed>)
        }));
        let c = cap.clone();
        let fds = Arc::new(fds);
        let sum = {
            let fds = fds.clone();
            move || {
                let mut t = sys::XskStats::default();
                for fd in fds.iter() {
                    if let Ok(s) = sys::xsk_stats(fd.as_raw_fd()) {
                        t.rx_dropped += s.rx_dropped;
                        t.rx_ring_full += s.rx_ring_full;
                        t.fill_ring_empty += s.fill_ring_empty;
                        t.invalid += s.invalid;
                    }
                }
                t
            }
        };
        let total = sum.clone();
        let stats = SourceStats(Arc::new(move || {
            let t = total();
            sys::KernelStats {
                packets: c.seen().unwrap_or(0),
                drops: t.rx_dropped + t.rx_ring_full,
                freezes: 0,
            }
        }));
        let detail = Box::new(move || {
            let t = sum();
            format!(
                "{} with no free frame, {} with the receive ring full; the fill ring found empty \
                 {} times",
                t.rx_dropped, t.rx_ring_full, t.fill_ring_empty
            )
        });
        Ok(Xdp {
            feeds,
            stats,
            workers,
            said,
            detail,
            _program: cap,
        })
    }
}
