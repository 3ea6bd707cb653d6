//! X.509 certificates (RFC 5280), as far as the issuer and subject names: a bounded DER walk of
//! `Certificate → tbsCertificate → (version, serialNumber, signature, issuer, validity,
//! subject)` over what may be only a prefix of the certificate (the rest of a TLS Certificate
//! message can still be on its way), and the names written as text; and, in a whole
//! certificate, the DNS names of its subjectAltName extension ([`dns_names`]).
//!
//! # The text form
//!
//! RFC 4514's: the relative distinguished names (RDNs) in reverse order of the encoding (most
//! specific first, as `openssl x509 -nameopt RFC2253` and tshark show them), joined by `,`; the
//! attributes of a multi-valued RDN joined by `+`; each `TYPE=value`, TYPE the RFC 4514 short
//! name (`CN`, `L`, `ST`, `O`, `OU`, `C`, `STREET`, `DC`, `UID`), `emailAddress` for PKCS #9's
//! e-mail address, else the dotted OID. String values (UTF8String, PrintableString, IA5String,
//! TeletexString, BMPString, UniversalString, NumericString, VisibleString) are written as text
//! with `,` `+` `"` `\` `<` `>` `;` escaped by a backslash; other values as `#` and the hex of
//! their DER encoding. Bytes that are not valid UTF-8 then become U+FFFD, as everywhere in
//! [`crate::Meta`].

use crate::ber;
use crate::util::Buf;

/// What a (possibly cut) certificate gave.
#[derive(Debug, PartialEq, Eq)]
pub enum Names<'a> {
    /// The DER encodings' contents of the issuer and subject `Name`s (RDNSequence).
    Found {
        /// The issuer's RDNSequence content.
        issuer: &'a [u8],
        /// The subject's RDNSequence content.
        subject: &'a [u8],
    },
    /// The bytes end before the subject does: more are needed.
    Short,
    /// Not a certificate as RFC 5280 encodes it.
    Bad,
}

/// Most RDNs written per name, and attributes per RDN.
const MAX_RDNS: usize = 64;
const MAX_ATTRS: usize = 16;

/// Issuer and subject of the DER certificate `d`, which may be a prefix of one.
pub fn names(d: &[u8]) -> Names<'_> {
    // A TLV whose header or content is cut is Short when the enclosing bytes are cut too.
    let Some((_, cert, whole_cert)) = ber::content_prefix(d).filter(|(h, _, _)| h.tag == 0x30)
    else {
        return if d.len() < 6 && d.first().is_none_or(|&t| t == 0x30) {
            Names::Short
        } else {
            Names::Bad
        };
    };
    let Some((_, mut tbs, whole)) = ber::content_prefix(cert).filter(|(h, _, _)| h.tag == 0x30)
    else {
        return if !whole_cert && cert.len() < 6 {
            Names::Short
        } else {
            Names::Bad
        };
    };
    let cut = !whole || !whole_cert;
    let mut issuer: &[u8] = &[];
    // version [0] EXPLICIT (optional), serialNumber, signature, issuer, validity, subject.
    let want: [u8; 6] = [0xa0, 0x02, 0x30, 0x30, 0x30, 0x30];
    for (k, &tag) in want.iter().enumerate() {
        let Some((t, c, rest)) = ber::tlv(tbs) else {
            let cut_here = match ber::header(tbs) {
                Some(h) => h.total() > tbs.len(),
                None => tbs.len() < 6,
            };
            return if cut && cut_here {
                Names::Short
            } else {
                Names::Bad
            };
        };
        if t != tag {
            if k == 0 {
                continue; // no version: a v1 certificate
            }
            return Names::Bad;
        }
        // A version [0] is consumed, then the loop expects the serial number next.
        tbs = rest;
        match k {
            3 => issuer = c,
            5 => return Names::Found { issuer, subject: c },
            _ => {}
        }
    }
    Names::Bad
}

/// The DNS names of the subjectAltName extension (RFC 5280 §4.2.1.6, OID 2.5.29.17) of the
/// whole DER certificate `d`, in their order, joined by `,` into `out` as far as whole names
/// fit; the number written (0 when the certificate is cut, malformed or has none). A name
/// that is not printable ASCII is skipped, as is one with a `,`.
pub fn dns_names<const N: usize>(d: &[u8], out: &mut Buf<N>) -> usize {
    let Some((0x30, cert, _)) = ber::tlv(d) else {
        return 0;
    };
    let Some((0x30, tbs, _)) = ber::tlv(cert) else {
        return 0;
    };
    // version, serialNumber, signature, issuer, validity, subject, subjectPublicKeyInfo, then
    // issuerUniqueID [1], subjectUniqueID [2], extensions [3] EXPLICIT: the last is what counts.
    let Some((_, exts)) = ber::items(tbs, 10).find(|&(t, _)| t == 0xa3) else {
        return 0;
    };
    let Some((0x30, exts, _)) = ber::tlv(exts) else {
        return 0;
    };
    let mut n = 0;
    for (t, ext) in ber::items(exts, 64) {
        if t != 0x30 {
            continue;
        }
        let mut it = ber::items(ext, 3);
        if it.next() != Some((0x06, &[0x55, 0x1d, 0x11][..])) {
            continue;
        }
        // critical BOOLEAN DEFAULT FALSE, then extnValue OCTET STRING.
        let Some((0x04, value)) = it.find(|&(t, _)| t == 0x04) else {
            return n;
        };
        let Some((0x30, general_names, _)) = ber::tlv(value) else {
            return n;
        };
        for (t, name) in ber::items(general_names, 256) {
            // dNSName [2] IMPLICIT IA5String.
            let ok =
                !name.is_empty() && name.iter().all(|&c| (0x21..0x7f).contains(&c) && c != b',');
            if t != 0x82 || !ok {
                continue;
            }
            let need = name.len() + usize::from(n > 0);
            if out.len() + need > N {
                return n;
            }
            if n > 0 {
                out.push(b",");
            }
            out.push(name);
            n += 1;
        }
        return n;
    }
    n
}

/// Write the RDNSequence content `name` as text (see the module's notes) into `out`; false
/// when it is malformed (what was written before stays).
pub fn write_name<const N: usize>(name: &[u8], out: &mut Buf<N>) -> bool {
    let mut rdns: [&[u8]; MAX_RDNS] = [&[]; MAX_RDNS];
    let mut n = 0;
    let mut it = ber::items(name, MAX_RDNS);
    for (t, c) in it.by_ref() {
        if t != 0x31 {
            return false;
        }
        if let Some(slot) = rdns.get_mut(n) {
            *slot = c;
            n += 1;
        }
    }
    if it.bad {
        return false;
    }
    let mut ok = true;
    for (i, rdn) in rdns.iter().take(n).rev().enumerate() {
        if i > 0 {
            out.push(b",");
        }
        let mut attrs = ber::items(rdn, MAX_ATTRS);
        for (j, (t, atv)) in attrs.by_ref().enumerate() {
            if j > 0 {
                out.push(b"+");
            }
            ok &= t == 0x30 && write_atv(atv, out);
        }
        ok &= !attrs.bad;
    }
    ok
}

/// One AttributeTypeAndValue: SEQUENCE { OID, ANY }.
fn write_atv<const N: usize>(atv: &[u8], out: &mut Buf<N>) -> bool {
    let Some((0x06, oid, rest)) = ber::tlv(atv) else {
        return false;
    };
    match short_name(oid) {
        Some(s) => out.push(s.as_bytes()),
        None => {
            if !write_oid(oid, out) {
                return false;
            }
        }
    }
    out.push(b"=");
    let Some((t, v, after)) = ber::tlv(rest) else {
        return false;
    };
    match t {
        // UTF8String, NumericString, PrintableString, TeletexString, IA5String, VisibleString.
        0x0c | 0x12 | 0x13 | 0x14 | 0x16 | 0x1a => {
            for (k, &b) in v.iter().enumerate() {
                escape(b, k == 0, k + 1 == v.len(), out);
            }
        }
        // BMPString (UCS-2 big-endian) and UniversalString (UCS-4 big-endian).
        0x1e | 0x1c => {
            let w = if t == 0x1e { 2 } else { 4 };
            let units = v.chunks_exact(w);
            let count = units.len();
            for (k, u) in units.enumerate() {
                let cp = u.iter().fold(0u32, |a, &b| (a << 8) | u32::from(b));
                let ch = char::from_u32(cp).unwrap_or('\u{fffd}');
                if ch.is_ascii() {
                    escape(ch as u8, k == 0, k + 1 == count, out);
                } else {
                    let mut tmp = [0u8; 4];
                    out.push(ch.encode_utf8(&mut tmp).as_bytes());
                }
            }
        }
        _ => {
            // The whole value TLV in hex (RFC 4514 §2.4).
            out.push(b"#");
            let enc = rest
                .get(..rest.len().saturating_sub(after.len()))
                .unwrap_or(&[]);
            for &b in enc.iter().take(N) {
                let mut h = [0u8; 2];
                out.push(crate::util::hex(&[b], &mut h));
            }
        }
    }
    true
}

/// One value byte, escaped as RFC 4514 §2.4 asks.
fn escape<const N: usize>(b: u8, first: bool, last: bool, out: &mut Buf<N>) {
    let special = matches!(b, b',' | b'+' | b'"' | b'\\' | b'<' | b'>' | b';')
        || (first && (b == b'#' || b == b' '))
        || (last && b == b' ');
    if special {
        out.push(b"\\");
    }
    out.push(&[b]);
}

/// RFC 4514's short names (and PKCS #9's emailAddress) by OID content bytes.
fn short_name(oid: &[u8]) -> Option<&'static str> {
    Some(match oid {
        [0x55, 0x04, 3] => "CN",
        [0x55, 0x04, 6] => "C",
        [0x55, 0x04, 7] => "L",
        [0x55, 0x04, 8] => "ST",
        [0x55, 0x04, 9] => "STREET",
        [0x55, 0x04, 10] => "O",
        [0x55, 0x04, 11] => "OU",
        [0x09, 0x92, 0x26, 0x89, 0x93, 0xf2, 0x2c, 0x64, 0x01, 0x19] => "DC",
        [0x09, 0x92, 0x26, 0x89, 0x93, 0xf2, 0x2c, 0x64, 0x01, 0x01] => "UID",
        [0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x09, 0x01] => "emailAddress",
        _ => return None,
    })
}

/// An OID's content as dotted decimal; false when malformed (a component over 64 bits or cut).
pub fn write_oid<const N: usize>(oid: &[u8], out: &mut Buf<N>) -> bool {
    let mut v: u64 = 0;
    let mut first = true;
    if oid.is_empty() || oid.last().is_some_and(|&b| b & 0x80 != 0) {
        return false;
    }
    for &b in oid {
        if v > (u64::MAX >> 7) {
            return false;
        }
        v = (v << 7) | u64::from(b & 0x7f);
        if b & 0x80 != 0 {
            continue;
        }
        if first {
            let (a, rest) = match v {
                0..=39 => (0u8, v),
                40..=79 => (1, v - 40),
                _ => (2, v - 80),
            };
            out.num(a);
            out.push(b".");
            out.num(rest);
            first = false;
        } else {
            out.push(b".");
            out.num(v);
        }
        v = 0;
    }
    true
}

#[cfg(test)]
mod tests;
