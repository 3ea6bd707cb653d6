//! Model files: what `wirespeed train` writes and the runtime loads.
//!
//! Layout (all integers little-endian):
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | magic `WSMODEL\0` |
//! | 8 | 2 | format version (1) |
//! | 10 | 1 | algorithm: 1 = Naive Bayes, 2 = C4.5 |
//! | 11 | 1 | reserved, 0 |
//! | 12 | 4 | payload length |
//! | 16 | 4 | CRC-32 (IEEE, as zlib) of the payload |
//! | 20 | … | payload |
//!
//! Payload: size mode (u8: 0 ip, 1 payload, 2 data), positions P (u8, the packet at which the
//! flow is classified), flags (u8: bit 0 = C4.5 uses inter-arrival times), reserved u8; class
//! count (u16) and per class its application name and nDPI category (u8 length + UTF-8 each).
//! Naive Bayes then: bin width (u16), port table (u8), σ (f32), α (f32), threshold (i32),
//! training flows per class (u32 each), cell count (u32) and cells (feature u8, bin u32,
//! class u16, count u32). C4.5 then: attribute count (u16), node count (u32) and nodes (attribute
//! u16, class u16, value f32, right u32; see [`FlatNode`]).
//!
//! Loading checks everything (magic, version, checksum, every length and index) and returns a
//! [`ModelError`] naming the problem: a corrupt or foreign file never panics.

use crate::c45::{FlatNode, FlatTree, LEAF};
use crate::features::{Early, SizeMode, ATOZ_NAMES, SPLT_CAP};
use crate::nb::{NaiveBayes, NbCounts, NbParams};
use std::fmt;

/// File magic.
pub const MAGIC: &[u8; 8] = b"WSMODEL\0";
/// Format version written and read.
pub const VERSION: u16 = 1;
/// Most attributes a C4.5 model may use.
pub const MAX_ATTRS: usize = 2 * SPLT_CAP + 12;

/// Why a model file was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelError(pub String);

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid model file: {}", self.0)
    }
}

impl std::error::Error for ModelError {}

fn err<T>(s: impl Into<String>) -> Result<T, ModelError> {
    Err(ModelError(s.into()))
}

/// The model file's checksum: CRC-32/ISO-HDLC (IEEE 802.3, as zlib's `crc32`): width 32,
/// polynomial 0x04C11DB7, initial value and final XOR 0xFFFFFFFF, input and output reflected;
/// check value 0xCBF43926.
const CRC32: crc::Crc<u32> = crc::Crc::<u32>::new(&crc::CRC_32_ISO_HDLC);

/// CRC-32 (IEEE 802.3, reflected, as zlib's `crc32`): the model file's checksum.
pub fn crc32(data: &[u8]) -> u32 {
    CRC32.checksum(data)
}

/// One class of a model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassInfo {
    /// nDPI master protocol name (e.g. "TLS").
    pub app: String,
    /// nDPI category of that protocol in the training labels.
    pub category: String,
}

/// The learned part.
#[derive(Clone, Debug, PartialEq)]
pub enum Algo {
    /// Naive Bayes counts (tables are built at load).
    Nb(NbCounts),
    /// A flattened C4.5 tree.
    C45 {
        /// The tree.
        tree: FlatTree,
        /// Inter-arrival times are attributes.
        iat: bool,
    },
}

/// A model: what it looks at, its classes, and the learned part.
#[derive(Clone, Debug)]
pub struct Model {
    /// Which size the sequences use.
    pub mode: SizeMode,
    /// The flow is classified when it reaches this many packets (or ends before).
    pub positions: u8,
    /// Classes.
    pub classes: Vec<ClassInfo>,
    /// The learned part.
    pub algo: Algo,
    nb: Option<NaiveBayes>,
}

/// Attribute values of a flow for C4.5 (NaN = missing): P signed sizes, P−1 inter-arrival
/// times (µs) when `iat`, then the 12 AtoZ features. Returns the count.
#[inline]
pub fn c45_attrs(
    e: &Early,
    l4: u8,
    server_port: u16,
    mode: SizeMode,
    positions: usize,
    iat: bool,
    out: &mut [f32; MAX_ATTRS],
) -> usize {
    let p = positions.min(SPLT_CAP);
    let e = e.truncated(p);
    let mut s = [0i32; SPLT_CAP];
    let k = e.sizes(mode, &mut s[..p]);
    let mut n = 0;
    for (i, v) in s[..p].iter().enumerate() {
        out[n] = if i < k { *v as f32 } else { f32::NAN };
        n += 1;
    }
    if iat {
        for i in 0..p.saturating_sub(1) {
            out[n] = if i + 1 < e.len() {
                e.iat_us[i] as f32
            } else {
                f32::NAN
            };
            n += 1;
        }
    }
    for v in e.atoz(l4, server_port) {
        out[n] = v;
        n += 1;
    }
    n
}

/// Names of the attributes [`c45_attrs`] returns.
pub fn c45_attr_names(positions: usize, iat: bool) -> Vec<String> {
    let p = positions.min(SPLT_CAP);
    let mut v: Vec<String> = (0..p).map(|i| format!("size{}", i + 1)).collect();
    if iat {
        v.extend((1..p).map(|i| format!("iat{i}")));
    }
    v.extend(ATOZ_NAMES.iter().map(|s| s.to_string()));
    v
}

impl Model {
    /// A model from its parts (builds the Naive Bayes tables).
    pub fn new(mode: SizeMode, positions: u8, classes: Vec<ClassInfo>, algo: Algo) -> Model {
        let nb = match &algo {
            Algo::Nb(c) => Some(NaiveBayes::from_counts(c)),
            Algo::C45 { .. } => None,
        };
        Model {
            mode,
            positions,
            classes,
            algo,
            nb,
        }
    }

    /// Short name of the algorithm.
    pub fn algo_name(&self) -> &'static str {
        match self.algo {
            Algo::Nb(_) => "nb",
            Algo::C45 { .. } => "c45",
        }
    }

    /// Classify a flow from its first packets: (class index, confidence), or None ("unknown").
    #[inline]
    pub fn classify(&self, e: &Early, l4: u8, server_port: u16) -> Option<(u16, f32)> {
        match (&self.algo, &self.nb) {
            (_, Some(nb)) => nb.classify(e, l4, server_port),
            (Algo::C45 { tree, iat }, None) => {
                let mut x = [f32::NAN; MAX_ATTRS];
                let n = c45_attrs(
                    e,
                    l4,
                    server_port,
                    self.mode,
                    self.positions as usize,
                    *iat,
                    &mut x,
                );
                Some(tree.classify(&x[..n]))
            }
            _ => None,
        }
    }

    /// The model file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut p = Vec::new();
        p.push(self.mode.code());
        p.push(self.positions);
        let iat = matches!(self.algo, Algo::C45 { iat: true, .. });
        p.push(iat as u8);
        p.push(0);
        p.extend_from_slice(&(self.classes.len() as u16).to_le_bytes());
        for c in &self.classes {
            for s in [&c.app, &c.category] {
                let b = &s.as_bytes()[..s.len().min(255)];
                p.push(b.len() as u8);
                p.extend_from_slice(b);
            }
        }
        let algo = match &self.algo {
            Algo::Nb(c) => {
                p.extend_from_slice(&c.params.bin_width.to_le_bytes());
                p.push(c.params.port as u8);
                p.extend_from_slice(&c.params.sigma.to_le_bytes());
                p.extend_from_slice(&c.params.alpha.to_le_bytes());
                p.extend_from_slice(&c.threshold.to_le_bytes());
                for n in &c.class_n {
                    p.extend_from_slice(&n.to_le_bytes());
                }
                p.extend_from_slice(&(c.cells.len() as u32).to_le_bytes());
                for &(f, b, cl, n) in &c.cells {
                    p.push(f);
                    p.extend_from_slice(&b.to_le_bytes());
                    p.extend_from_slice(&cl.to_le_bytes());
                    p.extend_from_slice(&n.to_le_bytes());
                }
                1u8
            }
            Algo::C45 { tree, iat } => {
                let nattr = c45_attr_names(self.positions as usize, *iat).len();
                p.extend_from_slice(&(nattr as u16).to_le_bytes());
                p.extend_from_slice(&(tree.nodes.len() as u32).to_le_bytes());
                for n in &tree.nodes {
                    p.extend_from_slice(&n.attr.to_le_bytes());
                    p.extend_from_slice(&n.class.to_le_bytes());
                    p.extend_from_slice(&n.value.to_le_bytes());
                    p.extend_from_slice(&n.right.to_le_bytes());
                }
                2u8
            }
        };
        let mut out = Vec::with_capacity(20 + p.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.push(algo);
        out.push(0);
        out.extend_from_slice(&(p.len() as u32).to_le_bytes());
        out.extend_from_slice(&crc32(&p).to_le_bytes());
        out.extend_from_slice(&p);
        out
    }

    /// Read a model file; every field is checked.
    pub fn from_bytes(b: &[u8]) -> Result<Model, ModelError> {
        if b.len() < 20 {
            return err(format!("{} bytes: too short for a header", b.len()));
        }
        if &b[..8] != MAGIC {
            return err("not a wirespeed model (bad magic)");
        }
        let version = u16::from_le_bytes([b[8], b[9]]);
        if version != VERSION {
            return err(format!(
                "format version {version}; this build reads version {VERSION}"
            ));
        }
        let algo = b[10];
        if b[11] != 0 {
            return err("reserved header byte is not 0");
        }
        let len = u32::from_le_bytes([b[12], b[13], b[14], b[15]]) as usize;
        let crc = u32::from_le_bytes([b[16], b[17], b[18], b[19]]);
        let payload = &b[20..];
        if payload.len() != len {
            return err(format!(
                "payload is {} bytes, header says {len} (truncated or padded)",
                payload.len()
            ));
        }
        if crc32(payload) != crc {
            return err("checksum mismatch (corrupt file)");
        }
        let mut r = Reader { b: payload, at: 0 };
        let mode =
            SizeMode::from_code(r.u8()?).ok_or_else(|| ModelError("unknown size mode".into()))?;
        let positions = r.u8()?;
        if positions == 0 || positions as usize > SPLT_CAP {
            return err(format!("positions {positions} not in 1..={SPLT_CAP}"));
        }
        let flags = r.u8()?;
        r.u8()?;
        let nc = r.u16()? as usize;
        if nc == 0 || nc > 4096 {
            return err(format!("{nc} classes"));
        }
        let mut classes = Vec::with_capacity(nc);
        for _ in 0..nc {
            let app = r.str()?;
            let category = r.str()?;
            classes.push(ClassInfo { app, category });
        }
        let algo = match algo {
            1 => {
                let bin_width = r.u16()?;
                let port = r.u8()? != 0;
                let sigma = r.f32()?;
                let alpha = r.f32()?;
                let threshold = r.i32()?;
                if bin_width == 0 || bin_width > 1536 {
                    return err(format!("bin width {bin_width}"));
                }
                if !((0.0..=64.0).contains(&sigma) && alpha > 0.0 && alpha <= 1000.0) {
                    return err("smoothing parameters out of range");
                }
                let params = NbParams {
                    mode,
                    positions,
                    bin_width,
                    port,
                    sigma,
                    alpha,
                };
                let mut class_n = Vec::with_capacity(nc);
                for _ in 0..nc {
                    class_n.push(r.u32()?);
                }
                let ncell = r.u32()? as usize;
                if ncell > r.left() / 11 {
                    return err(format!("{ncell} cells do not fit in the file"));
                }
                let mut cells = Vec::with_capacity(ncell);
                for _ in 0..ncell {
                    let f = r.u8()?;
                    let bin = r.u32()?;
                    let cl = r.u16()?;
                    let n = r.u32()?;
                    if f as usize >= params.features()
                        || bin >= params.bins_of(f as usize)
                        || cl as usize >= nc
                    {
                        return err("a count cell is out of range");
                    }
                    cells.push((f, bin, cl, n));
                }
                Algo::Nb(NbCounts {
                    params,
                    classes: nc,
                    class_n,
                    cells,
                    threshold,
                })
            }
            2 => {
                let iat = flags & 1 != 0;
                let nattr = r.u16()? as usize;
                let want = c45_attr_names(positions as usize, iat).len();
                if nattr != want {
                    return err(format!("{nattr} attributes, expected {want}"));
                }
                let nn = r.u32()? as usize;
                if nn > r.left() / 12 {
                    return err(format!("{nn} nodes do not fit in the file"));
                }
                let mut nodes = Vec::with_capacity(nn);
                for _ in 0..nn {
                    let attr = r.u16()?;
                    let class = r.u16()?;
                    let value = r.f32()?;
                    let right = r.u32()?;
                    if attr != LEAF && value.is_nan() {
                        return err("NaN threshold");
                    }
                    nodes.push(FlatNode {
                        attr,
                        class,
                        value,
                        right,
                    });
                }
                let tree = FlatTree { nodes };
                tree.validate(nattr, nc).map_err(ModelError)?;
                Algo::C45 { tree, iat }
            }
            a => return err(format!("unknown algorithm code {a}")),
        };
        if r.left() != 0 {
            return err(format!("{} trailing bytes", r.left()));
        }
        Ok(Model::new(mode, positions, classes, algo))
    }
}

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], ModelError> {
        let s = self
            .b
            .get(self.at..self.at.saturating_add(n))
            .ok_or_else(|| ModelError(format!("truncated at payload byte {}", self.at)))?;
        self.at += n;
        Ok(s)
    }
    fn left(&self) -> usize {
        self.b.len().saturating_sub(self.at)
    }
    fn u8(&mut self) -> Result<u8, ModelError> {
        Ok(self.take(1)?[0])
    }
    fn u16(&mut self) -> Result<u16, ModelError> {
        let s = self.take(2)?;
        Ok(u16::from_le_bytes([s[0], s[1]]))
    }
    fn u32(&mut self) -> Result<u32, ModelError> {
        let s = self.take(4)?;
        Ok(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
    }
    fn i32(&mut self) -> Result<i32, ModelError> {
        Ok(self.u32()? as i32)
    }
    fn f32(&mut self) -> Result<f32, ModelError> {
        Ok(f32::from_bits(self.u32()?))
    }
    fn str(&mut self) -> Result<String, ModelError> {
        let n = self.u8()? as usize;
        let s = self.take(n)?;
        String::from_utf8(s.to_vec()).map_err(|_| ModelError("a class name is not UTF-8".into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::c45::{train, C45Params, Data};
    use proptest::prelude::*;

    fn tiny_nb() -> Model {
        let mut e = Early::default();
        e.push(false, 100, 60, 0, 0);
        let c = NbCounts::train(
            NbParams {
                mode: SizeMode::Payload,
                ..NbParams::default()
            },
            2,
            [(&e, 6u8, 80u16, 0u16), (&e, 6, 80, 1)].into_iter(),
        );
        Model::new(
            SizeMode::Payload,
            4,
            vec![
                ClassInfo {
                    app: "HTTP".into(),
                    category: "Web".into(),
                },
                ClassInfo {
                    app: "DNS".into(),
                    category: "Network".into(),
                },
            ],
            Algo::Nb(c),
        )
    }

    fn tiny_c45() -> Model {
        let x = vec![
            vec![1.0f32; 16],
            vec![2.0; 16],
            vec![1.0; 16],
            vec![2.0; 16],
        ];
        let x: Vec<Vec<f32>> = x
            .into_iter()
            .map(|mut r| {
                r.truncate(c45_attr_names(4, false).len());
                r
            })
            .collect();
        let y = vec![0, 1, 0, 1];
        let t = train(
            &Data {
                x: &x,
                y: &y,
                classes: 2,
            },
            C45Params::default(),
        );
        let mut m = tiny_nb();
        m.algo = Algo::C45 {
            tree: FlatTree::from_node(&t),
            iat: false,
        };
        m.nb = None;
        m
    }

    #[test]
    fn crc32_check_value() {
        // The standard check value of CRC-32/ISO-HDLC, and zlib's crc32 of other inputs.
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b""), 0);
        assert_eq!(crc32(b"a"), 0xE8B7_BE43);
        assert_eq!(
            crc32(b"The quick brown fox jumps over the lazy dog"),
            0x414F_A339
        );
    }

    #[test]
    fn the_shipped_models_load_and_a_flipped_byte_is_refused() {
        let shipped: [(&str, &[u8]); 2] = [
            ("default.wsm", crate::DEFAULT_MODEL_BYTES),
            ("c45.wsm", include_bytes!("../../../models/c45.wsm")),
        ];
        for (name, b) in shipped {
            let m = Model::from_bytes(b).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(!m.classes.is_empty(), "{name}");
            assert_eq!(m.to_bytes(), b, "{name}: written back the same");
            // The stored checksum is the payload's CRC-32.
            assert_eq!(crc32(&b[20..]).to_le_bytes(), b[16..20], "{name}");
            for i in [20, b.len() / 2, b.len() - 1] {
                let mut c = b.to_vec();
                c[i] ^= 0x10;
                let e = Model::from_bytes(&c).unwrap_err();
                assert!(e.0.contains("checksum"), "{name}, byte {i}: {e}");
            }
        }
    }

    #[test]
    fn round_trip_both_algorithms() {
        for m in [tiny_nb(), tiny_c45()] {
            let b = m.to_bytes();
            let r = Model::from_bytes(&b).unwrap();
            assert_eq!(r.classes, m.classes);
            assert_eq!(r.algo, m.algo);
            assert_eq!(r.to_bytes(), b);
        }
    }

    #[test]
    fn corrupt_and_foreign_files_are_clear_errors() {
        let b = tiny_nb().to_bytes();
        let e = Model::from_bytes(b"PK\x03\x04 a zip file, not a model").unwrap_err();
        assert!(e.to_string().contains("bad magic"), "{e}");
        let mut c = b.clone();
        let last = c.len() - 1;
        c[last] ^= 1;
        assert!(Model::from_bytes(&c).unwrap_err().0.contains("checksum"));
        let e = Model::from_bytes(&b[..b.len() - 3]).unwrap_err();
        assert!(e.0.contains("truncated or padded"), "{e}");
        let mut v = b.clone();
        v[8] = 9;
        assert!(Model::from_bytes(&v).unwrap_err().0.contains("version 9"));
        assert!(Model::from_bytes(&[]).is_err());
    }

    proptest! {
        /// Arbitrary bytes never panic the loader.
        #[test]
        fn loader_never_panics(data in proptest::collection::vec(any::<u8>(), 0..512)) {
            let _ = Model::from_bytes(&data);
        }

        /// A valid header over an arbitrary payload (right length and checksum) reaches the
        /// payload checks, which must not panic either; a model that loads classifies.
        #[test]
        fn payload_checks_never_panic(payload in proptest::collection::vec(any::<u8>(), 0..256), algo in 0u8..4) {
            let mut b = Vec::new();
            b.extend_from_slice(MAGIC);
            b.extend_from_slice(&VERSION.to_le_bytes());
            b.push(algo);
            b.push(0);
            b.extend_from_slice(&(payload.len() as u32).to_le_bytes());
            b.extend_from_slice(&crc32(&payload).to_le_bytes());
            b.extend_from_slice(&payload);
            if let Ok(m) = Model::from_bytes(&b) {
                let mut e = Early::default();
                e.push(false, 100, 50, 0x18, 0);
                e.push(true, 1500, 1448, 0x10, 1000);
                if let Some((c, _)) = m.classify(&e, 6, 443) {
                    prop_assert!((c as usize) < m.classes.len());
                }
            }
        }

        /// Flipping any byte of a valid file is caught (checksum or header checks).
        #[test]
        fn any_flipped_byte_is_refused(pos in 0usize..10_000, bit in 0u8..8) {
            let b = tiny_c45().to_bytes();
            let mut c = b.clone();
            let i = pos % c.len();
            c[i] ^= 1 << bit;
            prop_assert!(Model::from_bytes(&c).is_err(), "flip at byte {} accepted", i);
        }
    }
}
