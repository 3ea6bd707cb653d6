//! Writing a DSCP value into an IP header (seed 000 writes the verdict into every later packet
//! so the network can act on it).
//!
//! The DSCP is the upper six bits of IPv4's TOS byte and of IPv6's traffic class (RFC 2474 §3);
//! the two ECN bits below it (RFC 3168) are kept. IPv4's header checksum is updated
//! incrementally, `HC' = ~(~HC + ~m + m')` over the changed 16-bit word (RFC 1624 §3, eqn. 3),
//! not recomputed: the same result for any valid header, and a header whose checksum was wrong
//! stays exactly as wrong (a router must not repair what it did not check). IPv6 has no header
//! checksum.

/// Why a packet was not marked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MarkError {
    /// Shorter than the fixed IP header.
    Short,
    /// Neither IPv4 nor IPv6 by its version nibble.
    NotIp,
}

/// Set the DSCP of the IP packet `pkt` (starting at its IP header) to `dscp` (0..=63, higher
/// bits ignored). Returns whether the packet changed.
pub fn set_dscp(pkt: &mut [u8], dscp: u8) -> Result<bool, MarkError> {
    let dscp = dscp & 0x3f;
    let Some(&b0) = pkt.first() else {
        return Err(MarkError::Short);
    };
    match b0 >> 4 {
        4 => {
            if pkt.len() < 20 {
                return Err(MarkError::Short);
            }
            let old = u16::from_be_bytes([pkt[0], pkt[1]]);
            let tos = (dscp << 2) | (pkt[1] & 0x03);
            if tos == pkt[1] {
                return Ok(false);
            }
            pkt[1] = tos;
            let new = u16::from_be_bytes([pkt[0], pkt[1]]);
            let hc = u16::from_be_bytes([pkt[10], pkt[11]]);
            let c = incremental(hc, old, new);
            pkt[10..12].copy_from_slice(&c.to_be_bytes());
            Ok(true)
        }
        6 => {
            if pkt.len() < 40 {
                return Err(MarkError::Short);
            }
            let tc = ((pkt[0] & 0x0f) << 4) | (pkt[1] >> 4);
            let new_tc = (dscp << 2) | (tc & 0x03);
            if new_tc == tc {
                return Ok(false);
            }
            pkt[0] = (pkt[0] & 0xf0) | (new_tc >> 4);
            pkt[1] = (pkt[1] & 0x0f) | (new_tc << 4);
            Ok(true)
        }
        _ => Err(MarkError::NotIp),
    }
}

/// The DSCP of the IP packet `pkt`, if it is one.
pub fn dscp(pkt: &[u8]) -> Option<u8> {
    match pkt.first()? >> 4 {
        4 if pkt.len() >= 20 => Some(pkt[1] >> 2),
        6 if pkt.len() >= 40 => Some((((pkt[0] & 0x0f) << 4) | (pkt[1] >> 4)) >> 2),
        _ => None,
    }
}

/// RFC 1624 eqn. 3: the checksum `hc` after one 16-bit word of the summed data changed from
/// `old` to `new`, in one's complement arithmetic.
#[inline]
pub fn incremental(hc: u16, old: u16, new: u16) -> u16 {
    let mut sum = u32::from(!hc) + u32::from(!old) + u32::from(new);
    sum = (sum & 0xffff) + (sum >> 16);
    sum = (sum & 0xffff) + (sum >> 16);
    !(sum as u16)
}

/// The Internet checksum (RFC 1071) of `data`, an even or odd number of bytes.
pub fn checksum(data: &[u8]) -> u16 {
    let mut sum = 0u32;
    let mut it = data.chunks_exact(2);
    for w in &mut it {
        sum += u32::from(u16::from_be_bytes([w[0], w[1]]));
    }
    if let [b] = it.remainder() {
        sum += u32::from(*b) << 8;
    }
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// The DSCP of a name: a number (0..=63, decimal or `0x..`), a class selector `CS0`..`CS7`,
/// an assured forwarding class `AF11`..`AF43` (RFC 2597), `EF` (RFC 3246), `VA` (RFC 5865) or
/// `LE` (RFC 8622), case-insensitive.
pub fn parse_dscp(s: &str) -> Option<u8> {
    let t = s.trim();
    let u = t.to_ascii_uppercase();
    let v = if let Some(h) = u.strip_prefix("0X") {
        u8::from_str_radix(h, 16).ok()?
    } else if let Ok(n) = t.parse::<u8>() {
        n
    } else if let Some(c) = u.strip_prefix("CS") {
        let c: u8 = c.parse().ok()?;
        if c > 7 {
            return None;
        }
        c << 3
    } else if let Some(a) = u.strip_prefix("AF") {
        let b = a.as_bytes();
        if b.len() != 2 {
            return None;
        }
        let (class, drop) = (b[0].wrapping_sub(b'0'), b[1].wrapping_sub(b'0'));
        if !(1..=4).contains(&class) || !(1..=3).contains(&drop) {
            return None;
        }
        (class << 3) | (drop << 1)
    } else {
        match u.as_str() {
            "EF" => 46,
            "VA" | "VOICE-ADMIT" => 44,
            "LE" => 1,
            _ => return None,
        }
    };
    (v <= 63).then_some(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn v4(tos: u8) -> Vec<u8> {
        // RFC 1071's style of example: a real header, checksum computed over it.
        let mut h = vec![
            0x45, tos, 0x00, 0x54, 0x1c, 0x46, 0x40, 0x00, 0x40, 0x01, 0, 0, 192, 0, 2, 1, 198, 51,
            100, 7,
        ];
        let c = checksum(&h);
        h[10..12].copy_from_slice(&c.to_be_bytes());
        h
    }

    #[test]
    fn names() {
        assert_eq!(parse_dscp("EF"), Some(46));
        assert_eq!(parse_dscp("af41"), Some(34));
        assert_eq!(parse_dscp("AF11"), Some(10));
        assert_eq!(parse_dscp("AF43"), Some(38));
        assert_eq!(parse_dscp("cs1"), Some(8));
        assert_eq!(parse_dscp("CS7"), Some(56));
        assert_eq!(parse_dscp("LE"), Some(1));
        assert_eq!(parse_dscp("0x2e"), Some(46));
        assert_eq!(parse_dscp("63"), Some(63));
        assert_eq!(parse_dscp("64"), None);
        assert_eq!(parse_dscp("AF51"), None);
        assert_eq!(parse_dscp("AF14"), None);
        assert_eq!(parse_dscp("CS8"), None);
        assert_eq!(parse_dscp("gold"), None);
    }

    #[test]
    fn ipv4_mark_keeps_ecn_and_a_valid_checksum() {
        let mut h = v4(0x03);
        assert_eq!(set_dscp(&mut h, 46), Ok(true));
        assert_eq!(h[1], (46 << 2) | 3);
        assert_eq!(checksum(&h), 0, "checksum over a valid header is 0");
        assert_eq!(dscp(&h), Some(46));
        assert_eq!(set_dscp(&mut h, 46), Ok(false));
    }

    #[test]
    fn ipv6_mark_keeps_flow_label_and_ecn() {
        let mut h = vec![0u8; 40];
        h[0] = 0x60 | 0x0a; // traffic class 0xa_ upper nibble
        h[1] = 0x1f; // TC low nibble 1 (ECN 01), flow label's top nibble f
        h[2] = 0x12;
        h[3] = 0x34;
        assert_eq!(set_dscp(&mut h, 10), Ok(true));
        let tc = ((h[0] & 0x0f) << 4) | (h[1] >> 4);
        assert_eq!(tc, (10 << 2) | 1);
        assert_eq!(h[0] >> 4, 6);
        assert_eq!(h[1] & 0x0f, 0x0f);
        assert_eq!(&h[2..4], &[0x12, 0x34]);
        assert_eq!(dscp(&h), Some(10));
    }

    #[test]
    fn refuses_what_is_not_ip() {
        assert_eq!(set_dscp(&mut [], 1), Err(MarkError::Short));
        assert_eq!(set_dscp(&mut [0x45; 19], 1), Err(MarkError::Short));
        assert_eq!(set_dscp(&mut [0x60; 39], 1), Err(MarkError::Short));
        assert_eq!(set_dscp(&mut [0x50; 40], 1), Err(MarkError::NotIp));
    }

    /// RFC 1624 §4's example: 0xdd2f summed data, word 0x5555 becomes 0x3285 gives 0x0000
    /// (eqn. 3's answer, where eqn. 2 gave the wrong 0xffff).
    #[test]
    fn rfc1624_example() {
        assert_eq!(incremental(0xdd2f, 0x5555, 0x3285), 0x0000);
    }

    proptest! {
        /// The incremental update equals recomputing the checksum of the changed header.
        #[test]
        fn incremental_equals_recomputed(mut h in proptest::collection::vec(any::<u8>(), 20..60),
                                         d in 0u8..64) {
            h[0] = 0x45;
            h[10] = 0;
            h[11] = 0;
            let c = checksum(&h[..20]);
            h[10..12].copy_from_slice(&c.to_be_bytes());
            set_dscp(&mut h, d).unwrap();
            let got = u16::from_be_bytes([h[10], h[11]]);
            h[10] = 0;
            h[11] = 0;
            let want = checksum(&h[..20]);
            // One's complement has two zeros; a valid header never sums to 0xffff's complement.
            prop_assert!(got == want || (got == 0xffff && want == 0) || (got == 0 && want == 0xffff));
            prop_assert_eq!(dscp(&h), Some(d));
        }

        #[test]
        fn never_panics(mut b in proptest::collection::vec(any::<u8>(), 0..64), d in any::<u8>()) {
            let _ = set_dscp(&mut b, d);
            let _ = dscp(&b);
        }
    }
}
