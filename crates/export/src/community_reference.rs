/// (src, sport, dst, dport, proto, Community ID) by PyPI `communityid` 1.5.0.
const REFERENCE: &[(&str, u16, &str, u16, u8, &str)] = &[
    ("192.0.2.1", 34855, "198.51.100.7", 80, 6, "1:pfeysYFoUPNhinx9LiQj3uiylu4="),
    ("198.51.100.7", 443, "192.0.2.1", 50000, 6, "1:tXBfHcLekJx+/ZBmdAEqJAZvz+I="),
    ("192.0.2.10", 53000, "203.0.113.53", 53, 17, "1:oGfgtNttJalda1ubsnCt3UfgVp0="),
    ("203.0.113.5", 5060, "203.0.113.5", 5061, 17, "1:1t+hgLqO+FruFRo1gtNDJsz0b3c="),
    ("2001:db8::1", 1234, "2001:db8::2", 443, 6, "1:2h29Psz1danTKrAdwKC8Zw31l2Y="),
    ("2001:db8:1::5", 40000, "2001:db8::9", 53, 17, "1:jxCWp3mW7TN+Yx+BVkjLH1lB+Fw="),
    ("192.0.2.1", 2905, "198.51.100.2", 2905, 132, "1:M4Tts/cFCsvbdt6UsEKDbQTAzJc="),
    ("192.0.2.1", 0, "198.51.100.2", 0, 47, "1:47kxwwIY7XJ9+eeEbwekTIL2aqA="),
    ("2001:db8::1", 0, "2001:db8::2", 0, 50, "1:JIAyWiD7dl1e74CJAdetAUPF/To="),
];
