use super::*;
use crate::tests::{probe, to_server, vector};

/// stun.pcap, frame 16 (tshark: STUN).
#[test]
fn message_from_corpus() {
    let v = vector!("stun");
    assert_eq!(probe(&INSPECTOR, to_server(UDP, 3478), &v).0, Probe::Certain(&LABEL));
    // One byte more or less and the length no longer matches.
    assert_eq!(probe(&INSPECTOR, to_server(UDP, 3478), &v[..v.len() - 1]).0, Probe::NotForUs);
}

// whatsapp_login_call.pcap, flow 8 (nDPI: SRTP.WhatsAppCall): frame 231, a TURN Allocate
// request carrying WhatsApp's attribute 0x4000 (length 0x006a, not a multiple of 4); frame 241,
// the answer; frames 310/311, RTCP receiver reports; frame 314, RTP (payload type 120), cut to
// 40 bytes (nothing checks the media).
const WA_ALLOCATE: &str = "0003006a2112a4420000e84eca17171006d71a5c400000660100a9f60dfaaa48953ad2d0af\
75625fa16c6c36178c427d406022bed8dba2b1882db68b15472daad2b08f2ba1f21403a5f6b2e87a50530b4af6e00c7d10\
314492a8791e24422a320e701b448031b8407241da42cd9a7927335047b93473e832e712387ddd53";
const WA_ANSWER: &str =
    "010300182112a4420000e84eca17171006d71a5c00200008000191766e31b187400200080000014d8c8e328c";
const RTCP_RR: &str = "81c900094c289e6db01e0c130efaa7d3d748e5397fe0bf8bbfa3c1a176eca6b292f52831\
4615878eae6ab0c9422de97d6083526d55b59323a403e6c31230d654ef1fa565fd7bb0b4800000015befe713ea62c123e25b";
const WA_RTP: &str = "80f8412900000a00545928242507ed6fe794108a9c05efd672ae78cb73c7ec4b67598635";

#[test]
fn whatsapp_media_after_its_stun_is_srtp() {
    use crate::proto::testkit::{classify, hex};
    let (alloc, answer, rr, rtp) = (hex(WA_ALLOCATE), hex(WA_ANSWER), hex(RTCP_RR), hex(WA_RTP));
    assert_eq!(alloc.len(), 126);
    assert!(is_whatsapp_stun(&alloc) && !is_stun(&alloc, false));
    // The answer carries WhatsApp's attribute 0x4002 too.
    assert!(is_whatsapp(&answer));
    // Flow 8's order: the request twice, the answer twice, RTCP each way, RTP (seventh).
    let flow = [
        (true, &alloc[..]),
        (true, &alloc[..]),
        (false, &answer[..]),
        (false, &answer[..]),
        (false, &rr[..]),
        (true, &rr[..]),
        (true, &rtp[..]),
    ];
    assert_eq!(classify(UDP, 3478, 51518, &flow), Some("SRTP"));
    // Up to the RTCP: STUN (nDPI: STUN.WhatsAppCall).
    assert_eq!(classify(UDP, 3478, 51518, &flow[..6]), Some("STUN"));
    // Flow 10 (nDPI: STUN.WhatsAppCall): one more RTCP first, so RTP comes eighth, after
    // nDPI stopped looking.
    let late = [
        (true, &alloc[..]),
        (true, &alloc[..]),
        (false, &answer[..]),
        (false, &answer[..]),
        (true, &rr[..]),
        (false, &rr[..]),
        (false, &rr[..]),
        (false, &rtp[..]),
    ];
    assert_eq!(classify(UDP, 3478, 52794, &late), Some("STUN"));
    // Without WhatsApp's attribute the same exchange stays STUN (nDPI: STUN/RTP): the
    // attribute type changed to 0x8022 (SOFTWARE) and the length padded to 0x006c.
    let mut plain = alloc.clone();
    plain[3] = 0x6c;
    plain.extend_from_slice(&[0, 0]);
    plain[20] = 0x80;
    plain[21] = 0x22;
    plain[23] = 0x68;
    assert!(is_stun(&plain, false) && !is_whatsapp(&plain));
    let other = [(true, &plain[..]), (false, &rr[..]), (true, &rtp[..])];
    assert_eq!(classify(UDP, 3478, 51518, &other), Some("STUN"));
}

#[test]
fn whatsapp_evidence() {
    use crate::proto::testkit::hex;
    // Message type 0x0800 (whatsapp_login_call.pcap frame 823 header, attributes cut).
    let mut m = hex("080000002112a4420000e84eca17171006d71a5d");
    assert!(is_whatsapp(&m) && is_whatsapp_stun(&m));
    m[0] = 0x00;
    m[1] = 0x01;
    assert!(!is_whatsapp(&m));
    // A wrong cookie or length is not STUN, WhatsApp's or not.
    let mut a = hex(WA_ALLOCATE);
    a[4] = 0;
    assert!(!is_whatsapp_stun(&a));
    let a = hex(WA_ALLOCATE);
    assert!(!is_whatsapp_stun(&a[..a.len() - 1]));
}

// Messages that name their calling application, as tshark dissects them: teams.pcap frame
// 1404, a Binding request with Microsoft's attributes 0x8070 and 0x8036 (MS-ICE2's
// implementation version, MS-TURN's); viber.pcap frame 455, an Allocate error response whose
// REALM is "viber.com"; stun.pcap frame 19, one whose REALM is "turn.l.google.com".
const TEAMS_BINDING: &str = "0001005c2112a442c6429a8034aea2ac958d0a81000600096f352f493a46593332\
000000802a000800007f8a5286580080700004000000078036000400000001002400046efffeff80370004000000020008\
001435a47bc3a5e01cb9ad459c69056295906bb086ad80280004fb75b895";
const VIBER_REALM: &str = "011300402112a44231612b5a42584b4e3138795a0009001000000401556e617574686f\
72697a656400150010363966346561313034323439626431650014000976696265722e636f6d000000802800047379de90";
const GOOGLE_REALM: &str = "0113003c2112a442536e4c665278533665516e540009000400000401001400117475\
726e2e6c2e676f6f676c652e636f6d000000001500186d6168366f4f746c33364c46346d774b3061775559413d3d";

#[test]
fn attributes_and_realms_name_the_calling_application() {
    use crate::proto::testkit::hex;
    let cases = [
        (TEAMS_BINDING, "Skype_TeamsCall"),
        (VIBER_REALM, "ViberVoip"),
        (GOOGLE_REALM, "GoogleCall"),
    ];
    for (msg, app) in cases {
        let m = hex(msg);
        assert!(is_stun(&m, false), "{app}");
        let (p, _) = probe(&INSPECTOR, to_server(UDP, 3478), &m);
        let Probe::Certain(l) = p else {
            panic!("{app}: {p:?}")
        };
        assert_eq!((l.master, l.app), ("STUN", app));
    }
    // A plain Binding request names nothing.
    let v = vector!("stun");
    assert_eq!(app_of(&v), 0);
}

proptest::proptest! {
    /// Any bytes: no panic, and an application only from a message's attributes.
    #[test]
    fn app_of_never_panics(d in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..300)) {
        let a = app_of(&d);
        proptest::prop_assert!(usize::from(a) <= APPS.len());
        if d.len() < 24 {
            proptest::prop_assert_eq!(a, 0);
        }
    }
}

/// DTLS after a STUN exchange that named its application keeps the application (nDPI's
/// DTLS.GoogleCall); without one, the flow is DTLS alone.
#[test]
fn dtls_after_named_stun_keeps_the_application() {
    use crate::proto::testkit::{classify_label, hex};
    let realm = hex(GOOGLE_REALM);
    let hello = vector!("dtls_client_hello");
    let flow = [(false, &realm[..]), (true, &hello[..])];
    assert_eq!(
        classify_label(UDP, 3478, 40000, &flow),
        Some(("DTLS", "GoogleCall"))
    );
    let plain = vector!("stun");
    let flow = [(true, &plain[..]), (true, &hello[..])];
    assert_eq!(classify_label(UDP, 3478, 40000, &flow), Some(("DTLS", "DTLS")));
}
