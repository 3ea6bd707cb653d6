//! The fixed-size metadata area of a flow.

/// Bytes of metadata a flow can hold (all fields together).
pub const META_BYTES: usize = 768;

// A bit per field in [`Meta`]'s set of fields.
const _: () = assert!(Field::COUNT <= 64);

macro_rules! fields {
    ($($(#[$doc:meta])* $v:ident = $name:literal, $cap:literal;)*) => {
        /// A metadata field. Its record name is [`Field::name`]; a value longer than
        /// [`Field::cap`] bytes is truncated.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[repr(u8)]
        pub enum Field { $($(#[$doc])* $v,)* }

        impl Field {
            /// Number of fields.
            pub const COUNT: usize = [$(Field::$v,)*].len();

            /// Every field, in record order.
            pub const ALL: &'static [Field] = &[$(Field::$v,)*];

            /// The field's name in flow records.
            pub fn name(self) -> &'static str {
                match self { $(Field::$v => $name,)* }
            }

            /// Most bytes kept of a value.
            pub fn cap(self) -> usize {
                match self { $(Field::$v => $cap,)* }
            }
        }
    };
}

fields! {
    /// TLS or QUIC server name indication.
    Sni = "sni", 255;
    /// TLS ALPN: the client's offer (comma-separated) or, once seen, the server's choice.
    Alpn = "alpn", 64;
    /// TLS version: the server's choice when seen, else the client's highest ("TLSv1.3").
    TlsVersion = "tls_version", 8;
    /// JA3 client fingerprint (MD5, hex).
    Ja3c = "ja3c", 32;
    /// JA4 client fingerprint.
    Ja4 = "ja4", 40;
    /// HTTP request method.
    HttpMethod = "http_method", 16;
    /// HTTP Host header.
    HttpHost = "http_host", 128;
    /// HTTP URL as nDPI writes it: host and path.
    Url = "url", 255;
    /// HTTP User-Agent header.
    UserAgent = "user_agent", 200;
    /// HTTP response status code.
    HttpStatus = "http_status", 3;
    /// DNS (LLMNR, mDNS) first query name.
    DnsQuery = "dns_query", 255;
    /// DNS query type (number).
    DnsQtype = "dns_qtype", 5;
    /// DNS response code (number), from the first response.
    DnsRcode = "dns_rcode", 2;
    /// QUIC version as nDPI names it ("V-1", "Draft-29").
    QuicVersion = "quic_version", 16;
    /// SSH client banner.
    SshClient = "ssh_client", 96;
    /// SSH server banner.
    SshServer = "ssh_server", 96;
    /// HASSH client fingerprint (MD5, hex).
    Hassh = "hassh", 32;
    /// DHCP client host name (option 12).
    DhcpHost = "dhcp_host", 64;
    /// Payload search (`--match FILE`): numbers of the patterns found, see [`crate::matcher`].
    Matches = "matches", 255;
    /// Subject of the server's certificate (TLS up to 1.2, DTLS), RFC 4514 text.
    TlsCertSubject = "tls_cert_subject", 255;
    /// Issuer of the server's certificate, RFC 4514 text.
    TlsCertIssuer = "tls_cert_issuer", 255;
    /// SMTP envelope sender (`MAIL FROM:` address).
    SmtpFrom = "smtp_from", 128;
    /// SMTP envelope recipient (first `RCPT TO:` address).
    SmtpRcpt = "smtp_rcpt", 128;
    /// Every DNS (LLMNR, mDNS) query name of the flow, in the order first asked, each once,
    /// comma-separated (a 5-tuple a resolver keeps carries several transactions).
    DnsNames = "dns_names", 255;
    /// The protocol an HTTP/1.1 connection switched to (`101 Switching Protocols`' `Upgrade`
    /// header: `websocket`, `h2c`).
    HttpUpgrade = "http_upgrade", 32;
    /// The cipher suite the TLS server chose (ServerHello), as its IANA number in decimal.
    TlsCipher = "tls_cipher", 5;
    /// The first HTTP response's `Content-Type` value, whole (parameters too, as nDPI reads
    /// it for its binary-transfer and content checks).
    HttpContentType = "http_content_type", 64;
    /// The first HTTP response's `Server` header.
    HttpServer = "http_server", 64;
    /// What the HTTP heads showed that nDPI's header and content checks read, as letters (see
    /// `proto::http`): `a` an executable attachment named by `Content-Disposition`, `b` a
    /// response body whose first bytes are not text, `d` another attachment named by
    /// `Content-Disposition`, `e` a response body that starts as an
    /// executable, `h` a header name nDPI calls suspicious, `s` a non-printable byte in
    /// `Server`.
    HttpFlags = "http_flags", 8;
    /// What a TLS/DTLS/QUIC client hello showed that nDPI's checks read, as letters (see
    /// `proto::tls`): `e` an encrypted_server_name (ESNI, 0xffce) extension, `h` a gQUIC CHLO
    /// was read (TLS hellos show as `ja4`), `w` a DTLS use_srtp offer on a flow that began with
    /// STUN (nDPI's WebRTC).
    TlsFlags = "tls_flags", 4;
    /// What the DNS messages showed that nDPI's checks read, as letters in alphabetical order
    /// (see `proto::dns`): `e` a response with a non-zero RCODE, `i` a byte other than a letter,
    /// digit, '-' or '_' in the first question's name as nDPI copies it (not on mDNS), `m` a
    /// malformed header or question after the first message, `z` an answer record with TTL 0.
    DnsFlags = "dns_flags", 4;
    /// What the first payloads of a flow no inspector had named yet began with, as letters
    /// (nDPI's checks after its dissectors, `ndpi_search_portable_executable`,
    /// `ndpi_search_elf`, `ndpi_search_shellscript`): `e` an executable (a PE image: `MZ` and
    /// a `PE\0\0` header where its offset at 0x3c says; or an ELF header of version up to 6),
    /// `s` a script (`#!/` or `#! `).
    PayloadFlags = "payload_flags", 4;
    /// The DNS names of the server certificate's subjectAltName extension (TLS up to 1.2,
    /// DTLS), in their order, comma-separated, as many whole names as fit.
    TlsCertNames = "tls_cert_names", 255;
}

/// A flow's metadata: values of [`Field`]s in a fixed area of [`META_BYTES`] bytes, counted as
/// each value's bytes and two bytes of field id and length. Values are valid UTF-8 without control characters,
/// written as tshark displays such text: ASCII control characters as `\ooo` (octal), each
/// invalid UTF-8 sequence as U+FFFD; truncation cuts between characters. Every value reads back
/// as `&str`. The first value of a field
/// stands; a value longer than its field's cap is truncated, and one that does not fit in the
/// area is dropped; both are counted.
///
/// The values' text is kept as one `str` (an [`arrayvec::ArrayString`], never zeroed) and each
/// value's field and end in a list beside it: a value is read as text without checking it as
/// UTF-8 again (it was a string when it was written; the checks at every read, when field ids
/// and lengths were interleaved with the text, were ~25 instructions a packet of the corpus mix).
#[derive(Clone, Default)]
pub struct Meta {
    /// Values truncated or dropped so far.
    pub(crate) truncated: u32,
    /// Fingerprints' hashes are not computed: `0` digits stand for them
    /// ([`crate::DpiConfig::fingerprints`]); kept across [`Meta::clear`].
    pub(crate) no_hash: bool,
    /// The fields set, a bit each (by number).
    set: u64,
    /// Each value's field and the end of its text in `text` (its start: the end before it), in
    /// the order written; a field at most once.
    ends: arrayvec::ArrayVec<(Field, u16), { Field::COUNT }>,
    /// The values' text, one after another.
    text: arrayvec::ArrayString<META_BYTES>,
}

impl std::fmt::Debug for Meta {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map()
            .entries(self.iter().map(|(k, v)| (k.name(), v)))
            .finish()
    }
}

impl Meta {
    /// No values.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    pub(crate) fn clear(&mut self) {
        self.set = 0;
        self.ends.clear();
        self.text.clear();
        self.truncated = 0;
    }

    /// Bytes of the area used: the values' and two a value for its field and length.
    fn used(&self) -> usize {
        self.text.len() + 2 * self.ends.len()
    }

    /// Every value held, in the order written.
    pub fn iter(&self) -> impl Iterator<Item = (Field, &str)> + '_ {
        let mut start = 0usize;
        self.ends.iter().map(move |&(f, end)| {
            let end = usize::from(end);
            let v = self.text.get(start..end).unwrap_or("");
            start = end;
            (f, v)
        })
    }

    /// Where `f`'s value is in `ends`, if set.
    fn position(&self, f: Field) -> Option<usize> {
        if !self.has(f) {
            return None;
        }
        self.ends.iter().position(|&(k, _)| k == f)
    }

    /// The value of `f`, if set.
    pub fn get(&self, f: Field) -> Option<&str> {
        let i = self.position(f)?;
        let start = match i.checked_sub(1) {
            Some(p) => usize::from(self.ends.get(p)?.1),
            None => 0,
        };
        self.text.get(start..usize::from(self.ends.get(i)?.1))
    }

    /// `f` holds a value.
    fn has(&self, f: Field) -> bool {
        self.set & 1 << (f as u8 & 63) != 0
    }

    /// The fields set, a bit per [`Field`] (by its number).
    pub(crate) fn present(&self) -> u64 {
        self.set
    }

    /// Set `f` to `v` unless it is set already (see the type's rules).
    pub fn set(&mut self, f: Field, v: &[u8]) {
        if v.is_empty() || self.has(f) {
            return;
        }
        let room = f
            .cap()
            .min(255)
            .min(META_BYTES.saturating_sub(self.used() + 2));
        if room == 0 {
            self.truncated += 1;
            return;
        }
        // Written as tshark shows such text (`escape_into`); cut before a piece that does not fit.
        if !crate::util::printable(v) {
            return self.set_escaped(f, v, room);
        }
        // Printable ASCII (most names, hosts, URLs, agents) is kept as it is: one copy, not one
        // per character (those were 3.6% of the corpus mix's profile). The same cut as
        // `escape_into`'s: as many bytes as fit.
        let n = v.len().min(room);
        if n < v.len() {
            self.truncated += 1;
        }
        // ASCII: valid UTF-8 at any cut.
        if let Ok(text) = std::str::from_utf8(v.get(..n).unwrap_or(&[])) {
            self.push(f, text);
        }
    }

    /// [`Meta::set`] of a value that is not all printable ASCII, `room` bytes of it at most.
    #[cold]
    fn set_escaped(&mut self, f: Field, v: &[u8], room: usize) {
        let mut escaped = [0u8; 255];
        let mut cut = false;
        let n = escape_into(escaped.get_mut(..room).unwrap_or(&mut []), v, &mut cut);
        if cut {
            self.truncated += 1;
        }
        // Valid UTF-8: what `escape_into` writes.
        if let Ok(text) = std::str::from_utf8(escaped.get(..n).unwrap_or(&[])) {
            self.push(f, text);
        }
    }

    /// Keep `text` as `f`'s value (unset, and the area has room for it: [`Meta::set`]'s checks).
    fn push(&mut self, f: Field, text: &str) {
        // (`ends` holds every field once; checked first all the same, so that text is never
        // kept without its end.)
        if text.is_empty() || self.ends.is_full() || self.text.try_push_str(text).is_err() {
            return;
        }
        let _ = self.ends.try_push((f, self.text.len() as u16));
        self.set |= 1 << (f as u8 & 63);
    }

    /// Set `f` to the decimal form of `n`.
    pub fn set_num(&mut self, f: Field, n: u32) {
        let mut b = [0u8; 10];
        let mut i = b.len();
        let mut x = n;
        loop {
            i -= 1;
            b[i] = b'0' + (x % 10) as u8;
            x /= 10;
            if x == 0 || i == 0 {
                break;
            }
        }
        self.set(f, &b[i..]);
    }

    /// Add `v` to the list `f` holds (items joined by `sep`), unless it is there already; a
    /// list that would pass the field's cap keeps the items that fit (counted as truncated).
    pub fn append(&mut self, f: Field, v: &[u8], sep: u8) {
        if v.is_empty() {
            return;
        }
        let mut joined = crate::util::Buf::<255>::default();
        match self.get(f) {
            None => return self.set(f, v),
            Some(old) => {
                if old.as_bytes().split(|&b| b == sep).any(|item| item == v) {
                    return;
                }
                if old.len() + 1 + v.len() > f.cap().min(255) {
                    self.truncated += 1;
                    return;
                }
                joined.push(old.as_bytes());
            }
        }
        joined.push(&[sep]);
        joined.push(v);
        self.replace(f, joined.as_bytes());
    }

    /// Replace `f`'s value (a later message can be more authoritative, e.g. the TLS version the
    /// server chose over the client's offer).
    pub fn replace(&mut self, f: Field, v: &[u8]) {
        if let Some(i) = self.position(f) {
            // Remove the value: the text after it moves down, and the ends after it with it.
            let start = i
                .checked_sub(1)
                .and_then(|p| self.ends.get(p))
                .map_or(0, |e| usize::from(e.1));
            let end = self.ends.get(i).map_or(start, |e| usize::from(e.1));
            let mut rest = arrayvec::ArrayString::<META_BYTES>::new();
            let _ = rest.try_push_str(self.text.get(end..).unwrap_or(""));
            self.text.truncate(start);
            let _ = self.text.try_push_str(&rest);
            let _ = self.ends.pop_at(i);
            for e in self.ends.iter_mut().skip(i) {
                e.1 -= (end - start) as u16;
            }
            self.set &= !(1 << (f as u8 & 63));
        }
        self.set(f, v);
    }

    /// Write `f` as the letters of the flags set in `bits`, in `letters`' order (a flags column
    /// such as `http_flags`: each `(bit, letter)` pair names one flag).
    pub fn set_letters(&mut self, f: Field, bits: u8, letters: &[(u8, u8)]) {
        let mut text = [0u8; 8];
        let mut n = 0;
        for &(bit, letter) in letters {
            if bits & bit != 0 && n < text.len() {
                text[n] = letter;
                n += 1;
            }
        }
        self.replace(f, &text[..n]);
    }

    /// Add `letter` to the flags column `f` (a no-op when it is there), keeping the letters in
    /// `order`'s order; letters not in `order` are dropped.
    pub fn add_letter(&mut self, f: Field, letter: u8, order: &[u8]) {
        let was = self.get(f).unwrap_or("").as_bytes();
        if was.contains(&letter) {
            return;
        }
        let mut text = [0u8; 8];
        let mut n = 0;
        for &c in order {
            if (c == letter || was.contains(&c)) && n < text.len() {
                text[n] = c;
                n += 1;
            }
        }
        self.replace(f, &text[..n]);
    }
}

/// Write `v` into `dst` as tshark shows text: valid UTF-8 kept, control characters as `\ooo`
/// (octal), each invalid sequence as U+FFFD; cut before a piece that does not fit (`cut` set).
/// Returns the bytes written.
pub(crate) fn escape_into(dst: &mut [u8], v: &[u8], cut: &mut bool) -> usize {
    let mut n = 0usize;
    let mut put = |piece: &[u8], n: &mut usize| -> bool {
        match dst.get_mut(*n..*n + piece.len()) {
            Some(d) => {
                d.copy_from_slice(piece);
                *n += piece.len();
                true
            }
            None => false,
        }
    };
    'outer: for chunk in v.utf8_chunks() {
        for ch in chunk.valid().chars() {
            let mut tmp = [0u8; 4];
            let bytes = ch.encode_utf8(&mut tmp).as_bytes();
            let ok = if ch.is_control() {
                // C0, DEL and C1 controls: each byte as \ooo.
                let mut esc = [0u8; 8];
                for (k, &c) in bytes.iter().enumerate() {
                    esc[4 * k..4 * k + 4].copy_from_slice(&[
                        b'\\',
                        b'0' + (c >> 6),
                        b'0' + ((c >> 3) & 7),
                        b'0' + (c & 7),
                    ]);
                }
                put(&esc[..4 * bytes.len()], &mut n)
            } else {
                put(bytes, &mut n)
            };
            if !ok {
                *cut = true;
                break 'outer;
            }
        }
        if !chunk.invalid().is_empty() && !put("\u{fffd}".as_bytes(), &mut n) {
            *cut = true;
            break;
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_value_stands_and_caps_hold() {
        let mut m = Meta::default();
        m.set(Field::Sni, b"example.com");
        m.set(Field::Sni, b"other.org");
        assert_eq!(m.get(Field::Sni), Some("example.com"));
        m.set(Field::HttpStatus, b"2000");
        assert_eq!(m.get(Field::HttpStatus), Some("200"));
        assert_eq!(m.truncated, 1);
        // tshark's way: dns-invalid-chars.pcap shows "www.allyourba\004\005\006arebelongto.cn".
        m.set(Field::UserAgent, b"a\x04b\xffc");
        assert_eq!(m.get(Field::UserAgent), Some("a\\004b\u{fffd}c"));
        // A C1 control (U+0088, found by the fuzzer) is escaped byte by byte too.
        m.set(Field::SshClient, "SSH-\u{88}".as_bytes());
        assert_eq!(m.get(Field::SshClient), Some("SSH-\\302\\210"));
        m.set(Field::DnsQuery, "小佛專機".as_bytes());
        assert_eq!(m.get(Field::DnsQuery), Some("小佛專機"));
        // 255 bytes cut inside a 3-byte character: the whole character goes.
        let long = "é".repeat(200);
        m.set(Field::Url, long.as_bytes());
        assert_eq!(m.get(Field::Url).map(str::len), Some(254));
        m.set_num(Field::DnsQtype, 28);
        assert_eq!(m.get(Field::DnsQtype), Some("28"));
        m.replace(Field::Sni, b"b.org");
        assert_eq!(m.get(Field::Sni), Some("b.org"));
        assert_eq!(m.get(Field::DnsQtype), Some("28"));
        assert_eq!(m.get(Field::UserAgent), Some("a\\004b\u{fffd}c"));
    }

    #[test]
    fn lists_append_each_item_once_within_the_cap() {
        let mut m = Meta::default();
        m.append(Field::DnsNames, b"a.example", b',');
        m.append(Field::DnsNames, b"b.example", b',');
        m.append(Field::DnsNames, b"a.example", b',');
        m.append(Field::DnsNames, b"", b',');
        assert_eq!(m.get(Field::DnsNames), Some("a.example,b.example"));
        // Other fields are untouched by the rewrite.
        m.set(Field::Sni, b"x.example");
        m.append(Field::DnsNames, b"c.example", b',');
        assert_eq!(m.get(Field::Sni), Some("x.example"));
        assert_eq!(
            m.get(Field::DnsNames),
            Some("a.example,b.example,c.example")
        );
        // An item that would pass the cap is left out and counted.
        let long = [b'x'; 250];
        m.append(Field::DnsNames, &long, b',');
        assert_eq!(
            m.get(Field::DnsNames),
            Some("a.example,b.example,c.example")
        );
        assert_eq!(m.truncated, 1);
    }

    #[test]
    fn area_never_overflows() {
        let mut m = Meta::default();
        let long = [b'x'; 300];
        for f in Field::ALL {
            m.set(*f, &long);
        }
        assert!(m.used() <= META_BYTES);
        assert!(m.truncated > 0);
        assert_eq!(m.get(Field::Sni).map(str::len), Some(255));
    }

    /// The store as a list of (field, text), written again plainly: the oracle below.
    #[derive(Default)]
    struct Model {
        vals: Vec<(Field, String)>,
        truncated: u32,
    }

    impl Model {
        fn set(&mut self, f: Field, v: &[u8]) {
            if v.is_empty() || self.vals.iter().any(|(k, _)| *k == f) {
                return;
            }
            let used: usize = self.vals.iter().map(|(_, t)| t.len() + 2).sum();
            let room = f.cap().min(255).min(META_BYTES.saturating_sub(used + 2));
            if room == 0 {
                self.truncated += 1;
                return;
            }
            let mut dst = vec![0u8; room];
            let mut cut = false;
            let n = escape_into(&mut dst, v, &mut cut);
            self.truncated += u32::from(cut);
            if n > 0 {
                self.vals
                    .push((f, String::from_utf8(dst[..n].to_vec()).unwrap()));
            }
        }

        fn replace(&mut self, f: Field, v: &[u8]) {
            self.vals.retain(|(k, _)| *k != f);
            self.set(f, v);
        }
    }

    proptest::proptest! {
        /// Any sequence of writes and replacements leaves the values, their order, each field's
        /// lookup and the truncation count that the plain list model has.
        #[test]
        fn store_is_the_plain_list(
            ops in proptest::collection::vec(
                (
                    proptest::bool::ANY,
                    proptest::sample::select(Field::ALL),
                    proptest::prop_oneof![
                        proptest::collection::vec(0x20u8..0x7f, 0..300),
                        proptest::collection::vec(proptest::num::u8::ANY, 0..40),
                    ],
                ),
                0..40,
            ),
        ) {
            let (mut m, mut model) = (Meta::default(), Model::default());
            for (replace, f, v) in &ops {
                if *replace {
                    m.replace(*f, v);
                    model.replace(*f, v);
                } else {
                    m.set(*f, v);
                    model.set(*f, v);
                }
                let got: Vec<(Field, String)> = m.iter().map(|(k, v)| (k, v.to_string())).collect();
                proptest::prop_assert_eq!(&got, &model.vals);
                proptest::prop_assert_eq!(m.truncated, model.truncated);
                proptest::prop_assert!(m.used() <= META_BYTES);
                for f in Field::ALL {
                    let want = model.vals.iter().find(|(k, _)| k == f).map(|(_, t)| t.as_str());
                    proptest::prop_assert_eq!(m.get(*f), want);
                }
            }
        }

        /// The one-copy path for printable ASCII stores what the escaping path would, and cuts
        /// where it would, for any value and any room left.
        #[test]
        fn ascii_fast_path_is_the_escaping_path(
            v in proptest::collection::vec(0x20u8..0x7f, 1..400),
            used in 0usize..META_BYTES,
            f in proptest::sample::select(Field::ALL),
        ) {
            let mut m = Meta::default();
            // Fill the area up to `used` bytes with another field, so the room varies.
            let other = if f == Field::Url { Field::Sni } else { Field::Url };
            m.set(other, &vec![b'y'; used.min(other.cap()).max(1)]);
            let at = m.used();
            let room = f.cap().min(255).min(META_BYTES.saturating_sub(at + 2));
            let before = m.truncated;
            m.set(f, &v);
            let mut dst = vec![0u8; room];
            let mut cut = false;
            let n = escape_into(&mut dst, &v, &mut cut);
            let want = (n > 0).then(|| std::str::from_utf8(&dst[..n]).unwrap());
            proptest::prop_assert_eq!(m.get(f), want);
            proptest::prop_assert_eq!(m.truncated - before, u32::from(cut || room == 0));
        }
    }
}
