//! Mapping IP fragments to their flow.
//!
//! Only the first fragment of a datagram carries the transport ports. Rather than buffer and
//! reassemble (which costs memory per datagram and is only needed for payload inspection), the
//! table remembers the ports of each first fragment under (addresses, protocol, identification),
//! so later fragments are counted toward the right flow. The table is a fixed array of 4-way
//! sets: memory is set by configuration, and a full set replaces its stalest entry (counted).
//! Fragments that arrive before their first fragment cannot be mapped and are counted as orphans.
//!
//! The set is chosen by a hash keyed per table (as the flow table's index is, `FlowHasher`):
//! with a fixed, public hash anyone who can send fragments could pick datagrams that all fall
//! in one set and push out every other datagram's first fragment; with a secret key they cannot
//! aim. [`FragTable::with_key`] fixes the key for tests.

/// Identifies one fragmented datagram.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Hash)]
pub struct FragKey {
    /// Source address.
    pub src: [u8; 16],
    /// Destination address.
    pub dst: [u8; 16],
    /// IP identification.
    pub id: u32,
    /// Transport protocol.
    pub proto: u8,
    /// VLAN id.
    pub vlan: u16,
}

/// The high half of a 64×64→128-bit product XORed onto its low half (foldhash's step).
#[inline]
fn folded(a: u64, b: u64) -> u64 {
    let m = u128::from(a) * u128::from(b);
    (m as u64) ^ ((m >> 64) as u64)
}

impl FragKey {
    /// The key's hash under the table's secret `k`: folded multiplies over its words.
    fn hash(&self, k: &[u64; 4]) -> u64 {
        let s = u128::from_le_bytes(self.src);
        let d = u128::from_le_bytes(self.dst);
        let mut h = folded((s >> 64) as u64 ^ k[0], s as u64 ^ k[1]);
        h = folded((d >> 64) as u64 ^ h ^ k[2], d as u64 ^ k[3]);
        let rest = u64::from(self.id) << 24 | u64::from(self.proto) << 16 | u64::from(self.vlan);
        folded(rest ^ h ^ k[0], k[1] | 1)
    }
}

#[derive(Clone, Copy, Default)]
struct Entry {
    key: FragKey,
    ports: (u16, u16),
    ts: u64,
    used: bool,
}

/// Counters of fragment mapping.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FragStats {
    /// First fragments remembered.
    pub first: u64,
    /// Later fragments mapped to their first fragment's ports.
    pub mapped: u64,
    /// Later fragments whose first fragment was not seen (or was forgotten).
    pub orphans: u64,
    /// Entries replaced while still fresh because their set was full.
    pub replaced: u64,
}

const WAYS: usize = 4;

/// Fixed-size table from datagram to ports (see the module docs).
pub struct FragTable {
    entries: Vec<Entry>,
    /// The hash's secret key.
    key: [u64; 4],
    set_mask: usize,
    timeout_ns: u64,
    stats: FragStats,
}

impl FragTable {
    /// Room for about `capacity` datagrams; entries older than `timeout_ns` are stale. The
    /// hash's key is drawn from the operating system's randomness (the standard library's
    /// `RandomState`).
    pub fn new(capacity: usize, timeout_ns: u64) -> Self {
        use std::hash::BuildHasher;
        let seed = std::collections::hash_map::RandomState::new().hash_one(0xf7a6_u64);
        FragTable::with_key(capacity, timeout_ns, seed)
    }

    /// [`FragTable::new`] with the hash keyed by `seed`: the same sets in every run.
    pub fn with_key(capacity: usize, timeout_ns: u64, seed: u64) -> Self {
        let sets = (capacity / WAYS).max(1).next_power_of_two();
        let mut x = seed;
        let mut next = || {
            // SplitMix64.
            x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        FragTable {
            key: [next(), next(), next(), next()],
            entries: vec![Entry::default(); sets * WAYS],
            set_mask: sets - 1,
            timeout_ns,
            stats: FragStats::default(),
        }
    }

    /// Counters.
    pub fn stats(&self) -> FragStats {
        self.stats
    }

    fn set(&mut self, key: &FragKey) -> &mut [Entry] {
        let base = (key.hash(&self.key) as usize & self.set_mask) * WAYS;
        &mut self.entries[base..base + WAYS]
    }

    /// The ports that key the decoded packet `d`'s flow: its own, or for a later fragment its
    /// datagram's first fragment's (remembered here when `d` is that first fragment). `None`
    /// for a later fragment whose first fragment was not seen (an orphan, counted).
    #[inline]
    pub fn ports(&mut self, d: &wirespeed_wire::Decoded<'_>, ts: u64) -> Option<(u16, u16)> {
        let own = (d.src_port, d.dst_port);
        let Some(fr) = d.frag else {
            return Some(own);
        };
        let key = FragKey {
            src: d.src,
            dst: d.dst,
            id: fr.id,
            proto: d.proto,
            vlan: d.vlan,
        };
        if fr.offset == 0 {
            self.insert(key, own, ts);
            Some(own)
        } else {
            self.lookup(&key, ts)
        }
    }

    /// Remember the ports of a first fragment seen at `ts`.
    pub fn insert(&mut self, key: FragKey, ports: (u16, u16), ts: u64) {
        let timeout = self.timeout_ns;
        let set = self.set(&key);
        let mut victim = 0;
        let mut oldest = u64::MAX;
        for (i, e) in set.iter().enumerate() {
            if e.used && e.key == key {
                victim = i;
                break;
            }
            let age_key = if e.used { e.ts } else { 0 };
            if !e.used || age_key < oldest {
                victim = i;
                oldest = age_key;
                if !e.used {
                    break;
                }
            }
        }
        let e = &mut set[victim];
        let replaced_fresh = e.used && e.key != key && ts.saturating_sub(e.ts) <= timeout;
        *e = Entry {
            key,
            ports,
            ts,
            used: true,
        };
        self.stats.first += 1;
        if replaced_fresh {
            self.stats.replaced += 1;
        }
    }

    /// The ports of the datagram `key`, if its first fragment was seen within the timeout.
    pub fn lookup(&mut self, key: &FragKey, ts: u64) -> Option<(u16, u16)> {
        let timeout = self.timeout_ns;
        let found = self
            .set(key)
            .iter()
            .find(|e| e.used && e.key == *key && ts.saturating_sub(e.ts) <= timeout)
            .map(|e| e.ports);
        match found {
            Some(_) => self.stats.mapped += 1,
            None => self.stats.orphans += 1,
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(id: u32) -> FragKey {
        FragKey {
            src: [1; 16],
            dst: [2; 16],
            id,
            proto: 17,
            vlan: 0,
        }
    }

    #[test]
    fn maps_later_fragments() {
        let mut t = FragTable::new(64, 1_000);
        t.insert(key(7), (5000, 53), 10);
        assert_eq!(t.lookup(&key(7), 20), Some((5000, 53)));
        assert_eq!(t.lookup(&key(8), 20), None);
        assert_eq!(t.lookup(&key(7), 2_000), None, "stale after the timeout");
        let s = t.stats();
        assert_eq!((s.first, s.mapped, s.orphans), (1, 1, 2));
    }

    #[test]
    fn bounded_memory_under_flood() {
        let mut t = FragTable::new(16, u64::MAX);
        for id in 0..10_000 {
            t.insert(key(id), (id as u16, 1), id as u64);
        }
        assert_eq!(t.entries.len(), 16);
        // The newest datagram is always remembered.
        assert_eq!(t.lookup(&key(9_999), 10_000), Some((9_999u32 as u16, 1)));
        assert!(t.stats().replaced > 9_000);
    }

    /// The hash the table used before it was keyed (FNV-1a over the addresses, then a
    /// multiply): public, so anyone could compute it.
    fn public_hash(k: &FragKey) -> u64 {
        let mut h = 0xcbf2_9ce4_8422_2325u64;
        for b in k.src.iter().chain(k.dst.iter()) {
            h = (h ^ *b as u64).wrapping_mul(0x0100_0000_01b3);
        }
        h ^= (k.id as u64) << 24 | (k.proto as u64) << 8 | k.vlan as u64;
        h = h.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        h ^ (h >> 31)
    }

    /// Datagrams crafted to share one set of a 1,024-set table under the public hash push each
    /// other out there (every insert past the fourth replaces a fresh entry); under a table's
    /// own key they spread over the sets like any others, whatever the key.
    #[test]
    fn crafted_datagrams_do_not_share_a_set() {
        let sets = 1024usize;
        let crafted: Vec<FragKey> = (0..u32::MAX)
            .map(key)
            .filter(|k| public_hash(k) as usize & (sets - 1) == 0)
            .take(64)
            .collect();
        let replaced = |mut t: FragTable| {
            for (i, k) in crafted.iter().enumerate() {
                t.insert(*k, (i as u16, 53), 10);
            }
            t.stats().replaced
        };
        for t in [
            FragTable::new(sets * WAYS, u64::MAX),
            FragTable::with_key(sets * WAYS, u64::MAX, 1),
            FragTable::with_key(sets * WAYS, u64::MAX, 2),
        ] {
            // 64 datagrams over 1,024 sets of 4: a fifth in one set is a 1-in-10^7 event.
            assert_eq!(replaced(t), 0);
        }
        // The same key places the same datagram in the same set; another key elsewhere.
        let set = |seed: u64, k: &FragKey| {
            let t = FragTable::with_key(sets * WAYS, u64::MAX, seed);
            k.hash(&t.key) as usize & t.set_mask
        };
        assert_eq!(set(7, &crafted[0]), set(7, &crafted[0]));
        let moved = crafted.iter().filter(|k| set(7, k) != set(8, k)).count();
        assert!(moved > 56, "{moved} of 64 moved");
    }
}
