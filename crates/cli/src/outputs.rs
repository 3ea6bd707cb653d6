//! Where records go: files or standard output ([`OutFile`], [`shared_out`]), the exporters
//! (IPFIX here, with [`crate::kafka_out`] and [`crate::parquet_out`]), a live run's lossy
//! outputs ([`LiveOutputs`], which `live` and `inline` share, and their `--events` output,
//! [`EventsOut`]), the metrics endpoint.

use crate::args::{EngineArgs, Format};
use crate::{guard, kafka_out, EXIT_PARTIAL};
use std::cell::RefCell;
use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;
use wirespeed_export::ipfix::{Exporter, IpfixSink};
use wirespeed_export::shared::{LossyWriter, SharedWriter};
use wirespeed_export::{Columns, CsvWriter, JsonLinesWriter, RecordSink, Tee};
use wirespeed_live::metrics::{MetricsServer, OutputCounters, RunStats};

/// `-o -`: standard output, as most tools read it.
pub(crate) fn stdout_path(path: Option<&Path>) -> Option<&Path> {
    path.filter(|p| p.as_os_str() != "-")
}

pub(crate) fn open_out(path: Option<&Path>) -> io::Result<Box<dyn Write>> {
    Ok(match stdout_path(path) {
        Some(p) => Box::new(OutFile::create(p)?),
        None => Box::new(io::stdout().lock()),
    })
}

/// An output file whose errors name it (`-o /proc/version`: "…/proc/version: Input/output
/// error", not the error alone). The error's kind is kept.
pub(crate) struct OutFile {
    path: PathBuf,
    file: File,
}

impl OutFile {
    pub(crate) fn create(p: &Path) -> io::Result<OutFile> {
        let file = File::create(p)
            .map_err(|e| io::Error::new(e.kind(), format!("cannot create {}: {e}", p.display())))?;
        Ok(OutFile {
            path: p.to_path_buf(),
            file,
        })
    }

    fn named(&self, e: io::Error) -> io::Error {
        io::Error::new(e.kind(), format!("{}: {e}", self.path.display()))
    }
}

impl Write for OutFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file.write(buf).map_err(|e| self.named(e))
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush().map_err(|e| self.named(e))
    }
}

/// The end of a run whose record output failed. A reader that closed the pipe (`| head`) ends
/// the run quietly, as other Unix tools do; any other failure is an error.
pub(crate) fn records_error(e: io::Error) -> Result<ExitCode, String> {
    if e.kind() == io::ErrorKind::BrokenPipe {
        Ok(ExitCode::SUCCESS)
    } else {
        Err(format!("writing records: {e}"))
    }
}

/// The file `--ipfix file:PATH` (or a plain path) writes, if that is its target.
fn ipfix_file(target: Option<&str>) -> Option<PathBuf> {
    match wirespeed_export::ipfix::Options::parse(target?)
        .ok()?
        .target
    {
        wirespeed_export::ipfix::Target::File(p) => Some(p),
        _ => None,
    }
}

/// A run's IPFIX exporter and its thread.
pub(crate) type Ipfix = Option<(Exporter, std::thread::JoinHandle<io::Result<()>>)>;

/// Start the IPFIX exporter `--ipfix` asks for; `lossy` for live and inline runs, which never
/// wait on a collector.
pub(crate) fn ipfix_start(target: Option<&str>, lossy: bool) -> Result<Ipfix, String> {
    let Some(t) = target else { return Ok(None) };
    let mut o = wirespeed_export::ipfix::Options::parse(t)?;
    o.lossy = lossy;
    Exporter::spawn(o)
        .map(Some)
        .map_err(|e| format!("--ipfix {t}: {e}"))
}

/// Refuse a run whose outputs (`--events`, `-o`, `--ipfix file:PATH`) include one of its
/// `inputs`, or the same file twice ([`guard::outputs_apart`]), before anything is opened.
pub(crate) fn check_apart(
    engine: &EngineArgs,
    output: Option<&Path>,
    ipfix: Option<&str>,
    inputs: &[&Path],
) -> Result<(), String> {
    let ipfix_file = ipfix_file(ipfix);
    let mut outputs = engine.outputs();
    outputs.extend(output.map(|p| ("-o", p)));
    outputs.extend(ipfix_file.as_deref().map(|p| ("--ipfix", p)));
    guard::outputs_apart(&outputs, inputs)
}

/// A worker's sink: the text records (None: not written) and each exporter's (IPFIX, Kafka),
/// all fed the same records.
pub(crate) fn with_exports(
    text: Option<Box<dyn RecordSink + Send>>,
    ipfix: &Ipfix,
    kafka: &kafka_out::Kafka,
) -> Box<dyn RecordSink + Send> {
    let x = ipfix
        .as_ref()
        .map(|(e, _)| Box::new(IpfixSink::new(e.clone())) as Box<dyn RecordSink + Send>);
    let mut sinks = text.into_iter().chain(x).chain(kafka_out::sink(kafka));
    let first = sinks
        .next()
        .unwrap_or_else(|| Box::new(wirespeed_export::NullSink::default()));
    sinks.fold(first, |a, b| Box::new(Tee(a, b)))
}

/// Wait for the exporter to send what is queued (every worker's sink must be dropped first),
/// and print its figures unless `quiet`; the records it dropped (said on standard error, quiet
/// or not: the run's exit status is 1 then).
pub(crate) fn ipfix_finish(ipfix: Ipfix, quiet: bool) -> Result<u64, String> {
    let Some((e, h)) = ipfix else { return Ok(0) };
    let c = e.counters.clone();
    drop(e);
    match h.join() {
        Ok(Ok(())) => {}
        Ok(Err(e)) => return Err(format!("--ipfix: {e}")),
        Err(_) => return Err("--ipfix: the exporter thread panicked".into()),
    }
    if !quiet {
        eprintln!("{}", ipfix_line(&c));
    }
    let dropped = c.dropped.load(std::sync::atomic::Ordering::Relaxed);
    if dropped > 0 {
        eprintln!("wirespeed: {dropped} IPFIX records dropped: the collector was down or slow");
    }
    Ok(dropped)
}

/// The exporter's figures, one line for the summary.
fn ipfix_line(c: &wirespeed_export::ipfix::Counters) -> String {
    use std::sync::atomic::Ordering::Relaxed;
    format!(
        "ipfix: {} data records in {} messages, templates sent {} times, {} records dropped, \
         {} reconnections",
        c.records.load(Relaxed),
        c.messages.load(Relaxed),
        c.templates.load(Relaxed),
        c.dropped.load(Relaxed),
        c.reconnects.load(Relaxed)
    )
}

/// Open the shared output; for CSV, write the header once, first.
pub(crate) fn shared_out(
    path: Option<&Path>,
    format: Format,
    with_source: bool,
    cols: Columns,
) -> io::Result<SharedWriter> {
    let out: Box<dyn Write + Send> = match stdout_path(path) {
        Some(p) => Box::new(OutFile::create(p)?),
        None => Box::new(io::stdout()),
    };
    let out = SharedWriter::new(out);
    if format == Format::Csv {
        CsvWriter::new(out.clone(), with_source)
            .with_columns(cols)
            .finish()?;
    }
    Ok(out)
}

pub(crate) fn shared_sink(
    format: Format,
    out: &SharedWriter,
    with_source: bool,
    cols: Columns,
) -> Box<dyn RecordSink + Send> {
    let w = out.clone();
    match format {
        Format::Json => Box::new(JsonLinesWriter::new(w, with_source).with_columns(cols)),
        Format::Csv => Box::new(CsvWriter::headerless(w, with_source).with_columns(cols)),
        Format::Parquet => unreachable!("Parquet records go through parquet_out's sinks"),
    }
}

/// How long after the stop a live run waits for its output to take the last records.
pub(crate) const LIVE_GRACE: std::time::Duration = std::time::Duration::from_secs(10);

/// What closing a live output came to ([`close_live_out`]).
pub(crate) struct Closed {
    /// The writer's first error, or the stall that made it be abandoned.
    write_error: Option<io::Error>,
    /// Records lost: dropped while the output did not keep up, and still queued at a stall.
    pub(crate) lost: u64,
    /// Records, and their bytes, dropped while the output did not keep up.
    pub(crate) dropped: u64,
    pub(crate) dropped_bytes: u64,
}

/// Close a live output once the workers' sinks are gone: the queue ends and the writer writes
/// what is left, unless the output is stalled, in which case it is abandoned after the grace
/// period and what it still holds is counted as lost.
fn close_live_out(lossy: LossyWriter, writer: std::thread::JoinHandle<io::Result<()>>) -> Closed {
    let (dropped, queued) = (lossy.dropped_records.clone(), lossy.queued_records.clone());
    let dropped_bytes = lossy.dropped_bytes.clone();
    drop(lossy);
    let t = Instant::now();
    while !writer.is_finished() && t.elapsed() < LIVE_GRACE {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let (write_error, stranded) = if writer.is_finished() {
        (writer.join().ok().and_then(|r| r.err()), 0)
    } else {
        let n = queued.load(Ordering::Relaxed);
        (
            Some(io::Error::other(format!(
                "the output is stalled: {n} records still queued are lost"
            ))),
            n,
        )
    };
    let dropped = dropped.load(Ordering::Relaxed);
    Closed {
        write_error,
        lost: dropped + stranded,
        dropped,
        dropped_bytes: dropped_bytes.load(Ordering::Relaxed),
    }
}

/// The live output and its writer thread (which returns the first write error).
pub(crate) type LiveOut = (LossyWriter, std::thread::JoinHandle<io::Result<()>>);

/// A live or inline worker's text sink on the run's lossy output (None: no text records).
/// Records name the interfaces as their `source` (no `pcap`): the columns `classify` writes.
fn live_text(
    w: Option<LossyWriter>,
    format: Format,
    cols: Columns,
) -> Option<Box<dyn RecordSink + Send>> {
    match (w?, format) {
        (w, Format::Json) => Some(Box::new(JsonLinesWriter::new(w, true).with_columns(cols))),
        (w, Format::Csv) => Some(Box::new(CsvWriter::headerless(w, true).with_columns(cols))),
        (_, Format::Parquet) => None,
    }
}

/// Open the live output (`-` or none: standard output) for a run that stops with `stop`.
fn lossy_out(
    path: Option<&Path>,
    format: Format,
    cols: Columns,
    stop: Arc<AtomicBool>,
) -> io::Result<LiveOut> {
    let mut out: Box<dyn Write + Send> = match stdout_path(path) {
        Some(p) => Box::new(OutFile::create(p)?),
        None => Box::new(io::stdout()),
    };
    if format == Format::Csv {
        out = CsvWriter::new(out, true).with_columns(cols).into_inner()?;
    }
    Ok(LossyWriter::new(out, stop, LIVE_GRACE))
}

/// Serve `stats` at `http://ADDR/metrics` and its live page at `http://ADDR/` (`--metrics`, or
/// `--http`, the same) until the server is dropped; says where on standard error unless `quiet`.
pub(crate) fn serve_metrics(
    addr: Option<std::net::SocketAddr>,
    stats: Option<&Arc<RunStats>>,
    quiet: bool,
) -> Result<Option<MetricsServer>, String> {
    let (Some(addr), Some(stats)) = (addr, stats) else {
        return Ok(None);
    };
    let stats = stats.clone();
    let server = MetricsServer::serve(addr, Default::default(), move |p| stats.route(p))
        .map_err(|e| format!("--metrics {addr}: {e}"))?;
    if !quiet {
        eprintln!("metrics: serving http://{}/metrics", server.local_addr());
        eprintln!("live page: serving http://{}/", server.local_addr());
    }
    Ok(Some(server))
}

/// The record outputs of a live or inline run, wired the same way for both: the JSON or CSV
/// records through a lossy queue ([`lossy_out`], opened once the capture is: [`Self::opener`]),
/// and the IPFIX and Kafka exporters, which never wait on a collector or broker.
pub(crate) struct LiveOutputs {
    /// The record output, once [`Self::opener`]'s function has opened it.
    out: Rc<RefCell<Option<LiveOut>>>,
    path: Option<PathBuf>,
    format: Format,
    cols: Columns,
    stop: Arc<AtomicBool>,
    /// The run's metrics, told of the output's counters once it is open.
    stats: Option<Arc<RunStats>>,
    ipfix: Ipfix,
    kafka: kafka_out::Kafka,
    /// JSON or CSV records too: with no exporter, or where `-o` sends them with one.
    text_too: bool,
}

impl LiveOutputs {
    /// Start the exporters (`--ipfix`, then `--kafka`) of a run that stops with `stop`, whose
    /// records have the columns `cols` and go to `path` (`-` or none: standard output).
    pub(crate) fn start(
        path: Option<&Path>,
        format: Format,
        cols: Columns,
        ipfix: Option<&str>,
        kafka: Option<&str>,
        stop: &Arc<AtomicBool>,
        stats: Option<&Arc<RunStats>>,
    ) -> Result<LiveOutputs, String> {
        let ipfix = ipfix_start(ipfix, true)?;
        let kafka_cols = Columns {
            with_source: true,
            ..cols
        };
        let kafka = kafka_out::start(kafka, true, kafka_cols)?;
        let text_too = (ipfix.is_none() && kafka.is_none()) || path.is_some();
        Ok(LiveOutputs {
            out: Rc::default(),
            path: path.map(Path::to_path_buf),
            format,
            cols,
            stop: stop.clone(),
            stats: stats.cloned(),
            ipfix,
            kafka,
            text_too,
        })
    }

    /// The function the run calls to open the record output: once the capture sockets (or
    /// queues) are open, so that no file is left behind by a run that could not open them, and
    /// before privileges are dropped.
    pub(crate) fn opener(&self) -> impl FnMut() -> io::Result<()> {
        let (slot, path, format, cols) =
            (self.out.clone(), self.path.clone(), self.format, self.cols);
        let (stop, stats) = (self.stop.clone(), self.stats.clone());
        move || -> io::Result<()> {
            let o = lossy_out(path.as_deref(), format, cols, stop.clone())?;
            if let Some(m) = &stats {
                m.set_output(OutputCounters::of(&o.0));
            }
            *slot.borrow_mut() = Some(o);
            Ok(())
        }
    }

    /// The workers' sinks: text records (if written) and each exporter's.
    pub(crate) fn sink(&self) -> impl FnMut(usize) -> Box<dyn RecordSink + Send> + '_ {
        move |_| {
            // Opened before the session that asks for sinks is built.
            let w = self
                .out
                .borrow()
                .as_ref()
                .map(|o| o.0.clone())
                .filter(|_| self.text_too);
            let sink = with_exports(
                live_text(w, self.format, self.cols),
                &self.ipfix,
                &self.kafka,
            );
            // The live page's newest risky flows, from the same records.
            match &self.stats {
                Some(s) => Box::new(Tee(sink, s.risk_tap())),
                None => sink,
            }
        }
    }

    /// Once the run is over (its workers' sinks gone): close the record output, then the
    /// exporters (their figures unless `quiet`). A run whose output was never opened ends with
    /// its error.
    pub(crate) fn finish<T>(self, run: &io::Result<T>, quiet: bool) -> Result<LiveEnd, String> {
        let LiveOutputs {
            out, ipfix, kafka, ..
        } = self;
        let Some((lossy, writer)) = out.borrow_mut().take() else {
            return Err(run
                .as_ref()
                .err()
                .map_or("the output was not opened".into(), |e| e.to_string()));
        };
        let closed = close_live_out(lossy, writer);
        let ipfix_dropped = ipfix_finish(ipfix, quiet)?;
        let kafka_lost = kafka_out::finish(kafka, quiet)?;
        Ok(LiveEnd {
            closed,
            ipfix_dropped,
            kafka_lost,
        })
    }
}

/// What a live or inline run's outputs came to ([`LiveOutputs::finish`]).
pub(crate) struct LiveEnd {
    pub(crate) closed: Closed,
    ipfix_dropped: u64,
    kafka_lost: u64,
}

impl LiveEnd {
    /// The run's end: an error if the records could not be written, exit 1 if records were
    /// lost (said on standard error) or an exporter lost some.
    pub(crate) fn exit(self) -> Result<ExitCode, String> {
        let lost = self.closed.lost;
        match self.closed.write_error {
            Some(e) => Err(format!("writing records: {e}")),
            // Every record is written or counted; any loss makes the exit non-zero.
            None if lost > 0 => {
                eprintln!("wirespeed: {lost} records lost because the output did not keep up");
                Ok(ExitCode::from(EXIT_PARTIAL))
            }
            None if self.ipfix_dropped + self.kafka_lost > 0 => Ok(ExitCode::from(EXIT_PARTIAL)),
            None => Ok(ExitCode::SUCCESS),
        }
    }
}

/// A live run's `--events` output ([`EngineArgs::live_config`]), owned by the command that
/// opened it, which closes it once the run is over ([`EventsOut::close`]). None for a run
/// without `--events` or over files (whose events are written under a lock, as its records).
#[derive(Default)]
#[must_use = "a live run's --events output is closed by its command (EventsOut::close)"]
pub(crate) struct EventsOut(pub(crate) Option<LiveOut>);

impl EventsOut {
    /// Close the output once the run is over (its workers, and their handles to it, are gone):
    /// what it holds is written, a stalled output abandoned after the grace period; events
    /// dropped because it did not keep up are reported.
    pub(crate) fn close(self) -> Result<ExitCode, String> {
        if let Some((lossy, writer)) = self.0 {
            let c = close_live_out(lossy, writer);
            if c.lost > 0 {
                eprintln!(
                    "wirespeed: --events: {} events lost because the output did not keep up",
                    c.lost
                );
            }
            if let Some(e) = c.write_error {
                return Err(format!("--events: {e}"));
            }
        }
        Ok(ExitCode::SUCCESS)
    }
}
