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

/// The application of a port-less transport, if the IP protocol number names one.
pub fn lookup(proto: u8) -> Option<&'static Label> {
    Some(match proto {
        1 => &ICMP,
        2 => &IGMP,
        47 => &GRE,
        50 | 51 => &IPSEC,
        58 => &ICMPV6,
        89 => &OSPF,
        112 => &VRRP,
        113 => &PGM,
        _ => return None,
    })
}
