//! Operator rule files in nDPI's `protos.txt` syntax (`ndpiReader -p`), read into plain rules:
//! host patterns, address blocks and ports, each naming a protocol.
//!
//! # Supported syntax
//!
//! One rule a line: comma-separated elements, `@`, then the protocol's name. Blank lines and
//! lines starting with `#` are skipped, as is a byte-order mark; CRLF or LF.
//!
//! ```text
//! host:"googlesyndication.com"@Google
//! host:"kataweb.it",host:"repubblica.it"@Repubblica
//! ip:213.75.170.11/32:443@CustomProtocol
//! ip:54.80.47.130@AmazonPrime
//! ipv6:[2001:db8::]/32:443@Mine
//! tcp:81,tcp:8181@HTTP
//! udp:5061-5062@SIP
//! tcp:860,udp:860@iSCSI
//! ```
//!
//! * `host:"PATTERN"` (quotes optional): a host pattern, matched as [`crate::hosts`] documents.
//!   One difference from nDPI: it ends a pattern without a dot anywhere (`host:"ntop"` matches
//!   `myntop`), here such a pattern matches `ntop` and names ending in `.ntop`. A leading `*.`
//!   is dropped.
//! * `ip:ADDRESS[/LEN][:PORT]`: an IPv4 block (`LEN` 0 to 32, default 32), optionally only on
//!   one port. `ip:` or `ipv6:` with `[ADDRESS][/LEN][:PORT]` is an IPv6 block (`LEN` 0 to 128,
//!   default 128); an IPv6 address without brackets is accepted when no port follows
//!   (`ipv6:2001:db8::/32`). Host bits below the prefix are cleared, as nDPI's Patricia tree
//!   does. Port 1 to 65535.
//! * `tcp:PORT`, `udp:PORT`, `tcp:LOW-HIGH`, `udp:LOW-HIGH`: ports 1 to 65535, `LOW <= HIGH`.
//! * The name: nDPI replaces `/ & ^ : ; ' "` and space in it with `_`, and so does this; it
//!   must then be 1 to 64 bytes, without a control character, `,`, `#` or `=` (nDPI's
//!   `@Name=ID` protocol numbers are not supported).
//!
//! Any other line is an error naming its line: nDPI's `nbpf:`, `ip_risk_mask:`,
//! `host_risk_mask:` and `trusted_issuer_dn:` lines among them (not supported), an element of
//! another kind, a rule without `@NAME`. At most [`MAX_TEXT_LEN`] bytes and [`MAX_RULES`]
//! elements.
//!
//! nDPI gives the protocols such files define category `Unspecified` and breed `Acceptable`.

use crate::hosts;
use crate::networks::Cidr;
use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Largest text [`parse`] reads, bytes.
pub const MAX_TEXT_LEN: usize = 16 << 20;
/// Most elements (hosts, blocks, port ranges) in one file.
pub const MAX_RULES: usize = 1 << 20;

/// A host pattern naming a protocol.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostRule {
    /// The pattern as written, without quotes (for [`crate::hosts::HostRules::add`]).
    pub pattern: String,
    /// The protocol's name.
    pub name: String,
    /// Its line in the file, from 1.
    pub line: usize,
}

/// An address block, optionally on one port, naming a protocol.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IpRule {
    /// The block's first address (host bits cleared).
    pub network: IpAddr,
    /// Prefix length: 0 to 32 for IPv4, 0 to 128 for IPv6.
    pub prefix_len: u8,
    /// The only port it names, if one.
    pub port: Option<u16>,
    /// The protocol's name.
    pub name: String,
    /// Its line in the file, from 1.
    pub line: usize,
}

/// Transport of a port rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Transport {
    /// TCP.
    Tcp,
    /// UDP.
    Udp,
}

/// A range of ports on one transport naming a protocol.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PortRule {
    /// TCP or UDP.
    pub transport: Transport,
    /// First port.
    pub low: u16,
    /// Last port (equal to `low` for one port).
    pub high: u16,
    /// The protocol's name.
    pub name: String,
    /// Its line in the file, from 1.
    pub line: usize,
}

/// The rules of a `protos.txt` file, in file order within each kind.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProtoRules {
    /// `host:` elements.
    pub hosts: Vec<HostRule>,
    /// `ip:` and `ipv6:` elements.
    pub ips: Vec<IpRule>,
    /// `tcp:` and `udp:` elements.
    pub ports: Vec<PortRule>,
}

impl ProtoRules {
    /// Elements of every kind.
    pub fn len(&self) -> usize {
        self.hosts.len() + self.ips.len() + self.ports.len()
    }

    /// No rules?
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Why a `protos.txt` file was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProtosError {
    /// 1-based line; 0 for the whole text.
    pub line: usize,
    /// What is wrong.
    pub kind: ProtosErrorKind,
}

/// What is wrong with a `protos.txt` line. Quoted values are cut to 64 bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProtosErrorKind {
    /// The text is longer than [`MAX_TEXT_LEN`].
    TooLarge {
        /// Its length, bytes.
        bytes: usize,
    },
    /// A rule without `@NAME`.
    NoName,
    /// A protocol name that cannot be one.
    Name {
        /// The name.
        name: String,
        /// Why.
        why: &'static str,
    },
    /// An nDPI line kind this reader does not support (`nbpf`, `ip_risk_mask`, ...).
    Unsupported {
        /// The keyword.
        keyword: String,
    },
    /// An element that is none of `host:`, `ip:`, `ipv6:`, `tcp:`, `udp:`.
    Element {
        /// The element.
        element: String,
    },
    /// A bad `host:` element.
    Host {
        /// The pattern.
        pattern: String,
        /// Why.
        why: &'static str,
    },
    /// A bad `ip:` or `ipv6:` element.
    Ip {
        /// The value after `ip:`.
        value: String,
        /// Why.
        why: &'static str,
    },
    /// A bad `tcp:` or `udp:` element.
    Port {
        /// The value after `tcp:` or `udp:`.
        value: String,
        /// Why.
        why: &'static str,
    },
    /// More than [`MAX_RULES`] elements.
    TooManyRules,
}

impl fmt::Display for ProtosError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line > 0 {
            write!(f, "line {}: ", self.line)?;
        }
        match &self.kind {
            ProtosErrorKind::TooLarge { bytes } => write!(
                f,
                "protos file of {bytes} bytes, more than the {MAX_TEXT_LEN} allowed"
            ),
            ProtosErrorKind::NoName => write!(f, "no '@NAME' naming the protocol"),
            ProtosErrorKind::Name { name, why } => write!(f, "protocol name {name:?}: {why}"),
            ProtosErrorKind::Unsupported { keyword } => write!(
                f,
                "'{keyword}:' rules are not supported (only host:, ip:, ipv6:, tcp:, udp:)"
            ),
            ProtosErrorKind::Element { element } => write!(
                f,
                "element {element:?} is none of host:\"PATTERN\", ip:ADDRESS[/LEN][:PORT], \
                 ipv6:[ADDRESS][/LEN][:PORT], tcp:PORT[-PORT], udp:PORT[-PORT]"
            ),
            ProtosErrorKind::Host { pattern, why } => write!(f, "host {pattern:?}: {why}"),
            ProtosErrorKind::Ip { value, why } => write!(f, "ip {value:?}: {why}"),
            ProtosErrorKind::Port { value, why } => write!(f, "port {value:?}: {why}"),
            ProtosErrorKind::TooManyRules => write!(f, "more than {MAX_RULES} rules"),
        }
    }
}

impl std::error::Error for ProtosError {}

fn quoted(s: &str) -> String {
    let mut end = s.len().min(64);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s[..end].to_string()
}

/// nDPI's line kinds this reader refuses by name.
const UNSUPPORTED: &[&str] = &[
    "nbpf",
    "ip_risk_mask",
    "host_risk_mask",
    "trusted_issuer_dn",
];

/// Read a `protos.txt` file: all its rules, or the first error.
pub fn parse(text: &str) -> Result<ProtoRules, ProtosError> {
    if text.len() > MAX_TEXT_LEN {
        return Err(ProtosError {
            line: 0,
            kind: ProtosErrorKind::TooLarge { bytes: text.len() },
        });
    }
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut out = ProtoRules::default();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        parse_line(raw, line, &mut out).map_err(|kind| ProtosError { line, kind })?;
    }
    Ok(out)
}

fn parse_line(raw: &str, line: usize, out: &mut ProtoRules) -> Result<(), ProtosErrorKind> {
    let l = raw.trim();
    if l.is_empty() || l.starts_with('#') {
        return Ok(());
    }
    if let Some((keyword, _)) = l.split_once(':') {
        let keyword = keyword.trim();
        if UNSUPPORTED.iter().any(|u| u.eq_ignore_ascii_case(keyword)) {
            return Err(ProtosErrorKind::Unsupported {
                keyword: quoted(keyword),
            });
        }
    }
    let (elements, name) = l.rsplit_once('@').ok_or(ProtosErrorKind::NoName)?;
    let name = parse_name(name)?;
    for element in elements.split(',') {
        if out.len() >= MAX_RULES {
            return Err(ProtosErrorKind::TooManyRules);
        }
        let element = element.trim();
        let bad = || ProtosErrorKind::Element {
            element: quoted(element),
        };
        let (kind, value) = element.split_once(':').ok_or_else(bad)?;
        let value = value.trim();
        match kind.trim().to_ascii_lowercase().as_str() {
            "host" => {
                let pattern = match value.strip_prefix('"') {
                    Some(v) => v.strip_suffix('"').ok_or(ProtosErrorKind::Host {
                        pattern: quoted(value),
                        why: "an opening quote without a closing one",
                    })?,
                    None => value,
                };
                hosts::check_pattern(pattern).map_err(|why| ProtosErrorKind::Host {
                    pattern: quoted(pattern),
                    why,
                })?;
                out.hosts.push(HostRule {
                    pattern: pattern.to_string(),
                    name: name.clone(),
                    line,
                });
            }
            k @ ("ip" | "ipv6") => {
                let (network, prefix_len, port) =
                    parse_ip(value, k == "ipv6").map_err(|why| ProtosErrorKind::Ip {
                        value: quoted(value),
                        why,
                    })?;
                out.ips.push(IpRule {
                    network,
                    prefix_len,
                    port,
                    name: name.clone(),
                    line,
                });
            }
            k @ ("tcp" | "udp") => {
                let (low, high) = parse_ports(value).map_err(|why| ProtosErrorKind::Port {
                    value: quoted(value),
                    why,
                })?;
                out.ports.push(PortRule {
                    transport: if k == "tcp" {
                        Transport::Tcp
                    } else {
                        Transport::Udp
                    },
                    low,
                    high,
                    name: name.clone(),
                    line,
                });
            }
            _ => return Err(bad()),
        }
    }
    Ok(())
}

fn parse_name(raw: &str) -> Result<String, ProtosErrorKind> {
    let trimmed = raw.trim();
    let bad = |why| ProtosErrorKind::Name {
        name: quoted(trimmed),
        why,
    };
    if trimmed.contains('=') {
        return Err(bad("'@NAME=ID' protocol numbers are not supported"));
    }
    if trimmed.contains('#') {
        return Err(bad("has a '#': a comment must be on a line of its own"));
    }
    // nDPI's own replacements (ndpi_handle_rule).
    let name: String = trimmed
        .chars()
        .map(|c| match c {
            '/' | '&' | '^' | ':' | ';' | '\'' | '"' | ' ' => '_',
            c => c,
        })
        .collect();
    // A rule's elements are comma-separated, so a name with a comma reads as a mistake here
    // (a rules CSV may quote one).
    if name.contains(',') {
        return Err(bad("has a comma"));
    }
    hosts::check_app(&name).map_err(bad)?;
    Ok(name)
}

fn parse_port(s: &str) -> Result<u16, &'static str> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err("not a port number");
    }
    match s.parse::<u16>() {
        Ok(0) => Err("port 0"),
        Ok(p) => Ok(p),
        Err(_) => Err("port above 65535"),
    }
}

fn parse_ports(value: &str) -> Result<(u16, u16), &'static str> {
    match value.split_once('-') {
        Some((a, b)) => {
            let (low, high) = (parse_port(a.trim())?, parse_port(b.trim())?);
            if low > high {
                return Err("the range's first port is above its last");
            }
            Ok((low, high))
        }
        None => parse_port(value).map(|p| (p, p)),
    }
}

fn prefix(s: &str, max: u8) -> Result<u8, &'static str> {
    if s.is_empty() || s.len() > 3 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err("the prefix length is not a number");
    }
    match s.parse::<u8>() {
        Ok(n) if n <= max => Ok(n),
        _ => Err("the prefix length is longer than the address"),
    }
}

/// `value` of an `ip:` element: (network, prefix length, port).
fn parse_ip(value: &str, v6_only: bool) -> Result<(IpAddr, u8, Option<u16>), &'static str> {
    let (addr, len, port) = if let Some(rest) = value.strip_prefix('[') {
        // [ADDRESS][/LEN][:PORT]
        let (addr, rest) = rest.split_once(']').ok_or("'[' without ']'")?;
        let (len, port) = match rest.split_once(':') {
            Some((len, port)) => (len, Some(port)),
            None => (rest, None),
        };
        let len = match len {
            "" => None,
            l => Some(
                l.strip_prefix('/')
                    .ok_or("expected /LEN or :PORT after ']'")?,
            ),
        };
        let addr: Ipv6Addr = addr.parse().map_err(|_| "not an IPv6 address")?;
        (IpAddr::V6(addr), len, port)
    } else if value.matches(':').count() >= 2 {
        // An IPv6 address without brackets: no port.
        let (addr, len) = match value.split_once('/') {
            Some((a, l)) => (a, Some(l)),
            None => (value, None),
        };
        let addr: Ipv6Addr = addr
            .parse()
            .map_err(|_| "not an IPv6 address (write [ADDRESS]:PORT for a port)")?;
        (IpAddr::V6(addr), len, None)
    } else {
        // A.B.C.D[/LEN][:PORT]
        let (rest, port) = match value.split_once(':') {
            Some((r, p)) => (r, Some(p)),
            None => (value, None),
        };
        let (addr, len) = match rest.split_once('/') {
            Some((a, l)) => (a, Some(l)),
            None => (rest, None),
        };
        let addr: Ipv4Addr = addr.parse().map_err(|_| "not an IPv4 address")?;
        (IpAddr::V4(addr), len, port)
    };
    let port = port.map(parse_port).transpose()?;
    if v6_only && addr.is_ipv4() {
        return Err("ipv6: with an IPv4 address");
    }
    let max = if addr.is_ipv4() { 32 } else { 128 };
    let len = len.map_or(Ok(max), |l| prefix(l, max))?;
    // The block's own rule for host bits (cleared), as the owner table reads blocks.
    let block = Cidr::new(addr, len).map_err(|_| "the prefix length is longer than the address")?;
    let (network, prefix_len) = (block.addr(), block.prefix_len());
    Ok((network, prefix_len, port))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ndpis_example_file_reads() {
        let text = "\u{feff}#  Format:\n\
            #  <tcp|udp>:<port>,<tcp|udp>:<port>,.....@<proto>\n\
            \n\
            tcp:81,tcp:8181@HTTP\n\
            udp:5061-5062@SIP\n\
            tcp:860,udp:860,tcp:3260,udp:3260@iSCSI\n\
            host:\"disneyplus.com\",host:\"cdn.registerdisney.go.com\"@DisneyPlus\r\n\
            host:\"*.lvlt.dash.us.aiv-cdn.net.c.footprint.net\"@AmazonVideo\n\
            host:ntop@ntop\n\
            ip:213.75.170.11/32:443@CustomProtocol\n\
            ip:8.248.73.247:443@AmazonPrime\n\
            ip:54.80.47.130@AmazonPrime\n\
            ip:10.1.2.3/8@Private Net\n\
            ipv6:[2001:db8::1]/32:443@V6\n\
            ip:[fe80::1]:12717@V6b\n\
            ipv6:2001:db8:1::/48@V6c\n\
            ipv6:[::1]@Loop\n";
        let r = parse(text).unwrap();
        let ports: Vec<_> = r
            .ports
            .iter()
            .map(|p| (p.transport, p.low, p.high, p.name.as_str(), p.line))
            .collect();
        assert_eq!(
            ports,
            [
                (Transport::Tcp, 81, 81, "HTTP", 4),
                (Transport::Tcp, 8181, 8181, "HTTP", 4),
                (Transport::Udp, 5061, 5062, "SIP", 5),
                (Transport::Tcp, 860, 860, "iSCSI", 6),
                (Transport::Udp, 860, 860, "iSCSI", 6),
                (Transport::Tcp, 3260, 3260, "iSCSI", 6),
                (Transport::Udp, 3260, 3260, "iSCSI", 6),
            ]
        );
        let hosts: Vec<_> = r
            .hosts
            .iter()
            .map(|h| (h.pattern.as_str(), h.name.as_str(), h.line))
            .collect();
        assert_eq!(
            hosts,
            [
                ("disneyplus.com", "DisneyPlus", 7),
                ("cdn.registerdisney.go.com", "DisneyPlus", 7),
                (
                    "*.lvlt.dash.us.aiv-cdn.net.c.footprint.net",
                    "AmazonVideo",
                    8
                ),
                ("ntop", "ntop", 9),
            ]
        );
        let ips: Vec<_> = r
            .ips
            .iter()
            .map(|i| (i.network.to_string(), i.prefix_len, i.port, i.name.as_str()))
            .collect();
        assert_eq!(
            ips,
            [
                ("213.75.170.11".into(), 32, Some(443), "CustomProtocol"),
                ("8.248.73.247".into(), 32, Some(443), "AmazonPrime"),
                ("54.80.47.130".into(), 32, None, "AmazonPrime"),
                ("10.0.0.0".into(), 8, None, "Private_Net"),
                ("2001:db8::".into(), 32, Some(443), "V6"),
                ("fe80::1".into(), 128, Some(12717), "V6b"),
                ("2001:db8:1::".into(), 48, None, "V6c"),
                ("::1".into(), 128, None, "Loop"),
            ]
        );
        assert_eq!(r.len(), 19);
        assert!(parse("# nothing\n\n").unwrap().is_empty());
    }

    #[test]
    fn bad_lines_are_errors_naming_the_line() {
        let cases: &[(&str, &str)] = &[
            ("tcp:81", "no '@NAME'"),
            ("tcp:81@", "protocol name \"\": empty"),
            ("tcp:81@HTTP=7", "protocol numbers are not supported"),
            ("tcp:81@HTTP # web", "comment"),
            ("tcp:81@A,B", "comma"),
            ("tcp:0@X", "port 0"),
            ("tcp:65536@X", "above 65535"),
            ("tcp:90-80@X", "first port is above"),
            ("tcp:8o@X", "not a port number"),
            ("sctp:80@X", "element \"sctp:80\" is none of"),
            ("80@X", "element \"80\" is none of"),
            ("tcp:81,,tcp:82@X", "element \"\""),
            ("host:\"a b\"@X", "host \"a b\": has a character"),
            ("host:\"abc@X", "opening quote"),
            ("host:\"\"@X", "empty"),
            ("ip:1.2.3@X", "not an IPv4 address"),
            ("ip:1.2.3.4/33@X", "prefix length is longer"),
            ("ip:1.2.3.4/x@X", "not a number"),
            ("ip:1.2.3.4:0@X", "port 0"),
            ("ipv6:1.2.3.4@X", "ipv6: with an IPv4"),
            ("ip:[::1@X", "'[' without ']'"),
            ("ip:[::1]/129@X", "prefix length is longer"),
            ("ip:[::1]x@X", "expected /LEN or :PORT"),
            ("ip:[1.2.3.4]@X", "not an IPv6"),
            ("ip:2001:db8::zz@X", "not an IPv6"),
            (
                "nbpf:\"host 192.168.1.1 and port 80\"@HomeRouter",
                "'nbpf:' rules",
            ),
            ("host_risk_mask:\".home\"=0", "'host_risk_mask:' rules"),
            ("ip_risk_mask:192.168.1.0/24=0", "'ip_risk_mask:' rules"),
            (
                "trusted_issuer_dn:\"CN=813845657003339838, O=Code42\"",
                "'trusted_issuer_dn:'",
            ),
        ];
        for (bad, what) in cases {
            let text = format!("# header\n\ntcp:81@HTTP\n{bad}\ntcp:82@HTTP\n");
            let e = parse(&text).unwrap_err();
            assert_eq!(e.line, 4, "{bad}: {e}");
            let msg = e.to_string();
            assert!(msg.starts_with("line 4: "), "{msg}");
            assert!(msg.contains(what), "{bad}: {msg}");
        }
    }

    #[test]
    fn its_host_rules_go_into_host_rules() {
        let r = parse("host:\"*.Example.COM\",host:googleads.@Mine\n").unwrap();
        let mut rules = crate::hosts::HostRules::new();
        for h in &r.hosts {
            rules
                .add(&h.pattern, &h.name, "Unspecified", crate::Breed::Acceptable)
                .unwrap();
        }
        assert_eq!(rules.lookup("a.example.com").unwrap().app.name, "Mine");
        assert_eq!(rules.lookup("www.googleads.net").unwrap().app.name, "Mine");
    }

    mod props {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            #[test]
            fn arbitrary_text_never_panics(text in "[a-z0-9:@,./\\[\\]\"#= -]{0,80}") {
                if let Ok(r) = parse(&text) {
                    let mut rules = crate::hosts::HostRules::new();
                    for h in &r.hosts {
                        let added = rules.add(&h.pattern, &h.name, "web", crate::Breed::Safe);
                        prop_assert!(added.is_ok());
                    }
                }
            }

            #[test]
            fn ipv4_blocks_round_trip(a in any::<u32>(), len in 0u8..=32, port in 1u16..=u16::MAX) {
                let text = format!("ip:{}/{len}:{port}@X", Ipv4Addr::from(a));
                let r = parse(&text).unwrap();
                let mask = u32::MAX.checked_shl(32 - u32::from(len)).unwrap_or(0);
                prop_assert_eq!(&r.ips[0], &IpRule {
                    network: IpAddr::V4(Ipv4Addr::from(a & mask)),
                    prefix_len: len,
                    port: Some(port),
                    name: "X".into(),
                    line: 1,
                });
            }
        }
    }
}
