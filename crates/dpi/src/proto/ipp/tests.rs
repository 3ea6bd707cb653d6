use super::*;
use crate::proto::testkit::{hex, probe as run};
use crate::{DpiConfig, Packet};

/// The application name the whole registry gives a flow of these client packets on `port`.
fn app(port: u16, pkts: &[&[u8]]) -> Option<String> {
    let (mut dpi, labels) = crate::tests::engine(DpiConfig::default());
    let mut h = crate::NO_HANDLE;
    let mut seq = 1000u32;
    let mut found = None;
    for payload in pkts {
        let p = Packet {
            ip_proto: 6,
            server_port: port,
            client_port: 48876,
            from_client: true,
            seq,
            multicast: false,
            server_ip: crate::NO_ADDR,
            client_ip: crate::NO_ADDR,
            payload,
        };
        seq = seq.wrapping_add(payload.len() as u32);
        if let Some(l) = dpi.inspect(&mut h, &p) {
            let l = labels.get(l);
            found = Some(format!("{}.{}", l.master(), l.app()));
        }
    }
    found
}

// Made here: CUPS 2.4.2 (Debian cups-daemon 2.4.2-3+deb12u9, `cupsd -f` listening on
// 192.0.2.2:631) and cups-ipp-utils' `ipptool -t ipp://192.0.2.2:631/ get-printers.test` from
// 192.0.2.1 in network namespaces, captured with tcpdump; tshark dissects the request as
// `http:ipp` ("IPP Request (CUPS-Get-Printers)"). Frame 16, the request's headers:
// "POST / HTTP/1.1", "Content-Length: 72", "Content-Type: application/ipp", Date, Host,
// "User-Agent: CUPS/2.4.2 (...) IPP/2.0", Accept-Encoding, "Expect: 100-continue".
const REQUEST: &str = "504f5354202f20485454502f312e310d0a436f6e74656e742d4c656e6774683a2037320d0a\
    436f6e74656e742d547970653a206170706c69636174696f6e2f6970700d0a446174653a205765642c203235204e\
    6f7620323032362030313a32383a313120474d540d0a486f73743a203139322e302e322e323a3633310d0a557365\
    722d4167656e743a20435550532f322e342e3220284c696e757820362e31382e34342d66632d763539353b207838\
    365f363429204950502f322e300d0a4163636570742d456e636f64696e673a206465666c6174652c20677a69702c\
    206964656e746974790d0a4578706563743a203130302d636f6e74696e75650d0a0d0a";

#[test]
fn captured_request() {
    let r = hex(REQUEST);
    assert_eq!(run(&INSPECTOR, TCP, 631, 48876, false, &r), Probe::Certain(&LABEL));
    // On 631 IPP is tried before HTTP.
    assert_eq!(app(631, &[&r]).as_deref(), Some("HTTP.IPP"));
    // Headers cut after the request line: the rest is read reassembled.
    assert_eq!(run(&INSPECTOR, TCP, 631, 48876, false, &r[..17]), Probe::Unsure);
}

#[test]
fn other_posts_refused() {
    let json = b"POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\r\n";
    let none = b"POST / HTTP/1.1\r\nHost: x\r\n\r\n";
    let ippx = b"POST / HTTP/1.1\r\nContent-Type: application/ipp-x\r\n\r\n";
    let get = b"GET / HTTP/1.1\r\nContent-Type: application/ipp\r\n\r\n";
    let version = b"POST / FOO/1.1\r\nContent-Type: application/ipp\r\n";
    for bad in [&json[..], none, ippx, get, version] {
        assert_eq!(run(&INSPECTOR, TCP, 631, 4000, false, bad), Probe::NotForUs, "{bad:?}");
    }
    // A JSON POST on 631 stays HTTP.
    assert_eq!(app(631, &[json]).as_deref(), Some("HTTP.HTTP"));
    // Parameters and case.
    let ok = b"POST /printers/p HTTP/1.0\r\ncontent-type: Application/IPP; charset=utf-8\r\n\r\n";
    assert_eq!(run(&INSPECTOR, TCP, 631, 4000, false, ok), Probe::Certain(&LABEL));
}
