//! `--community-id`: every record's Community ID equals the reference implementation's (PyPI
//! `communityid`, run here in a subprocess) on the corpus captures' TCP, UDP and SCTP flows
//! and the demo's; ICMP flows (whose ID needs the message type a record does not keep) have
//! none. Skipped, saying so, where Python lacks the package (CI installs it).

use std::process::Command;

use crate::common::{bin, demo, ok};

/// The reference IDs of these (proto, src, sport, dst, dport) tuples, in order.
fn reference(tuples: &[(u8, String, u16, String, u16)]) -> Option<Vec<String>> {
    // Lines joined by hand: a string continuation would strip Python's indentation.
    let script = [
        "import sys, communityid",
        "c = communityid.CommunityID()",
        "for l in sys.stdin:",
        "    p, s, sp, d, dp = l.split()",
        "    p = int(p)",
        "    if p in (6, 17, 132):",
        "        t = communityid.FlowTuple(p, s, d, int(sp), int(dp))",
        "    else:",
        "        t = communityid.FlowTuple(p, s, d)",
        "    print(c.calc(t))",
    ]
    .join("\n");
    let mut child = Command::new("python3")
        .args(["-c", &script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .ok()?;
    let input: String = tuples
        .iter()
        .map(|(p, s, sp, d, dp)| format!("{p} {s} {sp} {d} {dp}\n"))
        .collect();
    std::io::Write::write_all(child.stdin.as_mut()?, input.as_bytes()).ok()?;
    let out = child.wait_with_output().ok()?;
    if !out.status.success() {
        return None;
    }
    Some(
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(String::from)
            .collect(),
    )
}

#[test]
fn community_ids_are_the_reference_implementations() {
    let mut inputs = vec![demo("community-demo.pcap")];
    if let Some(c) = wirespeed_testkit::corpus("community_ids") {
        for f in ["chrome.pcap", "dns.pcap", "1kxun.pcap", "quic.pcap"] {
            inputs.push(c.pcap(f));
        }
    }
    let out = ok(bin()
        .args(["classify", "-q", "--community-id"])
        .args(&inputs));
    let recs: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut tuples = Vec::new();
    let mut ours = Vec::new();
    for r in &recs {
        let p = r["ip_proto"].as_u64().unwrap() as u8;
        let (s, d) = (r["src_ip"].as_str().unwrap(), r["dst_ip"].as_str().unwrap());
        if matches!(p, 1 | 58) {
            assert!(r["community_id"].is_null(), "{r}");
            continue;
        }
        if s.contains(':') != d.contains(':') {
            continue;
        }
        let port = |k: &str| r[k].as_u64().unwrap() as u16;
        tuples.push((
            p,
            s.to_string(),
            port("src_port"),
            d.to_string(),
            port("dst_port"),
        ));
        ours.push(r["community_id"].as_str().unwrap().to_string());
    }
    assert!(tuples.len() >= 9, "{}", tuples.len());
    let Some(want) = reference(&tuples) else {
        wirespeed_testkit::skip(
            "community_id",
            "python3 with the communityid package (pip install communityid)",
        );
        return;
    };
    assert_eq!(want.len(), ours.len());
    for ((t, w), o) in tuples.iter().zip(&want).zip(&ours) {
        assert_eq!(o, w, "{t:?}");
    }
    eprintln!(
        "{} Community IDs equal the reference implementation's",
        ours.len()
    );
}
