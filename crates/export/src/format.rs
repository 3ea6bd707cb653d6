//! What JSON lines and CSV share: the one walk over a record's fields in [`crate::FIELDS`] order
//! ([`record`]), parameterised by the format's [`Syntax`], and the room a record can take
//! ([`bound`]), reserved once so that the walk appends without a check ([`Out`]).
//!
//! Issue 37: a record in ≤ 1,500 instructions. By design: one reservation per record; the
//! constant text between values (keys, quotes) appended as whole runs; numbers by fixed-width
//! word arithmetic ([`crate::out`]); metadata, mostly absent, as one constant run when none is
//! set and as runs of it between the set ones otherwise.

#![allow(unsafe_code)]

use crate::out::{
    json_keys, json_room, Cursor, Out, Padded, Padded48, TsDigits, IP_ROOM, TS_ROOM, UINT_ROOM,
};
use crate::{
    l4_name, numeric_meta, FlowRecord, ACT_FIELDS, CORE_FIELDS, CORE_TAIL, DIST_FIELDS, META_COUNT,
    META_FIELDS, META_JSON_NULLS, SPLT_FIELDS, STATS_FIELDS, TCP_FIELDS,
};
use std::io::{self, Write};
use std::net::IpAddr;
use wirespeed_classify::{LabelEntry, Method};
use wirespeed_flow::EndReason;
use wirespeed_risk::Risk;

/// Formatting into a byte buffer, for the writers that build their text piece by piece
/// (events, Arrow's text columns): the record walk's formatting behind a safe call each.
pub(crate) struct Fmt;

impl Fmt {
    #[inline]
    pub(crate) fn int(buf: &mut Vec<u8>, v: impl Into<u64>) {
        let mut o = Out::new(buf, UINT_ROOM);
        // SAFETY: UINT_ROOM reserved.
        unsafe { o.uint(v.into()) }
    }

    #[inline]
    pub(crate) fn ip(buf: &mut Vec<u8>, ip: &IpAddr) {
        let mut o = Out::new(buf, IP_ROOM);
        // SAFETY: IP_ROOM reserved, what either form needs.
        unsafe { ip_text(&mut o, ip) }
    }

    /// `ip`'s text in `buf` (cleared first), as a `str` without a UTF-8 check (the Arrow
    /// writer's address columns: the check cost ~80 instructions an address).
    #[cfg(feature = "arrow")]
    pub(crate) fn ip_str<'b>(buf: &'b mut Vec<u8>, ip: &IpAddr) -> &'b str {
        buf.clear();
        Fmt::ip(buf, ip);
        debug_assert!(buf.is_ascii());
        // SAFETY: `ip_text` writes only ASCII (decimal and hexadecimal digits, `.` and `:`).
        unsafe { std::str::from_utf8_unchecked(buf) }
    }

    /// Seconds with microseconds: `1600000000.123456`.
    #[inline]
    pub(crate) fn ts(buf: &mut Vec<u8>, ns: u64) {
        let mut o = Out::new(buf, TS_ROOM);
        // SAFETY: TS_ROOM reserved.
        unsafe { o.ts(ns) }
    }

    /// A fraction in [0, 1] with two decimals.
    #[cfg(test)]
    pub(crate) fn conf(buf: &mut Vec<u8>, c: f32) {
        let mut o = Out::new(buf, 4);
        // SAFETY: 4 bytes reserved.
        unsafe { o.conf(c) }
    }

    /// A JSON string (RFC 8259), quoted and escaped.
    #[inline]
    pub(crate) fn json_str(buf: &mut Vec<u8>, s: &str) {
        let mut o = Out::new(buf, json_room(s.len()));
        // SAFETY: json_room reserved.
        unsafe { o.json_str(s) }
    }

    /// A CSV field (RFC 4180), quoted when it needs to be.
    #[cfg(test)]
    pub(crate) fn csv_str(buf: &mut Vec<u8>, s: &str) {
        let mut o = Out::new(buf, crate::out::csv_room(s.len()));
        // SAFETY: csv_room reserved.
        unsafe { o.csv_str(s) }
    }
}

/// An address, IPv4 or IPv6.
///
/// # Safety
/// Room for [`IP_ROOM`] bytes.
#[inline(always)]
pub(crate) unsafe fn ip_text(o: &mut Cursor, ip: &IpAddr) {
    match ip {
        IpAddr::V4(a) => o.ipv4(a),
        IpAddr::V6(a) => o.ipv6(a),
    }
}

pub(crate) const FLUSH_AT: usize = 1 << 16;

/// A writer's buffer: [`FLUSH_AT`] and room for a large record past it, so that the reservation
/// of a record ([`bound`]) rarely grows it.
pub(crate) fn record_buffer() -> Vec<u8> {
    Vec::with_capacity(FLUSH_AT + (32 << 10))
}

/// Hand the buffered records to `out` once there are at least `at` bytes of them.
pub(crate) fn flush_at<W: Write>(out: &mut W, buf: &mut Vec<u8>, at: usize) -> io::Result<()> {
    if buf.len() >= at {
        out.write_all(buf)?;
        buf.clear();
    }
    Ok(())
}

/// What differs between the two record formats. The fields and their order are written once,
/// in [`record`]; JSON keys are spelt out at compile time by its `key!` macro and by the key
/// tables.
///
/// Every method appends without a check: its `# Safety` is room for the bytes it may write,
/// which [`bound`] counts.
pub(crate) trait Syntax {
    /// JSON (`"key":value`) rather than CSV (every column, in order).
    const JSON: bool;
    /// Opens and closes a record.
    const OPEN: &'static [u8];
    const CLOSE: &'static [u8];

    /// The most bytes a byte of a string value becomes (`\u00XX` in JSON, a doubled quote
    /// in CSV).
    const ESCAPE: usize = if Self::JSON { 6 } else { 2 };

    /// A string value.
    ///
    /// # Safety
    /// Room for `ESCAPE` × `s.len()` + 2 bytes.
    #[inline(always)]
    unsafe fn str(o: &mut Cursor, s: &str) {
        if Self::JSON {
            o.json_str(s)
        } else {
            o.csv_str(s)
        }
    }

    /// A label's name: as it is, quoted in JSON, when the label is [`LabelEntry::plain`] (no
    /// byte either format escapes or quotes); else as a string.
    ///
    /// # Safety
    /// Room for `ESCAPE` × `s.len()` + 2 bytes.
    #[inline(always)]
    unsafe fn label(o: &mut Cursor, s: &str, plain: bool) {
        if !plain {
            Self::str(o, s);
        } else if Self::JSON {
            o.byte(b'"');
            o.bytes(s.as_bytes());
            o.byte(b'"');
        } else {
            o.bytes(s.as_bytes());
        }
    }

    /// An absent value: `null` in JSON, an empty field in CSV (the one way each format says it).
    ///
    /// # Safety
    /// Room for 4 bytes.
    #[inline(always)]
    unsafe fn null(o: &mut Cursor) {
        if Self::JSON {
            o.bytes(b"null");
        }
    }

    /// A string that is absent when empty.
    ///
    /// # Safety
    /// Room for `ESCAPE` × `s.len()` + 4 bytes.
    #[inline(always)]
    unsafe fn opt_str(o: &mut Cursor, s: &str) {
        if s.is_empty() {
            Self::null(o);
        } else {
            Self::str(o, s);
        }
    }

    /// A metadata value that is a number on the wire (a DNS query type or response code, an
    /// HTTP status): written bare when it is one, absent otherwise (not seen, or a hostile
    /// packet's text where digits belong).
    ///
    /// # Safety
    /// Room for [`UINT_ROOM`] bytes.
    #[inline(always)]
    unsafe fn opt_num(o: &mut Cursor, s: &str) {
        let b = s.as_bytes();
        if b.is_empty() || b.len() > 10 || !b.iter().all(u8::is_ascii_digit) {
            return Self::null(o);
        }
        if b[0] != b'0' || b.len() == 1 {
            // Already the number's own text.
            o.bytes(b);
        } else {
            // Leading zeros would not be a JSON number: write the value, not the text.
            let v = b.iter().fold(0u64, |v, &d| v * 10 + u64::from(d - b'0'));
            o.uint(v);
        }
    }

    /// `true` or `false`.
    ///
    /// # Safety
    /// Room for 5 bytes.
    #[inline(always)]
    unsafe fn bool(o: &mut Cursor, v: bool) {
        o.bytes(if v { b"true" } else { b"false" });
    }
}

/// Which optional groups of fields a writer adds to every record (all off by default).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Columns {
    /// `source` and `pcap`, first (set by the writer's constructor).
    pub with_source: bool,
    /// [`crate::FEATURE_FIELDS`].
    pub features: bool,
    /// [`crate::COMMUNITY_FIELD`].
    pub community: bool,
    /// [`crate::ACT_FIELDS`].
    pub action: bool,
    /// [`crate::DIST_FIELDS`].
    pub dist: bool,
    /// [`crate::TCP_FIELDS`].
    pub tcp: bool,
    /// [`crate::TUNNEL_PARENT_FIELD`] (`--tunnels both`).
    pub tunnel_parent: bool,
    /// Only these of the columns the others select (`--columns`), in the record's order
    /// whatever the order they were named in; None (the default): every one.
    pub keep: Option<Keep>,
}

impl Columns {
    /// Every optional group on, with the source columns, nothing dropped by a [`Columns::keep`]:
    /// the widest record.
    pub const EVERY_GROUP: Columns = Columns {
        with_source: true,
        features: true,
        community: true,
        action: true,
        dist: true,
        tcp: true,
        tunnel_parent: true,
        keep: None,
    };

    /// Is any optional group but `source` on (features, Community ID, action, distributions,
    /// TCP analysis, tunnel parent)?
    pub(crate) fn groups(&self) -> bool {
        self.features
            || self.community
            || self.action
            || self.dist
            || self.tcp
            || self.tunnel_parent
    }

    /// Is `field` (a name of [`crate::FIELDS`]) written?
    pub fn writes(&self, field: &str) -> bool {
        self.selects(field) && self.keep.is_none_or(|k| k.has(field))
    }

    /// Is `field` written by the optional groups these columns ask for, [`Columns::keep`]
    /// aside?
    pub fn selects(&self, field: &str) -> bool {
        (self.features || !crate::FEATURE_FIELDS.contains(&field))
            && (self.community || field != crate::COMMUNITY_FIELD)
            && (self.action || !crate::ACT_FIELDS.contains(&field))
            && (self.dist || !crate::DIST_FIELDS.contains(&field))
            && (self.tcp || !crate::TCP_FIELDS.contains(&field))
            && (self.tunnel_parent || field != crate::TUNNEL_PARENT_FIELD)
    }

    /// The names of the columns written, in order: `source` and `pcap` (with `with_source`),
    /// then [`crate::FIELDS`] as [`Columns::writes`] selects them (the CSV header).
    pub fn names(&self) -> Vec<&'static str> {
        let source: &[&'static str] = if self.with_source {
            &["source", "pcap"]
        } else {
            &[]
        };
        source
            .iter()
            .copied()
            .filter(|f| self.keep.is_none_or(|k| k.has(f)))
            .chain(crate::FIELDS.iter().copied().filter(|f| self.writes(f)))
            .collect()
    }
}

/// The columns a run keeps (`--columns`): a bit for each name of `source`, `pcap` and
/// [`crate::FIELDS`], in that order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Keep {
    bits: [u64; 3],
}

impl Keep {
    /// The index of `name` among `source`, `pcap` and [`crate::FIELDS`].
    fn index(name: &str) -> Option<usize> {
        const { assert!(crate::FIELDS.len() + 2 <= 192) };
        match name {
            "source" => Some(0),
            "pcap" => Some(1),
            _ => crate::FIELDS.iter().position(|f| *f == name).map(|i| i + 2),
        }
    }

    /// Is `name` one of a record's columns (`source`, `pcap` or one of [`crate::FIELDS`])?
    pub fn known(name: &str) -> bool {
        Keep::index(name).is_some()
    }

    /// The columns `names` name; `Err` holds the first name that is no column.
    pub fn of<'a>(names: impl IntoIterator<Item = &'a str>) -> Result<Keep, &'a str> {
        let mut k = Keep::default();
        for n in names {
            let i = Keep::index(n).ok_or(n)?;
            k.bits[i / 64] |= 1 << (i % 64);
        }
        Ok(k)
    }

    /// Is `name` kept?
    pub fn has(&self, name: &str) -> bool {
        Keep::index(name).is_some_and(|i| self.bits[i / 64] & (1 << (i % 64)) != 0)
    }

    /// Is any of `names` kept?
    pub fn any(&self, names: &[&str]) -> bool {
        names.iter().any(|n| self.has(n))
    }
}

/// The room every field is given besides its key and its string's room: more than any value
/// that is not a string takes with the word stores' spill (an IPv6 address in quotes, 50; a
/// number, 25; a time, 32; the lists of the first packets have more, [`FEATURES_ROOM`]).
const VALUE_ROOM: usize = 64;

/// The room of the fields `names`: each its JSON key (`,"name":`, longer than CSV's comma)
/// and [`VALUE_ROOM`].
const fn room_of(names: &[&str]) -> usize {
    let mut n = 0;
    let mut i = 0;
    while i < names.len() {
        n += names[i].len() + 4 + VALUE_ROOM;
        i += 1;
    }
    n
}

/// The fields every record has (and the record's braces and newline).
const CORE_ROOM: usize = room_of(&CORE_FIELDS) + room_of(&CORE_TAIL) + room_of(&STATS_FIELDS) + 3;
/// Each optional group.
const SOURCE_ROOM: usize = room_of(&["source", "pcap"]);
const TUNNEL_PARENT_ROOM: usize = room_of(&[crate::TUNNEL_PARENT_FIELD]);
const COMMUNITY_ROOM: usize = room_of(&[crate::COMMUNITY_FIELD]);
const ACT_ROOM: usize = room_of(&ACT_FIELDS);
pub(crate) const DIST_ROOM: usize = room_of(&DIST_FIELDS);
pub(crate) const TCP_ROOM: usize = room_of(&TCP_FIELDS);
/// The `splt_*` lists: besides their keys, `[`, five numbers of up to 11 characters with their
/// separators, `]`, and the last number's spill.
pub(crate) const FEATURES_ROOM: usize =
    room_of(crate::FEATURE_FIELDS) + SPLT_FIELDS.len() * VALUE_ROOM;
const META_ROOM: usize = room_of(&META_FIELDS);
/// A risk's name and separator, written as one 48-byte store (`RISK_TEXT`, whose build fails on
/// a longer name).
pub(crate) const RISK_ROOM: usize = 64;

/// The most bytes [`record`] writes for `r` with `cols` in `S`, given `meta_len`, the total
/// length of its metadata. Every field is given its key and [`VALUE_ROOM`] (which holds a
/// string's quotes), and the text of its strings [`Syntax::ESCAPE`] bytes a byte; the risk names
/// [`RISK_ROOM`] each.
///
/// The text's length is a sum of lengths of strings in memory (a label's names summed when it was
/// made), some 50 of them at most (below 2^63 on any 64-bit machine): only its product with
/// the escape factor can overflow, and it saturates (a reservation that fails, not a short one).
///
/// `G` false: none of the optional groups but `source` is on (`cols.groups()` false), so that
/// the default record does not test them one by one.
#[inline(always)]
pub(crate) fn bound<S: Syntax, const G: bool>(
    r: &FlowRecord<'_>,
    names: &Names<'_>,
    cols: &Columns,
    meta_len: usize,
) -> usize {
    let mut text = r.tunnel.len()
        + names.label.names_len()
        + r.ip_owner.len()
        + r.stats_app.len()
        + r.stats_class.len()
        + meta_len;
    // At most one name a bit up to the highest set (no population count: not every x86-64
    // has the instruction).
    let risks = (64 - r.risks.bits().leading_zeros()) as usize;
    let mut fixed = CORE_ROOM + META_ROOM + risks * RISK_ROOM;
    if let Some(l) = names.fpc {
        text += l.proto().len();
    }
    if cols.with_source {
        fixed += SOURCE_ROOM;
        text += r.source.map_or(0, str::len) + r.pcap.map_or(0, str::len);
    }
    if !G {
        return fixed.saturating_add(text.saturating_mul(S::ESCAPE));
    }
    if cols.tunnel_parent {
        fixed += TUNNEL_PARENT_ROOM;
    }
    if cols.community {
        fixed += COMMUNITY_ROOM;
    }
    if cols.action {
        fixed += ACT_ROOM;
        text += r.act.as_ref().map_or(0, |a| a.rule.len() + a.action.len());
    }
    if cols.dist {
        fixed += DIST_ROOM;
    }
    if cols.tcp {
        fixed += TCP_ROOM;
        text += r.tcp.as_ref().map_or(0, |t| {
            t.close.len() + t.history().len() + t.conn_state.len()
        });
    }
    if cols.features {
        fixed += FEATURES_ROOM;
    }
    fixed.saturating_add(text.saturating_mul(S::ESCAPE))
}

/// One record in `S`'s syntax, appended to `b`.
#[cfg(any(test, feature = "kafka"))]
#[inline]
pub(crate) fn record<S: Syntax>(b: &mut Vec<u8>, r: &FlowRecord<'_>, cols: &Columns) {
    let d = &mut TsDigits::default();
    if cols.groups() {
        record_with::<S, true>(b, r, cols, d);
    } else {
        record_with::<S, false>(b, r, cols, d);
    }
}

/// [`record`], with `ts` the seconds' digits of the time the writer wrote last: most records
/// begin in the 100 seconds of the one before, whose first eight digits are then not made
/// again. `G` must be `cols.groups()` (false: the optional groups are not tested).
#[inline]
pub(crate) fn record_with<S: Syntax, const G: bool>(
    b: &mut Vec<u8>,
    r: &FlowRecord<'_>,
    cols: &Columns,
    ts: &mut TsDigits,
) {
    let meta = MetaLens::of(&r.meta);
    let labels = Names::of(r);
    debug_assert_eq!(G, cols.groups());
    let room = bound::<S, G>(r, &labels, cols, meta.total);
    let mut o = Out::new(b, room);
    let mut none = Marks::NONE;
    // SAFETY: as `record`.
    unsafe { fields::<S, false, G>(&mut o, r, &labels, cols, &meta, &mut none, ts) }
}

/// The number of groups of eight metadata fields.
const META_GROUPS: usize = META_COUNT.div_ceil(8);

/// The metadata's lengths, in one pass: in all (for the reservation) and by group of eight
/// fields (which groups hold a value, for [`meta_fields`]).
pub(crate) struct MetaLens {
    total: usize,
    groups: [usize; META_GROUPS],
}

impl MetaLens {
    /// Those of `meta`. (No sum can overflow: the strings are in memory.)
    #[inline(always)]
    pub(crate) fn of(meta: &[&str; META_COUNT]) -> MetaLens {
        let mut groups = [0; META_GROUPS];
        for (g, group) in meta.chunks(8).enumerate() {
            groups[g] = group.iter().map(|v| v.len()).sum();
        }
        MetaLens {
            total: groups.iter().sum(),
            groups,
        }
    }
}

/// The number of field offsets a [`Marks`] holds: `source`, `pcap`, [`crate::FIELDS`], and the
/// record's end.
const MARKS: usize = crate::FIELDS.len() + 3;
/// The mark of the record's end (before its closing text).
const END: usize = MARKS - 1;

/// The index of `name` among `source`, `pcap` and [`crate::FIELDS`] (as [`Keep`]'s bits); the
/// build fails on a name that is none.
pub(crate) const fn field_index(name: &str) -> usize {
    const fn eq(a: &str, b: &str) -> bool {
        let (a, b) = (a.as_bytes(), b.as_bytes());
        if a.len() != b.len() {
            return false;
        }
        let mut i = 0;
        while i < a.len() {
            if a[i] != b[i] {
                return false;
            }
            i += 1;
        }
        true
    }
    if eq(name, "source") {
        return 0;
    }
    if eq(name, "pcap") {
        return 1;
    }
    let mut i = 0;
    while i < crate::FIELDS.len() {
        if eq(crate::FIELDS[i], name) {
            return i + 2;
        }
        i += 1;
    }
    panic!("not a field")
}

/// Where each field's text begins (its separator's address) in a record the walk writes for
/// kept columns, by [`field_index`]; [`END`] where the record's closing text begins. The marks
/// the kept runs read are set by every record (the whole record's walk, [`Marks::NONE`], sets
/// none).
pub(crate) struct Marks {
    at: [usize; MARKS],
    /// Which table-written groups (distributions, TCP, features) are split into fields.
    split: [bool; 3],
    /// The metadata fields (a bit each) whose marks the kept runs need.
    meta: u64,
}

impl Marks {
    /// For the whole record's walk, which sets none.
    const NONE: Marks = Marks {
        at: [0; MARKS],
        split: [false; 3],
        meta: 0,
    };

    #[inline(always)]
    fn set(&mut self, i: usize, p: *const u8) {
        if let Some(a) = self.at.get_mut(i) {
            *a = p as usize;
        }
    }

    /// The fields of a group written whole from `from` to `to` (`,"key":value` or `,value` a
    /// field), `n` of them from index `first`: each value's end found in the text when the group
    /// is `split`, else only the first's beginning.
    ///
    /// # Safety
    /// `from` to `to` written, in one allocation.
    #[inline(never)]
    unsafe fn group<S: Syntax>(
        &mut self,
        g: usize,
        from: *const u8,
        to: *const u8,
        first: usize,
        n: usize,
    ) {
        self.set(first, from);
        if !self.split[g] {
            return;
        }
        // SAFETY: written (the caller's promise).
        let t = std::slice::from_raw_parts(from, to.offset_from(from) as usize);
        let mut i = 0;
        let mut k = 0;
        while i < t.len() && k < n {
            self.set(first + k, from.add(i));
            k += 1;
            i = value_end::<S>(t, i);
        }
    }
}

/// Where the field that begins at `i` of `t` (its separator) ends: values are numbers, `null`,
/// booleans, lists of numbers and strings (quoted, escaped).
pub(crate) fn value_end<S: Syntax>(t: &[u8], i: usize) -> usize {
    value_span::<S>(t, i).1
}

/// Where the value of the field that begins at `i` of `t` (its separator) starts and ends.
pub(crate) fn value_span<S: Syntax>(t: &[u8], mut i: usize) -> (usize, usize) {
    // The separator, then the key in JSON (keys are plain names).
    i += 1;
    if S::JSON {
        while i < t.len() && t[i] != b':' {
            i += 1;
        }
        i += 1;
    }
    let start = i;
    match t.get(i) {
        Some(b'"') => {
            i += 1;
            while i < t.len() {
                match t[i] {
                    b'\\' if S::JSON => i += 2,
                    b'"' if !S::JSON && t.get(i + 1) == Some(&b'"') => i += 2,
                    b'"' => return (start.min(i + 1), i + 1),
                    _ => i += 1,
                }
            }
        }
        // A list (JSON only: CSV's are space-separated, bare).
        Some(b'[') if S::JSON => {
            while i < t.len() && t[i] != b']' {
                i += 1;
            }
            i += 1;
        }
        _ => {
            while i < t.len() && t[i] != b',' {
                i += 1;
            }
        }
    }
    let end = i.min(t.len());
    (start.min(end), end)
}

/// The columns `--columns` keeps, as runs of consecutive written fields, for
/// [`record_kept`]: the whole record is written (the same walk, marking where each field
/// begins), then the kept runs are moved together.
pub(crate) struct Kept {
    /// The marks of the record being written, kept between records (every record sets the
    /// ones the runs read: the written fields are the same in each).
    marks: Box<Marks>,
    /// Each run's first field and the field (or [`END`]) after its last.
    runs: Vec<(u16, u16)>,
    /// The record's first field (whose text has no separator before it).
    first: u16,
}

impl Kept {
    /// The columns of `cols` that `keep` keeps.
    pub(crate) fn new(cols: &Columns, keep: &Keep) -> Kept {
        let all = Columns {
            keep: None,
            ..*cols
        };
        let names = all.names();
        let written: Vec<(usize, bool)> = names
            .iter()
            .map(|n| (Keep::index(n).unwrap_or(END), keep.has(n)))
            .collect();
        let mut runs = Vec::new();
        let mut k = 0;
        while k < written.len() {
            if !written[k].1 {
                k += 1;
                continue;
            }
            let s = written[k].0;
            while k < written.len() && written[k].1 {
                k += 1;
            }
            let e = written.get(k).map_or(END, |w| w.0);
            runs.push((s as u16, e as u16));
        }
        // A group written whole is split into its fields only when a kept run begins or ends
        // inside it (its first field's mark is set without).
        let inside = |names: &[&str]| {
            let first = field_index(names[0]);
            let within = |i: u16| (first + 1..first + names.len()).contains(&usize::from(i));
            runs.iter().any(|&(s, e)| within(s) || within(e))
        };
        let m0 = field_index(META_FIELDS[0]);
        let meta = runs
            .iter()
            .flat_map(|&(s, e)| [usize::from(s), usize::from(e)])
            .filter(|&i| (m0..m0 + META_COUNT).contains(&i))
            .fold(0u64, |b, i| b | 1 << (i - m0));
        Kept {
            marks: Box::new(Marks {
                at: [0; MARKS],
                split: [
                    inside(&DIST_FIELDS),
                    inside(&TCP_FIELDS),
                    inside(crate::FEATURE_FIELDS),
                ],
                meta,
            }),
            runs,
            first: written.first().map_or(0, |w| w.0) as u16,
        }
    }
}

/// One record of the columns `kept` keeps of `cols` (whose `keep` is ignored), in `S`'s syntax,
/// appended to `b`: the same bytes as the whole record's less the fields not kept.
#[inline]
pub(crate) fn record_kept<S: Syntax>(
    b: &mut Vec<u8>,
    r: &FlowRecord<'_>,
    cols: &Columns,
    kept: &mut Kept,
) {
    let meta = MetaLens::of(&r.meta);
    let labels = Names::of(r);
    // The whole record's room, and the empty CSV field's quotes.
    let room = bound::<S, true>(r, &labels, cols, meta.total).saturating_add(2);
    let mut o = Out::new(b, room);
    let start = o.at();
    let m = &mut *kept.marks;
    // SAFETY: `bound` reserved, as `record`; the kept runs are moved within what was written
    // (each to at or before where it was), and the closing text (and CSV's `""`) after them fit
    // where the whole record's text was.
    unsafe {
        fields::<S, true, true>(&mut o, r, &labels, cols, &meta, m, &mut TsDigits::default());
        let base = start as *mut u8;
        let mut dst = base.add(S::OPEN.len());
        for (k, &(s, e)) in kept.runs.iter().enumerate() {
            let mut from = m.at[usize::from(s)];
            let to = m.at[usize::from(e)];
            if k == 0 && s != kept.first {
                // The first kept field's separator.
                from += 1;
            }
            let n = to.saturating_sub(from);
            let src = base.add(from - base as usize);
            if src != dst {
                std::ptr::copy(src, dst, n);
            }
            dst = dst.add(n);
        }
        let back = o.at() as usize - dst as usize;
        o.back(back);
        // A CSV row of one column, absent, would be an empty line, which readers skip:
        // `""`, which they read as the empty field it is.
        if !S::JSON && dst == base {
            o.bytes(b"\"\"");
        }
        o.bytes(S::CLOSE);
    }
}

/// [`bound`] as [`record`] computes it, for the tests.
#[cfg(test)]
pub(crate) fn record_bound<S: Syntax>(r: &FlowRecord<'_>, cols: &Columns) -> usize {
    let labels = Names {
        label: r.label_names(),
        fpc: r.fpc.map(|(l, _)| r.labels.get(l)),
    };
    let meta_len = r.meta.iter().map(|v| v.len()).sum();
    bound::<S, true>(r, &labels, cols, meta_len)
}

/// The record's labels, looked up once.
pub(crate) struct Names<'a> {
    /// The verdict's.
    pub(crate) label: &'a LabelEntry,
    /// The first packet's, if any.
    pub(crate) fpc: Option<&'a LabelEntry>,
}

impl<'a> Names<'a> {
    /// Those of `r`.
    #[inline]
    pub(crate) fn of(r: &FlowRecord<'a>) -> Names<'a> {
        Names {
            label: r.label_names(),
            fpc: r.fpc.map(|(l, _)| r.labels.get(l)),
        }
    }
}

/// The fields of one record: the core fields, the optional groups, the early-flow features and
/// the statistical verdict ([`early_fields`]), then the metadata, in [`crate::FIELDS`] order.
///
/// # Safety
/// Room for [`bound`] bytes, `meta` being the record's metadata lengths. `digits`: the last
/// time's first eight digits (its default when none), for [`Cursor::ts_with`].
#[inline(always)]
unsafe fn fields<S: Syntax, const SEL: bool, const G: bool>(
    o: &mut Cursor,
    r: &FlowRecord<'_>,
    names: &Names<'_>,
    cols: &Columns,
    meta: &MetaLens,
    m: &mut Marks,
    digits: &mut TsDigits,
) {
    let Columns {
        with_source,
        features,
        community,
        action,
        dist,
        tcp,
        tunnel_parent,
        keep: _,
    } = *cols;
    // Without `G`, none of the optional groups (the caller's `cols.groups()`), known at build.
    let (features, community, action, dist, tcp, tunnel_parent) = (
        G && features,
        G && community,
        G && action,
        G && dist,
        G && tcp,
        G && tunnel_parent,
    );
    // Before a field: `,"name":` in JSON, `,` in CSV; with `open`, a quote after it in JSON
    // (the value is quoted there, bare in CSV); with `close`, the previous value's closing quote
    // before it.
    macro_rules! key {
        ($name:literal) => {
            key!(@ "", $name, "")
        };
        ($name:literal, open) => {
            key!(@ "", $name, "\"")
        };
        (close, $name:literal) => {
            key!(@ "\"", $name, "")
        };
        (close, $name:literal, open) => {
            key!(@ "\"", $name, "\"")
        };
        (@ $pre:literal, $name:literal, $post:literal) => {
            if SEL {
                // After the closing quote of the value before.
                m.set(const { field_index($name) }, o.at().add(if S::JSON { $pre.len() } else { 0 }));
            }
            if S::JSON {
                o.bytes(concat!($pre, ",\"", $name, "\":", $post).as_bytes());
            } else {
                o.byte(b',');
            }
        };
    }
    o.bytes(S::OPEN);
    if SEL {
        m.set(const { field_index("source") }, o.at());
        m.set(const { field_index("flow_id") }, o.at());
    }
    if with_source {
        if S::JSON {
            o.bytes(b"\"source\":");
        }
        S::str(o, r.source.unwrap_or(""));
        key!("pcap");
        S::opt_str(o, r.pcap.unwrap_or(""));
        if SEL {
            m.set(const { field_index("flow_id") }, o.at());
        }
        o.byte(b',');
    }
    if S::JSON {
        o.bytes(b"\"flow_id\":");
    }
    o.uint(r.flow_id);
    key!("src_ip", open);
    ip_text(o, &r.src_ip);
    key!(close, "src_port");
    o.uint(r.src_port.into());
    key!("dst_ip", open);
    ip_text(o, &r.dst_ip);
    key!(close, "dst_port");
    o.uint(r.dst_port.into());
    let syntax = usize::from(S::JSON);
    if SEL {
        // The two fields of the run apart, as it writes them.
        key!("l4");
        let l4 = l4_name(r.l4);
        if S::JSON {
            o.byte(b'"');
        }
        match l4 {
            Some(n) => o.bytes(n.as_bytes()),
            None => o.uint(r.l4.into()),
        }
        if S::JSON {
            o.byte(b'"');
        }
        key!("ip_proto");
        o.uint(r.l4.into());
    } else {
        o.padded(&L4_RUNS[syntax][usize::from(r.l4)]);
    }
    if !SEL && r.vlan == 0 && r.tunnel.is_empty() {
        // Most records: no VLAN tag, no tunnel, the two fields as one constant text.
        o.bytes(if S::JSON {
            b",\"vlan\":0,\"tunnel\":null"
        } else {
            b",0,"
        });
    } else {
        key!("vlan");
        o.uint(r.vlan.into());
        key!("tunnel");
        S::opt_str(o, r.tunnel);
    }
    if tunnel_parent {
        key!("tunnel_parent");
        match r.tunnel_parent {
            Some(id) => o.uint(id),
            None => S::null(o),
        }
    }
    // The first eight digits of the two times, when they are the same (most flows are
    // shorter than the 100 seconds they span), converted once.
    key!("first_ts");
    let first_at = o.at();
    o.ts_with(r.first_ts_ns, digits);
    let first_len = o.at().offset_from(first_at) as usize;
    key!("last_ts");
    if r.last_ts_ns / 1000 == r.first_ts_ns / 1000 {
        // The same microsecond (most flows: a packet, or two at once): the first time's text
        // again, and a duration of less than a microsecond, written as `o.duration` writes it.
        // SAFETY: the first time's text, written just before the key, in this allocation; the
        // copy goes after the key, past it.
        o.bytes(std::slice::from_raw_parts(first_at, first_len));
        key!("duration");
        o.bytes(b"0.000000");
    } else {
        o.ts_with(r.last_ts_ns, digits);
        key!("duration");
        o.duration(r.last_ts_ns.saturating_sub(r.first_ts_ns));
    }
    key!("c2s_pkts");
    o.uint(r.c2s_pkts);
    key!("c2s_bytes");
    o.uint(r.c2s_bytes);
    key!("s2c_pkts");
    o.uint(r.s2c_pkts);
    key!("s2c_bytes");
    o.uint(r.s2c_bytes);
    if SEL {
        m.set(const { field_index("end_reason") }, o.at());
    }
    o.padded(&END_REASON_RUNS[syntax][end_reason_at(r.end_reason)]);
    // Names from the registry, most of them plain: written as they are, each between the
    // quotes that end and begin the keys around it in JSON.
    let label = names.label;
    if label.plain() {
        key!("proto", open);
        o.bytes(label.proto().as_bytes());
        key!(close, "app", open);
        o.bytes(label.app().as_bytes());
        key!(close, "master", open);
        o.bytes(label.master().as_bytes());
        key!(close, "category", open);
        o.bytes(label.category().as_bytes());
        if S::JSON {
            o.byte(b'"');
        }
    } else {
        key!("proto");
        S::str(o, label.proto());
        key!("app");
        S::str(o, label.app());
        key!("master");
        S::str(o, label.master());
        key!("category");
        S::str(o, label.category());
    }
    key!("ip_owner");
    S::opt_str(o, r.ip_owner);
    if SEL {
        m.set(const { field_index("method") }, o.at());
    }
    o.padded(&METHOD_RUNS[syntax][method_at(r.method)]);
    key!("confidence");
    o.conf(r.confidence);
    key!("ttb_pkts");
    o.uint(r.ttb_pkts.into());
    key!("ttb_us");
    o.uint(r.ttb_us);
    key!("fpc");
    match names.fpc {
        Some(f) => S::label(o, f.proto(), f.plain()),
        None => S::null(o),
    }
    if SEL {
        m.set(const { field_index("fpc_method") }, o.at());
    }
    o.padded(&FPC_METHOD_RUNS[syntax][method_at(r.fpc.map(|f| f.1))]);
    key!("encrypted");
    S::bool(o, r.encrypted);
    // nDPI's names, `;`-separated, with the score in the same pass; absent when there is none.
    key!("risks");
    let mut score = 0u32;
    let mut bits = r.risks.bits();
    if bits == 0 {
        S::null(o);
    } else {
        if S::JSON {
            o.byte(b'"');
        }
        // Each name from a table with its `;` after it, in id order; the last `;` taken back
        // (a set holds only ids that name a risk, so a name was written).
        let start = o.at();
        while bits != 0 {
            let t = &RISK_TEXT[bits.trailing_zeros() as usize & 63];
            bits &= bits - 1;
            o.padded(&t.text);
            score += u32::from(t.score);
        }
        if o.at() != start {
            o.back(1);
        }
        if S::JSON {
            o.byte(b'"');
        }
    }
    key!("risk_score");
    o.uint(score.into());
    if community {
        // Undefined (ICMP, whose ID needs the message type): null in JSON, empty in CSV.
        key!("community_id");
        match crate::community::id_text((r.src_ip, r.src_port), (r.dst_ip, r.dst_port), r.l4) {
            Some(id) => {
                if S::JSON {
                    o.byte(b'"');
                }
                o.bytes(&id);
                if S::JSON {
                    o.byte(b'"');
                }
            }
            None => S::null(o),
        }
    }
    if action {
        // Absent (a record of a run that did not act): null in JSON, empty in CSV.
        match r.act.as_ref() {
            Some(a) => {
                key!("rule");
                S::str(o, a.rule);
                key!("action");
                S::str(o, a.action);
                key!("dropped_pkts");
                o.uint(a.dropped_pkts);
                key!("dropped_bytes");
                o.uint(a.dropped_bytes);
                key!("bound");
                S::bool(o, a.bound);
            }
            None => {
                for (i, k) in ACT_KEYS.iter().enumerate() {
                    if SEL {
                        m.set(const { field_index(ACT_FIELDS[0]) } + i, o.at());
                    }
                    key::<S>(o, k);
                    S::null(o);
                }
            }
        }
    }
    if dist {
        let at = o.at();
        *o = dist_fields::<S>(*o, r);
        if SEL {
            m.group::<S>(
                0,
                at,
                o.at(),
                const { field_index(DIST_FIELDS[0]) },
                DIST_FIELDS.len(),
            );
        }
    }
    if tcp {
        let at = o.at();
        *o = tcp_fields::<S>(*o, r);
        if SEL {
            m.group::<S>(
                1,
                at,
                o.at(),
                const { field_index(TCP_FIELDS[0]) },
                TCP_FIELDS.len(),
            );
        }
    }
    if features {
        let at = o.at();
        *o = feature_fields::<S>(*o, r);
        if SEL {
            let first = const { field_index(crate::FEATURE_FIELDS[0]) };
            m.group::<S>(2, at, o.at(), first, crate::FEATURE_FIELDS.len());
        }
    }
    early_fields::<S, SEL>(o, r, m);
    meta_fields::<S, SEL>(o, r, meta, m);
    if SEL {
        m.set(END, o.at());
    }
    o.bytes(S::CLOSE);
}

/// The fields whose values come from a small set, pre-rendered with their keys for each value:
/// `[CSV, JSON]`, then the value's index.
type Runs<const N: usize> = [[Padded; N]; 2];

/// A field of a value from a small set: `,"key":"value"` (`,"key":null` without one) in
/// JSON, `,value` (`,`) in CSV.
const fn run(json: bool, key: &str, value: Option<&str>) -> Padded {
    match (json, value) {
        (true, Some(v)) => Padded::new(&[",\"", key, "\":\"", v, "\""]),
        (true, None) => Padded::new(&[",\"", key, "\":null"]),
        (false, v) => Padded::new(&[
            ",",
            match v {
                Some(v) => v,
                None => "",
            },
        ]),
    }
}

/// `l4` and `ip_proto` for each IP protocol number: `l4` the keyword (or the number, as text),
/// `ip_proto` the number.
static L4_RUNS: Runs<256> = {
    let mut t = [[Padded::EMPTY; 256]; 2];
    let mut p = 0;
    while p < 256 {
        let n = p as u8;
        let (json, csv) = match l4_name(n) {
            Some(k) => (Padded::new(&[",\"l4\":\"", k]), Padded::new(&[",", k])),
            None => (
                Padded::new(&[",\"l4\":\""]).push_u8(n),
                Padded::new(&[","]).push_u8(n),
            ),
        };
        t[1][p] = json.push("\",\"ip_proto\":").push_u8(n);
        t[0][p] = csv.push(",").push_u8(n);
        p += 1;
    }
    t
};

/// A risk's name and `;` (48 bytes at most, padded) and its score, by nDPI id; an id that
/// names no risk is never set in a `RiskSet`.
struct RiskText {
    text: Padded48,
    score: u16,
}

const RISK_TEXT: [RiskText; 64] = {
    const NONE: RiskText = RiskText {
        text: Padded48::EMPTY,
        score: 0,
    };
    let mut t = [NONE; 64];
    let mut id = 0;
    while id < 64 {
        if let Some(r) = Risk::from_id(id as u8) {
            t[id] = RiskText {
                text: Padded48::new(&[r.name(), ";"]),
                score: r.score(),
            };
        }
        id += 1;
    }
    t
};

/// Every end reason, in [`end_reason_at`]'s order.
const END_REASONS: [EndReason; 6] = [
    EndReason::Idle,
    EndReason::Fin,
    EndReason::Rst,
    EndReason::Evicted,
    EndReason::EndOfInput,
    EndReason::Active,
];

#[inline(always)]
const fn end_reason_at(e: EndReason) -> usize {
    match e {
        EndReason::Idle => 0,
        EndReason::Fin => 1,
        EndReason::Rst => 2,
        EndReason::Evicted => 3,
        EndReason::EndOfInput => 4,
        EndReason::Active => 5,
    }
}

/// Every method, in [`method_at`]'s order (after None).
const METHODS: [Method; 7] = [
    Method::Ip,
    Method::Port,
    Method::Dpt,
    Method::DnsCache,
    Method::Stats,
    Method::HostCache,
    Method::Dpi,
];

#[inline(always)]
const fn method_at(m: Option<Method>) -> usize {
    match m {
        None => 0,
        Some(Method::Ip) => 1,
        Some(Method::Port) => 2,
        Some(Method::Dpt) => 3,
        Some(Method::DnsCache) => 4,
        Some(Method::Stats) => 5,
        Some(Method::HostCache) => 6,
        Some(Method::Dpi) => 7,
    }
}

const END_REASON_RUNS: Runs<6> = {
    let mut t = [[Padded::EMPTY; 6]; 2];
    let mut i = 0;
    while i < END_REASONS.len() {
        let e = END_REASONS[i];
        assert!(end_reason_at(e) == i);
        t[0][i] = run(false, "end_reason", Some(e.as_str()));
        t[1][i] = run(true, "end_reason", Some(e.as_str()));
        i += 1;
    }
    t
};

/// `method` or `fpc_method`: None, then [`METHODS`].
const fn method_runs(key: &str) -> Runs<8> {
    let mut t = [[run(false, key, None); 8], [run(true, key, None); 8]];
    let mut i = 0;
    while i < METHODS.len() {
        let m = METHODS[i];
        assert!(method_at(Some(m)) == i + 1);
        t[0][i + 1] = run(false, key, Some(m.as_str()));
        t[1][i + 1] = run(true, key, Some(m.as_str()));
        i += 1;
    }
    t
}

const METHOD_RUNS: Runs<8> = method_runs("method");
const FPC_METHOD_RUNS: Runs<8> = method_runs("fpc_method");

/// `,"name":null` for every metadata field ([`META_JSON_NULLS`]), and where each field's starts
/// in it.
const META_NULLS: (&[u8], [usize; META_COUNT + 1]) = {
    let mut at = [0usize; META_COUNT + 1];
    let mut i = 0;
    while i < META_COUNT {
        at[i + 1] = at[i] + META_FIELDS[i].len() + 8;
        i += 1;
    }
    (META_JSON_NULLS.as_bytes(), at)
};

/// A comma for every metadata field: the CSV runs of absent ones.
const META_COMMAS: [u8; META_COUNT] = [b','; META_COUNT];

/// The JSON keys of the groups written from tables.
const META_KEYS: [Padded; META_COUNT] = json_keys(&META_FIELDS);
const ACT_KEYS: [Padded; ACT_FIELDS.len()] = json_keys(&ACT_FIELDS);
const DIST_KEYS: [Padded; DIST_FIELDS.len()] = json_keys(&DIST_FIELDS);
const TCP_KEYS: [Padded; TCP_FIELDS.len()] = json_keys(&TCP_FIELDS);
const ATOZ_KEYS: [Padded; 12] = json_keys(&wirespeed_stats::ATOZ_NAMES);
/// The `splt_*` keys, each with the list's opening bracket in JSON.
const SPLT_KEYS: [Padded; 4] = [
    Padded::new(&[",\"", SPLT_FIELDS[0], "\":["]),
    Padded::new(&[",\"", SPLT_FIELDS[1], "\":["]),
    Padded::new(&[",\"", SPLT_FIELDS[2], "\":["]),
    Padded::new(&[",\"", SPLT_FIELDS[3], "\":["]),
];

/// The metadata fields, every one in every record (the columns depend on options only), absent
/// ones as the format's null: most flows have none, and get the whole run of them in one copy;
/// the others, the runs between the fields that are set.
///
/// # Safety
/// Room for [`META_ROOM`] and [`Syntax::ESCAPE`] × `meta.total` bytes, `meta` being `r`'s.
#[inline(always)]
unsafe fn meta_fields<S: Syntax, const SEL: bool>(
    o: &mut Cursor,
    r: &FlowRecord<'_>,
    meta: &MetaLens,
    m: &mut Marks,
) {
    let (nulls, at) = META_NULLS;
    let first = const { field_index(META_FIELDS[0]) };
    // The absent fields from..to.
    let run = |o: &mut Cursor, m: &mut Marks, from: usize, to: usize| {
        if SEL {
            // Each that begins or ends a kept run, where it begins in the constant text.
            let mut bits = m.meta & (u64::MAX << from) & !(u64::MAX << to);
            while bits != 0 {
                let i = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let off = if S::JSON { at[i] - at[from] } else { i - from };
                m.set(first + i, o.at().add(off));
            }
        }
        if S::JSON {
            o.bytes(&nulls[at[from]..at[to]]);
        } else {
            o.bytes(&META_COMMAS[..to - from]);
        }
    };
    if meta.total == 0 {
        return run(o, m, 0, META_COUNT);
    }
    // Which are set, as bits (a branch-free pass over each group of eight that holds one:
    // a flow's metadata is mostly one protocol's), then the runs between them.
    let mut set = 0u64;
    for (g, group) in r.meta.chunks(8).enumerate() {
        if meta.groups[g] != 0 {
            for (j, v) in group.iter().enumerate() {
                set |= u64::from(!v.is_empty()) << (8 * g + j);
            }
        }
    }
    let mut from = 0;
    while set != 0 {
        let i = set.trailing_zeros() as usize;
        set &= set - 1;
        let Some(v) = r.meta.get(i) else { break };
        run(o, m, from, i);
        if SEL {
            m.set(first + i, o.at());
        }
        key::<S>(o, &META_KEYS[i]);
        if numeric_meta(i) {
            S::opt_num(o, v);
        } else {
            S::str(o, v);
        }
        from = i + 1;
    }
    run(o, m, from, META_COUNT);
}

/// A field's key: `,"name":` in JSON (from a key table), `,` in CSV.
///
/// # Safety
/// Room for 32 bytes.
#[inline(always)]
unsafe fn key<S: Syntax>(o: &mut Cursor, k: &Padded) {
    if S::JSON {
        o.padded(k);
    } else {
        o.byte(b',');
    }
}

/// Every field of `keys` absent (null in JSON, empty in CSV).
///
/// # Safety
/// Room for 36 bytes a key.
#[inline(always)]
unsafe fn absent<S: Syntax>(o: &mut Cursor, keys: &[Padded]) {
    for k in keys {
        key::<S>(o, k);
        S::null(o);
    }
}

/// The `c2s_*` / `s2c_*` distribution fields ([`crate::DIST_FIELDS`], in its order); null in
/// JSON, empty in CSV, when the record has none.
///
/// # Safety
/// Room for [`DIST_ROOM`] bytes.
#[inline(never)]
pub(crate) unsafe fn dist_fields<S: Syntax>(mut c: Cursor, r: &FlowRecord<'_>) -> Cursor {
    let o = &mut c;
    let Some(d) = r.dist.as_ref() else {
        absent::<S>(o, &DIST_KEYS);
        return c;
    };
    let mut keys = DIST_KEYS.iter();
    let mut key = |o: &mut Cursor| {
        if let Some(k) = keys.next() {
            key::<S>(o, k);
        }
    };
    for dir in [&d.c2s, &d.s2c] {
        // No packet this way: sizes absent; no gap: gaps absent.
        let sizes = dir.packets > 0;
        let gaps = dir.gaps > 0;
        key(o);
        if sizes {
            o.uint(dir.size_min.into())
        } else {
            S::null(o)
        }
        key(o);
        if sizes {
            o.fixed3(dir.size_mean)
        } else {
            S::null(o)
        }
        key(o);
        if sizes {
            o.uint(dir.size_max.into())
        } else {
            S::null(o)
        }
        key(o);
        if sizes {
            o.fixed3(dir.size_std)
        } else {
            S::null(o)
        }
        for v in [
            dir.gap_min_us,
            dir.gap_mean_us,
            dir.gap_max_us,
            dir.gap_std_us,
        ] {
            key(o);
            if gaps {
                o.fixed3(v)
            } else {
                S::null(o)
            }
        }
        for n in dir.flags {
            key(o);
            o.uint(n.into());
        }
    }
    c
}

/// The TCP analysis fields ([`crate::TCP_FIELDS`], in its order); null in JSON, empty in CSV,
/// when the record has none (not TCP) or a value is unknown.
///
/// # Safety
/// Room for [`TCP_ROOM`] bytes and the strings' (`close`, `history`, `conn_state`).
#[inline(never)]
pub(crate) unsafe fn tcp_fields<S: Syntax>(mut c: Cursor, r: &FlowRecord<'_>) -> Cursor {
    let o = &mut c;
    let Some(t) = r.tcp.as_ref() else {
        absent::<S>(o, &TCP_KEYS);
        return c;
    };
    let mut keys = TCP_KEYS.iter();
    let mut key = |o: &mut Cursor| {
        if let Some(k) = keys.next() {
            key::<S>(o, k);
        }
    };
    unsafe fn opt<S: Syntax>(o: &mut Cursor, v: Option<impl Into<u64>>) {
        match v {
            Some(v) => o.uint(v.into()),
            None => S::null(o),
        }
    }
    unsafe fn flag<S: Syntax>(o: &mut Cursor, v: Option<bool>) {
        match v {
            Some(v) => S::bool(o, v),
            None => S::null(o),
        }
    }
    for d in [&t.c2s, &t.s2c] {
        let rtt = d.rtt_n > 0;
        key(o);
        o.uint(d.retrans.into());
        key(o);
        o.uint(d.retrans_bytes);
        key(o);
        o.uint(d.ooo.into());
        key(o);
        o.uint(d.dup.into());
        key(o);
        o.uint(d.rtt_n.into());
        key(o);
        opt::<S>(o, rtt.then_some(d.rtt_min_us));
        key(o);
        if rtt {
            o.fixed3(d.rtt_mean_us)
        } else {
            S::null(o)
        }
        key(o);
        opt::<S>(o, rtt.then_some(d.rtt_max_us));
        key(o);
        if rtt {
            o.fixed3(d.rtt_std_us)
        } else {
            S::null(o)
        }
        key(o);
        opt::<S>(o, d.ttl.map(|t| t.0));
        key(o);
        opt::<S>(o, d.ttl.map(|t| t.1));
        key(o);
        opt::<S>(o, d.mss);
        key(o);
        opt::<S>(o, d.wscale);
        key(o);
        flag::<S>(o, d.sack_ok);
        key(o);
        flag::<S>(o, d.ts_ok);
        key(o);
        opt::<S>(o, d.win_init);
        key(o);
        o.uint(d.zero_win.into());
        key(o);
        o.uint(d.unique_bytes);
        key(o);
        opt::<S>(o, d.first_payload_us);
        key(o);
        opt::<S>(o, d.last_payload_us);
    }
    key(o);
    opt::<S>(o, t.hs_rtt_us);
    key(o);
    S::opt_str(o, t.close);
    key(o);
    S::opt_str(o, t.history());
    key(o);
    S::opt_str(o, t.conn_state);
    c
}

/// The `splt_*` and `atoz_*` fields (when `features`), then `stats_*`: JSON (arrays, null for
/// undefined) or CSV (space-separated lists, empty for undefined).
///
/// # Safety
/// Room for [`FEATURES_ROOM`] bytes when `features`, and the `stats_*` fields' (in
/// [`CORE_ROOM`], with their strings').
#[inline(always)]
unsafe fn early_fields<S: Syntax, const SEL: bool>(
    o: &mut Cursor,
    r: &FlowRecord<'_>,
    m: &mut Marks,
) {
    if SEL {
        m.set(const { field_index("stats_app") }, o.at());
    }
    // The model did not run: all three absent.
    let ran = !r.stats_app.is_empty();
    if S::JSON {
        o.bytes(b",\"stats_app\":");
    } else {
        o.byte(b',');
    }
    S::opt_str(o, r.stats_app);
    if SEL {
        m.set(const { field_index("stats_class") }, o.at());
    }
    if S::JSON {
        o.bytes(b",\"stats_class\":");
    } else {
        o.byte(b',');
    }
    S::opt_str(o, r.stats_class);
    if SEL {
        m.set(const { field_index("stats_score") }, o.at());
    }
    if S::JSON {
        o.bytes(b",\"stats_score\":");
    } else {
        o.byte(b',');
    }
    if ran {
        o.conf(r.stats_score);
    } else {
        S::null(o);
    }
}

/// # Safety
/// Room for [`FEATURES_ROOM`] bytes.
#[inline(never)]
pub(crate) unsafe fn feature_fields<S: Syntax>(mut c: Cursor, r: &FlowRecord<'_>) -> Cursor {
    let o = &mut c;
    use wirespeed_stats::SizeMode;
    let e = &r.early;
    let n = e.len();
    let sep = if S::JSON { b',' } else { b' ' };
    for (li, k) in SPLT_KEYS.iter().enumerate() {
        key::<S>(o, k);
        let items = if li == 2 { n.saturating_sub(1) } else { n };
        for i in 0..items {
            if i > 0 {
                o.byte(sep);
            }
            match li {
                0 => o.int(e.signed(i, SizeMode::Ip).into()),
                1 => o.int(e.signed(i, SizeMode::Payload).into()),
                2 => o.uint(e.iat_us[i].into()),
                _ => o.uint(e.flags[i].into()),
            }
        }
        if S::JSON {
            o.byte(b']');
        }
    }
    let f = e.atoz(r.l4, r.dst_port);
    for (k, v) in ATOZ_KEYS.iter().zip(f) {
        key::<S>(o, k);
        if (0.0..1e15).contains(&v) {
            // Two decimals by integer formatting (no float formatter on the record path).
            // v * 100 is exact in f64 (an f32 times 100), and so is adding 0.5 below 1e17:
            // truncating is `round`, without its libm call (`atoz_rounding_is_round`).
            let h = (f64::from(v) * 100.0 + 0.5) as u64;
            o.uint(h / 100);
            if !h.is_multiple_of(100) {
                o.byte(b'.');
                o.byte(b'0' + (h % 100 / 10) as u8);
                o.byte(b'0' + (h % 10) as u8);
            }
        } else {
            S::null(o);
        }
    }
    c
}

/// The program's own names that the pre-rendered runs hold as they are (end reasons, methods,
/// IP protocol keywords), for their test.
#[cfg(test)]
pub(crate) fn static_names() -> Vec<&'static str> {
    let mut v: Vec<&str> = [
        EndReason::Idle,
        EndReason::Fin,
        EndReason::Rst,
        EndReason::Evicted,
        EndReason::EndOfInput,
        EndReason::Active,
    ]
    .iter()
    .map(|e| e.as_str())
    .collect();
    v.extend(
        [
            Method::Port,
            Method::Ip,
            Method::Dpt,
            Method::DnsCache,
            Method::Stats,
            Method::Dpi,
            Method::HostCache,
        ]
        .iter()
        .map(|m| m.as_str()),
    );
    v.extend((0..=255).filter_map(l4_name));
    v
}

#[cfg(test)]
mod fmt_tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn key_tables_are_the_names() {
        for (keys, names) in [
            (&META_KEYS[..], &META_FIELDS[..]),
            (&ACT_KEYS, &ACT_FIELDS),
            (&DIST_KEYS, &DIST_FIELDS),
            (&TCP_KEYS, &TCP_FIELDS),
            (&ATOZ_KEYS, &wirespeed_stats::ATOZ_NAMES),
        ] {
            assert_eq!(keys.len(), names.len());
            for (k, n) in keys.iter().zip(names) {
                assert_eq!(k.as_bytes(), format!(",\"{n}\":").as_bytes());
            }
        }
        let (text, at) = META_NULLS;
        for (i, n) in META_FIELDS.iter().enumerate() {
            assert_eq!(&text[at[i]..at[i + 1]], format!(",\"{n}\":null").as_bytes());
        }
        assert_eq!(at[META_COUNT], text.len());
    }

    /// The runs hold these as they are, in both formats: nothing to escape or quote.
    #[test]
    fn static_names_need_no_escape() {
        for n in static_names() {
            assert!(
                !n.is_empty()
                    && n.bytes()
                        .all(|b| b.is_ascii_graphic() && !matches!(b, b'"' | b'\\' | b',')),
                "{n:?}"
            );
        }
    }

    /// Risk names are written as they are, and each takes at most [`RISK_ROOM`] with its `;`.
    #[test]
    fn risk_names_fit() {
        for r in wirespeed_risk::Risk::ALL {
            let n = r.name();
            assert!(n.len() < RISK_ROOM, "{n}");
            assert!(
                n.bytes()
                    .all(|b| (0x20..0x7f).contains(&b) && !matches!(b, b'"' | b'\\' | b',')),
                "{n:?}"
            );
        }
    }

    proptest! {
        /// Seconds, a point and six decimals of microseconds (truncated), as `format!` writes them.
        #[test]
        fn timestamps_are_seconds_and_six_decimals(ns in any::<u64>()) {
            let mut b = Vec::new();
            Fmt::ts(&mut b, ns);
            let want = format!("{}.{:06}", ns / 1_000_000_000, ns % 1_000_000_000 / 1000);
            prop_assert_eq!(String::from_utf8(b).unwrap(), want);
        }

        /// Two decimals, rounded half away from zero, of the value clamped to [0, 1].
        #[test]
        fn confidences_have_two_decimals(c in any::<f32>()) {
            let mut b = Vec::new();
            Fmt::conf(&mut b, c);
            let v = if c.is_finite() { c.clamp(0.0, 1.0) } else { 0.0 };
            let want = format!("{:.2}", (f64::from(v * 100.0)).round() / 100.0 + 0.0);
            prop_assert_eq!(String::from_utf8(b).unwrap(), want);
        }

        /// The AtoZ values' hundredths by adding 0.5 and truncating are `round`'s, over the
        /// range written.
        #[test]
        fn atoz_rounding_is_round(v in prop_oneof![0f32..1e15, 0f32..1000.0, (0u32..100_000).prop_map(|c| c as f32 / 200.0)]) {
            let x = f64::from(v) * 100.0;
            prop_assert_eq!((x + 0.5) as u64, x.round() as u64);
        }
    }
}
