//! `--kafka BROKERS/TOPIC` for `classify`, `live` and `inline`: every record as one message to a
//! Kafka topic (`wirespeed_export::kafka`, docs/KAFKA.md). Built only with the cargo feature
//! `kafka` (it compiles librdkafka); without it, `--kafka` is a clear error saying how to build
//! it in.

use wirespeed_export::{Columns, RecordSink};

/// The run's producer and the columns its messages carry.
#[cfg(feature = "kafka")]
pub(crate) type Kafka = Option<(std::sync::Arc<wirespeed_export::kafka::Producer>, Columns)>;

/// Without the feature there is never a producer.
#[cfg(not(feature = "kafka"))]
pub(crate) type Kafka = Option<std::convert::Infallible>;

/// Start the producer `--kafka` asks for; `lossy` for live and inline runs, which never wait on
/// a broker. `cols` (with `source`): the JSON records' columns.
#[cfg(feature = "kafka")]
pub(crate) fn start(target: Option<&str>, lossy: bool, cols: Columns) -> Result<Kafka, String> {
    let Some(t) = target else { return Ok(None) };
    let o = wirespeed_export::kafka::Options::parse(t, lossy)?;
    let p = wirespeed_export::kafka::Producer::start(&o)?;
    Ok(Some((p, cols)))
}

/// Without the feature: `--kafka` is an error saying how to build it in.
#[cfg(not(feature = "kafka"))]
pub(crate) fn start(target: Option<&str>, _lossy: bool, _cols: Columns) -> Result<Kafka, String> {
    match target {
        None => Ok(None),
        Some(_) => Err(NOT_BUILT.into()),
    }
}

/// The error of `--kafka` in a build without it.
#[cfg(not(feature = "kafka"))]
const NOT_BUILT: &str = "--kafka: this wirespeed was built without Kafka support; build it \
     with `cargo build --release --features kafka` (it compiles librdkafka; docs/KAFKA.md)";

/// A worker's sink to the producer, if there is one.
#[cfg(feature = "kafka")]
pub(crate) fn sink(k: &Kafka) -> Option<Box<dyn RecordSink + Send>> {
    k.as_ref().map(|(p, cols)| {
        let s = wirespeed_export::kafka::KafkaSink::new(p.clone(), cols.with_source, *cols);
        Box::new(s) as Box<dyn RecordSink + Send>
    })
}

/// Without the feature there is no Kafka sink.
#[cfg(not(feature = "kafka"))]
pub(crate) fn sink(k: &Kafka) -> Option<Box<dyn RecordSink + Send>> {
    k.as_ref().map(|never| match *never {})
}

/// Deliver what is queued (within the flush time) once the workers' sinks are gone, print the
/// `kafka:` line unless `quiet`, and return the records lost (said on standard error, quiet or
/// not: the run's exit status is 1 then).
#[cfg(feature = "kafka")]
pub(crate) fn finish(k: Kafka, quiet: bool) -> Result<u64, String> {
    let Some((p, _)) = k else { return Ok(0) };
    let r = p.finish();
    if !quiet {
        eprintln!(
            "kafka: {} records delivered to {}, {} failed, {} dropped with the queue full, {} \
             undelivered at the end; waited {} times for room in the queue, {} connection errors",
            r.delivered,
            p.target(),
            r.failed,
            r.dropped,
            r.undelivered,
            r.waited,
            r.errors
        );
    }
    let lost = r.lost();
    if lost > 0 {
        eprintln!(
            "wirespeed: {lost} Kafka records lost ({} failed, {} dropped, {} undelivered){}",
            r.failed,
            r.dropped,
            r.undelivered,
            r.last_error
                .map(|e| format!("; last error: {e}"))
                .unwrap_or_default()
        );
    }
    Ok(lost)
}

/// Without the feature nothing was sent.
#[cfg(not(feature = "kafka"))]
pub(crate) fn finish(k: Kafka, _quiet: bool) -> Result<u64, String> {
    Ok(k.map_or(0, |never| match never {}))
}
