use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// ADC: captured in network namespaces between ncdc 1.23.1 (client, 198.51.100.1) and uhub
// 0.4.1 (hub, 198.51.100.2:1511), Debian packages. Wireshark has no Direct Connect dissector.
/// The client's first line: `HSUP ADBASE ADTIGR\n`.
const ADC_HSUP: &str = "4853555020414442415345204144544947520a";
/// uhub's answer: `ISUP ADBASE ADTIGR ADPING ADUCMD\n`.
const ADC_ISUP: &str = "49535550204144424153452041445449475220414450494e4720414455434d440a";
/// Client to client: two ncdc 1.23.1 on that hub in active mode, one browsing the other's
/// file list; the connecting client opens with `CSUP ADBASE ADTIGR ADBZIP ADZLIG\n` (captured
/// on the namespace's loopback; the other side answers with the same line).
const ADC_CSUP: &str = "435355502041444241534520414454494752204144425a49502041445a4c49470a";

// NMDC: a hub greeting built from the NMDC protocol documentation ($Lock <lock> Pk=<pk>|,
// then $HubName), sent by a stub hub to ncdc 1.23.1, which answered with the $Supports, $Key
// and $ValidateNick commands the documentation describes (so the greeting is well formed).
const NMDC_LOCK: &[u8] = b"$Lock EXTENDEDPROTOCOL_h3stub_lock Pk=h3stub|$HubName h3stub|";
/// ncdc's answer: `$Supports NoGetINFO NoHello UserIP2 TLS|` (not claimed alone).
const NCDC_SUPPORTS: &str = "24537570706f727473204e6f476574494e464f204e6f48656c6c6f205573657249503220544c537c";
/// A client-to-client opening, captured: ncdc 1.23.1, logged in to the stub hub, answering its
/// `$ConnectToMe h3tester 198.51.100.2:412|` by connecting there and sending `$MyNick
/// h3tester|` and `$Lock EXTENDEDPROTOCOL/wut? Pk=ncdc-1.23.1,Ref=198.51.100.2:411|` in two
/// segments.
const NCDC_MYNICK: &str = "244d794e69636b2068337465737465727c";
const NCDC_LOCK: &str = "244c6f636b20455854454e44454450524f544f434f4c2f7775743f20506b3d6e6364632d312e32332e312c\
    5265663d3139382e35312e3130302e323a3431317c";

#[test]
fn adc_vectors() {
    assert_eq!(run(&INSPECTOR, TCP, 1511, 44174, false, &hex(ADC_HSUP)), Probe::Certain(&LABEL));
    assert_eq!(run(&INSPECTOR, TCP, 1511, 44174, true, &hex(ADC_ISUP)), Probe::Certain(&LABEL));
    assert_eq!(classify(TCP, 1511, 44174, &[(true, &hex(ADC_HSUP))]), Some("DirectConnect"));
    assert_eq!(classify(TCP, 9000, 44174, &[(false, &hex(ADC_ISUP))]), Some("DirectConnect"));
    assert_eq!(classify(TCP, 41000, 33142, &[(true, &hex(ADC_CSUP))]), Some("DirectConnect"));
}

#[test]
fn nmdc_vectors() {
    assert_eq!(run(&INSPECTOR, TCP, 411, 32992, true, NMDC_LOCK), Probe::Certain(&LABEL));
    let (nick, lock) = (hex(NCDC_MYNICK), hex(NCDC_LOCK));
    assert_eq!(run(&INSPECTOR, TCP, 412, 48406, false, &nick), Probe::Unsure);
    let both = [nick.clone(), lock.clone()].concat();
    assert_eq!(run(&INSPECTOR, TCP, 412, 48406, false, &both), Probe::Certain(&LABEL));
    assert_eq!(classify(TCP, 411, 32992, &[(false, NMDC_LOCK)]), Some("DirectConnect"));
    assert_eq!(classify(TCP, 7000, 48406, &[(true, &nick), (true, &lock)]), Some("DirectConnect"));
}

#[test]
fn near_misses() {
    let no = |v: &[u8]| run(&INSPECTOR, TCP, 411, 32992, false, v) == Probe::NotForUs;
    assert!(no(&hex(NCDC_SUPPORTS)));
    assert!(no(b"$Lock EXTENDEDPROTOCOL_h3stub_lock|")); // no Pk=
    assert!(no(b"$Lock EXTENDEDPROTOCOL_h3stub_lock Pk=h3stub")); // unterminated
    assert!(no(b"$lock EXTENDEDPROTOCOL Pk=x|"));
    assert!(no(b"$MyNick two words|$Lock A Pk=x|"));
    assert!(no(b"$MyNick h3tester|$Key abc|"));
    assert!(no(b"$MyNick |"));
    assert!(no(b"$MyNick two words|"));
    assert!(no(b"HSUP ADBASE ADTIGR")); // no newline
    assert!(no(b"HSUP ADTIGR\n")); // BASE missing
    assert!(no(b"HSUP ADBASE adtigr\n"));
    assert!(no(b"HSUP ADBASE XXTIGR\n"));
    assert!(no(b"BSUP ADBASE\n"));
    assert!(no(b"HSUP ADBASE  ADTIGR\n"));
}
