//! Cryptocurrency mining pools: Stratum JSON-RPC (`mining.subscribe`, `mining.authorize`),
//! Ethereum's `eth_submitLogin`, and the Monero pool `login` with a miner `agent`, in the
//! client's first message.

use crate::proto::label;
use crate::{Cx, Dir, Inspector, Label, Probe, TCP};

/// nDPI's Mining label.
pub static LABEL: Label = label("Mining", "Mining");

/// The mining inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "mining",
    transports: TCP,
    ports: &[3333, 4444, 5555, 9999],
    labels: &[&LABEL],
    min_udp: 0,
    ports_required: false,
    probe,
};

use crate::util::contains as find;

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = cx.data;
    if cx.hints.dir != Dir::ToServer || !d.starts_with(b"{") {
        return Probe::NotForUs;
    }
    let head = d.get(..d.len().min(1024)).unwrap_or(&[]);
    let stratum = find(head, b"\"mining.subscribe\"") || find(head, b"\"mining.authorize\"");
    let eth = find(head, b"\"eth_submitLogin\"");
    let xmr = find(head, b"\"method\":\"login\"") && find(head, b"\"agent\"");
    if stratum || eth || xmr {
        Probe::Certain(&LABEL)
    } else {
        Probe::NotForUs
    }
}

#[cfg(test)]
mod tests;
