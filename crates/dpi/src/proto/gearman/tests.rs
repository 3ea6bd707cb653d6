use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// Made here: Debian gearman-job-server 1.1.20+ds-1 (`gearmand -L 192.0.2.2`) and gearman-tools'
// `gearman -f revfn -b hello` from 192.0.2.1 in network namespaces, captured with tcpdump;
// tshark dissects them as `gearman`. Frame 16: REQ SUBMIT_JOB_BG (18), 48 bytes of data.
const SUBMIT_BG: &str = "005245510000001200000030726576666e0034656566343837612d653836652d31316631\
                         2d386133332d3265383566323434326635610068656c6c6f";
// Frame 18: RES JOB_CREATED (8), handle "H:vm:1".
const JOB_CREATED: &str = "005245530000000800000006483a766d3a31";
// Frame 28 (a worker, `gearman -w`): REQ GRAB_JOB_ALL (39), no data (tshark: "GRAB_JOB_ALL(39)").
const GRAB: &str = "005245510000002700000000";

#[test]
fn captured_packets() {
    for (v, to_client) in [(SUBMIT_BG, false), (JOB_CREATED, true), (GRAB, false)] {
        assert_eq!(run(&INSPECTOR, TCP, 4730, 48478, to_client, &hex(v)), Probe::Certain(&LABEL));
    }
    assert_eq!(classify(TCP, 4730, 48478, &[(true, &hex(SUBMIT_BG))]), Some("Gearman"));
    assert_eq!(classify(TCP, 14730, 48478, &[(true, &hex(SUBMIT_BG))]), Some("Gearman"));
}

#[test]
fn two_packets_in_one_segment() {
    let mut v = hex(GRAB);
    v.extend(hex(JOB_CREATED));
    assert_eq!(run(&INSPECTOR, TCP, 4730, 4000, false, &v), Probe::Certain(&LABEL));
}

#[test]
fn near_misses() {
    let mut magic = hex(SUBMIT_BG);
    magic[1] = b'r';
    let mut ty = hex(SUBMIT_BG);
    ty[7] = 0;
    let mut ty2 = hex(SUBMIT_BG);
    ty2[7] = 43;
    let mut size = hex(SUBMIT_BG);
    size[11] = 0x20; // 32 bytes of data, then 16 bytes that are no header
    let mut huge = hex(SUBMIT_BG);
    huge[8] = 0x7f;
    for v in [magic, ty, ty2, size, huge, hex("00524551000000")] {
        assert_eq!(run(&INSPECTOR, TCP, 4730, 4000, false, &v), Probe::NotForUs, "{v:02x?}");
    }
}
