//! Classify a capture and print bytes per application: the runtime's facade in a few lines.
//! `cargo run --release -p wirespeed-engine --example apps -- FILE.pcap`

use wirespeed_engine::{EngineConfig, ParallelConfig, Session};
use wirespeed_export::NullSink;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).ok_or("usage: apps FILE.pcap")?;
    let (cfg, par) = (EngineConfig::default(), ParallelConfig::default());
    let mut session = Session::new(cfg, par, |_| NullSink::default(), false);
    if let Some(e) = session.run_file(path.as_ref(), &mut |_, _| {})?.error {
        eprintln!("input error (the packets before it were classified): {e}");
    }
    let (summary, _) = session.finish()?;
    let mut apps: Vec<_> = summary.apps.into_iter().collect();
    apps.sort_by(|a, b| b.1[2].cmp(&a.1[2]).then(a.0.cmp(&b.0)));
    for (app, [flows, _, bytes]) in apps {
        println!("{app:<24} {bytes:>14} bytes {flows:>9} flows");
    }
    Ok(())
}
