//! Transaction events (`--events FILE`, docs/EVENTS.md): the DNS, HTTP and TLS transactions
//! payload inspection reads, one JSON line each, joined to the flows' records by `flow_id`.
//!
//! The inspectors write them as they parse ([`wirespeed_dpi::events`]) into their worker's
//! bounded store; the worker takes the complete ones after each packet and after each flow's
//! end, names their flow (id, end-points) and formats them into its own buffer
//! ([`wirespeed_export::events::EventWriter`]), which hands whole lines to the run's shared
//! output, as the record writers do. Without `--events` none of this exists: the worker pays
//! one predictable branch a packet.

use std::io::{self, Write};
use std::sync::Arc;
use wirespeed_dpi::events::{Events, TxField, TxKind, TxVal, MAX_ANSWERS};
use wirespeed_export::events::{DnsEvent, Event, EventHead, EventWriter, HttpEvent, TlsEvent};

/// Where a run's transaction events go: each worker asks `make` for its own handle to the
/// shared output (a [`wirespeed_export::shared::SharedWriter`] or
/// [`wirespeed_export::shared::LossyWriter`] clone) and writes whole lines to it.
#[derive(Clone)]
pub struct EventsConfig {
    make: Arc<dyn Fn() -> Box<dyn Write + Send> + Send + Sync>,
}

impl EventsConfig {
    /// Events written to what `make` returns (called once per worker).
    pub fn new(make: impl Fn() -> Box<dyn Write + Send> + Send + Sync + 'static) -> Self {
        EventsConfig {
            make: Arc::new(make),
        }
    }
}

impl std::fmt::Debug for EventsConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("EventsConfig")
    }
}

/// A worker's event output.
pub(crate) struct EventOut {
    w: EventWriter<Box<dyn Write + Send>>,
    error: Option<io::Error>,
}

impl EventOut {
    pub(crate) fn new(cfg: &EventsConfig) -> Self {
        EventOut {
            w: EventWriter::new((cfg.make)()),
            error: None,
        }
    }

    /// Events written so far.
    pub(crate) fn written(&self) -> u64 {
        self.w.written
    }

    /// Write the complete transactions `ev` holds, each as an event of its flow (`flow_id`
    /// makes a flow's `flow_id` of the engine's number for it), and forget them. A write error
    /// is kept for [`EventOut::take_error`].
    #[inline]
    pub(crate) fn take(&mut self, ev: &mut Events, flow_id: impl Fn(u64) -> u64) {
        if !ev.has_ready() {
            return;
        }
        for tx in ev.ready() {
            let who = tx.who();
            let head = EventHead {
                ts_ns: tx.ts(),
                flow_id: flow_id(who.flow),
                src: who.client,
                dst: who.server,
                ip_proto: who.ip_proto,
                truncated: tx.truncated(),
            };
            let r = match tx.kind() {
                TxKind::Dns => {
                    let mut answers = [""; MAX_ANSWERS];
                    let mut ttls = [0u32; MAX_ANSWERS];
                    let (mut na, mut nt) = (0, 0);
                    for v in tx.all(TxField::DnsAnswer) {
                        if let (TxVal::Text(a), true) = (v, na < MAX_ANSWERS) {
                            answers[na] = a;
                            na += 1;
                        }
                    }
                    for v in tx.all(TxField::DnsTtl) {
                        if let (TxVal::Num(t), true) = (v, nt < MAX_ANSWERS) {
                            ttls[nt] = t.min(u64::from(u32::MAX)) as u32;
                            nt += 1;
                        }
                    }
                    // The response's flags are written after the query's: the last stands.
                    let flags = tx.all(TxField::DnsFlags).filter_map(num).last();
                    let d = DnsEvent {
                        trans_id: tx.num(TxField::DnsId).map(|v| v as u16),
                        rtt_us: tx.end_ts().map(|e| e.saturating_sub(tx.ts()) / 1000),
                        query: tx.text(TxField::DnsQuery),
                        qclass: tx.num(TxField::DnsQclass).map(|v| v as u16),
                        qtype: tx.num(TxField::DnsQtype).map(|v| v as u16),
                        rcode: tx.num(TxField::DnsRcode).map(|v| v as u8),
                        flags: flags.map(|v| v as u8),
                        answers: &answers[..na],
                        ttls: &ttls[..nt],
                    };
                    self.w.write(&head, &Event::Dns(d))
                }
                TxKind::Http => {
                    let h = HttpEvent {
                        trans_depth: tx.num(TxField::HttpDepth).map(|v| v as u32),
                        method: tx.text(TxField::HttpMethod),
                        host: tx.text(TxField::HttpHost),
                        uri: tx.text(TxField::HttpUri),
                        user_agent: tx.text(TxField::HttpUserAgent),
                        request_body_len: tx.num(TxField::HttpReqLen),
                        status: tx.num(TxField::HttpStatus).map(|v| v as u16),
                        content_type: tx.text(TxField::HttpContentType),
                        response_body_len: tx.num(TxField::HttpRespLen),
                    };
                    self.w.write(&head, &Event::Http(h))
                }
                TxKind::Tls => {
                    let t = TlsEvent {
                        version: tx.text(TxField::TlsVersion),
                        sni: tx.text(TxField::TlsSni),
                        alpn: tx.text(TxField::TlsAlpn),
                        cipher: tx.num(TxField::TlsCipher).map(|v| v as u16),
                        ja3: tx.text(TxField::TlsJa3),
                        ja4: tx.text(TxField::TlsJa4),
                        subject: tx.text(TxField::TlsSubject),
                        issuer: tx.text(TxField::TlsIssuer),
                    };
                    self.w.write(&head, &Event::Tls(t))
                }
            };
            if let (Err(e), None) = (r, &self.error) {
                self.error = Some(e);
            }
        }
        ev.clear_ready();
    }

    /// Hand what is buffered to the output.
    pub(crate) fn finish(&mut self) -> io::Result<()> {
        self.take_error()?;
        self.w.finish()
    }

    /// The first write error since the last call.
    pub(crate) fn take_error(&mut self) -> io::Result<()> {
        match self.error.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

fn num(v: TxVal<'_>) -> Option<u64> {
    match v {
        TxVal::Num(n) => Some(n),
        TxVal::Text(_) => None,
    }
}
