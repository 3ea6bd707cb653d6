//! The policy file: ordered rules, first match wins (`docs/INLINE.md`).
//!
//! ```toml
//! unclassified = "forward"        # flows no method has named yet (the default)
//! default = "forward"             # named flows no rule matches (the default)
//!
//! [[rule]]
//! name = "no-torrents"
//! app = "BitTorrent"
//! action = "drop"
//!
//! [[rule]]
//! category = ["Video", "Music"]
//! action = "rate-limit"
//! rate = "10mbit"
//! per = "flow"
//!
//! [[rule]]
//! master = "SIP"
//! action = "mark"
//! dscp = "EF"
//! ```
//!
//! A file is read whole ([`PolicySpec::parse`]) and compiled against the run's label registry
//! ([`Policy::compile`]): a name no label carries is an error naming the rule, so a typo does
//! not silently match nothing.

use crate::bucket::Rate;
use crate::dscp::parse_dscp;
use serde::Deserialize;
use std::fmt;
use std::net::IpAddr;
use std::path::Path;
use wirespeed_classify::{Breed, LabelId, Labels, Method};
use wirespeed_risk::{Risk, RiskSet};

/// What to do with a flow's packets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Action {
    /// Let them through.
    Forward,
    /// Drop them.
    Drop,
    /// Let them through with this DSCP.
    Mark(u8),
    /// Police them to a rate; the bucket is the rule's (shared by its flows) or each flow's.
    RateLimit {
        /// The rate.
        rate: Rate,
        /// The bucket's depth, in the rate's unit.
        burst: f64,
        /// One bucket per flow (else one for the rule).
        per_flow: bool,
    },
}

impl Action {
    /// The name written in records and policy files.
    pub fn as_str(&self) -> &'static str {
        match self {
            Action::Forward => "forward",
            Action::Drop => "drop",
            Action::Mark(_) => "mark",
            Action::RateLimit { .. } => "rate-limit",
        }
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Action::Mark(d) => write!(f, "mark dscp {d}"),
            Action::RateLimit {
                rate,
                burst,
                per_flow,
            } => write!(
                f,
                "rate-limit {rate} burst {burst} per {}",
                if *per_flow { "flow" } else { "rule" }
            ),
            a => f.write_str(a.as_str()),
        }
    }
}

/// A policy error: which rule, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolicyError(pub String);

impl fmt::Display for PolicyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PolicyError {}

/// One value or a list of them (`app = "X"` or `app = ["X", "Y"]`).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum OneOrMany<T> {
    /// One.
    One(T),
    /// Several.
    Many(Vec<T>),
}

impl<T> OneOrMany<T> {
    fn iter(&self) -> std::slice::Iter<'_, T> {
        match self {
            OneOrMany::One(t) => std::slice::from_ref(t).iter(),
            OneOrMany::Many(v) => v.iter(),
        }
    }
}

/// A port or a range, `443` or `"1024-65535"`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum PortSpec {
    /// One port.
    Port(u16),
    /// `"a-b"` or `"a"`.
    Text(String),
}

/// A transport, `"tcp"`, `"udp"`, `"icmp"`, `"icmpv6"`, `"sctp"` or an IP protocol number.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum ProtoSpec {
    /// A number.
    Number(u8),
    /// A name.
    Name(String),
}

/// An action as written: `"forward"`, `"drop"`, `"mark"`, `"rate-limit"`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum ActionSpec {
    /// Just the name (`unclassified = "forward"`).
    Name(String),
    /// A table (`unclassified = { action = "mark", dscp = "CS1" }`).
    Table(ActionTable),
}

/// The action keys of a rule or of `unclassified`/`default` tables.
#[derive(Clone, Debug, Deserialize, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub struct ActionTable {
    /// `forward`, `drop`, `mark`, `rate-limit`.
    pub action: String,
    /// DSCP for `mark`: 0-63 or a name (EF, AF41, CS1, LE).
    pub dscp: Option<DscpSpec>,
    /// Rate for `rate-limit`: `10mbit`, `512kbit`, `1000pps`.
    pub rate: Option<String>,
    /// Bucket depth for `rate-limit`, in the rate's unit (`"1mbit"`, `"50pps"`); default a
    /// tenth of a second of the rate.
    pub burst: Option<String>,
    /// `"rule"` (one bucket shared by the rule's flows, the default) or `"flow"`.
    pub per: Option<String>,
}

/// A DSCP as written: a number or a name.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum DscpSpec {
    /// 0-63.
    Number(i64),
    /// `EF`, `AF41`, `CS1`, ...
    Name(String),
}

/// One `[[rule]]` as written.
#[derive(Clone, Debug, Deserialize, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub struct RuleSpec {
    /// Name in counters and records (default `rule-N`, N from 1 in file order).
    pub name: Option<String>,
    /// Applications (`YouTube`), case-insensitive.
    pub app: Option<OneOrMany<String>>,
    /// Master protocols (`TLS`, `DNS`).
    pub master: Option<OneOrMany<String>>,
    /// Categories (`Video`, `Web`).
    pub category: Option<OneOrMany<String>>,
    /// nDPI breeds (`Safe`, `Unsafe`, `Dangerous`).
    pub breed: Option<OneOrMany<String>>,
    /// Methods whose verdicts the rule takes (`dpi`, `host-cache`, `dns-cache`, `dpt`,
    /// `stats`, `port`, `ip`); default all but the guesses `port` and `ip`.
    pub method: Option<OneOrMany<String>>,
    /// Least confidence of the verdict.
    pub min_confidence: Option<f32>,
    /// nDPI's flow risks, as records write them (`Obsolete TLS (v1.1 or older)`); the rule
    /// matches a flow carrying any of them.
    pub risk: Option<OneOrMany<String>>,
    /// Transports.
    pub proto: Option<OneOrMany<ProtoSpec>>,
    /// The client's address (CIDR or address), as records' `src_ip`.
    pub src: Option<OneOrMany<String>>,
    /// The server's address, as records' `dst_ip`.
    pub dst: Option<OneOrMany<String>>,
    /// The client's port.
    pub src_port: Option<OneOrMany<PortSpec>>,
    /// The server's port.
    pub dst_port: Option<OneOrMany<PortSpec>>,
    /// The action and its parameters.
    #[serde(flatten)]
    pub act: ActionTable,
}

/// A policy file as written.
#[derive(Clone, Debug, Deserialize, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub struct PolicySpec {
    /// Flows no method has named yet (default forward).
    pub unclassified: Option<ActionSpec>,
    /// Named flows that no rule matches (default forward).
    pub default: Option<ActionSpec>,
    /// The rules, in order.
    #[serde(default)]
    pub rule: Vec<RuleSpec>,
}

impl PolicySpec {
    /// Read a policy file's text. A syntax error gives its line and column and quotes at most
    /// a short excerpt of the line and of the message, however long they are.
    pub fn parse(text: &str) -> Result<PolicySpec, PolicyError> {
        toml::from_str(text).map_err(|e| toml_error(text, &e))
    }
}

/// The largest policy file read, in bytes (a policy holds at most [`MAX_RULES`] rules).
pub const MAX_POLICY_FILE: u64 = 4 << 20;

/// The longest rule name, in bytes: names key counters, records and metrics.
pub const MAX_RULE_NAME: usize = 64;

/// The most characters of a value, a line or a message an error quotes.
const EXCERPT: usize = 60;

/// A policy file's text: a regular file of at most [`MAX_POLICY_FILE`] bytes, UTF-8. Anything
/// else is refused at once: a FIFO (opened without waiting for a writer), a device such as
/// `/dev/zero`, a directory, a socket, a larger file. The error says why, without the path
/// (the caller names it).
pub fn read_policy_file(path: &Path) -> Result<String, PolicyError> {
    use std::io::Read;
    let io = |e: std::io::Error| PolicyError(e.to_string());
    let mut o = std::fs::OpenOptions::new();
    o.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // Opening a FIFO for reading would wait for a writer; this returns at once.
        o.custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC);
    }
    let f = o.open(path).map_err(io)?;
    let meta = f.metadata().map_err(io)?;
    if !meta.is_file() {
        return Err(PolicyError(format!(
            "not a regular file ({}): a policy is read from a file",
            file_kind(&meta.file_type())
        )));
    }
    let too_big = || {
        PolicyError(format!(
            "larger than {} MiB, the most read for a policy",
            MAX_POLICY_FILE >> 20
        ))
    };
    if meta.len() > MAX_POLICY_FILE {
        return Err(too_big());
    }
    let mut b = Vec::new();
    // Bounded even if the file grows while it is read.
    f.take(MAX_POLICY_FILE + 1)
        .read_to_end(&mut b)
        .map_err(io)?;
    if b.len() as u64 > MAX_POLICY_FILE {
        return Err(too_big());
    }
    String::from_utf8(b).map_err(|e| {
        PolicyError(format!(
            "not UTF-8 text (byte {})",
            e.utf8_error().valid_up_to()
        ))
    })
}

fn file_kind(t: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if t.is_dir() {
        "a directory"
    } else {
        "not a file"
    }
}

/// At most `n` characters of `s`, control characters shown as spaces; what is cut is said.
fn excerpt(s: &str, n: usize) -> String {
    let clean = |s: &str| -> String {
        s.chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect()
    };
    match s.char_indices().nth(n) {
        None => clean(s),
        Some((i, _)) => format!("{}… ({} bytes)", clean(&s[..i]), s.len()),
    }
}

/// A value as an error quotes it: in quotes, escaped, at most [`EXCERPT`] characters.
fn q(s: &str) -> String {
    match s.char_indices().nth(EXCERPT) {
        None => format!("{s:?}"),
        Some((i, _)) => format!("{:?}… ({} bytes)", &s[..i], s.len()),
    }
}

/// toml's error, its line cut to a window around the column and its message shortened.
fn toml_error(text: &str, e: &toml::de::Error) -> PolicyError {
    let msg = excerpt(e.message().trim_end(), 4 * EXCERPT);
    let Some(span) = e.span() else {
        return PolicyError(format!("TOML parse error: {msg}"));
    };
    let mut at = span.start.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    let line_no = text[..line_start].bytes().filter(|&b| b == b'\n').count() + 1;
    let (pre, post) = (&text[line_start..at], &text[at..line_end]);
    let column = pre.chars().count() + 1;
    let half = EXCERPT / 2;
    let pre_cut = pre.char_indices().rev().nth(half - 1).map(|(i, _)| i);
    let pre = match pre_cut {
        Some(i) if i > 0 => format!("…{}", excerpt(&pre[i..], half)),
        _ => excerpt(pre, half),
    };
    let post = match post.trim_end_matches('\r').char_indices().nth(half) {
        Some((i, _)) => format!("{}…", excerpt(&post[..i], half)),
        None => excerpt(post.trim_end_matches('\r'), half),
    };
    let width = line_no.to_string().len();
    let caret = pre.chars().count();
    PolicyError(format!(
        "TOML parse error at line {line_no}, column {column}\n{:width$} |\n{line_no} | {pre}{post}\n{:width$} | {:caret$}^\n{msg}",
        "", "", ""
    ))
}

/// An address block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Net {
    addr: IpAddr,
    bits: u8,
}

impl Net {
    /// `192.0.2.0/24`, `2001:db8::/32` or a lone address.
    pub fn parse(s: &str) -> Option<Net> {
        let (a, b) = match s.split_once('/') {
            Some((a, b)) => (a, Some(b)),
            None => (s, None),
        };
        let addr: IpAddr = a.trim().parse().ok()?;
        let max = if addr.is_ipv4() { 32 } else { 128 };
        let bits = match b {
            Some(b) => b.trim().parse::<u8>().ok().filter(|&n| n <= max)?,
            None => max,
        };
        Some(Net { addr, bits })
    }

    /// Is `ip` in the block?
    #[inline]
    pub fn contains(&self, ip: IpAddr) -> bool {
        match (self.addr, ip) {
            (IpAddr::V4(n), IpAddr::V4(a)) => {
                let m = if self.bits == 0 {
                    0
                } else {
                    u32::MAX << (32 - self.bits)
                };
                u32::from(n) & m == u32::from(a) & m
            }
            (IpAddr::V6(n), IpAddr::V6(a)) => {
                let m = if self.bits == 0 {
                    0
                } else {
                    u128::MAX << (128 - self.bits)
                };
                u128::from(n) & m == u128::from(a) & m
            }
            _ => false,
        }
    }
}

/// The flow a rule is matched against: its label (if named) and its end-points, client first.
#[derive(Clone, Copy, Debug)]
pub struct FlowFacts {
    /// The verdict's label, method and confidence; None when no method named the flow.
    pub verdict: Option<(LabelId, Method, f32)>,
    /// The flow's risks as far as they are known when it is decided.
    pub risks: RiskSet,
    /// IP protocol number.
    pub proto: u8,
    /// Client address and port.
    pub src: (IpAddr, u16),
    /// Server address and port.
    pub dst: (IpAddr, u16),
}

/// One compiled rule.
#[derive(Clone, Debug)]
pub struct Rule {
    /// Name in counters and records.
    pub name: String,
    /// The action.
    pub action: Action,
    /// Does the rule look at the label at all (else it matches unnamed flows too)?
    labelled: bool,
    /// Per label id: do its names match the rule's app/master/category/breed conditions?
    labels: Vec<bool>,
    /// Methods whose verdicts count (bit per `Method::rank`).
    methods: u16,
    min_confidence: f32,
    /// Any of these risks (empty: no condition).
    risks: RiskSet,
    protos: Vec<u8>,
    src: Vec<Net>,
    dst: Vec<Net>,
    src_port: Vec<(u16, u16)>,
    dst_port: Vec<(u16, u16)>,
}

impl Rule {
    /// Does the rule match this flow?
    pub fn matches(&self, f: &FlowFacts) -> bool {
        if self.labelled {
            let Some((label, method, conf)) = f.verdict else {
                return false;
            };
            if self.methods & (1 << method.rank()) == 0 || conf < self.min_confidence {
                return false;
            }
            if !self.labels.get(label.index()).copied().unwrap_or(false) {
                return false;
            }
        }
        (self.risks.is_empty() || self.risks.bits() & f.risks.bits() != 0)
            && (self.protos.is_empty() || self.protos.contains(&f.proto))
            && (self.src.is_empty() || self.src.iter().any(|n| n.contains(f.src.0)))
            && (self.dst.is_empty() || self.dst.iter().any(|n| n.contains(f.dst.0)))
            && (self.src_port.is_empty()
                || self
                    .src_port
                    .iter()
                    .any(|&(a, b)| (a..=b).contains(&f.src.1)))
            && (self.dst_port.is_empty()
                || self
                    .dst_port
                    .iter()
                    .any(|&(a, b)| (a..=b).contains(&f.dst.1)))
    }
}

/// A compiled policy.
#[derive(Clone, Debug)]
pub struct Policy {
    /// The rules, in order.
    pub rules: Vec<Rule>,
    /// Flows no method has named.
    pub unclassified: Action,
    /// Named flows no rule matches.
    pub default: Action,
}

/// Which rule decided: an index into [`Policy::rules`], or one of the two fall-backs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decided {
    /// Rule `i`.
    Rule(u16),
    /// No rule matched an unnamed flow.
    Unclassified,
    /// No rule matched a named flow.
    Default,
}

/// The most rules a policy may hold (rule indices are 16-bit in per-flow state).
pub const MAX_RULES: usize = 4096;

const GUESSES: [Method; 2] = [Method::Port, Method::Ip];
const METHODS: [Method; 7] = Method::ALL;

impl Policy {
    /// A policy that forwards everything.
    pub fn forward_all() -> Policy {
        Policy {
            rules: Vec::new(),
            unclassified: Action::Forward,
            default: Action::Forward,
        }
    }

    /// Read and compile a policy file's text against a run's labels.
    pub fn from_toml(text: &str, labels: &Labels) -> Result<Policy, PolicyError> {
        Policy::compile(&PolicySpec::parse(text)?, labels)
    }

    /// Compile `spec` against the run's `labels`.
    pub fn compile(spec: &PolicySpec, labels: &Labels) -> Result<Policy, PolicyError> {
        if spec.rule.len() > MAX_RULES {
            return Err(PolicyError(format!(
                "{} rules: at most {MAX_RULES}",
                spec.rule.len()
            )));
        }
        let mut rules = Vec::with_capacity(spec.rule.len());
        let mut names = std::collections::HashSet::new();
        for (i, r) in spec.rule.iter().enumerate() {
            let name = r.name.clone().unwrap_or_else(|| format!("rule-{}", i + 1));
            if name.len() > MAX_RULE_NAME || name.is_empty() || name.chars().any(char::is_control) {
                return Err(PolicyError(format!(
                    "rule {}: the name {}: 1 to {MAX_RULE_NAME} bytes, no control characters",
                    i + 1,
                    q(&name),
                )));
            }
            let rule = compile_rule(r, &name, labels)
                .map_err(|e| PolicyError(format!("rule {} ({name}): {}", i + 1, e.0)))?;
            if !names.insert(name.clone()) {
                return Err(PolicyError(format!(
                    "rule {} ({name}): the name is used twice (counters are kept by name)",
                    i + 1
                )));
            }
            rules.push(rule);
        }
        let fallback = |a: &Option<ActionSpec>, what: &str| -> Result<Action, PolicyError> {
            match a {
                None => Ok(Action::Forward),
                Some(ActionSpec::Name(n)) => action(&ActionTable {
                    action: n.clone(),
                    ..Default::default()
                }),
                Some(ActionSpec::Table(t)) => action(t),
            }
            .map_err(|e| PolicyError(format!("{what}: {}", e.0)))
        };
        Ok(Policy {
            rules,
            unclassified: fallback(&spec.unclassified, "unclassified")?,
            default: fallback(&spec.default, "default")?,
        })
    }

    /// The first rule matching `f`, else the fall-back for its kind.
    pub fn decide(&self, f: &FlowFacts) -> Decided {
        for (i, r) in self.rules.iter().enumerate() {
            if r.matches(f) {
                return Decided::Rule(i as u16);
            }
        }
        match f.verdict {
            Some((_, m, _)) if !GUESSES.contains(&m) => Decided::Default,
            _ => Decided::Unclassified,
        }
    }

    /// The action of a decision.
    pub fn action(&self, d: Decided) -> Action {
        match d {
            Decided::Rule(i) => self
                .rules
                .get(usize::from(i))
                .map_or(Action::Forward, |r| r.action),
            Decided::Unclassified => self.unclassified,
            Decided::Default => self.default,
        }
    }

    /// The name of a decision in records and counters.
    pub fn name(&self, d: Decided) -> &str {
        match d {
            Decided::Rule(i) => self.rules.get(usize::from(i)).map_or("", |r| &r.name),
            Decided::Unclassified => "unclassified",
            Decided::Default => "default",
        }
    }

    /// Every DSCP value some action of the policy writes (the kernel rules need one line each).
    pub fn dscps(&self) -> Vec<u8> {
        let mut v: Vec<u8> = self
            .rules
            .iter()
            .map(|r| r.action)
            .chain([self.unclassified, self.default])
            .filter_map(|a| match a {
                Action::Mark(d) => Some(d),
                _ => None,
            })
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }
}

fn action(t: &ActionTable) -> Result<Action, PolicyError> {
    let err = |m: String| Err(PolicyError(m));
    let a = match t.action.to_ascii_lowercase().as_str() {
        "forward" | "accept" | "pass" => Action::Forward,
        "drop" => Action::Drop,
        "mark" => {
            let Some(d) = &t.dscp else {
                return err(
                    "action \"mark\" needs `dscp` (0-63, or a name such as EF, AF41, CS1)".into(),
                );
            };
            let v = match d {
                DscpSpec::Number(n) if (0..=63).contains(n) => *n as u8,
                DscpSpec::Number(n) => return err(format!("dscp {n}: 0-63")),
                DscpSpec::Name(s) => match parse_dscp(s) {
                    Some(v) => v,
                    None => {
                        return err(format!(
                            "dscp {}: a number 0-63, CS0-CS7, AF11-AF43, EF, VA or LE",
                            q(s)
                        ))
                    }
                },
            };
            Action::Mark(v)
        }
        "rate-limit" | "ratelimit" | "rate_limit" | "police" => {
            let Some(r) = &t.rate else {
                return err(
                    "action \"rate-limit\" needs `rate` (\"10mbit\", \"512kbit\", \"1000pps\")"
                        .into(),
                );
            };
            let Some(rate) = Rate::parse(r) else {
                return err(format!(
                    "rate {}: a positive number and bit, kbit, mbit, gbit, bps, kbps, mbps, pps or kpps",
                    q(r)
                ));
            };
            let burst = match &t.burst {
                None => rate.default_burst(),
                Some(b) => match (Rate::parse(b), rate) {
                    (Some(Rate::Bits(x)), Rate::Bits(_))
                    | (Some(Rate::Packets(x)), Rate::Packets(_)) => x,
                    _ => {
                        return err(format!(
                            "burst {}: in the rate's unit ({})",
                            q(b),
                            if matches!(rate, Rate::Bits(_)) {
                                "\"1mbit\""
                            } else {
                                "\"50pps\""
                            }
                        ))
                    }
                },
            };
            let per_flow = match t.per.as_deref().map(str::to_ascii_lowercase).as_deref() {
                None | Some("rule") => false,
                Some("flow") => true,
                Some(p) => return err(format!("per {}: \"rule\" or \"flow\"", q(p))),
            };
            Action::RateLimit {
                rate,
                burst,
                per_flow,
            }
        }
        other => {
            return err(format!(
                "action {}: one of forward, drop, mark, rate-limit",
                q(other)
            ))
        }
    };
    let stray = match a {
        Action::Mark(_) => t.rate.is_some() || t.burst.is_some() || t.per.is_some(),
        Action::RateLimit { .. } => t.dscp.is_some(),
        _ => t.dscp.is_some() || t.rate.is_some() || t.burst.is_some() || t.per.is_some(),
    };
    if stray {
        return err(format!(
            "action \"{}\" takes {}",
            a.as_str(),
            match a {
                Action::Mark(_) => "`dscp` only",
                Action::RateLimit { .. } => "`rate`, `burst` and `per` only",
                _ => "no parameters",
            }
        ));
    }
    Ok(a)
}

fn compile_rule(r: &RuleSpec, _name: &str, labels: &Labels) -> Result<Rule, PolicyError> {
    let err = |m: String| Err(PolicyError(m));
    let action = action(&r.act)?;
    // Label conditions: each given key must match; within a key, any of its values.
    let mut labelled = false;
    let mut ok = vec![true; labels.len()];
    let mut by = |key: &str,
                  vals: &Option<OneOrMany<String>>,
                  get: &dyn Fn(&wirespeed_classify::LabelEntry) -> String|
     -> Result<(), PolicyError> {
        let Some(vals) = vals else {
            return Ok(());
        };
        labelled = true;
        let wanted: Vec<String> = vals.iter().map(|v| v.to_ascii_lowercase()).collect();
        let mut seen = vec![false; wanted.len()];
        for (id, e) in labels.iter() {
            let have = get(e).to_ascii_lowercase();
            let hit = wanted.iter().position(|w| *w == have);
            if let Some(k) = hit {
                seen[k] = true;
            }
            if let Some(slot) = ok.get_mut(id.index()) {
                *slot &= hit.is_some();
            }
        }
        if let Some(k) = seen.iter().position(|s| !s) {
            return Err(PolicyError(format!(
                "{key} {}: no label of this run has it (`wirespeed list {}` shows them)",
                q(vals.iter().nth(k).map_or("", |s| s.as_str())),
                if key == "master" { "protocols" } else { "apps" }
            )));
        }
        Ok(())
    };
    by("app", &r.app, &|e| e.app().to_string())?;
    by("master", &r.master, &|e| e.master().to_string())?;
    by("category", &r.category, &|e| e.category().to_string())?;
    if let Some(b) = &r.breed {
        for v in b.iter() {
            if Breed::parse(v).is_none() {
                return err(format!(
                    "breed {}: one of {}",
                    q(v),
                    Breed::ALL.map(|b| b.as_str()).join(", ")
                ));
            }
        }
    }
    by("breed", &r.breed, &|e| e.breed().as_str().to_string()).or_else(|e| {
        if r.breed.is_some() {
            Err(e)
        } else {
            Ok(())
        }
    })?;
    let mut methods: u16 = METHODS
        .iter()
        .filter(|m| !GUESSES.contains(m))
        .fold(0, |a, m| a | (1 << m.rank()));
    if let Some(ms) = &r.method {
        labelled = true;
        methods = 0;
        for m in ms.iter() {
            let Some(found) = METHODS
                .iter()
                .find(|x| x.as_str() == m.to_ascii_lowercase())
            else {
                return err(format!(
                    "method {}: one of {}",
                    q(m),
                    METHODS.map(|m| m.as_str()).join(", ")
                ));
            };
            methods |= 1 << found.rank();
        }
    }
    let min_confidence = match r.min_confidence {
        Some(c) if !(0.0..=1.0).contains(&c) => return err(format!("min_confidence {c}: 0 to 1")),
        Some(c) => {
            labelled = true;
            c
        }
        None => 0.0,
    };
    let mut risks = RiskSet::EMPTY;
    for v in r.risk.iter().flat_map(|v| v.iter()) {
        let Some(k) = Risk::from_name(v.trim()) else {
            return err(format!(
                "risk {}: nDPI's name of a risk as records write it, such as \"Obsolete TLS \
                 (v1.1 or older)\" (docs/SCHEMA.md, `risks`)",
                q(v)
            ));
        };
        // Known only when the flow has ended: at a decision, every young flow would have them.
        if matches!(k, Risk::UnidirectionalTraffic | Risk::TcpIssues) {
            return err(format!(
                "risk {} is known only when the flow ends; a policy acts while it goes on",
                q(v)
            ));
        }
        risks.set(k);
    }
    let mut protos = Vec::new();
    if let Some(ps) = &r.proto {
        for p in ps.iter() {
            protos.push(match p {
                ProtoSpec::Number(n) => *n,
                ProtoSpec::Name(s) => match s.to_ascii_lowercase().as_str() {
                    "tcp" => 6,
                    "udp" => 17,
                    "icmp" => 1,
                    "icmpv6" | "ipv6-icmp" => 58,
                    "sctp" => 132,
                    "gre" => 47,
                    "esp" => 50,
                    _ => {
                        return err(format!(
                            "proto {}: tcp, udp, icmp, icmpv6, sctp, gre, esp or a number",
                            q(s)
                        ))
                    }
                },
            });
        }
    }
    let nets = |v: &Option<OneOrMany<String>>, key: &str| -> Result<Vec<Net>, PolicyError> {
        let mut out = Vec::new();
        for s in v.iter().flat_map(|v| v.iter()) {
            out.push(Net::parse(s).ok_or_else(|| {
                PolicyError(format!(
                    "{key} {}: an address or a block such as 192.0.2.0/24",
                    q(s)
                ))
            })?);
        }
        Ok(out)
    };
    let ports =
        |v: &Option<OneOrMany<PortSpec>>, key: &str| -> Result<Vec<(u16, u16)>, PolicyError> {
            let mut out = Vec::new();
            for p in v.iter().flat_map(|v| v.iter()) {
                let bad = || {
                    PolicyError(format!(
                        "{key} {}: a port or a range such as \"1024-65535\"",
                        match p {
                            PortSpec::Port(n) => n.to_string(),
                            PortSpec::Text(t) => q(t),
                        }
                    ))
                };
                out.push(match p {
                    PortSpec::Port(n) => (*n, *n),
                    PortSpec::Text(t) => {
                        let (a, b) = t.split_once('-').unwrap_or((t, t));
                        let a: u16 = a.trim().parse().map_err(|_| bad())?;
                        let b: u16 = b.trim().parse().map_err(|_| bad())?;
                        if a > b {
                            return Err(bad());
                        }
                        (a, b)
                    }
                });
            }
            Ok(out)
        };
    Ok(Rule {
        name: _name.to_string(),
        action,
        labelled,
        labels: ok,
        methods,
        min_confidence,
        risks,
        protos,
        src: nets(&r.src, "src")?,
        dst: nets(&r.dst, "dst")?,
        src_port: ports(&r.src_port, "src_port")?,
        dst_port: ports(&r.dst_port, "dst_port")?,
    })
}
