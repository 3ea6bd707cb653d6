//! The OpenMetrics text format: families (`# TYPE`, `# UNIT`, `# HELP`), samples with the
//! type's suffix (`_total`, `_info`) and escaped label values, `# EOF` last.

use std::fmt::Write as _;

/// The content type of the answer: the OpenMetrics text format, which Prometheus asks for first
/// and reads.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// The type of a metric family.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Type {
    /// A count that only goes up: its sample is named `NAME_total`.
    Counter,
    /// A value that goes up and down: its sample is named `NAME`.
    Gauge,
    /// Labels worth knowing, value 1: its sample is named `NAME_info`.
    Info,
}

/// An OpenMetrics text exposition being written: a family ([`Exposition::family`]) then its
/// samples ([`Exposition::sample`]), for each family in turn; [`Exposition::finish`] adds the
/// `# EOF` that ends it.
#[derive(Debug, Default)]
pub struct Exposition {
    out: String,
    name: String,
    kind: Option<Type>,
}

impl Exposition {
    /// Start the family `name` (letters, digits, `_`, not ending in `_total`; with a `unit`,
    /// ending in `_UNIT`): its `# TYPE`, `# UNIT` and `# HELP` lines.
    pub fn family(&mut self, name: &str, kind: Type, unit: &str, help: &str) {
        debug_assert!(is_name(name) && !name.ends_with("_total"), "{name}");
        debug_assert!(
            unit.is_empty() || name.ends_with(&format!("_{unit}")),
            "{name}"
        );
        let t = match kind {
            Type::Counter => "counter",
            Type::Gauge => "gauge",
            Type::Info => "info",
        };
        let _ = writeln!(self.out, "# TYPE {name} {t}");
        if !unit.is_empty() {
            let _ = writeln!(self.out, "# UNIT {name} {unit}");
        }
        let _ = write!(self.out, "# HELP {name} ");
        escape(help, &mut self.out);
        self.out.push('\n');
        self.name.clear();
        self.name.push_str(name);
        self.kind = Some(kind);
    }

    /// A sample of the current family, with these labels (names: letters, digits, `_`; values:
    /// any text, escaped here).
    pub fn sample(&mut self, labels: &[(&str, &str)], value: u64) {
        let suffix = match self.kind {
            Some(Type::Counter) => "_total",
            Some(Type::Info) => "_info",
            Some(Type::Gauge) | None => "",
        };
        self.out.push_str(&self.name);
        self.out.push_str(suffix);
        if !labels.is_empty() {
            self.out.push('{');
            for (i, (k, v)) in labels.iter().enumerate() {
                debug_assert!(is_name(k), "{k}");
                if i > 0 {
                    self.out.push(',');
                }
                self.out.push_str(k);
                self.out.push_str("=\"");
                escape(v, &mut self.out);
                self.out.push('"');
            }
            self.out.push('}');
        }
        let _ = writeln!(self.out, " {value}");
    }

    /// The text, ended by `# EOF`.
    pub fn finish(mut self) -> String {
        self.out.push_str("# EOF\n");
        self.out
    }
}

/// A metric or label name: `[a-zA-Z_][a-zA-Z0-9_]*`.
fn is_name(s: &str) -> bool {
    let mut b = s.bytes();
    b.next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == b'_')
        && b.all(|c| c.is_ascii_alphanumeric() || c == b'_')
}

/// Append `s` as the format's escaped string (label values, help): backslash, double quote and
/// newline escaped, everything else as it is.
pub fn escape(s: &str, out: &mut String) {
    for ch in s.chars() {
        match ch {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// Every line is a comment (`# TYPE`, `# UNIT`, `# HELP`, `# EOF` last) or a sample
    /// `name{labels} value` of the family declared last, whose name is the family's with the
    /// type's suffix; label values are escaped. The samples' names and values.
    pub(in crate::metrics) fn parse(text: &str) -> Vec<(String, String, u64)> {
        let mut lines: Vec<&str> = text.split('\n').collect();
        assert_eq!(lines.pop(), Some(""), "ends with a newline");
        assert_eq!(lines.pop(), Some("# EOF"), "ends with # EOF");
        let mut fam: Option<(String, String)> = None;
        let mut seen = std::collections::BTreeSet::new();
        let mut out = Vec::new();
        for l in lines {
            if let Some(rest) = l.strip_prefix("# TYPE ") {
                let (name, t) = rest.split_once(' ').unwrap();
                assert!(seen.insert(name.to_string()), "family {name} twice");
                fam = Some((name.to_string(), t.to_string()));
                continue;
            }
            if l.starts_with("# HELP ") || l.starts_with("# UNIT ") {
                let name = l[7..].split(' ').next().unwrap();
                assert_eq!(Some(name), fam.as_ref().map(|f| f.0.as_str()), "{l}");
                continue;
            }
            assert!(!l.starts_with('#'), "{l}");
            let (name_labels, value) = l.rsplit_once(' ').unwrap();
            let value: u64 = value.parse().unwrap();
            let (name, labels) = match name_labels.split_once('{') {
                Some((n, rest)) => (n, rest.strip_suffix('}').unwrap()),
                None => (name_labels, ""),
            };
            let (f, t) = fam.as_ref().expect("a sample before any # TYPE");
            let want = match t.as_str() {
                "counter" => format!("{f}_total"),
                "info" => format!("{f}_info"),
                _ => f.clone(),
            };
            assert_eq!(name, want, "{l}");
            // Label values: between quotes, with only \\, \" and \n escapes.
            let mut chars = labels.chars().peekable();
            while chars.peek().is_some() {
                let key: String = chars.by_ref().take_while(|&c| c != '=').collect();
                assert!(is_name(&key), "{l}");
                assert_eq!(chars.next(), Some('"'), "{l}");
                loop {
                    match chars.next() {
                        Some('\\') => {
                            assert!(matches!(chars.next(), Some('\\' | '"' | 'n')), "{l}")
                        }
                        Some('"') => break,
                        Some('\n') | None => panic!("{l}"),
                        Some(_) => {}
                    }
                }
                assert!(matches!(chars.next(), Some(',') | None), "{l}");
            }
            out.push((name.to_string(), labels.to_string(), value));
        }
        out
    }

    #[test]
    fn label_values_and_help_are_escaped() {
        let mut s = String::new();
        escape("a\\b\"c\nd é", &mut s);
        assert_eq!(s, "a\\\\b\\\"c\\nd é");
        let mut e = Exposition::default();
        e.family(
            "x_bytes",
            Type::Counter,
            "bytes",
            "help with \\ and\nnewline and \"quotes\"",
        );
        e.sample(&[("app", "we\"ird\\\n"), ("master", "TLS")], 7);
        e.family("y", Type::Gauge, "", "a gauge");
        e.sample(&[], 3);
        let text = e.finish();
        assert_eq!(
            text,
            "# TYPE x_bytes counter\n# UNIT x_bytes bytes\n\
             # HELP x_bytes help with \\\\ and\\nnewline and \\\"quotes\\\"\n\
             x_bytes_total{app=\"we\\\"ird\\\\\\n\",master=\"TLS\"} 7\n\
             # TYPE y gauge\n# HELP y a gauge\ny 3\n# EOF\n"
        );
        assert_eq!(parse(&text).len(), 2);
    }
}
