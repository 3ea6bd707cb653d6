//! Transports that name their application by the IP protocol number alone (no ports).
//!
//! nDPI labels these from the protocol number as well (ICMP, IGMP, VRRP, IPsec, OSPF, PGM, …);
//! the names below are nDPI's, checked against the labels in ../shared/corpus/flows.csv.

use crate::port::PortEntry;

/// The application of a port-less transport, if the IP protocol number names one.
pub fn lookup(proto: u8) -> Option<PortEntry> {
    let (app, category) = match proto {
        1 => ("ICMP", "Network"),
        2 => ("IGMP", "Network"),
        47 => ("GRE", "Network"),
        50 | 51 => ("IPSec", "VPN"),
        58 => ("ICMPV6", "Network"),
        89 => ("OSPF", "Network"),
        112 => ("VRRP", "Network"),
        113 => ("PGM", "Network"),
        _ => return None,
    };
    Some(PortEntry { app, category })
}
