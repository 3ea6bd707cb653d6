//! Fuzz the stream framer (`wirespeed_capture::stream`): any bytes read as a pipe, in windows of
//! any size, must yield exactly the packets and error-or-not of the same bytes read as a file,
//! never a panic, an endless loop or a window beyond its bound.
#![no_main]

use libfuzzer_sys::fuzz_target;
use wirespeed_capture::stream::{StreamWindows, MAX_BLOCK, MAX_HEADER};
use wirespeed_capture::CaptureFile;

fuzz_target!(|input: &[u8]| {
    let Some((&w, data)) = input.split_first() else {
        return;
    };
    let window = usize::from(w) * 16 + 1;
    let whole: Vec<(u64, Vec<u8>)> = match CaptureFile::from_bytes("f", data.to_vec()) {
        Ok(f) => f
            .reader()
            .map_while(Result::ok)
            .map(|p| (p.ts_ns, p.data.to_vec()))
            .collect(),
        Err(_) => Vec::new(),
    };
    let mut s = StreamWindows::new(data, "f", window);
    let mut got = Vec::new();
    // Every window holds a record or ends the stream: more rounds than bytes would be a loop.
    for _ in 0..data.len() + 2 {
        let (win, end) = s.next_window();
        let Some(f) = win else {
            break;
        };
        assert!(f.len() <= (window + MAX_BLOCK + MAX_HEADER) as u64);
        let mut bad = false;
        for r in f.reader() {
            match r {
                Ok(p) => got.push((p.ts_ns, p.data.to_vec())),
                Err(_) => bad = true,
            }
        }
        if end.is_some() || bad {
            break;
        }
    }
    // The stream may stop earlier than the file reader (it refuses lengths a file could hold),
    // never later, and never with different packets.
    assert!(got.len() <= whole.len());
    assert_eq!(got[..], whole[..got.len()]);
});
