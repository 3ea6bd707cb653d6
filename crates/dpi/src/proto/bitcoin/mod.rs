//! Bitcoin peer-to-peer protocol (nDPI's BITCOIN). Every message starts with a 24-byte header:
//! the network magic (mainnet `f9 be b4 d9`, testnet3 `0b 11 09 07`, testnet4 `1c 16 3f 28`,
//! signet `0a 03 cf 40`, regtest `fa bf b5 da`), a 12-byte command name (lower-case ASCII
//! letters padded with NULs: `version`, `verack`, `inv`...), a little-endian payload length
//! (at most 32 MiB) and a checksum.

use crate::proto::label;
use crate::{Cx, Inspector, Label, Probe, TCP};

/// nDPI's BITCOIN label.
pub static LABEL: Label = label("BITCOIN", "Crypto_Currency");

/// The Bitcoin inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "bitcoin",
    transports: TCP,
    ports: &[8333, 18333, 48333, 38333, 18444],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

const MAGICS: [[u8; 4]; 5] = [
    [0xf9, 0xbe, 0xb4, 0xd9],
    [0x0b, 0x11, 0x09, 0x07],
    [0x1c, 0x16, 0x3f, 0x28],
    [0x0a, 0x03, 0xcf, 0x40],
    [0xfa, 0xbf, 0xb5, 0xda],
];

/// Largest payload a node accepts (MAX_SIZE).
const MAX_PAYLOAD: u32 = 0x0200_0000;

/// A command name: 1-12 lower-case letters, then only NULs.
fn command_ok(c: &[u8]) -> bool {
    let n = c.iter().take_while(|b| b.is_ascii_lowercase()).count();
    n > 0 && c.get(n..).is_some_and(|pad| pad.iter().all(|&b| b == 0))
}

fn is_header(d: &[u8]) -> bool {
    let (Some(magic), Some(cmd), Some(len)) = (d.get(..4), d.get(4..16), d.get(16..20)) else {
        return false;
    };
    let len = u32::from_le_bytes([len[0], len[1], len[2], len[3]]);
    MAGICS.iter().any(|m| m == magic) && command_ok(cmd) && len <= MAX_PAYLOAD && d.len() >= 24
}

fn probe(cx: &mut Cx<'_>) -> Probe {
    Probe::certain_if(is_header(cx.data), &LABEL)
}

#[cfg(test)]
mod tests;
