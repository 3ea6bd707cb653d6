//! SMPP 3.4/5.0 (SMPP v3.4 specification sections 3.2 and 4.1): a PDU header of command length
//! (equal to the segment), command id, status and sequence number. A bind request
//! (transmitter, receiver, transceiver) from the client is recognised anywhere by its body:
//! system id, password and system type as C strings within their maximum sizes, an interface
//! version, TON and NPI in range and an address range string ending the PDU. A bind response
//! from the server must carry a system id and well-formed optional parameters. Other PDUs, whose
//! bodies are not checked, count only on the SMPP port 2775.

use crate::proto::label;
use crate::util::Rd;
use crate::{Cx, Dir, Inspector, Label, Probe, TCP};

/// nDPI's SMPP label (nDPI files it under Download).
pub static LABEL: Label = label("SMPP", "Download");

/// The SMPP inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "smpp",
    transports: TCP,
    ports: &[2775],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

/// A C-Octet String of at most `max` bytes including its NUL, printable.
fn cstr(r: &mut Rd<'_>, max: usize) -> Option<()> {
    for i in 0..max {
        match r.u8()? {
            0 => return Some(()),
            b if (0x20..0x7f).contains(&b) && i + 1 < max => {}
            _ => return None,
        }
    }
    None
}

/// Body of bind_receiver/transmitter/transceiver (section 4.1.1).
fn bind_body(body: &[u8]) -> bool {
    let mut r = Rd::new(body);
    let fields = (|| {
        cstr(&mut r, 16)?;
        cstr(&mut r, 9)?;
        cstr(&mut r, 13)?;
        let (version, ton, npi) = (r.u8()?, r.u8()?, r.u8()?);
        cstr(&mut r, 41)?;
        Some(version <= 0x50 && ton <= 6 && npi <= 18)
    })();
    fields == Some(true) && r.left() == 0
}

/// Body of a bind response: system id, then optional TLVs filling the PDU.
fn bind_resp_body(body: &[u8], status: u32) -> bool {
    if body.is_empty() {
        return status != 0;
    }
    let mut r = Rd::new(body);
    if cstr(&mut r, 16).is_none() {
        return false;
    }
    for _ in 0..8 {
        if r.left() == 0 {
            return true;
        }
        let (Some(_tag), Some(_v)) = (r.u16(), r.vec16()) else {
            return false;
        };
    }
    r.left() == 0
}

/// Command ids of SMPP 3.4 (section 5.1.2.1), requests only (responses add 0x80000000).
fn known(id: u32) -> bool {
    matches!(
        id & 0x7fff_ffff,
        0x00..=0x09 | 0x0b | 0x15 | 0x21 | 0x102 | 0x103 | 0x111..=0x113
    )
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let mut r = Rd::new(d);
    let (Some(len), Some(id), Some(status), Some(seq)) = (r.u32(), r.u32(), r.u32(), r.u32())
    else {
        return Probe::NotForUs;
    };
    let body = r.rest();
    if len as usize != d.len() || seq == 0 || seq > 0x7fff_ffff || !known(id) {
        return Probe::NotForUs;
    }
    let response = id & 0x8000_0000 != 0;
    let from_client = cx.hints.dir == Dir::ToServer;
    let ok = match id {
        0x01 | 0x02 | 0x09 => from_client && status == 0 && bind_body(body),
        0x8000_0001 | 0x8000_0002 | 0x8000_0009 => {
            !from_client && status <= 0x0fff && bind_resp_body(body, status)
        }
        _ => cx.hints.port(2775) && (response || status == 0),
    };
    if ok {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
