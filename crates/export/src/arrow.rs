//! Flow records as Arrow record batches (cargo feature `arrow`; `parquet` builds on it): the
//! record's columns, typed.
//!
//! [`schema`] is the Arrow schema of the records a [`Columns`] selects: the JSON record's
//! fields ([`crate::FIELDS`], `source` and `pcap` first), with the JSON record's values
//! (numbers rounded as JSON writes them), typed (see `docs/SCHEMA.md`, "Parquet"). A
//! [`BatchSink`] appends records to Arrow builders and cuts a [`RecordBatch`] every so many
//! records: the Python module hands them to pyarrow, and the Parquet writer
//! (`crate::parquet`) encodes the same builders' arrays as row groups.

use crate::format::{Columns, Fmt};
use crate::{l4_name, numeric_meta, FlowRecord, RecordSink, META_FIELDS};
use arrow_array::builder::{
    BooleanBuilder, Float64Builder, Int32Builder, ListBuilder, StringBuilder,
    TimestampMicrosecondBuilder, UInt16Builder, UInt32Builder, UInt64Builder, UInt8Builder,
};
use arrow_array::types::Int32Type;
use arrow_array::{ArrayRef, DictionaryArray, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};
use std::collections::HashMap;
use std::io;
use std::sync::Arc;
use wirespeed_classify::Method;

/// The Arrow type of a column ([`schema`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
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

    /// A builder with room for `rows` values (text: 16 bytes a value), so that a batch's
    /// buffers are not regrown (and copied) from empty as it fills.
    fn builder(self, rows: usize) -> Col {
        let list_field = |t| Arc::new(Field::new_list_field(t, false));
        match self {
            Kind::U8 => Col::U8(UInt8Builder::with_capacity(rows)),
            Kind::U16 => Col::U16(UInt16Builder::with_capacity(rows)),
            Kind::U32 => Col::U32(UInt32Builder::with_capacity(rows)),
            Kind::U64 => Col::U64(UInt64Builder::with_capacity(rows)),
            Kind::F64 => Col::F64(Float64Builder::with_capacity(rows)),
            Kind::Bool => Col::Bool(BooleanBuilder::with_capacity(rows)),
            Kind::Str => Col::Str(StringBuilder::with_capacity(rows, rows * 16)),
            Kind::Dict => Col::Dict(DictCol {
                keys: Int32Builder::with_capacity(rows),
                ..DictCol::default()
            }),
            Kind::Ts => {
                Col::Ts(TimestampMicrosecondBuilder::with_capacity(rows).with_timezone("UTC"))
            }
            Kind::ListI32 => Col::ListI32(
                ListBuilder::with_capacity(Int32Builder::new(), rows)
                    .with_field(list_field(DataType::Int32)),
            ),
            Kind::ListU32 => Col::ListU32(
                ListBuilder::with_capacity(UInt32Builder::new(), rows)
                    .with_field(list_field(DataType::UInt32)),
            ),
            Kind::ListU8 => Col::ListU8(
                ListBuilder::with_capacity(UInt8Builder::new(), rows)
                    .with_field(list_field(DataType::UInt8)),
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
pub(crate) fn column(name: &str) -> (Kind, bool) {
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
        let k = if numeric_meta(i) {
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
        "tunnel_parent" => (U64, true),
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

/// The names of the columns the groups of `cols` select, in order: `source` and `pcap` (with
/// `cols.with_source`), then [`crate::FIELDS`] as [`Columns::selects`] selects them (every
/// one, [`Columns::keep`] aside: the builders take every column, and the kept ones are taken
/// from them, [`kept`]).
fn names(cols: &Columns) -> Vec<&'static str> {
    Columns {
        keep: None,
        ..*cols
    }
    .names()
}

/// The indices, among [`names`], of the columns `cols.keep` keeps (None: every one).
pub(crate) fn kept(cols: &Columns) -> Option<Vec<usize>> {
    let k = cols.keep?;
    Some(
        names(cols)
            .iter()
            .enumerate()
            .filter(|(_, n)| k.has(n))
            .map(|(i, _)| i)
            .collect(),
    )
}

/// The schema of every column the groups of `cols` select ([`names`]), which the builders
/// fill.
pub(crate) fn full_schema(cols: &Columns) -> SchemaRef {
    let fields: Vec<Field> = names(cols)
        .into_iter()
        .map(|n| {
            let (k, nullable) = column(n);
            Field::new(n, k.data_type(), nullable)
        })
        .collect();
    Arc::new(Schema::new(fields))
}

/// The kept columns of `arrays` (all of them without a selection).
pub(crate) fn project(arrays: Vec<ArrayRef>, keep: Option<&[usize]>) -> Vec<ArrayRef> {
    match keep {
        None => arrays,
        Some(k) => k.iter().map(|&i| arrays[i].clone()).collect(),
    }
}

/// The Arrow schema of the records written with `cols`: the JSON record's fields in its order,
/// typed. Integers are unsigned integers of the record's width; `first_ts` and `last_ts`
/// timestamps (µs, UTC); `duration` and the other non-integers `Float64` (rounded to the
/// decimals JSON writes); labels and low-cardinality text dictionaries; `risks` text
/// (dictionary) in JSON's `;`-separated form; `splt_*` lists.
/// With [`Columns::keep`], only the kept columns, in the same order.
pub fn schema(cols: &Columns) -> SchemaRef {
    let full = full_schema(cols);
    match kept(cols) {
        None => full,
        Some(k) => Arc::new(full.project(&k).expect("indices of the full schema")),
    }
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
pub(crate) struct Builder {
    col: Col,
    nulls: usize,
    kind: Kind,
}

impl Builder {
    /// A builder with room for `rows` values.
    pub(crate) fn with_capacity(k: Kind, rows: usize) -> Builder {
        Builder {
            col: k.builder(rows),
            nulls: 0,
            kind: k,
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

    pub(crate) fn finish(&mut self) -> ArrayRef {
        self.col().finish()
    }

    /// The column so far, the builder left with room for `rows` more values (arrow's builders
    /// are left empty, without capacity, by `finish`).
    pub(crate) fn finish_and_reserve(&mut self, rows: usize) -> ArrayRef {
        let a = self.finish();
        if rows > 0 {
            match &mut self.col {
                // The dictionary's values and index stay (cleared by its finish).
                Col::Dict(d) => d.keys = Int32Builder::with_capacity(rows),
                c => *c = self.kind.builder(rows),
            }
        }
        a
    }
}

/// Appends one record's values to the builders, column after column.
struct Row<'a> {
    cols: &'a mut [Builder],
    at: usize,
}

impl Row<'_> {
    #[inline(always)]
    fn next(&mut self, what: &str) -> &mut Builder {
        let at = self.at;
        self.at += 1;
        match self.cols.get_mut(at) {
            Some(c) => c,
            None => past(what, at),
        }
    }

    /// A null in the next column (of any type): counted, appended with the column's next value
    /// (most of a record's columns are absent metadata, so this path stays a few instructions).
    #[inline(always)]
    fn null(&mut self) {
        self.next("a null").nulls += 1;
    }

    /// An unsigned integer (null when absent or too wide for the column).
    #[inline(always)]
    fn int(&mut self, v: Option<u64>) {
        match v {
            None => self.null(),
            Some(v) => self.some_int(v),
        }
    }

    fn some_int(&mut self, v: u64) {
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
    #[inline(always)]
    fn text(&mut self, v: Option<&str>) {
        match v {
            None => self.null(),
            Some(v) => self.some_text(v),
        }
    }

    fn some_text(&mut self, v: &str) {
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
    #[inline(always)]
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

/// A record with more values than the schema has columns: a bug of this module.
#[cold]
#[inline(never)]
fn past(what: &str, at: usize) -> ! {
    panic!("parquet: {what} past the schema's {at} columns")
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
pub(crate) fn append(cols: &mut [Builder], r: &FlowRecord<'_>, c: &Columns, scratch: &mut Vec<u8>) {
    let mut row = Row { cols, at: 0 };
    if c.with_source {
        row.text(Some(r.source.unwrap_or("")));
        row.opt(r.pcap.unwrap_or(""));
    }
    row.int(Some(r.flow_id));
    row.text(Some(Fmt::ip_str(scratch, &r.src_ip)));
    row.int(Some(r.src_port.into()));
    row.text(Some(Fmt::ip_str(scratch, &r.dst_ip)));
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
    if c.tunnel_parent {
        row.int(r.tunnel_parent);
    }
    row.ts(r.first_ts_ns);
    row.ts(r.last_ts_ns);
    let us = r.last_ts_ns.saturating_sub(r.first_ts_ns) / 1000;
    row.float(Some(us as f64 / 1e6));
    row.int(Some(r.c2s_pkts));
    row.int(Some(r.c2s_bytes));
    row.int(Some(r.s2c_pkts));
    row.int(Some(r.s2c_bytes));
    row.text_id(END_IDS, r.end_reason as usize, r.end_reason.as_str());
    // Labels by their id in the run's registry.
    let labels = std::ptr::from_ref(r.labels) as usize;
    let (label, id) = (r.label_names(), r.label.index());
    proto(&mut row, labels, Some((id, label)));
    row.text_id(labels, id, label.app());
    row.text_id(labels, id, label.master());
    row.text_id(labels, id, label.category());
    row.opt(r.ip_owner);
    method(&mut row, r.method);
    row.float(Some(conf(r.confidence)));
    row.int(Some(r.ttb_pkts.into()));
    row.int(Some(r.ttb_us));
    let fpc = r.fpc.map(|(l, _)| (l.index(), r.labels.get(l)));
    proto(&mut row, labels, fpc);
    method(&mut row, r.fpc.map(|f| f.1));
    row.flag(Some(r.encrypted));
    let mut risks = r.risks.iter();
    match (risks.next(), risks.next()) {
        (None, _) => row.null(),
        // One risk (the common case): its name as it is.
        (Some(k), None) => row.text(Some(k.name())),
        _ => {
            scratch.clear();
            for (i, k) in r.risks.iter().enumerate() {
                if i > 0 {
                    scratch.push(b';');
                }
                scratch.extend_from_slice(k.name().as_bytes());
            }
            row.text(Some(as_text(scratch)));
        }
    }
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
        if numeric_meta(i) {
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
fn proto(row: &mut Row<'_>, labels: usize, l: Option<(usize, &wirespeed_classify::LabelEntry)>) {
    let Some((id, l)) = l else {
        return row.text(None);
    };
    row.text_id(labels, id, l.proto());
}

/// A method's name (null without one), looked up by the method's number.
fn method(row: &mut Row<'_>, m: Option<Method>) {
    match m {
        None => row.null(),
        Some(m) => row.text_id(METHOD_IDS, m as usize, m.as_str()),
    }
}

/// The id spaces of [`Row::text_id`] that are no label registry's address: IP protocol
/// numbers, end reasons, methods.
const L4_IDS: usize = 1;
const END_IDS: usize = 2;
const METHOD_IDS: usize = 3;

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

/// The builders of every column of `schema`, empty.
#[cfg(feature = "parquet")]
pub(crate) fn builders(schema: &Schema) -> Vec<Builder> {
    builders_for(schema, 0)
}

/// [`builders`], each with room for `rows` values.
fn builders_for(schema: &Schema, rows: usize) -> Vec<Builder> {
    schema
        .fields()
        .iter()
        .map(|f| Builder::with_capacity(column(f.name()).0, rows))
        .collect()
}

/// The most rows a [`BatchSink`]'s builders make room for ahead (their buffers are allocated
/// with that many values' room, which the kernel backs only as they fill): a batch of more
/// rows grows them beyond it.
const ROOM: usize = 65_536;

/// Records into Arrow record batches of [`schema`]`(cols)`: a batch is cut every
/// `rows_per_batch` records and at [`RecordSink::finish`]; [`BatchSink::take`] hands over the
/// batches cut so far. One sink per worker.
pub struct BatchSink {
    schema: SchemaRef,
    /// With [`Columns::keep`]: the kept columns' indices among the builders'.
    keep: Option<Vec<usize>>,
    cols: Columns,
    builders: Vec<Builder>,
    rows: usize,
    rows_per_batch: usize,
    scratch: Vec<u8>,
    done: Vec<RecordBatch>,
}

impl BatchSink {
    /// A sink for records with the columns `cols`, cutting a batch every `rows_per_batch`
    /// records (at least 1).
    pub fn new(cols: Columns, rows_per_batch: usize) -> BatchSink {
        BatchSink {
            builders: builders_for(&full_schema(&cols), rows_per_batch.clamp(1, ROOM)),
            schema: schema(&cols),
            keep: kept(&cols),
            cols,
            rows: 0,
            rows_per_batch: rows_per_batch.max(1),
            scratch: Vec::with_capacity(64),
            done: Vec::new(),
        }
    }

    /// The schema of every batch.
    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    /// The batches cut so far (records appended since the last cut stay in the builders until
    /// the next cut or [`RecordSink::finish`]).
    pub fn take(&mut self) -> Vec<RecordBatch> {
        std::mem::take(&mut self.done)
    }

    /// Records held in the builders, not yet in a batch.
    pub fn pending(&self) -> usize {
        self.rows
    }

    /// Cuts a batch of the records held; `more`: records may follow (the builders get room for
    /// another batch).
    fn cut(&mut self, more: bool) -> io::Result<()> {
        if self.rows == 0 {
            return Ok(());
        }
        let room = if more {
            self.rows_per_batch.min(ROOM)
        } else {
            0
        };
        let arrays: Vec<ArrayRef> = self
            .builders
            .iter_mut()
            .map(|b| b.finish_and_reserve(room))
            .collect();
        let arrays = project(arrays, self.keep.as_deref());
        self.rows = 0;
        // Types checked once more, cheaply: a mismatch is a bug, and an error, not bad data.
        let batch = RecordBatch::try_new(self.schema.clone(), arrays)
            .map_err(|e| io::Error::other(format!("arrow: {e}")))?;
        self.done.push(batch);
        Ok(())
    }
}

impl RecordSink for BatchSink {
    fn write(&mut self, r: &FlowRecord<'_>) -> io::Result<()> {
        append(&mut self.builders, r, &self.cols, &mut self.scratch);
        self.rows += 1;
        if self.rows >= self.rows_per_batch {
            self.cut(true)?;
        }
        Ok(())
    }

    fn finish(&mut self) -> io::Result<()> {
        self.cut(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::{labels, rec};

    /// With a selection (`--columns`, Python's `columns=`): the kept columns, in the record's
    /// order, each the whole batch's column of that name.
    #[test]
    fn kept_columns_are_the_whole_batchs() {
        let l = labels();
        let all = Columns {
            with_source: true,
            community: true,
            features: true,
            ..Columns::default()
        };
        let keep = crate::Keep::of(["proto", "src_ip", "community_id", "splt_ip", "sni", "risks"])
            .unwrap();
        let mut whole = BatchSink::new(all, 10);
        let mut kept = BatchSink::new(
            Columns {
                keep: Some(keep),
                ..all
            },
            10,
        );
        for i in 0..3 {
            let mut r = rec(&l);
            r.flow_id = i;
            whole.write(&r).unwrap();
            kept.write(&r).unwrap();
        }
        whole.finish().unwrap();
        kept.finish().unwrap();
        let (w, k) = (whole.take().remove(0), kept.take().remove(0));
        let schema = k.schema();
        let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
        assert_eq!(
            names,
            ["src_ip", "proto", "risks", "community_id", "splt_ip", "sni"]
        );
        for (f, c) in schema.fields().iter().zip(k.columns()) {
            assert_eq!(c, w.column_by_name(f.name()).unwrap(), "{}", f.name());
        }
        assert_eq!(kept.schema(), schema);
    }

    #[test]
    fn batches_are_cut_every_so_many_records_and_at_finish() {
        let l = labels();
        let cols = Columns {
            with_source: true,
            community: true,
            ..Columns::default()
        };
        let mut s = BatchSink::new(cols, 2);
        for i in 0..5 {
            let mut r = rec(&l);
            r.flow_id = i;
            s.write(&r).unwrap();
        }
        assert_eq!(s.pending(), 1);
        s.finish().unwrap();
        let batches = s.take();
        let rows: Vec<usize> = batches.iter().map(RecordBatch::num_rows).collect();
        assert_eq!(rows, [2, 2, 1]);
        assert!(s.take().is_empty(), "taken once");
        for b in &batches {
            assert_eq!(b.schema(), s.schema());
        }
        let schema = batches[0].schema();
        let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
        assert_eq!(names[..3], ["source", "pcap", "flow_id"]);
        assert!(names.contains(&"community_id"));
        let ids = batches[1]
            .column_by_name("flow_id")
            .unwrap()
            .as_any()
            .downcast_ref::<arrow_array::UInt64Array>()
            .unwrap();
        assert_eq!(ids.values(), &[2, 3]);
    }
}
