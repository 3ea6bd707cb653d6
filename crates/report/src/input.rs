//! Records in: what an input is (by its first bytes, never its name), and JSON lines and CSV
//! records read by column name into [`Row`]s.

use serde::Deserialize;
use std::borrow::Cow;
use std::io::{self, BufRead, Read};

/// What an input holds, told by its first bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A capture (pcap or pcapng magic, or a compressed file): for the engine.
    Capture,
    /// JSON lines (first non-blank byte `{`), as `classify --format json` writes; also an
    /// empty file (no records).
    Json,
    /// CSV with a header line, as `classify --format csv` writes.
    Csv,
    /// Parquet (`PAR1`).
    Parquet,
}

/// The kind of an input that begins with `head` (its first bytes; 4 KiB is plenty).
///
/// pcap (`a1b2c3d4`, `a1b23c4d` either byte order), pcapng (`0a0d0d0a`), gzip, zstd and xz
/// magic: a capture. `PAR1`: Parquet. Nothing, or blanks only: JSON lines with no record. First
/// non-blank byte `{`: JSON lines. A first line of text holding a comma: CSV. Anything else is
/// left to the engine, which says what it is not.
pub fn detect(head: &[u8]) -> Kind {
    const CAPTURE: [&[u8]; 8] = [
        &[0xa1, 0xb2, 0xc3, 0xd4],
        &[0xd4, 0xc3, 0xb2, 0xa1],
        &[0xa1, 0xb2, 0x3c, 0x4d],
        &[0x4d, 0x3c, 0xb2, 0xa1],
        &[0x0a, 0x0d, 0x0d, 0x0a],
        &[0x1f, 0x8b],
        &[0x28, 0xb5, 0x2f, 0xfd],
        &[0xfd, b'7', b'z', b'X', b'Z', 0],
    ];
    if CAPTURE.iter().any(|m| head.starts_with(m)) {
        return Kind::Capture;
    }
    if head.starts_with(b"PAR1") {
        return Kind::Parquet;
    }
    match head.iter().find(|b| !b.is_ascii_whitespace()) {
        None | Some(b'{') => return Kind::Json,
        Some(_) => {}
    }
    let line = head.split(|&b| b == b'\n').next().unwrap_or(&[]);
    let text = line
        .iter()
        .all(|&b| b == b'\t' || b == b'\r' || (b >= 0x20 && b != 0x7f));
    if text && line.contains(&b',') {
        Kind::Csv
    } else {
        Kind::Capture
    }
}

/// Columns a record must have: without them no total can be computed. Others are read when
/// there and ignored when unknown.
pub const REQUIRED: [&str; 9] = [
    "src_ip",
    "dst_ip",
    "first_ts",
    "last_ts",
    "c2s_pkts",
    "c2s_bytes",
    "s2c_pkts",
    "s2c_bytes",
    "app",
];

/// One record, the columns the page reads. Strings borrow from the input where they can.
#[derive(Deserialize, Debug, Default, Clone)]
pub struct Row<'a> {
    /// Capture file name.
    #[serde(borrow, default)]
    pub pcap: Option<Cow<'a, str>>,
    /// Client address.
    #[serde(borrow)]
    pub src_ip: Cow<'a, str>,
    /// Client port.
    #[serde(default)]
    pub src_port: Option<u16>,
    /// Server address.
    #[serde(borrow)]
    pub dst_ip: Cow<'a, str>,
    /// Server port.
    #[serde(default)]
    pub dst_port: Option<u16>,
    /// Transport name.
    #[serde(borrow, default)]
    pub l4: Option<Cow<'a, str>>,
    /// Outermost tunnel removed.
    #[serde(borrow, default)]
    pub tunnel: Option<Cow<'a, str>>,
    /// First packet, seconds since the epoch.
    pub first_ts: f64,
    /// Last packet.
    pub last_ts: f64,
    /// Client to server packets.
    pub c2s_pkts: u64,
    /// Client to server bytes.
    pub c2s_bytes: u64,
    /// Server to client packets.
    pub s2c_pkts: u64,
    /// Server to client bytes.
    pub s2c_bytes: u64,
    /// `active`: an interim record (not counted).
    #[serde(borrow, default)]
    pub end_reason: Option<Cow<'a, str>>,
    /// Application label.
    #[serde(borrow)]
    pub app: Cow<'a, str>,
    /// Category.
    #[serde(borrow, default)]
    pub category: Option<Cow<'a, str>>,
    /// Which classifier decided.
    #[serde(borrow, default)]
    pub method: Option<Cow<'a, str>>,
    /// Packets seen when the verdict was reached (0: none).
    #[serde(default)]
    pub ttb_pkts: Option<u64>,
    /// Risk names, `;`-separated.
    #[serde(borrow, default)]
    pub risks: Option<Cow<'a, str>>,
    /// TLS server name.
    #[serde(borrow, default)]
    pub sni: Option<Cow<'a, str>>,
    /// HTTP host.
    #[serde(borrow, default)]
    pub http_host: Option<Cow<'a, str>>,
    /// DNS query name.
    #[serde(borrow, default)]
    pub dns_query: Option<Cow<'a, str>>,
    /// TLS version.
    #[serde(borrow, default)]
    pub tls_version: Option<Cow<'a, str>>,
    /// JA4 fingerprint.
    #[serde(borrow, default)]
    pub ja4: Option<Cow<'a, str>>,
}

impl<'a> Row<'a> {
    /// The columns of an engine's record, as its JSON record writes them
    /// (`wirespeed_export`'s `record`): the same names, `;`-joined risks, empty strings absent.
    pub fn from_record(r: &wirespeed_export::FlowRecord<'a>) -> Row<'a> {
        use wirespeed_export::{l4_name, META_FIELDS};
        let meta = |name: &str| -> Option<Cow<'a, str>> {
            META_FIELDS
                .iter()
                .position(|f| *f == name)
                .map(|i| r.meta[i])
                .filter(|s| !s.is_empty())
                .map(Cow::Borrowed)
        };
        let nonempty = |s: &'a str| (!s.is_empty()).then_some(Cow::Borrowed(s));
        let label = r.label_names();
        // Seconds with microseconds, as written (truncated to the µs).
        let secs = |ns: u64| (ns / 1000) as f64 / 1e6;
        let risks = (!r.risks.is_empty()).then(|| {
            let mut s = String::new();
            for (i, k) in r.risks.iter().enumerate() {
                if i > 0 {
                    s.push(';');
                }
                s.push_str(k.name());
            }
            Cow::Owned(s)
        });
        Row {
            pcap: r.pcap.and_then(nonempty),
            src_ip: Cow::Owned(r.src_ip.to_string()),
            src_port: Some(r.src_port),
            dst_ip: Cow::Owned(r.dst_ip.to_string()),
            dst_port: Some(r.dst_port),
            l4: Some(match l4_name(r.l4) {
                Some(n) => Cow::Borrowed(n),
                None => Cow::Owned(r.l4.to_string()),
            }),
            tunnel: nonempty(r.tunnel),
            first_ts: secs(r.first_ts_ns),
            last_ts: secs(r.last_ts_ns),
            c2s_pkts: r.c2s_pkts,
            c2s_bytes: r.c2s_bytes,
            s2c_pkts: r.s2c_pkts,
            s2c_bytes: r.s2c_bytes,
            end_reason: Some(Cow::Borrowed(r.end_reason.as_str())),
            app: Cow::Borrowed(label.app()),
            category: Some(Cow::Borrowed(label.category())),
            method: r
                .method
                .map(|m| m.as_str())
                .filter(|s| !s.is_empty())
                .map(Cow::Borrowed),
            ttb_pkts: Some(u64::from(r.ttb_pkts)),
            risks,
            sni: meta("sni"),
            http_host: meta("http_host"),
            dns_query: meta("dns_query"),
            tls_version: meta("tls_version"),
            ja4: meta("ja4"),
        }
    }

    /// Bytes both ways.
    pub fn bytes(&self) -> u64 {
        self.c2s_bytes.saturating_add(self.s2c_bytes)
    }

    /// Packets both ways.
    pub fn pkts(&self) -> u64 {
        self.c2s_pkts.saturating_add(self.s2c_pkts)
    }

    /// The flow's host name: SNI, else HTTP host, else DNS query.
    pub fn host(&self) -> Option<&str> {
        self.sni
            .as_deref()
            .or(self.http_host.as_deref())
            .or(self.dns_query.as_deref())
    }
}

/// An input that could not be read as records: the message names the line and the column.
#[derive(Debug)]
pub struct Error(pub String);

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl From<io::Error> for Error {
    fn from(e: io::Error) -> Self {
        Error(e.to_string())
    }
}

/// One JSON record (a line without its newline); `None` for a blank line.
pub fn json_line(line: &[u8]) -> Result<Option<Row<'_>>, String> {
    if line.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    serde_json::from_slice::<Row<'_>>(line)
        .map(Some)
        .map_err(|e| {
            // serde_json says "missing field `c2s_bytes`": say column, as CSV does.
            let m = e.to_string();
            match m.strip_prefix("missing field ") {
                Some(rest) => format!(
                    "missing column {}",
                    rest.split(" at ").next().unwrap_or(rest)
                ),
                None => m,
            }
        })
}

/// Longest record line read (a longer one is refused, so memory stays bounded).
pub const MAX_LINE: usize = 1 << 20;

/// Every JSON record of `input`, handed to `f` in order; `name` is for messages.
pub fn read_json(name: &str, input: impl Read, mut f: impl FnMut(&Row<'_>)) -> Result<(), Error> {
    let mut r = io::BufReader::with_capacity(1 << 16, input);
    let mut line = Vec::new();
    let mut n = 0u64;
    loop {
        line.clear();
        let got = (&mut r)
            .take(MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut line)?;
        if got == 0 {
            return Ok(());
        }
        n += 1;
        if line.len() > MAX_LINE {
            return Err(Error(format!(
                "{name}: line {n}: longer than {MAX_LINE} bytes"
            )));
        }
        match json_line(&line) {
            Ok(Some(row)) => f(&row),
            Ok(None) => {}
            Err(e) => return Err(Error(format!("{name}: line {n}: {e}"))),
        }
    }
}

/// Where each column [`Row`] reads sits in a CSV header.
struct CsvCols {
    at: [Option<usize>; COLS.len()],
}

/// The CSV columns read, in [`CsvCols::at`]'s order.
const COLS: [&str; 24] = [
    "pcap",
    "src_ip",
    "src_port",
    "dst_ip",
    "dst_port",
    "l4",
    "tunnel",
    "first_ts",
    "last_ts",
    "c2s_pkts",
    "c2s_bytes",
    "s2c_pkts",
    "s2c_bytes",
    "end_reason",
    "app",
    "category",
    "method",
    "ttb_pkts",
    "risks",
    "sni",
    "http_host",
    "dns_query",
    "tls_version",
    "ja4",
];

/// A reader that fails once more than [`MAX_LINE`] bytes pass without a newline: a hostile
/// CSV line cannot make the reader's record grow without bound.
struct Lines<R> {
    inner: R,
    run: usize,
}

impl<R: Read> Read for Lines<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        for &b in &buf[..n] {
            self.run = if b == b'\n' { 0 } else { self.run + 1 };
            if self.run > MAX_LINE {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("a line longer than {MAX_LINE} bytes"),
                ));
            }
        }
        Ok(n)
    }
}

/// Every CSV record of `input` (a header line first), handed to `f` in order. A line longer
/// than [`MAX_LINE`] is refused.
pub fn read_csv(name: &str, input: impl Read, mut f: impl FnMut(&Row<'_>)) -> Result<(), Error> {
    let mut rd = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(false)
        .from_reader(Lines {
            inner: input,
            run: 0,
        });
    let header = rd
        .headers()
        .map_err(|e| Error(format!("{name}: header: {e}")))?
        .clone();
    let mut cols = CsvCols {
        at: [None; COLS.len()],
    };
    for (i, h) in header.iter().enumerate() {
        if let Some(k) = COLS.iter().position(|c| *c == h.trim()) {
            cols.at[k] = Some(i);
        }
    }
    for req in REQUIRED {
        let k = COLS.iter().position(|c| *c == req).unwrap_or(0);
        if cols.at[k].is_none() {
            return Err(Error(format!("{name}: missing column `{req}`")));
        }
    }
    let mut rec = csv::StringRecord::new();
    let mut n = 1u64;
    loop {
        match rd.read_record(&mut rec) {
            Ok(false) => return Ok(()),
            Ok(true) => {}
            Err(e) => return Err(Error(format!("{name}: {e}"))),
        }
        n += 1;
        let row = csv_row(&cols, &rec).map_err(|e| Error(format!("{name}: line {n}: {e}")))?;
        f(&row);
    }
}

fn csv_row<'a>(cols: &CsvCols, rec: &'a csv::StringRecord) -> Result<Row<'a>, String> {
    let get = |k: usize| -> Option<&'a str> {
        cols.at[k]
            .and_then(|i| rec.get(i))
            .filter(|s| !s.is_empty())
    };
    let s = |k: usize| get(k).map(Cow::Borrowed);
    let req = |k: usize| get(k).ok_or_else(|| format!("column `{}` is empty", COLS[k]));
    fn num<T: std::str::FromStr>(v: &str, col: &str) -> Result<T, String> {
        v.trim()
            .parse()
            .map_err(|_| format!("column `{col}`: not a number: {v:?}"))
    }
    let opt_num = |k: usize| -> Result<Option<u64>, String> {
        get(k).map(|v| num::<u64>(v, COLS[k])).transpose()
    };
    let port = |k: usize| -> Result<Option<u16>, String> {
        get(k).map(|v| num::<u16>(v, COLS[k])).transpose()
    };
    Ok(Row {
        pcap: s(0),
        src_ip: Cow::Borrowed(req(1)?),
        src_port: port(2)?,
        dst_ip: Cow::Borrowed(req(3)?),
        dst_port: port(4)?,
        l4: s(5),
        tunnel: s(6),
        first_ts: num(req(7)?, COLS[7])?,
        last_ts: num(req(8)?, COLS[8])?,
        c2s_pkts: num(req(9)?, COLS[9])?,
        c2s_bytes: num(req(10)?, COLS[10])?,
        s2c_pkts: num(req(11)?, COLS[11])?,
        s2c_bytes: num(req(12)?, COLS[12])?,
        end_reason: s(13),
        app: Cow::Borrowed(req(14)?),
        category: s(15),
        method: s(16),
        ttb_pkts: opt_num(17)?,
        risks: s(18),
        sni: s(19),
        http_host: s(20),
        dns_query: s(21),
        tls_version: s(22),
        ja4: s(23),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_by_content() {
        assert_eq!(detect(&[0xd4, 0xc3, 0xb2, 0xa1, 2, 0]), Kind::Capture);
        assert_eq!(detect(&[0x0a, 0x0d, 0x0d, 0x0a]), Kind::Capture);
        assert_eq!(detect(b"PAR1\x15\x04"), Kind::Parquet);
        assert_eq!(detect(b""), Kind::Json);
        assert_eq!(detect(b"\n  {\"a\":1}"), Kind::Json);
        assert_eq!(detect(b"source,pcap,flow_id\n1,2,3"), Kind::Csv);
        assert_eq!(detect(b"\x00\x01binary,stuff"), Kind::Capture);
    }

    #[test]
    fn json_missing_column_is_named_and_unknown_ignored() {
        let e = json_line(br#"{"src_ip":"a","dst_ip":"b","first_ts":1,"last_ts":2,"c2s_pkts":1,"s2c_pkts":0,"s2c_bytes":0,"app":"X"}"#)
            .unwrap_err();
        assert!(e.contains("c2s_bytes"), "{e}");
        let r = json_line(br#"{"zz_new":[1,{"q":2}],"src_ip":"a","dst_ip":"b","first_ts":1,"last_ts":2,"c2s_pkts":1,"c2s_bytes":7,"s2c_pkts":0,"s2c_bytes":3,"app":"X\u0041"}"#)
            .unwrap()
            .unwrap();
        assert_eq!(r.bytes(), 10);
        assert_eq!(r.app, "XA");
    }

    #[test]
    fn csv_by_column_name() {
        let text =
            "app,extra,s2c_bytes,c2s_bytes,s2c_pkts,c2s_pkts,last_ts,first_ts,dst_ip,src_ip\n\
                    DNS,zz,5,6,1,1,2.5,2.0,10.0.0.2,10.0.0.1\n";
        let mut got = vec![];
        read_csv("t", text.as_bytes(), |r| {
            got.push((r.app.to_string(), r.bytes()))
        })
        .unwrap();
        assert_eq!(got, vec![("DNS".to_string(), 11)]);
        let e = read_csv("t", "app,src_ip\nX,1\n".as_bytes(), |_| {}).unwrap_err();
        assert!(e.0.contains("missing column `dst_ip`"), "{e}");
        let long = format!("{}\n{}", REQUIRED.join(","), "x".repeat(MAX_LINE + 10));
        let e = read_csv("t", long.as_bytes(), |_| {}).unwrap_err();
        assert!(e.0.contains("longer than"), "{e}");
    }
}
