//! Microsoft SQL Server's TDS: an 8-byte packet header (type, status, length equal to the
//! segment, SPID, packet id from 1, window 0) of a client request type (SQL batch, RPC,
//! attention, bulk load, login, pre-login...) or the server's tabular answer. (A TPKT header,
//! `03 00 len`, has the same shape but a zero where TDS numbers its packets.)

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's MsSQL-TDS label.
pub static LABEL: Label = label("MsSQL-TDS", "Database");

/// The TDS inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "mssql_tds",
    transports: TCP,
    ports: &[1433],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let (Some(&ty), Some(&status), Some(l), Some(&id), Some(&window)) =
        (d.first(), d.get(1), d.get(2..4), d.get(6), d.get(7))
    else {
        return Probe::NotForUs;
    };
    let len = usize::from(u16::from_be_bytes([l[0], l[1]]));
    let ok = matches!(ty, 1 | 2 | 3 | 4 | 6 | 7 | 0x0e | 0x10 | 0x11 | 0x12)
        && status <= 0x1f
        && window == 0
        && id != 0
        && len > 8
        && len == d.len();
    if ok {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
