//! Waiting on another thread of a run for something that comes soon (a chunk being scanned, a
//! worker running its packets before a lookup's): spin briefly, then yield.

use std::sync::atomic::{AtomicBool, Ordering};

/// Wait for `ready`, spinning briefly, then yielding; false if `abort` was set first.
pub(crate) fn wait_for(abort: &AtomicBool, mut ready: impl FnMut() -> bool) -> bool {
    let mut spins = 0u32;
    while !ready() {
        if abort.load(Ordering::Relaxed) {
            return false;
        }
        if spins < 64 {
            spins += 1;
            std::hint::spin_loop();
        } else {
            std::thread::yield_now();
        }
    }
    true
}
