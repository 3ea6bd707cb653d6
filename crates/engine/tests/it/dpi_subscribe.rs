//! The field subscription API over real captures: a subscriber to the HTTP URL, the SMTP
//! recipient and the DNS query name hears, on each capture, exactly the values tshark dissects
//! as the first of each TCP/UDP stream (tests/data/subscriber_expect.tsv, written by
//! scripts/subscriber_expect.py from tshark's `http.host` + `http.request.uri`,
//! `smtp.req.parameter` and `dns.qry.name`). Without the corpus it says so and passes (under
//! `CI=true` it fails).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use wirespeed_dpi::Field;
use wirespeed_engine::{run_file, EngineConfig, Worker};
use wirespeed_export::JsonLinesWriter;

fn corpus_dir(test: &str) -> Option<PathBuf> {
    wirespeed_testkit::corpus(test).map(|c| c.dir().to_path_buf())
}

type Values = BTreeMap<(String, String), Vec<String>>;

#[test]
fn subscribers_hear_what_tshark_dissects() {
    let Some(dir) = corpus_dir("dpi_subscribe") else {
        return;
    };
    let mut want: Values = BTreeMap::new();
    for line in include_str!("../data/subscriber_expect.tsv").lines() {
        if line.starts_with('#') {
            continue;
        }
        let mut c = line.splitn(3, '\t');
        let (Some(p), Some(f), Some(v)) = (c.next(), c.next(), c.next()) else {
            continue;
        };
        want.entry((p.to_string(), f.to_string()))
            .or_default()
            .push(v.to_string());
    }
    let pcaps: Vec<String> = {
        let mut p: Vec<String> = want.keys().map(|k| k.0.clone()).collect();
        p.dedup();
        p
    };
    let mut got: Values = BTreeMap::new();
    for pcap in &pcaps {
        let heard = Arc::new(Mutex::new(Vec::new()));
        let mut w = Worker::new(
            EngineConfig::default(),
            JsonLinesWriter::new(Vec::new(), false),
            false,
        );
        let h = heard.clone();
        w.subscribe(
            &[Field::Url, Field::SmtpRcpt, Field::DnsQuery],
            move |f, v| {
                h.lock()
                    .unwrap()
                    .push((f.name().to_string(), v.to_string()));
            },
        );
        run_file(&mut w, &dir.join("pcap").join(pcap), &mut |_, _| {}).unwrap();
        w.finish().unwrap();
        for (f, v) in heard.lock().unwrap().drain(..) {
            got.entry((pcap.clone(), f)).or_default().push(v);
        }
    }
    let mut bad = 0;
    for (k, w) in &want {
        let mut g = got.get(k).cloned().unwrap_or_default();
        // A value is cut to its field's cap (255 bytes for the URL): the kept part must match.
        let cap = Field::ALL
            .iter()
            .find(|f| f.name() == k.1)
            .map_or(255, |f| f.cap());
        let same = |ours: &str, theirs: &str| {
            ours == theirs || (ours.len() + 4 > cap && theirs.starts_with(ours))
        };
        let mut missing = Vec::new();
        for v in w {
            match g.iter().position(|o| same(o, v)) {
                Some(i) => {
                    g.swap_remove(i);
                }
                None => missing.push(v),
            }
        }
        let extra = &g;
        eprintln!(
            "{} {}: tshark {}, heard {}, missing {:?}, extra {:?}",
            k.0,
            k.1,
            w.len(),
            got.get(k).map_or(0, Vec::len),
            missing,
            extra
        );
        bad += missing.len() + extra.len();
    }
    assert_eq!(bad, 0, "subscribed values differ from tshark's");
}
