//! Fuzz the DER walkers: the shared BER reader (`wirespeed_dpi::ber`) and the X.509 issuer and
//! subject reader and the subjectAltName DNS names (`wirespeed_dpi::x509`) on arbitrary bytes, as a whole certificate, as a
//! prefix of one, and as a Name. Never a panic; written names stay within their buffer and are
//! valid UTF-8 once stored as metadata. (The `dpi` target reaches the same code only through a
//! ServerHello followed by a Certificate message, which random bytes seldom build.)
#![no_main]

use libfuzzer_sys::fuzz_target;
use wirespeed_dpi::util::Buf;
use wirespeed_dpi::x509::{dns_names, names, write_name, write_oid, Names};
use wirespeed_dpi::{ber, Field, Meta};

fuzz_target!(|data: &[u8]| {
    let _ = ber::header(data);
    let _ = ber::tlv(data);
    let _ = ber::content_prefix(data);
    assert!(ber::items(data, 64).count() <= 64);
    let _ = write_oid(data, &mut Buf::<64>::default());
    let _ = write_name(data, &mut Buf::<255>::default());
    let mut sans = Buf::<255>::default();
    let _ = dns_names(data, &mut sans);
    assert!(sans.as_bytes().iter().all(|c| (0x21..0x7f).contains(c)));
    for cut in [data.len(), data.len() / 2] {
        if let Names::Found { issuer, subject } = names(&data[..cut]) {
            let mut meta = Meta::default();
            for (f, n) in [
                (Field::TlsCertSubject, subject),
                (Field::TlsCertIssuer, issuer),
            ] {
                let mut b = Buf::<512>::default();
                let _ = write_name(n, &mut b);
                assert!(b.len() <= 512);
                meta.set(f, b.as_bytes());
            }
            for (_, v) in meta.iter() {
                assert!(!v.chars().any(char::is_control));
            }
        }
    }
});
