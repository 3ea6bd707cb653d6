//! Labels on captures whose packets once hid the application, against nDPI's verdicts
//! (`../shared/corpus/flows.csv`): the same label and server name (SNI or HTTP Host) on every
//! flow.

use crate::common::{bin, ok};
use std::collections::HashMap;

/// A flow's label and server name.
type Named = (String, String);

/// A CSV record's value in column `name` of `h`.
fn col<'r>(r: &'r csv::StringRecord, h: &csv::StringRecord, name: &str) -> &'r str {
    r.get(h.iter().position(|x| x == name).unwrap()).unwrap()
}

/// A flow's two ends (address, port), in order: the same whichever side is the client.
fn ends(r: &csv::StringRecord, h: &csv::StringRecord) -> [(String, String); 2] {
    let end = |a, p| (col(r, h, a).to_string(), col(r, h, p).to_string());
    let mut e = [end("src_ip", "src_port"), end("dst_ip", "dst_port")];
    e.sort();
    e
}

/// nDPI's (proto, sni) and ours for every flow of `pcap`, keyed by the flow's two ends.
fn both(pcap: &str) -> Option<Vec<(Named, Named)>> {
    let corpus = wirespeed_testkit::corpus(pcap)?;
    let run = ok(bin()
        .args(["classify", "--format", "csv", "-q"])
        .arg(corpus.pcap(pcap)));
    let mut ours = HashMap::new();
    let mut rd = csv::Reader::from_reader(&run.stdout[..]);
    let h = rd.headers().unwrap().clone();
    for r in rd.records() {
        let r = r.unwrap();
        // nDPI's `sni` column holds an HTTP flow's Host.
        let name = col(&r, &h, "sni").to_string() + col(&r, &h, "http_host");
        ours.insert(ends(&r, &h), (col(&r, &h, "proto").to_string(), name));
    }
    let mut rd = csv::Reader::from_path(corpus.flows_csv()).unwrap();
    let h = rd.headers().unwrap().clone();
    let mut out = Vec::new();
    for r in rd.records() {
        let r = r.unwrap();
        if col(&r, &h, "pcap") != pcap {
            continue;
        }
        let mine = ours.remove(&ends(&r, &h)).unwrap_or_default();
        let ndpi = (
            col(&r, &h, "proto").to_string(),
            col(&r, &h, "sni").to_string(),
        );
        out.push((ndpi, mine));
    }
    Some(out)
}

/// Of the flows of `pcap` whose label nDPI's `keep` accepts: how many, and how many we label
/// as nDPI does.
fn labelled(pcap: &str, keep: impl Fn(&str) -> bool) -> Option<(usize, usize)> {
    let flows = both(pcap)?;
    let kept: Vec<_> = flows.iter().filter(|(n, _)| keep(&n.0)).collect();
    let same = kept.iter().filter(|(n, o)| n.0 == o.0).count();
    Some((kept.len(), same))
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
    let Some((n, same)) = labelled("quickplay.pcap", |l| l.starts_with("HTTP_Proxy")) else {
        return;
    };
    assert_eq!((n, same), (5, 5));
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
        let Some((n, same)) = labelled(pcap, |l| l == label) else {
            return;
        };
        assert_eq!((n, same), (flows_named, flows_named), "{pcap}");
    }
}

/// telegram_videocall.pcapng: STUN to Telegram's relays (91.108.0.0/16, port 1400) is
/// Telegram's call set-up, STUN.TelegramVoip as nDPI names it, whether or not the messages
/// carry a realm.
#[test]
fn stun_to_a_calling_applications_relay_is_its_call() {
    let Some((n, same)) = labelled("telegram_videocall.pcapng", |l| l == "STUN.TelegramVoip")
    else {
        return;
    };
    assert_eq!(n, 16);
    // The four peer-to-peer flows nDPI names from what it learned of the relays' answers
    // (its STUN cache) stay STUN here.
    assert!(same >= 12, "{same} of 16");
}
