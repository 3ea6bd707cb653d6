//! Test helpers for the inspectors: hex vectors, one probe call, a whole flow through [`Dpi`].

use crate::{Cx, Dir, Dpi, DpiConfig, Hints, Inspector, Meta, Packet, Probe, STATE_BYTES, TCP};

/// Bytes of a hex string (whitespace ignored).
pub(crate) fn hex(s: &str) -> Vec<u8> {
    let h: Vec<u8> = s.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    h.chunks(2)
        .map(|p| u8::from_str_radix(std::str::from_utf8(p).unwrap(), 16).unwrap())
        .collect()
}

/// One call of `ins`'s probe on `data`, a first packet from the client unless `to_client`.
pub(crate) fn probe(
    ins: &Inspector,
    transport: u8,
    server_port: u16,
    client_port: u16,
    to_client: bool,
    data: &[u8],
) -> Probe {
    let mut meta = Meta::default();
    let mut state = [0u8; STATE_BYTES];
    let mut malformed = 0;
    let mut cx = Cx {
        hints: Hints {
            transport,
            server_port,
            client_port,
            dir: if to_client {
                Dir::ToClient
            } else {
                Dir::ToServer
            },
            nth: 0,
            multicast: false,
        },
        data,
        meta: &mut meta,
        state: &mut state,
        more: false,
        incomplete: false,
        malformed: &mut malformed,
    };
    (ins.probe)(&mut cx)
}

/// The master name the whole registry gives a flow of these packets (`true` = from the
/// client), and its metadata field `f` if asked.
pub(crate) fn classify(
    transport: u8,
    server_port: u16,
    client_port: u16,
    pkts: &[(bool, &[u8])],
) -> Option<&'static str> {
    classify_meta(transport, server_port, client_port, pkts, None).0
}

/// [`classify`], also returning the value of `field` once the flow's packets are seen.
pub(crate) fn classify_meta(
    transport: u8,
    server_port: u16,
    client_port: u16,
    pkts: &[(bool, &[u8])],
    field: Option<crate::Field>,
) -> (Option<&'static str>, Option<String>) {
    let mut dpi = Dpi::new(DpiConfig::default());
    let mut h = crate::NO_HANDLE;
    let mut seq = [1000u32, 5000u32];
    let mut found = None;
    for &(from_client, payload) in pkts {
        let d = usize::from(!from_client);
        let p = Packet {
            ip_proto: if transport == TCP { 6 } else { 17 },
            server_port,
            client_port,
            from_client,
            seq: seq[d],
            multicast: false,
            payload,
        };
        seq[d] = seq[d].wrapping_add(payload.len() as u32);
        if let Some(l) = dpi.inspect(&mut h, &p) {
            found = Some(l.master);
        }
    }
    let v = field.and_then(|f| dpi.meta(h).and_then(|m| m.get(f)).map(str::to_owned));
    (found, v)
}
