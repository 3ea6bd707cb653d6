//! Model files are input too: arbitrary bytes must load or be refused, never crash, and a model
//! that loads must classify without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;
use wirespeed_stats::{Early, Model};

fuzz_target!(|data: &[u8]| {
    if let Ok(m) = Model::from_bytes(data) {
        let mut e = Early::default();
        e.push(false, 60, 0, 0x02, 0);
        e.push(true, 1500, 1448, 0x18, 1000);
        if let Some((c, _)) = m.classify(&e, 6, 443) {
            assert!((c as usize) < m.classes.len());
        }
    }
});
