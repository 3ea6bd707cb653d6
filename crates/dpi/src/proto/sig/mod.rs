//! Byte signatures over the first bytes of a payload packet, with wildcards, matched by Zobrist
//! hashing (seed 001, Szabó et al.; `../shared/notes/ALGORITHMS.md` §5.1).
//!
//! Every (position, byte) pair has a random 64-bit word `Z[pos][byte]`. A signature's key is
//! the XOR of the words of its fixed bytes; wildcard bytes are left out. Signatures with the
//! same set of fixed positions (their *mask*) form a group with one hash table from key to
//! signatures. A packet is hashed once per group, over that group's positions, and looked up:
//! the cost per packet grows with the number of distinct masks, not of signatures. A hit is
//! confirmed by comparing the bytes (a key collision can never give a false match; the
//! collision rate only costs time, see the `collisions` test).
//!
//! The dictionary is a plain text file (format in `signatures.txt`, which is built in); a run
//! extends it with its own files ([`crate::DpiRules::new`]): the set belongs to the run, and the
//! probe reads it from [`Cx`], so two runs in one process each match their own.

use crate::{Cx, Inspector, Label, Probe, StateArea, TCP, UDP};
use std::collections::HashMap;

/// Most bytes a signature may cover (positions of the Zobrist table).
pub const WIDTH: usize = 64;

/// Keys are Zobrist words already: uniformly random, so the table uses them as they are.
#[derive(Default, Clone, Copy)]
pub struct KeyHasher(u64);

impl std::hash::Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, b: &[u8]) {
        for &c in b {
            self.0 = (self.0 << 8) ^ u64::from(c);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
}

type Table = HashMap<u64, Vec<u32>, std::hash::BuildHasherDefault<KeyHasher>>;

/// One signature.
#[derive(Clone, Debug)]
pub struct Sig {
    /// What a match says: nDPI's master name (also the application)…
    pub master: Box<str>,
    /// …and category.
    pub category: Box<str>,
    /// [`TCP`] | [`UDP`] bits.
    pub transports: u8,
    /// Bytes from offset 0 (wildcards hold 0).
    pub bytes: Vec<u8>,
    /// Fixed positions (bit i = byte i is not a wildcard).
    pub mask: u64,
}

/// A dictionary ready to match.
pub struct SigSet {
    z: Box<[[u64; 256]; WIDTH]>,
    sigs: Vec<Sig>,
    /// (mask, length, key → signature indices), one per distinct mask and length.
    groups: Vec<(u64, usize, Table)>,
    /// Length of the longest signature.
    longest: usize,
    /// The first bytes signatures fix, as a 256-bit set, when every signature fixes its first
    /// byte (`None` when one leaves it open or is empty): a payload opening with another byte
    /// matches none, so it is answered without hashing (most payloads are not any signature's).
    first: Option<[u64; 4]>,
}

/// A mask of the first `len` positions.
fn low_bits(len: usize) -> u64 {
    if len >= 64 {
        u64::MAX
    } else {
        (1u64 << len) - 1
    }
}

/// splitmix64: the table's random words, fixed seed (results are reproducible).
fn splitmix(s: &mut u64) -> u64 {
    *s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *s;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl SigSet {
    /// Build from signatures, with the Zobrist table drawn from `seed`.
    pub fn new(sigs: Vec<Sig>, seed: u64) -> Self {
        let mut z = Box::new([[0u64; 256]; WIDTH]);
        let mut s = seed;
        for row in z.iter_mut() {
            for w in row.iter_mut() {
                *w = splitmix(&mut s);
            }
        }
        let longest = sigs
            .iter()
            .map(|s| s.bytes.len())
            .max()
            .unwrap_or(0)
            .min(WIDTH);
        let first = sigs.iter().try_fold([0u64; 4], |mut set, s| {
            let b = *s.bytes.first()?;
            if s.mask & 1 == 0 {
                return None;
            }
            set[usize::from(b >> 6)] |= 1 << (b & 63);
            Some(set)
        });
        let mut set = SigSet {
            z,
            sigs,
            groups: Vec::new(),
            longest,
            first,
        };
        for (i, sig) in set.sigs.iter().enumerate() {
            let key = set.key(sig.mask, &sig.bytes);
            let len = sig.bytes.len();
            let g = match set
                .groups
                .iter()
                .position(|g| g.0 == sig.mask && g.1 == len)
            {
                Some(g) => g,
                None => {
                    set.groups.push((sig.mask, len, Table::default()));
                    set.groups.len() - 1
                }
            };
            set.groups[g].2.entry(key).or_default().push(i as u32);
        }
        set
    }

    /// Parse the text format (see `signatures.txt`).
    pub fn parse(text: &str, seed: u64) -> Result<Self, String> {
        let mut sigs = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let err = |m: &str| format!("signatures line {}: {m}", n + 1);
            let mut rest = line;
            let mut word = || -> Option<&str> {
                let t = rest.trim_start();
                let end = t.find(char::is_whitespace).unwrap_or(t.len());
                let (w, r) = t.split_at(end);
                rest = r;
                (!w.is_empty()).then_some(w)
            };
            let master = word().ok_or_else(|| err("no name"))?;
            let category = word().ok_or_else(|| err("no category"))?;
            // The rule of the label registry, checked here so the error names the line.
            for (what, n) in [("name", master), ("category", category)] {
                if n.chars().any(char::is_control) {
                    let shown: String = n.chars().take(40).collect();
                    return Err(err(&format!(
                        "the {what} {shown:?}{} holds a control character (a label must not: \
                         it would break CSV and JSON records)",
                        if shown.len() < n.len() { "…" } else { "" }
                    )));
                }
            }
            let transports = match word().ok_or_else(|| err("no transport"))? {
                "tcp" => TCP,
                "udp" => UDP,
                "any" => TCP | UDP,
                t => return Err(err(&format!("transport {t:?} is not tcp, udp or any"))),
            };
            let (bytes, mask) = pattern(rest.trim()).map_err(|m| err(&m))?;
            sigs.push(Sig {
                master: master.into(),
                category: category.into(),
                transports,
                bytes,
                mask,
            });
        }
        Ok(SigSet::new(sigs, seed))
    }

    fn key(&self, mask: u64, b: &[u8]) -> u64 {
        let mut h = 0u64;
        let mut m = mask;
        while m != 0 {
            let i = m.trailing_zeros() as usize;
            m &= m - 1;
            if let (Some(row), Some(&c)) = (self.z.get(i), b.get(i)) {
                h ^= row[c as usize];
            }
        }
        h
    }

    /// The first signature (in file order) matching the start of `payload` on `transport`.
    ///
    /// The payload's words are XORed once into prefixes (`pre[k]` = XOR of the first `k`); a
    /// group of length `len` then costs `pre[len]` XOR the words of its few wildcard positions,
    /// whatever its length.
    pub fn find(&self, transport: u8, payload: &[u8]) -> Option<&Sig> {
        self.find_index(transport, payload)
            .and_then(|i| self.sigs.get(i as usize))
    }

    /// The index (in file order) of the signature [`SigSet::find`] returns.
    pub fn find_index(&self, transport: u8, payload: &[u8]) -> Option<u32> {
        if let Some(first) = &self.first {
            let b = *payload.first()?;
            if first[usize::from(b >> 6)] >> (b & 63) & 1 == 0 {
                return None;
            }
        }
        let n = payload.len().min(self.longest);
        let mut pre = [0u64; WIDTH + 1];
        for (k, &c) in payload.iter().take(n).enumerate() {
            pre[k + 1] = pre[k] ^ self.z[k][c as usize];
        }
        let mut best: Option<u32> = None;
        for (mask, len, table) in &self.groups {
            if payload.len() < *len {
                continue;
            }
            let mut key = pre[*len];
            let mut wild = !mask & low_bits(*len);
            while wild != 0 {
                let j = wild.trailing_zeros() as usize;
                wild &= wild - 1;
                key ^= pre[j + 1] ^ pre[j];
            }
            let Some(ids) = table.get(&key) else {
                continue;
            };
            for &i in ids {
                let Some(s) = self.sigs.get(i as usize) else {
                    continue;
                };
                if s.transports & transport != 0
                    && best.is_none_or(|b| i < b)
                    && s.bytes
                        .iter()
                        .enumerate()
                        .all(|(k, &c)| (s.mask >> k) & 1 == 0 || payload.get(k) == Some(&c))
                {
                    best = Some(i);
                }
            }
        }
        best
    }

    /// Every signature, in file order.
    pub fn sigs(&self) -> &[Sig] {
        &self.sigs
    }

    /// Number of distinct mask groups (the per-packet cost).
    pub fn groups(&self) -> usize {
        self.groups.len()
    }

    /// Signatures held.
    pub fn len(&self) -> usize {
        self.sigs.len()
    }

    /// No signatures?
    pub fn is_empty(&self) -> bool {
        self.sigs.is_empty()
    }

    /// Keys of every signature (for collision measurements).
    pub fn keys(&self) -> Vec<u64> {
        self.sigs
            .iter()
            .map(|s| self.key(s.mask, &s.bytes))
            .collect()
    }
}

/// Parse the pattern tokens of a line.
fn pattern(p: &str) -> Result<(Vec<u8>, u64), String> {
    let mut bytes = Vec::new();
    let mut mask = 0u64;
    let mut rest = p;
    let mut guard = 0;
    while !rest.is_empty() && guard < 4 * WIDTH {
        guard += 1;
        rest = rest.trim_start();
        if let Some(q) = rest.strip_prefix('"') {
            let end = q.find('"').ok_or("unclosed quote")?;
            for &c in &q.as_bytes()[..end] {
                mask |= 1u64.checked_shl(bytes.len() as u32).unwrap_or(0);
                bytes.push(c);
            }
            rest = &q[end + 1..];
        } else {
            let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
            let (t, r) = rest.split_at(end);
            rest = r;
            if t == "??" {
                bytes.push(0);
            } else if t.len() == 2 {
                let v = u8::from_str_radix(t, 16).map_err(|_| format!("bad byte {t:?}"))?;
                mask |= 1u64.checked_shl(bytes.len() as u32).unwrap_or(0);
                bytes.push(v);
            } else if !t.is_empty() {
                return Err(format!("bad token {t:?}"));
            }
        }
        if bytes.len() > WIDTH {
            return Err(format!("longer than {WIDTH} bytes"));
        }
    }
    if mask == 0 {
        return Err("no fixed byte".into());
    }
    Ok((bytes, mask))
}

/// The built-in dictionary.
pub const BUILTIN: &str = include_str!("../../../signatures.txt");

/// Seed of the Zobrist words (results are reproducible).
pub const SEED: u64 = 0x5eed_0001;

/// What the signature inspector answers: "the signature whose index is in my state"
/// ([`chosen`]); the engine names the flow by that signature's label in the run's registry.
pub static BY_SIGNATURE: Label = crate::proto::label("(signature)", "Unspecified");

/// Per-flow state.
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
struct State {
    /// The index of the signature that matched.
    index: u32,
}

/// The index of the signature the inspector matched, from its state.
pub fn chosen(state: &StateArea) -> usize {
    state.view::<State>().index as usize
}

/// The signature inspector: runs after the protocol parsers (last in the registry).
pub static INSPECTOR: Inspector = Inspector {
    name: "sig",
    transports: TCP | UDP,
    ports: &[],
    labels: &[],
    min_udp: 0,
    ports_required: false,
    probe,
};

fn probe(cx: &mut Cx<'_>) -> Probe {
    match cx.sigs.find_index(cx.hints.transport, cx.data) {
        Some(i) => {
            cx.state::<State>().index = i;
            Probe::Certain(&BY_SIGNATURE)
        }
        // Signatures anchor at the start of a packet: only the first of each direction counts.
        None if cx.hints.nth == 0 && cx.hints.transport == TCP && cx.data.len() < 8 => {
            Probe::Unsure
        }
        None => Probe::NotForUs,
    }
}

#[cfg(test)]
mod tests;
