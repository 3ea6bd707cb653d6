//! NFS and the ONC-RPC services around it (RFC 5531 RPC, RFC 1813 NFSv3, RFC 1833 portmapper):
//! an RPC call (message type 0, RPC version 2) to the portmapper (program 100000), NFS (100003)
//! or mountd (100005) with a version and procedure in range for that program and well-formed
//! credential and verifier blocks. nDPI names all three NFS. Over TCP the call follows a record
//! marker (last-fragment bit, fragment length equal to the rest of the segment or longer).

use crate::proto::label;
use crate::util::Rd;
use crate::{Cx, Inspector, Label, Probe, TCP, UDP};

/// nDPI's NFS label.
pub static LABEL: Label = label("NFS", "DataTransfer");

/// The NFS (ONC-RPC call) inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "nfs",
    transports: UDP | TCP,
    ports: &[2049, 111],
    labels: &[&LABEL],
    min_udp: 40,
    ports_required: false,
    probe,
};

/// Largest credential or verifier body RPC allows (RFC 5531 section 8.2: 400 bytes).
const MAX_AUTH: u32 = 400;

/// Is `(prog, vers, proc)` a call of the portmapper, NFS or mountd?
fn known(prog: u32, vers: u32, procedure: u32) -> bool {
    match prog {
        100_000 => (2..=4).contains(&vers) && procedure <= 12,
        100_003 => (2..=4).contains(&vers) && procedure <= 21,
        100_005 => (1..=3).contains(&vers) && procedure <= 5,
        _ => false,
    }
}

/// An opaque_auth block: flavor (AUTH_NONE, AUTH_SYS, AUTH_SHORT, AUTH_DH, RPCSEC_GSS) and a
/// body of at most 400 bytes, padded to 4.
fn auth(r: &mut Rd<'_>) -> Option<()> {
    let flavor = r.u32()?;
    if !matches!(flavor, 0..=3 | 6) {
        return None;
    }
    let n = r.u32()?;
    if n > MAX_AUTH {
        return None;
    }
    r.skip((n as usize).div_ceil(4) * 4)
}

/// Is `d` an RPC call to one of the NFS programs?
fn is_call(d: &[u8]) -> bool {
    let mut r = Rd::new(d);
    let head = (|| {
        let _xid = r.u32()?;
        let (mtype, rpcvers) = (r.u32()?, r.u32()?);
        let (prog, vers, procedure) = (r.u32()?, r.u32()?, r.u32()?);
        Some(mtype == 0 && rpcvers == 2 && known(prog, vers, procedure))
    })();
    head == Some(true) && auth(&mut r).is_some() && auth(&mut r).is_some()
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let call = if cx.hints.transport == TCP {
        let Some(m) = d.get(..4) else {
            return Probe::NotForUs;
        };
        let marker = u32::from_be_bytes([m[0], m[1], m[2], m[3]]);
        let body = d.get(4..).unwrap_or_default();
        // Last fragment, and the fragment holds at least what this segment carries.
        if marker & 0x8000_0000 == 0 || ((marker & 0x7fff_ffff) as usize) < body.len() {
            return Probe::NotForUs;
        }
        body
    } else {
        d
    };
    Probe::certain_if(is_call(call), &LABEL)
}

#[cfg(test)]
mod tests;
