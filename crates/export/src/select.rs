//! A record reduced to the columns a run keeps (`--columns`, [`Keep`]), two ways. When most
//! columns are kept, the whole record's walk writes it, marking where each field begins, and
//! the runs of kept fields are moved together ([`crate::format::record_kept`]: the whole
//! record's cost and a few hundred instructions). When few are, [`Selected`] below: each kept
//! field written on its own, in [`crate::FIELDS`] order, with the text the whole record's walk
//! ([`crate::format`]) gives it. Either way a kept column reads the same as in the whole
//! record. A record without a [`Keep`] never comes here: the whole record's walk is unchanged
//! by it. [`Selection`] picks the way, once per writer.
//!
//! The fields of the scalar kinds are written one by one (a match a field: a run that keeps
//! five columns pays for five); the groups written by tables (distributions, TCP analysis,
//! early-flow features) are written whole by their walk into a scratch buffer, once per record
//! when one of their columns is kept, and their kept values are copied from it.

#![allow(unsafe_code)]

use crate::format::{
    bound, dist_fields, feature_fields, ip_text, record_kept, tcp_fields, Columns, Keep, Kept,
    Names, Syntax, DIST_ROOM, FEATURES_ROOM, TCP_ROOM,
};
use crate::out::{Cursor, Out, Padded};
use crate::{
    l4_name, numeric_meta, FlowRecord, ACT_FIELDS, COMMUNITY_FIELD, CORE_FIELDS, CORE_TAIL,
    DIST_FIELDS, FEATURE_FIELDS, META_FIELDS, STATS_FIELDS, TCP_FIELDS, TUNNEL_PARENT_FIELD,
};

/// How a writer writes the columns it keeps.
pub(crate) enum Selection {
    /// Column by column (few kept).
    Few(Box<Selected>),
    /// The whole record, the kept runs moved together (most kept).
    Most(Kept),
}

impl Selection {
    /// The way for the columns `cols` writes that `keep` keeps, in `S`'s syntax: the whole
    /// record's walk when more than half of them are kept (its cost does not depend on how many;
    /// column by column costs some 45 instructions a column more: the two meet near 30 of the
    /// 69 default columns, measured on the corpus mix).
    pub(crate) fn new<S: Syntax>(cols: &Columns, keep: &Keep) -> Selection {
        let all = Columns {
            keep: None,
            ..*cols
        };
        let names = all.names();
        let kept = names.iter().filter(|n| keep.has(n)).count();
        if 2 * kept > names.len() {
            Selection::Most(Kept::new(cols, keep))
        } else {
            Selection::Few(Box::new(Selected::new::<S>(cols, keep)))
        }
    }

    /// The record's kept fields in `S`'s syntax (the syntax `new` was given), appended to `b`.
    #[inline]
    pub(crate) fn record<S: Syntax>(
        &mut self,
        b: &mut Vec<u8>,
        r: &FlowRecord<'_>,
        cols: &Columns,
    ) {
        match self {
            Selection::Few(s) => s.record::<S>(b, r),
            Selection::Most(k) => record_kept::<S>(b, r, cols, k),
        }
    }
}

/// One column of the record, resolved from its name once, when the writer is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Col {
    Source,
    Pcap,
    /// [`CORE_FIELDS`] and [`CORE_TAIL`] (the core's index: `tunnel` is 8, `first_ts` 9).
    Core(u8),
    TunnelParent,
    Community,
    Act(u8),
    Dist(u8),
    Tcp(u8),
    Feature(u8),
    Stats(u8),
    Meta(u8),
    /// Consecutive metadata columns ([`MetaRun`], by its index).
    MetaRun(u8),
}

/// Which group a table-written column is of.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Group {
    Dist,
    Tcp,
    Feature,
}

impl Col {
    fn of(name: &str) -> Option<Col> {
        let at = |names: &[&str]| names.iter().position(|n| *n == name).map(|i| i as u8);
        Some(match name {
            "source" => Col::Source,
            "pcap" => Col::Pcap,
            _ if name == TUNNEL_PARENT_FIELD => Col::TunnelParent,
            _ if name == COMMUNITY_FIELD => Col::Community,
            _ => {
                if let Some(i) = at(&CORE_FIELDS) {
                    Col::Core(i)
                } else if let Some(i) = at(&CORE_TAIL) {
                    Col::Core(CORE_FIELDS.len() as u8 + i)
                } else if let Some(i) = at(&ACT_FIELDS) {
                    Col::Act(i)
                } else if let Some(i) = at(&DIST_FIELDS) {
                    Col::Dist(i)
                } else if let Some(i) = at(&TCP_FIELDS) {
                    Col::Tcp(i)
                } else if let Some(i) = at(FEATURE_FIELDS) {
                    Col::Feature(i)
                } else if let Some(i) = at(&STATS_FIELDS) {
                    Col::Stats(i)
                } else {
                    Col::Meta(at(&META_FIELDS)?)
                }
            }
        })
    }

    fn group(self) -> Option<(Group, u8)> {
        match self {
            Col::Dist(i) => Some((Group::Dist, i)),
            Col::Tcp(i) => Some((Group::Tcp, i)),
            Col::Feature(i) => Some((Group::Feature, i)),
            _ => None,
        }
    }
}

/// What a writer of kept columns holds: the columns in order, each with the text before its
/// value (`"name":` in JSON, after a comma but for the first; a comma in CSV but for the
/// first), the columns the writer's options select (for the room a record may take), and the
/// scratch buffer of the table-written groups.
pub(crate) struct Selected {
    cols: Vec<(Col, Padded)>,
    /// Each run of consecutive kept metadata columns ([`Col::MetaRun`]).
    runs: Vec<MetaRun>,
    all: Columns,
    scratch: Vec<u8>,
    pieces: Vec<(usize, usize)>,
}

/// Consecutive kept metadata columns: most are absent in most records, and a run of them all
/// absent is one constant text.
struct MetaRun {
    /// Each column's index in the metadata, its key, and where its text lies in `nulls`.
    fields: Vec<(u8, Padded, usize, usize)>,
    /// Their bits (by index).
    mask: u64,
    /// Every one of them absent, keys included.
    nulls: Vec<u8>,
}

impl Selected {
    /// The columns `cols` writes that `keep` keeps, in order, in `S`'s syntax.
    pub(crate) fn new<S: Syntax>(cols: &Columns, keep: &Keep) -> Selected {
        let all = Columns {
            keep: None,
            ..*cols
        };
        let cols = all
            .names()
            .into_iter()
            .filter(|n| keep.has(n))
            .filter_map(|n| Some((Col::of(n)?, n)))
            .enumerate()
            .map(|(k, (c, n))| {
                let comma = if k > 0 { "," } else { "" };
                // The longest key, `,"c2s_first_payload_us":`, is 24 bytes of the 32.
                let key = if S::JSON {
                    Padded::new(&[comma, "\"", n, "\":"])
                } else {
                    Padded::new(&[comma])
                };
                (c, key)
            })
            .collect::<Vec<(Col, Padded)>>();
        // Consecutive metadata columns become runs.
        let (mut items, mut runs): (Vec<(Col, Padded)>, Vec<MetaRun>) = (Vec::new(), Vec::new());
        for (c, key) in cols {
            let Col::Meta(i) = c else {
                items.push((c, key));
                continue;
            };
            if !matches!(items.last(), Some((Col::MetaRun(_), _))) {
                items.push((Col::MetaRun(runs.len() as u8), Padded::EMPTY));
                runs.push(MetaRun {
                    fields: Vec::new(),
                    mask: 0,
                    nulls: Vec::new(),
                });
            }
            let run = runs.last_mut().expect("pushed above");
            let from = run.nulls.len();
            run.mask |= 1 << i;
            run.nulls.extend_from_slice(key.text());
            if S::JSON {
                run.nulls.extend_from_slice(b"null");
            }
            run.fields.push((i, key, from, run.nulls.len()));
        }
        Selected {
            cols: items,
            runs,
            all,
            scratch: Vec::new(),
            pieces: Vec::new(),
        }
    }

    /// The record's kept fields in `S`'s syntax (the syntax `new` was given), appended to `b`.
    pub(crate) fn record<S: Syntax>(&mut self, b: &mut Vec<u8>, r: &FlowRecord<'_>) {
        let names = Names::of(r);
        let meta_len = r.meta.iter().map(|v| v.len()).sum();
        // The whole record's room holds any of its columns' (each value is written as the
        // whole record writes it), and the empty CSV field's quotes.
        let room = bound::<S, true>(r, &names, &self.all, meta_len).saturating_add(2);
        // The metadata set, a bit each (when a run of them is kept).
        let present = if self.runs.is_empty() {
            0
        } else {
            r.meta
                .iter()
                .enumerate()
                .fold(0u64, |m, (i, v)| m | u64::from(!v.is_empty()) << i)
        };
        let mut group = None;
        let mut o = Out::new(b, room);
        let start = o.at();
        // SAFETY: `room` reserved, the whole record's bound (above), and the kept columns are
        // some of its columns written the same way.
        unsafe {
            o.bytes(S::OPEN);
            for (col, key) in &self.cols {
                if let Col::MetaRun(k) = *col {
                    let run = &self.runs[usize::from(k)];
                    // The absent ones as runs of the constant text, between the set ones.
                    let mut from = 0;
                    if present & run.mask != 0 {
                        for &(i, key, start, end) in &run.fields {
                            if present & (1 << i) != 0 {
                                o.bytes(&run.nulls[from..start]);
                                o.padded(&key);
                                let c = &mut *o;
                                *c = value::<S>(*c, r, &names, Col::Meta(i));
                                from = end;
                            }
                        }
                    }
                    o.bytes(&run.nulls[from..]);
                    continue;
                }
                o.padded(key);
                if let Some((g, i)) = col.group() {
                    if group != Some(g) {
                        render::<S>(&mut self.scratch, &mut self.pieces, g, r);
                        group = Some(g);
                    }
                    let (s, e) = self.pieces[usize::from(i)];
                    o.bytes(&self.scratch[s..e]);
                } else {
                    let c = &mut *o;
                    *c = value::<S>(*c, r, &names, *col);
                }
            }
            // A CSV row of one column, absent, would be an empty line, which readers skip:
            // `""`, which they read as the empty field it is.
            if !S::JSON && o.at() == start {
                o.bytes(b"\"\"");
            }
            o.bytes(S::CLOSE);
        }
    }
}

/// Write group `g` whole into `scratch`, and where each of its values lies into `pieces`.
fn render<S: Syntax>(
    scratch: &mut Vec<u8>,
    pieces: &mut Vec<(usize, usize)>,
    g: Group,
    r: &FlowRecord<'_>,
) {
    scratch.clear();
    let room = match g {
        Group::Dist => DIST_ROOM,
        Group::Tcp => TCP_ROOM,
        Group::Feature => FEATURES_ROOM,
    };
    {
        let mut o = Out::new(scratch, room);
        let c = &mut *o;
        // SAFETY: each group's room is reserved, as the whole record's walk reserves it.
        unsafe {
            *c = match g {
                Group::Dist => dist_fields::<S>(*c, r),
                Group::Tcp => tcp_fields::<S>(*c, r),
                Group::Feature => feature_fields::<S>(*c, r),
            };
        }
    }
    split::<S>(scratch, pieces);
}

/// The values of a group's text (`,"key":value` a field in JSON, `,value` in CSV): where each
/// lies. Values are numbers, `null`, booleans, lists of numbers and strings (quoted, escaped).
fn split<S: Syntax>(t: &[u8], out: &mut Vec<(usize, usize)>) {
    out.clear();
    let mut i = 0;
    while i < t.len() {
        let (start, end) = crate::format::value_span::<S>(t, i);
        out.push((start, end));
        i = end;
    }
}

/// A quoted run in JSON, bare in CSV, of text that needs no escape in either.
///
/// # Safety
/// Room for `s.len()` + 2 bytes.
#[inline(always)]
unsafe fn plain<S: Syntax>(o: &mut Cursor, s: &[u8]) {
    if S::JSON {
        o.byte(b'"');
    }
    o.bytes(s);
    if S::JSON {
        o.byte(b'"');
    }
}

/// The value of a column written on its own (not a table-written group's), as the whole
/// record's walk writes it.
///
/// # Safety
/// Room for what the whole record's walk gives the field.
/// The cursor goes by value, in and out (an out-of-line function's cursor whose address is
/// taken would be reloaded after every store, [`Cursor`]).
#[inline(never)]
unsafe fn value<S: Syntax>(
    mut c: Cursor,
    r: &FlowRecord<'_>,
    names: &Names<'_>,
    col: Col,
) -> Cursor {
    let o = &mut c;
    match col {
        Col::Source => S::str(o, r.source.unwrap_or("")),
        Col::Pcap => S::opt_str(o, r.pcap.unwrap_or("")),
        Col::Core(i) => *o = core::<S>(*o, r, names, i),
        Col::TunnelParent => match r.tunnel_parent {
            Some(id) => o.uint(id),
            None => S::null(o),
        },
        Col::Community => {
            match crate::community::id_text((r.src_ip, r.src_port), (r.dst_ip, r.dst_port), r.l4) {
                Some(id) => plain::<S>(o, &id),
                None => S::null(o),
            }
        }
        Col::Act(i) => match r.act.as_ref() {
            None => S::null(o),
            Some(a) => match i {
                0 => S::str(o, a.rule),
                1 => S::str(o, a.action),
                2 => o.uint(a.dropped_pkts),
                3 => o.uint(a.dropped_bytes),
                _ => S::bool(o, a.bound),
            },
        },
        Col::Stats(i) => match i {
            0 => S::opt_str(o, r.stats_app),
            1 => S::opt_str(o, r.stats_class),
            _ if r.stats_app.is_empty() => S::null(o),
            _ => o.conf(r.stats_score),
        },
        Col::Meta(i) => {
            let v = r.meta[usize::from(i)];
            if numeric_meta(usize::from(i)) {
                S::opt_num(o, v);
            } else {
                S::opt_str(o, v);
            }
        }
        Col::Dist(_) | Col::Tcp(_) | Col::Feature(_) | Col::MetaRun(_) => {}
    }
    c
}

/// A core field's value, by its index in [`CORE_FIELDS`] then [`CORE_TAIL`].
///
/// # Safety
/// As [`value`].
#[inline(always)]
unsafe fn core<S: Syntax>(mut c: Cursor, r: &FlowRecord<'_>, names: &Names<'_>, i: u8) -> Cursor {
    let o = &mut c;
    let label = names.label;
    match i {
        0 => o.uint(r.flow_id),
        1 | 3 => {
            if S::JSON {
                o.byte(b'"');
            }
            ip_text(o, if i == 1 { &r.src_ip } else { &r.dst_ip });
            if S::JSON {
                o.byte(b'"');
            }
        }
        2 => o.uint(r.src_port.into()),
        4 => o.uint(r.dst_port.into()),
        5 => match l4_name(r.l4) {
            Some(n) => plain::<S>(o, n.as_bytes()),
            None => {
                if S::JSON {
                    o.byte(b'"');
                }
                o.uint(r.l4.into());
                if S::JSON {
                    o.byte(b'"');
                }
            }
        },
        6 => o.uint(r.l4.into()),
        7 => o.uint(r.vlan.into()),
        8 => S::opt_str(o, r.tunnel),
        9 => o.ts(r.first_ts_ns),
        10 => o.ts(r.last_ts_ns),
        11 => o.duration(r.last_ts_ns.saturating_sub(r.first_ts_ns)),
        12 => o.uint(r.c2s_pkts),
        13 => o.uint(r.c2s_bytes),
        14 => o.uint(r.s2c_pkts),
        15 => o.uint(r.s2c_bytes),
        16 => plain::<S>(o, r.end_reason.as_str().as_bytes()),
        17 => S::label(o, label.proto(), label.plain()),
        18 => S::label(o, label.app(), label.plain()),
        19 => S::label(o, label.master(), label.plain()),
        20 => S::label(o, label.category(), label.plain()),
        21 => S::opt_str(o, r.ip_owner),
        22 => match r.method {
            Some(m) => plain::<S>(o, m.as_str().as_bytes()),
            None => S::null(o),
        },
        23 => o.conf(r.confidence),
        24 => o.uint(r.ttb_pkts.into()),
        25 => o.uint(r.ttb_us),
        26 => match names.fpc {
            Some(f) => S::label(o, f.proto(), f.plain()),
            None => S::null(o),
        },
        27 => match r.fpc {
            Some((_, m)) => plain::<S>(o, m.as_str().as_bytes()),
            None => S::null(o),
        },
        28 => S::bool(o, r.encrypted),
        29 => {
            if r.risks.bits() == 0 {
                S::null(o);
                return c;
            }
            if S::JSON {
                o.byte(b'"');
            }
            for (k, risk) in r.risks.iter().enumerate() {
                if k > 0 {
                    o.byte(b';');
                }
                // Risk names need no escape in either format (`risk_names_fit`), and each is
                // given RISK_ROOM.
                o.bytes(risk.name().as_bytes());
            }
            if S::JSON {
                o.byte(b'"');
            }
        }
        _ => o.uint(r.risks.score().into()),
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::{labels, rec};
    use crate::{
        ActFields, CsvWriter, DirDist, DistFields, JsonLinesWriter, RecordSink, RiskSet, FIELDS,
    };

    /// Every optional group on.
    fn all() -> Columns {
        Columns::EVERY_GROUP
    }

    fn records(l: &wirespeed_classify::Labels) -> Vec<FlowRecord<'_>> {
        let mut a = rec(l);
        a.risks = RiskSet::parse("Unidirectional Traffic;Known Proto on Non Std Port").unwrap();
        a.meta[0] = "a\"b,c";
        a.meta[9] = "404";
        a.act = Some(ActFields {
            rule: "no,web",
            action: "drop",
            dropped_pkts: 3,
            dropped_bytes: 180,
            bound: true,
        });
        a.dist = Some(DistFields {
            c2s: DirDist {
                packets: 2,
                size_min: 60,
                size_mean: 80.5,
                size_max: 101,
                size_std: 20.5,
                gaps: 1,
                gap_min_us: 1500.0,
                gap_mean_us: 1500.0,
                gap_max_us: 1500.0,
                gap_std_us: 0.0,
                flags: [1, 0, 0, 0, 1, 0, 0, 0],
            },
            s2c: DirDist::default(),
        });
        a.tunnel = "VXLAN";
        a.tunnel_parent = Some(5);
        let mut b = rec(l);
        b.l4 = 253;
        b.stats_app = "";
        b.fpc = None;
        b.method = None;
        vec![a, b]
    }

    /// Some selections: single columns of each kind, every other column, and all.
    fn selections() -> Vec<Vec<&'static str>> {
        let names = all().names();
        let mut v: Vec<Vec<&str>> = names.iter().map(|n| vec![*n]).collect();
        v.push(names.iter().copied().step_by(2).collect());
        v.push(names.iter().copied().skip(1).step_by(3).collect());
        v.push(names.clone());
        v
    }

    /// A kept column's JSON value is the whole record's, in the whole record's order.
    #[test]
    fn kept_json_is_the_whole_records_fields() {
        let l = labels();
        for r in records(&l) {
            let mut w = JsonLinesWriter::new(Vec::new(), true).with_columns(all());
            w.write(&r).unwrap();
            let whole: serde_json::Map<String, serde_json::Value> =
                serde_json::from_slice(&w.into_inner().unwrap()).unwrap();
            for sel in selections() {
                let keep = Keep::of(sel.iter().copied()).unwrap();
                let cols = Columns {
                    keep: Some(keep),
                    ..all()
                };
                let mut w = JsonLinesWriter::new(Vec::new(), true).with_columns(cols);
                w.write(&r).unwrap();
                let text = String::from_utf8(w.into_inner().unwrap()).unwrap();
                let got: serde_json::Map<String, serde_json::Value> =
                    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
                assert_eq!(got.len(), sel.len(), "{text}");
                // In order (the map does not keep it): each key after the one before.
                let mut at = 0;
                for k in &sel {
                    let key = format!("\"{k}\":");
                    at += text[at..]
                        .find(&key)
                        .unwrap_or_else(|| panic!("{k}: {text}"));
                }
                for (k, v) in &got {
                    assert_eq!(Some(v), whole.get(k), "{k}: {text}");
                }
            }
        }
    }

    /// A kept CSV column, header and value, is the whole record's.
    #[test]
    fn kept_csv_is_the_whole_records_columns() {
        let l = labels();
        let read = |cols: Columns, r: &FlowRecord<'_>| {
            let mut w = CsvWriter::new(Vec::new(), true).with_columns(cols);
            w.write(r).unwrap();
            let text = w.into_inner().unwrap();
            let mut rd = ::csv::Reader::from_reader(&text[..]);
            let h: Vec<String> = rd.headers().unwrap().iter().map(String::from).collect();
            let rows: Vec<Vec<String>> = rd
                .records()
                .map(|x| x.unwrap().iter().map(String::from).collect())
                .collect();
            assert_eq!(rows.len(), 1);
            (h, rows[0].clone())
        };
        for r in records(&l) {
            let (wh, wr) = read(all(), &r);
            assert_eq!(wh.len(), FIELDS.len() + 2);
            for sel in selections() {
                let cols = Columns {
                    keep: Some(Keep::of(sel.iter().copied()).unwrap()),
                    ..all()
                };
                let (h, row) = read(cols, &r);
                assert_eq!(h, sel);
                for (name, v) in h.iter().zip(&row) {
                    let at = wh.iter().position(|x| x == name).unwrap();
                    assert_eq!(v, &wr[at], "{name}");
                }
            }
        }
    }

    /// Both ways of writing a selection give the same bytes, whatever the selection.
    #[test]
    fn both_ways_write_the_same() {
        fn both<S: Syntax>(cols: &Columns, keep: &Keep, r: &FlowRecord<'_>) {
            let (mut few, mut most) = (Vec::new(), Vec::new());
            Selection::Few(Box::new(Selected::new::<S>(cols, keep))).record::<S>(&mut few, r, cols);
            Selection::Most(Kept::new(cols, keep)).record::<S>(&mut most, r, cols);
            assert_eq!(
                String::from_utf8_lossy(&few),
                String::from_utf8_lossy(&most),
                "{keep:?}"
            );
        }
        let l = labels();
        for r in records(&l) {
            for base in [
                all(),
                Columns::default(),
                Columns {
                    with_source: true,
                    ..Columns::default()
                },
            ] {
                let mut sels = selections();
                sels.push(base.names().into_iter().filter(|n| *n != "risks").collect());
                sels.push(base.names().into_iter().skip(1).collect());
                sels.push(base.names().into_iter().rev().skip(1).collect());
                for sel in sels {
                    let keep = Keep::of(sel.iter().copied()).unwrap();
                    let cols = Columns {
                        keep: Some(keep),
                        ..base
                    };
                    both::<crate::json::Json>(&cols, &keep, &r);
                    both::<crate::csv::Csv>(&cols, &keep, &r);
                }
            }
        }
    }

    #[test]
    fn unknown_names_are_refused_by_name() {
        assert_eq!(Keep::of(["src_ip", "nope"]).unwrap_err(), "nope");
        assert!(Keep::of(["source", "ja4", "c2s_rtt_n"]).is_ok());
    }
}
