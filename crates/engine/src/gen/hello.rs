//! TLS 1.3 hellos and QUIC v1 Initials for the generator: a ClientHello shaped like a current
//! browser's (SNI, ALPN, key share, supported versions; QUIC's transport parameters), a
//! ServerHello, and Initial packets sealed with the keys RFC 9001 §5.2 derives from the
//! client's first Destination Connection ID, so that any observer (tshark, nDPI, ours) opens
//! them. Written from the RFCs, apart from the decoder in `wirespeed-dpi`.

use aes::cipher::{BlockEncrypt, KeyInit};
use aes_gcm::aead::AeadInPlace;
use aes_gcm::Aes128Gcm;
use hkdf::Hkdf;
use sha2::Sha256;

/// RFC 9001 §5.2: the Initial salt of QUIC version 1.
const SALT_V1: [u8; 20] = [
    0x38, 0x76, 0x2c, 0xf7, 0xf5, 0x59, 0x34, 0xb3, 0x4d, 0x17, 0x9a, 0xe6, 0xa4, 0xc8, 0x0c, 0xad,
    0xcc, 0xbb, 0x7f, 0x0a,
];

/// Append `body`'s length as a big-endian u16, then `body`.
fn vec16(out: &mut Vec<u8>, body: &[u8]) {
    out.extend_from_slice(&(body.len() as u16).to_be_bytes());
    out.extend_from_slice(body);
}

/// One TLS extension: type, length, body.
fn ext(out: &mut Vec<u8>, ty: u16, body: &[u8]) {
    out.extend_from_slice(&ty.to_be_bytes());
    vec16(out, body);
}

/// A handshake message: type, 24-bit length, body.
fn handshake(ty: u8, body: &[u8]) -> Vec<u8> {
    let mut m = vec![ty];
    m.extend_from_slice(&(body.len() as u32).to_be_bytes()[1..]);
    m.extend_from_slice(body);
    m
}

/// A TLS record of `ty` (0x16 handshake, 0x14 change cipher spec, 0x17 application data).
pub(crate) fn record(ty: u8, version: u16, body: &[u8]) -> Vec<u8> {
    let mut r = vec![ty];
    r.extend_from_slice(&version.to_be_bytes());
    vec16(&mut r, body);
    r
}

/// A ClientHello handshake message for `sni`. `random` fills the client random, the session id
/// (TCP only: QUIC has none) and the key share. Over QUIC (`quic` holds the client's Source
/// Connection ID) the ciphers are TLS 1.3's only, ALPN is h3 and the transport parameters
/// follow RFC 9000 §18.
pub(crate) fn client_hello(sni: &str, random: &[u8; 96], quic: Option<&[u8]>) -> Vec<u8> {
    let mut b = vec![0x03, 0x03];
    b.extend_from_slice(&random[..32]);
    if quic.is_some() {
        b.push(0);
    } else {
        b.push(32);
        b.extend_from_slice(&random[32..64]);
    }
    let suites: &[u16] = if quic.is_some() {
        &[0x1301, 0x1302, 0x1303]
    } else {
        &[
            0x1301, 0x1303, 0x1302, 0xc02b, 0xc02f, 0xcca9, 0xcca8, 0xc02c, 0xc030, 0xc013, 0xc014,
            0x009c, 0x009d, 0x002f, 0x0035,
        ]
    };
    let s: Vec<u8> = suites.iter().flat_map(|c| c.to_be_bytes()).collect();
    vec16(&mut b, &s);
    b.extend_from_slice(&[1, 0]);
    let mut e = Vec::new();
    // server_name: a list of one host_name.
    let mut name = vec![0];
    vec16(&mut name, sni.as_bytes());
    let mut list = Vec::new();
    vec16(&mut list, &name);
    ext(&mut e, 0x0000, &list);
    if quic.is_none() {
        ext(&mut e, 0x0017, &[]); // extended_master_secret
        ext(&mut e, 0xff01, &[0]); // renegotiation_info
    }
    ext(&mut e, 0x000a, &[0, 6, 0x00, 0x1d, 0x00, 0x17, 0x00, 0x18]); // x25519, P-256, P-384
    if quic.is_none() {
        ext(&mut e, 0x000b, &[1, 0]); // ec_point_formats: uncompressed
        ext(&mut e, 0x0023, &[]); // session_ticket
    }
    let alpn: &[&[u8]] = if quic.is_some() {
        &[b"h3"]
    } else {
        &[b"h2", b"http/1.1"]
    };
    let mut a = Vec::new();
    for p in alpn {
        a.push(p.len() as u8);
        a.extend_from_slice(p);
    }
    let mut al = Vec::new();
    vec16(&mut al, &a);
    ext(&mut e, 0x0010, &al);
    if quic.is_none() {
        ext(&mut e, 0x0005, &[1, 0, 0, 0, 0]); // status_request: OCSP
    }
    let sig: Vec<u8> = [
        0x0403u16, 0x0804, 0x0401, 0x0503, 0x0805, 0x0501, 0x0806, 0x0601,
    ]
    .iter()
    .flat_map(|c| c.to_be_bytes())
    .collect();
    let mut sl = Vec::new();
    vec16(&mut sl, &sig);
    ext(&mut e, 0x000d, &sl);
    // key_share: one x25519 share.
    let mut ks = vec![0x00, 0x1d, 0x00, 0x20];
    ks.extend_from_slice(&random[64..96]);
    let mut kl = Vec::new();
    vec16(&mut kl, &ks);
    ext(&mut e, 0x0033, &kl);
    ext(&mut e, 0x002d, &[1, 1]); // psk_key_exchange_modes: psk_dhe_ke
    if quic.is_some() {
        ext(&mut e, 0x002b, &[2, 0x03, 0x04]);
    } else {
        ext(&mut e, 0x002b, &[4, 0x03, 0x04, 0x03, 0x03]);
    }
    if let Some(scid) = quic {
        // quic_transport_parameters: max_idle_timeout 30 s, initial_max_data 15 MiB,
        // initial_max_stream_data_bidi_local 6 MiB, initial_max_streams_bidi 100,
        // initial_source_connection_id.
        let mut tp = vec![0x01, 0x04, 0x80, 0x00, 0x75, 0x30];
        tp.extend_from_slice(&[0x04, 0x04, 0x80, 0xf0, 0x00, 0x00]);
        tp.extend_from_slice(&[0x05, 0x04, 0x80, 0x60, 0x00, 0x00]);
        tp.extend_from_slice(&[0x08, 0x02, 0x40, 0x64]);
        tp.push(0x0f);
        tp.push(scid.len() as u8);
        tp.extend_from_slice(scid);
        ext(&mut e, 0x0039, &tp);
    }
    vec16(&mut b, &e);
    handshake(1, &b)
}

/// A TLS 1.3 ServerHello handshake message: TLS_AES_128_GCM_SHA256, x25519, the client's
/// session id echoed.
pub(crate) fn server_hello(random: &[u8; 64], session_id: &[u8]) -> Vec<u8> {
    let mut b = vec![0x03, 0x03];
    b.extend_from_slice(&random[..32]);
    b.push(session_id.len() as u8);
    b.extend_from_slice(session_id);
    b.extend_from_slice(&[0x13, 0x01, 0]);
    let mut e = Vec::new();
    ext(&mut e, 0x002b, &[0x03, 0x04]);
    let mut ks = vec![0x00, 0x1d, 0x00, 0x20];
    ks.extend_from_slice(&random[32..64]);
    ext(&mut e, 0x0033, &ks);
    vec16(&mut b, &e);
    handshake(2, &b)
}

/// HKDF-Expand-Label (RFC 8446 §7.1) with an empty context.
fn expand_label(prk: &Hkdf<Sha256>, label: &[u8], out: &mut [u8]) {
    let mut info = Vec::with_capacity(10 + label.len());
    info.extend_from_slice(&(out.len() as u16).to_be_bytes());
    info.push((6 + label.len()) as u8);
    info.extend_from_slice(b"tls13 ");
    info.extend_from_slice(label);
    info.push(0);
    prk.expand(&info, out)
        .expect("a key of at most 32 bytes fits HKDF-SHA256's output");
}

/// Initial keys (key, iv, header protection) of the client (`server` false) or the server, from
/// the client's first Destination Connection ID (RFC 9001 §5.2).
pub(crate) fn initial_keys(dcid: &[u8], server: bool) -> ([u8; 16], [u8; 12], [u8; 16]) {
    let (_, initial) = Hkdf::<Sha256>::extract(Some(&SALT_V1), dcid);
    let mut secret = [0u8; 32];
    expand_label(
        &initial,
        if server { b"server in" } else { b"client in" },
        &mut secret,
    );
    let h = Hkdf::<Sha256>::from_prk(&secret).expect("32 bytes is a valid PRK");
    let (mut k, mut iv, mut hp) = ([0u8; 16], [0u8; 12], [0u8; 16]);
    expand_label(&h, b"quic key", &mut k);
    expand_label(&h, b"quic iv", &mut iv);
    expand_label(&h, b"quic hp", &mut hp);
    (k, iv, hp)
}

/// A QUIC v1 Initial packet with connection ids `dcid` and `scid` carrying `frames` (padded by
/// the caller), with a 2-byte packet number `pn`, sealed with the Initial keys of `key_dcid` (the client's first
/// DCID) for the client's or the server's side, header protection applied (RFC 9001 §5.3-5.4).
pub(crate) fn seal_initial(
    dcid: &[u8],
    scid: &[u8],
    key_dcid: &[u8],
    server: bool,
    pn: u16,
    frames: &[u8],
) -> Vec<u8> {
    let (key, iv, hp) = initial_keys(key_dcid, server);
    // Long header, fixed bit, type Initial (0), packet number length 2 (encoded as 1).
    let mut p = vec![0xc1];
    p.extend_from_slice(&1u32.to_be_bytes());
    p.push(dcid.len() as u8);
    p.extend_from_slice(dcid);
    p.push(scid.len() as u8);
    p.extend_from_slice(scid);
    p.push(0); // no token
    let length = 2 + frames.len() + 16;
    debug_assert!(length < 0x4000);
    p.extend_from_slice(&(0x4000 | length as u16).to_be_bytes());
    let pn_off = p.len();
    p.extend_from_slice(&pn.to_be_bytes());
    let mut nonce = iv;
    nonce[10] ^= (pn >> 8) as u8;
    nonce[11] ^= pn as u8;
    let mut body = frames.to_vec();
    let tag = Aes128Gcm::new(&key.into())
        .encrypt_in_place_detached(&nonce.into(), &p, &mut body)
        .expect("an Initial is far below AES-GCM's length limit");
    p.extend_from_slice(&body);
    p.extend_from_slice(&tag);
    let mut mask = aes::Block::clone_from_slice(&p[pn_off + 4..pn_off + 20]);
    aes::Aes128::new(&hp.into()).encrypt_block(&mut mask);
    p[0] ^= mask[0] & 0x0f;
    p[pn_off] ^= mask[1];
    p[pn_off + 1] ^= mask[2];
    p
}

/// A CRYPTO frame (RFC 9000 §19.6) at offset 0 holding `data`.
pub(crate) fn crypto_frame(out: &mut Vec<u8>, data: &[u8]) {
    out.extend_from_slice(&[0x06, 0x00]);
    out.extend_from_slice(&(0x4000 | data.len() as u16).to_be_bytes());
    out.extend_from_slice(data);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    /// RFC 9001 Appendix A.1: the Initial keys of DCID 0x8394c8f03e515708.
    #[test]
    fn rfc9001_initial_keys() {
        let dcid = hex("8394c8f03e515708");
        let (k, iv, hp) = initial_keys(&dcid, false);
        assert_eq!(k.to_vec(), hex("1f369613dd76d5467730efcbe3b1a22d"));
        assert_eq!(iv.to_vec(), hex("fa044b2f42a3fd3b46fb255c"));
        assert_eq!(hp.to_vec(), hex("9f50449e04a0e810283a1e9933adedd2"));
        let (k, iv, hp) = initial_keys(&dcid, true);
        assert_eq!(k.to_vec(), hex("cf3a5331653c364c88f0f379b6067e37"));
        assert_eq!(iv.to_vec(), hex("0ac1493ca1905853b0bba03e"));
        assert_eq!(hp.to_vec(), hex("c206b8d9b9f0f37644430b490eeaa314"));
    }

    /// RFC 9001 Appendix A.3: the server's Initial, sealed from the RFC's plaintext, is the
    /// RFC's protected packet byte for byte.
    #[test]
    fn rfc9001_server_initial() {
        let frames = hex(
            "02000000000600405a020000560303eefce7f7b37ba1d1632e96677825ddf73988cfc79825df566dc5\
             430b9a045a1200130100002e00330024001d00209d3c940d89690b84d08a60993c144eca684d1081287c\
             834d5311bcf32bb9da1a002b00020304",
        );
        let want = hex(
            "cf000000010008f067a5502a4262b5004075c0d95a482cd0991cd25b0aac406a5816b6394100f37a1c69\
             797554780bb38cc5a99f5ede4cf73c3ec2493a1839b3dbcba3f6ea46c5b7684df3548e7ddeb9c3bf9c73\
             cc3f3bded74b562bfb19fb84022f8ef4cdd93795d77d06edbb7aaf2f58891850abbdca3d20398c276456\
             cbc42158407dd074ee",
        );
        // A.3 uses a 2-byte packet number 1 and a zero-length DCID toward the client.
        let got = seal_initial(
            &[],
            &hex("f067a5502a4262b5"),
            &hex("8394c8f03e515708"),
            true,
            1,
            &frames,
        );
        assert_eq!(got, want);
    }
}
