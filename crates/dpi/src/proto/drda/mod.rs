//! DRDA (IBM's Distributed Relational Database Architecture, DB2 on TCP 50000/446): every
//! message is a DSS — length (2 bytes, big-endian), the magic 0xD0, a format byte whose low
//! nibble is the DSS type (1 request, 2 reply, 3 object, 4 encrypted object, 5 communication),
//! a correlator, then the DDM object: its own length (the DSS's minus 6) and code point.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's DRDA label.
pub static LABEL: Label = label("DRDA", "Database");

/// The DRDA inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "drda",
    transports: TCP,
    ports: &[50000, 446],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let be16 = |at: usize| d.get(at..at + 2).map(|b| usize::from(u16::from_be_bytes([b[0], b[1]])));
    let ok = match (be16(0), d.get(2), d.get(3), be16(6)) {
        (Some(len), Some(0xd0), Some(&format), Some(ddm)) => {
            (1..=5).contains(&(format & 0x0f)) && len >= 10 && len <= d.len() && ddm + 6 == len
        }
        _ => false,
    };
    Probe::certain_if(ok, &LABEL)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::testkit::{classify, hex, probe as run};

    // drda_db2.pcap, 192.168.106.1:4847 -> 192.168.106.128:50000 (nDPI: DRDA): the first 40
    // bytes of the client's EXCSAT (DSS length 0x89, request, correlator 1, DDM length 0x83,
    // code point 0x1041), zero-filled to the DSS's length.
    const EXCSAT: &str = "0089d0410001008310410039115e8482f29183836d81979793898381a38996954040d1c3c3f0f2f1";

    #[test]
    fn corpus_request() {
        let mut d = hex(EXCSAT);
        d.resize(0x89, 0);
        assert_eq!(classify(TCP, 50000, 4847, &[(true, &d)]), Some("DRDA"));
    }

    #[test]
    fn near_misses() {
        let mut d = hex(EXCSAT);
        d.resize(0x89, 0);
        for (at, v) in [(2, 0xd1), (3, 0x46), (7, 0x84), (1, 0x8a)] {
            let mut m = d.clone();
            m[at] = v;
            assert_eq!(run(&INSPECTOR, TCP, 50000, 4847, false, &m), Probe::NotForUs, "{at}");
        }
    }
}
