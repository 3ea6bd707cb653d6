//! What a run knows: its label registry and every table, signature, pattern and model its
//! classifiers use. Built once at start from the built-in tables and the run's files, then
//! shared read-only (an `Arc`) by the run's workers. Nothing here is global: two runs in one
//! process each classify with their own rules.

use std::net::IpAddr;
use std::sync::Arc;
use wirespeed_classify::category::ndpi_category;
use wirespeed_classify::hosts::AppId;
use wirespeed_classify::hosts::{HostRules, NameMemo};
use wirespeed_classify::networks::{Cidr, Networks, NetworksBuilder};
use wirespeed_classify::protodefs::ProtoDefaults;
use wirespeed_classify::protos::{self, ProtoRules, Transport};
use wirespeed_classify::{Breed, LabelId, Labels, PortTable};
use wirespeed_dpi::DpiRules;
use wirespeed_dpi::{Field, Meta};
use wirespeed_risk::LabelKind;
use wirespeed_stats::Loaded;

/// Where a run's statistical model comes from.
#[derive(Clone, Debug, Default)]
pub enum ModelSource {
    /// The model built into the binary (`models/default.wsm`).
    #[default]
    Builtin,
    /// No model: the `stats` classifier stays silent.
    None,
    /// A model file's bytes (`--model FILE`).
    Bytes(Vec<u8>),
}

/// The files a run adds to the built-in knowledge: their text, already read (errors name the
/// line of the text given; the caller adds the file's name).
#[derive(Clone, Debug, Default)]
pub struct RuleSources {
    /// More byte signatures, in the format of `crates/dpi/signatures.txt`, tried after the
    /// built-in ones.
    pub signatures: Option<String>,
    /// Payload search patterns (`--match`, see `wirespeed_dpi::matcher`).
    pub patterns: Option<String>,
    /// The statistical model.
    pub model: ModelSource,
    /// More host-name rules, in the format of `data/app_hosts.csv`
    /// (`pattern,app,category,breed`), loaded after the built-in list (a pattern already there
    /// takes the new service).
    pub hosts: Option<String>,
    /// Operator rules in nDPI's `protos.txt` syntax (`wirespeed_classify::protos`): `host:`
    /// patterns name a flow's service as the host-name list does, `ip:`/`ipv6:` blocks are
    /// address owners, `tcp:`/`udp:` ports join the port table; each new name is a label in the
    /// category `Unspecified`. Blocks with a port (`ip:CIDR:PORT@Name`) are refused for now.
    pub protos: Option<String>,
    /// More address owners, in the format of `data/app_networks.csv` (`network,app,category`),
    /// loaded after the built-in list (a block equal to a built-in one replaces its owner).
    pub networks: Option<String>,
}

/// The category of a name an operator's `protos.txt` introduces (nDPI's, for custom protocols).
const CUSTOM_CATEGORY: &str = "Unspecified";

/// The masters whose flows a host name names (nDPI's `MASTER.APP`: `TLS.YouTube`,
/// `DNS.Google`, `HTTP_Proxy.QQ` for a request a proxy forwards to a QQ server), and the
/// metadata field that carries the name.
/// (TLS and DTLS must stay first and third: [`Rules::name_by_host`] reads them by index.)
pub const NAMING: [(&str, Field); 6] = [
    ("TLS", Field::Sni),
    ("QUIC", Field::Sni),
    ("DTLS", Field::Sni),
    ("HTTP", Field::HttpHost),
    ("DNS", Field::DnsQuery),
    ("HTTP_Proxy", Field::HttpHost),
];

/// Certificate names tried per flow by [`Rules::name_by_host`] (the field holds at most 255
/// bytes, so about 60 of the shortest).
const MAX_CERT_NAMES: usize = 64;

/// nDPI's breed and encryption of each protocol (`data/ndpi_protocols.csv`; provenance in its
/// comment lines).
pub const BUILTIN_PROTOCOLS: &str = include_str!("../../../data/ndpi_protocols.csv");

/// The address owners shipped with the project (`data/app_networks.csv`; provenance in
/// `data/README.md`).
pub const BUILTIN_NETWORKS: &str = wirespeed_classify::builtin::NETWORKS_CSV;

/// Why a run's rules could not be built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RulesError {
    /// The signature file.
    Signatures(String),
    /// The pattern file.
    Patterns(String),
    /// The model.
    Model(String),
    /// The built-in tables (too many labels with the files added).
    Labels(String),
    /// An address-owner list.
    Networks(String),
    /// A host-name list.
    Hosts(String),
    /// An operator rules file (`protos.txt` syntax).
    Protos(String),
}

impl std::fmt::Display for RulesError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RulesError::Signatures(m)
            | RulesError::Patterns(m)
            | RulesError::Model(m)
            | RulesError::Labels(m)
            | RulesError::Networks(m)
            | RulesError::Hosts(m)
            | RulesError::Protos(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for RulesError {}

/// A run's knowledge: the label registry and what each classifier matches against.
#[derive(Debug)]
pub struct Rules {
    labels: Labels,
    ports: PortTable,
    dpi: Arc<DpiRules>,
    model: Option<Loaded>,
    networks: Networks,
    /// The label of each address owner, by `OwnerId` index, and whether it runs its own
    /// application on its blocks (decided once at load, from its category).
    owner_labels: Vec<(LabelId, bool)>,
    hosts: HostRules,
    /// `MASTER.APP` of each host rule's application under each naming master: index
    /// `AppId × NAMING.len() + master`.
    host_labels: Vec<LabelId>,
    /// By label id: 1 + the index in [`NAMING`] of a label that is a naming master alone
    /// (`TLS`, not `TLS.YouTube`), else 0.
    naming: Vec<u8>,
    /// The application alone (`YouTube`) of each host rule's application, by `AppId` index:
    /// what a DNS-learned address names at a flow's first packet.
    app_labels: Vec<LabelId>,
    /// By label id: 1 + the `AppId` of the host rule application the label names (`YouTube`,
    /// `TLS.YouTube`), else 0.
    label_app: Vec<u16>,
    /// By label id: the transports (bit 0 TCP, 1 UDP, 2 SCTP) on which the port table holds a
    /// port of the label's master protocol: its default ports, for nDPI's "Known Proto on Non
    /// Std Port".
    port_masters: Vec<u8>,
    /// By the statistical model's class, the IP protocols (a 256-bit set) it may name a flow
    /// of ([`Rules::model_admits`]).
    model_l4s: Vec<[u64; 4]>,
    /// The payload inspectors (registry indices) that can name one of the model's classes
    /// ([`Rules::model_inspectors`]).
    model_inspectors: Vec<u16>,
    /// By label id: is a flow of this label encrypted (nDPI's mark of its master protocol)?
    encrypted: Vec<bool>,
    /// By label id: what the risk rules ask of its names (compared once, not per flow).
    risk_kinds: Vec<LabelKind>,
    /// [`CALLS`] with its applications' labels: (owner, server ports, `STUN.APP`, `DTLS.APP`).
    calls: Vec<(&'static str, PortSpan, Option<LabelId>, Option<LabelId>)>,
    /// The labels `STUN` and `DTLS` alone.
    call_masters: [Option<LabelId>; 2],
}

/// An inclusive span of server ports (all ports: `(0, 65535)`).
type PortSpan = (u16, u16);

/// The calling application whose relay a STUN (or DTLS-after-STUN) server is, by who owns the
/// server's address (`data/app_networks.csv`): a STUN flow to Telegram's network is Telegram's
/// call set-up, as nDPI names it (its STUN cache and reconcile step, and the Google Meet
/// relays' blocks it holds in stun.c). Microsoft's blocks only on the STUN/TURN ports Teams
/// uses (3478-3481, Microsoft's published Teams media ports); Google's only in the two blocks
/// Google lists for Meet media (74.125.250.0/24, 142.250.82.0/24), since Google's public STUN
/// servers serve any WebRTC application.
/// (owner, server ports, application); the labels are the STUN inspector's.
const CALLS: [(&str, PortSpan, &str); 8] = [
    ("Telegram", (0, 65535), "TelegramVoip"),
    ("Zoom", (0, 65535), "Zoom"),
    ("Facebook", (0, 65535), "FacebookVoip"),
    ("WhatsApp", (0, 65535), "WhatsAppCall"),
    ("Viber", (0, 65535), "ViberVoip"),
    ("Skype_Teams", (3478, 3481), "Skype_TeamsCall"),
    ("Azure", (3478, 3481), "Skype_TeamsCall"),
    ("Google", (0, 65535), "GoogleCall"),
];

/// Google's blocks for Meet media (Google Workspace's network requirements for Meet).
fn google_meet_media(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(a) => {
            let o = a.octets();
            matches!((o[0], o[1], o[2]), (74, 125, 250) | (142, 250, 82))
        }
        IpAddr::V6(_) => false,
    }
}

impl Rules {
    /// The built-in tables, signatures and model.
    pub fn builtin() -> Rules {
        // The built-in tables fit the registry by far (a test holds it), and the built-in
        // signature file parses (a test holds it): this cannot fail.
        match Rules::load(&RuleSources::default()) {
            Ok(r) => r,
            Err(e) => unreachable!("the built-in rules load: {e}"),
        }
    }

    /// The built-in knowledge with `src`'s files added.
    pub fn load(src: &RuleSources) -> Result<Rules, RulesError> {
        let mut labels = Labels::new();
        let mut ports =
            PortTable::builtin(&mut labels).map_err(|e| RulesError::Labels(e.to_string()))?;
        let protos = match &src.protos {
            Some(t) => protos::parse(t).map_err(|e| RulesError::Protos(e.to_string()))?,
            None => ProtoRules::default(),
        };
        if let Some(r) = protos.ips.iter().find(|r| r.port.is_some()) {
            return Err(RulesError::Protos(format!(
                "line {}: address rules with a port (ip:CIDR:PORT@Name) are not supported; \
                 write the block alone, or a tcp:/udp: rule for the port",
                r.line
            )));
        }
        let port_rules = protos
            .ports
            .iter()
            .map(|r| {
                let proto = match r.transport {
                    Transport::Tcp => 6,
                    Transport::Udp => 17,
                };
                labels
                    .intern(&r.name, &r.name, CUSTOM_CATEGORY, Breed::Unrated)
                    .map(|l| (proto, r.low, r.high, l))
                    .map_err(|e| RulesError::Protos(format!("line {}: {e}", r.line)))
            })
            .collect::<Result<Vec<_>, _>>()?;
        ports.extend(port_rules);
        let dpi = DpiRules::new(
            &mut labels,
            src.signatures.as_deref(),
            src.patterns.as_deref(),
        )
        .map_err(|e| match e {
            wirespeed_dpi::RulesError::Signatures(m) => RulesError::Signatures(m),
            wirespeed_dpi::RulesError::Patterns(m) => RulesError::Patterns(m),
            wirespeed_dpi::RulesError::Labels(m) => RulesError::Labels(m),
        })?;
        let model = match &src.model {
            ModelSource::Builtin => Loaded::builtin(&mut labels),
            ModelSource::None => None,
            ModelSource::Bytes(b) => Some(
                Loaded::from_bytes(b, &mut labels).map_err(|e| RulesError::Model(e.to_string()))?,
            ),
        };
        let networks = if src.networks.is_none() && protos.ips.is_empty() {
            // The shipped list alone: the table build.rs compiled in, no parsing.
            wirespeed_classify::builtin::networks()
        } else {
            // An operator's blocks go after the shipped ones (an equal block: the later wins),
            // so the shipped list is parsed too, as it always was.
            let mut nets = NetworksBuilder::new();
            nets.extend_csv(BUILTIN_NETWORKS)
                .map_err(|e| RulesError::Networks(format!("built-in address owners: {e}")))?;
            if let Some(t) = &src.networks {
                nets.extend_csv(t)
                    .map_err(|e| RulesError::Networks(e.to_string()))?;
            }
            for r in &protos.ips {
                let at =
                    |e: &dyn std::fmt::Display| RulesError::Protos(format!("line {}: {e}", r.line));
                let block = Cidr::new(r.network, r.prefix_len).map_err(|e| at(&e))?;
                let owner = nets.owner_id(&r.name, "unspecified").map_err(|e| at(&e))?;
                nets.insert(block, owner).map_err(|e| at(&e))?;
            }
            nets.build()
        };
        let owner_labels = owner_labels(&networks, &mut labels)?;
        // The shipped host-name list (`data/app_hosts.csv`; provenance in `data/README.md`):
        // its rows as build.rs compiled them, no CSV read.
        let mut hosts = wirespeed_classify::builtin::hosts();
        if let Some(t) = &src.hosts {
            hosts
                .load_csv(t)
                .map_err(|e| RulesError::Hosts(e.to_string()))?;
        }
        for r in &protos.hosts {
            hosts
                .add(&r.pattern, &r.name, "unspecified", Breed::Unrated)
                .map_err(|e| RulesError::Protos(format!("line {}: {e}", r.line)))?;
        }
        let mut host_labels = Vec::with_capacity(hosts.len() * NAMING.len());
        for app in hosts.apps() {
            for (master, _) in NAMING {
                host_labels.push(
                    labels
                        .intern(master, app.name, app.category, app.breed)
                        .map_err(|e| RulesError::Labels(format!("host rule {}: {e}", app.name)))?,
                );
            }
        }
        let mut app_labels = Vec::with_capacity(hosts.len());
        for app in hosts.apps() {
            app_labels.push(
                labels
                    .intern(app.name, app.name, app.category, app.breed)
                    .map_err(|e| RulesError::Labels(format!("host rule {}: {e}", app.name)))?,
            );
        }
        let mut label_app = vec![0u16; labels.len()];
        for (i, l) in app_labels.iter().enumerate() {
            for id in std::iter::once(*l).chain(
                host_labels[i * NAMING.len()..(i + 1) * NAMING.len()]
                    .iter()
                    .copied(),
            ) {
                if let Some(slot) = label_app.get_mut(id.index()) {
                    *slot = i as u16 + 1;
                }
            }
        }
        // Last, once every label is in: which of them a host name may refine.
        let naming = (0..labels.len())
            .map(|i| {
                let l = labels.get(LabelId(i as u16));
                NAMING
                    .iter()
                    .position(|(m, _)| l.master() == *m && l.app() == *m)
                    .map_or(0, |k| k as u8 + 1)
            })
            .collect();
        let port_masters = port_masters(&labels, &ports);
        let (model_l4s, model_inspectors) = model
            .as_ref()
            .map(|m| model_l4s(&labels, &port_masters, &dpi, m))
            .unwrap_or_default();
        let defaults = ProtoDefaults::parse(BUILTIN_PROTOCOLS)
            .map_err(|e| RulesError::Labels(format!("built-in protocol defaults: {e}")))?;
        defaults.rate(&mut labels);
        let encrypted = (0..labels.len())
            .map(|i| {
                let id = LabelId(i as u16);
                let named = label_app.get(i).is_some_and(|&a| a != 0)
                    || owner_labels.iter().any(|o| o.0 == id);
                defaults.encrypted(&labels, id, named)
            })
            .collect();
        let risk_kinds = labels
            .iter()
            .map(|(_, l)| LabelKind::of(l.master(), l.app(), l.category()))
            .collect();
        let calls = CALLS
            .iter()
            .map(|&(owner, ports, app)| {
                let find = |m: &str| {
                    labels
                        .iter()
                        .find(|(_, l)| l.master() == m && l.app() == app)
                        .map(|(id, _)| id)
                };
                (owner, ports, find("STUN"), find("DTLS"))
            })
            .collect();
        let alone = |m: &str| {
            labels
                .iter()
                .find(|(_, l)| l.master() == m && l.app() == m)
                .map(|(id, _)| id)
        };
        let call_masters = [alone("STUN"), alone("DTLS")];
        Ok(Rules {
            calls,
            call_masters,
            port_masters,
            model_l4s,
            model_inspectors,
            encrypted,
            risk_kinds,
            labels,
            ports,
            dpi: Arc::new(dpi),
            model,
            networks,
            owner_labels,
            hosts,
            host_labels,
            naming,
            app_labels,
            label_app,
        })
    }

    /// What the risk rules ask of this label's names.
    #[inline]
    pub fn risk_kind(&self, label: LabelId) -> Option<LabelKind> {
        self.risk_kinds.get(label.index()).copied()
    }

    /// Is a flow of this label encrypted (nDPI's `encrypted`)?
    #[inline]
    pub fn encrypted(&self, label: LabelId) -> bool {
        self.encrypted.get(label.index()).copied().unwrap_or(false)
    }

    /// Is one of a flow's ports a default port of its label's master protocol on its
    /// transport? None when the protocol has no default port there (nothing to judge by).
    pub fn std_port(&self, label: LabelId, l4: u8, server: u16, client: u16) -> Option<bool> {
        let bit = transport_bit(l4)?;
        if self.port_masters.get(label.index()).copied().unwrap_or(0) & bit == 0 {
            return None;
        }
        let master = self.labels.get(label).master();
        Some([server, client].into_iter().any(|p| {
            self.ports
                .port(l4, p)
                .is_some_and(|l| self.labels.get(l).master() == master)
        }))
    }

    /// May the statistical model's class `class` name a flow over IP protocol `l4`? Yes
    /// unless every source that knows the class's protocol puts it on other transports
    /// (the inspectors, signatures, port table and IP protocol numbers that name it, read
    /// once at load); a class nothing knows may name any flow.
    #[inline]
    pub fn model_admits(&self, class: u16, l4: u8) -> bool {
        self.model_l4s
            .get(usize::from(class))
            .is_none_or(|set| set[usize::from(l4 >> 6)] >> (l4 & 63) & 1 != 0)
    }

    /// The payload inspectors (indices in `wirespeed_dpi::proto::REGISTRY`) that can name one
    /// of the statistical model's classes: a label of theirs has the class's protocol as
    /// master or application, as [`Rules::model_admits`] reads it (found once at load). Empty
    /// without a model.
    pub fn model_inspectors(&self) -> &[u16] {
        &self.model_inspectors
    }

    /// The host rule application `name` (a DNS query or a CNAME) belongs to, if one does.
    #[inline]
    pub fn app_by_name(&self, name: &[u8]) -> Option<AppId> {
        self.hosts.lookup_bytes(name).map(|m| m.app.id)
    }

    /// The label of a host rule application alone (`YouTube`): a DNS-learned address's.
    #[inline]
    pub fn app_label(&self, app: AppId) -> LabelId {
        self.app_labels
            .get(app.index())
            .copied()
            .unwrap_or(LabelId::UNKNOWN)
    }

    /// Do a learned label and payload inspection's label agree, and on what? The arbiter's
    /// rule ([`wirespeed_classify::arbiter::join`]), with this run's labels and its names of a
    /// host rule's application under each naming master ([`Rules::master_app`]).
    #[inline]
    pub fn join(&self, learned: LabelId, dpi: LabelId) -> Option<LabelId> {
        wirespeed_classify::arbiter::join(&self.labels, learned, dpi, || {
            self.master_app(dpi, learned)
        })
    }

    /// A naming master alone's (`TLS`) name for the host rule application `app` names
    /// (`YouTube`): `TLS.YouTube`. None when `master` is no naming master or `app` names no
    /// host rule's application.
    pub fn master_app(&self, master: LabelId, app: LabelId) -> Option<LabelId> {
        let m = usize::from(*self.naming.get(master.index())?).checked_sub(1)?;
        let app = usize::from(*self.label_app.get(app.index())?).checked_sub(1)?;
        self.host_labels.get(app * NAMING.len() + m).copied()
    }

    /// The service a flow labelled `label` (a naming master alone: `TLS`, `QUIC`, `DTLS`,
    /// `HTTP`, `DNS`, `HTTP_Proxy`) belongs to by the host name in its metadata (SNI, `Host`,
    /// the DNS query): `MASTER.APP` (`TLS.YouTube`), if a host rule names it. A TLS or DTLS
    /// flow whose client sent no SNI (or an address as one) is named by the first DNS name of
    /// the server certificate's subjectAltName that a rule knows (`*.webex.com`: Webex), as
    /// nDPI names it; a client's own name stands, known or not (nDPI also tries the
    /// certificate then). One hash probe per label of a name; nothing for any other label.
    /// `names`: the worker's memo of names looked up in these rules ([`NameMemo`]).
    #[inline]
    pub fn name_by_host(
        &self,
        label: LabelId,
        meta: &Meta,
        names: &mut NameMemo,
    ) -> Option<LabelId> {
        let m = usize::from(*self.naming.get(label.index())?).checked_sub(1)?;
        // TLS and DTLS ([`NAMING`]'s first and third).
        let tls = m == 0 || m == 2;
        let own = meta.get(NAMING[m].1);
        // No rule is an address: an SNI that is one names nothing, as none at all.
        let hit = match own.and_then(|name| self.hosts.lookup_memo(name, names)) {
            Some(hit) => hit,
            None if tls && !wirespeed_dpi::proto::tls::names_server(own) => meta
                .get(Field::TlsCertNames)?
                .split(',')
                .take(MAX_CERT_NAMES)
                .find_map(|n| {
                    self.hosts
                        .lookup_memo(n.strip_prefix("*.").unwrap_or(n), names)
                })?,
            None => return None,
        };
        self.host_labels
            .get(hit.app.id.index() * NAMING.len() + m)
            .copied()
    }

    /// The calling application a flow labelled `STUN` or `DTLS` alone belongs to by the owner
    /// of its server's address (the table `CALLS` in this file): `STUN.TelegramVoip`. Nothing
    /// for any other label.
    pub fn call_by_owner(&self, label: LabelId, server: IpAddr, port: u16) -> Option<LabelId> {
        let m = self.call_masters.iter().position(|&l| l == Some(label))?;
        let owner = self.owner_name(server)?;
        let &(owner, _, stun, dtls) = self
            .calls
            .iter()
            .find(|(o, (lo, hi), _, _)| *o == owner && (*lo..=*hi).contains(&port))?;
        if owner == "Google" && !google_meet_media(server) {
            return None;
        }
        if m == 0 {
            stun
        } else {
            dtls
        }
    }

    /// Does a flow labelled `label` (a naming master alone) carry its own name in `meta` (an
    /// SNI, a `Host`, a DNS query), whether or not a host rule knows it?
    #[inline]
    pub fn carries_name(&self, label: LabelId, meta: &Meta) -> bool {
        self.naming
            .get(label.index())
            .and_then(|&m| usize::from(m).checked_sub(1))
            .is_some_and(|m| meta.get(NAMING[m].1).is_some())
    }

    /// The host-name rules.
    pub fn hosts(&self) -> &HostRules {
        &self.hosts
    }

    /// The label of the owner of `ip`'s block (`Method::Ip`), if a list names one, and whether that owner runs its own application
    /// on its blocks ([`wirespeed_classify::arbiter::owner_runs_its_application`], from the
    /// owner's category in its list).
    #[inline]
    pub fn owner_evidence(&self, ip: IpAddr) -> Option<(LabelId, bool)> {
        let id = self.networks.lookup(ip)?;
        self.owner_labels.get(id.index()).copied()
    }

    /// The name of the owner of `ip`'s block, if a list names one.
    #[inline]
    pub fn owner_name(&self, ip: IpAddr) -> Option<&str> {
        self.networks.lookup(ip).map(|id| self.networks.owner(id).0)
    }

    /// The address owners.
    pub fn networks(&self) -> &Networks {
        &self.networks
    }

    /// The run's labels.
    #[inline]
    pub fn labels(&self) -> &Labels {
        &self.labels
    }

    /// The port table.
    #[inline]
    pub fn ports(&self) -> &PortTable {
        &self.ports
    }

    /// Payload inspection's rules.
    #[inline]
    pub fn dpi(&self) -> &Arc<DpiRules> {
        &self.dpi
    }

    /// The statistical model, if the run has one.
    #[inline]
    pub fn model(&self) -> Option<&Loaded> {
        self.model.as_ref()
    }
}

/// Each owner's label: nDPI names a flow matched by address after the owner alone (`Google`,
/// master and application both), in the owner's category as nDPI prints it.
fn owner_labels(nets: &Networks, labels: &mut Labels) -> Result<Vec<(LabelId, bool)>, RulesError> {
    let mut by_id = vec![(LabelId::UNKNOWN, false); nets.owner_count()];
    for (id, app, category) in nets.owners() {
        let cat = ndpi_category(category).unwrap_or("Unspecified");
        let l = labels
            .intern(app, app, cat, Breed::Unrated)
            .map_err(|e| RulesError::Labels(format!("address owner {app}: {e}")))?;
        if let Some(slot) = by_id.get_mut(id.index()) {
            *slot = (
                l,
                wirespeed_classify::arbiter::owner_runs_its_application(category),
            );
        }
    }
    Ok(by_id)
}

impl Default for Rules {
    fn default() -> Self {
        Rules::builtin()
    }
}

/// The port table's bit for a transport: TCP 1, UDP 2, SCTP 4.
fn transport_bit(l4: u8) -> Option<u8> {
    match l4 {
        6 => Some(1),
        17 => Some(2),
        132 => Some(4),
        _ => None,
    }
}

/// By label id, the transports on which the port table holds a port of the label's master.
fn port_masters(labels: &Labels, ports: &PortTable) -> Vec<u8> {
    let mut by_master: std::collections::HashMap<&str, u8> = Default::default();
    for (t, _, l) in ports.entries() {
        let bit = match t {
            "tcp" => 1,
            "udp" => 2,
            _ => 4,
        };
        *by_master.entry(labels.get(l).master()).or_default() |= bit;
    }
    (0..labels.len())
        .map(|i| {
            let m = labels.get(LabelId(i as u16)).master();
            by_master.get(m).copied().unwrap_or(0)
        })
        .collect()
}

/// For each class of the statistical model, the IP protocols its protocol runs over, as the
/// project's own definitions of that protocol say: the transports of the payload inspectors
/// and byte signatures that can name it (TLS's inspector reads TCP only; DTLS and QUIC, other
/// protocols, are UDP's), the transports of the port table's entries for it (nDPI's default
/// ports), and the IP protocol numbers that name it (ICMP: 1). A class none of them knows (an
/// application such as a service's name, from a model trained so) may name any flow: the set is
/// then all of them. Nothing here is taken from the model's training data, which only shows
/// where a protocol was seen, not where it cannot be.
fn model_l4s(
    labels: &Labels,
    port_masters: &[u8],
    dpi: &DpiRules,
    model: &Loaded,
) -> (Vec<[u64; 4]>, Vec<u16>) {
    use std::collections::HashMap;
    let add = |set: &mut [u64; 4], p: u8| set[usize::from(p >> 6)] |= 1 << (p & 63);
    let transports = |set: &mut [u64; 4], bits: u8| {
        if bits & wirespeed_dpi::TCP != 0 {
            add(set, 6);
        }
        if bits & wirespeed_dpi::UDP != 0 {
            add(set, 17);
        }
    };
    // Each class by its protocol's name: one lookup per name below (start-up stays lean).
    let class: HashMap<&str, usize> = model
        .labels
        .iter()
        .enumerate()
        .map(|(c, &id)| (labels.get(id).master(), c))
        .collect();
    let mut sets = vec![[0u64; 4]; model.labels.len()];
    let at = |name: &str| class.get(name).copied();
    let mut inspectors = Vec::new();
    for (i, ins) in wirespeed_dpi::proto::REGISTRY.iter().enumerate() {
        let mut names = false;
        for l in ins.labels {
            for c in [at(l.master), at(l.app)].into_iter().flatten() {
                transports(&mut sets[c], ins.transports);
                names = true;
            }
        }
        if names {
            inspectors.push(i as u16);
        }
    }
    for sig in dpi.signatures().sigs() {
        if let Some(c) = at(&sig.master) {
            transports(&mut sets[c], sig.transports);
        }
    }
    for p in 0..=255u8 {
        if let Some(c) = wirespeed_classify::ipproto::lookup(p).and_then(|l| at(l.master)) {
            add(&mut sets[c], p);
        }
    }
    for (set, &id) in sets.iter_mut().zip(&model.labels) {
        // The port table's entries of the class's protocol, by master ([`port_masters`]).
        let bits = port_masters.get(id.index()).copied().unwrap_or(0);
        for (bit, p) in [(1, 6), (2, 17), (4, 132)] {
            if bits & bit != 0 {
                add(set, p);
            }
        }
        if *set == [0; 4] {
            *set = [u64::MAX; 4];
        }
    }
    (sets, inspectors)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The built-in model's classes run where their protocols do: TLS and HTTP over TCP (and
    /// SCTP, where the port table has them), never UDP; QUIC over UDP only; DNS over both;
    /// ICMP over IP protocol 1 only (ICMPv6 is nDPI's `ICMPV6`); each set printed. A class
    /// nothing knows may name any flow.
    #[test]
    fn model_classes_run_where_their_protocols_do() {
        let r = Rules::builtin();
        let m = r.model().expect("built-in model");
        let class = |n: &str| {
            m.labels
                .iter()
                .position(|&l| r.labels().get(l).master() == n)
                .unwrap_or_else(|| panic!("no class {n}")) as u16
        };
        for (c, &l) in m.labels.iter().enumerate() {
            let on: Vec<u8> = (0..=255u8)
                .filter(|&p| r.model_admits(c as u16, p))
                .collect();
            let shown = if on.len() == 256 {
                "any".to_string()
            } else {
                format!("{on:?}")
            };
            println!("{:28} {shown}", r.labels().get(l).master());
        }
        let only = |n: &str, want: &[u8]| {
            let c = class(n);
            let on: Vec<u8> = (0..=255u8).filter(|&p| r.model_admits(c, p)).collect();
            assert_eq!(on, want, "{n}");
        };
        only("TLS", &[6, 132]);
        only("HTTP", &[6, 132]);
        only("QUIC", &[17]);
        only("DNS", &[6, 17]);
        only("ICMP", &[1]);
        assert!(
            r.model_admits(u16::MAX, 47),
            "no such class: no restriction"
        );
    }

    #[test]
    fn builtin_rules_load_and_name_their_labels() {
        let r = Rules::builtin();
        assert!(r.labels().len() > 200, "{}", r.labels().len());
        assert!(r.model().is_some());
        let tls = r.ports().flow(6, 443, 50000).unwrap();
        assert_eq!(r.labels().get(tls).master(), "TLS");
        assert!(!r.dpi().signatures().is_empty());
        // name_by_host reads TLS and DTLS by their place in NAMING.
        assert_eq!((NAMING[0].0, NAMING[2].0), ("TLS", "DTLS"));
    }

    #[test]
    fn bad_files_are_errors_naming_their_line() {
        let src = RuleSources {
            signatures: Some("A Web tcp \"x\"\nB Web sctp 41\n".into()),
            ..Default::default()
        };
        let e = Rules::load(&src).unwrap_err();
        assert!(
            matches!(&e, RulesError::Signatures(m) if m.contains("line 2")),
            "{e}"
        );
        let src = RuleSources {
            patterns: Some("ok\nbad \\q\n".into()),
            ..Default::default()
        };
        let e = Rules::load(&src).unwrap_err();
        assert!(
            matches!(&e, RulesError::Patterns(m) if m.contains("line 2")),
            "{e}"
        );
        let src = RuleSources {
            model: ModelSource::Bytes(b"not a model".to_vec()),
            ..Default::default()
        };
        assert!(matches!(Rules::load(&src), Err(RulesError::Model(_))));
    }
    /// STUN and DTLS to a calling application's relays: by the server's owner, Microsoft's only
    /// on Teams' media ports, Google's only in Meet's media blocks; any other label untouched.
    #[test]
    fn calls_by_the_relays_owner() {
        let r = Rules::builtin();
        let find = |m: &str, a: &str| {
            r.labels()
                .iter()
                .find(|(_, l)| l.master() == m && l.app() == a)
                .map(|(id, _)| id)
                .unwrap()
        };
        let (stun, dtls) = (find("STUN", "STUN"), find("DTLS", "DTLS"));
        let name = |l: Option<LabelId>| l.map(|l| r.labels().get(l).app().to_string());
        let ip = |s: &str| s.parse::<IpAddr>().unwrap();
        // 91.108.8.0/21 is Telegram's (AS62041) in data/app_networks.csv.
        assert_eq!(
            name(r.call_by_owner(stun, ip("91.108.9.35"), 1400)).as_deref(),
            Some("TelegramVoip")
        );
        assert_eq!(
            r.call_by_owner(dtls, ip("91.108.9.35"), 1400),
            Some(find("DTLS", "TelegramVoip"))
        );
        assert_eq!(
            name(r.call_by_owner(stun, ip("52.114.250.123"), 3478)).as_deref(),
            Some("Skype_TeamsCall")
        );
        assert_eq!(r.call_by_owner(stun, ip("52.114.250.123"), 443), None);
        assert_eq!(
            name(r.call_by_owner(stun, ip("142.250.82.99"), 3478)).as_deref(),
            Some("GoogleCall")
        );
        // Google's public STUN servers serve any WebRTC application.
        assert_eq!(r.call_by_owner(stun, ip("74.125.200.127"), 19302), None);
        assert_eq!(r.call_by_owner(stun, ip("192.0.2.1"), 3478), None);
        let tls = r.ports().flow(6, 443, 50000).unwrap();
        assert_eq!(r.call_by_owner(tls, ip("91.108.9.35"), 443), None);
    }
}
