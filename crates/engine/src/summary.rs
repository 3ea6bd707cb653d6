//! The run's report: its counters (every packet counted somewhere), per-application totals,
//! and the text summary printed at the end of a run. Where a flow's record is made and
//! written is [`crate::record`].

use std::collections::HashMap;
use std::fmt;
use std::hash::{BuildHasherDefault, Hasher};
use wirespeed_classify::{LabelId, Labels, Method, AVAILABLE};
use wirespeed_dpi::DpiStats;
use wirespeed_flow::{FragStats, TableStats};
use wirespeed_risk::Risk;
use wirespeed_wire::DropReason;

/// Every packet is counted somewhere: decoded into a flow, or dropped under a named reason.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Packets read.
    pub packets: u64,
    /// Captured bytes read.
    pub bytes: u64,
    /// Packets counted in a flow.
    pub decoded: u64,
    /// Packets not decoded, by [`DropReason`] index.
    pub drops: [u64; DropReason::COUNT],
    /// Later IP fragments whose first fragment was never seen (not counted in any flow).
    pub frag_orphans: u64,
    /// Input files that could not be read to the end.
    pub capture_errors: u64,
    /// Flow records written.
    pub records: u64,
    /// Flow-table events.
    pub table: TableStats,
    /// Fragment-mapping events.
    pub frag: FragStats,
    /// Payload-inspection events (reassembly caps included).
    pub dpi: DpiStats,
    /// Flows by the method that named them, at [`method_slot`] (0: none did).
    pub by_method: [u64; METHOD_SLOTS],
    /// What learned verdicts became, per learned method (`[dns-cache, host-cache]`).
    pub learned: [LearnedOutcome; 2],
    /// Flows carrying each of nDPI's risks, by risk id.
    pub by_risk: RiskCounts,
}

/// Flows by nDPI risk id (final records only).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RiskCounts(pub [u64; 64]);

impl Default for RiskCounts {
    fn default() -> Self {
        RiskCounts([0; 64])
    }
}

/// What became of the flows a learned method named at their first packet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LearnedOutcome {
    /// Flows it named at their first packet.
    pub named: u64,
    /// Payload inspection agreed later.
    pub confirmed: u64,
    /// Payload inspection named something else (the record carries its label).
    pub corrected: u64,
}

impl LearnedOutcome {
    fn add(&mut self, o: &LearnedOutcome) {
        self.named += o.named;
        self.confirmed += o.confirmed;
        self.corrected += o.corrected;
    }
}

/// Slots of [`Counters::by_method`]: none, then each method by rank.
pub const METHOD_SLOTS: usize = 8;

/// The slot of [`Counters::by_method`] counting flows `method` named.
#[inline]
pub fn method_slot(method: Option<Method>) -> usize {
    method
        .map_or(0, |m| usize::from(m.rank()))
        .min(METHOD_SLOTS - 1)
}

impl Counters {
    /// Packets dropped for any reason.
    pub fn dropped(&self) -> u64 {
        self.drops.iter().sum::<u64>() + self.frag_orphans
    }

    /// Add another worker's (or file's) counters.
    pub fn add(&mut self, o: &Counters) {
        self.packets += o.packets;
        self.bytes += o.bytes;
        self.decoded += o.decoded;
        for (a, b) in self.drops.iter_mut().zip(o.drops.iter()) {
            *a += b;
        }
        self.frag_orphans += o.frag_orphans;
        self.capture_errors += o.capture_errors;
        self.records += o.records;
        for (a, b) in self.by_method.iter_mut().zip(o.by_method.iter()) {
            *a += b;
        }
        for (a, b) in self.by_risk.0.iter_mut().zip(o.by_risk.0.iter()) {
            *a += b;
        }
        for (a, b) in self.learned.iter_mut().zip(o.learned.iter()) {
            a.add(b);
        }
        let (t, u) = (&mut self.table, &o.table);
        t.created += u.created;
        t.evicted += u.evicted;
        t.idle += u.idle;
        t.closed += u.closed;
        t.interim += u.interim;
        t.peak = t.peak.max(u.peak);
        t.swept += u.swept;
        let (f, g) = (&mut self.frag, &o.frag);
        f.first += g.first;
        f.mapped += g.mapped;
        f.orphans += g.orphans;
        f.replaced += g.replaced;
        self.dpi.add(&o.dpi);
    }
}

/// Flows, packets and bytes per application name (the run's totals, made from the per-label
/// counts once at the end).
pub type AppStats = HashMap<String, [u64; 3], BuildHasherDefault<LabelHasher>>;

/// Add `n` to `apps`' entry for `app`.
fn add_app(apps: &mut AppStats, app: &str, n: &[u64; 3]) {
    if let Some(e) = apps.get_mut(app) {
        for (a, b) in e.iter_mut().zip(n) {
            *a += b;
        }
    } else {
        apps.insert(app.to_string(), *n);
    }
}

/// The per-label totals `by_label` (flows, packets, bytes, indexed by label id) by
/// application name.
pub(crate) fn apps_by_label(by_label: &[[u64; 3]], labels: &Labels) -> AppStats {
    let mut apps = AppStats::default();
    for (i, n) in by_label.iter().enumerate() {
        if n[0] > 0 {
            add_app(&mut apps, labels.get(LabelId(i as u16)).app(), n);
        }
    }
    apps
}

/// A fast hasher for the short application names of the run's totals (keys from our own
/// tables, not from packets).
#[derive(Default)]
pub struct LabelHasher(u64);

impl Hasher for LabelHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(5) ^ b as u64).wrapping_mul(0x517c_c1b7_2722_0a95);
        }
    }
}

/// What a run did: counters and per-application totals, printed at the end of `classify`.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// All counters.
    pub counters: Counters,
    /// Per-application flows, packets, bytes.
    pub apps: AppStats,
    /// Each application's category (nDPI's names), where known.
    pub categories: HashMap<String, String>,
    /// Input files and how each went: (path, packets, error message).
    pub files: Vec<(String, u64, Option<String>)>,
    /// What the learned state did (caches' admissions, evictions, expiries), where it learns.
    pub learn: Option<crate::learn::LearnStats>,
    /// Seconds of wall time the run took.
    pub elapsed_s: f64,
}

/// Each of `apps`' category, from the run's labels (the first label naming the application).
pub fn app_categories(apps: &AppStats, labels: &Labels) -> HashMap<String, String> {
    let mut out = HashMap::new();
    for i in 0..labels.len() {
        let l = labels.get(LabelId(i as u16));
        if apps.contains_key(l.app()) && !out.contains_key(l.app()) {
            out.insert(l.app().to_string(), l.category().to_string());
        }
    }
    out
}

impl Summary {
    /// The summary as text: what a user needs first (inputs, packets, flows, applications,
    /// what was not counted and why); with `verbose`, the engine's internals after it
    /// (fragments, payload inspection, reassembly caps).
    pub fn render(&self, verbose: bool) -> String {
        let mut s = String::new();
        let _ = self.write(&mut s, verbose);
        s
    }

    fn write(&self, f: &mut impl fmt::Write, verbose: bool) -> fmt::Result {
        let c = &self.counters;
        let rate = if self.elapsed_s > 0.0 {
            c.packets as f64 / self.elapsed_s / 1e6
        } else {
            0.0
        };
        let n = self.files.len();
        let plural =
            |n: u64, one: &'static str, many: &'static str| if n == 1 { one } else { many };
        // A live run has no inputs to count.
        let inputs = if n == 0 {
            String::new()
        } else {
            format!("{n} {}, ", plural(n as u64, "input", "inputs"))
        };
        writeln!(
            f,
            "wirespeed: {inputs}{} {}, {} bytes, {} {} in {:.3} s ({:.2} Mpps)",
            c.packets,
            plural(c.packets, "packet", "packets"),
            c.bytes,
            c.records,
            plural(c.records, "flow", "flows"),
            self.elapsed_s,
            rate
        )?;
        for (_, n, err) in &self.files {
            if let Some(e) = err {
                writeln!(f, "  input error after {n} packets: {e}")?;
            }
        }
        writeln!(f, "applications (category; flows, packets, bytes):")?;
        let mut apps: Vec<_> = self.apps.iter().collect();
        apps.sort_by(|a, b| b.1[2].cmp(&a.1[2]).then(a.0.cmp(b.0)));
        for (name, [fl, p, b]) in apps {
            let cat = self.categories.get(name).map_or("", String::as_str);
            writeln!(f, "  {name:<24} {cat:<16} {fl:>10} {p:>12} {b:>15}")?;
        }
        let m = &c.by_method;
        if m.iter().any(|&n| n > 0) {
            let mut named: Vec<String> = AVAILABLE
                .iter()
                .map(|(name, meth)| (name, m[method_slot(Some(*meth))]))
                .filter(|(_, n)| *n > 0)
                .map(|(name, n)| format!("{name} {n}"))
                .collect();
            if m[0] > 0 {
                named.push(format!("none {}", m[0]));
            }
            writeln!(f, "flows named by: {}", named.join(", "))?;
        }
        let risky: Vec<String> = (0..64u8)
            .filter_map(|i| Some((Risk::from_id(i)?, c.by_risk.0[usize::from(i)])))
            .filter(|&(_, n)| n > 0)
            .map(|(r, n)| format!("{} {n}", r.name()))
            .collect();
        if !risky.is_empty() {
            writeln!(f, "flows by risk: {}", risky.join(", "))?;
        }
        for (name, o) in ["dns-cache", "host-cache"].iter().zip(&c.learned) {
            if o.named > 0 {
                writeln!(
                    f,
                    "  {name}: {} flows named at their first packet; payload inspection agreed on {}, named another on {}, said nothing on {}",
                    o.named,
                    o.confirmed,
                    o.corrected,
                    o.named - o.confirmed - o.corrected
                )?;
            }
        }
        writeln!(
            f,
            "packets: {} in flows, {} not in any flow",
            c.decoded,
            c.dropped()
        )?;
        for r in DropReason::ALL {
            let n = c.drops[r.index()];
            if n > 0 {
                writeln!(f, "  {:<40} {n:>12}", r.describe())?;
            }
        }
        if c.frag_orphans > 0 {
            let what = "later IP fragments whose first was unseen";
            writeln!(f, "  {what:<40} {:>12}", c.frag_orphans)?;
        }
        let t = &c.table;
        writeln!(
            f,
            "flows: {} created, peak {} open, ended idle {} / fin-rst {} / evicted (table full) {}",
            t.created, t.peak, t.idle, t.closed, t.evicted
        )?;
        if t.interim > 0 {
            writeln!(
                f,
                "  {} interim records of flows still open (active timeout)",
                t.interim
            )?;
        }
        let d = &c.dpi;
        if d.no_context > 0 {
            writeln!(
                f,
                "payload inspection: {} flows not inspected (the pool of contexts was full: --dpi-contexts)",
                d.no_context
            )?;
        }
        if d.reclaimed > 0 {
            writeln!(
                f,
                "payload inspection: {} flows gave their context to a new flow (the pool full, held for --dpi-reclaim-after with nothing decided): inspected no further",
                d.reclaimed
            )?;
        }
        if c.capture_errors > 0 {
            writeln!(f, "input errors: {}", c.capture_errors)?;
        }
        if !verbose {
            return Ok(());
        }
        let g = &c.frag;
        if g.first + g.mapped + g.orphans > 0 {
            writeln!(
                f,
                "fragments: {} first, {} mapped to their flow, {} orphans, {} table replacements",
                g.first, g.mapped, g.orphans, g.replaced
            )?;
        }
        if d.flows > 0 || d.no_context > 0 {
            writeln!(
                f,
                "dpi: {} flows inspected, {} identified, {} ruled out, {} budget spent, {} without a context (pool full), {} gave theirs up (held long, undecided), {} packets, {} malformed fields, {} metadata truncated",
                d.flows, d.identified, d.ruled_out, d.budget_spent, d.no_context, d.reclaimed, d.packets, d.malformed, d.meta_truncated
            )?;
            if d.events > 0 || d.events_dropped > 0 {
                writeln!(
                    f,
                    "transaction events: {} ({} completed before their answer: their flow or the store held too many open), {} dropped (store full)",
                    d.events, d.events_early, d.events_dropped
                )?;
            }
            let r = &d.reasm;
            writeln!(
                f,
                "reassembly: {} buffered messages, {} out-of-order segments, {} deliveries, {} duplicates, {} resyncs; caps hit: {} pool full, {} byte cap, {} segment cap",
                r.started, r.out_of_order, r.delivered, r.duplicates, r.resync, r.pool_full, r.overflow, r.segments_full
            )?;
        }
        if let Some(l) = &self.learn {
            let (h, n) = (&l.hosts, &l.dns);
            writeln!(
                f,
                "host cache: {} windows, {} rules admitted, {} renewed, {} contradicted, {} expired, {} evicted (capacity), {} flows not counted (window table full)",
                h.windows, h.admitted, h.renewed, h.contradicted, h.expired, h.evicted, h.uncounted
            )?;
            writeln!(
                f,
                "dns cache: {} answers learned, {} addresses evicted (capacity), {} expired; {} epochs applied, {} lessons dropped (a worker's buffer full)",
                n.learned, n.evicted, n.expired, l.epochs, l.dropped
            )?;
            writeln!(
                f,
                "dedicated port table: {} hints, {} end-points evicted (capacity), {} expired",
                l.dpt.hints, l.dpt.evicted, l.dpt.expired
            )?;
            if l.stats_learned > 0 {
                writeln!(
                    f,
                    "link model (--learn-stats): {} flows learned",
                    l.stats_learned
                )?;
            }
        }
        Ok(())
    }
}

/// The summary without the engine's internals ([`Summary::render`] with them).
impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write(f, false)
    }
}
