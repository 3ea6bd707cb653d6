//! Labels as data: the registry of a run.
//!
//! A verdict carries a [`LabelId`], a `u16` into the run's [`Labels`], never strings. The
//! registry is filled once at start, from the built-in tables (port table, IP protocol numbers,
//! the payload inspectors' labels, the statistical model's classes) and from the files a run is
//! given (byte signatures today; host names, address owners and operator rules next), then shared
//! read-only by every worker. Two runs in one process each have their own registry, so a label
//! loaded for one never shows in the other, and nothing is leaked to get a `'static` name.
//!
//! A label is identified by its names, (master, application, category): interning the same three
//! twice gives the same id (the first breed stays), so the port table's `TLS` and the TLS
//! inspector's `TLS` are one label. Tables that disagree on a protocol's category (the port
//! table's DCERPC is `RPC`, the inspector's `Network`) give two labels, so every record keeps the
//! category its classifier gave. Id 0 is always [`LabelId::UNKNOWN`].

use crate::Label;
use std::collections::HashMap;
use std::fmt;

/// A label's number in its run's [`Labels`] (what records, IPFIX's applicationId, Parquet
/// dictionaries and per-application actions key by). Only meaningful with its registry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct LabelId(pub u16);

impl LabelId {
    /// The label of flows nobody could classify ([`Label::UNKNOWN`]): id 0 in every registry.
    pub const UNKNOWN: LabelId = LabelId(0);

    /// The id as an index.
    #[inline]
    pub fn index(self) -> usize {
        usize::from(self.0)
    }
}

/// nDPI's breed: how acceptable an application is on a managed network.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Breed {
    /// Nothing is known (the built-in protocol tables carry no breed).
    #[default]
    Unrated,
    /// Safe.
    Safe,
    /// Acceptable.
    Acceptable,
    /// Fun (games, streaming).
    Fun,
    /// Unsafe.
    Unsafe,
    /// Potentially dangerous.
    PotentiallyDangerous,
    /// Dangerous.
    Dangerous,
    /// Trackers and advertisement.
    TrackerAds,
}

impl Breed {
    /// Every breed, in declaration order.
    pub const ALL: [Breed; 8] = [
        Breed::Unrated,
        Breed::Safe,
        Breed::Acceptable,
        Breed::Fun,
        Breed::Unsafe,
        Breed::PotentiallyDangerous,
        Breed::Dangerous,
        Breed::TrackerAds,
    ];

    /// nDPI's spelling (`ndpi_get_proto_breed_name`).
    pub fn as_str(self) -> &'static str {
        match self {
            Breed::Unrated => "Unrated",
            Breed::Safe => "Safe",
            Breed::Acceptable => "Acceptable",
            Breed::Fun => "Fun",
            Breed::Unsafe => "Unsafe",
            Breed::PotentiallyDangerous => "Potentially_Dangerous",
            Breed::Dangerous => "Dangerous",
            Breed::TrackerAds => "Tracker_Ads",
        }
    }

    /// Parse a breed as data files write it: nDPI's spelling in any case, `-`, `_` or space
    /// between words (`fun`, `Potentially Dangerous`, `tracker_ads`).
    pub fn parse(s: &str) -> Option<Breed> {
        // The spelling of the shipped files (`acceptable`, `tracker_ads`) without building a
        // normalised copy: a thousand rows parsed at every start.
        if let Some(b) = Breed::ALL
            .into_iter()
            .find(|b| b.as_str().eq_ignore_ascii_case(s))
        {
            return Some(b);
        }
        let norm: String = s
            .trim()
            .chars()
            .filter(|c| !matches!(c, '_' | '-' | ' '))
            .flat_map(char::to_lowercase)
            .collect();
        Breed::ALL.into_iter().find(|b| {
            b.as_str()
                .chars()
                .filter(|c| *c != '_')
                .flat_map(char::to_lowercase)
                .eq(norm.chars())
        })
    }
}

/// One label of a registry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LabelEntry {
    master: Box<str>,
    app: Box<str>,
    category: Box<str>,
    breed: Breed,
    /// nDPI's printed name ([`LabelEntry::proto`]), made once here rather than per record.
    proto: Box<str>,
    /// No name holds a quote, backslash or comma ([`LabelEntry::plain`]).
    plain: bool,
    /// [`LabelEntry::names_len`], summed once here.
    names_len: usize,
}

impl LabelEntry {
    /// Master protocol ("TLS", "DNS").
    #[inline]
    pub fn master(&self) -> &str {
        &self.master
    }

    /// Application ("YouTube"); equal to the master when nothing finer is known.
    #[inline]
    pub fn app(&self) -> &str {
        &self.app
    }

    /// Category ("Web").
    #[inline]
    pub fn category(&self) -> &str {
        &self.category
    }

    /// Breed.
    #[inline]
    pub fn breed(&self) -> Breed {
        self.breed
    }

    /// nDPI's "MASTER.APP" form of the label (just "APP" when the master is the same, empty or
    /// Unknown): the `proto` of flow records.
    #[inline]
    pub fn proto(&self) -> &str {
        &self.proto
    }

    /// Whether no name of the label (nor its [`LabelEntry::proto`]) holds a quote, backslash
    /// or comma. Names hold no control character (see [`Labels::intern`]), so the record
    /// writers write a plain label's names as they are, in JSON (no escape) and CSV (no quotes).
    #[inline]
    pub fn plain(&self) -> bool {
        self.plain
    }

    /// The four names' lengths together ([`LabelEntry::proto`], the application, the master,
    /// the category: what a record writes of the label), for a writer's reservation.
    #[inline]
    pub fn names_len(&self) -> usize {
        self.names_len
    }
}

/// Why a label could not be added.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LabelError {
    /// The registry holds [`Labels::CAPACITY`] labels already.
    Full,
    /// A name is empty or holds a control character (it would break CSV and JSON records).
    BadName(String),
}

impl fmt::Display for LabelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LabelError::Full => write!(f, "too many labels (at most {})", Labels::CAPACITY),
            LabelError::BadName(n) => write!(f, "bad label name {n:?}"),
        }
    }
}

impl std::error::Error for LabelError {}

/// The labels of one run: id → (master, app, category, breed), and names → id.
#[derive(Clone, Debug)]
pub struct Labels {
    entries: Vec<LabelEntry>,
    /// `master`, NUL, `app`, NUL, `category` → id (names hold no control character, so the
    /// key is unambiguous): one allocation a lookup and foldhash, where three boxed names and
    /// SipHash made interning a start's ~5,000 host labels cost 5 M instructions.
    by_name: HashMap<Box<str>, LabelId, foldhash::fast::RandomState>,
    /// Where [`Labels::intern`] writes the key it looks up: no allocation for a label held
    /// already.
    key: String,
}

/// Write the `by_name` key of (master, app, category) into `k`.
fn names_key(k: &mut String, master: &str, app: &str, category: &str) {
    k.clear();
    k.reserve(master.len() + app.len() + category.len() + 2);
    k.push_str(master);
    k.push('\0');
    k.push_str(app);
    k.push('\0');
    k.push_str(category);
}

/// Whether `n` holds a control character (`char::is_control`: U+0000 to U+001F, U+007F to
/// U+009F). The bytes first: only a byte below 0x20, 0x7F or 0xC2 (which leads U+0080 to
/// U+00BF) can start one, so most names are settled without decoding characters.
fn has_control(n: &str) -> bool {
    n.bytes().any(|b| b < 0x20 || b == 0x7f || b == 0xc2) && n.chars().any(char::is_control)
}

impl Default for Labels {
    fn default() -> Self {
        Labels::new()
    }
}

impl Labels {
    /// Most labels a registry holds (ids are `u16`).
    pub const CAPACITY: usize = u16::MAX as usize + 1;

    /// A registry holding only [`LabelId::UNKNOWN`].
    pub fn new() -> Self {
        let mut l = Labels {
            entries: Vec::new(),
            by_name: HashMap::default(),
            key: String::new(),
        };
        let u = Label::UNKNOWN;
        let id = l.intern(u.master, u.app, u.category, Breed::Unrated);
        debug_assert_eq!(id, Ok(LabelId::UNKNOWN));
        l
    }

    /// The id of (master, app, category), adding it with `breed` if it is new. A known label
    /// keeps its first breed.
    pub fn intern(
        &mut self,
        master: &str,
        app: &str,
        category: &str,
        breed: Breed,
    ) -> Result<LabelId, LabelError> {
        for n in [master, app, category] {
            if n.is_empty() || has_control(n) {
                return Err(LabelError::BadName(n.to_string()));
            }
        }
        names_key(&mut self.key, master, app, category);
        if let Some(&id) = self.by_name.get(self.key.as_str()) {
            return Ok(id);
        }
        if self.entries.len() >= Self::CAPACITY {
            return Err(LabelError::Full);
        }
        let id = LabelId(self.entries.len() as u16);
        let proto: Box<str> = if master == app || master == "Unknown" {
            app.into()
        } else {
            // Not format!: its machinery cost more than the rest of interning a label.
            let mut p = String::with_capacity(master.len() + 1 + app.len());
            p.push_str(master);
            p.push('.');
            p.push_str(app);
            p.into_boxed_str()
        };
        // Bytes, not characters: the three are ASCII, never part of a longer character.
        let plain = [master, app, category]
            .iter()
            .all(|n| !n.bytes().any(|b| matches!(b, b'"' | b'\\' | b',')));
        let names_len = proto.len() + app.len() + master.len() + category.len();
        self.entries.push(LabelEntry {
            master: master.into(),
            app: app.into(),
            category: category.into(),
            breed,
            proto,
            plain,
            names_len,
        });
        self.by_name.insert(Box::from(self.key.as_str()), id);
        Ok(id)
    }

    /// Give the label `id` the breed `breed` (nDPI's protocol defaults rate the built-in
    /// protocols, which the tables leave unrated).
    pub fn set_breed(&mut self, id: LabelId, breed: Breed) {
        if let Some(e) = self.entries.get_mut(id.index()) {
            e.breed = breed;
        }
    }

    /// The id of a built-in label (added if new).
    pub fn intern_label(&mut self, l: &Label) -> Result<LabelId, LabelError> {
        self.intern(l.master, l.app, l.category, Breed::Unrated)
    }

    /// The id of (master, app, category), if the registry holds it.
    pub fn find(&self, master: &str, app: &str, category: &str) -> Option<LabelId> {
        let mut key = String::new();
        names_key(&mut key, master, app, category);
        self.by_name.get(key.as_str()).copied()
    }

    /// The label with this id; [`LabelId::UNKNOWN`]'s for an id of another registry that is
    /// out of range here.
    #[inline]
    pub fn get(&self, id: LabelId) -> &LabelEntry {
        self.entries
            .get(id.index())
            .or_else(|| self.entries.first())
            .unwrap_or_else(|| unreachable!("a registry always holds Unknown"))
    }

    /// Labels held (Unknown included).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Never true: Unknown is always there.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Every (id, label), in id order.
    pub fn iter(&self) -> impl Iterator<Item = (LabelId, &LabelEntry)> {
        self.entries
            .iter()
            .enumerate()
            .map(|(i, e)| (LabelId(i as u16), e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_is_zero_and_pairs_intern_once() {
        let mut l = Labels::new();
        assert_eq!(l.get(LabelId::UNKNOWN).app(), "Unknown");
        assert_eq!(l.get(LabelId::UNKNOWN).category(), "Unspecified");
        let a = l.intern("TLS", "TLS", "Web", Breed::Safe).unwrap();
        let b = l.intern("TLS", "TLS", "Web", Breed::Fun).unwrap();
        assert_eq!(a, b);
        assert_eq!(l.get(a).category(), "Web");
        assert_eq!(l.get(a).breed(), Breed::Safe);
        let other = l.intern("TLS", "TLS", "Other", Breed::Fun).unwrap();
        assert_ne!(a, other);
        assert_eq!(l.get(other).category(), "Other");
        let c = l.intern("TLS", "YouTube", "Media", Breed::Fun).unwrap();
        assert_ne!(a, c);
        assert_eq!(l.find("TLS", "YouTube", "Media"), Some(c));
        assert_eq!(l.find("QUIC", "YouTube", "Media"), None);
        assert_eq!(l.len(), 4);
        // An id from a larger registry reads as Unknown, not out of bounds.
        assert_eq!(l.get(LabelId(999)).app(), "Unknown");
    }

    /// nDPI's "MASTER.APP" (just "APP" when the master adds nothing), and whether a record
    /// writer may write the names as they are.
    #[test]
    fn proto_names_and_plainness() {
        let mut l = Labels::new();
        let proto = |l: &Labels, id| (l.get(id).proto().to_string(), l.get(id).plain());
        let dns = l.intern("DNS", "DNS", "Network", Breed::Safe).unwrap();
        assert_eq!(proto(&l, dns), ("DNS".into(), true));
        let g = l.intern("TLS", "Google", "Web", Breed::Safe).unwrap();
        assert_eq!(proto(&l, g), ("TLS.Google".into(), true));
        let u = l.intern("Unknown", "Zoom", "Video", Breed::Safe).unwrap();
        assert_eq!(proto(&l, u), ("Zoom".into(), true));
        assert_eq!(proto(&l, LabelId::UNKNOWN), ("Unknown".into(), true));
        for (m, a, c) in [("A\\", "b", "c"), ("a", "b\"", "c"), ("a", "b", "c,d")] {
            let id = l.intern(m, a, c, Breed::Safe).unwrap();
            assert!(!l.get(id).plain(), "{m} {a} {c}");
        }
    }

    #[test]
    fn bad_names_and_a_full_registry_are_errors() {
        let mut l = Labels::new();
        assert!(matches!(
            l.intern("", "x", "Web", Breed::Unrated),
            Err(LabelError::BadName(_))
        ));
        assert!(matches!(
            l.intern("A\nB", "x", "Web", Breed::Unrated),
            Err(LabelError::BadName(_))
        ));
        for i in 1..Labels::CAPACITY {
            l.intern("M", &i.to_string(), "Web", Breed::Unrated)
                .unwrap();
        }
        assert_eq!(l.len(), Labels::CAPACITY);
        assert_eq!(
            l.intern("M", "one more", "Web", Breed::Unrated),
            Err(LabelError::Full)
        );
        // Known pairs still resolve when full.
        assert!(l.intern("M", "7", "Web", Breed::Unrated).is_ok());
    }

    /// The byte test gives `char::is_control`'s answer, for every character of the first
    /// planes, alone and inside a name.
    #[test]
    fn control_characters_found_as_by_chars() {
        for c in (0..0x3000).filter_map(char::from_u32) {
            for n in [c.to_string(), format!("ab{c}c"), format!("\u{a0}{c}")] {
                assert_eq!(has_control(&n), n.chars().any(char::is_control), "{n:?}");
            }
        }
    }

    #[test]
    fn breeds_parse_as_data_files_write_them() {
        assert_eq!(Breed::parse("fun"), Some(Breed::Fun));
        assert_eq!(
            Breed::parse("Potentially Dangerous"),
            Some(Breed::PotentiallyDangerous)
        );
        assert_eq!(
            Breed::parse("potentially_dangerous"),
            Some(Breed::PotentiallyDangerous)
        );
        assert_eq!(Breed::parse("TRACKER-ADS"), Some(Breed::TrackerAds));
        assert_eq!(Breed::parse("nice"), None);
        for b in Breed::ALL {
            assert_eq!(Breed::parse(b.as_str()), Some(b));
        }
    }
}
