use super::*;
use proptest::prelude::*;

fn unhex(s: &str) -> Vec<u8> {
    let s = s.trim();
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
        .collect()
}

/// emotet.pcap, frame 143: the server's certificate (979 bytes, self-signed).
fn emotet() -> Vec<u8> {
    unhex(include_str!("emotet_cert.hex"))
}

/// tls-rdn-extract.pcap: the server's certificate (3780 bytes, 46 subject RDNs).
fn rdn_extract() -> Vec<u8> {
    unhex(include_str!("rdn_extract_cert.hex"))
}

fn text(name: &[u8]) -> String {
    let mut b = Buf::<4096>::default();
    assert!(write_name(name, &mut b));
    String::from_utf8(b.as_bytes().to_vec()).unwrap()
}

#[test]
fn names_agree_with_tshark() {
    // tshark -V shows both names as "rdnSequence: 6 items (id-at-commonName=example.com,
    // id-at-organizationalUnitName=IT Department,id-at-organizationName=Global Security,
    // id-at-localityName=London,id-at-stateOrProvinceName=London,id-at-countryName=GB)".
    let c = emotet();
    let Names::Found { issuer, subject } = names(&c) else {
        panic!("no names");
    };
    let want = "CN=example.com,OU=IT Department,O=Global Security,L=London,ST=London,C=GB";
    assert_eq!(text(subject), want);
    assert_eq!(text(issuer), want);
    // tshark: issuer "id-at-commonName=Microsoft Secure Server Authority,dc=redmond,dc=corp,
    // dc=microsoft,dc=com"; the subject starts "id-at-commonName=*.vo.msecnd.net,
    // id-at-commonName=*.manage.microsoft.com".
    let c = rdn_extract();
    let Names::Found { issuer, subject } = names(&c) else {
        panic!("no names");
    };
    assert_eq!(
        text(issuer),
        "CN=Microsoft Secure Server Authority,DC=redmond,DC=corp,DC=microsoft,DC=com"
    );
    let s = text(subject);
    assert!(
        s.starts_with("CN=*.vo.msecnd.net,CN=*.manage.microsoft.com,"),
        "{s}"
    );
    assert_eq!(s.matches(',').count(), 45, "46 RDNs");
}

#[test]
fn prefixes_are_short_until_the_subject_ends() {
    let c = emotet();
    let Names::Found { subject, .. } = names(&c) else {
        panic!("no names");
    };
    // Offset of the subject's end in the certificate.
    let end = subject.as_ptr() as usize - c.as_ptr() as usize + subject.len();
    for n in 0..end {
        assert_eq!(names(&c[..n]), Names::Short, "prefix {n}");
    }
    for n in [end, end + 1, c.len()] {
        assert!(matches!(names(&c[..n]), Names::Found { .. }), "prefix {n}");
    }
    // A whole certificate whose tbsCertificate is not a SEQUENCE is no certificate.
    let mut bad = c.clone();
    bad[4] = 0x31;
    assert_eq!(names(&bad), Names::Bad);
    assert_eq!(names(b"GET / HTTP/1.1\r\n"), Names::Bad);
}

#[test]
fn oids_and_escapes() {
    // X.690 §8.19.5's example: {2 100 3} is 0x81 0x34 0x03.
    let mut b = Buf::<64>::default();
    assert!(write_oid(&[0x81, 0x34, 0x03], &mut b));
    assert_eq!(b.as_bytes(), b"2.100.3");
    let mut b = Buf::<64>::default();
    assert!(write_oid(
        &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x09, 0x02],
        &mut b
    ));
    assert_eq!(b.as_bytes(), b"1.2.840.113549.1.9.2");
    assert!(!write_oid(&[0x2a, 0x86], &mut Buf::<64>::default()));
    // RDN { C = "é" (BMPString) }, then RDN { CN = "a,b" (UTF8String) + 2.5.4.5 = "#1" }:
    // written most specific (last) first.
    let name2 = [
        0x31, 0x0b, 0x30, 0x09, 0x06, 0x03, 0x55, 0x04, 0x06, 0x1e, 0x02, 0x00, 0xe9, 0x31, 0x17,
        0x30, 0x0a, 0x06, 0x03, 0x55, 0x04, 0x03, 0x0c, 0x03, b'a', b',', b'b', 0x30, 0x09, 0x06,
        0x03, 0x55, 0x04, 0x05, 0x13, 0x02, b'#', b'1',
    ];
    assert_eq!(text(&name2), "CN=a\\,b+2.5.4.5=\\#1,C=é");
    // A value of another type: # and the hex of its encoding (an INTEGER 5).
    let odd = [
        0x31, 0x0a, 0x30, 0x08, 0x06, 0x03, 0x55, 0x04, 0x03, 0x02, 0x01, 0x05,
    ];
    assert_eq!(text(&odd), "CN=#020105");
    // Not an RDN.
    assert!(!write_name(&[0x30, 0x00], &mut Buf::<64>::default()));
}

proptest! {
    #[test]
    fn never_panics(d in proptest::collection::vec(any::<u8>(), 0..512)) {
        if let Names::Found { issuer, subject } = names(&d) {
            let _ = write_name(issuer, &mut Buf::<255>::default());
            let _ = write_name(subject, &mut Buf::<255>::default());
        }
        let _ = write_name(&d, &mut Buf::<255>::default());
        let _ = write_oid(&d, &mut Buf::<64>::default());
        let mut b = Buf::<64>::default();
        let n = dns_names(&d, &mut b);
        prop_assert!(b.len() <= 64 && (n == 0) == b.as_bytes().is_empty());
    }

    /// Every name of a damaged SAN list that is written is whole and printable.
    #[test]
    fn damaged_san_lists_never_panic(at in 0usize..3780, v in any::<u8>(), cut in 0usize..3780) {
        let mut c = rdn_extract();
        if let Some(b) = c.get_mut(at) {
            *b = v;
        }
        c.truncate(cut.max(1));
        let mut b = Buf::<255>::default();
        let n = dns_names(&c, &mut b);
        let s = std::str::from_utf8(b.as_bytes()).unwrap();
        prop_assert_eq!(if n == 0 { 0 } else { s.split(',').count() }, n);
        prop_assert!(s.bytes().all(|c| (0x21..0x7f).contains(&c)));
    }

    #[test]
    fn damaged_certificates_never_panic(at in 0usize..979, v in any::<u8>(), cut in 0usize..979) {
        let mut c = emotet();
        if let Some(b) = c.get_mut(at) {
            *b = v;
        }
        c.truncate(cut.max(1));
        if let Names::Found { issuer, subject } = names(&c) {
            let mut b = Buf::<255>::default();
            let _ = write_name(issuer, &mut b);
            let _ = write_name(subject, &mut b);
            prop_assert!(b.len() <= 255);
        }
    }
}

#[test]
fn dns_names_agree_with_tshark() {
    // tshark -T fields -e x509ce.dNSName on tls-rdn-extract.pcap's certificate begins
    // "*.vo.msecnd.net,*.officeapps.live.com,*.msads.net,*.ads2.msads.net,*.stc.s-msn.com,
    // cdn.dc2files.*.livefilestore-int.com,cdn.*.livefilestore.com,..." (over 1,000 bytes).
    let c = rdn_extract();
    let mut b = Buf::<4096>::default();
    let n = dns_names(&c, &mut b);
    let s = std::str::from_utf8(b.as_bytes()).unwrap();
    assert!(
        s.starts_with(
            "*.vo.msecnd.net,*.officeapps.live.com,*.msads.net,*.ads2.msads.net,\
             *.stc.s-msn.com,cdn.dc2files.*.livefilestore-int.com,cdn.*.livefilestore.com,"
        ),
        "{s}"
    );
    assert_eq!(n, s.split(',').count());
    assert!(s.split(',').any(|x| x == "*.microsoft.com"));
    // A small buffer keeps whole names only.
    let mut small = Buf::<40>::default();
    assert_eq!(dns_names(&c, &mut small), 2);
    assert_eq!(small.as_bytes(), b"*.vo.msecnd.net,*.officeapps.live.com");
    // tshark shows no subjectAltName in emotet.pcap's self-signed certificate.
    assert_eq!(dns_names(&emotet(), &mut Buf::<255>::default()), 0);
    // A prefix of a certificate gives nothing.
    assert_eq!(dns_names(&c[..c.len() - 1], &mut Buf::<255>::default()), 0);
}
