use super::*;
use crate::tests::{probe, to_server, vector};
use crate::Hints;

/// 1kxun.pcap, frame 1150: a request; expected values from flows.csv (nDPI) and tshark.
#[test]
fn request_from_corpus() {
    let (r, m) = probe(&INSPECTOR, to_server(TCP, 80), &vector!("http_request"));
    assert_eq!(r, Probe::Certain(&LABEL));
    assert_eq!(m.get(Field::HttpMethod), Some("GET"));
    assert_eq!(m.get(Field::HttpHost), Some("mangaweb.1kxun.mobi"));
    assert_eq!(
        m.get(Field::UserAgent),
        Some("Mozilla/5.0 (Linux; Android 11; sdk_gphone_x86 Build/RSR1.201013.001; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/83.0.4103.106 Mobile Safari/537.36")
    );
    assert!(m
        .get(Field::Url)
        .unwrap()
        .starts_with("mangaweb.1kxun.mobi/detail?id=27159&sytjdt&_in_app=kankan"));
}

/// 1kxun.pcap, frame 1151: first segment of the answer (tshark: code 200 on the reassembled
/// response).
#[test]
fn response_from_corpus() {
    let h = Hints {
        dir: Dir::ToClient,
        ..to_server(TCP, 80)
    };
    let (r, m) = probe(&INSPECTOR, h, &vector!("http_response"));
    assert_eq!(r, Probe::Certain(&LABEL));
    assert_eq!(m.get(Field::HttpStatus), Some("200"));
}

#[test]
fn proxy_and_connect_and_not_http() {
    let h = to_server(TCP, 3128);
    let (r, _) = probe(
        &INSPECTOR,
        h,
        b"GET http://a.b/ HTTP/1.1\r\nHost: a.b\r\n\r\n",
    );
    assert_eq!(r, Probe::Certain(&PROXY));
    let (r, _) = probe(
        &INSPECTOR,
        h,
        b"CONNECT a.b:443 HTTP/1.1\r\nHost: a.b\r\n\r\n",
    );
    assert_eq!(r, Probe::Certain(&CONNECT));
    let (r, _) = probe(&INSPECTOR, h, b"GETTING STARTED\r\n");
    assert_eq!(r, Probe::NotForUs);
    let (r, _) = probe(&INSPECTOR, h, b"GE");
    assert_eq!(r, Probe::Unsure);
}

/// RFC 9113 §3.4: a client speaking HTTP/2 over cleartext TCP without an upgrade opens with
/// the 24-byte preface, then a SETTINGS frame (§6.5: length 0, type 4, flags 0, stream 0).
/// nDPI names such a flow HTTP2 (its http2.pcapng, port 29518). Cut short, it is not.
#[test]
fn h2c_preface_is_http2() {
    let mut first = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".to_vec();
    first.extend_from_slice(&[0, 0, 0, 4, 0, 0, 0, 0, 0]);
    assert_eq!(
        crate::proto::testkit::classify(TCP, 29518, 40000, &[(true, &first)]),
        Some("HTTP2")
    );
    assert_eq!(
        crate::proto::testkit::classify(TCP, 29518, 40000, &[(true, &first[..20])]),
        None
    );
}

/// http_starting_with_reply.pcapng: the capture starts inside a response (frames 1-3, status
/// 200 in frame 3); the client's next request (frame 5) carries the host tshark shows,
/// proxy.wiresharkfest.acropolis.local (the request is cut here to its request line and Host
/// header, the status to its head). The response still names the flow HTTP, and the later
/// request is read.
#[test]
fn a_request_after_a_response_is_still_read() {
    use crate::proto::testkit::classify_meta;
    let status = b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
    let get =
        b"GET /icons/ubuntu-logo.png HTTP/1.1\r\nHost: proxy.wiresharkfest.acropolis.local\r\n\r\n";
    let pkts = [(false, &status[..]), (true, &get[..])];
    let (label, host) = classify_meta(TCP, 80, 1044, &pkts, Some(Field::HttpHost));
    assert_eq!(label, Some("HTTP"));
    assert_eq!(host.as_deref(), Some("proxy.wiresharkfest.acropolis.local"));
    // As the capture has it: no SYN, so the response's sender (port 80) is taken for the
    // client, and the request comes from the "server".
    let pkts = [(true, &status[..]), (false, &get[..])];
    let (label, host) = classify_meta(TCP, 1044, 80, &pkts, Some(Field::HttpHost));
    assert_eq!(label, Some("HTTP"));
    assert_eq!(host.as_deref(), Some("proxy.wiresharkfest.acropolis.local"));
    let (_, code) = classify_meta(TCP, 1044, 80, &pkts, Some(Field::HttpStatus));
    assert_eq!(code.as_deref(), Some("200"));
}

/// HTTP/2 with prior knowledge where the server's preface comes first: nghttpd 1.52.0 (Debian
/// nghttp2-server) sends its SETTINGS frame on accept, before nghttp's connection preface
/// (scripts/netcap `netcap.py h2`; tshark 4.0.17: http2 SETTINGS, then the magic).
#[test]
fn http2_server_preface_first() {
    use crate::proto::testkit::{classify, hex};
    let settings = hex("000006040000000000000300000064");
    let client = hex(
        "505249202a20485454502f322e300d0a0d0a534d0d0a0d0a00000c04000000000000030000006400040000ffff",
    );
    let flow = [(false, &settings[..]), (true, &client[..])];
    assert_eq!(classify(crate::TCP, 8080, 33368, &flow), Some("HTTP2"));
    // A SETTINGS frame alone names nothing, and a frame of another type is not waited on.
    assert_eq!(classify(crate::TCP, 8080, 33368, &flow[..1]), None);
    let mut ping = settings.clone();
    ping[3] = 6;
    assert_eq!(
        crate::proto::testkit::probe(&INSPECTOR, crate::TCP, 8080, 33368, true, &ping),
        Probe::NotForUs
    );
}

/// `MASTER.APP` as the whole registry names a flow of these packets (`true`: from the client),
/// the last label reported (a finer one replaces the first).
fn named(port: u16, pkts: &[(bool, &[u8])]) -> Option<String> {
    let (mut dpi, labels) = crate::tests::engine(crate::DpiConfig::default());
    let mut h = crate::NO_HANDLE;
    let mut seq = [1000u32, 5000u32];
    let mut found = None;
    for &(from_client, payload) in pkts {
        let d = usize::from(!from_client);
        let p = crate::Packet {
            ip_proto: 6,
            server_port: port,
            client_port: 48876,
            from_client,
            seq: seq[d],
            multicast: false,
            server_ip: crate::NO_ADDR,
            client_ip: crate::NO_ADDR,
            payload,
            ts: 0,
            flow: 0,
            owner: 0,
        };
        seq[d] = seq[d].wrapping_add(payload.len() as u32);
        if let Some(l) = dpi.inspect(&mut h, &p) {
            let l = labels.get(l);
            found = Some(format!("{}.{}", l.master(), l.app()));
        }
    }
    found
}

use crate::proto::testkit::hex;

// Made here (the commands are in the comment above each vector): servers in one network
// namespace (192.0.2.2), clients in another (192.0.2.1), captured with tcpdump on the veth;
// tshark 4.0.17 dissects every request and response below as `http` (OCSP bodies as
// `http:ocsp`). Vectors are whole TCP payloads unless said otherwise.

// WsgiDAV 4.4.0 (pip, `wsgidav` on port 8080, anonymous) and curl 7.88.1:
// `curl -X PROPFIND -H 'Depth: 1' http://192.0.2.2:8080/` (answered 207 Multi-Status),
// `curl -X MKCOL .../newdir`, `curl -X MOVE -H 'Destination: .../b.txt' .../a.txt`.
const PROPFIND: &str =
    "50524f5046494e44202f20485454502f312e310d0a486f73743a203139322e302e322e323a383038300d0a557365\
    722d4167656e743a206375726c2f372e38382e310d0a4163636570743a202a2f2a0d0a44657074683a20310d0a0d\
    0a";
const MKCOL: &str =
    "4d4b434f4c202f6e657764697220485454502f312e310d0a486f73743a203139322e302e322e323a383038300d0a\
    557365722d4167656e743a206375726c2f372e38382e310d0a4163636570743a202a2f2a0d0a0d0a";
const MOVE: &str =
    "4d4f5645202f612e74787420485454502f312e310d0a486f73743a203139322e302e322e323a383038300d0a5573\
    65722d4167656e743a206375726c2f372e38382e310d0a4163636570743a202a2f2a0d0a44657374696e6174696f\
    6e3a20687474703a2f2f3139322e302e322e323a383038302f622e7478740d0a0d0a";

/// nDPI names every flow of webdav.pcap (PROPFIND, MKCOL, MOVE, COPY, LOCK, UNLOCK, PROPPATCH
/// from curl and Microsoft-WebDAV-MiniRedir) HTTP.WebDAV on the request.
#[test]
fn webdav_methods() {
    for v in [PROPFIND, MKCOL, MOVE] {
        assert_eq!(
            named(8080, &[(true, &hex(v))]).as_deref(),
            Some("HTTP.WebDAV"),
            "{v}"
        );
    }
    // The answer does not undo it (a 207 with the media type of wsgidav's, head only).
    let ok = b"HTTP/1.1 207 Multi-Status\r\nContent-Type: application/xml; charset=utf-8\r\n\r\n";
    let flow = [(true, &hex(PROPFIND)[..]), (false, &ok[..])];
    assert_eq!(named(8080, &flow).as_deref(), Some("HTTP.WebDAV"));
    // Near misses: a GET with WebDAV's headers, a method that only starts like one.
    let get = b"GET /a.txt HTTP/1.1\r\nHost: x\r\nDepth: 1\r\nDestination: http://x/b\r\n\r\n";
    assert_eq!(named(8080, &[(true, get)]).as_deref(), Some("HTTP.HTTP"));
    let other = b"PROPFINDX / HTTP/1.1\r\nHost: x\r\n\r\n";
    assert_eq!(named(8080, &[(true, other)]), None);
}

// OpenSSL 3.0.19 (Debian openssl): a CA and a leaf made with `openssl req`/`openssl x509`, the
// responder `openssl ocsp -index index.txt -port 2560 -rsigner ca.crt -rkey ca.key -CA ca.crt`,
// the client `openssl ocsp -issuer ca.crt -cert leaf.crt -url http://192.0.2.2:2560/`: its
// POST's head (frame 64; the DER request follows in its own segment), and the response's head
// with the first 16 bytes of its DER body (frame 68, cut here).
const OCSP_POST_HEAD: &str =
    "504f5354202f20485454502f312e300d0a486f73743a203139322e302e322e320d0a436f6e74656e742d54797065\
    3a206170706c69636174696f6e2f6f6373702d726571756573740d0a436f6e74656e742d4c656e6774683a203132\
    340d0a0d0a";
const OCSP_POST_RESP: &str =
    "485454502f312e3020323030204f4b0d0a436f6e74656e742d747970653a206170706c69636174696f6e2f6f6373\
    702d726573706f6e73650d0a436f6e74656e742d4c656e6774683a20313237300d0a0d0a308204f20a0100a08204\
    eb308204e706";

// The GET form (RFC 6960 A.1.1: the base64 of the DER request, URL-encoded, as the path), the
// request `openssl ocsp -reqout` wrote, sent by curl 7.88.1 to the same responder; its answer's
// head and 16 bytes of its body (frames 76 and 78).
const OCSP_GET: &str =
    "474554202f4d465577557a42524d4538775454414a4267557244674d434767554142425464446674546b32773751\
    4c586d4825324254657779645871456d6830515155547944497268655141567048634673453869393872334b4867\
    3973434648676932414a756754426d4a663170493061476c49436b3671466a20485454502f312e310d0a486f7374\
    3a203139322e302e322e323a323536300d0a557365722d4167656e743a2068342d6f6373702d6765740d0a416363\
    6570743a202a2f2a0d0a0d0a";
const OCSP_GET_RESP: &str =
    "485454502f312e3020323030204f4b0d0a436f6e74656e742d747970653a206170706c69636174696f6e2f6f6373\
    702d726573706f6e73650d0a436f6e74656e742d4c656e6774683a20313233330d0a0d0a308204cd0a0100a08204\
    c6308204c206";

/// ocsp.pcapng: nDPI names the POSTs HTTP.OCSP on the request, the GETs on the answer.
#[test]
fn ocsp_request_and_answer() {
    let post = hex(OCSP_POST_HEAD);
    assert_eq!(named(2560, &[(true, &post)]).as_deref(), Some("HTTP.OCSP"));
    let get = hex(OCSP_GET);
    assert_eq!(named(2560, &[(true, &get)]).as_deref(), Some("HTTP.HTTP"));
    let resp = hex(OCSP_GET_RESP);
    let flow = [(true, &get[..]), (false, &resp[..])];
    assert_eq!(named(2560, &flow).as_deref(), Some("HTTP.OCSP"));
    let flow = [(true, &post[..]), (false, &hex(OCSP_POST_RESP)[..])];
    assert_eq!(named(2560, &flow).as_deref(), Some("HTTP.OCSP"));
    // Near misses: another media type, the request's type with GET, the answer's type in a
    // request.
    let other = String::from_utf8(post.clone()).unwrap();
    for bad in [
        other.replace("ocsp-request", "ocsp-requests"),
        other.replace("POST", "PUT"),
        other.replace("ocsp-request", "ocsp-response"),
    ] {
        assert_eq!(
            named(2560, &[(true, bad.as_bytes())]).as_deref(),
            Some("HTTP.HTTP"),
            "{bad}"
        );
    }
    let plain = b"HTTP/1.0 200 OK\r\nContent-type: application/octet-stream\r\n\r\n";
    let flow = [(true, &get[..]), (false, &plain[..])];
    assert_eq!(named(2560, &flow).as_deref(), Some("HTTP.HTTP"));
}

// ffmpeg 5.1.9 (Debian) wrote an HLS playlist (`-f hls`, segments out0.ts, out1.ts) and a DASH
// MPD (`-f dash`, segments .m4s) of its test source; Python 3.11.7's `http.server` served them,
// ffmpeg (Lavf/59.27.100) read them back (`ffmpeg -i http://192.0.2.2:8000/hls/out.m3u8 -c copy
// -f null -`): the playlist's GET and the head of its answer (frames 86, 88; the playlist
// follows in its own segment), the MPD's (126, 128), the GET of the DASH init segment (136).
const HLS_GET: &str =
    "474554202f686c732f6f75742e6d33753820485454502f312e310d0a557365722d4167656e743a204c6176662f35\
    392e32372e3130300d0a4163636570743a202a2f2a0d0a52616e67653a2062797465733d302d0d0a436f6e6e6563\
    74696f6e3a20636c6f73650d0a486f73743a203139322e302e322e323a383030300d0a4963792d4d657461446174\
    613a20310d0a0d0a";
const HLS_HEAD: &str =
    "485454502f312e3020323030204f4b0d0a5365727665723a2053696d706c65485454502f302e3620507974686f6e\
    2f332e31312e370d0a446174653a205765642c203235204e6f7620323032362030313a35343a353720474d540d0a\
    436f6e74656e742d747970653a206170706c69636174696f6e2f766e642e6170706c652e6d70656775726c0d0a43\
    6f6e74656e742d4c656e6774683a203134300d0a4c6173742d4d6f6469666965643a205765642c203235204e6f76\
    20323032362030313a35343a323920474d540d0a0d0a";
const MPD_GET: &str =
    "474554202f646173682f6f75742e6d706420485454502f312e310d0a557365722d4167656e743a204c6176662f35\
    392e32372e3130300d0a4163636570743a202a2f2a0d0a52616e67653a2062797465733d302d0d0a436f6e6e6563\
    74696f6e3a20636c6f73650d0a486f73743a203139322e302e322e323a383030300d0a4963792d4d657461446174\
    613a20310d0a0d0a";
const MPD_HEAD: &str =
    "485454502f312e3020323030204f4b0d0a5365727665723a2053696d706c65485454502f302e3620507974686f6e\
    2f332e31312e370d0a446174653a205765642c203235204e6f7620323032362030313a35343a353720474d540d0a\
    436f6e74656e742d747970653a206170706c69636174696f6e2f646173682b786d6c0d0a436f6e74656e742d4c65\
    6e6774683a20313232370d0a4c6173742d4d6f6469666965643a205765642c203235204e6f762032303236203031\
    3a35343a323920474d540d0a0d0a";
const M4S_GET: &str =
    "474554202f646173682f696e69742d73747265616d302e6d347320485454502f312e310d0a557365722d4167656e\
    743a204c6176662f35392e32372e3130300d0a4163636570743a202a2f2a0d0a52616e67653a2062797465733d30\
    2d0d0a436f6e6e656374696f6e3a20636c6f73650d0a486f73743a203139322e302e322e323a383030300d0a4963\
    792d4d657461446174613a20310d0a0d0a";

/// hls.pcapng: nDPI names the playlist's flow HTTP.HLS on the answer's media type; the GET of
/// a `.m3u8` alone is HTTP (quickplay.pcap). 1kxun.pcap: a GET of a `.mp4` is HTTP.MpegDash, and
/// so is one of a `.m4s`; the MPD's flow stays HTTP (nDPI's MpegDash tests do not cover it).
#[test]
fn hls_and_dash() {
    let get = hex(HLS_GET);
    assert_eq!(named(8000, &[(true, &get)]).as_deref(), Some("HTTP.HTTP"));
    let flow = [(true, &get[..]), (false, &hex(HLS_HEAD)[..])];
    assert_eq!(named(8000, &flow).as_deref(), Some("HTTP.HLS"));
    let mpd = hex(MPD_GET);
    assert_eq!(named(8000, &[(true, &mpd)]).as_deref(), Some("HTTP.HTTP"));
    let flow = [(true, &mpd[..]), (false, &hex(MPD_HEAD)[..])];
    assert_eq!(named(8000, &flow).as_deref(), Some("HTTP.HTTP"));
    assert_eq!(
        named(8000, &[(true, &hex(M4S_GET))]).as_deref(),
        Some("HTTP.MpegDash")
    );
    // Near misses: a query after the name (nDPI's test is on the request line's end), another
    // extension, a media type like HLS's, a PUT of a segment.
    let txt = String::from_utf8(hex(M4S_GET)).unwrap();
    for bad in [
        txt.replace(".m4s", ".m4s?x=1"),
        txt.replace(".m4s", ".m4a"),
        txt.replace("GET", "PUT"),
    ] {
        assert_eq!(
            named(8000, &[(true, bad.as_bytes())]).as_deref(),
            Some("HTTP.HTTP"),
            "{bad}"
        );
    }
    // A request carrying MP4 (nDPI's other MpegDash test), and a near miss.
    let up = b"POST /up HTTP/1.1\r\nHost: x\r\nContent-Type: video/mp4\r\n\r\n";
    assert_eq!(named(8000, &[(true, up)]).as_deref(), Some("HTTP.MpegDash"));
    let up = b"POST /up HTTP/1.1\r\nHost: x\r\nContent-Type: video/mp2t\r\n\r\n";
    assert_eq!(named(8000, &[(true, up)]).as_deref(), Some("HTTP.HTTP"));
    let head = String::from_utf8(hex(HLS_HEAD)).unwrap();
    let bad = head.replace("vnd.apple.mpegurl", "vnd.apple.mpegurl2");
    let flow = [(true, &get[..]), (false, bad.as_bytes())];
    assert_eq!(named(8000, &flow).as_deref(), Some("HTTP.HTTP"));
    // A Content-Type that is only a header's value elsewhere does not count.
    let bad = head.replace("Content-type: ", "X-Content-type: ");
    let flow = [(true, &get[..]), (false, bad.as_bytes())];
    assert_eq!(named(8000, &flow).as_deref(), Some("HTTP.HTTP"));
}

// spyne 2.14.0 (pip; a `Soap11` service on wsgiref, port 8091) called by zeep 4.3.3 (pip:
// `zeep.Client('http://192.0.2.2:8091/?wsdl').service.say_hello('wirespeed', 2)`): the POST's
// head with `SOAPAction: "say_hello"` (frame 220; the envelope follows in its own segment).
const SOAP_POST: &str =
    "504f5354202f20485454502f312e310d0a486f73743a203139322e302e322e323a383039310d0a557365722d4167\
    656e743a205a6565702f342e332e3320287777772e707974686f6e2d7a6565702e6f7267290d0a4163636570742d\
    456e636f64696e673a20677a69702c206465666c6174650d0a4163636570743a202a2f2a0d0a436f6e6e65637469\
    6f6e3a206b6565702d616c6976650d0a534f4150416374696f6e3a20227361795f68656c6c6f220d0a436f6e7465\
    6e742d547970653a20746578742f786d6c3b20636861727365743d7574662d380d0a436f6e74656e742d4c656e67\
    74683a203238310d0a0d0a";

/// ndpi_match_string_subprotocol__error.pcapng: a POST with a SOAPAction header is HTTP.SOAP.
#[test]
fn soap() {
    let post = hex(SOAP_POST);
    assert_eq!(named(8091, &[(true, &post)]).as_deref(), Some("HTTP.SOAP"));
    // SOAP 1.2 names its action in the media type instead (RFC 3902): nDPI does not look.
    let v12 = b"POST /svc HTTP/1.1\r\nHost: x\r\nContent-Type: application/soap+xml; charset=utf-8; action=\"a\"\r\n\r\n";
    assert_eq!(named(8091, &[(true, v12)]).as_deref(), Some("HTTP.HTTP"));
    // Near misses: the WSDL's GET zeep sent first, a header that only starts like SOAPAction.
    let wsdl = b"GET /?wsdl HTTP/1.1\r\nHost: 192.0.2.2:8091\r\nUser-Agent: Zeep/4.3.3 (www.python-zeep.org)\r\n\r\n";
    assert_eq!(named(8091, &[(true, wsdl)]).as_deref(), Some("HTTP.HTTP"));
    let txt = String::from_utf8(post).unwrap();
    let bad = txt.replace("SOAPAction", "SOAPActions");
    assert_eq!(
        named(8091, &[(true, bad.as_bytes())]).as_deref(),
        Some("HTTP.HTTP")
    );
    // A header httparse refuses (a NUL after the colon, as in the request of
    // ndpi_match_string_subprotocol__error.pcapng, which nDPI names HTTP.SOAP): read by hand.
    let nul = txt.replace("Content-Type: ", "Content-Type:\0");
    assert_eq!(
        named(8091, &[(true, nul.as_bytes())]).as_deref(),
        Some("HTTP.SOAP")
    );
    let nul = bad.replace("Content-Type: ", "Content-Type:\0");
    assert_eq!(
        named(8091, &[(true, nul.as_bytes())]).as_deref(),
        Some("HTTP.HTTP")
    );
}

// Made here: CUPS 2.4.2 (Debian cups-daemon 2.4.2-3+deb12u9, `cupsd -f` listening on
// 192.0.2.2:631) and cups-ipp-utils' `ipptool -t ipp://192.0.2.2:631/ get-printers.test` from
// 192.0.2.1 in network namespaces, captured with tcpdump; tshark dissects the request as
// `http:ipp` ("IPP Request (CUPS-Get-Printers)"). Frame 16, the request's headers:
// "POST / HTTP/1.1", "Content-Length: 72", "Content-Type: application/ipp", Date, Host,
// "User-Agent: CUPS/2.4.2 (...) IPP/2.0", Accept-Encoding, "Expect: 100-continue".
const IPP_REQUEST: &str =
    "504f5354202f20485454502f312e310d0a436f6e74656e742d4c656e6774683a2037320d0a\
    436f6e74656e742d547970653a206170706c69636174696f6e2f6970700d0a446174653a205765642c203235204e\
    6f7620323032362030313a32383a313120474d540d0a486f73743a203139322e302e322e323a3633310d0a557365\
    722d4167656e743a20435550532f322e342e3220284c696e757820362e31382e34342d66632d763539353b207838\
    365f363429204950502f322e300d0a4163636570742d456e636f64696e673a206465666c6174652c20677a69702c\
    206964656e746974790d0a4578706563743a203130302d636f6e74696e75650d0a0d0a";

/// ipp.pcap: nDPI names CUPS's requests HTTP.IPP; here on any port.
#[test]
fn ipp_on_any_port() {
    let r = hex(IPP_REQUEST);
    for port in [631, 8631] {
        assert_eq!(named(port, &[(true, &r)]).as_deref(), Some("HTTP.IPP"));
    }
    // Headers cut after the request line: HTTP first, IPP once the rest is read reassembled.
    assert_eq!(
        named(631, &[(true, &r[..17])]).as_deref(),
        Some("HTTP.HTTP")
    );
    assert_eq!(
        named(631, &[(true, &r[..17]), (true, &r[17..])]).as_deref(),
        Some("HTTP.IPP")
    );
    let json = b"POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\r\n";
    let none = b"POST / HTTP/1.1\r\nHost: x\r\n\r\n";
    let ippx = b"POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/ipp-x\r\n\r\n";
    let get = b"GET / HTTP/1.1\r\nHost: x\r\nContent-Type: application/ipp\r\n\r\n";
    for bad in [&json[..], none, ippx, get] {
        assert_eq!(
            named(631, &[(true, bad)]).as_deref(),
            Some("HTTP.HTTP"),
            "{bad:?}"
        );
    }
    // Parameters and case.
    let ok = b"POST /printers/p HTTP/1.0\r\nHost: x\r\ncontent-type: Application/IPP; charset=utf-8\r\n\r\n";
    assert_eq!(named(631, &[(true, ok)]).as_deref(), Some("HTTP.IPP"));
}

/// A proxy request or a tunnel keeps its own label whatever it carries.
#[test]
fn proxy_keeps_its_label() {
    let p = b"PROPFIND http://a.b/ HTTP/1.1\r\nHost: a.b\r\n\r\n";
    assert_eq!(
        named(3128, &[(true, p)]).as_deref(),
        Some("HTTP_Proxy.HTTP_Proxy")
    );
}

/// The state stays small enough for SOCKS to keep its own byte after it.
#[test]
fn state_is_small() {
    assert!(std::mem::size_of::<State>() < crate::STATE_BYTES);
}

// impacket 0.13.1 (PyPI), `DCERPCTransportFactory('ncacn_http:[6001,RpcProxy=192.0.2.2:80]...')`
// then `connect()` from 192.0.2.1 to a stub proxy on 192.0.2.2:80 in network namespaces: the
// IN channel's first request, with its NTLM negotiate (tshark 4.0.17: http:ntlmssp, method
// RPC_IN_DATA, URI /rpc/rpcproxy.dll).
const RPC_IN_DATA: &str =
    "5250435f494e5f44415441202f7270632f72706370726f78792e646c6c20485454502f312e310d0a486f73743a20\
    3139322e302e322e320d0a4163636570742d456e636f64696e673a206964656e746974790d0a557365722d4167656e\
    743a204d535250430d0a43616368652d436f6e74726f6c3a206e6f2d63616368650d0a436f6e6e656374696f6e3a20\
    4b6565702d416c6976650d0a4578706563743a203130302d636f6e74696e75650d0a4163636570743a206170706c69\
    636174696f6e2f7270630d0a507261676d613a204e6f2d63616368650d0a436f6e74656e742d4c656e6774683a2030\
    0d0a417574686f72697a6174696f6e3a204e544c4d20546c524d54564e54554141424141414142514b496f41414141\
    4141414141414141414141414141414141413d0d0a0d0a";

// Built from [MS-RPCH] §2.1.2.1.2 (the OUT channel request: method RPC_OUT_DATA, the RPC
// server and port in the query) with the headers of impacket's OUT channel (Content-Length 76,
// the size of the CONN/A1 RTS PDU that follows); tshark 4.0.17 (body desegmentation off, since the body is not here):
// http, method RPC_OUT_DATA, URI /rpc/rpcproxy.dll?exchange.example:6001.
const RPC_OUT_DATA: &str = "5250435f4f55545f44415441202f7270632f72706370726f78792e646c6c3f65786368616e67652e6578616d706c65\
    3a3630303120485454502f312e310d0a4163636570743a206170706c69636174696f6e2f7270630d0a557365722d41\
    67656e743a204d535250430d0a486f73743a203139322e302e322e320d0a436f6e74656e742d4c656e6774683a2037\
    360d0a436f6e6e656374696f6e3a204b6565702d416c6976650d0a43616368652d436f6e74726f6c3a206e6f2d6361\
    6368650d0a507261676d613a206e6f2d63616368650d0a0d0a";

/// RPC over HTTP v2: both channel methods name the flow HTTP.MS_RPCH, as nDPI does, on the
/// request and whatever the answer.
#[test]
fn ms_rpch_channels() {
    for v in [RPC_IN_DATA, RPC_OUT_DATA] {
        assert_eq!(
            named(80, &[(true, &hex(v))]).as_deref(),
            Some("HTTP.MS_RPCH"),
            "{v}"
        );
    }
    let denied = b"HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"rpc\"\r\nContent-Length: 0\r\n\r\n";
    let flow = [(true, &hex(RPC_IN_DATA)[..]), (false, &denied[..])];
    assert_eq!(named(80, &flow).as_deref(), Some("HTTP.MS_RPCH"));
    assert_eq!(
        named(8443, &[(true, &hex(RPC_OUT_DATA))]).as_deref(),
        Some("HTTP.MS_RPCH")
    );
    // Near misses: a POST to the same proxy URL is plain HTTP; a method that only starts like
    // one is no request at all.
    let post = b"POST /rpc/rpcproxy.dll?exchange.example:6001 HTTP/1.1\r\nHost: x\r\nUser-Agent: MSRPC\r\n\r\n";
    assert_eq!(named(80, &[(true, post)]).as_deref(), Some("HTTP.HTTP"));
    let other = b"RPC_IN_DATAX /rpc/rpcproxy.dll HTTP/1.1\r\nHost: x\r\n\r\n";
    assert_eq!(named(80, &[(true, other)]), None);
}

/// The response facts nDPI's `http.c` risk checks read: `Content-Type` and `Server` whole,
/// and the `http_flags` letters from the head and the first body bytes.
#[test]
fn response_risk_facts() {
    let h = Hints {
        dir: Dir::ToClient,
        ..to_server(TCP, 80)
    };
    let resp: &[u8] = b"HTTP/1.1 200 OK\r\nServer: nginx/1.10.3\r\n\
        Content-Type: application/octet-stream\r\n\
        Content-Disposition: attachment; filename=\"setup.exe\"\r\n\r\nMZ\x90\x00\x03";
    let (_, m) = probe(&INSPECTOR, h, resp);
    assert_eq!(
        m.get(Field::HttpContentType),
        Some("application/octet-stream")
    );
    assert_eq!(m.get(Field::HttpServer), Some("nginx/1.10.3"));
    // Attachment named .exe, body not text, body an executable.
    assert_eq!(m.get(Field::HttpFlags), Some("abe"));

    // Text (or gzip) bodies, a short body, no suspicious name: no flags.
    for body in [&b"<html>"[..], b"\x1f\x8b\x08\x00\x00", b"\x00\x01"] {
        let mut r = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n".to_vec();
        r.extend_from_slice(body);
        let (_, m) = probe(&INSPECTOR, h, &r);
        assert_eq!(m.get(Field::HttpFlags), None, "{body:?}");
    }
    // A binary body, a suspicious header name, a non-printable Server.
    let (_, m) = probe(
        &INSPECTOR,
        h,
        b"HTTP/1.1 200 OK\r\nServer: Apache\x01xyz\r\nOs: linux\r\n\r\n\xef\xbb\xbf<",
    );
    assert_eq!(m.get(Field::HttpFlags), Some("bhs"));
    // An attachment without a quote reads as `.ex`, not an executable: a file download (`d`),
    // as for any other name (nDPI's http.c of late 2024: "File download").
    let (_, m) = probe(
        &INSPECTOR,
        h,
        b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\
          Content-Disposition: attachment; filename=a.exe\r\n\r\n",
    );
    assert_eq!(m.get(Field::HttpFlags), Some("d"));
    // emotet.pcap frame 128's head (tshark): a DLL as an attachment, the body an `MZ` image.
    let (_, m) = probe(
        &INSPECTOR,
        h,
        b"HTTP/1.1 200 OK\r\nServer: Apache\r\n\
          Content-Disposition: attachment; filename=\"TfBXbg6gEAqeHioMEKOtCAAn73.dll\"\r\n\
          Content-Transfer-Encoding: binary\r\nContent-Type: application/x-msdownload\r\n\r\n\
          MZ\x90\x00\x03\x00",
    );
    assert_eq!(m.get(Field::HttpFlags), Some("bde"));
    // Without a media type nDPI does not read the disposition.
    let (_, m) = probe(
        &INSPECTOR,
        h,
        b"HTTP/1.1 200 OK\r\nContent-Disposition: attachment; filename=\"a.zip\"\r\n\r\n",
    );
    assert_eq!(m.get(Field::HttpFlags), None);
}

/// nDPI's suspicious names: the listed ones and their prefixes, first byte as listed.
#[test]
fn suspicious_header_names() {
    for n in [
        "Arch",
        "ARCH",
        "Cores",
        "Mem",
        "Me",
        "Os",
        "O",
        "Osname",
        "Osversion",
        "Root",
        "S",
    ] {
        assert!(suspicious_header(n.as_bytes()), "{n}");
    }
    for n in ["TLS_version", "Uuid", "X-Hire-Me", "X-H"] {
        assert!(suspicious_header(n.as_bytes()), "{n}");
    }
    for n in [
        "Server",
        "Set-Cookie",
        "Connection",
        "Content-Type",
        "Accept",
        "X-Powered-By",
        "arch",
        "os",
        "Memory",
        "Origin",
        "",
        "Host",
        "User-Agent",
    ] {
        assert!(!suspicious_header(n.as_bytes()), "{n}");
    }
    // In a request too.
    let (_, m) = probe(
        &INSPECTOR,
        to_server(TCP, 80),
        b"POST /gate HTTP/1.1\r\nHost: a.b\r\nUser-Agent: x/1\r\nArch: x64\r\nCores: 8\r\n\r\n",
    );
    assert_eq!(m.get(Field::HttpFlags), Some("h"));
}

#[test]
fn executable_signatures() {
    for b in [
        &b"MZ\x90\x00"[..],
        b"\x7fELF\x02",
        b"\xcf\xfa\xed\xfe\x07",
        b"#!/bin/sh",
        b"dex\n035\x00xx",
    ] {
        assert!(exe_signature(b), "{b:?}");
    }
    for b in [&b"M"[..], b"ELF", b"#! /bin/sh", b"dex\n036\x00", b""] {
        assert!(!exe_signature(b), "{b:?}");
    }
}

/// gnutella.pcap, flow of port 50327: gtk-gnutella fetching a file by its SHA-1 URN (HUGE's
/// `/uri-res/N2R?`), and a THEX hash-tree request (`/gnutella/thex/v1?`): Gnutella's file
/// transfers over HTTP (nDPI: HTTP.Gnutella). An ordinary path stays HTTP.
#[test]
fn gnutella_downloads_over_http() {
    let req = |path: &str| {
        format!(
            "GET {path} HTTP/1.1\r\nUser-Agent: gtk-gnutella/1.2.2 (2022-02-25; GTK2; Windows x64)\r\n\
             Host: 69.118.162.229:46906\r\nX-Features: tls/1.0, queue/1.1\r\n\r\n"
        )
    };
    for (path, want) in [
        ("/uri-res/N2R?urn:sha1:LXIP2A72T5H3BU3GRUMZFYNU3OYDK6FI", &GNUTELLA),
        ("/gnutella/thex/v1?urn:tree:tiger/:3WMUS6", &GNUTELLA),
        ("/index.html", &LABEL),
    ] {
        let (r, _) = probe(&INSPECTOR, to_server(TCP, 46906), req(path).as_bytes());
        assert_eq!(r, Probe::Certain(want), "{path}");
    }
}
