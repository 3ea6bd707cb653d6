//! Flow tracking: direction-independent keys, a fixed-capacity table, expiry by capture time.
//!
//! * [`FlowKey`] is the bidirectional 5-tuple plus VLAN: both directions of a conversation map to
//!   the same key, and [`Side`] tells which end sent a packet.
//! * [`FlowTable`] holds at most `capacity` flows in memory allocated once at start. It never
//!   grows: when full, a new flow evicts the stalest of a few flows at a cursor (counted), so a flood
//!   of new flows cannot exhaust memory.
//! * Expiry runs on capture timestamps, never the wall clock, in small steps per batch
//!   ([`FlowTable::gc_step`], DPDKStat's ΔT/M) so no packet waits on a full-table scan; a lookup
//!   that finds an idle-expired or closed flow ends it first. Both judge at the same monotonic
//!   clock (the input's latest time so far, not a packet's own time, which may go back), so
//!   results do not depend on how far the sweep got.
//! * [`FragTable`] maps later IP fragments to the ports of their first fragment (bounded).
#![deny(missing_docs)]
#![deny(unsafe_code)]

mod frag;
mod key;
pub mod s3lru;
mod table;

pub use frag::{FragKey, FragStats, FragTable};
pub use key::{FlowHasher, FlowKey, Side};
pub use table::{
    noted, EndReason, Flow, FlowConfig, FlowTable, Lookup, SlotLocator, TableStats, Timeouts,
    CLIENT_UNKNOWN, PROVED,
};

/// Hint the CPU to bring the cache line holding `r` closer; never faults, never changes meaning.
#[inline(always)]
pub fn prefetch<T>(r: &T) {
    #[cfg(target_arch = "x86_64")]
    #[allow(unsafe_code)]
    // SAFETY: prefetch is a hint; it cannot fault or change memory, and `r` is a valid reference.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(r as *const T as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = r;
}

/// Ask the kernel to back `[ptr, ptr + len)` with transparent huge pages where it can.
///
/// The flow table's index and slab are large and accessed at random; with 4 KiB pages nearly
/// every lookup misses the TLB, and under virtualization a page walk costs hundreds of cycles.
/// Advice only: failure (no THP, another OS) changes nothing but speed.
pub(crate) fn advise_huge_pages(ptr: *const u8, len: usize) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = (ptr as usize).next_multiple_of(HUGE);
        let end = (ptr as usize + len) & !(HUGE - 1);
        if end > start {
            #[allow(unsafe_code)]
            // SAFETY: MADV_HUGEPAGE on whole pages inside an allocation we own only changes how
            // the kernel backs them, never their contents or validity.
            unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (ptr, len);
}
