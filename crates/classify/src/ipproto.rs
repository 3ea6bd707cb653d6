//! Transports that name their application by the IP protocol number alone (no ports).
//!
//! nDPI labels these from the protocol number as well (ICMP, IGMP, VRRP, IPsec, OSPF, PGM, …);
//! the names below are nDPI's, checked against the labels in ../shared/corpus/flows.csv.

use crate::Label;

const fn l(app: &'static str, category: &'static str) -> Label {
    Label {
        app,
        master: app,
        category,
    }
}

static ICMP: Label = l("ICMP", "Network");
static IGMP: Label = l("IGMP", "Network");
static GRE: Label = l("GRE", "Network");
static IPSEC: Label = l("IPSec", "VPN");
static ICMPV6: Label = l("ICMPV6", "Network");
static OSPF: Label = l("OSPF", "Network");
static VRRP: Label = l("VRRP", "Network");
static PGM: Label = l("PGM", "Network");
/// Protocol Independent Multicast (RFC 7761), IP protocol 103: nDPI's `IP_PIM` (pim.pcap.out).
static PIM: Label = l("IP_PIM", "Network");

/// The application of a port-less transport, if the IP protocol number names one.
pub fn lookup(proto: u8) -> Option<&'static Label> {
    Some(match proto {
        1 => &ICMP,
        2 => &IGMP,
        47 => &GRE,
        50 | 51 => &IPSEC,
        58 => &ICMPV6,
        89 => &OSPF,
        103 => &PIM,
        112 => &VRRP,
        113 => &PGM,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::lookup;

    #[test]
    fn pim_is_named_as_ndpi_does() {
        // pim.pcap.out: "PIM 192.168.203.234:0 -> 224.0.0.13:0 [proto: 297/IP_PIM]
        // [cat: Network/14]"; IANA assigns 103 to PIM.
        let l = lookup(103).expect("PIM");
        assert_eq!(
            (l.master, l.app, l.category),
            ("IP_PIM", "IP_PIM", "Network")
        );
        // 102 (PNNI) and 104 (ARIS) stay unnamed.
        assert!(lookup(102).is_none() && lookup(104).is_none());
    }
}
