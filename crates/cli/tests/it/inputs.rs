//! Directories are read recursively, files in them that are not captures are skipped with one
//! line each, and compressed captures (gzip, zstd, xz, each with two members/frames/streams
//! joined) are read as the plain file: the same records but for the input's name.

use std::io::Write;

use crate::common::{bin, demo, ok, temp};

/// The records of a run, each without `source` and `pcap`, sorted.
/// The records without the fields that name the input and the flow's id in the run (each input's
/// flows get ids of their own: checked unique here).
fn records(out: &[u8]) -> Vec<String> {
    let mut ids = std::collections::HashSet::new();
    let mut v: Vec<String> = String::from_utf8_lossy(out)
        .lines()
        .map(|l| {
            let mut j: serde_json::Value = serde_json::from_str(l).unwrap();
            let o = j.as_object_mut().unwrap();
            o.remove("source");
            o.remove("pcap");
            let id = o.remove("flow_id").unwrap();
            assert!(ids.insert(id.as_u64().unwrap()), "flow_id {id} repeated");
            j.to_string()
        })
        .collect();
    v.sort();
    v
}

#[test]
fn directories_recursively_and_compressed_captures() {
    let plain = demo("inputs-demo.pcap");
    let bytes = std::fs::read(&plain).unwrap();
    let dir = temp("inputs-tree");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("a/b")).unwrap();
    // Each compressed file holds the capture cut in two members/frames/streams, joined, as
    // `cat x.gz y.gz` makes them: the reader must go on past the first.
    let (head, tail) = bytes.split_at(bytes.len() / 2);
    let gz = |b: &[u8]| {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(b).unwrap();
        e.finish().unwrap()
    };
    let xz = |b: &[u8]| {
        let mut e = xz2::write::XzEncoder::new(Vec::new(), 1);
        e.write_all(b).unwrap();
        e.finish().unwrap()
    };
    let zst = |b: &[u8]| {
        ruzstd::encoding::compress_to_vec(b, ruzstd::encoding::CompressionLevel::Fastest)
    };
    std::fs::write(dir.join("a/demo.pcap.gz"), [gz(head), gz(tail)].concat()).unwrap();
    std::fs::write(dir.join("a/b/demo.pcap.xz"), [xz(head), xz(tail)].concat()).unwrap();
    std::fs::write(
        dir.join("a/b/demo.pcap.zst"),
        [zst(head), zst(tail)].concat(),
    )
    .unwrap();
    std::fs::write(dir.join("notes.txt"), "not a capture\n").unwrap();
    let one = ok(bin().args(["classify", "-q"]).arg(&plain));
    let want = records(&one.stdout);
    assert_eq!(want.len(), 9);
    let all = bin().args(["classify", "-q"]).arg(&dir).output().unwrap();
    let err = String::from_utf8_lossy(&all.stderr);
    assert!(all.status.success(), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("skipped (not a capture)") && err.contains("notes.txt"),
        "{err}"
    );
    let got = records(&all.stdout);
    // Three copies of the demo's records, one from each compressed file.
    let mut want3: Vec<String> = want
        .iter()
        .flat_map(|r| [r.clone(), r.clone(), r.clone()])
        .collect();
    want3.sort();
    assert_eq!(got, want3);
    let names: std::collections::BTreeSet<String> = String::from_utf8_lossy(&all.stdout)
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["pcap"].to_string())
        .collect();
    assert_eq!(names.len(), 3, "{names:?}");
}

/// Issue 33: a compressed capture on standard input (`gzip -c x.pcap | wirespeed classify -`)
/// was refused; it is told by its first bytes as a file is: gzip, zstd and xz.
#[test]
fn compressed_captures_on_standard_input() {
    use std::process::Stdio;
    let plain = demo("inputs-stdin-demo.pcap");
    let bytes = std::fs::read(&plain).unwrap();
    let want = records(&ok(bin().args(["classify", "-q"]).arg(&plain)).stdout);
    let gz = {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(&bytes).unwrap();
        e.finish().unwrap()
    };
    let xz = {
        let mut e = xz2::write::XzEncoder::new(Vec::new(), 1);
        e.write_all(&bytes).unwrap();
        e.finish().unwrap()
    };
    let zst =
        ruzstd::encoding::compress_to_vec(&bytes[..], ruzstd::encoding::CompressionLevel::Fastest);
    for (what, input) in [("gzip", gz), ("xz", xz), ("zstd", zst)] {
        let mut c = bin()
            .args(["classify", "-q", "-"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = c.stdin.take().unwrap();
        let feed = std::thread::spawn(move || stdin.write_all(&input));
        let out = c.wait_with_output().unwrap();
        feed.join().unwrap().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{what}: {err}");
        assert_eq!(records(&out.stdout), want, "{what}");
    }
}
