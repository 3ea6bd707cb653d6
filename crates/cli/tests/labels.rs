//! Labels on captures whose packets once hid the application, against nDPI's verdicts
//! (`../shared/corpus/flows.csv`): the same label and server name (SNI or HTTP Host) on every
//! flow.

mod common;
use common::{bin, ok};
use std::collections::HashMap;

/// A flow's label and server name.
type Named = (String, String);

/// nDPI's (proto, sni) and ours for every flow of `pcap`, keyed by the flow's two ends.
fn both(pcap: &str) -> Option<Vec<(Named, Named)>> {
    let corpus = wirespeed_testkit::corpus(pcap)?;
    let key =
        |r: &csv::StringRecord, h: &csv::StringRecord, a: &str, ap: &str, b: &str, bp: &str| {
            let get = |n: &str| {
                r.get(h.iter().position(|x| x == n).unwrap())
                    .unwrap()
                    .to_string()
            };
            let mut ends = [(get(a), get(ap)), (get(b), get(bp))];
            ends.sort();
            ends
        };
    let run = ok(bin()
        .args(["classify", "--format", "csv", "-q"])
        .arg(corpus.pcap(pcap)));
    let mut ours = HashMap::new();
    let mut rd = csv::Reader::from_reader(&run.stdout[..]);
    let h = rd.headers().unwrap().clone();
    for r in rd.records() {
        let r = r.unwrap();
        let get = |n: &str| {
            r.get(h.iter().position(|x| x == n).unwrap())
                .unwrap()
                .to_string()
        };
        ours.insert(
            key(&r, &h, "src_ip", "src_port", "dst_ip", "dst_port"),
            // nDPI's `sni` column holds an HTTP flow's Host.
            (get("proto"), get("sni") + &get("http_host")),
        );
    }
    let mut rd = csv::Reader::from_path(corpus.flows_csv()).unwrap();
    let h = rd.headers().unwrap().clone();
    let mut out = Vec::new();
    for r in rd.records() {
        let r = r.unwrap();
        let get = |n: &str| {
            r.get(h.iter().position(|x| x == n).unwrap())
                .unwrap()
                .to_string()
        };
        if get("pcap") != pcap {
            continue;
        }
        let k = key(&r, &h, "src_ip", "src_port", "dst_ip", "dst_port");
        let mine = ours.remove(&k).unwrap_or_default();
        out.push(((get("proto"), get("sni")), mine));
    }
    Some(out)
}

/// heuristic_tcp_ack_payload.pcap: the handshake's last ACK carries two zero bytes that the
/// sender counted into the IP length (Ethernet's padding), at the sequence number the
/// ClientHello then reuses. Read as data they shift the hello by two bytes and hide it.
#[test]
fn padding_counted_as_data_does_not_hide_the_hello() {
    let Some(flows) = both("heuristic_tcp_ack_payload.pcap") else {
        return;
    };
    assert_eq!(flows.len(), 6);
    for (ndpi, ours) in &flows {
        assert_eq!(ndpi, ours);
    }
    assert!(flows.iter().filter(|(n, _)| !n.1.is_empty()).count() >= 5);
}

/// quickplay.pcap: requests a proxy forwards to a QQ server are HTTP_Proxy.QQ, named by their
/// Host as plain HTTP's are.
#[test]
fn a_proxied_request_is_named_by_its_host() {
    let Some(flows) = both("quickplay.pcap") else {
        return;
    };
    let proxied: Vec<_> = flows
        .iter()
        .filter(|(n, _)| n.0.starts_with("HTTP_Proxy"))
        .collect();
    assert_eq!(proxied.len(), 5);
    for (ndpi, ours) in proxied {
        assert_eq!(ndpi.0, ours.0);
    }
}

/// webex.pcap and waze.pcap: TLS flows without SNI whose server certificate lists
/// `*.webex.com` or `*.waze.com` among its subjectAltName DNS names are TLS.Webex and TLS.Waze,
/// as nDPI names them, four of waze.pcap's with a certificate cut across segments; teams.pcap's
/// TLS.Teams, two of them with an address as SNI (52.114.250.152) and a certificate naming
/// tr.teams.microsoft.com.
#[test]
fn a_certificate_names_a_flow_without_sni() {
    for (pcap, label, flows_named) in [
        ("webex.pcap", "TLS.Webex", 29),
        ("waze.pcap", "TLS.Waze", 12),
        ("teams.pcap", "TLS.Teams", 17),
    ] {
        let Some(flows) = both(pcap) else {
            return;
        };
        let named: Vec<_> = flows.iter().filter(|(n, _)| n.0 == label).collect();
        assert_eq!(named.len(), flows_named, "{pcap}");
        for (ndpi, ours) in named {
            assert_eq!(ndpi.0, ours.0, "{pcap}: {ndpi:?} {ours:?}");
        }
    }
}

/// telegram_videocall.pcapng: STUN to Telegram's relays (91.108.0.0/16, port 1400) is
/// Telegram's call set-up, STUN.TelegramVoip as nDPI names it, whether or not the messages
/// carry a realm.
#[test]
fn stun_to_a_calling_applications_relay_is_its_call() {
    let Some(flows) = both("telegram_videocall.pcapng") else {
        return;
    };
    let relayed: Vec<_> = flows
        .iter()
        .filter(|(n, _)| n.0 == "STUN.TelegramVoip")
        .collect();
    assert_eq!(relayed.len(), 16);
    let same = relayed.iter().filter(|(n, o)| n.0 == o.0).count();
    // The four peer-to-peer flows nDPI names from what it learned of the relays' answers
    // (its STUN cache) stay STUN here.
    assert!(same >= 12, "{same} of 16");
}
