//! EAQ (Brazil's broadband quality measurement, Entidade Aferidora da Qualidade): 16-byte UDP
//! probes to and from port 6000. Size and port alone are weak, so the flow needs two such
//! packets in one direction, as nDPI collects several before it decides.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's EAQ label.
pub static LABEL: Label = label("EAQ", "Network");

/// The EAQ inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "eaq",
    transports: UDP,
    ports: &[6000],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    if cx.data.len() != 16 || !cx.hints.port(6000) {
        return Probe::NotForUs;
    }
    if cx.hints.nth >= 1 {
        Probe::Certain(&LABEL)
    } else {
        Probe::Unsure
    }
}

#[cfg(test)]
mod tests;
