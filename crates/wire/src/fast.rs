//! The flow end-points of the commonest frames, read straight from the bytes: Ethernet without a
//! VLAN tag, IPv4 that is no fragment or IPv6 without extension headers, TCP or UDP that carries
//! no tunnel the decoder opens. A dispatcher spreading packets over workers calls this for every
//! packet, so it costs a few bounds-checked loads where [`crate::decode()`] walks every layer.
//!
//! It answers `None` for every other frame, and for any frame the full decoder might reject or
//! key otherwise (a tunnel port, a length past the frame, a short header): those take the full
//! decoder. When it answers, the decoder takes the same frame to a flow with the same end-points
//! (property tests here, the `dispatch` fuzz target, and the corpus in `wirespeed-engine`).

use crate::tunnel::carries_tunnel;
use crate::{ip_proto, LinkType};

/// The two addresses as the frame holds them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FastAddrs<'a> {
    /// IPv4 source and destination.
    V4(&'a [u8; 4], &'a [u8; 4]),
    /// IPv6 source and destination.
    V6(&'a [u8; 16], &'a [u8; 16]),
}

/// A frame's flow end-points, as [`fast_flow`] reads them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FastFlow<'a> {
    /// Source and destination addresses.
    pub addrs: FastAddrs<'a>,
    /// IP protocol: [`ip_proto::TCP`] or [`ip_proto::UDP`].
    pub proto: u8,
    /// Source port.
    pub sport: u16,
    /// Destination port.
    pub dport: u16,
}

const ETH: usize = 14;
const ETHERTYPE_IPV4: u16 = 0x0800;
const ETHERTYPE_IPV6: u16 = 0x86dd;

/// The end-points of `frame` (captured bytes of a frame of link type `link`, `wire_len` bytes on
/// the wire) if it is one of the common shapes above; None sends it to the full decoder.
#[inline(always)]
pub fn fast_flow(link: LinkType, frame: &[u8], wire_len: usize) -> Option<FastFlow<'_>> {
    // Fixed-size views of the headers: one length check each instead of one per field.
    if link != LinkType::ETHERNET {
        return None;
    }
    let (eth, rest) = frame.split_first_chunk::<ETH>()?;
    let (addrs, proto, l4, end) = match u16::from_be_bytes([eth[12], eth[13]]) {
        ETHERTYPE_IPV4 => {
            let ip = rest.first_chunk::<20>()?;
            let ihl = usize::from(ip[0] & 0x0f) * 4;
            let total = usize::from(u16::from_be_bytes([ip[2], ip[3]]));
            // Version 4, a sane header length, and no fragment (MF clear, offset 0).
            if ip[0] >> 4 != 4 || ihl < 20 || total < ihl || ip[6] & 0x3f != 0 || ip[7] != 0 {
                return None;
            }
            let (src, dst) = ip[12..].split_first_chunk::<4>()?;
            let dst = dst.first_chunk::<4>()?;
            (FastAddrs::V4(src, dst), ip[9], ETH + ihl, ETH + total)
        }
        ETHERTYPE_IPV6 => {
            let ip = rest.first_chunk::<40>()?;
            let plen = usize::from(u16::from_be_bytes([ip[4], ip[5]]));
            if ip[0] >> 4 != 6 || plen == 0 {
                return None;
            }
            let (src, dst) = ip[8..].split_first_chunk::<16>()?;
            let dst = dst.first_chunk::<16>()?;
            (FastAddrs::V6(src, dst), ip[6], ETH + 40, ETH + 40 + plen)
        }
        _ => return None,
    };
    // A length beyond the frame on the wire is corrupt: the full decoder drops it.
    if end > wire_len.max(frame.len()) {
        return None;
    }
    // The decoder reads the transport within the IP packet's own length.
    let h = frame.get(l4..end.min(frame.len()))?;
    let (sport, dport) = match proto {
        ip_proto::TCP => {
            let t = h.first_chunk::<20>()?;
            if t[12] >> 4 < 5 {
                return None;
            }
            (
                u16::from_be_bytes([t[0], t[1]]),
                u16::from_be_bytes([t[2], t[3]]),
            )
        }
        ip_proto::UDP => {
            let u = h.first_chunk::<8>()?;
            let (s, d) = (
                u16::from_be_bytes([u[0], u[1]]),
                u16::from_be_bytes([u[2], u[3]]),
            );
            // The decoder would look inside: the inner flow is the one that counts.
            if carries_tunnel(s, d) {
                return None;
            }
            (s, d)
        }
        _ => return None,
    };
    Some(FastFlow {
        addrs,
        proto,
        sport,
        dport,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{decode, DecodeConfig};
    use proptest::prelude::*;

    /// Whenever the fast path answers, the decoder keys the frame to the same end-points.
    fn agrees(frame: &[u8]) -> Result<(), TestCaseError> {
        let Some(ff) = fast_flow(LinkType::ETHERNET, frame, frame.len()) else {
            return Ok(());
        };
        let d = decode(LinkType::ETHERNET, frame, &DecodeConfig::default()).map_err(|e| {
            TestCaseError::fail(format!("fast path took a frame the decoder drops: {e:?}"))
        })?;
        prop_assert!(d.frag.is_none());
        prop_assert_eq!(d.proto, ff.proto);
        prop_assert_eq!((d.src_port, d.dst_port), (ff.sport, ff.dport));
        match ff.addrs {
            FastAddrs::V4(s, dst) => {
                prop_assert_eq!(d.ip_version, 4);
                prop_assert_eq!(&d.src[..4], &s[..]);
                prop_assert_eq!(&d.dst[..4], &dst[..]);
            }
            FastAddrs::V6(s, dst) => {
                prop_assert_eq!(d.ip_version, 6);
                prop_assert_eq!(&d.src, s);
                prop_assert_eq!(&d.dst, dst);
            }
        }
        Ok(())
    }

    /// An Ethernet + IPv4 + UDP frame to `dport` with 8 bytes of payload.
    fn udp4(dport: u16) -> Vec<u8> {
        let mut f = vec![0u8; 12];
        f.extend_from_slice(&[0x08, 0x00]);
        f.extend_from_slice(&[0x45, 0, 0, 36, 0, 1, 0, 0, 64, 17, 0, 0]);
        f.extend_from_slice(&[192, 0, 2, 1, 198, 51, 100, 2]);
        f.extend_from_slice(&40000u16.to_be_bytes());
        f.extend_from_slice(&dport.to_be_bytes());
        f.extend_from_slice(&[0, 16, 0, 0]);
        f.extend_from_slice(b"payload!");
        f
    }

    #[test]
    fn a_plain_datagram_is_read_and_a_tunnel_is_left_to_the_decoder() {
        let f = udp4(53);
        let ff = fast_flow(LinkType::ETHERNET, &f, f.len()).unwrap();
        assert_eq!(ff.addrs, FastAddrs::V4(&[192, 0, 2, 1], &[198, 51, 100, 2]));
        assert_eq!((ff.proto, ff.sport, ff.dport), (17, 40000, 53));
        agrees(&f).unwrap();
        for port in [
            crate::VXLAN_PORT,
            crate::GTPU_PORT,
            crate::CAPWAP_DATA_PORT,
            crate::GENEVE_PORT,
            crate::TEREDO_PORT,
            crate::AYIYA_PORT,
            crate::GRE_IN_UDP_PORT,
        ] {
            assert!(
                fast_flow(LinkType::ETHERNET, &udp4(port), 50).is_none(),
                "{port}"
            );
        }
        // Ports that open a tunnel from either side decline from the source side too.
        for port in [crate::TEREDO_PORT, crate::AYIYA_PORT, crate::GTPU_PORT] {
            let mut f = udp4(53);
            f[34..36].copy_from_slice(&port.to_be_bytes());
            assert!(
                fast_flow(LinkType::ETHERNET, &f, f.len()).is_none(),
                "{port}"
            );
        }
        // Tags and frames inside frames (802.1ah, VN-Tag, FabricPath): the decoder's.
        for et in [0x88e7u16, 0x8926, 0x8903] {
            let mut g = f.clone();
            g[12..14].copy_from_slice(&et.to_be_bytes());
            assert!(
                fast_flow(LinkType::ETHERNET, &g, g.len()).is_none(),
                "{et:#x}"
            );
        }
        // A VLAN tag, another link type, a cut frame: the decoder's.
        let mut tagged = f[..12].to_vec();
        tagged.extend_from_slice(&[0x81, 0x00, 0, 5]);
        tagged.extend_from_slice(&f[12..]);
        assert!(fast_flow(LinkType::ETHERNET, &tagged, tagged.len()).is_none());
        assert!(fast_flow(LinkType::RAW, &f[14..], f.len() - 14).is_none());
        assert!(fast_flow(LinkType::ETHERNET, &f[..30], 30).is_none());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]

        /// Arbitrary bytes after a plausible Ethernet + IP start: never a panic, and never an
        /// answer the decoder contradicts.
        #[test]
        fn never_contradicts_the_decoder(
            v6 in any::<bool>(),
            head in proptest::collection::vec(any::<u8>(), 0..80),
            proto in prop_oneof![Just(6u8), Just(17), any::<u8>()],
        ) {
            let mut f = vec![0u8; 12];
            if v6 {
                f.extend_from_slice(&[0x86, 0xdd, 0x60, 0, 0, 0]);
                let plen = head.len().saturating_sub(34) as u16;
                f.extend_from_slice(&plen.to_be_bytes());
                f.extend_from_slice(&[proto, 64]);
            } else {
                let total = (head.len() + 4) as u16;
                f.extend_from_slice(&[0x08, 0x00, 0x45, 0]);
                f.extend_from_slice(&total.to_be_bytes());
                f.extend_from_slice(&[0, 1, 0, 0, 64, proto]);
            }
            f.extend_from_slice(&head);
            agrees(&f)?;
        }

        /// Wholly arbitrary frames.
        #[test]
        fn arbitrary_frames(f in proptest::collection::vec(any::<u8>(), 0..200)) {
            agrees(&f)?;
        }
    }
}
