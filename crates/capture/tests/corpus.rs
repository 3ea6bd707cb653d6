//! Real captures: the shared corpus (`wirespeed_testkit::corpus`), checked against packet counts
//! from an independent reader (Wireshark's `capinfos`). Skipped, with a message, where the corpus
//! is absent (and failed under `CI=true`).

use std::collections::HashMap;
use std::path::PathBuf;

use wirespeed_capture::{CaptureError, CaptureFile, RawPacket};

/// `capinfos -T -M -c -t -E -a -e -S -m` over every corpus file (Wireshark 4.0.17): name, file
/// type, encapsulation, packet count, earliest and latest timestamp (seconds since the epoch, as
/// many fraction digits as the file's resolution). Regenerate with the command in its first line.
const CAPINFOS: &str = include_str!("data/capinfos-counts.csv");

fn corpus_dir() -> Option<PathBuf> {
    wirespeed_testkit::corpus("capture corpus").map(|c| c.pcap_dir())
}

struct Outcome {
    packets: u64,
    links: Vec<u32>,
    /// Earliest and latest timestamp.
    ts_range: (u64, u64),
    error: Option<CaptureError>,
}

/// Read a whole file the way the engine does: batches, stop on `Ok(0)` or `Err`.
fn read(path: &std::path::Path) -> Outcome {
    let file = match CaptureFile::open(path) {
        Ok(f) => f,
        Err(e) => {
            return Outcome {
                packets: 0,
                links: Vec::new(),
                ts_range: (u64::MAX, 0),
                error: Some(e),
            }
        }
    };
    let mut r = file.reader();
    let mut batch: Vec<RawPacket<'_>> = Vec::with_capacity(64);
    let mut packets = 0;
    let mut links = Vec::new();
    let mut last = 0;
    let mut ts_range = (u64::MAX, 0);
    loop {
        batch.clear();
        let res = r.next_batch(&mut batch, 64);
        for p in &batch {
            assert!(p.data.len() <= 256 * 1024);
            ts_range = (ts_range.0.min(p.ts_ns), ts_range.1.max(p.ts_ns));
            if !links.contains(&p.link) {
                links.push(p.link);
            }
        }
        packets += batch.len() as u64;
        assert!(r.position() >= last && r.position() <= file.len());
        last = r.position();
        match res {
            Ok(0) => {
                assert!(batch.is_empty());
                assert_eq!(
                    r.position(),
                    file.len(),
                    "{}: Ok(0) before the end",
                    path.display()
                );
                return Outcome {
                    packets,
                    links,
                    ts_range,
                    error: None,
                };
            }
            Ok(n) => assert_eq!(n, batch.len()),
            Err(e) => {
                assert!(batch.is_empty());
                assert_eq!(r.next_batch(&mut batch, 64).unwrap(), 0);
                return Outcome {
                    packets,
                    links,
                    ts_range,
                    error: Some(e),
                };
            }
        }
    }
}

/// capinfos encapsulation name → pcap LINKTYPE numbers it may stand for.
fn link_types(encap: &str) -> Option<&'static [u32]> {
    Some(match encap {
        "ether" => &[1],
        "linux-sll" => &[113],
        "null" => &[0],
        "rawip" => &[101, 12, 14],
        "rawip4" => &[228],
        "ppp" => &[9, 50],
        "chdlc" => &[104],
        "ppi" => &[192],
        _ => return None,
    })
}

/// Where this reader knowingly differs from capinfos: (file, our packet count, our error offset).
/// `fuzz-2021-10-13.pcap` is a version 2.0 file, whose records hold len before caplen (libpcap
/// swaps them back; so do we): one packet, as capinfos counts, then 2 stray bytes at offset 237,
/// which we report as a truncated record and capinfos reports as "cut short" outside its table.
const DIVERGENT: &[(&str, u64, u64)] = &[("fuzz-2021-10-13.pcap", 1, 237)];

/// capinfos's `-S` time (`SECONDS.FRACTION`, up to 9 fraction digits) in nanoseconds; `None` for
/// the odd values it prints for out-of-range fuzzed fractions.
fn capinfos_ns(t: &str) -> Option<u64> {
    let (s, f) = t.split_once('.')?;
    if f.is_empty() || f.len() > 9 || !f.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let frac: u64 = f.parse().ok()?;
    Some(s.parse::<u64>().ok()? * 1_000_000_000 + frac * 10u64.pow(9 - f.len() as u32))
}

#[test]
fn corpus_counts_match_capinfos() {
    let Some(dir) = corpus_dir() else { return };
    let mut checked = 0;
    let mut times = 0;
    let mut bad = Vec::new();
    for line in CAPINFOS.lines().skip(2) {
        let f: Vec<&str> = line.split(',').collect();
        let [name, _ftype, encap, count, start, end] = f[..] else {
            panic!("bad line {line:?}")
        };
        let want: u64 = count.parse().unwrap();
        let path = dir.join(name);
        if !path.exists() {
            continue;
        }
        let got = read(&path);
        checked += 1;
        if let Some(&(_, n, off)) = DIVERGENT.iter().find(|d| d.0 == name) {
            let e_off = got.error.as_ref().map(|e| e.offset);
            if got.packets != n || e_off != Some(off) {
                bad.push(format!(
                    "{name}: {} packets, error at {e_off:?}",
                    got.packets
                ));
            }
            continue;
        }
        if let Some(e) = &got.error {
            bad.push(format!("{name}: error where capinfos reads cleanly: {e}"));
        }
        if got.packets != want {
            bad.push(format!(
                "{name}: {} packets, capinfos says {want} (error: {:?})",
                got.packets,
                got.error.map(|e| e.to_string())
            ));
        }
        if let (Some(start), Some(end)) = (capinfos_ns(start), capinfos_ns(end)) {
            times += 1;
            if got.packets > 0 && got.ts_range != (start, end) {
                bad.push(format!(
                    "{name}: timestamps {:?}, capinfos says {:?}",
                    got.ts_range,
                    (start, end)
                ));
            }
        }
        if let Some(lts) = link_types(encap) {
            if got.links.iter().any(|l| !lts.contains(l)) {
                bad.push(format!(
                    "{name}: link types {:?}, capinfos says {encap}",
                    got.links
                ));
            }
        }
    }
    eprintln!("checked {checked} corpus files against capinfos ({times} with time ranges)");
    assert!(
        checked > 0,
        "no corpus file listed in the capinfos table was found"
    );
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn corpus_all_files_read_without_panic() {
    let Some(dir) = corpus_dir() else { return };
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    names.sort();
    let mut clean = 0;
    let mut errors: HashMap<String, String> = HashMap::new();
    let mut packets = 0;
    for p in &names {
        let o = read(p);
        packets += o.packets;
        match o.error {
            None => clean += 1,
            Some(e) => {
                errors.insert(
                    p.file_name().unwrap().to_string_lossy().into_owned(),
                    e.to_string(),
                );
            }
        }
    }
    eprintln!(
        "{} files, {clean} read cleanly, {} with errors, {packets} packets",
        names.len(),
        errors.len()
    );
    let mut errs: Vec<_> = errors.values().collect();
    errs.sort();
    for e in errs {
        eprintln!("  {e}");
    }
}
