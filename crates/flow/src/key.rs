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
        // The end-points' order: the addresses' bytes in order, then the ports, as the tuples'
        // own `<=` orders them; compared as big-endian integers (a load and a byte swap each),
        // where the arrays' lexicographic comparison was a byte loop (~24 instructions a packet).
        let order = |e: &([u8; 16], u16)| (u128::from_be_bytes(e.0), e.1);
        let (a, b, side) = if order(&src) <= order(&dst) {
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

/// The flow table's hash of a [`FlowKey`], keyed per run: foldhash's folded multiplies over
/// the key's words, from a secret seed. With a fixed, public mixing (as before), anyone who can
/// send packets could pick tuples that all land in one probe sequence of the linear-probing index
/// and make every lookup walk it; with a random key per table they cannot aim. A fixed key
/// ([`FlowHasher::with_key`]) makes runs reproducible for tests. Symmetric because the key is
/// canonical. (foldhash: the same folded-multiply construction as hashbrown's default hasher,
/// three 64×64→128-bit multiplies for the key's 40 bytes, no allocation.)
#[derive(Clone, Debug)]
pub struct FlowHasher {
    seed: u64,
    shared: foldhash::SharedSeed,
}

impl FlowHasher {
    /// A hasher with a fresh random key (the operating system's randomness, through the
    /// standard library's `RandomState`).
    pub fn random() -> Self {
        use std::hash::BuildHasher;
        let r = std::collections::hash_map::RandomState::new();
        FlowHasher::from_parts(r.hash_one(0x5eedu64), r.hash_one(0xf10e_u64 ^ 1))
    }

    /// A hasher with a fixed key: the same hashes in every run.
    pub fn with_key(key: u64) -> Self {
        FlowHasher::from_parts(key, key.rotate_left(32) ^ 0x9E37_79B9_7F4A_7C15)
    }

    fn from_parts(seed: u64, shared: u64) -> Self {
        FlowHasher {
            seed,
            shared: foldhash::SharedSeed::from_u64(shared),
        }
    }

    /// The key's 64-bit hash.
    #[inline]
    pub fn hash(&self, k: &FlowKey) -> u64 {
        use std::hash::Hasher;
        let mut h = foldhash::fast::FoldHasher::with_seed(self.seed, &self.shared);
        h.write_u128(u128::from_le_bytes(k.addr[0]));
        h.write_u128(u128::from_le_bytes(k.addr[1]));
        h.write_u64(
            (k.port[0] as u64)
                | (k.port[1] as u64) << 16
                | (k.proto as u64) << 32
                | (k.ip_version as u64) << 40
                | (k.vlan as u64) << 48,
        );
        h.finish()
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
        let h = FlowHasher::random();
        assert_eq!(h.hash(&k1), h.hash(&k2));
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
        let h = FlowHasher::with_key(7);
        assert_ne!(h.hash(&k1), h.hash(&k2));
        assert_ne!(h.hash(&k1), h.hash(&k3));
    }

    #[test]
    fn same_address_both_ends_orders_by_port() {
        let a = v4([127, 0, 0, 1]);
        let (k, side) = FlowKey::new(4, 17, 0, (a, 9000), (a, 53));
        assert_eq!(k.port, [53, 9000]);
        assert_eq!(side, Side::B);
    }

    proptest::proptest! {
        /// The canonical order is the end-points' own order (address bytes, then port): the
        /// side that sent is A exactly when its tuple is the lesser, and the key is the same
        /// from both directions.
        #[test]
        fn order_is_the_tuples_order(
            x in proptest::array::uniform16(proptest::num::u8::ANY),
            y in proptest::array::uniform16(proptest::num::u8::ANY),
            share in 0usize..=16,
            px: u16,
            py: u16,
        ) {
            // Addresses that share a prefix of `share` bytes (equal when 16), so that every
            // byte position and the port decide in some cases.
            let mut y = y;
            y[..share].copy_from_slice(&x[..share]);
            let (src, dst) = ((x, px), (y, py));
            let (k, side) = FlowKey::new(6, 17, 0, src, dst);
            let (k2, side2) = FlowKey::new(6, 17, 0, dst, src);
            proptest::prop_assert_eq!(k, k2);
            proptest::prop_assert_eq!(side == Side::A, src <= dst);
            proptest::prop_assert_eq!(k.addr, [src.min(dst).0, src.max(dst).0]);
            proptest::prop_assert_eq!(k.port, [src.min(dst).1, src.max(dst).1]);
            if src != dst {
                proptest::prop_assert_eq!(side2, side.other());
            }
        }
    }

    /// The key decides the hash: the same key gives the same hashes, another key others.
    #[test]
    fn keys_decide_the_hash() {
        let (k, _) = FlowKey::new(
            4,
            6,
            0,
            (v4([192, 0, 2, 1]), 1234),
            (v4([198, 51, 100, 2]), 80),
        );
        let (a, b) = (FlowHasher::with_key(1), FlowHasher::with_key(1));
        assert_eq!(a.hash(&k), b.hash(&k));
        assert_ne!(a.hash(&k), FlowHasher::with_key(2).hash(&k));
        assert_ne!(
            FlowHasher::random().hash(&k),
            FlowHasher::random().hash(&k),
            "two random keys (fails with probability 2^-64)"
        );
    }
}
