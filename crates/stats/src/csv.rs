//! Label files (nDPI's flows.csv has quoted fields with commas), read with the `csv` crate
//! (RFC 4180).

use ::csv::{ReaderBuilder, StringRecord};

/// Longest line read, bytes.
pub const MAX_LINE: usize = 64 << 10;

/// Split CSV text into rows of fields. Quoted fields may hold commas, doubled quotes and line
/// breaks; LF or CRLF line ends; a final row without a newline counts; empty lines are
/// skipped; fields are kept as written (not trimmed), and rows may differ in length. A quote
/// opens a quoted field only as the field's first byte (elsewhere it is a plain character). A
/// quoted field still open at the end of the text is an error naming the line it opened on; a
/// line longer than [`MAX_LINE`] is an error naming it, before anything is read.
pub fn parse(text: &str) -> Result<Vec<Vec<String>>, String> {
    // No row of a labels file comes near it; the reader would hold a whole line, then its
    // copy (a 64 MiB line took training to 324 MiB).
    if let Some(i) = text
        .as_bytes()
        .split(|&b| b == b'\n')
        .position(|l| l.len() > MAX_LINE)
    {
        return Err(format!("line {}: the line is longer than 64 KiB", i + 1));
    }
    let mut rdr = ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(text.as_bytes());
    let mut rows = Vec::new();
    let mut rec = StringRecord::new();
    // Where the last row starts: byte and line.
    let mut last = (0, 1);
    loop {
        match rdr.read_record(&mut rec) {
            Ok(true) => {}
            Ok(false) => break,
            // Text in memory is UTF-8 and rows may differ in length: no error is left to give.
            Err(e) => return Err(format!("line {}: {e}", last.1)),
        }
        // The reader's position of a row is where the reading started: before the line break
        // that ended the row before and the blank lines the reader skipped (which its line
        // count leaves out). The row's line is counted here.
        if let Some(byte) = rec.position().and_then(|p| usize::try_from(p.byte()).ok()) {
            let byte = byte
                + text.as_bytes()[byte.min(text.len())..]
                    .iter()
                    .take_while(|&&b| b == b'\r' || b == b'\n')
                    .count();
            let skipped = text.as_bytes().get(last.0..byte).unwrap_or_default();
            last = (
                byte,
                last.1 + skipped.iter().filter(|&&b| b == b'\n').count() as u64,
            );
        }
        rows.push(rec.iter().map(str::to_string).collect());
    }
    if let Some(line) = text.get(last.0..).and_then(|raw| open_quote(raw, last.1)) {
        return Err(format!(
            "line {line}: a quoted field is not closed (an unterminated quote)"
        ));
    }
    Ok(rows)
}

/// The `csv` crate reads a quote that is never closed as a field running to the end of the
/// text, without complaint. Reading the last row's text (`raw`, from the row's start, on line
/// `line`) by the same rules tells whether it ends inside quotes, and gives the line of the
/// quote that opened that field.
fn open_quote(raw: &str, mut line: u64) -> Option<u64> {
    #[derive(Clone, Copy, PartialEq)]
    enum S {
        /// At a field's first byte.
        Start,
        /// In a field not quoted.
        Plain,
        /// Inside quotes.
        Quoted,
        /// Just after a quote inside quotes (a closing quote, or the first of a doubled one).
        AfterQuote,
    }
    let (mut s, mut opened) = (S::Start, line);
    for b in raw.bytes() {
        s = match (s, b) {
            (S::Quoted, b'"') => S::AfterQuote,
            (S::Quoted, _) => S::Quoted,
            (S::AfterQuote, b'"') => S::Quoted,
            (S::Start, b'"') => {
                opened = line;
                S::Quoted
            }
            (_, b',' | b'\n' | b'\r') => S::Start,
            _ => S::Plain,
        };
        if b == b'\n' {
            line += 1;
        }
    }
    (s == S::Quoted).then_some(opened)
}

/// Rows as (header → value) lookups: the header row and a function giving a column's index.
pub struct Table {
    /// Column names.
    pub header: Vec<String>,
    /// Data rows.
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// Parse text with a header line (see [`parse`] for the rules and the errors).
    pub fn parse(text: &str) -> Result<Table, String> {
        let mut rows = parse(text)?;
        let header = if rows.is_empty() {
            Vec::new()
        } else {
            rows.remove(0)
        };
        Ok(Table { header, rows })
    }

    /// Index of a column.
    pub fn col(&self, name: &str) -> Option<usize> {
        self.header.iter().position(|h| h == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_too_long_is_refused_naming_it() {
        let text = format!("a,b\n{},x\n", "y".repeat(MAX_LINE + 1));
        let e = parse(&text).unwrap_err();
        assert!(e.starts_with("line 2: ") && e.contains("64 KiB"), "{e}");
        let ok = format!("a,b\n{},x\n", "y".repeat(MAX_LINE - 2));
        assert_eq!(parse(&ok).unwrap().len(), 2);
    }

    #[test]
    fn quoted_fields() {
        let r = parse("a,b,c\n1,\"x, \"\"y\"\"\",3\r\n\n4,,\"\"").unwrap();
        assert_eq!(r.len(), 3);
        assert_eq!(r[1], vec!["1", "x, \"y\"", "3"]);
        assert_eq!(r[2], vec!["4", "", ""]);
    }

    #[test]
    fn line_breaks_crlf_and_untrimmed_fields() {
        let r = parse("h1,h2\r\n\"two\nlines\", b \r\n\r\nlast,row").unwrap();
        assert_eq!(
            r,
            vec![
                vec!["h1", "h2"],
                vec!["two\nlines", " b "],
                vec!["last", "row"]
            ]
        );
    }

    #[test]
    fn a_byte_order_mark_is_not_part_of_the_first_name() {
        let t = Table::parse("\u{feff}pcap,l4\nx.pcap,TCP\n").unwrap();
        assert_eq!(t.col("pcap"), Some(0));
        assert_eq!(t.rows, vec![vec!["x.pcap", "TCP"]]);
    }

    #[test]
    fn an_unterminated_quote_is_an_error_naming_its_line() {
        for (text, line) in [
            ("a,b\n1,\"open\n2,3\n", 2),
            ("a,b\n1,2\n\"open", 3),
            ("a,b\n1,\"x\"\"y\n", 2),
            ("a,b\r\n1,\"two\r\nlines\",\"open\r\n", 3),
        ] {
            let e = parse(text).unwrap_err();
            assert!(
                e.starts_with(&format!("line {line}: ")) && e.contains("unterminated quote"),
                "{text:?}: {e}"
            );
            assert!(Table::parse(text).is_err());
        }
        // Closed quotes, doubled quotes and a plain quote inside a field are fine.
        assert!(parse("a\n\"x\"\"\"\nb\"c\n\"\"").is_ok());
    }
}
