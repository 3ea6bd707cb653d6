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
/// Protocol Independent Multicast (RFC 7761), IP protocol 103: nDPI's `IP_PIM` (its protocol
/// list's `NDPI_PROTOCOL_IP_PIM`, printed `IP_PIM`, category Network).
static PIM: Label = l("IP_PIM", "Network");
/// IP in IP encapsulation (RFC 2003), IP protocol 4: nDPI's `IP_in_IP` (`NDPI_IPIP_PROTOCOL_TYPE`
/// in `ndpi_guess_protocol_id()`, src/lib/ndpi_main.c; `ndpiReader -h` 4.2: "86 IP_in_IP ...
/// Network").
static IP_IN_IP: Label = l("IP_in_IP", "Network");
/// Exterior Gateway Protocol (RFC 904), IP protocol 8: nDPI's `EGP` (same sources, id 83).
static EGP: Label = l("EGP", "Network");
/// SCTP (RFC 9260), IP protocol 132, when its port names nothing: nDPI's `SCTP` (same sources,
/// id 84). nDPI names no IPv6-in-IPv4 (41) flow, so neither does this table.
static SCTP: Label = l("SCTP", "Network");

/// The application of a port-less transport, if the IP protocol number names one.
pub fn lookup(proto: u8) -> Option<&'static Label> {
    Some(match proto {
        1 => &ICMP,
        2 => &IGMP,
        4 => &IP_IN_IP,
        8 => &EGP,
        47 => &GRE,
        50 | 51 => &IPSEC,
        58 => &ICMPV6,
        89 => &OSPF,
        103 => &PIM,
        112 => &VRRP,
        113 => &PGM,
        132 => &SCTP,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::lookup;

    #[test]
    fn pim_is_named_as_ndpi_does() {
        // IANA assigns 103 to PIM; nDPI's protocol list names it NDPI_PROTOCOL_IP_PIM, printed
        // IP_PIM in the Network category.
        let l = lookup(103).expect("PIM");
        assert_eq!(
            (l.master, l.app, l.category),
            ("IP_PIM", "IP_PIM", "Network")
        );
        // 102 (PNNI) and 104 (ARIS) stay unnamed.
        assert!(lookup(102).is_none() && lookup(104).is_none());
    }

    #[test]
    fn tunnels_egp_and_sctp_are_named_as_ndpi_does() {
        // ndpi_guess_protocol_id() (src/lib/ndpi_main.c) maps IPPROTO_IPIP (4), EGP (8) and
        // SCTP (132) to IP_in_IP, EGP and SCTP, all "Network" (ndpiReader -h); IANA assigns the
        // numbers. 41 (IPv6 in IPv4) has no case there and stays unnamed.
        for (p, name) in [(4, "IP_in_IP"), (8, "EGP"), (132, "SCTP")] {
            let l = lookup(p).expect(name);
            assert_eq!((l.master, l.app, l.category), (name, name, "Network"));
        }
        assert!(lookup(41).is_none() && lookup(3).is_none() && lookup(9).is_none());
    }
}
