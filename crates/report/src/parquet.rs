//! Parquet records in (cargo feature `parquet`): the columns `classify --format parquet`
//! writes, read by name, a row group at a time (memory bounded by the file's row groups).

use crate::input::{Error, Row, REQUIRED};
use arrow_array::cast::AsArray;
use arrow_array::types::{
    Float64Type, Int32Type, Int64Type, TimestampMicrosecondType, UInt16Type, UInt32Type,
    UInt64Type, UInt8Type,
};
use arrow_array::{Array, RecordBatch};
use arrow_schema::{DataType, TimeUnit};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use std::borrow::Cow;

/// Rows a batch holds.
const BATCH: usize = 8192;

/// One column of a batch, by what it holds.
enum Col<'a> {
    Missing,
    Str(&'a dyn Array),
    Num(&'a dyn Array),
}

impl<'a> Col<'a> {
    fn of(b: &'a RecordBatch, name: &str) -> Col<'a> {
        match b.column_by_name(name) {
            None => Col::Missing,
            Some(a) => match a.data_type() {
                DataType::Utf8 | DataType::LargeUtf8 | DataType::Dictionary(_, _) => {
                    Col::Str(a.as_ref())
                }
                _ => Col::Num(a.as_ref()),
            },
        }
    }

    fn str(&self, i: usize) -> Option<&'a str> {
        let Col::Str(a) = self else { return None };
        if a.is_null(i) {
            return None;
        }
        let s = match a.data_type() {
            DataType::Utf8 => a.as_string::<i32>().value(i),
            DataType::LargeUtf8 => a.as_string::<i64>().value(i),
            DataType::Dictionary(k, v) if **k == DataType::Int32 && **v == DataType::Utf8 => {
                let d = a.as_dictionary::<Int32Type>();
                let key = usize::try_from(d.keys().value(i)).ok()?;
                let values = d.values().as_string_opt::<i32>()?;
                (key < values.len()).then(|| values.value(key))?
            }
            _ => return None,
        };
        (!s.is_empty()).then_some(s)
    }

    /// A number; timestamps as seconds.
    fn f64(&self, i: usize) -> Option<f64> {
        let Col::Num(a) = self else {
            return self.str(i).and_then(|s| s.trim().parse().ok());
        };
        if a.is_null(i) {
            return None;
        }
        Some(match a.data_type() {
            DataType::UInt64 => a.as_primitive::<UInt64Type>().value(i) as f64,
            DataType::UInt32 => f64::from(a.as_primitive::<UInt32Type>().value(i)),
            DataType::UInt16 => f64::from(a.as_primitive::<UInt16Type>().value(i)),
            DataType::UInt8 => f64::from(a.as_primitive::<UInt8Type>().value(i)),
            DataType::Int64 => a.as_primitive::<Int64Type>().value(i) as f64,
            DataType::Int32 => f64::from(a.as_primitive::<Int32Type>().value(i)),
            DataType::Float64 => a.as_primitive::<Float64Type>().value(i),
            DataType::Timestamp(TimeUnit::Microsecond, _) => {
                a.as_primitive::<TimestampMicrosecondType>().value(i) as f64 / 1e6
            }
            _ => return None,
        })
    }

    fn u64(&self, i: usize) -> Option<u64> {
        if let Col::Num(a) = self {
            if !a.is_null(i) && *a.data_type() == DataType::UInt64 {
                return Some(a.as_primitive::<UInt64Type>().value(i));
            }
        }
        self.f64(i)
            .filter(|v| v.is_finite() && *v >= 0.0)
            .map(|v| v as u64)
    }
}

fn opt<'a>(c: &Col<'a>, i: usize) -> Option<Cow<'a, str>> {
    c.str(i).map(Cow::Borrowed)
}

fn req<'a>(c: &Col<'a>, i: usize, name: &str, n: u64, k: &str) -> Result<Cow<'a, str>, Error> {
    opt(c, i).ok_or_else(|| Error(format!("{name}: row {n}: column `{k}` is empty")))
}

/// Every record of the Parquet file `file`, handed to `f` in order.
pub fn read_parquet(
    name: &str,
    file: std::fs::File,
    mut f: impl FnMut(&Row<'_>),
) -> Result<(), Error> {
    let e = |e: &dyn std::fmt::Display| Error(format!("{name}: {e}"));
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).map_err(|x| e(&x))?;
    let schema = builder.schema().clone();
    for req in REQUIRED {
        if schema.column_with_name(req).is_none() {
            return Err(Error(format!("{name}: missing column `{req}`")));
        }
    }
    let reader = builder.with_batch_size(BATCH).build().map_err(|x| e(&x))?;
    let mut n = 0u64;
    for batch in reader {
        let b = batch.map_err(|x| e(&x))?;
        let c = |k: &str| Col::of(&b, k);
        let (pcap, src_ip, src_port, dst_ip, dst_port, l4, tunnel) = (
            c("pcap"),
            c("src_ip"),
            c("src_port"),
            c("dst_ip"),
            c("dst_port"),
            c("l4"),
            c("tunnel"),
        );
        let (first, last, c2s_p, c2s_b, s2c_p, s2c_b) = (
            c("first_ts"),
            c("last_ts"),
            c("c2s_pkts"),
            c("c2s_bytes"),
            c("s2c_pkts"),
            c("s2c_bytes"),
        );
        let (end, app, cat, method, ttb, risks) = (
            c("end_reason"),
            c("app"),
            c("category"),
            c("method"),
            c("ttb_pkts"),
            c("risks"),
        );
        let (sni, http_host, dns_query, tls, ja4) = (
            c("sni"),
            c("http_host"),
            c("dns_query"),
            c("tls_version"),
            c("ja4"),
        );
        for i in 0..b.num_rows() {
            n += 1;
            let need = |v: Option<u64>, col: &str| {
                v.ok_or_else(|| Error(format!("{name}: row {n}: column `{col}` is empty")))
            };
            let secs = |col: &Col<'_>, k: &str| {
                col.f64(i)
                    .ok_or_else(|| Error(format!("{name}: row {n}: column `{k}` is empty")))
            };
            let port = |col: &Col<'_>| col.u64(i).and_then(|p| u16::try_from(p).ok());
            let row = Row {
                pcap: opt(&pcap, i),
                src_ip: req(&src_ip, i, name, n, "src_ip")?,
                src_port: port(&src_port),
                dst_ip: req(&dst_ip, i, name, n, "dst_ip")?,
                dst_port: port(&dst_port),
                l4: opt(&l4, i),
                tunnel: opt(&tunnel, i),
                first_ts: secs(&first, "first_ts")?,
                last_ts: secs(&last, "last_ts")?,
                c2s_pkts: need(c2s_p.u64(i), "c2s_pkts")?,
                c2s_bytes: need(c2s_b.u64(i), "c2s_bytes")?,
                s2c_pkts: need(s2c_p.u64(i), "s2c_pkts")?,
                s2c_bytes: need(s2c_b.u64(i), "s2c_bytes")?,
                end_reason: opt(&end, i),
                app: req(&app, i, name, n, "app")?,
                category: opt(&cat, i),
                method: opt(&method, i),
                ttb_pkts: ttb.u64(i),
                risks: opt(&risks, i),
                sni: opt(&sni, i),
                http_host: opt(&http_host, i),
                dns_query: opt(&dns_query, i),
                tls_version: opt(&tls, i),
                ja4: opt(&ja4, i),
            };
            f(&row);
        }
    }
    Ok(())
}
