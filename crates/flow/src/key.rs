//! The direction-independent flow key.

use wirespeed_wire::Decoded;

/// Which end of a [`FlowKey`] sent a packet: `A` is the lower (address, port) end, `B` the higher.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Side {
    /// The lower (address, port) end.
    #[default]
    A = 0,
    /// The higher (address, port) end.
    B = 1,
}

impl Side {
    /// The other end.
    #[inline]
    pub fn other(self) -> Side {
        match self {
            Side::A => Side::B,
            Side::B => Side::A,
        }
    }

    /// 0 for A, 1 for B (index into per-side arrays).
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }
}

/// Bidirectional flow key: the two end-points in canonical order, transport, IP version, VLAN.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct FlowKey {
    /// Addresses of end A (lower) and end B (higher); IPv4 in the first 4 bytes.
    pub addr: [[u8; 16]; 2],
    /// Ports of end A and end B (0 for transports without ports).
    pub port: [u16; 2],
    /// Transport protocol number.
    pub proto: u8,
    /// 4 or 6.
    pub ip_version: u8,
    /// VLAN id (0 when untagged).
    pub vlan: u16,
}

impl FlowKey {
    /// The key of a decoded packet and which side of the key sent it.
    #[inline]
    pub fn from_decoded(d: &Decoded<'_>) -> (FlowKey, Side) {
        Self::new(
            d.ip_version,
            d.proto,
            d.vlan,
            (d.src, d.src_port),
            (d.dst, d.dst_port),
        )
    }

    /// Build a key from a packet's source and destination end-points.
    #[inline]
    pub fn new(
        ip_version: u8,
        proto: u8,
        vlan: u16,
        src: ([u8; 16], u16),
        dst: ([u8; 16], u16),
    ) -> (FlowKey, Side) {
        let (a, b, side) = if src <= dst {
            (src, dst, Side::A)
        } else {
            (dst, src, Side::B)
        };
        (
            FlowKey {
                addr: [a.0, b.0],
                port: [a.1, b.1],
                proto,
                ip_version,
                vlan,
            },
            side,
        )
    }

    /// A 64-bit hash of the key. It is symmetric because the key is canonical. The mixing is a
    /// multiply-xorshift over the key's words (fast, good avalanche); it is not meant to resist an
    /// attacker who can choose addresses — the table bounds probe lengths and evicts instead.
    #[inline]
    pub fn hash(&self) -> u64 {
        #[inline(always)]
        fn w(b: &[u8; 16]) -> (u64, u64) {
            let (lo, hi) = b.split_at(8);
            let mut l = [0u8; 8];
            let mut h = [0u8; 8];
            l.copy_from_slice(lo);
            h.copy_from_slice(hi);
            (u64::from_le_bytes(l), u64::from_le_bytes(h))
        }
        const K: u64 = 0x9E37_79B9_7F4A_7C15;
        let (a0, a1) = w(&self.addr[0]);
        let (b0, b1) = w(&self.addr[1]);
        let tail = (self.port[0] as u64)
            | (self.port[1] as u64) << 16
            | (self.proto as u64) << 32
            | (self.ip_version as u64) << 40
            | (self.vlan as u64) << 48;
        let mut h = 0x243F_6A88_85A3_08D3u64;
        for v in [a0, a1, b0, b1, tail] {
            h = (h ^ v).wrapping_mul(K);
            h ^= h >> 29;
        }
        h = h.wrapping_mul(0xBF58_476D_1CE4_E5B9);
        h ^ (h >> 32)
    }

    /// The address of `side` as an [`std::net::IpAddr`].
    pub fn ip(&self, side: Side) -> std::net::IpAddr {
        let a = &self.addr[side.index()];
        if self.ip_version == 4 {
            std::net::IpAddr::from([a[0], a[1], a[2], a[3]])
        } else {
            std::net::IpAddr::from(*a)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v4(a: [u8; 4]) -> [u8; 16] {
        let mut x = [0; 16];
        x[..4].copy_from_slice(&a);
        x
    }

    #[test]
    fn both_directions_same_key() {
        let c = (v4([10, 0, 0, 1]), 40000);
        let s = (v4([10, 0, 0, 2]), 443);
        let (k1, s1) = FlowKey::new(4, 6, 0, c, s);
        let (k2, s2) = FlowKey::new(4, 6, 0, s, c);
        assert_eq!(k1, k2);
        assert_eq!(k1.hash(), k2.hash());
        assert_eq!(s1, s2.other());
        assert_eq!(k1.ip(s1), "10.0.0.1".parse::<std::net::IpAddr>().unwrap());
    }

    #[test]
    fn vlan_and_proto_separate_flows() {
        let c = (v4([10, 0, 0, 1]), 4000);
        let s = (v4([10, 0, 0, 2]), 53);
        let (k1, _) = FlowKey::new(4, 17, 0, c, s);
        let (k2, _) = FlowKey::new(4, 17, 7, c, s);
        let (k3, _) = FlowKey::new(4, 6, 0, c, s);
        assert_ne!(k1, k2);
        assert_ne!(k1, k3);
        assert_ne!(k1.hash(), k2.hash());
    }

    #[test]
    fn same_address_both_ends_orders_by_port() {
        let a = v4([127, 0, 0, 1]);
        let (k, side) = FlowKey::new(4, 17, 0, (a, 9000), (a, 53));
        assert_eq!(k.port, [53, 9000]);
        assert_eq!(side, Side::B);
    }
}
