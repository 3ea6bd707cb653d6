//! Every system call of live capture and replay, and the only `unsafe` code of the crate:
//! AF_PACKET sockets with a TPACKET_V3 receive ring and PACKET_FANOUT, a classic BPF filter,
//! kernel drop counters, `sendmmsg` for replay, `poll`, and dropping privileges.
//!
//! Everything outside this module works on safe views: a filled ring block is handed out as a
//! `&[u8]` that lives until the block is given back to the kernel.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicU32, Ordering};

/// `tpacket_versions::TPACKET_V3` of `<linux/if_packet.h>`.
const TPACKET_V3: libc::c_int = 2;

/// One instruction of a classic BPF program (`struct sock_filter`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BpfInsn {
    /// Opcode.
    pub code: u16,
    /// Jump offset if true.
    pub jt: u8,
    /// Jump offset if false.
    pub jf: u8,
    /// Constant.
    pub k: u32,
}

fn cvt(r: libc::c_int) -> io::Result<libc::c_int> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

fn setsockopt<T>(fd: RawFd, level: libc::c_int, name: libc::c_int, v: &T) -> io::Result<()> {
    // SAFETY: `v` is a valid, initialized `T` for the duration of the call and its size is
    // passed with it; the kernel only reads it.
    let r = unsafe {
        libc::setsockopt(
            fd,
            level,
            name,
            (v as *const T).cast(),
            std::mem::size_of::<T>() as libc::socklen_t,
        )
    };
    cvt(r).map(drop)
}

/// Reads interfaces' state (`SIOCGIFFLAGS`) through a socket any process may make, in any
/// namespace: it goes on working once `--user` has dropped privileges.
pub struct LinkProbe(OwnedFd);

impl LinkProbe {
    /// Open the probe's socket (a local datagram socket: no address, no privilege).
    pub fn new() -> io::Result<LinkProbe> {
        // SAFETY: plain system call with constant arguments.
        let fd =
            cvt(unsafe { libc::socket(libc::AF_UNIX, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) })?;
        // SAFETY: `fd` was just returned by socket() and is owned by nobody else.
        Ok(LinkProbe(unsafe { OwnedFd::from_raw_fd(fd) }))
    }

    /// Whether `iface` is up with its carrier now (`IFF_UP` and `IFF_RUNNING`).
    pub fn is_up(&self, iface: &str) -> io::Result<bool> {
        // SAFETY: ifreq is plain old data; all-zero is a valid value.
        let mut req: libc::ifreq = unsafe { std::mem::zeroed() };
        let name = iface.as_bytes();
        if name.len() >= req.ifr_name.len() || name.contains(&0) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("bad interface name {iface:?}"),
            ));
        }
        for (d, &s) in req.ifr_name.iter_mut().zip(name) {
            *d = s as libc::c_char;
        }
        // SAFETY: `req` is a valid ifreq with a NUL-terminated name (zeroed past it); the
        // kernel writes only its flags.
        cvt(unsafe {
            libc::ioctl(
                self.0.as_raw_fd(),
                libc::SIOCGIFFLAGS as _,
                &mut req as *mut libc::ifreq,
            )
        })?;
        // SAFETY: SIOCGIFFLAGS filled the union's flags member.
        let f = libc::c_int::from(unsafe { req.ifr_ifru.ifru_flags });
        Ok(f & libc::IFF_UP != 0 && f & libc::IFF_RUNNING != 0)
    }
}

/// The interface index of `name`.
pub fn ifindex(name: &str) -> io::Result<u32> {
    let c = CString::new(name)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "interface name with NUL"))?;
    // SAFETY: `c` is a valid NUL-terminated string that outlives the call.
    let i = unsafe { libc::if_nametoindex(c.as_ptr()) };
    if i == 0 {
        Err(io::Error::new(
            io::ErrorKind::NotFound,
            format!("no interface named {name}: {}", io::Error::last_os_error()),
        ))
    } else {
        Ok(i)
    }
}

/// A raw AF_PACKET socket for `protocol` (0: receives nothing, which is what a transmit-only
/// socket wants).
fn packet_socket(protocol: u16) -> io::Result<OwnedFd> {
    // SAFETY: plain system call with constant arguments.
    let fd = cvt(unsafe {
        libc::socket(
            libc::AF_PACKET,
            libc::SOCK_RAW | libc::SOCK_CLOEXEC,
            i32::from(protocol.to_be()),
        )
    })?;
    // SAFETY: `fd` was just returned by socket() and is owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

fn bind(fd: RawFd, index: u32, protocol: u16) -> io::Result<()> {
    // SAFETY: sockaddr_ll is plain old data; all-zero is a valid value.
    let mut sa: libc::sockaddr_ll = unsafe { std::mem::zeroed() };
    sa.sll_family = libc::AF_PACKET as u16;
    sa.sll_protocol = protocol.to_be();
    sa.sll_ifindex = index as i32;
    // SAFETY: `sa` is a valid sockaddr_ll and its exact size is passed.
    cvt(unsafe {
        libc::bind(
            fd,
            (&sa as *const libc::sockaddr_ll).cast(),
            std::mem::size_of::<libc::sockaddr_ll>() as libc::socklen_t,
        )
    })
    .map(drop)
}

/// A ring block is handed to user space when full or this long after its first packet.
pub const BLOCK_RETIRE: std::time::Duration = std::time::Duration::from_millis(10);

/// A TPACKET_V3 receive ring on one interface.
pub struct RxRing {
    fd: OwnedFd,
    map: *mut u8,
    block_size: usize,
    block_nr: usize,
    next: usize,
}

// SAFETY: the ring is a private mapping of this socket; `RxRing` is its only user and it hands
// out views only through `&mut self`, so moving it to another thread is sound.
unsafe impl Send for RxRing {}

/// Kernel counters of one socket since the last read (reading resets them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KernelStats {
    /// Packets that passed the filter (received plus dropped).
    pub packets: u64,
    /// Packets dropped because the ring was full.
    pub drops: u64,
    /// Times the queue was frozen (all blocks in user space).
    pub freezes: u64,
}

impl RxRing {
    /// Open a ring of `block_nr` blocks of `block_size` bytes (a power of two, multiple of the
    /// page size) on interface `iface`, with `filter` attached before any packet arrives, and join
    /// fanout group `fanout` (hash mode: both directions of a flow go to one socket; fragments
    /// are reassembled for the hash) when given; `received_only`: none of the packets the
    /// interface sends (`PACKET_IGNORE_OUTGOING`, Linux 4.20).
    pub fn open(
        iface: &str,
        block_size: usize,
        block_nr: usize,
        filter: Option<&[BpfInsn]>,
        fanout: Option<u16>,
        received_only: bool,
    ) -> io::Result<RxRing> {
        let index = ifindex(iface)?;
        let proto = libc::ETH_P_ALL as u16;
        // Protocol 0: the socket receives nothing until `bind` below names the interface and
        // the protocol (as libpcap does). Opened with ETH_P_ALL it would take every
        // interface's packets from here on, and those arriving after the ring is set up and
        // before the bind would reach the ring as this interface's.
        let fd = packet_socket(0)?;
        let raw = fd.as_raw_fd();
        if let Some(prog) = filter {
            attach_filter(raw, prog)?;
        }
        setsockopt(raw, libc::SOL_PACKET, libc::PACKET_VERSION, &TPACKET_V3)?;
        let req = libc::tpacket_req3 {
            tp_block_size: block_size as u32,
            tp_block_nr: block_nr as u32,
            tp_frame_size: 2048,
            tp_frame_nr: (block_size / 2048 * block_nr) as u32,
            // Hand a partly filled block to user space after 10 ms.
            tp_retire_blk_tov: BLOCK_RETIRE.as_millis() as u32,
            tp_sizeof_priv: 0,
            tp_feature_req_word: 0,
        };
        setsockopt(raw, libc::SOL_PACKET, libc::PACKET_RX_RING, &req)?;
        let len = block_size * block_nr;
        // SAFETY: maps the ring the kernel just allocated for this socket; length and flags are
        // those packet(7) prescribes. The result is checked below.
        let map = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                raw,
                0,
            )
        };
        if map == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let ring = RxRing {
            fd,
            map: map.cast(),
            block_size,
            block_nr,
            next: 0,
        };
        if received_only {
            // Only what the interface receives (its ingress; a forwarded packet once on a
            // router), set before the socket is bound so that no sent packet gets in.
            let one: libc::c_int = 1;
            setsockopt(raw, libc::SOL_PACKET, libc::PACKET_IGNORE_OUTGOING, &one).map_err(|e| {
                io::Error::new(
                    e.kind(),
                    format!("capturing received packets alone (Linux 4.20): {e}"),
                )
            })?;
        }
        bind(raw, index, proto)?;
        if let Some(group) = fanout {
            let arg: u32 = u32::from(group)
                | ((libc::PACKET_FANOUT_HASH | libc::PACKET_FANOUT_FLAG_DEFRAG) << 16);
            setsockopt(raw, libc::SOL_PACKET, libc::PACKET_FANOUT, &arg)?;
        }
        Ok(ring)
    }

    /// The socket's descriptor (for `poll`).
    pub fn fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    /// The socket, borrowed (to attach a filter to it).
    pub fn socket(&self) -> std::os::fd::BorrowedFd<'_> {
        use std::os::fd::AsFd;
        self.fd.as_fd()
    }

    /// Header word `block_status` of block `i`, read with acquire ordering: once it says
    /// `TP_STATUS_USER`, the kernel's writes to the block are visible and it will not write there
    /// until the status is set back.
    fn status(&self, i: usize) -> &AtomicU32 {
        // SAFETY: block `i < block_nr` starts at `i * block_size` inside the mapping; the status
        // word is at offset 8 of `tpacket_block_desc` (version, offset_to_priv, then
        // `hdr.bh1.block_status`), 4-byte aligned because blocks are page aligned. The kernel
        // and we only ever access it atomically.
        unsafe { &*(self.map.add(i * self.block_size + 8).cast::<AtomicU32>()) }
    }

    /// The next block the kernel has filled, if any (does not wait). Give it back by dropping
    /// the [`Block`].
    pub fn next_block(&mut self) -> Option<Block<'_>> {
        let i = self.next;
        if self.status(i).load(Ordering::Acquire) & libc::TP_STATUS_USER == 0 {
            return None;
        }
        self.next = (i + 1) % self.block_nr;
        let st = self.status(i);
        // SAFETY: the block belongs to user space until its status is reset (in Block::drop),
        // so nobody writes it while this shared view exists; it lies inside the mapping, which
        // lives as long as `self`, which the returned borrow keeps alive.
        let bytes = unsafe {
            std::slice::from_raw_parts(self.map.add(i * self.block_size), self.block_size)
        };
        Some(Block { bytes, status: st })
    }

    /// Collect the error the socket reports (`SO_ERROR`, which reading clears): ENETDOWN when
    /// its link went down, ENODEV or ENXIO when its interface is gone. None when there is none.
    pub fn take_error(&self) -> io::Result<Option<io::Error>> {
        let mut e: libc::c_int = 0;
        let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
        // SAFETY: `e` and `len` are valid for writes and `len` holds the size of `e`.
        cvt(unsafe {
            libc::getsockopt(
                self.fd(),
                libc::SOL_SOCKET,
                libc::SO_ERROR,
                (&mut e as *mut libc::c_int).cast(),
                &mut len,
            )
        })?;
        Ok((e != 0).then(|| io::Error::from_raw_os_error(e)))
    }

    /// Read and reset the kernel's counters for this socket.
    pub fn stats(&self) -> io::Result<KernelStats> {
        // SAFETY: plain old data; all-zero is valid.
        let mut s: libc::tpacket_stats_v3 = unsafe { std::mem::zeroed() };
        let mut len = std::mem::size_of::<libc::tpacket_stats_v3>() as libc::socklen_t;
        // SAFETY: `s` and `len` are valid for writes and `len` holds the size of `s`.
        cvt(unsafe {
            libc::getsockopt(
                self.fd(),
                libc::SOL_PACKET,
                libc::PACKET_STATISTICS,
                (&mut s as *mut libc::tpacket_stats_v3).cast(),
                &mut len,
            )
        })?;
        Ok(KernelStats {
            packets: u64::from(s.tp_packets),
            drops: u64::from(s.tp_drops),
            freezes: u64::from(s.tp_freeze_q_cnt),
        })
    }
}

impl Drop for RxRing {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the mapping made in `open`; no `Block` can outlive `self`.
        unsafe {
            libc::munmap(self.map.cast(), self.block_size * self.block_nr);
        }
    }
}

/// A ring block filled by the kernel: its bytes, readable until the block is dropped, which
/// hands it back to the kernel.
pub struct Block<'a> {
    bytes: &'a [u8],
    status: &'a AtomicU32,
}

impl<'a> Block<'a> {
    /// The block's bytes (`tpacket_block_desc` header, then the packets); parse with bounds
    /// checks.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }
}

impl Drop for Block<'_> {
    fn drop(&mut self) {
        self.status.store(libc::TP_STATUS_KERNEL, Ordering::Release);
    }
}

fn attach_filter(fd: RawFd, prog: &[BpfInsn]) -> io::Result<()> {
    let insns: Vec<libc::sock_filter> = prog
        .iter()
        .map(|i| libc::sock_filter {
            code: i.code,
            jt: i.jt,
            jf: i.jf,
            k: i.k,
        })
        .collect();
    let fprog = libc::sock_fprog {
        len: insns.len() as u16,
        filter: insns.as_ptr() as *mut libc::sock_filter,
    };
    // The kernel copies and verifies the program during the call.
    setsockopt(fd, libc::SOL_SOCKET, libc::SO_ATTACH_FILTER, &fprog)
}

/// Wait until one of `fds` is readable or reports an error, or `timeout_ms` passes; returns a
/// bit per fd (in order, the first 64) that reported an error or hang-up, which the caller must
/// collect ([`RxRing::take_error`]) or the next poll reports it again at once.
pub fn poll_readable(fds: &[RawFd], timeout_ms: i32) -> io::Result<u64> {
    let mut p: Vec<libc::pollfd> = fds
        .iter()
        .map(|&fd| libc::pollfd {
            fd,
            events: libc::POLLIN | libc::POLLERR,
            revents: 0,
        })
        .collect();
    // SAFETY: `p` is a valid array of `p.len()` pollfd structures.
    let r = unsafe { libc::poll(p.as_mut_ptr(), p.len() as libc::nfds_t, timeout_ms) };
    if r < 0 {
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
        return Ok(0);
    }
    let bad = libc::POLLERR | libc::POLLHUP | libc::POLLNVAL;
    Ok(p.iter()
        .take(64)
        .enumerate()
        .filter(|(_, q)| q.revents & bad != 0)
        .fold(0u64, |m, (i, _)| m | 1 << i))
}

/// A transmit-only AF_PACKET socket on one interface, sending whole frames with `sendmmsg`.
pub struct TxSocket {
    fd: OwnedFd,
    /// Reused per call: no allocation per burst.
    iov: Vec<libc::iovec>,
    msgs: Vec<libc::mmsghdr>,
}

/// Most frames per `sendmmsg` call.
pub const TX_BURST: usize = 256;

impl TxSocket {
    /// Open on interface `iface`, bypassing the queueing discipline (as pktgen does).
    pub fn open(iface: &str) -> io::Result<TxSocket> {
        let index = ifindex(iface)?;
        let fd = packet_socket(0)?;
        bind(fd.as_raw_fd(), index, 0)?;
        let one: libc::c_int = 1;
        // Best effort: without it frames go through the qdisc, which is slower but correct.
        let _ = setsockopt(
            fd.as_raw_fd(),
            libc::SOL_PACKET,
            libc::PACKET_QDISC_BYPASS,
            &one,
        );
        Ok(TxSocket {
            fd,
            iov: Vec::with_capacity(TX_BURST),
            msgs: Vec::with_capacity(TX_BURST),
        })
    }

    /// Send `frames` (at most [`TX_BURST`]) in one system call; how many the kernel took. A frame
    /// it refuses (too large, too short) stops the call there: the caller skips it and goes on.
    pub fn send(&mut self, frames: &[&[u8]]) -> io::Result<usize> {
        let n = frames.len().min(TX_BURST);
        self.iov.clear();
        self.iov.extend(frames[..n].iter().map(|f| libc::iovec {
            iov_base: f.as_ptr() as *mut libc::c_void,
            iov_len: f.len(),
        }));
        self.msgs.clear();
        for v in self.iov.iter_mut() {
            // SAFETY: plain old data; all-zero is valid (no name, no control data).
            let mut m: libc::mmsghdr = unsafe { std::mem::zeroed() };
            m.msg_hdr.msg_iov = v;
            m.msg_hdr.msg_iovlen = 1;
            self.msgs.push(m);
        }
        // SAFETY: `msgs` holds `n` headers, each pointing at one element of `iov` (not moved
        // since: both vectors are only cleared and refilled above), each describing a frame
        // borrowed for the duration of the call; the kernel only reads the frames.
        let r = unsafe { libc::sendmmsg(self.fd.as_raw_fd(), self.msgs.as_mut_ptr(), n as u32, 0) };
        cvt(r).map(|r| r as usize)
    }
}

/// Switch to user `name` (its uid, primary gid, no supplementary groups) for good.
pub fn drop_privileges(name: &str) -> io::Result<()> {
    let c = CString::new(name)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "user name with NUL"))?;
    // SAFETY: plain old data; all-zero is valid before getpwnam_r fills it.
    let mut pw: libc::passwd = unsafe { std::mem::zeroed() };
    let mut buf = vec![0u8; 16384];
    let mut res: *mut libc::passwd = std::ptr::null_mut();
    // SAFETY: every pointer is valid for the call; `buf` outlives the use of `pw`'s strings
    // (only the numeric ids are read).
    let r = unsafe {
        libc::getpwnam_r(
            c.as_ptr(),
            &mut pw,
            buf.as_mut_ptr().cast(),
            buf.len(),
            &mut res,
        )
    };
    if r != 0 || res.is_null() {
        return Err(io::Error::new(
            io::ErrorKind::NotFound,
            format!("no user named {name}"),
        ));
    }
    // SAFETY: plain system calls; each result is checked. Groups first, while still root.
    unsafe {
        cvt(libc::setgroups(0, std::ptr::null()))?;
        cvt(libc::setgid(pw.pw_gid))?;
        cvt(libc::setuid(pw.pw_uid))?;
    }
    // Make sure there is no way back.
    // SAFETY: plain system call.
    if pw.pw_uid != 0 && unsafe { libc::setuid(0) } == 0 {
        return Err(io::Error::other(
            "privileges could be regained after dropping them",
        ));
    }
    Ok(())
}

/// CLOCK_REALTIME in nanoseconds: the clock the kernel stamps captured packets with. Read only
/// when no packet came for a while, to let idle flows expire on a quiet link.
pub fn realtime_ns() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

/// `CLOCK_MONOTONIC` in nanoseconds: the clock of `bpf_ktime_get_ns` (copies of packets
/// from an eBPF program carry it).
pub fn monotonic_ns() -> u64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid timespec for the call to write.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut t) };
    (t.tv_sec as u64)
        .saturating_mul(1_000_000_000)
        .saturating_add(t.tv_nsec as u64)
}

/// `CLOCK_MONOTONIC_COARSE` in nanoseconds: the clock an eBPF program reads with
/// `bpf_ktime_get_coarse_ns` (the eBPF data path's heartbeat).
pub fn monotonic_coarse_ns() -> u64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid timespec for the call to write.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC_COARSE, &mut t) };
    (t.tv_sec as u64)
        .saturating_mul(1_000_000_000)
        .saturating_add(t.tv_nsec as u64)
}

/// Give the calling thread a real-time priority (`SCHED_FIFO`, the lowest), so that a
/// thread that wakes for a moment every few milliseconds (the eBPF data path's heartbeat) is
/// not kept waiting behind busy processes. Needs CAP_SYS_NICE (root); the error otherwise.
pub fn realtime_priority() -> io::Result<()> {
    let p = libc::sched_param { sched_priority: 1 };
    // SAFETY: `p` is a valid sched_param; 0 names the calling thread.
    let r = unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &p) };
    if r != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// A netlink socket of the netfilter family (NFQUEUE's), owned.
pub struct NetlinkSocket {
    fd: OwnedFd,
}

impl NetlinkSocket {
    /// Open and bind a `NETLINK_NETFILTER` socket with a receive buffer of `rcvbuf` bytes
    /// (forced past `rmem_max` where the process may); the kernel's queue overflow reports
    /// (ENOBUFS) are turned off: the queue's fail-open flag says what happens then, and the
    /// kernel counts it.
    pub fn open(rcvbuf: usize) -> io::Result<NetlinkSocket> {
        // SAFETY: plain socket(2) call; the result is checked before it is owned.
        let fd = cvt(unsafe {
            libc::socket(
                libc::AF_NETLINK,
                libc::SOCK_RAW | libc::SOCK_CLOEXEC,
                libc::NETLINK_NETFILTER,
            )
        })?;
        // SAFETY: `fd` was just returned by socket(2) and is owned by nothing else.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        let size = rcvbuf.min(i32::MAX as usize) as libc::c_int;
        if setsockopt(
            fd.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_RCVBUFFORCE,
            &size,
        )
        .is_err()
        {
            setsockopt(fd.as_raw_fd(), libc::SOL_SOCKET, libc::SO_RCVBUF, &size)?;
        }
        let one: libc::c_int = 1;
        setsockopt(
            fd.as_raw_fd(),
            libc::SOL_NETLINK,
            libc::NETLINK_NO_ENOBUFS,
            &one,
        )?;
        // SAFETY: an all-zero sockaddr_nl is valid (pid 0: the kernel assigns one).
        let mut addr: libc::sockaddr_nl = unsafe { std::mem::zeroed() };
        addr.nl_family = libc::AF_NETLINK as libc::sa_family_t;
        // SAFETY: `addr` is a valid sockaddr_nl and its size is passed with it.
        cvt(unsafe {
            libc::bind(
                fd.as_raw_fd(),
                (&addr as *const libc::sockaddr_nl).cast(),
                std::mem::size_of::<libc::sockaddr_nl>() as libc::socklen_t,
            )
        })?;
        Ok(NetlinkSocket { fd })
    }

    /// The socket's descriptor (for [`poll_readable`]).
    pub fn fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    /// Send one datagram (one or several netlink messages) to the kernel.
    pub fn send(&self, msg: &[u8]) -> io::Result<()> {
        // SAFETY: an all-zero sockaddr_nl addresses the kernel (pid 0).
        let mut addr: libc::sockaddr_nl = unsafe { std::mem::zeroed() };
        addr.nl_family = libc::AF_NETLINK as libc::sa_family_t;
        loop {
            // SAFETY: `msg` is valid for `msg.len()` bytes and `addr` for its size.
            let r = unsafe {
                libc::sendto(
                    self.fd.as_raw_fd(),
                    msg.as_ptr().cast(),
                    msg.len(),
                    0,
                    (&addr as *const libc::sockaddr_nl).cast(),
                    std::mem::size_of::<libc::sockaddr_nl>() as libc::socklen_t,
                )
            };
            if r >= 0 {
                return Ok(());
            }
            let e = io::Error::last_os_error();
            if e.kind() != io::ErrorKind::Interrupted {
                return Err(e);
            }
        }
    }

    /// Receive one datagram into `buf`; `wait`: block until one comes (else return
    /// `Ok(None)` at once when none is queued). A datagram larger than `buf` is an error
    /// (its length is known: MSG_TRUNC), never a silent cut.
    pub fn recv(&self, buf: &mut [u8], wait: bool) -> io::Result<Option<usize>> {
        let flags = libc::MSG_TRUNC | if wait { 0 } else { libc::MSG_DONTWAIT };
        loop {
            // SAFETY: `buf` is valid for writes of `buf.len()` bytes.
            let r = unsafe {
                libc::recv(
                    self.fd.as_raw_fd(),
                    buf.as_mut_ptr().cast(),
                    buf.len(),
                    flags,
                )
            };
            if r >= 0 {
                let n = r as usize;
                if n > buf.len() {
                    return Err(io::Error::other(format!(
                        "netlink message of {n} bytes for a {}-byte buffer",
                        buf.len()
                    )));
                }
                return Ok(Some(n));
            }
            let e = io::Error::last_os_error();
            match e.kind() {
                io::ErrorKind::Interrupted => continue,
                io::ErrorKind::WouldBlock => return Ok(None),
                _ => return Err(e),
            }
        }
    }
}

/// One of an AF_XDP socket's rings, mapped: its producer and consumer indices (free-running
/// `u32`s the kernel and this process share) and `size` (a power of two) descriptors.
struct XskRing {
    map: *mut u8,
    map_len: usize,
    producer: *const AtomicU32,
    consumer: *const AtomicU32,
    flags: *const AtomicU32,
    desc: *mut u8,
    size: u32,
}

impl XskRing {
    /// Map the ring at page offset `pgoff` of socket `fd`, of `size` descriptors of `desc_len`
    /// bytes laid out as `off` says.
    fn map(
        fd: RawFd,
        off: &libc::xdp_ring_offset,
        size: u32,
        desc_len: usize,
        pgoff: u64,
    ) -> io::Result<XskRing> {
        let map_len = off.desc as usize + size as usize * desc_len;
        // SAFETY: a fresh shared mapping of the socket's ring, checked below.
        let map = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                map_len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED | libc::MAP_POPULATE,
                fd,
                pgoff as libc::off_t,
            )
        };
        if map == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let map = map as *mut u8;
        let at = |o: u64| -> io::Result<*mut u8> {
            // The kernel's offsets lie inside the mapping it sized; checked all the same.
            if o as usize + 4 > map_len {
                return Err(io::Error::other("an AF_XDP ring offset past its mapping"));
            }
            // SAFETY: `o` is inside the mapping (checked above).
            Ok(unsafe { map.add(o as usize) })
        };
        let ring = (|| {
            Ok(XskRing {
                map,
                map_len,
                producer: at(off.producer)? as *const AtomicU32,
                consumer: at(off.consumer)? as *const AtomicU32,
                flags: at(off.flags)? as *const AtomicU32,
                desc: at(off.desc)?,
                size,
            })
        })();
        if ring.is_err() {
            // SAFETY: unmaps the mapping made above, not used since.
            unsafe { libc::munmap(map as *mut libc::c_void, map_len) };
        }
        ring
    }

    fn producer(&self) -> &AtomicU32 {
        // SAFETY: inside the mapping, aligned by the kernel, alive as long as `self`.
        unsafe { &*self.producer }
    }

    fn consumer(&self) -> &AtomicU32 {
        // SAFETY: as `producer`.
        unsafe { &*self.consumer }
    }

    fn needs_wakeup(&self) -> bool {
        // SAFETY: as `producer`.
        unsafe { &*self.flags }.load(Ordering::Relaxed) & libc::XDP_RING_NEED_WAKEUP != 0
    }
}

impl Drop for XskRing {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the mapping made in `map`.
        unsafe { libc::munmap(self.map as *mut libc::c_void, self.map_len) };
    }
}

/// An AF_XDP socket bound to one receive queue of one interface, receive only, with its own
/// memory (UMEM) of `frames` frames of [`XSK_FRAME`] bytes, all of them in the fill ring
/// until the kernel writes a frame into one and hands it over on the receive ring; each frame
/// goes back to the fill ring as soon as it is read. Hand-written on the kernel's interface
/// (`<linux/if_xdp.h>`): the rings are shared memory with free-running indices, read and
/// written in place, with nothing per packet but the copy the reader makes.
pub struct XskSocket {
    // Dropped in this order: the socket (the kernel lets go of the UMEM), its rings, then the
    // UMEM.
    fd: OwnedFd,
    fill: XskRing,
    rx: XskRing,
    /// Whether the kernel writes into the UMEM itself (zero-copy driver) rather than copying.
    zero_copy: bool,
    umem: Umem,
}

/// The UMEM's mapping, unmapped when dropped.
struct Umem {
    at: *mut u8,
    len: usize,
}

impl Drop for Umem {
    fn drop(&mut self) {
        // SAFETY: the mapping `XskSocket::open` made, unmapped once; no slice of it outlives
        // `XskSocket::drain`.
        unsafe { libc::munmap(self.at as *mut libc::c_void, self.len) };
    }
}

// SAFETY: the socket and its mappings belong to this value alone; the rings' shared indices
// are atomics, the kernel being the only other party.
unsafe impl Send for XskSocket {}

/// One UMEM frame: room for a 1,500-byte MTU frame behind the kernel's 256 bytes of headroom (the
/// metadata in it); the smallest the kernel takes, so that a buffer holds the most frames.
pub const XSK_FRAME: u32 = 2048;

/// The metadata the XDP program writes in front of a frame: (CLOCK_MONOTONIC ns, magic).
const XSK_META: usize = 16;

/// The kernel's counters of an AF_XDP socket (`XDP_STATISTICS`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct XskStats {
    /// Frames dropped: no free frame in the fill ring, or another reason.
    pub rx_dropped: u64,
    /// Frames dropped with the receive ring full (this process behind).
    pub rx_ring_full: u64,
    /// Times the kernel found the fill ring empty.
    pub fill_ring_empty: u64,
    /// Descriptors the kernel refused.
    pub invalid: u64,
}

fn setsockopt_u32(fd: RawFd, opt: libc::c_int, v: u32) -> io::Result<()> {
    setsockopt(fd, libc::SOL_XDP, opt, &v)
}

impl XskSocket {
    /// Open a socket on queue `queue` of the interface with index `ifindex`, with `frames`
    /// frames (a power of two, at least 64) in its UMEM and as many slots in its fill and
    /// receive rings. The kernel chooses zero-copy where the driver has it, copy otherwise.
    /// Put it in the XDP program's map afterwards; frames come once that is done.
    pub fn open(ifindex: u32, queue: u32, frames: u32) -> io::Result<XskSocket> {
        if !frames.is_power_of_two() || frames < 64 {
            return Err(io::Error::other(
                "AF_XDP frames: a power of two, 64 or more",
            ));
        }
        // SAFETY: plain socket creation; the result is checked.
        let fd = unsafe { libc::socket(libc::AF_XDP, libc::SOCK_RAW | libc::SOCK_CLOEXEC, 0) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `fd` is a fresh descriptor that nothing else owns.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        let raw = fd.as_raw_fd();
        let umem_len = frames as usize * XSK_FRAME as usize;
        // SAFETY: a fresh private anonymous mapping, checked below.
        let umem = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                umem_len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if umem == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        // From here on a failure unmaps the UMEM and closes the socket.
        let umem = Umem {
            at: umem as *mut u8,
            len: umem_len,
        };
        let reg = libc::xdp_umem_reg {
            addr: umem.at as u64,
            len: umem_len as u64,
            chunk_size: XSK_FRAME,
            headroom: 0,
            flags: 0,
            tx_metadata_len: 0,
        };
        setsockopt(raw, libc::SOL_XDP, libc::XDP_UMEM_REG, &reg)?;
        setsockopt_u32(raw, libc::XDP_UMEM_FILL_RING, frames)?;
        // The completion ring belongs to sending, which this socket never does; the kernel
        // wants one all the same.
        setsockopt_u32(raw, libc::XDP_UMEM_COMPLETION_RING, 64)?;
        setsockopt_u32(raw, libc::XDP_RX_RING, frames)?;
        // SAFETY: all-zero is a valid xdp_mmap_offsets.
        let mut off: libc::xdp_mmap_offsets = unsafe { std::mem::zeroed() };
        let mut len = std::mem::size_of::<libc::xdp_mmap_offsets>() as libc::socklen_t;
        // SAFETY: `off` has `len` writable bytes.
        let r = unsafe {
            libc::getsockopt(
                raw,
                libc::SOL_XDP,
                libc::XDP_MMAP_OFFSETS,
                &mut off as *mut _ as *mut libc::c_void,
                &mut len,
            )
        };
        if r != 0 {
            return Err(io::Error::last_os_error());
        }
        if len as usize != std::mem::size_of::<libc::xdp_mmap_offsets>() {
            return Err(io::Error::other(
                "this kernel's AF_XDP rings have no flags word (Linux 5.4 or later needed)",
            ));
        }
        let fill = XskRing::map(raw, &off.fr, frames, 8, libc::XDP_UMEM_PGOFF_FILL_RING)?;
        let rx = XskRing::map(
            raw,
            &off.rx,
            frames,
            std::mem::size_of::<libc::xdp_desc>(),
            libc::XDP_PGOFF_RX_RING as u64,
        )?;
        // Every frame into the fill ring.
        let fp = fill.producer().load(Ordering::Relaxed);
        for i in 0..frames {
            let slot = (fp.wrapping_add(i) & (frames - 1)) as usize;
            // SAFETY: `slot` < `frames`, the ring's descriptors (8 bytes each) in its mapping.
            unsafe {
                (fill.desc as *mut u64)
                    .add(slot)
                    .write(u64::from(i) * u64::from(XSK_FRAME))
            };
        }
        fill.producer()
            .store(fp.wrapping_add(frames), Ordering::Release);
        let sa = libc::sockaddr_xdp {
            sxdp_family: libc::AF_XDP as u16,
            sxdp_flags: libc::XDP_USE_NEED_WAKEUP,
            sxdp_ifindex: ifindex,
            sxdp_queue_id: queue,
            sxdp_shared_umem_fd: 0,
        };
        // SAFETY: `sa` is a valid sockaddr_xdp of the size given.
        let r = unsafe {
            libc::bind(
                raw,
                &sa as *const _ as *const libc::sockaddr,
                std::mem::size_of::<libc::sockaddr_xdp>() as libc::socklen_t,
            )
        };
        if r != 0 {
            return Err(io::Error::last_os_error());
        }
        let mut opts = libc::xdp_options { flags: 0 };
        let mut len = std::mem::size_of::<libc::xdp_options>() as libc::socklen_t;
        // SAFETY: `opts` has `len` writable bytes.
        let r = unsafe {
            libc::getsockopt(
                raw,
                libc::SOL_XDP,
                libc::XDP_OPTIONS,
                &mut opts as *mut _ as *mut libc::c_void,
                &mut len,
            )
        };
        let zero_copy = r == 0 && opts.flags & libc::XDP_OPTIONS_ZEROCOPY != 0;
        Ok(XskSocket {
            fd,
            fill,
            rx,
            zero_copy,
            umem,
        })
    }

    /// The socket (for the XDP program's map, and to poll: readable when frames wait).
    pub fn fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    /// A second descriptor of the socket (to read its counters with [`xsk_stats`] while the
    /// socket itself is elsewhere).
    pub fn try_clone_fd(&self) -> io::Result<OwnedFd> {
        self.fd.try_clone()
    }

    /// Whether the driver writes frames into this socket's memory itself (zero-copy).
    pub fn zero_copy(&self) -> bool {
        self.zero_copy
    }

    /// The frames received now, at most `max`, handed to `f` together (in place in the UMEM,
    /// each with the program's CLOCK_MONOTONIC time if it wrote one); once `f` returns they go
    /// back to the fill ring, their metadata cleared. Returns how many descriptors were taken
    /// (a descriptor outside the UMEM, none of which the kernel writes, is skipped by the
    /// iterator and its frame still given back), and `f`'s result.
    pub fn recv<R>(&mut self, max: usize, f: impl FnOnce(&mut XskFrames<'_>) -> R) -> (usize, R) {
        let frames = self.rx.size;
        let cons = self.rx.consumer().load(Ordering::Relaxed);
        let prod = self.rx.producer().load(Ordering::Acquire);
        let n = prod.wrapping_sub(cons).min(frames).min(max as u32);
        let mut it = XskFrames {
            desc: self.rx.desc as *const libc::xdp_desc,
            mask: frames - 1,
            cons,
            left: n,
            umem: &self.umem,
        };
        let r = f(&mut it);
        if n == 0 {
            return (0, r);
        }
        let fp = self.fill.producer().load(Ordering::Relaxed);
        for i in 0..n {
            let slot = (cons.wrapping_add(i) & (frames - 1)) as usize;
            // SAFETY: as in `XskFrames::next`.
            let d = unsafe {
                (self.rx.desc as *const libc::xdp_desc)
                    .add(slot)
                    .read_unaligned()
            };
            let chunk = d.addr as usize & !(XSK_FRAME as usize - 1);
            if let Some(at) = frame_at(self.umem.len, d.addr as usize, d.len as usize) {
                // A later frame here without the program's metadata must not read this one's.
                // SAFETY: `at - XSK_META .. at` lies in one frame of the UMEM (`frame_at`),
                // which no slice handed to `f` covers any more (`f` has returned).
                unsafe { std::ptr::write_bytes(self.umem.at.add(at - XSK_META), 0, XSK_META) };
            }
            let fslot = (fp.wrapping_add(i) & (frames - 1)) as usize;
            // SAFETY: the fill ring has `frames` slots and holds at most `frames` frames; these
            // `n` left it, so their slots are free.
            unsafe { (self.fill.desc as *mut u64).add(fslot).write(chunk as u64) };
        }
        self.rx
            .consumer()
            .store(cons.wrapping_add(n), Ordering::Release);
        self.fill
            .producer()
            .store(fp.wrapping_add(n), Ordering::Release);
        if self.fill.needs_wakeup() {
            // SAFETY: a zero-length non-blocking receive: the kernel's wake-up of a zero-copy
            // driver's queue.
            unsafe {
                libc::recvfrom(
                    self.fd.as_raw_fd(),
                    std::ptr::null_mut(),
                    0,
                    libc::MSG_DONTWAIT,
                    std::ptr::null_mut(),
                    std::ptr::null_mut(),
                )
            };
        }
        (n as usize, r)
    }

    /// The kernel's counters of this socket.
    pub fn stats(&self) -> io::Result<XskStats> {
        xsk_stats(self.fd.as_raw_fd())
    }
}

/// Where a received frame of `len` bytes at `addr` starts in a UMEM of `umem_len` bytes, if it
/// lies inside one of its frames with room for the metadata in front of it.
fn frame_at(umem_len: usize, addr: usize, len: usize) -> Option<usize> {
    let chunk = addr & !(XSK_FRAME as usize - 1);
    (chunk < umem_len
        && addr >= chunk + XSK_META
        && addr.checked_add(len)? <= chunk + XSK_FRAME as usize)
        .then_some(addr)
}

/// The frames [`XskSocket::recv`] hands over: (the program's CLOCK_MONOTONIC time if it wrote
/// one, the frame's bytes in the UMEM).
pub struct XskFrames<'a> {
    desc: *const libc::xdp_desc,
    mask: u32,
    cons: u32,
    left: u32,
    umem: &'a Umem,
}

impl<'a> Iterator for XskFrames<'a> {
    type Item = (Option<u64>, &'a [u8]);

    fn next(&mut self) -> Option<Self::Item> {
        while self.left > 0 {
            let slot = (self.cons & self.mask) as usize;
            self.cons = self.cons.wrapping_add(1);
            self.left -= 1;
            // SAFETY: `slot` <= `mask` < the ring's size, its descriptors in its mapping; the
            // kernel wrote this one before moving the producer past it (Acquire in `recv`).
            let d = unsafe { self.desc.add(slot).read_unaligned() };
            let Some(at) = frame_at(self.umem.len, d.addr as usize, d.len as usize) else {
                continue;
            };
            // SAFETY: [at - XSK_META, at + len) lies in one frame of the UMEM (`frame_at`),
            // which the kernel does not write until `recv` gives it back, after these slices
            // (bound to the call's borrow) are gone.
            let (meta, data) = unsafe {
                (
                    std::slice::from_raw_parts(self.umem.at.add(at - XSK_META), XSK_META),
                    std::slice::from_raw_parts(self.umem.at.add(at), d.len as usize),
                )
            };
            let word = |i: usize| {
                let mut b = [0u8; 8];
                b.copy_from_slice(&meta[i..i + 8]);
                u64::from_ne_bytes(b)
            };
            let ts = (word(8) == XSK_MAGIC).then(|| word(0));
            return Some((ts, data));
        }
        None
    }
}

/// The kernel's counters of AF_XDP socket `fd` (`XDP_STATISTICS`).
pub fn xsk_stats(fd: RawFd) -> io::Result<XskStats> {
    // SAFETY: all-zero is a valid xdp_statistics.
    let mut s: libc::xdp_statistics = unsafe { std::mem::zeroed() };
    let mut len = std::mem::size_of::<libc::xdp_statistics>() as libc::socklen_t;
    // SAFETY: `s` has `len` writable bytes.
    let r = unsafe {
        libc::getsockopt(
            fd,
            libc::SOL_XDP,
            libc::XDP_STATISTICS,
            &mut s as *mut _ as *mut libc::c_void,
            &mut len,
        )
    };
    if r != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(XskStats {
        rx_dropped: s.rx_dropped,
        rx_ring_full: s.rx_ring_full,
        fill_ring_empty: s.rx_fill_ring_empty_descs,
        invalid: s.rx_invalid_descs,
    })
}

/// The magic word `bpf/xsk.c` writes into a frame's metadata beside its time (the eBPF
/// crate's `XSK_MAGIC`; this crate does not depend on it).
pub const XSK_MAGIC: u64 = 0x7773_7864_7074_6d31;

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// A descriptor `frame_at` accepts, whatever the kernel wrote in it, lies with its
        /// metadata inside one frame of the UMEM: what the unsafe slices of `XskFrames` rely on.
        #[test]
        fn an_accepted_descriptor_stays_in_one_frame(
            frames in 1usize..64,
            addr in proptest::prelude::any::<u64>(),
            len in proptest::prelude::any::<u32>(),
        ) {
            let umem_len = frames * XSK_FRAME as usize;
            let (addr, len) = (addr as usize, len as usize);
            if let Some(at) = frame_at(umem_len, addr, len) {
                let chunk = at / XSK_FRAME as usize * XSK_FRAME as usize;
                proptest::prop_assert_eq!(at, addr);
                proptest::prop_assert!(at - XSK_META >= chunk);
                proptest::prop_assert!(at + len <= chunk + XSK_FRAME as usize);
                proptest::prop_assert!(at + len <= umem_len);
            }
        }
    }

    #[test]
    fn descriptors_at_the_edges() {
        let f = XSK_FRAME as usize;
        // The kernel's usual place: after 256 bytes of headroom.
        assert_eq!(frame_at(4 * f, f + 256, 64), Some(f + 256));
        // No room for the metadata, across a frame's end, past the UMEM, overflowing.
        assert_eq!(frame_at(4 * f, f + 8, 64), None);
        assert_eq!(frame_at(4 * f, 2 * f - 32, 64), None);
        assert_eq!(frame_at(4 * f, 4 * f + 256, 64), None);
        assert_eq!(frame_at(4 * f, usize::MAX - 4, 64), None);
        // A whole frame's worth after the metadata.
        assert_eq!(frame_at(4 * f, XSK_META, f - XSK_META), Some(XSK_META));
        assert_eq!(frame_at(4 * f, XSK_META, f - XSK_META + 1), None);
    }
}
