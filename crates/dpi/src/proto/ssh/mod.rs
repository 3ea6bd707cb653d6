//! SSH (RFC 4253): the identification banners of both sides and the client's HASSH (MD5 of its
//! KEXINIT's key exchange, cipher, MAC and compression lists, client to server).

use crate::meta::Field;
use crate::proto::label;
use crate::util::{md5_hex, Buf, Rd};
use crate::{Cx, Dir, Inspector, Label, Probe, TCP};

/// nDPI's SSH label.
pub static LABEL: Label = label("SSH", "RemoteAccess");

/// The SSH inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "ssh",
    transports: TCP,
    ports: &[22, 2222],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

/// Per-flow state.
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
struct State {
    /// What was read: [`CLIENT`], [`SERVER`] banners, the client's KEXINIT ([`HASSH`]).
    seen: u8,
}

/// [`State::seen`]: the client's banner.
const CLIENT: u8 = 1;
/// [`State::seen`]: the server's banner.
const SERVER: u8 = 2;
/// [`State::seen`]: the client's KEXINIT (its HASSH written).
const HASSH: u8 = 4;

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    let client = cx.hints.dir == Dir::ToServer;
    let mut rest = d;
    if d.starts_with(b"SSH-") {
        let end = d.iter().position(|&c| c == b'\n' || c == b'\r');
        let banner = d.get(..end.unwrap_or(d.len())).unwrap_or(&[]);
        if client {
            cx.set(Field::SshClient, banner);
            cx.state::<State>().seen |= CLIENT;
        } else {
            cx.set(Field::SshServer, banner);
            cx.state::<State>().seen |= SERVER;
        }
        rest = match crate::util::find(d, b"\r\n") {
            Some(p) => d.get(p + 2..).unwrap_or(&[]),
            None => match end {
                Some(p) => d.get(p + 1..).unwrap_or(&[]),
                None => &[],
            },
        };
    } else if cx.state::<State>().seen == 0 {
        return if b"SSH-".starts_with(d) {
            Probe::Unsure
        } else {
            Probe::NotForUs
        };
    }
    if client && cx.state::<State>().seen & HASSH == 0 && !rest.is_empty() {
        match kexinit(rest, cx.meta.no_hash) {
            Kex::Done(h) => {
                cx.set(Field::Hassh, &h);
                cx.state::<State>().seen |= HASSH;
            }
            Kex::Short => cx.incomplete(),
            Kex::Other => {}
        }
    }
    if cx.state::<State>().seen & (CLIENT | SERVER | HASSH) != CLIENT | SERVER | HASSH {
        cx.want_more();
    }
    Probe::Certain(&LABEL)
}

enum Kex {
    Done([u8; 32]),
    Short,
    Other,
}

/// HASSH of a client's binary packet holding KEXINIT.
fn kexinit(d: &[u8], skip_hash: bool) -> Kex {
    let mut r = Rd::new(d);
    let (Some(plen), Some(_pad), Some(code)) = (r.u32(), r.u8(), r.u8()) else {
        return Kex::Short;
    };
    if code != 20 || !(16..=35000).contains(&plen) {
        return Kex::Other;
    }
    if d.len() < plen as usize + 4 {
        return Kex::Short;
    }
    if r.skip(16).is_none() {
        return Kex::Short;
    }
    let mut lists: [&[u8]; 8] = [&[]; 8];
    for l in lists.iter_mut() {
        let Some(n) = r.u32() else { return Kex::Other };
        let Some(v) = r.take(n as usize) else {
            return Kex::Other;
        };
        *l = v;
    }
    // kex ; encryption c2s ; mac c2s ; compression c2s
    let mut s = Buf::<4096>::default();
    for (i, k) in [0usize, 2, 4, 6].iter().enumerate() {
        if i > 0 {
            s.push(b";");
        }
        s.push(lists[*k]);
    }
    if s.lost {
        return Kex::Other;
    }
    // Not computed (`crate::DpiConfig::fingerprints` off): as many `0` digits.
    Kex::Done(if skip_hash {
        [b'0'; 32]
    } else {
        md5_hex(s.as_bytes())
    })
}

#[cfg(test)]
mod tests;
