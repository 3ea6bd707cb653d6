//! Bounds-checked readers: every access to frame bytes goes through these.
//!
//! The `Option` readers work on any slice at any offset and answer `None` past the end. Once a
//! fixed-size header has been taken with [`chunk`], the `h*` readers pick fields out of that array
//! by constant ranges; they cannot fail for ranges inside the array, and answer 0 for one that is
//! not (a bug in a field table, caught by the tests) rather than panic.

use core::ops::Range;

/// `N` bytes at `at`, as an array, or `None` if the slice ends first.
#[inline(always)]
pub(crate) fn chunk<const N: usize>(b: &[u8], at: usize) -> Option<&[u8; N]> {
    // One bounds check (a wrapped end gives an empty, failing range).
    b.get(at..at.wrapping_add(N))?.try_into().ok()
}

/// The byte at `at`.
#[inline(always)]
pub(crate) fn u8_at(b: &[u8], at: usize) -> Option<u8> {
    b.get(at).copied()
}

/// The big-endian `u16` at `at`.
#[inline(always)]
pub(crate) fn be16(b: &[u8], at: usize) -> Option<u16> {
    chunk::<2>(b, at).map(|a| u16::from_be_bytes(*a))
}

/// The big-endian `u32` at `at`.
#[inline(always)]
pub(crate) fn be32(b: &[u8], at: usize) -> Option<u32> {
    chunk::<4>(b, at).map(|a| u32::from_be_bytes(*a))
}

/// A byte field of a header already known to be `N` bytes long.
#[inline(always)]
pub(crate) fn h8<const N: usize>(h: &[u8; N], at: usize) -> u8 {
    h.get(at).copied().unwrap_or(0)
}

/// A big-endian 16-bit field of a header already known to be `N` bytes long.
#[inline(always)]
pub(crate) fn h16<const N: usize>(h: &[u8; N], r: Range<usize>) -> u16 {
    h.get(r)
        .and_then(|s| s.first_chunk::<2>())
        .map_or(0, |a| u16::from_be_bytes(*a))
}

/// A big-endian 32-bit field of a header already known to be `N` bytes long.
#[inline(always)]
pub(crate) fn h32<const N: usize>(h: &[u8; N], r: Range<usize>) -> u32 {
    h.get(r)
        .and_then(|s| s.first_chunk::<4>())
        .map_or(0, |a| u32::from_be_bytes(*a))
}

/// A 4- or 16-byte address field as the 16-byte form of [`crate::Decoded`] (IPv4 first, zeros
/// after).
#[inline(always)]
pub(crate) fn addr<const N: usize>(h: &[u8; N], r: Range<usize>) -> [u8; 16] {
    let mut a = [0u8; 16];
    if let (Some(src), Some(dst)) = (h.get(r.clone()), a.get_mut(..r.len())) {
        dst.copy_from_slice(src);
    }
    a
}

/// `b` cut to end at `end` (or left whole when it is shorter).
#[inline(always)]
pub(crate) fn cut(b: &[u8], end: usize) -> &[u8] {
    b.get(..end).unwrap_or(b)
}

/// What follows `at` (empty past the end).
#[inline(always)]
pub(crate) fn rest(b: &[u8], at: usize) -> &[u8] {
    b.get(at..).unwrap_or(&[])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readers_stop_at_the_end() {
        let b = [1u8, 2, 3, 4, 5];
        assert_eq!(be16(&b, 3), Some(0x0405));
        assert_eq!(be16(&b, 4), None);
        assert_eq!(be32(&b, 1), Some(0x0203_0405));
        assert_eq!(be32(&b, 2), None);
        assert_eq!(u8_at(&b, 5), None);
        assert_eq!(chunk::<5>(&b, 0), Some(&b));
        assert_eq!(chunk::<1>(&b, usize::MAX), None);
        assert_eq!(rest(&b, 9), &[] as &[u8]);
        assert_eq!(cut(&b, 9), &b);
        assert_eq!(cut(&b, 2), &[1, 2]);
    }

    #[test]
    fn header_fields() {
        let h = [0xaau8, 0xbb, 0xcc, 0xdd, 0xee];
        assert_eq!(h8(&h, 4), 0xee);
        assert_eq!(h8(&h, 5), 0);
        assert_eq!(h16(&h, 1..3), 0xbbcc);
        assert_eq!(h32(&h, 1..5), 0xbbcc_ddee);
        assert_eq!(h32(&h, 2..6), 0);
        let a = addr(&h, 1..5);
        assert_eq!(a[..4], [0xbb, 0xcc, 0xdd, 0xee]);
        assert!(a[4..].iter().all(|&x| x == 0));
    }
}
