//! The page: one HTML file, its style, script and charts (SVG drawn here) inline, no URL to
//! anywhere. Every string from the input goes through [`esc`].

use crate::agg::{Names, Report, Tally, TTB_CLASSES};
use std::fmt::Write as _;

/// HTML-escape `s` for text and attribute values (quoted with `"`); control characters become
/// U+FFFD.
pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c if c.is_control() && c != '\n' && c != '\t' => o.push('\u{fffd}'),
            c => o.push(c),
        }
    }
    o
}

/// `1234567` as `1,234,567`.
pub fn num(n: u64) -> String {
    let s = n.to_string();
    let mut o = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            o.push(',');
        }
        o.push(c);
    }
    o
}

/// Bytes in B, kB, MB, GB (powers of 1000).
pub fn human(b: u64) -> String {
    const U: [&str; 5] = ["B", "kB", "MB", "GB", "TB"];
    let mut v = b as f64;
    let mut u = 0;
    while v >= 1000.0 && u < U.len() - 1 {
        v /= 1000.0;
        u += 1;
    }
    if u == 0 {
        format!("{b} B")
    } else {
        format!("{v:.1} {}", U[u])
    }
}

/// µs since the epoch as `YYYY-MM-DD HH:MM:SS.mmm` UTC.
pub fn utc(us: i64) -> String {
    let secs = us.div_euclid(1_000_000);
    let ms = us.rem_euclid(1_000_000) / 1000;
    let (days, s) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}.{ms:03}",
        s / 3600,
        s / 60 % 60,
        s % 60
    )
}

/// A duration in µs, short.
fn dur(us: i64) -> String {
    let s = us as f64 / 1e6;
    if s < 1.0 {
        format!("{:.1} ms", s * 1e3)
    } else if s < 120.0 {
        format!("{s:.1} s")
    } else if s < 7200.0 {
        format!("{:.1} min", s / 60.0)
    } else {
        format!("{:.1} h", s / 3600.0)
    }
}

const PALETTE: [&str; 10] = [
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
    "#9c755f", "#bab0ac",
];

/// Horizontal bars: label, value, shown value.
fn bars(out: &mut String, title: &str, items: &[(String, u64, String)]) {
    let max = items.iter().map(|i| i.1).max().unwrap_or(0).max(1);
    let (lw, bw, vw, rh) = (150.0, 160.0, 80.0, 18.0);
    let h = rh * items.len() as f64 + 24.0;
    let _ = write!(
        out,
        r#"<figure class="chart"><figcaption>{}</figcaption><svg width="{w}" height="{h}" viewBox="0 0 {w} {h}" role="img">"#,
        esc(title),
        w = lw + bw + vw,
    );
    for (i, (label, v, shown)) in items.iter().enumerate() {
        let y = 4.0 + rh * i as f64;
        let len = bw * (*v as f64 / max as f64);
        let short: String = label.chars().take(22).collect();
        let short = if short.len() < label.len() {
            format!("{short}\u{2026}")
        } else {
            short
        };
        let _ = write!(
            out,
            r#"<g><title>{t}: {s}</title><text x="{tx}" y="{ty}" text-anchor="end">{l}</text><rect x="{lw}" y="{y}" width="{len:.1}" height="{bh}" fill="{c}"/><text x="{vx:.1}" y="{ty}">{s}</text></g>"#,
            t = esc(label),
            s = esc(shown),
            tx = lw - 6.0,
            ty = y + 12.5,
            l = esc(&short),
            bh = rh - 4.0,
            c = PALETTE[i % PALETTE.len()],
            vx = lw + len + 4.0,
        );
    }
    out.push_str("</svg></figure>");
}

/// Three bar charts (bytes, packets, flows) of a table's top names, and the table itself.
fn names_section(out: &mut String, id: &str, what: &str, n: &Names, top: usize) {
    let mut any = false;
    out.push_str(r#"<div class="charts">"#);
    for (label, key) in [
        ("bytes", (|t: &Tally| t.bytes) as fn(&Tally) -> u64),
        ("packets", |t: &Tally| t.pkts),
        ("flows", |t: &Tally| t.flows),
    ] {
        let items: Vec<_> = n
            .sorted(key)
            .into_iter()
            .take(top)
            .map(|(k, t, _)| {
                let v = key(&t);
                let shown = if label == "bytes" { human(v) } else { num(v) };
                (k.to_string(), v, shown)
            })
            .collect();
        any |= !items.is_empty();
        bars(out, &format!("{what} by {label}"), &items);
    }
    out.push_str("</div>");
    if !any {
        out.push_str("<p>None.</p>");
        return;
    }
    table(out, id, what, n, top);
}

/// A table of a [`Names`]' top rows by bytes, with exact numbers in `data-` attributes.
fn table(out: &mut String, id: &str, what: &str, n: &Names, top: usize) {
    table_by(out, id, what, n, top, |t| t.bytes)
}

/// [`table`], the largest by `key` first.
fn table_by(
    out: &mut String,
    id: &str,
    what: &str,
    n: &Names,
    top: usize,
    key: impl Fn(&Tally) -> u64,
) {
    let rows = n.sorted(key);
    let total: u64 = rows.iter().map(|r| r.1.flows).sum::<u64>() + n.other.flows;
    let _ = write!(
        out,
        r#"<table id="{id}" class="names"><thead><tr><th>{}</th><th>bytes</th><th>packets</th><th>flows</th><th>share of flows</th></tr></thead><tbody>"#,
        esc(what)
    );
    for (k, t, _) in rows.iter().take(top) {
        let _ = write!(
            out,
            r#"<tr data-name="{k}" data-bytes="{}" data-pkts="{}" data-flows="{}"><td>{k}</td><td class="n">{}</td><td class="n">{}</td><td class="n">{}</td><td class="n">{:.1}%</td></tr>"#,
            t.bytes,
            t.pkts,
            t.flows,
            num(t.bytes),
            num(t.pkts),
            num(t.flows),
            100.0 * t.flows as f64 / total.max(1) as f64,
            k = esc(k),
        );
    }
    out.push_str("</tbody></table>");
    if rows.len() > top {
        let _ = write!(
            out,
            "<p class=\"note\">{} more not shown.</p>",
            num((rows.len() - top) as u64)
        );
    }
    if n.other.flows > 0 {
        let _ = write!(
            out,
            "<p class=\"note\">{} flows ({}) had a name past the table's {} distinct names; they are counted in the totals only.</p>",
            num(n.other.flows),
            human(n.other.bytes),
            num(n.len() as u64)
        );
    }
}

/// The traffic chart: bytes per bucket stacked by the top applications.
fn series(out: &mut String, r: &Report) {
    let s = &r.series;
    let used = s.used();
    if used.is_empty() {
        out.push_str("<p>No record with a time.</p>");
        return;
    }
    let apps = r.apps.sorted(|t| t.bytes);
    let shown: Vec<(usize, &str)> = apps.iter().take(8).map(|a| (a.2, a.0)).collect();
    let k = used.len();
    let totals: Vec<u64> = used
        .clone()
        .map(|i| s.bytes[i].iter().copied().fold(0u64, u64::saturating_add))
        .collect();
    let max = totals.iter().copied().max().unwrap_or(0).max(1);
    let (w, h, left, bottom) = (900.0, 260.0, 70.0, 30.0);
    let bw = (w - left - 10.0) / k as f64;
    let _ = write!(
        out,
        r#"<figure class="chart wide"><figcaption>Bytes per {} (capture time, UTC), stacked by application</figcaption><svg width="{w}" height="{h}" viewBox="0 0 {w} {h}" role="img">"#,
        dur(s.width)
    );
    let plot = h - bottom - 10.0;
    for (x, i) in used.clone().enumerate() {
        let b = &s.bytes[i];
        let mut y = h - bottom;
        let mut rest = totals[x];
        let t0 = s.start.saturating_add(i as i64).saturating_mul(s.width);
        for (c, (slot, name)) in shown.iter().enumerate() {
            let v = b.get(*slot).copied().unwrap_or(0);
            rest = rest.saturating_sub(v);
            if v == 0 {
                continue;
            }
            let bh = plot * v as f64 / max as f64;
            y -= bh;
            let _ = write!(
                out,
                r#"<rect x="{:.1}" y="{y:.1}" width="{:.1}" height="{bh:.1}" fill="{}"><title>{} {}: {}</title></rect>"#,
                left + bw * x as f64,
                bw.max(1.0),
                PALETTE[c],
                esc(&utc(t0)),
                esc(name),
                human(v)
            );
        }
        if rest > 0 {
            let bh = plot * rest as f64 / max as f64;
            y -= bh;
            let _ = write!(
                out,
                r##"<rect x="{:.1}" y="{y:.1}" width="{:.1}" height="{bh:.1}" fill="#bab0ac"><title>{} other: {}</title></rect>"##,
                left + bw * x as f64,
                bw.max(1.0),
                esc(&utc(t0)),
                human(rest)
            );
        }
    }
    let _ = write!(
        out,
        r##"<line x1="{left}" y1="{y}" x2="{w}" y2="{y}" stroke="#444"/><text x="{tx}" y="20" text-anchor="end">{}</text><text x="{tx}" y="{y}" text-anchor="end">0</text><text x="{left}" y="{ly}">{}</text><text x="{rx}" y="{ly}" text-anchor="end">{}</text></svg>"##,
        human(max),
        esc(&utc(s
            .start
            .saturating_add(used.start as i64)
            .saturating_mul(s.width))),
        esc(&utc(s
            .start
            .saturating_add(used.end as i64)
            .saturating_mul(s.width))),
        y = h - bottom,
        tx = left - 4.0,
        ly = h - 10.0,
        rx = w - 10.0,
    );
    out.push_str(r#"<figcaption class="legend">"#);
    for (c, (_, name)) in shown.iter().enumerate() {
        let _ = write!(
            out,
            r#"<span><i style="background:{}"></i>{}</span> "#,
            PALETTE[c],
            esc(name)
        );
    }
    out.push_str(r##"<span><i style="background:#bab0ac"></i>other</span></figcaption></figure>"##);
}

/// A heavy-hitters table.
fn heavy(out: &mut String, id: &str, what: &str, h: &crate::agg::HeavyHitters, top: usize) {
    let rows = h.top(top);
    if rows.is_empty() {
        out.push_str("<p>None.</p>");
        return;
    }
    let _ = write!(
        out,
        r#"<table id="{id}"><thead><tr><th>{what}</th><th>bytes</th><th>flows</th>{}</tr></thead><tbody>"#,
        if h.exact() {
            ""
        } else {
            "<th>may be over by</th>"
        }
    );
    for (k, c, e, f) in rows {
        let _ = write!(
            out,
            r#"<tr data-name="{k}" data-bytes="{c}"><td>{k}</td><td class="n">{}</td><td class="n">{}</td>"#,
            num(c),
            num(f),
            k = esc(k)
        );
        if !h.exact() {
            let _ = write!(out, r#"<td class="n">{}</td>"#, num(e));
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table>");
    if h.exact() {
        out.push_str("<p class=\"note\">Exact counts.</p>");
    } else {
        let _ = write!(
            out,
            "<p class=\"note\">Approximate: more than {} distinct keys, so counts come from a Space-Saving summary of {} keys. Each shown count is at most the stated amount over the true one; every key with more than 1/{} of the bytes is listed.</p>",
            num(h_cap(h)),
            num(h_cap(h)),
            num(h_cap(h))
        );
    }
}

fn h_cap(h: &crate::agg::HeavyHitters) -> u64 {
    h.capacity() as u64
}

const STYLE: &str = "body{font:14px/1.4 system-ui,sans-serif;margin:0 2em 3em;color:#222}h1{margin-bottom:.2em}\
h2{border-bottom:1px solid #ccc;margin-top:2em}table{border-collapse:collapse;margin:.5em 0}\
td,th{border:1px solid #ddd;padding:2px 6px;text-align:left}td.n{text-align:right;font-variant-numeric:tabular-nums}\
th{background:#f3f3f3}#flows th{cursor:pointer}.charts{display:flex;flex-wrap:wrap;gap:1em}\
figure{margin:0}figcaption{font-weight:600}svg text{font:11px sans-serif;fill:#222}\
.legend span{margin-right:1em;font-weight:400}.legend i{display:inline-block;width:10px;height:10px;margin-right:4px}\
.note{color:#555;font-size:12px}.big{font-size:20px;font-weight:600}.kpi{display:flex;gap:2em;flex-wrap:wrap}";

const SCRIPT: &str = r#"(function(){
var t=document.getElementById('flows');
if(t){
var body=t.tBodies[0],rows=Array.prototype.slice.call(body.rows);
var q=document.getElementById('filter'),shown=document.getElementById('shown');
var apply=function(){var s=q.value.toLowerCase(),n=0;rows.forEach(function(r){var ok=!s||r.textContent.toLowerCase().indexOf(s)>=0;r.style.display=ok?'':'none';if(ok)n++;});shown.textContent=String(n);};
q.addEventListener('input',apply);
var ths=t.tHead.rows[0].cells,dir={};
Array.prototype.forEach.call(ths,function(th,i){th.addEventListener('click',function(){
var d=dir[i]=-(dir[i]||1);
rows.sort(function(a,b){var x=a.cells[i],y=b.cells[i],u=x.getAttribute('data-v'),v=y.getAttribute('data-v');
if(u!==null&&v!==null)return d*(Number(u)-Number(v));return d*x.textContent.localeCompare(y.textContent);});
rows.forEach(function(r){body.appendChild(r);});});});
apply();
}
document.body.setAttribute('data-ready','1');
})();"#;

/// What the page says about its inputs.
#[derive(Debug, Default, Clone)]
pub struct Meta {
    /// Input names.
    pub inputs: Vec<String>,
    /// Produced by (program and version).
    pub generator: String,
}

/// The whole page.
pub fn render(r: &Report, meta: &Meta) -> String {
    let mut o = String::with_capacity(1 << 20);
    let top = r.cfg.top;
    let _ = write!(
        o,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\
<meta name=\"viewport\" content=\"width=device-width\"><title>wirespeed report</title><style>{STYLE}</style></head><body>\
<h1>wirespeed report</h1><p class=\"note\">{} input(s): {}. Written by {}.</p>",
        meta.inputs.len(),
        esc(&meta
            .inputs
            .iter()
            .take(10)
            .map(String::as_str)
            .collect::<Vec<_>>()
            .join(", ")),
        esc(&meta.generator)
    );
    if meta.inputs.len() > 10 {
        let _ = write!(
            o,
            "<p class=\"note\">(and {} more)</p>",
            meta.inputs.len() - 10
        );
    }
    let t = r.total;
    let _ = write!(
        o,
        r#"<div class="kpi"><div>flows<br><span class="big" id="total-flows" data-v="{}">{}</span></div><div>bytes<br><span class="big" id="total-bytes" data-v="{}">{}</span> ({})</div><div>packets<br><span class="big" id="total-pkts" data-v="{}">{}</span></div>"#,
        t.flows,
        num(t.flows),
        t.bytes,
        num(t.bytes),
        human(t.bytes),
        t.pkts,
        num(t.pkts)
    );
    if let Some((a, b)) = r.span {
        let _ = write!(
            o,
            "<div>capture time (UTC)<br><span class=\"big\">{}</span> to {} ({})</div>",
            esc(&utc(a)),
            esc(&utc(b)),
            dur(b - a)
        );
    }
    o.push_str("</div>");
    if r.interim > 0 || r.untimed > 0 {
        let _ = write!(
            o,
            "<p class=\"note\">{} interim records (end_reason active) skipped: each flow counts once, by its final record. {} records with no valid time are in the totals but not on the time chart.</p>",
            num(r.interim),
            num(r.untimed)
        );
    }
    if t.flows == 0 {
        o.push_str(
            "<p id=\"empty\" class=\"big\">The input holds no flow records: nothing to show.</p>",
        );
        let _ = writeln!(o, "<script>{SCRIPT}</script></body></html>");
        return o;
    }

    o.push_str("<h2 id=\"applications\">Applications</h2>");
    names_section(&mut o, "apps", "application", &r.apps, top);
    o.push_str("<h2>Categories</h2>");
    names_section(&mut o, "categories", "category", &r.categories, top);

    o.push_str("<h2>Traffic over time</h2>");
    series(&mut o, r);

    o.push_str("<h2>Hosts that talked most</h2>");
    heavy(&mut o, "hosts", "host", &r.hosts, top);
    o.push_str("<h2>Largest conversations</h2>");
    heavy(&mut o, "convs", "client \u{2192} server", &r.convs, top);

    o.push_str("<h2>Client and server</h2><div class=\"charts\">");
    let [cb, cp, sb, sp] = r.split;
    bars(
        &mut o,
        "bytes by direction",
        &[
            ("client \u{2192} server".into(), cb, human(cb)),
            ("server \u{2192} client".into(), sb, human(sb)),
        ],
    );
    bars(
        &mut o,
        "packets by direction",
        &[
            ("client \u{2192} server".into(), cp, num(cp)),
            ("server \u{2192} client".into(), sp, num(sp)),
        ],
    );
    let _ = write!(
        o,
        "</div><p id=\"split\" data-c2s-bytes=\"{cb}\" data-s2c-bytes=\"{sb}\">Client to server {:.1}% of bytes, server to client {:.1}%.</p>",
        100.0 * cb as f64 / t.bytes.max(1) as f64,
        100.0 * sb as f64 / t.bytes.max(1) as f64
    );

    o.push_str("<h2>How flows were named</h2><p class=\"note\">The <code>method</code> column: which classifier decided.</p>");
    names_section(&mut o, "methods", "method", &r.methods, top);
    o.push_str(
        "<h3>Time to a label (<code>ttb_pkts</code>: packets seen when the verdict came)</h3>",
    );
    let items: Vec<_> = TTB_CLASSES
        .iter()
        .zip(&r.ttb)
        .map(|(c, t)| {
            let label = if *c == "none" {
                "no verdict".to_string()
            } else {
                format!("{c} packets")
            };
            (label, t.flows, num(t.flows))
        })
        .collect();
    bars(&mut o, "flows by ttb_pkts", &items);

    let unknown = r
        .apps
        .sorted(|t| t.flows)
        .into_iter()
        .find(|a| a.0 == "Unknown")
        .map(|a| a.1)
        .unwrap_or_default();
    let _ = write!(
        o,
        "<h2>Unknown</h2><p id=\"unknown\" data-flows=\"{}\" data-bytes=\"{}\"><span class=\"big\">{:.1}%</span> of flows ({}) and {:.1}% of bytes ({}) left Unknown.</p>",
        unknown.flows,
        unknown.bytes,
        100.0 * unknown.flows as f64 / t.flows.max(1) as f64,
        num(unknown.flows),
        100.0 * unknown.bytes as f64 / t.bytes.max(1) as f64,
        human(unknown.bytes)
    );
    if !r.unknown_ports.is_empty() {
        o.push_str("<p>Their server ports, by flows:</p>");
        table_by(
            &mut o,
            "unknown-ports",
            "server port",
            &r.unknown_ports,
            top,
            |t| t.flows,
        );
    }

    o.push_str("<h2>Risks</h2>");
    let mut risks: Vec<_> = r.risks.iter().collect();
    risks.sort_by(|a, b| b.1.tally.flows.cmp(&a.1.tally.flows).then(a.0.cmp(b.0)));
    let _ = write!(
        o,
        "<p id=\"risky\" data-flows=\"{}\">{} flows ({:.1}%) carry at least one risk.</p>",
        r.risky.flows,
        num(r.risky.flows),
        100.0 * r.risky.flows as f64 / t.flows.max(1) as f64
    );
    if !risks.is_empty() {
        o.push_str("<table id=\"risks\"><thead><tr><th>risk</th><th>flows</th><th>bytes</th><th>some of the flows (client, server, application, host)</th></tr></thead><tbody>");
        for (k, v) in risks {
            let ex: Vec<String> = v
                .examples
                .iter()
                .map(|e| {
                    format!(
                        "{} \u{2192} {} {} {}",
                        esc(&e[0]),
                        esc(&e[1]),
                        esc(&e[2]),
                        esc(&e[3])
                    )
                })
                .collect();
            let _ = write!(
                o,
                r#"<tr data-name="{k}" data-flows="{}"><td>{k}</td><td class="n">{}</td><td class="n">{}</td><td>{}</td></tr>"#,
                v.tally.flows,
                num(v.tally.flows),
                num(v.tally.bytes),
                ex.join("<br>"),
                k = esc(k)
            );
        }
        o.push_str("</tbody></table><p class=\"note\">Filter the flow table below by a risk's name to see the largest flows that carry it.</p>");
    }

    o.push_str("<h2>Tunnels</h2>");
    if r.tunnels.is_empty() {
        o.push_str("<p>No tunnelled flow.</p>");
    } else {
        table(&mut o, "tunnels", "tunnel", &r.tunnels, top);
    }
    o.push_str("<h2>TLS</h2><h3>Versions</h3>");
    if r.tls.is_empty() {
        o.push_str("<p>None.</p>");
    } else {
        table(&mut o, "tls", "TLS version", &r.tls, top);
    }
    o.push_str("<h3>JA4 client fingerprints</h3>");
    if r.ja4.is_empty() {
        o.push_str("<p>None.</p>");
    } else {
        table(&mut o, "ja4", "JA4", &r.ja4, top);
    }

    flow_table(&mut o, r);
    let _ = writeln!(o, "<script>{SCRIPT}</script></body></html>");
    o
}

fn flow_table(o: &mut String, r: &Report) {
    let mut flows: Vec<_> = r.flows.iter().map(|f| &f.0).collect();
    flows.sort_by(|a, b| b.cmp(a));
    let _ = write!(
        o,
        "<h2>Flows</h2><p id=\"flow-cap\" data-rows=\"{n}\" data-cap=\"{cap}\">{}</p>\
<p><label>Filter: <input id=\"filter\" type=\"search\" placeholder=\"any text in a row\"></label> <span id=\"shown\">{n}</span> rows shown. Click a column's name to sort.</p>",
        if (flows.len() as u64) < r.total.flows {
            format!(
                "The {} largest flows by bytes of {} (the table holds at most {}; every total above counts all flows).",
                num(flows.len() as u64),
                num(r.total.flows),
                num(r.cfg.rows as u64)
            )
        } else {
            format!("All {} flows.", num(flows.len() as u64))
        },
        n = flows.len(),
        cap = r.cfg.rows,
    );
    o.push_str("<table id=\"flows\"><thead><tr><th>first packet (UTC)</th><th>client</th><th>server</th><th>l4</th><th>application</th><th>category</th><th>method</th><th>host</th><th>bytes</th><th>packets</th><th>risks</th><th>capture</th></tr></thead><tbody>");
    for f in flows {
        let _ = write!(
            o,
            r#"<tr><td data-v="{}">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class="n" data-v="{}">{}</td><td class="n" data-v="{}">{}</td><td>{}</td><td>{}</td></tr>"#,
            f.first_us,
            esc(&utc(f.first_us)),
            esc(&f.client),
            esc(&f.server),
            esc(&f.l4),
            esc(&f.app),
            esc(&f.category),
            esc(&f.method),
            esc(&f.host),
            f.bytes,
            num(f.bytes),
            f.pkts,
            num(f.pkts),
            esc(&f.risks),
            esc(&f.pcap),
        );
    }
    o.push_str("</tbody></table>");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_controls() {
        assert_eq!(
            esc("<script>alert('x')</script>&\"\u{0}"),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;&quot;\u{fffd}"
        );
    }

    #[test]
    fn dates_and_numbers() {
        assert_eq!(utc(0), "1970-01-01 00:00:00.000");
        // 2020-02-07 21:03:54.258 UTC (date -u -d @1581109434.258).
        assert_eq!(utc(1_581_109_434_258_190), "2020-02-07 21:03:54.258");
        assert_eq!(utc(951_782_400_000_000), "2000-02-29 00:00:00.000");
        assert_eq!(num(1_234_567), "1,234,567");
        assert_eq!(num(12), "12");
        assert_eq!(human(999), "999 B");
        assert_eq!(human(1500), "1.5 kB");
    }
}
