//! What a run shares with its endpoint ([`RunStats`]), and the rendering of its counters as
//! metric families: the workers' published totals, per label and per rule, the kernel's or the
//! queues' counters, and the output's losses.

use super::page::PageState;
use super::{Exposition, Type};
use crate::nfqueue::QueueCounters;
use crate::sys::KernelStats;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use wirespeed_act::PolicyCell;
use wirespeed_engine::runtime::Published;
use wirespeed_engine::Rules;
use wirespeed_export::shared::LossyWriter;
use wirespeed_wire::DropReason;

/// What a live or inline run shares with its metrics endpoint while it runs.
pub struct RunStats {
    pub(super) rules: Arc<Rules>,
    pub(super) workers: Arc<Published>,
    pub(super) kind: Kind,
    pub(super) output: OnceLock<OutputCounters>,
    /// What the live page adds: the newest risky flows, the rates' history.
    pub(super) page: PageState,
}

pub(super) enum Kind {
    Live(KernelCounters),
    Inline {
        queue: Arc<QueueCounters>,
        policy: Arc<PolicyCell>,
    },
}

/// The kernel's ring counters, all sockets together (copied from the run's own as it goes).
#[derive(Default)]
pub(super) struct KernelCounters {
    pub(super) packets: AtomicU64,
    pub(super) drops: AtomicU64,
    pub(super) freezes: AtomicU64,
}

/// The counters of a live output ([`LossyWriter`]): what it dropped, and its backlog.
#[derive(Clone, Debug)]
pub struct OutputCounters {
    /// Records dropped because the output did not keep up.
    pub dropped_records: Arc<AtomicU64>,
    /// Their bytes.
    pub dropped_bytes: Arc<AtomicU64>,
    /// Records queued for the writer and not written yet.
    pub queued_records: Arc<AtomicU64>,
}

impl OutputCounters {
    /// The counters of `w` (shared: they go on counting).
    pub fn of(w: &LossyWriter) -> Self {
        OutputCounters {
            dropped_records: w.dropped_records.clone(),
            dropped_bytes: w.dropped_bytes.clone(),
            queued_records: w.queued_records.clone(),
        }
    }
}

impl std::fmt::Debug for RunStats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match self.kind {
            Kind::Live(_) => "live",
            Kind::Inline { .. } => "inline",
        };
        f.debug_struct("RunStats")
            .field("kind", &kind)
            .finish_non_exhaustive()
    }
}

/// The workers' snapshots, asked to count open flows too (the live page's throughput now).
fn open_counting() -> Arc<Published> {
    let p = Arc::<Published>::default();
    p.count_open();
    p
}

impl RunStats {
    /// For a live capture with these rules (their labels name the applications).
    pub fn live(rules: Arc<Rules>) -> Arc<RunStats> {
        Arc::new(RunStats {
            rules,
            workers: open_counting(),
            kind: Kind::Live(KernelCounters::default()),
            output: OnceLock::new(),
            page: PageState::default(),
        })
    }

    /// For an inline run with these rules and this policy (its per-rule totals).
    pub fn inline(rules: Arc<Rules>, policy: Arc<PolicyCell>) -> Arc<RunStats> {
        Arc::new(RunStats {
            rules,
            workers: open_counting(),
            kind: Kind::Inline {
                queue: Arc::default(),
                policy,
            },
            output: OnceLock::new(),
            page: PageState::default(),
        })
    }

    /// Where the run's workers publish their snapshots ([`wirespeed_engine::Session::publish_to`]).
    pub fn published(&self) -> &Arc<Published> {
        &self.workers
    }

    /// The output's counters, once it is open (later calls change nothing).
    pub fn set_output(&self, o: OutputCounters) {
        let _ = self.output.set(o);
    }

    /// The kernel's counters so far (a live run copies its own here).
    pub(crate) fn set_kernel(&self, k: &KernelStats) {
        if let Kind::Live(c) = &self.kind {
            c.packets.store(k.packets, Ordering::Relaxed);
            c.drops.store(k.drops, Ordering::Relaxed);
            c.freezes.store(k.freezes, Ordering::Relaxed);
        }
    }

    /// The queue counters an inline run counts in (None for a live run).
    pub(crate) fn queue_counters(&self) -> Option<Arc<QueueCounters>> {
        match &self.kind {
            Kind::Inline { queue, .. } => Some(queue.clone()),
            Kind::Live(_) => None,
        }
    }

    /// The metrics now, in the OpenMetrics text format.
    pub fn render(&self) -> String {
        use Type::{Counter, Gauge, Info};
        let t = self.workers.total();
        let c = &t.counters;
        let mut e = Exposition::default();
        let mode = match self.kind {
            Kind::Live(_) => "live",
            Kind::Inline { .. } => "inline",
        };
        e.family(
            "wirespeed_build",
            Info,
            "",
            "The wirespeed version, and what this run does.",
        );
        e.sample(&[("version", env!("CARGO_PKG_VERSION")), ("mode", mode)], 1);
        e.family(
            "wirespeed_packets",
            Counter,
            "",
            "Packets read (from the capture rings, or the queues inline).",
        );
        e.sample(&[], c.packets);
        e.family(
            "wirespeed_bytes",
            Counter,
            "bytes",
            "Captured bytes of the packets read.",
        );
        e.sample(&[], c.bytes);
        e.family(
            "wirespeed_decoded_packets",
            Counter,
            "",
            "Packets decoded and counted in a flow.",
        );
        e.sample(&[], c.decoded);
        e.family(
            "wirespeed_dropped_packets",
            Counter,
            "",
            "Packets not counted in any flow, by reason (the run summary's).",
        );
        for r in DropReason::ALL {
            e.sample(&[("reason", r.as_str())], c.drops[r.index()]);
        }
        e.sample(&[("reason", "frag_orphan")], c.frag_orphans);
        e.family("wirespeed_flows_created", Counter, "", "Flows started.");
        e.sample(&[], c.table.created);
        e.family(
            "wirespeed_flows_ended",
            Counter,
            "",
            "Flows ended and written as a record (interim records not counted).",
        );
        e.sample(&[], c.records);
        e.family(
            "wirespeed_flows_evicted",
            Counter,
            "",
            "Flows ended early to make room in a full flow table.",
        );
        e.sample(&[], c.table.evicted);
        e.family(
            "wirespeed_interim_records",
            Counter,
            "",
            "Interim records of flows still open (active timeout).",
        );
        e.sample(&[], c.table.interim);
        e.family("wirespeed_flows_active", Gauge, "", "Flows held now.");
        e.sample(&[], t.active);
        // Per label, of the flows ended so far: the labels with flows, by name.
        let labels = self.rules.labels();
        let mut apps: Vec<_> = labels
            .iter()
            .filter_map(|(id, l)| {
                let n = t.by_label.get(id.index())?;
                (n[0] > 0).then_some((l.app(), l.master(), l.category(), *n))
            })
            .collect();
        apps.sort_unstable_by(|a, b| (a.0, a.1, a.2).cmp(&(b.0, b.1, b.2)));
        for (i, (name, unit, help)) in [
            ("wirespeed_app_flows", "", "Flows ended, by their label."),
            (
                "wirespeed_app_packets",
                "",
                "Packets of the flows ended, by their label.",
            ),
            (
                "wirespeed_app_bytes",
                "bytes",
                "Captured bytes of the flows ended, by their label.",
            ),
        ]
        .into_iter()
        .enumerate()
        {
            e.family(name, Counter, unit, help);
            for (app, master, category, n) in &apps {
                e.sample(
                    &[("app", app), ("master", master), ("category", category)],
                    n[i],
                );
            }
        }
        let o = self.output.get();
        let load =
            |f: fn(&OutputCounters) -> &AtomicU64| o.map_or(0, |o| f(o).load(Ordering::Relaxed));
        e.family(
            "wirespeed_output_dropped_records",
            Counter,
            "",
            "Records dropped because the output did not keep up.",
        );
        e.sample(&[], load(|o| &o.dropped_records));
        e.family(
            "wirespeed_output_dropped_bytes",
            Counter,
            "bytes",
            "Bytes of the records dropped because the output did not keep up.",
        );
        e.sample(&[], load(|o| &o.dropped_bytes));
        e.family(
            "wirespeed_output_queued_records",
            Gauge,
            "",
            "Records waiting for the output's writer (its backlog).",
        );
        e.sample(&[], load(|o| &o.queued_records));
        match &self.kind {
            Kind::Live(k) => {
                let l = |a: &AtomicU64| a.load(Ordering::Relaxed);
                e.family(
                    "wirespeed_kernel_packets",
                    Counter,
                    "",
                    "Packets the kernel passed to the capture rings (after the filter).",
                );
                e.sample(&[], l(&k.packets));
                e.family(
                    "wirespeed_kernel_dropped_packets",
                    Counter,
                    "",
                    "Packets the kernel dropped because a capture ring was full.",
                );
                e.sample(&[], l(&k.drops));
                e.family(
                    "wirespeed_kernel_queue_freezes",
                    Counter,
                    "",
                    "Times a capture ring froze (every block in user space).",
                );
                e.sample(&[], l(&k.freezes));
            }
            Kind::Inline { queue, policy } => {
                let q = queue.snapshot();
                e.family(
                    "wirespeed_inline_verdicts",
                    Counter,
                    "",
                    "Packets of the queues by what they got: accepted, dropped, marked (DSCP \
                     written here), bound (handed to the kernel in the connection's mark).",
                );
                for (v, n) in [
                    ("accepted", q.accepted),
                    ("dropped", q.dropped),
                    ("marked", q.marked),
                    ("bound", q.bound),
                ] {
                    e.sample(&[("verdict", v)], n);
                }
                e.family(
                    "wirespeed_inline_unseen_packets",
                    Counter,
                    "",
                    "Packets the kernel could not hand over, accepted unseen (fail open).",
                );
                e.sample(&[], q.unseen);
                e.family(
                    "wirespeed_inline_rules_missing_packets",
                    Counter,
                    "",
                    "Packets that came back with a final action: the firewall lacks the rules \
                     of --print-rules.",
                );
                e.sample(&[], q.rules_missing);
                e.family(
                    "wirespeed_inline_malformed_messages",
                    Counter,
                    "",
                    "Queue messages that could not be parsed.",
                );
                e.sample(&[], q.malformed);
                let totals = policy.totals();
                type Field = fn(&wirespeed_act::RuleCounters) -> u64;
                let fields: [(&str, &str, &str, Field); 7] = [
                    (
                        "wirespeed_rule_flows",
                        "",
                        "Flows that took the rule's decision.",
                        |c| c.flows,
                    ),
                    (
                        "wirespeed_rule_packets",
                        "",
                        "Packets the rule decided.",
                        |c| c.packets,
                    ),
                    (
                        "wirespeed_rule_bytes",
                        "bytes",
                        "IP bytes of the packets the rule decided.",
                        |c| c.bytes,
                    ),
                    (
                        "wirespeed_rule_dropped_packets",
                        "",
                        "Packets the rule dropped (drop, or over its rate).",
                        |c| c.dropped_packets,
                    ),
                    (
                        "wirespeed_rule_dropped_bytes",
                        "bytes",
                        "IP bytes of the packets the rule dropped.",
                        |c| c.dropped_bytes,
                    ),
                    (
                        "wirespeed_rule_marked_packets",
                        "",
                        "Packets whose DSCP the rule wrote.",
                        |c| c.marked,
                    ),
                    (
                        "wirespeed_rule_bound_flows",
                        "",
                        "Flows the rule handed to the kernel.",
                        |c| c.bound,
                    ),
                ];
                for (name, unit, help, f) in fields {
                    e.family(name, Counter, unit, help);
                    for (rule, _, c) in &totals {
                        e.sample(&[("rule", rule)], f(c));
                    }
                }
            }
        }
        e.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::super::encode::tests::parse;
    use super::*;

    #[test]
    fn a_live_run_before_its_first_packet() {
        let rules = Arc::new(Rules::builtin());
        let s = RunStats::live(rules);
        let text = s.render();
        let samples = parse(&text);
        let get = |n: &str| samples.iter().find(|s| s.0 == n).map(|s| s.2);
        assert_eq!(get("wirespeed_packets_total"), Some(0));
        assert_eq!(get("wirespeed_kernel_dropped_packets_total"), Some(0));
        assert_eq!(get("wirespeed_build_info"), Some(1));
        let reasons = samples
            .iter()
            .filter(|s| s.0 == "wirespeed_dropped_packets_total")
            .count();
        assert_eq!(reasons, DropReason::COUNT + 1);
        s.set_kernel(&KernelStats {
            packets: 5,
            drops: 2,
            freezes: 1,
        });
        assert!(s
            .render()
            .contains("\nwirespeed_kernel_dropped_packets_total 2\n"));
    }

    /// An inline run: the queues' verdicts and every rule's counters, rule names escaped.
    #[test]
    fn an_inline_run_names_its_rules() {
        let rules = Arc::new(Rules::builtin());
        let policy = wirespeed_act::Policy::from_toml(
            "[[rule]]\nname = 'no \"video\"'\napp = ['YouTube']\naction = 'drop'\n",
            rules.labels(),
        )
        .unwrap();
        let s = RunStats::inline(rules, PolicyCell::new(policy));
        s.queue_counters()
            .unwrap()
            .dropped
            .fetch_add(3, Ordering::Relaxed);
        let text = s.render();
        let samples = parse(&text);
        assert!(
            text.contains("wirespeed_inline_verdicts_total{verdict=\"dropped\"} 3\n"),
            "{text}"
        );
        assert!(
            samples.iter().any(
                |s| s.0 == "wirespeed_rule_packets_total" && s.1 == "rule=\"no \\\"video\\\"\""
            ),
            "{text}"
        );
        assert!(!text.contains("wirespeed_kernel_"));
    }
}
