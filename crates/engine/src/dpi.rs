//! Glue between the worker's stage 3 and the payload inspectors ([`wirespeed_dpi`]): one call
//! per packet with payload, one when a flow ends. The inspectors' state lives in the [`Dpi`]
//! pools; the flow slot keeps only a `u32` handle ([`FlowExt::dpi`]).

use crate::worker::FlowExt;
use wirespeed_classify::{Arbiter, Method, Verdict};
use wirespeed_dpi::{Dpi, Packet};
use wirespeed_export::META_COUNT;
use wirespeed_flow::{Flow, Side};

/// Confidence of a payload verdict.
pub const DPI_CONFIDENCE: f32 = 0.9;

/// Show one packet's payload to the inspectors and offer their verdict to the arbiter.
#[inline]
pub(crate) fn inspect(
    dpi: &mut Dpi,
    arbiter: &Arbiter,
    f: &mut Flow<FlowExt>,
    side: Side,
    seq: u32,
    ts: u64,
    payload: &[u8],
) {
    if payload.is_empty() || wirespeed_dpi::is_done(f.ext.dpi) {
        return;
    }
    let server = f.server();
    let server_ip = f.key.ip(server);
    let p = Packet {
        ip_proto: f.key.proto,
        server_port: f.key.port[server.index()],
        client_port: f.key.port[f.client.index()],
        from_client: side == f.client,
        seq,
        multicast: match server_ip {
            std::net::IpAddr::V4(a) => a.is_multicast() || a.is_broadcast() || a.octets()[3] == 255,
            std::net::IpAddr::V6(a) => a.is_multicast(),
        },
        server_ip,
        client_ip: f.key.ip(f.client),
        payload,
    };
    if let Some(label) = dpi.inspect(&mut f.ext.dpi, &p) {
        let v = Verdict {
            label,
            method: Method::Dpi,
            confidence: DPI_CONFIDENCE,
            ttb_pkts: f.total_pkts().min(u32::MAX as u64) as u32,
            ttb_ns: ts.saturating_sub(f.first_ts),
        };
        match &mut f.ext.verdict {
            // The inspector named the flow more finely (STUN, then DTLS): same method, new label.
            Some(cur) if cur.method == Method::Dpi => cur.label = label,
            cur => {
                arbiter.offer(cur, v);
            }
        }
    }
}

/// The flow's metadata as record fields (in [`META_FIELDS`] order).
pub(crate) fn meta(dpi: &Dpi, handle: u32) -> [&str; META_COUNT] {
    let mut out = [""; META_COUNT];
    if let Some(m) = dpi.meta(handle) {
        for (f, v) in m.iter() {
            if let Some(slot) = out.get_mut(f as usize) {
                *slot = v;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use wirespeed_dpi::Field;
    use wirespeed_export::META_FIELDS;

    /// The parser crate and the record agree on the metadata fields and their order.
    #[test]
    fn metadata_names_match_the_record() {
        let names: Vec<&str> = Field::ALL.iter().map(|f| f.name()).collect();
        assert_eq!(names, META_FIELDS);
    }
}
