//! nDPI's per-protocol defaults that are not in the protocol tables: each protocol's breed and
//! whether it is encrypted (`data/ndpi_protocols.csv`, read from nDPI's
//! `ndpi_init_protocol_defaults`; its comment lines say which commit). A label's breed, where
//! no host rule gave one, is its application's (else its master's) breed here; a flow is
//! encrypted when its master protocol is.

use crate::csvrows;
use crate::labels::{Breed, LabelId, Labels};
use std::collections::HashMap;

/// The defaults by protocol name.
#[derive(Clone, Debug, Default)]
pub struct ProtoDefaults {
    by_name: HashMap<Box<str>, (Breed, bool)>,
}

impl ProtoDefaults {
    /// Parse the CSV: `#` comment lines, the header `name,breed,encrypted,category`, then one
    /// row per protocol (fields trimmed, and quoted where they hold a comma, as in the crate's
    /// other data files). Errors name the line.
    pub fn parse(text: &str) -> Result<ProtoDefaults, String> {
        let mut by_name = HashMap::new();
        let mut header = false;
        let mut csv = csvrows::rows(text);
        loop {
            let (line, row) = match csv.next_row() {
                Ok(Some(row)) => row,
                Ok(None) => break,
                Err(e) => return Err(format!("line {}: {}", e.line, e.why)),
            };
            let f: Vec<&str> = row.iter().collect();
            if !header {
                if f[..] != ["name", "breed", "encrypted", "category"] {
                    return Err(format!(
                        "line {line}: expected the header 'name,breed,encrypted,category'"
                    ));
                }
                header = true;
                continue;
            }
            let [name, breed, enc, _category] = f[..] else {
                return Err(format!("line {line}: {} fields, expected 4", f.len()));
            };
            let breed =
                Breed::parse(breed).ok_or_else(|| format!("line {line}: breed {breed:?}"))?;
            let enc = match enc {
                "0" => false,
                "1" => true,
                e => return Err(format!("line {line}: encrypted {e:?} is not 0 or 1")),
            };
            by_name.insert(name.into(), (breed, enc));
        }
        Ok(ProtoDefaults { by_name })
    }

    /// The protocol's breed and encryption, if the table has it.
    pub fn get(&self, name: &str) -> Option<(Breed, bool)> {
        self.by_name.get(name).copied()
    }

    /// Rate every label of `labels` that has no breed yet: its application's breed, else its
    /// master's.
    pub fn rate(&self, labels: &mut Labels) {
        for i in 0..labels.len() {
            let id = LabelId(i as u16);
            let l = labels.get(id);
            if l.breed() != Breed::Unrated {
                continue;
            }
            let b = self
                .get(l.app())
                .or_else(|| self.get(l.master()))
                .map(|x| x.0);
            if let Some(b) = b {
                labels.set_breed(id, b);
            }
        }
    }

    /// Is a flow of this label encrypted? Its master's mark; a master the table does not hold
    /// is one of the applications nDPI knows by host name or address block, which nDPI marks
    /// encrypted, when `named_service` says so, else not.
    pub fn encrypted(&self, labels: &Labels, id: LabelId, named_service: bool) -> bool {
        let l = labels.get(id);
        match self.get(l.master()) {
            Some((_, e)) => e,
            None => named_service,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "# a comment\nname,breed,encrypted,category\nTLS,safe,1,WEB\n\
                        POP3,unsafe,0,MAIL\nGnutella,potentially_dangerous,0,DOWNLOAD_FT\n";

    #[test]
    fn parses_and_rates() {
        let d = ProtoDefaults::parse(TEXT).unwrap();
        assert_eq!(d.get("TLS"), Some((Breed::Safe, true)));
        assert_eq!(
            d.get("Gnutella"),
            Some((Breed::PotentiallyDangerous, false))
        );
        assert_eq!(d.get("QUIC"), None);
        let mut l = Labels::new();
        let pop = l.intern("POP3", "POP3", "Email", Breed::Unrated).unwrap();
        let yt = l.intern("TLS", "YouTube", "Media", Breed::Fun).unwrap();
        let tls = l.intern("TLS", "TLS", "Web", Breed::Unrated).unwrap();
        d.rate(&mut l);
        assert_eq!(l.get(pop).breed(), Breed::Unsafe);
        assert_eq!(l.get(yt).breed(), Breed::Fun, "a host rule's breed stays");
        assert_eq!(l.get(tls).breed(), Breed::Safe);
        assert!(d.encrypted(&l, yt, false), "TLS.YouTube: the master's mark");
        assert!(!d.encrypted(&l, pop, true));
    }

    #[test]
    fn errors_name_the_line() {
        let e = ProtoDefaults::parse("name,breed,encrypted,category\nX,nice,0,WEB\n").unwrap_err();
        assert!(e.starts_with("line 2: breed"), "{e}");
        let e = ProtoDefaults::parse("name,breed\n").unwrap_err();
        assert!(e.contains("header"), "{e}");
        let e = ProtoDefaults::parse("name,breed,encrypted,category\nX,safe,2,WEB\n").unwrap_err();
        assert!(e.contains("not 0 or 1"), "{e}");
    }

    #[test]
    fn quoted_fields_crlf_and_an_unterminated_quote() {
        let d = ProtoDefaults::parse(
            "name,breed,encrypted,category\r\n\"TLS\",safe,\"1\",\"WEB, and more\"\r\n",
        )
        .unwrap();
        assert_eq!(d.get("TLS"), Some((Breed::Safe, true)));
        let e =
            ProtoDefaults::parse("name,breed,encrypted,category\n\"TLS,safe,1,WEB\n").unwrap_err();
        assert!(
            e.starts_with("line 2: ") && e.contains("unterminated quote"),
            "{e}"
        );
    }
}
