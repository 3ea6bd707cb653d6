//! Test helpers for the inspectors: hex vectors, one probe call, a whole flow through [`Dpi`].

use crate::{Cx, Dir, DpiConfig, Hints, Inspector, Meta, Packet, Probe, TCP};

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
    let hints = Hints {
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
        server_ip: crate::NO_ADDR,
        client_ip: crate::NO_ADDR,
    };
    probe_hints(ins, hints, data)
}

/// One call of `ins`'s probe on `data` with these hints (multicast, a later packet, ...).
pub(crate) fn probe_hints(ins: &Inspector, hints: Hints, data: &[u8]) -> Probe {
    crate::tests::probe(ins, hints, data).0
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

/// [`classify`] with the server at address `server_ip`.
pub(crate) fn classify_at(
    transport: u8,
    server_ip: std::net::IpAddr,
    server_port: u16,
    client_port: u16,
    pkts: &[(bool, &[u8])],
) -> Option<&'static str> {
    classify_full(transport, server_ip, server_port, client_port, pkts, None).0
}

/// [`classify`], also returning the value of `field` once the flow's packets are seen.
pub(crate) fn classify_meta(
    transport: u8,
    server_port: u16,
    client_port: u16,
    pkts: &[(bool, &[u8])],
    field: Option<crate::Field>,
) -> (Option<&'static str>, Option<String>) {
    let at = crate::NO_ADDR;
    classify_full(transport, at, server_port, client_port, pkts, field)
}

fn classify_full(
    transport: u8,
    server_ip: std::net::IpAddr,
    server_port: u16,
    client_port: u16,
    pkts: &[(bool, &[u8])],
    field: Option<crate::Field>,
) -> (Option<&'static str>, Option<String>) {
    let (label, v) = inspect_flow(transport, server_ip, server_port, client_port, pkts, field);
    (label.map(|(master, _)| master), v)
}

/// The label (master, application) the whole registry gives a flow of these packets.
pub(crate) fn classify_label(
    transport: u8,
    server_port: u16,
    client_port: u16,
    pkts: &[(bool, &[u8])],
) -> Option<(&'static str, &'static str)> {
    let at = crate::NO_ADDR;
    inspect_flow(transport, at, server_port, client_port, pkts, None).0
}

/// Show the registry a flow of these packets: its last label as (master, application), and
/// the value of `field` once the packets are seen.
fn inspect_flow(
    transport: u8,
    server_ip: std::net::IpAddr,
    server_port: u16,
    client_port: u16,
    pkts: &[(bool, &[u8])],
    field: Option<crate::Field>,
) -> (Option<(&'static str, &'static str)>, Option<String>) {
    let (mut dpi, labels) = crate::tests::engine(DpiConfig::default());
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
            server_ip,
            client_ip: crate::NO_ADDR,
            payload,
            ts: 0,
            flow: 0,
            owner: 0,
        };
        seq[d] = seq[d].wrapping_add(payload.len() as u32);
        if let Some(l) = dpi.inspect(&mut h, &p) {
            let l = labels.get(l);
            let app = crate::proto::REGISTRY
                .iter()
                .flat_map(|i| i.labels.iter())
                .map(|x| x.app)
                .find(|n| *n == l.app())
                .unwrap_or("(an application of no inspector)");
            found = Some((static_name(l.master()), app));
        }
    }
    let v = field.and_then(|f| dpi.meta(h).and_then(|m| m.get(f)).map(str::to_owned));
    (found, v)
}

/// The name as a `'static` string, for comparisons in tests: taken from the inspectors' labels,
/// or from the built-in signature file's text (whose masters name labels too).
fn static_name(name: &str) -> &'static str {
    crate::proto::REGISTRY
        .iter()
        .flat_map(|i| i.labels.iter())
        .map(|l| l.master)
        .chain(crate::proto::sig::BUILTIN.split_whitespace())
        .find(|n| *n == name)
        .unwrap_or("(a label of no built-in table)")
}

/// Hostile input: every registered probe, on arbitrary bytes and hints, returns without
/// panicking (out-of-bounds reads, overflows, runaway loops would fail or hang here).
mod hostile {
    use super::*;
    use crate::proto::REGISTRY;
    use crate::UDP;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        #[test]
        fn probes_never_panic(
            data in proptest::collection::vec(any::<u8>(), 0..1600),
            tcp in any::<bool>(),
            sp in any::<u16>(),
            cp in any::<u16>(),
            to_client in any::<bool>(),
        ) {
            let t = if tcp { TCP } else { UDP };
            for ins in REGISTRY.iter().filter(|i| i.transports & t != 0) {
                let _ = probe(ins, t, sp, cp, to_client, &data);
                // The same bytes on the inspector's own port, where most checks go deeper.
                if let Some(&p) = ins.ports.first() {
                    let _ = probe(ins, t, p, cp, to_client, &data);
                }
            }
        }

        #[test]
        fn probes_never_panic_past_their_magic(
            which in any::<prop::sample::Index>(),
            tail in proptest::collection::vec(any::<u8>(), 0..400),
            tcp in any::<bool>(),
            to_client in any::<bool>(),
            nth in 0u8..4,
        ) {
            // Openings that pass the first checks of many probes, so the rest of each parser
            // meets arbitrary bytes.
            const OPENINGS: &[&[u8]] = &[
                b"GNUTELLA CONNECT/", b"GND\x10", b"\x13BitTorrent protocol", b"d1:ad2:id20:",
                b"ZBXD\x01", b"BJNP\x02", b"\x00\x00\x55\xaa", b"ES", b"8=FIX.4.2\x019=",
                b"ISO11898\x01", b"SpotUdp0", b"\x00zUG\x10", b"\x01\x21\x01\x01\x01\x01\x01\x01",
                b"TS3INIT1", b"<stream:stream", b"<?xml", b"\x03\x00", b"\x05\x02", b"\x04\x01",
                b"\x30\x84", b"\x6a\x82", b"\x7e\x81", b"\xff\xff\xff\xff", b"\x01\x00\x00\x00",
                b"\x80\x08", b"\x81\xc9", b"\x0e\x80", b"\x10\x7f", b"{\"", b"<13>", b"0 a ",
                b"220 ", b"+OK", b"* OK", b"INFO {", b"\x84\x00\x00\x00", b"\x2e\xa7\xd9\x0b\x0a\x20",
                b"\x32\xab\x98\x64\x02", b"\xc2\xfe", b"WA\x01\x05", b"\x16\x00", b"\x00\x04",
                b"\x05\x00\xff\xff\x00\xfe\xfe\xfe\xfe\xfd\xfd\xfd\xfd\x12\x34\x56\x78",
                b"\x41\x00", b"\x01\x00\x53", b"\x68\x04", b"\x60\x00", b"\x00\x01\x00\x00",
                b"\x02\x3b\x0b", b"\x02\x06\x00", b"\x0a\x00\x00\x00\x51", b"\x00\x00\x00\xff",
                b"ROUGHTIM", b"\x02\x00\x00\x00", b"\xff\xff\x00\x01", b"IP=", b"\x00\x00\x00\x0c",
                b"INVITE sip:a SIP/2.0\r\n", b"OPTIONS rtsp://a RTSP/1.0\r\n", b"\x38", b"\x00\x2a\x38",
            ];
            let mut data = which.get(OPENINGS).to_vec();
            data.extend_from_slice(&tail);
            let t = if tcp { TCP } else { UDP };
            let sigs = crate::tests::builtin_sigs();
            for ins in REGISTRY.iter().filter(|i| i.transports & t != 0) {
                let port = ins.ports.first().copied().unwrap_or(4000);
                let mut meta = Meta::default();
                let mut state = crate::StateArea::ZERO;
                let mut malformed = 0;
                let mut cx = Cx {
                    hints: Hints {
                        transport: t,
                        server_port: port,
                        client_port: 40000,
                        dir: if to_client { Dir::ToClient } else { Dir::ToServer },
                        nth,
                        multicast: false,
                        server_ip: crate::NO_ADDR,
                        client_ip: crate::NO_ADDR,
                    },
                    data: &data,
                    meta: &mut meta,
                    state: &mut state,
                    stash: None,
                    more: false,
                    incomplete: false,
                    malformed: &mut malformed,
                    long: false,
                    expect: &mut None,
                    sigs: &sigs,
                    digests: &mut crate::Digests::default(),
                    events: None,
                    ev_more: false,
                };
                let _ = (ins.probe)(&mut cx);
            }
        }

        #[test]
        fn flows_never_panic(
            pkts in proptest::collection::vec(
                (any::<bool>(), proptest::collection::vec(any::<u8>(), 1..300)), 1..12),
            tcp in any::<bool>(),
            sp in any::<u16>(),
        ) {
            let list: Vec<(bool, &[u8])> = pkts.iter().map(|(c, d)| (*c, d.as_slice())).collect();
            let _ = classify(if tcp { TCP } else { UDP }, sp, 40000, &list);
        }
    }
}
