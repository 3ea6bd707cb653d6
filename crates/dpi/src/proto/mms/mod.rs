//! ISO 9506 MMS (Manufacturing Message Specification, IEC 61850's transport) over ISO-on-TCP
//! (RFC 1006, port 102): TPKT, COTP data (0xf0), then an ISO 8327 session CONNECT (0x0d) or
//! ACCEPT (0x0e) SPDU whose presentation part names MMS by its object identifiers — the
//! abstract syntax 1.0.9506.2.1 or the application context 1.0.9506.2.3 (BER: `06 05 28 ca 22 02
//! 01` / `03`). Connection requests before it (COTP CR/CC) wait on port 102.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's MMS label.
pub static LABEL: Label = label("ISO9506-1-MMS", "IoT-Scada");

/// The MMS inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "mms",
    transports: TCP,
    ports: &[102],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

/// The BER object identifier of MMS without its last arc (abstract syntax `.1`, application
/// context `.3`).
const MMS_OID: &[u8] = &[0x06, 0x05, 0x28, 0xca, 0x22, 0x02];

fn probe(cx: &mut Cx<'_>) -> Probe {
    let s7_port = cx.hints.port(102);
    crate::util::tpkt_units(cx.data, |unit| match (unit[4], unit[5]) {
        // Connection request / confirm: the session follows in the data.
        (_, 0xe0 | 0xd0) if s7_port => Probe::Unsure,
        (2, 0xf0) if matches!(unit.get(7), Some(0x0d | 0x0e)) => {
            let named = unit
                .get(8..)
                .unwrap_or(&[])
                .windows(MMS_OID.len() + 1)
                .any(|w| w[..MMS_OID.len()] == *MMS_OID && matches!(w[MMS_OID.len()], 1 | 3));
            Probe::certain_if(named, &LABEL)
        }
        _ => Probe::NotForUs,
    })
}

#[cfg(test)]
mod tests;
