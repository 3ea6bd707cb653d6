//! A build without the cargo feature `kafka` (the default) has no Kafka client: `--kafka` is an
//! error, before any input is read, that says how to build it in. The feature's own tests are
//! in `kafka.rs`.
#![cfg(not(feature = "kafka"))]

use crate::common::{bin, demo};

#[test]
fn kafka_without_the_feature_is_an_error_saying_how_to_build_it() {
    let pcap = demo("kafka-absent.pcap");
    for cmd in [
        vec!["classify", "--kafka", "127.0.0.1:9092/flows"],
        vec!["live", "-i", "lo", "--kafka", "127.0.0.1:9092/flows"],
    ] {
        let mut c = bin();
        c.args(&cmd);
        if cmd[0] == "classify" {
            c.arg(&pcap);
        }
        let out = c.output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{cmd:?}: {err}");
        assert!(
            err.contains("built without Kafka support") && err.contains("--features kafka"),
            "{cmd:?}: {err}"
        );
        assert!(out.stdout.is_empty(), "{cmd:?}: no record written");
    }
}
