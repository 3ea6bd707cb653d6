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

use aho_corasick::AhoCorasick;

/// Most patterns a file may hold.
pub const MAX_PATTERNS: usize = 100_000;

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
    let mut out = Vec::new();
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
                msg: "too many patterns",
            });
        }
        out.push(p);
    }
    Ok(out)
}

/// Compiled patterns.
pub struct Matcher {
    ac: AhoCorasick,
    count: usize,
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
    /// Compile a pattern file.
    pub fn new(text: &str) -> Result<Matcher, String> {
        let pats = parse(text).map_err(|e| e.to_string())?;
        Matcher::from_patterns(&pats)
    }

    /// Compile byte patterns.
    pub fn from_patterns(pats: &[Vec<u8>]) -> Result<Matcher, String> {
        // A full DFA is about twice as fast as the default for small sets, but its table grows
        // with the total pattern bytes (states x byte classes x 4): only below a bound.
        let total: usize = pats.iter().map(Vec::len).sum();
        // Above the bound the kind is named, not left to the crate's choice, which picks a DFA
        // for few patterns whatever their length (one 65,536-byte pattern took 12 s to build,
        // four times that more than a minute); the contiguous NFA builds in linear time.
        let kind = if total <= DFA_MAX_BYTES {
            aho_corasick::AhoCorasickKind::DFA
        } else {
            aho_corasick::AhoCorasickKind::ContiguousNFA
        };
        let ac = AhoCorasick::builder()
            .match_kind(aho_corasick::MatchKind::Standard)
            .kind(Some(kind))
            .build(pats)
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
        // Overlapping search visits at most one match per (position, pattern): bounded by the
        // payload length times the patterns ending there; stop early once nothing new can come.
        for hit in self.ac.find_overlapping_iter(data) {
            let i = hit.pattern().as_usize();
            if i < 64 {
                m.mask |= 1 << i;
            } else {
                m.over = m.over.saturating_add(1);
                if m.over == u16::MAX && (self.count <= 64 || m.mask == u64::MAX) {
                    break;
                }
            }
        }
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
        assert_eq!(m.ac.kind(), aho_corasick::AhoCorasickKind::ContiguousNFA);
        let mut found = Matches::default();
        m.scan(b"xxBxx", &mut found);
        assert_eq!(found.mask, 0b10);
        let small = Matcher::new("GET /\n").unwrap();
        assert_eq!(small.ac.kind(), aho_corasick::AhoCorasickKind::DFA);
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
