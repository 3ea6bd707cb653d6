//! `--tunnels both` (issue 33, item 18): a tunnelled packet counts in the flow it carries and in
//! the tunnel's own flow (its outermost headers, keyed as `--tunnels outer` keys them), as
//! Zeek's conn.log records both; each inner flow's record names its outer flow's `flow_id`
//! (`tunnel_parent`, Zeek's `tunnel_parents`), so tunnels can be accounted for.
//!
//! Behind the option: the parent is 16 bytes a flow in a table of its own indexed by the flow
//! table's slots (as `--stats dist` keeps its state), allocated only in that mode, so the flow
//! slot keeps its 192 bytes and other runs pay one predicted branch a packet.
//!
//! Ids: a flow's id is its first packet's number `n` in the input; in this mode one packet may
//! begin two flows (its inner and its outer one), so ids are `2n` for the flow of a packet's
//! own (innermost) headers and `2n + 1` for a tunnel's outer flow ([`flow_id`]): unique, and in
//! the order the flows began, as `--ordered` sorts them.

use wirespeed_flow::{Flow, SlotLocator};

/// The id of a flow whose first packet is number `n` of the input, in `--tunnels both`:
/// `outer` for a tunnel's outer flow.
#[inline]
pub(crate) fn flow_id(n: u64, outer: bool) -> u64 {
    n.wrapping_mul(2) | u64::from(outer)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, bytemuck::Zeroable)]
struct Entry {
    /// The serial (id) of the flow the entry is for, plus one (0: free): a slot reused by a
    /// later flow holds an entry that is not that flow's.
    serial1: u64,
    /// Its outer flow's id.
    parent: u64,
}

const FREE: Entry = Entry {
    serial1: 0,
    parent: 0,
};

/// Bytes [`Parents`] reserves a flow slot.
pub(crate) const SLOT_BYTES: usize = std::mem::size_of::<Entry>();

/// The outer flow of every inner flow of one worker's table.
pub(crate) struct Parents {
    slots: Vec<Entry>,
    pub(crate) locator: Option<SlotLocator>,
}

impl Parents {
    /// Zeroed memory (all entries free): its pages come from the kernel as flows touch them.
    pub(crate) fn new(slots: usize) -> Self {
        Parents {
            slots: bytemuck::zeroed_vec(slots),
            locator: None,
        }
    }

    /// The flow in `slot` (id `serial`) began inside the tunnel whose outer flow is `parent`.
    #[inline]
    pub(crate) fn set(&mut self, slot: u32, serial: u64, parent: u64) {
        if let Some(e) = self.slots.get_mut(slot as usize) {
            *e = Entry {
                serial1: serial + 1,
                parent,
            };
        }
    }

    /// The outer flow of `f` (one of the table's flows), if it began inside a tunnel; its entry
    /// freed when `last`.
    pub(crate) fn ended<V>(&mut self, f: &Flow<V>, last: bool) -> Option<u64> {
        let slot = self.locator?.slot(f)?;
        let e = self.slots.get_mut(slot as usize)?;
        if e.serial1 != f.serial + 1 {
            return None;
        }
        let parent = e.parent;
        if last {
            *e = FREE;
        }
        Some(parent)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::{FrameBuilder, L4};
    use crate::worker::{EngineConfig, Worker};
    use proptest::prelude::*;
    use serde_json::Value;
    use wirespeed_capture::RawPacket;
    use wirespeed_export::JsonLinesWriter;
    use wirespeed_flow::{FlowConfig, FlowKey, FlowTable, Lookup};

    fn key(port: u16) -> FlowKey {
        let mut a = [0u8; 16];
        a[..4].copy_from_slice(&[10, 0, 0, 1]);
        let mut b = a;
        b[3] = 2;
        FlowKey::new(4, 17, 0, (a, port), (b, 53)).0
    }

    #[test]
    fn a_parent_is_its_flows_until_the_slot_is_reused() {
        let mut t: FlowTable<()> = FlowTable::new(FlowConfig {
            capacity: 4,
            ..FlowConfig::default()
        });
        let mut p = Parents::new(4);
        p.locator = Some(t.locator());
        let k = key(1000);
        let h = t.hash(&k);
        let r = t.lookup_or_insert(&k, h, wirespeed_flow::Side::A, 1, 1, None, &mut |_, _| {});
        let Lookup::New(slot) = r else {
            panic!("a new flow")
        };
        t.get_mut(slot).serial = 8;
        p.set(slot, 8, 5);
        // An interim record keeps it; the last frees it.
        assert_eq!(p.ended(t.get_mut(slot), false), Some(5));
        assert_eq!(p.ended(t.get_mut(slot), true), Some(5));
        assert_eq!(p.ended(t.get_mut(slot), true), None);
        // Another flow in the same slot does not inherit an entry left for an older one.
        p.set(slot, 8, 5);
        t.get_mut(slot).serial = 10;
        assert_eq!(p.ended(t.get_mut(slot), true), None);
        // A copy of a flow (not in the table) has none.
        let copy = t.get_mut(slot).clone();
        p.set(slot, 10, 7);
        assert_eq!(p.ended(&copy, true), None);
        assert_eq!(p.ended(t.get_mut(slot), true), Some(7));
    }

    /// A VXLAN frame from `sport` (192.168.0.1 and .2, the tunnel's end-points, `back`:
    /// from .2) carrying `inner` (an Ethernet frame).
    fn vxlan(back: bool, sport: u16, inner: &[u8]) -> Vec<u8> {
        let mut payload = vec![0x08, 0, 0, 0, 0, 0, 7, 0];
        payload.extend_from_slice(inner);
        let (a, b) = ([192, 168, 0, 1], [192, 168, 0, 2]);
        let (src, dst) = if back { (b, a) } else { (a, b) };
        let udp = L4::Udp {
            sport,
            dport: 4789,
            payload: &payload,
        };
        FrameBuilder { vlan: 0 }.ipv4(src, dst, &udp)
    }

    /// The records of a run over `frames` (one worker), in `mode`: (flow_id, tunnel,
    /// tunnel_parent, src port, dst port, packets).
    fn run(
        frames: &[Vec<u8>],
        inner: bool,
        outer: bool,
    ) -> Vec<(u64, String, Value, u64, u64, u64)> {
        let mut cfg = EngineConfig::default();
        cfg.decode.decode_tunnels = inner;
        cfg.outer_flows = inner && outer;
        let sink = JsonLinesWriter::new(Vec::new(), false).with_tunnel_parent(true);
        let mut w = Worker::new(cfg, sink, false);
        let batch: Vec<RawPacket<'_>> = frames
            .iter()
            .enumerate()
            .map(|(i, f)| RawPacket::ethernet(1_000_000_000 * (i as u64 + 1), f))
            .collect();
        w.process_batch(&batch).unwrap();
        let c = w.counters();
        assert_eq!(c.decoded + c.drops.iter().sum::<u64>(), frames.len() as u64);
        let out = String::from_utf8(w.finish().unwrap().into_inner().unwrap()).unwrap();
        let mut v: Vec<_> = out
            .lines()
            .map(|l| {
                let r: Value = serde_json::from_str(l).unwrap();
                let n = |k: &str| r[k].as_u64().unwrap();
                (
                    n("flow_id"),
                    r["tunnel"].as_str().unwrap_or("").to_string(),
                    r["tunnel_parent"].clone(),
                    n("src_port"),
                    n("dst_port"),
                    n("c2s_pkts") + n("s2c_pkts"),
                )
            })
            .collect();
        v.sort_by_key(|r| r.0);
        v
    }

    /// Both: the outer flows as tunnels off gives them (a frame the tunnel carries that is no
    /// IP counts there too), the inner flow as tunnels on gives it, naming the outer flow of its
    /// first packet; a packet in no tunnel counts once.
    #[test]
    fn both_counts_tunnelled_packets_in_inner_and_outer_flows() {
        let b = FrameBuilder { vlan: 0 };
        let (x, y) = ([10, 0, 0, 1], [10, 0, 0, 2]);
        let dns = |sport, dport| L4::Udp {
            sport,
            dport,
            payload: b"\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x01a\x00\x00\x01\x00\x01",
        };
        let mut arp = vec![0xff; 6];
        arp.extend_from_slice(&[2, 0, 0, 0, 0, 9, 0x08, 0x06]);
        arp.extend_from_slice(&[0; 28]);
        let frames = vec![
            vxlan(false, 50000, &b.ipv4(x, y, &dns(1234, 53))),
            vxlan(true, 50001, &b.ipv4(y, x, &dns(53, 1234))),
            b.ipv4([10, 9, 9, 9], [10, 9, 9, 8], &dns(1, 2)),
            vxlan(false, 50000, &arp),
        ];
        let null = Value::Null;
        let vx = "VXLAN".to_string();
        assert_eq!(
            run(&frames, true, true),
            [
                (0, vx.clone(), Value::from(1), 1234, 53, 2),
                (1, String::new(), null.clone(), 50000, 4789, 2),
                (3, String::new(), null.clone(), 50001, 4789, 1),
                (4, String::new(), null.clone(), 1, 2, 1),
            ]
        );
        // Inner (the ARP frame dropped) and outer, as they were; the column null throughout.
        assert_eq!(
            run(&frames, true, false),
            [
                (0, vx, null.clone(), 1234, 53, 2),
                (2, String::new(), null.clone(), 1, 2, 1),
            ]
        );
        assert_eq!(
            run(&frames, false, true),
            [
                (0, String::new(), null.clone(), 50000, 4789, 2),
                (1, String::new(), null.clone(), 50001, 4789, 1),
                (2, String::new(), null, 1, 2, 1),
            ]
        );
    }

    #[test]
    fn entry_is_sixteen_bytes() {
        assert_eq!(SLOT_BYTES, 16);
    }

    proptest! {
        /// Ids of the two kinds never meet, and keep the order of their first packets.
        #[test]
        fn ids_unique_and_in_order(a in 0u64..1 << 62, b in 0u64..1 << 62, oa: bool, ob: bool) {
            let (x, y) = (flow_id(a, oa), flow_id(b, ob));
            prop_assert_eq!(x == y, a == b && oa == ob);
            if a < b {
                prop_assert!(x < y);
            }
            prop_assert_eq!(x / 2, a);
        }
    }
}
