//! The loader: `bpf/verdict.c`, compiled by `build.rs`, loaded with `aya` (user space only; the
//! program is C built by Debian's clang, so no nightly Rust and no BPF Rust toolchain).

use crate::{Counters, FlowKey, Verdict};
use aya::maps::{Array, HashMap, MapData, PerCpuArray, RingBuf};
use aya::programs::tc::{
    self, NlOptions, SchedClassifierLinkId, TcAttachOptions, TcAttachType, TcError,
};
use aya::programs::{LinkOrder, ProgramError, SchedClassifier, SocketFilter};
use aya::util::KernelVersion;
use aya::Ebpf;
use std::fmt;
use std::time::Duration;

/// The BPF object (ELF) of `bpf/verdict.c`, as clang built it for this build.
pub static OBJECT: &[u8] = aya::include_bytes_aligned!(concat!(env!("OUT_DIR"), "/verdict.o"));

const PROGRAM: &str = "wirespeed_verdict";
/// The shaper's classifier (mark's top byte -> skb->priority, on egress).
const CLASSIFIER: &str = "wirespeed_class";
const COPY_FILTER: &str = "wirespeed_copy";

/// Where on an interface the program runs (its clsact/tcx hook).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Hook {
    /// Packets arriving on the interface, before routing.
    Ingress,
    /// Packets leaving it.
    Egress,
}

impl Hook {
    fn tc(self) -> TcAttachType {
        match self {
            Hook::Ingress => TcAttachType::Ingress,
            Hook::Egress => TcAttachType::Egress,
        }
    }
}

/// How the program is attached to an interface's hook.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Attach {
    /// tcx from Linux 6.6, the clsact qdisc before.
    Auto,
    /// tcx links (Linux 6.6 and later).
    Tcx,
    /// A direct-action filter on the clsact qdisc (netlink; every kernel since 4.5).
    Clsact,
}

/// What went wrong, with the kernel's words (and the verifier's log when it refused).
#[derive(Debug)]
pub struct Error(pub(crate) String);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

fn err(what: &str, e: impl fmt::Display) -> Error {
    Error(format!("{what}: {e}"))
}

pub(crate) fn prog_err(what: &str, e: ProgramError) -> Error {
    match e {
        ProgramError::LoadError {
            io_error,
            verifier_log,
        } => Error(format!("{what}: {io_error}; verifier log:\n{verifier_log}")),
        e => err(what, e),
    }
}

/// The loaded program, its maps and its attachments. Dropping it detaches the program from
/// every interface and frees the maps (aya owns the links and file descriptors); see
/// [`Datapath::attach_with`] for the namespace to drop it in.
pub struct Datapath {
    verdicts: HashMap<MapData, [u8; 40], [u8; 16]>,
    counters: PerCpuArray<MapData, u64>,
    /// (interface, hook, program name, link).
    links: Vec<(String, Hook, &'static str, SchedClassifierLinkId)>,
    // Last: the maps above are taken out of it, the program and its links stay in it.
    bpf: Ebpf,
}

/// One of the object's tc programs.
fn program<'a>(bpf: &'a mut Ebpf, name: &str) -> Result<&'a mut SchedClassifier, Error> {
    bpf.program_mut(name)
        .ok_or_else(|| Error(format!("no program {name} in the object")))?
        .try_into()
        .map_err(|e| prog_err("the program's type", e))
}

impl Datapath {
    /// Load the program (the kernel's verifier checks it here) and create its maps.
    /// Needs CAP_BPF and CAP_NET_ADMIN (root).
    pub fn load() -> Result<Datapath, Error> {
        Datapath::load_copying(RingCopy::Off)
    }

    /// [`load`](Self::load), with the verdict program also copying packets into its ring
    /// buffer as `copy` says (read them with [`take_copies`](Self::take_copies)).
    pub fn load_copying(copy: RingCopy) -> Result<Datapath, Error> {
        Datapath::load_with(copy, None)
    }

    /// [`load_copying`](Self::load_copying), and with `failopen` the program applies a
    /// verdict other than pass only while user space's last heartbeat
    /// ([`take_heartbeat`](Self::take_heartbeat)) is at most that old: when this process is
    /// killed, stopped or hung, its flows pass within `failopen` (plus the coarse clock's
    /// tick), not when the kernel gets round to closing its descriptors. None: verdicts hold as
    /// long as the program is attached.
    pub fn load_with(copy: RingCopy, failopen: Option<Duration>) -> Result<Datapath, Error> {
        let mode: u32 = match copy {
            RingCopy::Off => 0,
            RingCopy::All => 1,
            RingCopy::Undecided => 2,
        };
        let failopen_ns: u64 = failopen
            .map(|d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX).max(1))
            .unwrap_or(0);
        let mut bpf = aya::EbpfLoader::new()
            .override_global("copy_mode", &mode, true)
            .override_global("failopen_ns", &failopen_ns, true)
            .load(OBJECT)
            .map_err(|e| err("loading the BPF object", e))?;
        for name in [PROGRAM, CLASSIFIER] {
            program(&mut bpf, name)?
                .load()
                .map_err(|e| prog_err(&format!("the kernel refused the program {name}"), e))?;
        }
        let copy: &mut SocketFilter = bpf
            .program_mut(COPY_FILTER)
            .ok_or_else(|| Error(format!("no program {COPY_FILTER} in the object")))?
            .try_into()
            .map_err(|e| prog_err("the copy filter's type", e))?;
        copy.load()
            .map_err(|e| prog_err(&format!("the kernel refused the program {COPY_FILTER}"), e))?;
        let verdicts = bpf
            .take_map("VERDICTS")
            .ok_or_else(|| Error("no map VERDICTS in the object".into()))?;
        let verdicts = HashMap::try_from(verdicts).map_err(|e| err("the map VERDICTS", e))?;
        let counters = bpf
            .take_map("COUNTERS")
            .ok_or_else(|| Error("no map COUNTERS in the object".into()))?;
        let counters = PerCpuArray::try_from(counters).map_err(|e| err("the map COUNTERS", e))?;
        Ok(Datapath {
            verdicts,
            counters,
            links: Vec::new(),
            bpf,
        })
    }

    /// The ring buffer the verdict program copies packets into (loaded with
    /// [`load_copying`](Self::load_copying)); once: a second call is an error.
    pub fn take_copies(&mut self) -> Result<Copies, Error> {
        let map = self
            .bpf
            .take_map("COPIES")
            .ok_or_else(|| Error("the ring buffer COPIES was taken already".into()))?;
        let ring = RingBuf::try_from(map).map_err(|e| err("the map COPIES", e))?;
        Ok(Copies { ring })
    }

    /// The heartbeat that keeps verdicts applied when loaded with a fail-open time
    /// ([`load_with`](Self::load_with)); once: a second call is an error.
    pub fn take_heartbeat(&mut self) -> Result<Heartbeat, Error> {
        let map = self
            .bpf
            .take_map("ALIVE")
            .ok_or_else(|| Error("the heartbeat ALIVE was taken already".into()))?;
        let alive = Array::try_from(map).map_err(|e| err("the map ALIVE", e))?;
        Ok(Heartbeat { alive })
    }

    /// Run the program at `hook` of interface `iface` (in this thread's network namespace),
    /// the way the kernel offers ([`Attach::Auto`]).
    pub fn attach(&mut self, iface: &str, hook: Hook) -> Result<(), Error> {
        self.attach_with(iface, hook, Attach::Auto)
    }

    /// [`Datapath::attach`] through a chosen mechanism. [`Attach::Clsact`] adds the clsact
    /// qdisc when the interface has none, and leaves it there when the program is detached
    /// (other filters may use it). A clsact filter is found again by its interface's index:
    /// detach and drop in the network namespace it was attached in (tcx links have no such
    /// need).
    pub fn attach_with(&mut self, iface: &str, hook: Hook, how: Attach) -> Result<(), Error> {
        self.attach_program(PROGRAM, iface, hook, how)
    }

    /// Run the shaper's classifier on the egress of `iface`: a packet the verdict program
    /// marked for a rate limit's class (on whichever interface it came in) gets the priority
    /// that puts it in that class of the HTB qdisc there (`Shaper`). Detached with the others
    /// when the `Datapath` is dropped.
    pub fn attach_classifier(&mut self, iface: &str) -> Result<(), Error> {
        self.attach_program(CLASSIFIER, iface, Hook::Egress, Attach::Auto)
    }

    fn attach_program(
        &mut self,
        name: &'static str,
        iface: &str,
        hook: Hook,
        how: Attach,
    ) -> Result<(), Error> {
        let tcx = match how {
            Attach::Tcx => true,
            Attach::Clsact => false,
            Attach::Auto => KernelVersion::current()
                .map(|v| v >= KernelVersion::new(6, 6, 0))
                .unwrap_or(false),
        };
        if !tcx {
            match tc::qdisc_add_clsact(iface) {
                Ok(()) | Err(TcError::AlreadyAttached) => {}
                Err(TcError::IoError(e)) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(TcError::NetlinkError(e))
                    if e.raw_os_error()
                        .map(std::io::Error::from_raw_os_error)
                        .map(|e| e.kind())
                        == Some(std::io::ErrorKind::AlreadyExists) => {}
                Err(e) => return Err(err(&format!("adding clsact to {iface}"), e)),
            }
        }
        let options = if tcx {
            TcAttachOptions::TcxOrder(LinkOrder::default())
        } else {
            TcAttachOptions::Netlink(NlOptions::default())
        };
        let prog = program(&mut self.bpf, name)?;
        let id = prog
            .attach_with_options(iface, hook.tc(), options)
            .map_err(|e| prog_err(&format!("attaching {name} to {iface} {hook:?}"), e))?;
        self.links.push((iface.to_string(), hook, name, id));
        Ok(())
    }

    /// Whether a program by this crate's name already runs at `hook` of `iface` through tcx
    /// (another `wirespeed inline --datapath ebpf` on the interface, whose verdicts would mix
    /// with ours): the kernel's list of the hook's tcx programs, by name (the kernel keeps its
    /// first 15 bytes). False where tcx is not there (before Linux 6.6; a clsact filter is not
    /// looked for).
    pub fn attached_elsewhere(iface: &str, hook: Hook) -> Result<bool, Error> {
        let tcx = KernelVersion::current()
            .map(|v| v >= KernelVersion::new(6, 6, 0))
            .unwrap_or(false);
        if !tcx {
            return Ok(false);
        }
        let (_, progs) = SchedClassifier::query_tcx(iface, hook.tc())
            .map_err(|e| prog_err(&format!("listing the programs at {iface} {hook:?}"), e))?;
        Ok(progs.iter().any(|p| {
            let name = p.name();
            !name.is_empty() && PROGRAM.as_bytes().starts_with(name)
        }))
    }

    /// Stop running the program at `hook` of `iface`. False if it was not attached there.
    /// A tcx link goes when its last descriptor closes: a child process forked meanwhile (and
    /// not yet executing its program, which closes the descriptor) delays that.
    pub fn detach(&mut self, iface: &str, hook: Hook) -> Result<bool, Error> {
        let Some(i) = self
            .links
            .iter()
            .position(|(n, h, p, _)| n == iface && *h == hook && *p == PROGRAM)
        else {
            return Ok(false);
        };
        let (_, _, _, id) = self.links.swap_remove(i);
        let prog = program(&mut self.bpf, PROGRAM)?;
        prog.detach(id)
            .map_err(|e| prog_err(&format!("detaching from {iface} {hook:?}"), e))?;
        Ok(true)
    }

    /// Set (or replace) a flow's verdict; both directions of the flow take it.
    pub fn set(&mut self, key: &FlowKey, verdict: Verdict) -> Result<(), Error> {
        self.verdicts
            .insert(key.to_bytes(), verdict.to_bytes(), 0)
            .map_err(|e| err("writing a verdict", e))
    }

    /// Remove a flow's verdict (its packets pass again). False if it had none.
    pub fn remove(&mut self, key: &FlowKey) -> Result<bool, Error> {
        match self.verdicts.remove(&key.to_bytes()) {
            Ok(()) => Ok(true),
            Err(aya::maps::MapError::KeyNotFound) => Ok(false),
            Err(aya::maps::MapError::SyscallError(s))
                if s.io_error.kind() == std::io::ErrorKind::NotFound =>
            {
                Ok(false)
            }
            Err(e) => Err(err("removing a verdict", e)),
        }
    }

    /// How many flows have a verdict now (a walk over the map: for tests and status, not per
    /// packet).
    pub fn flows(&self) -> Result<usize, Error> {
        let mut n = 0;
        for k in self.verdicts.keys() {
            k.map_err(|e| err("walking the verdicts", e))?;
            n += 1;
        }
        Ok(n)
    }

    /// Attach the copy filter to `socket`, an AF_PACKET socket of the capture (type SOCK_RAW,
    /// so the filter reads the frame from its Ethernet header): from then on the kernel copies
    /// into it only the packets of flows with no verdict in the map, TCP packets with SYN, FIN
    /// or RST, and one packet a second of each decided flow (which keeps the flow open in the
    /// capture: see `bpf/verdict.c`). It replaces any filter the socket had; the socket holds
    /// the program, so it stays as long as the socket does.
    pub fn attach_copy_filter(&self, socket: std::os::fd::BorrowedFd<'_>) -> Result<(), Error> {
        let copy: &SocketFilter = self
            .bpf
            .program(COPY_FILTER)
            .ok_or_else(|| Error(format!("no program {COPY_FILTER} in the object")))?
            .try_into()
            .map_err(|e| prog_err("the copy filter's type", e))?;
        copy.attach(socket)
            .map_err(|e| prog_err("attaching the copy filter to a capture socket", e))
    }

    /// The packet counters, summed over the CPUs.
    pub fn counters(&self) -> Result<Counters, Error> {
        let mut v = [0u64; 11];
        for (slot, out) in v.iter_mut().enumerate() {
            let per_cpu = self
                .counters
                .get(&(slot as u32), 0)
                .map_err(|e| err("reading the counters", e))?;
            *out = per_cpu.iter().sum();
        }
        Ok(Counters {
            no_entry: v[0],
            pass: v[1],
            drop: v[2],
            dscp: v[3],
            not_ip: v[4],
            class: v[5],
            copy_skipped: v[6],
            copy_skipped_bytes: v[7],
            copy_lost: v[8],
            copied: v[9],
            stale: v[10],
        })
    }
}

/// User space's heartbeat, which the program reads before applying a verdict (see
/// [`Datapath::load_with`]).
pub struct Heartbeat {
    alive: Array<MapData, u64>,
}

impl Heartbeat {
    /// Tell the program this process is alive at `coarse_now_ns`, which must be read from
    /// `CLOCK_MONOTONIC_COARSE` (the clock the program reads; this crate has no `unsafe`, so
    /// the caller reads it). One system call; call it several times within the fail-open
    /// time.
    pub fn beat(&mut self, coarse_now_ns: u64) -> Result<(), Error> {
        self.alive
            .set(0, coarse_now_ns, 0)
            .map_err(|e| err("writing the heartbeat", e))
    }
}

/// What the verdict program copies into its ring buffer (`copy_mode` in `bpf/verdict.c`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RingCopy {
    /// Nothing (the capture is a packet socket's).
    Off,
    /// Every packet.
    All,
    /// An undecided flow's packets, TCP SYN/FIN/RST, and one packet a second of a decided flow
    /// (the copy filter's rule).
    Undecided,
}

/// The header of a copy in the ring (`struct copy` of `bpf/verdict.c`), then `caplen` bytes.
pub const COPY_HEADER: usize = 24;

/// The verdict program's ring buffer of copied packets.
pub struct Copies {
    ring: RingBuf<MapData>,
}

/// One copied packet.
#[derive(Clone, Copy, Debug)]
pub struct Copy<'a> {
    /// When the program copied it: `CLOCK_MONOTONIC`, ns.
    pub mono_ns: u64,
    /// The packet's length.
    pub len: u32,
    /// The interface it arrived on.
    pub ifindex: u32,
    /// Its first bytes (from the Ethernet header).
    pub data: &'a [u8],
}

impl Copies {
    /// Hand each copy in the ring to `f`, up to `max`; returns how many. A record too short for
    /// its header or its length (none the program writes) is skipped.
    pub fn drain(&mut self, max: usize, f: &mut dyn FnMut(Copy<'_>)) -> usize {
        let mut n = 0;
        while n < max {
            let Some(item) = self.ring.next() else {
                break;
            };
            n += 1;
            let b: &[u8] = &item;
            let word = |at: usize| -> Option<u32> {
                Some(u32::from_ne_bytes(b.get(at..at + 4)?.try_into().ok()?))
            };
            let (Some(ts), Some(len), Some(caplen), Some(ifindex)) = (
                b.get(..8)
                    .and_then(|x| x.try_into().ok())
                    .map(u64::from_ne_bytes),
                word(8),
                word(12),
                word(16),
            ) else {
                continue;
            };
            let Some(data) = b.get(COPY_HEADER..COPY_HEADER + caplen as usize) else {
                continue;
            };
            f(Copy {
                mono_ns: ts,
                len,
                ifindex,
                data,
            });
        }
        n
    }
}

impl std::os::fd::AsFd for Copies {
    fn as_fd(&self) -> std::os::fd::BorrowedFd<'_> {
        self.ring.as_fd()
    }
}
