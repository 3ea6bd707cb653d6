use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// Captured from rpcinfo against rpcbind 1.2.6 (Debian rpcbind) in two network namespaces
// (scripts/netcap, scenario "nfs"; tshark 4.0.17 dissects both calls as rpc:portmap).
// "rpcinfo -u SERVER 100003 3" first asks rpcbind version 4 RPCBPROC_GETADDR (3, RFC 1833
// section 2.2.1) over UDP for NFS (100003) version 3, netid "udp", address
// "192.0.2.2.0.111", owner "libtirpc".
const GETADDR: &str = "6b0ab755 00000000 00000002 000186a0 00000004 00000003
                       00000000 00000000 00000000 00000000
                       000186a3 00000003 00000003 75647000
                       0000000f 3139322e302e322e322e302e31313100 00000008 6c69627469727063";
// "rpcinfo -p SERVER": a version 2 PMAPPROC_DUMP (4, RFC 1833 section 3.2) over TCP, behind
// its record marker (last fragment, 40 bytes).
const DUMP_TCP: &str = "80000028 70920d97 00000000 00000002 000186a0 00000002 00000004
                        00000000 00000000 00000000 00000000";

// A mountd (100005 v1) MNT (1) call built by hand (RFC 1094 appendix A, RFC 5531 section
// 8.2's AUTH_SYS), naming the machine "nfsclient": stamp, name (9 bytes padded to 12), uid,
// gid, no extra gids; then the directory path "/x".
const MNT: &str = "0000abcd 00000000 00000002 000186a5 00000001 00000001
                   00000001 00000020 00000001 00000009 6e6673636c69656e 74000000
                   00000000 00000000 00000000
                   00000000 00000000
                   00000002 2f780000";

#[test]
fn calls_are_nfs() {
    assert_eq!(classify(UDP, 111, 714, &[(true, &hex(GETADDR))]), Some("NFS"));
    assert_eq!(classify(TCP, 111, 714, &[(true, &hex(DUMP_TCP))]), Some("NFS"));
    // mountd listens on a port the portmapper hands out.
    assert_eq!(classify(UDP, 1048, 671, &[(true, &hex(MNT))]), Some("NFS"));
    // An NFSv3 NULL call (proc 0) to 2049.
    let null = hex("00000001 00000000 00000002 000186a3 00000003 00000000 0000000000000000 0000000000000000");
    assert_eq!(classify(UDP, 2049, 1022, &[(true, &null)]), Some("NFS"));
}

#[test]
fn tcp_record_marker() {
    let body = hex(GETADDR);
    let mut seg = (0x8000_0000u32 | body.len() as u32).to_be_bytes().to_vec();
    seg.extend_from_slice(&body);
    assert_eq!(classify(TCP, 111, 800, &[(true, &seg)]), Some("NFS"));
    // Without the last-fragment bit, or with a fragment shorter than the segment: not a call.
    seg[0] = 0;
    assert_eq!(run(&INSPECTOR, TCP, 111, 800, false, &seg), Probe::NotForUs);
    // Bare UDP-style call on TCP (no marker) is not accepted.
    assert_eq!(run(&INSPECTOR, TCP, 111, 800, false, &body), Probe::NotForUs);
}

#[test]
fn near_misses() {
    let ok = hex(GETADDR);
    assert_eq!(run(&INSPECTOR, UDP, 111, 800, false, &ok), Probe::Certain(&LABEL));
    let mut reply = ok.clone();
    reply[7] = 1; // REPLY, not CALL
    assert_eq!(run(&INSPECTOR, UDP, 111, 800, false, &reply), Probe::NotForUs);
    let mut rpcv = ok.clone();
    rpcv[11] = 3; // RPC version 3 does not exist
    assert_eq!(run(&INSPECTOR, UDP, 111, 800, false, &rpcv), Probe::NotForUs);
    let mut prog = ok.clone();
    prog[15] = 0xa1; // 100001 (rstatd) is not NFS
    assert_eq!(run(&INSPECTOR, UDP, 111, 800, false, &prog), Probe::NotForUs);
    let mut vers = ok.clone();
    vers[19] = 9;
    assert_eq!(run(&INSPECTOR, UDP, 111, 800, false, &vers), Probe::NotForUs);
    let mut cred = ok.clone();
    cred[27] = 5; // unknown auth flavor
    assert_eq!(run(&INSPECTOR, UDP, 111, 800, false, &cred), Probe::NotForUs);
    let mut long = hex(MNT);
    long[31] = 0xff; // credential body longer than the datagram
    assert_eq!(run(&INSPECTOR, UDP, 1048, 800, false, &long), Probe::NotForUs);
}

/// The inspectors added for captures outside the corpus (branch rpc), on arbitrary bytes behind
/// openings that pass their first checks, in both directions and on their own ports: they
/// return without panicking (no out-of-bounds read, overflow or runaway loop).
mod hostile {
    use crate::proto::{
        cassandra, citrix, corba, mgcp, nfs, nomachine, openflow, pptp, radmin, smpp, tftp,
        thrift, websocket, xdmcp, z3950,
    };
    use crate::proto::testkit::probe;
    use crate::{Inspector, TCP, UDP};
    use proptest::prelude::*;

    const MINE: &[&Inspector] = &[
        &nfs::INSPECTOR,
        &tftp::INSPECTOR,
        &mgcp::INSPECTOR,
        &thrift::INSPECTOR,
        &cassandra::INSPECTOR,
        &corba::INSPECTOR,
        &smpp::INSPECTOR,
        &openflow::INSPECTOR,
        &pptp::INSPECTOR,
        &xdmcp::INSPECTOR,
        &z3950::INSPECTOR,
        &citrix::INSPECTOR,
        &radmin::INSPECTOR,
        &nomachine::INSPECTOR,
        &websocket::INSPECTOR,
    ];

    const OPENINGS: &[&[u8]] = &[
        b"\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x02\x00\x01\x86\xa3",
        b"\x80\x00\x00\x40\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x02",
        b"\x00\x01",
        b"\x00\x03\x00\x01",
        b"\x00\x06blksize\x00",
        b"RQNT 1 a@b MGCP 1.0",
        b"\x80\x01\x00\x01",
        b"\x82\x81",
        b"\x04\x00\x00\x00\x01",
        b"GIOP\x01\x02\x01",
        b"MIOP\x10\x01",
        b"\x00\x00\x00\x09",
        b"\x04\x00",
        b"\x00\x9c\x00\x01\x1a\x2b\x3c\x4d",
        b"\x00\x01\x00\x07",
        b"\xb4\x81",
        b"\x7f\x7fICA\x00",
        b"\x01\x00\x00\x00\x25",
        b"NXSH-",
        b"\x81\x7e",
        b"\x82\x7f",
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        #[test]
        fn probes_never_panic(
            which in any::<prop::sample::Index>(),
            tail in proptest::collection::vec(any::<u8>(), 0..300),
            tcp in any::<bool>(),
            to_client in any::<bool>(),
        ) {
            let mut data = which.get(OPENINGS).to_vec();
            data.extend_from_slice(&tail);
            let t = if tcp { TCP } else { UDP };
            for ins in MINE {
                let port = ins.ports.first().copied().unwrap_or(4000);
                let _ = probe(ins, t, port, 40000, to_client, &data);
                let _ = probe(ins, t, 40001, 40000, to_client, &data);
            }
        }
    }
}
