//! [`Out`]: appends to a `Vec<u8>`'s spare capacity without a capacity check per append, and the
//! formatting of numbers, addresses and strings the record writers need.
//!
//! Why by hand, and why `unsafe`: this is the records' hot path (issue 37: a record in ≤ 1,500
//! instructions). `Vec::extend_from_slice` checks the capacity at every append and calls
//! `memcpy` for every small piece; a record is some 70 to 170 small pieces. Here a record's
//! worst-case size is reserved once (`format::bound`), and every append after that is a store
//! and a pointer increment.
//!
//! The contract: every append is an `unsafe fn` whose `# Safety` section says how many bytes of
//! room it needs; the caller must have reserved them. The room an append needs
//! is at least the bytes it keeps (some store a whole word and keep part of it: the rest is
//! overwritten by the next append or lies past the end). Test builds check every append's room
//! (`check`), so a bound that is too small fails the tests rather than writing past the buffer.

#![allow(unsafe_code)]

use std::net::{Ipv4Addr, Ipv6Addr};
use std::ptr;

/// Appends to a `Vec<u8>` whose capacity was reserved up front, through its [`Cursor`]. The
/// bytes appended become part of the vector when the `Out` is dropped.
pub(crate) struct Out<'a> {
    vec: &'a mut Vec<u8>,
    cur: Cursor,
}

/// Where the next byte goes. Every append is a method here, `#[inline(always)]` so that the
/// pointer stays in a register; what is out of line takes and returns the cursor by value
/// (a cursor whose address is taken would be reloaded after every store through it). A copy
/// goes back into the `Out` it came from, nowhere else.
#[derive(Clone, Copy)]
pub(crate) struct Cursor {
    /// The next byte to write: within the vector's allocation, at or after its length, every
    /// byte from the length up to here written.
    ptr: *mut u8,
    /// One past the vector's capacity (for the test builds' check of every append).
    #[cfg(test)]
    end: *mut u8,
}

impl<'a> Out<'a> {
    /// Appends to `vec`, with `room` bytes reserved.
    #[inline]
    pub(crate) fn new(vec: &'a mut Vec<u8>, room: usize) -> Out<'a> {
        vec.reserve(room);
        let (len, cap) = (vec.len(), vec.capacity());
        let base = vec.as_mut_ptr();
        // SAFETY: len <= cap: both are offsets within (or one past) the allocation.
        let (ptr, _end) = unsafe { (base.add(len), base.add(cap)) };
        Out {
            vec,
            cur: Cursor {
                ptr,
                #[cfg(test)]
                end: _end,
            },
        }
    }

    /// Bytes appended through this `Out` and earlier: the vector's length once it is dropped.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.cur.ptr as usize - self.vec.as_ptr() as usize
    }
}

impl std::ops::Deref for Out<'_> {
    type Target = Cursor;

    #[inline(always)]
    fn deref(&self) -> &Cursor {
        &self.cur
    }
}

impl std::ops::DerefMut for Out<'_> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut Cursor {
        &mut self.cur
    }
}

impl Drop for Out<'_> {
    fn drop(&mut self) {
        let len = self.len();
        // A cursor that left the allocation (a broken `# Safety` promise) stops here rather than
        // giving the vector a length past its capacity.
        assert!(
            len <= self.vec.capacity(),
            "record cursor out of its buffer"
        );
        // SAFETY: every byte up to the cursor is written (its invariant), within the capacity.
        unsafe { self.vec.set_len(len) }
    }
}

impl Cursor {
    /// Bytes that can still be appended.
    #[cfg(test)]
    fn room(&self) -> usize {
        self.end as usize - self.ptr as usize
    }

    /// In test builds, that an append needing `n` bytes has them.
    #[inline(always)]
    fn check(&self, n: usize) {
        #[cfg(test)]
        assert!(
            self.room() >= n,
            "append of {n} bytes with {} left",
            self.room()
        );
        #[cfg(not(test))]
        let _ = n;
    }

    /// Append `b`.
    ///
    /// # Safety
    /// Room for `b.len()` bytes.
    #[inline(always)]
    pub(crate) unsafe fn bytes(&mut self, b: &[u8]) {
        self.check(b.len());
        let n = b.len();
        // Short pieces (names, keys) as two overlapping loads and stores rather than a call to
        // memcpy; the stores stay within the n bytes.
        let (s, d) = (b.as_ptr(), self.ptr);
        if (8..=16).contains(&n) {
            let (x, y) = (load64(s), load64(s.add(n - 8)));
            store64(d, x);
            store64(d.add(n - 8), y);
        } else if (4..8).contains(&n) {
            let (x, y) = (load32(s), load32(s.add(n - 4)));
            store32(d, x);
            store32(d.add(n - 4), y);
        } else if n < 4 {
            if n > 0 {
                *d = *s;
                *d.add(n / 2) = *s.add(n / 2);
                *d.add(n - 1) = *s.add(n - 1);
            }
        } else if n <= 32 {
            wide::copy32(s, d, n);
        } else if n <= 64 {
            wide::copy32(s, d, 32);
            wide::copy32(s.add(n - 32), d.add(n - 32), 32);
        } else {
            ptr::copy_nonoverlapping(s, d, n);
        }
        self.ptr = d.add(n);
    }

    /// Append `b`.
    ///
    /// # Safety
    /// Room for 1 byte.
    #[inline(always)]
    pub(crate) unsafe fn byte(&mut self, b: u8) {
        self.check(1);
        *self.ptr = b;
        self.ptr = self.ptr.add(1);
    }

    /// Store the 8 bytes of `w` (little-endian) and keep the first `keep`.
    ///
    /// # Safety
    /// Room for 8 bytes, and `keep` ≤ 8 (the bytes kept are the ones written).
    #[inline(always)]
    unsafe fn word(&mut self, w: u64, keep: usize) {
        self.check(8);
        #[cfg(test)]
        assert!(keep <= 8);
        store64(self.ptr, w);
        self.ptr = self.ptr.add(keep);
    }

    /// Store the 4 bytes of `w` (little-endian) and keep the first `keep`.
    ///
    /// # Safety
    /// Room for 4 bytes, and `keep` ≤ 4.
    #[inline(always)]
    unsafe fn word32(&mut self, w: u32, keep: usize) {
        self.check(4);
        #[cfg(test)]
        assert!(keep <= 4);
        store32(self.ptr, w);
        self.ptr = self.ptr.add(keep);
    }

    /// Append the text of a run padded to `N` bytes (a key, or a key and its value, from a
    /// table; a risk's name).
    ///
    /// # Safety
    /// Room for `N` bytes.
    #[inline(always)]
    pub(crate) unsafe fn padded<const N: usize>(&mut self, k: &Pad<N>) {
        self.check(N);
        ptr::copy_nonoverlapping(k.text.as_ptr(), self.ptr, N);
        // A `Pad<N>` holds at most its `N` bytes (`push` cannot write past them).
        self.ptr = self.ptr.add(usize::from(k.len));
    }

    /// Where the next byte goes, to compare with a later [`Cursor::at`].
    #[inline(always)]
    pub(crate) fn at(&self) -> *const u8 {
        self.ptr
    }

    /// Take back the last `n` bytes appended.
    ///
    /// # Safety
    /// At least `n` bytes appended through this cursor.
    #[inline(always)]
    pub(crate) unsafe fn back(&mut self, n: usize) {
        self.ptr = self.ptr.sub(n);
    }

    /// An unsigned number in decimal: below 10^8 (most of a record's numbers) inline, in tiers
    /// of two, four and eight digits a word; larger ones out of line.
    ///
    /// # Safety
    /// Room for [`UINT_ROOM`] bytes.
    #[inline(always)]
    pub(crate) unsafe fn uint(&mut self, v: u64) {
        self.check(UINT_ROOM);
        if v < 100 {
            let pair = PAIRS[v as usize];
            let one = (v < 10) as usize;
            // "07" shifted past its zero when one digit.
            self.word32(u32::from(u16::from_le_bytes(pair)) >> (8 * one), 2 - one);
        } else if v < 10_000 {
            self.below_1e4(v as u32);
        } else if v < 100_000 {
            // Five digits (ports, most byte counts): the first, then four.
            let v = v as u32;
            let first = v / 10_000;
            self.word(
                u64::from(b'0' as u32 + first) | u64::from(four_digits(v - first * 10_000)) << 8,
                5,
            );
        } else if v < 100_000_000 {
            self.below_1e8(v as u32);
        } else {
            *self = Cursor::uint_large(*self, v);
        }
    }

    /// `v` ≥ 10^8: its leading part, then eight digits at a time.
    #[inline(never)]
    unsafe fn uint_large(mut c: Cursor, v: u64) -> Cursor {
        c.large(v);
        c
    }

    #[inline(always)]
    unsafe fn large(&mut self, v: u64) {
        if v < 10_000_000_000_000_000 {
            let hi = v / 100_000_000;
            self.below_1e8(hi as u32);
            self.word(eight_digits((v - hi * 100_000_000) as u32), 8);
        } else {
            let top = v / 10_000_000_000_000_000;
            let rest = v - top * 10_000_000_000_000_000;
            let mid = rest / 100_000_000;
            self.below_1e8(top as u32);
            self.word(eight_digits(mid as u32), 8);
            self.word(eight_digits((rest - mid * 100_000_000) as u32), 8);
        }
    }

    /// A signed number in decimal.
    ///
    /// # Safety
    /// Room for [`UINT_ROOM`] + 1 bytes.
    #[inline(always)]
    pub(crate) unsafe fn int(&mut self, v: i64) {
        self.check(UINT_ROOM + 1);
        if v < 0 {
            self.byte(b'-');
        }
        self.uint(v.unsigned_abs());
    }

    /// 100 ≤ `v` < 10^4: the four digits in one word, shifted past a leading zero.
    #[inline(always)]
    unsafe fn below_1e4(&mut self, v: u32) {
        let zero = (v < 1000) as usize;
        self.word32(four_digits(v) >> (8 * zero), 4 - zero);
    }

    /// `v` < 10^8 without leading zeros: the eight digits in one word, shifted past the zeros.
    #[inline(always)]
    unsafe fn below_1e8(&mut self, v: u32) {
        let digits = eight_values(v);
        // Leading zero digits (7 at most: 0 is written "0").
        let zeros = ((digits.trailing_zeros() / 8) as usize).min(7);
        self.word((digits | ASCII_ZEROS) >> (8 * zeros), 8 - zeros);
    }

    /// Seconds with microseconds: `1600000000.123456`.
    ///
    /// # Safety
    /// Room for [`TS_ROOM`] bytes.
    #[inline(always)]
    pub(crate) unsafe fn ts(&mut self, ns: u64) {
        self.ts_with(ns, &mut TsDigits::default());
    }

    /// A duration as [`Cursor::ts`] writes it, without the test for ten digits of seconds
    /// (durations are short).
    ///
    /// # Safety
    /// Room for [`TS_ROOM`] bytes.
    #[inline(always)]
    pub(crate) unsafe fn duration(&mut self, ns: u64) {
        self.check(TS_ROOM);
        self.seconds_and_fraction(ns / 1000);
    }

    /// [`Cursor::ts`], reusing the first eight digits of the seconds from `last` when they are
    /// the same (a flow's first and last packet times, in one 100-second span).
    ///
    /// # Safety
    /// Room for [`TS_ROOM`] bytes.
    #[inline(always)]
    pub(crate) unsafe fn ts_with(&mut self, ns: u64, last: &mut TsDigits) {
        self.check(TS_ROOM);
        let us = ns / 1000;
        if (1_000_000_000_000_000..10_000_000_000_000_000).contains(&us) {
            // Ten digits of seconds (2001 to 2286): the sixteen digits of microseconds as two
            // words of eight, the point put in after the tenth by a second, overlapping store.
            let hi = us / 100_000_000;
            let lo = eight_digits((us - hi * 100_000_000) as u32);
            if hi != last.hi {
                *last = TsDigits {
                    hi,
                    text: eight_digits(hi as u32),
                };
            }
            self.word(last.text, 8);
            self.word(lo, 2);
            self.word(lo >> 16 << 8 | u64::from(b'.'), 7);
        } else {
            self.seconds_and_fraction(us);
        }
    }

    /// `us` as seconds, the point and six decimals.
    #[inline(always)]
    unsafe fn seconds_and_fraction(&mut self, us: u64) {
        self.uint(us / 1_000_000);
        // The point, two digits and four.
        let frac = (us % 1_000_000) as u32;
        let pair = frac / 10_000;
        let [a, b] = PAIRS[pair as usize & 127];
        self.word(
            u64::from(b'.')
                | u64::from(a) << 8
                | u64::from(b) << 16
                | u64::from(four_digits(frac - pair * 10_000)) << 24,
            7,
        );
    }

    /// A non-negative number with three decimals (rounded half up); a value that is not
    /// finite, or negative, as 0.
    ///
    /// # Safety
    /// Room for [`UINT_ROOM`] + 4 bytes.
    #[inline(always)]
    pub(crate) unsafe fn fixed3(&mut self, v: f64) {
        self.check(UINT_ROOM + 4);
        let v = if v.is_finite() && v > 0.0 { v } else { 0.0 };
        // Past 2^53 thousandths a double has no third decimal left to write.
        let t = (v * 1000.0 + 0.5).min(9.0e15) as u64;
        self.uint(t / 1000);
        let f = (t % 1000) as u32;
        let pair = PAIRS[(f % 100) as usize & 127];
        self.word32(
            u32::from(b'.')
                | u32::from(b'0' + (f / 100) as u8) << 8
                | u32::from(pair[0]) << 16
                | u32::from(pair[1]) << 24,
            4,
        );
    }

    /// A fraction in [0, 1] with two decimals (half away from zero); not finite as 0.
    ///
    /// # Safety
    /// Room for 4 bytes.
    #[inline(always)]
    pub(crate) unsafe fn conf(&mut self, c: f32) {
        // The text of a value in (0, 1] is computed; above 1 (finite) it is 1.00; anything else
        // (0, negative, not finite) is 0.00.
        let text = if c > 0.0 && c <= 1.0 {
            // Round half away from zero, as `f32::round`, without its libm call: c * 100 is in
            // [0, 100], and in f64 adding 0.5 is exact, so truncating is the same rounding.
            // SAFETY: in [0.5, 100.5], so it fits an i32.
            let h = (f64::from(c * 100.0) + 0.5).to_int_unchecked::<i32>() as u32;
            // h ≤ 100: the units digit and the two decimals.
            let one = (h >= 100) as u32;
            let pair = PAIRS[(h - 100 * one) as usize & 127];
            (u32::from(b'0') + one)
                | u32::from(b'.') << 8
                | u32::from(pair[0]) << 16
                | u32::from(pair[1]) << 24
        } else if c > 1.0 && c.is_finite() {
            u32::from_le_bytes(*b"1.00")
        } else {
            u32::from_le_bytes(*b"0.00")
        };
        self.word32(text, 4);
    }

    /// A dotted quad.
    ///
    /// # Safety
    /// Room for 16 bytes.
    #[inline(always)]
    pub(crate) unsafe fn ipv4(&mut self, a: &Ipv4Addr) {
        self.check(16);
        let [a, b, c, d] = a.octets();
        // Each octet's digits and a point from a table, one store each; the last keeps no point.
        for o in [a, b, c] {
            let (text, len) = OCTETS[usize::from(o)];
            self.word32(text, usize::from(len) + 1);
        }
        let (text, len) = OCTETS[usize::from(d)];
        self.word32(text, usize::from(len));
    }

    /// An IPv6 address as `Ipv6Addr`'s `Display` writes it (RFC 5952: lowercase hex without
    /// leading zeros, the longest run of two or more zero groups, the first of equals, as `::`;
    /// an IPv4-mapped address as `::ffff:a.b.c.d`).
    ///
    /// # Safety
    /// Room for [`IP_ROOM`] bytes.
    #[inline(always)]
    pub(crate) unsafe fn ipv6(&mut self, a: &Ipv6Addr) {
        *self = Cursor::ipv6_text(*self, a);
    }

    #[inline(never)]
    unsafe fn ipv6_text(mut c: Cursor, a: &Ipv6Addr) -> Cursor {
        c.ipv6_inline(a);
        c
    }

    #[inline(always)]
    unsafe fn ipv6_inline(&mut self, a: &Ipv6Addr) {
        self.check(IP_ROOM);
        if let Some(v4) = a.to_ipv4_mapped() {
            self.bytes(b"::ffff:");
            return self.ipv4(&v4);
        }
        let g = a.segments();
        // The longest run of zero groups (the first of equals).
        let (mut best_at, mut best_len, mut run) = (0, 0, 0);
        for (i, &s) in g.iter().enumerate() {
            run = if s == 0 { run + 1 } else { 0 };
            if run > best_len {
                best_len = run;
                best_at = i + 1 - run;
            }
        }
        let (skip_from, skip_to) = if best_len > 1 {
            (best_at, best_at + best_len)
        } else {
            (8, 8)
        };
        for (i, &s) in g.iter().enumerate() {
            if i >= skip_from && i < skip_to {
                if i == skip_from {
                    self.bytes(b"::");
                }
                continue;
            }
            if i > 0 && i != skip_to {
                self.byte(b':');
            }
            self.hex16(s);
        }
    }

    /// A 16-bit group in lowercase hex without leading zeros.
    #[inline(always)]
    unsafe fn hex16(&mut self, s: u16) {
        let n = |k: u16| HEX[usize::from(s >> k & 15)];
        let w =
            u32::from(n(12)) | u32::from(n(8)) << 8 | u32::from(n(4)) << 16 | u32::from(n(0)) << 24;
        let digits = (16 - (s | 1).leading_zeros() as usize).div_ceil(4);
        self.word32(w >> (8 * (4 - digits)), digits);
    }

    /// Copy `s` and say whether a byte of it is special to the format (`JSON`: one JSON
    /// escapes; else one that may make a CSV field quoted: `,`, `"`, or a control character up to
    /// CR). Sixteen
    /// bytes at a time (SSE2, in every x86-64), then words, overlapping the last piece with the
    /// one before rather than looping over a tail.
    ///
    /// # Safety
    /// Room for `s.len()` bytes.
    #[inline(always)]
    unsafe fn copy_scan<const JSON: bool>(&mut self, s: &[u8]) -> bool {
        self.check(s.len());
        let n = s.len();
        let (src, dst) = (s.as_ptr(), self.ptr);
        let found = if n > 16 {
            wide::copy_scan::<JSON>(src, dst, n)
        } else if n >= 8 {
            let (x, y) = (load64(src), load64(src.add(n - 8)));
            store64(dst, x);
            store64(dst.add(n - 8), y);
            wide::special2::<JSON>(x, y)
        } else if n >= 4 {
            let (x, y) = (load32(src), load32(src.add(n - 4)));
            store32(dst, x);
            store32(dst.add(n - 4), y);
            wide::special1::<JSON>(u64::from(x) | u64::from(y) << 32)
        } else if n > 0 {
            let (x, y, z) = (*src, *src.add(n / 2), *src.add(n - 1));
            *dst = x;
            *dst.add(n / 2) = y;
            *dst.add(n - 1) = z;
            wide::special1::<JSON>(
                u64::from(x) | u64::from(y) << 8 | u64::from(z) << 16 | FILLER << 24,
            )
        } else {
            false
        };
        self.ptr = dst.add(n);
        found
    }

    /// A JSON string (RFC 8259): quoted, with quotes, backslashes and control characters
    /// escaped.
    ///
    /// # Safety
    /// Room for [`json_room`]`(s.len())` bytes.
    #[inline(always)]
    pub(crate) unsafe fn json_str(&mut self, s: &str) {
        self.check(json_room(s.len()));
        self.byte(b'"');
        self.json_esc(s);
        self.byte(b'"');
    }

    /// The inside of a JSON string (no quotes).
    ///
    /// # Safety
    /// Room for 6 × `s.len()` bytes.
    #[inline(always)]
    pub(crate) unsafe fn json_esc(&mut self, s: &str) {
        let at = self.ptr;
        if self.copy_scan::<true>(s.as_bytes()) {
            self.ptr = at;
            *self = Cursor::json_esc_slow(*self, s.as_bytes());
        }
    }

    #[cold]
    #[inline(never)]
    unsafe fn json_esc_slow(mut c: Cursor, bytes: &[u8]) -> Cursor {
        c.json_escaped(bytes);
        c
    }

    #[inline(always)]
    unsafe fn json_escaped(&mut self, bytes: &[u8]) {
        self.check(6 * bytes.len());
        let mut start = 0;
        for (i, &b) in bytes.iter().enumerate() {
            let esc: &[u8] = match b {
                b'"' => b"\\\"",
                b'\\' => b"\\\\",
                b'\n' => b"\\n",
                b'\r' => b"\\r",
                b'\t' => b"\\t",
                0..=0x1f => b"",
                _ => continue,
            };
            self.bytes(&bytes[start..i]);
            if esc.is_empty() {
                self.bytes(b"\\u00");
                self.byte(HEX[usize::from(b >> 4)]);
                self.byte(HEX[usize::from(b & 15)]);
            } else {
                self.bytes(esc);
            }
            start = i + 1;
        }
        self.bytes(&bytes[start..]);
    }

    /// A CSV field (RFC 4180): quoted when it holds a comma, quote, CR or LF; quotes doubled.
    ///
    /// # Safety
    /// Room for [`csv_room`]`(s.len())` bytes.
    #[inline(always)]
    pub(crate) unsafe fn csv_str(&mut self, s: &str) {
        self.check(csv_room(s.len()));
        let at = self.ptr;
        if self.copy_scan::<false>(s.as_bytes()) {
            self.ptr = at;
            *self = Cursor::csv_quoted(*self, s.as_bytes());
        }
    }

    /// `bytes` as one CSV field: as they are when no byte needs quoting, else quoted with
    /// quotes doubled.
    #[cold]
    #[inline(never)]
    unsafe fn csv_quoted(mut c: Cursor, bytes: &[u8]) -> Cursor {
        c.csv_quoted_inline(bytes);
        c
    }

    #[inline(always)]
    unsafe fn csv_quoted_inline(&mut self, bytes: &[u8]) {
        self.check(csv_room(bytes.len()));
        if !bytes
            .iter()
            .any(|b| matches!(b, b',' | b'"' | b'\n' | b'\r'))
        {
            return self.bytes(bytes);
        }
        self.byte(b'"');
        for &b in bytes {
            if b == b'"' {
                self.byte(b'"');
            }
            self.byte(b);
        }
        self.byte(b'"');
    }
}

/// The first eight digits of a time's sixteen (microseconds), for [`Cursor::ts_with`].
#[derive(Clone, Copy)]
pub(crate) struct TsDigits {
    /// The microseconds / 10^8 (none: `u64::MAX`).
    hi: u64,
    /// Its eight ASCII digits.
    text: u64,
}

impl Default for TsDigits {
    fn default() -> Self {
        TsDigits {
            hi: u64::MAX,
            text: 0,
        }
    }
}

/// Room [`Cursor::uint`] needs: 20 digits, and the word stores' spill.
pub(crate) const UINT_ROOM: usize = 24;
/// Room [`Cursor::ts`] needs.
pub(crate) const TS_ROOM: usize = UINT_ROOM + 8;
/// Room [`Cursor::ipv6`] (and [`Cursor::ipv4`]) needs: 39 characters at most, and the spill.
pub(crate) const IP_ROOM: usize = 48;

/// Room [`Cursor::json_str`] needs for a string of `len` bytes: each byte may become `\u00XX`.
#[inline]
pub(crate) const fn json_room(len: usize) -> usize {
    len.saturating_mul(6).saturating_add(2)
}

/// Room [`Cursor::csv_str`] needs for a string of `len` bytes: each byte may be a doubled quote.
#[inline]
pub(crate) const fn csv_room(len: usize) -> usize {
    len.saturating_mul(2).saturating_add(2)
}

/// A run of text padded to `N` bytes, for [`Cursor::padded`]: one copy of `N` bytes appends it,
/// whatever its length.
#[derive(Clone, Copy)]
pub(crate) struct Pad<const N: usize> {
    text: [u8; N],
    len: u8,
}

/// A key, or a key and its value, from a table.
pub(crate) type Padded = Pad<32>;
/// A risk's name and its separator.
pub(crate) type Padded48 = Pad<48>;

impl<const N: usize> Pad<N> {
    /// No text.
    pub(crate) const EMPTY: Self = Pad {
        text: [0; N],
        len: 0,
    };

    /// `parts` joined (`N` bytes at most: a longer run fails the build where it is a constant).
    pub(crate) const fn new(parts: &[&str]) -> Self {
        let mut p = Self::EMPTY;
        let mut i = 0;
        while i < parts.len() {
            p = p.push(parts[i]);
            i += 1;
        }
        p
    }

    /// This text and `s`.
    pub(crate) const fn push(mut self, s: &str) -> Self {
        let b = s.as_bytes();
        let mut j = 0;
        while j < b.len() {
            self.text[self.len as usize] = b[j];
            self.len += 1;
            j += 1;
        }
        self
    }

    /// This text and `v` in decimal.
    pub(crate) const fn push_u8(mut self, v: u8) -> Self {
        if v >= 100 {
            self.text[self.len as usize] = b'0' + v / 100;
            self.len += 1;
        }
        if v >= 10 {
            self.text[self.len as usize] = b'0' + v / 10 % 10;
            self.len += 1;
        }
        self.text[self.len as usize] = b'0' + v % 10;
        self.len += 1;
        self
    }

    /// The text.
    pub(crate) fn text(&self) -> &[u8] {
        &self.text[..usize::from(self.len)]
    }

    /// The text.
    #[cfg(test)]
    pub(crate) fn as_bytes(&self) -> &[u8] {
        &self.text[..usize::from(self.len)]
    }
}

/// JSON keys of a list of names, `,"name":` each, padded for [`Cursor::padded`].
pub(crate) const fn json_keys<const N: usize>(names: &[&str; N]) -> [Padded; N] {
    let mut out = [Padded::EMPTY; N];
    let mut i = 0;
    while i < N {
        out[i] = Padded::new(&[",\"", names[i], "\":"]);
        i += 1;
    }
    out
}

#[cfg(any(test, not(target_arch = "x86_64")))]
const ONES: u64 = 0x0101_0101_0101_0101;
#[cfg(any(test, not(target_arch = "x86_64")))]
const HIGH: u64 = 0x8080_8080_8080_8080;
const ASCII_ZEROS: u64 = 0x3030_3030_3030_3030;
/// Five `a`s, filling a word of fewer bytes: special in neither format.
const FILLER: u64 = 0x61_6161_6161;

/// Non-zero when a byte of `w` is below `k` (k ≤ 0x80). Exact as a whole (a borrow can mark a
/// byte above a true one, never a word without one).
#[cfg(any(test, not(target_arch = "x86_64")))]
#[inline(always)]
const fn below(w: u64, k: u8) -> u64 {
    w.wrapping_sub(k as u64 * ONES) & !w & HIGH
}

/// Non-zero when a byte of `w` is `c`.
#[cfg(any(test, not(target_arch = "x86_64")))]
#[inline(always)]
const fn has(w: u64, c: u8) -> u64 {
    below(w ^ (c as u64 * ONES), 1)
}

/// A byte JSON escapes: a control character, `"` or `\`.
#[cfg(any(test, not(target_arch = "x86_64")))]
#[inline(always)]
pub(crate) const fn json_special(w: u64) -> u64 {
    below(w, 0x20) | has(w, b'"') | has(w, b'\\')
}

/// A byte that may make a CSV field quoted: `,`, `"`, or a control character (CR and LF are;
/// the others only send the field the slow way, which looks again).
#[cfg(any(test, not(target_arch = "x86_64")))]
#[inline(always)]
const fn csv_maybe_special(w: u64) -> u64 {
    below(w, 0x0e) | has(w, b'"') | has(w, b',')
}

/// The eight decimal digits of `v` < 10^8, most significant first, one a byte (values 0–9, not
/// yet ASCII): split in halves of four digits, each in pairs, each pair in two digits, in the
/// lanes of one word (multiplications by reciprocals, exact in these ranges).
#[inline(always)]
const fn eight_values(v: u32) -> u64 {
    let hi = v / 10_000;
    let lo = v - hi * 10_000;
    // Two 32-bit lanes of < 10^4: split each into its two pairs (x * 10486 >> 20 = x / 100).
    let w = hi as u64 | (lo as u64) << 32;
    let hundreds = ((w * 10486) >> 20) & 0x0000_007f_0000_007f;
    let w = (w - hundreds * 100) << 16 | hundreds;
    // Four 16-bit lanes of < 100: split each into its two digits (x * 103 >> 10 = x / 10).
    let tens = ((w * 103) >> 10) & 0x000f_000f_000f_000f;
    (w - tens * 10) << 8 | tens
}

/// The four ASCII digits of `v` < 10^4, leading zeros included: two 16-bit lanes of < 100,
/// each split into its two digits (x * 103 >> 10 = x / 10).
#[inline(always)]
const fn four_digits(v: u32) -> u32 {
    let hundreds = v / 100;
    let w = (v - hundreds * 100) << 16 | hundreds;
    let tens = ((w * 103) >> 10) & 0x000f_000f;
    ((w - tens * 10) << 8 | tens) | 0x3030_3030
}

/// The eight ASCII digits of `v` < 10^8, leading zeros included.
#[inline(always)]
const fn eight_digits(v: u32) -> u64 {
    eight_values(v) | ASCII_ZEROS
}

/// "00" to "99" (and padding to 128 entries, so an index masked with 127 needs no check).
const PAIRS: [[u8; 2]; 128] = {
    let mut t = [[b'0'; 2]; 128];
    let mut i = 0;
    while i < 100 {
        t[i] = [b'0' + (i / 10) as u8, b'0' + (i % 10) as u8];
        i += 1;
    }
    t
};

/// Each octet's digits followed by a point, little-endian in a word, and its digit count.
const OCTETS: [(u32, u8); 256] = {
    let mut t = [(0u32, 0u8); 256];
    let mut i = 0;
    while i < 256 {
        let (w, n) = if i >= 100 {
            (
                (b'0' + (i / 100) as u8) as u32
                    | ((b'0' + (i / 10 % 10) as u8) as u32) << 8
                    | ((b'0' + (i % 10) as u8) as u32) << 16
                    | (b'.' as u32) << 24,
                3,
            )
        } else if i >= 10 {
            (
                (b'0' + (i / 10) as u8) as u32
                    | ((b'0' + (i % 10) as u8) as u32) << 8
                    | (b'.' as u32) << 16,
                2,
            )
        } else {
            ((b'0' + i as u8) as u32 | (b'.' as u32) << 8, 1)
        };
        t[i] = (w, n);
        i += 1;
    }
    t
};

const HEX: &[u8; 16] = b"0123456789abcdef";

/// [`Cursor::copy_scan`] of more than 16 bytes: a vector of 16 at a time.
mod wide {
    #[cfg(target_arch = "x86_64")]
    use std::arch::x86_64::*;

    /// Copy `n` (> 16) bytes from `src` to `dst`; whether one is special (as
    /// `json_special` or `csv_maybe_special` say).
    ///
    /// # Safety
    /// `src` readable and `dst` writable for `n` bytes.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub(super) unsafe fn copy_scan<const JSON: bool>(
        src: *const u8,
        dst: *mut u8,
        n: usize,
    ) -> bool {
        let special = |v| special::<JSON>(v);
        let mut acc = _mm_setzero_si128();
        let mut i = 0;
        while i + 16 < n {
            let v = _mm_loadu_si128(src.add(i) as *const __m128i);
            _mm_storeu_si128(dst.add(i) as *mut __m128i, v);
            acc = _mm_or_si128(acc, special(v));
            i += 16;
        }
        let v = _mm_loadu_si128(src.add(n - 16) as *const __m128i);
        _mm_storeu_si128(dst.add(n - 16) as *mut __m128i, v);
        _mm_movemask_epi8(_mm_or_si128(acc, special(v))) != 0
    }

    /// Copy `n` bytes, 16 ≤ `n` ≤ 32, as two overlapping pieces of 16.
    ///
    /// # Safety
    /// `src` readable and `dst` writable for `n` bytes.
    #[inline(always)]
    pub(super) unsafe fn copy32(src: *const u8, dst: *mut u8, n: usize) {
        let (x, y) = (
            std::ptr::read_unaligned(src as *const [u8; 16]),
            std::ptr::read_unaligned(src.add(n - 16) as *const [u8; 16]),
        );
        std::ptr::write_unaligned(dst as *mut [u8; 16], x);
        std::ptr::write_unaligned(dst.add(n - 16) as *mut [u8; 16], y);
    }

    /// Whether a byte of `w` is special.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub(super) unsafe fn special1<const JSON: bool>(w: u64) -> bool {
        // The vector's upper half is zeros (special below 0x20): only the lower half counts.
        _mm_movemask_epi8(special::<JSON>(_mm_cvtsi64_si128(w as i64))) & 0xff != 0
    }

    /// The same, a word at a time.
    #[cfg(not(target_arch = "x86_64"))]
    #[inline(always)]
    pub(super) unsafe fn special1<const JSON: bool>(w: u64) -> bool {
        let special = if JSON {
            super::json_special
        } else {
            super::csv_maybe_special
        };
        special(w) != 0
    }

    /// Whether a byte of `x` or `y` is special: one vector test for both words.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub(super) unsafe fn special2<const JSON: bool>(x: u64, y: u64) -> bool {
        let v = _mm_set_epi64x(y as i64, x as i64);
        _mm_movemask_epi8(special::<JSON>(v)) != 0
    }

    /// The same, a word at a time.
    #[cfg(not(target_arch = "x86_64"))]
    #[inline(always)]
    pub(super) unsafe fn special2<const JSON: bool>(x: u64, y: u64) -> bool {
        let special = if JSON {
            super::json_special
        } else {
            super::csv_maybe_special
        };
        special(x) | special(y) != 0
    }

    /// The bytes of `v` special to the format, as 0xff.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn special<const JSON: bool>(v: __m128i) -> __m128i {
        let (low, a, b) = if JSON {
            (0x1f, b'"', b'\\')
        } else {
            (0x0d, b'"', b',')
        };
        let (low, a, b) = (
            _mm_set1_epi8(low as i8),
            _mm_set1_epi8(a as i8),
            _mm_set1_epi8(b as i8),
        );
        // A byte ≤ low is one whose unsigned maximum with low is low.
        let below = _mm_cmpeq_epi8(_mm_max_epu8(v, low), low);
        _mm_or_si128(
            below,
            _mm_or_si128(_mm_cmpeq_epi8(v, a), _mm_cmpeq_epi8(v, b)),
        )
    }

    /// The same, a word at a time.
    ///
    /// # Safety
    /// As the vector version's.
    #[cfg(not(target_arch = "x86_64"))]
    #[inline(always)]
    pub(super) unsafe fn copy_scan<const JSON: bool>(
        src: *const u8,
        dst: *mut u8,
        n: usize,
    ) -> bool {
        use super::{load64, store64};
        let special = if JSON {
            super::json_special
        } else {
            super::csv_maybe_special
        };
        let mut acc = 0;
        let mut i = 0;
        while i + 8 < n {
            let w = load64(src.add(i));
            store64(dst.add(i), w);
            acc |= special(w);
            i += 8;
        }
        let w = load64(src.add(n - 8));
        store64(dst.add(n - 8), w);
        acc | special(w) != 0
    }
}

#[inline(always)]
unsafe fn load64(p: *const u8) -> u64 {
    u64::from_le(ptr::read_unaligned(p as *const u64))
}

#[inline(always)]
unsafe fn load32(p: *const u8) -> u32 {
    u32::from_le(ptr::read_unaligned(p as *const u32))
}

#[inline(always)]
unsafe fn store64(p: *mut u8, w: u64) {
    ptr::write_unaligned(p as *mut u64, w.to_le());
}

#[inline(always)]
unsafe fn store32(p: *mut u8, w: u32) {
    ptr::write_unaligned(p as *mut u32, w.to_le());
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn with(room: usize, f: impl FnOnce(&mut Out<'_>)) -> String {
        let mut v = Vec::new();
        let mut o = Out::new(&mut v, room);
        f(&mut o);
        drop(o);
        String::from_utf8(v).unwrap()
    }

    /// Numbers whose digit counts cross every boundary of the three word paths.
    fn edges() -> Vec<u64> {
        let mut v = vec![0, u64::MAX, u64::MAX - 1];
        let mut p = 1u64;
        for _ in 0..20 {
            v.extend([p.saturating_sub(1), p, p.saturating_add(1)]);
            p = p.saturating_mul(10);
        }
        v
    }

    #[test]
    fn numbers_at_the_digit_boundaries() {
        for v in edges() {
            assert_eq!(with(UINT_ROOM, |o| unsafe { o.uint(v) }), v.to_string());
            let s = v as i64;
            assert_eq!(with(UINT_ROOM + 1, |o| unsafe { o.int(s) }), s.to_string());
        }
        assert_eq!(
            with(UINT_ROOM + 1, |o| unsafe { o.int(i64::MIN) }),
            i64::MIN.to_string()
        );
    }

    #[test]
    fn ipv6_special_forms() {
        for a in [
            "::",
            "::1",
            "1::",
            "::ffff:1.2.3.4",
            "::1.2.3.4",
            "1:0:0:1:0:0:0:1",
            "1:0:0:1:0:0:1:1",
            "0:1:0:1:0:1:0:1",
            "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
            "2001:db8::",
            "64:ff9b::1.2.3.4",
        ] {
            let ip: Ipv6Addr = a.parse().unwrap();
            assert_eq!(with(IP_ROOM, |o| unsafe { o.ipv6(&ip) }), ip.to_string());
        }
    }

    /// Segments drawn from few values, so that runs of zeros are common.
    fn segments() -> impl Strategy<Value = [u16; 8]> {
        proptest::array::uniform8(prop_oneof![
            Just(0u16),
            Just(0xffff),
            1u16..16,
            any::<u16>()
        ])
    }

    proptest! {
        #[test]
        fn uint_is_display(v in any::<u64>(), shift in 0u32..64) {
            let v = v >> shift;
            prop_assert_eq!(with(UINT_ROOM, |o| unsafe { o.uint(v) }), v.to_string());
        }

        #[test]
        fn int_is_display(v in any::<i64>(), shift in 0u32..64) {
            let v = v >> shift;
            prop_assert_eq!(with(UINT_ROOM + 1, |o| unsafe { o.int(v) }), v.to_string());
        }

        #[test]
        fn ipv6_is_display(g in segments()) {
            let ip = Ipv6Addr::from(g);
            prop_assert_eq!(with(IP_ROOM, |o| unsafe { o.ipv6(&ip) }), ip.to_string());
        }

        #[test]
        fn fixed3_is_format(v in prop_oneof![any::<f64>(), 0.0..1e6, 0.0..1e13]) {
            let got = with(UINT_ROOM + 4, |o| unsafe { o.fixed3(v) });
            let c = if v.is_finite() && v > 0.0 { v } else { 0.0 };
            let t = (c * 1000.0 + 0.5).min(9.0e15) as u64;
            prop_assert_eq!(got, format!("{}.{:03}", t / 1000, t % 1000));
        }

        /// The word tests (the vector tests' stand-ins elsewhere than x86-64) say what the
        /// bytewise ones do: exactly for JSON, at least for CSV.
        #[test]
        fn word_tests_agree_with_bytes(w in any::<u64>(), pick in proptest::collection::vec(0usize..8, 0..3), b in prop_oneof![Just(b'"'), Just(b'\\'), Just(b','), Just(b'\n'), Just(b'\r'), 0u8..0x20]) {
            let mut bytes = w.to_le_bytes();
            for &i in &pick {
                bytes[i] = b;
            }
            let w = u64::from_le_bytes(bytes);
            let json = bytes.iter().any(|&c| c < 0x20 || c == b'"' || c == b'\\');
            prop_assert_eq!(json_special(w) != 0, json);
            let csv = bytes.iter().any(|&c| matches!(c, b',' | b'"' | b'\n' | b'\r'));
            prop_assert!(csv_maybe_special(w) != 0 || !csv);
        }

        /// Whatever their length, the bytes are copied as they are.
        #[test]
        fn bytes_are_copied(b in proptest::collection::vec(any::<u8>(), 0..80)) {
            let mut v = b"x".to_vec();
            let mut o = Out::new(&mut v, b.len());
            unsafe { o.bytes(&b) };
            drop(o);
            prop_assert_eq!(&v[1..], &b[..]);
        }

        /// Whatever the bytes, the scanned copy is the bytes, and it says "special" exactly
        /// when the bytewise test does (JSON), or at least then (CSV).
        #[test]
        fn copy_scan_copies_and_finds(b in proptest::collection::vec(any::<u8>(), 0..80)) {
            let mut v = Vec::new();
            let mut o = Out::new(&mut v, b.len());
            let json = unsafe { o.copy_scan::<true>(&b) };
            drop(o);
            prop_assert_eq!(&v, &b);
            prop_assert_eq!(json, b.iter().any(|&c| c < 0x20 || c == b'"' || c == b'\\'));
            let mut v = Vec::new();
            let mut o = Out::new(&mut v, b.len());
            let csv = unsafe { o.copy_scan::<false>(&b) };
            drop(o);
            let must = b.iter().any(|&c| matches!(c, b',' | b'"' | b'\n' | b'\r'));
            prop_assert!(csv || !must);
        }
    }
}
