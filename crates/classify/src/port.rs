//! Well-known-port table: the application conventionally served on a TCP, UDP or SCTP port.
//!
//! This is the weakest classifier (method `"port"`, lowest rank and confidence, see
//! [`crate::PORT_CONFIDENCE`]): any application can listen on any port, so a hit here is only a
//! guess, to be overridden by every other method.
//!
//! # Sources
//!
//! * nDPI's own defaults. `ndpi_init_protocol_defaults()` in nDPI's `src/lib/ndpi_main.c`
//!   calls `ndpi_set_proto_defaults(..., name, category, ndpi_build_default_ports(.. TCP ..),
//!   ndpi_build_default_ports(.. UDP ..))` for every protocol; those are the ports nDPI itself
//!   guesses from (`ndpi_guess_protocol_id`). Entries without a comment come from there (read
//!   in the 2021 and 2022/4.x versions of the file; the names follow the later one).
//! * IANA's service-name and port registry, for protocols nDPI names but gives no default port
//!   (SSDP 1900, DHCPv6 546/547, NNTP 119, XMPP 5222, ...). These carry a comment saying so.
//!
//! Names and categories are nDPI's spelling as `ndpiReader` prints them (master protocol, e.g.
//! "TLS", "SMBv23"; category, e.g. "RemoteAccess", "IoT-Scada"). nDPI category enums map to
//! names as: `DOWNLOAD_FT` "Download", `DATA_TRANSFER` "DataTransfer", `SYSTEM_OS` "System",
//! `REMOTE_ACCESS` "RemoteAccess", `MAIL` "Email", `IOT_SCADA` "IoT-Scada".
//!
//! # Shared ports
//!
//! nDPI keeps one protocol per port and transport: when a second protocol declares a port
//! already taken, `addDefaultPort` overwrites the first, so the protocol declared *later* in
//! `ndpi_init_protocol_defaults()` is the one nDPI guesses. Where that happens the entry says so
//! (TCP 445 SMBv23 over SMBv1, TCP 8080 HTTP_Proxy over HTTP_Connect, TCP 8009 AJP over
//! CiscoVPN). The same port on different transports may name different protocols (TCP 443 TLS,
//! UDP 443 QUIC; TCP 6667 IRC, UDP 6667 TuyaLP).
//!
//! # Layout
//!
//! One static slice per transport, sorted by port with no duplicates (checked by a test), and a
//! binary search: no allocation, ~7 comparisons per lookup.

use crate::labels::{LabelError, LabelId, Labels};

/// One entry of the port table: a [`Label`](crate::Label) whose master is the application.
pub type PortEntry = crate::Label;

/// nDPI category names that may appear in the port table (a subset of nDPI's
/// `ndpi_category_get_name` vocabulary).
pub const CATEGORIES: &[&str] = &[
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
    "VirtualAssistant",
    "Cybersecurity",
    "AdultContent",
    "Mining",
    "Malware",
    "Advertisement",
    "Crypto_Currency",
];

const fn e(app: &'static str, category: &'static str) -> PortEntry {
    PortEntry {
        app,
        master: app,
        category,
    }
}

/// TCP (IP protocol 6), sorted by port.
static TCP: &[(u16, PortEntry)] = &[
    (20, e("FTP_DATA", "Download")),
    (21, e("FTP_CONTROL", "Download")),
    (22, e("SSH", "RemoteAccess")),
    (23, e("Telnet", "RemoteAccess")),
    (25, e("SMTP", "Email")),
    (43, e("Whois-DAS", "Network")),
    (53, e("DNS", "Network")),
    (80, e("HTTP", "Web")),
    (88, e("Kerberos", "Network")),
    (102, e("S7Comm", "IoT-Scada")), // 4.x source: "s7comm"/Network; current nDPI spelling and category
    (110, e("POP3", "Email")),
    (119, e("Usenet", "Web")), // IANA nntp; nDPI's NNTP dissector labels Usenet
    (135, e("DCERPC", "RPC")), // 4.x source: "RPC" (earlier "DCE_RPC"); current nDPI spelling
    (139, e("NetBIOS", "System")),
    (143, e("IMAP", "Email")),
    (177, e("XDMCP", "RemoteAccess")),
    (179, e("BGP", "Network")),
    (194, e("IRC", "Chat")),
    (210, e("Z3950", "Network")),
    (389, e("LDAP", "System")),
    (427, e("Service_Location_Protocol", "RPC")),
    (443, e("TLS", "Web")),
    (445, e("SMBv23", "System")), // SMBv1 also declares 445; SMBv23 is declared later and wins
    (465, e("SMTPS", "Email")),
    (500, e("IPSec", "VPN")),
    (502, e("Modbus", "IoT-Scada")),
    (514, e("Syslog", "System")), // RSH's 514 was dropped by nDPI in favour of Syslog
    (548, e("AFP", "DataTransfer")),
    (554, e("RTSP", "Media")),
    (587, e("SMTPS", "Email")),
    (601, e("Syslog", "System")),
    (631, e("IPP", "System")), // IANA; nDPI declares no default port for it
    (646, e("LDP", "Network")), // IANA; nDPI declares no default port for it
    (655, e("TINC", "VPN")),
    (853, e("DoH_DoT", "Network")),
    (854, e("DLEP", "Network")), // IANA; nDPI declares no default port for it
    (873, e("RSYNC", "DataTransfer")),
    (903, e("VMware", "RemoteAccess")),
    (993, e("IMAPS", "Email")),
    (995, e("POPS", "Email")),
    (1080, e("SOCKS", "Web")),
    (1099, e("JRMI", "RPC")), // IANA rmiregistry
    (1119, e("Starcraft", "Game")),
    (1153, e("ANSI_C1222", "IoT-Scada")), // IANA; nDPI declares no default port for it
    (1194, e("OpenVPN", "VPN")),
    (1352, e("LotusNotes", "Collaborative")),
    (1433, e("MsSQL-TDS", "Database")),
    (1434, e("MsSQL-TDS", "Database")),
    (1494, e("Citrix", "Network")),
    (1521, e("Oracle", "Database")),
    (1719, e("H323", "VoIP")),
    (1720, e("H323", "VoIP")),
    (1723, e("PPTP", "VPN")), // IANA; nDPI declares no default port for it
    (1812, e("Radius", "Network")),
    (1813, e("Radius", "Network")),
    (1883, e("MQTT", "RPC")),
    (1935, e("RTMP", "Media")),
    (2000, e("CiscoSkinny", "VoIP")),
    (2049, e("NFS", "DataTransfer")),
    (2190, e("TiVoConnect", "Network")),
    (2404, e("IEC60870", "IoT-Scada")),
    (2598, e("Citrix", "Network")),
    (2604, e("OSPF", "Network")),
    (2605, e("BGP", "Network")),
    (3128, e("HTTP_Proxy", "Web")),
    (3201, e("SAP", "Network")),
    (3306, e("MySQL", "Database")),
    (3389, e("RDP", "RemoteAccess")),
    (3478, e("STUN", "Network")), // IANA stun (TCP); nDPI declares STUN's 3478 for UDP
    (3868, e("Diameter", "Network")),
    (4000, e("NoMachine", "RemoteAccess")), // nDPI default (synscan.pcap: Match by port)
    (4244, e("Viber", "VoIP")),
    (4343, e("Whois-DAS", "Network")),
    (4569, e("IAX", "VoIP")),
    (4899, e("Radmin", "RemoteAccess")), // IANA radmin-port
    (4949, e("Munin", "System")),
    (5001, e("TargusDataspeed", "Network")),
    (5060, e("SIP", "VoIP")),
    (5061, e("SIP", "VoIP")),
    (5094, e("HART-IP", "IoT-Scada")), // IANA; nDPI declares no default port for it
    (5201, e("TargusDataspeed", "Network")),
    (5222, e("Jabber", "Web")), // IANA xmpp-client
    (5242, e("Viber", "VoIP")),
    (5243, e("Viber", "VoIP")),
    (5269, e("Jabber", "Web")), // IANA xmpp-server
    (5355, e("LLMNR", "Network")),
    (5432, e("PostgreSQL", "Database")),
    (5672, e("AMQP", "RPC")), // IANA; nDPI declares no default port for it
    (5800, e("VNC", "RemoteAccess")),
    (5900, e("VNC", "RemoteAccess")),
    (5901, e("VNC", "RemoteAccess")),
    (5938, e("TeamViewer", "RemoteAccess")),
    (6379, e("Redis", "Database")),
    (6514, e("Syslog", "System")),
    (6556, e("CHECKMK", "DataTransfer")),
    (6667, e("IRC", "Chat")), // IANA ircu; nDPI declares IRC on 194 only
    (7000, e("Cassandra", "Database")), // nDPI default (synscan.pcap: Match by port)
    (7985, e("Viber", "VoIP")),
    (8008, e("CiscoVPN", "VPN")),
    (8009, e("AJP", "Web")), // CiscoVPN also declares 8009; AJP is declared later and wins
    (8010, e("AJP", "Web")),
    (8013, e("FortiClient", "VPN")),
    (8014, e("FortiClient", "VPN")),
    (8080, e("HTTP_Proxy", "Web")), // HTTP_Connect also declares 8080; HTTP_Proxy is declared later and wins
    (8333, e("BITCOIN", "Crypto_Currency")), // older nDPI gave 8333 to Mining; newer ones to BITCOIN
    (8883, e("MQTT", "RPC")),
    (9042, e("Cassandra", "Database")),
    (9418, e("Git", "Collaborative")),
    (9999, e("TPLINK_SHP", "IoT-Scada")),
    (10000, e("CiscoVPN", "VPN")),
    (10050, e("Zabbix", "Network")),
    (10051, e("Zabbix", "Network")),
    (11095, e("NestLogSink", "Cloud")),
    (11211, e("Memcached", "Network")),
    (20000, e("DNP3", "IoT-Scada")),
    (27017, e("MongoDB", "Database")),
    (30303, e("ETHEREUM", "Crypto_Currency")), // older nDPI gave 30303 to Mining
    (30491, e("SOMEIP", "RPC")),
    (30501, e("SOMEIP", "RPC")),
    (44818, e("EthernetIP", "Network")),
    (51413, e("BitTorrent", "Download")),
    (53646, e("BitTorrent", "Download")),
];

/// UDP (IP protocol 17), sorted by port.
static UDP: &[(u16, PortEntry)] = &[
    (53, e("DNS", "Network")),
    (67, e("DHCP", "Network")),
    (68, e("DHCP", "Network")),
    (69, e("TFTP", "DataTransfer")),
    (88, e("Kerberos", "Network")),
    (123, e("NTP", "System")),
    (137, e("NetBIOS", "System")),
    (138, e("NetBIOS", "System")),
    (139, e("NetBIOS", "System")),
    (161, e("SNMP", "Network")),
    (162, e("SNMP", "Network")),
    (177, e("XDMCP", "RemoteAccess")),
    (194, e("IRC", "Chat")),
    (319, e("PTPv2", "System")), // IANA ptp-event
    (320, e("PTPv2", "System")), // IANA ptp-general
    (389, e("LDAP", "System")),
    (427, e("Service_Location_Protocol", "RPC")),
    (443, e("QUIC", "Web")),
    (500, e("IPSec", "VPN")),
    (514, e("Syslog", "System")),
    (546, e("DHCPV6", "Network")), // IANA; nDPI declares no default port for it
    (547, e("DHCPV6", "Network")), // IANA; nDPI declares no default port for it
    (548, e("AFP", "DataTransfer")),
    (554, e("RTSP", "Media")),
    (623, e("RMCP", "System")), // IANA asf-rmcp
    (646, e("LDP", "Network")), // IANA; nDPI declares no default port for it
    (655, e("TINC", "VPN")),
    (784, e("DoH_DoT", "Network")),
    (853, e("DoH_DoT", "Network")),
    (854, e("DLEP", "Network")), // IANA; nDPI declares no default port for it
    (902, e("VMware", "RemoteAccess")),
    (903, e("VMware", "RemoteAccess")),
    (1080, e("SOCKS", "Web")),
    (1119, e("Starcraft", "Game")),
    (1153, e("ANSI_C1222", "IoT-Scada")), // IANA; nDPI declares no default port for it
    (1194, e("OpenVPN", "VPN")),
    (1719, e("H323", "VoIP")),
    (1720, e("H323", "VoIP")),
    (1812, e("Radius", "Network")),
    (1813, e("Radius", "Network")),
    (1900, e("SSDP", "System")), // IANA; nDPI declares no default port for it
    (1985, e("HSRP", "Network")),
    (2049, e("NFS", "DataTransfer")),
    (2055, e("NetFlow", "Network")),
    (2123, e("GTP", "Network")),
    (2152, e("GTP", "Network")),
    (2190, e("TiVoConnect", "Network")),
    (2427, e("MGCP", "VoIP")), // IANA mgcp-gateway
    (2727, e("MGCP", "VoIP")), // IANA mgcp-callagent
    (2944, e("Megaco", "VoIP")),
    (3074, e("Xbox", "Game")), // IANA xbox
    (3389, e("RDP", "RemoteAccess")),
    (3478, e("STUN", "Network")),
    (3544, e("Teredo", "Network")), // IANA; nDPI declares no default port for it
    (3702, e("WSD", "Network")),
    (3784, e("BFD", "Network")), // IANA bfd-control
    (3785, e("BFD", "Network")), // IANA bfd-echo
    (4244, e("Viber", "VoIP")),
    (4341, e("LISP", "Cloud")),
    (4342, e("LISP", "Cloud")),
    (4500, e("IPSec", "VPN")),
    (4569, e("IAX", "VoIP")),
    (4789, e("VXLAN", "Network")),
    (5001, e("TargusDataspeed", "Network")),
    (5055, e("TocaBoca", "Game")),
    (5060, e("SIP", "VoIP")),
    (5061, e("SIP", "VoIP")),
    (5072, e("Ayiya", "Network")),
    (5094, e("HART-IP", "IoT-Scada")), // IANA; nDPI declares no default port for it
    (5201, e("TargusDataspeed", "Network")),
    (5242, e("Viber", "VoIP")),
    (5243, e("Viber", "VoIP")),
    (5246, e("CAPWAP", "Network")),
    (5247, e("CAPWAP", "Network")),
    (5351, e("NAT-PMP", "Network")),
    (5353, e("MDNS", "Network")),
    (5354, e("MDNS", "Network")),
    (5355, e("LLMNR", "Network")),
    (5683, e("COAP", "RPC")),
    (5684, e("COAP", "RPC")),
    (5938, e("TeamViewer", "RemoteAccess")),
    (6000, e("EAQ", "Network")),
    (6343, e("sFlow", "Network")),
    (6667, e("TuyaLP", "IoT-Scada")),
    (6771, e("BitTorrent", "Download")),
    (7985, e("Viber", "VoIP")),
    (7987, e("Viber", "VoIP")),
    (8000, e("OICQ", "Chat")),
    (8116, e("CPHA", "Network")),
    (8612, e("BJNP", "System")),
    (9999, e("TPLINK_SHP", "IoT-Scada")),
    (10000, e("CiscoVPN", "VPN")),
    (10001, e("UBNTAC2", "Network")),
    (11211, e("Memcached", "Network")),
    (17500, e("Dropbox", "Cloud")),
    (22023, e("AmongUs", "Game")),
    (22102, e("GenshinImpact", "Game")),
    (25826, e("collectd", "System")),
    (27015, e("Source_Engine", "Game")),
    (30490, e("SOMEIP", "RPC")),
    (30491, e("SOMEIP", "RPC")),
    (30501, e("SOMEIP", "RPC")),
    (41641, e("Tailscale", "VPN")),
    (47808, e("BACnet", "IoT-Scada")),
    (51413, e("BitTorrent", "Download")),
    (51820, e("WireGuard", "VPN")),
    (58267, e("VHUA", "VoIP")),
];

/// SCTP (IP protocol 132), sorted by port. IANA registrations of protocols nDPI names.
static SCTP: &[(u16, PortEntry)] = &[
    (80, e("HTTP", "Web")),           // IANA http (SCTP)
    (179, e("BGP", "Network")),       // IANA bgp (SCTP)
    (443, e("TLS", "Web")),           // IANA https (SCTP)
    (2049, e("NFS", "DataTransfer")), // IANA nfs (SCTP)
    (3868, e("Diameter", "Network")), // nDPI declares 3868 for TCP; IANA lists SCTP too
    (5060, e("SIP", "VoIP")),         // IANA sip (SCTP)
    (5061, e("SIP", "VoIP")),         // IANA sips (SCTP)
];

/// Look up the application conventionally served on `port` for transport `proto` (6 TCP, 17 UDP,
/// 132 SCTP).
pub fn lookup(proto: u8, port: u16) -> Option<&'static PortEntry> {
    let table = table(proto)?;
    table
        .binary_search_by_key(&port, |&(p, _)| p)
        .ok()
        .map(|i| &table[i].1)
}

/// The port table of a run, as label ids: the static tables above (and the IP protocol numbers
/// of [`crate::ipproto`]) interned into the run's [`Labels`] once at start. A lookup is the same
/// binary search as [`lookup`], over 4-byte entries.
#[derive(Clone, Debug)]
pub struct PortTable {
    tcp: Box<[(u16, LabelId)]>,
    udp: Box<[(u16, LabelId)]>,
    sctp: Box<[(u16, LabelId)]>,
    ipproto: Box<[Option<LabelId>]>,
    /// The three tables by port number, TCP's, UDP's and SCTP's 65,536 entries one after the
    /// other ([`LabelId::UNKNOWN`]: none): a flow's lookups are one load each, where a binary
    /// search over a table's ~120 entries took ~50 instructions and unpredictable branches
    /// (384 KiB of label ids, zeroed by the allocator: 0 is [`LabelId::UNKNOWN`]).
    by_port: Box<[u16]>,
}

/// Entries of [`PortTable::by_port`] per transport.
const PORTS: usize = 1 << 16;

impl PortTable {
    /// The built-in tables, their labels interned into `labels`.
    pub fn builtin(labels: &mut Labels) -> Result<Self, LabelError> {
        let mut ids = |t: &[(u16, PortEntry)]| -> Result<Box<[(u16, LabelId)]>, LabelError> {
            t.iter()
                .map(|(p, e)| Ok((*p, labels.intern_label(e)?)))
                .collect()
        };
        let (tcp, udp, sctp) = (ids(TCP)?, ids(UDP)?, ids(SCTP)?);
        let ipproto = (0..=255u8)
            .map(|p| {
                crate::ipproto::lookup(p)
                    .map(|l| labels.intern_label(l))
                    .transpose()
            })
            .collect::<Result<_, _>>()?;
        let mut t = PortTable {
            tcp,
            udp,
            sctp,
            ipproto,
            by_port: Box::default(),
        };
        t.index();
        Ok(t)
    }

    /// Write [`PortTable::by_port`] from the sorted tables.
    fn index(&mut self) {
        let mut by_port = vec![LabelId::UNKNOWN.0; 3 * PORTS].into_boxed_slice();
        for (k, t) in [&self.tcp, &self.udp, &self.sctp].into_iter().enumerate() {
            for &(p, l) in t.iter() {
                if let Some(slot) = by_port.get_mut(k * PORTS + usize::from(p)) {
                    *slot = l.0;
                }
            }
        }
        self.by_port = by_port;
    }

    /// An operator's port rules (nDPI's `protos.txt` `tcp:`/`udp:` lines): every port of each
    /// range on its transport (6 or 17) names `label`, replacing the built-in entry; later rules
    /// replace earlier ones. Each table stays one entry a port at most.
    pub fn extend(&mut self, rules: impl IntoIterator<Item = (u8, u16, u16, LabelId)>) {
        use std::collections::BTreeMap;
        let mut tcp: BTreeMap<u16, LabelId> = self.tcp.iter().copied().collect();
        let mut udp: BTreeMap<u16, LabelId> = self.udp.iter().copied().collect();
        for (proto, low, high, label) in rules {
            let t = match proto {
                6 => &mut tcp,
                17 => &mut udp,
                _ => continue,
            };
            for p in low..=high.max(low) {
                t.insert(p, label);
            }
        }
        self.tcp = tcp.into_iter().collect();
        self.udp = udp.into_iter().collect();
        self.index();
    }

    /// Every port entry, in transport then port order: (`tcp`, `udp` or `sctp`, port, label).
    pub fn entries(&self) -> impl Iterator<Item = (&'static str, u16, LabelId)> + '_ {
        [("tcp", &self.tcp), ("udp", &self.udp), ("sctp", &self.sctp)]
            .into_iter()
            .flat_map(|(name, t)| t.iter().map(move |&(p, l)| (name, p, l)))
    }

    /// The label conventionally served on `port` for transport `proto` (6, 17, 132).
    #[inline]
    pub fn port(&self, proto: u8, port: u16) -> Option<LabelId> {
        let k = match proto {
            6 => 0,
            17 => 1,
            132 => 2,
            _ => return None,
        };
        self.by_port
            .get(k * PORTS + usize::from(port))
            .map(|&l| LabelId(l))
            .filter(|&l| l != LabelId::UNKNOWN)
    }

    /// The label of a flow's first packet by its ports: the server port first, then the
    /// client's (a reply seen before its request); for transports without ports, the IP protocol
    /// number.
    #[inline]
    pub fn flow(&self, proto: u8, server_port: u16, client_port: u16) -> Option<LabelId> {
        match proto {
            // An SCTP association whose ports name nothing is nDPI's `SCTP` (the IP protocol).
            6 | 17 | 132 => self
                .port(proto, server_port)
                .or_else(|| self.port(proto, client_port))
                .or_else(|| self.ipproto.get(usize::from(proto)).copied().flatten()),
            _ => self.ipproto.get(usize::from(proto)).copied().flatten(),
        }
    }
}

/// The table for a transport; None for transports without one.
#[inline]
fn table(proto: u8) -> Option<&'static [(u16, PortEntry)]> {
    match proto {
        6 => Some(TCP),
        17 => Some(UDP),
        132 => Some(SCTP),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(proto: u8, port: u16) -> (&'static str, &'static str) {
        let e = lookup(proto, port).unwrap_or_else(|| panic!("no entry for {proto}/{port}"));
        (e.app, e.category)
    }

    /// Values read in nDPI's `ndpi_init_protocol_defaults()` (src/lib/ndpi_main.c): protocol
    /// name, category enum and the TCP/UDP `ndpi_build_default_ports` arguments.
    #[test]
    fn spot_checks_against_ndpi_source() {
        assert_eq!(get(6, 80), ("HTTP", "Web"));
        assert_eq!(get(6, 443), ("TLS", "Web"));
        assert_eq!(get(17, 443), ("QUIC", "Web"));
        assert_eq!(get(17, 53), ("DNS", "Network"));
        assert_eq!(get(6, 53), ("DNS", "Network"));
        assert_eq!(get(17, 123), ("NTP", "System"));
        assert_eq!(get(6, 22), ("SSH", "RemoteAccess"));
        assert_eq!(get(6, 21), ("FTP_CONTROL", "Download"));
        assert_eq!(get(6, 25), ("SMTP", "Email"));
        assert_eq!(get(6, 587), ("SMTPS", "Email"));
        assert_eq!(get(6, 993), ("IMAPS", "Email"));
        assert_eq!(get(6, 995), ("POPS", "Email"));
        assert_eq!(get(17, 137), ("NetBIOS", "System"));
        assert_eq!(get(6, 139), ("NetBIOS", "System"));
        assert_eq!(get(17, 5353), ("MDNS", "Network"));
        assert_eq!(get(17, 5355), ("LLMNR", "Network"));
        assert_eq!(get(17, 67), ("DHCP", "Network"));
        assert_eq!(get(17, 161), ("SNMP", "Network"));
        assert_eq!(get(17, 514), ("Syslog", "System"));
        assert_eq!(get(6, 3306), ("MySQL", "Database"));
        assert_eq!(get(6, 5432), ("PostgreSQL", "Database"));
        assert_eq!(get(6, 6379), ("Redis", "Database"));
        assert_eq!(get(6, 27017), ("MongoDB", "Database"));
        assert_eq!(get(6, 3389), ("RDP", "RemoteAccess"));
        assert_eq!(get(6, 23), ("Telnet", "RemoteAccess"));
        assert_eq!(get(17, 4500), ("IPSec", "VPN"));
        assert_eq!(get(17, 88), ("Kerberos", "Network"));
        assert_eq!(get(6, 389), ("LDAP", "System"));
        assert_eq!(get(17, 1194), ("OpenVPN", "VPN"));
        assert_eq!(get(6, 179), ("BGP", "Network"));
        assert_eq!(get(17, 1812), ("Radius", "Network"));
        assert_eq!(get(6, 1883), ("MQTT", "RPC"));
        assert_eq!(get(17, 3478), ("STUN", "Network"));
        assert_eq!(get(17, 5060), ("SIP", "VoIP"));
        assert_eq!(get(6, 554), ("RTSP", "Media"));
        assert_eq!(get(17, 51413), ("BitTorrent", "Download"));
        assert_eq!(get(17, 51820), ("WireGuard", "VPN"));
        assert_eq!(get(6, 502), ("Modbus", "IoT-Scada"));
        assert_eq!(get(6, 3868), ("Diameter", "Network"));
        assert_eq!(get(17, 47808), ("BACnet", "IoT-Scada"));
        // Shared ports: the protocol declared later in nDPI overwrites the earlier one.
        assert_eq!(get(6, 445), ("SMBv23", "System"));
        assert_eq!(get(6, 8080), ("HTTP_Proxy", "Web"));
        assert_eq!(get(6, 8009), ("AJP", "Web"));
    }

    #[test]
    fn iana_additions_and_sctp() {
        assert_eq!(get(17, 1900), ("SSDP", "System"));
        assert_eq!(get(17, 547), ("DHCPV6", "Network"));
        assert_eq!(get(132, 3868), ("Diameter", "Network"));
        assert_eq!(get(132, 5060), ("SIP", "VoIP"));
    }

    #[test]
    fn misses() {
        assert_eq!(lookup(6, 0), None);
        assert_eq!(lookup(6, 65535), None);
        assert_eq!(lookup(17, 80), None); // HTTP is TCP-only in nDPI.
        assert_eq!(lookup(6, 123), None); // NTP is UDP-only in nDPI.
        assert_eq!(lookup(1, 80), None); // ICMP has no ports.
        assert_eq!(lookup(47, 80), None);
    }

    #[test]
    fn tables_sorted_without_duplicate_ports() {
        for (name, t) in [("TCP", TCP), ("UDP", UDP), ("SCTP", SCTP)] {
            assert!(!t.is_empty(), "{name} table empty");
            for w in t.windows(2) {
                assert!(
                    w[0].0 < w[1].0,
                    "{name}: {} then {} (unsorted or duplicate)",
                    w[0].0,
                    w[1].0
                );
            }
            // Every entry is reachable through the public lookup.
            let proto = match name {
                "TCP" => 6,
                "UDP" => 17,
                _ => 132,
            };
            for &(p, e) in t {
                assert_eq!(lookup(proto, p), Some(&e), "{name}/{p}");
            }
        }
    }

    #[test]
    fn categories_and_names_are_well_formed() {
        for t in [TCP, UDP, SCTP] {
            for &(p, e) in t {
                assert!(
                    CATEGORIES.contains(&e.category),
                    "{p}: category {:?}",
                    e.category
                );
                assert_ne!(e.category, "Unspecified", "{p}: {}", e.app);
                assert!(
                    !e.app.is_empty() && e.app.trim() == e.app && e.app != "Unknown",
                    "{p}"
                );
            }
        }
        assert!(TCP.len() + UDP.len() + SCTP.len() >= 150);
    }

    /// The run's table answers as the static one does, for every port of every transport and
    /// every IP protocol number, server port first.
    #[test]
    fn the_interned_table_answers_as_the_static_one() {
        let mut labels = Labels::new();
        let t = PortTable::builtin(&mut labels).unwrap();
        let mine = labels
            .intern("Mine", "Mine", "Web", crate::Breed::Unrated)
            .unwrap();
        let name =
            |id: Option<LabelId>| id.map(|i| (labels.get(i).app(), labels.get(i).category()));
        for proto in [6u8, 17, 132] {
            for port in 0..=u16::MAX {
                let want = lookup(proto, port).map(|e| (e.app, e.category));
                assert_eq!(name(t.port(proto, port)), want, "{proto}/{port}");
            }
        }
        assert_eq!(name(t.flow(6, 5555, 443)), Some(("TLS", "Web")));
        assert_eq!(name(t.flow(6, 80, 443)), Some(("HTTP", "Web")));
        assert_eq!(
            name(t.flow(132, 3868, 40000)),
            Some(("Diameter", "Network"))
        );
        assert_eq!(name(t.flow(132, 9999, 40000)), Some(("SCTP", "Network")));
        // An operator's rules replace entries and add ports; the rest stays as it was.
        let mut t2 = t.clone();
        t2.extend([
            (6, 80, 81, mine),
            (17, 40000, 40000, mine),
            (47, 1, 1, mine),
        ]);
        for proto in [6u8, 17, 132] {
            for port in 0..=u16::MAX {
                let want =
                    if (proto, port) == (17, 40000) || (proto == 6 && (80..=81).contains(&port)) {
                        Some(mine)
                    } else {
                        t.port(proto, port)
                    };
                assert_eq!(t2.port(proto, port), want, "{proto}/{port}");
            }
        }
        for p in 0..=255u8 {
            if ![6, 17, 132].contains(&p) {
                let want = crate::ipproto::lookup(p).map(|e| (e.app, e.category));
                assert_eq!(name(t.flow(p, 0, 0)), want, "ip proto {p}");
            }
        }
    }
}
