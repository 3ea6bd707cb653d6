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
use crate::{
    l4_name, numeric_meta, FlowRecord, RecordSink, COMMUNITY_FIELD, META_COUNT, META_FIELDS,
    TUNNEL_PARENT_FIELD,
};
use arrow_array::builder::{
    ArrayBuilder, BooleanBuilder, Int32Builder, ListBuilder, NullBufferBuilder, StringBuilder,
    UInt32Builder, UInt8Builder,
};
use arrow_array::cast::AsArray;
use arrow_array::types::{
    ArrowPrimitiveType, Float64Type, Int32Type, TimestampMicrosecondType, UInt16Type, UInt32Type,
    UInt64Type, UInt8Type,
};
use arrow_array::{ArrayRef, DictionaryArray, PrimitiveArray, RecordBatch, StringArray};
use arrow_buffer::{NullBuffer, OffsetBuffer};
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

/// A column being built: what a [`Slot`] asks of it.
trait Column {
    /// `n` nulls.
    fn nulls(&mut self, n: usize);
    /// The column so far, the builder left empty with room for `room` more values.
    fn finish(&mut self, room: usize) -> ArrayRef;
}

/// A column and the nulls it is owed: most optional values are absent (metadata, the TCP
/// analysis of a UDP flow), and counting them, to append them in one go before the next value or
/// at the end, costs a record a tenth of appending them one by one.
struct Slot<C> {
    col: C,
    owed: usize,
}

impl<C: Column> Slot<C> {
    fn new(col: C) -> Slot<C> {
        Slot { col, owed: 0 }
    }

    /// A null, owed.
    #[inline(always)]
    fn null(&mut self) {
        self.owed += 1;
    }

    /// The column, its owed nulls appended, for a value.
    #[inline(always)]
    fn value(&mut self) -> &mut C {
        if self.owed > 0 {
            self.col.nulls(self.owed);
            self.owed = 0;
        }
        &mut self.col
    }
}

/// A column's validity, appended in runs: the values up to `valid_to` valid, then the nulls
/// of each [`Column::nulls`]. The bitmap is made at the first null (none without one).
struct Validity {
    b: NullBufferBuilder,
    valid_to: usize,
}

impl Validity {
    fn new(rows: usize) -> Validity {
        Validity {
            b: NullBufferBuilder::new(rows),
            valid_to: 0,
        }
    }

    /// `n` nulls after the `len` values so far.
    fn nulls(&mut self, len: usize, n: usize) {
        self.b.append_n_non_nulls(len - self.valid_to);
        self.b.append_n_nulls(n);
        self.valid_to = len + n;
    }

    /// The validity of the `len` values so far, the builder left empty with room for `room`.
    fn finish(&mut self, len: usize, room: usize) -> Option<NullBuffer> {
        self.b.append_n_non_nulls(len - self.valid_to);
        self.valid_to = 0;
        let nulls = self.b.finish();
        self.b = NullBufferBuilder::new(room);
        nulls
    }
}

/// A column of fixed-width values: the values in a `Vec` (a null's a zero, as arrow's builders
/// write it), the validity in runs. Arrow's `PrimitiveBuilder` costs some 30 instructions a
/// value (a bit in its bitmap, a capacity check on each of two buffers); a push costs a few.
struct Prim<T: ArrowPrimitiveType> {
    values: Vec<T::Native>,
    valid: Validity,
    /// The column's type (a timestamp's time zone).
    data_type: DataType,
}

impl<T: ArrowPrimitiveType> Prim<T> {
    fn new(rows: usize) -> Prim<T> {
        Prim {
            values: Vec::with_capacity(rows),
            valid: Validity::new(rows),
            // Every time is UTC.
            data_type: match T::DATA_TYPE {
                DataType::Timestamp(unit, None) => DataType::Timestamp(unit, Some("UTC".into())),
                t => t,
            },
        }
    }

    #[inline(always)]
    fn push(&mut self, v: T::Native) {
        self.values.push(v);
    }
}

impl<T: ArrowPrimitiveType> Column for Prim<T> {
    fn nulls(&mut self, n: usize) {
        let len = self.values.len();
        self.valid.nulls(len, n);
        self.values.resize(len + n, T::Native::default());
    }

    fn finish(&mut self, room: usize) -> ArrayRef {
        let values = std::mem::replace(&mut self.values, Vec::with_capacity(room));
        let nulls = self.valid.finish(values.len(), room);
        let a = PrimitiveArray::<T>::new(values.into(), nulls);
        Arc::new(a.with_data_type(self.data_type.clone()))
    }
}

/// A column of text (`Utf8`): the bytes and the offsets in `Vec`s, the validity in runs (as
/// [`Prim`]'s). Arrow's `StringBuilder` sets a bit of its bitmap for each value.
struct TextCol {
    bytes: Vec<u8>,
    /// Where each value ends (a null: where the previous one does), after a first 0.
    ends: Vec<i32>,
    valid: Validity,
}

impl TextCol {
    fn new(rows: usize) -> TextCol {
        let mut ends = Vec::with_capacity(rows + 1);
        ends.push(0);
        TextCol {
            // 16 bytes a value ahead: the buffer is not regrown (and copied) from empty.
            bytes: Vec::with_capacity(rows * 16),
            ends,
            valid: Validity::new(rows),
        }
    }

    #[inline(always)]
    fn push(&mut self, s: &str) {
        self.bytes.extend_from_slice(s.as_bytes());
        match i32::try_from(self.bytes.len()) {
            Ok(end) => self.ends.push(end),
            Err(_) => panic!("arrow: a text column of over 2 GiB in one batch"),
        }
    }
}

impl Column for TextCol {
    fn nulls(&mut self, n: usize) {
        let (rows, end) = (self.ends.len() - 1, self.bytes.len() as i32);
        self.valid.nulls(rows, n);
        self.ends.resize(rows + 1 + n, end);
    }

    fn finish(&mut self, room: usize) -> ArrayRef {
        let ends = std::mem::replace(&mut self.ends, TextCol::new(room).ends);
        let bytes = std::mem::replace(&mut self.bytes, Vec::with_capacity(room * 16));
        let nulls = self.valid.finish(ends.len() - 1, room);
        // The bytes are UTF-8, of `&str`s (checked once more here, a batch at a time).
        match StringArray::try_new(OffsetBuffer::new(ends.into()), bytes.into(), nulls) {
            Ok(a) => Arc::new(a),
            Err(e) => panic!("arrow: text of &strs is a text column: {e}"),
        }
    }
}

/// An arrow builder (booleans, lists).
struct Built<B> {
    b: B,
}

/// [`Column`] for arrow builders of the types given.
macro_rules! built_column {
    ($($b:ty),*) => {$(
        impl Column for Built<$b> {
            fn nulls(&mut self, n: usize) {
                self.b.append_nulls(n);
            }

            fn finish(&mut self, room: usize) -> ArrayRef {
                let a = Arc::new(self.b.finish());
                // Arrow's `finish` leaves the builder empty, without capacity.
                if room > 0 {
                    *self = Self::make(room);
                }
                a
            }
        }
    )*};
}

built_column!(
    BooleanBuilder,
    ListBuilder<Int32Builder>,
    ListBuilder<UInt32Builder>,
    ListBuilder<UInt8Builder>
);

/// A list builder of `Int32`, `UInt32` or `UInt8` items (not null), with room for `rows` lists.
fn list<B: ArrayBuilder + Default>(t: DataType, rows: usize) -> Built<ListBuilder<B>> {
    let field = Arc::new(Field::new_list_field(t, false));
    Built {
        b: ListBuilder::with_capacity(B::default(), rows).with_field(field),
    }
}

/// A dictionary column's builder: the keys, and each distinct value once per row group. A value
/// is looked up by the previous row's first, then by an id the caller has for it (a label's),
/// then by its hash: arrow's `StringDictionaryBuilder` hashes every value, which cost a quarter
/// of a record's time.
struct DictCol {
    keys: Prim<Int32Type>,
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
    fn new(rows: usize) -> DictCol {
        DictCol {
            keys: Prim::new(rows),
            values: StringBuilder::new(),
            index: HashMap::default(),
            by_id: Vec::new(),
            scope: 0,
            last: None,
        }
    }

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
        self.keys.push(k);
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
        self.keys.push(k);
    }
}

impl Column for DictCol {
    fn nulls(&mut self, n: usize) {
        self.keys.nulls(n);
    }

    /// The values and the index start again empty: each batch has its own dictionary.
    fn finish(&mut self, room: usize) -> ArrayRef {
        let keys = self.keys.finish(room);
        let keys = keys.as_primitive::<Int32Type>().clone();
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

/// A column, or a group of columns, a record writes: made empty, all null for a record without
/// it, and finished into arrays in column order.
trait Group {
    /// Empty, with room for `rows` values a column.
    fn make(rows: usize) -> Self;
    /// A null in each column.
    fn null(&mut self);
    /// The columns so far, in order, into `out`, the builders left with room for `room`
    /// values.
    fn finish(&mut self, room: usize, out: &mut Vec<ArrayRef>);
    /// The columns' names, in order, into `out`: `name` for a column, `name_` and the
    /// field's name for a group's (the field's name alone at the top).
    fn names(&self, name: &str, out: &mut Vec<String>);
}

/// A column's builder, empty, with room for `rows` values.
trait Make {
    fn make(rows: usize) -> Self;
}

impl<T: ArrowPrimitiveType> Make for Prim<T> {
    fn make(rows: usize) -> Self {
        Prim::new(rows)
    }
}

impl Make for DictCol {
    fn make(rows: usize) -> Self {
        DictCol::new(rows)
    }
}

impl Make for TextCol {
    fn make(rows: usize) -> Self {
        TextCol::new(rows)
    }
}

impl Make for Built<BooleanBuilder> {
    fn make(rows: usize) -> Self {
        Built {
            b: BooleanBuilder::with_capacity(rows),
        }
    }
}

impl Make for Built<ListBuilder<Int32Builder>> {
    fn make(rows: usize) -> Self {
        list(DataType::Int32, rows)
    }
}

impl Make for Built<ListBuilder<UInt32Builder>> {
    fn make(rows: usize) -> Self {
        list(DataType::UInt32, rows)
    }
}

impl Make for Built<ListBuilder<UInt8Builder>> {
    fn make(rows: usize) -> Self {
        list(DataType::UInt8, rows)
    }
}

impl<C: Column + Make> Group for Slot<C> {
    fn make(rows: usize) -> Self {
        Slot::new(C::make(rows))
    }

    fn null(&mut self) {
        Slot::null(self);
    }

    fn finish(&mut self, room: usize, out: &mut Vec<ArrayRef>) {
        out.push(self.value().finish(room));
    }

    fn names(&self, name: &str, out: &mut Vec<String>) {
        out.push(name.to_string());
    }
}

/// An optional group: its columns when the sink writes it.
impl<G: Group> Group for Option<G> {
    fn make(_: usize) -> Self {
        None
    }

    fn null(&mut self) {
        if let Some(g) = self {
            g.null();
        }
    }

    fn finish(&mut self, room: usize, out: &mut Vec<ArrayRef>) {
        if let Some(g) = self {
            g.finish(room, out);
        }
    }

    fn names(&self, name: &str, out: &mut Vec<String>) {
        if let Some(g) = self {
            g.names(name, out);
        }
    }
}

/// Declares a [`Group`] of columns: a struct of the fields given, in column order.
macro_rules! group {
    ($(#[$m:meta])* struct $name:ident { $($field:ident: $ty:ty,)* }) => {
        $(#[$m])*
        struct $name {
            $($field: $ty,)*
        }

        impl Group for $name {
            fn make(rows: usize) -> Self {
                $name { $($field: Group::make(rows),)* }
            }

            fn null(&mut self) {
                $(self.$field.null();)*
            }

            fn finish(&mut self, room: usize, out: &mut Vec<ArrayRef>) {
                $(self.$field.finish(room, out);)*
            }

            fn names(&self, name: &str, out: &mut Vec<String>) {
                let join = |f: &str| if name.is_empty() { f.to_string() } else { format!("{name}_{f}") };
                $(self.$field.names(&join(stringify!($field)), out);)*
            }
        }
    };
}

type Int<T> = Slot<Prim<T>>;
type F64 = Slot<Prim<Float64Type>>;
type Ts = Slot<Prim<TimestampMicrosecondType>>;
type Text = Slot<TextCol>;
type Dict = Slot<DictCol>;
type Flag = Slot<Built<BooleanBuilder>>;
type List<B> = Slot<Built<ListBuilder<B>>>;

impl<T: ArrowPrimitiveType> Slot<Prim<T>> {
    /// A value; `None` is null.
    #[inline(always)]
    fn put(&mut self, v: Option<T::Native>) {
        match v {
            Some(v) => self.value().push(v),
            None => self.null(),
        }
    }
}

impl<T: ArrowPrimitiveType> Slot<Prim<T>>
where
    T::Native: TryFrom<u64>,
{
    /// An integer: null when absent or too wide for the column.
    #[inline(always)]
    fn int(&mut self, v: Option<u64>) {
        self.put(v.and_then(|v| T::Native::try_from(v).ok()));
    }
}

impl Slot<TextCol> {
    /// Text; `None` is null.
    #[inline(always)]
    fn text(&mut self, v: Option<&str>) {
        match v {
            Some(v) => self.value().push(v),
            None => self.null(),
        }
    }
}

impl Slot<Built<BooleanBuilder>> {
    #[inline(always)]
    fn put(&mut self, v: Option<bool>) {
        match v {
            Some(v) => self.value().b.append_value(v),
            None => self.null(),
        }
    }
}

impl Slot<DictCol> {
    /// Text; `None` is null.
    #[inline(always)]
    fn text(&mut self, v: Option<&str>) {
        match v {
            Some(v) => self.value().append(v),
            None => self.null(),
        }
    }

    /// Text that is absent when empty (JSON's `opt_str`).
    #[inline(always)]
    fn opt(&mut self, v: &str) {
        self.text((!v.is_empty()).then_some(v));
    }

    /// Text the caller knows by an id among those of `scope` (a label, a protocol number).
    #[inline(always)]
    fn id(&mut self, scope: usize, id: usize, v: &str) {
        self.value().append_id(scope, id, v);
    }
}

/// A column of one of a few kinds, chosen when the sink is made (by [`column`]): the metadata
/// and the AtoZ features, written in loops.
enum Either {
    U32(Prim<UInt32Type>),
    F64(Prim<Float64Type>),
    Dict(DictCol),
    Text(TextCol),
}

impl Either {
    fn of(name: &str, rows: usize) -> Slot<Either> {
        Slot::new(match column(name).0 {
            Kind::U32 => Either::U32(Prim::make(rows)),
            Kind::F64 => Either::F64(Prim::make(rows)),
            Kind::Dict => Either::Dict(DictCol::make(rows)),
            Kind::Str => Either::Text(TextCol::make(rows)),
            k => panic!("arrow: {name}: no column of {k:?} in a loop"),
        })
    }
}

impl Column for Either {
    fn nulls(&mut self, n: usize) {
        match self {
            Either::U32(c) => c.nulls(n),
            Either::F64(c) => c.nulls(n),
            Either::Dict(c) => c.nulls(n),
            Either::Text(c) => c.nulls(n),
        }
    }

    fn finish(&mut self, room: usize) -> ArrayRef {
        match self {
            Either::U32(c) => c.finish(room),
            Either::F64(c) => c.finish(room),
            Either::Dict(c) => c.finish(room),
            Either::Text(c) => c.finish(room),
        }
    }
}

/// Columns of [`Either`], named `names`.
struct Eithers<const N: usize> {
    cols: [Slot<Either>; N],
    names: &'static [&'static str; N],
}

impl<const N: usize> Eithers<N> {
    fn new(names: &'static [&'static str; N], rows: usize) -> Eithers<N> {
        Eithers {
            cols: std::array::from_fn(|i| Either::of(names[i], rows)),
            names,
        }
    }

    fn finish(&mut self, room: usize, out: &mut Vec<ArrayRef>) {
        out.extend(self.cols.iter_mut().map(|c| c.value().finish(room)));
    }

    fn names(&self, out: &mut Vec<String>) {
        out.extend(self.names.iter().map(|n| n.to_string()));
    }
}

group! {
    /// `source` and `pcap`.
    struct Source {
        source: Dict,
        pcap: Dict,
    }
}

group! {
    /// [`crate::FIELDS`] up to `tunnel`.
    struct Head {
        flow_id: Int<UInt64Type>,
        src_ip: Text,
        src_port: Int<UInt16Type>,
        dst_ip: Text,
        dst_port: Int<UInt16Type>,
        l4: Dict,
        ip_proto: Int<UInt8Type>,
        vlan: Int<UInt16Type>,
        tunnel: Dict,
    }
}

group! {
    /// [`crate::FIELDS`] from `first_ts` to `risk_score`.
    struct Tail {
        first_ts: Ts,
        last_ts: Ts,
        duration: F64,
        c2s_pkts: Int<UInt64Type>,
        c2s_bytes: Int<UInt64Type>,
        s2c_pkts: Int<UInt64Type>,
        s2c_bytes: Int<UInt64Type>,
        end_reason: Dict,
        proto: Dict,
        app: Dict,
        master: Dict,
        category: Dict,
        ip_owner: Dict,
        method: Dict,
        confidence: F64,
        ttb_pkts: Int<UInt32Type>,
        ttb_us: Int<UInt64Type>,
        fpc: Dict,
        fpc_method: Dict,
        encrypted: Flag,
        risks: Dict,
        risk_score: Int<UInt32Type>,
    }
}

group! {
    /// [`crate::ACT_FIELDS`].
    struct Act {
        rule: Dict,
        action: Dict,
        dropped_pkts: Int<UInt64Type>,
        dropped_bytes: Int<UInt64Type>,
        bound: Flag,
    }
}

group! {
    /// [`crate::DIST_FIELDS`] of a direction.
    struct DistDir {
        ps_min: Int<UInt32Type>,
        ps_mean: F64,
        ps_max: Int<UInt32Type>,
        ps_std: F64,
        piat_min_us: F64,
        piat_mean_us: F64,
        piat_max_us: F64,
        piat_std_us: F64,
        syn: Int<UInt32Type>,
        fin: Int<UInt32Type>,
        rst: Int<UInt32Type>,
        psh: Int<UInt32Type>,
        ack: Int<UInt32Type>,
        urg: Int<UInt32Type>,
        ece: Int<UInt32Type>,
        cwr: Int<UInt32Type>,
    }
}

group! {
    /// [`crate::DIST_FIELDS`].
    struct Dist {
        c2s: DistDir,
        s2c: DistDir,
    }
}

group! {
    /// [`crate::TCP_FIELDS`] of a direction.
    struct TcpDir {
        retrans: Int<UInt32Type>,
        retrans_bytes: Int<UInt64Type>,
        ooo: Int<UInt32Type>,
        dup: Int<UInt32Type>,
        rtt_n: Int<UInt32Type>,
        rtt_min_us: Int<UInt32Type>,
        rtt_mean_us: F64,
        rtt_max_us: Int<UInt32Type>,
        rtt_std_us: F64,
        ttl_min: Int<UInt8Type>,
        ttl_max: Int<UInt8Type>,
        mss: Int<UInt16Type>,
        wscale: Int<UInt8Type>,
        sack_ok: Flag,
        ts_ok: Flag,
        win_init: Int<UInt16Type>,
        zero_win: Int<UInt32Type>,
        unique_bytes: Int<UInt64Type>,
        first_payload_us: Int<UInt64Type>,
        last_payload_us: Int<UInt64Type>,
    }
}

group! {
    /// [`crate::TCP_FIELDS`].
    struct Tcp {
        c2s: TcpDir,
        s2c: TcpDir,
        hs_rtt_us: Int<UInt64Type>,
        tcp_close: Dict,
        history: Dict,
        conn_state: Dict,
    }
}

group! {
    /// The `splt_*` lists of [`crate::FEATURE_FIELDS`].
    struct Splt {
        splt_ip: List<Int32Builder>,
        splt_payload: List<Int32Builder>,
        splt_iat_us: List<UInt32Builder>,
        splt_flags: List<UInt8Builder>,
    }
}

group! {
    /// The statistical verdict's fields.
    struct Stats {
        stats_app: Dict,
        stats_class: Dict,
        stats_score: F64,
    }
}

/// The builders of a record's columns ([`names`]), typed when the sink is made: the fixed
/// columns a struct's fields, the optional groups there or not, so that a record's values go
/// each to its builder by name, without a look at the column's type.
pub(crate) struct Cols {
    source: Option<Source>,
    head: Head,
    tunnel_parent: Option<Int<UInt64Type>>,
    tail: Tail,
    community_id: Option<Text>,
    act: Option<Act>,
    dist: Option<Dist>,
    tcp: Option<Tcp>,
    splt: Option<Splt>,
    /// The AtoZ features (with `splt`).
    atoz: Option<Eithers<{ wirespeed_stats::ATOZ_NAMES.len() }>>,
    stats: Stats,
    meta: Eithers<{ META_COUNT }>,
}

impl Cols {
    /// The builders of the columns `cols`'s groups select, each with room for `rows` values.
    pub(crate) fn new(cols: &Columns, rows: usize) -> Cols {
        fn some<G: Group>(on: bool, rows: usize) -> Option<G> {
            on.then(|| G::make(rows))
        }
        let c = Cols {
            source: some(cols.with_source, rows),
            head: Head::make(rows),
            tunnel_parent: some(cols.tunnel_parent, rows),
            tail: Tail::make(rows),
            community_id: some(cols.community, rows),
            act: some(cols.action, rows),
            dist: some(cols.dist, rows),
            tcp: some(cols.tcp, rows),
            splt: some(cols.features, rows),
            atoz: cols
                .features
                .then(|| Eithers::new(&wirespeed_stats::ATOZ_NAMES, rows)),
            stats: Stats::make(rows),
            meta: Eithers::new(&META_FIELDS, rows),
        };
        // The builders' order is the schema's (a bug otherwise: checked once, here).
        let mut n = Vec::new();
        c.source.names("", &mut n);
        c.head.names("", &mut n);
        c.tunnel_parent.names(TUNNEL_PARENT_FIELD, &mut n);
        c.tail.names("", &mut n);
        c.community_id.names(COMMUNITY_FIELD, &mut n);
        c.act.names("", &mut n);
        c.dist.names("", &mut n);
        c.tcp.names("", &mut n);
        c.splt.names("", &mut n);
        if let Some(a) = &c.atoz {
            a.names(&mut n);
        }
        c.stats.names("", &mut n);
        c.meta.names(&mut n);
        assert_eq!(n, names(cols), "arrow: the builders in the schema's order");
        c
    }

    /// Every column so far, in [`names`] order, the builders left with room for `room` values.
    pub(crate) fn finish(&mut self, room: usize) -> Vec<ArrayRef> {
        let mut out = Vec::new();
        self.source.finish(room, &mut out);
        self.head.finish(room, &mut out);
        self.tunnel_parent.finish(room, &mut out);
        self.tail.finish(room, &mut out);
        self.community_id.finish(room, &mut out);
        self.act.finish(room, &mut out);
        self.dist.finish(room, &mut out);
        self.tcp.finish(room, &mut out);
        self.splt.finish(room, &mut out);
        if let Some(a) = &mut self.atoz {
            a.finish(room, &mut out);
        }
        self.stats.finish(room, &mut out);
        self.meta.finish(room, &mut out);
        out
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

/// One record into the builders, with the values JSON writes.
pub(crate) fn append(cols: &mut Cols, r: &FlowRecord<'_>, scratch: &mut Vec<u8>) {
    if let Some(s) = &mut cols.source {
        s.source.text(Some(r.source.unwrap_or("")));
        s.pcap.opt(r.pcap.unwrap_or(""));
    }
    let h = &mut cols.head;
    h.flow_id.put(Some(r.flow_id));
    h.src_ip.text(Some(Fmt::ip_str(scratch, &r.src_ip)));
    h.src_port.put(Some(r.src_port));
    h.dst_ip.text(Some(Fmt::ip_str(scratch, &r.dst_ip)));
    h.dst_port.put(Some(r.dst_port));
    match l4_name(r.l4) {
        Some(n) => h.l4.id(L4_IDS, r.l4.into(), n),
        None => {
            scratch.clear();
            Fmt::int(scratch, r.l4);
            h.l4.id(L4_IDS, r.l4.into(), as_text(scratch));
        }
    }
    h.ip_proto.put(Some(r.l4));
    h.vlan.put(Some(r.vlan));
    h.tunnel.opt(r.tunnel);
    if let Some(p) = &mut cols.tunnel_parent {
        p.put(r.tunnel_parent);
    }
    let t = &mut cols.tail;
    t.first_ts.put(Some((r.first_ts_ns / 1000) as i64));
    t.last_ts.put(Some((r.last_ts_ns / 1000) as i64));
    let us = r.last_ts_ns.saturating_sub(r.first_ts_ns) / 1000;
    t.duration.put(Some(us as f64 / 1e6));
    t.c2s_pkts.put(Some(r.c2s_pkts));
    t.c2s_bytes.put(Some(r.c2s_bytes));
    t.s2c_pkts.put(Some(r.s2c_pkts));
    t.s2c_bytes.put(Some(r.s2c_bytes));
    t.end_reason
        .id(END_IDS, r.end_reason as usize, r.end_reason.as_str());
    // Labels by their id in the run's registry.
    let labels = std::ptr::from_ref(r.labels) as usize;
    let (label, id) = (r.label_names(), r.label.index());
    t.proto.id(labels, id, label.proto());
    t.app.id(labels, id, label.app());
    t.master.id(labels, id, label.master());
    t.category.id(labels, id, label.category());
    t.ip_owner.opt(r.ip_owner);
    method(&mut t.method, r.method);
    t.confidence.put(Some(conf(r.confidence)));
    t.ttb_pkts.int(Some(r.ttb_pkts.into()));
    t.ttb_us.put(Some(r.ttb_us));
    match r.fpc {
        None => t.fpc.null(),
        Some((l, _)) => t.fpc.id(labels, l.index(), r.labels.get(l).proto()),
    }
    method(&mut t.fpc_method, r.fpc.map(|f| f.1));
    t.encrypted.put(Some(r.encrypted));
    let mut risks = r.risks.iter();
    match (risks.next(), risks.next()) {
        (None, _) => t.risks.null(),
        // One risk (the common case): its name as it is.
        (Some(k), None) => t.risks.text(Some(k.name())),
        _ => {
            scratch.clear();
            for (i, k) in r.risks.iter().enumerate() {
                if i > 0 {
                    scratch.push(b';');
                }
                scratch.extend_from_slice(k.name().as_bytes());
            }
            t.risks.text(Some(as_text(scratch)));
        }
    }
    t.risk_score.int(Some(r.risks.score().into()));
    if let Some(c) = &mut cols.community_id {
        scratch.clear();
        let defined = crate::community_id(
            scratch,
            (r.src_ip, r.src_port),
            (r.dst_ip, r.dst_port),
            r.l4,
        );
        c.text(defined.then(|| as_text(scratch)));
    }
    if let Some(c) = &mut cols.act {
        let a = r.act.as_ref();
        c.rule.text(a.map(|a| a.rule));
        c.action.text(a.map(|a| a.action));
        c.dropped_pkts.put(a.map(|a| a.dropped_pkts));
        c.dropped_bytes.put(a.map(|a| a.dropped_bytes));
        c.bound.put(a.map(|a| a.bound));
    }
    if let Some(d) = &mut cols.dist {
        dist(d, r);
    }
    if let Some(t) = &mut cols.tcp {
        tcp(t, r);
    }
    if let (Some(s), Some(a)) = (&mut cols.splt, &mut cols.atoz) {
        features(s, a, r);
    }
    // The model did not run: all three absent.
    let s = &mut cols.stats;
    s.stats_app.opt(r.stats_app);
    s.stats_class.opt(r.stats_class);
    s.stats_score
        .put((!r.stats_app.is_empty()).then(|| conf(r.stats_score)));
    for i in 0..META_COUNT {
        let (c, v) = (&mut cols.meta.cols[i], r.meta[i]);
        if v.is_empty() {
            c.null();
            continue;
        }
        match c.value() {
            // A number on the wire (`Syntax::opt_num`), or null.
            Either::U32(n) => match meta_num(v).and_then(|v| u32::try_from(v).ok()) {
                Some(v) => n.push(v),
                None => n.nulls(1),
            },
            Either::Dict(d) => d.append(v),
            Either::Text(s) => s.push(v),
            Either::F64(_) => panic!("arrow: no metadata is a float"),
        }
    }
}

/// A method's name (null without one), looked up by the method's number.
fn method(col: &mut Dict, m: Option<Method>) {
    match m {
        None => col.null(),
        Some(m) => col.id(METHOD_IDS, m as usize, m.as_str()),
    }
}

/// The id spaces of [`DictCol::append_id`] that are no label registry's address: IP protocol
/// numbers, end reasons, methods.
const L4_IDS: usize = 1;
const END_IDS: usize = 2;
const METHOD_IDS: usize = 3;

/// [`crate::DIST_FIELDS`], as `format::dist_fields` writes them.
fn dist(c: &mut Dist, r: &FlowRecord<'_>) {
    let Some(d) = r.dist.as_ref() else {
        return c.null();
    };
    for (c, dir) in [(&mut c.c2s, &d.c2s), (&mut c.s2c, &d.s2c)] {
        let sizes = dir.packets > 0;
        let gaps = dir.gaps > 0;
        c.ps_min.int(sizes.then_some(dir.size_min.into()));
        c.ps_mean.put(sizes.then(|| fixed3(dir.size_mean)));
        c.ps_max.int(sizes.then_some(dir.size_max.into()));
        c.ps_std.put(sizes.then(|| fixed3(dir.size_std)));
        for (c, v) in [
            (&mut c.piat_min_us, dir.gap_min_us),
            (&mut c.piat_mean_us, dir.gap_mean_us),
            (&mut c.piat_max_us, dir.gap_max_us),
            (&mut c.piat_std_us, dir.gap_std_us),
        ] {
            c.put(gaps.then(|| fixed3(v)));
        }
        let flags = [
            &mut c.syn, &mut c.fin, &mut c.rst, &mut c.psh, &mut c.ack, &mut c.urg, &mut c.ece,
            &mut c.cwr,
        ];
        for (c, n) in flags.into_iter().zip(dir.flags) {
            c.int(Some(n.into()));
        }
    }
}

/// [`crate::TCP_FIELDS`], as `format::tcp_fields` writes them.
fn tcp(c: &mut Tcp, r: &FlowRecord<'_>) {
    let Some(t) = r.tcp.as_ref() else {
        return c.null();
    };
    for (c, d) in [(&mut c.c2s, &t.c2s), (&mut c.s2c, &t.s2c)] {
        let rtt = d.rtt_n > 0;
        c.retrans.int(Some(d.retrans.into()));
        c.retrans_bytes.put(Some(d.retrans_bytes));
        c.ooo.int(Some(d.ooo.into()));
        c.dup.int(Some(d.dup.into()));
        c.rtt_n.int(Some(d.rtt_n.into()));
        c.rtt_min_us.int(rtt.then_some(d.rtt_min_us.into()));
        c.rtt_mean_us.put(rtt.then(|| fixed3(d.rtt_mean_us)));
        c.rtt_max_us.int(rtt.then_some(d.rtt_max_us.into()));
        c.rtt_std_us.put(rtt.then(|| fixed3(d.rtt_std_us)));
        c.ttl_min.int(d.ttl.map(|t| t.0.into()));
        c.ttl_max.int(d.ttl.map(|t| t.1.into()));
        c.mss.int(d.mss.map(u64::from));
        c.wscale.int(d.wscale.map(u64::from));
        c.sack_ok.put(d.sack_ok);
        c.ts_ok.put(d.ts_ok);
        c.win_init.int(d.win_init.map(u64::from));
        c.zero_win.int(Some(d.zero_win.into()));
        c.unique_bytes.put(Some(d.unique_bytes));
        c.first_payload_us.put(d.first_payload_us);
        c.last_payload_us.put(d.last_payload_us);
    }
    c.hs_rtt_us.put(t.hs_rtt_us);
    c.tcp_close.opt(t.close);
    c.history.opt(t.history());
    c.conn_state.opt(t.conn_state);
}

/// [`crate::FEATURE_FIELDS`]: the `splt_*` lists, then the AtoZ features (two decimals, as
/// `format::feature_fields` writes them; null where JSON writes null).
fn features(
    s: &mut Splt,
    atoz: &mut Eithers<{ wirespeed_stats::ATOZ_NAMES.len() }>,
    r: &FlowRecord<'_>,
) {
    use wirespeed_stats::SizeMode;
    let e = &r.early;
    let n = e.len();
    for (c, mode) in [
        (&mut s.splt_ip, SizeMode::Ip),
        (&mut s.splt_payload, SizeMode::Payload),
    ] {
        c.value()
            .b
            .append_value((0..n).map(|i| Some(e.signed(i, mode))));
    }
    s.splt_iat_us
        .value()
        .b
        .append_value(e.iat_us[..n.saturating_sub(1)].iter().map(|&v| Some(v)));
    s.splt_flags
        .value()
        .b
        .append_value(e.flags[..n].iter().map(|&v| Some(v)));
    let f = e.atoz(r.l4, r.dst_port);
    for (c, v) in atoz.cols.iter_mut().zip(f) {
        let h = (0.0..1e15)
            .contains(&v)
            .then(|| (v as f64 * 100.0).round() as u64);
        let Some(h) = h else {
            c.null();
            continue;
        };
        match c.value() {
            Either::F64(x) => x.push(h as f64 / 100.0),
            // Whole numbers by construction (counts from u32s as f32).
            Either::U32(x) => x.push((h / 100).min(u32::MAX.into()) as u32),
            _ => panic!("arrow: the AtoZ features are numbers"),
        }
    }
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
    builders: Cols,
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
            builders: Cols::new(&cols, rows_per_batch.clamp(1, ROOM)),
            schema: schema(&cols),
            keep: kept(&cols),
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
        let arrays = project(self.builders.finish(room), self.keep.as_deref());
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
        append(&mut self.builders, r, &mut self.scratch);
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
