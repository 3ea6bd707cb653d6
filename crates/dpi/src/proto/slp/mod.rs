//! Service Location Protocol (RFC 2608 version 2, RFC 2165 version 1): a header whose version,
//! function id and length agree with the message.

use crate::proto::label;
use crate::util::Rd;
use crate::{Cx, Inspector, Label, Probe, UDP};

/// nDPI's SLP label.
pub static LABEL: Label = label("Service_Location_Protocol", "RPC");

/// The SLP inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "slp",
    // UDP only: over TCP the header test alone matched other protocols (MsSQL-TDS).
    transports: UDP,
    ports: &[427],
    labels: &[&LABEL],
    min_udp: 12,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let mut r = Rd::new(d);
    let (Some(ver), Some(func)) = (r.u8(), r.u8()) else {
        return Probe::NotForUs;
    };
    let ok = match ver {
        2 => {
            // Length (24 bits), flags (the low 13 bits reserved, zero), next-ext offset (24),
            // XID, language tag.
            let len = r.u24().unwrap_or(0) as usize;
            let flags = r.u16().unwrap_or(0xffff);
            (1..=11).contains(&func) && len == d.len() && flags & 0x1fff == 0 && len >= 16
        }
        1 => {
            // RFC 2165 §7: length, then the flags byte (its low 3 bits reserved, zero), the
            // dialect (reserved, zero) and an ISO 639 two-letter language code. Version,
            // function and length alone are a RADIUS Access-Request's code, identifier and
            // length in one of 25 (its identifier 1-10).
            let len = r.u16().unwrap_or(0) as usize;
            let (flags, dialect) = (r.u8().unwrap_or(0xff), r.u8().unwrap_or(0xff));
            let lang = r.take(2).unwrap_or(&[0, 0]);
            (1..=10).contains(&func)
                && len == d.len()
                && len >= 12
                && flags & 0x07 == 0
                && dialect == 0
                && lang.iter().all(u8::is_ascii_alphabetic)
        }
        _ => false,
    };
    if ok {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
