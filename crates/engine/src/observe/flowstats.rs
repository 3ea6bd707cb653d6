//! Whole-flow distributions per direction (issue 22, item 2; `--stats dist`): packet size
//! (the IP length) and inter-arrival time min / mean / max / standard deviation, and TCP flag
//! counters, as nfstream's statistical analysis gives them, computed online in constant memory
//! (Welford's update for the mean and variance).
//!
//! Behind an option: the state is 232 bytes a flow, in a table of its own indexed by the flow
//! table's slots and allocated only when asked for, so runs without it keep the 192-byte slot
//! and pay one predicted branch a packet.

use crate::classify::FlowExt;
use crate::observe::{Cx, Observer, Packet};
use bytemuck::Zeroable;
use wirespeed_export::{DirDist, DistFields, FlowRecord};
use wirespeed_flow::Flow;

/// One direction's running figures.
#[derive(Clone, Copy, Debug, Default, PartialEq, Zeroable)]
struct Dir {
    n: u64,
    size_min: u32,
    size_max: u32,
    size_mean: f64,
    size_m2: f64,
    /// Inter-arrival gaps seen (n - 1 once there are packets).
    gaps: u64,
    gap_min: u64,
    gap_max: u64,
    gap_mean: f64,
    gap_m2: f64,
    last_ts: u64,
    /// SYN, FIN, RST, PSH, ACK, URG, ECE, CWR counts.
    flags: [u32; 8],
}

impl Dir {
    #[inline]
    fn add(&mut self, ts: u64, size: u32, flags: Option<u8>) {
        self.n += 1;
        if self.n == 1 {
            self.size_min = size;
            self.size_max = size;
        } else {
            self.size_min = self.size_min.min(size);
            self.size_max = self.size_max.max(size);
            let gap = ts.saturating_sub(self.last_ts);
            self.gaps += 1;
            if self.gaps == 1 {
                self.gap_min = gap;
                self.gap_max = gap;
            } else {
                self.gap_min = self.gap_min.min(gap);
                self.gap_max = self.gap_max.max(gap);
            }
            let g = gap as f64;
            let d = g - self.gap_mean;
            self.gap_mean += d / self.gaps as f64;
            self.gap_m2 += d * (g - self.gap_mean);
        }
        self.last_ts = self.last_ts.max(ts);
        let s = f64::from(size);
        let d = s - self.size_mean;
        self.size_mean += d / self.n as f64;
        self.size_m2 += d * (s - self.size_mean);
        if let Some(f) = flags {
            // FIN 0x01, SYN 0x02, RST 0x04, PSH 0x08, ACK 0x10, URG 0x20, ECE 0x40, CWR 0x80.
            const ORDER: [u8; 8] = [0x02, 0x01, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80];
            for (c, bit) in self.flags.iter_mut().zip(ORDER) {
                *c += u32::from(f & bit != 0);
            }
        }
    }

    fn fields(&self) -> DirDist {
        // Population standard deviation, as nfstream (and numpy's default) computes it.
        let std = |m2: f64, n: u64| {
            if n > 0 {
                (m2 / n as f64).max(0.0).sqrt()
            } else {
                0.0
            }
        };
        DirDist {
            packets: self.n,
            size_min: self.size_min,
            size_mean: self.size_mean,
            size_max: self.size_max,
            size_std: std(self.size_m2, self.n),
            gaps: self.gaps,
            gap_min_us: self.gap_min as f64 / 1e3,
            gap_mean_us: self.gap_mean / 1e3,
            gap_max_us: self.gap_max as f64 / 1e3,
            gap_std_us: std(self.gap_m2, self.gaps) / 1e3,
            flags: self.flags,
        }
    }
}

/// A flow's figures; all zero (free) until a flow's packet writes it.
#[derive(Clone, Copy, Debug, PartialEq, Zeroable)]
struct Slot {
    /// The flow's serial plus one; 0 for a free slot.
    serial1: u64,
    dir: [Dir; 2],
}

/// The distributions of every flow of one worker's table.
pub(crate) struct Dist {
    slots: Vec<Slot>,
}

/// Bytes [`Dist`] reserves a flow slot.
pub(crate) const SLOT_BYTES: usize = std::mem::size_of::<Slot>();

impl Dist {
    /// Zeroed memory, so the kernel gives its pages as the flows first touch them: a table
    /// sized for `--max-flows` costs nothing at start (written slot by slot, 1 M slots took
    /// ~35 M instructions and 232 MB resident before the first packet).
    pub(crate) fn new(slots: usize) -> Self {
        Dist {
            slots: bytemuck::zeroed_vec(slots),
        }
    }
}

impl Observer for Dist {
    /// Each packet's IP length, time and TCP flags, in its direction.
    #[inline]
    fn packet(&mut self, p: &Packet<'_>, f: &Flow<FlowExt>, _cx: &mut Cx<'_>) {
        let Some(s) = self.slots.get_mut(p.slot as usize) else {
            return;
        };
        if s.serial1 != f.serial + 1 {
            *s = Slot {
                serial1: f.serial + 1,
                ..Slot::zeroed()
            };
        }
        s.dir[usize::from(!p.c2s)].add(p.ts, u32::from(p.ip_len), p.tcp.map(|t| t.flags));
    }

    /// The record's distributions.
    #[inline]
    fn ended<'r>(&'r mut self, slot: u32, f: &Flow<FlowExt>, last: bool, rec: &mut FlowRecord<'r>) {
        let Some(s) = self.slots.get_mut(slot as usize) else {
            return;
        };
        if s.serial1 != f.serial + 1 {
            return;
        }
        rec.dist = Some(DistFields {
            c2s: s.dir[0].fields(),
            s2c: s.dir[1].fields(),
        });
        if last {
            *s = Slot::zeroed();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Against the two-pass textbook figures.
    fn check(sizes: &[u32], times: &[u64]) {
        let mut d = Dir::default();
        for (s, t) in sizes.iter().zip(times) {
            d.add(*t, *s, Some(0x12));
        }
        let f = d.fields();
        let n = sizes.len() as f64;
        let mean = sizes.iter().map(|&s| f64::from(s)).sum::<f64>() / n;
        let var = sizes
            .iter()
            .map(|&s| (f64::from(s) - mean).powi(2))
            .sum::<f64>()
            / n;
        assert!((f.size_mean - mean).abs() < 1e-6 * mean.max(1.0));
        assert!((f.size_std - var.sqrt()).abs() < 1e-6 * var.sqrt().max(1.0));
        assert_eq!(f.size_min, *sizes.iter().min().unwrap());
        assert_eq!(f.size_max, *sizes.iter().max().unwrap());
        let gaps: Vec<f64> = times
            .windows(2)
            .map(|w| (w[1] - w[0]) as f64 / 1e3)
            .collect();
        if !gaps.is_empty() {
            let gm = gaps.iter().sum::<f64>() / gaps.len() as f64;
            let gv = gaps.iter().map(|g| (g - gm).powi(2)).sum::<f64>() / gaps.len() as f64;
            assert!((f.gap_mean_us - gm).abs() < 1e-6 * gm.max(1.0));
            assert!((f.gap_std_us - gv.sqrt()).abs() < 1e-5 * gv.sqrt().max(1.0));
            assert_eq!(f.gaps as usize, gaps.len());
        }
        assert_eq!(f.flags[0], sizes.len() as u32, "SYN");
        assert_eq!(f.flags[4], sizes.len() as u32, "ACK");
        assert_eq!(f.flags[1], 0, "FIN");
    }

    #[test]
    fn textbook_example() {
        // Sizes 2, 4, 4, 4, 5, 5, 7, 9: mean 5, population standard deviation 2.
        let sizes = [2, 4, 4, 4, 5, 5, 7, 9];
        let times: Vec<u64> = (0..8).map(|i| i * 1_000).collect();
        let mut d = Dir::default();
        for (s, t) in sizes.iter().zip(&times) {
            d.add(*t, *s, None);
        }
        let f = d.fields();
        assert_eq!(f.size_mean, 5.0);
        assert_eq!(f.size_std, 2.0);
        assert_eq!(
            (f.gap_min_us, f.gap_mean_us, f.gap_max_us, f.gap_std_us),
            (1.0, 1.0, 1.0, 0.0)
        );
        check(&sizes, &times);
    }

    /// DESIGN.md and SCHEMA.md give the per-flow size: a change must be a choice.
    #[test]
    fn slot_size_is_documented() {
        assert_eq!(std::mem::size_of::<Slot>(), 232);
    }

    proptest! {
        #[test]
        fn online_equals_two_pass(v in proptest::collection::vec((40u32..65_535, 0u64..10_000_000_000), 1..200)) {
            let sizes: Vec<u32> = v.iter().map(|x| x.0).collect();
            let mut t = 0u64;
            let times: Vec<u64> = v.iter().map(|x| { t += x.1; t }).collect();
            check(&sizes, &times);
        }
    }
}
