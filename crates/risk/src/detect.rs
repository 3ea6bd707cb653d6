//! Checks on names and headers: IP-literal hosts, host-name and DNS-name characters, printable
//! text, multicast/broadcast destinations, and the HTTP User-Agent.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

// ------------------------------------------------------------------------------------ hosts

/// Whether `s` is an IP literal: IPv4 (dotted quad, no leading zeros, as `inet_pton` takes it)
/// or IPv6, optionally with a port (`1.2.3.4:80`) or in brackets (`[::1]`, `[::1]:443`). This
/// is the union of nDPI's two checks; [`assess`](super::assess) uses the exact one per protocol
/// ([`is_numeric_sni`] for TLS/QUIC, [`is_numeric_http_host`] for HTTP).
pub fn is_numeric_host(s: &str) -> bool {
    if let Some(rest) = s.strip_prefix('[') {
        let Some(end) = rest.find(']') else {
            return false;
        };
        let after = &rest[end + 1..];
        let port_ok = after.is_empty() || after.strip_prefix(':').is_some_and(is_port);
        return port_ok && rest[..end].parse::<Ipv6Addr>().is_ok();
    }
    if s.parse::<Ipv6Addr>().is_ok() || s.parse::<Ipv4Addr>().is_ok() {
        return true;
    }
    match s.rsplit_once(':') {
        Some((h, p)) => is_port(p) && h.parse::<Ipv4Addr>().is_ok(),
        None => false,
    }
}

fn is_port(p: &str) -> bool {
    !p.is_empty() && p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit())
}

/// nDPI's TLS/QUIC check (`check_sni_is_numeric_ip`, tls.c): the SNI parses as an IPv4 or IPv6
/// address with `inet_pton` — no port, no brackets.
pub fn is_numeric_sni(sni: &str) -> bool {
    sni.parse::<Ipv4Addr>().is_ok() || sni.parse::<Ipv6Addr>().is_ok()
}

/// nDPI's HTTP check (`ndpi_check_numeric_ip`, http.c): the Host header starts with a digit, is
/// shorter than 21 bytes, and — with any `:port` cut — is an IPv4 address in canonical dotted
/// form (`inet_addr` then `inet_ntoa` gives it back unchanged). Bracketed IPv6 hosts are not
/// flagged by nDPI's HTTP dissector.
pub fn is_numeric_http_host(host: &str) -> bool {
    if !host.as_bytes().first().is_some_and(u8::is_ascii_digit) || host.len() >= 21 {
        return false;
    }
    let h = host.split(':').next().unwrap_or(host);
    h.parse::<Ipv4Addr>().is_ok()
}

/// nDPI's host-name character check (`ndpi_is_valid_hostname`, ndpi_utils.c), applied to the
/// HTTP Host and the TLS SNI (DNS names have their own, [`is_valid_dns_name`]): every byte printable ASCII, no space, no
/// punctuation except `.` `-` `_` `:`.
///
/// Input is text as this project writes metadata: a control byte appears as `\ooo` and an
/// invalid UTF-8 sequence as U+FFFD. Both fail (`\` is punctuation; any non-ASCII character is
/// not `isprint` in nDPI's C locale), as the raw bytes fail in nDPI.
pub fn is_valid_hostname(s: &str) -> bool {
    s.bytes().all(|b| NAME_BYTES[usize::from(b)] & HOST != 0)
}

/// [`NAME_BYTES`]: a byte a host name may hold ([`is_valid_hostname`]).
const HOST: u8 = 1;
/// [`NAME_BYTES`]: a byte a DNS name's labels may hold, or the dot between them
/// ([`is_valid_dns_name`]).
const DNS: u8 = 2;

/// Which names each byte may appear in: one load a byte where the tests, written as matches,
/// compiled to a comparison chain (~6 instructions a byte, ~1% of the corpus mix's packets).
const NAME_BYTES: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        if c.is_ascii_alphanumeric() || c == b'.' || c == b'-' || c == b'_' {
            t[b] = HOST | DNS;
        }
        b += 1;
    }
    t[b':' as usize] = HOST;
    t
};

/// nDPI's DNS name check (dns.c `ndpi_grab_dns_name` with its `dns_validchar` table): every byte
/// of every label is a letter, digit, `_` or `-`; `.` joins labels. The empty name (written
/// `<root>` in the record) and a name nDPI stops reading at a compressed or extended label
/// (written `<Unknown extended label>`) are valid: nDPI reads no character of them.
pub fn is_valid_dns_name(name: &str) -> bool {
    name.bytes().all(|b| NAME_BYTES[usize::from(b)] & DNS != 0)
        || (name.starts_with('<') && (name == "<root>" || name == "<Unknown extended label>"))
}

/// Whether every character is printable ASCII (nDPI's `ndpi_is_printable_buffer` /
/// `ndpi_normalize_printable_string`, used on TLS ALPN and certificate fields). A `\ooo` escape
/// (how this project writes a control byte) counts as non-printable.
pub fn is_printable_name(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if !(0x20..0x7f).contains(&c) {
            return false;
        }
        if c == b'\\'
            && b.len() >= i + 4
            && b[i + 1..i + 4].iter().all(|d| (b'0'..=b'7').contains(d))
        {
            return false;
        }
        i += 1;
    }
    true
}

/// Whether `addr` is what nDPI treats as multicast or broadcast (`ndpi_is_multi_or_broadcast`,
/// ndpi_main.c), the destinations exempt from Unidirectional Traffic: IPv4 with the top three
/// bits set (224.0.0.0/3), or a last octet of 0 or 255 (nDPI's own approximation of subnet
/// broadcast); IPv6 `ff00::/8`.
pub fn is_multi_or_broadcast(addr: IpAddr) -> bool {
    match addr {
        IpAddr::V4(a) => {
            let o = a.octets();
            o[0] & 0xe0 == 0xe0 || o[3] == 0 || o[3] == 0xff
        }
        IpAddr::V6(a) => a.octets()[0] == 0xff,
    }
}

// ------------------------------------------------------------------------------ user agent

/// Whether nDPI's HTTP dissector flags the User-Agent as suspicious (`ndpi_check_user_agent`,
/// http.c): longer than 12 characters, letters only, and at least 20% of them upper case;
/// starting with `<?` or holding `$`; holding `://` not at the start and not preceded by `p` or
/// `s` (i.e. not `http://`/`https://`); shorter than 4 or longer than 256 characters; starting
/// with `test`; holding `{` or `}`. A Log4J lookup (`jndi:ldap://…`) is Possible Exploit instead
/// ([`ua_is_exploit`]), unless one of the first three rules also holds. An empty or missing
/// User-Agent on a request is flagged by [`assess`](super::assess), not here.
pub fn suspicious_user_agent(ua: &str) -> bool {
    let b = ua.as_bytes();
    let n = b.len();
    if n == 0 {
        return false;
    }
    if n > 12 && b.iter().all(u8::is_ascii_alphabetic) {
        let upper = b.iter().filter(|c| c.is_ascii_uppercase()).count();
        if upper as f32 / n as f32 >= 0.2 {
            return true;
        }
    }
    // Byte searches (memchr's vector loops; `str`'s searches for a char or a 3-byte needle
    // set up a general searcher each time, ~20% of a flow's risk assessment on the corpus mix).
    if ua.starts_with("<?") || memchr::memchr(b'$', b).is_some() {
        return true;
    }
    // The first "://".
    let scheme = memchr::memchr_iter(b':', b).find(|&i| b[i..].starts_with(b"://"));
    if let Some(i) = scheme {
        if i > 0 && b[i - 1] != b'p' && b[i - 1] != b's' {
            return true;
        }
    }
    if ua_is_exploit(ua) {
        return false;
    }
    !(4..=256).contains(&n) || ua.starts_with("test") || memchr::memchr2(b'{', b'}', b).is_some()
}

/// A Log4J lookup as the User-Agent (`jndi:ldap://` prefix): nDPI's Possible Exploit.
pub fn ua_is_exploit(ua: &str) -> bool {
    ua.starts_with("jndi:ldap://")
}

/// nDPI's crawler test on the User-Agent (http.c): holds `+http:` or ` http:`, or `Crawler` or
/// `Bot` in any case.
pub fn ua_is_crawler(ua: &str) -> bool {
    // Each needle tried only where a byte that can start it is (memchr's vector loops find
    // those; a match on every byte cost ~600 instructions a User-Agent).
    let b = ua.as_bytes();
    let at = |i: usize, w: &[u8]| {
        b.get(i..i + w.len())
            .is_some_and(|x| x.eq_ignore_ascii_case(w))
    };
    memchr::memchr2_iter(b'+', b' ', b).any(|i| b[i + 1..].starts_with(b"http:"))
        || memchr::memchr2_iter(b'c', b'C', b).any(|i| at(i, b"crawler"))
        || memchr::memchr2_iter(b'b', b'B', b).any(|i| at(i, b"bot"))
}
