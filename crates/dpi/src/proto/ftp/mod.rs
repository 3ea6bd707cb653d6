//! FTP control connections (RFC 959): a `220` greeting that does not name SMTP, then the
//! client's first command decides: `AUTH TLS`/`AUTH SSL` (RFC 4217) makes it FTPS as nDPI
//! names it, an FTP command (`USER name`, `FEAT`, `SYST`, `OPTS`...) plain FTP control. A
//! client that speaks first is judged by its command alone.
//!
//! The control connection is then followed (past the usual budget, [`crate::Cx::want_long`])
//! for the data connections it sets up: the server's `227` (PASV, RFC 959 §4.1.2) and `229`
//! (EPSV, RFC 2428 §3) replies and the client's `PORT` and `EPRT` (RFC 2428 §2) commands
//! announce each one ([`crate::Expect`]), which the engine names FTP_DATA when it comes. An
//! `AUTH TLS` later in the session, answered `234`, makes it FTPS, and the TLS handshake that
//! follows gives the flow's TLS metadata (no data connection can be read after that).

use crate::proto::label;
use crate::proto::smtp::{line_has, reply};
use crate::proto::starttls::{self, ASKED, OPEN, TLS};
use crate::{Cx, Dir, Expect, Inspector, Label, Probe, TCP};
use std::net::{IpAddr, Ipv4Addr};

/// nDPI's FTP_CONTROL label.
pub static LABEL: Label = label("FTP_CONTROL", "Download");
/// nDPI's FTPS label (explicit TLS).
pub static FTPS: Label = label("FTPS", "Download");
/// nDPI's FTP_DATA label: a data connection the control connection announced.
pub static DATA: Label = label("FTP_DATA", "Download");

/// The FTP control inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "ftp",
    transports: TCP,
    ports: &[21],
    labels: &[&LABEL, &FTPS, &DATA],
    min_udp: 0,
    ports_required: false,
    probe,
};

const COMMANDS: &[&[u8]] = &[b"USER ", b"FEAT", b"SYST", b"OPTS ", b"PASS "];

/// Most lines read in one segment.
const MAX_LINES: usize = 32;

fn starts_ci(d: &[u8], p: &[u8]) -> bool {
    d.get(..p.len()).is_some_and(|x| x.eq_ignore_ascii_case(p))
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    match starttls::phase(cx) {
        0 => {}
        TLS => return starttls::handshake(cx, &FTPS),
        _ => return later(cx),
    }
    let d = cx.data;
    match cx.hints.dir {
        Dir::ToClient if cx.hints.nth == 0 && reply(d, b"220") => {
            if line_has(d, b"SMTP") {
                Probe::NotForUs
            } else {
                Probe::Unsure
            }
        }
        // POP3 uses USER too, but its greeting is "+OK", which this inspector refused.
        Dir::ToServer if cx.hints.nth == 0 && d.ends_with(b"\r\n") => {
            let tls = starts_ci(d, b"AUTH TLS") || starts_ci(d, b"AUTH SSL");
            let known = tls || COMMANDS.iter().any(|c| starts_ci(d, c));
            // "USER name" has one argument (IRC's USER has four).
            let one_arg = !starts_ci(d, b"USER ")
                || d.get(5..d.len() - 2).is_some_and(|a| !a.is_empty() && !a.contains(&b' '));
            if known && one_arg && !cx.hints.port(110) {
                starttls::set(cx, OPEN);
                later(cx)
            } else {
                Probe::NotForUs
            }
        }
        _ => Probe::NotForUs,
    }
}

/// The whole lines of a segment (without their line ends), at most [`MAX_LINES`]: a last
/// line without its end is not read.
fn lines(d: &[u8]) -> impl Iterator<Item = &[u8]> {
    let whole = d.iter().rposition(|&b| b == b'\n').and_then(|e| d.get(..e));
    whole
        .into_iter()
        .flat_map(|w| w.split(|&b| b == b'\n'))
        .take(MAX_LINES)
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
}

/// A data connection that one line of an FTP control connection announces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Announce {
    /// The server's `227` or `229` reply: the client will connect to this port, on the address
    /// the reply names (`227`) or on the control connection's server (`229`, None).
    Passive(Option<IpAddr>, u16),
    /// The client's `PORT` or `EPRT` command: the server will connect to this address and port.
    Active(IpAddr, u16),
}

impl Announce {
    /// The data connection's end-points, for a control connection from `client` to `server`:
    /// the address it comes from, the addresses it may go to (the one named, and the other
    /// end of the control connection: a server behind NAT names its inside address), its port.
    /// Passive: the control client connects to the address named (or the control server);
    /// active: the control server connects to the client's address.
    pub fn endpoints(self, client: IpAddr, server: IpAddr) -> (IpAddr, [IpAddr; 2], u16) {
        match self {
            Announce::Passive(addr, port) => (client, [addr.unwrap_or(server), server], port),
            Announce::Active(addr, port) => (server, [addr, client], port),
        }
    }
}

/// The data connections the whole lines of `payload` announce (sent by the client if
/// `from_client`), in order. The engine's dispatcher reads the packets of port 21 with this
/// same function, to keep each data connection on its control connection's worker.
pub fn announcements(payload: &[u8], from_client: bool, mut f: impl FnMut(Announce)) {
    for line in lines(payload) {
        if let Some(a) = announcement(line, from_client) {
            f(a);
        }
    }
}

/// What one line announces.
fn announcement(line: &[u8], from_client: bool) -> Option<Announce> {
    if from_client {
        if starts_ci(line, b"PORT ") {
            let (a, port) = host_port(line.get(5..)?)?;
            Some(Announce::Active(IpAddr::V4(a), port))
        } else if starts_ci(line, b"EPRT ") {
            let (a, port) = eprt(line.get(5..)?)?;
            Some(Announce::Active(a, port))
        } else {
            None
        }
    } else if line.starts_with(b"227 ") {
        // "227 Entering Passive Mode (h1,h2,h3,h4,p1,p2)": the numbers after the code.
        let at = line.iter().skip(4).position(u8::is_ascii_digit)? + 4;
        let (a, port) = host_port(line.get(at..)?)?;
        Some(Announce::Passive(Some(IpAddr::V4(a)), port))
    } else if line.starts_with(b"229 ") {
        // "229 Entering Extended Passive Mode (|||6446|)".
        Some(Announce::Passive(None, epsv(line)?))
    } else {
        None
    }
}

/// A segment of a flow known to be FTP control: its lines, for TLS and data connections.
fn later(cx: &mut Cx<'_>) -> Probe {
    for line in lines(cx.data) {
        line_of(cx, line);
        if starttls::phase(cx) == TLS {
            cx.want_more();
            return Probe::Certain(&FTPS);
        }
    }
    cx.want_more();
    cx.want_long();
    if starttls::phase(cx) == ASKED {
        // nDPI names the session FTPS from the client's AUTH TLS on.
        return Probe::Certain(&FTPS);
    }
    Probe::Certain(&LABEL)
}

/// One line (without its line end) of the control connection. Data connections are announced
/// to the engine only on the standard control port, 21, which the engine's dispatcher reads
/// too (so that a data connection is handled by its control connection's worker).
fn line_of(cx: &mut Cx<'_>, line: &[u8]) {
    let h = cx.hints;
    let client = h.dir == Dir::ToServer;
    if client && (starts_ci(line, b"AUTH TLS") || starts_ci(line, b"AUTH SSL")) {
        starttls::set(cx, ASKED);
        return;
    }
    if !client && starttls::phase(cx) == ASKED {
        if line.starts_with(b"234") {
            starttls::set(cx, TLS);
        } else if line.first().is_some_and(|c| matches!(c, b'4' | b'5')) {
            starttls::set(cx, OPEN);
        }
        return;
    }
    if h.server_port != 21 {
        return;
    }
    let Some(a) = announcement(line, client) else {
        return;
    };
    let (from, servers, port) = a.endpoints(h.client_ip, h.server_ip);
    cx.expect(Expect {
        client: from,
        servers,
        port,
        label: &DATA,
    });
}

/// `h1,h2,h3,h4,p1,p2` (RFC 959's host-port), from the start of `d`: the address and port.
fn host_port(d: &[u8]) -> Option<(Ipv4Addr, u16)> {
    let mut v = [0u16; 6];
    let mut k = 0;
    let mut digits = 0;
    for &c in d.iter().take(32) {
        match c {
            b'0'..=b'9' if digits < 3 => {
                let x = v.get_mut(k)?;
                *x = *x * 10 + u16::from(c - b'0');
                digits += 1;
            }
            b',' if digits > 0 && k < 5 => {
                k += 1;
                digits = 0;
            }
            _ => break,
        }
    }
    if k != 5 || digits == 0 || v.iter().any(|&x| x > 255) {
        return None;
    }
    let port = v[4] << 8 | v[5];
    (port != 0).then(|| (Ipv4Addr::new(v[0] as u8, v[1] as u8, v[2] as u8, v[3] as u8), port))
}

/// `<d><proto><d><addr><d><port><d>` (RFC 2428 §2): protocol 1 (IPv4) or 2 (IPv6).
fn eprt(d: &[u8]) -> Option<(IpAddr, u16)> {
    let &delim = d.first()?;
    let mut parts = d.get(1..)?.split(|&c| c == delim);
    let (proto, addr, port) = (parts.next()?, parts.next()?, parts.next()?);
    let addr = std::str::from_utf8(addr).ok()?;
    let a: IpAddr = match proto {
        b"1" => IpAddr::V4(addr.parse().ok()?),
        b"2" => IpAddr::V6(addr.parse().ok()?),
        _ => return None,
    };
    Some((a, number(port)?))
}

/// The port of a `229` reply: `(<d><d><d><port><d>)`.
fn epsv(line: &[u8]) -> Option<u16> {
    let open = line.iter().position(|&c| c == b'(')?;
    let inner = line.get(open + 1..)?;
    let &delim = inner.first()?;
    if inner.get(1) != Some(&delim) || inner.get(2) != Some(&delim) {
        return None;
    }
    let body = inner.get(3..)?;
    let end = body.iter().position(|&c| c == delim)?;
    number(body.get(..end)?)
}

/// A port number in decimal digits (1-65535).
fn number(d: &[u8]) -> Option<u16> {
    if d.is_empty() || d.len() > 5 || !d.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let n = d.iter().fold(0u32, |a, &c| a * 10 + u32::from(c - b'0'));
    u16::try_from(n).ok().filter(|&p| p != 0)
}

#[cfg(test)]
mod tests;
