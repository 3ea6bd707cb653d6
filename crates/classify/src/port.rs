//! Well-known-port table: the last-resort classifier (`method: "port"`).
//!
//! A port is only a convention — any application can use any port — so a verdict from this table
//! has the lowest rank and a low confidence. Names and categories are nDPI's (its protocol
//! defaults in `src/lib/ndpi_main.c`, checked for spelling against the labels nDPI prints in
//! ../shared/corpus/flows.csv), and the ports are those IANA registers or nDPI declares as the
//! protocol's default. Where two protocols share a port, the one nDPI guesses first is kept.
//! Lookup is a binary search in a sorted static array: no allocation, ~8 comparisons.

/// One entry of the port table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PortEntry {
    /// nDPI master-protocol name, e.g. "HTTP", "TLS", "DNS".
    pub app: &'static str,
    /// nDPI category name, e.g. "Web", "Network", "Email".
    pub category: &'static str,
}

const fn e(port: u16, app: &'static str, category: &'static str) -> (u16, PortEntry) {
    (port, PortEntry { app, category })
}

/// TCP ports, sorted.
static TCP: &[(u16, PortEntry)] = &[
    e(20, "FTP_DATA", "Download"),
    e(21, "FTP_CONTROL", "Download"),
    e(22, "SSH", "RemoteAccess"),
    e(23, "Telnet", "RemoteAccess"),
    e(25, "SMTP", "Email"),
    e(43, "Whois-DAS", "Network"),
    e(53, "DNS", "Network"),
    e(80, "HTTP", "Web"),
    e(88, "Kerberos", "Network"),
    e(102, "S7Comm", "IoT-Scada"),
    e(110, "POP3", "Email"),
    e(119, "Usenet", "Web"),
    e(135, "DCERPC", "RPC"),
    e(139, "NetBIOS", "System"),
    e(143, "IMAP", "Email"),
    e(179, "BGP", "Network"),
    e(389, "LDAP", "System"),
    e(427, "Service_Location_Protocol", "RPC"),
    e(443, "TLS", "Web"),
    e(445, "SMBv23", "System"),
    e(465, "SMTPS", "Email"),
    e(502, "Modbus", "IoT-Scada"),
    e(548, "AFP", "DataTransfer"),
    e(554, "RTSP", "Media"),
    e(587, "SMTP", "Email"),
    e(631, "IPP", "System"),
    e(646, "LDP", "Network"),
    e(853, "DoH_DoT", "Network"),
    e(873, "RSYNC", "DataTransfer"),
    e(993, "IMAPS", "Email"),
    e(995, "POPS", "Email"),
    e(1080, "SOCKS", "Web"),
    e(1194, "OpenVPN", "VPN"),
    e(1433, "MsSQL-TDS", "Database"),
    e(1521, "Oracle", "Database"),
    e(1723, "PPTP", "VPN"),
    e(1883, "MQTT", "RPC"),
    e(1935, "RTMP", "Media"),
    e(2049, "NFS", "DataTransfer"),
    e(2404, "IEC60870", "IoT-Scada"),
    e(3128, "HTTP_Proxy", "Web"),
    e(3260, "iSCSI", "DataTransfer"),
    e(3306, "MySQL", "Database"),
    e(3389, "RDP", "RemoteAccess"),
    e(3868, "Diameter", "Network"),
    e(4840, "OPC-UA", "IoT-Scada"),
    e(5060, "SIP", "VoIP"),
    e(5061, "SIP", "VoIP"),
    e(5222, "Jabber", "Web"),
    e(5432, "PostgreSQL", "Database"),
    e(5672, "AMQP", "RPC"),
    e(5900, "VNC", "RemoteAccess"),
    e(5938, "TeamViewer", "RemoteAccess"),
    e(6379, "RESP", "Database"),
    e(6667, "IRC", "Chat"),
    e(6881, "BitTorrent", "Download"),
    e(8080, "HTTP_Proxy", "Web"),
    e(9042, "Cassandra", "Database"),
    e(9092, "Kafka", "RPC"),
    e(9200, "Elasticsearch", "System"),
    e(9418, "Git", "Collaborative"),
    e(10050, "Zabbix", "Network"),
    e(11211, "Memcached", "Network"),
    e(20000, "DNP3", "IoT-Scada"),
    e(27017, "MongoDB", "Database"),
    e(44818, "EthernetIP", "Network"),
];

/// UDP ports, sorted.
static UDP: &[(u16, PortEntry)] = &[
    e(53, "DNS", "Network"),
    e(67, "DHCP", "Network"),
    e(68, "DHCP", "Network"),
    e(69, "TFTP", "DataTransfer"),
    e(88, "Kerberos", "Network"),
    e(123, "NTP", "System"),
    e(137, "NetBIOS", "System"),
    e(138, "NetBIOS", "System"),
    e(161, "SNMP", "Network"),
    e(162, "SNMP", "Network"),
    e(177, "XDMCP", "RemoteAccess"),
    e(427, "Service_Location_Protocol", "RPC"),
    e(443, "QUIC", "Web"),
    e(500, "IPSec", "VPN"),
    e(514, "Syslog", "System"),
    e(520, "RIP", "Network"),
    e(546, "DHCPV6", "Network"),
    e(547, "DHCPV6", "Network"),
    e(623, "RMCP", "System"),
    e(1194, "OpenVPN", "VPN"),
    e(1701, "L2TP", "VPN"),
    e(1812, "Radius", "Network"),
    e(1813, "Radius", "Network"),
    e(1900, "SSDP", "System"),
    e(1985, "HSRP", "Network"),
    e(2055, "NetFlow", "Network"),
    e(2123, "GTP", "Network"),
    e(2152, "GTP", "Network"),
    e(3478, "STUN", "Network"),
    e(3544, "Teredo", "Network"),
    e(3702, "WSD", "Network"),
    e(4500, "IPSec", "VPN"),
    e(4789, "VXLAN", "Network"),
    e(5060, "SIP", "VoIP"),
    e(5351, "NAT-PMP", "Network"),
    e(5353, "MDNS", "Network"),
    e(5355, "LLMNR", "Network"),
    e(5683, "CoAP", "IoT-Scada"),
    e(6343, "sFlow", "Network"),
    e(6881, "BitTorrent", "Download"),
    e(8612, "BJNP", "System"),
    e(10001, "UBNTAC2", "Network"),
    e(11211, "Memcached", "Network"),
    e(17500, "Dropbox", "Cloud"),
    e(25826, "collectd", "System"),
    e(47808, "BACnet", "IoT-Scada"),
    e(51820, "WireGuard", "VPN"),
];

/// SCTP ports, sorted.
static SCTP: &[(u16, PortEntry)] = &[e(2905, "M3UA", "Network"), e(3868, "Diameter", "Network")];

/// Look up the application conventionally served on `port` for transport `proto` (6 TCP, 17 UDP,
/// 132 SCTP).
pub fn lookup(proto: u8, port: u16) -> Option<PortEntry> {
    let table = match proto {
        6 => TCP,
        17 => UDP,
        132 => SCTP,
        _ => return None,
    };
    table
        .binary_search_by_key(&port, |(p, _)| *p)
        .ok()
        .map(|i| table[i].1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// nDPI's category names (ndpi_category_get_name), for the spelling check below.
    const CATEGORIES: &[&str] = &[
        "Unspecified",
        "Media",
        "VPN",
        "Email",
        "DataTransfer",
        "Web",
        "SocialNetwork",
        "Download",
        "Game",
        "Chat",
        "VoIP",
        "Database",
        "RemoteAccess",
        "Cloud",
        "Network",
        "Collaborative",
        "RPC",
        "Streaming",
        "System",
        "SoftwareUpdate",
        "Music",
        "Video",
        "Shopping",
        "Productivity",
        "FileSharing",
        "ConnCheck",
        "IoT-Scada",
        "VirtAssistant",
        "Cybersecurity",
        "AdultContent",
        "Mining",
        "Malware",
        "Advertisement",
        "Banned_Site",
        "Site_Unavailable",
        "Allowed_Site",
        "Antimalware",
        "Crypto_Currency",
        "Gambling",
    ];

    #[test]
    fn tables_sorted_without_duplicates() {
        for t in [TCP, UDP, SCTP] {
            for w in t.windows(2) {
                assert!(w[0].0 < w[1].0, "{} then {}", w[0].0, w[1].0);
            }
        }
    }

    #[test]
    fn categories_are_ndpi_names() {
        for t in [TCP, UDP, SCTP] {
            for (p, e) in t {
                assert!(CATEGORIES.contains(&e.category), "{p}: {}", e.category);
            }
        }
    }

    #[test]
    fn well_known_ports() {
        // IANA assignments (and nDPI's defaults for the same protocols).
        let cases = [
            (6, 80, "HTTP"),
            (6, 443, "TLS"),
            (17, 443, "QUIC"),
            (17, 53, "DNS"),
            (6, 53, "DNS"),
            (6, 22, "SSH"),
            (17, 123, "NTP"),
            (17, 5353, "MDNS"),
            (132, 3868, "Diameter"),
        ];
        for (proto, port, app) in cases {
            assert_eq!(
                lookup(proto, port).map(|e| e.app),
                Some(app),
                "{proto}/{port}"
            );
        }
        assert_eq!(lookup(6, 1), None);
        assert_eq!(lookup(17, 65535), None);
        assert_eq!(lookup(1, 80), None, "ICMP has no ports");
    }
}
