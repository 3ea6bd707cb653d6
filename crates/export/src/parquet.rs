//! Parquet output (`--format parquet`, cargo feature `parquet`): the record's columns, typed.
//!
//! One file, many workers. [`ParquetFile::create`] opens the file and holds its one
//! `SerializedFileWriter`; each worker gets a [`ParquetSink`] ([`ParquetFile::sink`]) that
//! appends its records to Arrow builders and, every [`ParquetFile::create`]'s `rows_per_group`
//! records ([`ROW_GROUP_ROWS`] by default), encodes and compresses them into one row group *on
//! the worker's own thread*; only appending the finished column chunks to the file takes the
//! file's lock. So memory is bounded by the workers' builders (up to `rows_per_group` records
//! each) and the encoding of one row group per worker, never the run; and encoding runs in
//! parallel. Row groups of different workers follow each other in the order they are finished.
//!
//! A file is complete only once [`ParquetFile::finish`] has written its footer: until then it is
//! written as `NAME.partial` beside the target and renamed to the target after the footer is
//! written and synced. A run that fails (an error, a panic: [`ParquetFile`] dropped without
//! `finish`) removes the partial file; a process killed outright leaves `NAME.partial`, whose
//! name says so (a Parquet reader also refuses it: it has no footer). An existing target is
//! removed when the file is created, as `-o` truncates a JSON output: a failed run leaves no
//! file of that name. A target that is not a regular file (`/dev/null`, a pipe) is written in
//! place.
//!
//! Columns: the JSON record's ([`crate::FIELDS`] the [`Columns`] select, `source` and `pcap`
//! first), with the JSON record's values (numbers rounded as JSON writes them), typed: see
//! `docs/SCHEMA.md` ("Parquet") and [`schema`]. Compression: Snappy (pure Rust, a small build;
//! see DESIGN.md).

use crate::arrow::{append, schema, Cols};
use crate::format::Columns;
use crate::{FlowRecord, RecordSink};
use ::parquet::arrow::arrow_writer::{compute_leaves, ArrowRowGroupWriterFactory};
use ::parquet::arrow::ArrowWriter;
use ::parquet::basic::Compression;
use ::parquet::file::properties::WriterProperties;
use ::parquet::file::writer::SerializedFileWriter;
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::SchemaRef;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// Records per row group and worker by default: each worker holds up to this many records in
/// Arrow builders (about 0.65 KB a record with the default columns, 1.6 KB with every optional
/// group, measured as peak RSS: some 40 and 105 MB a worker) before it encodes them as one row
/// group.
pub const ROW_GROUP_ROWS: usize = 65_536;

/// What a finished file holds ([`ParquetFile::finish`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Written {
    /// Records written.
    pub records: u64,
    /// Row groups written.
    pub row_groups: u64,
    /// The file's size in bytes.
    pub bytes: u64,
    /// Where it is.
    pub path: PathBuf,
}

/// What the workers' sinks share: the file's writer behind a lock, and what makes a row group.
struct Shared {
    schema: SchemaRef,
    /// The kept columns' indices among those the groups select, which the sinks' builders
    /// fill ([`Columns::keep`] aside).
    keep: Option<Vec<usize>>,
    cols: Columns,
    rows_per_group: usize,
    factory: ArrowRowGroupWriterFactory,
    /// None once the file is finished or abandoned.
    file: Mutex<Option<SerializedFileWriter<File>>>,
    records: AtomicU64,
    row_groups: AtomicU64,
    /// Records a sink held when it was dropped without `finish`: never written.
    unflushed: AtomicU64,
    /// The target, and the file written until the footer is (the target itself when it is
    /// not a regular file).
    target: PathBuf,
    partial: PathBuf,
}

/// A Parquet error as an I/O error naming the file.
fn parquet_err(path: &Path, e: ::parquet::errors::ParquetError) -> io::Error {
    io::Error::other(format!("{}: {e}", path.display()))
}

impl Shared {
    /// Encode `arrays` (one row group) on this thread, then append it to the file.
    fn write_group(&self, arrays: Vec<ArrayRef>) -> io::Result<()> {
        let err = |e| parquet_err(&self.target, e);
        let arrays = crate::arrow::project(arrays, self.keep.as_deref());
        // Types checked once more, cheaply: a mismatch is a bug, and an error, not a bad file.
        let batch = RecordBatch::try_new(self.schema.clone(), arrays)
            .map_err(|e| io::Error::other(format!("parquet: {e}")))?;
        let rows = batch.num_rows() as u64;
        let mut writers = self.factory.create_column_writers(0).map_err(err)?;
        let mut w = writers.iter_mut();
        for (field, array) in self.schema.fields().iter().zip(batch.columns()) {
            for leaf in compute_leaves(field, array).map_err(err)? {
                let Some(cw) = w.next() else {
                    return Err(io::Error::other("parquet: more leaves than column writers"));
                };
                cw.write(&leaf).map_err(err)?;
            }
        }
        let chunks = writers
            .into_iter()
            .map(|w| w.close())
            .collect::<Result<Vec<_>, _>>()
            .map_err(err)?;
        let mut file = self
            .file
            .lock()
            .map_err(|_| io::Error::other("parquet: the file's lock is poisoned"))?;
        let Some(f) = file.as_mut() else {
            return Err(io::Error::other(format!(
                "{}: the Parquet file was already closed",
                self.target.display()
            )));
        };
        let mut g = f.next_row_group().map_err(err)?;
        for c in chunks {
            c.append_to_row_group(&mut g).map_err(err)?;
        }
        g.close().map_err(err)?;
        self.records.fetch_add(rows, Ordering::Relaxed);
        self.row_groups.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }
}

/// A Parquet file being written by several workers ([`ParquetFile::sink`]); complete only after
/// [`ParquetFile::finish`] (see the module's documentation).
pub struct ParquetFile {
    shared: Arc<Shared>,
    done: bool,
}

impl ParquetFile {
    /// Create the file at `path` for records with the columns `cols`, each worker writing a row
    /// group every `rows_per_group` records (at least 1). Written as `PATH.partial` until
    /// [`ParquetFile::finish`]; an existing regular file at `path` is removed.
    pub fn create(path: &Path, cols: Columns, rows_per_group: usize) -> io::Result<ParquetFile> {
        let named = |e: io::Error| io::Error::new(e.kind(), format!("{}: {e}", path.display()));
        // A device or a pipe (`/dev/null`) is written in place: it cannot be renamed onto.
        let regular = match std::fs::metadata(path) {
            Ok(m) => m.is_file(),
            Err(e) if e.kind() == io::ErrorKind::NotFound => true,
            Err(e) => return Err(named(e)),
        };
        let partial = if regular {
            let mut p = path.as_os_str().to_owned();
            p.push(".partial");
            PathBuf::from(p)
        } else {
            path.to_path_buf()
        };
        if regular {
            match std::fs::remove_file(path) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(named(e)),
            }
        }
        let file = File::create(&partial).map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("cannot create {}: {e}", partial.display()),
            )
        })?;
        let schema = schema(&cols);
        let props = WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .set_created_by(format!("wirespeed {}", env!("CARGO_PKG_VERSION")))
            .build();
        // ArrowWriter stores the Arrow schema in the footer (readers get the dictionaries and
        // the time zone back); its parts let each worker encode its own row groups.
        let (file, factory) = ArrowWriter::try_new(file, schema.clone(), Some(props))
            .and_then(|w| w.into_serialized_writer())
            .map_err(|e| parquet_err(path, e))?;
        Ok(ParquetFile {
            shared: Arc::new(Shared {
                schema,
                keep: crate::arrow::kept(&cols),
                cols,
                rows_per_group: rows_per_group.max(1),
                factory,
                file: Mutex::new(Some(file)),
                records: AtomicU64::new(0),
                row_groups: AtomicU64::new(0),
                unflushed: AtomicU64::new(0),
                target: path.to_path_buf(),
                partial,
            }),
            done: false,
        })
    }

    /// The schema the file is written with.
    pub fn schema(&self) -> SchemaRef {
        self.shared.schema.clone()
    }

    /// A sink for one worker (each worker needs its own).
    pub fn sink(&self) -> ParquetSink {
        ParquetSink {
            cols: Cols::new(&self.shared.cols, 0),
            rows: 0,
            scratch: Vec::with_capacity(64),
            shared: self.shared.clone(),
        }
    }

    /// Write the footer, sync the file and give it its name. Every sink must have been
    /// finished ([`RecordSink::finish`]); records a sink dropped unwritten make this an error
    /// (and the file is removed).
    pub fn finish(mut self) -> io::Result<Written> {
        let s = &self.shared;
        let unflushed = s.unflushed.load(Ordering::Relaxed);
        if unflushed > 0 {
            return Err(io::Error::other(format!(
                "{}: {unflushed} records were never written (a worker's sink was not finished)",
                s.target.display()
            )));
        }
        let w = s
            .file
            .lock()
            .map_err(|_| io::Error::other("parquet: the file's lock is poisoned"))?
            .take();
        let Some(w) = w else {
            return Err(io::Error::other(format!(
                "{}: the Parquet file was already closed",
                s.target.display()
            )));
        };
        let file = w.into_inner().map_err(|e| parquet_err(&s.target, e))?;
        let named = |e: io::Error| io::Error::new(e.kind(), format!("{}: {e}", s.target.display()));
        if s.partial != s.target {
            file.sync_all().map_err(named)?;
        }
        let bytes = file.metadata().map(|m| m.len()).unwrap_or(0);
        drop(file);
        if s.partial != s.target {
            std::fs::rename(&s.partial, &s.target).map_err(named)?;
        }
        self.done = true;
        Ok(Written {
            records: s.records.load(Ordering::Relaxed),
            row_groups: s.row_groups.load(Ordering::Relaxed),
            bytes,
            path: s.target.clone(),
        })
    }
}

impl Drop for ParquetFile {
    /// Not finished: the run failed. The writer is dropped without a footer and the partial
    /// file removed, so no file claims to be complete.
    fn drop(&mut self) {
        if self.done {
            return;
        }
        let s = &self.shared;
        if let Ok(mut f) = s.file.lock() {
            f.take();
        }
        if s.partial != s.target {
            let _ = std::fs::remove_file(&s.partial);
        }
    }
}

/// One worker's records on their way to a [`ParquetFile`]: Arrow builders, encoded as a row
/// group every `rows_per_group` records and at [`RecordSink::finish`].
pub struct ParquetSink {
    cols: Cols,
    rows: usize,
    scratch: Vec<u8>,
    shared: Arc<Shared>,
}

impl ParquetSink {
    fn flush(&mut self) -> io::Result<()> {
        if self.rows == 0 {
            return Ok(());
        }
        let arrays = self.cols.finish(0);
        self.rows = 0;
        self.shared.write_group(arrays)
    }
}

impl RecordSink for ParquetSink {
    fn write(&mut self, r: &FlowRecord<'_>) -> io::Result<()> {
        append(&mut self.cols, r, &mut self.scratch);
        self.rows += 1;
        if self.rows >= self.shared.rows_per_group {
            self.flush()?;
        }
        Ok(())
    }

    fn finish(&mut self) -> io::Result<()> {
        self.flush()
    }
}

impl Drop for ParquetSink {
    fn drop(&mut self) {
        if self.rows > 0 {
            self.shared
                .unflushed
                .fetch_add(self.rows as u64, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arrow::{column, Kind};
    use crate::tests::{labels, rec};
    use crate::META_FIELDS;
    use crate::{ActFields, DirDist, DirTcp, DistFields, JsonLinesWriter, TcpFields};
    use ::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    use arrow_array::cast::AsArray;
    use arrow_array::types::*;
    use arrow_array::Array;
    use arrow_schema::{DataType, TimeUnit};
    use serde_json::Value;
    use wirespeed_classify::Labels;
    use wirespeed_risk::RiskSet;

    const ALL: Columns = Columns::EVERY_GROUP;

    /// A path of this test process's own.
    fn temp(name: &str) -> PathBuf {
        std::env::temp_dir().join(format!("wirespeed-parquet-{}-{name}", std::process::id()))
    }

    /// An Arrow value as the JSON writer would spell it (timestamps as µs integers).
    fn json(a: &dyn Array, i: usize) -> Value {
        if a.is_null(i) {
            return Value::Null;
        }
        match a.data_type() {
            DataType::UInt8 => a.as_primitive::<UInt8Type>().value(i).into(),
            DataType::UInt16 => a.as_primitive::<UInt16Type>().value(i).into(),
            DataType::UInt32 => a.as_primitive::<UInt32Type>().value(i).into(),
            DataType::UInt64 => a.as_primitive::<UInt64Type>().value(i).into(),
            DataType::Int32 => a.as_primitive::<Int32Type>().value(i).into(),
            DataType::Float64 => a.as_primitive::<Float64Type>().value(i).into(),
            DataType::Boolean => a.as_boolean().value(i).into(),
            DataType::Utf8 => a.as_string::<i32>().value(i).into(),
            DataType::Timestamp(TimeUnit::Microsecond, _) => {
                a.as_primitive::<TimestampMicrosecondType>().value(i).into()
            }
            DataType::Dictionary(_, _) => {
                let d = a.as_dictionary::<Int32Type>();
                json(d.values().as_ref(), d.keys().value(i) as usize)
            }
            DataType::List(_) => {
                let l = a.as_list::<i32>().value(i);
                Value::Array((0..l.len()).map(|j| json(l.as_ref(), j)).collect())
            }
            t => panic!("no JSON for {t}"),
        }
    }

    /// Every record of a Parquet file as JSON objects, with its schema.
    fn read(path: &Path) -> (SchemaRef, Vec<serde_json::Map<String, Value>>, usize) {
        let b = ParquetRecordBatchReaderBuilder::try_new(File::open(path).unwrap()).unwrap();
        let groups = b.metadata().num_row_groups();
        let schema = b.schema().clone();
        let mut rows = Vec::new();
        for batch in b.build().unwrap() {
            let batch = batch.unwrap();
            for i in 0..batch.num_rows() {
                let mut m = serde_json::Map::new();
                for (f, c) in batch.schema().fields().iter().zip(batch.columns()) {
                    m.insert(f.name().clone(), json(c.as_ref(), i));
                }
                rows.push(m);
            }
        }
        (schema, rows, groups)
    }

    /// A record with every optional group set, as the CSV header test builds it.
    fn full(l: &Labels) -> FlowRecord<'_> {
        let mut r = rec(l);
        r.l4 = 253;
        r.tunnel = "VXLAN";
        r.tunnel_parent = Some(3);
        r.encrypted = true;
        r.risks = RiskSet::parse("Unidirectional Traffic;Known Proto on Non Std Port").unwrap();
        r.meta[0] = "www.example.com";
        r.meta[META_FIELDS
            .iter()
            .position(|f| *f == "http_status")
            .unwrap()] = "404";
        r.meta[META_FIELDS
            .iter()
            .position(|f| *f == "tls_version")
            .unwrap()] = "TLSv1.3";
        r.act = Some(ActFields {
            rule: "no,web",
            action: "drop",
            dropped_pkts: 3,
            dropped_bytes: 180,
            bound: true,
        });
        r.dist = Some(DistFields {
            c2s: DirDist {
                packets: 2,
                size_min: 60,
                size_mean: 80.5,
                size_max: 101,
                size_std: 20.123_456,
                gaps: 1,
                gap_min_us: 1500.0,
                gap_mean_us: 1500.0,
                gap_max_us: 1500.0,
                gap_std_us: 0.0,
                flags: [1, 0, 0, 0, 1, 0, 0, 0],
            },
            s2c: DirDist::default(),
        });
        r.tcp = Some(TcpFields {
            c2s: DirTcp {
                retrans: 1,
                retrans_bytes: 100,
                rtt_n: 2,
                rtt_min_us: 10_000,
                rtt_mean_us: 20_000.0,
                rtt_max_us: 30_000,
                rtt_std_us: 10_000.0,
                ttl: Some((64, 64)),
                mss: Some(1460),
                sack_ok: Some(true),
                ts_ok: Some(false),
                win_init: Some(64240),
                unique_bytes: 300,
                first_payload_us: Some(1000),
                last_payload_us: Some(2000),
                ..DirTcp::default()
            },
            s2c: DirTcp {
                ttl: Some((50, 52)),
                ..DirTcp::default()
            },
            hs_rtt_us: Some(10_500),
            close: "client_fin",
            history: *b"ShADTF\0\0\0\0\0\0\0\0\0\0\0\0\0\0",
            history_len: 6,
            conn_state: "S2",
        });
        r
    }

    /// The JSON line of `r` with `cols`, parsed.
    fn json_of(r: &FlowRecord<'_>, cols: Columns) -> serde_json::Map<String, Value> {
        let mut w = JsonLinesWriter::new(Vec::new(), cols.with_source).with_columns(cols);
        w.write(r).unwrap();
        let line = String::from_utf8(w.into_inner().unwrap()).unwrap();
        match serde_json::from_str(line.trim_end()).unwrap() {
            Value::Object(m) => m,
            v => panic!("{v}"),
        }
    }

    /// Parquet's value equals JSON's: the same number (JSON's float text against the rounded
    /// f64), text, list; a time in µs against JSON's seconds.
    fn same(name: &str, pq: &Value, js: &Value) -> bool {
        match (pq, js) {
            _ if name.ends_with("_ts") => {
                let (us, s) = (pq.as_i64().unwrap(), js.as_f64().unwrap());
                (s * 1e6).round() as i64 == us
            }
            (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
            _ => pq == js,
        }
    }

    #[test]
    fn every_column_has_a_type_and_a_record_fills_them_all() {
        for f in crate::FIELDS {
            let (k, _) = column(f);
            let text_ok =
                matches!(*f, "src_ip" | "dst_ip" | "community_id") || META_FIELDS.contains(f);
            assert!(k != Kind::Str || text_ok, "{f} has no type of its own");
        }
        let l = labels();
        // Every combination of the optional groups: the record fills exactly the schema.
        for bits in 0..128u32 {
            let on = |i: u32| bits & (1 << i) != 0;
            let cols = Columns {
                with_source: on(0),
                features: on(1),
                community: on(2),
                action: on(3),
                dist: on(4),
                tcp: on(5),
                tunnel_parent: on(6),
                keep: None,
            };
            let schema = schema(&cols);
            let mut b = Cols::new(&cols, 0);
            let mut scratch = Vec::new();
            append(&mut b, &full(&l), &mut scratch);
            append(&mut b, &rec(&l), &mut scratch);
            let arrays = b.finish(0);
            let batch = RecordBatch::try_new(schema.clone(), arrays).unwrap();
            assert_eq!(batch.num_rows(), 2);
            // The JSON record's keys (in FIELDS order, as the JSON writer's tests check).
            let keys: Vec<String> = json_of(&full(&l), cols).keys().cloned().collect();
            let mut names: Vec<String> = schema.fields().iter().map(|f| f.name().clone()).collect();
            let in_order = crate::FIELDS
                .iter()
                .filter(|f| names.contains(&f.to_string()));
            assert!(in_order
                .zip(names.iter().skip(2 * usize::from(cols.with_source)))
                .all(|(a, b)| a == b));
            names.sort();
            assert_eq!(names, keys);
        }
    }

    #[test]
    fn values_read_back_equal_the_json_records() {
        let l = labels();
        let path = temp("values.parquet");
        let file = ParquetFile::create(&path, ALL, 3).unwrap();
        let mut sink = file.sink();
        let records = [full(&l), rec(&l), full(&l), rec(&l)];
        for (i, r) in records.iter().enumerate() {
            let mut r = r.clone();
            r.flow_id = i as u64;
            sink.write(&r).unwrap();
        }
        sink.finish().unwrap();
        let w = file.finish().unwrap();
        assert_eq!((w.records, w.row_groups), (4, 2));
        assert!(!temp("values.parquet.partial").exists());
        let (schema, rows, groups) = read(&path);
        assert_eq!(groups, 2);
        assert_eq!(rows.len(), 4);
        for (i, r) in records.iter().enumerate() {
            let mut r = r.clone();
            r.flow_id = i as u64;
            let js = json_of(&r, ALL);
            let pq = &rows[i];
            assert_eq!(pq.len(), js.len());
            for (k, v) in &js {
                assert!(same(k, &pq[k], v), "{k}: parquet {} json {v}", pq[k]);
            }
        }
        // Types: labels are dictionaries, times timestamps in UTC.
        let t = |n: &str| schema.field_with_name(n).unwrap().data_type().clone();
        assert!(matches!(t("app"), DataType::Dictionary(_, _)));
        assert_eq!(
            t("first_ts"),
            DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()))
        );
        assert_eq!(t("flow_id"), DataType::UInt64);
        assert_eq!(t("src_port"), DataType::UInt16);
        assert_eq!(t("http_status"), DataType::UInt32);
        assert_eq!(t("encrypted"), DataType::Boolean);
        assert!(!schema.field_with_name("flow_id").unwrap().is_nullable());
        std::fs::remove_file(&path).unwrap();
    }

    /// Labels are looked up by id within their registry: a record of another registry, whose
    /// `--columns`: the file holds the kept columns, in the record's order, each with the
    /// values of the whole file's column of that name.
    #[test]
    fn kept_columns_are_the_whole_files() {
        let l = labels();
        let write = |cols: Columns, name: &str| {
            let path = temp(name);
            let file = ParquetFile::create(&path, cols, 100).unwrap();
            let mut sink = file.sink();
            for i in 0..3 {
                let mut r = rec(&l);
                r.flow_id = i;
                sink.write(&r).unwrap();
            }
            sink.finish().unwrap();
            file.finish().unwrap();
            let read = read(&path);
            std::fs::remove_file(&path).unwrap();
            read
        };
        let all = Columns {
            community: true,
            features: true,
            ..ALL
        };
        let keep = crate::Keep::of(["sni", "proto", "flow_id", "splt_ip", "community_id"]).unwrap();
        let (_, whole, _) = write(all, "whole.parquet");
        let (schema, kept, _) = write(
            Columns {
                keep: Some(keep),
                ..all
            },
            "kept.parquet",
        );
        let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
        assert_eq!(
            names,
            ["flow_id", "proto", "community_id", "splt_ip", "sni"]
        );
        assert_eq!(kept.len(), whole.len());
        for (k, w) in kept.iter().zip(&whole) {
            for (name, v) in k {
                assert_eq!(Some(v), w.get(name), "{name}");
            }
        }
    }

    /// id 1 is another label, gets its own names.
    #[test]
    fn labels_of_two_registries_keep_their_names() {
        let a = labels();
        let mut b = Labels::new();
        b.intern("DNS", "DNS", "Network", Default::default())
            .unwrap();
        b.intern("TLS", "Google", "Web", Default::default())
            .unwrap();
        let path = temp("registries.parquet");
        let file = ParquetFile::create(&path, Columns::default(), 100).unwrap();
        let mut sink = file.sink();
        let mut ra = rec(&a);
        ra.label = a.find("TLS", "Google", "Web").unwrap();
        let mut rb = rec(&b);
        rb.label = b.find("DNS", "DNS", "Network").unwrap();
        rb.fpc = None;
        assert_eq!(ra.label, rb.label, "the same id in both registries");
        for r in [&ra, &rb, &ra] {
            sink.write(r).unwrap();
        }
        sink.finish().unwrap();
        file.finish().unwrap();
        let (_, rows, _) = read(&path);
        let apps: Vec<&str> = rows.iter().map(|r| r["app"].as_str().unwrap()).collect();
        assert_eq!(apps, ["Google", "DNS", "Google"]);
        let protos: Vec<&str> = rows.iter().map(|r| r["proto"].as_str().unwrap()).collect();
        assert_eq!(protos, ["TLS.Google", "DNS", "TLS.Google"]);
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn workers_write_row_groups_into_one_file() {
        let l = labels();
        let path = temp("workers.parquet");
        std::fs::write(&path, b"an older file").unwrap();
        let file = ParquetFile::create(&path, Columns::default(), 100);
        let file = file.unwrap();
        assert!(!path.exists(), "the old file is gone once the run starts");
        std::thread::scope(|s| {
            for w in 0..4u64 {
                let mut sink = file.sink();
                let l = &l;
                s.spawn(move || {
                    for i in 0..250 {
                        let mut r = rec(l);
                        r.flow_id = w << 32 | i;
                        sink.write(&r).unwrap();
                    }
                    sink.finish().unwrap();
                });
            }
        });
        let w = file.finish().unwrap();
        // Each worker: two full groups of 100 and one of 50.
        assert_eq!((w.records, w.row_groups), (1000, 12));
        let (_, rows, groups) = read(&path);
        assert_eq!(groups, 12);
        let mut ids: Vec<u64> = rows
            .iter()
            .map(|r| r["flow_id"].as_u64().unwrap())
            .collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), 1000);
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn a_run_that_fails_leaves_no_file() {
        let l = labels();
        let path = temp("failed.parquet");
        let partial = temp("failed.parquet.partial");
        let file = ParquetFile::create(&path, Columns::default(), 2).unwrap();
        let mut sink = file.sink();
        for _ in 0..5 {
            sink.write(&rec(&l)).unwrap();
        }
        assert!(partial.exists() && !path.exists());
        // Dropped without finish: the run failed.
        drop(file);
        assert!(!partial.exists() && !path.exists());
        // The worker goes on writing: an error, not a file.
        assert!(sink.write(&rec(&l)).is_err());

        // A sink dropped with records it never wrote: finish refuses to call the file complete.
        let file = ParquetFile::create(&path, Columns::default(), 10).unwrap();
        let mut sink = file.sink();
        sink.write(&rec(&l)).unwrap();
        drop(sink);
        let e = file.finish().unwrap_err();
        assert!(
            e.to_string().contains("1 records were never written"),
            "{e}"
        );
        assert!(!partial.exists() && !path.exists());
    }
}
