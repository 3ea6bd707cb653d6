//! JSON lines: one object per record, every key of [`crate::FIELDS`] the options select, in order; absent values are `null`.

use crate::format::{flush_at, record_buffer, record_with, Columns, Syntax, FLUSH_AT};
use crate::out::TsDigits;
use crate::select::Selection;
use crate::{FlowRecord, RecordSink};
use std::io::{self, Write};

/// Writes one JSON object per line.
pub struct JsonLinesWriter<W: Write> {
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

impl<W: Write> JsonLinesWriter<W> {
    /// A writer to `out`; `with_source` adds the `source` and `pcap` fields.
    pub fn new(out: W, with_source: bool) -> Self {
        JsonLinesWriter {
            out,
            buf: record_buffer(),
            cols: Columns {
                with_source,
                ..Columns::default()
            },
            sel: None,
            ts: TsDigits::default(),
            groups: false,
        }
    }

    /// Also write the early-flow features ([`crate::FEATURE_FIELDS`]); off by default because they
    /// double the record's size.
    pub fn with_features(self, on: bool) -> Self {
        self.set(|c| c.features = on)
    }

    /// Also write each flow's Community ID ([`crate::community_id`]); off by default (a SHA-1
    /// per record).
    pub fn with_community_id(self, on: bool) -> Self {
        self.set(|c| c.community = on)
    }

    /// Also write what an inline run did to each flow ([`crate::ACT_FIELDS`]); off by
    /// default.
    pub fn with_action(self, on: bool) -> Self {
        self.set(|c| c.action = on)
    }

    /// Also write the whole-flow distributions ([`crate::DIST_FIELDS`]); off by default.
    pub fn with_dist(self, on: bool) -> Self {
        self.set(|c| c.dist = on)
    }

    /// Also write each flow's tunnel parent ([`crate::TUNNEL_PARENT_FIELD`]); off by default.
    pub fn with_tunnel_parent(self, on: bool) -> Self {
        self.set(|c| c.tunnel_parent = on)
    }

    /// Write these optional columns (the constructor's `with_source` stays), only those of
    /// `cols.keep` when it is set.
    pub fn with_columns(self, cols: Columns) -> Self {
        self.set(|c| {
            *c = Columns {
                with_source: c.with_source,
                ..cols
            }
        })
    }

    /// Change the columns (and the kept columns' writer).
    fn set(mut self, change: impl FnOnce(&mut Columns)) -> Self {
        change(&mut self.cols);
        self.sel = self
            .cols
            .keep
            .map(|k| Box::new(Selection::new::<Json>(&self.cols, &k)));
        self.groups = self.cols.groups();
        self
    }

    /// Also write the TCP analysis ([`crate::TCP_FIELDS`]); off by default.
    pub fn with_tcp(self, on: bool) -> Self {
        self.set(|c| c.tcp = on)
    }
}

impl<W: Write> RecordSink for JsonLinesWriter<W> {
    fn write(&mut self, r: &FlowRecord<'_>) -> io::Result<()> {
        match self.sel.as_deref_mut() {
            None if self.groups => {
                record_with::<Json, true>(&mut self.buf, r, &self.cols, &mut self.ts)
            }
            None => record_with::<Json, false>(&mut self.buf, r, &self.cols, &mut self.ts),
            Some(s) => s.record::<Json>(&mut self.buf, r, &self.cols),
        }
        flush_at(&mut self.out, &mut self.buf, FLUSH_AT)
    }

    fn finish(&mut self) -> io::Result<()> {
        flush_at(&mut self.out, &mut self.buf, 0)?;
        self.out.flush()
    }
}

/// JSON lines (RFC 8259 strings).
pub(crate) struct Json;

impl Syntax for Json {
    const JSON: bool = true;
    const OPEN: &'static [u8] = b"{";
    const CLOSE: &'static [u8] = b"}\n";
}

impl<W: Write> JsonLinesWriter<W> {
    /// Write anything buffered and return the output.
    pub fn into_inner(mut self) -> io::Result<W> {
        self.finish()?;
        Ok(self.out)
    }
}

#[cfg(test)]
mod escape_tests {
    use crate::format::Fmt;
    use proptest::prelude::*;

    proptest! {
        /// Whatever the string, the escaped form reads back as the string.
        #[test]
        fn escaped_strings_read_back(s in "\\PC{0,30}|[\\x00-\\x7f]{0,30}") {
            let mut buf = Vec::new();
            Fmt::json_str(&mut buf, &s);
            let back: String = serde_json::from_slice(&buf).unwrap();
            prop_assert_eq!(back, s);
        }
    }
}
