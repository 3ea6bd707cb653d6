//! Acting on the label (seeds 000 and 002): a policy of ordered rules that forward, drop, mark
//! (DSCP) or rate-limit each flow by its application, master protocol, category, method,
//! confidence and end-points; first match wins.
//!
//! - [`policy`]: the policy file (TOML) and its compiled form.
//! - [`dscp`]: writing a DSCP into IPv4/IPv6 headers (RFC 1624 incremental checksum).
//! - [`bucket`]: token buckets (bit/s or packets/s), policing.
//! - [`Actor`]: one worker's side: per-flow decisions, per-rule counters, buckets; reloads
//!   when the shared [`PolicyCell`] changes, keeping every flow and counter.
//!
//! Nothing here reads a clock or allocates per packet: the caller gives each batch's time, and
//! per-flow state sits in a table sized once to the flow table's capacity (indexed by its
//! slots).
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod bucket;
pub mod dscp;
pub mod policy;

pub use bucket::{Bucket, Rate};
pub use policy::{read_policy_file, Action, Decided, FlowFacts, Policy, PolicyError, PolicySpec};

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use wirespeed_classify::{LabelId, Method};

/// What one packet gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct PacketAct {
    /// Drop it (else accept it).
    pub drop: bool,
    /// Write this DSCP into its IP header before accepting it.
    pub dscp: Option<u8>,
    /// The flow's action is final: hand it to the kernel (the mark code of [`bind_code`]), so
    /// its later packets need no trip to user space. 0: not now. Set on every packet of such a
    /// flow that still arrives (the kernel may track it as several connections).
    pub bind: u8,
    /// `bind` is new for the flow at this packet: its action just became final, or a reload
    /// changed it. An enforcer that is told once per decision ([`Enforce`], the eBPF data
    /// path's map) acts on this, never on every packet.
    pub bind_new: bool,
}

/// The action a [`bind_code`] stands for (None for a code no final action has).
pub fn bound_action(code: u8) -> Option<Action> {
    match code {
        1 => Some(Action::Forward),
        2 => Some(Action::Drop),
        c if c & 0xc0 == 0x40 => Some(Action::Mark(c & 0x3f)),
        _ => None,
    }
}

/// A flow's two end-points and IP protocol, as an [`Enforce`] keys it (the order is the
/// flow's: client first).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowEnds {
    /// IP protocol number.
    pub proto: u8,
    /// The client's address and port (0 for protocols without ports).
    pub client: (std::net::IpAddr, u16),
    /// The server's.
    pub server: (std::net::IpAddr, u16),
}

/// Enforces flows' final actions outside the packet path (`wirespeed inline --datapath ebpf`:
/// the kernel's verdict map), told once per decision: when a flow's action becomes final (or
/// changes), and when the flow ends. Called from the workers: implementations are cheap and
/// never block for long; a failure is theirs to count (the flow then passes: fail-open).
pub trait Enforce: Send + Sync {
    /// `flow`'s action is final: `code` as [`bind_code`] gives it ([`bound_action`] reads it).
    fn set(&self, flow: &FlowEnds, code: u8);
    /// `flow`, which had an action set, ended: forget it.
    fn remove(&self, flow: &FlowEnds);
    /// Whether this enforcer carries out rate limits itself (the eBPF data path's HTB
    /// classes): then a rate-limited flow is handed over with a [`rate_code`] once final, and
    /// its packets are not policed in user space (they are copies). False by default.
    fn rate_limits(&self) -> bool {
        false
    }
}

/// The code of a flow handed over to an [`Enforce`] that carries out rate limits: 0x80 |
/// the decision's index (rules in order, then `unclassified`, then `default`), for indices up
/// to 0x7e (None beyond: such a rate stays unenforced there, so the eBPF path refuses it).
pub fn rate_code(index: usize) -> Option<u8> {
    (index <= 0x7e).then_some(0x80 | index as u8)
}

/// The decision index a [`rate_code`] stands for (None for other codes).
pub fn bound_rate(code: u8) -> Option<usize> {
    (code & 0x80 != 0 && code != 0xff).then_some(usize::from(code & 0x7f))
}

/// The code a final action leaves in the connection's mark, for the kernel rules
/// (`wirespeed inline --print-rules`): 1 forward, 2 drop, 0x40 | DSCP mark; None for actions
/// that stay in user space (rate limits).
pub fn bind_code(a: Action) -> Option<u8> {
    match a {
        Action::Forward => Some(1),
        Action::Drop => Some(2),
        Action::Mark(d) => Some(0x40 | (d & 0x3f)),
        Action::RateLimit { .. } => None,
    }
}

/// Counters of one rule (or of `unclassified` / `default`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RuleCounters {
    /// Flows that took this decision (a flow whose decision changes counts for each).
    pub flows: u64,
    /// Packets decided.
    pub packets: u64,
    /// Their IP bytes.
    pub bytes: u64,
    /// Packets dropped (drop, or over a rate).
    pub dropped_packets: u64,
    /// Their IP bytes.
    pub dropped_bytes: u64,
    /// Packets whose DSCP was written.
    pub marked: u64,
    /// Flows handed to the kernel.
    pub bound: u64,
}

impl RuleCounters {
    fn add(&mut self, o: &RuleCounters) {
        self.flows += o.flows;
        self.packets += o.packets;
        self.bytes += o.bytes;
        self.dropped_packets += o.dropped_packets;
        self.dropped_bytes += o.dropped_bytes;
        self.marked += o.marked;
        self.bound += o.bound;
    }
}

/// The policy a run acts on, shared by its workers: replaced whole on reload (SIGHUP), when
/// each worker takes the new one at its next batch.
pub struct PolicyCell {
    current: RwLock<Arc<Shared>>,
    generation: AtomicU64,
    /// Counters by decision name, of the workers' counts folded in so far (at reloads and at
    /// the end): a rule keeps its counters across reloads by its name.
    totals: Mutex<Vec<(String, String, RuleCounters)>>,
}

/// One generation of the policy and its shared buckets.
struct Shared {
    policy: Policy,
    /// One bucket per rule that rate-limits per rule (None for the others).
    buckets: Vec<Option<Mutex<Bucket>>>,
    generation: u64,
}

impl PolicyCell {
    /// A cell holding `policy`.
    pub fn new(policy: Policy) -> Arc<PolicyCell> {
        Arc::new(PolicyCell {
            current: RwLock::new(Arc::new(Shared::new(policy, 1))),
            generation: AtomicU64::new(1),
            totals: Mutex::new(Vec::new()),
        })
    }

    /// Replace the policy; workers take it at their next batch. Returns the new generation.
    pub fn replace(&self, policy: Policy) -> u64 {
        let g = self.generation.load(Ordering::Acquire) + 1;
        if let Ok(mut c) = self.current.write() {
            *c = Arc::new(Shared::new(policy, g));
        }
        self.generation.store(g, Ordering::Release);
        g
    }

    /// The policy in force.
    pub fn policy(&self) -> Policy {
        self.shared().policy.clone()
    }

    fn shared(&self) -> Arc<Shared> {
        match self.current.read() {
            Ok(c) => c.clone(),
            Err(p) => p.into_inner().clone(),
        }
    }

    fn fold(&self, name: &str, action: &str, c: &RuleCounters) {
        if *c == RuleCounters::default() {
            return;
        }
        let mut t = match self.totals.lock() {
            Ok(t) => t,
            Err(p) => p.into_inner(),
        };
        match t.iter_mut().find(|(n, _, _)| n == name) {
            Some((_, a, x)) => {
                x.add(c);
                if a != action {
                    *a = action.to_string();
                }
            }
            None => t.push((name.to_string(), action.to_string(), *c)),
        }
    }

    /// Counters by decision (rule names in the order of the policy in force, then
    /// `unclassified` and `default`, then names of rules a reload removed), with each one's
    /// action, of what the workers folded in ([`Actor::fold`]).
    pub fn totals(&self) -> Vec<(String, String, RuleCounters)> {
        let sh = self.shared();
        let t = match self.totals.lock() {
            Ok(t) => t.clone(),
            Err(p) => p.into_inner().clone(),
        };
        let p = &sh.policy;
        let mut out: Vec<(String, String, RuleCounters)> = p
            .rules
            .iter()
            .map(|r| (r.name.clone(), r.action.to_string()))
            .chain([
                ("unclassified".to_string(), p.unclassified.to_string()),
                ("default".to_string(), p.default.to_string()),
            ])
            .map(|(n, a)| {
                let c = t
                    .iter()
                    .find(|(m, _, _)| *m == n)
                    .map_or(RuleCounters::default(), |x| x.2);
                (n, a, c)
            })
            .collect();
        for (n, a, c) in t {
            if !out.iter().any(|(m, _, _)| *m == n) {
                out.push((n, format!("{a} (removed)"), c));
            }
        }
        out
    }
}

impl Shared {
    fn new(policy: Policy, generation: u64) -> Shared {
        let buckets = policy
            .rules
            .iter()
            .map(|r| match r.action {
                Action::RateLimit {
                    burst,
                    per_flow: false,
                    ..
                } => Some(Mutex::new(Bucket::full(burst, 0))),
                _ => None,
            })
            .collect();
        Shared {
            policy,
            buckets,
            generation,
        }
    }
}

/// One flow's state on the acting side.
#[derive(Clone, Copy, Debug, PartialEq)]
struct FlowAct {
    /// The flow's serial in its table (a slot reused by another flow is told by it); u64::MAX
    /// when the slot holds no flow.
    serial: u64,
    /// The decision, for this label, method and policy generation.
    decided: Decided,
    label: LabelId,
    method: Option<Method>,
    generation: u64,
    /// Decided since the flow's classification settled (its risks are then as complete as
    /// a policy will see them).
    settled: bool,
    /// Handed to the kernel.
    bound: bool,
    /// The code it was last handed over with (0: none).
    bound_code: u8,
    dropped_packets: u64,
    dropped_bytes: u64,
    bucket: Bucket,
}

const FREE: FlowAct = FlowAct {
    serial: u64::MAX,
    decided: Decided::Unclassified,
    label: LabelId::UNKNOWN,
    method: None,
    generation: 0,
    settled: false,
    bound: false,
    bound_code: 0,
    dropped_packets: 0,
    dropped_bytes: 0,
    bucket: Bucket::EMPTY,
};

/// What was done to a flow ([`Actor::end`], [`Actor::peek`]); [`Actor::describe`] names it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ended {
    decided: Decided,
    generation: u64,
    dropped_packets: u64,
    dropped_bytes: u64,
    bound: bool,
}

impl Ended {
    fn of(st: &FlowAct) -> Ended {
        Ended {
            decided: st.decided,
            generation: st.generation,
            dropped_packets: st.dropped_packets,
            dropped_bytes: st.dropped_bytes,
            bound: st.bound,
        }
    }
}

/// What a flow's record says about the action taken on it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlowOutcome<'a> {
    /// The decision's name (a rule's, `unclassified`, `default`).
    pub rule: &'a str,
    /// Its action (`forward`, `drop`, `mark`, `rate-limit`).
    pub action: &'static str,
    /// Packets of the flow dropped.
    pub dropped_packets: u64,
    /// Their IP bytes.
    pub dropped_bytes: u64,
    /// The flow was handed to the kernel (its later packets were not seen).
    pub bound: bool,
}

/// The flow a packet belongs to, as the actor needs it.
#[derive(Clone, Copy, Debug)]
pub struct FlowRef {
    /// Its slot in the worker's flow table.
    pub slot: u32,
    /// Its serial in the table.
    pub serial: u64,
    /// The verdict: label, method, confidence.
    pub verdict: Option<(LabelId, Method, f32)>,
    /// Classification will not change any more (payload inspection is done with the flow).
    pub settled: bool,
}

/// Policies remembered after a reload, to name what flows decided under them got.
const HISTORY: usize = 4;

/// One worker's acting state.
pub struct Actor {
    cell: Arc<PolicyCell>,
    shared: Arc<Shared>,
    /// The last few policies before this one, so a flow decided under one is named by its
    /// rules (a flow whose decision is older than these is named by the index's rule now).
    history: std::collections::VecDeque<Arc<Shared>>,
    counters: Vec<RuleCounters>,
    flows: Vec<FlowAct>,
    bypass: bool,
    /// Rate limits are the enforcer's ([`Enforce::rate_limits`]): hand them over, police
    /// nothing here.
    kernel_rates: bool,
    /// Flows whose slot lay beyond the state table (none when sized to the flow table).
    pub untracked: u64,
}

impl Actor {
    /// A worker's actor over `cell`'s policy, for a flow table of `slots` slots; `bypass`:
    /// hand flows whose action is final to the kernel.
    pub fn new(cell: Arc<PolicyCell>, slots: usize, bypass: bool) -> Actor {
        let shared = cell.shared();
        Actor {
            counters: vec![RuleCounters::default(); shared.policy.rules.len() + 2],
            shared,
            history: std::collections::VecDeque::new(),
            cell,
            flows: vec![FREE; slots],
            bypass,
            kernel_rates: false,
            untracked: 0,
        }
    }

    /// Rate limits are carried out by the enforcer (the eBPF data path's HTB classes): a
    /// rate-limited flow is handed over with its [`rate_code`] once final, like the other
    /// actions, and no packet is policed here (this actor sees copies; dropping one would do
    /// nothing and count a drop that did not happen).
    pub fn kernel_rates(&mut self) {
        self.kernel_rates = true;
    }

    /// Take a new policy if one was put in the cell (once per batch: one atomic load).
    #[inline]
    pub fn begin_batch(&mut self) {
        if self.cell.generation.load(Ordering::Acquire) != self.shared.generation {
            self.fold();
            let new = self.cell.shared();
            let old = std::mem::replace(&mut self.shared, new);
            if self.history.len() == HISTORY {
                self.history.pop_front();
            }
            self.history.push_back(old);
            self.counters = vec![RuleCounters::default(); self.shared.policy.rules.len() + 2];
        }
    }

    /// Fold this worker's counters into the cell's totals (and start them again from zero).
    pub fn fold(&mut self) {
        let p = &self.shared.policy;
        for (i, c) in self.counters.iter_mut().enumerate() {
            let d = index_decided(i, p.rules.len());
            self.cell.fold(p.name(d), p.action(d).as_str(), c);
            *c = RuleCounters::default();
        }
    }

    /// Decide one packet of `flow` (`ip_len` bytes, at `now_ns`); `facts` builds the flow's
    /// end-points when a decision must be (re)made.
    #[inline]
    pub fn packet(
        &mut self,
        flow: FlowRef,
        ip_len: u32,
        now_ns: u64,
        facts: impl FnOnce() -> FlowFacts,
    ) -> PacketAct {
        let Some(st) = self.flows.get_mut(flow.slot as usize) else {
            self.untracked += 1;
            return PacketAct::default();
        };
        if st.serial != flow.serial {
            *st = FlowAct {
                serial: flow.serial,
                bucket: Bucket::EMPTY,
                ..FREE
            };
        }
        let (label, method) = match flow.verdict {
            Some((l, m, _)) => (l, Some(m)),
            None => (LabelId::UNKNOWN, None),
        };
        let sh = &*self.shared;
        if st.generation != sh.generation
            || st.label != label
            || st.method != method
            || (flow.settled && !st.settled)
        {
            let mut f = facts();
            f.verdict = flow.verdict;
            let d = sh.policy.decide(&f);
            let first = st.generation == 0;
            if first || d != st.decided || st.generation != sh.generation {
                if let Some(c) = self
                    .counters
                    .get_mut(decided_index(d, sh.policy.rules.len()))
                {
                    c.flows += 1;
                }
                if let Action::RateLimit { burst, .. } = sh.policy.action(d) {
                    if d != st.decided || first {
                        st.bucket = Bucket::full(burst, now_ns);
                    }
                }
            }
            st.decided = d;
            st.label = label;
            st.method = method;
            st.generation = sh.generation;
            st.settled = flow.settled;
        }
        let action = sh.policy.action(st.decided);
        let ci = decided_index(st.decided, sh.policy.rules.len());
        let mut out = PacketAct::default();
        let pass = match action {
            Action::Forward => true,
            Action::Drop => false,
            Action::Mark(d) => {
                out.dscp = Some(d);
                true
            }
            Action::RateLimit { .. } if self.kernel_rates => true,
            Action::RateLimit {
                rate,
                burst,
                per_flow,
            } => {
                let cost = rate.cost(ip_len);
                if per_flow {
                    st.bucket.take(rate, burst, cost, now_ns)
                } else {
                    let b = match st.decided {
                        Decided::Rule(i) => sh.buckets.get(usize::from(i)).and_then(|b| b.as_ref()),
                        _ => None,
                    };
                    match b {
                        Some(b) => match b.lock() {
                            Ok(mut b) => b.take(rate, burst, cost, now_ns),
                            Err(p) => p.into_inner().take(rate, burst, cost, now_ns),
                        },
                        None => true,
                    }
                }
            }
        };
        out.drop = !pass;
        if !pass {
            st.dropped_packets += 1;
            st.dropped_bytes += u64::from(ip_len);
        }
        // Every packet of a settled flow that still comes here is handed over: the first, and
        // any of a connection the kernel keys apart from ours (another ICMP echo id on the same
        // pair of hosts, a connection tracked anew after its entry expired).
        let mut newly = false;
        if self.bypass && flow.settled {
            let code = match action {
                Action::RateLimit { .. } if self.kernel_rates => rate_code(ci),
                a => bind_code(a),
            };
            if let Some(code) = code {
                out.bind = code;
                newly = !st.bound;
                st.bound = true;
                out.bind_new = st.bound_code != code;
                st.bound_code = code;
            }
        }
        if let Some(c) = self.counters.get_mut(ci) {
            c.packets += 1;
            c.bytes += u64::from(ip_len);
            if !pass {
                c.dropped_packets += 1;
                c.dropped_bytes += u64::from(ip_len);
            }
            if pass && out.dscp.is_some() {
                c.marked += 1;
            }
            if newly {
                c.bound += 1;
            }
        }
        out
    }

    /// What was done so far to the flow in `slot` (serial `serial`), for an interim record.
    pub fn peek(&self, slot: u32, serial: u64) -> Option<Ended> {
        let st = self.flows.get(slot as usize)?;
        (st.serial == serial && st.generation != 0).then(|| Ended::of(st))
    }

    /// The flow in `slot` (serial `serial`) ends: what was done to it, and its state freed.
    pub fn end(&mut self, slot: u32, serial: u64) -> Option<Ended> {
        let st = self.flows.get_mut(slot as usize)?;
        if st.serial != serial || st.generation == 0 {
            return None;
        }
        let e = Ended::of(st);
        *st = FREE;
        Some(e)
    }

    /// What a flow's record says of `e`: the rule and action of the policy it was decided
    /// under (a flow that had a packet after a reload was decided again then; one whose policy
    /// is older than the last few reloads is named by the rule of the same index now).
    pub fn describe(&self, e: &Ended) -> FlowOutcome<'_> {
        let p = &self
            .history
            .iter()
            .find(|s| s.generation == e.generation)
            .unwrap_or(&self.shared)
            .policy;
        FlowOutcome {
            rule: p.name(e.decided),
            action: p.action(e.decided).as_str(),
            dropped_packets: e.dropped_packets,
            dropped_bytes: e.dropped_bytes,
            bound: e.bound,
        }
    }

    /// This worker's counters so far (since its last fold), by decision index: rules in
    /// order, then `unclassified`, then `default`.
    pub fn counters(&self) -> &[RuleCounters] {
        &self.counters
    }

    /// The policy this worker acts on.
    pub fn policy(&self) -> &Policy {
        &self.shared.policy
    }
}

fn decided_index(d: Decided, rules: usize) -> usize {
    match d {
        Decided::Rule(i) => usize::from(i),
        Decided::Unclassified => rules,
        Decided::Default => rules + 1,
    }
}

fn index_decided(i: usize, rules: usize) -> Decided {
    if i < rules {
        Decided::Rule(i as u16)
    } else if i == rules {
        Decided::Unclassified
    } else {
        Decided::Default
    }
}

#[cfg(test)]
mod tests;
