//! Raft as the C `raft` library (dqlite, LXD) speaks it over TCP: every message opens with two
//! little-endian u64 — the message type (1 append entries, 2 its result, 3 request vote, 4 its
//! result, 5 install snapshot, 6 timeout now) and the length of what follows. A message whose
//! length ends the segment is the test; the connection's opening handshake (protocol version,
//! server id, address) has a valid first word but no such length, so it waits for the next.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's Raft label.
pub static LABEL: Label = label("Raft", "Network");

/// The Raft inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "raft",
    transports: TCP,
    ports: &[],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let le64 = |at: usize| {
        d.get(at..at + 8)
            .map(|b| u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
    };
    match (le64(0), le64(8)) {
        (Some(1..=6), Some(len)) if len == (d.len() - 16) as u64 => Probe::Certain(&LABEL),
        (Some(1..=6), Some(_)) if cx.hints.nth < 2 => Probe::Unsure,
        _ => Probe::NotForUs,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::testkit::{classify, hex, probe as run};

    // raft.pcap, 127.0.0.1:46286 -> 127.0.0.1:9002 (nDPI: Raft): the handshake (40 bytes:
    // version 1, server id 1, address length 16, "127.0.0.1:9001") and the start of a request
    // vote (type 3, length 40, 56 bytes in all; the rest zero-filled here).
    const HANDSHAKE: &str = "0100000000000000010000000000000010000000000000003132372e302e302e313a393030310000";
    const VOTE: &str = "030000000000000028000000000000000600000000000000010000000000000000";

    #[test]
    fn corpus_flow() {
        let mut vote = hex(VOTE);
        vote.resize(56, 0);
        let hs = hex(HANDSHAKE);
        assert_eq!(run(&INSPECTOR, TCP, 9002, 46286, false, &hs), Probe::Unsure);
        assert_eq!(classify(TCP, 9002, 46286, &[(true, &hs), (true, &vote)]), Some("Raft"));
    }

    #[test]
    fn near_misses() {
        let mut vote = hex(VOTE);
        vote.resize(56, 0);
        let mut t = vote.clone();
        t[0] = 7; // no such message type
        assert_eq!(run(&INSPECTOR, TCP, 9002, 46286, false, &t), Probe::NotForUs);
        let mut big = vote.clone();
        big[8] = 0x29; // a length that does not end the segment, on a third packet
        let three: Vec<(bool, &[u8])> = vec![(true, &big[..]); 3];
        assert_eq!(classify(TCP, 9002, 46286, &three), None);
        assert_eq!(run(&INSPECTOR, TCP, 9002, 46286, false, &vote[..12]), Probe::NotForUs);
    }
}
