use super::*;
use std::net::{IpAddr, Ipv4Addr};
use std::path::Path;
use wirespeed_classify::{Breed, Labels};
use wirespeed_risk::RiskSet;

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
    assert!(p.bind_new, "an enforcer is told at the hand-over");
    assert_eq!(bound_action(p.bind), Some(Action::Drop));
    // Still here: the kernel keys it apart (another connection): handed over again, counted once.
    let p = a.packet(flow(3, 7, v, true), 100, 4, || facts(None));
    assert_eq!(p.bind, 2);
    assert!(!p.bind_new, "an enforcer is told once, not per packet");
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

/// Issue 33: a rule name is bounded, and an error quotes a long name or value only in part.
#[test]
fn long_names_and_values_are_refused_and_quoted_short() {
    let (l, ..) = labels();
    let e = |t: &str| Policy::from_toml(t, &l).unwrap_err().to_string();
    let ok = "a".repeat(policy::MAX_RULE_NAME);
    let p = format!("[[rule]]\nname = \"{ok}\"\napp = \"HTTP\"\naction = \"drop\"");
    assert_eq!(Policy::from_toml(&p, &l).unwrap().rules[0].name, ok);
    let long = "a".repeat(1 << 20);
    let m = e(&format!(
        "[[rule]]\nname = \"{long}\"\napp = \"HTTP\"\naction = \"drop\""
    ));
    assert!(
        m.contains("rule 1: the name") && m.contains("1048576 bytes"),
        "{m}"
    );
    assert!(m.len() < 300, "{} bytes", m.len());
    assert!(e("[[rule]]\nname = \"a\\nb\"\naction = \"drop\"").contains("no control"));
    assert!(e("[[rule]]\nname = \"\"\naction = \"drop\"").contains("the name"));
    // A long value in an error: the key and its start, not all of it.
    for key in [
        "app", "master", "method", "breed", "risk", "proto", "src", "dst_port",
    ] {
        let m = e(&format!("[[rule]]\n{key} = \"{long}\"\naction = \"drop\""));
        assert!(m.contains(key) && m.len() < 400, "{key}: {} bytes", m.len());
    }
    for (k, v) in [
        ("action", "mark\"\ndscp = \"X"),
        ("action", "rate-limit\"\nrate = \"X"),
    ] {
        let m = e(&format!("[[rule]]\napp = \"HTTP\"\n{k} = \"{v}{long}\""));
        assert!(m.len() < 400, "{k}: {} bytes", m.len());
    }
}

/// Issue 33: a TOML error on a 50 MB line quotes a short window around the column, and still
/// gives the line, the column and the message.
#[test]
fn a_toml_error_quotes_a_short_excerpt() {
    let (l, ..) = labels();
    let e = |t: &str| Policy::from_toml(t, &l).unwrap_err().to_string();
    let m = e(&format!("# ok\nx = {}", "a".repeat(50 << 20)));
    assert!(m.starts_with("TOML parse error at line 2, column 5"), "{m}");
    assert!(m.len() < 600, "{} bytes", m.len());
    // The caret stands under the column, as toml's own message has it.
    let m = e("[[rule]]\nname = \"x\"\napp = \"HTTP\naction = \"drop\"\n");
    let lines: Vec<&str> = m.lines().collect();
    assert_eq!(lines[0], "TOML parse error at line 3, column 12", "{m}");
    assert_eq!(lines[2], "3 | app = \"HTTP", "{m}");
    assert_eq!(lines[3], "  |            ^", "{m}");
    assert!(lines[4].contains("invalid basic string"), "{m}");
    // Far into a long line: the window is cut on both sides.
    let m = e(&format!(
        "k = [{}?{}]",
        "1, ".repeat(1000),
        " ".repeat(1000)
    ));
    let lines: Vec<&str> = m.lines().collect();
    assert!(
        lines[2].starts_with("1 | …") && lines[2].ends_with('…'),
        "{m}"
    );
    let caret = lines[3].chars().position(|c| c == '^').unwrap();
    assert_eq!(lines[2].chars().nth(caret), Some('?'), "{m}");
    // An unknown key as long as the file: the message is shortened too.
    let m = e(&format!(
        "[[rule]]\n{} = 1\naction = \"drop\"",
        "k".repeat(1 << 20)
    ));
    assert!(m.len() < 600, "{} bytes", m.len());
    // Multi-byte characters before the error: columns count characters, cuts fall between them.
    let m = e(&format!("x = \"{}\" ?", "é".repeat(100)));
    assert!(
        m.starts_with("TOML parse error at line 1, column 108"),
        "{m}"
    );
}

/// Issue 33: the policy file is read with a size limit, and only from a regular file: a device
/// (`/dev/zero` grew the process until killed) or a FIFO (which blocked) is refused at once.
#[test]
fn the_policy_file_is_capped_and_must_be_a_regular_file() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("policy.toml");
    std::fs::write(&p, "[[rule]]\napp = \"HTTP\"\naction = \"drop\"\n").unwrap();
    assert!(policy::read_policy_file(&p).unwrap().contains("HTTP"));
    let big = vec![b'#'; policy::MAX_POLICY_FILE as usize + 1];
    std::fs::write(&p, &big).unwrap();
    let e = policy::read_policy_file(&p).unwrap_err().to_string();
    assert!(e.contains("larger than 4 MiB"), "{e}");
    std::fs::write(&p, &big[1..]).unwrap();
    assert!(policy::read_policy_file(&p).is_ok());
    std::fs::write(&p, b"x = \"\xff\"").unwrap();
    let e = policy::read_policy_file(&p).unwrap_err().to_string();
    assert!(e.contains("not UTF-8 text (byte 5)"), "{e}");
    let e = policy::read_policy_file(dir.path())
        .unwrap_err()
        .to_string();
    assert!(e.contains("not a regular file (a directory)"), "{e}");
    let e = policy::read_policy_file(&dir.path().join("none")).unwrap_err();
    assert!(e.to_string().contains("No such file"), "{e}");
    #[cfg(unix)]
    {
        let e = policy::read_policy_file(Path::new("/dev/zero")).unwrap_err();
        assert!(e.to_string().contains("a character device"), "{e}");
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            // Without a writer, a blocking open would wait here for ever.
            let e = policy::read_policy_file(&fifo).unwrap_err();
            assert!(e.to_string().contains("a FIFO"), "{e}");
        } else {
            eprintln!("SKIPPED the FIFO case: mkfifo did not run");
        }
    }
}

#[test]
fn an_enforcer_is_told_once_per_final_action() {
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
    let v = Some((http, Method::Dpi, 1.0));
    let p = a.packet(flow(2, 5, v, false), 100, 1, || facts(None));
    assert!(!p.bind_new, "not final before it settles");
    let p = a.packet(flow(2, 5, v, true), 100, 2, || facts(None));
    assert_eq!((p.bind, p.bind_new), (2, true));
    let p = a.packet(flow(2, 5, v, true), 100, 3, || facts(None));
    assert_eq!((p.bind, p.bind_new), (2, false));
    // A reload that changes the action tells it again.
    cell.replace(
        Policy::from_toml(
            "[[rule]]\nname=\"no-web\"\napp=\"HTTP\"\naction=\"mark\"\ndscp=\"EF\"",
            &l,
        )
        .unwrap(),
    );
    a.begin_batch();
    let p = a.packet(flow(3, 7, v, true), 100, 5, || facts(None));
    assert_eq!((p.bind, p.bind_new), (0x40 | 46, true));
    assert_eq!(bound_action(p.bind), Some(Action::Mark(46)));
    let p = a.packet(flow(3, 7, v, true), 100, 6, || facts(None));
    assert!(!p.bind_new);
    // Another flow in the slot starts afresh.
    let p = a.packet(flow(2, 6, v, true), 100, 7, || facts(None));
    assert_eq!((p.bind, p.bind_new), (0x40 | 46, true));
    // Without the hand-off nothing is final.
    let mut b = Actor::new(cell, 8, false);
    b.begin_batch();
    let p = b.packet(flow(1, 1, v, true), 100, 1, || facts(None));
    assert_eq!((p.bind, p.bind_new), (0, false));
    assert_eq!(bound_action(0), None);
}

#[test]
fn an_enforcer_of_rates_gets_rate_limited_flows_and_nothing_is_policed_here() {
    let (l, ..) = labels();
    let cell = PolicyCell::new(
        Policy::from_toml(
            "[[rule]]\nproto=\"udp\"\naction=\"drop\"\n[[rule]]\nproto=\"tcp\"\n\
             action=\"rate-limit\"\nrate=\"80kbit\"\nburst=\"8kbit\"",
            &l,
        )
        .unwrap(),
    );
    let mut a = Actor::new(cell, 4, true);
    a.kernel_rates();
    let mut passed = 0u64;
    for i in 0..2000u64 {
        let p = a.packet(flow(0, 0, None, true), 1000, 1 + i * 1_000_000, || {
            facts(None)
        });
        if i == 0 {
            // The second rule: decision index 1.
            assert_eq!((p.bind, p.bind_new), (0x81, true));
            assert_eq!(bound_rate(p.bind), Some(1));
            assert_eq!(bound_action(p.bind), None);
        } else {
            assert!(!p.bind_new);
        }
        if !p.drop {
            passed += 1;
        }
    }
    assert_eq!(passed, 2000, "the enforcer shapes; the copy is not policed");
    assert_eq!(rate_code(0x7e), Some(0xfe));
    assert_eq!(rate_code(0x7f), None);
    assert_eq!(bound_rate(0x40 | 46), None);
    assert_eq!(bound_rate(2), None);
}
