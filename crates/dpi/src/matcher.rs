//! Payload search (seed 004): user patterns matched with Aho-Corasick over the payloads that the
//! inspectors see, and the per-flow record of which patterns matched.
//!
//! Pattern file: one pattern a line; lines starting with `#` and blank lines are ignored. A
//! pattern is literal bytes (the line as written, without its line end; leading and trailing
//! spaces kept) with two escapes: `\xNN` (two hex digits) for any byte and `\\` for a backslash.
//! Any other `\` sequence is an error that names its line. Patterns are numbered from 0 in file
//! order; records name matches by these numbers.
//!
//! Per flow the state is a `u64` bitmask of the first 64 patterns plus a saturating counter of
//! hits on patterns numbered 64 and up (not distinct). Each packet's payload is searched as it
//! arrives, not the reassembled stream: a pattern split across two packets is not found.
//!
//! Bounds (issue 33), checked when the patterns are compiled, each a clear error naming the
//! line: at most [`MAX_PATTERNS`] patterns of at most [`MAX_PATTERN_BYTES`] bytes together, so
//! the automaton's size and build time are bounded (linear in those bytes); and at most
//! [`MAX_ENDING`] patterns ending at any one byte of any payload (a pattern holds at most
//! `MAX_ENDING - 1` others as suffixes of its beginnings: `a`, `aa`, `aaa`, … is refused past
//! that), so a packet's search does at most `MAX_ENDING + 1` steps a payload byte, whatever
//! the traffic.

use aho_corasick::automaton::Automaton;
use aho_corasick::{Anchored, MatchKind};
use std::collections::HashMap;
use std::hash::BuildHasherDefault;

/// Most patterns a file may hold.
pub const MAX_PATTERNS: usize = 100_000;

/// Most bytes all patterns hold together: the automaton has at most this many states (tens of
/// MiB and well under a second to build).
pub const MAX_PATTERN_BYTES: usize = 1 << 20;

/// Most patterns that may end at one byte of a payload: bounds the matches a packet's search
/// reports to this many a byte.
pub const MAX_ENDING: usize = 32;

/// Pattern bytes (all patterns together) up to which a full DFA is built (at most ~16 MiB).
const DFA_MAX_BYTES: usize = 16 * 1024;

/// A pattern-file error, with the 1-based line it is on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PatternError {
    /// Line number (1-based).
    pub line: usize,
    /// What is wrong.
    pub msg: &'static str,
}

impl std::fmt::Display for PatternError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.msg)
    }
}

fn hex(c: u8) -> Option<u8> {
    (c as char).to_digit(16).map(|d| d as u8)
}

/// Parse a pattern file into byte patterns (see the module's format).
pub fn parse(text: &str) -> Result<Vec<Vec<u8>>, PatternError> {
    Ok(parse_lines(text)?.into_iter().map(|(_, p)| p).collect())
}

/// [`parse`], each pattern with its (1-based) line.
pub fn parse_lines(text: &str) -> Result<Vec<(usize, Vec<u8>)>, PatternError> {
    let mut out = Vec::new();
    let mut total = 0usize;
    for (n, raw) in text.lines().enumerate() {
        let line = n + 1;
        if raw.trim().is_empty() || raw.starts_with('#') {
            continue;
        }
        let b = raw.as_bytes();
        let mut p = Vec::with_capacity(b.len());
        let mut i = 0;
        while let Some(&c) = b.get(i) {
            if c != b'\\' {
                p.push(c);
                i += 1;
                continue;
            }
            match b.get(i + 1) {
                Some(b'\\') => {
                    p.push(b'\\');
                    i += 2;
                }
                Some(b'x') => {
                    let (Some(h), Some(l)) = (
                        b.get(i + 2).copied().and_then(hex),
                        b.get(i + 3).copied().and_then(hex),
                    ) else {
                        return Err(PatternError {
                            line,
                            msg: "\\x needs two hex digits",
                        });
                    };
                    p.push(h << 4 | l);
                    i += 4;
                }
                _ => {
                    return Err(PatternError {
                        line,
                        msg: "unknown escape (use \\xNN or \\\\)",
                    })
                }
            }
        }
        if out.len() >= MAX_PATTERNS {
            return Err(PatternError {
                line,
                msg: "too many patterns (at most 100,000)",
            });
        }
        total += p.len();
        if total > MAX_PATTERN_BYTES {
            return Err(PatternError {
                line,
                msg: "the patterns up to here hold more than 1 MiB together, the most compiled",
            });
        }
        out.push((line, p));
    }
    Ok(out)
}

/// Compiled patterns.
pub struct Matcher {
    ac: Auto,
    count: usize,
}

/// The automaton: a full DFA for small sets, else the contiguous NFA. Searched state by state
/// ([`Matcher::scan`]): each byte is one transition, and a match state's patterns are read from
/// its list, so a packet costs its bytes plus its matches, at most [`MAX_ENDING`] a byte.
enum Auto {
    Dfa(aho_corasick::dfa::DFA),
    Nfa(aho_corasick::nfa::contiguous::NFA),
}

impl std::fmt::Debug for Matcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Matcher({} patterns)", self.count)
    }
}

/// A flow's matches: bit `i` for pattern `i < 64`, and hits on patterns from 64 up.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Matches {
    /// Patterns 0..64 seen.
    pub mask: u64,
    /// Hits on patterns numbered 64 and up (counted, not named).
    pub over: u16,
}

impl Matcher {
    /// Compile a pattern file. Errors name the line.
    pub fn new(text: &str) -> Result<Matcher, String> {
        let (lines, pats): (Vec<usize>, Vec<Vec<u8>>) = parse_lines(text)
            .map_err(|e| e.to_string())?
            .into_iter()
            .unzip();
        Matcher::build(&pats, |i| {
            format!("line {}", lines.get(i).copied().unwrap_or_default())
        })
    }

    /// Compile byte patterns. Errors name the pattern by its number (from 0).
    pub fn from_patterns(pats: &[Vec<u8>]) -> Result<Matcher, String> {
        Matcher::build(pats, |i| format!("pattern {i}"))
    }

    /// Compile `pats` within the module's bounds; `at(i)` names pattern `i` in errors.
    fn build(pats: &[Vec<u8>], at: impl Fn(usize) -> String) -> Result<Matcher, String> {
        if pats.len() > MAX_PATTERNS {
            return Err(format!("{} patterns: at most {MAX_PATTERNS}", pats.len()));
        }
        // The automaton's states are at most the patterns' bytes: bounding them bounds its size
        // and its build time (the contiguous NFA builds in time linear in them).
        let mut total = 0usize;
        for (i, p) in pats.iter().enumerate() {
            total += p.len();
            if total > MAX_PATTERN_BYTES {
                return Err(format!(
                    "{}: the patterns up to here hold more than 1 MiB together, the most compiled",
                    at(i)
                ));
            }
        }
        // Checked before the automaton is built: its match lists hold, for every state, each
        // pattern ending there, so a set past the bound would also blow up its memory (patterns
        // `a` to `a` x 800 with one of `a` x 600,000, 1 MiB together, would take gigabytes).
        if let Some((i, n)) = most_ending(pats, MAX_ENDING) {
            return Err(format!(
                "{}: {n} patterns end at one byte of this pattern (it holds them as suffixes of \
                 its beginnings, as `a`, `aa`, `aaa` … do); each payload byte may report that \
                 many matches: at most {MAX_ENDING}",
                at(i)
            ));
        }
        // A full DFA is about twice as fast as the NFA for small sets, but its table grows with
        // the total pattern bytes (states x byte classes x 4): only below a bound. Above it the
        // contiguous NFA, which builds in linear time (a DFA of one 65,536-byte pattern took
        // 12 s). No prefilter: the search below walks every byte itself.
        let ac = if total <= DFA_MAX_BYTES {
            aho_corasick::dfa::DFA::builder()
                .match_kind(MatchKind::Standard)
                .prefilter(false)
                .build(pats)
                .map(Auto::Dfa)
        } else {
            aho_corasick::nfa::contiguous::NFA::builder()
                .match_kind(MatchKind::Standard)
                .prefilter(false)
                .build(pats)
                .map(Auto::Nfa)
        }
        .map_err(|e| e.to_string())?;
        Ok(Matcher {
            ac,
            count: pats.len(),
        })
    }

    /// Number of patterns.
    pub fn len(&self) -> usize {
        self.count
    }

    /// No patterns.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Search `data` (overlapping matches, so every pattern present is found), adding to `m`.
    #[inline]
    pub fn scan(&self, data: &[u8], m: &mut Matches) {
        if self.count == 0 {
            return;
        }
        match &self.ac {
            Auto::Dfa(a) => scan(a, self.count, data, m),
            Auto::Nfa(a) => scan(a, self.count, data, m),
        }
    }

    /// The automaton's heap memory, in bytes.
    pub fn memory_usage(&self) -> usize {
        match &self.ac {
            Auto::Dfa(a) => a.memory_usage(),
            Auto::Nfa(a) => a.memory_usage(),
        }
    }
}

/// Walk `data` through `a` from its unanchored start, adding every match to `m`: one transition
/// a byte, and at a match state its patterns (at most [`MAX_ENDING`]); stops early once nothing
/// new can come (the counter saturated and every named pattern seen).
fn scan<A: Automaton>(a: &A, count: usize, data: &[u8], m: &mut Matches) {
    let Ok(mut sid) = a.start_state(Anchored::No) else {
        return;
    };
    let mut at = 0;
    loop {
        if a.is_special(sid) {
            if a.is_dead(sid) {
                return;
            }
            if a.is_match(sid) {
                for k in 0..a.match_len(sid) {
                    let i = a.match_pattern(sid, k).as_usize();
                    if i < 64 {
                        m.mask |= 1 << i;
                    } else {
                        m.over = m.over.saturating_add(1);
                    }
                }
                if m.over == u16::MAX && (count <= 64 || m.mask == u64::MAX) {
                    return;
                }
            }
        }
        let Some(&b) = data.get(at) else {
            return;
        };
        sid = a.next_state(Anchored::No, sid, b);
        at += 1;
    }
}

/// The first pattern (its index, and the count there) at one of whose bytes more than `limit`
/// patterns end, if any.
///
/// A search's state after a byte is the longest suffix of the text read that begins some
/// pattern, and the matches reported there are the patterns that are suffixes of it. Every such
/// state is a beginning of a pattern: so the most matches any payload byte can report is the
/// most patterns that are suffixes of one beginning. That is counted on a trie of the patterns
/// with Aho-Corasick's failure links (a beginning's count is the patterns ending at it plus the
/// count of its failure), in time and memory linear in the patterns' bytes, whatever the set:
/// no match lists are built.
fn most_ending(pats: &[Vec<u8>], limit: usize) -> Option<(usize, usize)> {
    const NONE: u32 = u32::MAX;
    /// A trie node: its first child and next sibling (children are few but for the root's,
    /// which are a table), its byte, failure, patterns ending here, count, and the first
    /// pattern through it.
    #[derive(Clone, Copy)]
    struct Node {
        child: u32,
        sibling: u32,
        byte: u8,
        fail: u32,
        own: u32,
        count: u32,
        first: u32,
    }
    let mut nodes = vec![Node {
        child: NONE,
        sibling: NONE,
        byte: 0,
        fail: 0,
        own: 0,
        count: 0,
        first: 0,
    }];
    // The transitions, (node, byte) → child: a hash table, as shallow nodes have many children.
    let mut edges: HashMap<u64, u32, BuildHasherDefault<EdgeHasher>> = HashMap::default();
    let key = |v: u32, b: u8| u64::from(v) << 8 | u64::from(b);
    let next = |edges: &HashMap<u64, u32, BuildHasherDefault<EdgeHasher>>, v: u32, b: u8| {
        edges.get(&key(v, b)).copied().unwrap_or(NONE)
    };
    for (i, p) in pats.iter().enumerate() {
        let mut v = 0u32;
        for &b in p {
            let c = next(&edges, v, b);
            v = if c != NONE {
                c
            } else {
                let c = nodes.len() as u32;
                nodes.push(Node {
                    child: NONE,
                    sibling: nodes[v as usize].child,
                    byte: b,
                    fail: 0,
                    own: 0,
                    count: 0,
                    first: i as u32,
                });
                nodes[v as usize].child = c;
                edges.insert(key(v, b), c);
                c
            };
        }
        nodes[v as usize].own += 1;
    }
    // Breadth first: a node's failure is shallower, so its count is known.
    nodes[0].count = nodes[0].own;
    if nodes[0].count as usize > limit {
        return Some((0, nodes[0].count as usize));
    }
    let mut queue = std::collections::VecDeque::new();
    queue.push_back(0u32);
    while let Some(u) = queue.pop_front() {
        let mut c = nodes[u as usize].child;
        while c != NONE {
            let b = nodes[c as usize].byte;
            let fail = if u == 0 {
                0
            } else {
                let mut f = nodes[u as usize].fail;
                loop {
                    let x = next(&edges, f, b);
                    if x != NONE {
                        break x;
                    }
                    if f == 0 {
                        break 0;
                    }
                    f = nodes[f as usize].fail;
                }
            };
            let n = &mut nodes[c as usize];
            n.fail = fail;
            let count = n.own;
            let count = count.saturating_add(nodes[fail as usize].count);
            nodes[c as usize].count = count;
            if count as usize > limit {
                return Some((nodes[c as usize].first as usize, count as usize));
            }
            queue.push_back(c);
            c = nodes[c as usize].sibling;
        }
    }
    None
}

/// A multiplicative hash of a (node, byte) key (Fibonacci hashing): the keys are small and
/// dense, and the table is built once from the operator's own file.
#[derive(Default)]
struct EdgeHasher(u64);

impl std::hash::Hasher for EdgeHasher {
    fn finish(&self) -> u64 {
        self.0.wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(26)
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8 | u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// Write `m` as the record shows it: the pattern numbers, space-separated, then `+N` when
/// patterns numbered 64 and up were hit N times. Returns the bytes written into `buf`.
pub fn format(m: Matches, buf: &mut [u8; 255]) -> usize {
    let mut n = 0;
    let mut put = |s: &[u8], n: &mut usize| {
        if let Some(d) = buf.get_mut(*n..*n + s.len()) {
            d.copy_from_slice(s);
            *n += s.len();
        }
    };
    let mut mask = m.mask;
    while mask != 0 {
        let i = mask.trailing_zeros() as u8;
        mask &= mask - 1;
        if n > 0 {
            put(b" ", &mut n);
        }
        let digits = [b'0' + i / 10, b'0' + i % 10];
        put(if i < 10 { &digits[1..] } else { &digits }, &mut n);
    }
    if m.over > 0 {
        if n > 0 {
            put(b" ", &mut n);
        }
        put(b"+", &mut n);
        let mut d = [0u8; 5];
        let mut v = m.over;
        let mut k = d.len();
        loop {
            k -= 1;
            d[k] = b'0' + (v % 10) as u8;
            v /= 10;
            if v == 0 || k == 0 {
                break;
            }
        }
        put(&d[k..], &mut n);
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Long periodic patterns (the worst case for a DFA's size) build in linear time: the NFA is
    /// chosen above the DFA bound, and the matches are still found.
    #[test]
    fn long_patterns_build_as_an_nfa_and_still_match() {
        let long = "A".repeat(262_144);
        let m = Matcher::new(&format!("{long}\nB\n")).unwrap();
        assert!(matches!(m.ac, Auto::Nfa(_)));
        let mut found = Matches::default();
        m.scan(b"xxBxx", &mut found);
        assert_eq!(found.mask, 0b10);
        let small = Matcher::new("GET /\n").unwrap();
        assert!(matches!(small.ac, Auto::Dfa(_)));
    }

    #[test]
    fn parses_literals_escapes_and_comments() {
        let p = parse("# c\n\nGET /\n\\x16\\x03\n a\\\\b \n").unwrap();
        assert_eq!(
            p,
            vec![b"GET /".to_vec(), vec![0x16, 3], b" a\\b ".to_vec()]
        );
    }

    #[test]
    fn bad_escapes_name_their_line() {
        assert_eq!(parse("ok\n\n\\xZ1\n").unwrap_err().line, 3);
        assert_eq!(parse("# x\nab\\q\n").unwrap_err().line, 2);
        assert_eq!(parse("a\\x4").unwrap_err().line, 1);
    }

    #[test]
    fn scan_and_format() {
        let mut pats: Vec<Vec<u8>> = (0..70).map(|i| format!("p{i:03}").into_bytes()).collect();
        pats[0] = b"Host: ".to_vec();
        pats[12] = b"GET /".to_vec();
        let m = Matcher::from_patterns(&pats).unwrap();
        let mut r = Matches::default();
        m.scan(b"GET / HTTP/1.1\r\nHost: x\r\np069 p065", &mut r);
        assert_eq!(r.mask, 1 | 1 << 12);
        assert_eq!(r.over, 2);
        let mut buf = [0; 255];
        let n = format(r, &mut buf);
        assert_eq!(&buf[..n], b"0 12 +2");
    }

    /// Issue 33: 5,000 nested patterns (`a`, `aa`, …) cost 14 ms a packet, every byte of a
    /// run of `a` reporting thousands of matches. Past [`MAX_ENDING`] at one byte the set is
    /// refused, naming the line; up to it, a packet's matches are at most that many a byte.
    #[test]
    fn nested_patterns_are_refused_past_the_bound() {
        let nested = |n: usize| -> String { (1..=n).map(|i| "a".repeat(i) + "\n").collect() };
        let e = Matcher::new(&format!("# nested\n{}", nested(100))).unwrap_err();
        assert!(e.starts_with("line 34: 33 patterns end at one byte"), "{e}");
        let e = Matcher::from_patterns(&vec![b"xa".to_vec(); 33]).unwrap_err();
        assert!(e.starts_with("pattern 0: "), "{e}");
        let m = Matcher::new(&nested(MAX_ENDING)).unwrap();
        let mut r = Matches::default();
        m.scan(&[b'a'; 1400], &mut r);
        assert_eq!(r.mask, (1u64 << MAX_ENDING) - 1);
        // Numbered from 64 up, the same patterns are counted hit by hit: at byte j of the run,
        // min(j, 32) of them end.
        let mut text: String = (0..64).map(|i| format!("z{i}z\n")).collect();
        text.push_str(&nested(MAX_ENDING));
        let mut r = Matches::default();
        Matcher::new(&text).unwrap().scan(&[b'a'; 1400], &mut r);
        let want: usize = (1..=1400).map(|j: usize| j.min(MAX_ENDING)).sum();
        assert_eq!((r.mask, usize::from(r.over)), (0, want));
        assert!(want <= MAX_ENDING * 1400);
        // A set whose match lists alone would take gigabytes (every beginning of the long
        // pattern past 800 bytes ends 800 patterns) is refused before anything is built.
        let mut text = nested(800);
        text.push_str(&"a".repeat(600_000));
        let e = Matcher::new(&text).unwrap_err();
        assert!(e.starts_with("line 33: 33 patterns end"), "{e}");
        // Not nested: the suffixes of one long pattern all end at its last byte.
        let long: Vec<u8> = (b'A'..=b'z').collect();
        let set: Vec<Vec<u8>> = (0..40).map(|k| long[k..].to_vec()).collect();
        let e = Matcher::from_patterns(&set).unwrap_err();
        assert!(
            e.contains("patterns end at one byte") && e.contains("at most 32"),
            "{e}"
        );
        assert!(Matcher::from_patterns(&set[8..]).is_ok());
    }

    /// Issue 33: 100,000 patterns of 160 bytes took 21-37 s and 754 MB to build. The patterns'
    /// bytes are bounded (so the automaton's states are), a clear error naming the line past it.
    #[test]
    fn the_pattern_bytes_are_bounded() {
        let mut s = 11u64;
        let line = |s: &mut u64| -> String {
            (0..16)
                .map(|_| (b'A' + (splitmix(s) % 26) as u8) as char)
                .collect()
        };
        // 65,536 lines of 16 bytes: exactly 1 MiB.
        let mut text: String = (0..65_536).map(|_| line(&mut s) + "\n").collect();
        let m = Matcher::new(&text).unwrap();
        assert!(m.memory_usage() < 128 << 20, "{} bytes", m.memory_usage());
        text.push_str("x\n");
        let e = Matcher::new(&text).unwrap_err();
        assert_eq!(
            e,
            "line 65537: the patterns up to here hold more than 1 MiB together, the most compiled"
        );
        let e = Matcher::from_patterns(&[vec![0; MAX_PATTERN_BYTES], vec![1]]).unwrap_err();
        assert!(e.starts_with("pattern 1: "), "{e}");
        let e = Matcher::from_patterns(&vec![vec![1]; MAX_PATTERNS + 1]).unwrap_err();
        assert_eq!(e, "100001 patterns: at most 100000");
    }

    fn splitmix(s: &mut u64) -> u64 {
        *s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = *s;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Search speed for 10, 100 and 1,000 random patterns (4 to 16 printable bytes) over
    /// 1,400-byte printable payloads, printed in MB/s. Checked: a planted pattern is found.
    #[test]
    fn throughput_by_pattern_count() {
        let mut s = 7u64;
        let printable = |s: &mut u64| b' ' + (splitmix(s) % 95) as u8;
        let payloads: Vec<Vec<u8>> = (0..256)
            .map(|_| (0..1400).map(|_| printable(&mut s)).collect())
            .collect();
        for n in [10usize, 100, 1000] {
            let pats: Vec<Vec<u8>> = (0..n)
                .map(|_| {
                    let len = 4 + (splitmix(&mut s) % 13) as usize;
                    (0..len).map(|_| printable(&mut s)).collect()
                })
                .collect();
            let m = Matcher::from_patterns(&pats).unwrap();
            let mut planted = payloads[0].clone();
            planted[100..100 + pats[3].len()].copy_from_slice(&pats[3]);
            let mut r = Matches::default();
            m.scan(&planted, &mut r);
            assert!(r.mask & 1 << 3 != 0);
            let t = std::time::Instant::now();
            let mut bits = 0u32;
            for _ in 0..20 {
                for p in &payloads {
                    let mut r = Matches::default();
                    m.scan(p, &mut r);
                    bits += r.mask.count_ones();
                }
            }
            let secs = t.elapsed().as_secs_f64();
            let mb = 20.0 * 256.0 * 1400.0 / 1e6;
            println!(
                "{n:>5} patterns: {:.0} MB/s ({bits} pattern hits on random text)",
                mb / secs
            );
        }
    }

    proptest! {
        /// The bound's reasoning: where searching each pattern alone never reports more than
        /// `limit` matches at one byte, no text does; where it does, the pattern named has such
        /// a byte. Checked against counting by brute force.
        #[test]
        fn most_ending_bounds_every_text(
            pats in proptest::collection::vec(proptest::collection::vec(0u8..3, 1..6), 1..24),
            text in proptest::collection::vec(0u8..3, 0..200),
            limit in 1usize..6,
        ) {
            let ending = |t: &[u8]| -> usize {
                (0..=t.len())
                    .map(|j| pats.iter().filter(|p| t[..j].ends_with(p)).count())
                    .max()
                    .unwrap_or(0)
            };
            match most_ending(&pats, limit) {
                None => prop_assert!(ending(&text) <= limit),
                Some((i, n)) => {
                    prop_assert!(n > limit);
                    prop_assert!(ending(&pats[i]) > limit);
                }
            }
        }

        /// Both automata find exactly what counting by brute force finds: the patterns below 64
        /// present, and every occurrence of the others.
        #[test]
        fn both_automata_find_what_brute_force_does(
            pats in proptest::collection::vec(proptest::collection::vec(0u8..3, 1..5), 1..90),
            data in proptest::collection::vec(0u8..3, 0..300),
        ) {
            prop_assume!(most_ending(&pats, MAX_ENDING).is_none());
            let mut want = Matches::default();
            for (i, p) in pats.iter().enumerate() {
                let n = data.windows(p.len()).filter(|w| *w == &p[..]).count();
                if i < 64 {
                    if n > 0 {
                        want.mask |= 1 << i;
                    }
                } else {
                    want.over = want.over.saturating_add(n.min(usize::from(u16::MAX)) as u16);
                }
            }
            let dfa = Matcher::from_patterns(&pats).unwrap();
            prop_assert!(matches!(dfa.ac, Auto::Dfa(_)));
            let nfa = Matcher {
                ac: Auto::Nfa(
                    aho_corasick::nfa::contiguous::NFA::builder()
                        .match_kind(MatchKind::Standard)
                        .prefilter(false)
                        .build(&pats)
                        .unwrap(),
                ),
                count: pats.len(),
            };
            for m in [&dfa, &nfa] {
                let mut got = Matches::default();
                m.scan(&data, &mut got);
                prop_assert_eq!(got, want);
            }
        }

        #[test]
        fn never_panics(text in ".{0,200}", pats in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..8), 0..80), data in proptest::collection::vec(any::<u8>(), 0..300)) {
            let _ = parse(&text);
            if let Ok(m) = Matcher::from_patterns(&pats) {
                let mut r = Matches::default();
                m.scan(&data, &mut r);
                for (i, p) in pats.iter().enumerate().take(64) {
                    if !p.is_empty() && data.windows(p.len()).any(|w| w == &p[..]) {
                        prop_assert!(r.mask & (1 << i) != 0);
                    }
                }
                let mut buf = [0; 255];
                let n = format(r, &mut buf);
                prop_assert!(std::str::from_utf8(&buf[..n]).is_ok());
            }
        }
    }
}
