//! BER/DER reading (ITU-T X.690), shared by the LDAP, SNMP and Kerberos probes and the X.509
//! walker ([`crate::x509`]).
//!
//! Only what those need: identifiers in the low-tag-number form (tag numbers 0 to 30, one
//! octet), definite lengths of 1 to 4 octets. The indefinite form (0x80) and longer lengths are
//! refused (`None`); nothing here panics or loops more than the input's length.

/// A TLV header at the start of some bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// The identifier octet (class, constructed bit, tag number).
    pub tag: u8,
    /// Content length.
    pub len: usize,
    /// Header size (identifier and length octets).
    pub hdr: usize,
}

impl Header {
    /// Size of the whole TLV (header and content), saturating.
    pub fn total(&self) -> usize {
        self.hdr.saturating_add(self.len)
    }
}

/// The definite length at `d[at..]`: (value, octets used, 1 to 5). `None` when cut, in the
/// indefinite form, or longer than 4 length octets.
pub fn len(d: &[u8], at: usize) -> Option<(usize, usize)> {
    let b = *d.get(at)?;
    if b < 0x80 {
        return Some((usize::from(b), 1));
    }
    let n = usize::from(b & 0x7f);
    if n == 0 || n > 4 {
        return None;
    }
    let mut v = 0usize;
    for i in 0..n {
        v = (v << 8) | usize::from(*d.get(at.checked_add(1 + i)?)?);
    }
    Some((v, 1 + n))
}

/// The header of the TLV at the start of `d` (its content may run past `d`'s end: check with
/// [`Header::total`]). `None` when the header itself is cut or not in the forms above.
pub fn header(d: &[u8]) -> Option<Header> {
    let tag = *d.first()?;
    if tag & 0x1f == 0x1f {
        return None;
    }
    let (len, n) = len(d, 1)?;
    Some(Header {
        tag,
        len,
        hdr: 1 + n,
    })
}

/// The whole TLV at the start of `d`: (identifier, content, the bytes after it). `None` when
/// the header is bad or the content runs past `d`'s end.
pub fn tlv(d: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let h = header(d)?;
    let content = d.get(h.hdr..h.hdr.checked_add(h.len)?)?;
    let rest = d.get(h.hdr + h.len..)?;
    Some((h.tag, content, rest))
}

/// The content of the TLV at the start of `d`, as much of it as `d` holds (a prefix when `d` is
/// cut), and whether it is whole.
pub fn content_prefix(d: &[u8]) -> Option<(Header, &[u8], bool)> {
    let h = header(d)?;
    let end = h.total().min(d.len());
    let c = d.get(h.hdr..end)?;
    Some((h, c, c.len() == h.len))
}

/// Iterate the TLVs packed in `d` (the content of a SEQUENCE or SET): yields (identifier,
/// content) and stops at the first that is cut or malformed (`bad` then says so), after at most
/// `max` items.
pub struct Items<'a> {
    rest: &'a [u8],
    left: usize,
    /// Stopped on a cut or malformed item.
    pub bad: bool,
}

/// The TLVs in `d`, at most `max` of them.
pub fn items(d: &[u8], max: usize) -> Items<'_> {
    Items {
        rest: d,
        left: max,
        bad: false,
    }
}

impl<'a> Iterator for Items<'a> {
    type Item = (u8, &'a [u8]);

    fn next(&mut self) -> Option<Self::Item> {
        if self.rest.is_empty() || self.left == 0 {
            return None;
        }
        self.left -= 1;
        match tlv(self.rest) {
            Some((t, c, r)) => {
                self.rest = r;
                Some((t, c))
            }
            None => {
                self.bad = true;
                self.rest = &[];
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn lengths_by_x690() {
        // X.690 §8.1.3: short form, long form with 1 and 2 octets, indefinite refused.
        assert_eq!(len(&[0x26], 0), Some((38, 1)));
        assert_eq!(len(&[0x81, 0xc9], 0), Some((201, 2)));
        assert_eq!(len(&[0x82, 0x0e, 0xc4], 0), Some((3780, 3)));
        assert_eq!(len(&[0x84, 0, 1, 0, 0], 0), Some((65536, 5)));
        assert_eq!(len(&[0x80], 0), None);
        assert_eq!(len(&[0x85, 1, 1, 1, 1, 1], 0), None);
        assert_eq!(len(&[0x82, 0x01], 0), None);
        assert_eq!(len(&[], 0), None);
    }

    #[test]
    fn tlv_of_a_certificate_start() {
        // tls-rdn-extract.pcap, the server certificate: 30 82 0e c4 (SEQUENCE, 3780 bytes)
        // then tbsCertificate 30 82 0d ac and version [0] a0 03 02 01 02.
        let d = [
            0x30, 0x82, 0x0e, 0xc4, 0x30, 0x82, 0x0d, 0xac, 0xa0, 0x03, 0x02, 0x01, 0x02,
        ];
        let h = header(&d).unwrap();
        assert_eq!((h.tag, h.len, h.hdr, h.total()), (0x30, 3780, 4, 3784));
        assert!(tlv(&d).is_none(), "content runs past the end");
        let (h2, c, whole) = content_prefix(&d[4..]).unwrap();
        assert_eq!((h2.len, c.len(), whole), (3500, 5, false));
        let (t, v, rest) = tlv(c).unwrap();
        assert_eq!((t, v, rest), (0xa0, &[2u8, 1, 2][..], &[][..]));
        // High tag numbers are refused.
        assert!(header(&[0x1f, 0x81, 0x00, 0x00]).is_none());
    }

    #[test]
    fn items_stop_on_a_cut_one() {
        let d = [0x02, 0x01, 0x05, 0x04, 0x02, b'h', b'i', 0x04, 0x05, b'x'];
        let mut it = items(&d, 10);
        assert_eq!(it.next(), Some((0x02, &[5u8][..])));
        assert_eq!(it.next(), Some((0x04, &b"hi"[..])));
        assert_eq!(it.next(), None);
        assert!(it.bad);
        assert_eq!(items(&d, 1).count(), 1);
    }

    proptest! {
        #[test]
        fn never_panics_and_stays_inside(d in proptest::collection::vec(any::<u8>(), 0..64)) {
            if let Some(h) = header(&d) {
                prop_assert!(h.hdr >= 2 && h.hdr <= 6);
            }
            if let Some((_, c, r)) = tlv(&d) {
                prop_assert!(c.len() + r.len() < d.len());
            }
            let _ = content_prefix(&d);
            let n = items(&d, 100).count();
            prop_assert!(n <= d.len() / 2);
        }

        #[test]
        fn encoded_lengths_read_back(v in 0usize..(1 << 32) - 1) {
            let mut e = vec![0x04];
            if v < 0x80 {
                e.push(v as u8);
            } else {
                let b = (v as u64).to_be_bytes();
                let skip = b.iter().take_while(|&&x| x == 0).count();
                e.push(0x80 | (8 - skip) as u8);
                e.extend_from_slice(&b[skip..]);
            }
            let h = header(&e).unwrap();
            prop_assert_eq!(h.len, v);
            prop_assert_eq!(h.hdr, e.len());
        }
    }
}
