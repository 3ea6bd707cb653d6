//! Well-known-port table (stub: being filled in).

/// One entry of the port table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PortEntry {
    /// nDPI master-protocol name, e.g. "HTTP", "TLS", "DNS".
    pub app: &'static str,
    /// nDPI category name, e.g. "Web", "Network", "Email".
    pub category: &'static str,
}

/// Look up the application conventionally served on `port` for transport `proto` (6 TCP, 17 UDP,
/// 132 SCTP).
pub fn lookup(proto: u8, port: u16) -> Option<PortEntry> {
    let _ = (proto, port);
    None
}
