use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// jabber.pcap frames 6 and 8: the XML declaration alone, then the stream element.
const DECL: &str = "3c3f786d6c2076657273696f6e3d27312e3027203f3e";
const STREAM: &str = "3c73747265616d3a73747265616d20746f3d2763732d786d70702e6c616e2720786d6c6e733d276a61626265723a636c69656e7427";

#[test]
fn corpus_vectors() {
    let (a, b) = (hex(DECL), hex(STREAM));
    assert_eq!(classify(TCP, 5222, 57094, &[(true, &a), (true, &b)]), Some("Jabber"));
}

#[test]
fn stanzas_mid_stream() {
    // jabber.pcap, flow 57149: a presence stanza (start and end of it).
    let p = b"<presence to='chat-with-tom@conference.cs-xmpp.lan/tom'><x/></presence>";
    assert_eq!(classify(TCP, 5222, 57149, &[(true, p)]), Some("Jabber"));
    assert_eq!(run(&INSPECTOR, TCP, 5222, 4000, false, b"<message>hi"), Probe::NotForUs);
}

#[test]
fn other_xml_is_not_jabber() {
    assert_eq!(run(&INSPECTOR, TCP, 5222, 4000, false, &hex(DECL)), Probe::Unsure);
    assert_eq!(
        run(&INSPECTOR, TCP, 80, 4000, false, b"<?xml version='1.0'?><soap:Envelope>"),
        Probe::NotForUs
    );
}

/// STARTTLS as Prosody 0.12 and slixmpp spoke it (scripts/netcap `netcap.py xmpp`; tshark
/// 4.0.17: xmpp, then tls): the stream stays Jabber and the TLS inspector is handed the hello.
#[test]
fn starttls_hands_the_stream_to_tls() {
    let open: &[u8] = b"<stream:stream to='xmpp.example.org' \
        xmlns:stream='http://etherx.jabber.org/streams' xmlns='jabber:client' xml:lang='en' \
        version='1.0'>";
    let ask: &[u8] = b"<starttls xmlns=\"urn:ietf:params:xml:ns:xmpp-tls\" />";
    let proceed: &[u8] = b"<proceed xmlns='urn:ietf:params:xml:ns:xmpp-tls'/>";
    let hello = crate::tests::vector!("tls_client_hello");
    let flow = [(true, open), (true, ask), (false, proceed), (true, &hello[..])];
    let (l, ja3) =
        crate::proto::testkit::classify_meta(TCP, 5222, 35230, &flow, Some(crate::Field::Ja3c));
    assert_eq!(l, Some("Jabber"));
    assert!(ja3.is_some(), "the hello after <proceed/> is read");
    // Without the server's <proceed/>, the hello is not TLS's to read.
    let refused: &[u8] = b"<failure xmlns='urn:ietf:params:xml:ns:xmpp-tls'/>";
    let flow = [(true, open), (true, ask), (false, refused), (true, &hello[..])];
    let (_, ja3) =
        crate::proto::testkit::classify_meta(TCP, 5222, 35230, &flow, Some(crate::Field::Ja3c));
    assert_eq!(ja3, None);
}
