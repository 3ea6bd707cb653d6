//! `wirespeed report`'s library: flow records in (JSON lines or CSV, read by column name, or
//! records the engine hands over as they end), bounded aggregates ([`Report`]: exact totals,
//! top-N tables, a fixed number of time buckets, a capped flow table), one self-contained HTML
//! page out ([`render`]: inline style, script and SVG charts, no URL to anywhere).
//!
//! It does not depend on the engine: a capture's records reach it through [`Sink`], the
//! record sink the CLI gives each of the engine's workers.

#![warn(missing_docs)]

mod agg;
mod html;
mod input;
#[cfg(feature = "parquet")]
mod parquet;

pub use agg::{
    clip, Config, Flow, HeavyHitters, Names, Report, Risk, Series, Tally, MAX_STR, RISK_EXAMPLES,
    TTB_CLASSES,
};
pub use html::{esc, human, num, render, utc, Meta};
pub use input::{detect, json_line, read_csv, read_json, Error, Kind, Row, MAX_LINE, REQUIRED};
#[cfg(feature = "parquet")]
pub use parquet::read_parquet;

use std::io;

/// The engine's records straight into a [`Report`] (one sink a worker; [`Report::merge`] them
/// at the end): no record is formatted or held.
pub struct Sink {
    /// What this worker's records add up to.
    pub report: Report,
}

impl Sink {
    /// A sink with an empty report of these sizes.
    pub fn new(cfg: Config) -> Self {
        Sink {
            report: Report::new(cfg),
        }
    }
}

impl wirespeed_export::RecordSink for Sink {
    fn write(&mut self, r: &wirespeed_export::FlowRecord<'_>) -> io::Result<()> {
        self.report.add(&Row::from_record(r));
        Ok(())
    }

    fn finish(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Read one records file (JSON lines or CSV, by content) into `report`. Parquet is refused:
/// without the cargo feature `parquet` the message names the feature.
pub fn read_records(
    name: &str,
    kind: Kind,
    input: impl io::Read,
    report: &mut Report,
) -> Result<(), Error> {
    match kind {
        Kind::Json => read_json(name, input, |r| report.add(r)),
        Kind::Csv => read_csv(name, input, |r| report.add(r)),
        Kind::Parquet if cfg!(feature = "parquet") => Err(Error(format!(
            "{name}: Parquet records are read from a file (read_parquet), not a stream"
        ))),
        Kind::Parquet => Err(Error(format!(
            "{name}: Parquet records need a build with the cargo feature `parquet` \
             (cargo build --release --features parquet)"
        ))),
        Kind::Capture => Err(Error(format!("{name}: a capture, not records"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(app: &str, sni: &str, bytes: u64, t: f64) -> String {
        format!(
            r#"{{"src_ip":"10.0.0.1","src_port":1234,"dst_ip":"10.0.0.2","dst_port":443,"l4":"TCP","first_ts":{t},"last_ts":{t},"c2s_pkts":2,"c2s_bytes":{bytes},"s2c_pkts":1,"s2c_bytes":10,"app":{app},"category":"Web","method":"dpi","ttb_pkts":3,"sni":{sni},"risks":"Odd;Other","ja4":"t13d","tls_version":"TLSv1.3"}}"#,
            app = serde_json::to_string(app).unwrap(),
            sni = serde_json::to_string(sni).unwrap(),
        )
    }

    /// Records split between two reports then merged give the page of one report of them
    /// all (the host tables small enough to evict, so their merge is exercised too).
    #[test]
    fn merged_reports_equal_one() {
        let cfg = Config {
            heavy: 4,
            rows: 5,
            names: 3,
            buckets: 8,
            ..Config::default()
        };
        let mut truth: std::collections::HashMap<String, u64> = Default::default();
        let lines: Vec<String> = (0..60u64)
            .map(|i| {
                let client = format!("10.0.{}.1", i % 9);
                *truth.entry(client.clone()).or_default() += i * 37 % 101 + 10;
                *truth.entry("10.0.0.2".into()).or_default() += i * 37 % 101 + 10;
                line(
                    &format!("A{}", i % 5),
                    "h",
                    i * 37 % 101,
                    1e9 + (i * i % 997) as f64 * 13.0,
                )
                .replace("10.0.0.1", &client)
            })
            .collect();
        let mut one = Report::new(cfg);
        let (mut a, mut b) = (Report::new(cfg), Report::new(cfg));
        for (i, l) in lines.iter().enumerate() {
            let r = json_line(l.as_bytes()).unwrap().unwrap();
            one.add(&r);
            if i % 3 == 0 {
                a.add(&r)
            } else {
                b.add(&r)
            }
        }
        a.merge(b);
        assert_eq!(a.total, one.total);
        assert_eq!(a.span, one.span);
        let sums = |r: &Report| r.series.bytes.iter().flatten().sum::<u64>();
        assert_eq!(sums(&a), sums(&one));
        let names = |r: &Report| {
            let mut v: Vec<_> = r
                .apps
                .sorted(|t| t.bytes)
                .into_iter()
                .map(|(k, t, _)| (k.to_string(), t))
                .collect();
            v.sort_by(|x, y| x.0.cmp(&y.0));
            (v, r.apps.other)
        };
        assert_eq!(names(&a).0.len(), 3);
        assert_eq!(
            a.apps.other.flows + names(&a).0.iter().map(|x| x.1.flows).sum::<u64>(),
            60
        );
        let mut fa: Vec<u64> = a.flows.iter().map(|f| f.0.bytes).collect();
        let mut fo: Vec<u64> = one.flows.iter().map(|f| f.0.bytes).collect();
        fa.sort();
        fo.sort();
        assert_eq!(fa, fo);
        // Upper bounds within their errors: every host's count >= its true bytes.
        assert!(!a.hosts.exact());
        for (k, c, e, _) in a.hosts.top(10) {
            let t = truth[k];
            assert!(c >= t && c - e <= t, "{k}: {c} {e} {t}");
        }
        // The heaviest, a server in every flow, is held.
        assert_eq!(a.hosts.top(1)[0].0, "10.0.0.2");
    }

    #[test]
    fn hostile_names_are_escaped_everywhere() {
        let evil = "<script>alert(1)</script><img src=x onerror=alert(2)>\"'&";
        let mut rep = Report::new(Config::default());
        let text = line(evil, evil, 100, 1.6e9) + "\n" + &line("B", "ok", 5, 1.6e9 + 3.0);
        read_records("t", Kind::Json, text.as_bytes(), &mut rep).unwrap();
        let page = render(&rep, &Meta::default());
        assert!(!page.contains("<script>alert"), "raw markup in the page");
        assert!(!page.contains("<img"), "raw markup in the page");
        assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        assert_eq!(
            page.matches("<script>").count(),
            1,
            "only the page's own script"
        );
    }

    #[test]
    fn empty_input_says_so() {
        let mut rep = Report::new(Config::default());
        read_records("t", Kind::Json, &b""[..], &mut rep).unwrap();
        let page = render(&rep, &Meta::default());
        assert!(page.contains("id=\"empty\""));
        assert!(page.contains("no flow records"));
    }

    #[test]
    fn page_numbers_and_no_urls() {
        let mut rep = Report::new(Config::default());
        let text: String = [("A", 100u64), ("B", 300), ("A", 50)]
            .iter()
            .enumerate()
            .map(|(i, (a, b))| line(a, "h", *b, 1.6e9 + i as f64) + "\n")
            .collect();
        read_records("t", Kind::Json, text.as_bytes(), &mut rep).unwrap();
        let page = render(&rep, &Meta::default());
        assert!(page.contains(r#"id="total-flows" data-v="3""#));
        assert!(page.contains(r#"id="total-bytes" data-v="480""#));
        // B: 300 + 10 back; A: 150 + 20.
        assert!(page.contains(r#"<tr data-name="B" data-bytes="310""#));
        assert!(page.contains(r#"<tr data-name="A" data-bytes="170""#));
        for bad in ["http:", "https:", "//", "@import", "url(", "src=", "href="] {
            assert!(!page.contains(bad), "{bad} in the page");
        }
    }

    #[test]
    fn parquet_is_refused_naming_the_feature() {
        let mut rep = Report::new(Config::default());
        let e = read_records("f.parquet", Kind::Parquet, &b"PAR1"[..], &mut rep).unwrap_err();
        if cfg!(feature = "parquet") {
            assert!(e.0.contains("from a file"), "{e}");
        } else {
            assert!(e.0.contains("feature `parquet`"), "{e}");
        }
    }
}
