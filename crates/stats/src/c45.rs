//! C4.5 decision trees (Quinlan; Weka J48 defaults) over numeric attributes, trained offline and
//! flattened into an array for allocation-free inference.
//!
//! Training follows Weka's J48 (`C45Split`, `C45ModelSelection`, `C45PruneableClassifierTree`),
//! which is what the independent check (`scripts/j48_compare.sh`) runs: gain ratio among the
//! attributes whose gain is at least the average, binary thresholds with the MDL correction
//! log2(cuts)/N, missing values passed down both branches with fractional weights, `collapse`,
//! then error-based pruning (CF 0.25, exact normal quantile, min 2 objects) with subtree raising.
//! Attribute values are `f32`; NaN means missing.

/// Training options (J48's `-C 0.25 -M 2` by default).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct C45Params {
    /// Pruning confidence factor.
    pub cf: f64,
    /// Minimum weight in at least two branches of a split.
    pub min_obj: f64,
    /// Replace a node by its largest branch when that is estimated to err less.
    pub subtree_raising: bool,
    /// Depth cap (a bound on recursion; J48 has none, deep trees do not occur on this data).
    pub max_depth: usize,
}

impl Default for C45Params {
    fn default() -> Self {
        C45Params {
            cf: 0.25,
            min_obj: 2.0,
            subtree_raising: true,
            max_depth: 64,
        }
    }
}

const EPS: f64 = 1e-6;

fn log2(x: f64) -> f64 {
    x.ln() / std::f64::consts::LN_2
}

fn xlogx(x: f64) -> f64 {
    if x < EPS {
        0.0
    } else {
        x * log2(x)
    }
}

/// Entropy (bits) of a weighted class distribution.
pub fn entropy(d: &[f64]) -> f64 {
    let t: f64 = d.iter().sum();
    if t < EPS {
        return 0.0;
    }
    (xlogx(t) - d.iter().map(|&v| xlogx(v)).sum::<f64>()) / t
}

/// Normal quantile Φ⁻¹(p) (Acklam's rational approximation, |error| < 1.2e-9 with one Newton
/// step; enough for CF).
pub fn normal_inverse(p: f64) -> f64 {
    let a = [
        -3.969_683_028_665_376e1,
        2.209_460_984_245_205e2,
        -2.759_285_104_469_687e2,
        1.383_577_518_672_69e2,
        -3.066_479_806_614_716e1,
        2.506_628_277_459_239,
    ];
    let b = [
        -5.447_609_879_822_406e1,
        1.615_858_368_580_409e2,
        -1.556_989_798_598_866e2,
        6.680_131_188_771_972e1,
        -1.328_068_155_288_572e1,
    ];
    let c = [
        -7.784_894_002_430_293e-3,
        -3.223_964_580_411_365e-1,
        -2.400_758_277_161_838,
        -2.549_732_539_343_734,
        4.374_664_141_464_968,
        2.938_163_982_698_783,
    ];
    let d = [
        7.784_695_709_041_462e-3,
        3.224_671_290_700_398e-1,
        2.445_134_137_142_996,
        3.754_408_661_907_416,
    ];
    let p = p.clamp(1e-300, 1.0 - 1e-16);
    let pl = 0.02425;
    if p < pl {
        let q = (-2.0 * p.ln()).sqrt();
        (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5])
            / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0)
    } else if p <= 1.0 - pl {
        let q = p - 0.5;
        let r = q * q;
        (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q
            / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1.0)
    } else {
        let q = (-2.0 * (1.0 - p).ln()).sqrt();
        -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5])
            / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0)
    }
}

/// Extra errors expected on unseen data for a leaf of weight `n` with `e` training errors, at
/// confidence `cf` (Weka `Stats.addErrs`).
pub fn add_errs(n: f64, e: f64, cf: f64) -> f64 {
    if e < 1.0 {
        let base = n * (1.0 - cf.powf(1.0 / n));
        if e == 0.0 {
            return base;
        }
        return base + e * (add_errs(n, 1.0, cf) - base);
    }
    if e + 0.5 >= n {
        return (n - e).max(0.0);
    }
    let z = normal_inverse(1.0 - cf);
    let f = (e + 0.5) / n;
    let r = (f + z * z / (2.0 * n) + z * ((f / n) - (f * f / n) + z * z / (4.0 * n * n)).sqrt())
        / (1.0 + z * z / n);
    r * n - e
}

/// A training set: rows of attribute values (NaN = missing) and class indices.
pub struct Data<'a> {
    /// Attribute values per case.
    pub x: &'a [Vec<f32>],
    /// Class per case.
    pub y: &'a [u16],
    /// Number of classes.
    pub classes: usize,
}

/// A tree under construction.
#[derive(Clone, Debug)]
pub enum Node {
    /// A leaf with the training class distribution that reached it.
    Leaf {
        /// Weighted class counts.
        dist: Vec<f64>,
    },
    /// `x[attr] <= thr` goes left.
    Split {
        /// Attribute tested.
        attr: usize,
        /// Threshold.
        thr: f32,
        /// Weighted class counts at the node.
        dist: Vec<f64>,
        /// Known-value weight sent left and right (the fractions for missing values).
        bag: [f64; 2],
        /// Left (≤) and right (>) subtrees.
        kids: Box<[Node; 2]>,
    },
}

type Items = Vec<(u32, f64)>;

fn dist_of(d: &Data, items: &Items) -> Vec<f64> {
    let mut v = vec![0.0; d.classes];
    for &(i, w) in items {
        v[d.y[i as usize] as usize] += w;
    }
    v
}

fn argmax(v: &[f64]) -> usize {
    let mut b = 0;
    for (i, &x) in v.iter().enumerate() {
        if x > v[b] + EPS {
            b = i;
        }
    }
    b
}

fn incorrect(v: &[f64]) -> f64 {
    let t: f64 = v.iter().sum();
    t - v.get(argmax(v)).copied().unwrap_or(0.0)
}

struct Cand {
    gain: f64,
    ratio: f64,
    thr: f32,
}

/// Weka C45Split.handleNumericAttribute.
fn eval_attr(d: &Data, items: &Items, attr: usize, total: f64) -> Option<Cand> {
    let mut known: Vec<(f32, u16, f64)> = items
        .iter()
        .filter_map(|&(i, w)| {
            let v = d.x[i as usize][attr];
            (!v.is_nan()).then_some((v, d.y[i as usize], w))
        })
        .collect();
    known.sort_by(|a, b| a.0.total_cmp(&b.0));
    let kw: f64 = known.iter().map(|k| k.2).sum();
    let mut min_split = 0.1 * kw / d.classes as f64;
    if min_split <= d.min_obj() + EPS {
        min_split = d.min_obj();
    } else if min_split > 25.0 {
        min_split = 25.0;
    }
    if known.len() < 2 || kw < 2.0 * min_split {
        return None;
    }
    let mut right = vec![0.0; d.classes];
    for k in &known {
        right[k.1 as usize] += k.2;
    }
    let known_ent = entropy(&right) * kw;
    let mut left = vec![0.0; d.classes];
    let (mut lw, mut rw) = (0.0, kw);
    let mut best = (0.0f64, usize::MAX);
    let mut tries = 0u32;
    let unknown_rate = (total - kw) / total;
    for i in 0..known.len() - 1 {
        let (v, c, w) = known[i];
        left[c as usize] += w;
        right[c as usize] -= w;
        lw += w;
        rw -= w;
        if (v as f64) + 1e-5 < known[i + 1].0 as f64
            && lw + EPS >= min_split
            && rw + EPS >= min_split
        {
            let new_ent = entropy(&left) * lw + entropy(&right) * rw;
            let num = known_ent - new_ent;
            let g = if num.abs() < EPS {
                0.0
            } else {
                (1.0 - unknown_rate) * num / kw
            };
            if g > best.0 + EPS {
                best = (g, i);
            }
            tries += 1;
        }
    }
    if tries == 0 || best.1 == usize::MAX {
        return None;
    }
    let gain = best.0 - log2(tries as f64) / total;
    if gain <= EPS {
        return None;
    }
    let i = best.1;
    let (a, b) = (known[i].0, known[i + 1].0);
    let mut thr = (a + b) / 2.0;
    if thr == b {
        thr = a;
    }
    let lw: f64 = known[..=i].iter().map(|k| k.2).sum();
    let rw = kw - lw;
    let unknown = total - kw;
    let split_ent = (xlogx(total) - xlogx(lw) - xlogx(rw) - xlogx(unknown)) / total;
    let ratio = if split_ent.abs() < EPS {
        0.0
    } else {
        gain / split_ent
    };
    Some(Cand { gain, ratio, thr })
}

impl Data<'_> {
    fn min_obj(&self) -> f64 {
        2.0
    }
}

/// Split `items` by the test, unknowns fractionally by `bag`.
fn split(d: &Data, items: &Items, attr: usize, thr: f32, bag: [f64; 2]) -> [Items; 2] {
    let t = bag[0] + bag[1];
    let frac = if t > EPS {
        [bag[0] / t, bag[1] / t]
    } else {
        [0.5, 0.5]
    };
    let (mut l, mut r) = (Vec::new(), Vec::new());
    for &(i, w) in items {
        let v = d.x[i as usize][attr];
        if v.is_nan() {
            if frac[0] * w > EPS {
                l.push((i, frac[0] * w));
            }
            if frac[1] * w > EPS {
                r.push((i, frac[1] * w));
            }
        } else if v <= thr {
            l.push((i, w));
        } else {
            r.push((i, w));
        }
    }
    [l, r]
}

fn bag_of(d: &Data, items: &Items, attr: usize, thr: f32) -> [f64; 2] {
    let mut b = [0.0; 2];
    for &(i, w) in items {
        let v = d.x[i as usize][attr];
        if !v.is_nan() {
            b[(v > thr) as usize] += w;
        }
    }
    b
}

struct Builder<'a, 'b> {
    d: &'a Data<'b>,
    p: C45Params,
    /// Every training value of each attribute, sorted (J48 `setSplitPoint`).
    sorted: Vec<Vec<f32>>,
}

impl Builder<'_, '_> {
    fn build(&self, items: &Items, depth: usize) -> Node {
        let dist = dist_of(self.d, items);
        let total: f64 = dist.iter().sum();
        let maj = dist[argmax(&dist)];
        if total < 2.0 * self.p.min_obj || (total - maj).abs() < EPS || depth >= self.p.max_depth {
            return Node::Leaf { dist };
        }
        let nattr = self.d.x.first().map(|r| r.len()).unwrap_or(0);
        let cands: Vec<(usize, Cand)> = (0..nattr)
            .filter_map(|a| eval_attr(self.d, items, a, total).map(|c| (a, c)))
            .collect();
        if cands.is_empty() {
            return Node::Leaf { dist };
        }
        let avg = cands.iter().map(|c| c.1.gain).sum::<f64>() / cands.len() as f64;
        let mut best: Option<&(usize, Cand)> = None;
        let mut min_result = 0.0;
        for c in &cands {
            if c.1.gain >= avg - 1e-3 && c.1.ratio > min_result + EPS {
                min_result = c.1.ratio;
                best = Some(c);
            }
        }
        let Some(&(attr, ref c)) = best else {
            return Node::Leaf { dist };
        };
        // The threshold becomes the largest training value not above the midpoint.
        let s = &self.sorted[attr];
        let k = s.partition_point(|&v| v <= c.thr);
        let thr = if k > 0 { s[k - 1] } else { c.thr };
        let bag = bag_of(self.d, items, attr, thr);
        let [l, r] = split(self.d, items, attr, thr, bag);
        let kids = Box::new([self.build(&l, depth + 1), self.build(&r, depth + 1)]);
        Node::Split {
            attr,
            thr,
            dist,
            bag,
            kids,
        }
    }
}

impl Node {
    fn training_errors(&self) -> f64 {
        match self {
            Node::Leaf { dist } => incorrect(dist),
            Node::Split { kids, .. } => kids.iter().map(|k| k.training_errors()).sum(),
        }
    }

    /// Weka `collapse`: a subtree that does not reduce training errors becomes a leaf.
    fn collapse(&mut self) {
        if let Node::Split { dist, kids, .. } = self {
            let sub = kids[0].training_errors() + kids[1].training_errors();
            if sub >= incorrect(dist) - 1e-3 {
                *self = Node::Leaf { dist: dist.clone() };
            } else {
                kids[0].collapse();
                kids[1].collapse();
            }
        }
    }

    fn est_dist(dist: &[f64], cf: f64) -> f64 {
        let t: f64 = dist.iter().sum();
        if t < EPS {
            return 0.0;
        }
        let e = incorrect(dist);
        e + add_errs(t, e, cf)
    }

    fn est_errors(&self, cf: f64) -> f64 {
        match self {
            Node::Leaf { dist } => Node::est_dist(dist, cf),
            Node::Split { kids, .. } => kids.iter().map(|k| k.est_errors(cf)).sum(),
        }
    }

    /// Estimated errors of this subtree on `items` (their distributions, not the stored ones).
    fn est_branch(&self, d: &Data, items: &Items, cf: f64) -> f64 {
        match self {
            Node::Leaf { .. } => Node::est_dist(&dist_of(d, items), cf),
            Node::Split {
                attr, thr, kids, ..
            } => {
                let bag = bag_of(d, items, *attr, *thr);
                let parts = split(d, items, *attr, *thr, bag);
                kids[0].est_branch(d, &parts[0], cf) + kids[1].est_branch(d, &parts[1], cf)
            }
        }
    }

    /// Recompute distributions (and branch weights) from `items` throughout the subtree.
    fn redistribute(&mut self, d: &Data, items: &Items) {
        match self {
            Node::Leaf { dist } => *dist = dist_of(d, items),
            Node::Split {
                attr,
                thr,
                dist,
                bag,
                kids,
            } => {
                *dist = dist_of(d, items);
                *bag = bag_of(d, items, *attr, *thr);
                let parts = split(d, items, *attr, *thr, *bag);
                kids[0].redistribute(d, &parts[0]);
                kids[1].redistribute(d, &parts[1]);
            }
        }
    }

    /// Weka `C45PruneableClassifierTree.prune`.
    fn prune(&mut self, d: &Data, items: &Items, p: &C45Params) {
        let Node::Split {
            attr,
            thr,
            bag,
            kids,
            dist,
        } = self
        else {
            return;
        };
        let parts = split(d, items, *attr, *thr, *bag);
        kids[0].prune(d, &parts[0], p);
        kids[1].prune(d, &parts[1], p);
        let largest = if bag[1] > bag[0] + EPS { 1 } else { 0 };
        let err_largest = if p.subtree_raising {
            kids[largest].est_branch(d, items, p.cf)
        } else {
            f64::MAX
        };
        let err_leaf = Node::est_dist(dist, p.cf);
        let err_tree = kids[0].est_errors(p.cf) + kids[1].est_errors(p.cf);
        if err_leaf <= err_tree + 0.1 && err_leaf <= err_largest + 0.1 {
            *self = Node::Leaf { dist: dist.clone() };
        } else if err_largest <= err_tree + 0.1 {
            let mut k = std::mem::replace(&mut kids[largest], Node::Leaf { dist: Vec::new() });
            k.redistribute(d, items);
            *self = k;
            self.prune(d, items, p);
        }
    }

    /// Nodes (internal and leaves).
    pub fn size(&self) -> usize {
        match self {
            Node::Leaf { .. } => 1,
            Node::Split { kids, .. } => 1 + kids[0].size() + kids[1].size(),
        }
    }

    /// Leaves.
    pub fn leaves(&self) -> usize {
        match self {
            Node::Leaf { .. } => 1,
            Node::Split { kids, .. } => kids[0].leaves() + kids[1].leaves(),
        }
    }
}

/// Grow, collapse and prune a tree on `d`.
pub fn train(d: &Data, p: C45Params) -> Node {
    let nattr = d.x.first().map(|r| r.len()).unwrap_or(0);
    let sorted = (0..nattr)
        .map(|a| {
            let mut v: Vec<f32> = d.x.iter().map(|r| r[a]).filter(|v| !v.is_nan()).collect();
            v.sort_by(|a, b| a.total_cmp(b));
            v.dedup();
            v
        })
        .collect();
    let b = Builder { d, p, sorted };
    let items: Items = (0..d.x.len() as u32).map(|i| (i, 1.0)).collect();
    let mut t = b.build(&items, 0);
    t.collapse();
    t.prune(d, &items, &p);
    t
}

/// Flag in [`FlatNode::attr`] marking a leaf.
pub const LEAF: u16 = u16::MAX;

/// One node of a flattened tree: the left child is the next node; `right` is an index.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlatNode {
    /// Attribute tested, or [`LEAF`].
    pub attr: u16,
    /// Leaf: the class. Split: 1 when missing values go right (the heavier branch), else 0.
    pub class: u16,
    /// Split: threshold. Leaf: confidence (the class' share of the leaf's training weight).
    pub value: f32,
    /// Split: index of the right child.
    pub right: u32,
}

/// A tree as an array, preorder.
#[derive(Clone, Debug, PartialEq)]
pub struct FlatTree {
    /// Nodes, root first.
    pub nodes: Vec<FlatNode>,
}

impl FlatTree {
    /// Flatten a trained tree.
    pub fn from_node(n: &Node) -> FlatTree {
        fn go(n: &Node, out: &mut Vec<FlatNode>) {
            match n {
                Node::Leaf { dist } => {
                    let t: f64 = dist.iter().sum();
                    let c = argmax(dist);
                    out.push(FlatNode {
                        attr: LEAF,
                        class: c as u16,
                        value: if t > 0.0 { (dist[c] / t) as f32 } else { 0.0 },
                        right: 0,
                    });
                }
                Node::Split {
                    attr,
                    thr,
                    bag,
                    kids,
                    ..
                } => {
                    let at = out.len();
                    out.push(FlatNode {
                        attr: *attr as u16,
                        class: (bag[1] > bag[0]) as u16,
                        value: *thr,
                        right: 0,
                    });
                    go(&kids[0], out);
                    out[at].right = out.len() as u32;
                    go(&kids[1], out);
                }
            }
        }
        let mut nodes = Vec::new();
        go(n, &mut nodes);
        FlatTree { nodes }
    }

    /// Check a tree read from a file: children after their parent and in range, attributes
    /// below `nattr`, classes below `classes`. Inference on a checked tree always ends.
    pub fn validate(&self, nattr: usize, classes: usize) -> Result<(), String> {
        if self.nodes.is_empty() {
            return Err("empty tree".into());
        }
        for (i, n) in self.nodes.iter().enumerate() {
            if n.attr == LEAF {
                if n.class as usize >= classes {
                    return Err(format!("node {i}: class {} out of range", n.class));
                }
            } else {
                if n.attr as usize >= nattr {
                    return Err(format!("node {i}: attribute {} out of range", n.attr));
                }
                let r = n.right as usize;
                if i + 1 >= self.nodes.len() || r <= i + 1 || r >= self.nodes.len() {
                    return Err(format!("node {i}: child index {r} out of order"));
                }
            }
        }
        Ok(())
    }

    /// Class and confidence for attribute values `x` (NaN = missing, sent down the heavier
    /// branch). No allocation; at most one step per node.
    #[inline]
    pub fn classify(&self, x: &[f32]) -> (u16, f32) {
        let mut i = 0usize;
        for _ in 0..self.nodes.len() {
            let Some(n) = self.nodes.get(i) else { break };
            if n.attr == LEAF {
                return (n.class, n.value);
            }
            let v = x.get(n.attr as usize).copied().unwrap_or(f32::NAN);
            let right = if v.is_nan() {
                n.class != 0
            } else {
                v > n.value
            };
            i = if right { n.right as usize } else { i + 1 };
        }
        (0, 0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reference values of the pessimistic error bound, from ../shared/notes/ALGORITHMS.md §4.5
    /// (computed there independently, Weka column).
    #[test]
    fn add_errs_matches_weka_reference() {
        for (n, e, want) in [
            (6.0, 0.0, 1.2378),
            (16.0, 1.0, 1.4757),
            (100.0, 10.0, 2.7496),
            (2.0, 1.5, 0.5),
        ] {
            let got = add_errs(n, e, 0.25);
            assert!(
                (got - want).abs() < 1e-3,
                "addErrs({n},{e}) = {got}, want {want}"
            );
        }
        assert!((normal_inverse(0.75) - 0.674_489_75).abs() < 1e-6);
    }

    /// Quinlan's golf/weather data with the numeric temperature and humidity (weather.numeric
    /// in Weka), outlook and windy as 0/1 indicator attributes. Hand computation at the root:
    /// 9 play / 5 don't, Info = 0.940 bits. J48 on the nominal version splits on outlook;
    /// with indicators, "overcast" (4 cases, all play) is the cleanest binary cut: gain
    /// = 0.940 − (10/14)·Info(5,5) = 0.940 − 0.714 = 0.226, minus the MDL term log2(1)/14 = 0
    /// (one candidate cut), split info = H(4/14, 10/14) = 0.863, gain ratio 0.262. Humidity's
    /// best cut (≤ 80: 7 play / 2 don't vs 2/3... ) has a lower gain ratio.
    #[test]
    fn weather_root_split_by_hand() {
        // outlook sunny, overcast, rainy as indicators; temp; humidity; windy
        let rows: [(f32, f32, f32, f32, f32, f32, u16); 14] = [
            (1., 0., 0., 85., 85., 0., 1),
            (1., 0., 0., 80., 90., 1., 1),
            (0., 1., 0., 83., 86., 0., 0),
            (0., 0., 1., 70., 96., 0., 0),
            (0., 0., 1., 68., 80., 0., 0),
            (0., 0., 1., 65., 70., 1., 1),
            (0., 1., 0., 64., 65., 1., 0),
            (1., 0., 0., 72., 95., 0., 1),
            (1., 0., 0., 69., 70., 0., 0),
            (0., 0., 1., 75., 80., 0., 0),
            (1., 0., 0., 75., 70., 1., 0),
            (0., 1., 0., 72., 90., 1., 0),
            (0., 1., 0., 81., 75., 0., 0),
            (0., 0., 1., 71., 91., 1., 1),
        ];
        let x: Vec<Vec<f32>> = rows
            .iter()
            .map(|r| vec![r.0, r.1, r.2, r.3, r.4, r.5])
            .collect();
        let y: Vec<u16> = rows.iter().map(|r| r.6).collect();
        let d = Data {
            x: &x,
            y: &y,
            classes: 2,
        };
        let items: Items = (0..14).map(|i| (i, 1.0)).collect();
        assert!((entropy(&dist_of(&d, &items)) - 0.940_286).abs() < 1e-5);
        let c = eval_attr(&d, &items, 1, 14.0).unwrap();
        let g = 0.940_286 - (10.0 / 14.0) * 1.0;
        assert!((c.gain - g).abs() < 1e-5, "gain {}", c.gain);
        let si = entropy(&[4.0, 10.0]);
        assert!((c.ratio - g / si).abs() < 1e-5, "ratio {}", c.ratio);
        // Unpruned growth separates the training set; the pruned tree still predicts the
        // 4 overcast days as "play" and is small.
        let t = train(&d, C45Params::default());
        let f = FlatTree::from_node(&t);
        f.validate(6, 2).unwrap();
        for (r, row) in x.iter().zip(rows.iter()) {
            if row.1 == 1.0 {
                assert_eq!(f.classify(r).0, 0);
            }
        }
    }

    /// Missing values: a case with an unknown value goes down both branches with fractional
    /// weights; the gain is scaled by the known fraction (ALGORITHMS.md §4.1).
    #[test]
    fn missing_values_scale_gain() {
        let x: Vec<Vec<f32>> = [1., 1., 1., 2., 2., 2., f32::NAN, f32::NAN]
            .iter()
            .map(|&v| vec![v])
            .collect();
        let y = vec![0, 0, 0, 1, 1, 1, 0, 1];
        let d = Data {
            x: &x,
            y: &y,
            classes: 2,
        };
        let items: Items = (0..8).map(|i| (i, 1.0)).collect();
        let c = eval_attr(&d, &items, 0, 8.0).unwrap();
        // known: perfect split, gain 1 bit × (6/8); one cut (MDL term 0)
        assert!((c.gain - 0.75).abs() < 1e-9, "{}", c.gain);
        // split info over (3, 3, 2 unknown) of 8
        let si = entropy(&[3.0, 3.0, 2.0]);
        assert!((c.ratio - 0.75 / si).abs() < 1e-9);
        let f = FlatTree::from_node(&train(&d, C45Params::default()));
        assert_eq!(f.classify(&[1.0]).0, 0);
        assert_eq!(f.classify(&[2.0]).0, 1);
    }

    #[test]
    fn validate_rejects_bad_links() {
        let bad = FlatTree {
            nodes: vec![FlatNode {
                attr: 0,
                class: 0,
                value: 1.0,
                right: 0,
            }],
        };
        assert!(bad.validate(1, 1).is_err());
    }
}
