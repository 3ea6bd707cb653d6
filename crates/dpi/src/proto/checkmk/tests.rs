use super::*;
use crate::proto::testkit::{classify, probe as run};

// Built from the agent's source (no Checkmk agent package is installable here, and Wireshark has
// no dissector for it): `section_checkmk` in agents/check_mk_agent.linux of Checkmk 2.3.0b1
// prints these lines first, before any other section, and the agent writes them to the
// monitoring server's connection on 6556 (the host-dependent lines filled in).
const REPORT: &[u8] = b"<<<check_mk>>>\nVersion: 2.3.0b1\nAgentOS: linux\nHostname: node1\n\
AgentDirectory: /etc/check_mk\nDataDirectory: /var/lib/check_mk_agent\n";

#[test]
fn agent_report() {
    assert_eq!(run(&INSPECTOR, TCP, 6556, 40000, true, REPORT), Probe::Certain(&LABEL));
    assert_eq!(classify(TCP, 6556, 40000, &[(false, REPORT)]), Some("CHECKMK"));
    assert_eq!(classify(TCP, 16556, 40000, &[(false, REPORT)]), Some("CHECKMK"));
    // The header line alone in its segment.
    assert_eq!(run(&INSPECTOR, TCP, 6556, 40000, true, &REPORT[..15]), Probe::Certain(&LABEL));
}

#[test]
fn near_misses() {
    for bad in [
        &b"<<<check_mk>>>"[..],                 // no newline yet
        b"<<<check_mk>>>\nHostname: node1\n",   // not the version line
        b"<<<mem>>>\nMemTotal: 1 kB\n",         // another section first
        b"<<<Check_MK>>>\nVersion: 2.3.0\n",    // case matters
        b"99<<<check_mk>>>\nVersion: 2.3.0\n", // a prefix
    ] {
        assert_eq!(run(&INSPECTOR, TCP, 6556, 40000, true, bad), Probe::NotForUs, "{bad:?}");
    }
}
