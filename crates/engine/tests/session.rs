//! The runtime's facade: a Session over the demo trace, with one worker and with two, gives per
//! application the flows, packets and bytes the generator wrote down by construction (not read
//! back by the decoder), and hands back its sinks with every record.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::BufWriter;
use wirespeed_engine::{gen, EngineConfig, ParallelConfig, Session};
use wirespeed_export::NullSink;

#[test]
fn a_session_sums_applications_as_the_generator_wrote_them() {
    let dir = std::env::temp_dir().join(format!("wirespeed-session-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("demo.pcap");
    let (flows, _) = gen::demo(BufWriter::new(File::create(&path).unwrap())).unwrap();
    // The generator's flows, labelled by the port table as it says.
    let mut want: BTreeMap<String, [u64; 3]> = BTreeMap::new();
    for f in &flows {
        let e = want.entry(f.app.to_string()).or_default();
        e[0] += 1;
        e[1] += f.c2s.0 + f.s2c.0;
        e[2] += f.c2s.1 + f.s2c.1;
    }
    for workers in [1, 2] {
        let cfg = EngineConfig {
            classifiers: wirespeed_classify::ClassifierSet::parse("port").unwrap(),
            ..EngineConfig::default()
        };
        let par = ParallelConfig {
            workers,
            ..ParallelConfig::default()
        };
        let mut s = Session::new(cfg, par, |_| NullSink::default(), false);
        let out = s.run_file(&path, &mut |_, _| {}).unwrap();
        assert!(out.error.is_none());
        let (summary, sinks) = s.finish().unwrap();
        let got: BTreeMap<String, [u64; 3]> = summary.apps.into_iter().collect();
        assert_eq!(got, want, "{workers} workers");
        assert_eq!(sinks.len(), workers);
        let records: u64 = sinks.iter().map(|k| k.records).sum();
        assert_eq!(records, flows.len() as u64);
        assert_eq!(summary.counters.records, records);
        assert_eq!(summary.files.len(), 1);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
