//! A worker's memo of fingerprint digests.
//!
//! Most ClientHellos on a link come from a few client builds, so the texts that JA3 and JA4
//! hash repeat from flow to flow (on the corpus, 712 ClientHellos hash 170 distinct JA4
//! list texts). A digest in software costs thousands of instructions a ClientHello (SHA-256
//! ~3,500 a 64-byte block where the CPU has no SHA extensions, and JA4 hashes two texts of one
//! to four blocks each), where finding the text again costs a hash of its words and one
//! comparison.
//!
//! Each memo is a direct-mapped table of [`SLOTS`] texts of at most `TEXT` bytes with their
//! digests, allocated once when the worker starts: memory is fixed by these constants whatever
//! the traffic. A text is found only by comparing it whole, so an answer is always the digest
//! of that very text; a longer text, or one whose slot holds another, is hashed as before (and
//! takes the slot). Written by hand (a few lines) because a general cache crate would allocate
//! per entry or hash with a keyed hasher on the packet path.

/// Slots of each memo (a power of two).
pub const SLOTS: usize = 128;

/// A text and its digest; all zero (length 0) when empty.
#[derive(Clone, Copy, bytemuck::Zeroable)]
struct Slot<const TEXT: usize, const OUT: usize> {
    len: u16,
    text: [u8; TEXT],
    out: [u8; OUT],
}

/// A direct-mapped memo of `OUT`-byte digests of texts of at most `TEXT` bytes.
pub struct Memo<const TEXT: usize, const OUT: usize> {
    slots: Box<[Slot<TEXT, OUT>]>,
    /// Texts found (their digest not computed again).
    pub hits: u64,
    /// Texts digested.
    pub misses: u64,
}

impl<const TEXT: usize, const OUT: usize> Default for Memo<TEXT, OUT> {
    /// Zeroed memory (every slot empty): nothing is written until a text is kept.
    fn default() -> Self {
        const { assert!(SLOTS.is_power_of_two() && TEXT > 0 && TEXT < u16::MAX as usize) };
        Memo {
            slots: bytemuck::zeroed_slice_box(SLOTS),
            hits: 0,
            misses: 0,
        }
    }
}

impl<const TEXT: usize, const OUT: usize> Memo<TEXT, OUT> {
    /// The digest of `text`: the one kept for it, or `digest(text)` (then kept). Empty texts
    /// are never kept (the callers answer them without a digest).
    pub fn get(&mut self, text: &[u8], digest: impl FnOnce(&[u8]) -> [u8; OUT]) -> [u8; OUT] {
        if text.is_empty() || text.len() > TEXT {
            self.misses += 1;
            return digest(text);
        }
        let Some(s) = self.slots.get_mut(index(text)) else {
            return digest(text);
        };
        if usize::from(s.len) == text.len() && s.text.get(..text.len()) == Some(text) {
            self.hits += 1;
            return s.out;
        }
        self.misses += 1;
        let out = digest(text);
        if let Some(t) = s.text.get_mut(..text.len()) {
            t.copy_from_slice(text);
            s.len = text.len() as u16;
            s.out = out;
        }
        out
    }
}

/// A slot for `text` ([`wirespeed_classify::hosts::memo_hash`]). Not keyed: a text crafted to
/// share a slot with another only costs its digest.
fn index(text: &[u8]) -> usize {
    (wirespeed_classify::hosts::memo_hash(text) >> (64 - SLOTS.trailing_zeros())) as usize
}

/// The digest memos of one worker's inspectors: JA4's hashed lists (SHA-256, 12 hex digits),
/// JA3's text (MD5, 32 hex digits), a ClientHello's fingerprints by its lists, QUIC's client
/// Initial keys by version and connection id, and HMAC-SHA-256 keyed with each QUIC version's
/// Initial salt.
#[derive(Default)]
pub struct Digests {
    /// JA4's cipher list and extension/signature list texts.
    pub ja4: Memo<256, 12>,
    /// JA3's whole text.
    pub ja3: Memo<384, 32>,
    /// A ClientHello's fingerprints (JA3's digest, JA4's two hashes and whether each is whole)
    /// by the lists they are made of: a hit skips building JA3's and JA4's texts, the most of a
    /// ClientHello's cost; a miss builds them and asks the two memos above.
    pub hello: Memo<512, FINGERPRINTS>,
    /// A QUIC client's Initial keys (key, IV and header-protection key: 44 bytes) by the
    /// version (4 bytes) and the client's first destination connection id (at most 20): every
    /// Initial of a connection, and a ClientHello over two Initials, is protected with the
    /// same keys (RFC 9001 §5.2), whose derivation is 14 SHA-256 blocks. Corpus: 406 client
    /// Initials of 205 connection ids.
    pub quic: Memo<24, 44>,
    /// HMAC-SHA-256 keyed with each QUIC Initial salt.
    pub(crate) salts: Salts,
}

/// Bytes of a ClientHello's fingerprints as [`Digests::hello`] keeps them: JA3's digest (32 hex
/// digits), JA4's cipher part and extension part (12 each) and a byte of flags (the TLS
/// inspector's).
pub const FINGERPRINTS: usize = 57;

/// HKDF-Extract keyed with a QUIC Initial salt, by salt: an extract of a client's connection
/// id (RFC 9001 §5.2) starts from HMAC-SHA-256 already keyed, which saves the key's two SHA-256
/// blocks of every derivation (of 16).
#[derive(Default)]
pub(crate) struct Salts(arrayvec::ArrayVec<(&'static [u8; 20], ring::hkdf::Salt), MAX_SALTS>);

/// Salts kept keyed (the QUIC versions' salts are fewer).
const MAX_SALTS: usize = 8;

impl Salts {
    /// HKDF-Extract of `secret` with `salt`.
    pub(crate) fn extract(&mut self, salt: &'static [u8; 20], secret: &[u8]) -> ring::hkdf::Prk {
        if let Some((_, s)) = self.0.iter().find(|(s, _)| *s == salt) {
            return s.extract(secret);
        }
        let s = ring::hkdf::Salt::new(ring::hkdf::HKDF_SHA256, salt);
        let prk = s.extract(secret);
        let _ = self.0.try_push((salt, s));
        prk
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn sum(t: &[u8]) -> [u8; 4] {
        let mut o = [t.len() as u8, 0, 0, 0];
        for (i, b) in t.iter().enumerate() {
            o[1 + i % 3] ^= b.rotate_left(i as u32);
        }
        o
    }

    proptest! {
        /// Whatever texts come in whatever order, the answer is the digest of the text asked
        /// for, and a text asked for again right after is found.
        #[test]
        fn always_the_digest_of_the_text(texts in prop::collection::vec(
            prop::collection::vec(any::<u8>(), 0..300), 1..200), order in prop::collection::vec(any::<prop::sample::Index>(), 1..400)) {
            let mut m = Memo::<256, 4>::default();
            for ix in order {
                let t = ix.get(&texts);
                prop_assert_eq!(m.get(t, sum), sum(t));
                let keepable = !t.is_empty() && t.len() <= 256;
                let hits = m.hits;
                let again = m.get(t, |_| [0xff; 4]);
                prop_assert_eq!(again, if keepable { sum(t) } else { [0xff; 4] });
                prop_assert_eq!(m.hits, hits + u64::from(keepable));
            }
        }
    }

    #[test]
    fn texts_sharing_a_slot_replace_each_other() {
        let mut m = Memo::<16, 4>::default();
        // Find two texts of one slot.
        let a = b"aaaa".to_vec(); // as long as `b`: only their bytes differ
        let b = (0u32..)
            .map(|i| i.to_le_bytes().to_vec())
            .find(|t| index(t) == index(&a))
            .unwrap();
        assert_eq!(m.get(&a, sum), sum(&a));
        assert_eq!(m.get(&b, sum), sum(&b));
        assert_eq!(m.get(&a, sum), sum(&a));
        assert_eq!((m.hits, m.misses), (0, 3));
        assert_eq!(m.get(&a, sum), sum(&a));
        assert_eq!(m.hits, 1);
        // A text one byte longer than a slot holds is digested every time.
        let long = [7u8; 17];
        assert_eq!(m.get(&long, sum), sum(&long));
        assert_eq!(m.get(&long, sum), sum(&long));
        assert_eq!(m.hits, 1);
    }
}
