//! The messages read back by a small decoder written from RFC 7011 (not from the encoder): the
//! templates are parsed from the wire, and every data record is decoded with them.

use super::encode::*;
use super::*;
use crate::tests::{labels, rec};
use crate::{FlowRecord, RecordSink};
use proptest::prelude::*;
use std::collections::HashMap;
use wirespeed_flow::EndReason;
use wirespeed_risk::{Risk, RiskSet};

/// A template as read from the wire: (element id, length, enterprise) per field, and how many
/// are scope fields.
#[derive(Clone, Debug)]
struct Tpl {
    fields: Vec<(u16, u16, u32)>,
}

/// A decoded data record: values by (enterprise, element id).
type Rec = HashMap<(u32, u16), Vec<u8>>;

#[derive(Default, Debug)]
struct Decoded {
    templates: HashMap<u16, Tpl>,
    /// (template id, record) in order.
    records: Vec<(u16, Rec)>,
    /// (sequence number, data records in the message) per message.
    seqs: Vec<(u32, u32)>,
    domains: Vec<u32>,
}

fn be16(b: &[u8]) -> u16 {
    u16::from_be_bytes([b[0], b[1]])
}

fn be32(b: &[u8]) -> u32 {
    u32::from_be_bytes([b[0], b[1], b[2], b[3]])
}

fn decode(mut stream: &[u8]) -> Decoded {
    let mut d = Decoded::default();
    while !stream.is_empty() {
        assert_eq!(be16(stream), 10, "version");
        let len = usize::from(be16(&stream[2..]));
        assert!(len >= 16 && len <= stream.len(), "message length {len}");
        let (msg, rest) = stream.split_at(len);
        stream = rest;
        d.domains.push(be32(&msg[12..]));
        let seq = be32(&msg[8..]);
        let mut n = 0u32;
        let mut sets = &msg[16..];
        while !sets.is_empty() {
            let id = be16(sets);
            let slen = usize::from(be16(&sets[2..]));
            assert!(slen >= 4 && slen <= sets.len(), "set length");
            let (set, more) = sets.split_at(slen);
            sets = more;
            let mut body = &set[4..];
            match id {
                2 | 3 => {
                    while body.len() >= 4 {
                        let tid = be16(body);
                        let count = usize::from(be16(&body[2..]));
                        let mut at = 4;
                        if id == 3 {
                            assert_eq!(be16(&body[4..]), 1, "one scope field");
                            at = 6;
                        }
                        let mut fields = vec![];
                        for _ in 0..count {
                            let eid = be16(&body[at..]);
                            let flen = be16(&body[at + 2..]);
                            at += 4;
                            let pen = if eid & 0x8000 != 0 {
                                at += 4;
                                be32(&body[at - 4..])
                            } else {
                                0
                            };
                            fields.push((eid & 0x7fff, flen, pen));
                        }
                        d.templates.insert(tid, Tpl { fields });
                        body = &body[at..];
                    }
                }
                tid => {
                    let t = d
                        .templates
                        .get(&tid)
                        .expect("data before its template")
                        .clone();
                    while !body.is_empty() {
                        let mut r = Rec::new();
                        for &(eid, flen, pen) in &t.fields {
                            let l = if flen == 0xffff {
                                let l0 = usize::from(body[0]);
                                body = &body[1..];
                                if l0 == 255 {
                                    let l1 = usize::from(be16(body));
                                    body = &body[2..];
                                    l1
                                } else {
                                    l0
                                }
                            } else {
                                usize::from(flen)
                            };
                            r.insert((pen, eid), body[..l].to_vec());
                            body = &body[l..];
                        }
                        d.records.push((tid, r));
                        n += 1;
                    }
                }
            }
        }
        d.seqs.push((seq, n));
    }
    d
}

fn num(r: &Rec, pen: u32, id: u16) -> u64 {
    r[&(pen, id)].iter().fold(0, |a, &b| a << 8 | u64::from(b))
}

fn text(r: &Rec, pen: u32, id: u16) -> String {
    String::from_utf8(r[&(pen, id)].clone()).unwrap()
}

/// Records through an exporter writing to a file, read back.
fn export<'a>(recs: impl IntoIterator<Item = FlowRecord<'a>>, query: &str) -> Vec<u8> {
    let dir = std::env::temp_dir().join(format!(
        "ws-ipfix-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    let path = dir.with_extension("ipfix");
    let o = Options::parse(&format!("file:{}{query}", path.display())).unwrap();
    let (exp, h) = Exporter::spawn(o).unwrap();
    let mut s = IpfixSink::new(exp);
    for r in recs {
        s.write(&r).unwrap();
    }
    s.finish().unwrap();
    drop(s);
    h.join().unwrap().unwrap();
    let b = std::fs::read(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    b
}

#[test]
fn templates_parse_and_name_every_field() {
    let d = decode(&templates_message());
    assert_eq!(d.templates.len(), 3);
    for (id, want) in [(TEMPLATE_V4, &FIELDS_V4[..]), (TEMPLATE_V6, &FIELDS_V6[..])] {
        let got: Vec<_> = d.templates[&id].fields.clone();
        let want: Vec<_> = want.iter().map(|f| (f.id, f.len, f.pen)).collect();
        assert_eq!(got, want);
    }
    // IANA's numbers for the elements a collector keys on (RFC 7012 / the IANA registry).
    let v4 = &d.templates[&TEMPLATE_V4].fields;
    for id in [8, 12, 7, 11, 4, 58, 152, 153, 1, 2, 136, 148, 95, 96, 372] {
        assert!(v4.iter().any(|f| f.0 == id && f.2 == 0), "IE {id}");
    }
    assert!(v4.contains(&(1, 8, 29305)) && v4.contains(&(2, 8, 29305)));
    assert_eq!(d.templates[&TEMPLATE_APPS].fields[0], (95, 4, 0));
}

#[test]
fn records_read_back_equal() {
    let l = labels();
    let mut a = rec(&l);
    a.src_ip = "192.0.2.1".parse().unwrap();
    a.dst_ip = "198.51.100.7".parse().unwrap();
    a.meta[0] = "www.example.org";
    a.meta[4] = "t13d1516h2_8daaf6152771_e5627efa2ab1";
    a.risks.set(Risk::KnownProtocolOnNonStandardPort);
    a.risks.set(Risk::TlsMissingSni);
    let mut b = rec(&l);
    b.src_ip = "2001:db8::2".parse().unwrap();
    b.dst_ip = "2001:db8::3".parse().unwrap();
    b.label = l.find("DNS", "DNS", "Network").unwrap();
    b.end_reason = EndReason::Idle;
    b.flow_id = 8;
    let d = decode(&export([a.clone(), b.clone()], ""));
    let flows: Vec<_> = d.records.iter().filter(|r| r.0 != TEMPLATE_APPS).collect();
    let apps: Vec<_> = d.records.iter().filter(|r| r.0 == TEMPLATE_APPS).collect();
    assert_eq!(flows.len(), 2);
    assert_eq!(apps.len(), 2, "each label named once");
    let (t, r) = flows[0];
    assert_eq!(*t, TEMPLATE_V4);
    assert_eq!(r[&(0, 8)], [192, 0, 2, 1]);
    assert_eq!(r[&(0, 12)], [198, 51, 100, 7]);
    assert_eq!(num(r, 0, 7), 40000);
    assert_eq!(num(r, 0, 11), 443);
    assert_eq!(num(r, 0, 4), 6);
    assert_eq!(num(r, 0, 58), 12);
    assert_eq!(num(r, 0, 152), a.first_ts_ns / 1_000_000);
    assert_eq!(num(r, 0, 153), a.last_ts_ns / 1_000_000);
    assert_eq!(num(r, 0, 1), 300);
    assert_eq!(num(r, 0, 2), 3);
    assert_eq!(num(r, REVERSE_PEN, 1), 2000);
    assert_eq!(num(r, REVERSE_PEN, 2), 2);
    assert_eq!(num(r, 0, 136), 3, "end of flow detected");
    assert_eq!(num(r, 0, 148), 7);
    assert_eq!(text(r, 0, 96), "Google");
    assert_eq!(text(r, 0, 372), "Web");
    assert_eq!(text(r, PEN, 1), "TLS");
    assert_eq!(text(r, PEN, 2), "port");
    assert_eq!(
        f32::from_be_bytes(r[&(PEN, 3)].clone().try_into().unwrap()),
        a.confidence
    );
    let names: Vec<_> = a.risks.iter().map(|k| k.name()).collect();
    assert_eq!(names.len(), 2);
    assert_eq!(text(r, PEN, 4), names.join(";"));
    assert_eq!(num(r, PEN, 5), u64::from(a.risks.score()));
    assert_eq!(text(r, PEN, 6), "www.example.org");
    assert_eq!(text(r, PEN, 8), a.meta[4]);
    assert_eq!(text(r, PEN, 7), "");
    // The application id names the label in the options data.
    let id = r[&(0, 95)].clone();
    assert_eq!(id[0], 13, "PANA-L7");
    let named = apps.iter().find(|x| x.1[&(0, 95)] == id).unwrap();
    assert_eq!(text(&named.1, 0, 96).trim_end_matches('\0'), "Google");
    assert_eq!(named.1[&(0, 96)].len(), APP_NAME_LEN);
    let (t, r) = flows[1];
    assert_eq!(*t, TEMPLATE_V6);
    assert_eq!(r[&(0, 27)], b.src_ip_v6());
    assert_eq!(num(r, 0, 136), 1, "idle timeout");
    assert_eq!(text(r, 0, 96), "DNS");
    // One domain, sequence numbers counting the data records before each message.
    assert!(d.domains.iter().all(|&x| x == 1));
    let mut next = 0;
    for (seq, n) in &d.seqs {
        assert_eq!(*seq, next);
        next += n;
    }
}

trait V6 {
    fn src_ip_v6(&self) -> [u8; 16];
}

impl V6 for FlowRecord<'_> {
    fn src_ip_v6(&self) -> [u8; 16] {
        match self.src_ip {
            IpAddr::V6(a) => a.octets(),
            IpAddr::V4(a) => a.to_ipv6_mapped().octets(),
        }
    }
}

use std::net::IpAddr;

#[test]
fn interim_records_carry_deltas_that_sum_to_the_totals() {
    let l = labels();
    let mut a = rec(&l);
    a.end_reason = EndReason::Active;
    a.c2s_pkts = 10;
    a.c2s_bytes = 1000;
    a.s2c_pkts = 4;
    a.s2c_bytes = 4000;
    let mut b = a.clone();
    b.c2s_pkts = 25;
    b.c2s_bytes = 2600;
    b.s2c_pkts = 9;
    b.s2c_bytes = 9000;
    let mut c = b.clone();
    c.end_reason = EndReason::Fin;
    c.c2s_pkts = 30;
    let d = decode(&export([a, b, c.clone()], ""));
    let flows: Vec<_> = d.records.iter().filter(|r| r.0 != TEMPLATE_APPS).collect();
    let sum = |pen, id| flows.iter().map(|r| num(&r.1, pen, id)).sum::<u64>();
    assert_eq!(sum(0, 2), c.c2s_pkts);
    assert_eq!(sum(0, 1), c.c2s_bytes);
    assert_eq!(sum(REVERSE_PEN, 2), c.s2c_pkts);
    assert_eq!(sum(REVERSE_PEN, 1), c.s2c_bytes);
    assert_eq!(num(&flows[0].1, 0, 136), 2, "active timeout");
    assert_eq!(num(&flows[1].1, 0, 2), 15);
}

#[test]
fn options_parse_and_refuse() {
    let o = Options::parse("udp://127.0.0.1:4739?rate=1000&domain=7&mtu=9000").unwrap();
    assert_eq!(o.target, Target::Udp("127.0.0.1:4739".into()));
    assert_eq!((o.rate, o.domain, o.max_message), (1000, 7, 9000));
    assert_eq!(
        Options::parse("udp://[2001:db8::1]:4739")
            .unwrap()
            .max_message,
        1400
    );
    let t = Options::parse("tcp://collector:4739").unwrap();
    assert_eq!(
        (t.target, t.max_message),
        (Target::Tcp("collector:4739".into()), 65535)
    );
    assert_eq!(
        Options::parse("out.ipfix").unwrap().target,
        Target::File("out.ipfix".into())
    );
    for bad in [
        "udp://host",
        "udp://:4739",
        "tcp://h:99999",
        "udp://h:1?mtu=100",
        "udp://h:1?rate=x",
        "udp://h:1?colour=red",
        "udp://h:1?rate",
        "file:",
    ] {
        assert!(Options::parse(bad).is_err(), "{bad}");
    }
}

fn arb_text() -> impl Strategy<Value = String> {
    prop_oneof![".{0,40}", "[a-zé]{200,700}"]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Whatever the strings (long, multi-byte), every message decodes, stays within the limit
    /// (one record alone aside), and every record comes back with its strings cut at most to
    /// MAX_STRING on a character boundary.
    #[test]
    fn any_records_decode_within_limits(
        hosts in proptest::collection::vec((arb_text(), arb_text(), any::<u64>(), any::<u32>()), 1..40),
        mtu in 512usize..2000,
    ) {
        let l = labels();
        let recs: Vec<_> = hosts.iter().enumerate().map(|(i, (sni, host, bytes, pkts))| {
            let mut r = rec(&l);
            r.flow_id = i as u64;
            r.meta[0] = sni;
            r.meta[6] = host;
            r.c2s_bytes = *bytes;
            r.s2c_pkts = u64::from(*pkts);
            r.risks = RiskSet::from_bits(*bytes);
            r
        }).collect();
        let b = export(recs.iter().cloned(), &format!("?mtu={mtu}"));
        let d = decode(&b);
        let mut at = 0;
        let mut n = 0;
        while at < b.len() {
            let len = usize::from(be16(&b[at + 2..]));
            // A message over the limit holds one record alone (options data record aside).
            prop_assert!(len <= mtu || d.seqs[n].1 <= 2, "{} bytes, {} records", len, d.seqs[n].1);
            at += len;
            n += 1;
        }
        prop_assert_eq!(n, d.seqs.len());
        let flows: Vec<_> = d.records.iter().filter(|r| r.0 != TEMPLATE_APPS).collect();
        prop_assert_eq!(flows.len(), recs.len());
        for (f, r) in flows.iter().zip(&recs) {
            let sni = text(&f.1, PEN, 6);
            prop_assert!(r.meta[0].starts_with(&sni));
            prop_assert!(sni.len() == r.meta[0].len() || sni.len() > MAX_STRING - 4);
            prop_assert!(sni.len() <= MAX_STRING);
            prop_assert_eq!(num(&f.1, 0, 1), r.c2s_bytes);
            prop_assert_eq!(num(&f.1, REVERSE_PEN, 2), r.s2c_pkts);
            let risks = text(&f.1, PEN, 4);
            prop_assert!(risks.len() <= 254);
            for k in risks.split(';').filter(|k| !k.is_empty()) {
                prop_assert!(r.risks.iter().any(|x| x.name() == k));
            }
        }
    }
}
