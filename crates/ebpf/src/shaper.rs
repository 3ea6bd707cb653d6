//! The shaper of rate-limited flows: on each egress interface an HTB qdisc (handle
//! [`SHAPER_HANDLE`]) with one class per rate (minor 1..=127, rate = ceil = the rule's) and an
//! fq_codel leaf under each where the kernel has it (its flows share the rate fairly; else a
//! 1,000-packet FIFO). No filter: the verdict program writes the class into the mark's top byte
//! on ingress ([`crate::Verdict::Class`]), and the classifier program on egress
//! (`Datapath::attach_classifier`) turns it into `skb->priority` = handle:class, which HTB
//! takes as the class (kernels built without the fw and u32-mark classifiers work too).
//! Everything else takes HTB's direct queue (`default 0`): sent at once, not shaped, never
//! counted against a rate (fail-open: no verdict, no limit).
//!
//! Through `tc` (iproute2) rather than netlink: no netlink crate that builds HTB qdiscs and
//! classes is in the dependency tree (aya's netlink is private to its clsact code), and `tc` is
//! there wherever the eBPF path runs (Debian's iproute2). Each call's stderr is in the error.

use crate::Error;
use std::process::Command;

/// The HTB qdisc's handle (major number): one wirespeed recognises as its own, left behind by a
/// run that was killed (`kill -9`), and replaces; any other root qdisc but the kernel's default
/// (handle 0) makes [`Shaper::install`] refuse.
pub const SHAPER_HANDLE: u16 = 0x5753;

/// One rate: packets marked `class` (1..=[`crate::MAX_CLASS`]) leave each interface at most at
/// `rate_bps` bits per second, in bursts of up to `burst_bytes` at line rate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShapeClass {
    /// The class minor and the mark's top byte.
    pub class: u8,
    /// Bits per second (rate and ceil).
    pub rate_bps: u64,
    /// The bucket's depth in bytes (HTB's `burst` and `cburst`).
    pub burst_bytes: u64,
}

fn tc(args: &[&str]) -> Result<String, Error> {
    let out = Command::new("tc").args(args).output().map_err(|e| {
        Error(format!(
            "running `tc {}`: {e} (rate limits on the eBPF data path need iproute2's tc)",
            args.join(" ")
        ))
    })?;
    if !out.status.success() {
        return Err(Error(format!(
            "`tc {}` failed ({}): {}",
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// What is the root of an interface's egress now.
#[derive(Debug, PartialEq, Eq)]
enum Root {
    /// The kernel's default (handle `0:`, or none: `noqueue`, `pfifo_fast`, `mq`, ...).
    Default,
    /// Ours (HTB at [`SHAPER_HANDLE`]), left by an earlier run.
    Ours,
    /// Someone else's: its kind and handle.
    Foreign(String, String),
}

fn handle() -> String {
    format!("{SHAPER_HANDLE:x}:")
}

/// The root qdisc of `iface` from `tc qdisc show dev IF root` (`qdisc KIND HANDLE root ...`).
fn root_of(iface: &str) -> Result<Root, Error> {
    let out = tc(&["qdisc", "show", "dev", iface, "root"])?;
    Ok(parse_root(&out))
}

fn parse_root(out: &str) -> Root {
    for line in out.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        if w.first() != Some(&"qdisc") || !w.contains(&"root") {
            continue;
        }
        let (kind, h) = (
            w.get(1).copied().unwrap_or(""),
            w.get(2).copied().unwrap_or(""),
        );
        return if h == "0:" {
            Root::Default
        } else if kind == "htb" && h == handle() {
            Root::Ours
        } else {
            Root::Foreign(kind.to_string(), h.to_string())
        };
    }
    Root::Default
}

/// The HTB qdiscs wirespeed put on its interfaces' egress; dropping it removes them (if still
/// ours), and the kernel puts its default qdisc back.
pub struct Shaper {
    ifaces: Vec<String>,
    /// Interfaces whose qdisc is installed (all of `ifaces`, or none while no class is wanted).
    installed: Vec<String>,
    classes: Vec<ShapeClass>,
}

impl Shaper {
    /// For `ifaces`: installs the HTB qdisc when `classes` is not empty, refusing (a clear error
    /// naming it) an interface whose root qdisc is someone else's; else nothing until the
    /// first [`Shaper::update`] that brings a class (a policy without rate limits costs the
    /// traffic nothing and leaves any root qdisc alone).
    pub fn install(ifaces: &[String], classes: &[ShapeClass]) -> Result<Shaper, Error> {
        let mut s = Shaper {
            ifaces: ifaces.to_vec(),
            installed: Vec::new(),
            classes: Vec::new(),
        };
        s.update(classes)?;
        Ok(s)
    }

    /// Refuse interfaces whose root qdisc is not the kernel's default nor ours.
    fn check(ifaces: &[String]) -> Result<(), Error> {
        for i in ifaces {
            if let Root::Foreign(kind, h) = root_of(i)? {
                return Err(Error(format!(
                    "{i}: its egress root qdisc is {kind} {h}, not wirespeed's; rate limits on \
                     the eBPF data path put an HTB qdisc ({}) there and will not replace another \
                     one (remove it: `tc qdisc del dev {i} root`, or use --datapath nfqueue)",
                    handle()
                )));
            }
        }
        Ok(())
    }

    fn install_qdisc(&mut self) -> Result<(), Error> {
        Self::check(&self.ifaces)?;
        let h = handle();
        for i in self.ifaces.clone() {
            if root_of(&i)? == Root::Ours {
                // A killed run's: its classes go with it.
                tc(&["qdisc", "del", "dev", &i, "root"])?;
            }
            // `add`, not `replace`: one that appeared since the check is not overwritten.
            tc(&[
                "qdisc",
                "add",
                "dev",
                &i,
                "root",
                "handle",
                &h,
                "htb",
                "default",
                "0",
                "direct_qlen",
                "1000",
            ])?;
            self.installed.push(i);
        }
        Ok(())
    }

    /// Make the classes `classes` (replacing rates that changed, removing classes no longer
    /// wanted). On failure some interfaces may have the new classes and others the old.
    pub fn update(&mut self, classes: &[ShapeClass]) -> Result<(), Error> {
        if classes.is_empty() && self.installed.is_empty() {
            return Ok(());
        }
        if self.installed.is_empty() {
            self.install_qdisc()?;
        }
        let h = handle();
        for i in self.installed.clone() {
            for old in &self.classes {
                if classes.iter().any(|c| c.class == old.class) {
                    continue;
                }
                let id = format!("{h}{:x}", old.class);
                tc(&["class", "del", "dev", &i, "classid", &id])?;
            }
            for c in classes {
                let id = format!("{h}{:x}", c.class);
                let rate = format!("{}bit", c.rate_bps.max(8));
                let burst = c.burst_bytes.max(1600).to_string();
                // HTB's quantum only weighs classes that share a parent (these do not); set to
                // keep it from warning that the rate's tenth is too big.
                let quantum = (c.rate_bps / 80).clamp(1514, 200_000).to_string();
                let existed = self.classes.iter().any(|o| o.class == c.class);
                tc(&[
                    "class", "replace", "dev", &i, "parent", &h, "classid", &id, "htb", "rate",
                    &rate, "ceil", &rate, "burst", &burst, "cburst", &burst, "quantum", &quantum,
                ])?;
                if !existed {
                    // fq_codel where the kernel has it; else a FIFO of 1,000 packets (HTB's own
                    // default leaf would take the interface's queue length, 0 on some).
                    let leaf = |kind: &[&str]| {
                        let mut a = vec!["qdisc", "replace", "dev", &i, "parent", &id];
                        a.extend_from_slice(kind);
                        tc(&a)
                    };
                    if leaf(&["fq_codel"]).is_err() {
                        leaf(&["pfifo", "limit", "1000"])?;
                    }
                }
            }
        }
        self.classes = classes.to_vec();
        Ok(())
    }

    /// The interfaces whose egress carries the shaper now.
    pub fn installed(&self) -> &[String] {
        &self.installed
    }

    /// Remove the qdiscs (each only if still ours); the first failure is returned, the others
    /// are still tried.
    pub fn remove(&mut self) -> Result<(), Error> {
        let mut first = Ok(());
        for i in std::mem::take(&mut self.installed) {
            let r = match root_of(&i) {
                Ok(Root::Ours) => tc(&["qdisc", "del", "dev", &i, "root"]).map(|_| ()),
                Ok(_) => Ok(()),
                // The interface went (a veth whose namespace is gone): nothing to remove.
                Err(_) if !std::path::Path::new("/sys/class/net").join(&i).exists() => Ok(()),
                Err(e) => Err(e),
            };
            if first.is_ok() {
                first = r;
            }
        }
        self.classes.clear();
        first
    }
}

impl Drop for Shaper {
    fn drop(&mut self) {
        let _ = self.remove();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roots() {
        assert_eq!(parse_root(""), Root::Default);
        assert_eq!(
            parse_root("qdisc noqueue 0: root refcnt 2 \n"),
            Root::Default
        );
        assert_eq!(
            parse_root("qdisc mq 0: root \nqdisc fq_codel 0: parent :1 limit 10240p\n"),
            Root::Default
        );
        assert_eq!(
            parse_root("qdisc htb 5753: root refcnt 2 r2q 10 default 0 direct_qlen 1000\n"),
            Root::Ours
        );
        assert_eq!(
            parse_root("qdisc htb 1: root refcnt 2 r2q 10 default 0x10\n"),
            Root::Foreign("htb".into(), "1:".into())
        );
        assert_eq!(
            parse_root("qdisc fq_codel 8001: root refcnt 2 limit 10240p\n"),
            Root::Foreign("fq_codel".into(), "8001:".into())
        );
    }

    #[test]
    fn handle_is_the_one_the_classifier_writes() {
        assert_eq!(handle(), "5753:");
        let c = include_str!("../bpf/verdict.c");
        assert!(c.contains("#define SHAPER_HANDLE 0x5753"));
    }
}
