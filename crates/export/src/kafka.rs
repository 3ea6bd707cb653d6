//! Kafka: every flow record as one message to a topic, its value the JSON line
//! [`crate::JsonLinesWriter`] writes (without the newline), its key the flow's Community ID
//! (docs/KAFKA.md).
//!
//! librdkafka (through `rdkafka`) batches, compresses, retries and keeps the idempotent
//! producer's order; its bounded queue is the sink's queue, and the thread of the
//! [`ThreadedProducer`] serves its delivery reports, which [`Counters`] add up. Each worker's
//! [`KafkaSink`] formats a record into a reused buffer and hands it to the run's one
//! [`Producer`], which copies it into the queue. A full queue makes a file run wait for room
//! (nothing is lost); a live run ([`Options::lossy`]) drops the record and counts it, so capture
//! never waits on a broker. [`Producer::finish`] flushes within a bounded time and says what was
//! delivered, failed, dropped or left undelivered.

/// The client crate, for tests and tools that read the topic back with the same build.
pub use rdkafka;

use crate::format::{record, Columns};
use crate::json::Json;
use crate::{FlowRecord, RecordSink};
use rdkafka::config::ClientConfig;
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::producer::{
    BaseRecord, DeliveryResult, Producer as _, ProducerContext, ThreadedProducer,
};
use rdkafka::ClientContext;
use std::io;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What each message is keyed by (the partitioner hashes the key: one key, one partition, in
/// order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Key {
    /// The flow's Community ID v1 (`1:` and base64, [`crate::community_id`]); for ICMP and
    /// ICMPv6, whose ID a record cannot give, its `flow_id` in decimal.
    Community,
    /// The flow's `flow_id` in decimal.
    FlowId,
    /// No key: librdkafka's partitioner spreads the messages at random.
    None,
}

/// The producer's settings: where the records go, what keys them, and librdkafka's properties.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// `bootstrap.servers`: brokers, comma-separated `HOST:PORT`.
    pub brokers: String,
    /// The topic.
    pub topic: String,
    /// What keys the messages (`?key=community|flow_id|none`; default the Community ID).
    pub key: Key,
    /// Drop and count records that find the queue full instead of waiting (live runs).
    pub lossy: bool,
    /// At the end, how long the producer may take to deliver what is queued (`?flush=SECONDS`).
    pub flush: Duration,
    /// Before the run, how long to wait for a broker to answer for the topic (`?connect=SECONDS`;
    /// `None` or 0: no check, as in live runs, which start whether or not Kafka is up).
    pub connect: Option<Duration>,
    /// File runs: how long a worker waits for room in a full queue while the brokers take no
    /// record (none delivered, none failed) before the run fails (`?wait=SECONDS`; default 60).
    pub wait: Duration,
    /// librdkafka's properties: the sink's defaults ([`DEFAULTS`]), then the `?name=value` of
    /// the command line, which override them.
    pub props: Vec<(String, String)>,
}

/// The sink's librdkafka settings before the command line's: every record acknowledged by all
/// in-sync replicas and written once per producer session (idempotence: retries neither
/// duplicate nor reorder), batches of up to 20 ms compressed with LZ4 (built into librdkafka:
/// no other C library), and a bounded queue of 100,000 messages or 128 MiB.
pub const DEFAULTS: [(&str, &str); 7] = [
    ("client.id", "wirespeed"),
    ("acks", "all"),
    ("enable.idempotence", "true"),
    ("compression.type", "lz4"),
    ("linger.ms", "20"),
    ("queue.buffering.max.messages", "100000"),
    ("queue.buffering.max.kbytes", "131072"),
];

impl Options {
    /// Parse `BROKERS/TOPIC[?name=value&…]`: brokers comma-separated, the topic's name, then
    /// `key`, `flush`, `connect`, `wait`, or any librdkafka producer property. `lossy` for live
    /// runs: a full queue drops, no broker is waited for at the start, and the flush time is
    /// 10 s instead of 30.
    pub fn parse(s: &str, lossy: bool) -> Result<Options, String> {
        let (target, query) = match s.split_once('?') {
            Some((t, q)) => (t, Some(q)),
            None => (s, None),
        };
        let usage = || format!("--kafka {s}: expected BROKERS/TOPIC, e.g. 127.0.0.1:9092/flows");
        let (brokers, topic) = target.split_once('/').ok_or_else(usage)?;
        if brokers.split(',').any(|b| b.trim().is_empty()) {
            return Err(usage());
        }
        // Kafka's own rule for topic names.
        let legal = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-');
        if topic.is_empty() || topic.len() > 249 || !topic.chars().all(legal) || topic == "." {
            return Err(format!(
                "--kafka {s}: `{topic}` is not a topic name (1 to 249 of a-z A-Z 0-9 . _ -)"
            ));
        }
        let mut o = Options {
            brokers: brokers.to_string(),
            topic: topic.to_string(),
            key: Key::Community,
            lossy,
            flush: Duration::from_secs(if lossy { 10 } else { 30 }),
            connect: (!lossy).then_some(Duration::from_secs(10)),
            wait: Duration::from_secs(60),
            props: DEFAULTS
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        };
        for kv in query.into_iter().flat_map(|q| q.split('&')) {
            let (k, v) = kv
                .split_once('=')
                .ok_or_else(|| format!("--kafka {s}: `{kv}` is not name=value"))?;
            let secs = || -> Result<Duration, String> {
                v.parse::<u32>()
                    .map(|n| Duration::from_secs(n.into()))
                    .map_err(|_| format!("--kafka {s}: {k}={v} is not a number of seconds"))
            };
            match k {
                "key" => {
                    o.key = match v {
                        "community" => Key::Community,
                        "flow_id" => Key::FlowId,
                        "none" => Key::None,
                        _ => {
                            return Err(format!(
                                "--kafka {s}: key={v}: expected community, flow_id or none"
                            ))
                        }
                    }
                }
                "flush" => o.flush = secs()?,
                "connect" => o.connect = Some(secs()?).filter(|d| !d.is_zero()),
                "wait" => o.wait = secs()?.max(Duration::from_secs(1)),
                "bootstrap.servers" | "metadata.broker.list" => {
                    return Err(format!("--kafka {s}: the brokers go before the `/`"))
                }
                _ if k.is_empty() => return Err(format!("--kafka {s}: `{kv}` has no name")),
                // librdkafka's own: checked when the producer is made.
                _ => o.props.push((k.to_string(), v.to_string())),
            }
        }
        Ok(o)
    }
}

/// What the producer did, added up from the workers' sends and the delivery reports.
#[derive(Debug, Default)]
pub struct Counters {
    /// Records taken into the producer's queue.
    pub queued: AtomicU64,
    /// Records the brokers acknowledged (`acks=all`: every in-sync replica has them).
    pub delivered: AtomicU64,
    /// Records whose delivery failed (timed out: `message.timeout.ms`, or refused by the
    /// broker), or that the producer refused for another reason than a full queue.
    pub failed: AtomicU64,
    /// Records dropped because the queue was full (lossy runs).
    pub dropped: AtomicU64,
    /// Times a worker found the queue full and waited for room (file runs).
    pub waited: AtomicU64,
    /// Errors librdkafka reported on its connections (a broker down, refused, unreachable).
    pub errors: AtomicU64,
}

/// The delivery reports and errors of the producer, counted.
struct Ctx {
    c: Arc<Counters>,
    /// The last error, for the summary.
    last_error: Mutex<Option<String>>,
}

impl Ctx {
    fn note(&self, e: String) {
        if let Ok(mut l) = self.last_error.lock() {
            *l = Some(e);
        }
    }
}

impl ClientContext for Ctx {
    // librdkafka's log lines (it also reports the errors among them through `error`): kept off
    // the run's standard error, which has its summary.
    fn log(&self, _level: rdkafka::config::RDKafkaLogLevel, _fac: &str, _msg: &str) {}

    fn error(&self, error: KafkaError, reason: &str) {
        self.c.errors.fetch_add(1, Relaxed);
        self.note(format!("{error}: {reason}"));
    }
}

impl ProducerContext for Ctx {
    type DeliveryOpaque = ();

    fn delivery(&self, r: &DeliveryResult<'_>, _: ()) {
        match r {
            Ok(_) => {
                self.c.delivered.fetch_add(1, Relaxed);
            }
            Err((e, _)) => {
                self.c.failed.fetch_add(1, Relaxed);
                self.note(format!("delivery failed: {e}"));
            }
        }
    }
}

/// What became of a run's records ([`Producer::finish`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// Acknowledged by the brokers.
    pub delivered: u64,
    /// Failed (delivery reports with an error, refusals).
    pub failed: u64,
    /// Dropped with the queue full (lossy runs).
    pub dropped: u64,
    /// Still queued when the flush time ran out (purged).
    pub undelivered: u64,
    /// Times a worker waited for room in the queue (file runs).
    pub waited: u64,
    /// Connection errors librdkafka reported.
    pub errors: u64,
    /// The last error, if any.
    pub last_error: Option<String>,
}

impl Report {
    /// Records that did not reach Kafka.
    pub fn lost(&self) -> u64 {
        self.failed + self.dropped + self.undelivered
    }
}

/// The run's producer, shared by the workers' sinks.
pub struct Producer {
    p: ThreadedProducer<Ctx>,
    topic: String,
    key: Key,
    lossy: bool,
    flush: Duration,
    wait: Duration,
    brokers: String,
    /// What it did so far.
    pub counters: Arc<Counters>,
}

impl Producer {
    /// Make the producer (librdkafka checks the properties: a misspelt one is an error naming
    /// it) and, when `connect` asks, wait that long for a broker to answer for the topic.
    pub fn start(o: &Options) -> Result<Arc<Producer>, String> {
        let mut cfg = ClientConfig::new();
        cfg.set("bootstrap.servers", &o.brokers);
        for (k, v) in &o.props {
            cfg.set(k, v);
        }
        let c = Arc::new(Counters::default());
        let ctx = Ctx {
            c: c.clone(),
            last_error: Mutex::new(None),
        };
        let p: ThreadedProducer<Ctx> = cfg
            .create_with_context(ctx)
            .map_err(|e| format!("--kafka: {e}"))?;
        if let Some(t) = o.connect {
            // A metadata request for the topic (which creates it where the brokers create
            // topics on first use).
            p.client().fetch_metadata(Some(&o.topic), t).map_err(|e| {
                format!(
                    "--kafka: no broker of {} answered for topic {} (waited at most {} s): {e}",
                    o.brokers,
                    o.topic,
                    t.as_secs()
                )
            })?;
        }
        Ok(Arc::new(Producer {
            p,
            topic: o.topic.clone(),
            key: o.key,
            lossy: o.lossy,
            flush: o.flush,
            wait: o.wait,
            brokers: o.brokers.clone(),
            counters: c,
        }))
    }

    /// The brokers and topic, as `BROKERS/TOPIC`.
    pub fn target(&self) -> String {
        format!("{}/{}", self.brokers, self.topic)
    }

    /// Records the brokers have answered for, delivered or failed: what makes room.
    fn answered(&self) -> u64 {
        self.counters.delivered.load(Relaxed) + self.counters.failed.load(Relaxed)
    }

    /// Queue one message; a full queue drops and counts (lossy runs) or waits (file runs),
    /// and fails when the brokers answer for no record for the wait time.
    fn send(&self, key: Option<&[u8]>, value: &[u8]) -> io::Result<()> {
        let mut rec: BaseRecord<'_, [u8], [u8]> = BaseRecord::to(&self.topic).payload(value);
        if let Some(k) = key {
            rec = rec.key(k);
        }
        // Since when nothing was answered, and how much had been.
        let mut stalled: Option<(Instant, u64)> = None;
        let mut pause = Duration::from_micros(200);
        loop {
            match self.p.send(rec) {
                Ok(()) => {
                    self.counters.queued.fetch_add(1, Relaxed);
                    return Ok(());
                }
                Err((KafkaError::MessageProduction(RDKafkaErrorCode::QueueFull), r)) => {
                    if self.lossy {
                        self.counters.dropped.fetch_add(1, Relaxed);
                        return Ok(());
                    }
                    let answered = self.answered();
                    match stalled {
                        None => {
                            self.counters.waited.fetch_add(1, Relaxed);
                            stalled = Some((Instant::now(), answered));
                        }
                        Some((_, a)) if a != answered => {
                            stalled = Some((Instant::now(), answered));
                        }
                        Some((t, _)) if t.elapsed() >= self.wait => {
                            return Err(io::Error::other(format!(
                                "Kafka {}: the brokers took no record for {} s{}",
                                self.target(),
                                self.wait.as_secs(),
                                self.last_error()
                                    .map(|e| format!(" (last error: {e})"))
                                    .unwrap_or_default()
                            )));
                        }
                        Some(_) => {}
                    }
                    // Room is made as the brokers acknowledge batches; the producer's thread
                    // serves those reports.
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_millis(10));
                    rec = r;
                }
                Err((e, _)) => {
                    self.counters.failed.fetch_add(1, Relaxed);
                    self.p.context().note(format!("not queued: {e}"));
                    return Ok(());
                }
            }
        }
    }

    /// The last error librdkafka reported, if any.
    fn last_error(&self) -> Option<String> {
        self.p
            .context()
            .last_error
            .lock()
            .ok()
            .and_then(|l| l.clone())
    }

    /// Deliver what is queued, waiting at most the flush time; what is left then is purged and
    /// counted as undelivered. Call once every sink is finished.
    pub fn finish(&self) -> Report {
        let flushed = self.p.flush(self.flush);
        let c = &self.counters;
        // Taken before the purge, which makes librdkafka report the purged messages as failed.
        let (delivered, failed) = (c.delivered.load(Relaxed), c.failed.load(Relaxed));
        let last_error = self.last_error();
        let undelivered = if flushed.is_err() {
            self.p
                .purge(rdkafka::producer::PurgeConfig::default().queue().inflight());
            c.queued.load(Relaxed).saturating_sub(delivered + failed)
        } else {
            0
        };
        Report {
            delivered,
            failed,
            dropped: c.dropped.load(Relaxed),
            undelivered,
            waited: c.waited.load(Relaxed),
            errors: c.errors.load(Relaxed),
            last_error,
        }
    }
}

/// A worker's sink: each record as one message, formatted into a reused buffer.
pub struct KafkaSink {
    p: Arc<Producer>,
    value: Vec<u8>,
    key: Vec<u8>,
    cols: Columns,
}

impl KafkaSink {
    /// A sink to `p`; `with_source` and `cols` as for [`crate::JsonLinesWriter`], whose line
    /// each message carries.
    pub fn new(p: Arc<Producer>, with_source: bool, cols: Columns) -> KafkaSink {
        KafkaSink {
            p,
            value: Vec::with_capacity(4096),
            key: Vec::with_capacity(32),
            cols: Columns {
                with_source,
                ..cols
            },
        }
    }
}

impl RecordSink for KafkaSink {
    fn write(&mut self, r: &FlowRecord<'_>) -> io::Result<()> {
        self.value.clear();
        record::<Json>(&mut self.value, r, &self.cols);
        // The line without its newline: a message needs no separator.
        if self.value.last() == Some(&b'\n') {
            self.value.pop();
        }
        self.key.clear();
        let key = match self.p.key {
            Key::None => None,
            k => {
                let community = k == Key::Community
                    && crate::community_id(
                        &mut self.key,
                        (r.src_ip, r.src_port),
                        (r.dst_ip, r.dst_port),
                        r.l4,
                    );
                if !community {
                    self.key
                        .extend_from_slice(itoa::Buffer::new().format(r.flow_id).as_bytes());
                }
                Some(&self.key[..])
            }
        };
        self.p.send(key, &self.value)
    }

    fn finish(&mut self) -> io::Result<()> {
        // The producer flushes once, for every sink, in `Producer::finish`.
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_brokers_topic_and_options() {
        let o = Options::parse("127.0.0.1:9092,[::1]:9093/flows.v1", false).unwrap();
        assert_eq!(o.brokers, "127.0.0.1:9092,[::1]:9093");
        assert_eq!(o.topic, "flows.v1");
        assert_eq!(o.key, Key::Community);
        assert_eq!(o.connect, Some(Duration::from_secs(10)));
        assert_eq!(o.props.len(), DEFAULTS.len());
        let live = Options::parse("k:9092/t", true).unwrap();
        assert!(live.lossy && live.connect.is_none());
        assert_eq!(live.flush, Duration::from_secs(10));
        let o = Options::parse(
            "k:9092/t?key=flow_id&flush=5&connect=0&compression.type=zstd&acks=1",
            false,
        )
        .unwrap();
        assert_eq!(o.key, Key::FlowId);
        assert_eq!(o.flush, Duration::from_secs(5));
        assert_eq!(o.connect, None);
        // The command line's properties come after the defaults, so they win.
        let tail: Vec<_> = o.props[DEFAULTS.len()..].to_vec();
        assert_eq!(
            tail,
            [
                ("compression.type".to_string(), "zstd".to_string()),
                ("acks".to_string(), "1".to_string())
            ]
        );
    }

    #[test]
    fn refuses_what_is_not_brokers_and_a_topic() {
        for bad in [
            "127.0.0.1:9092",
            "/flows",
            "a:1,,b:2/flows",
            "a:1/",
            "a:1/fl ows",
            "a:1/fl/ows",
            "a:1/.",
            "a:1/t?key=x",
            "a:1/t?flush=-1",
            "a:1/t?linger.ms",
            "a:1/t?=3",
            "a:1/t?bootstrap.servers=b:2",
        ] {
            assert!(Options::parse(bad, false).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_misspelt_property_is_an_error_naming_it() {
        let o = Options::parse("127.0.0.1:1/t?linger.mss=5&connect=0", false).unwrap();
        let e = Producer::start(&o).err().unwrap();
        assert!(e.contains("linger.mss"), "{e}");
    }

    #[test]
    fn a_full_queue_drops_in_lossy_runs_and_fails_a_file_run_that_stalls() {
        // One message fits; nothing listens on port 1, so it stays queued.
        let o = Options::parse("127.0.0.1:1/t?queue.buffering.max.messages=1&flush=0", true);
        let p = Producer::start(&o.unwrap()).unwrap();
        for _ in 0..3 {
            p.send(None, b"{}").unwrap();
        }
        let r = p.finish();
        assert_eq!((r.dropped, r.undelivered, r.lost()), (2, 1, 3), "{r:?}");
        let o = Options::parse(
            "127.0.0.1:1/t?queue.buffering.max.messages=1&flush=0&connect=0&wait=1",
            false,
        );
        let p = Producer::start(&o.unwrap()).unwrap();
        p.send(None, b"{}").unwrap();
        let t0 = Instant::now();
        let e = p.send(None, b"{}").unwrap_err();
        assert!(t0.elapsed() >= Duration::from_secs(1));
        assert!(e.to_string().contains("took no record for 1 s"), "{e}");
        assert_eq!(p.finish().waited, 1);
    }

    #[test]
    fn an_unreachable_broker_loses_records_and_says_so() {
        // Nothing listens on port 1: the records wait in the queue, then the flush time runs out.
        let o = Options::parse("127.0.0.1:1/t?connect=0&flush=1", false).unwrap();
        let p = Producer::start(&o).unwrap();
        p.send(Some(b"k"), b"{}").unwrap();
        p.send(None, b"{}").unwrap();
        let r = p.finish();
        assert_eq!(r.delivered, 0);
        assert_eq!(r.undelivered + r.failed, 2, "{r:?}");
        assert_eq!(r.lost(), 2);
    }
}
