//! The address-owner table (`networks`) with the shipped list, checked against nDPI: the
//! corpus's `flows.csv` holds nDPI's owner of each flow's server address (`ip_owner`), computed
//! by nDPI's own tree from its compiled-in lists. Our list is extracted from a later nDPI, so a
//! few differences are expected; the test prints them and holds floors a little under what was
//! measured. It also prints the table's costs (build time, bytes, ns per lookup), which it does
//! not assert.

use std::collections::HashMap;
use std::hint::black_box;
use std::net::IpAddr;
use std::time::Instant;

use wirespeed_classify::networks::{Networks, NetworksBuilder};

const SHIPPED: &str = include_str!("../../../data/app_networks.csv");

/// One corpus flow: its addresses and nDPI's owner of the server's.
struct Flow {
    src: Option<IpAddr>,
    dst: Option<IpAddr>,
    owner: String,
}

fn flows(test: &str) -> Option<Vec<Flow>> {
    let corpus = wirespeed_testkit::corpus(test)?;
    let mut rdr = csv::Reader::from_path(corpus.flows_csv()).unwrap();
    let h = rdr.headers().unwrap().clone();
    let col = |n: &str| h.iter().position(|c| c == n).unwrap();
    let (src, dst, owner) = (col("src_ip"), col("dst_ip"), col("ip_owner"));
    Some(
        rdr.records()
            .map(|r| {
                let r = r.unwrap();
                Flow {
                    src: r[src].parse().ok(),
                    dst: r[dst].parse().ok(),
                    owner: r[owner].to_string(),
                }
            })
            .collect(),
    )
}

fn shipped() -> Networks {
    Networks::parse_csv(SHIPPED).unwrap()
}

fn top(m: &HashMap<(String, String), usize>, n: usize) -> Vec<String> {
    let mut v: Vec<_> = m.iter().collect();
    v.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    v.iter()
        .take(n)
        .map(|((a, b), c)| format!("{c} x nDPI {a} / ours {b}"))
        .collect()
}

/// Agreement with nDPI's `ip_owner` under one rule for which address to ask.
#[derive(Default)]
struct Score {
    /// Flows nDPI names an owner for, and of them those we name the same.
    named: usize,
    agree: usize,
    /// Flows nDPI names no owner for, and of them those we name one for.
    unknown: usize,
    we_name: usize,
    differ: HashMap<(String, String), usize>,
    extra: HashMap<(String, String), usize>,
}

impl Score {
    fn add(&mut self, ndpi: &str, ours: &str) {
        if ndpi.is_empty() || ndpi == "Unknown" {
            self.unknown += 1;
            if ours != "Unknown" {
                self.we_name += 1;
                *self
                    .extra
                    .entry(("Unknown".into(), ours.into()))
                    .or_default() += 1;
            }
        } else {
            self.named += 1;
            if ours == ndpi {
                self.agree += 1;
            } else {
                *self.differ.entry((ndpi.into(), ours.into())).or_default() += 1;
            }
        }
    }

    fn agree_pct(&self) -> f64 {
        100.0 * self.agree as f64 / self.named.max(1) as f64
    }

    fn extra_pct(&self) -> f64 {
        100.0 * self.we_name as f64 / self.unknown.max(1) as f64
    }

    fn print(&self, rule: &str) {
        println!(
            "{rule}: nDPI names an owner for {} flows, ours agrees on {} ({:.1}%); nDPI names \
             none for {}, ours names one for {} ({:.2}%)",
            self.named,
            self.agree,
            self.agree_pct(),
            self.unknown,
            self.we_name,
            self.extra_pct()
        );
        println!("  top disagreements: {:#?}", top(&self.differ, 10));
        println!(
            "  top owners nDPI does not name: {:#?}",
            top(&self.extra, 10)
        );
    }
}

/// nDPI's `ip_owner` is its guess by IP, `ndpi_guess_host_protocol_id`: the server's owner, or
/// when the server has none the client's. The corpus prints the client first when nDPI knows
/// it, so `dst_ip` is the server; in one-way flows (`->`, capture started mid-flow) it is often
/// the client, and nDPI then names the `src_ip`'s owner. Scored both ways: by `dst_ip` alone,
/// and by nDPI's rule (`dst_ip`'s owner, else `src_ip`'s).
#[test]
fn owners_agree_with_ndpi_on_the_corpus() {
    let Some(flows) = flows("owners_agree_with_ndpi_on_the_corpus") else {
        return;
    };
    let nets = shipped();
    let owner = |ip: Option<IpAddr>| ip.and_then(|ip| nets.lookup(ip));
    let name = |id: Option<_>| id.map_or("Unknown", |id| nets.owner(id).0);
    let (mut by_dst, mut by_rule, mut unreadable) = (Score::default(), Score::default(), 0);
    for f in &flows {
        if f.dst.is_none() || f.src.is_none() {
            unreadable += 1;
            continue;
        }
        by_dst.add(&f.owner, name(owner(f.dst)));
        by_rule.add(&f.owner, name(owner(f.dst).or(owner(f.src))));
    }
    println!(
        "{} flows, {unreadable} with an unreadable address",
        flows.len()
    );
    by_dst.print("dst_ip");
    by_rule.print("dst_ip, else src_ip (nDPI's rule)");
    // Measured: dst_ip 772 of 861 (89.7%; in 82 of the other 89 the dst_ip has no owner and
    // nDPI names the src_ip's, mostly in one-way flows), 0 of 6,600 named where nDPI names none; nDPI's rule 854 of 861 (99.2%:
    // nDPI's test rules `CustomProtocol*`, ntop's own address and an old Viber block are not in
    // the later list), 0 of 6,600.
    assert!(
        by_rule.named > 800,
        "the corpus changed: {} owned flows",
        by_rule.named
    );
    for (rule, s, floor) in [("dst_ip", &by_dst, 87.0), ("nDPI's rule", &by_rule, 97.5)] {
        assert!(
            s.agree_pct() >= floor,
            "{rule}: agreement with nDPI fell to {:.1}%",
            s.agree_pct()
        );
        assert!(
            s.extra_pct() <= 0.5,
            "{rule}: owners nDPI does not name rose to {:.2}%",
            s.extra_pct()
        );
    }
}

#[test]
fn costs_of_the_shipped_list() {
    let Some(flows) = flows("costs_of_the_shipped_list") else {
        return;
    };
    let t = Instant::now();
    let mut b = NetworksBuilder::new();
    let loaded = b.extend_csv(black_box(SHIPPED)).unwrap();
    let parsed = t.elapsed();
    let t = Instant::now();
    let nets = b.build();
    let built = t.elapsed();
    let (v4, v6) = nets.range_count();
    println!(
        "{} blocks, {} owners: parse {:.2} ms, build {:.2} ms; {v4} IPv4 and {v6} IPv6 ranges, \
         {} bytes",
        loaded.rows,
        nets.owner_count(),
        parsed.as_secs_f64() * 1e3,
        built.as_secs_f64() * 1e3,
        nets.memory_bytes()
    );

    let addrs: Vec<IpAddr> = flows
        .iter()
        .flat_map(|f| [f.src, f.dst])
        .flatten()
        .collect();
    let (v4, v6): (Vec<IpAddr>, Vec<IpAddr>) = addrs.iter().partition(|a| a.is_ipv4());
    // Public addresses spread over the whole IPv4 space (an xorshift sequence): most buckets of
    // the index are searched, not the few the corpus's private addresses fall in.
    let mut x = 0x2545_f491u32;
    let spread: Vec<IpAddr> = (0..16_384)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            IpAddr::from(std::net::Ipv4Addr::from(x))
        })
        .collect();
    let one = [addrs[addrs.len() / 2]];
    for (what, set) in [
        ("the corpus's addresses", &addrs[..]),
        ("the corpus's IPv4 addresses", &v4[..]),
        ("the corpus's IPv6 addresses", &v6[..]),
        ("random IPv4 addresses", &spread[..]),
        ("one address again and again", &one[..]),
    ] {
        let owned = set.iter().filter(|&&a| nets.lookup(a).is_some()).count();
        let rounds = 3_000_000 / set.len();
        let t = Instant::now();
        let mut hits = 0usize;
        for _ in 0..rounds {
            for &a in set {
                hits += usize::from(nets.lookup(black_box(a)).is_some());
            }
        }
        let ns = t.elapsed().as_secs_f64() * 1e9 / (rounds * set.len()) as f64;
        println!(
            "lookup: {ns:.1} ns over {what} ({} addresses, {owned} owned)",
            set.len()
        );
        assert_eq!(hits, owned * rounds);
    }
}
