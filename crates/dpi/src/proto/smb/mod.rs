//! SMB over TCP (direct on 445, or inside a NetBIOS session on 139): a session message header
//! (type 0, 24-bit length covering at least the segment) and the SMB1 (`\xffSMB`) or SMB2/3
//! (`\xfeSMB`, or `\xfdSMB` when encrypted) signature. nDPI reports these flows with NetBIOS as
//! master protocol and SMBv1 or SMBv23 as application.

use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's label for SMB1: master NetBIOS, application SMBv1.
pub static SMB1: Label = Label {
    app: "SMBv1",
    master: "NetBIOS",
    category: "System",
};
/// nDPI's label for SMB2/3: master NetBIOS, application SMBv23.
pub static SMB23: Label = Label {
    app: "SMBv23",
    master: "NetBIOS",
    category: "System",
};

/// The SMB inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "smb",
    transports: TCP,
    ports: &[445, 139],
    labels: &[&SMB1, &SMB23],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let (Some(&0), Some(l), Some(sig)) = (d.first(), d.get(1..4), d.get(4..8)) else {
        return Probe::NotForUs;
    };
    let len = (usize::from(l[0]) << 16) | (usize::from(l[1]) << 8) | usize::from(l[2]);
    if len + 4 < d.len() || len < 32 {
        return Probe::NotForUs;
    }
    match sig {
        b"\xffSMB" => Probe::Certain(&SMB1),
        b"\xfeSMB" | b"\xfdSMB" => Probe::Certain(&SMB23),
        _ => Probe::NotForUs,
    }
}

#[cfg(test)]
mod tests;
