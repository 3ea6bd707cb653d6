//! CSV (RFC 4180) with a header line: every column in [`crate::FIELDS`] order.

use crate::format::{flush_at, record_buffer, record_with, Columns, Syntax, FLUSH_AT};
use crate::out::TsDigits;
use crate::select::Selection;
use crate::{FlowRecord, RecordSink};
use std::io::{self, Write};

/// Writes CSV with a header line.
pub struct CsvWriter<W: Write> {
    pub(crate) out: W,
    buf: Vec<u8>,
    cols: Columns,
    /// The kept columns' writer, with [`Columns::keep`].
    sel: Option<Box<Selection>>,
    /// The last time's first eight digits.
    ts: TsDigits,
    /// `cols.groups()`: any optional group on (the record written without testing them when
    /// none is).
    groups: bool,
}

impl<W: Write> CsvWriter<W> {
    /// A writer to `out`; `with_source` adds the `source` and `pcap` columns. The header is
    /// written with the first record (or by `finish` when there is none).
    pub fn new(out: W, with_source: bool) -> Self {
        let mut w = CsvWriter {
            out,
            buf: record_buffer(),
            cols: Columns {
                with_source,
                ..Columns::default()
            },
            sel: None,
            ts: TsDigits::default(),
            groups: false,
        };
        w.header();
        w
    }

    /// Also write the early-flow features ([`crate::FEATURE_FIELDS`]); off by default because they
    /// double the record's size. Call before writing any record (a [`CsvWriter::headerless`]
    /// writer stays headerless).
    pub fn with_features(self, on: bool) -> Self {
        self.set(|c| c.features = on)
    }

    /// Also write each flow's Community ID ([`crate::community_id`]); off by default (a SHA-1
    /// per record). Call before writing any record, as [`CsvWriter::with_features`].
    pub fn with_community_id(self, on: bool) -> Self {
        self.set(|c| c.community = on)
    }

    /// Also write what an inline run did to each flow ([`crate::ACT_FIELDS`]); off by
    /// default. Call before writing any record, as [`CsvWriter::with_features`].
    pub fn with_action(self, on: bool) -> Self {
        self.set(|c| c.action = on)
    }

    /// Also write the whole-flow distributions ([`crate::DIST_FIELDS`]); off by default. Call
    /// before writing any record, as [`CsvWriter::with_features`].
    pub fn with_dist(self, on: bool) -> Self {
        self.set(|c| c.dist = on)
    }

    /// Also write the TCP analysis ([`crate::TCP_FIELDS`]); off by default. Call before
    /// writing any record, as [`CsvWriter::with_features`].
    pub fn with_tcp(self, on: bool) -> Self {
        self.set(|c| c.tcp = on)
    }

    /// Also write each flow's tunnel parent ([`crate::TUNNEL_PARENT_FIELD`]); off by default.
    /// Call before writing any record, as [`CsvWriter::with_features`].
    pub fn with_tunnel_parent(self, on: bool) -> Self {
        self.set(|c| c.tunnel_parent = on)
    }

    /// Write these optional columns (the constructor's `with_source` stays), only those of
    /// `cols.keep` when it is set. Call before writing any record, as
    /// [`CsvWriter::with_features`].
    pub fn with_columns(self, cols: Columns) -> Self {
        self.set(|c| {
            *c = Columns {
                with_source: c.with_source,
                ..cols
            }
        })
    }

    /// Change the columns, and the header if it is still to be written.
    fn set(mut self, change: impl FnOnce(&mut Columns)) -> Self {
        let had_header = !self.buf.is_empty();
        change(&mut self.cols);
        self.sel = self
            .cols
            .keep
            .map(|k| Box::new(Selection::new::<Csv>(&self.cols, &k)));
        self.groups = self.cols.groups();
        self.buf.clear();
        if had_header {
            self.header();
        }
        self
    }

    fn header(&mut self) {
        self.buf
            .extend_from_slice(self.cols.names().join(",").as_bytes());
        self.buf.push(b'\n');
    }
}

impl<W: Write> RecordSink for CsvWriter<W> {
    fn write(&mut self, r: &FlowRecord<'_>) -> io::Result<()> {
        match self.sel.as_deref_mut() {
            None if self.groups => {
                record_with::<Csv, true>(&mut self.buf, r, &self.cols, &mut self.ts)
            }
            None => record_with::<Csv, false>(&mut self.buf, r, &self.cols, &mut self.ts),
            Some(s) => s.record::<Csv>(&mut self.buf, r, &self.cols),
        }
        flush_at(&mut self.out, &mut self.buf, FLUSH_AT)
    }

    fn finish(&mut self) -> io::Result<()> {
        flush_at(&mut self.out, &mut self.buf, 0)?;
        self.out.flush()
    }
}

/// CSV (RFC 4180 fields).
pub(crate) struct Csv;

impl Syntax for Csv {
    const JSON: bool = false;
    const OPEN: &'static [u8] = b"";
    const CLOSE: &'static [u8] = b"\n";
}

impl<W: Write> CsvWriter<W> {
    /// A writer without the header line: for several writers sharing one output, after the
    /// header was written once (by a `CsvWriter::new` with no records).
    pub fn headerless(out: W, with_source: bool) -> Self {
        let mut w = CsvWriter::new(out, with_source);
        w.buf.clear();
        w
    }

    /// Write anything buffered and return the output.
    pub fn into_inner(mut self) -> io::Result<W> {
        self.finish()?;
        Ok(self.out)
    }
}
