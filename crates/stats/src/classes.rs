//! Coarse traffic classes in the spirit of AtoZ / Li et al. (WEB, MAIL, BULK, …), from nDPI
//! master protocol names through a fixed table.
//!
//! Differences from Li et al.'s list: ATTACK and GRID are dropped (nDPI labels no flow as
//! either); NETWORK is added for the infrastructure protocols (ICMP, routing, discovery) that
//! a DPI-labelled corpus is full of and that none of the original classes fits.

/// A coarse class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Coarse {
    /// Web browsing and web APIs (HTTP, TLS, QUIC).
    Web,
    /// E-mail.
    Mail,
    /// Bulk transfer (FTP, file sharing protocols, backups).
    Bulk,
    /// Messaging.
    Chat,
    /// Peer-to-peer file sharing.
    P2p,
    /// Voice and video calls, and their NAT traversal.
    Voip,
    /// Streaming media.
    Multimedia,
    /// Games.
    Games,
    /// Network services (DNS, NTP, DHCP, directory, authentication, discovery).
    Services,
    /// Databases.
    Database,
    /// Remote terminals and desktops.
    Interactive,
    /// Network infrastructure: ICMP, routing, management.
    Network,
    /// Anything else.
    Unknown,
}

impl Coarse {
    /// The name written in records (`stats_class`).
    pub fn as_str(self) -> &'static str {
        match self {
            Coarse::Web => "WEB",
            Coarse::Mail => "MAIL",
            Coarse::Bulk => "BULK",
            Coarse::Chat => "CHAT",
            Coarse::P2p => "P2P",
            Coarse::Voip => "VOIP",
            Coarse::Multimedia => "MULTIMEDIA",
            Coarse::Games => "GAMES",
            Coarse::Services => "SERVICES",
            Coarse::Database => "DATABASE",
            Coarse::Interactive => "INTERACTIVE",
            Coarse::Network => "NETWORK",
            Coarse::Unknown => "UNKNOWN",
        }
    }
}

/// nDPI master protocol (lower case) → coarse class. Documented in docs/SCHEMA.md.
pub const MAPPING: &[(&str, Coarse)] = &[
    ("http", Coarse::Web),
    ("tls", Coarse::Web),
    ("quic", Coarse::Web),
    ("http_proxy", Coarse::Web),
    ("http_connect", Coarse::Web),
    ("doh_dot", Coarse::Services),
    ("smtp", Coarse::Mail),
    ("smtps", Coarse::Mail),
    ("pop3", Coarse::Mail),
    ("pop3s", Coarse::Mail),
    ("imap", Coarse::Mail),
    ("imaps", Coarse::Mail),
    ("ftp_control", Coarse::Bulk),
    ("ftp_data", Coarse::Bulk),
    ("ftps", Coarse::Bulk),
    ("tftp", Coarse::Bulk),
    ("smbv1", Coarse::Bulk),
    ("smbv23", Coarse::Bulk),
    ("nfs", Coarse::Bulk),
    ("rsync", Coarse::Bulk),
    ("afp", Coarse::Bulk),
    ("xmpp", Coarse::Chat),
    ("irc", Coarse::Chat),
    ("mqtt", Coarse::Chat),
    ("whatsapp", Coarse::Chat),
    ("telegram", Coarse::Chat),
    ("signal", Coarse::Chat),
    ("bittorrent", Coarse::P2p),
    ("gnutella", Coarse::P2p),
    ("edonkey", Coarse::P2p),
    ("soulseek", Coarse::P2p),
    ("ppstream", Coarse::P2p),
    ("sip", Coarse::Voip),
    ("rtp", Coarse::Voip),
    ("rtcp", Coarse::Voip),
    ("srtp", Coarse::Voip),
    ("stun", Coarse::Voip),
    ("skype_teams", Coarse::Voip),
    ("h323", Coarse::Voip),
    ("mgcp", Coarse::Voip),
    ("iax", Coarse::Voip),
    ("rtmp", Coarse::Multimedia),
    ("rtsp", Coarse::Multimedia),
    ("hls", Coarse::Multimedia),
    ("steam", Coarse::Games),
    ("halflife2", Coarse::Games),
    ("xbox", Coarse::Games),
    ("playstation", Coarse::Games),
    ("dns", Coarse::Services),
    ("mdns", Coarse::Services),
    ("llmnr", Coarse::Services),
    ("dnscrypt", Coarse::Services),
    ("avastsecuredns", Coarse::Services),
    ("ntp", Coarse::Services),
    ("dhcp", Coarse::Services),
    ("dhcpv6", Coarse::Services),
    ("ldap", Coarse::Services),
    ("kerberos", Coarse::Services),
    ("radius", Coarse::Services),
    ("ssdp", Coarse::Services),
    ("netbios", Coarse::Services),
    ("service_location_protocol", Coarse::Services),
    ("syslog", Coarse::Services),
    ("snmp", Coarse::Network),
    ("mysql", Coarse::Database),
    ("postgresql", Coarse::Database),
    ("mssql-tds", Coarse::Database),
    ("oracle", Coarse::Database),
    ("redis", Coarse::Database),
    ("mongodb", Coarse::Database),
    ("ssh", Coarse::Interactive),
    ("telnet", Coarse::Interactive),
    ("rdp", Coarse::Interactive),
    ("vnc", Coarse::Interactive),
    ("icmp", Coarse::Network),
    ("icmpv6", Coarse::Network),
    ("igmp", Coarse::Network),
    ("ospf", Coarse::Network),
    ("bgp", Coarse::Network),
    ("vrrp", Coarse::Network),
    ("gre", Coarse::Network),
    ("ipsec", Coarse::Network),
    ("cisco_vpn", Coarse::Network),
    ("openvpn", Coarse::Network),
    ("wireguard", Coarse::Network),
    ("lldp", Coarse::Network),
];

/// The coarse class of an nDPI master protocol name (any case); UNKNOWN when not in the table.
pub fn coarse(master: &str) -> Coarse {
    let m = master.split('.').next().unwrap_or("");
    MAPPING
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(m))
        .map(|e| e.1)
        .unwrap_or(Coarse::Unknown)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mapping_is_case_blind_and_has_no_duplicates() {
        assert_eq!(coarse("TLS"), Coarse::Web);
        assert_eq!(coarse("TLS.Google"), Coarse::Web);
        assert_eq!(coarse("Service_Location_Protocol"), Coarse::Services);
        assert_eq!(coarse("NoSuchProto"), Coarse::Unknown);
        let mut names: Vec<&str> = MAPPING.iter().map(|m| m.0).collect();
        names.sort();
        let n = names.len();
        names.dedup();
        assert_eq!(n, names.len());
    }
}
