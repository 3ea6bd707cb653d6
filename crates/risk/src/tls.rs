//! TLS facts: version codes, obsolete versions, cipher strength, certificate limits, JA4.

// ------------------------------------------------------------------------------------- TLS

/// The wire version for this project's version text (`crates/dpi`'s TLS dissector writes
/// "SSLv3", "TLSv1", "TLSv1.1", "TLSv1.2", "TLSv1.3", "DTLSv1.0", "DTLSv1.2", "DTLSv1.3").
pub fn tls_version_code(v: &str) -> Option<u16> {
    Some(match v {
        "SSLv2" => 0x0002,
        "SSLv3" => 0x0300,
        "TLSv1" | "TLSv1.0" => 0x0301,
        "TLSv1.1" => 0x0302,
        "TLSv1.2" => 0x0303,
        "TLSv1.3" => 0x0304,
        "DTLSv1.0" => 0xfeff,
        "DTLSv1.2" => 0xfefd,
        "DTLSv1.3" => 0xfefc,
        _ => return None,
    })
}

/// Whether a TLS version is obsolete by nDPI's rule (tls.c: the client hello's version below
/// 0x0303, TLS 1.2): SSLv2, SSLv3, TLSv1, TLSv1.1. DTLS versions (0xfeXX) never are, since nDPI
/// compares the raw number. Unknown text is not obsolete.
pub fn is_obsolete_tls(version: &str) -> bool {
    tls_version_code(version).is_some_and(|v| v < 0x0303)
}

/// How nDPI rates a TLS cipher suite (`ndpi_is_safe_ssl_cipher`, from Qualys' list).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CipherStrength {
    /// Not on nDPI's list.
    Safe,
    /// `NDPI_CIPHER_WEAK`: static-RSA key exchange, 3DES, SEED, IDEA, CAMELLIA-CBC.
    Weak,
    /// `NDPI_CIPHER_INSECURE`: RC4.
    Insecure,
}

/// nDPI's rating of the server's chosen cipher suite (IANA code points).
pub fn cipher_strength(suite: u16) -> CipherStrength {
    match suite {
        // TLS_ECDHE_RSA_WITH_RC4_128_SHA, TLS_RSA_WITH_RC4_128_SHA, TLS_RSA_WITH_RC4_128_MD5
        0xc011 | 0x0005 | 0x0004 => CipherStrength::Insecure,
        // TLS_RSA_WITH_AES_256_GCM_SHA384, _AES_256_CBC_SHA256, _AES_256_CBC_SHA,
        // _CAMELLIA_256_CBC_SHA, _AES_128_GCM_SHA256, _AES_128_CBC_SHA256, _AES_128_CBC_SHA,
        // _CAMELLIA_128_CBC_SHA; TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA,
        // TLS_DHE_RSA_WITH_3DES_EDE_CBC_SHA, TLS_RSA_WITH_3DES_EDE_CBC_SHA,
        // TLS_RSA_WITH_SEED_CBC_SHA, TLS_RSA_WITH_IDEA_CBC_SHA
        0x009d | 0x003d | 0x0035 | 0x0084 | 0x009c | 0x003c | 0x002f | 0x0041 | 0xc012 | 0x0016
        | 0x000a | 0x0096 | 0x0007 => CipherStrength::Weak,
        _ => CipherStrength::Safe,
    }
}

/// Whether nDPI raises Weak TLS Cipher for the server's chosen suite: tls.c compares
/// `ndpi_is_safe_ssl_cipher` with 1, `NDPI_CIPHER_WEAK`, so the *insecure* suites (RC4) raise
/// nothing in the nDPI the corpus was made with (later nDPI compares with
/// `NDPI_CIPHER_SAFE` and raises both; the corpus's RC4 sessions, webex.pcap's
/// TLS_RSA_WITH_RC4_128_MD5 among them, carry no such risk).
pub fn weak_cipher(suite: u16) -> bool {
    cipher_strength(suite) == CipherStrength::Weak
}

/// nDPI's limit for a certificate's lifetime (tls.c `TLS_THRESHOLD`, 398 days in seconds),
/// applied to certificates issued from 2020-09-01 (`TLS_LIMIT_DATE`).
pub const CERT_MAX_VALIDITY_SECS: i64 = 34_387_200;
/// 2020-09-01T00:00:00Z, from which nDPI applies [`CERT_MAX_VALIDITY_SECS`].
pub const CERT_LIMIT_DATE: i64 = 1_598_918_400;

/// Version (wire code) and "offered ALPN" read from a JA4 client fingerprint (its first ten
/// characters: protocol, version, SNI flag, two counts, first and last ALPN characters).
///
/// A QUIC fingerprint (`q…`) whose version characters name no TLS version (`q00…`, as for
/// drafts without supported_versions) still stands for a TLS 1.3 client hello: QUIC carries
/// TLS 1.3 only (RFC 9001 §4.2), whose client hello has `legacy_version` 0x0303 (RFC 8446
/// §4.1.2) — the field nDPI's checks read (`ssl_version` in tls.c `processClientServerHello`).
pub(super) fn ja4_hello(ja4: &str) -> Option<(Option<u16>, bool)> {
    let b = ja4.as_bytes();
    if b.len() < 10 {
        return None;
    }
    let v = match &b[1..3] {
        b"13" => Some(0x0304),
        b"12" => Some(0x0303),
        b"11" => Some(0x0302),
        b"10" => Some(0x0301),
        b"s3" => Some(0x0300),
        b"s2" => Some(0x0002),
        b"d1" => Some(0xfeff),
        b"d2" => Some(0xfefd),
        b"d3" => Some(0xfefc),
        _ if b[0] == b'q' => Some(0x0303),
        _ => None,
    };
    Some((v, &b[8..10] != b"00"))
}
