//! The live page of a run (`--http ADDR:PORT`, the metrics endpoint's other paths): `/` a
//! self-contained HTML page whose small inline script fetches `/live.json` every second and
//! redraws, `/live.json` the run now ([`RunStats::live_json`]).
//!
//! Everything it holds is bounded: the newest [`RISKY_KEPT`] risky flows (a ring the workers'
//! sinks feed through [`RiskTap`], never waiting for it), the [`TOP_APPS`] applications with the
//! most bytes now (the others added up in one row, so the totals stay exact), a history of the
//! per-application totals of at most a few seconds (for the rates). Every string (an SNI or a
//! host name a client chose) is escaped in the JSON, and the page writes it with `textContent`
//! only; its `Content-Security-Policy` allows its own inline style and script (by hash) and
//! requests to its own origin, nothing else.

use super::render::{Kind, RunStats};
use super::server::Page;
use std::collections::VecDeque;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex};
use std::time::{Duration, Instant};
use wirespeed_export::{FlowRecord, RecordSink, META_FIELDS};
use wirespeed_flow::EndReason;
use wirespeed_wire::DropReason;

/// Newest risky flows kept for the page.
pub const RISKY_KEPT: usize = 32;
/// Applications listed one by one (those with the most bytes per second now, then the most
/// bytes); the others are added up.
pub const TOP_APPS: usize = 20;
/// Longest host name kept of a risky flow, in bytes (cut at a character's boundary).
const HOST_MAX: usize = 256;
/// The rates are over the newest sample at least this old (or the oldest one there is).
const RATE_WINDOW: Duration = Duration::from_secs(1);
/// A sample of the totals is kept at most this often (so the history holds a few of them).
const SAMPLE_EVERY: Duration = Duration::from_millis(200);

/// One risky flow, as the page shows it.
#[derive(Clone, Debug)]
struct RiskyFlow {
    last_ms: u64,
    src: String,
    dst: String,
    l4: u8,
    app: String,
    host: String,
    risks: Vec<&'static str>,
    packets: u64,
    bytes: u64,
}

/// Per-label totals at an instant (open flows included or not).
type Sample = (Instant, bool, Vec<[u64; 3]>);

/// What the live page keeps between requests.
#[derive(Debug)]
pub(super) struct PageState {
    started: Instant,
    risky: Mutex<VecDeque<RiskyFlow>>,
    risky_seen: AtomicU64,
    samples: Mutex<VecDeque<Sample>>,
}

impl Default for PageState {
    fn default() -> Self {
        PageState {
            started: Instant::now(),
            risky: Mutex::new(VecDeque::with_capacity(RISKY_KEPT)),
            risky_seen: AtomicU64::new(0),
            samples: Mutex::default(),
        }
    }
}

/// A worker's sink that keeps the newest risky flows for the page ([`RunStats::risk_tap`]):
/// a final record with a risk is copied into a ring of [`RISKY_KEPT`]; the ring is taken with
/// `try_lock`, so a page being served costs the worker one entry, never a wait.
pub struct RiskTap(Arc<RunStats>);

impl RecordSink for RiskTap {
    fn write(&mut self, r: &FlowRecord<'_>) -> std::io::Result<()> {
        if r.risks.is_empty() || r.end_reason == EndReason::Active {
            return Ok(());
        }
        let p = &self.0.page;
        p.risky_seen.fetch_add(1, Ordering::Relaxed);
        let Ok(mut ring) = p.risky.try_lock() else {
            return Ok(());
        };
        let host = ["sni", "http_host", "dns_query"]
            .iter()
            .filter_map(|f| META_FIELDS.iter().position(|m| m == f))
            .map(|i| r.meta[i])
            .find(|h| !h.is_empty())
            .unwrap_or("");
        let f = RiskyFlow {
            last_ms: r.last_ts_ns / 1_000_000,
            src: end(r.src_ip, r.src_port),
            dst: end(r.dst_ip, r.dst_port),
            l4: r.l4,
            app: r.labels.get(r.label).app().to_string(),
            host: cut(host, HOST_MAX).to_string(),
            risks: r.risks.iter().map(|k| k.name()).collect(),
            packets: r.c2s_pkts + r.s2c_pkts,
            bytes: r.c2s_bytes + r.s2c_bytes,
        };
        if ring.len() == RISKY_KEPT {
            ring.pop_front();
        }
        ring.push_back(f);
        Ok(())
    }

    fn finish(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn end(ip: std::net::IpAddr, port: u16) -> String {
    std::net::SocketAddr::new(ip, port).to_string()
}

/// `s` cut to at most `max` bytes, at a character's boundary.
fn cut(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut i = max;
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    &s[..i]
}

/// Append `s` as a JSON string, quotes included: `"` and `\` escaped, control characters as
/// `\u00XX`, and `<`, `>`, `&`, U+2028 and U+2029 as `\uXXXX` too, so that the text is inert
/// wherever it lands (an HTML page, a script).
pub fn json_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || matches!(c, '<' | '>' | '&' | '\u{2028}' | '\u{2029}') => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Append `s` escaped for HTML text or a quoted attribute.
pub fn html_escape(s: &str, out: &mut String) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
}

/// A JSON object being written: `"key":value` pairs, commas between them.
struct Obj<'a> {
    out: &'a mut String,
    first: bool,
}

impl<'a> Obj<'a> {
    fn new(out: &'a mut String) -> Obj<'a> {
        out.push('{');
        Obj { out, first: true }
    }

    fn key(&mut self, k: &str) -> &mut String {
        if !self.first {
            self.out.push(',');
        }
        self.first = false;
        json_string(k, self.out);
        self.out.push(':');
        self.out
    }

    fn num(&mut self, k: &str, v: u64) -> &mut Self {
        let _ = write!(self.key(k), "{v}");
        self
    }

    fn str(&mut self, k: &str, v: &str) -> &mut Self {
        json_string(v, self.key(k));
        self
    }

    fn end(self) {
        self.out.push('}');
    }
}

impl RunStats {
    /// A sink for a worker that keeps the newest risky flows for the live page: fed the same
    /// records as the run's output (a [`wirespeed_export::Tee`]).
    pub fn risk_tap(self: &Arc<Self>) -> RiskTap {
        RiskTap(self.clone())
    }

    /// What the server at `--http` (or `--metrics`) serves: `/` the page, `/live.json` the run
    /// now, `/metrics` the OpenMetrics text; None for any other path.
    pub fn route(&self, path: &str) -> Option<Page> {
        Some(match path {
            "/" | "/index.html" => Page {
                content_type: "text/html; charset=utf-8",
                headers: &PAGE.1,
                body: PAGE.0.clone().into_bytes(),
            },
            "/live.json" => Page {
                content_type: "application/json",
                headers: "",
                body: self.live_json().into_bytes(),
            },
            "/metrics" => Page {
                content_type: super::CONTENT_TYPE,
                headers: "",
                body: self.render().into_bytes(),
            },
            _ => return None,
        })
    }

    /// The run now, as the page reads it (one JSON object; docs/METRICS.md names its fields).
    pub fn live_json(&self) -> String {
        let t = self.workers.total();
        let c = &t.counters;
        let now = Instant::now();
        // The rates are of the flows open and ended when the workers counted their open ones.
        let open: &[[u64; 3]] = if t.open_counted {
            &t.open_by_label
        } else {
            &[]
        };
        let all: Vec<[u64; 3]> = (0..t.by_label.len().max(open.len()))
            .map(|i| {
                let (a, b) = (
                    t.by_label.get(i).copied().unwrap_or_default(),
                    open.get(i).copied().unwrap_or_default(),
                );
                [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
            })
            .collect();
        let (window_ms, rates) = self.rates(now, t.open_counted, &all);
        let mut out = String::with_capacity(4096);
        let mut o = Obj::new(&mut out);
        let mode = match self.kind {
            Kind::Live(_) => "live",
            Kind::Inline { .. } => "inline",
        };
        o.str("version", env!("CARGO_PKG_VERSION"))
            .str("mode", mode);
        o.num(
            "uptime_ms",
            now.duration_since(self.page.started).as_millis() as u64,
        );
        o.num("window_ms", window_ms);
        o.num("packets", c.packets).num("bytes", c.bytes);
        o.num("active_flows", t.active);
        o.num("flows_created", c.table.created);
        o.num("flows_ended", c.records);
        // Drops: the kernel's (ring full, live) or the queues' unseen packets (inline), the
        // engine's undecodable packets, the output's records.
        let decode: u64 = DropReason::ALL
            .iter()
            .map(|r| c.drops[r.index()])
            .sum::<u64>()
            + c.frag_orphans;
        let load = |a: &AtomicU64| a.load(Ordering::Relaxed);
        let out_dropped = self.output.get().map_or(0, |o| load(&o.dropped_records));
        {
            let d = o.key("drops");
            let mut d = Obj::new(d);
            match &self.kind {
                Kind::Live(k) => {
                    d.num("kernel", load(&k.drops));
                    d.num("kernel_packets", load(&k.packets));
                    d.num("ring_freezes", load(&k.freezes));
                }
                Kind::Inline { queue, .. } => {
                    let q = queue.snapshot();
                    d.num("kernel", q.unseen);
                    d.num("verdict_dropped", q.dropped);
                }
            }
            d.num("undecoded", decode);
            d.num("output_records", out_dropped);
            d.end();
        }
        let k = o.key("open_counted");
        k.push_str(if t.open_counted { "true" } else { "false" });
        self.apps_json(o.key("apps"), &t.by_label, open, &rates, window_ms);
        o.num("risky_seen", self.page.risky_seen.load(Ordering::Relaxed));
        self.risky_json(o.key("risky"));
        let rules = o.key("rules");
        match &self.kind {
            Kind::Inline { policy, .. } => {
                rules.push('[');
                for (i, (name, _, r)) in policy.totals().iter().enumerate() {
                    if i > 0 {
                        rules.push(',');
                    }
                    let mut x = Obj::new(rules);
                    x.str("rule", name)
                        .num("flows", r.flows)
                        .num("packets", r.packets)
                        .num("bytes", r.bytes)
                        .num("dropped_packets", r.dropped_packets)
                        .num("dropped_bytes", r.dropped_bytes)
                        .num("marked_packets", r.marked)
                        .num("bound_flows", r.bound);
                    x.end();
                }
                rules.push(']');
            }
            Kind::Live(_) => rules.push_str("null"),
        }
        o.end();
        out
    }

    /// Keep a sample of `now`'s totals (at most every [`SAMPLE_EVERY`]) and give the window and
    /// the per-label bytes and packets over it: against the newest sample at least
    /// [`RATE_WINDOW`] old, else the oldest one (the window is 0, the rates 0, at the first).
    /// `open`: whether the totals include the open flows; the samples of the other kind go.
    fn rates(&self, now: Instant, open: bool, by_label: &[[u64; 3]]) -> (u64, Vec<[u64; 3]>) {
        let mut h = match self.page.samples.lock() {
            Ok(h) => h,
            Err(p) => p.into_inner(),
        };
        h.retain(|s| s.1 == open);
        // Only the newest sample of those old enough is ever used: the older ones go.
        while h.len() > 1 && now.duration_since(h[1].0) >= RATE_WINDOW {
            h.pop_front();
        }
        let (window, rates) = match h.front() {
            Some((then, _, old)) => {
                let rates = by_label
                    .iter()
                    .enumerate()
                    .map(|(i, n)| {
                        let o = old.get(i).copied().unwrap_or_default();
                        [0, 1, 2].map(|k| n[k].saturating_sub(o[k]))
                    })
                    .collect();
                (now.duration_since(*then).as_millis() as u64, rates)
            }
            None => (0, Vec::new()),
        };
        if h.back()
            .is_none_or(|b| now.duration_since(b.0) >= SAMPLE_EVERY)
        {
            h.push_back((now, open, by_label.to_vec()));
        }
        (window, rates)
    }

    /// The applications: the [`TOP_APPS`] with the most bytes in the window, then the most bytes
    /// (of the flows ended so far and those open), one object each; `others` adds up the rest.
    fn apps_json(
        &self,
        out: &mut String,
        by_label: &[[u64; 3]],
        open: &[[u64; 3]],
        rates: &[[u64; 3]],
        window: u64,
    ) {
        let labels = self.rules.labels();
        let mut apps: Vec<_> = labels
            .iter()
            .filter_map(|(id, l)| {
                let i = id.index();
                let n = by_label.get(i).copied().unwrap_or_default();
                let o = open.get(i).copied().unwrap_or_default();
                let r = rates.get(i).copied().unwrap_or_default();
                (n[0] + o[0] > 0).then_some((i, l, n, o, r))
            })
            .collect();
        apps.sort_unstable_by(|a, b| {
            (b.4[2], b.2[2] + b.3[2], a.0).cmp(&(a.4[2], a.2[2] + a.3[2], b.0))
        });
        let per_s = |n: u64| n.saturating_mul(1000).checked_div(window).unwrap_or(0);
        out.push('[');
        let mut others = ([0u64; 3], [0u64; 3], [0u64; 3], 0u64);
        for (k, (_, l, n, o, r)) in apps.iter().enumerate() {
            if k >= TOP_APPS {
                for j in 0..3 {
                    others.0[j] += n[j];
                    others.1[j] += o[j];
                    others.2[j] += r[j];
                }
                others.3 += 1;
                continue;
            }
            if k > 0 {
                out.push(',');
            }
            let mut x = Obj::new(out);
            x.str("app", l.app())
                .str("master", l.master())
                .str("category", l.category())
                .num("flows", n[0])
                .num("packets", n[1])
                .num("bytes", n[2])
                .num("open_flows", o[0])
                .num("open_bytes", o[2])
                .num("packets_per_s", per_s(r[1]))
                .num("bytes_per_s", per_s(r[2]));
            x.end();
        }
        out.push_str("],\"others\":");
        let mut x = Obj::new(out);
        x.num("apps", others.3)
            .num("flows", others.0[0])
            .num("packets", others.0[1])
            .num("bytes", others.0[2])
            .num("open_flows", others.1[0])
            .num("open_bytes", others.1[2])
            .num("packets_per_s", per_s(others.2[1]))
            .num("bytes_per_s", per_s(others.2[2]));
        x.end();
    }

    /// The newest risky flows, newest first.
    fn risky_json(&self, out: &mut String) {
        let ring: Vec<RiskyFlow> = match self.page.risky.lock() {
            Ok(r) => r.iter().cloned().collect(),
            Err(p) => p.into_inner().iter().cloned().collect(),
        };
        out.push('[');
        for (i, f) in ring.iter().rev().enumerate() {
            if i > 0 {
                out.push(',');
            }
            let mut x = Obj::new(out);
            x.num("last_ms", f.last_ms)
                .str("src", &f.src)
                .str("dst", &f.dst)
                .str(
                    "l4",
                    &wirespeed_export::l4_name(f.l4)
                        .map_or_else(|| f.l4.to_string(), str::to_string),
                )
                .str("app", &f.app)
                .str("host", &f.host)
                .num("packets", f.packets)
                .num("bytes", f.bytes);
            let k = x.key("risks");
            k.push('[');
            for (j, r) in f.risks.iter().enumerate() {
                if j > 0 {
                    k.push(',');
                }
                json_string(r, k);
            }
            k.push(']');
            x.end();
        }
        out.push(']');
    }
}

const STYLE: &str = include_str!("page.css");
const SCRIPT: &str = include_str!("page.js");

/// The page, and its header lines (the policy that lets it run its own style and script, by
/// their hashes, and fetch from its own origin; nothing else).
static PAGE: LazyLock<(String, String)> = LazyLock::new(|| {
    let mut html = String::from(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <meta name=\"referrer\" content=\"no-referrer\">\
         <link rel=\"icon\" href=\"data:,\">\
         <title>wirespeed ",
    );
    html_escape(env!("CARGO_PKG_VERSION"), &mut html);
    html.push_str(" live</title>\n<style>");
    html.push_str(STYLE);
    html.push_str("</style></head>\n<body>\n");
    html.push_str(BODY);
    html.push_str("<script>");
    html.push_str(SCRIPT);
    html.push_str("</script>\n</body></html>\n");
    let headers = format!(
        "Content-Security-Policy: default-src 'none'; style-src '{}'; script-src '{}'; \
         connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; \
         frame-ancestors 'none'\r\nReferrer-Policy: no-referrer\r\nX-Frame-Options: DENY\r\n",
        sha256(STYLE),
        sha256(SCRIPT)
    );
    (html, headers)
});

/// The page's body before its script: the places the script fills in.
const BODY: &str = "<header><h1>wirespeed <span id=\"mode\">live</span></h1>\
<span id=\"state\" class=\"state\">connecting</span></header>\n<main>\n\
<section class=\"tiles\">\
<div class=\"tile\"><b id=\"rate\">-</b><span>bits/s now</span></div>\
<div class=\"tile\"><b id=\"active\">-</b><span>active flows</span></div>\
<div class=\"tile\"><b id=\"ended\">-</b><span>flows ended</span></div>\
<div class=\"tile\"><b id=\"packets\">-</b><span>packets</span></div>\
<div class=\"tile\"><b id=\"bytes\">-</b><span>bytes</span></div>\
<div class=\"tile\"><b id=\"kdrops\">-</b><span>kernel drops</span></div>\
<div class=\"tile\"><b id=\"odrops\">-</b><span>records dropped (output)</span></div>\
</section>\n\
<section><h2>Applications now <small>per second over the last <span id=\"window\">-\
</span> s, of the flows <span id=\"counted\">-</span>; flows, packets and bytes of the flows \
ended since the start</small></h2>\
<svg id=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"900\" height=\"30\" \
role=\"img\" aria-label=\"bytes per second by application\"></svg>\
<table id=\"apps\"><thead><tr><th>application</th><th>category</th><th>now</th>\
<th>open flows</th><th>their bytes</th><th>flows</th><th>packets</th><th>bytes</th></tr>\
</thead><tbody></tbody></table></section>\n\
<section><h2>Newest risky flows <small id=\"riskyseen\"></small></h2>\
<table id=\"risky\"><thead><tr><th>last packet (UTC)</th><th>client</th><th>server</th>\
<th>l4</th><th>application</th><th>host</th><th>risks</th><th>bytes</th></tr></thead>\
<tbody></tbody></table></section>\n\
<section id=\"rulesec\" hidden><h2>Inline rules</h2>\
<table id=\"rules\"><thead><tr><th>rule</th><th>flows</th><th>packets</th><th>bytes</th>\
<th>dropped packets</th><th>marked packets</th><th>bound flows</th></tr></thead>\
<tbody></tbody></table></section>\n</main>\n";

/// `sha256-BASE64` of `s`, as a `Content-Security-Policy` source names an inline element.
fn sha256(s: &str) -> String {
    use base64::Engine as _;
    use sha2::Digest as _;
    let d = sha2::Sha256::digest(s.as_bytes());
    format!(
        "sha256-{}",
        base64::engine::general_purpose::STANDARD.encode(d)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use wirespeed_classify::{LabelId, Labels};
    use wirespeed_engine::Rules;
    use wirespeed_risk::RiskSet;

    fn record(labels: &Labels) -> FlowRecord<'_> {
        FlowRecord {
            source: None,
            pcap: None,
            flow_id: 1,
            src_ip: "192.0.2.1".parse().unwrap(),
            src_port: 40000,
            dst_ip: "198.51.100.1".parse().unwrap(),
            dst_port: 443,
            l4: 6,
            vlan: 0,
            tunnel: "",
            tunnel_parent: None,
            first_ts_ns: 0,
            last_ts_ns: 0,
            c2s_pkts: 3,
            c2s_bytes: 300,
            s2c_pkts: 2,
            s2c_bytes: 2000,
            end_reason: EndReason::Fin,
            label: LabelId::UNKNOWN,
            labels,
            ip_owner: "",
            method: None,
            confidence: 0.0,
            ttb_pkts: 0,
            ttb_us: 0,
            fpc: None,
            early: wirespeed_stats::Early::default(),
            stats_app: "",
            stats_class: "",
            stats_score: 0.0,
            meta: [""; wirespeed_export::META_COUNT],
            act: None,
            dist: None,
            tcp: None,
            risks: RiskSet::EMPTY,
            encrypted: false,
        }
    }

    #[test]
    fn strings_are_escaped_in_json_and_html() {
        let mut s = String::new();
        json_string("a\"b\\c\nd\u{1}</script><b>&\u{2028}é", &mut s);
        assert_eq!(
            s,
            "\"a\\\"b\\\\c\\nd\\u0001\\u003c/script\\u003e\\u003cb\\u003e\\u0026\\u2028é\""
        );
        let v: serde_json::Value = serde_json::from_str(&s).unwrap();
        assert_eq!(v, "a\"b\\c\nd\u{1}</script><b>&\u{2028}é");
        let mut h = String::new();
        html_escape("<img src=x onerror='a'>&\"", &mut h);
        assert_eq!(h, "&lt;img src=x onerror=&#39;a&#39;&gt;&amp;&quot;");
        assert_eq!(cut("aé", 2), "a");
        assert_eq!(cut("abc", 5), "abc");
    }

    #[test]
    fn the_json_of_a_run_before_its_first_packet() {
        let s = RunStats::live(Arc::new(Rules::builtin()));
        let v: serde_json::Value = serde_json::from_str(&s.live_json()).unwrap();
        assert_eq!(v["mode"], "live");
        assert_eq!(v["packets"], 0);
        assert_eq!(v["active_flows"], 0);
        assert_eq!(v["drops"]["kernel"], 0);
        assert_eq!(v["apps"], serde_json::json!([]));
        // Not counted before the workers published.
        assert_eq!(v["open_counted"], false);
        assert_eq!(v["others"]["apps"], 0);
        assert_eq!(v["risky"], serde_json::json!([]));
        assert!(v["rules"].is_null());
    }

    /// The rates are over the newest sample at least a second old (the oldest before there is
    /// one), and the history keeps no more than it needs. The instants are the test's own.
    #[test]
    fn rates_are_over_about_a_second() {
        let s = RunStats::live(Arc::new(Rules::builtin()));
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        assert_eq!(s.rates(at(0), true, &[[1, 10, 100]]), (0, vec![]));
        assert_eq!(
            s.rates(at(500), true, &[[2, 20, 300]]),
            (500, vec![[1, 10, 200]])
        );
        // Too soon after the last sample to keep another.
        assert_eq!(
            s.rates(at(600), true, &[[2, 20, 300]]),
            (600, vec![[1, 10, 200]])
        );
        // The sample of 500 ms is a second old now: the one of 0 goes.
        assert_eq!(
            s.rates(at(1500), true, &[[3, 30, 600], [1, 1, 60]]),
            (1000, vec![[1, 10, 300], [1, 1, 60]])
        );
        assert_eq!(s.page.samples.lock().unwrap().len(), 2);
        for k in 0..50 {
            s.rates(at(2000 + k * 300), true, &[[3, 30, 600]]);
        }
        assert!(s.page.samples.lock().unwrap().len() <= 6);
        // Totals of the other kind (the open flows no longer counted): a fresh start.
        assert_eq!(s.rates(at(20_000), false, &[[3, 30, 600]]), (0, vec![]));
        assert_eq!(s.page.samples.lock().unwrap().len(), 1);
    }

    /// The [`TOP_APPS`] with the most bytes now (then in total) one by one, the rest added up in
    /// `others`: the totals stay exact.
    #[test]
    fn the_top_applications_and_the_others_add_up() {
        let rules = Arc::new(Rules::builtin());
        let s = RunStats::live(rules.clone());
        let n = TOP_APPS + 7;
        assert!(rules.labels().len() > n);
        // Label i: i flows, 10 i packets, 100 i bytes; in the window, label 1 alone.
        let by_label: Vec<[u64; 3]> = (0..n as u64).map(|i| [i, 10 * i, 100 * i]).collect();
        let mut rates = vec![[0; 3]; n];
        rates[1] = [1, 10, 100];
        let mut out = String::from("{\"apps\":");
        // One flow of the last label still open: its bytes in its row.
        let mut open = vec![[0; 3]; n];
        open[n - 1] = [1, 2, 30];
        s.apps_json(&mut out, &by_label, &open, &rates, 500);
        out.push('}');
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let apps = v["apps"].as_array().unwrap();
        assert_eq!(apps.len(), TOP_APPS);
        // Label 0 has no flow: not listed. Label 1 first (bytes now), then by bytes.
        assert_eq!(apps[0]["bytes"], 100);
        assert_eq!(apps[0]["bytes_per_s"], 200);
        assert_eq!(apps[0]["packets_per_s"], 20);
        assert_eq!(apps[1]["bytes"], 100 * (n as u64 - 1));
        assert_eq!(
            (
                apps[1]["open_flows"].as_u64(),
                apps[1]["open_bytes"].as_u64()
            ),
            (Some(1), Some(30))
        );
        let sum = |k: &str| apps.iter().map(|a| a[k].as_u64().unwrap()).sum::<u64>();
        let o = &v["others"];
        assert_eq!(o["apps"], (n - 1 - TOP_APPS) as u64);
        let total: u64 = by_label.iter().map(|x| x[2]).sum();
        assert_eq!(sum("bytes") + o["bytes"].as_u64().unwrap(), total);
        let flows: u64 = by_label.iter().map(|x| x[0]).sum();
        assert_eq!(sum("flows") + o["flows"].as_u64().unwrap(), flows);
    }

    /// A hostile host name and rule name come out of the JSON as they went in, and nowhere as
    /// markup; the ring keeps the newest [`RISKY_KEPT`], newest first.
    #[test]
    fn risky_flows_and_rules_are_bounded_and_escaped() {
        let rules = Arc::new(Rules::builtin());
        let policy = wirespeed_act::Policy::from_toml(
            "[[rule]]\nname = '<script>alert(1)</script>'\napp = ['YouTube']\naction = 'drop'\n",
            rules.labels(),
        )
        .unwrap();
        let s = RunStats::inline(rules.clone(), wirespeed_act::PolicyCell::new(policy));
        let mut tap = s.risk_tap();
        let labels = rules.labels();
        let host = "<img src=x onerror=alert(1)>\"\\\u{0}";
        for i in 0..(RISKY_KEPT as u64 + 5) {
            let mut r = record(labels);
            r.last_ts_ns = i * 1_000_000;
            r.end_reason = EndReason::Idle;
            r.risks = RiskSet::parse("Unidirectional Traffic").unwrap();
            r.meta[META_FIELDS.iter().position(|f| *f == "sni").unwrap()] = host;
            tap.write(&r).unwrap();
            // Interim records and flows with no risk are not kept.
            r.end_reason = EndReason::Active;
            tap.write(&r).unwrap();
            r.end_reason = EndReason::Idle;
            r.risks = RiskSet::EMPTY;
            tap.write(&r).unwrap();
        }
        let text = s.live_json();
        assert!(!text.contains('<') && !text.contains('>'), "{text}");
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["mode"], "inline");
        assert_eq!(v["risky_seen"], RISKY_KEPT as u64 + 5);
        let risky = v["risky"].as_array().unwrap();
        assert_eq!(risky.len(), RISKY_KEPT);
        assert_eq!(risky[0]["last_ms"], RISKY_KEPT as u64 + 4);
        assert_eq!(risky[RISKY_KEPT - 1]["last_ms"], 5);
        assert_eq!(risky[0]["host"], host);
        assert_eq!(risky[0]["risks"][0], "Unidirectional Traffic");
        assert_eq!(v["rules"][0]["rule"], "<script>alert(1)</script>");
        assert_eq!(v["rules"][0]["flows"], 0);
    }

    /// The page: a policy that allows its own style and script (by hash) and fetches from its
    /// own origin, no URL of anywhere else; the JSON and the metrics beside it.
    #[test]
    fn the_page_is_self_contained() {
        let s = RunStats::live(Arc::new(Rules::builtin()));
        let p = s.route("/").unwrap();
        let html = String::from_utf8(p.body).unwrap();
        assert!(p.headers.contains("default-src 'none'"), "{}", p.headers);
        assert!(p.headers.contains("connect-src 'self'"), "{}", p.headers);
        assert!(p.headers.contains(&sha256(SCRIPT)));
        assert!(html.contains(&format!("<script>{SCRIPT}</script>")));
        assert!(html.contains(&format!("<style>{STYLE}</style>")));
        // The SVG namespace is a name, never fetched; no other URL is in the page.
        let rest = html.replace("\"http://www.w3.org/2000/svg\"", "");
        for bad in [
            "http:",
            "https:",
            "//",
            "src=",
            "innerHTML",
            "eval(",
            "@import",
        ] {
            assert!(!rest.contains(bad), "{bad} in the page");
        }
        assert!(s.route("/live.json").is_some());
        assert!(s
            .route("/metrics")
            .is_some_and(|m| m.body.ends_with(b"# EOF\n")));
        assert!(s.route("/favicon.ico").is_none());
        assert!(s.route("/live.json/x").is_none());
    }
}
