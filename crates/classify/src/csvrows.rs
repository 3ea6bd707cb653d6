//! Rows of the crate's CSV data files (`data/app_hosts.csv`, `data/app_networks.csv`,
//! `data/ndpi_protocols.csv`, and an operator's files of the same shapes), read with the `csv`
//! crate.
//!
//! The rules every such file follows: RFC 4180 quoting (a field in double quotes may hold
//! commas, and `""` for a quote; the opening quote must be the field's first byte, right after
//! the comma); LF or CRLF line ends; a leading byte-order mark is skipped; blank lines and lines
//! whose first non-blank byte is `#` are skipped; white space around each field is trimmed. A
//! field stays on its line: a quote still open at the end of its line is an error
//! ([`RowError`]) naming the line its row starts on. A line longer than [`MAX_LINE`] is an
//! error before any row is read: no field of these files comes near it, and the CSV reader
//! would hold the whole line (a 64 MiB one took the process to 456 MiB).

use csv::{ReaderBuilder, StringRecord};
use std::io::{Chain, Read};

/// A row that cannot be read: the 1-based line it starts on, and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RowError {
    /// The row's first line.
    pub line: usize,
    /// [`UNTERMINATED`] or [`TOO_LONG`].
    pub why: &'static str,
}

/// A quoted field not closed on its line.
pub(crate) const UNTERMINATED: &str =
    "a quoted field is not closed on its line (an unterminated quote)";

/// Longest line read, bytes.
pub(crate) const MAX_LINE: usize = 64 << 10;

/// A line longer than [`MAX_LINE`].
pub(crate) const TOO_LONG: &str = "the line is longer than 64 KiB";

/// The rows of a text, one at a time ([`Rows::next_row`]).
pub(crate) struct Rows<'a> {
    rdr: csv::Reader<Chain<&'a [u8], &'static [u8]>>,
    rec: StringRecord,
    text: &'a [u8],
    /// A byte of `text` and its line: where the line count stands.
    at: (usize, usize),
    /// The line lengths were checked ([`MAX_LINE`]).
    checked: bool,
}

/// Read `text` (see the module docs for the rules).
pub(crate) fn rows(text: &str) -> Rows<'_> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    // A final line break, so that a quote left open on a last line without one shows as a
    // line break inside the field, as on any other line.
    let input = text.as_bytes().chain(&b"\n"[..]);
    let rdr = ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .comment(Some(b'#'))
        .from_reader(input);
    Rows {
        rdr,
        rec: StringRecord::new(),
        text: text.as_bytes(),
        at: (0, 1),
        checked: false,
    }
}

impl Rows<'_> {
    /// The next row that is neither blank nor a comment: its first line (1-based) and its
    /// trimmed fields; `None` at the end of the text.
    pub(crate) fn next_row(&mut self) -> Result<Option<(usize, &StringRecord)>, RowError> {
        if !self.checked {
            self.checked = true;
            if let Some(i) = self
                .text
                .split(|&b| b == b'\n')
                .position(|l| l.len() > MAX_LINE)
            {
                return Err(RowError {
                    line: i + 1,
                    why: TOO_LONG,
                });
            }
        }
        loop {
            let more = self.rdr.read_record(&mut self.rec);
            // The reader's position of a row is where the reading started: before the line
            // break that ended the row before, and the blank and comment lines the reader
            // skipped (which its line count leaves out). The row's line is counted here.
            let byte = self.rec.position().map_or(self.text.len(), |p| {
                usize::try_from(p.byte()).map_or(self.text.len(), |b| b.min(self.text.len()))
            });
            let byte = row_start(self.text, byte);
            let (from, line) = self.at;
            let skipped = self.text.get(from..byte).unwrap_or_default();
            let line = line + skipped.iter().filter(|&&b| b == b'\n').count();
            self.at = (byte.max(from), line);
            match more {
                Ok(false) => return Ok(None),
                Ok(true) => {}
                // Text in memory is valid UTF-8 and rows may have any length, so the reader
                // has no error to give; should it, the row is not readable CSV all the same.
                Err(_) => {
                    return Err(RowError {
                        line,
                        why: UNTERMINATED,
                    })
                }
            }
            // A field never holds a line break unless a quote left it open.
            if self.rec.iter().any(|f| f.contains(['\n', '\r'])) {
                return Err(RowError {
                    line,
                    why: UNTERMINATED,
                });
            }
            // Trimming rebuilds the record: only when a field needs it (the shipped files'
            // fields have no white space around them; 17,400 rows are read at every start).
            let padded = |f: &str| {
                f.starts_with(|c: char| c.is_whitespace())
                    || f.ends_with(|c: char| c.is_whitespace())
            };
            if self.rec.iter().any(padded) {
                self.rec.trim();
            }
            let first = self.rec.get(0).unwrap_or("");
            // A line of white space only; a comment indented past the line's first byte.
            if (self.rec.len() == 1 && first.is_empty()) || first.starts_with('#') {
                continue;
            }
            return Ok(Some((line, &self.rec)));
        }
    }
}

/// Where a row the reader started reading at `at` begins: past line breaks and `#` comment
/// lines, as the reader skips them.
fn row_start(text: &[u8], mut at: usize) -> usize {
    while let Some(&b) = text.get(at) {
        match b {
            b'\r' | b'\n' => at += 1,
            b'#' => {
                at = text[at..]
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(text.len(), |n| at + n + 1)
            }
            _ => break,
        }
    }
    at
}

/// Line `line` (1-based) of `text`, trimmed, for an error message; empty past the end.
pub(crate) fn line_text(text: &str, line: usize) -> &str {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    line.checked_sub(1)
        .and_then(|i| text.lines().nth(i))
        .map_or("", str::trim)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(text: &str) -> Result<Vec<(usize, Vec<String>)>, RowError> {
        let mut r = rows(text);
        let mut out = Vec::new();
        while let Some((line, rec)) = r.next_row()? {
            out.push((line, rec.iter().map(str::to_string).collect()));
        }
        Ok(out)
    }

    fn un(line: usize) -> RowError {
        RowError {
            line,
            why: UNTERMINATED,
        }
    }

    /// A line past [`MAX_LINE`] is refused before anything is read, naming it.
    #[test]
    fn a_line_too_long_is_refused_naming_it() {
        let text = format!("a,b\nc,d\n{},x\n", "y".repeat(MAX_LINE + 1));
        assert_eq!(
            all(&text),
            Err(RowError {
                line: 3,
                why: TOO_LONG
            })
        );
        let ok = format!("a,b\n{},x\n", "y".repeat(MAX_LINE - 2));
        assert_eq!(all(&ok).unwrap().len(), 2);
    }

    fn row(line: usize, fields: &[&str]) -> (usize, Vec<String>) {
        (line, fields.iter().map(|f| f.to_string()).collect())
    }

    #[test]
    fn quoted_fields_embedded_commas_and_quotes() {
        let text = "a,b\n\"*.example.com\",\"My App, Inc.\",Web,Fun\n\"say \"\"hi\"\"\",x\n";
        assert_eq!(
            all(text).unwrap(),
            vec![
                row(1, &["a", "b"]),
                row(2, &["*.example.com", "My App, Inc.", "Web", "Fun"]),
                row(3, &["say \"hi\"", "x"]),
            ]
        );
    }

    #[test]
    fn crlf_bom_blank_lines_comments_and_white_space() {
        let text =
            "\u{feff}# head, \"quoted\n\r\n a , b \r\n   \r\n  # indented, comment\r\nc,\"d\"\r\n";
        assert_eq!(
            all(text).unwrap(),
            vec![row(3, &["a", "b"]), row(6, &["c", "d"])]
        );
        // No final line break.
        assert_eq!(all("x,y").unwrap(), vec![row(1, &["x", "y"])]);
    }

    #[test]
    fn unterminated_quote_names_its_line() {
        assert_eq!(all("h\nok\n\"open,x\nnext,y\n"), Err(un(3)));
        // On the last line, with and without a line break.
        assert_eq!(all("h\n\"open"), Err(un(2)));
        assert_eq!(all("h\n\"open\r\n"), Err(un(2)));
        // A quoted field across two lines is refused too: fields stay on their line.
        assert_eq!(all("a\n\"b\nc\",d\n"), Err(un(2)));
    }

    #[test]
    fn the_shipped_files_read_as_the_plain_comma_split_did() {
        // The rows, lines and fields the hand-written readers made of the built-in data (no
        // quotes there): a split on commas of each trimmed line that is neither blank nor a
        // comment.
        for text in [
            include_str!("../../../data/app_hosts.csv"),
            include_str!("../../../data/app_networks.csv"),
            include_str!("../../../data/ndpi_protocols.csv"),
        ] {
            let plain: Vec<(usize, Vec<String>)> = text
                .lines()
                .enumerate()
                .map(|(i, l)| (i + 1, l.trim()))
                .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
                .map(|(i, l)| (i, l.split(',').map(|f| f.trim().to_string()).collect()))
                .collect();
            assert!(plain.len() > 100);
            assert_eq!(all(text).unwrap(), plain);
        }
    }

    #[test]
    fn line_text_for_messages() {
        assert_eq!(line_text("\u{feff}a\n  b ,c \r\n", 2), "b ,c");
        assert_eq!(line_text("a", 0), "");
        assert_eq!(line_text("a", 5), "");
    }
}
