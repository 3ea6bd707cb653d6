use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// python-wsdiscovery 2.1.2 (PyPI `wsdiscovery`): a client in one network namespace searching for
// a service published in another, captured with tcpdump (h2-wsd.pcap frame 5, the whole 488-byte
// multicast Probe to 239.255.255.250:3702). tshark 4.0.17 has no WS-Discovery dissector and shows
// "data"; the bytes are the SOAP envelope `<s:Envelope ...><a:Action>.../discovery/Probe`.
const PROBE: &str = "\
    3c3f786d6c2076657273696f6e3d22312e3022203f3e0a3c733a456e76656c6f706520786d6c6e733a613d22687474703a2f2f736368656d61732e78\
    6d6c736f61702e6f72672f77732f323030342f30382f61646472657373696e672220786d6c6e733a643d22687474703a2f2f736368656d61732e786d\
    6c736f61702e6f72672f77732f323030352f30342f646973636f766572792220786d6c6e733a733d22687474703a2f2f7777772e77332e6f72672f32\
    3030332f30352f736f61702d656e76656c6f7065223e0a093c733a4865616465723e0a09093c613a416374696f6e3e687474703a2f2f736368656d61\
    732e786d6c736f61702e6f72672f77732f323030352f30342f646973636f766572792f50726f62653c2f613a416374696f6e3e0a09093c613a4d6573\
    7361676549443e75726e3a757569643a37633731613864652d313237332d343366622d393931382d6364613234323964353263323c2f613a4d657373\
    61676549443e0a09093c613a546f3e75726e3a736368656d61732d786d6c736f61702d6f72673a77733a323030353a30343a646973636f766572793c\
    2f613a546f3e0a093c2f733a4865616465723e0a093c733a426f64793e0a09093c643a50726f62652f3e0a093c2f733a426f64793e0a3c2f733a456e\
    76656c6f70653e0a\
";

#[test]
fn wsdiscovery_probe() {
    let v = hex(PROBE);
    assert_eq!(v.len(), 488);
    assert_eq!(classify(UDP, 3702, 41340, &[(true, &v)]), Some("WSD"));
    // A ProbeMatch goes to the searcher's own port: the namespace suffices.
    assert_eq!(run(&INSPECTOR, UDP, 41340, 3702, true, &v), Probe::Certain(&LABEL));
}

#[test]
fn near_misses() {
    let v = hex(PROBE);
    // Other SOAP over UDP, without the discovery namespace.
    let s = String::from_utf8(v.clone()).unwrap().replace("ws/2005/04/discovery", "ws/2005/04/elsewhere");
    assert_eq!(run(&INSPECTOR, UDP, 3702, 41340, false, s.as_bytes()), Probe::NotForUs);
    // Not XML at the start.
    let mut w = v.clone();
    w[0] = b'x';
    assert_eq!(run(&INSPECTOR, UDP, 3702, 41340, false, &w), Probe::NotForUs);
    // No envelope.
    let s = String::from_utf8(v).unwrap().replace("Envelope", "Envelop_");
    assert_eq!(run(&INSPECTOR, UDP, 3702, 41340, false, s.as_bytes()), Probe::NotForUs);
}
