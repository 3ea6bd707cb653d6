use super::*;
use std::net::{IpAddr, Ipv4Addr};
use wirespeed_classify::risk::RiskSet;
use wirespeed_classify::{Breed, Labels};

fn labels() -> (Labels, LabelId, LabelId, LabelId) {
    let mut l = Labels::new();
    let http = l.intern("HTTP", "HTTP", "Web", Breed::Acceptable).unwrap();
    let yt = l.intern("TLS", "YouTube", "Media", Breed::Fun).unwrap();
    let bt = l
        .intern("BitTorrent", "BitTorrent", "Download", Breed::Acceptable)
        .unwrap();
    (l, http, yt, bt)
}

fn facts(v: Option<(LabelId, Method, f32)>) -> FlowFacts {
    FlowFacts {
        verdict: v,
        risks: Default::default(),
        proto: 6,
        src: (IpAddr::V4(Ipv4Addr::new(192, 0, 2, 1)), 40000),
        dst: (IpAddr::V4(Ipv4Addr::new(198, 51, 100, 7)), 443),
    }
}

#[test]
fn first_match_wins_and_fall_backs() {
    let (l, http, yt, bt) = labels();
    let p = Policy::from_toml(
        r#"
        [[rule]]
        name = "torrent"
        app = "bittorrent"
        action = "drop"

        [[rule]]
        category = ["Media", "Download"]
        action = "mark"
        dscp = "AF41"

        [[rule]]
        master = "TLS"
        action = "drop"
        "#,
        &l,
    )
    .unwrap();
    let d = |v| p.decide(&facts(v));
    assert_eq!(
        d(Some((bt, Method::Dpi, 1.0))),
        Decided::Rule(0),
        "the first rule, though the second matches too"
    );
    // YouTube is TLS too: the earlier rule wins.
    assert_eq!(d(Some((yt, Method::Dpi, 1.0))), Decided::Rule(1));
    assert_eq!(p.action(Decided::Rule(1)), Action::Mark(34));
    assert_eq!(d(Some((http, Method::Dpi, 1.0))), Decided::Default);
    assert_eq!(d(None), Decided::Unclassified);
    // A port guess is not a label a rule acts on, unless it says so.
    assert_eq!(d(Some((bt, Method::Port, 0.2))), Decided::Unclassified);
    assert_eq!(p.name(Decided::Rule(1)), "rule-2");
}

#[test]
fn methods_confidence_and_end_points() {
    let (l, http, _, bt) = labels();
    let p = Policy::from_toml(
        r#"
        [[rule]]
        app = "BitTorrent"
        method = ["port", "dpi"]
        action = "drop"

        [[rule]]
        dst = "198.51.100.0/24"
        dst_port = ["80", "400-450"]
        proto = "tcp"
        action = "rate-limit"
        rate = "1mbit"
        per = "flow"

        [[rule]]
        app = "HTTP"
        min_confidence = 0.9
        action = "drop"
        "#,
        &l,
    )
    .unwrap();
    assert_eq!(
        p.decide(&facts(Some((bt, Method::Port, 0.2)))),
        Decided::Rule(0)
    );
    // No label condition: unnamed flows match too.
    assert_eq!(p.decide(&facts(None)), Decided::Rule(1));
    let mut f = facts(Some((http, Method::Stats, 0.85)));
    f.dst.1 = 8080;
    assert_eq!(p.decide(&f), Decided::Default);
    f.verdict = Some((http, Method::Dpi, 0.95));
    assert_eq!(p.decide(&f), Decided::Rule(2));
    f.proto = 17;
    f.dst.1 = 443;
    assert_eq!(p.decide(&f), Decided::Rule(2));
}

#[test]
fn errors_name_the_rule_and_the_fix() {
    let (l, ..) = labels();
    let e = |t: &str| Policy::from_toml(t, &l).unwrap_err().to_string();
    assert!(e("[[rule]]\napp = \"Netflx\"\naction = \"drop\"")
        .contains("rule 1 (rule-1): app \"Netflx\""));
    assert!(e("[[rule]]\napp = \"HTTP\"\naction = \"mark\"").contains("needs `dscp`"));
    assert!(e("[[rule]]\napp = \"HTTP\"\naction = \"mark\"\ndscp = 64").contains("0-63"));
    assert!(
        e("[[rule]]\napp = \"HTTP\"\naction = \"rate-limit\"\nrate = \"fast\"")
            .contains("rate \"fast\"")
    );
    assert!(e("[[rule]]\napp = \"HTTP\"\naction = \"drop\"\ndscp = 3").contains("no parameters"));
    assert!(e("[[rule]]\napp = \"HTTP\"\naction = \"explode\"").contains("one of forward"));
    assert!(e("[[rule]]\napp = \"HTTP\"\naction = \"drop\"\ncolour = 1").contains("colour"));
    assert!(e("[[rule]]\ndst = \"198.51.100.0/33\"\naction = \"drop\"").contains("dst"));
    assert!(e("[[rule]]\ndst_port = \"9-1\"\naction = \"drop\"").contains("dst_port"));
    assert!(e("[[rule]]\nmethod = \"magic\"\naction = \"drop\"").contains("method \"magic\""));
    assert!(
        e("[[rule]]\nname=\"a\"\naction=\"drop\"\n[[rule]]\nname=\"a\"\naction=\"drop\"")
            .contains("used twice")
    );
    assert!(e("unclassified = \"nuke\"").contains("unclassified"));
    assert!(e("[[rule]]\nbreed = \"Evil\"\naction = \"drop\"").contains("breed \"Evil\""));
}

fn flow(slot: u32, serial: u64, v: Option<(LabelId, Method, f32)>, settled: bool) -> FlowRef {
    FlowRef {
        slot,
        serial,
        verdict: v,
        settled,
    }
}

#[test]
fn actor_drops_after_the_verdict_and_counts() {
    let (l, http, ..) = labels();
    let cell = PolicyCell::new(
        Policy::from_toml(
            "[[rule]]\nname=\"no-web\"\napp=\"HTTP\"\naction=\"drop\"",
            &l,
        )
        .unwrap(),
    );
    let mut a = Actor::new(cell.clone(), 8, true);
    a.begin_batch();
    // Handshake: unnamed, forwarded.
    for _ in 0..3 {
        assert_eq!(
            a.packet(flow(3, 7, None, false), 60, 1, || facts(None)),
            PacketAct::default()
        );
    }
    // The request names it: dropped from this packet on.
    let v = Some((http, Method::Dpi, 1.0));
    let p = a.packet(flow(3, 7, v, false), 500, 2, || facts(None));
    assert!(p.drop);
    assert_eq!(p.bind, 0);
    // Settled: handed to the kernel once.
    let p = a.packet(flow(3, 7, v, true), 100, 3, || facts(None));
    assert!(p.drop);
    assert_eq!(p.bind, 2);
    // Still here: the kernel keys it apart (another connection): handed over again, counted once.
    let p = a.packet(flow(3, 7, v, true), 100, 4, || facts(None));
    assert_eq!(p.bind, 2);
    let e = a.end(3, 7).unwrap();
    let o = a.describe(&e);
    assert_eq!(o.rule, "no-web");
    assert_eq!(o.action, "drop");
    assert_eq!((o.dropped_packets, o.dropped_bytes), (3, 700));
    assert!(o.bound);
    assert!(a.end(3, 7).is_none(), "freed");
    a.fold();
    let t = cell.totals();
    assert_eq!(t[0].0, "no-web");
    assert_eq!(t[0].2.dropped_packets, 3);
    assert_eq!(t[0].2.flows, 1);
    assert_eq!(t[1].0, "unclassified");
    assert_eq!(t[1].2.packets, 3);
}

#[test]
fn a_reused_slot_is_a_new_flow() {
    let (l, http, ..) = labels();
    let cell =
        PolicyCell::new(Policy::from_toml("[[rule]]\napp=\"HTTP\"\naction=\"drop\"", &l).unwrap());
    let mut a = Actor::new(cell, 4, false);
    let v = Some((http, Method::Dpi, 1.0));
    assert!(a.packet(flow(1, 1, v, true), 100, 1, || facts(None)).drop);
    // Another flow in slot 1 (the first ended without a record): its own state.
    assert!(
        !a.packet(flow(1, 2, None, false), 100, 2, || facts(None))
            .drop
    );
    let e = a.end(1, 2).unwrap();
    assert_eq!(a.describe(&e).dropped_packets, 0);
    // Slots beyond the table are counted, never indexed.
    assert_eq!(
        a.packet(flow(9, 1, v, true), 1, 1, || facts(None)),
        PacketAct::default()
    );
    assert_eq!(a.untracked, 1);
}

#[test]
fn reload_keeps_counters_by_name_and_flows_take_the_new_rule() {
    let (l, http, ..) = labels();
    let cell = PolicyCell::new(
        Policy::from_toml(
            "[[rule]]\nname=\"web\"\napp=\"HTTP\"\naction=\"forward\"",
            &l,
        )
        .unwrap(),
    );
    let mut a = Actor::new(cell.clone(), 4, false);
    let v = Some((http, Method::Dpi, 1.0));
    a.begin_batch();
    assert!(!a.packet(flow(0, 1, v, true), 100, 1, || facts(None)).drop);
    // Another flow, decided before the reload and ending after it without another packet.
    assert!(!a.packet(flow(1, 2, v, true), 100, 1, || facts(None)).drop);
    cell.replace(
        Policy::from_toml(
            "[[rule]]\nname=\"new\"\nmaster=\"TLS\"\naction=\"drop\"\n[[rule]]\nname=\"web\"\napp=\"HTTP\"\naction=\"mark\"\ndscp=\"CS1\"",
            &l,
        )
        .unwrap(),
    );
    a.begin_batch();
    let p = a.packet(flow(0, 1, v, true), 100, 2, || facts(None));
    assert_eq!(p.dscp, Some(8));
    let e = a.end(1, 2).unwrap();
    let o = a.describe(&e);
    assert_eq!(
        (o.rule, o.action),
        ("web", "forward"),
        "what it got, not what the rule does now"
    );
    let e = a.end(0, 1).unwrap();
    assert_eq!(a.describe(&e).action, "mark");
    a.fold();
    let t = cell.totals();
    assert_eq!(t[0].0, "new");
    assert_eq!(t[1].0, "web");
    assert_eq!(t[1].1, "mark dscp 8");
    assert_eq!(
        t[1].2.packets, 3,
        "the rule's counters went on across the reload"
    );
    assert_eq!(t[1].2.marked, 1);
}

#[test]
fn shared_bucket_polices_all_the_rules_flows() {
    let (l, ..) = labels();
    // 80 kbit/s = 10 kB/s, burst 1,000 bytes... and the default burst floor of two packets.
    let cell = PolicyCell::new(
        Policy::from_toml(
            "[[rule]]\nproto=\"tcp\"\naction=\"rate-limit\"\nrate=\"80kbit\"\nburst=\"8kbit\"",
            &l,
        )
        .unwrap(),
    );
    let mut a = Actor::new(cell, 4, true);
    let mut passed = 0u64;
    // Two flows, each offering 1,000-byte packets every ms for 2 s (2 MB/s together).
    for i in 0..2000u64 {
        for s in 0..2u32 {
            let p = a.packet(
                flow(s, u64::from(s), None, true),
                1000,
                1_000_000_000 + i * 1_000_000,
                || facts(None),
            );
            assert_eq!(p.bind, 0, "rate limits stay in user space");
            if !p.drop {
                passed += 1000;
            }
        }
    }
    // 2 s at 10 kB/s plus the 1 kB burst.
    assert!((19_000..=21_000).contains(&passed), "{passed}");
}

/// The per-flow state is allocated for every slot of the flow table in inline runs: its size is
/// a choice (DESIGN.md says 64 bytes).
#[test]
fn flow_state_stays_small() {
    assert!(
        std::mem::size_of::<super::FlowAct>() <= 64,
        "{}",
        std::mem::size_of::<super::FlowAct>()
    );
}

#[test]
fn risks_match_any_of_the_rule_s_and_are_read_again_once_settled() {
    let (l, http, ..) = labels();
    let p = Policy::from_toml(
        r#"
        [[rule]]
        name = "old-tls"
        risk = ["Obsolete TLS (v1.1 or older)", "TLS Cert Expired"]
        action = "drop"
        "#,
        &l,
    )
    .unwrap();
    let with = |names: &str| FlowFacts {
        risks: RiskSet::parse(names).unwrap(),
        ..facts(Some((http, Method::Dpi, 1.0)))
    };
    assert_eq!(p.decide(&with("TLS Cert Expired")), Decided::Rule(0));
    assert_eq!(
        p.decide(&with("Missing SNI TLS Extn;Obsolete TLS (v1.1 or older)")),
        Decided::Rule(0)
    );
    assert_eq!(p.decide(&with("Missing SNI TLS Extn")), Decided::Default);
    assert_eq!(
        p.decide(&facts(Some((http, Method::Dpi, 1.0)))),
        Decided::Default
    );
    // The actor asks again when the flow settles: a risk the last packets revealed counts.
    let cell = PolicyCell::new(p);
    let mut a = Actor::new(cell, 4, false);
    a.begin_batch();
    let v = Some((http, Method::Dpi, 1.0));
    assert!(!a.packet(flow(1, 1, v, false), 100, 1, || facts(v)).drop);
    let mut asked = false;
    let out = a.packet(flow(1, 1, v, false), 100, 2, || {
        asked = true;
        with("TLS Cert Expired")
    });
    assert!(!asked && !out.drop, "the same label: not decided again");
    assert!(
        a.packet(flow(1, 1, v, true), 100, 3, || with("TLS Cert Expired"))
            .drop
    );
}

#[test]
fn risk_conditions_are_checked() {
    let (l, ..) = labels();
    let e = |t: &str| Policy::from_toml(t, &l).unwrap_err().to_string();
    assert!(e("[[rule]]\nrisk = \"Evil\"\naction = \"drop\"").contains("risk \"Evil\""));
    let end = e("[[rule]]\nrisk = \"Unidirectional Traffic\"\naction = \"drop\"");
    assert!(end.contains("only when the flow ends"), "{end}");
}
