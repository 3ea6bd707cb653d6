"use strict";
(function () {
  var SVGNS = "http://www.w3.org/2000/svg";
  var COLORS = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1",
    "#ff9da7", "#9c755f", "#bab0ac"];
  var ticks = 0;
  function $(id) { return document.getElementById(id); }
  function num(n) { return Number(n).toLocaleString("en-US"); }
  function human(n, unit) {
    var u = ["", "k", "M", "G", "T", "P"], i = 0;
    n = Number(n);
    while (n >= 1000 && i < u.length - 1) { n /= 1000; i++; }
    return (i ? n.toFixed(1) : String(Math.round(n))) + " " + u[i] + unit;
  }
  function text(id, s) { $(id).textContent = s; }
  function cell(tr, s, cls) {
    var td = document.createElement("td");
    td.textContent = s;
    if (cls) { td.className = cls; }
    tr.appendChild(td);
    return td;
  }
  function clear(el) { while (el.firstChild) { el.removeChild(el.firstChild); } }
  function chart(apps, others) {
    var svg = $("chart"), rows = apps.slice();
    clear(svg);
    if (others.apps > 0) {
      rows.push({ app: "(" + others.apps + " others)", bytes_per_s: others.bytes_per_s });
    }
    var max = 1;
    rows.forEach(function (a) { max = Math.max(max, a.bytes_per_s); });
    var h = 20, w = 900, label = 200, y = 0;
    svg.setAttribute("height", String(Math.max(1, rows.length) * h + 10));
    rows.forEach(function (a, i) {
      var t = document.createElementNS(SVGNS, "text");
      t.setAttribute("x", "0");
      t.setAttribute("y", String(y + 14));
      t.textContent = a.app;
      svg.appendChild(t);
      var r = document.createElementNS(SVGNS, "rect");
      var bw = Math.max(1, Math.round((w - label - 120) * a.bytes_per_s / max));
      r.setAttribute("x", String(label));
      r.setAttribute("y", String(y + 3));
      r.setAttribute("width", String(a.bytes_per_s > 0 ? bw : 0));
      r.setAttribute("height", String(h - 6));
      r.setAttribute("fill", COLORS[i % COLORS.length]);
      svg.appendChild(r);
      var v = document.createElementNS(SVGNS, "text");
      v.setAttribute("x", String(label + (a.bytes_per_s > 0 ? bw : 0) + 6));
      v.setAttribute("y", String(y + 14));
      v.textContent = human(a.bytes_per_s * 8, "bit/s");
      svg.appendChild(v);
      y += h;
    });
  }
  function apps(d) {
    var tb = $("apps").tBodies[0];
    clear(tb);
    d.apps.forEach(function (a) {
      var tr = document.createElement("tr");
      tr.setAttribute("data-app", a.app);
      tr.setAttribute("data-bytes", String(a.bytes));
      tr.setAttribute("data-flows", String(a.flows));
      tr.setAttribute("data-packets", String(a.packets));
      tr.setAttribute("data-open-bytes", String(a.open_bytes));
      tr.setAttribute("data-now", String(a.bytes_per_s));
      cell(tr, a.app);
      cell(tr, a.category);
      cell(tr, human(a.bytes_per_s * 8, "bit/s"), "n");
      cell(tr, num(a.open_flows), "n");
      cell(tr, num(a.open_bytes), "n");
      cell(tr, num(a.flows), "n");
      cell(tr, num(a.packets), "n");
      cell(tr, num(a.bytes), "n");
      tb.appendChild(tr);
    });
    if (d.others.apps > 0) {
      var tr = document.createElement("tr");
      cell(tr, "(" + d.others.apps + " others)");
      cell(tr, "");
      cell(tr, human(d.others.bytes_per_s * 8, "bit/s"), "n");
      cell(tr, num(d.others.open_flows), "n");
      cell(tr, num(d.others.open_bytes), "n");
      cell(tr, num(d.others.flows), "n");
      cell(tr, num(d.others.packets), "n");
      cell(tr, num(d.others.bytes), "n");
      tb.appendChild(tr);
    }
    chart(d.apps, d.others);
  }
  function risky(d) {
    var tb = $("risky").tBodies[0];
    clear(tb);
    d.risky.forEach(function (f) {
      var tr = document.createElement("tr");
      cell(tr, new Date(f.last_ms).toISOString().replace("T", " ").slice(0, 19));
      cell(tr, f.src);
      cell(tr, f.dst);
      cell(tr, f.l4);
      cell(tr, f.app);
      cell(tr, f.host);
      cell(tr, f.risks.join(", "));
      cell(tr, num(f.bytes), "n");
      tb.appendChild(tr);
    });
    text("riskyseen", num(d.risky_seen) + " risky flows ended; the newest " + d.risky.length);
  }
  function rules(d) {
    if (!d.rules) { return; }
    $("rulesec").hidden = false;
    var tb = $("rules").tBodies[0];
    clear(tb);
    d.rules.forEach(function (r) {
      var tr = document.createElement("tr");
      cell(tr, r.rule);
      cell(tr, num(r.flows), "n");
      cell(tr, num(r.packets), "n");
      cell(tr, num(r.bytes), "n");
      cell(tr, num(r.dropped_packets), "n");
      cell(tr, num(r.marked_packets), "n");
      cell(tr, num(r.bound_flows), "n");
      tb.appendChild(tr);
    });
  }
  function draw(d) {
    var rate = 0;
    d.apps.forEach(function (a) { rate += a.bytes_per_s; });
    rate += d.others.bytes_per_s;
    text("mode", d.mode);
    text("rate", human(rate * 8, "bit/s"));
    text("active", num(d.active_flows));
    text("ended", num(d.flows_ended));
    text("packets", num(d.packets));
    text("bytes", num(d.bytes));
    text("kdrops", num(d.drops.kernel));
    text("odrops", num(d.drops.output_records));
    text("window", (d.window_ms / 1000).toFixed(1));
    text("counted", d.open_counted ? "open and ended" : "ended (too many open to count)");
    apps(d);
    risky(d);
    rules(d);
    ticks++;
    document.body.setAttribute("data-ticks", String(ticks));
  }
  function poll() {
    fetch("/live.json", { cache: "no-store" })
      .then(function (r) {
        if (!r.ok) { throw new Error("HTTP " + r.status); }
        return r.json();
      })
      .then(function (d) {
        draw(d);
        $("state").className = "state ok";
        text("state", "live, every second");
      }, function () {
        $("state").className = "state";
        text("state", "disconnected");
      })
      .then(function () { setTimeout(poll, 1000); });
  }
  poll();
})();
