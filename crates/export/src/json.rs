//! JSON lines: one object per record, every key of [`crate::FIELDS`] the options select, in order; absent values are `null`.

use crate::format::{flush_at, record, Columns, Syntax, FLUSH_AT};
use crate::{FlowRecord, RecordSink};
use std::io::{self, Write};

/// JSON string escaping (RFC 8259): quotes, backslash and control characters.
pub(crate) fn json_str(buf: &mut Vec<u8>, s: &str) {
    buf.push(b'"');
    json_esc(buf, s);
    buf.push(b'"');
}

/// The inside of a JSON string (no quotes).
#[inline]
pub(crate) fn json_esc(buf: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    // Fast path: labels and names almost never need escaping.
    if !needs_escape(bytes) {
        buf.extend_from_slice(bytes);
        return;
    }
    json_esc_slow(buf, bytes);
}

/// Does `b` hold a byte JSON escapes (a control character, `"` or `\`)? Eight bytes at a time:
/// for a word `w`, `(w - k·0x01…01) & !w & 0x80…80` is non-zero exactly when some byte of `w`
/// is below `k` (k ≤ 0x80); a byte equal to `c` is a zero byte of `w ^ c·0x01…01`. The answer
/// is exact, not a filter (the test `escape_scan_agrees_with_the_bytewise_test` holds it to the
/// byte-by-byte definition).
#[inline]
fn needs_escape(b: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let below = |w: u64, k: u64| w.wrapping_sub(k * ONES) & !w & HIGH != 0;
    let mut words = b.chunks_exact(8);
    for c in &mut words {
        let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        if below(w, 0x20)
            || below(w ^ (u64::from(b'"') * ONES), 1)
            || below(w ^ (u64::from(b'\\') * ONES), 1)
        {
            return true;
        }
    }
    words
        .remainder()
        .iter()
        .any(|&c| c < 0x20 || c == b'"' || c == b'\\')
}

#[cold]
pub(crate) fn json_esc_slow(buf: &mut Vec<u8>, bytes: &[u8]) {
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let esc: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0..=0x1f => b"",
            _ => continue,
        };
        buf.extend_from_slice(&bytes[start..i]);
        if esc.is_empty() {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            buf.extend_from_slice(b"\\u00");
            buf.push(HEX[(b >> 4) as usize]);
            buf.push(HEX[(b & 15) as usize]);
        } else {
            buf.extend_from_slice(esc);
        }
        start = i + 1;
    }
    buf.extend_from_slice(&bytes[start..]);
}

/// Writes one JSON object per line.
pub struct JsonLinesWriter<W: Write> {
    pub(crate) out: W,
    buf: Vec<u8>,
    cols: Columns,
}

impl<W: Write> JsonLinesWriter<W> {
    /// A writer to `out`; `with_source` adds the `source` and `pcap` fields.
    pub fn new(out: W, with_source: bool) -> Self {
        JsonLinesWriter {
            out,
            buf: Vec::with_capacity(FLUSH_AT + 4096),
            cols: Columns {
                with_source,
                ..Columns::default()
            },
        }
    }

    /// Also write the early-flow features ([`crate::FEATURE_FIELDS`]); off by default because they
    /// double the record's size.
    pub fn with_features(mut self, on: bool) -> Self {
        self.cols.features = on;
        self
    }

    /// Also write each flow's Community ID ([`crate::community_id`]); off by default (a SHA-1
    /// per record).
    pub fn with_community_id(mut self, on: bool) -> Self {
        self.cols.community = on;
        self
    }

    /// Also write what an inline run did to each flow ([`crate::ACT_FIELDS`]); off by
    /// default.
    pub fn with_action(mut self, on: bool) -> Self {
        self.cols.action = on;
        self
    }

    /// Also write the whole-flow distributions ([`crate::DIST_FIELDS`]); off by default.
    pub fn with_dist(mut self, on: bool) -> Self {
        self.cols.dist = on;
        self
    }

    /// Also write each flow's tunnel parent ([`crate::TUNNEL_PARENT_FIELD`]); off by default.
    pub fn with_tunnel_parent(mut self, on: bool) -> Self {
        self.cols.tunnel_parent = on;
        self
    }

    /// Write these optional columns (the constructor's `with_source` stays).
    pub fn with_columns(mut self, cols: Columns) -> Self {
        self.cols = Columns {
            with_source: self.cols.with_source,
            ..cols
        };
        self
    }

    /// Also write the TCP analysis ([`crate::TCP_FIELDS`]); off by default.
    pub fn with_tcp(mut self, on: bool) -> Self {
        self.cols.tcp = on;
        self
    }
}

impl<W: Write> RecordSink for JsonLinesWriter<W> {
    fn write(&mut self, r: &FlowRecord<'_>) -> io::Result<()> {
        record::<Json>(&mut self.buf, r, &self.cols);
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

    #[inline]
    fn str(b: &mut Vec<u8>, s: &str) {
        json_str(b, s);
    }

    #[inline]
    fn quoted(b: &mut Vec<u8>, write: impl FnOnce(&mut Vec<u8>)) {
        b.push(b'"');
        write(b);
        b.push(b'"');
    }

    #[inline]
    fn proto(b: &mut Vec<u8>, master: &str, app: Option<&str>) {
        b.push(b'"');
        json_esc(b, master);
        if let Some(a) = app {
            b.push(b'.');
            json_esc(b, a);
        }
        b.push(b'"');
    }
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
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn escape_scan_agrees_with_the_bytewise_test(b in proptest::collection::vec(any::<u8>(), 0..40)) {
            let want = b.iter().any(|&c| c < 0x20 || c == b'"' || c == b'\\');
            prop_assert_eq!(needs_escape(&b), want);
        }

        /// Whatever the string, the escaped form reads back as the string.
        #[test]
        fn escaped_strings_read_back(s in "\\PC{0,30}|[\\x00-\\x7f]{0,30}") {
            let mut buf = Vec::new();
            json_str(&mut buf, &s);
            let back: String = serde_json::from_slice(&buf).unwrap();
            prop_assert_eq!(back, s);
        }
    }
}
