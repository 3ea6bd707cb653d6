//! Community ID v1 (the flow hash Zeek and Suricata write, so records join their logs):
//! `1:` and the base64 of SHA-1 over the seed (2 bytes, network order), the two addresses, the
//! IP protocol, a zero byte and, for TCP, UDP and SCTP, the two ports — the end-points ordered
//! so that the smaller address (then the smaller port) comes first. Specification:
//! github.com/corelight/community-id-spec; checked against its reference implementation (PyPI
//! `communityid`) in this module's tests and in `cli/tests/it/community.rs`.

use base64::Engine as _;
use sha1::{Digest, Sha1};
use std::net::IpAddr;

/// The Community ID of a flow with seed 0, written into `out` (28 bytes of base64 after `1:`);
/// false when it is not defined here: ICMP and ICMPv6, whose IDs take the message's type and
/// code, which a flow record does not keep, and end-points of mixed IP versions.
pub fn community_id(out: &mut Vec<u8>, src: (IpAddr, u16), dst: (IpAddr, u16), proto: u8) -> bool {
    match id_text(src, dst, proto) {
        Some(id) => {
            out.extend_from_slice(&id);
            true
        }
        None => false,
    }
}

/// The Community ID's text (`1:` and 28 bytes of base64), as [`community_id`] writes it.
pub(crate) fn id_text(src: (IpAddr, u16), dst: (IpAddr, u16), proto: u8) -> Option<[u8; 30]> {
    if matches!(proto, 1 | 58) {
        return None;
    }
    let ports = matches!(proto, 6 | 17 | 132);
    // Addresses as the bytes they are hashed as; the end-points ordered by address, then port.
    let (s, d): (&[u8], &[u8]) = match (&src.0, &dst.0) {
        (IpAddr::V4(s), IpAddr::V4(d)) => (&s.octets()[..], &d.octets()[..]),
        (IpAddr::V6(s), IpAddr::V6(d)) => (&s.octets()[..], &d.octets()[..]),
        _ => return None,
    };
    let ((sa, sp), (da, dp)) = if (s, src.1) <= (d, dst.1) {
        ((s, src.1), (d, dst.1))
    } else {
        ((d, dst.1), (s, src.1))
    };
    let mut h = Sha1::new();
    h.update(0u16.to_be_bytes());
    h.update(sa);
    h.update(da);
    h.update([proto, 0]);
    if ports {
        h.update(sp.to_be_bytes());
        h.update(dp.to_be_bytes());
    }
    let mut id = [0u8; 30];
    id[..2].copy_from_slice(b"1:");
    // 20 bytes are 28 of base64 (with one `=`): the slice is the size it needs.
    base64::engine::general_purpose::STANDARD
        .encode_slice(h.finalize(), &mut id[2..])
        .ok()?;
    Some(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(s: &str, sp: u16, d: &str, dp: u16, proto: u8) -> String {
        let mut b = Vec::new();
        assert!(community_id(
            &mut b,
            (s.parse().unwrap(), sp),
            (d.parse().unwrap(), dp),
            proto
        ));
        String::from_utf8(b).unwrap()
    }

    /// Values computed by the reference implementation (PyPI `communityid` 1.5.0,
    /// `communityid.CommunityID().calc(communityid.FlowTuple(proto, saddr, daddr, sport,
    /// dport))`, seed 0), for tuples of the documentation address ranges.
    #[test]
    fn reference_values() {
        for (s, sp, d, dp, p, want) in REFERENCE {
            assert_eq!(id(s, *sp, d, *dp, *p), *want, "{s}:{sp} {d}:{dp} {p}");
            // Either direction gives the same ID.
            assert_eq!(
                id(d, *dp, s, *sp, *p),
                *want,
                "reversed {s}:{sp} {d}:{dp} {p}"
            );
        }
    }

    #[test]
    fn icmp_and_mixed_versions_are_not_defined_here() {
        let mut b = Vec::new();
        let v4: IpAddr = "192.0.2.1".parse().unwrap();
        let v6: IpAddr = "2001:db8::1".parse().unwrap();
        assert!(!community_id(&mut b, (v4, 0), (v4, 0), 1));
        assert!(!community_id(&mut b, (v6, 0), (v6, 0), 58));
        assert!(!community_id(&mut b, (v4, 1), (v6, 2), 6));
        assert!(b.is_empty());
    }

    /// The specification's own example (its README): TCP 128.232.110.120:34855 →
    /// 66.35.250.204:80.
    #[test]
    fn the_specification_example() {
        let want = "1:LQU9qZlK+B5F3KDmev6m5PMibrg=";
        assert_eq!(id("128.232.110.120", 34855, "66.35.250.204", 80, 6), want);
    }

    include!("community_reference.rs");
}
