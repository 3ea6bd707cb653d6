//! Token buckets: a rate in bits or packets per second and a burst, policed (a packet that finds
//! too few tokens is dropped, none is delayed: the organizer holds no packets).

use std::fmt;

/// What a rate counts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Rate {
    /// Bits per second (a packet costs its IP length × 8).
    Bits(f64),
    /// Packets per second (a packet costs 1).
    Packets(f64),
}

impl Rate {
    /// Parse `10mbit`, `512kbit`, `1gbit`, `100bit`, `2mbps` (bytes per second, as tc(8) reads
    /// `mbps`: ×8), `1000pps`, `5kpps`; decimal prefixes (k = 1,000), as tc(8) reads `kbit`.
    pub fn parse(s: &str) -> Option<Rate> {
        let t = s.trim().to_ascii_lowercase();
        let split = t
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(t.len());
        let (num, unit) = t.split_at(split);
        let n: f64 = num.parse().ok()?;
        if !n.is_finite() || n <= 0.0 {
            return None;
        }
        let unit = unit.trim();
        let (mult, rest) = match unit.as_bytes().first() {
            Some(b'k') => (1e3, &unit[1..]),
            Some(b'm') => (1e6, &unit[1..]),
            Some(b'g') => (1e9, &unit[1..]),
            _ => (1.0, unit),
        };
        match rest {
            "bit" => Some(Rate::Bits(n * mult)),
            "bps" => Some(Rate::Bits(n * mult * 8.0)),
            "pps" => Some(Rate::Packets(n * mult)),
            _ => None,
        }
    }

    /// What one packet of `ip_len` bytes costs in this rate's unit.
    #[inline]
    pub fn cost(self, ip_len: u32) -> f64 {
        match self {
            Rate::Bits(_) => f64::from(ip_len) * 8.0,
            Rate::Packets(_) => 1.0,
        }
    }

    /// Units per second.
    #[inline]
    pub fn per_second(self) -> f64 {
        match self {
            Rate::Bits(r) | Rate::Packets(r) => r,
        }
    }

    /// The default burst: a tenth of a second of the rate, and never less than two 1,500-byte
    /// packets (or two packets), so a rate below a packet per tenth of a second still passes
    /// packets.
    pub fn default_burst(self) -> f64 {
        match self {
            Rate::Bits(r) => (r / 10.0).max(2.0 * 1500.0 * 8.0),
            Rate::Packets(r) => (r / 10.0).max(2.0),
        }
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Rate::Bits(r) if r >= 1e9 => write!(f, "{}gbit", r / 1e9),
            Rate::Bits(r) if r >= 1e6 => write!(f, "{}mbit", r / 1e6),
            Rate::Bits(r) if r >= 1e3 => write!(f, "{}kbit", r / 1e3),
            Rate::Bits(r) => write!(f, "{r}bit"),
            Rate::Packets(r) => write!(f, "{r}pps"),
        }
    }
}

/// One bucket: `tokens` fill at the rate up to `burst`; a packet passes if it finds its cost.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bucket {
    tokens: f64,
    last_ns: u64,
}

impl Bucket {
    /// An empty bucket at time 0 (filled when its rule first decides a flow).
    pub const EMPTY: Bucket = Bucket {
        tokens: 0.0,
        last_ns: 0,
    };

    /// A full bucket at time `now_ns`.
    pub fn full(burst: f64, now_ns: u64) -> Self {
        Bucket {
            tokens: burst,
            last_ns: now_ns,
        }
    }

    /// Take `cost` at time `now_ns` if the bucket holds it (after refilling for the time
    /// since the last packet; a clock that goes back refills nothing). True: the packet
    /// conforms.
    #[inline]
    pub fn take(&mut self, rate: Rate, burst: f64, cost: f64, now_ns: u64) -> bool {
        let dt = now_ns.saturating_sub(self.last_ns);
        self.last_ns = self.last_ns.max(now_ns);
        self.tokens = (self.tokens + dt as f64 * rate.per_second() / 1e9).min(burst);
        if self.tokens >= cost {
            self.tokens -= cost;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn parses_rates() {
        assert_eq!(Rate::parse("10mbit"), Some(Rate::Bits(10e6)));
        assert_eq!(Rate::parse("512kbit"), Some(Rate::Bits(512e3)));
        assert_eq!(Rate::parse("1.5Gbit"), Some(Rate::Bits(1.5e9)));
        assert_eq!(Rate::parse("2mbps"), Some(Rate::Bits(16e6)));
        assert_eq!(Rate::parse("1000pps"), Some(Rate::Packets(1000.0)));
        assert_eq!(Rate::parse("5kpps"), Some(Rate::Packets(5000.0)));
        assert_eq!(Rate::parse("0mbit"), None);
        assert_eq!(Rate::parse("10"), None);
        assert_eq!(Rate::parse("fast"), None);
        assert_eq!(Rate::parse("10 mbit"), Some(Rate::Bits(10e6)));
        assert_eq!(Rate::Bits(10e6).to_string(), "10mbit");
    }

    /// Over a long run the bucket passes the rate (plus the burst), whatever is offered above it.
    #[test]
    fn passes_the_rate() {
        let rate = Rate::Bits(8e6); // 1 MB/s
        let burst = rate.default_burst();
        let mut b = Bucket::full(burst, 0);
        let mut passed = 0u64;
        // 10 s of 1,000-byte packets every 100 µs: 10 MB/s offered.
        for i in 0..100_000u64 {
            if b.take(rate, burst, rate.cost(1000), i * 100_000) {
                passed += 1000;
            }
        }
        let want = 10.0 * 1e6 + burst / 8.0;
        assert!(
            (passed as f64 - want).abs() <= 1000.0,
            "passed {passed}, want {want}"
        );
    }

    proptest! {
        /// Never more than rate × time + burst passes, for any arrival pattern.
        #[test]
        fn never_more_than_rate_and_burst(gaps in proptest::collection::vec(0u64..5_000_000, 1..400),
                                          sizes in proptest::collection::vec(40u32..1500, 1..400),
                                          r in 1e3f64..1e8) {
            let rate = Rate::Bits(r);
            let burst = rate.default_burst();
            let mut b = Bucket::full(burst, 0);
            let (mut t, mut passed) = (0u64, 0f64);
            for (g, s) in gaps.iter().zip(sizes.iter().cycle()) {
                t += g;
                if b.take(rate, burst, rate.cost(*s), t) {
                    passed += rate.cost(*s);
                }
            }
            prop_assert!(passed <= r * t as f64 / 1e9 + burst + 1e-6);
        }
    }
}
