//! Tuples chosen to collide in the flow index under a known key (what an attacker could do
//! against a fixed, public hash) degrade every lookup under that key, and not under the random
//! key a table draws by default. Probe lengths are counted, not timed: the same measure every
//! run, and what a lookup's time grows with.

use wirespeed_flow::{FlowConfig, FlowHasher, FlowKey, FlowTable, Timeouts};

const CAPACITY: usize = 1024;
/// The index of a table of CAPACITY flows: next_pow2(2 × CAPACITY) entries.
const INDEX: u64 = 2048;
const FLOWS: usize = 300;
const KNOWN_KEY: u64 = 0x0123_4567_89ab_cdef;

fn key(i: u32) -> FlowKey {
    let mut a = [0u8; 16];
    a[..4].copy_from_slice(&[198, 51, 100, (i % 250) as u8 + 1]);
    let mut b = [0u8; 16];
    b[..4].copy_from_slice(&[203, 0, 113, 9]);
    FlowKey::new(4, 17, 0, (a, 1024 + (i / 250) as u16), (b, 53)).0
}

/// FLOWS tuples whose hash under the known key all fall on index entry 0: the attacker's set,
/// found by brute force over source addresses and ports.
fn colliding() -> Vec<FlowKey> {
    let h = FlowHasher::with_key(KNOWN_KEY);
    (0u32..)
        .map(key)
        .filter(|k| h.hash(k) & (INDEX - 1) == 0)
        .take(FLOWS)
        .collect()
}

/// An ordinary set: consecutive tuples.
fn ordinary() -> Vec<FlowKey> {
    (0..FLOWS as u32).map(key).collect()
}

/// Insert every key into a table with this hash key; the probes a lookup of each then takes, in
/// all.
fn probes(keys: &[FlowKey], hash_key: Option<u64>) -> usize {
    let mut t: FlowTable<()> = FlowTable::new(FlowConfig {
        capacity: CAPACITY,
        timeouts: Timeouts {
            tcp_ns: Timeouts::NEVER,
            udp_ns: Timeouts::NEVER,
            other_ns: Timeouts::NEVER,
            closed_ns: Timeouts::NEVER,
            active_ns: Timeouts::NEVER,
        },
        hash_key,
        ..FlowConfig::default()
    });
    for (i, k) in keys.iter().enumerate() {
        let h = t.hash(k);
        t.lookup_or_insert(
            k,
            h,
            wirespeed_flow::Side::A,
            i as u64,
            i as u64,
            None,
            &mut |_, _| unreachable!("nothing ends: the table has room and no timeout runs out"),
        );
    }
    keys.iter()
        .map(|k| t.probe_len(k).expect("every key is held"))
        .sum()
}

#[test]
fn colliding_tuples_cost_no_more_than_ordinary_ones_under_a_random_key() {
    let bad = colliding();
    assert_eq!(bad.len(), FLOWS);
    let ordinary_random = probes(&ordinary(), None);
    let bad_known = probes(&bad, Some(KNOWN_KEY));
    let bad_random = probes(&bad, None);
    eprintln!(
        "probes for {FLOWS} lookups: ordinary tuples, random key {ordinary_random}; \
         colliding tuples, the key they were chosen for {bad_known}, a random key {bad_random}"
    );
    // Under the key they were chosen for, they share one probe sequence: 1 + 2 + ... + FLOWS.
    assert_eq!(bad_known, FLOWS * (FLOWS + 1) / 2);
    // Under a random key they are ordinary tuples (FLOWS probes at the least).
    assert!(
        bad_random <= 2 * ordinary_random,
        "{bad_random} probes against {ordinary_random}"
    );
    assert!(bad_known > 20 * bad_random);
}
