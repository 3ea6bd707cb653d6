//! Fuzz the DNS answer-section reader (`wirespeed_dpi::proto::dns::answers`) on arbitrary bytes,
//! as a whole message and cut in half. Never a panic; at most `MAX_ANSWERS` addresses and
//! `MAX_ANSWERS + 1` names (the question's, then one a CNAME record), each of at most 255
//! bytes, the question's name first; a message read whole gave the question's name.
#![no_main]

use std::net::IpAddr;

use libfuzzer_sys::fuzz_target;
use wirespeed_dpi::proto::dns::{answers, AnswerSink, MAX_ANSWERS};

#[derive(Default)]
struct Count {
    names: usize,
    addrs: usize,
}

impl AnswerSink for Count {
    fn name(&mut self, name: &[u8]) {
        assert!(name.len() <= 255);
        // The question's name comes before any address.
        assert!(self.names > 0 || self.addrs == 0);
        self.names += 1;
        assert!(self.names <= MAX_ANSWERS + 1);
    }
    fn addr(&mut self, _: IpAddr, ttl: u32) {
        assert!(self.names > 0, "an address before the question's name");
        assert!(ttl < 1 << 31);
        self.addrs += 1;
        assert!(self.addrs <= MAX_ANSWERS);
        assert!(self.names + self.addrs <= MAX_ANSWERS + 1);
    }
}

fuzz_target!(|data: &[u8]| {
    for m in [data, &data[..data.len() / 2]] {
        let mut c = Count::default();
        if answers(m, &mut c) {
            assert!(c.names >= 1);
        }
    }
});
