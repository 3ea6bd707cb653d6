//! What earlier flows taught, as a classifier: at a flow's first packet, the Host Cache's rule
//! for its server end-point (`method: "host-cache"`, seed 002), the service a DNS answer named
//! its server's address for (`method: "dns-cache"`) and the Dedicated Port Table's hint
//! (`method: "dpt"`), each looked up only while the arbiter would take its verdict
//! ([`super::Decide::would_take`]: ranks and confidences are the arbiter's,
//! [`wirespeed_classify::arbiter::RANKING`]). Payload inspection, where enabled, still runs and
//! confirms or corrects the verdict ([`super::Decide::check_learned`]).
//!
//! It also takes the lessons: every UDP response from port 53 is read for its answers (the
//! question's name or a CNAME target that a host rule knows names each A/AAAA address, for the
//! answer's TTL), and every flow payload inspection labels (or confirms) is one flow of its
//! server end-point for the Host Cache. Lessons are published by the run's [`crate::learn`]
//! hub at epochs of capture time, identically for one worker or many.
//!
//! Cost: one read lock and at most two hash probes per new flow; per packet, a flag test (and
//! the answer parse on DNS responses).

use super::{Classifier, Decide, FlowView, PacketView};
use crate::learn::{Learner, Obs};
use crate::rules::Rules;
use std::net::IpAddr;
use std::sync::Arc;
use wirespeed_classify::arbiter::{DNS_CACHE_CONFIDENCE, DPT_CONFIDENCE, HOST_CACHE_CONFIDENCE};
use wirespeed_classify::hostcache::Endpoint;
use wirespeed_classify::hosts::AppId;
use wirespeed_classify::{Facts, Method, Verdict};
use wirespeed_dpi::proto::dns::{answers, AnswerSink, MAX_ANSWERS};

/// The learned classifiers of one worker.
pub struct LearnedClassifier {
    pub(crate) learner: Learner,
    rules: Arc<Rules>,
    /// The DNS cache learns from answers.
    dns: bool,
    /// Any learned method is enabled.
    any: bool,
    /// The Host Cache and the Dedicated Port Table learn from payload verdicts: only when
    /// inspection runs.
    learn_flows: bool,
    /// The input's clock at the packet being processed.
    clk: u64,
}

impl LearnedClassifier {
    /// The input's clock is `clk` (before each packet, and when the clock moves without one).
    #[inline]
    pub(crate) fn tick(&mut self, clk: u64) {
        self.clk = clk;
        self.learner.tick(clk);
    }

    /// [`crate::learn::Learner::due`].
    #[inline(always)]
    pub(crate) fn due(&self, clk: u64) -> bool {
        self.learner.due(clk)
    }
}

/// A response's answers: the first name a host rule knows, and the addresses.
struct Answers<'r> {
    rules: &'r Rules,
    app: Option<AppId>,
    addrs: [(IpAddr, u32); MAX_ANSWERS],
    n: usize,
}

impl AnswerSink for Answers<'_> {
    fn name(&mut self, name: &[u8]) {
        if self.app.is_none() {
            self.app = self.rules.app_by_name(name);
        }
    }

    fn addr(&mut self, addr: IpAddr, ttl: u32) {
        if let Some(slot) = self.addrs.get_mut(self.n) {
            *slot = (addr, ttl);
            self.n += 1;
        }
    }
}

impl Classifier for LearnedClassifier {
    type State = ();

    fn new(cfg: &super::Env<'_>) -> Self {
        let dns = cfg.classifiers.has(Method::DnsCache);
        let hosts = cfg.classifiers.has(Method::HostCache);
        let dpt = cfg.classifiers.has(Method::Dpt);
        // The link model's lessons cross epochs too (`--learn-stats`).
        let stats = super::stats::learns(cfg);
        LearnedClassifier {
            learner: Learner::new(
                crate::learn::Hub::new(*cfg.learn, cfg.classifiers, 1),
                0,
                !(dns || hosts || dpt || stats),
            ),
            rules: cfg.rules.clone(),
            dns,
            any: dns || hosts || dpt,
            learn_flows: (hosts || dpt) && cfg.classifiers.has(Method::Dpi),
            clk: 0,
        }
    }

    #[inline]
    fn start(&mut self, flow: &FlowView<'_>, _: &mut (), d: &mut Decide<'_>) {
        if !self.any {
            return;
        }
        let server = flow.server();
        let ip = flow.key.ip(server);
        let ep = Endpoint {
            ip,
            port: flow.server_port(),
            proto: flow.key.proto,
        };
        let l = self.learner.hub.read();
        if d.would_take(Method::HostCache) && !l.hosts.is_empty() {
            if let Some(label) = l.hosts.get(&ep, self.clk) {
                d.offer(Verdict {
                    label,
                    method: Method::HostCache,
                    confidence: HOST_CACHE_CONFIDENCE,
                    ttb_pkts: 1,
                    ttb_ns: 0,
                });
            }
        }
        if d.would_take(Method::DnsCache) && !l.dns.is_empty() {
            if let Some(app) = l.dns.get(ip, self.clk) {
                d.offer(Verdict {
                    label: self.rules.app_label(app),
                    method: Method::DnsCache,
                    confidence: DNS_CACHE_CONFIDENCE,
                    ttb_pkts: 1,
                    ttb_ns: 0,
                });
            }
        }
        if d.would_take(Method::Dpt) && !l.dpt.is_empty() {
            let client = Endpoint {
                ip: flow.key.ip(flow.client),
                port: flow.client_port(),
                proto: flow.key.proto,
            };
            if let Some(label) = l.dpt.verdict(&ep, &client, self.clk) {
                d.offer(Verdict {
                    label,
                    method: Method::Dpt,
                    confidence: DPT_CONFIDENCE,
                    ttb_pkts: 1,
                    ttb_ns: 0,
                });
            }
        }
    }

    /// Nothing left to teach (a lesson comes from payload inspection's verdict, and the stage
    /// asks this only once inspection, listed before, is over too) and no DNS answers to read:
    /// a flow with port 53 on UDP stays watched whichever side answers.
    #[inline]
    fn quiet(&self, flow: &FlowView<'_>, _: &(), class: &wirespeed_classify::FlowClass) -> bool {
        (!self.learn_flows || class.lesson().is_none())
            && !(self.dns && flow.key.proto == 17 && flow.key.port.contains(&53))
    }

    #[inline]
    fn packet(&mut self, flow: &FlowView<'_>, p: &PacketView<'_>, _: &mut (), d: &mut Decide<'_>) {
        // Once per flow, at the packet its payload verdict (or confirmation) is reached.
        let lesson = if self.learn_flows {
            d.class().lesson()
        } else {
            None
        };
        if let Some(label) = lesson {
            d.publish(Facts::TAUGHT);
            let at = |side: wirespeed_flow::Side| Endpoint {
                ip: flow.key.ip(side),
                port: flow.key.port[side.index()],
                proto: flow.key.proto,
            };
            self.learner.note(
                self.clk,
                Obs::Flow {
                    ep: at(flow.server()),
                    client: at(flow.client),
                    label,
                },
            );
        }
        // A DNS response over UDP: what its answers name.
        if self.dns
            && !p.payload.is_empty()
            && flow.key.proto == 17
            && p.side != flow.client
            && flow.key.port[p.side.index()] == 53
        {
            let mut a = Answers {
                rules: &self.rules,
                app: None,
                addrs: [(IpAddr::from([0u8; 4]), 0); MAX_ANSWERS],
                n: 0,
            };
            // A damaged response teaches nothing, not even its first answers.
            if !answers(p.payload, &mut a) {
                return;
            }
            if let Some(app) = a.app {
                for &(addr, ttl) in &a.addrs[..a.n] {
                    self.learner.note(self.clk, Obs::Dns { addr, app, ttl });
                }
            }
        }
    }
}
