//! `--kafka`, judged by a real Apache Kafka: a one-node broker in KRaft mode (broker and
//! controller in one JVM, `scripts/kafka/broker.sh`, its jars from Maven Central) started by
//! each test on free ports and a log folder of its own, read back with librdkafka's consumer.
//! The corpus's records all arrive, each message the JSON line of the run's `-o` file keyed by
//! its Community ID; and a broker killed (SIGTERM) in the middle of a run and started again on
//! the same log folder loses nothing (at least once: every record is in the topic).
//!
//! Built only with the cargo feature `kafka`:
//! `cargo test -p wirespeed --release --features kafka --test it -- kafka::`. Without java or mvn the
//! tests say SKIPPED and pass, except under CI=true, where they fail.
#![cfg(feature = "kafka")]

use std::collections::{BTreeMap, BTreeSet};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use wirespeed_export::kafka::rdkafka;

use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::{ClientConfig, Message, Offset, TopicPartitionList};

use crate::common::{bin, ok, temp, tools};

/// One broker at a time: each is a JVM of up to 1 GiB, and CI has two cores.
static ONE_BROKER: Mutex<()> = Mutex::new(());

/// The repository's `scripts/kafka/broker.sh`.
fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/kafka/broker.sh")
}

/// Are java and mvn here (SKIPPED, or a failure under CI=true, when not)? Then the broker's
/// jars, fetched once (Maven Central, cached between runs).
fn kafka_jars(test: &str) -> bool {
    if !tools(test, &["java", "mvn"]) {
        return false;
    }
    ok(Command::new("bash").arg(script()).arg("fetch"));
    true
}

/// A port nothing listens on now.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A broker, and what it takes to start it again on the same log folder.
struct Broker {
    child: Option<Child>,
    port: u16,
    cport: u16,
    dir: PathBuf,
}

impl Broker {
    /// A new broker on free ports with a new log folder, once it answers.
    fn start(name: &str) -> Broker {
        let dir = temp(name);
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut b = Broker {
            child: None,
            port: free_port(),
            cport: free_port(),
            dir,
        };
        b.run();
        b
    }

    /// `broker.sh run` (the script execs the JVM, so SIGTERM goes to the broker itself), then
    /// wait until it takes connections and answers a metadata request.
    fn run(&mut self) {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.dir.join("broker.log"))
            .unwrap();
        let child = Command::new("bash")
            .arg(script())
            .arg("run")
            .arg(self.port.to_string())
            .arg(&self.dir)
            .arg(self.cport.to_string())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .stdin(Stdio::null())
            .spawn()
            .unwrap();
        self.child = Some(child);
        let t0 = Instant::now();
        while TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            if let Some(st) = self.child.as_mut().unwrap().try_wait().unwrap() {
                panic!("the broker stopped ({st}):\n{}", self.log());
            }
            assert!(
                t0.elapsed() < Duration::from_secs(120),
                "the broker did not listen within 120 s:\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(200));
        }
        consumer(&self.addr())
            .fetch_metadata(None, Duration::from_secs(60))
            .unwrap_or_else(|e| panic!("the broker does not answer: {e}\n{}", self.log()));
        eprintln!(
            "kafka: broker on {} up in {:.1} s",
            self.addr(),
            t0.elapsed().as_secs_f64()
        );
    }

    fn addr(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("broker.log")).unwrap_or_default()
    }

    /// SIGTERM (a clean shutdown, as an operator's restart), and wait for the JVM to end.
    fn stop(&mut self) {
        let Some(mut c) = self.child.take() else {
            return;
        };
        let _ = Command::new("kill")
            .args(["-TERM", &c.id().to_string()])
            .status();
        let t0 = Instant::now();
        while c.try_wait().unwrap().is_none() {
            if t0.elapsed() > Duration::from_secs(60) {
                let _ = c.kill();
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = c.wait();
    }
}

impl Drop for Broker {
    /// Kill the broker; remove its log folder unless the test failed (its `broker.log` says why).
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// Remove a test's large files once it passed.
fn remove(files: &[&Path]) {
    for f in files {
        let _ = std::fs::remove_file(f);
    }
}

/// A consumer of the broker at `addr` (no group: partitions are assigned by hand).
fn consumer(addr: &str) -> BaseConsumer {
    ClientConfig::new()
        .set("bootstrap.servers", addr)
        .set("group.id", "wirespeed-test")
        .set("enable.auto.commit", "false")
        .set("auto.offset.reset", "earliest")
        .create()
        .unwrap()
}

/// Messages in the topic now (the sum of its partitions' high watermarks).
fn topic_size(c: &BaseConsumer, topic: &str) -> u64 {
    let Ok(md) = c.fetch_metadata(Some(topic), Duration::from_secs(5)) else {
        return 0;
    };
    let Some(t) = md.topics().first() else {
        return 0;
    };
    t.partitions()
        .iter()
        .filter_map(|p| {
            c.fetch_watermarks(topic, p.id(), Duration::from_secs(5))
                .ok()
        })
        .map(|(lo, hi)| (hi - lo).max(0) as u64)
        .sum()
}

/// Every message of `topic`: (key, value) pairs, read from each partition's beginning up to
/// the high watermark it had when the reading began.
fn read_topic(addr: &str, topic: &str) -> Vec<(Vec<u8>, Vec<u8>)> {
    let c = consumer(addr);
    let md = c
        .fetch_metadata(Some(topic), Duration::from_secs(120))
        .unwrap();
    let parts: Vec<i32> = md.topics()[0].partitions().iter().map(|p| p.id()).collect();
    assert!(!parts.is_empty(), "topic {topic} has no partition");
    let mut want = 0u64;
    let mut tpl = TopicPartitionList::new();
    for &p in &parts {
        let (lo, hi) = c
            .fetch_watermarks(topic, p, Duration::from_secs(120))
            .unwrap();
        want += (hi - lo).max(0) as u64;
        tpl.add_partition_offset(topic, p, Offset::Beginning)
            .unwrap();
    }
    c.assign(&tpl).unwrap();
    let mut out = Vec::with_capacity(want as usize);
    let t0 = Instant::now();
    while (out.len() as u64) < want {
        assert!(
            t0.elapsed() < Duration::from_secs(300),
            "read {} of {want} messages of {topic} in 300 s",
            out.len()
        );
        match c.poll(Duration::from_millis(500)) {
            Some(Ok(m)) => out.push((
                m.key().unwrap_or_default().to_vec(),
                m.payload().unwrap_or_default().to_vec(),
            )),
            Some(Err(e)) => panic!("consuming {topic}: {e}"),
            None => {}
        }
    }
    out
}

/// The `kafka:` line of a run's standard error, and its delivered, failed, dropped and
/// undelivered counts.
fn kafka_line(stderr: &str) -> (String, [u64; 4]) {
    let line = stderr
        .lines()
        .find(|l| l.starts_with("kafka: ") && l.contains("records delivered"))
        .unwrap_or_else(|| panic!("no kafka: line in\n{stderr}"))
        .to_string();
    let num = |after: &str| -> u64 {
        let i = line
            .find(after)
            .unwrap_or_else(|| panic!("{after}: {line}"));
        line[..i]
            .trim_end()
            .rsplit([' ', ','])
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    let n = [
        num(" records delivered"),
        num(" failed"),
        num(" dropped"),
        num(" undelivered"),
    ];
    (line, n)
}

/// A multiset.
fn counted<I: IntoIterator<Item = String>>(keys: I) -> BTreeMap<String, i64> {
    let mut m = BTreeMap::new();
    for k in keys {
        *m.entry(k).or_insert(0) += 1;
    }
    m
}

#[test]
fn every_corpus_record_arrives_as_its_json_line_keyed_by_community_id() {
    let Some(corpus) = wirespeed_testkit::corpus("kafka_corpus") else {
        return;
    };
    if !kafka_jars("kafka_corpus") {
        return;
    }
    let _one = ONE_BROKER.lock().unwrap_or_else(|e| e.into_inner());
    let broker = Broker::start("kafka-corpus");
    let json = temp("kafka-corpus.jsonl");
    let target = format!("{}/corpus", broker.addr());
    let run = bin()
        .args(["classify", "--community-id", "--kafka", &target, "-o"])
        .arg(&json)
        .arg(corpus.pcap_dir())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr).into_owned();
    // Exit 1: a damaged capture of the corpus; its good packets still count.
    assert!(run.status.code().is_some_and(|c| c <= 1), "{stderr}");
    assert!(!stderr.contains("Kafka records lost"), "{stderr}");
    let lines: Vec<String> = std::fs::read_to_string(&json)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    let (line, [delivered, failed, dropped, undelivered]) = kafka_line(&stderr);
    eprintln!("{line}");
    assert_eq!(delivered, lines.len() as u64, "{line}");
    assert_eq!([failed, dropped, undelivered], [0, 0, 0], "{line}");
    assert!(lines.len() > 7000, "{} records", lines.len());

    let msgs = read_topic(&broker.addr(), "corpus");
    assert_eq!(msgs.len(), lines.len(), "messages in the topic");
    // The same records, byte for byte: each message is a line of the JSON file.
    let ours = counted(lines.iter().cloned());
    let theirs = counted(
        msgs.iter()
            .map(|(_, v)| String::from_utf8(v.clone()).unwrap()),
    );
    if ours != theirs {
        let only: Vec<_> = ours
            .keys()
            .filter(|k| ours.get(*k) != theirs.get(*k))
            .take(5)
            .collect();
        panic!("the topic's messages differ from the JSON lines, e.g. {only:#?}");
    }
    // Keyed by the Community ID, or (ICMP) by the flow id.
    let mut by_community = 0;
    for (k, v) in &msgs {
        let r: serde_json::Value = serde_json::from_slice(v).unwrap();
        let k = std::str::from_utf8(k).unwrap();
        match r["community_id"].as_str() {
            Some(id) => {
                assert_eq!(k, id);
                by_community += 1;
            }
            None => assert_eq!(k, r["flow_id"].to_string()),
        }
    }
    eprintln!(
        "kafka: {} records in the topic, {by_community} keyed by Community ID, the rest by flow id",
        msgs.len()
    );
    assert!(by_community * 10 > msgs.len() * 9, "{by_community}");
    remove(&[&json]);
}

#[test]
fn a_broker_restart_in_the_middle_of_a_run_loses_no_record() {
    if !kafka_jars("kafka_restart") {
        return;
    }
    let _one = ONE_BROKER.lock().unwrap_or_else(|e| e.into_inner());
    // 100,000 flows, paced whatever the machine's speed: a queue of 2,000 messages, fewer than
    // a batch holds, so each batch goes when its 100 ms linger is over (about 20,000 records a
    // second): the run lasts 5 s at least. It is stopped (SIGSTOP) while the broker shuts down,
    // so it is still under way, and waiting on the broker, when it is down, however long the
    // shutdown takes. Waiting for room and the final flush may take 10 minutes, a message 15
    // (failsafes): a broker slow to start again on a loaded machine fails nothing.
    let pcap = temp("kafka-restart.pcap");
    ok(bin()
        .args(["gen", "worst-case", "--flows", "100000", "-o"])
        .arg(&pcap));
    let mut broker = Broker::start("kafka-restart");
    let json = temp("kafka-restart.jsonl");
    let target = format!(
        "{}/restart?queue.buffering.max.messages=2000&linger.ms=100&wait=600&flush=600\
         &message.timeout.ms=900000",
        broker.addr()
    );
    let err = temp("kafka-restart.stderr");
    let t_run = Instant::now();
    let mut run = bin()
        .args(["classify", "--kafka", &target, "-o"])
        .arg(&json)
        .arg(&pcap)
        .stderr(std::fs::File::create(&err).unwrap())
        .spawn()
        .unwrap();
    // Some records in the topic: the run is under way.
    let c = consumer(&broker.addr());
    let t0 = Instant::now();
    let mut before = 0;
    while before < 1000 {
        assert!(
            run.try_wait().unwrap().is_none(),
            "the run ended before the broker was stopped"
        );
        assert!(t0.elapsed() < Duration::from_secs(120), "no record arrived");
        std::thread::sleep(Duration::from_millis(20));
        before = topic_size(&c, "restart");
    }
    drop(c);
    let pid = run.id().to_string();
    let signal = |sig: &str| {
        assert!(Command::new("kill")
            .args([sig, &pid])
            .status()
            .unwrap()
            .success());
    };
    signal("-STOP");
    assert!(
        run.try_wait().unwrap().is_none(),
        "the run ended before the broker was stopped"
    );
    let t_stop = Instant::now();
    broker.stop();
    let down_at = t_stop.elapsed();
    signal("-CONT");
    // Down for a while (any while: the run goes on, and waits on the broker).
    std::thread::sleep(Duration::from_secs(2));
    broker.run();
    let down_for = t_stop.elapsed();
    let t0 = Instant::now();
    let status = loop {
        if let Some(s) = run.try_wait().unwrap() {
            break s;
        }
        if t0.elapsed() > Duration::from_secs(400) {
            let _ = run.kill();
            panic!("the run did not end within 400 s of the restart");
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let run_s = t_run.elapsed().as_secs_f64();
    let stderr = std::fs::read_to_string(&err).unwrap();
    let lines = std::fs::read_to_string(&json).unwrap();
    let flows: BTreeSet<u64> = lines
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["flow_id"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert_eq!(flows.len(), 100_000);
    assert!(status.success(), "{status}: {stderr}");
    let (line, [delivered, failed, dropped, undelivered]) = kafka_line(&stderr);
    eprintln!("{line}");
    assert_eq!(delivered, 100_000, "{line}");
    assert_eq!([failed, dropped, undelivered], [0, 0, 0], "{line}");
    let msgs = read_topic(&broker.addr(), "restart");
    let mut seen: BTreeMap<u64, u32> = BTreeMap::new();
    for (_, v) in &msgs {
        let r: serde_json::Value = serde_json::from_slice(v).unwrap();
        *seen.entry(r["flow_id"].as_u64().unwrap()).or_default() += 1;
    }
    let missing = flows.iter().filter(|f| !seen.contains_key(f)).count();
    let duplicates = msgs.len() - seen.len();
    eprintln!(
        "kafka restart: {} records in a run of {run_s:.1} s, {before} in the topic when the \
         broker was sent SIGTERM, stopped {:.1} s and answering again {:.1} s after that; {} \
         messages in the topic, {duplicates} duplicates, {missing} missing",
        flows.len(),
        down_at.as_secs_f64(),
        down_for.as_secs_f64(),
        msgs.len()
    );
    assert_eq!(missing, 0, "records lost");
    assert!(
        seen.keys().all(|f| flows.contains(f)),
        "a message of no record"
    );
    remove(&[&pcap, &json, &err]);
}

/// Bytes under the broker's log folder of `topic`'s partitions (compressed batches, indexes).
fn topic_bytes(b: &Broker, topic: &str) -> u64 {
    let Ok(rd) = std::fs::read_dir(b.dir.join("data")) else {
        return 0;
    };
    rd.flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .strip_prefix(topic)
                .is_some_and(|r| r.starts_with('-'))
        })
        .flat_map(|e| std::fs::read_dir(e.path()).into_iter().flatten().flatten())
        .filter(|f| f.path().extension().is_some_and(|x| x == "log"))
        .map(|f| f.metadata().map_or(0, |m| m.len()))
        .sum()
}

/// The benchmark of BENCHMARKS.md ("issue 23: Kafka"), not a test: one million worst-case
/// records through one local broker, against the same run writing JSON to a file. Run it with
/// `cargo test -p wirespeed --release --features kafka --test it -- kafka:: --ignored --nocapture`.
#[test]
#[ignore]
fn one_million_records_through_one_broker() {
    if !kafka_jars("kafka_million") {
        return;
    }
    let _one = ONE_BROKER.lock().unwrap_or_else(|e| e.into_inner());
    let pcap = temp("kafka-million.pcap");
    ok(bin()
        .args(["gen", "worst-case", "--flows", "1000000", "-o"])
        .arg(&pcap));
    let json = temp("kafka-million.jsonl");
    let t0 = Instant::now();
    ok(bin().args(["classify", "-q", "-o"]).arg(&json).arg(&pcap));
    let json_s = t0.elapsed().as_secs_f64();
    let json_bytes = std::fs::metadata(&json).unwrap().len();
    let _ = std::fs::remove_file(&json);
    let broker = Broker::start("kafka-million");
    for round in 1..=2 {
        let topic = format!("million{round}");
        let t0 = Instant::now();
        let run = ok(bin()
            .args(["classify", "--kafka", &format!("{}/{topic}", broker.addr())])
            .arg(&pcap));
        let s = t0.elapsed().as_secs_f64();
        let stderr = String::from_utf8_lossy(&run.stderr);
        let (line, [delivered, failed, dropped, undelivered]) = kafka_line(&stderr);
        let c = consumer(&broker.addr());
        let in_topic = topic_size(&c, &topic);
        eprintln!(
            "round {round}: {s:.2} s, {:.0} records/s; {line}; {in_topic} messages in the topic, \
             {} bytes on the broker's disk",
            delivered as f64 / s,
            topic_bytes(&broker, &topic)
        );
        assert_eq!([delivered, failed + dropped + undelivered], [1_000_000, 0]);
        assert_eq!(in_topic, 1_000_000);
    }
    eprintln!(
        "JSON to a file: {json_s:.2} s, {:.0} records/s, {json_bytes} bytes",
        1e6 / json_s
    );
    remove(&[&pcap]);
}
