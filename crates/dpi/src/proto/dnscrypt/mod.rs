//! DNSCrypt's encrypted messages (protocol v2, <https://dnscrypt.info/protocol>). The session's
//! certificate query is plain DNS (`2.dnscrypt-cert.…`, labelled by the `dns` inspector); every
//! later query is opaque, but each response starts with the fixed resolver magic `r6fnvWj8`
//! (over TCP after a two-byte length). Queries start with a client magic taken from the
//! resolver's certificate, which nothing outside the session knows, so the client's packets
//! only wait for the server's answer.

use crate::proto::dns::DNSCRYPT;
use crate::{Cx, Dir, Inspector, Probe, TCP, UDP};

/// The DNSCrypt inspector.
pub static INSPECTOR: Inspector = Inspector {
    name: "dnscrypt",
    transports: UDP | TCP,
    ports: &[443, 5443, 8443],
    labels: &[&DNSCRYPT],
    // A query is at least client magic, public key and nonce half: 8 + 32 + 12 bytes.
    min_udp: 52,
    ports_required: false,
    probe,
};

/// The resolver magic that opens every DNSCrypt v2 response.
const RESOLVER_MAGIC: &[u8; 8] = b"r6fnvWj8";

fn probe(cx: &mut Cx<'_>) -> Probe {
    let d = if cx.hints.transport == TCP {
        cx.data.get(2..).unwrap_or(&[])
    } else {
        cx.data
    };
    match cx.hints.dir {
        // Nothing to check in a query; the first answer decides.
        Dir::ToServer if cx.hints.nth == 0 => Probe::Unsure,
        Dir::ToServer => Probe::NotForUs,
        Dir::ToClient if d.starts_with(RESOLVER_MAGIC) => Probe::Certain(&DNSCRYPT),
        Dir::ToClient => Probe::NotForUs,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::testkit::{classify, hex, probe};

    /// dnscrypt-v1-and-resolver-pings.pcap, flow 10.0.0.1:38660 <-> 144.91.106.227:443: the
    /// first 64 bytes of the query (576 in all) and of the response (240).
    fn query() -> Vec<u8> {
        hex("1b3dcb4684181aaecad4bd267f93c80a15083e2b5f5373f5c5db9eda84a2e7db
             38d7100d98595c0c2374b08d5a7ec0e007b838cf7c1a2d20c2da8f5aa441c6ae")
    }
    fn response() -> Vec<u8> {
        hex("7236666e76576a382374b08d5a7ec0e007b838cf95f794c41fec043d68c252a0
             0fa8b80acf4df3b20c5b7900ffe5e710b00e117d10515622dbf5e81ccf2b23b7")
    }

    #[test]
    fn a_query_waits_for_the_resolver_magic() {
        assert_eq!(probe(&INSPECTOR, UDP, 443, 38660, false, &query()), Probe::Unsure);
        assert_eq!(
            probe(&INSPECTOR, UDP, 443, 38660, true, &response()),
            Probe::Certain(&DNSCRYPT)
        );
        // The whole registry: no other inspector claims the flow first (QUIC, on 443).
        assert_eq!(
            classify(UDP, 443, 38660, &[(true, &query()), (false, &response())]),
            Some("DNScrypt")
        );
    }

    #[test]
    fn other_answers_are_not_dnscrypt() {
        let mut r = response();
        r[0] = b'R';
        assert_eq!(probe(&INSPECTOR, UDP, 443, 38660, true, &r), Probe::NotForUs);
        assert_eq!(classify(UDP, 443, 38660, &[(true, &query()), (false, &r)]), None);
    }

    #[test]
    fn over_tcp_a_length_comes_first() {
        let mut t = vec![0x00, 0xf0];
        t.extend_from_slice(&response());
        assert_eq!(
            probe(&INSPECTOR, TCP, 443, 38660, true, &t),
            Probe::Certain(&DNSCRYPT)
        );
    }
}
