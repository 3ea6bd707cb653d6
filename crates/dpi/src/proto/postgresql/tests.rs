use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// pgsql.pcap frame 7: startup (user "oryx", database "mailstore"); frame 74: SSLRequest.
const STARTUP: &str = "000000260003000075736572006f727978006461746162617365006d61696c73746f72650000";
const SSL: &str = "0000000804d2162f";

#[test]
fn corpus_vectors() {
    assert_eq!(classify(TCP, 5432, 45930, &[(true, &hex(STARTUP))]), Some("PostgreSQL"));
    assert_eq!(classify(TCP, 5432, 59039, &[(true, &hex(SSL))]), Some("PostgreSQL"));
}

#[test]
fn length_checked() {
    let mut v = hex(STARTUP);
    v.push(0);
    assert_eq!(run(&INSPECTOR, TCP, 5432, 4000, false, &v), Probe::NotForUs);
}
