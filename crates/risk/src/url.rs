//! nDPI's URL checks: XSS, SQL injection and RCE in query values, suspicious paths.

use super::Risk;

// ------------------------------------------------------------------------------------- URL

/// Most bytes of one query value decoded for the injection checks (longer values are checked
/// on their first `DECODE_CAP` decoded bytes).
pub const DECODE_CAP: usize = 1024;

/// nDPI's URL validation (`ndpi_validate_url`, ndpi_utils.c) on an HTTP URL as nDPI records it
/// (`host/path?query`). For each `name=value` pair of the query (split on `&`, stopping at the
/// first pair without `=`), the non-empty value is URL-decoded once (`+` is a space; a value
/// with a bad `%` escape is skipped) and checked for XSS, then SQL injection, then RCE; the
/// first hit is the answer. With no hit, a URL holding `..` is HTTP Susp URL.
///
/// nDPI decides XSS and SQLi with libinjection and RCE with ModSecurity CRS 932 regexes
/// (PCRE2) plus lists of shell paths and PowerShell cmdlets. This is a bounded approximation:
///
/// * XSS: an HTML tag that can run script (`<script`, `<iframe`, `<svg`, `<img`, `<object`,
///   …), an `on…=` event attribute inside a tag, or a `javascript:`/`vbscript:` URL.
///   libinjection parses HTML states and catches more obfuscations.
/// * SQLi: `union … select`; a quote (optionally `)`) followed by an SQL keyword or operator
///   word (`or`, `and`, `union`, `select`, `order by`, `sleep`, …); a quote followed by a
///   comment (`--`, `#`, `/*`). libinjection tokenises SQL and matches fingerprints, so it
///   finds numeric-context injections without quotes that this misses.
/// * RCE: CRS 932150's "direct" form (the value starts with a Unix command and a separator,
///   `ls -al`); CRS 932100's form (after `;` `|` `||` `&` `&&` `` ` `` `$(` `${` `<(` `>(` or a
///   newline, optional quotes/`{`/`(`/`!`/`$` and a path, a Unix command word); the shell-path
///   list (`bin/sh`, `etc/passwd`, `/dev/tcp/`, …) and common PowerShell cmdlets. The command
///   list is shorter than CRS's and quote-splitting evasions (`l'"s`) are not undone.
///
/// Values are decoded into a stack buffer of [`DECODE_CAP`] bytes.
pub fn url_risk(url: &str) -> Option<Risk> {
    if let Some(q) = url.find('?') {
        let mut buf = [0u8; DECODE_CAP];
        for pair in url[q + 1..].split('&') {
            let Some(eq) = pair.find('=') else {
                break;
            };
            let value = &pair[eq + 1..];
            if value.is_empty() {
                continue;
            }
            let Some(len) = url_decode(value.as_bytes(), &mut buf) else {
                continue;
            };
            let v = &buf[..len];
            if v.is_empty() {
                continue;
            }
            if is_xss(v) {
                return Some(Risk::UrlPossibleXss);
            }
            if is_sqli(v) {
                return Some(Risk::UrlPossibleSqlInjection);
            }
            if is_rce(v) {
                return Some(Risk::UrlPossibleRceInjection);
            }
        }
    }
    url.contains("..").then_some(Risk::HttpSuspiciousUrl)
}

/// nDPI's checks on the URL path (`ndpi_check_http_url`, http.c): `<php>` anywhere or a
/// `/shell?` prefix is RCE Injection; a `/.` prefix (`/.env`, `/.git`) is Possible Exploit.
/// `path` starts at the first `/` after the host.
pub fn http_path_risk(path: &str) -> Option<Risk> {
    if path.contains("<php>") || path.starts_with("/shell?") {
        Some(Risk::UrlPossibleRceInjection)
    } else if path.starts_with("/.") {
        Some(Risk::PossibleExploit)
    } else {
        None
    }
}

/// Decode `%XX` and `+` into `out`; `None` on a bad escape (nDPI skips such a value). Output
/// past `out`'s length is dropped.
fn url_decode(s: &[u8], out: &mut [u8]) -> Option<usize> {
    let (mut i, mut o) = (0, 0);
    while i < s.len() {
        let c = match s[i] {
            b'+' => b' ',
            b'%' => {
                let h = hex(*s.get(i + 1)?)?;
                let l = hex(*s.get(i + 2)?)?;
                i += 2;
                h << 4 | l
            }
            c => c,
        };
        if o < out.len() {
            out[o] = c;
            o += 1;
        }
        i += 1;
    }
    Some(o)
}

fn hex(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

fn contains_ci(hay: &[u8], needle: &[u8]) -> bool {
    find_ci(hay, needle, 0).is_some()
}

/// First index at or after `from` where `needle` (lower-case ASCII) occurs, ignoring case.
/// Candidates are found by the first byte alone, either case (memchr's vector loop), then the
/// rest compared.
pub(super) fn find_ci(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    let (&first, rest) = needle.split_first()?;
    let last = hay.len().checked_sub(needle.len())?;
    let upper = first.to_ascii_uppercase();
    let mut i = from;
    while i <= last {
        i += memchr::memchr2(first, upper, hay.get(i..=last)?)?;
        if hay[i + 1..i + needle.len()].eq_ignore_ascii_case(rest) {
            return Some(i);
        }
        i += 1;
    }
    None
}

fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

fn skip_ws(v: &[u8], mut i: usize) -> usize {
    while i < v.len() && v[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

const XSS_TAGS: &[&[u8]] = &[
    b"script",
    b"iframe",
    b"frame",
    b"frameset",
    b"object",
    b"embed",
    b"applet",
    b"svg",
    b"meta",
    b"base",
    b"link",
    b"style",
    b"form",
    b"xml",
    b"img",
    b"body",
    b"input",
    b"video",
    b"audio",
    b"marquee",
    b"isindex",
];

fn is_xss(v: &[u8]) -> bool {
    if contains_ci(v, b"javascript:") || contains_ci(v, b"vbscript:") {
        return true;
    }
    let mut i = 0;
    while let Some(lt) = memchr::memchr(b'<', &v[i..]) {
        let start = lt + i;
        let mut j = skip_ws(v, start + 1);
        if j < v.len() && v[j] == b'/' {
            j = skip_ws(v, j + 1);
        }
        let name_end = (j..v.len())
            .find(|&k| !v[k].is_ascii_alphabetic())
            .unwrap_or(v.len());
        let name = &v[j..name_end];
        if !name.is_empty() && XSS_TAGS.iter().any(|t| name.eq_ignore_ascii_case(t)) {
            return true;
        }
        // An event-handler attribute inside this tag: whitespace or '/', "on", letters, '='.
        let tag_end = v[start..]
            .iter()
            .position(|&c| c == b'>')
            .map_or(v.len(), |p| start + p);
        let tag = &v[start..tag_end];
        let mut k = 1;
        while k + 2 < tag.len() {
            if (tag[k].is_ascii_whitespace() || tag[k] == b'/')
                && tag[k + 1..].len() >= 2
                && tag[k + 1..k + 3].eq_ignore_ascii_case(b"on")
            {
                let mut e = k + 3;
                while e < tag.len() && tag[e].is_ascii_alphabetic() {
                    e += 1;
                }
                e = skip_ws(tag, e);
                if e > k + 3 && e < tag.len() && tag[e] == b'=' {
                    return true;
                }
            }
            k += 1;
        }
        i = start + 1;
    }
    false
}

const SQL_WORDS: &[&[u8]] = &[
    b"union",
    b"select",
    b"insert",
    b"update",
    b"delete",
    b"drop",
    b"or",
    b"and",
    b"having",
    b"order",
    b"group",
    b"sleep",
    b"benchmark",
    b"waitfor",
    b"exec",
    b"xor",
    b"like",
];

fn is_sqli(v: &[u8]) -> bool {
    // union [all] select
    let mut from = 0;
    while let Some(u) = find_ci(v, b"union", from) {
        let mut j = skip_ws(v, u + 5);
        if j > u + 5 || v.get(j) == Some(&b'(') || v.get(j) == Some(&b'/') {
            if v.len() >= j + 3 && v[j..j + 3].eq_ignore_ascii_case(b"all") {
                j = skip_ws(v, j + 3);
            }
            if v.len() >= j + 6 && v[j..j + 6].eq_ignore_ascii_case(b"select") {
                return true;
            }
        }
        from = u + 1;
    }
    // a quote, then (optionally ')' or ';') a keyword or a comment
    for (q, _) in v
        .iter()
        .enumerate()
        .filter(|(_, &c)| matches!(c, b'\'' | b'"' | b'`'))
    {
        let mut j = skip_ws(v, q + 1);
        if j < v.len() && (v[j] == b')' || v[j] == b';') {
            j = skip_ws(v, j + 1);
        }
        let rest = &v[j..];
        if rest.starts_with(b"--") || rest.starts_with(b"#") || rest.starts_with(b"/*") {
            return true;
        }
        let w = rest.iter().position(|&c| !is_word(c)).unwrap_or(rest.len());
        if w > 0 && SQL_WORDS.iter().any(|k| rest[..w].eq_ignore_ascii_case(k)) {
            return true;
        }
    }
    false
}

/// Unix command words for the RCE approximation (a subset of CRS 932's lists).
const UNIX_CMDS: &[&[u8]] = &[
    b"awk",
    b"base64",
    b"bash",
    b"cat",
    b"chmod",
    b"chown",
    b"cp",
    b"crontab",
    b"csh",
    b"curl",
    b"echo",
    b"env",
    b"find",
    b"ftp",
    b"gcc",
    b"grep",
    b"gzip",
    b"head",
    b"id",
    b"ifconfig",
    b"kill",
    b"ksh",
    b"less",
    b"ls",
    b"mkdir",
    b"more",
    b"mv",
    b"nc",
    b"ncat",
    b"netcat",
    b"netstat",
    b"nmap",
    b"nslookup",
    b"passwd",
    b"perl",
    b"php",
    b"ping",
    b"ps",
    b"python",
    b"python2",
    b"python3",
    b"rm",
    b"ruby",
    b"sed",
    b"sh",
    b"sleep",
    b"socat",
    b"su",
    b"sudo",
    b"tail",
    b"tar",
    b"telnet",
    b"tftp",
    b"touch",
    b"uname",
    b"unzip",
    b"uptime",
    b"useradd",
    b"wget",
    b"who",
    b"whoami",
    b"xargs",
    b"zsh",
];

/// Shell paths and variables whose mere presence nDPI treats as RCE (a subset of its list).
pub(super) const SHELL_SNIPPETS: &[&[u8]] = &[
    b"${IFS}",
    b"$IFS",
    b"${PATH}",
    b"bin/bash",
    b"bin/cat",
    b"bin/ls",
    b"bin/nc",
    b"bin/sh",
    b"bin/uname",
    b"dev/tcp/",
    b"dev/udp/",
    b"etc/passwd",
    b"etc/shadow",
    b"etc/group",
    b"proc/self/",
    b"usr/bin/",
    b"usr/local/bin/",
];

/// PowerShell words nDPI treats as RCE (a subset of its cmdlet list).
pub(super) const PWSH: &[&[u8]] = &[
    b"powershell.exe",
    b"Invoke-Expression",
    b"Invoke-Command",
    b"Invoke-WebRequest",
    b"Start-Process",
    b"New-Object",
    b"Get-Content",
    b"Set-Content",
    b"-EncodedCommand",
    b"-ExecutionPolicy",
];

/// The first bytes of the RCE needles ([`SHELL_SNIPPETS`], [`PWSH`]), so one pass over a value
/// tries only the positions where one of them may start.
const RCE_FIRST: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < SHELL_SNIPPETS.len() {
        t[SHELL_SNIPPETS[i][0] as usize] = true;
        i += 1;
    }
    i = 0;
    while i < PWSH.len() {
        t[PWSH[i][0] as usize] = true;
        i += 1;
    }
    t
};

/// Does any shell snippet or PowerShell cmdlet occur in `v` (exact bytes)? One pass: a position
/// is tried against the needles only when a needle starts with its byte.
pub(super) fn rce_needle(v: &[u8]) -> bool {
    v.iter().enumerate().any(|(i, &c)| {
        RCE_FIRST[usize::from(c)]
            && SHELL_SNIPPETS
                .iter()
                .chain(PWSH)
                .any(|s| v[i..].starts_with(s))
    })
}

/// A command word at `i` (after quotes, prefixes and an optional path), followed by
/// `need_sep` (a separator) or by any non-word byte.
fn command_at(v: &[u8], mut i: usize, need_sep: bool) -> bool {
    while i < v.len()
        && matches!(
            v[i],
            b' ' | b'\t' | b'\'' | b'"' | b'\\' | b'{' | b'(' | b'!' | b'$'
        )
    {
        i += 1;
    }
    // optional path: word chars, '.', '-' then '/'
    let mut j = i;
    let mut last_slash = None;
    while j < v.len() && (is_word(v[j]) || matches!(v[j], b'.' | b'-' | b'/')) {
        if v[j] == b'/' {
            last_slash = Some(j);
        }
        j += 1;
    }
    if let Some(s) = last_slash {
        i = s + 1;
    }
    let end = (i..v.len()).find(|&k| !is_word(v[k])).unwrap_or(v.len());
    let word = &v[i..end];
    if word.is_empty() || !UNIX_CMDS.iter().any(|c| word.eq_ignore_ascii_case(c)) {
        return false;
    }
    match v.get(end) {
        None => !need_sep,
        Some(&c) => {
            if need_sep {
                c.is_ascii_whitespace() || matches!(c, b';' | b'|' | b'&' | b'<' | b'>')
            } else {
                !is_word(c)
            }
        }
    }
}

fn is_rce(v: &[u8]) -> bool {
    if rce_needle(v) {
        return true;
    }
    if command_at(v, 0, true) {
        return true;
    }
    let mut i = 0;
    while i < v.len() {
        let tok = match v[i] {
            b';' | b'|' | b'&' | b'`' | b'\n' | b'\r' => 1,
            b'$' | b'<' | b'>' if matches!(v.get(i + 1), Some(b'(') | Some(b'{')) => 2,
            _ => 0,
        };
        if tok > 0 && command_at(v, i + tok, false) {
            return true;
        }
        i += 1;
    }
    false
}
