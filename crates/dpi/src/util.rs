//! Small helpers for parsers: a bounds-checked reader and hex output.

/// A cursor over bytes whose reads return `None` past the end instead of panicking.
#[derive(Clone, Copy, Debug)]
pub struct Rd<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Rd<'a> {
    /// A reader at the start of `b`.
    pub fn new(b: &'a [u8]) -> Self {
        Rd { b, at: 0 }
    }

    /// Bytes left.
    pub fn left(&self) -> usize {
        self.b.len().saturating_sub(self.at)
    }

    /// Current offset.
    pub fn pos(&self) -> usize {
        self.at
    }

    /// The next `n` bytes.
    pub fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let s = self.b.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(s)
    }

    /// Skip `n` bytes.
    pub fn skip(&mut self, n: usize) -> Option<()> {
        self.take(n).map(|_| ())
    }

    /// One byte.
    pub fn u8(&mut self) -> Option<u8> {
        self.take(1).map(|s| s[0])
    }

    /// Big-endian u16.
    pub fn u16(&mut self) -> Option<u16> {
        self.take(2).map(|s| u16::from_be_bytes([s[0], s[1]]))
    }

    /// Big-endian 24-bit.
    pub fn u24(&mut self) -> Option<u32> {
        self.take(3)
            .map(|s| u32::from_be_bytes([0, s[0], s[1], s[2]]))
    }

    /// Big-endian u32.
    pub fn u32(&mut self) -> Option<u32> {
        self.take(4)
            .map(|s| u32::from_be_bytes([s[0], s[1], s[2], s[3]]))
    }

    /// A block prefixed by a one-byte length.
    pub fn vec8(&mut self) -> Option<&'a [u8]> {
        let n = self.u8()? as usize;
        self.take(n)
    }

    /// A block prefixed by a two-byte length.
    pub fn vec16(&mut self) -> Option<&'a [u8]> {
        let n = self.u16()? as usize;
        self.take(n)
    }

    /// Everything left, without reading it.
    pub fn rest_peek(&self) -> &'a [u8] {
        self.b.get(self.at..).unwrap_or(&[])
    }

    /// Everything left.
    pub fn rest(&mut self) -> &'a [u8] {
        let s = self.b.get(self.at..).unwrap_or(&[]);
        self.at = self.b.len();
        s
    }
}

/// Does `hay` hold `needle` (not empty)? memchr's `memmem` (vectorised, with a prefilter on rare
/// bytes), where comparing every window of the needle's length cost inspectors that search a
/// payload's first hundreds of bytes a thousand instructions or more a payload.
#[inline]
pub fn contains(hay: &[u8], needle: &[u8]) -> bool {
    find(hay, needle).is_some()
}

/// Where `needle` (not empty) first occurs in `hay` ([`contains`]).
#[inline]
pub fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(hay, needle)
}

/// Is every byte of `v` printable ASCII (0x20 to 0x7e)? Eight bytes a step (a metadata value
/// is checked at each write: a byte at a time was ~4 instructions a byte, 2.4 M of the corpus
/// mix x2's 315 M). Per byte of a word without its high bit, adding 0x60 carries into the high
/// bit exactly when the byte is at least 0x20, adding 0x01 exactly when it is 0x7f, and neither
/// carries into the next byte.
#[inline]
pub fn printable(v: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut words = v.chunks_exact(8);
    for w in &mut words {
        let mut b = [0u8; 8];
        b.copy_from_slice(w);
        let x = u64::from_le_bytes(b);
        if x & HIGH != 0 || (x + 0x60 * ONES) & HIGH != HIGH || (x + ONES) & HIGH != 0 {
            return false;
        }
    }
    words.remainder().iter().all(|b| (0x20..0x7f).contains(b))
}

/// Lower-case hex of `b` into `out` (which must hold `2 * b.len()` bytes); returns the written
/// part.
pub fn hex<'o>(b: &[u8], out: &'o mut [u8]) -> &'o [u8] {
    const H: &[u8; 16] = b"0123456789abcdef";
    let n = b.len().min(out.len() / 2);
    for (i, &x) in b.iter().take(n).enumerate() {
        out[2 * i] = H[(x >> 4) as usize];
        out[2 * i + 1] = H[(x & 15) as usize];
    }
    &out[..2 * n]
}

/// A small fixed-capacity byte string for building fingerprints without allocating.
///
/// Its bytes are an `arrayvec::ArrayVec`: never zeroed, only what was pushed is ever read. A
/// zeroed array cost every buffer its whole capacity at each use (a ClientHello's JA3 text and
/// names, 2 to 16 KiB, ~45 instructions a packet of the corpus mix in `memset`).
#[derive(Default)]
pub struct Buf<const N: usize> {
    b: arrayvec::ArrayVec<u8, N>,
    /// Bytes that did not fit.
    pub lost: bool,
}

impl<const N: usize> Buf<N> {
    /// Append bytes (what does not fit is lost, and `lost` says so).
    #[inline]
    pub fn push(&mut self, s: &[u8]) {
        // Whole when it fits (the usual case): a copy of the slice's own length, which for the
        // callers' constant separators and hex digits is a store or two, where a copy of a length
        // clamped to the room was a call to `memcpy` (and, for one byte, to `memset`: ~90,000
        // calls on the corpus mix's ClientHellos).
        if self.b.try_extend_from_slice(s).is_err() {
            self.push_part(s);
        }
    }

    /// What fits of `s`, which does not fit whole (apart from [`Buf::push`], so that the
    /// compiler does not merge the two copies into one of a clamped length).
    #[cold]
    #[inline(never)]
    fn push_part(&mut self, s: &[u8]) {
        self.lost = true;
        if let Some(src) = s.get(..self.b.remaining_capacity()) {
            // Cannot fail: that many bytes fit.
            let _ = self.b.try_extend_from_slice(src);
        }
    }

    /// Append a number in decimal.
    pub fn num(&mut self, v: impl Into<u64>) {
        // itoa: two digits a step from a table, into a buffer it does not zero (JA3's lists
        // write some 60 numbers a ClientHello).
        self.push(itoa::Buffer::new().format(v.into()).as_bytes());
    }

    /// Append four lower-case hex digits.
    pub fn hex16(&mut self, v: u16) {
        let mut o = [0u8; 4];
        hex(&v.to_be_bytes(), &mut o);
        self.push(&o);
    }

    /// Empty it again, to build another value in the same bytes (not zeroed: only what was
    /// pushed is ever read).
    pub fn clear(&mut self) {
        self.b.clear();
        self.lost = false;
    }

    /// Bytes so far.
    pub fn as_bytes(&self) -> &[u8] {
        &self.b
    }

    /// Length so far.
    pub fn len(&self) -> usize {
        self.b.len()
    }

    /// Nothing yet?
    pub fn is_empty(&self) -> bool {
        self.b.is_empty()
    }
}

/// Probe `d` as a run of whole TPKT units (RFC 1006: version 3, reserved 0, a 16-bit length
/// counting the header; at least 7 bytes, TPKT and the fixed part of COTP), at most 8: a
/// reassembled ISO-on-TCP stream may hold a connection request before the first data unit.
/// The first unit for which `unit` does not answer `Unsure` decides; when every unit is `Unsure`
/// and they tile `d` exactly, the answer is `Unsure`; bad framing is `NotForUs`.
pub fn tpkt_units(d: &[u8], mut unit: impl FnMut(&[u8]) -> crate::Probe) -> crate::Probe {
    use crate::Probe;
    let mut rest = d;
    for _ in 0..8 {
        let Some(len) = rest
            .get(..4)
            .filter(|h| h[..2] == [3, 0])
            .map(|h| usize::from(u16::from_be_bytes([h[2], h[3]])))
        else {
            break;
        };
        let Some(u) = rest.get(..len).filter(|u| u.len() >= 7) else {
            break;
        };
        match unit(u) {
            Probe::Unsure => {}
            decided => return decided,
        }
        rest = &rest[len..];
        if rest.is_empty() {
            return Probe::Unsure;
        }
    }
    Probe::NotForUs
}

/// Case-insensitive ASCII prefix test.
pub fn starts_with_ci(b: &[u8], p: &[u8]) -> bool {
    b.get(..p.len()).is_some_and(|h| h.eq_ignore_ascii_case(p))
}

/// MD5 of `b` as 32 lower-case hex digits.
pub fn md5_hex(b: &[u8]) -> [u8; 32] {
    use md5::{Digest, Md5};
    let d = Md5::digest(b);
    let mut o = [0u8; 32];
    hex(&d, &mut o);
    o
}

#[cfg(test)]
mod tests {
    use super::Buf;
    use proptest::prelude::*;

    proptest! {
        /// A `Buf` holds the first `N` bytes pushed, says whether any were lost, and starts
        /// afresh after `clear` (its bytes were never zeroed: only what was pushed is read).
        #[test]
        fn holds_what_fits_and_says_what_was_lost(
            parts in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..40), 0..8),
        ) {
            let mut b = Buf::<64>::default();
            let mut want = Vec::new();
            for p in &parts {
                b.push(p);
                want.extend_from_slice(p);
            }
            let kept = want.len().min(64);
            prop_assert_eq!(b.as_bytes(), &want[..kept]);
            prop_assert_eq!(b.len(), kept);
            prop_assert_eq!(b.lost, want.len() > 64);
            b.clear();
            prop_assert!(b.is_empty() && !b.lost);
            b.push(b"ja3");
            b.num(771u16);
            b.hex16(0xabcd);
            prop_assert_eq!(b.as_bytes(), b"ja3771abcd");
        }

        /// `printable` is the byte-at-a-time test: printable text, with or without one byte
        /// anywhere set to a value near the range's edges (or any).
        #[test]
        fn printable_is_the_bytewise_test(
            mut v in proptest::collection::vec(0x20u8..0x7f, 0..40),
            one in proptest::option::of((any::<prop::sample::Index>(), prop_oneof![0x1du8..0x22, 0x7cu8..0x82, any::<u8>()])),
        ) {
            if let (Some((at, b)), false) = (one, v.is_empty()) {
                let i = at.index(v.len());
                v[i] = b;
            }
            prop_assert_eq!(super::printable(&v), v.iter().all(|b| (0x20..0x7f).contains(b)));
        }

        /// `find` is the first window equal to the needle, for any bytes of a small alphabet
        /// (so that needles occur, partly and wholly).
        #[test]
        fn find_is_the_first_equal_window(
            hay in proptest::collection::vec(0u8..3, 0..80),
            needle in proptest::collection::vec(0u8..3, 1..6),
        ) {
            let want = hay.windows(needle.len()).position(|w| w == needle.as_slice());
            prop_assert_eq!(super::find(&hay, &needle), want);
            prop_assert_eq!(super::contains(&hay, &needle), want.is_some());
        }

        /// Numbers in decimal and four hex digits, as `format!` writes them, also where they
        /// fit only in part (the rest lost).
        #[test]
        fn numbers_as_format_writes_them(v in any::<u64>(), h in any::<u16>(), room in 0usize..24) {
            let mut b = Buf::<24>::default();
            b.push(&[b'x'; 24][..24 - room]);
            b.num(v);
            b.hex16(h);
            let want = format!("{}{v}{h:04x}", "x".repeat(24 - room));
            let kept = want.len().min(24);
            prop_assert_eq!(b.as_bytes(), &want.as_bytes()[..kept]);
            prop_assert_eq!(b.lost, want.len() > 24);
        }
    }
}
