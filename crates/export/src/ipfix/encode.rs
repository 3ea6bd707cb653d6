//! IPFIX messages from flow records: the templates, and a writer per worker that packs records
//! into messages ([`IpfixSink`]).

use super::{Exporter, Msg};
use crate::{FlowRecord, RecordSink};
use std::collections::HashMap;
use std::io;
use std::net::IpAddr;
use wirespeed_classify::LabelId;
use wirespeed_flow::EndReason;

/// IPFIX's version number (RFC 7011 §3.1).
pub const VERSION: u16 = 10;
/// Length of the message header.
pub const HEADER_LEN: usize = 16;
/// Set id of template sets.
pub const SET_TEMPLATE: u16 = 2;
/// Set id of options template sets.
pub const SET_OPTIONS_TEMPLATE: u16 = 3;
/// Template of IPv4 flows.
pub const TEMPLATE_V4: u16 = 256;
/// Template of IPv6 flows.
pub const TEMPLATE_V6: u16 = 257;
/// Options template naming the applications (RFC 6759 §5): applicationId → name, category.
pub const TEMPLATE_APPS: u16 = 258;
/// RFC 5103's enterprise number for reverse-direction elements.
pub const REVERSE_PEN: u32 = 29305;
/// The enterprise number of wirespeed's own elements: 32473, which RFC 5612 reserves for
/// documentation and examples. wirespeed has no number of its own registered with IANA; a
/// deployment that has one can change this value in one place.
pub const PEN: u32 = 32473;
/// RFC 6759 classification engine of the application ids: 13, PANA-L7 (a proprietary layer-7
/// definition), followed by a 3-byte selector, the label id.
pub const ENGINE_PANA_L7: u8 = 13;
/// Longest string element written, in bytes (longer ones are cut at a character boundary):
/// host names are at most 253 bytes, and a record must stay far below a message's 65,535.
pub const MAX_STRING: usize = 255;

/// Variable length, in a template.
const VAR: u16 = 0xffff;

/// One field of a template: an information element, its length, its enterprise (0 = IANA).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field {
    /// Element id.
    pub id: u16,
    /// Length (65,535: variable).
    pub len: u16,
    /// Enterprise number (0: IANA's).
    pub pen: u32,
    /// Name, for documentation and tests.
    pub name: &'static str,
}

const fn iana(id: u16, len: u16, name: &'static str) -> Field {
    Field {
        id,
        len,
        pen: 0,
        name,
    }
}

const fn ent(pen: u32, id: u16, len: u16, name: &'static str) -> Field {
    Field { id, len, pen, name }
}

/// The fields after the addresses, the same in both flow templates. Counters are deltas since
/// the flow's previous record (an interim one, at the active timeout), so a collector that sums
/// them counts each packet once; the forward direction is the client's (RFC 5103 biflows: the
/// initiator is the source).
const FLOW_TAIL: [Field; 24] = [
    iana(7, 2, "sourceTransportPort"),
    iana(11, 2, "destinationTransportPort"),
    iana(4, 1, "protocolIdentifier"),
    iana(58, 2, "vlanId"),
    iana(152, 8, "flowStartMilliseconds"),
    iana(153, 8, "flowEndMilliseconds"),
    iana(1, 8, "octetDeltaCount"),
    iana(2, 8, "packetDeltaCount"),
    ent(REVERSE_PEN, 1, 8, "reverseOctetDeltaCount"),
    ent(REVERSE_PEN, 2, 8, "reversePacketDeltaCount"),
    iana(136, 1, "flowEndReason"),
    iana(148, 8, "flowId"),
    iana(95, 4, "applicationId"),
    iana(96, VAR, "applicationName"),
    iana(372, VAR, "applicationCategoryName"),
    ent(PEN, 1, VAR, "masterProtocolName"),
    ent(PEN, 2, VAR, "classificationMethod"),
    ent(PEN, 3, 4, "classificationConfidence"),
    ent(PEN, 4, VAR, "flowRiskNames"),
    ent(PEN, 5, 2, "flowRiskScore"),
    ent(PEN, 6, VAR, "tlsServerName"),
    ent(PEN, 7, VAR, "httpHost"),
    ent(PEN, 8, VAR, "ja4"),
    ent(PEN, 9, VAR, "dnsQueryName"),
];

/// The IPv4 flow template's fields, in order.
pub const FIELDS_V4: [Field; 26] = with_addrs(
    iana(8, 4, "sourceIPv4Address"),
    iana(12, 4, "destinationIPv4Address"),
);

/// The IPv6 flow template's fields, in order.
pub const FIELDS_V6: [Field; 26] = with_addrs(
    iana(27, 16, "sourceIPv6Address"),
    iana(28, 16, "destinationIPv6Address"),
);

const fn with_addrs(src: Field, dst: Field) -> [Field; 26] {
    let mut out = [src; 26];
    out[1] = dst;
    let mut i = 0;
    while i < FLOW_TAIL.len() {
        out[i + 2] = FLOW_TAIL[i];
        i += 1;
    }
    out
}

/// Length of the names in the applications' options records: fixed, zero-padded (RFC 7011
/// §6.1.6), as NBAR exporters send them, because some collectors (nfdump 1.7) read the options
/// records of application names only with fixed-length fields.
pub const APP_NAME_LEN: usize = 64;

/// The applications' options template: scope applicationId, then its name and category.
pub const FIELDS_APPS: [Field; 3] = [
    iana(95, 4, "applicationId"),
    iana(96, APP_NAME_LEN as u16, "applicationName"),
    iana(372, APP_NAME_LEN as u16, "applicationCategoryName"),
];

/// Metadata written by the flow templates: (field index in `META_FIELDS`, element).
const META_OUT: [usize; 4] = [0, 6, 4, 10];
const _: () = {
    // sni, http_host, ja4, dns_query: the order of the tail's last four elements.
    assert!(matches!(crate::META_FIELDS[0].as_bytes(), b"sni"));
    assert!(matches!(crate::META_FIELDS[6].as_bytes(), b"http_host"));
    assert!(matches!(crate::META_FIELDS[4].as_bytes(), b"ja4"));
    assert!(matches!(crate::META_FIELDS[10].as_bytes(), b"dns_query"));
};

fn put_field(b: &mut Vec<u8>, f: &Field) {
    if f.pen == 0 {
        b.extend_from_slice(&f.id.to_be_bytes());
        b.extend_from_slice(&f.len.to_be_bytes());
    } else {
        b.extend_from_slice(&(f.id | 0x8000).to_be_bytes());
        b.extend_from_slice(&f.len.to_be_bytes());
        b.extend_from_slice(&f.pen.to_be_bytes());
    }
}

/// A message holding the three templates (without its header's time, sequence and domain,
/// which the exporter fills in).
pub fn templates_message() -> Vec<u8> {
    let mut b = vec![0u8; HEADER_LEN];
    let set = b.len();
    b.extend_from_slice(&SET_TEMPLATE.to_be_bytes());
    b.extend_from_slice(&[0, 0]);
    for (id, fields) in [(TEMPLATE_V4, &FIELDS_V4), (TEMPLATE_V6, &FIELDS_V6)] {
        b.extend_from_slice(&id.to_be_bytes());
        b.extend_from_slice(&(fields.len() as u16).to_be_bytes());
        for f in fields {
            put_field(&mut b, f);
        }
    }
    close_set(&mut b, set);
    let set = b.len();
    b.extend_from_slice(&SET_OPTIONS_TEMPLATE.to_be_bytes());
    b.extend_from_slice(&[0, 0]);
    b.extend_from_slice(&TEMPLATE_APPS.to_be_bytes());
    b.extend_from_slice(&(FIELDS_APPS.len() as u16).to_be_bytes());
    b.extend_from_slice(&1u16.to_be_bytes());
    for f in &FIELDS_APPS {
        put_field(&mut b, f);
    }
    close_set(&mut b, set);
    start_header(&mut b);
    b
}

/// Write the version and length of the message in `b`.
fn start_header(b: &mut [u8]) {
    let len = b.len() as u16;
    b[0..2].copy_from_slice(&VERSION.to_be_bytes());
    b[2..4].copy_from_slice(&len.to_be_bytes());
}

fn close_set(b: &mut [u8], start: usize) {
    let len = (b.len() - start) as u16;
    b[start + 2..start + 4].copy_from_slice(&len.to_be_bytes());
}

/// `s` cut to at most [`MAX_STRING`] bytes at a character boundary.
fn capped(s: &str) -> &[u8] {
    if s.len() <= MAX_STRING {
        return s.as_bytes();
    }
    let mut n = MAX_STRING;
    while !s.is_char_boundary(n) {
        n -= 1;
    }
    &s.as_bytes()[..n]
}

/// A variable-length element (RFC 7011 §7): one length byte, or 255 and two.
fn put_var(b: &mut Vec<u8>, s: &[u8]) {
    if s.len() < 255 {
        b.push(s.len() as u8);
    } else {
        b.push(255);
        b.extend_from_slice(&(s.len() as u16).to_be_bytes());
    }
    b.extend_from_slice(s);
}

/// flowEndReason (IANA): 1 idle timeout, 2 active timeout, 3 end of flow detected, 4 forced
/// end, 5 lack of resources.
pub fn end_reason_code(r: EndReason) -> u8 {
    match r {
        EndReason::Idle => 1,
        EndReason::Active => 2,
        EndReason::Fin | EndReason::Rst => 3,
        EndReason::EndOfInput => 4,
        EndReason::Evicted => 5,
    }
}

/// The applicationId of a label: PANA-L7, then the id in three bytes.
pub fn application_id(l: LabelId) -> [u8; 4] {
    let [hi, lo] = l.0.to_be_bytes();
    [ENGINE_PANA_L7, 0, hi, lo]
}

/// Counters of one record: c2s packets, c2s bytes, s2c packets, s2c bytes.
type Counts = [u64; 4];

/// Append one flow data record (the template [`TEMPLATE_V4`] or [`TEMPLATE_V6`] that its
/// addresses need) with counters `d`, and say which template it follows.
pub fn put_flow(b: &mut Vec<u8>, r: &FlowRecord<'_>, d: Counts) -> u16 {
    let template = match (r.src_ip, r.dst_ip) {
        (IpAddr::V4(s), IpAddr::V4(t)) => {
            b.extend_from_slice(&s.octets());
            b.extend_from_slice(&t.octets());
            TEMPLATE_V4
        }
        (s, t) => {
            b.extend_from_slice(&v6(s).octets());
            b.extend_from_slice(&v6(t).octets());
            TEMPLATE_V6
        }
    };
    b.extend_from_slice(&r.src_port.to_be_bytes());
    b.extend_from_slice(&r.dst_port.to_be_bytes());
    b.push(r.l4);
    b.extend_from_slice(&r.vlan.to_be_bytes());
    b.extend_from_slice(&(r.first_ts_ns / 1_000_000).to_be_bytes());
    b.extend_from_slice(&(r.last_ts_ns / 1_000_000).to_be_bytes());
    b.extend_from_slice(&d[1].to_be_bytes());
    b.extend_from_slice(&d[0].to_be_bytes());
    b.extend_from_slice(&d[3].to_be_bytes());
    b.extend_from_slice(&d[2].to_be_bytes());
    b.push(end_reason_code(r.end_reason));
    b.extend_from_slice(&r.flow_id.to_be_bytes());
    b.extend_from_slice(&application_id(r.label));
    let l = r.label_names();
    put_var(b, capped(l.app()));
    put_var(b, capped(l.category()));
    put_var(b, capped(l.master()));
    put_var(b, r.method.map_or("", |m| m.as_str()).as_bytes());
    b.extend_from_slice(&r.confidence.to_be_bytes());
    // Risk names, ';'-separated as in the JSON record, capped like any string.
    let start = b.len();
    b.push(0);
    let mut n = 0usize;
    for (i, k) in r.risks.iter().enumerate() {
        let name = k.name().as_bytes();
        if n + name.len() + usize::from(i > 0) > 254 {
            break;
        }
        if i > 0 {
            b.push(b';');
        }
        b.extend_from_slice(name);
        n += name.len() + usize::from(i > 0);
    }
    b[start] = n as u8;
    b.extend_from_slice(&(r.risks.score().min(u32::from(u16::MAX)) as u16).to_be_bytes());
    for i in META_OUT {
        put_var(b, capped(r.meta[i]));
    }
    template
}

fn v6(a: IpAddr) -> std::net::Ipv6Addr {
    match a {
        IpAddr::V4(a) => a.to_ipv6_mapped(),
        IpAddr::V6(a) => a,
    }
}

/// Append the options data record naming label `id`.
pub fn put_app(b: &mut Vec<u8>, id: LabelId, app: &str, category: &str) {
    b.extend_from_slice(&application_id(id));
    put_fixed(b, app);
    put_fixed(b, category);
}

/// `s` in [`APP_NAME_LEN`] bytes: cut at a character boundary, padded with zeros.
fn put_fixed(b: &mut Vec<u8>, s: &str) {
    let mut n = s.len().min(APP_NAME_LEN);
    while !s.is_char_boundary(n) {
        n -= 1;
    }
    b.extend_from_slice(&s.as_bytes()[..n]);
    b.resize(b.len() + APP_NAME_LEN - n, 0);
}

/// A worker's IPFIX writer: packs its records into messages of at most the exporter's size and
/// hands each, whole, to the exporter, which numbers and sends it. Each label's name and category
/// go out once, in an options data record, before its first flow (and again after the exporter
/// re-sends its templates: a UDP refresh, a TCP reconnection).
pub struct IpfixSink {
    exp: Exporter,
    msg: Vec<u8>,
    rec: Vec<u8>,
    /// The set being filled (0: none) and where it starts.
    set: (u16, usize),
    records: u32,
    /// Labels already named since the exporter's template epoch `epoch`: a bit per label id.
    named: Vec<u64>,
    epoch: u64,
    /// Counters already sent for flows that had an interim record, by flow id.
    sent: HashMap<u64, Counts>,
}

impl IpfixSink {
    /// A writer handing its messages to `exp`.
    pub fn new(exp: Exporter) -> IpfixSink {
        let cap = exp.max_message;
        IpfixSink {
            exp,
            msg: Vec::with_capacity(cap),
            rec: Vec::with_capacity(4096),
            set: (0, 0),
            records: 0,
            named: vec![0; 1 << 10],
            epoch: 0,
            sent: HashMap::new(),
        }
    }

    /// Append `self.rec`, a record of `template`, flushing first when the message would grow
    /// past the limit.
    fn append(&mut self, template: u16) -> io::Result<()> {
        let head = if self.set.0 == template { 0 } else { 4 };
        if self.records > 0 && self.msg.len() + head + self.rec.len() > self.exp.max_message {
            self.flush()?;
        }
        if self.msg.is_empty() {
            self.msg.resize(HEADER_LEN, 0);
        }
        if self.set.0 != template {
            if self.set.0 != 0 {
                close_set(&mut self.msg, self.set.1);
            }
            self.set = (template, self.msg.len());
            self.msg.extend_from_slice(&template.to_be_bytes());
            self.msg.extend_from_slice(&[0, 0]);
        }
        self.msg.extend_from_slice(&self.rec);
        self.records += 1;
        Ok(())
    }

    /// Hand the message being filled to the exporter.
    fn flush(&mut self) -> io::Result<()> {
        if self.records == 0 {
            return Ok(());
        }
        close_set(&mut self.msg, self.set.1);
        start_header(&mut self.msg);
        let cap = self.exp.max_message;
        let bytes = std::mem::replace(&mut self.msg, Vec::with_capacity(cap));
        let records = std::mem::take(&mut self.records);
        self.set = (0, 0);
        self.exp.send(Msg { bytes, records })
    }
}

impl RecordSink for IpfixSink {
    fn write(&mut self, r: &FlowRecord<'_>) -> io::Result<()> {
        let epoch = self.exp.epoch();
        if epoch != self.epoch {
            self.named.fill(0);
            self.epoch = epoch;
        }
        let id = usize::from(r.label.0);
        if self.named[id / 64] & 1 << (id % 64) == 0 {
            self.named[id / 64] |= 1 << (id % 64);
            let l = r.label_names();
            self.rec.clear();
            put_app(&mut self.rec, r.label, l.app(), l.category());
            self.append(TEMPLATE_APPS)?;
        }
        let now = [r.c2s_pkts, r.c2s_bytes, r.s2c_pkts, r.s2c_bytes];
        let before = if r.end_reason == EndReason::Active {
            self.sent.insert(r.flow_id, now)
        } else {
            self.sent.remove(&r.flow_id)
        }
        .unwrap_or_default();
        let d = std::array::from_fn(|i| now[i].saturating_sub(before[i]));
        self.rec.clear();
        let t = put_flow(&mut self.rec, r, d);
        self.append(t)
    }

    fn finish(&mut self) -> io::Result<()> {
        self.flush()
    }
}
