//! Where a capture file's bytes live (a read-only mapping, or bytes in memory), and how its pages
//! are mapped ahead of the reader and handed back behind it.

/// Where a file's bytes live.
pub(crate) enum Backing {
    /// A read-only mapping of a regular file.
    Map(memmap2::Mmap),
    /// Bytes read into memory (pipes, devices, [`CaptureFile::from_bytes`]).
    Owned(Vec<u8>),
}

/// Consumed parts of a mapping are handed back in steps of this size (see
/// [`Backing::release`]).
pub(crate) const RELEASE_STEP: usize = 32 << 20;

/// Bytes of the file mapped ahead of the reader in one call (see [`Backing::populate`]): on the
/// worst case (5M 64-byte frames) one worker went from 0.94-1.14 s to 0.86-0.99 s, two workers
/// from 0.72-0.94 s to 0.53-0.55 s (same machine, same minutes).
pub(crate) const POPULATE_STEP: usize = 16 << 20;

/// Bytes a shared scan's pages are mapped ahead or released in one call (see
/// [`CaptureFile::populate_ahead`], [`CaptureFile::release_behind`]). Small on purpose: the
/// worker that makes the call is held up ~0.1 ms, less than the work the others have queued.
/// With [`POPULATE_STEP`] taken inside the scan (2 ms a call) and [`RELEASE_STEP`] (1.2 ms),
/// the other worker waited at every one: ~60 ms a run on the worst case, 5% of two workers' time.
pub(crate) const SHARED_STEP: usize = 1 << 20;

/// How far past a shared scan's position its pages are mapped ahead.
pub(crate) const SHARED_LEAD: usize = 4 << 20;

/// Hint the CPU to bring the cache line holding `b` closer; never faults, never changes meaning.
#[inline(always)]
pub(crate) fn prefetch(b: &u8) {
    #[cfg(target_arch = "x86_64")]
    #[allow(unsafe_code)]
    // SAFETY: prefetch is a hint; it cannot fault or change memory, and `b` is a valid reference.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(b as *const u8 as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = b;
}

/// How far behind the reader pages are released: packets handed out but still queued for other
/// threads (the multi-worker dispatcher's rings) are read from resident pages, not faulted back.
pub(crate) const RELEASE_LAG: usize = 16 << 20;

impl Backing {
    /// Drop the pages of `[from, to)` from this process's resident set. The file's pages stay
    /// in the page cache, and a later read of the range faults them back in with the same
    /// bytes, so nothing borrowed becomes invalid; without this, reading a capture file larger
    /// than memory limits would count the whole file against the process. No-op for owned
    /// bytes and on failure (advice only).
    pub(crate) fn release(&self, from: usize, to: usize) {
        #[cfg(unix)]
        if let Backing::Map(m) = self {
            const PAGE: usize = 4096;
            let start = from.next_multiple_of(PAGE);
            let end = to.min(m.len()) & !(PAGE - 1);
            if end > start {
                #[allow(unsafe_code)]
                // SAFETY: the mapping is a read-only (PROT_READ, MAP_SHARED) mapping of a file
                // and is never written. MADV_DONTNEED on it only unmaps this process's pages;
                // any later access faults the unchanged file contents back in from the page
                // cache, so every outstanding `&[u8]` into the range still reads the same bytes
                // (a test re-reads released packets). With pages larger than 4 KiB the call
                // fails with EINVAL and is ignored: advice only.
                let _ = unsafe {
                    m.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, start, end - start)
                };
            }
        }
        #[cfg(not(unix))]
        let _ = (from, to);
    }

    /// Release the pages from `released` up to [`RELEASE_LAG`] behind `at`, once at least
    /// `step` bytes are due; `released` records how far that has gone.
    pub(crate) fn release_lagging(&self, released: &mut usize, at: usize, step: usize) {
        if at >= *released + RELEASE_LAG + step {
            let to = at - RELEASE_LAG;
            self.release(*released, to);
            *released = to & !(4096 - 1);
        }
    }

    /// Map `[from, from + len)` into this process now (`MADV_POPULATE_READ`, Linux 5.14+), so
    /// reading it takes no page faults. Advice only: ignored on failure and elsewhere.
    pub(crate) fn populate(&self, from: usize, len: usize) {
        #[cfg(target_os = "linux")]
        if let Backing::Map(m) = self {
            let len = len.min(m.len().saturating_sub(from));
            if len > 0 {
                let _ = m.advise_range(memmap2::Advice::PopulateRead, from, len);
            }
        }
        #[cfg(not(target_os = "linux"))]
        let _ = (from, len);
    }

    pub(crate) fn bytes(&self) -> &[u8] {
        match self {
            Backing::Map(m) => m,
            Backing::Owned(v) => v,
        }
    }
}
