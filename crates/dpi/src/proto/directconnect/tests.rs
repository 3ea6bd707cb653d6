use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// ADC: captured in network namespaces between ncdc 1.23.1 (client, 198.51.100.1) and uhub
// 0.4.1 (hub, 198.51.100.2:1511), Debian packages. Wireshark has no Direct Connect dissector.
/// The client's first line: `HSUP ADBASE ADTIGR\n`.
const ADC_HSUP: &str = "4853555020414442415345204144544947520a";
/// uhub's answer: `ISUP ADBASE ADTIGR ADPING ADUCMD\n`.
const ADC_ISUP: &str = "49535550204144424153452041445449475220414450494e4720414455434d440a";

// NMDC: a hub greeting built from the NMDC protocol documentation ($Lock <lock> Pk=<pk>|,
// then $HubName), sent by a stub hub to ncdc 1.23.1, which answered with the $Supports, $Key
// and $ValidateNick commands the documentation describes (so the greeting is well formed).
const NMDC_LOCK: &[u8] = b"$Lock EXTENDEDPROTOCOL_h3stub_lock Pk=h3stub|$HubName h3stub|";
/// ncdc's answer: `$Supports NoGetINFO NoHello UserIP2 TLS|` (not claimed alone).
const NCDC_SUPPORTS: &str = "24537570706f727473204e6f476574494e464f204e6f48656c6c6f205573657249503220544c537c";
/// A client-to-client opening, built from the documentation's `$MyNick` and `$Lock` syntax.
const NMDC_MYNICK: &[u8] = b"$MyNick h3tester|$Lock EXTENDEDPROTOCOLABCABCABCABCABCABC Pk=ncdc|";

#[test]
fn adc_vectors() {
    assert_eq!(run(&INSPECTOR, TCP, 1511, 44174, false, &hex(ADC_HSUP)), Probe::Certain(&LABEL));
    assert_eq!(run(&INSPECTOR, TCP, 1511, 44174, true, &hex(ADC_ISUP)), Probe::Certain(&LABEL));
    assert_eq!(classify(TCP, 1511, 44174, &[(true, &hex(ADC_HSUP))]), Some("DirectConnect"));
    assert_eq!(classify(TCP, 9000, 44174, &[(false, &hex(ADC_ISUP))]), Some("DirectConnect"));
}

#[test]
fn nmdc_vectors() {
    assert_eq!(run(&INSPECTOR, TCP, 411, 32992, true, NMDC_LOCK), Probe::Certain(&LABEL));
    assert_eq!(run(&INSPECTOR, TCP, 5000, 32992, false, NMDC_MYNICK), Probe::Certain(&LABEL));
    assert_eq!(classify(TCP, 411, 32992, &[(false, NMDC_LOCK)]), Some("DirectConnect"));
    assert_eq!(classify(TCP, 7000, 32992, &[(true, NMDC_MYNICK)]), Some("DirectConnect"));
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
    assert!(no(b"HSUP ADBASE ADTIGR")); // no newline
    assert!(no(b"HSUP ADTIGR\n")); // BASE missing
    assert!(no(b"HSUP ADBASE adtigr\n"));
    assert!(no(b"HSUP ADBASE XXTIGR\n"));
    assert!(no(b"BSUP ADBASE\n"));
    assert!(no(b"HSUP ADBASE  ADTIGR\n"));
}
