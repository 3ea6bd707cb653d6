//! Prometheus metrics of a live or inline run (`--metrics ADDR:PORT`): the run's counters in
//! the OpenMetrics text format, served at `/metrics` by a small HTTP/1.1 server on a thread of
//! its own.
//!
//! - [`RunStats`]: what a run shares with the endpoint. The workers publish a snapshot of their
//!   counters and per-label totals about twice a second ([`wirespeed_engine::runtime::Published`],
//!   off the packet path, folding their per-rule counters into the policy's totals inline); the
//!   kernel's ring counters (live), the queue counters (inline) and the output's losses are
//!   atomics the run keeps anyway. A scrape adds them up on the server's thread: nothing is
//!   locked or allocated per packet for it.
//! - [`Exposition`]: the text format (families, `_total` counters, escaped label values,
//!   `# EOF`).
//! - [`MetricsServer`]: the endpoint. One request per connection, at most [`Limits::max_request`]
//!   bytes of it read within [`Limits::request_timeout`], at most [`Limits::max_connections`]
//!   served at once (more are answered 503 and closed); `GET` or `HEAD` of `/metrics` only (other
//!   paths 404, other methods 405). A slow, huge or garbled request costs one connection slot for
//!   a bounded time, never the packet path.

use crate::inline::QueueCounters;
use crate::sys::KernelStats;
use std::fmt::Write as _;
use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};
use wirespeed_act::PolicyCell;
use wirespeed_engine::runtime::Published;
use wirespeed_engine::Rules;
use wirespeed_export::shared::LossyWriter;
use wirespeed_wire::DropReason;

/// The content type of the answer: the OpenMetrics text format, which Prometheus asks for first
/// and reads.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// What a live or inline run shares with its metrics endpoint while it runs.
pub struct RunStats {
    rules: Arc<Rules>,
    workers: Arc<Published>,
    kind: Kind,
    output: OnceLock<OutputCounters>,
}

enum Kind {
    Live(KernelCounters),
    Inline {
        queue: Arc<QueueCounters>,
        policy: Arc<PolicyCell>,
    },
}

/// The kernel's ring counters, all sockets together (copied from the run's own as it goes).
#[derive(Default)]
struct KernelCounters {
    packets: AtomicU64,
    drops: AtomicU64,
    freezes: AtomicU64,
}

/// The counters of a live output ([`LossyWriter`]): what it dropped, and its backlog.
#[derive(Clone, Debug)]
pub struct OutputCounters {
    /// Records dropped because the output did not keep up.
    pub dropped_records: Arc<AtomicU64>,
    /// Their bytes.
    pub dropped_bytes: Arc<AtomicU64>,
    /// Records queued for the writer and not written yet.
    pub queued_records: Arc<AtomicU64>,
}

impl OutputCounters {
    /// The counters of `w` (shared: they go on counting).
    pub fn of(w: &LossyWriter) -> Self {
        OutputCounters {
            dropped_records: w.dropped_records.clone(),
            dropped_bytes: w.dropped_bytes.clone(),
            queued_records: w.queued_records.clone(),
        }
    }
}

impl std::fmt::Debug for RunStats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match self.kind {
            Kind::Live(_) => "live",
            Kind::Inline { .. } => "inline",
        };
        f.debug_struct("RunStats")
            .field("kind", &kind)
            .finish_non_exhaustive()
    }
}

impl RunStats {
    /// For a live capture with these rules (their labels name the applications).
    pub fn live(rules: Arc<Rules>) -> Arc<RunStats> {
        Arc::new(RunStats {
            rules,
            workers: Arc::default(),
            kind: Kind::Live(KernelCounters::default()),
            output: OnceLock::new(),
        })
    }

    /// For an inline run with these rules and this policy (its per-rule totals).
    pub fn inline(rules: Arc<Rules>, policy: Arc<PolicyCell>) -> Arc<RunStats> {
        Arc::new(RunStats {
            rules,
            workers: Arc::default(),
            kind: Kind::Inline {
                queue: Arc::default(),
                policy,
            },
            output: OnceLock::new(),
        })
    }

    /// Where the run's workers publish their snapshots ([`wirespeed_engine::Session::publish_to`]).
    pub fn published(&self) -> &Arc<Published> {
        &self.workers
    }

    /// The output's counters, once it is open (later calls change nothing).
    pub fn set_output(&self, o: OutputCounters) {
        let _ = self.output.set(o);
    }

    /// The kernel's counters so far (a live run copies its own here).
    pub(crate) fn set_kernel(&self, k: &KernelStats) {
        if let Kind::Live(c) = &self.kind {
            c.packets.store(k.packets, Ordering::Relaxed);
            c.drops.store(k.drops, Ordering::Relaxed);
            c.freezes.store(k.freezes, Ordering::Relaxed);
        }
    }

    /// The queue counters an inline run counts in (None for a live run).
    pub(crate) fn queue_counters(&self) -> Option<Arc<QueueCounters>> {
        match &self.kind {
            Kind::Inline { queue, .. } => Some(queue.clone()),
            Kind::Live(_) => None,
        }
    }

    /// The metrics now, in the OpenMetrics text format.
    pub fn render(&self) -> String {
        use Type::{Counter, Gauge, Info};
        let t = self.workers.total();
        let c = &t.counters;
        let mut e = Exposition::default();
        let mode = match self.kind {
            Kind::Live(_) => "live",
            Kind::Inline { .. } => "inline",
        };
        e.family(
            "wirespeed_build",
            Info,
            "",
            "The wirespeed version, and what this run does.",
        );
        e.sample(&[("version", env!("CARGO_PKG_VERSION")), ("mode", mode)], 1);
        e.family(
            "wirespeed_packets",
            Counter,
            "",
            "Packets read (from the capture rings, or the queues inline).",
        );
        e.sample(&[], c.packets);
        e.family(
            "wirespeed_bytes",
            Counter,
            "bytes",
            "Captured bytes of the packets read.",
        );
        e.sample(&[], c.bytes);
        e.family(
            "wirespeed_decoded_packets",
            Counter,
            "",
            "Packets decoded and counted in a flow.",
        );
        e.sample(&[], c.decoded);
        e.family(
            "wirespeed_dropped_packets",
            Counter,
            "",
            "Packets not counted in any flow, by reason (the run summary's).",
        );
        for r in DropReason::ALL {
            e.sample(&[("reason", r.as_str())], c.drops[r.index()]);
        }
        e.sample(&[("reason", "frag_orphan")], c.frag_orphans);
        e.family("wirespeed_flows_created", Counter, "", "Flows started.");
        e.sample(&[], c.table.created);
        e.family(
            "wirespeed_flows_ended",
            Counter,
            "",
            "Flows ended and written as a record (interim records not counted).",
        );
        e.sample(&[], c.records);
        e.family(
            "wirespeed_flows_evicted",
            Counter,
            "",
            "Flows ended early to make room in a full flow table.",
        );
        e.sample(&[], c.table.evicted);
        e.family(
            "wirespeed_interim_records",
            Counter,
            "",
            "Interim records of flows still open (active timeout).",
        );
        e.sample(&[], c.table.interim);
        e.family("wirespeed_flows_active", Gauge, "", "Flows held now.");
        e.sample(&[], t.active);
        // Per label, of the flows ended so far: the labels with flows, by name.
        let labels = self.rules.labels();
        let mut apps: Vec<_> = labels
            .iter()
            .filter_map(|(id, l)| {
                let n = t.by_label.get(id.index())?;
                (n[0] > 0).then_some((l.app(), l.master(), l.category(), *n))
            })
            .collect();
        apps.sort_unstable_by(|a, b| (a.0, a.1, a.2).cmp(&(b.0, b.1, b.2)));
        for (i, (name, unit, help)) in [
            ("wirespeed_app_flows", "", "Flows ended, by their label."),
            (
                "wirespeed_app_packets",
                "",
                "Packets of the flows ended, by their label.",
            ),
            (
                "wirespeed_app_bytes",
                "bytes",
                "Captured bytes of the flows ended, by their label.",
            ),
        ]
        .into_iter()
        .enumerate()
        {
            e.family(name, Counter, unit, help);
            for (app, master, category, n) in &apps {
                e.sample(
                    &[("app", app), ("master", master), ("category", category)],
                    n[i],
                );
            }
        }
        let o = self.output.get();
        let load =
            |f: fn(&OutputCounters) -> &AtomicU64| o.map_or(0, |o| f(o).load(Ordering::Relaxed));
        e.family(
            "wirespeed_output_dropped_records",
            Counter,
            "",
            "Records dropped because the output did not keep up.",
        );
        e.sample(&[], load(|o| &o.dropped_records));
        e.family(
            "wirespeed_output_dropped_bytes",
            Counter,
            "bytes",
            "Bytes of the records dropped because the output did not keep up.",
        );
        e.sample(&[], load(|o| &o.dropped_bytes));
        e.family(
            "wirespeed_output_queued_records",
            Gauge,
            "",
            "Records waiting for the output's writer (its backlog).",
        );
        e.sample(&[], load(|o| &o.queued_records));
        match &self.kind {
            Kind::Live(k) => {
                let l = |a: &AtomicU64| a.load(Ordering::Relaxed);
                e.family(
                    "wirespeed_kernel_packets",
                    Counter,
                    "",
                    "Packets the kernel passed to the capture rings (after the filter).",
                );
                e.sample(&[], l(&k.packets));
                e.family(
                    "wirespeed_kernel_dropped_packets",
                    Counter,
                    "",
                    "Packets the kernel dropped because a capture ring was full.",
                );
                e.sample(&[], l(&k.drops));
                e.family(
                    "wirespeed_kernel_queue_freezes",
                    Counter,
                    "",
                    "Times a capture ring froze (every block in user space).",
                );
                e.sample(&[], l(&k.freezes));
            }
            Kind::Inline { queue, policy } => {
                let q = queue.snapshot();
                e.family(
                    "wirespeed_inline_verdicts",
                    Counter,
                    "",
                    "Packets of the queues by what they got: accepted, dropped, marked (DSCP \
                     written here), bound (handed to the kernel in the connection's mark).",
                );
                for (v, n) in [
                    ("accepted", q.accepted),
                    ("dropped", q.dropped),
                    ("marked", q.marked),
                    ("bound", q.bound),
                ] {
                    e.sample(&[("verdict", v)], n);
                }
                e.family(
                    "wirespeed_inline_unseen_packets",
                    Counter,
                    "",
                    "Packets the kernel could not hand over, accepted unseen (fail open).",
                );
                e.sample(&[], q.unseen);
                e.family(
                    "wirespeed_inline_rules_missing_packets",
                    Counter,
                    "",
                    "Packets that came back with a final action: the firewall lacks the rules \
                     of --print-rules.",
                );
                e.sample(&[], q.rules_missing);
                e.family(
                    "wirespeed_inline_malformed_messages",
                    Counter,
                    "",
                    "Queue messages that could not be parsed.",
                );
                e.sample(&[], q.malformed);
                let totals = policy.totals();
                type Field = fn(&wirespeed_act::RuleCounters) -> u64;
                let fields: [(&str, &str, &str, Field); 7] = [
                    (
                        "wirespeed_rule_flows",
                        "",
                        "Flows that took the rule's decision.",
                        |c| c.flows,
                    ),
                    (
                        "wirespeed_rule_packets",
                        "",
                        "Packets the rule decided.",
                        |c| c.packets,
                    ),
                    (
                        "wirespeed_rule_bytes",
                        "bytes",
                        "IP bytes of the packets the rule decided.",
                        |c| c.bytes,
                    ),
                    (
                        "wirespeed_rule_dropped_packets",
                        "",
                        "Packets the rule dropped (drop, or over its rate).",
                        |c| c.dropped_packets,
                    ),
                    (
                        "wirespeed_rule_dropped_bytes",
                        "bytes",
                        "IP bytes of the packets the rule dropped.",
                        |c| c.dropped_bytes,
                    ),
                    (
                        "wirespeed_rule_marked_packets",
                        "",
                        "Packets whose DSCP the rule wrote.",
                        |c| c.marked,
                    ),
                    (
                        "wirespeed_rule_bound_flows",
                        "",
                        "Flows the rule handed to the kernel.",
                        |c| c.bound,
                    ),
                ];
                for (name, unit, help, f) in fields {
                    e.family(name, Counter, unit, help);
                    for (rule, _, c) in &totals {
                        e.sample(&[("rule", rule)], f(c));
                    }
                }
            }
        }
        e.finish()
    }
}

/// The type of a metric family.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Type {
    /// A count that only goes up: its sample is named `NAME_total`.
    Counter,
    /// A value that goes up and down: its sample is named `NAME`.
    Gauge,
    /// Labels worth knowing, value 1: its sample is named `NAME_info`.
    Info,
}

/// An OpenMetrics text exposition being written: a family ([`Exposition::family`]) then its
/// samples ([`Exposition::sample`]), for each family in turn; [`Exposition::finish`] adds the
/// `# EOF` that ends it.
#[derive(Debug, Default)]
pub struct Exposition {
    out: String,
    name: String,
    kind: Option<Type>,
}

impl Exposition {
    /// Start the family `name` (letters, digits, `_`, not ending in `_total`; with a `unit`,
    /// ending in `_UNIT`): its `# TYPE`, `# UNIT` and `# HELP` lines.
    pub fn family(&mut self, name: &str, kind: Type, unit: &str, help: &str) {
        debug_assert!(is_name(name) && !name.ends_with("_total"), "{name}");
        debug_assert!(
            unit.is_empty() || name.ends_with(&format!("_{unit}")),
            "{name}"
        );
        let t = match kind {
            Type::Counter => "counter",
            Type::Gauge => "gauge",
            Type::Info => "info",
        };
        let _ = writeln!(self.out, "# TYPE {name} {t}");
        if !unit.is_empty() {
            let _ = writeln!(self.out, "# UNIT {name} {unit}");
        }
        let _ = write!(self.out, "# HELP {name} ");
        escape(help, &mut self.out);
        self.out.push('\n');
        self.name.clear();
        self.name.push_str(name);
        self.kind = Some(kind);
    }

    /// A sample of the current family, with these labels (names: letters, digits, `_`; values:
    /// any text, escaped here).
    pub fn sample(&mut self, labels: &[(&str, &str)], value: u64) {
        let suffix = match self.kind {
            Some(Type::Counter) => "_total",
            Some(Type::Info) => "_info",
            Some(Type::Gauge) | None => "",
        };
        self.out.push_str(&self.name);
        self.out.push_str(suffix);
        if !labels.is_empty() {
            self.out.push('{');
            for (i, (k, v)) in labels.iter().enumerate() {
                debug_assert!(is_name(k), "{k}");
                if i > 0 {
                    self.out.push(',');
                }
                self.out.push_str(k);
                self.out.push_str("=\"");
                escape(v, &mut self.out);
                self.out.push('"');
            }
            self.out.push('}');
        }
        let _ = writeln!(self.out, " {value}");
    }

    /// The text, ended by `# EOF`.
    pub fn finish(mut self) -> String {
        self.out.push_str("# EOF\n");
        self.out
    }
}

/// A metric or label name: `[a-zA-Z_][a-zA-Z0-9_]*`.
fn is_name(s: &str) -> bool {
    let mut b = s.bytes();
    b.next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == b'_')
        && b.all(|c| c.is_ascii_alphanumeric() || c == b'_')
}

/// Append `s` as the format's escaped string (label values, help): backslash, double quote and
/// newline escaped, everything else as it is.
pub fn escape(s: &str, out: &mut String) {
    for ch in s.chars() {
        match ch {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
}

/// What the server takes from a client.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Most bytes of a request read (its line and headers; a body is never read): 431 past it.
    pub max_request: usize,
    /// Time a client has to send its request: 408 past it.
    pub request_timeout: Duration,
    /// Time the answer may take to be written (the client reading it).
    pub write_timeout: Duration,
    /// Connections served at once; more are answered 503 and closed.
    pub max_connections: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_request: 8 << 10,
            request_timeout: Duration::from_secs(5),
            write_timeout: Duration::from_secs(5),
            max_connections: 4,
        }
    }
}

/// How often the accepting thread looks for a connection and at its stop flag.
const ACCEPT_POLL: Duration = Duration::from_millis(50);
/// After an error answer, what the client still sends is read and discarded for at most this
/// long and this much, so that closing does not reset the connection before it reads the answer.
const LINGER: Duration = Duration::from_millis(500);
const LINGER_BYTES: usize = 64 << 10;

type Render = dyn Fn() -> String + Send + Sync;

/// The metrics endpoint: a thread accepting connections on its address, each served on a
/// thread of its own (at most [`Limits::max_connections`] at once). Stops when dropped.
pub struct MetricsServer {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl MetricsServer {
    /// Listen on `addr` (port 0: one the system picks) and answer `GET /metrics` with
    /// `render()`.
    pub fn start(
        addr: SocketAddr,
        limits: Limits,
        render: impl Fn() -> String + Send + Sync + 'static,
    ) -> io::Result<MetricsServer> {
        let l = TcpListener::bind(addr)?;
        l.set_nonblocking(true)?;
        let addr = l.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let render: Arc<Render> = Arc::new(render);
        let s = stop.clone();
        let thread = std::thread::Builder::new()
            .name("metrics".into())
            .spawn(move || accept_loop(l, limits, render, &s))?;
        Ok(MetricsServer {
            addr,
            stop,
            thread: Some(thread),
        })
    }

    /// The address it listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }
}

impl Drop for MetricsServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// A connection slot, given back when its thread ends (or is never started).
struct Slot(Arc<AtomicUsize>);

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

fn accept_loop(l: TcpListener, limits: Limits, render: Arc<Render>, stop: &AtomicBool) {
    let active = Arc::new(AtomicUsize::new(0));
    while !stop.load(Ordering::Relaxed) {
        let s = match l.accept() {
            Ok((s, _)) => s,
            // Nothing to accept, or an error (out of descriptors): never spin on it.
            Err(_) => {
                std::thread::sleep(ACCEPT_POLL);
                continue;
            }
        };
        if active.load(Ordering::Relaxed) >= limits.max_connections.max(1) {
            busy(s);
            continue;
        }
        active.fetch_add(1, Ordering::Relaxed);
        let slot = Slot(active.clone());
        let render = render.clone();
        // A thread that cannot be started drops its closure, and the slot with it.
        let _ = std::thread::Builder::new()
            .name("metrics-conn".into())
            .spawn(move || {
                let _slot = slot;
                serve(s, &limits, &*render);
            });
    }
}

/// Too many connections: say so if the socket takes it at once, and close.
fn busy(mut s: TcpStream) {
    let _ = s.set_nonblocking(true);
    let _ = s.write_all(&response(
        503,
        "Service Unavailable",
        "text/plain; charset=utf-8",
        "",
        b"too many connections\n",
        false,
    ));
}

/// Why no request was read.
#[derive(Debug, PartialEq, Eq)]
enum NoRequest {
    TooLarge,
    TimedOut,
    Closed,
}

/// One connection: read the request's head, answer, close.
fn serve(mut s: TcpStream, limits: &Limits, render: &Render) {
    let _ = s.set_nonblocking(false);
    let _ = s.set_nodelay(true);
    let (answer, linger) = match read_head(&mut s, limits) {
        Ok(head) => (answer(&head, render), false),
        Err(NoRequest::TooLarge) => (
            error(
                431,
                "Request Header Fields Too Large",
                "request too large\n",
            ),
            true,
        ),
        Err(NoRequest::TimedOut) => (error(408, "Request Timeout", "request timeout\n"), true),
        Err(NoRequest::Closed) => return,
    };
    if write_within(&mut s, &answer, Instant::now() + limits.write_timeout).is_err() {
        return;
    }
    let _ = s.shutdown(Shutdown::Write);
    if linger {
        // The client may still be sending: read what comes for a moment, so that the close does
        // not reset the connection and lose the answer.
        let end = Instant::now() + LINGER;
        let mut buf = [0u8; 4096];
        let mut n = 0;
        while n < LINGER_BYTES {
            let left = end.saturating_duration_since(Instant::now());
            if left.is_zero() || s.set_read_timeout(Some(left)).is_err() {
                break;
            }
            match s.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(k) => n += k,
            }
        }
    }
}

/// Write all of `b` before `deadline` (each write waits only for what is left of it).
fn write_within(s: &mut TcpStream, mut b: &[u8], deadline: Instant) -> io::Result<()> {
    while !b.is_empty() {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::ErrorKind::TimedOut.into());
        }
        s.set_write_timeout(Some(left))?;
        match s.write(b) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(k) => b = &b[k..],
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Read a request's line and headers (up to the empty line), within the limits.
fn read_head(s: &mut TcpStream, limits: &Limits) -> Result<Vec<u8>, NoRequest> {
    let deadline = Instant::now() + limits.request_timeout;
    let mut buf = vec![0u8; limits.max_request.max(1)];
    let (mut n, mut searched) = (0usize, 0usize);
    loop {
        // Only the bytes read since the last look, and the 3 before them, can complete the end.
        if let Some(end) = head_end(&buf[searched.saturating_sub(3)..n]) {
            buf.truncate(searched.saturating_sub(3) + end);
            return Ok(buf);
        }
        searched = n;
        if n == buf.len() {
            return Err(NoRequest::TooLarge);
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() || s.set_read_timeout(Some(left)).is_err() {
            return Err(NoRequest::TimedOut);
        }
        match s.read(&mut buf[n..]) {
            Ok(0) => return Err(NoRequest::Closed),
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                return Err(NoRequest::TimedOut)
            }
            Err(_) => return Err(NoRequest::Closed),
        }
    }
}

/// Where a request's head ends (after its empty line: CRLF CRLF, or a bare LF LF).
fn head_end(b: &[u8]) -> Option<usize> {
    let crlf = b.windows(4).position(|w| w == b"\r\n\r\n").map(|i| i + 4);
    let lf = b.windows(2).position(|w| w == b"\n\n").map(|i| i + 2);
    match (crlf, lf) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// The answer to a request whose head is `head`: the metrics for `GET /metrics` (a query is
/// ignored), their headers alone for `HEAD`; 405 for another method, 404 for another path, 400
/// for what is not an HTTP/1 request line.
fn answer(head: &[u8], render: &Render) -> Vec<u8> {
    let line = head.split(|&b| b == b'\n').next().unwrap_or_default();
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let Ok(line) = std::str::from_utf8(line) else {
        return error(400, "Bad Request", "bad request\n");
    };
    let mut parts = line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return error(400, "Bad Request", "bad request\n");
    };
    if !version.starts_with("HTTP/1.") || method.is_empty() || !target.starts_with('/') {
        return error(400, "Bad Request", "bad request\n");
    }
    let head_only = method == "HEAD";
    if method != "GET" && !head_only {
        return response(
            405,
            "Method Not Allowed",
            "text/plain; charset=utf-8",
            "Allow: GET, HEAD\r\n",
            b"only GET\n",
            false,
        );
    }
    let path = target.split('?').next().unwrap_or(target);
    if path != "/metrics" {
        return error(404, "Not Found", "not found: the metrics are at /metrics\n");
    }
    let body = render();
    response(200, "OK", CONTENT_TYPE, "", body.as_bytes(), head_only)
}

fn error(status: u16, reason: &str, body: &str) -> Vec<u8> {
    response(
        status,
        reason,
        "text/plain; charset=utf-8",
        "",
        body.as_bytes(),
        false,
    )
}

/// An HTTP/1.1 answer that closes the connection (`head_only`: its headers alone, with the
/// length the body would have).
fn response(
    status: u16,
    reason: &str,
    content_type: &str,
    extra: &str,
    body: &[u8],
    head_only: bool,
) -> Vec<u8> {
    let mut out = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\
         Cache-Control: no-store\r\nConnection: close\r\n{extra}\r\n",
        body.len()
    )
    .into_bytes();
    if !head_only {
        out.extend_from_slice(body);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every line is a comment (`# TYPE`, `# UNIT`, `# HELP`, `# EOF` last) or a sample
    /// `name{labels} value` of the family declared last, whose name is the family's with the
    /// type's suffix; label values are escaped. The samples' names and values.
    fn parse(text: &str) -> Vec<(String, String, u64)> {
        let mut lines: Vec<&str> = text.split('\n').collect();
        assert_eq!(lines.pop(), Some(""), "ends with a newline");
        assert_eq!(lines.pop(), Some("# EOF"), "ends with # EOF");
        let mut fam: Option<(String, String)> = None;
        let mut seen = std::collections::BTreeSet::new();
        let mut out = Vec::new();
        for l in lines {
            if let Some(rest) = l.strip_prefix("# TYPE ") {
                let (name, t) = rest.split_once(' ').unwrap();
                assert!(seen.insert(name.to_string()), "family {name} twice");
                fam = Some((name.to_string(), t.to_string()));
                continue;
            }
            if l.starts_with("# HELP ") || l.starts_with("# UNIT ") {
                let name = l[7..].split(' ').next().unwrap();
                assert_eq!(Some(name), fam.as_ref().map(|f| f.0.as_str()), "{l}");
                continue;
            }
            assert!(!l.starts_with('#'), "{l}");
            let (name_labels, value) = l.rsplit_once(' ').unwrap();
            let value: u64 = value.parse().unwrap();
            let (name, labels) = match name_labels.split_once('{') {
                Some((n, rest)) => (n, rest.strip_suffix('}').unwrap()),
                None => (name_labels, ""),
            };
            let (f, t) = fam.as_ref().expect("a sample before any # TYPE");
            let want = match t.as_str() {
                "counter" => format!("{f}_total"),
                "info" => format!("{f}_info"),
                _ => f.clone(),
            };
            assert_eq!(name, want, "{l}");
            // Label values: between quotes, with only \\, \" and \n escapes.
            let mut chars = labels.chars().peekable();
            while chars.peek().is_some() {
                let key: String = chars.by_ref().take_while(|&c| c != '=').collect();
                assert!(is_name(&key), "{l}");
                assert_eq!(chars.next(), Some('"'), "{l}");
                loop {
                    match chars.next() {
                        Some('\\') => {
                            assert!(matches!(chars.next(), Some('\\' | '"' | 'n')), "{l}")
                        }
                        Some('"') => break,
                        Some('\n') | None => panic!("{l}"),
                        Some(_) => {}
                    }
                }
                assert!(matches!(chars.next(), Some(',') | None), "{l}");
            }
            out.push((name.to_string(), labels.to_string(), value));
        }
        out
    }

    #[test]
    fn label_values_and_help_are_escaped() {
        let mut s = String::new();
        escape("a\\b\"c\nd é", &mut s);
        assert_eq!(s, "a\\\\b\\\"c\\nd é");
        let mut e = Exposition::default();
        e.family(
            "x_bytes",
            Type::Counter,
            "bytes",
            "help with \\ and\nnewline and \"quotes\"",
        );
        e.sample(&[("app", "we\"ird\\\n"), ("master", "TLS")], 7);
        e.family("y", Type::Gauge, "", "a gauge");
        e.sample(&[], 3);
        let text = e.finish();
        assert_eq!(
            text,
            "# TYPE x_bytes counter\n# UNIT x_bytes bytes\n\
             # HELP x_bytes help with \\\\ and\\nnewline and \\\"quotes\\\"\n\
             x_bytes_total{app=\"we\\\"ird\\\\\\n\",master=\"TLS\"} 7\n\
             # TYPE y gauge\n# HELP y a gauge\ny 3\n# EOF\n"
        );
        assert_eq!(parse(&text).len(), 2);
    }

    #[test]
    fn a_live_run_before_its_first_packet() {
        let rules = Arc::new(Rules::builtin());
        let s = RunStats::live(rules);
        let text = s.render();
        let samples = parse(&text);
        let get = |n: &str| samples.iter().find(|s| s.0 == n).map(|s| s.2);
        assert_eq!(get("wirespeed_packets_total"), Some(0));
        assert_eq!(get("wirespeed_kernel_dropped_packets_total"), Some(0));
        assert_eq!(get("wirespeed_build_info"), Some(1));
        let reasons = samples
            .iter()
            .filter(|s| s.0 == "wirespeed_dropped_packets_total")
            .count();
        assert_eq!(reasons, DropReason::COUNT + 1);
        s.set_kernel(&KernelStats {
            packets: 5,
            drops: 2,
            freezes: 1,
        });
        assert!(s
            .render()
            .contains("\nwirespeed_kernel_dropped_packets_total 2\n"));
    }

    /// An inline run: the queues' verdicts and every rule's counters, rule names escaped.
    #[test]
    fn an_inline_run_names_its_rules() {
        let rules = Arc::new(Rules::builtin());
        let policy = wirespeed_act::Policy::from_toml(
            "[[rule]]\nname = 'no \"video\"'\napp = ['YouTube']\naction = 'drop'\n",
            rules.labels(),
        )
        .unwrap();
        let s = RunStats::inline(rules, PolicyCell::new(policy));
        s.queue_counters()
            .unwrap()
            .dropped
            .fetch_add(3, Ordering::Relaxed);
        let text = s.render();
        let samples = parse(&text);
        assert!(
            text.contains("wirespeed_inline_verdicts_total{verdict=\"dropped\"} 3\n"),
            "{text}"
        );
        assert!(
            samples.iter().any(
                |s| s.0 == "wirespeed_rule_packets_total" && s.1 == "rule=\"no \\\"video\\\"\""
            ),
            "{text}"
        );
        assert!(!text.contains("wirespeed_kernel_"));
    }

    fn ok_render() -> String {
        "# TYPE a counter\n# HELP a a\na_total 1\n# EOF\n".to_string()
    }

    fn status(answer: &[u8]) -> u16 {
        let t = String::from_utf8_lossy(answer);
        t.split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0)
    }

    #[test]
    fn requests_are_answered_by_method_and_path() {
        let r = &ok_render;
        let a = answer(
            b"GET /metrics HTTP/1.1\r\nHost: x\r\nAccept: */*\r\n\r\n",
            r,
        );
        let t = String::from_utf8(a).unwrap();
        assert!(t.starts_with("HTTP/1.1 200 OK\r\n"), "{t}");
        assert!(
            t.contains(&format!("Content-Type: {CONTENT_TYPE}\r\n")),
            "{t}"
        );
        assert!(
            t.contains(&format!("Content-Length: {}\r\n", ok_render().len())),
            "{t}"
        );
        assert!(
            t.ends_with("\r\n\r\n# TYPE a counter\n# HELP a a\na_total 1\n# EOF\n"),
            "{t}"
        );
        assert_eq!(status(&answer(b"GET /metrics?x=1 HTTP/1.0\n\n", r)), 200);
        let h = String::from_utf8(answer(b"HEAD /metrics HTTP/1.1\r\n\r\n", r)).unwrap();
        assert!(
            h.starts_with("HTTP/1.1 200") && h.ends_with("\r\n\r\n"),
            "{h}"
        );
        assert!(
            h.contains(&format!("Content-Length: {}\r\n", ok_render().len())),
            "{h}"
        );
        assert_eq!(status(&answer(b"GET / HTTP/1.1\r\n\r\n", r)), 404);
        assert_eq!(status(&answer(b"GET /metricsx HTTP/1.1\r\n\r\n", r)), 404);
        let p = String::from_utf8(answer(b"POST /metrics HTTP/1.1\r\n\r\n", r)).unwrap();
        assert!(
            p.starts_with("HTTP/1.1 405 ") && p.contains("Allow: GET, HEAD\r\n"),
            "{p}"
        );
        assert_eq!(status(&answer(b"DELETE / HTTP/1.1\r\n\r\n", r)), 405);
        for bad in [
            &b"\xff\xfe\x00garbage\r\n\r\n"[..],
            b"GET\r\n\r\n",
            b"GET /metrics\r\n\r\n",
            b"GET /metrics HTTP/2 extra\r\n\r\n",
            b"GET metrics HTTP/1.1\r\n\r\n",
            b"GET /metrics SPDY/3\r\n\r\n",
            b"",
        ] {
            assert_eq!(
                status(&answer(bad, r)),
                400,
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
    }

    /// Limits for a test server: requests of 8 KiB, a request time of `request_timeout`, at
    /// most `max_connections` at once, and a write time no machine overruns.
    fn limits(request_timeout: Duration, max_connections: usize) -> Limits {
        Limits {
            max_request: 8 << 10,
            request_timeout,
            write_timeout: Duration::from_secs(120),
            max_connections,
        }
    }

    /// An hour: the server never times a test's client out (what it answers does not depend
    /// on how fast the machine is).
    const NEVER: Duration = Duration::from_secs(3600);

    /// Send `req` to the server, then read its answer to the end (the read timeout is a
    /// failsafe: every answer comes at once, or at the server's own request timeout).
    fn exchange(addr: SocketAddr, req: &[u8]) -> String {
        let mut s = TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
        s.write_all(req).unwrap();
        let mut out = Vec::new();
        let _ = s.read_to_end(&mut out);
        String::from_utf8_lossy(&out).into_owned()
    }

    const GET: &[u8] = b"GET /metrics HTTP/1.1\r\nHost: t\r\n\r\n";

    /// More connection slots than the test ever opens connections, and no request timeout in
    /// the test's time: every answer is decided by what the client sent, never by the clock.
    #[test]
    fn the_server_survives_hostile_clients() {
        let srv =
            MetricsServer::start("127.0.0.1:0".parse().unwrap(), limits(NEVER, 64), ok_render)
                .unwrap();
        let addr = srv.local_addr();
        assert!(exchange(addr, GET).ends_with("a_total 1\n# EOF\n"));
        // Huge: 16 KiB of header without an end; answered 431 once 8 KiB are in.
        let mut huge = b"GET /metrics HTTP/1.1\r\nX: ".to_vec();
        huge.resize(16 << 10, b'a');
        assert!(exchange(addr, &huge).starts_with("HTTP/1.1 431 "));
        // Garbage, and a method other than GET.
        assert!(exchange(addr, b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\n\n")
            .starts_with("HTTP/1.1 400 "));
        assert!(exchange(addr, b"PUT /metrics HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 405 "));
        assert!(exchange(addr, b"GET /x HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 404 "));
        // A request in pieces, its end split between two of them (the pause only makes it
        // likely that the server reads them apart; either way the answer is the same).
        let mut s = TcpStream::connect(addr).unwrap();
        s.set_nodelay(true).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
        for piece in [&b"GET /metrics HTTP/1.1\r\nHost: t\r\n\r"[..], b"\n"] {
            s.write_all(piece).unwrap();
            std::thread::sleep(Duration::from_millis(50));
        }
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
        assert!(out.starts_with("HTTP/1.1 200 "), "{out}");
        // Slow: a request that never ends holds its connection, and meanwhile another client
        // is served (a server taking clients one at a time would not answer for an hour).
        let mut slow = TcpStream::connect(addr).unwrap();
        slow.write_all(b"GET /metr").unwrap();
        assert!(exchange(addr, GET).starts_with("HTTP/1.1 200 "));
        drop(slow);
        drop(srv);
        assert!(TcpStream::connect(addr).is_err(), "stopped when dropped");
    }

    /// A request that never ends is timed out (408) at the server's request timeout.
    #[test]
    fn a_request_that_never_ends_is_timed_out() {
        let srv = MetricsServer::start(
            "127.0.0.1:0".parse().unwrap(),
            limits(Duration::from_millis(200), 2),
            ok_render,
        )
        .unwrap();
        let mut slow = TcpStream::connect(srv.local_addr()).unwrap();
        slow.write_all(b"GET /metr").unwrap();
        slow.set_read_timeout(Some(Duration::from_secs(120)))
            .unwrap();
        let mut out = String::new();
        let _ = slow.read_to_string(&mut out);
        assert!(out.starts_with("HTTP/1.1 408 "), "{out}");
    }

    /// Connections past the limit are turned away at once (503, or closed before it is read);
    /// once the slots are given back, the next is served. The two connections that hold the
    /// slots are known to hold them: each is inside `render` when the third comes.
    #[test]
    fn connections_past_the_limit_are_turned_away() {
        use std::sync::mpsc;
        use std::sync::Mutex;
        let hold = Arc::new(AtomicBool::new(true));
        let (entered_tx, entered) = mpsc::channel::<()>();
        let (release, release_rx) = mpsc::channel::<()>();
        let (entered_tx, release_rx) = (Mutex::new(entered_tx), Arc::new(Mutex::new(release_rx)));
        let h = hold.clone();
        let render = move || {
            if h.load(Ordering::SeqCst) {
                let _ = entered_tx.lock().unwrap().send(());
                let _ = release_rx.lock().unwrap().recv();
            }
            ok_render()
        };
        let srv =
            MetricsServer::start("127.0.0.1:0".parse().unwrap(), limits(NEVER, 2), render).unwrap();
        let addr = srv.local_addr();
        // The server's first two connections: each takes a slot, then waits in `render`.
        let holders: Vec<_> = (0..2)
            .map(|_| std::thread::spawn(move || exchange(addr, GET)))
            .collect();
        for _ in 0..2 {
            entered
                .recv_timeout(Duration::from_secs(120))
                .expect("a request in render");
        }
        let out = exchange(addr, GET);
        assert!(out.is_empty() || out.starts_with("HTTP/1.1 503 "), "{out}");
        hold.store(false, Ordering::SeqCst);
        for _ in 0..2 {
            release.send(()).unwrap();
        }
        for t in holders {
            assert!(t.join().unwrap().starts_with("HTTP/1.1 200 "));
        }
        // Their threads give the slots back as they end: turned away until then, at most.
        let mut tries = 0;
        let out = loop {
            let out = exchange(addr, GET);
            tries += 1;
            if !(out.is_empty() || out.starts_with("HTTP/1.1 503 ")) || tries == 10_000 {
                break out;
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        assert!(
            out.starts_with("HTTP/1.1 200 "),
            "{out} after {tries} tries"
        );
    }
}
