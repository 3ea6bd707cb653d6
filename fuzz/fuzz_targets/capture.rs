//! Fuzz the capture-file readers: any bytes, as a pcap or pcapng file held in memory, must yield
//! packets and at most one error, never a panic or an endless loop.
#![no_main]

use libfuzzer_sys::fuzz_target;
use wirespeed_capture::{CaptureFile, RawPacket};

fuzz_target!(|data: &[u8]| {
    let Ok(file) = CaptureFile::from_bytes("fuzz", data.to_vec()) else {
        return;
    };
    // Batched, the way the engine reads.
    let mut reader = file.reader();
    let mut batch: Vec<RawPacket<'_>> = Vec::with_capacity(32);
    let mut batched = 0usize;
    let mut errored = false;
    // Every packet consumes at least 12 bytes: more calls than this would be a loop.
    for _ in 0..data.len() / 12 + 2 {
        batch.clear();
        match reader.next_batch(&mut batch, 32) {
            Ok(0) => break,
            Ok(n) => {
                assert_eq!(n, batch.len());
                batched += n;
            }
            Err(e) => {
                assert!(batch.is_empty());
                assert!(e.offset <= file.len());
                errored = true;
                break;
            }
        }
        assert!(reader.position() <= file.len());
    }
    assert_eq!(reader.next_batch(&mut batch, 32).unwrap(), 0);
    // One at a time, through the iterator: the same packets and the same error.
    let mut n = 0usize;
    let mut it_errored = false;
    for r in file.reader() {
        match r {
            Ok(p) => {
                assert!(p.data.len() <= data.len());
                n += 1;
            }
            Err(_) => it_errored = true,
        }
    }
    assert_eq!(n, batched);
    assert_eq!(it_errored, errored);
    // A guessed record in the middle (pcap): inside the file; a reader from it ends, and a
    // reader from the start stopped at it lands on it or past it, never reads beyond it.
    if let Some(at) = file.record_near(file.len() / 2) {
        assert!(at < file.len());
        let from_there = file.reader_at(at).unwrap().count();
        assert!(from_there <= data.len() / 16 + 1);
        let mut head = file.reader();
        head.stop_at(at);
        let mut k = 0usize;
        while let Ok(m) = head.next_batch(&mut batch, 32) {
            batch.clear();
            if m == 0 {
                break;
            }
            k += m;
        }
        assert!(k <= n);
    }
});
