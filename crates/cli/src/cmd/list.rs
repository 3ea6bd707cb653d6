//! `wirespeed list`: what the classifiers know (applications, protocols, classifiers).

use crate::args::RuleArgs;
use clap::{Args, ValueEnum};
use std::io::{self, Write};
use std::process::ExitCode;

#[derive(Args)]
pub(crate) struct ListArgs {
    /// What to list.
    #[arg(value_enum)]
    what: ListWhat,
    #[command(flatten)]
    files: RuleArgs,
}

#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum ListWhat {
    /// Applications: name, category, the masters it is named over (tab-separated).
    Apps,
    /// Classifiers (`--classifiers` names) and what each does.
    Classifiers,
    /// Protocols: name, category, how they are recognised (payload, port), their usual ports
    /// (tab-separated).
    Protocols,
}

/// `wirespeed list apps|classifiers`.
pub(crate) fn list(a: ListArgs) -> Result<ExitCode, String> {
    let mut out = io::stdout().lock();
    let mut text = String::new();
    match a.what {
        ListWhat::Apps => {
            let rules = a.files.rules()?;
            let labels = rules.labels();
            // application -> (category, masters it is named over)
            let mut apps: std::collections::BTreeMap<
                (&str, &str),
                std::collections::BTreeSet<&str>,
            > = Default::default();
            for i in 0..labels.len() {
                let l = labels.get(wirespeed_classify::LabelId(i as u16));
                if l.app() == "Unknown" {
                    continue;
                }
                apps.entry((l.app(), l.category()))
                    .or_default()
                    .insert(l.master());
            }
            text.push_str("app\tcategory\tmasters\n");
            for ((app, cat), masters) in apps {
                let m: Vec<&str> = masters.into_iter().collect();
                text.push_str(&format!("{app}\t{cat}\t{}\n", m.join(",")));
            }
        }
        ListWhat::Protocols => {
            let rules = a.files.rules()?;
            let labels = rules.labels();
            // protocol -> (category, by payload, by port or IP protocol number, usual ports:
            // ("tcp"|"udp", port) or ("ip", protocol number))
            type Row = (
                String,
                bool,
                bool,
                std::collections::BTreeSet<(&'static str, u16)>,
            );
            let mut rows: std::collections::BTreeMap<String, Row> = Default::default();
            for ins in wirespeed_dpi::proto::REGISTRY {
                for (i, l) in ins.labels.iter().enumerate() {
                    let r = rows.entry(l.app.to_string()).or_insert((
                        l.category.to_string(),
                        false,
                        false,
                        Default::default(),
                    ));
                    r.1 = true;
                    // The inspector's ports are its generic (first) label's, unless the port
                    // table gives a port to another of its protocols (5353 is mDNS's).
                    if i == 0 {
                        for &p in ins.ports {
                            for (bit, t, proto) in [
                                (wirespeed_dpi::TCP, "tcp", 6),
                                (wirespeed_dpi::UDP, "udp", 17),
                            ] {
                                let other = rules
                                    .ports()
                                    .port(proto, p)
                                    .is_some_and(|id| labels.get(id).master() != l.app);
                                if ins.transports & bit != 0 && !other {
                                    r.3.insert((t, p));
                                }
                            }
                        }
                    }
                }
            }
            for (t, p, id) in rules.ports().entries() {
                let l = labels.get(id);
                let r = rows.entry(l.master().to_string()).or_insert((
                    l.category().to_string(),
                    false,
                    false,
                    Default::default(),
                ));
                r.2 = true;
                r.3.insert((t, p));
            }
            // Transports without ports that the IP protocol number names (ICMP, OSPF, ...).
            for n in 0..=u8::MAX {
                if let Some(l) = wirespeed_classify::ipproto::lookup(n) {
                    let r = rows.entry(l.master.to_string()).or_insert((
                        l.category.to_string(),
                        false,
                        false,
                        Default::default(),
                    ));
                    r.2 = true;
                    r.3.insert(("ip", u16::from(n)));
                }
            }
            text.push_str("protocol\tcategory\trecognised by\tports\n");
            for (name, (cat, payload, port, ports)) in rows {
                let ip = ports.iter().any(|(t, _)| *t == "ip");
                let by = match (payload, port, ip) {
                    (true, true, _) => "payload,port",
                    (true, false, _) => "payload",
                    (false, _, true) => "ip-protocol",
                    _ => "port",
                };
                let ports: Vec<String> = ports.iter().map(|(t, p)| format!("{t}/{p}")).collect();
                text.push_str(&format!("{name}\t{cat}\t{by}\t{}\n", ports.join(",")));
            }
        }
        ListWhat::Classifiers => {
            for (name, what) in [
                ("ip", "the owner of the server's address block, else the client's (data/app_networks.csv, --networks, --rules ip:); below a port guess"),
                ("port", "well-known ports and IP protocol numbers: a guess"),
                ("dpt", "seed 001's Dedicated Port Table: what payload inspection labelled earlier flows on either end-point {address, port, transport}, two thirds agreeing, where nothing better names the flow"),
                ("dns-cache", "an address a DNS answer named earlier in the capture: the service of the name, at the flow's first packet (from the next --learn-epoch on)"),
                ("host-cache", "seed 002's Host Cache: a server end-point whose earlier flows payload inspection labelled (U = x*p >= --host-cache-uth in a window), at the flow's first packet; payload inspection confirms or corrects"),
                ("stats", "the statistical model over the first packets: alone, at 0.80 confidence or more"),
                ("dpi", "payload inspection; the service by the SNI, HTTP Host or DNS query (data/app_hosts.csv, --hosts, --rules host:)"),
            ] {
                text.push_str(&format!("{name}\t{what}\n"));
            }
            for name in wirespeed_classify::PLANNED {
                text.push_str(&format!("{name}\tnot built yet\n"));
            }
        }
    }
    match out.write_all(text.as_bytes()) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        r => r.map(|_| ExitCode::SUCCESS).map_err(|e| e.to_string()),
    }
}
