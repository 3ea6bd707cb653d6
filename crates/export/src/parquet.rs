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

use crate::format::{proto_label, Columns, Fmt};
use crate::{l4_name, FlowRecord, RecordSink, META_FIELDS, NUMERIC_META};
use ::parquet::arrow::arrow_writer::{compute_leaves, ArrowRowGroupWriterFactory};
use ::parquet::arrow::ArrowWriter;
use ::parquet::basic::Compression;
use ::parquet::file::properties::WriterProperties;
use ::parquet::file::writer::SerializedFileWriter;
use arrow_array::builder::{
    BooleanBuilder, Float64Builder, Int32Builder, ListBuilder, StringBuilder,
    TimestampMicrosecondBuilder, UInt16Builder, UInt32Builder, UInt64Builder, UInt8Builder,
};
use arrow_array::types::Int32Type;
use arrow_array::{ArrayRef, DictionaryArray, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};
use std::collections::HashMap;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use wirespeed_classify::Method;

/// Records per row group and worker by default: each worker holds up to this many records in
/// Arrow builders (about 0.65 KB a record with the default columns, 1.6 KB with every optional
/// group, measured as peak RSS: some 40 and 105 MB a worker) before it encodes them as one row
/// group.
pub const ROW_GROUP_ROWS: usize = 65_536;

/// The Arrow type of a column ([`schema`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    U8,
    U16,
    U32,
    U64,
    F64,
    Bool,
    /// Text of many values (addresses, names from packets).
    Str,
    /// Text of few values (labels, methods): dictionary-encoded (`Int32` keys).
    Dict,
    /// Microseconds since the epoch, UTC.
    Ts,
    ListI32,
    ListU32,
    ListU8,
}

impl Kind {
    fn data_type(self) -> DataType {
        let list = |t| DataType::List(Arc::new(Field::new_list_field(t, false)));
        match self {
            Kind::U8 => DataType::UInt8,
            Kind::U16 => DataType::UInt16,
            Kind::U32 => DataType::UInt32,
            Kind::U64 => DataType::UInt64,
            Kind::F64 => DataType::Float64,
            Kind::Bool => DataType::Boolean,
            Kind::Str => DataType::Utf8,
            Kind::Dict => DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8)),
            Kind::Ts => DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
            Kind::ListI32 => list(DataType::Int32),
            Kind::ListU32 => list(DataType::UInt32),
            Kind::ListU8 => list(DataType::UInt8),
        }
    }

    fn builder(self) -> Col {
        let list_field = |t| Arc::new(Field::new_list_field(t, false));
        match self {
            Kind::U8 => Col::U8(UInt8Builder::new()),
            Kind::U16 => Col::U16(UInt16Builder::new()),
            Kind::U32 => Col::U32(UInt32Builder::new()),
            Kind::U64 => Col::U64(UInt64Builder::new()),
            Kind::F64 => Col::F64(Float64Builder::new()),
            Kind::Bool => Col::Bool(BooleanBuilder::new()),
            Kind::Str => Col::Str(StringBuilder::new()),
            Kind::Dict => Col::Dict(DictCol::default()),
            Kind::Ts => Col::Ts(TimestampMicrosecondBuilder::new().with_timezone("UTC")),
            Kind::ListI32 => Col::ListI32(
                ListBuilder::new(Int32Builder::new()).with_field(list_field(DataType::Int32)),
            ),
            Kind::ListU32 => Col::ListU32(
                ListBuilder::new(UInt32Builder::new()).with_field(list_field(DataType::UInt32)),
            ),
            Kind::ListU8 => Col::ListU8(
                ListBuilder::new(UInt8Builder::new()).with_field(list_field(DataType::UInt8)),
            ),
        }
    }
}

/// Low-cardinality metadata written as dictionaries (the others are plain text).
const DICT_META: &[&str] = &[
    "alpn",
    "tls_version",
    "http_method",
    "quic_version",
    "ssh_client",
    "ssh_server",
    "http_upgrade",
    "http_content_type",
    "http_server",
    "http_flags",
    "tls_flags",
    "dns_flags",
    "payload_flags",
];

/// AtoZ features that are not whole numbers (the others are counts, a port, a protocol).
const ATOZ_FLOATS: [&str; 3] = ["atoz_avg_seg_s2c", "atoz_med_ip_c2s", "atoz_var_ip_s2c"];

/// A column's type and whether it can be null (where JSON can write `null`).
fn column(name: &str) -> (Kind, bool) {
    use Kind::*;
    // The per-direction groups: the same type for `c2s_` and `s2c_`.
    let dir = name
        .strip_prefix("c2s_")
        .or_else(|| name.strip_prefix("s2c_"));
    let stats_group = |f: &str| crate::DIST_FIELDS.contains(&f) || crate::TCP_FIELDS.contains(&f);
    if let Some(d) = dir.filter(|_| stats_group(name)) {
        let k = match d {
            "ps_min" | "ps_max" => U32,
            "ps_mean" | "ps_std" => F64,
            d if d.starts_with("piat_") => F64,
            "syn" | "fin" | "rst" | "psh" | "ack" | "urg" | "ece" | "cwr" => U32,
            "retrans" | "ooo" | "dup" | "rtt_n" | "rtt_min_us" | "rtt_max_us" | "zero_win" => U32,
            "retrans_bytes" | "unique_bytes" | "first_payload_us" | "last_payload_us" => U64,
            "rtt_mean_us" | "rtt_std_us" => F64,
            "ttl_min" | "ttl_max" | "wscale" => U8,
            "mss" | "win_init" => U16,
            "sack_ok" | "ts_ok" => Bool,
            _ => Str,
        };
        // The whole group is null for a record without it (not TCP, not computed).
        return (k, true);
    }
    if let Some(i) = META_FIELDS.iter().position(|f| *f == name) {
        let k = if NUMERIC_META & (1 << i) != 0 {
            U32
        } else if DICT_META.contains(&name) {
            Dict
        } else {
            Str
        };
        return (k, true);
    }
    if name.starts_with("atoz_") {
        return (
            if ATOZ_FLOATS.contains(&name) {
                F64
            } else {
                U32
            },
            true,
        );
    }
    match name {
        "source" => (Dict, false),
        "pcap" => (Dict, true),
        "flow_id" | "c2s_pkts" | "c2s_bytes" | "s2c_pkts" | "s2c_bytes" | "ttb_us" => (U64, false),
        "src_ip" | "dst_ip" => (Str, false),
        "src_port" | "dst_port" | "vlan" => (U16, false),
        "l4" | "end_reason" | "proto" | "app" | "master" | "category" => (Dict, false),
        "ip_proto" => (U8, false),
        "tunnel" | "ip_owner" | "method" | "fpc" | "fpc_method" | "risks" => (Dict, true),
        "first_ts" | "last_ts" => (Ts, false),
        "duration" | "confidence" => (F64, false),
        "ttb_pkts" | "risk_score" => (U32, false),
        "encrypted" => (Bool, false),
        "community_id" => (Str, true),
        "rule" | "action" => (Dict, true),
        "dropped_pkts" | "dropped_bytes" | "hs_rtt_us" => (U64, true),
        "bound" => (Bool, true),
        "tcp_close" | "history" | "conn_state" => (Dict, true),
        "splt_ip" | "splt_payload" => (ListI32, false),
        "splt_iat_us" => (ListU32, false),
        "splt_flags" => (ListU8, false),
        "stats_app" | "stats_class" => (Dict, true),
        "stats_score" => (F64, true),
        // A field added to FIELDS without a type here: text (the tests name it).
        _ => (Str, true),
    }
}

/// The names of the columns `cols` selects, in order: `source` and `pcap` (with
/// `cols.with_source`), then [`crate::FIELDS`] as [`Columns::writes`] selects them.
fn names(cols: &Columns) -> impl Iterator<Item = &'static str> + '_ {
    let source: &[&'static str] = if cols.with_source {
        &["source", "pcap"]
    } else {
        &[]
    };
    source
        .iter()
        .copied()
        .chain(crate::FIELDS.iter().copied().filter(|f| cols.writes(f)))
}

/// The Arrow schema of the records written with `cols`: the JSON record's fields in its order,
/// typed. Integers are unsigned integers of the record's width; `first_ts` and `last_ts`
/// timestamps (µs, UTC); `duration` and the other non-integers `Float64` (rounded to the
/// decimals JSON writes); labels and low-cardinality text dictionaries; `risks` text
/// (dictionary) in JSON's `;`-separated form; `splt_*` lists.
pub fn schema(cols: &Columns) -> SchemaRef {
    let fields: Vec<Field> = names(cols)
        .map(|n| {
            let (k, nullable) = column(n);
            Field::new(n, k.data_type(), nullable)
        })
        .collect();
    Arc::new(Schema::new(fields))
}

/// One column's builder.
enum Col {
    U8(UInt8Builder),
    U16(UInt16Builder),
    U32(UInt32Builder),
    U64(UInt64Builder),
    F64(Float64Builder),
    Bool(BooleanBuilder),
    Str(StringBuilder),
    Dict(DictCol),
    Ts(TimestampMicrosecondBuilder),
    ListI32(ListBuilder<Int32Builder>),
    ListU32(ListBuilder<UInt32Builder>),
    ListU8(ListBuilder<UInt8Builder>),
}

impl Col {
    /// `n` nulls.
    fn nulls(&mut self, n: usize) {
        match self {
            Col::U8(b) => b.append_nulls(n),
            Col::U16(b) => b.append_nulls(n),
            Col::U32(b) => b.append_nulls(n),
            Col::U64(b) => b.append_nulls(n),
            Col::F64(b) => b.append_nulls(n),
            Col::Bool(b) => b.append_nulls(n),
            Col::Str(b) => b.append_nulls(n),
            Col::Dict(b) => b.keys.append_nulls(n),
            Col::Ts(b) => b.append_nulls(n),
            Col::ListI32(b) => b.append_nulls(n),
            Col::ListU32(b) => b.append_nulls(n),
            Col::ListU8(b) => b.append_nulls(n),
        }
    }

    fn finish(&mut self) -> ArrayRef {
        match self {
            Col::U8(b) => Arc::new(b.finish()),
            Col::U16(b) => Arc::new(b.finish()),
            Col::U32(b) => Arc::new(b.finish()),
            Col::U64(b) => Arc::new(b.finish()),
            Col::F64(b) => Arc::new(b.finish()),
            Col::Bool(b) => Arc::new(b.finish()),
            Col::Str(b) => Arc::new(b.finish()),
            Col::Dict(b) => Arc::new(b.finish()),
            Col::Ts(b) => Arc::new(b.finish()),
            Col::ListI32(b) => Arc::new(b.finish()),
            Col::ListU32(b) => Arc::new(b.finish()),
            Col::ListU8(b) => Arc::new(b.finish()),
        }
    }
}

/// A dictionary column's builder: the keys, and each distinct value once per row group. A value
/// is looked up by the previous row's first, then by an id the caller has for it (a label's),
/// then by its hash: arrow's `StringDictionaryBuilder` hashes every value, which cost a quarter
/// of a record's time.
#[derive(Default)]
struct DictCol {
    keys: Int32Builder,
    values: StringBuilder,
    /// Key of each value (random seed: the values come from packets).
    index: HashMap<Box<str>, i32, foldhash::fast::RandomState>,
    /// Key by the caller's id (-1: not yet seen), for ids of `scope` (a label registry).
    by_id: Vec<i32>,
    scope: usize,
    /// The key appended last by value.
    last: Option<i32>,
}

impl DictCol {
    /// The bytes of value `k`.
    fn bytes(&self, k: i32) -> &[u8] {
        let o = self.values.offsets_slice();
        let k = k as usize;
        &self.values.values_slice()[o[k] as usize..o[k + 1] as usize]
    }

    /// The key of `s`, added to the values when new.
    fn key(&mut self, s: &str) -> i32 {
        if let Some(k) = self.last.filter(|&k| self.bytes(k) == s.as_bytes()) {
            return k;
        }
        let k = match self.index.get(s) {
            Some(&k) => k,
            None => {
                // At most one value a row, and a row group holds far fewer than 2^31 rows.
                let k = self.index.len() as i32;
                self.values.append_value(s);
                self.index.insert(s.into(), k);
                k
            }
        };
        self.last = Some(k);
        k
    }

    fn append(&mut self, s: &str) {
        let k = self.key(s);
        self.keys.append_value(k);
    }

    /// `s`, which the caller knows by `id` among the ids of `scope` (the same id, the same
    /// text).
    fn append_id(&mut self, scope: usize, id: usize, s: &str) {
        if scope != self.scope {
            self.by_id.clear();
            self.scope = scope;
        }
        let k = match self.by_id.get(id) {
            Some(&k) if k >= 0 => k,
            _ => {
                let k = self.key(s);
                if self.by_id.len() <= id {
                    self.by_id.resize(id + 1, -1);
                }
                self.by_id[id] = k;
                k
            }
        };
        self.keys.append_value(k);
    }

    fn finish(&mut self) -> ArrayRef {
        let keys = self.keys.finish();
        let values: ArrayRef = Arc::new(self.values.finish());
        self.index.clear();
        self.by_id.clear();
        self.last = None;
        match DictionaryArray::<Int32Type>::try_new(keys, values) {
            Ok(a) => Arc::new(a),
            Err(e) => panic!("parquet: a dictionary's keys index its values: {e}"),
        }
    }
}

/// A column's builder and the nulls it is owed: most optional values are absent (metadata, the
/// TCP analysis of a UDP flow), and counting them, to append them in one go before the next
/// value or at the end, costs a record a tenth of appending them one by one.
struct Builder {
    col: Col,
    nulls: usize,
}

impl Builder {
    fn new(k: Kind) -> Builder {
        Builder {
            col: k.builder(),
            nulls: 0,
        }
    }

    /// The column, its owed nulls appended.
    #[inline]
    fn col(&mut self) -> &mut Col {
        if self.nulls > 0 {
            self.col.nulls(self.nulls);
            self.nulls = 0;
        }
        &mut self.col
    }

    fn finish(&mut self) -> ArrayRef {
        self.col().finish()
    }
}

/// Appends one record's values to the builders, column after column.
struct Row<'a> {
    cols: &'a mut [Builder],
    at: usize,
}

impl Row<'_> {
    fn next(&mut self, what: &str) -> &mut Builder {
        let at = self.at;
        self.at += 1;
        match self.cols.get_mut(at) {
            Some(c) => c,
            None => panic!("parquet: {what} past the schema's {} columns", at),
        }
    }

    /// A null in the next column (of any type).
    fn null(&mut self) {
        self.next("a null").nulls += 1;
    }

    /// An unsigned integer (null when absent or too wide for the column).
    fn int(&mut self, v: Option<u64>) {
        let Some(v) = v else { return self.null() };
        let at = self.at;
        match self.next("an integer").col() {
            Col::U8(b) => b.append_option(u8::try_from(v).ok()),
            Col::U16(b) => b.append_option(u16::try_from(v).ok()),
            Col::U32(b) => b.append_option(u32::try_from(v).ok()),
            Col::U64(b) => b.append_value(v),
            _ => panic!("parquet: column {at} is not an integer"),
        }
    }

    fn float(&mut self, v: Option<f64>) {
        let Some(v) = v else { return self.null() };
        let at = self.at;
        match self.next("a number").col() {
            Col::F64(b) => b.append_value(v),
            _ => panic!("parquet: column {at} is not a number"),
        }
    }

    fn flag(&mut self, v: Option<bool>) {
        let Some(v) = v else { return self.null() };
        let at = self.at;
        match self.next("a boolean").col() {
            Col::Bool(b) => b.append_value(v),
            _ => panic!("parquet: column {at} is not a boolean"),
        }
    }

    /// Text; `None` is null.
    fn text(&mut self, v: Option<&str>) {
        let Some(v) = v else { return self.null() };
        let at = self.at;
        match self.next("text").col() {
            Col::Str(b) => b.append_value(v),
            Col::Dict(b) => b.append(v),
            _ => panic!("parquet: column {at} is not text"),
        }
    }

    /// Text the caller knows by an id among those of `scope` (a label, a protocol number): looked
    /// up by the id in a dictionary column.
    fn text_id(&mut self, scope: usize, id: usize, v: &str) {
        let at = self.at;
        match self.next("text").col() {
            Col::Dict(b) => b.append_id(scope, id, v),
            Col::Str(b) => b.append_value(v),
            _ => panic!("parquet: column {at} is not text"),
        }
    }

    /// Text that is absent when empty (JSON's `opt_str`).
    fn opt(&mut self, v: &str) {
        self.text((!v.is_empty()).then_some(v));
    }

    fn ts(&mut self, ns: u64) {
        let at = self.at;
        match self.next("a time").col() {
            Col::Ts(b) => b.append_value((ns / 1000) as i64),
            _ => panic!("parquet: column {at} is not a timestamp"),
        }
    }

    /// The next column, a list.
    fn list(&mut self) -> &mut Col {
        self.next("a list").col()
    }
}

/// `Fmt::conf`'s value: two decimals, half away from zero, in [0, 1].
fn conf(c: f32) -> f64 {
    let c = if c.is_finite() {
        c.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let hundredths = (f64::from(c * 100.0) + 0.5) as u32;
    f64::from(hundredths) / 100.0
}

/// `Fmt::fixed3`'s value: three decimals, half up; not finite or negative as 0.
fn fixed3(v: f64) -> f64 {
    let v = if v.is_finite() && v > 0.0 { v } else { 0.0 };
    let t = (v * 1000.0 + 0.5).min(9.0e15) as u64;
    t as f64 / 1000.0
}

/// A text metadata value that is a number on the wire (`Syntax::opt_num`): the number, or
/// absent.
fn meta_num(s: &str) -> Option<u64> {
    if !s.is_empty() && s.len() <= 10 && s.bytes().all(|c| c.is_ascii_digit()) {
        s.parse().ok()
    } else {
        None
    }
}

/// The text `scratch` holds (built from valid UTF-8 by the writers).
fn as_text(scratch: &[u8]) -> &str {
    std::str::from_utf8(scratch).unwrap_or_default()
}

/// One record into the builders, in [`names`] order, with the values JSON writes.
fn append(cols: &mut [Builder], r: &FlowRecord<'_>, c: &Columns, scratch: &mut Vec<u8>) {
    let mut row = Row { cols, at: 0 };
    if c.with_source {
        row.text(Some(r.source.unwrap_or("")));
        row.opt(r.pcap.unwrap_or(""));
    }
    row.int(Some(r.flow_id));
    scratch.clear();
    Fmt::ip(scratch, &r.src_ip);
    row.text(Some(as_text(scratch)));
    row.int(Some(r.src_port.into()));
    scratch.clear();
    Fmt::ip(scratch, &r.dst_ip);
    row.text(Some(as_text(scratch)));
    row.int(Some(r.dst_port.into()));
    match l4_name(r.l4) {
        Some(n) => row.text_id(L4_IDS, r.l4.into(), n),
        None => {
            scratch.clear();
            Fmt::int(scratch, r.l4);
            row.text_id(L4_IDS, r.l4.into(), as_text(scratch));
        }
    }
    row.int(Some(r.l4.into()));
    row.int(Some(r.vlan.into()));
    row.opt(r.tunnel);
    row.ts(r.first_ts_ns);
    row.ts(r.last_ts_ns);
    let us = r.last_ts_ns.saturating_sub(r.first_ts_ns) / 1000;
    row.float(Some(us as f64 / 1e6));
    row.int(Some(r.c2s_pkts));
    row.int(Some(r.c2s_bytes));
    row.int(Some(r.s2c_pkts));
    row.int(Some(r.s2c_bytes));
    row.text(Some(r.end_reason.as_str()));
    // Labels by their id in the run's registry.
    let labels = std::ptr::from_ref(r.labels) as usize;
    let (label, id) = (r.label_names(), r.label.index());
    proto(&mut row, scratch, labels, Some((id, label)));
    row.text_id(labels, id, label.app());
    row.text_id(labels, id, label.master());
    row.text_id(labels, id, label.category());
    row.opt(r.ip_owner);
    row.opt(r.method.map_or("", Method::as_str));
    row.float(Some(conf(r.confidence)));
    row.int(Some(r.ttb_pkts.into()));
    row.int(Some(r.ttb_us));
    let fpc = r.fpc.map(|(l, _)| (l.index(), r.labels.get(l)));
    proto(&mut row, scratch, labels, fpc);
    row.opt(r.fpc.map_or("", |f| f.1.as_str()));
    row.flag(Some(r.encrypted));
    scratch.clear();
    for (i, k) in r.risks.iter().enumerate() {
        if i > 0 {
            scratch.push(b';');
        }
        scratch.extend_from_slice(k.name().as_bytes());
    }
    row.opt(as_text(scratch));
    row.int(Some(r.risks.score().into()));
    if c.community {
        scratch.clear();
        let defined = crate::community_id(
            scratch,
            (r.src_ip, r.src_port),
            (r.dst_ip, r.dst_port),
            r.l4,
        );
        row.text(defined.then(|| as_text(scratch)));
    }
    if c.action {
        let a = r.act.as_ref();
        row.text(a.map(|a| a.rule));
        row.text(a.map(|a| a.action));
        row.int(a.map(|a| a.dropped_pkts));
        row.int(a.map(|a| a.dropped_bytes));
        row.flag(a.map(|a| a.bound));
    }
    if c.dist {
        dist(&mut row, r);
    }
    if c.tcp {
        tcp(&mut row, r);
    }
    if c.features {
        features(&mut row, r);
    }
    // The model did not run: all three absent.
    row.opt(r.stats_app);
    row.opt(r.stats_class);
    row.float((!r.stats_app.is_empty()).then(|| conf(r.stats_score)));
    for (i, v) in r.meta.iter().enumerate() {
        if NUMERIC_META & (1 << i) != 0 {
            row.int(meta_num(v));
        } else {
            row.opt(v);
        }
    }
    debug_assert_eq!(
        row.at,
        row.cols.len(),
        "parquet: a record fills every column"
    );
}

/// `MASTER.APP` (or `APP`) of a label (its id among `labels`' ids), or null.
fn proto(
    row: &mut Row<'_>,
    scratch: &mut Vec<u8>,
    labels: usize,
    l: Option<(usize, &wirespeed_classify::LabelEntry)>,
) {
    let Some((id, l)) = l else {
        return row.text(None);
    };
    let (m, a) = proto_label(l);
    scratch.clear();
    scratch.extend_from_slice(m.as_bytes());
    if let Some(a) = a {
        scratch.push(b'.');
        scratch.extend_from_slice(a.as_bytes());
    }
    row.text_id(labels, id, as_text(scratch));
}

/// The id space of IP protocol numbers ([`Row::text_id`]; no registry's address).
const L4_IDS: usize = 1;

/// [`crate::DIST_FIELDS`], as `format::dist_fields` writes them.
fn dist(row: &mut Row<'_>, r: &FlowRecord<'_>) {
    let Some(d) = r.dist.as_ref() else {
        crate::DIST_FIELDS.iter().for_each(|_| row.null());
        return;
    };
    for dir in [&d.c2s, &d.s2c] {
        let sizes = dir.packets > 0;
        let gaps = dir.gaps > 0;
        row.int(sizes.then_some(dir.size_min.into()));
        row.float(sizes.then(|| fixed3(dir.size_mean)));
        row.int(sizes.then_some(dir.size_max.into()));
        row.float(sizes.then(|| fixed3(dir.size_std)));
        for v in [
            dir.gap_min_us,
            dir.gap_mean_us,
            dir.gap_max_us,
            dir.gap_std_us,
        ] {
            row.float(gaps.then(|| fixed3(v)));
        }
        for n in dir.flags {
            row.int(Some(n.into()));
        }
    }
}

/// [`crate::TCP_FIELDS`], as `format::tcp_fields` writes them.
fn tcp(row: &mut Row<'_>, r: &FlowRecord<'_>) {
    let Some(t) = r.tcp.as_ref() else {
        crate::TCP_FIELDS.iter().for_each(|_| row.null());
        return;
    };
    for d in [&t.c2s, &t.s2c] {
        let rtt = d.rtt_n > 0;
        row.int(Some(d.retrans.into()));
        row.int(Some(d.retrans_bytes));
        row.int(Some(d.ooo.into()));
        row.int(Some(d.dup.into()));
        row.int(Some(d.rtt_n.into()));
        row.int(rtt.then_some(d.rtt_min_us.into()));
        row.float(rtt.then(|| fixed3(d.rtt_mean_us)));
        row.int(rtt.then_some(d.rtt_max_us.into()));
        row.float(rtt.then(|| fixed3(d.rtt_std_us)));
        row.int(d.ttl.map(|t| t.0.into()));
        row.int(d.ttl.map(|t| t.1.into()));
        row.int(d.mss.map(u64::from));
        row.int(d.wscale.map(u64::from));
        row.flag(d.sack_ok);
        row.flag(d.ts_ok);
        row.int(d.win_init.map(u64::from));
        row.int(Some(d.zero_win.into()));
        row.int(Some(d.unique_bytes));
        row.int(d.first_payload_us);
        row.int(d.last_payload_us);
    }
    row.int(t.hs_rtt_us);
    row.opt(t.close);
    row.opt(t.history());
    row.opt(t.conn_state);
}

/// [`crate::FEATURE_FIELDS`]: the `splt_*` lists, then the AtoZ features (two decimals, as
/// `format::feature_fields` writes them; null where JSON writes null).
fn features(row: &mut Row<'_>, r: &FlowRecord<'_>) {
    use wirespeed_stats::SizeMode;
    let e = &r.early;
    let n = e.len();
    for mode in [SizeMode::Ip, SizeMode::Payload] {
        match row.list() {
            Col::ListI32(b) => b.append_value((0..n).map(|i| Some(e.signed(i, mode)))),
            _ => panic!("parquet: splt_ip/splt_payload are lists of Int32"),
        }
    }
    match row.list() {
        Col::ListU32(b) => b.append_value(e.iat_us[..n.saturating_sub(1)].iter().map(|&v| Some(v))),
        _ => panic!("parquet: splt_iat_us is a list of UInt32"),
    }
    match row.list() {
        Col::ListU8(b) => b.append_value(e.flags[..n].iter().map(|&v| Some(v))),
        _ => panic!("parquet: splt_flags is a list of UInt8"),
    }
    let f = e.atoz(r.l4, r.dst_port);
    for (name, v) in wirespeed_stats::ATOZ_NAMES.iter().zip(f) {
        let h = (0.0..1e15)
            .contains(&v)
            .then(|| (v as f64 * 100.0).round() as u64);
        if ATOZ_FLOATS.contains(name) {
            row.float(h.map(|h| h as f64 / 100.0));
        } else {
            // Whole numbers by construction (counts from u32s as f32).
            row.int(h.map(|h| (h / 100).min(u32::MAX.into())));
        }
    }
}

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
        let schema = &self.shared.schema;
        ParquetSink {
            cols: schema
                .fields()
                .iter()
                .map(|f| Builder::new(column(f.name()).0))
                .collect(),
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
    cols: Vec<Builder>,
    rows: usize,
    scratch: Vec<u8>,
    shared: Arc<Shared>,
}

impl ParquetSink {
    fn flush(&mut self) -> io::Result<()> {
        if self.rows == 0 {
            return Ok(());
        }
        let arrays: Vec<ArrayRef> = self.cols.iter_mut().map(Builder::finish).collect();
        self.rows = 0;
        self.shared.write_group(arrays)
    }
}

impl RecordSink for ParquetSink {
    fn write(&mut self, r: &FlowRecord<'_>) -> io::Result<()> {
        append(&mut self.cols, r, &self.shared.cols, &mut self.scratch);
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
    use crate::tests::{labels, rec};
    use crate::{ActFields, DirDist, DirTcp, DistFields, JsonLinesWriter, TcpFields};
    use ::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    use arrow_array::cast::AsArray;
    use arrow_array::types::*;
    use arrow_array::Array;
    use serde_json::Value;
    use wirespeed_classify::risk::RiskSet;
    use wirespeed_classify::Labels;

    const ALL: Columns = Columns {
        with_source: true,
        features: true,
        community: true,
        action: true,
        dist: true,
        tcp: true,
    };

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
        for bits in 0..64u32 {
            let on = |i: u32| bits & (1 << i) != 0;
            let cols = Columns {
                with_source: on(0),
                features: on(1),
                community: on(2),
                action: on(3),
                dist: on(4),
                tcp: on(5),
            };
            let schema = schema(&cols);
            let mut b: Vec<Builder> = schema
                .fields()
                .iter()
                .map(|f| Builder::new(column(f.name()).0))
                .collect();
            let mut scratch = Vec::new();
            append(&mut b, &full(&l), &cols, &mut scratch);
            append(&mut b, &rec(&l), &cols, &mut scratch);
            let arrays: Vec<ArrayRef> = b.iter_mut().map(Builder::finish).collect();
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
