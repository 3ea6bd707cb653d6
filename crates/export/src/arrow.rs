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
    ArrayBuilder, BooleanBuilder, Int32Builder, ListBuilder, NullBufferBuilder, StringBuilder,
    UInt32Builder, UInt8Builder,
};
use arrow_array::cast::AsArray;
use arrow_array::types::{
    ArrowPrimitiveType, Float64Type, Int32Type, TimestampMicrosecondType, UInt16Type, UInt32Type,
    UInt64Type, UInt8Type,
};
use arrow_array::{ArrayRef, DictionaryArray, PrimitiveArray, RecordBatch};
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

    fn finish(&mut self, room: usize) -> ArrayRef {
        self.value().finish(room)
    }
}

/// A column of fixed-width values: the values in a `Vec` (a null's a zero, as arrow's builders
/// write it), and the validity bitmap only from the first null on. Arrow's `PrimitiveBuilder`
/// costs some 30 instructions a value (a bit in its bitmap, a capacity check on each of two
/// buffers); a push costs a few.
struct Prim<T: ArrowPrimitiveType> {
    values: Vec<T::Native>,
    /// Validity, appended in runs: valid values up to `valid_to`, then the nulls at
    /// [`Column::nulls`].
    valid: NullBufferBuilder,
    valid_to: usize,
    /// The column's type (a timestamp's time zone).
    data_type: DataType,
}

impl<T: ArrowPrimitiveType> Prim<T> {
    fn new(rows: usize) -> Prim<T> {
        Prim {
            values: Vec::with_capacity(rows),
            valid: NullBufferBuilder::new(rows),
            valid_to: 0,
            data_type: T::DATA_TYPE,
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
        self.valid.append_n_non_nulls(len - self.valid_to);
        self.valid.append_n_nulls(n);
        self.values.resize(len + n, T::Native::default());
        self.valid_to = len + n;
    }

    fn finish(&mut self, room: usize) -> ArrayRef {
        let values = std::mem::replace(&mut self.values, Vec::with_capacity(room));
        self.valid.append_n_non_nulls(values.len() - self.valid_to);
        self.valid_to = 0;
        let nulls = self.valid.finish();
        self.valid = NullBufferBuilder::new(room);
        let a = PrimitiveArray::<T>::new(values.into(), nulls);
        Arc::new(a.with_data_type(self.data_type.clone()))
    }
}

/// An arrow builder (text, booleans, lists), and how to make an empty one with room for so
/// many values.
struct Built<B> {
    b: B,
    make: fn(usize) -> B,
}

impl<B> Built<B> {
    fn new(make: fn(usize) -> B, rows: usize) -> Built<B> {
        Built {
            b: make(rows),
            make,
        }
    }
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
                    self.b = (self.make)(room);
                }
                a
            }
        }
    )*};
}

built_column!(
    StringBuilder,
    BooleanBuilder,
    ListBuilder<Int32Builder>,
    ListBuilder<UInt32Builder>,
    ListBuilder<UInt8Builder>
);

/// A list builder of `Int32`, `UInt32` or `UInt8` items (not null).
fn list_builder<B: ArrayBuilder + Default>(t: DataType) -> impl Fn(usize) -> ListBuilder<B> {
    move |rows| {
        ListBuilder::with_capacity(B::default(), rows)
            .with_field(Arc::new(Field::new_list_field(t.clone(), false)))
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

/// Declares [`Cols`], the builders of each [`Kind`] in column order, and [`At`], a record's
/// position among each kind's builders.
macro_rules! cols {
    ($($kind:ident $field:ident: $col:ty = $make:expr;)*) => {
        /// The builders of a record's columns ([`names`]), by type: each kind's builders in
        /// column order, their types resolved when the sink is made, so that a record's values go
        /// each to its builder without a look at the column's type. [`Row`] writes a record's
        /// values in column order, each kind's to that kind's next builder.
        pub(crate) struct Cols {
            $($field: Vec<Slot<$col>>,)*
            /// Each column of [`names`]: its kind, and its index among that kind's builders.
            order: Vec<(Kind, usize)>,
            /// The kinds of the columns of [`META_FIELDS`], [`crate::DIST_FIELDS`],
            /// [`crate::TCP_FIELDS`] and the AtoZ features (written in loops, or all null).
            meta: Vec<Kind>,
            dist: Vec<Kind>,
            tcp: Vec<Kind>,
            atoz: Vec<Kind>,
        }

        /// A record's next builder of each kind.
        #[derive(Default)]
        struct At {
            $($field: usize,)*
        }

        impl Cols {
            /// The builders of the columns `cols`'s groups select, each with room for `rows`
            /// values.
            pub(crate) fn new(cols: &Columns, rows: usize) -> Cols {
                let kinds = |names: &[&str]| names.iter().map(|n| column(n).0).collect();
                let mut c = Cols {
                    $($field: Vec::new(),)*
                    order: Vec::new(),
                    meta: kinds(&META_FIELDS),
                    dist: kinds(&crate::DIST_FIELDS),
                    tcp: kinds(&crate::TCP_FIELDS),
                    atoz: kinds(&wirespeed_stats::ATOZ_NAMES),
                };
                for n in names(cols) {
                    let k = column(n).0;
                    let i = match k {
                        $(Kind::$kind => {
                            let make: fn(usize) -> $col = $make;
                            c.$field.push(Slot::new(make(rows)));
                            c.$field.len() - 1
                        })*
                    };
                    c.order.push((k, i));
                }
                c
            }

            /// Every column so far, in [`names`] order, the builders left with room for `room`
            /// values.
            pub(crate) fn finish(&mut self, room: usize) -> Vec<ArrayRef> {
                self.order
                    .iter()
                    .map(|&(k, i)| match k {
                        $(Kind::$kind => self.$field[i].finish(room),)*
                    })
                    .collect()
            }
        }

        impl At {
            /// Has a record filled every column (and no more)?
            fn filled(&self, c: &Cols) -> bool {
                true $(&& self.$field == c.$field.len())*
            }
        }
    };
}

cols! {
    U8 u8: Prim<UInt8Type> = Prim::new;
    U16 u16: Prim<UInt16Type> = Prim::new;
    U32 u32: Prim<UInt32Type> = Prim::new;
    U64 u64: Prim<UInt64Type> = Prim::new;
    F64 f64: Prim<Float64Type> = Prim::new;
    Bool bool: Built<BooleanBuilder> = |rows| Built::new(BooleanBuilder::with_capacity, rows);
    Str str: Built<StringBuilder> =
        |rows| Built::new(|rows| StringBuilder::with_capacity(rows, rows * 16), rows);
    Dict dict: DictCol = DictCol::new;
    Ts ts: Prim<TimestampMicrosecondType> = |rows| Prim {
        data_type: Kind::Ts.data_type(),
        ..Prim::new(rows)
    };
    ListI32 list_i32: Built<ListBuilder<Int32Builder>> =
        |rows| Built::new(|r| list_builder(DataType::Int32)(r), rows);
    ListU32 list_u32: Built<ListBuilder<UInt32Builder>> =
        |rows| Built::new(|r| list_builder(DataType::UInt32)(r), rows);
    ListU8 list_u8: Built<ListBuilder<UInt8Builder>> =
        |rows| Built::new(|r| list_builder(DataType::UInt8)(r), rows);
}

/// The next builder among `slots` (a record's `at`-th of its kind).
#[inline(always)]
fn next<'s, C>(slots: &'s mut [Slot<C>], at: &mut usize, what: &str) -> &'s mut Slot<C> {
    let i = *at;
    *at += 1;
    match slots.get_mut(i) {
        Some(s) => s,
        None => past(what, i),
    }
}

/// A record with more values of a type than the schema has columns of it: a bug of this
/// module.
#[cold]
#[inline(never)]
fn past(what: &str, at: usize) -> ! {
    panic!("arrow: a value past the schema's {at} columns of {what}")
}

/// Appends one record's values to the builders, column after column, each with the call for
/// its column's type.
struct Row<'a> {
    cols: &'a mut Cols,
    at: At,
}

/// An integer into a builder of `UInt8`..`UInt64`: null when absent or too wide for it.
macro_rules! int_method {
    ($($name:ident: $t:ty,)*) => {$(
        #[inline(always)]
        fn $name(&mut self, v: Option<u64>) {
            let s = next(&mut self.cols.$name, &mut self.at.$name, stringify!($t));
            match v.and_then(|v| <$t>::try_from(v).ok()) {
                Some(v) => s.value().push(v),
                None => s.null(),
            }
        }
    )*};
}

impl Row<'_> {
    int_method! {
        u8: u8,
        u16: u16,
        u32: u32,
        u64: u64,
    }

    #[inline(always)]
    fn f64(&mut self, v: Option<f64>) {
        let s = next(&mut self.cols.f64, &mut self.at.f64, "f64");
        match v {
            Some(v) => s.value().push(v),
            None => s.null(),
        }
    }

    #[inline(always)]
    fn flag(&mut self, v: Option<bool>) {
        let s = next(&mut self.cols.bool, &mut self.at.bool, "bool");
        match v {
            Some(v) => s.value().b.append_value(v),
            None => s.null(),
        }
    }

    /// Nanoseconds since the epoch, as a timestamp (µs).
    #[inline(always)]
    fn ts(&mut self, ns: u64) {
        let s = next(&mut self.cols.ts, &mut self.at.ts, "timestamps");
        s.value().push((ns / 1000) as i64);
    }

    /// Plain text; `None` is null.
    #[inline(always)]
    fn str(&mut self, v: Option<&str>) {
        let s = next(&mut self.cols.str, &mut self.at.str, "text");
        match v {
            Some(v) => s.value().b.append_value(v),
            None => s.null(),
        }
    }

    /// Dictionary text; `None` is null.
    #[inline(always)]
    fn dict(&mut self, v: Option<&str>) {
        let s = next(&mut self.cols.dict, &mut self.at.dict, "dictionary text");
        match v {
            Some(v) => s.value().append(v),
            None => s.null(),
        }
    }

    /// Dictionary text that is absent when empty (JSON's `opt_str`).
    #[inline(always)]
    fn opt_dict(&mut self, v: &str) {
        self.dict((!v.is_empty()).then_some(v));
    }

    /// Dictionary text the caller knows by an id among those of `scope` (a label, a protocol
    /// number).
    #[inline(always)]
    fn dict_id(&mut self, scope: usize, id: usize, v: &str) {
        let s = next(&mut self.cols.dict, &mut self.at.dict, "dictionary text");
        s.value().append_id(scope, id, v);
    }

    /// A null in the next column of kind `k`.
    fn null(&mut self, k: Kind) {
        macro_rules! null {
            ($($kind:ident $field:ident),*) => {
                match k {
                    $(Kind::$kind => next(&mut self.cols.$field, &mut self.at.$field, "nulls").null(),)*
                }
            };
        }
        null!(U8 u8, U16 u16, U32 u32, U64 u64, F64 f64, Bool bool, Str str, Dict dict, Ts ts,
            ListI32 list_i32, ListU32 list_u32, ListU8 list_u8);
    }

    /// Text, null when empty, in the next column of kind `k` (a metadata field): dictionary or
    /// plain text, or a number (`Syntax::opt_num`: null when not one).
    fn meta(&mut self, k: Kind, v: &str) {
        match k {
            Kind::U32 => self.u32(meta_num(v)),
            Kind::Dict => self.opt_dict(v),
            _ => self.str((!v.is_empty()).then_some(v)),
        }
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
pub(crate) fn append(cols: &mut Cols, r: &FlowRecord<'_>, c: &Columns, scratch: &mut Vec<u8>) {
    let mut row = Row {
        cols,
        at: At::default(),
    };
    if c.with_source {
        row.dict(Some(r.source.unwrap_or("")));
        row.opt_dict(r.pcap.unwrap_or(""));
    }
    row.u64(Some(r.flow_id));
    row.str(Some(Fmt::ip_str(scratch, &r.src_ip)));
    row.u16(Some(r.src_port.into()));
    row.str(Some(Fmt::ip_str(scratch, &r.dst_ip)));
    row.u16(Some(r.dst_port.into()));
    match l4_name(r.l4) {
        Some(n) => row.dict_id(L4_IDS, r.l4.into(), n),
        None => {
            scratch.clear();
            Fmt::int(scratch, r.l4);
            row.dict_id(L4_IDS, r.l4.into(), as_text(scratch));
        }
    }
    row.u8(Some(r.l4.into()));
    row.u16(Some(r.vlan.into()));
    row.opt_dict(r.tunnel);
    if c.tunnel_parent {
        row.u64(r.tunnel_parent);
    }
    row.ts(r.first_ts_ns);
    row.ts(r.last_ts_ns);
    let us = r.last_ts_ns.saturating_sub(r.first_ts_ns) / 1000;
    row.f64(Some(us as f64 / 1e6));
    row.u64(Some(r.c2s_pkts));
    row.u64(Some(r.c2s_bytes));
    row.u64(Some(r.s2c_pkts));
    row.u64(Some(r.s2c_bytes));
    row.dict_id(END_IDS, r.end_reason as usize, r.end_reason.as_str());
    // Labels by their id in the run's registry.
    let labels = std::ptr::from_ref(r.labels) as usize;
    let (label, id) = (r.label_names(), r.label.index());
    proto(&mut row, labels, Some((id, label)));
    row.dict_id(labels, id, label.app());
    row.dict_id(labels, id, label.master());
    row.dict_id(labels, id, label.category());
    row.opt_dict(r.ip_owner);
    method(&mut row, r.method);
    row.f64(Some(conf(r.confidence)));
    row.u32(Some(r.ttb_pkts.into()));
    row.u64(Some(r.ttb_us));
    let fpc = r.fpc.map(|(l, _)| (l.index(), r.labels.get(l)));
    proto(&mut row, labels, fpc);
    method(&mut row, r.fpc.map(|f| f.1));
    row.flag(Some(r.encrypted));
    let mut risks = r.risks.iter();
    match (risks.next(), risks.next()) {
        (None, _) => row.dict(None),
        // One risk (the common case): its name as it is.
        (Some(k), None) => row.dict(Some(k.name())),
        _ => {
            scratch.clear();
            for (i, k) in r.risks.iter().enumerate() {
                if i > 0 {
                    scratch.push(b';');
                }
                scratch.extend_from_slice(k.name().as_bytes());
            }
            row.dict(Some(as_text(scratch)));
        }
    }
    row.u32(Some(r.risks.score().into()));
    if c.community {
        scratch.clear();
        let defined = crate::community_id(
            scratch,
            (r.src_ip, r.src_port),
            (r.dst_ip, r.dst_port),
            r.l4,
        );
        row.str(defined.then(|| as_text(scratch)));
    }
    if c.action {
        let a = r.act.as_ref();
        row.dict(a.map(|a| a.rule));
        row.dict(a.map(|a| a.action));
        row.u64(a.map(|a| a.dropped_pkts));
        row.u64(a.map(|a| a.dropped_bytes));
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
    row.opt_dict(r.stats_app);
    row.opt_dict(r.stats_class);
    row.f64((!r.stats_app.is_empty()).then(|| conf(r.stats_score)));
    for (i, v) in r.meta.iter().enumerate() {
        let k = row.cols.meta[i];
        row.meta(k, v);
    }
    debug_assert!(
        row.at.filled(row.cols),
        "arrow: a record fills every column"
    );
}

/// `MASTER.APP` (or `APP`) of a label (its id among `labels`' ids), or null.
fn proto(row: &mut Row<'_>, labels: usize, l: Option<(usize, &wirespeed_classify::LabelEntry)>) {
    let Some((id, l)) = l else {
        return row.dict(None);
    };
    row.dict_id(labels, id, l.proto());
}

/// A method's name (null without one), looked up by the method's number.
fn method(row: &mut Row<'_>, m: Option<Method>) {
    match m {
        None => row.dict(None),
        Some(m) => row.dict_id(METHOD_IDS, m as usize, m.as_str()),
    }
}

/// The id spaces of [`Row::dict_id`] that are no label registry's address: IP protocol
/// numbers, end reasons, methods.
const L4_IDS: usize = 1;
const END_IDS: usize = 2;
const METHOD_IDS: usize = 3;

/// [`crate::DIST_FIELDS`], as `format::dist_fields` writes them.
fn dist(row: &mut Row<'_>, r: &FlowRecord<'_>) {
    let Some(d) = r.dist.as_ref() else {
        for i in 0..row.cols.dist.len() {
            row.null(row.cols.dist[i]);
        }
        return;
    };
    for dir in [&d.c2s, &d.s2c] {
        let sizes = dir.packets > 0;
        let gaps = dir.gaps > 0;
        row.u32(sizes.then_some(dir.size_min.into()));
        row.f64(sizes.then(|| fixed3(dir.size_mean)));
        row.u32(sizes.then_some(dir.size_max.into()));
        row.f64(sizes.then(|| fixed3(dir.size_std)));
        for v in [
            dir.gap_min_us,
            dir.gap_mean_us,
            dir.gap_max_us,
            dir.gap_std_us,
        ] {
            row.f64(gaps.then(|| fixed3(v)));
        }
        for n in dir.flags {
            row.u32(Some(n.into()));
        }
    }
}

/// [`crate::TCP_FIELDS`], as `format::tcp_fields` writes them.
fn tcp(row: &mut Row<'_>, r: &FlowRecord<'_>) {
    let Some(t) = r.tcp.as_ref() else {
        for i in 0..row.cols.tcp.len() {
            row.null(row.cols.tcp[i]);
        }
        return;
    };
    for d in [&t.c2s, &t.s2c] {
        let rtt = d.rtt_n > 0;
        row.u32(Some(d.retrans.into()));
        row.u64(Some(d.retrans_bytes));
        row.u32(Some(d.ooo.into()));
        row.u32(Some(d.dup.into()));
        row.u32(Some(d.rtt_n.into()));
        row.u32(rtt.then_some(d.rtt_min_us.into()));
        row.f64(rtt.then(|| fixed3(d.rtt_mean_us)));
        row.u32(rtt.then_some(d.rtt_max_us.into()));
        row.f64(rtt.then(|| fixed3(d.rtt_std_us)));
        row.u8(d.ttl.map(|t| t.0.into()));
        row.u8(d.ttl.map(|t| t.1.into()));
        row.u16(d.mss.map(u64::from));
        row.u8(d.wscale.map(u64::from));
        row.flag(d.sack_ok);
        row.flag(d.ts_ok);
        row.u16(d.win_init.map(u64::from));
        row.u32(Some(d.zero_win.into()));
        row.u64(Some(d.unique_bytes));
        row.u64(d.first_payload_us);
        row.u64(d.last_payload_us);
    }
    row.u64(t.hs_rtt_us);
    row.opt_dict(t.close);
    row.opt_dict(t.history());
    row.opt_dict(t.conn_state);
}

/// [`crate::FEATURE_FIELDS`]: the `splt_*` lists, then the AtoZ features (two decimals, as
/// `format::feature_fields` writes them; null where JSON writes null).
fn features(row: &mut Row<'_>, r: &FlowRecord<'_>) {
    use wirespeed_stats::SizeMode;
    let e = &r.early;
    let n = e.len();
    for mode in [SizeMode::Ip, SizeMode::Payload] {
        let s = next(&mut row.cols.list_i32, &mut row.at.list_i32, "lists");
        s.value()
            .b
            .append_value((0..n).map(|i| Some(e.signed(i, mode))));
    }
    let s = next(&mut row.cols.list_u32, &mut row.at.list_u32, "lists");
    s.value()
        .b
        .append_value(e.iat_us[..n.saturating_sub(1)].iter().map(|&v| Some(v)));
    let s = next(&mut row.cols.list_u8, &mut row.at.list_u8, "lists");
    s.value()
        .b
        .append_value(e.flags[..n].iter().map(|&v| Some(v)));
    let f = e.atoz(r.l4, r.dst_port);
    for (i, v) in f.into_iter().enumerate().take(row.cols.atoz.len()) {
        let h = (0.0..1e15)
            .contains(&v)
            .then(|| (v as f64 * 100.0).round() as u64);
        if row.cols.atoz[i] == Kind::F64 {
            row.f64(h.map(|h| h as f64 / 100.0));
        } else {
            // Whole numbers by construction (counts from u32s as f32).
            row.u32(h.map(|h| (h / 100).min(u32::MAX.into())));
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
    cols: Columns,
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
