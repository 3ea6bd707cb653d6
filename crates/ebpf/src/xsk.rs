//! The AF_XDP capture's program (`bpf/xsk.c`): an XDP program on each interface of `live
//! --capture xdp` that redirects every frame to the XDP socket of its receive queue. The
//! sockets themselves (their memory and rings) are `wirespeed-live`'s (`sys::XskSocket`);
//! this side loads the program, attaches it, and puts each socket in the program's map.

use crate::datapath::{prog_err, Error};
use aya::maps::{HashMap, MapData, PerCpuArray, XskMap};
use aya::programs::{Xdp, XdpMode};
use aya::Ebpf;
use std::os::fd::AsRawFd;

/// The BPF object (ELF) of `bpf/xsk.c`, as clang built it for this build.
pub static XSK_OBJECT: &[u8] = aya::include_bytes_aligned!(concat!(env!("OUT_DIR"), "/xsk.o"));

const PROGRAM: &str = "wirespeed_xsk";

/// Sockets the program's map holds, over all interfaces and queues (`XSKS` in `bpf/xsk.c`).
pub const MAX_SOCKETS: u32 = 1024;

/// The magic word the program writes into a frame's metadata beside its time
/// (`XSK_MAGIC` in `bpf/xsk.c`).
pub const XSK_MAGIC: u64 = 0x7773_7864_7074_6d31;

/// How the program runs on an interface.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum XdpAttach {
    /// In the driver (native XDP: veth, most 10G+ drivers).
    Driver,
    /// In the kernel's stack after the driver (generic XDP: any interface, slower).
    Generic,
}

/// The loaded program and its maps; dropping it detaches the program from every interface.
pub struct XskCapture {
    sockets: XskMap<MapData>,
    bases: HashMap<MapData, u32, u32>,
    seen: PerCpuArray<MapData, u64>,
    /// The next free slot of `sockets`.
    next: u32,
    bpf: Ebpf,
}

impl XskCapture {
    /// Load the program (the kernel's verifier checks it here) and create its maps. Needs
    /// CAP_BPF and CAP_NET_ADMIN (root).
    pub fn load() -> Result<XskCapture, Error> {
        let mut bpf = Ebpf::load(XSK_OBJECT)
            .map_err(|e| Error(format!("loading the XDP capture's BPF object: {e}")))?;
        let prog: &mut Xdp = bpf
            .program_mut(PROGRAM)
            .ok_or_else(|| Error(format!("no program {PROGRAM} in the object")))?
            .try_into()
            .map_err(|e| prog_err("the program's type", e))?;
        prog.load()
            .map_err(|e| prog_err(&format!("the kernel refused the program {PROGRAM}"), e))?;
        let take = |bpf: &mut Ebpf, name: &str| {
            bpf.take_map(name)
                .ok_or_else(|| Error(format!("no map {name} in the object")))
        };
        let sockets = XskMap::try_from(take(&mut bpf, "XSKS")?)
            .map_err(|e| Error(format!("the map XSKS: {e}")))?;
        let bases = HashMap::try_from(take(&mut bpf, "BASES")?)
            .map_err(|e| Error(format!("the map BASES: {e}")))?;
        let seen = PerCpuArray::try_from(take(&mut bpf, "SEEN")?)
            .map_err(|e| Error(format!("the map SEEN: {e}")))?;
        Ok(XskCapture {
            sockets,
            bases,
            seen,
            next: 0,
            bpf,
        })
    }

    /// Make room for the `queues` receive queues of the interface with index `ifindex`; their
    /// sockets then go in with [`XskCapture::set_socket`]. Call before [`XskCapture::attach`]
    /// (until then, and for a queue with no socket, frames pass to the kernel's stack).
    pub fn add_interface(&mut self, ifindex: u32, queues: u32) -> Result<(), Error> {
        let base = self.next;
        let end = base
            .checked_add(queues)
            .filter(|&e| e <= MAX_SOCKETS)
            .ok_or_else(|| {
                Error(format!(
                    "more than {MAX_SOCKETS} receive queues over the interfaces"
                ))
            })?;
        self.bases
            .insert(ifindex, base, 0)
            .map_err(|e| Error(format!("writing the queues' base: {e}")))?;
        self.next = end;
        Ok(())
    }

    /// Put `socket` (an AF_XDP socket bound to queue `queue` of `ifindex`) in the program's
    /// map: that queue's frames go to it from now on.
    pub fn set_socket(
        &mut self,
        ifindex: u32,
        queue: u32,
        socket: impl AsRawFd,
    ) -> Result<(), Error> {
        let base = self
            .bases
            .get(&ifindex, 0)
            .map_err(|e| Error(format!("interface {ifindex} not added: {e}")))?;
        self.sockets
            .set(base + queue, socket, 0)
            .map_err(|e| Error(format!("putting the socket of queue {queue} in XSKS: {e}")))
    }

    /// Run the program on `iface` (this thread's network namespace): in the driver where it
    /// can, else generic XDP. Detached when this is dropped.
    pub fn attach(&mut self, iface: &str) -> Result<XdpAttach, Error> {
        let prog: &mut Xdp = self
            .bpf
            .program_mut(PROGRAM)
            .ok_or_else(|| Error(format!("no program {PROGRAM} in the object")))?
            .try_into()
            .map_err(|e| prog_err("the program's type", e))?;
        match prog.attach(iface, XdpMode::Driver) {
            Ok(_) => Ok(XdpAttach::Driver),
            Err(driver) => match prog.attach(iface, XdpMode::Skb) {
                Ok(_) => Ok(XdpAttach::Generic),
                Err(e) => Err(Error(format!(
                    "attaching the XDP program to {iface}: in the driver: {driver}; generic: {e}"
                ))),
            },
        }
    }

    /// Frames the program saw on every interface, summed over the CPUs.
    pub fn seen(&self) -> Result<u64, Error> {
        let v = self
            .seen
            .get(&0, 0)
            .map_err(|e| Error(format!("reading the frames seen: {e}")))?;
        Ok(v.iter().sum())
    }
}
