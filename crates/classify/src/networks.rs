//! Address owners: which service owns an IP address (nDPI's "match by IP": AmazonAWS, Azure,
//! Google, WhatsApp, Tor exits, VPN providers, …), by longest-prefix match over IPv4 and IPv6
//! blocks.
//!
//! # Use
//!
//! Load the lists into a [`NetworksBuilder`] — the built-in `data/app_networks.csv` first, then an
//! operator's own files ([`NetworksBuilder::extend_csv`]) and rules
//! ([`NetworksBuilder::add`], for `ip:CIDR@Name` lines) — and [`build`](NetworksBuilder::build)
//! the immutable [`Networks`] that the hot path asks ([`Networks::lookup`]). An address's owner
//! is an [`OwnerId`], a small integer that [`Networks::owner`] turns into its (app, category)
//! names, so a caller maps each owner to its own label once.
//!
//! ```
//! use wirespeed_classify::networks::NetworksBuilder;
//!
//! let mut b = NetworksBuilder::new();
//! b.extend_csv("network,app,category,list\n10.0.0.0/8,Corp,cloud,mine\n")?;
//! b.add("10.1.0.0/16", "Lab", "network")?; // more specific: wins inside 10.1/16
//! let nets = b.build();
//! let owner = |ip: &str| nets.lookup(ip.parse().unwrap()).map(|id| nets.owner(id).0);
//! assert_eq!(owner("10.1.2.3"), Some("Lab"));
//! assert_eq!(owner("10.2.0.1"), Some("Corp"));
//! assert_eq!(owner("192.0.2.1"), None);
//! # Ok::<(), wirespeed_classify::networks::NetworksError>(())
//! ```
//!
//! # Matching rules
//!
//! * The most specific block wins: an address in `10.1.0.0/16` and in `10.0.0.0/8` belongs to
//!   the `/16`'s owner.
//! * The same block given twice: the **later row wins** (a later row of one file, a later file,
//!   a later [`add`](NetworksBuilder::add)), so an operator's list loaded after the built-in one
//!   overrides it. This is nDPI's rule too (its Patricia-tree insert overwrites the value of an
//!   existing node), and it decides real cases in the shipped list: `52.223.192.0/18` is both
//!   AmazonAWS and, later, Twitch; `40.126.0.0/18` is Azure and, later, Microsoft365 — nDPI names
//!   Twitch and Microsoft365 for those flows of the corpus.
//! * IPv4 and IPv6 are separate: an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) is looked up as
//!   IPv6, as nDPI does.
//!
//! # The file format
//!
//! CSV, `network,app,category[,list]`, one block a line: `network` is `ADDRESS/LEN` (IPv4 or
//! IPv6) or a bare address (a `/32` or `/128`); `app` and `category` are kept as written (the
//! shipped file's categories are snake_case: `cloud`, `vpn`, `chat`); `list` names the source
//! list and is ignored. A first line `network,…` is a header; blank lines and lines starting
//! with `#` are skipped, as is a byte-order mark; CRLF or LF; fields are trimmed and may be
//! quoted (`"Corp, Inc."`, RFC 4180: the quote right after the comma, `""` for a quote inside),
//! closed on their line. A block with
//! **host bits set** (`10.1.2.3/8`) is accepted and masked to its network (`10.0.0.0/8`), as
//! nDPI's tree matches it, and counted in [`Loaded::masked`] so a loader can warn. Errors name
//! the line ([`NetworksError`]); a file with an error adds nothing.
//!
//! Caps: [`MAX_NETWORKS`] blocks and [`MAX_OWNERS`] owners per builder, [`MAX_NAME_LEN`] bytes
//! per name; names are non-empty and free of control characters (the rule of
//! [`Labels`](crate::Labels), so every owner can become a label).
//!
//! # Layout and costs
//!
//! The blocks are flattened at build time into sorted disjoint ranges, one array of range
//! starts per family (`u32` for IPv4, `u128` for IPv6) beside an array of `u16` owners (the owner
//! of the most specific block covering the range, or none), adjacent ranges of one owner merged.
//! In front, per family, an index of 4,097 `u32` (16 KiB) by the address's top 12 bits says which
//! slice of the starts an address's bucket needs. A lookup is one index read and a binary search
//! of that slice: no allocation, no panic, at most ⌈log₂ n⌉ + 1 probes whatever the nesting (n
//! the ranges of the bucket; the shipped IPv4 ranges are 22,296 in all).
//!
//! Measured on the shipped list (17,399 blocks: 14,049 IPv4, 3,350 IPv6; release build on the
//! 2-core development machine, other builds running; printed by `tests/networks_ndpi.rs`):
//! parse 3.1 ms, build 1.5 ms; 22,296 IPv4 and 5,567 IPv6 ranges, 337,444 bytes with the index
//! and the owners' names; per lookup 7–10 ns over the corpus's 14,924 flow addresses (IPv6
//! 14 ns), 5–7 ns over random public IPv4 addresses, 3 ns for one address again and again.
//! Without the index (one binary search of all starts) a lookup took 25 ns over the corpus.
//!
//! Why this and not a crate: `prefix-trie` (well kept; 0.9 is a tree-bitmap, no allocation per
//! lookup) and `ip_network_table` (on `treebitmap`: `unsafe`, unmaintained) are mutable tries.
//! Our table is built once and only read, so it needs no tree: on the same machine, list and
//! addresses, `prefix-trie` 0.9.4's `get_lpm` took 13–14 ns (ours 4–6 ns in that run) and its
//! maps 828,688 bytes (ours 337,444); loading the list took it 3–4 ms, us 4–6 ms. This
//! module adds no dependency, defines the equal-block rule, and is property-tested against a
//! naive scan and fuzzed.

use crate::csvrows;
use std::collections::HashMap;
use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::str::FromStr;

/// Most blocks one builder holds (all files and rules together): bounds the memory a hostile
/// or broken list can take (32 bytes a block, twice that while building).
pub const MAX_NETWORKS: usize = 1 << 20;

/// Most distinct owners, (app, category) pairs, one builder holds (ids are `u16`; one value
/// means "no owner" inside the table).
pub const MAX_OWNERS: usize = u16::MAX as usize;

/// Longest app or category name, in bytes.
pub const MAX_NAME_LEN: usize = 64;

/// Marks a range no block covers.
const NO_OWNER: u16 = u16::MAX;

/// An owner of addresses, as [`Networks::owner`] names it: an index into the table's owners,
/// which a caller can use to index its own per-owner array.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OwnerId(u16);

impl OwnerId {
    /// The index (0 to the table's [`owner_count`](Networks::owner_count) - 1).
    #[inline]
    pub fn index(self) -> usize {
        usize::from(self.0)
    }
}

/// An IPv4 or IPv6 block: a network address with no host bits set, and a prefix length.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Cidr {
    addr: IpAddr,
    len: u8,
}

impl Cidr {
    /// The block of `len` leading bits of `addr` (host bits are cleared). Errors on a length
    /// over 32 (IPv4) or 128 (IPv6).
    pub fn new(addr: IpAddr, len: u8) -> Result<Cidr, CidrError> {
        let max = family_bits(addr);
        if u32::from(len) > max {
            return Err(CidrError::PrefixTooLong {
                len,
                max: max as u8,
            });
        }
        let key = key(addr) & net_mask(max, len);
        let addr = match addr {
            IpAddr::V4(_) => IpAddr::V4(Ipv4Addr::from(key as u32)),
            IpAddr::V6(_) => IpAddr::V6(Ipv6Addr::from(key)),
        };
        Ok(Cidr { addr, len })
    }

    /// The network address (its host bits clear).
    pub fn addr(&self) -> IpAddr {
        self.addr
    }

    /// The prefix length.
    pub fn prefix_len(&self) -> u8 {
        self.len
    }

    /// Is `ip` inside the block? (Never for an address of the other family.)
    pub fn contains(&self, ip: IpAddr) -> bool {
        let bits = family_bits(self.addr);
        bits == family_bits(ip) && key(ip) & net_mask(bits, self.len) == key(self.addr)
    }

    /// Parse `ADDRESS/LEN` or a bare address; the flag says host bits were set (and cleared).
    fn parse_masked(s: &str) -> Result<(Cidr, bool), CidrError> {
        let (a, len) = match s.split_once('/') {
            Some((a, l)) => {
                // Decimal digits only: `u8::from_str` would take "+8".
                if l.is_empty() || l.len() > 3 || !l.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(CidrError::BadPrefixLen);
                }
                (a, l.parse::<u8>().map_err(|_| CidrError::BadPrefixLen)?)
            }
            None => (s, u8::MAX),
        };
        let addr = IpAddr::from_str(a).map_err(|_| CidrError::BadAddress)?;
        let len = if len == u8::MAX {
            family_bits(addr) as u8
        } else {
            len
        };
        let c = Cidr::new(addr, len)?;
        Ok((c, c.addr != addr))
    }
}

impl FromStr for Cidr {
    type Err = CidrError;

    /// `ADDRESS/LEN` (host bits set are cleared) or a bare address (a `/32` or `/128`).
    fn from_str(s: &str) -> Result<Cidr, CidrError> {
        Cidr::parse_masked(s).map(|(c, _)| c)
    }
}

impl fmt::Display for Cidr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.addr, self.len)
    }
}

/// Why a block could not be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CidrError {
    /// The address is neither IPv4 nor IPv6.
    BadAddress,
    /// What follows `/` is not a decimal number of at most three digits.
    BadPrefixLen,
    /// The prefix is longer than the family's addresses.
    PrefixTooLong {
        /// The length given.
        len: u8,
        /// 32 or 128.
        max: u8,
    },
}

impl fmt::Display for CidrError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CidrError::BadAddress => f.write_str("not an IPv4 or IPv6 address"),
            CidrError::BadPrefixLen => f.write_str("prefix length is not a number"),
            CidrError::PrefixTooLong { len, max } => {
                write!(f, "prefix length {len} is over {max}")
            }
        }
    }
}

impl std::error::Error for CidrError {}

/// Why a list or a rule could not be loaded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NetworksError {
    /// 1-based line of the file; 0 for a rule given by [`NetworksBuilder::add`] or
    /// [`NetworksBuilder::insert`].
    pub line: usize,
    /// What was wrong.
    pub kind: NetworksErrorKind,
}

/// What was wrong with a row (see [`NetworksError`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NetworksErrorKind {
    /// The `network` field is not a block.
    Cidr(CidrError),
    /// The row has no such column.
    MissingField(&'static str),
    /// The row has more than the four columns.
    ExtraField,
    /// The named field is empty, holds a control character, or is over [`MAX_NAME_LEN`] bytes.
    BadName(&'static str),
    /// The builder holds [`MAX_NETWORKS`] blocks already.
    TooManyNetworks,
    /// The builder holds [`MAX_OWNERS`] owners already.
    TooManyOwners,
    /// [`NetworksBuilder::insert`] was given an owner id of another builder.
    UnknownOwner,
    /// A row the CSV reader cannot read: a quoted field not closed on its line, or a line
    /// longer than 64 KiB (the text says which).
    Row(&'static str),
}

impl NetworksError {
    fn at(line: usize, kind: NetworksErrorKind) -> Self {
        NetworksError { line, kind }
    }
}

impl fmt::Display for NetworksError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line > 0 {
            write!(f, "line {}: ", self.line)?;
        }
        match self.kind {
            NetworksErrorKind::Cidr(e) => write!(f, "bad network: {e}"),
            NetworksErrorKind::MissingField(c) => write!(f, "no {c} column"),
            NetworksErrorKind::ExtraField => {
                f.write_str("more than 4 columns (network,app,category,list)")
            }
            NetworksErrorKind::BadName(c) => write!(
                f,
                "{c} is empty, over {MAX_NAME_LEN} bytes or holds a control character"
            ),
            NetworksErrorKind::TooManyNetworks => {
                write!(f, "too many networks (at most {MAX_NETWORKS})")
            }
            NetworksErrorKind::TooManyOwners => {
                write!(f, "too many distinct owners (at most {MAX_OWNERS})")
            }
            NetworksErrorKind::UnknownOwner => f.write_str("owner id of another builder"),
            NetworksErrorKind::Row(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for NetworksError {}

/// What one [`NetworksBuilder::extend_csv`] added.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Loaded {
    /// Blocks added.
    pub rows: usize,
    /// Of them, blocks whose address had host bits set (cleared: `10.1.2.3/8` is `10.0.0.0/8`).
    pub masked: usize,
}

/// One block as given, in order (the order breaks ties between equal blocks).
#[derive(Clone, Copy, Debug)]
struct Entry {
    start: u128,
    len: u8,
    v6: bool,
    owner: u16,
}

/// (app, category).
type Owner = (Box<str>, Box<str>);

/// Collects blocks and their owners, then [`build`](NetworksBuilder::build)s the lookup table.
#[derive(Clone, Debug, Default)]
pub struct NetworksBuilder {
    owners: Vec<Owner>,
    /// `app`, NUL, `category` → id (names hold no control character, so the key is
    /// unambiguous).
    by_name: HashMap<Box<str>, OwnerId>,
    /// The key being looked up, kept to look up without an allocation a row.
    key: String,
    entries: Vec<Entry>,
}

impl NetworksBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        Self::default()
    }

    /// Blocks held.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// No block held?
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The id of the owner (app, category), added if new.
    pub fn owner_id(&mut self, app: &str, category: &str) -> Result<OwnerId, NetworksError> {
        self.intern(0, app, category)
    }

    /// Add `net`, owned by `owner` (an id of this builder's [`owner_id`](Self::owner_id)).
    pub fn insert(&mut self, net: Cidr, owner: OwnerId) -> Result<(), NetworksError> {
        if owner.index() >= self.owners.len() {
            return Err(NetworksError::at(0, NetworksErrorKind::UnknownOwner));
        }
        self.push(0, net, owner)
    }

    /// Add one rule, e.g. an operator's `ip:CIDR@Name`: `cidr` as in a file's `network` column
    /// (host bits set are cleared). Returns the owner's id.
    pub fn add(&mut self, cidr: &str, app: &str, category: &str) -> Result<OwnerId, NetworksError> {
        let (net, _) = Cidr::parse_masked(cidr.trim())
            .map_err(|e| NetworksError::at(0, NetworksErrorKind::Cidr(e)))?;
        let mark = self.mark();
        let owner = self.intern(0, app.trim(), category.trim())?;
        if let Err(e) = self.push(0, net, owner) {
            self.rollback(mark);
            return Err(e);
        }
        Ok(owner)
    }

    /// Add every row of a CSV list (see the [module docs](self) for the format). On an error
    /// nothing of `text` is added, and the error names the line.
    pub fn extend_csv(&mut self, text: &str) -> Result<Loaded, NetworksError> {
        let mark = self.mark();
        let r = self.extend_csv_inner(text);
        if r.is_err() {
            self.rollback(mark);
        }
        r
    }

    fn extend_csv_inner(&mut self, text: &str) -> Result<Loaded, NetworksError> {
        let mut loaded = Loaded::default();
        let mut first = true;
        let mut csv = csvrows::rows(text);
        loop {
            let (line, row) = match csv.next_row() {
                Ok(Some(row)) => row,
                Ok(None) => break,
                Err(e) => return Err(NetworksError::at(e.line, NetworksErrorKind::Row(e.why))),
            };
            let mut fields = row.iter();
            let network = fields.next().unwrap_or("");
            if std::mem::take(&mut first) && network.eq_ignore_ascii_case("network") {
                continue;
            }
            let err = |kind| NetworksError::at(line, kind);
            let app = fields
                .next()
                .ok_or(err(NetworksErrorKind::MissingField("app")))?;
            let category = fields
                .next()
                .ok_or(err(NetworksErrorKind::MissingField("category")))?;
            let _list = fields.next();
            if fields.next().is_some() {
                return Err(err(NetworksErrorKind::ExtraField));
            }
            let (net, masked) =
                Cidr::parse_masked(network).map_err(|e| err(NetworksErrorKind::Cidr(e)))?;
            let owner = self.intern(line, app, category)?;
            self.push(line, net, owner)?;
            loaded.rows += 1;
            loaded.masked += usize::from(masked);
        }
        Ok(loaded)
    }

    /// The lookup table of the blocks held (the builder is kept: more can be added and built
    /// again).
    pub fn build(&self) -> Networks {
        let v4 = flatten(self.entries.iter().filter(|e| !e.v6), 32);
        let v6 = flatten(self.entries.iter().filter(|e| e.v6), 128);
        Networks {
            owners: self.owners.clone(),
            v4_index: index(&v4.0, 32),
            v4_starts: v4.0.into_iter().map(|s| s as u32).collect(),
            v4_owners: v4.1,
            v6_index: index(&v6.0, 128),
            v6_starts: v6.0,
            v6_owners: v6.1,
        }
    }

    fn intern(&mut self, line: usize, app: &str, category: &str) -> Result<OwnerId, NetworksError> {
        for (field, n) in [("app", app), ("category", category)] {
            if n.is_empty() || n.len() > MAX_NAME_LEN || n.chars().any(char::is_control) {
                return Err(NetworksError::at(line, NetworksErrorKind::BadName(field)));
            }
        }
        owner_key(&mut self.key, app, category);
        if let Some(&id) = self.by_name.get(self.key.as_str()) {
            return Ok(id);
        }
        if self.owners.len() >= MAX_OWNERS {
            return Err(NetworksError::at(line, NetworksErrorKind::TooManyOwners));
        }
        let id = OwnerId(self.owners.len() as u16);
        self.owners.push((app.into(), category.into()));
        self.by_name.insert(self.key.as_str().into(), id);
        Ok(id)
    }

    fn push(&mut self, line: usize, net: Cidr, owner: OwnerId) -> Result<(), NetworksError> {
        if self.entries.len() >= MAX_NETWORKS {
            return Err(NetworksError::at(line, NetworksErrorKind::TooManyNetworks));
        }
        self.entries.push(Entry {
            start: key(net.addr),
            len: net.len,
            v6: net.addr.is_ipv6(),
            owner: owner.0,
        });
        Ok(())
    }

    fn mark(&self) -> (usize, usize) {
        (self.entries.len(), self.owners.len())
    }

    fn rollback(&mut self, (entries, owners): (usize, usize)) {
        self.entries.truncate(entries);
        for (app, category) in self.owners.drain(owners..) {
            owner_key(&mut self.key, &app, &category);
            self.by_name.remove(self.key.as_str());
        }
    }
}

/// Write the [`NetworksBuilder`]'s `by_name` key of (app, category) into `key`.
fn owner_key(key: &mut String, app: &str, category: &str) {
    key.clear();
    key.push_str(app);
    key.push('\0');
    key.push_str(category);
}

/// Flatten one family's blocks (in the order given) into sorted disjoint ranges: the starts,
/// beginning with 0, and each range's owner ([`NO_OWNER`] where no block covers it), with no two
/// adjacent ranges of one owner.
fn flatten<'a>(entries: impl Iterator<Item = &'a Entry>, bits: u32) -> (Vec<u128>, Vec<u16>) {
    // Outer blocks before the blocks they contain; equal blocks in the order given, the last
    // kept.
    let mut blocks: Vec<(u128, u8, usize, u16)> = entries
        .enumerate()
        .map(|(seq, e)| (e.start, e.len, seq, e.owner))
        .collect();
    blocks.sort_unstable();
    blocks.dedup_by(|later, earlier| {
        let same = (later.0, later.1) == (earlier.0, earlier.1);
        if same {
            *earlier = *later;
        }
        same
    });

    let mut out = Ranges {
        starts: vec![0],
        owners: vec![NO_OWNER],
    };
    // The blocks covering the current position, outermost first: (last address, owner).
    let mut open: Vec<(u128, u16)> = Vec::new();
    for &(start, len, _, owner) in &blocks {
        close(&mut open, Some(start), &mut out, bits);
        out.emit(start, owner);
        // Blocks nest or are disjoint: once those ending before `start` are closed, this one
        // lies inside the innermost open one.
        open.push((start | (!net_mask(bits, len) & max_key(bits)), owner));
    }
    close(&mut open, None, &mut out, bits);
    (out.starts, out.owners)
}

/// Ranges being flattened: `owners[i]` owns from `starts[i]` to the next start.
struct Ranges {
    starts: Vec<u128>,
    owners: Vec<u16>,
}

impl Ranges {
    /// `owner` owns from `at` on (`at` never below the last start).
    fn emit(&mut self, at: u128, owner: u16) {
        if self.starts.last() == Some(&at) {
            // A block starting where another ended, or an inner block at its outer block's
            // start: the later says who owns from here.
            if let Some(o) = self.owners.last_mut() {
                *o = owner;
            }
            let n = self.owners.len();
            if n >= 2 && self.owners[n - 2] == owner {
                self.starts.pop();
                self.owners.pop();
            }
        } else if self.owners.last() != Some(&owner) {
            self.starts.push(at);
            self.owners.push(owner);
        }
    }
}

/// Close the open blocks that end before `pos` (all of them for None): after each, the block
/// around it (or none) owns again.
fn close(open: &mut Vec<(u128, u16)>, pos: Option<u128>, out: &mut Ranges, bits: u32) {
    while let Some(&(end, _)) = open.last() {
        if pos.is_some_and(|p| end >= p) {
            break;
        }
        open.pop();
        // Nothing follows the family's last address.
        if end < max_key(bits) {
            out.emit(end + 1, open.last().map_or(NO_OWNER, |o| o.1));
        }
    }
}

/// Which service owns an address: the immutable longest-prefix-match table a
/// [`NetworksBuilder`] builds (see the [module docs](self)).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Networks {
    owners: Vec<Owner>,
    /// Range starts, ascending, the first 0 (when not empty); `v4_owners[i]` owns from
    /// `v4_starts[i]` to the next start.
    v4_starts: Vec<u32>,
    v4_owners: Vec<u16>,
    /// `v4_index[b]`: how many starts are at or below bucket `b`'s first address (a bucket is
    /// the addresses of one value of the top [`INDEX_BITS`] bits), so bucket `b`'s addresses
    /// need only the starts from `v4_index[b]` to `v4_index[b + 1]`.
    v4_index: Vec<u32>,
    v6_starts: Vec<u128>,
    v6_owners: Vec<u16>,
    v6_index: Vec<u32>,
}

impl Networks {
    /// A builder (the same as [`NetworksBuilder::new`]).
    pub fn builder() -> NetworksBuilder {
        NetworksBuilder::new()
    }

    /// The table of one CSV list (see the [module docs](self)); to add an operator's lists
    /// after it, use a [`NetworksBuilder`].
    pub fn parse_csv(text: &str) -> Result<Networks, NetworksError> {
        let mut b = NetworksBuilder::new();
        b.extend_csv(text)?;
        Ok(b.build())
    }

    /// The owner of the most specific block holding `ip`, if any. No allocation; a binary
    /// search of one family's ranges.
    #[inline]
    pub fn lookup(&self, ip: IpAddr) -> Option<OwnerId> {
        match ip {
            IpAddr::V4(a) => self.lookup_v4(a),
            IpAddr::V6(a) => self.lookup_v6(a),
        }
    }

    /// [`lookup`](Self::lookup) of an IPv4 address.
    #[inline]
    pub fn lookup_v4(&self, ip: Ipv4Addr) -> Option<OwnerId> {
        let k = u32::from(ip);
        let (lo, hi) = bucket(&self.v4_index, (k >> (32 - INDEX_BITS)) as usize)?;
        let i = lo + self.v4_starts.get(lo..hi)?.partition_point(|&s| s <= k);
        owner_at(&self.v4_owners, i)
    }

    /// [`lookup`](Self::lookup) of an IPv6 address.
    #[inline]
    pub fn lookup_v6(&self, ip: Ipv6Addr) -> Option<OwnerId> {
        let k = u128::from(ip);
        let (lo, hi) = bucket(&self.v6_index, (k >> (128 - INDEX_BITS)) as usize)?;
        let i = lo + self.v6_starts.get(lo..hi)?.partition_point(|&s| s <= k);
        owner_at(&self.v6_owners, i)
    }

    /// The owner's (app, category) names, as the list wrote them; `("Unknown", "unspecified")`
    /// for an id of another table that is out of range here.
    pub fn owner(&self, id: OwnerId) -> (&str, &str) {
        self.owners
            .get(id.index())
            .map_or(("Unknown", "unspecified"), |(a, c)| (a, c))
    }

    /// Owners, ids 0 to [`owner_count`](Self::owner_count) - 1 (owners of blocks that every
    /// address of theirs has a more specific owner for included).
    pub fn owner_count(&self) -> usize {
        self.owners.len()
    }

    /// Every owner with its id, in id order.
    pub fn owners(&self) -> impl ExactSizeIterator<Item = (OwnerId, &str, &str)> {
        self.owners
            .iter()
            .enumerate()
            .map(|(i, (a, c))| (OwnerId(i as u16), &**a, &**c))
    }

    /// Disjoint ranges the lookups search (IPv4, IPv6), ranges no block covers included.
    pub fn range_count(&self) -> (usize, usize) {
        (self.v4_starts.len(), self.v6_starts.len())
    }

    /// The table from its parts as [`write_source`](Self::write_source) wrote them (the
    /// built-in list, compiled in by `build.rs`): copies, no parsing, no sorting.
    #[allow(dead_code)] // not in build.rs, which includes this file
    pub(crate) fn from_parts(
        owners: &[(&str, &str)],
        v4: (&[u32], &[u16], &[u32]),
        v6: (&[u128], &[u16], &[u32]),
    ) -> Networks {
        Networks {
            owners: owners.iter().map(|&(a, c)| (a.into(), c.into())).collect(),
            v4_starts: v4.0.to_vec(),
            v4_owners: v4.1.to_vec(),
            v4_index: v4.2.to_vec(),
            v6_starts: v6.0.to_vec(),
            v6_owners: v6.1.to_vec(),
            v6_index: v6.2.to_vec(),
        }
    }

    /// Rust source of statics holding the table (`OWNERS`, `V4` and `V6`: starts, owners,
    /// index), for `build.rs` to compile the shipped list in and
    /// [`from_parts`](Self::from_parts) to load it.
    #[allow(dead_code)] // only build.rs, which includes this file, writes the source
    pub(crate) fn write_source(&self, out: &mut String) {
        use std::fmt::Write;
        fn list<T: fmt::Display>(out: &mut String, name: &str, ty: &str, v: &[T]) {
            let _ = write!(out, "static {name}: [{ty}; {}] = [", v.len());
            for (i, x) in v.iter().enumerate() {
                out.push_str(if i % 16 == 0 { "\n" } else { " " });
                let _ = write!(out, "{x},");
            }
            out.push_str("\n];\n");
        }
        let _ = writeln!(
            out,
            "static OWNERS: [(&str, &str); {}] = [",
            self.owners.len()
        );
        for (a, c) in &self.owners {
            let _ = writeln!(out, "({a:?}, {c:?}),");
        }
        out.push_str("];\n");
        list(out, "V4_STARTS", "u32", &self.v4_starts);
        list(out, "V4_OWNERS", "u16", &self.v4_owners);
        list(out, "V4_INDEX", "u32", &self.v4_index);
        let v6: Vec<String> = self.v6_starts.iter().map(|s| format!("{s:#x}")).collect();
        list(out, "V6_STARTS", "u128", &v6);
        list(out, "V6_OWNERS", "u16", &self.v6_owners);
        list(out, "V6_INDEX", "u32", &self.v6_index);
    }

    /// Heap bytes the table holds: the ranges and the owners' names.
    pub fn memory_bytes(&self) -> usize {
        use std::mem::size_of;
        self.v4_starts.capacity() * size_of::<u32>()
            + self.v4_owners.capacity() * size_of::<u16>()
            + self.v6_starts.capacity() * size_of::<u128>()
            + self.v6_owners.capacity() * size_of::<u16>()
            + (self.v4_index.capacity() + self.v6_index.capacity()) * size_of::<u32>()
            + self.owners.capacity() * size_of::<Owner>()
            + self
                .owners
                .iter()
                .map(|(a, c)| a.len() + c.len())
                .sum::<usize>()
    }
}

/// Top bits of an address that pick its bucket of the index.
const INDEX_BITS: u32 = 12;

/// The index over one family's range starts (see [`Networks`]'s `v4_index`): 2^INDEX_BITS + 1
/// counts, the last the number of starts.
fn index(starts: &[u128], bits: u32) -> Vec<u32> {
    (0..=1u128 << INDEX_BITS)
        .map(|b| {
            // Bucket b's first address; past the last bucket, past every start.
            let first = b
                .checked_shl(bits - INDEX_BITS)
                .filter(|_| b < 1 << INDEX_BITS);
            let n = match first {
                Some(f) => starts.partition_point(|&s| s <= f),
                None => starts.len(),
            };
            // At most MAX_NETWORKS * 2 + 1 starts: fits.
            n as u32
        })
        .collect()
}

/// The starts bucket `b` searches.
#[inline]
fn bucket(index: &[u32], b: usize) -> Option<(usize, usize)> {
    match index.get(b..b.checked_add(2)?)? {
        &[lo, hi] => Some((lo as usize, hi as usize)),
        _ => None,
    }
}

/// The owner of the range before index `i` (a `partition_point` of the starts).
#[inline]
fn owner_at(owners: &[u16], i: usize) -> Option<OwnerId> {
    match owners.get(i.checked_sub(1)?) {
        Some(&o) if o != NO_OWNER => Some(OwnerId(o)),
        _ => None,
    }
}

/// 32 or 128.
fn family_bits(a: IpAddr) -> u32 {
    if a.is_ipv4() {
        32
    } else {
        128
    }
}

/// The address as an integer of its family.
fn key(a: IpAddr) -> u128 {
    match a {
        IpAddr::V4(a) => u128::from(u32::from(a)),
        IpAddr::V6(a) => u128::from(a),
    }
}

/// The family's last address as an integer.
fn max_key(bits: u32) -> u128 {
    u128::MAX >> (128 - bits)
}

/// The network mask of a `len` prefix of a `bits` family, as an integer (`len` <= `bits`).
fn net_mask(bits: u32, len: u8) -> u128 {
    let host = bits.saturating_sub(u32::from(len));
    let host_mask = u128::MAX.checked_shr(128 - host).unwrap_or(0);
    !host_mask & max_key(bits)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The shipped list.
    const SHIPPED: &str = include_str!("../../../data/app_networks.csv");

    fn table(rows: &[(&str, &str)]) -> Networks {
        let mut b = NetworksBuilder::new();
        for (cidr, app) in rows {
            b.add(cidr, app, "test").unwrap();
        }
        b.build()
    }

    fn who<'a>(n: &'a Networks, ip: &str) -> Option<&'a str> {
        n.lookup(ip.parse().unwrap()).map(|id| n.owner(id).0)
    }

    #[test]
    fn the_most_specific_block_wins_at_every_depth() {
        let n = table(&[
            ("10.0.0.0/8", "A"),
            ("10.1.0.0/16", "B"),
            ("10.1.2.0/24", "C"),
            ("10.1.2.3/32", "D"),
        ]);
        assert_eq!(who(&n, "10.1.2.3"), Some("D"));
        assert_eq!(who(&n, "10.1.2.2"), Some("C"));
        assert_eq!(who(&n, "10.1.2.4"), Some("C"));
        assert_eq!(who(&n, "10.1.3.0"), Some("B"));
        assert_eq!(who(&n, "10.1.1.255"), Some("B"));
        assert_eq!(who(&n, "10.2.0.0"), Some("A"));
        assert_eq!(who(&n, "9.255.255.255"), None);
        assert_eq!(who(&n, "11.0.0.0"), None);
        // Order of insertion does not matter for nesting.
        let r = table(&[
            ("10.1.2.3/32", "D"),
            ("10.1.2.0/24", "C"),
            ("10.0.0.0/8", "A"),
            ("10.1.0.0/16", "B"),
        ]);
        for ip in ["10.1.2.3", "10.1.2.2", "10.1.3.0", "10.2.0.0", "11.0.0.0"] {
            assert_eq!(who(&n, ip), who(&r, ip), "{ip}");
        }
    }

    #[test]
    fn first_and_last_address_of_a_block_and_their_neighbours() {
        let n = table(&[("192.0.2.0/24", "A"), ("2001:db8::/32", "B")]);
        assert_eq!(who(&n, "192.0.1.255"), None);
        assert_eq!(who(&n, "192.0.2.0"), Some("A"));
        assert_eq!(who(&n, "192.0.2.255"), Some("A"));
        assert_eq!(who(&n, "192.0.3.0"), None);
        assert_eq!(who(&n, "2001:db7:ffff:ffff:ffff:ffff:ffff:ffff"), None);
        assert_eq!(who(&n, "2001:db8::"), Some("B"));
        assert_eq!(who(&n, "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff"), Some("B"));
        assert_eq!(who(&n, "2001:db9::"), None);
        // Inner blocks touching the outer block's first and last addresses.
        let n = table(&[
            ("10.0.0.0/8", "A"),
            ("10.0.0.0/16", "B"),
            ("10.255.255.0/24", "C"),
        ]);
        assert_eq!(who(&n, "10.0.0.0"), Some("B"));
        assert_eq!(who(&n, "10.0.255.255"), Some("B"));
        assert_eq!(who(&n, "10.1.0.0"), Some("A"));
        assert_eq!(who(&n, "10.255.254.255"), Some("A"));
        assert_eq!(who(&n, "10.255.255.255"), Some("C"));
        assert_eq!(who(&n, "11.0.0.0"), None);
    }

    #[test]
    fn whole_space_and_single_addresses_in_both_families() {
        let n = table(&[
            ("0.0.0.0/0", "All4"),
            ("255.255.255.255/32", "Last4"),
            ("0.0.0.0/32", "First4"),
            ("::/0", "All6"),
            ("::/128", "First6"),
            ("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/128", "Last6"),
            ("2001:db8::1", "Bare6"),
            ("198.51.100.7", "Bare4"),
        ]);
        assert_eq!(who(&n, "0.0.0.0"), Some("First4"));
        assert_eq!(who(&n, "0.0.0.1"), Some("All4"));
        assert_eq!(who(&n, "255.255.255.254"), Some("All4"));
        assert_eq!(who(&n, "255.255.255.255"), Some("Last4"));
        assert_eq!(who(&n, "198.51.100.7"), Some("Bare4"));
        assert_eq!(who(&n, "198.51.100.8"), Some("All4"));
        assert_eq!(who(&n, "::"), Some("First6"));
        assert_eq!(who(&n, "::1"), Some("All6"));
        assert_eq!(
            who(&n, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe"),
            Some("All6")
        );
        assert_eq!(
            who(&n, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"),
            Some("Last6")
        );
        assert_eq!(who(&n, "2001:db8::1"), Some("Bare6"));
        assert_eq!(who(&n, "2001:db8::2"), Some("All6"));
        // Families never mix: IPv4-mapped IPv6 is IPv6.
        let v4_only = table(&[("0.0.0.0/0", "All4")]);
        assert_eq!(who(&v4_only, "::ffff:1.2.3.4"), None);
        assert_eq!(who(&v4_only, "1.2.3.4"), Some("All4"));
        let v6_only = table(&[("::/0", "All6")]);
        assert_eq!(who(&v6_only, "1.2.3.4"), None);
    }

    #[test]
    fn equal_blocks_the_later_wins() {
        let n = table(&[
            ("10.0.0.0/8", "First"),
            ("10.0.0.0/16", "Inner"),
            ("10.0.0.0/8", "Second"),
            ("2001:db8::/32", "A"),
            ("2001:db8::/32", "B"),
        ]);
        assert_eq!(who(&n, "10.1.0.0"), Some("Second"));
        assert_eq!(who(&n, "10.0.1.0"), Some("Inner"));
        assert_eq!(who(&n, "2001:db8::5"), Some("B"));
        // A later file overrides an earlier one the same way, and a rule added after both.
        let mut b = NetworksBuilder::new();
        b.extend_csv("10.0.0.0/8,Builtin,cloud,x\n").unwrap();
        b.extend_csv("10.0.0.0/8,Operator,cloud,y\n").unwrap();
        assert_eq!(who(&b.build(), "10.9.9.9"), Some("Operator"));
        b.add("10.0.0.0/8", "Rule", "vpn").unwrap();
        assert_eq!(who(&b.build(), "10.9.9.9"), Some("Rule"));
    }

    #[test]
    fn an_empty_table_owns_nothing() {
        let n = NetworksBuilder::new().build();
        assert_eq!(n.lookup("1.2.3.4".parse().unwrap()), None);
        assert_eq!(n.lookup("::1".parse().unwrap()), None);
        assert_eq!(Networks::default().lookup("::1".parse().unwrap()), None);
        assert_eq!(n.owner(OwnerId(3)), ("Unknown", "unspecified"));
    }

    #[test]
    fn adjacent_ranges_of_one_owner_are_merged() {
        let n = table(&[("10.0.0.0/25", "A"), ("10.0.0.128/25", "A")]);
        // [0, 10.0.0.0) none, [10.0.0.0, 10.0.1.0) A, then none.
        assert_eq!(n.range_count(), (3, 1));
        assert_eq!(who(&n, "10.0.0.200"), Some("A"));
    }

    #[test]
    fn cidr_parsing() {
        let c: Cidr = "10.1.2.3/8".parse().unwrap();
        assert_eq!(c.to_string(), "10.0.0.0/8");
        assert!(Cidr::parse_masked("10.1.2.3/8").unwrap().1);
        assert!(!Cidr::parse_masked("10.0.0.0/8").unwrap().1);
        assert_eq!(
            "2001:db8::1/32".parse::<Cidr>().unwrap().to_string(),
            "2001:db8::/32"
        );
        assert_eq!("1.2.3.4".parse::<Cidr>().unwrap().prefix_len(), 32);
        assert_eq!("::1".parse::<Cidr>().unwrap().prefix_len(), 128);
        assert_eq!("0.0.0.0/0".parse::<Cidr>().unwrap().prefix_len(), 0);
        let too_long = |len, max| Err(CidrError::PrefixTooLong { len, max });
        assert_eq!("1.2.3.4/33".parse::<Cidr>(), too_long(33, 32));
        assert_eq!("::/129".parse::<Cidr>(), too_long(129, 128));
        for bad in [
            "1.2.3.4/",
            "1.2.3.4/+8",
            "1.2.3.4/ 8",
            "1.2.3.4/0008",
            "1.2.3.4/x",
            "1.2.3.4/256",
        ] {
            assert_eq!(bad.parse::<Cidr>(), Err(CidrError::BadPrefixLen), "{bad}");
        }
        for bad in [
            "",
            "/8",
            "1.2.3/8",
            "1.2.3.256/8",
            "01.2.3.4/8",
            "2001:db8:::1/32",
            "x",
        ] {
            assert_eq!(bad.parse::<Cidr>(), Err(CidrError::BadAddress), "{bad}");
        }
        let c: Cidr = "10.0.0.0/8".parse().unwrap();
        assert!(c.contains("10.255.255.255".parse().unwrap()));
        assert!(!c.contains("11.0.0.0".parse().unwrap()));
        assert!(!c.contains("::a00:1".parse().unwrap()));
    }

    #[test]
    fn csv_rows_headers_comments_and_errors_naming_the_line() {
        let mut b = NetworksBuilder::new();
        let l = b
            .extend_csv(
                "\u{feff}network,app,category,list\n\
                 # a comment\n\
                 \n\
                 10.0.0.0/8 , Corp , cloud , mine\r\n\
                 10.1.2.3/16,Lab,network\n",
            )
            .unwrap();
        assert_eq!(l, Loaded { rows: 2, masked: 1 });
        let n = b.build();
        assert_eq!(who(&n, "10.1.0.0"), Some("Lab"));
        assert_eq!(
            n.owner(n.lookup("10.2.0.0".parse().unwrap()).unwrap()),
            ("Corp", "cloud")
        );

        let err = |text: &str| NetworksBuilder::new().extend_csv(text).unwrap_err();
        let e = err("10.0.0.0/8,A,cloud\n10.0.0.0/33,B,cloud\n");
        assert_eq!(e.line, 2);
        assert_eq!(
            e.kind,
            NetworksErrorKind::Cidr(CidrError::PrefixTooLong { len: 33, max: 32 })
        );
        assert_eq!(
            e.to_string(),
            "line 2: bad network: prefix length 33 is over 32"
        );
        assert_eq!(err("\n\n1.2.3.4,A\n").line, 3);
        assert_eq!(
            err("1.2.3.4,A\n").kind,
            NetworksErrorKind::MissingField("category")
        );
        assert_eq!(
            err("1.2.3.4\n").kind,
            NetworksErrorKind::MissingField("app")
        );
        assert_eq!(err("1.2.3.4,A,b,c,d\n").kind, NetworksErrorKind::ExtraField);
        assert_eq!(err("1.2.3.4,,b\n").kind, NetworksErrorKind::BadName("app"));
        assert_eq!(
            err("1.2.3.4,A, \n").kind,
            NetworksErrorKind::BadName("category")
        );
        assert_eq!(
            err("1.2.3.4,A\u{7},b\n").kind,
            NetworksErrorKind::BadName("app")
        );
        let long = format!("1.2.3.4,{},b\n", "x".repeat(MAX_NAME_LEN + 1));
        assert_eq!(err(&long).kind, NetworksErrorKind::BadName("app"));
        assert_eq!(
            err("1.2.3.4/8/8,A,b\n").kind,
            NetworksErrorKind::Cidr(CidrError::BadPrefixLen)
        );
        // The header is only a first row.
        assert_eq!(err("1.2.3.4,A,b\nnetwork,app,category\n").line, 2);
    }

    #[test]
    fn quoted_fields_embedded_commas_and_crlf() {
        let mut b = NetworksBuilder::new();
        let l = b
            .extend_csv(
                "network,app,category,list\r\n\
                 \"10.0.0.0/8\",\"Corp, Inc.\",cloud,\"mine, and theirs\"\r\n\
                 10.1.0.0/16,\"Lab \"\"B\"\"\",network\r\n",
            )
            .unwrap();
        assert_eq!(l, Loaded { rows: 2, masked: 0 });
        let n = b.build();
        assert_eq!(who(&n, "10.2.0.0"), Some("Corp, Inc."));
        assert_eq!(who(&n, "10.1.0.0"), Some("Lab \"B\""));
        // An unterminated quote: an error naming its line, and nothing added.
        for text in [
            "10.0.0.0/8,A,b\n\"10.1.0.0/16,B,c\n10.2.0.0/16,C,d\n",
            "10.0.0.0/8,A,b\n10.1.0.0/16,\"B,c",
        ] {
            let mut b = NetworksBuilder::new();
            let e = b.extend_csv(text).unwrap_err();
            assert_eq!(
                (e.line, e.kind),
                (2, NetworksErrorKind::Row(csvrows::UNTERMINATED)),
                "{text:?}"
            );
            assert!(e.to_string().starts_with("line 2: "), "{e}");
            assert!(e.to_string().contains("unterminated quote"), "{e}");
            assert!(b.is_empty());
        }
    }

    #[test]
    fn a_list_with_an_error_adds_nothing() {
        let mut b = NetworksBuilder::new();
        b.extend_csv("10.0.0.0/8,Corp,cloud\n").unwrap();
        b.extend_csv("11.0.0.0/8,New,cloud\nbad,New2,cloud\n")
            .unwrap_err();
        assert_eq!(b.len(), 1);
        let n = b.build();
        assert_eq!(
            n.owner_count(),
            1,
            "owners of the refused list are gone too"
        );
        assert_eq!(who(&n, "11.0.0.1"), None);
        assert_eq!(b.owner_id("New", "cloud").unwrap().index(), 1);
    }

    #[test]
    fn caps_and_foreign_owners() {
        let mut b = NetworksBuilder::new();
        let mut other = NetworksBuilder::new();
        other.owner_id("A", "b").unwrap();
        let foreign = other.owner_id("C", "d").unwrap();
        let e = b.insert("1.2.3.4".parse().unwrap(), foreign).unwrap_err();
        assert_eq!(e.kind, NetworksErrorKind::UnknownOwner);
        // The owner cap.
        for i in 0..MAX_OWNERS {
            b.owner_id(&i.to_string(), "c").unwrap();
        }
        let e = b.add("1.2.3.4", "one-too-many", "c").unwrap_err();
        assert_eq!(e.kind, NetworksErrorKind::TooManyOwners);
        // The block cap, with an owner that exists.
        let id = b.owner_id("0", "c").unwrap();
        let net: Cidr = "1.2.3.4".parse().unwrap();
        for _ in 0..MAX_NETWORKS {
            b.insert(net, id).unwrap();
        }
        assert_eq!(
            b.insert(net, id).unwrap_err().kind,
            NetworksErrorKind::TooManyNetworks
        );
        let e = b.extend_csv("\n5.6.7.8,0,c\n").unwrap_err();
        assert_eq!((e.line, e.kind), (2, NetworksErrorKind::TooManyNetworks));
        assert_eq!(b.len(), MAX_NETWORKS);
    }

    #[test]
    fn the_shipped_list_loads_and_follows_ndpi_on_duplicates() {
        let mut b = NetworksBuilder::new();
        let l = b.extend_csv(SHIPPED).unwrap();
        assert_eq!(
            l,
            Loaded {
                rows: 17_399,
                masked: 0
            }
        );
        let n = b.build();
        let at = |ip: &str| n.lookup(ip.parse().unwrap()).map(|id| n.owner(id));
        // Both AmazonAWS and (later) Twitch, both Azure and (later) Microsoft365: nDPI names
        // Twitch and Microsoft365 for these corpus flows.
        assert_eq!(at("52.223.198.7"), Some(("Twitch", "video")));
        assert_eq!(at("40.126.9.7"), Some(("Microsoft365", "collaborative")));
        // First rows of the file, IPv6 too.
        assert_eq!(at("178.248.208.0"), Some(("OCS", "media")));
        assert_eq!(at("178.248.215.255"), Some(("OCS", "media")));
        assert_eq!(at("2402:2a80::1"), Some(("Twitch", "video")));
        assert_eq!(at("192.168.1.1"), None);
        assert_eq!(at("::1"), None);
    }

    /// The first and last addresses of the block, as integers of its family.
    fn bounds(c: &Cidr) -> (u128, u128) {
        let bits = family_bits(c.addr);
        let start = key(c.addr);
        (start, start | (!net_mask(bits, c.len) & max_key(bits)))
    }

    /// The naive answer: the longest block holding `ip`, the last given among equals.
    fn naive(rows: &[(Cidr, u16)], ip: IpAddr) -> Option<OwnerId> {
        let mut best: Option<(u8, u16)> = None;
        for &(c, o) in rows {
            if c.contains(ip) && best.is_none_or(|(len, _)| c.prefix_len() >= len) {
                best = Some((c.prefix_len(), o));
            }
        }
        best.map(|(_, o)| OwnerId(o))
    }

    /// Blocks that nest and overlap often: a few base addresses, random low bits, any length.
    fn blocks(bits: u32) -> impl Strategy<Value = Vec<(u128, u8, u16)>> {
        let base = prop::collection::vec(any::<u128>(), 1..4);
        base.prop_flat_map(move |bases| {
            let n = bases.len();
            prop::collection::vec(
                (0..n, any::<u128>(), 0..=bits as u8, 0u16..6, 0u32..bits),
                0..40,
            )
            .prop_map(move |v| {
                v.into_iter()
                    .map(|(b, r, len, o, spread)| {
                        // Keep the top `bits - spread` bits of the base: blocks cluster.
                        let low = u128::MAX.checked_shr(128 - spread).unwrap_or(0);
                        let a = ((bases[b] & !low) | (r & low)) & max_key(bits);
                        (a, len, o)
                    })
                    .collect()
            })
        })
    }

    fn ip_of(bits: u32, k: u128) -> IpAddr {
        if bits == 32 {
            IpAddr::V4(Ipv4Addr::from(k as u32))
        } else {
            IpAddr::V6(Ipv6Addr::from(k))
        }
    }

    fn check_against_naive(bits: u32, raw: &[(u128, u8, u16)], probes: &[u128]) {
        let mut b = NetworksBuilder::new();
        let ids: Vec<OwnerId> = (0..6)
            .map(|o| b.owner_id(&format!("O{o}"), "c").unwrap())
            .collect();
        let mut rows = Vec::new();
        for &(a, len, o) in raw {
            let c = Cidr::new(ip_of(bits, a), len).unwrap();
            b.insert(c, ids[usize::from(o)]).unwrap();
            rows.push((c, o));
        }
        // Blocks of the other family must not disturb this one.
        let other = if bits == 32 { "::/0" } else { "0.0.0.0/0" };
        b.add(other, "Other", "c").unwrap();
        let n = b.build();
        let mut keys: Vec<u128> = probes.iter().map(|p| p & max_key(bits)).collect();
        for (c, _) in &rows {
            let (first, last) = bounds(c);
            keys.extend([first, last, first.wrapping_sub(1), last.wrapping_add(1)]);
        }
        keys.extend([0, max_key(bits)]);
        for k in keys {
            let ip = ip_of(bits, k & max_key(bits));
            assert_eq!(n.lookup(ip), naive(&rows, ip), "{ip} in {rows:?}");
        }
    }

    proptest! {
        #[test]
        fn v4_lookup_equals_the_naive_scan(
            raw in blocks(32),
            probes in prop::collection::vec(any::<u128>(), 0..20),
        ) {
            check_against_naive(32, &raw, &probes);
        }

        #[test]
        fn v6_lookup_equals_the_naive_scan(
            raw in blocks(128),
            probes in prop::collection::vec(any::<u128>(), 0..20),
        ) {
            check_against_naive(128, &raw, &probes);
        }

        #[test]
        fn the_parser_never_panics_and_a_refused_list_adds_nothing(text in "[0-9a-f:./,#\\n A-Z]{0,200}") {
            let mut b = NetworksBuilder::new();
            if b.extend_csv(&text).is_ok() {
                let n = b.build();
                // Every range's owner is a valid id.
                for (id, app, _) in n.owners() {
                    prop_assert_eq!(n.owner(id).0, app);
                }
            } else {
                prop_assert_eq!(b.len(), 0);
            }
        }
    }
}
