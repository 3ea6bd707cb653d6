//! Fuzz the payload inspectors: every registered inspector on arbitrary bytes with arbitrary
//! hints and state, then the whole DPI engine (context pool, budget, TCP reassembly) on a
//! sequence of packets cut from the same bytes. Never a panic; metadata always valid text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use wirespeed_dpi::{
    probe_each, Dir, Dpi, DpiConfig, DpiRules, Hints, Labels, Packet, NO_HANDLE, STATE_BYTES, TCP,
    UDP,
};
use std::sync::Arc;

const PORTS: &[u16] = &[
    53, 80, 443, 22, 123, 137, 138, 139, 427, 1900, 3478, 5353, 5355, 67, 4433,
];

fuzz_target!(|data: &[u8]| {
    let Some((head, rest)) = data.split_at_checked(4) else {
        return;
    };
    let tcp = head[0] & 1 != 0;
    let hints = Hints {
        transport: if tcp { TCP } else { UDP },
        // Half the runs on a fixed list, half on any inspector's own port (port-bound probes).
        server_port: if head[1] & 0x80 == 0 {
            PORTS[head[1] as usize % PORTS.len()]
        } else {
            let all = || {
                wirespeed_dpi::proto::REGISTRY
                    .iter()
                    .flat_map(|i| i.ports.iter())
            };
            let n = all().count().max(1);
            let k = usize::from(u16::from_be_bytes([head[1] & 0x7f, head[2]]));
            all().nth(k % n).copied().unwrap_or(0)
        },
        client_port: u16::from_be_bytes([head[2], head[3]]),
        dir: if head[0] & 2 != 0 {
            Dir::ToServer
        } else {
            Dir::ToClient
        },
        nth: head[0] >> 4,
        multicast: head[0] & 4 != 0,
        // Sometimes an address of a block some inspectors name (Apple's 17.0.0.0/8).
        server_ip: if head[0] & 8 != 0 {
            std::net::IpAddr::V4(std::net::Ipv4Addr::new(17, head[3], head[2], 1))
        } else {
            wirespeed_dpi::NO_ADDR
        },
        client_ip: wirespeed_dpi::NO_ADDR,
    };
    // Payload search: the bytes as a pattern file, and a fixed set searched by the engine below.
    if let Ok(text) = std::str::from_utf8(rest) {
        let _ = wirespeed_dpi::matcher::parse(text);
    }
    let mut labels = Labels::new();
    let Ok(rules) = DpiRules::new(
        &mut labels,
        None,
        Some("GET /\nHost: \n\\x16\\x03\n\\x00\\x00\n"),
    ) else {
        panic!("the built-in rules and the fixed patterns load")
    };
    let rules = Arc::new(rules);
    let mut state = [0u8; STATE_BYTES];
    for (s, b) in state.iter_mut().zip(rest.iter().rev()) {
        *s = *b;
    }
    probe_each(&rules, hints, rest, state, |_, _, meta| {
        for (_, v) in meta.iter() {
            assert!(!v.chars().any(char::is_control));
        }
    });
    // The engine: packets are the chunks between 0xff bytes; sequence numbers from their
    // offsets, perturbed by the chunk's first byte so segments overlap and arrive out of order.
    let cfg = DpiConfig {
        contexts: 2,
        reasm_buffers: 1,
        reasm_bytes: 256,
        reasm_segments: 2,
        ..DpiConfig::default()
    };
    let mut dpi = Dpi::new(cfg, rules);
    dpi.subscribe(wirespeed_dpi::Field::ALL, |_, v| {
        assert!(!v.chars().any(char::is_control))
    });
    // Transaction events on half the inputs: their values hold no control character either,
    // and the store stays bounded.
    let events = rest.first().is_some_and(|b| b & 1 == 1);
    if events {
        dpi.enable_events();
    }
    let take = |dpi: &mut Dpi| {
        if let Some(ev) = dpi.events() {
            for t in ev.ready() {
                for (_, v) in t.iter() {
                    if let wirespeed_dpi::events::TxVal::Text(s) = v {
                        assert!(!s.chars().any(char::is_control));
                    }
                }
            }
            ev.clear_ready();
            assert!(ev.open_count() <= wirespeed_dpi::events::MAX_OPEN);
        }
    };
    let mut h = NO_HANDLE;
    let mut off = 0u32;
    for (i, chunk) in rest.split(|&b| b == 0xff).take(64).enumerate() {
        let jitter = u32::from(chunk.first().copied().unwrap_or(0) & 7);
        let p = Packet {
            ip_proto: if tcp { 6 } else { 17 },
            server_port: hints.server_port,
            client_port: hints.client_port,
            from_client: i % 3 != 2,
            seq: off.wrapping_add(jitter),
            multicast: hints.multicast,
            server_ip: hints.server_ip,
            client_ip: hints.client_ip,
            payload: chunk,
            ts: i as u64,
            flow: 1,
            owner: 1,
        };
        let _ = dpi.inspect(&mut h, &p);
        take(&mut dpi);
        if let Some(m) = dpi.meta(h) {
            let _ = m.iter().count();
        }
        off = off.wrapping_add(chunk.len() as u32);
    }
    dpi.release(&mut h);
    take(&mut dpi);
    assert!(dpi.events().is_none_or(|ev| ev.open_count() == 0));
});
