//! Host-name rules: the service behind a host name (TLS SNI, HTTP Host, DNS query name,
//! certificate name), from lists of patterns such as `data/app_hosts.csv` (`googlevideo.com` →
//! `YouTube`).
//!
//! # Matching
//!
//! Names are compared without regard to ASCII case. A pattern is one of two kinds:
//!
//! * **Suffix** (any pattern not ending in `.` or `-`): matches a name equal to it, or ending
//!   with it right after a `.` — `ws.amazon.com` matches `ws.amazon.com` and `a.ws.amazon.com`,
//!   not `aws.amazon.com` nor `a-ws.amazon.com`. A pattern that starts with `.` or `-` carries its
//!   own boundary and matches any name ending with it: `-buy.itunes.apple.com` matches
//!   `p52-buy.itunes.apple.com`.
//! * **Label start** (a pattern ending in `.` or `-`): matches where a name *or one of its
//!   labels* starts with it — `youtube.` matches `youtube.com`, `youtube.co.uk` and
//!   `www.youtube.com`; `fbcdn-` matches `fbcdn-video.example` and `scontent.fbcdn-x.net`. A
//!   label starts at the name's start and after each `.` or `-` (and a pattern that starts with
//!   `.` or `-` may start at one). The shared data notes say "at the start of the name"; nDPI
//!   matches after any `.` or `-` as here, and on nDPI's own test captures the start-of-name
//!   reading gives nDPI's application for 738 of 864 flows instead of 794 (`www.youtube.com`
//!   with only `youtube.` in the list, among them).
//!
//! When several patterns match, the best is, in order:
//! 1. a pattern equal to the whole name;
//! 2. the one with more labels (`a.b.c` has 3; `.googlezip.net` and `googlezip.net` 2;
//!    `googleads.` 1);
//! 3. a label-start pattern over a suffix one (nDPI finds it first in its left-to-right scan:
//!    `guzzoni.apple.` names `guzzoni.apple.com` rather than `apple.com`);
//! 4. the rule loaded first.
//!
//! Adding a pattern that is already there (in any case) replaces its application, keeping its
//! place: an operator's list loaded after the built-in one overrides it.
//!
//! # The looked-up name
//!
//! Names come from hostile packets. [`HostRules::lookup`] trims ASCII white space, drops a
//! leading `*.` (a wildcard certificate name), an HTTP Host port (`host:8080`) and one trailing
//! `.` (a fully qualified name). A name with two or more `:` (an IPv6 literal), one that starts
//! with `[`, an empty one or one longer than [`MAX_NAME_LEN`] bytes after that matches nothing.
//! Bytes that are not ASCII are compared as they are (patterns are ASCII, so they never match
//! there). A lookup never panics and never allocates: the name is lower-cased into a buffer on
//! the stack.
//!
//! # Layout and cost
//!
//! Suffix patterns are in an open-addressing hash table keyed by a hash computed over the name
//! from its end, so one pass over the name gives the hash of every suffix; the table is probed
//! at the name's start, after each `.` and at each `.` or `-`: one probe per label boundary, and
//! a byte comparison only when a 32-bit tag in the slot agrees. Label-start patterns are in a
//! byte trie (the root's children in a 256-entry table) walked from each label start, as deep as
//! the name follows a pattern: at most the longest such pattern (35 bytes in the shipped list).
//! A lookup costs the name's length plus a few probes per label, at worst the length times the
//! longest label-start pattern; no allocation. Built once at load; [`HostRules::add`] inserts
//! into both in place.
//!
//! Measured (`tests/hosts_corpus.rs`, release, on a busy 2-core AMD EPYC VM): the shipped list
//! (1,015 rules) builds in 0.6 to 1.5 ms and holds about 140 KiB; a lookup of the corpus's 2,219
//! host names (mean 16 bytes) takes 60 to 120 ns, a 254-byte name of 127 one-letter labels
//! (`a-a-…`, each label start a trie step) about 1.2 µs.

use crate::category;
use crate::csvrows;
use crate::labels::Breed;
use std::collections::HashMap;
use std::fmt;

/// Longest name looked up, and longest pattern: a DNS name is at most 255 bytes.
pub const MAX_NAME_LEN: usize = 255;
/// Most rules one [`HostRules`] holds.
pub const MAX_RULES: usize = 1 << 20;
/// Largest text [`HostRules::load_csv`] reads at once, bytes.
pub const MAX_TEXT_LEN: usize = 64 << 20;
/// Longest application name, bytes.
pub const MAX_APP_LEN: usize = 64;
/// The columns of a rules file, in order (the header line).
pub const CSV_HEADER: [&str; 4] = ["pattern", "app", "category", "breed"];

/// A distinct (application, category, breed) of a [`HostRules`], numbered from 0 in the order
/// first loaded: stable for the same input, so an engine can intern one label per id at start.
/// The shipped list has 202 (196 distinct (application, category): six of those come with two
/// breeds, e.g. Google `web` both `safe` and `acceptable`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AppId(pub u16);

impl AppId {
    /// The id as an index.
    #[inline]
    pub fn index(self) -> usize {
        usize::from(self.0)
    }
}

/// An application a rule names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AppInfo<'a> {
    /// Its number in its [`HostRules`].
    pub id: AppId,
    /// nDPI's application name (`YouTube`).
    pub name: &'a str,
    /// nDPI's printed category name (`Video`; see [`crate::category`]).
    pub category: &'static str,
    /// nDPI's breed.
    pub breed: Breed,
}

/// The rule a name matched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostMatch<'a> {
    /// The application it names.
    pub app: AppInfo<'a>,
    /// The pattern that matched, lower case (`googlevideo.com`): says why.
    pub pattern: &'a str,
}

/// Why a rule or a rules file was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostRulesError {
    /// 1-based line of the file; 0 for a rule given by [`HostRules::add`].
    pub line: usize,
    /// What is wrong.
    pub kind: HostRulesErrorKind,
}

/// What is wrong with a rule or a rules file. Quoted values are cut to 64 bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HostRulesErrorKind {
    /// The text is longer than [`MAX_TEXT_LEN`].
    TooLarge {
        /// Its length, bytes.
        bytes: usize,
    },
    /// The first line that is not blank or a `#` comment is not `pattern,app,category,breed`.
    Header {
        /// What it is.
        found: String,
    },
    /// A row without exactly four comma-separated fields.
    Fields {
        /// How many it has.
        found: usize,
    },
    /// A pattern that cannot be one.
    Pattern {
        /// The pattern.
        pattern: String,
        /// Why.
        why: &'static str,
    },
    /// An application name that cannot be one.
    App {
        /// The name.
        app: String,
        /// Why.
        why: &'static str,
    },
    /// A category nDPI does not have.
    Category(String),
    /// A breed nDPI does not have.
    Breed(String),
    /// More than [`MAX_RULES`] rules.
    TooManyRules,
    /// More than 65,535 distinct (application, category, breed).
    TooManyApps,
    /// A row the CSV reader cannot read: a quoted field not closed on its line, or a line
    /// longer than 64 KiB (the text says which).
    Row(&'static str),
}

impl fmt::Display for HostRulesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line > 0 {
            write!(f, "line {}: ", self.line)?;
        }
        match &self.kind {
            HostRulesErrorKind::TooLarge { bytes } => write!(
                f,
                "host rules of {bytes} bytes, more than the {MAX_TEXT_LEN} allowed"
            ),
            HostRulesErrorKind::Header { found } => write!(
                f,
                "expected the header 'pattern,app,category,breed', found {found:?}"
            ),
            HostRulesErrorKind::Fields { found } => write!(
                f,
                "{found} fields, expected 4 (pattern,app,category,breed; \
                 quote a field that holds a comma)"
            ),
            HostRulesErrorKind::Pattern { pattern, why } => {
                write!(f, "pattern {pattern:?}: {why}")
            }
            HostRulesErrorKind::App { app, why } => write!(f, "application {app:?}: {why}"),
            HostRulesErrorKind::Category(c) => write!(
                f,
                "unknown category {c:?} (nDPI's, e.g. social_network or SocialNetwork)"
            ),
            HostRulesErrorKind::Breed(b) => write!(
                f,
                "unknown breed {b:?} (safe, acceptable, fun, unsafe, potentially_dangerous, \
                 dangerous, tracker_ads, unrated)"
            ),
            HostRulesErrorKind::TooManyRules => write!(f, "more than {MAX_RULES} host rules"),
            HostRulesErrorKind::TooManyApps => {
                write!(f, "more than 65535 distinct (application, category, breed)")
            }
            HostRulesErrorKind::Row(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for HostRulesError {}

/// A value quoted in an error, cut so a hostile file cannot make the message huge.
fn quoted(s: &str) -> String {
    let mut end = s.len().min(64);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s[..end].to_string()
}

#[inline]
fn is_sep(b: u8) -> bool {
    b == b'.' || b == b'-'
}

/// Check a pattern as rules files and [`HostRules::add`] take it (before a leading `*.` is
/// dropped): 1 to [`MAX_NAME_LEN`] bytes of ASCII letters, digits, `.`, `-` and `_`, at least
/// one a letter or digit.
pub fn check_pattern(pattern: &str) -> Result<(), &'static str> {
    let p = pattern.strip_prefix("*.").unwrap_or(pattern);
    if p.is_empty() {
        return Err("empty");
    }
    if p.len() > MAX_NAME_LEN {
        return Err("longer than 255 bytes");
    }
    if !p
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_'))
    {
        return Err("has a character other than ASCII letters, digits, '.', '-' and '_'");
    }
    if !p.bytes().any(|b| b.is_ascii_alphanumeric()) {
        return Err("has no letter or digit");
    }
    Ok(())
}

/// Check an application name: 1 to [`MAX_APP_LEN`] bytes, no control character or double
/// quote, no white space at either end. A comma is allowed (a rules file quotes such a field).
pub(crate) fn check_app(app: &str) -> Result<(), &'static str> {
    if app.is_empty() {
        return Err("empty");
    }
    if app.len() > MAX_APP_LEN {
        return Err("longer than 64 bytes");
    }
    if app.chars().any(|c| c.is_control() || c == '"') {
        return Err("has a control character or a double quote");
    }
    if app.trim() != app {
        return Err("starts or ends with white space");
    }
    Ok(())
}

// FNV-1a over a suffix's bytes from its last to its first, so that one pass from the end of a
// name gives the hash of every suffix.
const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

#[inline]
fn hash_step(h: u64, b: u8) -> u64 {
    (h ^ u64::from(b)).wrapping_mul(FNV_PRIME)
}

fn suffix_hash(s: &[u8]) -> u64 {
    s.iter().rev().fold(FNV_OFFSET, |h, &b| hash_step(h, b))
}

#[derive(Clone, Debug)]
struct App {
    name: Box<str>,
    category: &'static str,
    breed: Breed,
}

#[derive(Clone, Debug)]
struct Rule {
    /// Lower case.
    pattern: Box<str>,
    app: AppId,
    labels: u8,
    /// Ends in `.` or `-`: matches at label starts (in the trie); else a suffix (in the table).
    label_start: bool,
    hash: u64,
}

/// A slot of the suffix table.
#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    /// Rule index + 1; 0 for an empty slot.
    rule: u32,
    /// The rule's hash, low half: most misses end here without reading the rule.
    tag: u32,
}

#[derive(Clone, Debug, Default)]
struct TrieNode {
    /// In insertion order.
    edges: Vec<(u8, u32)>,
    /// Rule index + 1 of the pattern ending here; 0 for none.
    rule: u32,
}

impl TrieNode {
    /// Below the root a node has one or two edges: a scan beats a binary search.
    #[inline]
    fn next(&self, b: u8) -> Option<u32> {
        self.edges.iter().find(|e| e.0 == b).map(|e| e.1)
    }
}

/// Host-name rules: patterns naming applications, looked up by host name (see the module
/// documentation for the matching rules).
#[derive(Clone, Debug)]
pub struct HostRules {
    apps: Vec<App>,
    /// The ids of each application name, one a distinct (category, breed): looked up by the
    /// name as it is, without building a key.
    app_ids: HashMap<Box<str>, Vec<AppId>, foldhash::fast::RandomState>,
    rules: Vec<Rule>,
    /// Open addressing, linear probing, for suffix rules. A power of two long, at most half
    /// full.
    table: Vec<Slot>,
    table_used: usize,
    /// Label-start patterns; node 0 is the root, whose edges are also in `root`.
    trie: Vec<TrieNode>,
    /// The root's children by byte (node index; 0 for none): the first step of every walk.
    root: Box<[u32; 256]>,
}

impl Default for HostRules {
    fn default() -> Self {
        HostRules::new()
    }
}

impl HostRules {
    /// No rules.
    pub fn new() -> Self {
        HostRules {
            apps: Vec::new(),
            app_ids: HashMap::default(),
            rules: Vec::new(),
            table: vec![Slot::default(); 16],
            table_used: 0,
            trie: vec![TrieNode::default()],
            root: Box::new([0; 256]),
        }
    }

    /// Rules from a rules file (`data/app_hosts.csv`'s format), see [`HostRules::load_csv`].
    pub fn parse_csv(text: &str) -> Result<Self, HostRulesError> {
        let mut r = HostRules::new();
        r.load_csv(text)?;
        Ok(r)
    }

    /// Add the rules of a rules file, all or none; returns how many rows it had.
    ///
    /// The format is `data/app_hosts.csv`'s: the header `pattern,app,category,breed`, then one
    /// rule a line, four fields separated by commas; a field may be quoted (`"My App, Inc."`,
    /// RFC 4180: the quote right after the comma, `""` for a quote inside) and must be closed
    /// on its line; white space around a field is ignored, as are blank lines, lines starting
    /// with `#` and a byte-order mark; CRLF or LF. The category is nDPI's, as data files or as
    /// nDPI prints it (see [`crate::category::parse`]); the breed as [`Breed::parse`] reads it.
    /// At most [`MAX_TEXT_LEN`] bytes and [`MAX_RULES`] rules in all. A pattern already loaded
    /// is replaced (see the module documentation).
    pub fn load_csv(&mut self, text: &str) -> Result<usize, HostRulesError> {
        let err = |line: usize, kind| HostRulesError { line, kind };
        if text.len() > MAX_TEXT_LEN {
            return Err(err(0, HostRulesErrorKind::TooLarge { bytes: text.len() }));
        }
        let mut header = false;
        let mut rows: Vec<(usize, String, String, &'static str, Breed)> = Vec::new();
        let mut csv = csvrows::rows(text);
        loop {
            let (line, fields) = match csv.next_row() {
                Ok(Some(row)) => row,
                Ok(None) => break,
                Err(e) => return Err(err(e.line, HostRulesErrorKind::Row(e.why))),
            };
            if !header {
                if fields.len() != 4
                    || !fields
                        .iter()
                        .zip(CSV_HEADER)
                        .all(|(f, h)| f.eq_ignore_ascii_case(h))
                {
                    let found = quoted(csvrows::line_text(text, line));
                    return Err(err(line, HostRulesErrorKind::Header { found }));
                }
                header = true;
                continue;
            }
            if fields.len() != 4 {
                return Err(err(
                    line,
                    HostRulesErrorKind::Fields {
                        found: fields.len(),
                    },
                ));
            }
            let (pattern, app) = (&fields[0], &fields[1]);
            check_pattern(pattern).map_err(|why| {
                err(
                    line,
                    HostRulesErrorKind::Pattern {
                        pattern: quoted(pattern),
                        why,
                    },
                )
            })?;
            check_app(app).map_err(|why| {
                err(
                    line,
                    HostRulesErrorKind::App {
                        app: quoted(app),
                        why,
                    },
                )
            })?;
            let category = category::parse(&fields[2])
                .ok_or_else(|| err(line, HostRulesErrorKind::Category(quoted(&fields[2]))))?;
            let breed = Breed::parse(&fields[3])
                .ok_or_else(|| err(line, HostRulesErrorKind::Breed(quoted(&fields[3]))))?;
            if self.rules.len() + rows.len() >= MAX_RULES {
                return Err(err(line, HostRulesErrorKind::TooManyRules));
            }
            rows.push((line, pattern.to_string(), app.to_string(), category, breed));
        }
        if !header {
            return Err(err(
                0,
                HostRulesErrorKind::Header {
                    found: String::new(),
                },
            ));
        }
        // Applications first, so that too many is refused before anything changes.
        let new_apps: std::collections::HashSet<(&str, &str, Breed)> = rows
            .iter()
            .filter(|r| self.app_id(&r.2, r.3, r.4).is_none())
            .map(|r| (r.2.as_str(), r.3, r.4))
            .collect();
        if self.apps.len() + new_apps.len() > usize::from(u16::MAX) {
            let line = rows.last().map_or(0, |r| r.0);
            return Err(err(line, HostRulesErrorKind::TooManyApps));
        }
        for (_, pattern, app, category, breed) in &rows {
            let (category, breed) = (*category, *breed);
            let id = self.intern(app, category, breed).expect("counted above");
            self.insert(pattern, id);
        }
        Ok(rows.len())
    }

    /// Add one rule (an operator's): `pattern` names `app` of `category` (nDPI's, in either
    /// spelling, see [`crate::category::parse`]) and `breed`. Returns the application's id. A
    /// pattern already there is replaced.
    pub fn add(
        &mut self,
        pattern: &str,
        app: &str,
        category: &str,
        breed: Breed,
    ) -> Result<AppId, HostRulesError> {
        let err = |kind| HostRulesError { line: 0, kind };
        check_pattern(pattern).map_err(|why| {
            err(HostRulesErrorKind::Pattern {
                pattern: quoted(pattern),
                why,
            })
        })?;
        check_app(app).map_err(|why| {
            err(HostRulesErrorKind::App {
                app: quoted(app),
                why,
            })
        })?;
        let category = category::parse(category)
            .ok_or_else(|| err(HostRulesErrorKind::Category(quoted(category))))?;
        if self.rules.len() >= MAX_RULES {
            return Err(err(HostRulesErrorKind::TooManyRules));
        }
        let id = self
            .intern(app, category, breed)
            .ok_or_else(|| err(HostRulesErrorKind::TooManyApps))?;
        self.insert(pattern, id);
        Ok(id)
    }

    /// Rules checked already, in order, as [`HostRules::load_csv`] adds a file's rows:
    /// (pattern, application, nDPI's category name, breed). The built-in list's rows, compiled
    /// by `build.rs` ([`crate::builtin::hosts`]).
    pub(crate) fn extend_checked(&mut self, rows: &[(&str, &str, &'static str, Breed)]) {
        for &(pattern, app, category, breed) in rows {
            let id = self.intern(app, category, breed).expect("few applications");
            self.insert(pattern, id);
        }
    }

    /// The id of (application, category, breed), if it has one.
    fn app_id(&self, app: &str, category: &str, breed: Breed) -> Option<AppId> {
        self.app_ids.get(app)?.iter().copied().find(|id| {
            let a = &self.apps[id.index()];
            a.category == category && a.breed == breed
        })
    }

    fn intern(&mut self, app: &str, category: &'static str, breed: Breed) -> Option<AppId> {
        if let Some(id) = self.app_id(app, category, breed) {
            return Some(id);
        }
        let id = AppId(u16::try_from(self.apps.len()).ok()?);
        if id.0 == u16::MAX {
            return None;
        }
        self.apps.push(App {
            name: Box::from(app),
            category,
            breed,
        });
        match self.app_ids.get_mut(app) {
            Some(ids) => ids.push(id),
            None => {
                self.app_ids.insert(Box::from(app), vec![id]);
            }
        }
        Some(id)
    }

    /// Insert a checked pattern.
    fn insert(&mut self, pattern: &str, app: AppId) {
        let p = pattern.strip_prefix("*.").unwrap_or(pattern);
        let p = p.to_ascii_lowercase();
        let label_start = p.bytes().last().is_some_and(is_sep);
        let labels = p.split('.').filter(|l| !l.is_empty()).count();
        let rule = Rule {
            hash: suffix_hash(p.as_bytes()),
            pattern: p.into_boxed_str(),
            app,
            labels: u8::try_from(labels).unwrap_or(u8::MAX),
            label_start,
        };
        if let Some(i) = self.find_exact(&rule) {
            self.rules[i].app = app;
            return;
        }
        let index = u32::try_from(self.rules.len()).expect("MAX_RULES fits in u32");
        if label_start {
            let mut node = 0usize;
            for &b in rule.pattern.as_bytes() {
                node = match self.trie[node].next(b) {
                    Some(n) => n as usize,
                    None => {
                        let n = self.trie.len();
                        self.trie.push(TrieNode::default());
                        self.trie[node].edges.push((b, n as u32));
                        if node == 0 {
                            self.root[usize::from(b)] = n as u32;
                        }
                        n
                    }
                };
            }
            self.trie[node].rule = index + 1;
        } else {
            if (self.table_used + 1) * 2 > self.table.len() {
                self.grow();
            }
            let slot = self.free_slot(rule.hash);
            self.table[slot] = Slot {
                rule: index + 1,
                tag: rule.hash as u32,
            };
            self.table_used += 1;
        }
        self.rules.push(rule);
    }

    /// The rule with the same pattern, if any.
    fn find_exact(&self, rule: &Rule) -> Option<usize> {
        if rule.label_start {
            let mut node = 0usize;
            for &b in rule.pattern.as_bytes() {
                node = self.trie[node].next(b)? as usize;
            }
            return self.trie[node].rule.checked_sub(1).map(|r| r as usize);
        }
        self.find_suffix(rule.hash, rule.pattern.as_bytes())
    }

    #[inline]
    fn slot_of(&self, hash: u64) -> usize {
        // Fibonacci hashing: FNV's low bits alone spread poorly.
        let bits = self.table.len().trailing_zeros();
        (hash.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - bits)) as usize
    }

    fn free_slot(&self, hash: u64) -> usize {
        let mask = self.table.len() - 1;
        let mut s = self.slot_of(hash);
        while self.table[s].rule != 0 {
            s = (s + 1) & mask;
        }
        s
    }

    fn grow(&mut self) {
        let doubled = vec![Slot::default(); self.table.len() * 2];
        let old = std::mem::replace(&mut self.table, doubled);
        for used in old.into_iter().filter(|s| s.rule != 0) {
            let slot = self.free_slot(self.rules[(used.rule - 1) as usize].hash);
            self.table[slot] = used;
        }
    }

    /// The suffix rule whose pattern is `key` (lower case), given its hash.
    #[inline]
    fn find_suffix(&self, hash: u64, key: &[u8]) -> Option<usize> {
        let mask = self.table.len() - 1;
        let mut s = self.slot_of(hash);
        loop {
            let slot = self.table[s];
            if slot.rule == 0 {
                return None;
            }
            if slot.tag == hash as u32 {
                let r = (slot.rule - 1) as usize;
                let rule = &self.rules[r];
                if rule.hash == hash && rule.pattern.as_bytes() == key {
                    return Some(r);
                }
            }
            s = (s + 1) & mask;
        }
    }

    /// The rule for `name` (an SNI, HTTP Host, DNS query or certificate name), if any: see the
    /// module documentation for how a name is read and which rule wins.
    #[inline]
    pub fn lookup(&self, name: &str) -> Option<HostMatch<'_>> {
        self.lookup_bytes(name.as_bytes())
    }

    /// [`HostRules::lookup`], answered from `memo` when it holds `name` (as given, byte for
    /// byte), else looked up and kept there. `memo` must serve these rules only (it keeps rule
    /// numbers): one per worker, made with the rules and dropped with them.
    #[inline]
    pub fn lookup_memo(&self, name: &str, memo: &mut NameMemo) -> Option<HostMatch<'_>> {
        let name = name.as_bytes();
        if let Some(rule) = memo.get(name) {
            return rule.and_then(|r| self.matched(r as usize));
        }
        let (found, rule) = self.lookup_rule(name);
        memo.put(name, rule.map(|r| r as u32));
        found
    }

    /// The match of rule `r`.
    fn matched(&self, r: usize) -> Option<HostMatch<'_>> {
        let rule = self.rules.get(r)?;
        Some(HostMatch {
            app: self.info(rule.app),
            pattern: &rule.pattern,
        })
    }

    /// [`HostRules::lookup`] on a name's raw bytes, as a packet carries them (not necessarily
    /// UTF-8).
    pub fn lookup_bytes(&self, name: &[u8]) -> Option<HostMatch<'_>> {
        self.lookup_rule(name).0
    }

    /// [`HostRules::lookup_bytes`], with the winning rule's number.
    fn lookup_rule(&self, name: &[u8]) -> (Option<HostMatch<'_>>, Option<usize>) {
        let mut buf = [0u8; MAX_NAME_LEN];
        let Some(n) = normalize(name, &mut buf) else {
            return (None, None);
        };
        let name = &buf[..n];
        // (exact, labels, label start, earlier rule) as one number; the rule index last.
        let mut best: Option<(u64, usize)> = None;
        let mut consider = |rule: usize, exact: bool, rules: &[Rule]| {
            let r = &rules[rule];
            let key = (u64::from(exact) << 48)
                | (u64::from(r.labels) << 40)
                | (u64::from(r.label_start) << 32)
                | u64::from(u32::MAX - rule as u32);
            if best.is_none_or(|(k, _)| key > k) {
                best = Some((key, rule));
            }
        };
        if self.table_used > 0 {
            let mut h = FNV_OFFSET;
            for i in (0..n).rev() {
                h = hash_step(h, name[i]);
                if i == 0 || name[i - 1] == b'.' || is_sep(name[i]) {
                    if let Some(r) = self.find_suffix(h, &name[i..]) {
                        consider(r, i == 0, &self.rules);
                    }
                }
            }
        }
        if !self.trie[0].edges.is_empty() {
            for start in 0..n {
                if !(start == 0 || is_sep(name[start - 1]) || is_sep(name[start])) {
                    continue;
                }
                let mut node = self.root[usize::from(name[start])] as usize;
                let mut end = start + 1;
                while node != 0 {
                    if let Some(r) = self.trie[node].rule.checked_sub(1) {
                        consider(r as usize, start == 0 && end == n, &self.rules);
                    }
                    let Some(&b) = name.get(end) else { break };
                    node = self.trie[node].next(b).map_or(0, |c| c as usize);
                    end += 1;
                }
            }
        }
        match best {
            Some((_, r)) => (self.matched(r), Some(r)),
            None => (None, None),
        }
    }

    fn info(&self, id: AppId) -> AppInfo<'_> {
        let a = &self.apps[id.index()];
        AppInfo {
            id,
            name: &a.name,
            category: a.category,
            breed: a.breed,
        }
    }

    /// The application numbered `id`, if there is one.
    pub fn app(&self, id: AppId) -> Option<AppInfo<'_>> {
        (id.index() < self.apps.len()).then(|| self.info(id))
    }

    /// Every distinct (application, category, breed), by id from 0.
    pub fn apps(&self) -> impl ExactSizeIterator<Item = AppInfo<'_>> + '_ {
        (0..self.apps.len()).map(|i| self.info(AppId(i as u16)))
    }

    /// How many rules (distinct patterns).
    pub fn len(&self) -> usize {
        self.rules.len()
    }

    /// No rules?
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// The same applications, rules and lookup structures, in the same order (a test's
    /// equality: the application index is a hash map, compared by its entries).
    #[cfg(test)]
    pub(crate) fn same_as(&self, other: &HostRules) -> bool {
        let dbg = |h: &HostRules| {
            format!(
                "{:?} {:?} {:?} {} {:?} {:?}",
                h.apps, h.rules, h.table, h.table_used, h.trie, h.root
            )
        };
        let ids = |h: &HostRules| {
            let mut v: Vec<_> = h.app_ids.iter().collect();
            v.sort();
            format!("{v:?}")
        };
        dbg(self) == dbg(other) && ids(self) == ids(other)
    }

    /// Approximate heap bytes held (vectors at capacity, boxed strings, the load-time
    /// application index counted at its entries' size).
    pub fn memory_bytes(&self) -> usize {
        use std::mem::size_of;
        let apps = self.apps.capacity() * size_of::<App>()
            + self.apps.iter().map(|a| a.name.len()).sum::<usize>();
        let app_ids = self.app_ids.capacity() * (size_of::<(Box<str>, Vec<AppId>)>() + 1)
            + self
                .app_ids
                .iter()
                .map(|(k, v)| k.len() + v.capacity() * size_of::<AppId>())
                .sum::<usize>();
        let rules = self.rules.capacity() * size_of::<Rule>()
            + self.rules.iter().map(|r| r.pattern.len()).sum::<usize>();
        let table = self.table.capacity() * size_of::<Slot>();
        let trie = size_of::<[u32; 256]>()
            + self.trie.capacity() * size_of::<TrieNode>()
            + self
                .trie
                .iter()
                .map(|t| t.edges.capacity() * size_of::<(u8, u32)>())
                .sum::<usize>();
        apps + app_ids + rules + table + trie
    }
}

/// Names kept by a [`NameMemo`] (longer ones are looked up every time).
const MEMO_NAME: usize = 59;
/// Slots of a [`NameMemo`] (a power of two).
const MEMO_SLOTS: usize = 256;

/// A worker's memo of the host names it looked up and the rule each matched (or none): a link
/// names the same servers flow after flow (the corpus mix ×1: 2,398 names, 730 distinct), and
/// a lookup walks the name twice (suffix table, pattern trie), ~1,000 instructions. A
/// direct-mapped table of 256 names of at most 59 bytes, found by a multiply-xor hash of the
/// name's words and checked against the whole name, so an answer is always what the lookup
/// gives for that very name. Fixed memory (16 KB), zeroed by the allocator; nothing allocated
/// afterwards.
pub struct NameMemo {
    slots: Box<[NameSlot]>,
    /// Names found in the memo.
    pub hits: u64,
    /// Names looked up.
    pub misses: u64,
}

/// A name and its rule: `len` 0 for an empty slot, `rule1` the rule's number plus one (0: no
/// rule matches the name).
#[derive(Clone, Copy, bytemuck::Zeroable)]
struct NameSlot {
    len: u8,
    name: [u8; MEMO_NAME],
    rule1: u32,
}

impl Default for NameMemo {
    fn default() -> Self {
        const { assert!(MEMO_SLOTS.is_power_of_two() && MEMO_NAME < u8::MAX as usize) };
        NameMemo {
            slots: bytemuck::zeroed_slice_box(MEMO_SLOTS),
            hits: 0,
            misses: 0,
        }
    }
}

impl NameMemo {
    /// The rule kept for `name` (Some(None): it matches none); None when `name` is not kept.
    #[inline]
    fn get(&mut self, name: &[u8]) -> Option<Option<u32>> {
        let s = self.slots.get(memo_slot(name))?;
        if name.is_empty()
            || usize::from(s.len) != name.len()
            || s.name.get(..name.len()) != Some(name)
        {
            self.misses += 1;
            return None;
        }
        self.hits += 1;
        Some(s.rule1.checked_sub(1))
    }

    /// Keep `name`'s rule (names longer than the slots hold, or empty, are not kept).
    fn put(&mut self, name: &[u8], rule: Option<u32>) {
        if name.is_empty() || name.len() > MEMO_NAME {
            return;
        }
        let Some(rule1) = rule.map_or(Some(0), |r| r.checked_add(1)) else {
            return;
        };
        if let Some(s) = self.slots.get_mut(memo_slot(name)) {
            s.name[..name.len()].copy_from_slice(name);
            s.len = name.len() as u8;
            s.rule1 = rule1;
        }
    }
}

/// The slot of `name` in a [`NameMemo`]. Not keyed: a name crafted to share a slot with
/// another only costs a lookup.
fn memo_slot(name: &[u8]) -> usize {
    (memo_hash(name) >> (64 - MEMO_SLOTS.trailing_zeros())) as usize
}

/// A fast unkeyed hash of `text` for direct-mapped memos (this one and the payload
/// inspectors' digest memo): a multiply-xor of its 8-byte words (the last one zero-padded)
/// and its length; take the high bits. Never for a table an attacker can fill: a memo only
/// loses a hit to a crafted collision.
pub fn memo_hash(text: &[u8]) -> u64 {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let mix = |h: u64, b: [u8; 8]| {
        let h = (h ^ u64::from_le_bytes(b)).wrapping_mul(K);
        h ^ h >> 29
    };
    let mut h = text.len() as u64;
    // Whole words as fixed-size loads, the last part zero-padded (a copy of a variable length
    // for every word was a call to `memcpy` each).
    let mut words = text.chunks_exact(8);
    for w in &mut words {
        let mut b = [0u8; 8];
        b.copy_from_slice(w);
        h = mix(h, b);
    }
    let rest = words.remainder();
    if !rest.is_empty() {
        let mut b = [0u8; 8];
        for (d, s) in b.iter_mut().zip(rest) {
            *d = *s;
        }
        h = mix(h, b);
    }
    h.wrapping_mul(K)
}

/// Read a name as [`HostRules::lookup`] does into `buf`, lower case; its length, or None when it
/// can match nothing.
fn normalize(name: &[u8], buf: &mut [u8; MAX_NAME_LEN]) -> Option<usize> {
    let mut s = name.trim_ascii();
    if let Some(rest) = s.strip_prefix(b"*.") {
        s = rest;
    }
    if s.first() == Some(&b'[') {
        return None;
    }
    let mut colons = s.iter().enumerate().filter(|(_, &b)| b == b':');
    if let Some((at, _)) = colons.next() {
        if colons.next().is_some() {
            return None;
        }
        s = &s[..at];
    }
    if let Some(rest) = s.strip_suffix(b".") {
        s = rest;
    }
    if s.is_empty() || s.len() > MAX_NAME_LEN {
        return None;
    }
    for (d, &b) in buf.iter_mut().zip(s) {
        *d = b.to_ascii_lowercase();
    }
    Some(s.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHIPPED: &str = include_str!("../../../data/app_hosts.csv");

    fn rules(rows: &[(&str, &str)]) -> HostRules {
        let mut r = HostRules::new();
        for (p, a) in rows {
            r.add(p, a, "web", Breed::Safe).unwrap();
        }
        r
    }

    fn app<'a>(r: &'a HostRules, name: &str) -> Option<&'a str> {
        r.lookup(name).map(|m| m.app.name)
    }

    /// A name asked again is found in the memo, with the lookup's answer (a match or none);
    /// two names of one slot replace each other; a name longer than a slot holds is looked
    /// up every time.
    #[test]
    fn the_memo_keeps_names_and_their_rules() {
        let r = rules(&[("ws.amazon.com", "A"), ("zoom.us", "Z")]);
        let mut m = NameMemo::default();
        for name in [
            "a.ws.amazon.com",
            "example.org",
            "a.ws.amazon.com",
            "example.org",
        ] {
            assert_eq!(r.lookup_memo(name, &mut m), r.lookup(name));
        }
        assert_eq!((m.hits, m.misses), (2, 2));
        // Same length, same slot.
        let a = "aaaa.zoom.us".to_string();
        let b = (0u32..)
            .map(|i| format!("{i:04}.zoom.us"))
            .find(|b| b.len() == a.len() && memo_slot(b.as_bytes()) == memo_slot(a.as_bytes()))
            .unwrap();
        for name in [&a, &b, &a, &b] {
            assert_eq!(app(&r, name), Some("Z"));
            assert_eq!(r.lookup_memo(name, &mut m).map(|h| h.app.name), Some("Z"));
        }
        assert_eq!((m.hits, m.misses), (2, 6));
        let long = format!("{}.ws.amazon.com", "x".repeat(60));
        for _ in 0..2 {
            assert_eq!(r.lookup_memo(&long, &mut m).map(|h| h.app.name), Some("A"));
        }
        assert_eq!((m.hits, m.misses), (2, 8));
    }

    #[test]
    fn a_suffix_matches_the_name_or_after_a_dot_only() {
        let r = rules(&[("ws.amazon.com", "A")]);
        assert_eq!(app(&r, "ws.amazon.com"), Some("A"));
        assert_eq!(app(&r, "a.ws.amazon.com"), Some("A"));
        assert_eq!(app(&r, "x.y.ws.amazon.com"), Some("A"));
        assert_eq!(app(&r, "aws.amazon.com"), None);
        assert_eq!(
            app(&r, "a-ws.amazon.com"),
            None,
            "a plain suffix needs a '.'"
        );
        assert_eq!(app(&r, "ws.amazon.com.evil.net"), None);
        assert_eq!(app(&r, "s.amazon.com"), None);
        assert_eq!(app(&r, "amazon.com"), None);
    }

    #[test]
    fn a_pattern_starting_with_a_separator_matches_after_it() {
        let r = rules(&[("-buy.itunes.apple.com", "Store"), (".googlezip.net", "G")]);
        assert_eq!(app(&r, "p52-buy.itunes.apple.com"), Some("Store"));
        assert_eq!(app(&r, "-buy.itunes.apple.com"), Some("Store"));
        assert_eq!(app(&r, "buy.itunes.apple.com"), None);
        assert_eq!(app(&r, "x.buy.itunes.apple.com"), None);
        assert_eq!(app(&r, "proxy.googlezip.net"), Some("G"));
        assert_eq!(app(&r, "googlezip.net"), None);
    }

    #[test]
    fn a_pattern_ending_in_a_separator_matches_at_a_label_start() {
        let r = rules(&[
            ("googleads.", "Ads"),
            ("fbcdn-", "Fb"),
            ("maps.google.", "Maps"),
        ]);
        assert_eq!(app(&r, "googleads.g.doubleclick.net"), Some("Ads"));
        assert_eq!(app(&r, "www.googleads.com"), Some("Ads"));
        assert_eq!(app(&r, "x-googleads.com"), Some("Ads"));
        assert_eq!(app(&r, "notgoogleads.com"), None);
        assert_eq!(app(&r, "googleads"), None, "the '.' is part of the pattern");
        assert_eq!(app(&r, "fbcdn-video-a.akamaihd.net"), Some("Fb"));
        assert_eq!(app(&r, "scontent.fbcdn-x.net"), Some("Fb"));
        assert_eq!(app(&r, "xfbcdn-1.net"), None);
        assert_eq!(app(&r, "maps.google.co.uk"), Some("Maps"));
        assert_eq!(app(&r, "www.maps.google.com"), Some("Maps"));
        assert_eq!(app(&r, "maps.googlex.com"), None);
    }

    #[test]
    fn more_labels_win_then_exact_label_start_and_order() {
        let r = rules(&[
            ("amazon.com", "Amazon"),
            ("ws.amazon.com", "AWS"),
            ("com", "Com"),
            ("apple.com", "Apple"),
            ("guzzoni.apple.", "Siri"),
            ("googlezip.net", "DataSaver"),
            (".googlezip.net", "Google"),
            ("youtube.", "YouTube"),
            ("googlevideo.com", "GV"),
        ]);
        assert_eq!(app(&r, "a.ws.amazon.com"), Some("AWS"));
        assert_eq!(app(&r, "www.amazon.com"), Some("Amazon"));
        assert_eq!(app(&r, "example.com"), Some("Com"));
        // Equal labels: the label-start pattern, then the rule loaded first.
        assert_eq!(app(&r, "guzzoni.apple.com"), Some("Siri"));
        assert_eq!(app(&r, "proxy.googlezip.net"), Some("DataSaver"));
        // More labels beat a label-start pattern.
        assert_eq!(app(&r, "youtube.googlevideo.com"), Some("GV"));
        assert_eq!(app(&r, "www.youtube.com"), Some("YouTube"));
        let m = r.lookup("a.ws.amazon.com").unwrap();
        assert_eq!(m.pattern, "ws.amazon.com");
        // Load order decides only ties: the other order gives the other one.
        let r2 = rules(&[(".googlezip.net", "Google"), ("googlezip.net", "DataSaver")]);
        assert_eq!(app(&r2, "proxy.googlezip.net"), Some("Google"));
        // The whole name beats a label-start pattern of as many labels.
        let r3 = rules(&[("a.b-", "Start"), ("a.b-c", "Exact")]);
        assert_eq!(app(&r3, "a.b-c"), Some("Exact"));
        let r4 = rules(&[("a.b-c", "Exact"), ("a.b-", "Start")]);
        assert_eq!(app(&r4, "a.b-c"), Some("Exact"));
        assert_eq!(app(&r4, "a.b-d"), Some("Start"));
    }

    #[test]
    fn names_are_read_as_packets_carry_them() {
        let r = rules(&[("ws.amazon.com", "AWS"), ("googleads.", "Ads")]);
        for n in [
            "WS.Amazon.COM",
            "a.ws.amazon.com.",
            "a.ws.amazon.com:8080",
            "a.ws.amazon.com.:443",
            "*.ws.amazon.com",
            " a.ws.amazon.com\r\n",
        ] {
            assert_eq!(app(&r, n), Some("AWS"), "{n:?}");
        }
        for n in [
            "",
            ".",
            ":",
            "*.",
            "[::1]:443",
            "2001:db8::ws.amazon.com",
            "a.ws.amazon.com..",
            "ws.amazon.com/path",
        ] {
            assert_eq!(app(&r, n), None, "{n:?}");
        }
        assert_eq!(app(&r, "GoogleAds.G.DoubleClick.net"), Some("Ads"));
        let long = format!("{}.ws.amazon.com", "a".repeat(MAX_NAME_LEN - 13));
        assert_eq!(long.len(), MAX_NAME_LEN + 1);
        assert_eq!(app(&r, &long), None, "longer than a DNS name");
        assert_eq!(app(&r, &long[1..]), Some("AWS"));
        assert_eq!(
            r.lookup_bytes(b"\xff\xfe.ws.amazon.com").unwrap().app.name,
            "AWS"
        );
    }

    #[test]
    fn a_pattern_added_again_replaces_the_first_in_its_place() {
        let mut r = rules(&[("example.com", "First"), ("x.", "X")]);
        let id = r
            .add("EXAMPLE.com", "Mine", "Cloud", Breed::Unsafe)
            .unwrap();
        r.add("x.", "Y", "web", Breed::Safe).unwrap();
        assert_eq!(r.len(), 2);
        let m = r.lookup("a.example.com").unwrap();
        assert_eq!(
            (m.app.name, m.app.category, m.app.breed, m.app.id),
            ("Mine", "Cloud", Breed::Unsafe, id)
        );
        assert_eq!(app(&r, "x.org"), Some("Y"));
        // `*.` is dropped from a pattern: the same rule.
        r.add("*.example.com", "Star", "web", Breed::Safe).unwrap();
        assert_eq!(r.len(), 2);
        assert_eq!(app(&r, "example.com"), Some("Star"));
    }

    #[test]
    fn apps_are_numbered_once_per_name_category_and_breed() {
        let r = HostRules::parse_csv(
            "pattern,app,category,breed\n\
             a.com,A,web,safe\nb.com,A,web,safe\nc.com,A,web,acceptable\nd.com,A,cloud,safe\n\
             e.com,B,SocialNetwork,fun\n",
        )
        .unwrap();
        let apps: Vec<_> = r
            .apps()
            .map(|a| (a.id.0, a.name, a.category, a.breed))
            .collect();
        assert_eq!(
            apps,
            [
                (0, "A", "Web", Breed::Safe),
                (1, "A", "Web", Breed::Acceptable),
                (2, "A", "Cloud", Breed::Safe),
                (3, "B", "SocialNetwork", Breed::Fun),
            ]
        );
        assert_eq!(r.lookup("x.b.com").unwrap().app.id, AppId(0));
        assert_eq!(r.lookup("e.com").unwrap().app, r.app(AppId(3)).unwrap());
        assert!(r.app(AppId(4)).is_none());
    }

    #[test]
    fn bad_files_name_the_line_and_what_is_wrong() {
        let head = "pattern,app,category,breed\n";
        let cases: &[(&str, usize, &str)] = &[
            ("", 0, "expected the header"),
            ("# only a comment\n\n", 0, "expected the header"),
            ("host,app,category,breed\n", 1, "expected the header"),
            ("a.com,A,web,safe\n", 1, "expected the header"),
            ("x.com,A,web\n", 2, "3 fields"),
            ("x.com,A,web,safe,extra\n", 2, "5 fields"),
            ("x\"y.com,A,web,safe\n", 2, "character other than"),
            ("\"x.com,A,web,safe\n", 2, "unterminated quote"),
            (
                "x.com,\"A,web,safe\nz.com,B,web,safe\n",
                2,
                "unterminated quote",
            ),
            ("x.com,A,web,\"safe", 2, "unterminated quote"),
            ("x.com,A \"B\",web,safe\n", 2, "double quote"),
            ("x.com,My App, Inc.,web,safe\n", 2, "5 fields"),
            ("x y.com,A,web,safe\n", 2, "character other than"),
            ("...,A,web,safe\n", 2, "no letter or digit"),
            (",A,web,safe\n", 2, "empty"),
            ("x.com,,web,safe\n", 2, "application \"\": empty"),
            ("x.com,A\u{7},web,safe\n", 2, "control character"),
            ("x.com,A,webby,safe\n", 2, "unknown category \"webby\""),
            ("x.com,A,web,saf\n", 2, "unknown breed \"saf\""),
            (
                "# c\n\nok.com,A,web,safe\nbad,A,nope,safe\n",
                5,
                "unknown category",
            ),
        ];
        for (body, line, what) in cases {
            let text = if *line == 0 || body.starts_with("host") || body.starts_with("a.com") {
                body.to_string()
            } else {
                format!("{head}{body}")
            };
            let e = HostRules::parse_csv(&text).unwrap_err();
            assert_eq!(e.line, *line, "{text:?}: {e}");
            let msg = e.to_string();
            assert!(msg.contains(what), "{text:?}: {msg}");
            if *line > 0 {
                assert!(msg.starts_with(&format!("line {line}: ")), "{msg}");
            }
        }
        let long = format!("{head}{}.com,A,web,safe\n", "a".repeat(300));
        let e = HostRules::parse_csv(&long).unwrap_err();
        assert!(e.to_string().contains("longer than 255"), "{e}");
        assert!(
            e.to_string().len() < 200,
            "the pattern is cut in the message: {e}"
        );
    }

    #[test]
    fn quoted_fields_load() {
        // An operator's file: quoted fields, a comma inside quotes, CRLF, a byte-order mark.
        let text = "\u{feff}pattern,app,category,breed\r\n\
                    \"*.example.com\",\"My App, Inc.\",Web,Fun\r\n\
                    plain.example,\"Say \"\"Hi\"\"\",web,safe\r\n";
        let e = HostRules::parse_csv(text).unwrap_err();
        assert_eq!(e.line, 3, "a double quote stays refused in a name: {e}");
        let text = text.replace("Say \"\"Hi\"\"", "Say, Hi");
        let r = HostRules::parse_csv(&text).unwrap();
        assert_eq!(r.len(), 2);
        let hit = r.lookup("www.example.com").unwrap().app;
        assert_eq!(
            (hit.name, hit.category, hit.breed),
            ("My App, Inc.", "Web", Breed::Fun)
        );
        assert_eq!(app(&r, "plain.example"), Some("Say, Hi"));
        // The same rules unquoted, LF only: the same table.
        let plain = "pattern,app,category,breed\n*.example.com,My App; Inc.,Web,Fun\n";
        assert_eq!(HostRules::parse_csv(plain).unwrap().len(), 1);
    }

    #[test]
    fn a_bad_file_changes_nothing() {
        let mut r = HostRules::parse_csv(SHIPPED).unwrap();
        let before = (r.len(), r.apps().len());
        let e = r
            .load_csv("pattern,app,category,breed\nnew.example,New,web,safe\nbad,X,nope,safe\n")
            .unwrap_err();
        assert_eq!(e.line, 3);
        assert_eq!((r.len(), r.apps().len()), before);
        assert!(r.lookup("new.example").is_none());
        assert_eq!(
            r.load_csv("\u{feff}pattern , App , Category , Breed\r\nnew.example,New,web,safe\r\n"),
            Ok(1)
        );
        assert_eq!(app(&r, "new.example"), Some("New"));
    }

    #[test]
    fn add_refuses_what_a_file_would() {
        let mut r = HostRules::new();
        let e = r.add("a b", "A", "web", Breed::Safe).unwrap_err();
        assert_eq!(e.line, 0);
        assert!(e.to_string().starts_with("pattern \"a b\""), "{e}");
        assert!(matches!(
            r.add("a.com", "A", "nope", Breed::Safe).unwrap_err().kind,
            HostRulesErrorKind::Category(_)
        ));
        assert!(matches!(
            r.add("a.com", &"A".repeat(65), "web", Breed::Safe)
                .unwrap_err()
                .kind,
            HostRulesErrorKind::App { .. }
        ));
        assert!(r.is_empty());
        assert_eq!(r.lookup("a.com"), None);
    }

    #[test]
    fn the_shipped_list_loads_with_its_examples() {
        let r = HostRules::parse_csv(SHIPPED).unwrap();
        assert_eq!(r.len(), 1015, "one rule per row, no duplicate patterns");
        assert_eq!(r.apps().len(), 202);
        let distinct: std::collections::HashSet<_> =
            r.apps().map(|a| (a.name, a.category)).collect();
        assert_eq!(distinct.len(), 196);
        for (name, app, category) in [
            ("r3---sn-4g5e6nsz.googlevideo.com", "YouTube", "Media"),
            ("a.ws.amazon.com", "Amazon", "Web"),
            ("www.youtube.com", "YouTube", "Media"),
            ("googleads.g.doubleclick.net", "Google", "Advertisement"),
            ("p52-buy.itunes.apple.com", "AppleStore", "SoftwareUpdate"),
            ("guzzoni.apple.com", "AppleSiri", "VirtAssistant"),
            ("captive.apple.com", "Apple", "ConnCheck"),
            ("www.netflix.com", "NetFlix", "Video"),
        ] {
            let m = r.lookup(name).unwrap_or_else(|| panic!("{name}: no match"));
            assert_eq!((m.app.name, m.app.category), (app, category), "{name}");
        }
        assert!(r.lookup("example.org").is_none());
    }

    #[test]
    fn every_category_of_the_shipped_list_maps() {
        let mut rows = SHIPPED
            .lines()
            .skip(1)
            .filter(|l| !l.trim().is_empty())
            .peekable();
        assert!(rows.peek().is_some());
        for l in rows {
            let snake = l.trim().split(',').nth(2).unwrap();
            assert!(category::ndpi_category(snake).is_some(), "{snake} in {l:?}");
        }
    }

    /// A slow, obviously right matcher for the property tests: every rule against every
    /// candidate position, with the same ranking.
    fn naive<'a>(rows: &'a [(String, String)], name: &str) -> Option<&'a str> {
        let mut buf = [0u8; MAX_NAME_LEN];
        let n = normalize(name.as_bytes(), &mut buf)?;
        let name = &buf[..n];
        // (whole name, labels, label start, earlier rule).
        type Rank = (bool, usize, bool, std::cmp::Reverse<usize>);
        let mut best: Option<(Rank, &str)> = None;
        for (i, (p, a)) in rows.iter().enumerate() {
            let p = p.to_ascii_lowercase();
            let p = p.as_bytes();
            let label_start = is_sep(p[p.len() - 1]);
            let hit = if label_start {
                (0..n).any(|s| {
                    (s == 0 || is_sep(name[s - 1]) || is_sep(name[s])) && name[s..].starts_with(p)
                })
            } else if is_sep(p[0]) {
                name.ends_with(p)
            } else {
                name == p || (name.ends_with(p) && name[n - p.len() - 1] == b'.')
            };
            if hit {
                let labels = p.split(|&b| b == b'.').filter(|l| !l.is_empty()).count();
                let key = (name == p, labels, label_start, std::cmp::Reverse(i));
                if best.as_ref().is_none_or(|(k, _)| key > *k) {
                    best = Some((key, a));
                }
            }
        }
        best.map(|b| b.1)
    }

    mod props {
        use super::*;
        use proptest::prelude::*;

        fn label() -> impl Strategy<Value = String> {
            "[a-cA-C0-1]{1,3}"
        }
        fn pattern() -> impl Strategy<Value = String> {
            (
                prop::option::of(prop_oneof![Just("."), Just("-")]),
                prop::collection::vec(label(), 1..4),
                prop_oneof![Just("."), Just("-")],
                prop::option::of(prop_oneof![Just("."), Just("-")]),
            )
                .prop_map(|(lead, labels, join, trail)| {
                    format!(
                        "{}{}{}",
                        lead.unwrap_or(""),
                        labels.join(join),
                        trail.unwrap_or("")
                    )
                })
        }
        fn name() -> impl Strategy<Value = String> {
            prop::collection::vec((label(), prop_oneof![Just("."), Just("-")]), 1..6).prop_map(
                |parts| {
                    let mut s: String = parts.iter().map(|(l, j)| format!("{l}{j}")).collect();
                    s.pop();
                    s
                },
            )
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(200))]

            /// Names asked again and again, in any order, some sharing slots, some too long
            /// to keep: the memo answers as the lookup does, every time.
            #[test]
            fn the_memo_answers_as_the_lookup(
                names in prop::collection::vec(
                    prop_oneof![
                        name(),
                        Just("www.youtube.com".to_string()),
                        Just("api.whatsapp.net".to_string()),
                        "[a-z.]{55,70}",
                    ],
                    1..40,
                ),
                order in prop::collection::vec(any::<prop::sample::Index>(), 1..300),
            ) {
                let r = HostRules::parse_csv(SHIPPED).unwrap();
                let mut memo = NameMemo::default();
                for ix in order {
                    let n = ix.get(&names);
                    prop_assert_eq!(r.lookup_memo(n, &mut memo), r.lookup(n));
                }
            }

            /// The memo's hash is the one its slots were chosen by before the word loop was
            /// split (words of eight, the last zero-padded), for any length.
            #[test]
            fn memo_hash_is_the_padded_word_hash(text in prop::collection::vec(any::<u8>(), 0..70)) {
                const K: u64 = 0x9e37_79b9_7f4a_7c15;
                let mut h = text.len() as u64;
                for w in text.chunks(8) {
                    let mut b = [0u8; 8];
                    b[..w.len()].copy_from_slice(w);
                    h = (h ^ u64::from_le_bytes(b)).wrapping_mul(K);
                    h ^= h >> 29;
                }
                prop_assert_eq!(super::super::memo_hash(&text), h.wrapping_mul(K));
            }
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(2000))]

            #[test]
            fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
                let r = HostRules::parse_csv(SHIPPED).unwrap();
                let _ = r.lookup_bytes(&bytes);
                let _ = HostRules::parse_csv(&String::from_utf8_lossy(&bytes));
            }

            #[test]
            fn lookup_ignores_ascii_case(name in "[a-zA-Z0-9.:*-]{0,40}") {
                let r = HostRules::parse_csv(SHIPPED).unwrap();
                let m = r.lookup(&name);
                prop_assert_eq!(m, r.lookup(&name.to_ascii_lowercase()));
                prop_assert_eq!(m, r.lookup(&name.to_ascii_uppercase()));
            }

            #[test]
            fn agrees_with_the_naive_matcher(
                pats in prop::collection::vec(pattern(), 1..12),
                names in prop::collection::vec(name(), 1..8),
            ) {
                let mut r = HostRules::new();
                let mut rows: Vec<(String, String)> = Vec::new();
                for (i, p) in pats.iter().enumerate() {
                    let a = format!("app{i}");
                    r.add(p, &a, "web", Breed::Safe).unwrap();
                    // A repeated pattern replaces the first one's application in its place.
                    match rows.iter_mut().find(|(q, _)| q.eq_ignore_ascii_case(p)) {
                        Some(row) => row.1 = a,
                        None => rows.push((p.clone(), a)),
                    }
                }
                for n in &names {
                    prop_assert_eq!(app(&r, n), naive(&rows, n), "{}", n);
                }
                // Names built from the patterns themselves, so that matches are common.
                for p in &pats {
                    for n in [p.clone(), format!("x.{p}"), format!("x-{p}y"), format!("{p}z.q")] {
                        prop_assert_eq!(app(&r, &n), naive(&rows, &n), "{}", n);
                    }
                }
            }
        }
    }
}
