//! IPFIX export (RFC 7011, 7012; biflows as RFC 5103; application ids as RFC 6759): over UDP,
//! over TCP, or to a file (RFC 5655: the messages one after another).
//!
//! Each worker's [`IpfixSink`] packs records into whole messages; one exporter thread
//! ([`Exporter::spawn`]) owns the socket or file, gives every message its export time and
//! sequence number (one observation domain for the whole run, however many workers), sends the
//! templates first — and again every refresh period on UDP, and after every reconnection on TCP
//! — and reconnects a TCP collector that went away, re-sending the message that failed (at
//! least once). Messages wait in a bounded queue: a file run waits for room (nothing is lost); a
//! live run ([`Options::lossy`]) drops a message that finds the queue full and counts its
//! records, so capture never waits on a collector.
//!
//! The elements are listed in `docs/IPFIX.md` and in [`encode::FIELDS_V4`].

pub mod encode;
#[cfg(test)]
mod tests;

pub use encode::IpfixSink;

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::net::{TcpStream, ToSocketAddrs, UdpSocket};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Where the messages go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// `udp://HOST:PORT`: a datagram per message.
    Udp(String),
    /// `tcp://HOST:PORT`: a stream of messages.
    Tcp(String),
    /// `file:PATH` or a plain path: the messages one after another (RFC 5655).
    File(PathBuf),
}

/// How the exporter runs: the target and the options its `?key=value` suffix sets.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// Where the messages go.
    pub target: Target,
    /// Observation domain id (`?domain=`; default 1).
    pub domain: u32,
    /// Largest message, bytes (`?mtu=`; default 1,400 on UDP, so a message is one unfragmented
    /// datagram on Ethernet paths; 65,535 on TCP and files).
    pub max_message: usize,
    /// UDP: templates re-sent this often (`?refresh=SECONDS`; default 60; RFC 7011 §8.4).
    pub refresh: Duration,
    /// UDP: at most this many data records a second (`?rate=`; 0, the default, is no limit).
    /// A collector's socket buffer overflows when a file run exports at full speed.
    pub rate: u64,
    /// Drop and count messages that find the queue full instead of waiting (live runs).
    pub lossy: bool,
    /// Messages the queue holds.
    pub queue: usize,
    /// TCP: how long a file run goes on trying to reach the collector before it fails.
    pub connect_for: Duration,
}

impl Options {
    /// Parse `udp://HOST:PORT[?k=v&…]`, `tcp://…` or `file:PATH` (a plain path is a file).
    pub fn parse(s: &str) -> Result<Options, String> {
        let (target, query) = if let Some(rest) = s.strip_prefix("udp://") {
            let (a, q) = split_query(rest);
            (Target::Udp(addr(a, s)?), q)
        } else if let Some(rest) = s.strip_prefix("tcp://") {
            let (a, q) = split_query(rest);
            (Target::Tcp(addr(a, s)?), q)
        } else {
            // Options follow a `file:` path only: a plain path may hold a '?'.
            let (p, q) = match s.strip_prefix("file:") {
                Some(rest) => split_query(rest),
                None => (s, None),
            };
            if p.is_empty() {
                return Err("--ipfix: an empty file name".into());
            }
            (Target::File(PathBuf::from(p)), q)
        };
        let udp = matches!(target, Target::Udp(_));
        let mut o = Options {
            target,
            domain: 1,
            max_message: if udp { 1400 } else { 65535 },
            refresh: Duration::from_secs(60),
            rate: 0,
            lossy: false,
            queue: 1024,
            connect_for: Duration::from_secs(30),
        };
        for kv in query.into_iter().flat_map(|q| q.split('&')) {
            let (k, v) = kv
                .split_once('=')
                .ok_or_else(|| format!("--ipfix {s}: `{kv}` is not key=value"))?;
            let num = |max: u64| -> Result<u64, String> {
                v.parse::<u64>()
                    .ok()
                    .filter(|&n| n <= max)
                    .ok_or_else(|| format!("--ipfix {s}: {k}={v} is not a number up to {max}"))
            };
            match k {
                "domain" => o.domain = num(u64::from(u32::MAX))? as u32,
                "mtu" => {
                    let n = num(65535)? as usize;
                    if n < 512 {
                        return Err(format!("--ipfix {s}: mtu={n} is below 512"));
                    }
                    o.max_message = n;
                }
                "refresh" => o.refresh = Duration::from_secs(num(86400)?.max(1)),
                "rate" => o.rate = num(u64::from(u32::MAX))?,
                _ => {
                    return Err(format!(
                        "--ipfix {s}: unknown option `{k}` (domain, mtu, refresh, rate)"
                    ))
                }
            }
        }
        Ok(o)
    }
}

fn split_query(s: &str) -> (&str, Option<&str>) {
    match s.split_once('?') {
        Some((a, q)) => (a, Some(q)),
        None => (s, None),
    }
}

fn addr(a: &str, whole: &str) -> Result<String, String> {
    if a.rsplit_once(':')
        .is_none_or(|(h, p)| h.is_empty() || p.parse::<u16>().is_err())
    {
        return Err(format!("--ipfix {whole}: expected HOST:PORT"));
    }
    Ok(a.to_string())
}

/// One message for the exporter: whole, with its version and length; time, sequence number and
/// domain are filled in when it is sent.
#[derive(Debug)]
pub struct Msg {
    /// The message.
    pub bytes: Vec<u8>,
    /// Data records in it (options data records included), for the sequence number.
    pub records: u32,
}

/// What the exporter did, for the run's summary.
#[derive(Debug, Default)]
pub struct Counters {
    /// Messages sent (templates aside).
    pub messages: AtomicU64,
    /// Data records sent.
    pub records: AtomicU64,
    /// Data records dropped: their message found the queue full (lossy runs), or could not be
    /// sent (a UDP send error).
    pub dropped: AtomicU64,
    /// Times the templates were sent.
    pub templates: AtomicU64,
    /// TCP reconnections.
    pub reconnects: AtomicU64,
}

/// The handle the workers' sinks send through (cheap to clone).
#[derive(Clone)]
pub struct Exporter {
    tx: crossbeam_channel::Sender<Msg>,
    /// Bumped each time the templates are (re-)sent, so sinks name their labels again.
    epoch: Arc<AtomicU64>,
    /// What went wrong, once the exporter thread has stopped on an error.
    failed: Arc<Mutex<Option<String>>>,
    lossy: bool,
    pub(crate) max_message: usize,
    /// The exporter's counters.
    pub counters: Arc<Counters>,
}

impl Exporter {
    /// Open the target and start the exporter thread, which ends when every clone of the
    /// returned handle is dropped, after sending what is queued; its result is the first error
    /// that stopped it.
    pub fn spawn(o: Options) -> io::Result<(Exporter, JoinHandle<io::Result<()>>)> {
        let out = Out::open(&o)?;
        let (tx, rx) = crossbeam_channel::bounded::<Msg>(o.queue.max(1));
        let exp = Exporter {
            tx,
            epoch: Arc::new(AtomicU64::new(0)),
            failed: Arc::new(Mutex::new(None)),
            lossy: o.lossy,
            max_message: o.max_message,
            counters: Arc::new(Counters::default()),
        };
        let mut t = Thread {
            o,
            out,
            seq: 0,
            templates: encode::templates_message(),
            sent_templates: None,
            epoch: exp.epoch.clone(),
            c: exp.counters.clone(),
            pace: Pace::default(),
            retry_at: None,
            backoff: Duration::from_millis(50),
        };
        let failed = exp.failed.clone();
        let h = std::thread::Builder::new()
            .name("ipfix".into())
            .spawn(move || {
                let r = t.run(rx);
                if let Err(e) = &r {
                    if let Ok(mut f) = failed.lock() {
                        *f = Some(e.to_string());
                    }
                }
                r
            })?;
        Ok((exp, h))
    }

    /// The template epoch: it changes when the templates are sent again.
    pub fn epoch(&self) -> u64 {
        self.epoch.load(Ordering::Relaxed)
    }

    /// Queue one message.
    pub fn send(&self, m: Msg) -> io::Result<()> {
        let records = u64::from(m.records);
        let r = if self.lossy {
            match self.tx.try_send(m) {
                Err(crossbeam_channel::TrySendError::Full(_)) => {
                    self.counters.dropped.fetch_add(records, Ordering::Relaxed);
                    Ok(())
                }
                Err(crossbeam_channel::TrySendError::Disconnected(_)) => Err(()),
                Ok(()) => Ok(()),
            }
        } else {
            self.tx.send(m).map_err(|_| ())
        };
        r.map_err(|()| {
            let why = self.failed.lock().ok().and_then(|f| f.clone());
            io::Error::other(format!(
                "IPFIX exporter stopped: {}",
                why.unwrap_or_else(|| "unknown error".into())
            ))
        })
    }
}

/// The open target.
enum Out {
    Udp(UdpSocket),
    Tcp(Option<TcpStream>),
    File(BufWriter<File>),
}

impl Out {
    fn open(o: &Options) -> io::Result<Out> {
        Ok(match &o.target {
            Target::Udp(a) => {
                let dst = a
                    .to_socket_addrs()?
                    .next()
                    .ok_or_else(|| io::Error::other(format!("{a}: no address")))?;
                let bind = if dst.is_ipv4() { "0.0.0.0:0" } else { "[::]:0" };
                let s = UdpSocket::bind(bind)?;
                s.connect(dst)?;
                Out::Udp(s)
            }
            // Connected on first use, so a collector that starts a little later is waited for.
            Target::Tcp(_) => Out::Tcp(None),
            Target::File(p) => Out::File(BufWriter::with_capacity(
                1 << 20,
                File::create(p).map_err(|e| {
                    io::Error::new(e.kind(), format!("cannot create {}: {e}", p.display()))
                })?,
            )),
        })
    }
}

/// A token bucket for `rate` records a second.
#[derive(Default)]
struct Pace {
    start: Option<Instant>,
    sent: u64,
}

impl Pace {
    fn wait(&mut self, rate: u64, records: u64) {
        if rate == 0 {
            return;
        }
        let start = *self.start.get_or_insert_with(Instant::now);
        self.sent += records;
        let due = Duration::from_secs_f64(self.sent as f64 / rate as f64);
        let now = start.elapsed();
        if due > now {
            std::thread::sleep(due - now);
        }
    }
}

struct Thread {
    o: Options,
    out: Out,
    seq: u32,
    templates: Vec<u8>,
    /// When the templates last went out on this transport session.
    sent_templates: Option<Instant>,
    epoch: Arc<AtomicU64>,
    c: Arc<Counters>,
    pace: Pace,
    /// Live runs: no try before this, after a failure.
    retry_at: Option<Instant>,
    backoff: Duration,
}

impl Thread {
    fn run(&mut self, rx: crossbeam_channel::Receiver<Msg>) -> io::Result<()> {
        // Templates first, even for a run with no record: the collector learns the exporter.
        self.deliver(None)?;
        for mut m in rx {
            self.pace.wait(self.o.rate, u64::from(m.records));
            self.deliver(Some(&mut m))?;
        }
        match &mut self.out {
            Out::File(f) => f.flush(),
            Out::Tcp(Some(s)) => s.flush(),
            _ => Ok(()),
        }
    }

    /// Fill in the header of `m` (export time, sequence number, domain).
    fn stamp(&self, m: &mut [u8]) {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as u32);
        m[4..8].copy_from_slice(&now.to_be_bytes());
        m[8..12].copy_from_slice(&self.seq.to_be_bytes());
        m[12..16].copy_from_slice(&self.o.domain.to_be_bytes());
    }

    /// Send `m` (None: only the templates, if due), templates first when due; on TCP, reconnect
    /// and send again until it goes through, or until `connect_for` runs out without a
    /// connection (live runs: [`Thread::deliver_or_drop`]).
    fn deliver(&mut self, mut m: Option<&mut Msg>) -> io::Result<()> {
        if self.o.lossy {
            return self.deliver_or_drop(m);
        }
        let mut failing_since: Option<Instant> = None;
        let mut backoff = Duration::from_millis(50);
        loop {
            match self.try_deliver(m.as_deref_mut()) {
                Ok(()) => return Ok(()),
                Err(e) if matches!(self.out, Out::Tcp(_)) => {
                    self.out = Out::Tcp(None);
                    self.sent_templates = None;
                    let since = *failing_since.get_or_insert_with(Instant::now);
                    if since.elapsed() >= self.o.connect_for {
                        return Err(io::Error::new(
                            e.kind(),
                            format!("IPFIX collector {}: {e}", self.target_name()),
                        ));
                    }
                    std::thread::sleep(backoff);
                    backoff = (backoff * 2).min(Duration::from_secs(2));
                }
                Err(_) if matches!(self.out, Out::Udp(_)) => {
                    // A datagram that could not be sent (no listener: ECONNREFUSED from an
                    // earlier datagram; a full buffer) is lost, as UDP is; count it and go on.
                    if let Some(m) = m {
                        self.c
                            .dropped
                            .fetch_add(u64::from(m.records), Ordering::Relaxed);
                        self.seq = self.seq.wrapping_add(m.records);
                    }
                    return Ok(());
                }
                Err(e) => {
                    return Err(io::Error::new(
                        e.kind(),
                        format!("IPFIX file {}: {e}", self.target_name()),
                    ))
                }
            }
        }
    }

    /// A live run's delivery: one try. A message that cannot be sent is dropped and counted;
    /// after a failure, messages are dropped without trying until the next retry is due (50 ms,
    /// doubling to 5 s), so a dead collector neither stalls the queue nor the end of the run.
    fn deliver_or_drop(&mut self, m: Option<&mut Msg>) -> io::Result<()> {
        let records = m.as_ref().map_or(0, |m| m.records);
        let waiting = self.retry_at.is_some_and(|t| Instant::now() < t);
        if !waiting {
            match self.try_deliver(m) {
                Ok(()) => {
                    self.retry_at = None;
                    self.backoff = Duration::from_millis(50);
                    return Ok(());
                }
                Err(_) => {
                    if matches!(self.out, Out::Tcp(_)) {
                        self.out = Out::Tcp(None);
                        self.sent_templates = None;
                    }
                    self.retry_at = Some(Instant::now() + self.backoff);
                    self.backoff = (self.backoff * 2).min(Duration::from_secs(5));
                }
            }
        }
        // Numbered as sent: the collector sees the loss as a gap in the sequence.
        self.seq = self.seq.wrapping_add(records);
        self.c
            .dropped
            .fetch_add(u64::from(records), Ordering::Relaxed);
        Ok(())
    }

    fn target_name(&self) -> String {
        match &self.o.target {
            Target::Udp(a) | Target::Tcp(a) => a.clone(),
            Target::File(p) => p.display().to_string(),
        }
    }

    fn try_deliver(&mut self, m: Option<&mut Msg>) -> io::Result<()> {
        if let (Out::Tcp(None), Target::Tcp(a)) = (&self.out, &self.o.target) {
            let s = TcpStream::connect(a.as_str())?;
            s.set_nodelay(true)?;
            if self.c.messages.load(Ordering::Relaxed) > 0 || self.sent_templates.is_some() {
                self.c.reconnects.fetch_add(1, Ordering::Relaxed);
            }
            self.out = Out::Tcp(Some(s));
        }
        let due = match (&self.out, self.sent_templates) {
            (_, None) => true,
            (Out::Udp(_), Some(t)) => t.elapsed() >= self.o.refresh,
            _ => false,
        };
        if due {
            let mut t = std::mem::take(&mut self.templates);
            self.stamp(&mut t);
            let r = self.write(&t);
            self.templates = t;
            r?;
            self.sent_templates = Some(Instant::now());
            self.epoch.fetch_add(1, Ordering::Relaxed);
            self.c.templates.fetch_add(1, Ordering::Relaxed);
        }
        if let Some(m) = m {
            self.stamp(&mut m.bytes);
            self.write(&m.bytes)?;
            self.seq = self.seq.wrapping_add(m.records);
            self.c.messages.fetch_add(1, Ordering::Relaxed);
            self.c
                .records
                .fetch_add(u64::from(m.records), Ordering::Relaxed);
        }
        Ok(())
    }

    fn write(&mut self, b: &[u8]) -> io::Result<()> {
        match &mut self.out {
            Out::Udp(s) => s.send(b).map(|_| ()),
            Out::Tcp(Some(s)) => s.write_all(b),
            Out::Tcp(None) => Err(io::ErrorKind::NotConnected.into()),
            Out::File(f) => f.write_all(b),
        }
    }
}
