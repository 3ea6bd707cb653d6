//! A small RFC 4180 CSV reader for label files (nDPI's flows.csv has quoted fields with commas).

/// Split CSV text into rows of fields. Quoted fields may hold commas, doubled quotes and line
/// breaks; a final row without a newline counts; empty lines are skipped.
pub fn parse(text: &str) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    let mut row = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    let mut any = false;
    while let Some(c) = chars.next() {
        if quoted {
            if c == '"' {
                if chars.peek() == Some(&'"') {
                    field.push('"');
                    chars.next();
                } else {
                    quoted = false;
                }
            } else {
                field.push(c);
            }
            continue;
        }
        match c {
            '"' => {
                quoted = true;
                any = true;
            }
            ',' => {
                row.push(std::mem::take(&mut field));
                any = true;
            }
            '\r' => {}
            '\n' => {
                if any || !field.is_empty() {
                    row.push(std::mem::take(&mut field));
                    rows.push(std::mem::take(&mut row));
                }
                any = false;
            }
            _ => {
                field.push(c);
                any = true;
            }
        }
    }
    if any || !field.is_empty() {
        row.push(field);
        rows.push(row);
    }
    rows
}

/// Rows as (header → value) lookups: the header row and a function giving a column's index.
pub struct Table {
    /// Column names.
    pub header: Vec<String>,
    /// Data rows.
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// Parse text with a header line.
    pub fn parse(text: &str) -> Table {
        let mut rows = parse(text);
        let header = if rows.is_empty() {
            Vec::new()
        } else {
            rows.remove(0)
        };
        Table { header, rows }
    }

    /// Index of a column.
    pub fn col(&self, name: &str) -> Option<usize> {
        self.header.iter().position(|h| h == name)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn quoted_fields() {
        let r = super::parse("a,b,c\n1,\"x, \"\"y\"\"\",3\r\n\n4,,\"\"");
        assert_eq!(r.len(), 3);
        assert_eq!(r[1], vec!["1", "x, \"y\"", "3"]);
        assert_eq!(r[2], vec!["4", "", ""]);
    }
}
