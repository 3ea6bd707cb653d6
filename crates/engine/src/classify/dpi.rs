//! Payload inspection as a classifier ([`wirespeed_dpi`]): every packet with payload is shown to
//! the inspectors until they decide; the verdict, and a finer one later (STUN, then DTLS), is
//! offered to the arbiter, and the fact that every inspector ruled the flow out is published.
//! The inspectors' state lives in the worker's [`Dpi`] pools; the flow slot keeps a `u32`
//! handle.

use super::{Classifier, Decide, FlowView, PacketView};
use crate::expect::Expectations;
use crate::rules::Rules;
use std::sync::Arc;
use wirespeed_classify::arbiter::{name_payload, DPI_CONFIDENCE};
use wirespeed_classify::hosts::NameMemo;
use wirespeed_classify::{Facts, Method, Verdict};
use wirespeed_dpi::{Dpi, Packet};
use wirespeed_export::META_COUNT;

/// Payload inspection of one worker.
pub struct DpiClassifier {
    pub(crate) dpi: Dpi,
    rules: Arc<Rules>,
    /// The host names this worker looked up in `rules` and what they matched: made with
    /// `rules`, to be made afresh with any other.
    names: NameMemo,
    enabled: bool,
    /// Connections announced by flows (FTP data), shared by the run's workers
    /// ([`crate::expect`]); the worker's own until the pool hands it the run's.
    pub(crate) expect: Arc<Expectations>,
    /// This worker's number among those sharing `expect`.
    pub(crate) me: usize,
}

impl DpiClassifier {
    /// This worker has run every packet of its own numbered below `upto` ([`crate::expect`]).
    #[inline]
    pub(crate) fn progress(&self, upto: u64) {
        self.expect.progress(self.me, upto);
    }

    /// A payload verdict that is a protocol alone (`TLS`) becomes the service its host name
    /// belongs to (`TLS.YouTube`, [`Rules::name_by_host`]), keeping its time to bind: at most
    /// once per flow, a verdict so named is no longer a protocol alone. Only the flow's verdict
    /// if it is payload inspection's own ([`wirespeed_classify::FlowClass::own`]).
    #[inline]
    fn name_by_host(&mut self, handle: u32, d: &mut Decide<'_>) {
        let Some(v) = d.class().own(Method::Dpi) else {
            return;
        };
        let Some(meta) = self.dpi.meta(handle) else {
            return;
        };
        if let Some(label) = self.rules.name_by_host(v.label, meta, &mut self.names) {
            d.refine(Verdict { label, ..v });
        }
    }

    /// The flow with `handle` gave its context to another flow (a full pool,
    /// [`wirespeed_dpi::DpiConfig::reclaim_ns`]): it is inspected no further, and its record
    /// takes no metadata (it had none).
    #[inline]
    pub(crate) fn lost(&self, handle: &mut u32) {
        *handle = wirespeed_dpi::DONE;
    }

    /// The metadata the flow with `handle` holds, by [`wirespeed_export::META_FIELDS`] index
    /// ("": not seen). A fact of the flow rather than a field this classifier fills: its risks
    /// are judged from it, and its record takes it from there
    /// ([`crate::observe::risks::FlowFacts`]).
    #[inline(always)]
    pub(crate) fn meta(&self, handle: &u32) -> [&str; META_COUNT] {
        let mut out = [""; META_COUNT];
        self.fill_meta(handle, &mut out);
        out
    }

    /// [`DpiClassifier::meta`] written into `out` (all "" before), where it will stay: a
    /// record's array, not 528 bytes returned and moved twice.
    #[inline(always)]
    pub(crate) fn fill_meta<'s>(&'s self, handle: &u32, out: &mut [&'s str; META_COUNT]) {
        if let Some(m) = self.dpi.meta(*handle) {
            for (f, v) in m.iter() {
                if let Some(slot) = out.get_mut(f as usize) {
                    *slot = v;
                }
            }
        }
    }
}

impl Classifier for DpiClassifier {
    /// The flow's handle into the pools (0 none yet; see [`wirespeed_dpi::is_done`]).
    type State = u32;

    fn new(cfg: &super::Env<'_>) -> Self {
        let mut dpi = Dpi::new(*cfg.dpi, cfg.rules.dpi().clone());
        // The inspectors of the statistical model's classes, so that a flow whose payload all
        // of them turned away is not named by the model.
        dpi.watch(cfg.rules.model_inspectors());
        DpiClassifier {
            dpi,
            rules: cfg.rules.clone(),
            names: NameMemo::default(),
            enabled: cfg.classifiers.has(Method::Dpi),
            expect: Arc::new(Expectations::new()),
            me: 0,
        }
    }

    /// Inspection over (or off): every later packet is turned away at the first test.
    #[inline]
    fn quiet(&self, _: &FlowView<'_>, handle: &u32, _: &wirespeed_classify::FlowClass) -> bool {
        !self.enabled || wirespeed_dpi::is_done(*handle)
    }

    #[inline]
    fn packet(
        &mut self,
        flow: &FlowView<'_>,
        p: &PacketView<'_>,
        handle: &mut u32,
        d: &mut Decide<'_>,
    ) {
        if !self.enabled || p.payload.is_empty() || wirespeed_dpi::is_done(*handle) {
            return;
        }
        let server = flow.server();
        let server_ip = flow.key.ip(server);
        let client_ip = flow.key.ip(flow.client);
        if *handle == wirespeed_dpi::NO_HANDLE && flow.key.proto == 6 {
            // A connection another flow announced (an FTP data connection): named by that
            // announcement, whatever its payload looks like, and not inspected.
            let port = flow.server_port();
            if let Some(label) = self
                .expect
                .take(self.me, client_ip, server_ip, port, p.ts, p.ordinal)
            {
                let v = Verdict {
                    label,
                    method: Method::Dpi,
                    confidence: DPI_CONFIDENCE,
                    ttb_pkts: flow.total_pkts().min(u32::MAX as u64) as u32,
                    ttb_ns: p.ts.saturating_sub(flow.first_ts),
                };
                // Named by the announcement: it joins nothing learned.
                d.check_learned(v, false, |_, _| None);
                *handle = wirespeed_dpi::DONE;
                return;
            }
        }
        let pkt = Packet {
            ip_proto: flow.key.proto,
            server_port: flow.server_port(),
            client_port: flow.client_port(),
            from_client: p.side == flow.client,
            seq: p.seq,
            multicast: match server_ip {
                std::net::IpAddr::V4(a) => {
                    a.is_multicast() || a.is_broadcast() || a.octets()[3] == 255
                }
                std::net::IpAddr::V6(a) => a.is_multicast(),
            },
            server_ip,
            client_ip,
            payload: p.payload,
            ts: p.ts,
            flow: flow.serial,
            owner: p.slot,
        };
        if let Some(label) = self.dpi.inspect(handle, &pkt) {
            // The packet that names the protocol usually carries the name (ClientHello, request,
            // query): the service, at the same packet; or STUN (and the DTLS after it) to a
            // calling application's relay: its call (the arbiter's order, [`name_payload`]).
            let meta = self.dpi.meta(*handle);
            let rules = &*self.rules;
            let names = &mut self.names;
            let (label, own_unknown) = name_payload(
                label,
                || meta.and_then(|m| rules.name_by_host(label, m, names)),
                || meta.is_some_and(|m| rules.carries_name(label, m)),
                || rules.call_by_owner(label, server_ip, flow.server_port()),
            );
            let v = Verdict {
                label,
                method: Method::Dpi,
                confidence: DPI_CONFIDENCE,
                ttb_pkts: flow.total_pkts().min(u32::MAX as u64) as u32,
                ttb_ns: p.ts.saturating_sub(flow.first_ts),
            };
            // Over a learned verdict: confirmed (and completed: `TLS` and `YouTube` make
            // `TLS.YouTube`) or corrected.
            d.check_learned(v, own_unknown, |learned, payload| {
                rules.join(learned, payload)
            });
        }
        if let Some((e, label)) = self.dpi.take_expect() {
            self.expect.add(e, label, p.ts, p.ordinal);
        }
        // Inspection ends by exclusion only on a packet that ends it: the one place to look.
        if wirespeed_dpi::is_done(*handle) && self.dpi.ruled_out(*handle) {
            d.publish(Facts::PAYLOAD_RULED_OUT);
        }
        if self.dpi.take_watched_out() {
            d.publish(Facts::MODEL_RULED_OUT);
        }
    }

    /// A name seen after the verdict (a ClientHello over two QUIC Initials): the service, at
    /// the flow's end.
    #[inline]
    fn end(&mut self, _: &FlowView<'_>, handle: &mut u32, d: &mut Decide<'_>) {
        if self.enabled {
            self.name_by_host(*handle, d);
        }
    }

    #[inline]
    fn release(&mut self, handle: &mut u32) {
        self.dpi.release(handle);
    }
}

const _: () = assert!(META_COUNT == wirespeed_dpi::Field::COUNT);

#[cfg(test)]
mod tests {
    use crate::gen::{FrameBuilder, L4};
    use crate::{EngineConfig, Worker};
    use serde_json::Value;
    use wirespeed_capture::RawPacket;
    use wirespeed_dpi::Field;
    use wirespeed_export::{JsonLinesWriter, META_FIELDS};

    /// A DNS query for www.example.org (type A), as a resolver sends it.
    fn dns_query() -> Vec<u8> {
        let mut q = vec![0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0];
        for label in ["www", "example", "org"] {
            q.push(label.len() as u8);
            q.extend_from_slice(label.as_bytes());
        }
        q.extend_from_slice(&[0, 0, 1, 0, 1]);
        q
    }

    /// A pool of four contexts filled by four flows of 18 zero bytes (a flood no inspector can
    /// name: each leaves inspectors unsure, as the worst case's flows do), then, `later_ns`
    /// after, a DNS query, then the first junk flow once more. The records by client port and
    /// the payload-inspection counters.
    fn flood_then_query(reclaim_ns: u64, later_ns: u64) -> (Vec<Value>, wirespeed_dpi::DpiStats) {
        let mut cfg = EngineConfig::default();
        cfg.dpi.contexts = 4;
        cfg.dpi.reclaim_ns = reclaim_ns;
        let mut w = Worker::new(cfg, JsonLinesWriter::new(Vec::new(), false), false);
        let b = FrameBuilder { vlan: 0 };
        let zeros = [0u8; 18];
        let junk = |i: u16| {
            let l4 = L4::Udp {
                sport: 40_000 + i,
                dport: 1080 + i,
                payload: &zeros,
            };
            b.ipv4([192, 0, 2, 1], [198, 51, 100, 1], &l4)
        };
        let query = dns_query();
        let dns = b.ipv4(
            [192, 0, 2, 2],
            [198, 51, 100, 53],
            &L4::Udp {
                sport: 50_000,
                dport: 53,
                payload: &query,
            },
        );
        let t0 = 1_700_000_000_000_000_000u64;
        let mut frames: Vec<(u64, Vec<u8>)> =
            (0..4).map(|i| (t0 + u64::from(i), junk(i))).collect();
        frames.push((t0 + later_ns, dns));
        frames.push((t0 + later_ns + 1_000_000, junk(0)));
        let batch: Vec<RawPacket<'_>> = frames
            .iter()
            .map(|(ts, f)| RawPacket::ethernet(*ts, f))
            .collect();
        w.process_batch(&batch).unwrap();
        let stats = w.counters().dpi;
        let out = String::from_utf8(w.finish().unwrap().into_inner().unwrap()).unwrap();
        let mut recs: Vec<Value> = out
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        recs.sort_by_key(|r| r["src_port"].as_u64());
        (recs, stats)
    }

    /// With every context held for the reclaim time by flows with nothing decided, a new flow
    /// takes the one held longest and is inspected (the query named, with its name); the flow
    /// that gave it up is inspected no further, and its record takes none of the new flow's
    /// metadata (its handle was set aside: a stale one would read the query's, or free the
    /// context under it). Before the reclaim time, or with it 0, the new flow is not inspected,
    /// as before.
    #[test]
    fn a_full_pool_gives_an_undecided_flows_context_to_a_new_flow() {
        let second = 1_000_000_000;
        let (recs, st) = flood_then_query(second, 2 * second);
        assert_eq!(recs.len(), 5, "{recs:?}");
        let query = recs.iter().find(|r| r["src_port"] == 50_000).unwrap();
        assert_eq!(query["method"], "dpi", "{query}");
        assert_eq!(query["master"], "DNS", "{query}");
        assert_eq!(query["dns_query"], "www.example.org", "{query}");
        assert_eq!((st.reclaimed, st.no_context), (1, 0), "{st:?}");
        let victim = recs.iter().find(|r| r["src_port"] == 40_000).unwrap();
        assert_eq!(victim["c2s_pkts"], 2, "{victim}");
        assert!(victim["dns_query"].is_null(), "{victim}");
        assert_ne!(victim["method"], "dpi", "{victim}");
        // The others kept theirs.
        assert_eq!(st.flows, 5, "{st:?}");

        for (reclaim, later) in [(second, second / 2), (0, 2 * second)] {
            let (recs, st) = flood_then_query(reclaim, later);
            let query = recs.iter().find(|r| r["src_port"] == 50_000).unwrap();
            assert_ne!(query["method"], "dpi", "{reclaim} {later}: {query}");
            assert!(query["dns_query"].is_null(), "{query}");
            assert_eq!((st.reclaimed, st.no_context), (0, 1), "{st:?}");
        }
    }

    /// The parser crate and the record agree on the metadata fields and their order.
    #[test]
    fn metadata_names_match_the_record() {
        let names: Vec<&str> = Field::ALL.iter().map(|f| f.name()).collect();
        assert_eq!(names, META_FIELDS);
    }
}
