use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// iso9506-1-mms.pcap, 172.16.0.101:1345 -> 172.16.202.5:102 (nDPI: ISO9506-1-MMS): the COTP
// connection request (TSAPs 00 01), the client's session CONNECT with the MMS initiate request
// (167 bytes; 06 05 28 ca 22 02 01 at offset 77, 06 05 28 ca 22 02 03 at 111) and the
// server's ACCEPT.
const CR: &str = "0300001611e00000077800c1020001c2020001c0010d";
const CONNECT: &str = "030000a702f0800d9e0506130100160102140200023302000134020001c188318185a003800101a27e810400000001820400000001a423300f0201010604520100013004060251013010020103060528ca2202013004060251018802060061473045020101a040603e80020780a107060528ca220203be2f282d020103a028a826800300fa0081010a82010a830105a416800101810305e100820c03a00000000000000000e110";
const ACCEPT: &str = "0300009202f0800e89050613010016010214020002c17b3179a003800101a272830400000001a5123007800100810251013007800100810251018802060061523050020101a04b614980020780a107060528ca220203a203020100a305a103020100be2e282c020103a027a92580027d0081010a820108830105a416800101810305e100820c03ee0800000400000001ed18";

#[test]
fn corpus_flow() {
    let (cr, cn) = (hex(CR), hex(CONNECT));
    assert_eq!(cn.len(), 167);
    assert_eq!(run(&INSPECTOR, TCP, 102, 1345, false, &cr), Probe::Unsure);
    assert_eq!(classify(TCP, 102, 1345, &[(true, &cr), (true, &cn)]), Some("ISO9506-1-MMS"));
    assert_eq!(run(&INSPECTOR, TCP, 102, 1345, true, &hex(ACCEPT)), Probe::Certain(&LABEL));
    // The request and the CONNECT in one reassembled stream.
    let both: Vec<u8> = cr.iter().chain(cn.iter()).copied().collect();
    assert_eq!(run(&INSPECTOR, TCP, 102, 1345, false, &both), Probe::Certain(&LABEL));
}

#[test]
fn other_session_users_and_s7() {
    let mut cn = hex(CONNECT);
    // Another OID arc (1.0.9506.2.2) in both places: not MMS.
    for at in [83, 117] {
        assert_eq!(cn[at], if at == 83 { 1 } else { 3 });
        cn[at] = 2;
    }
    assert_eq!(run(&INSPECTOR, TCP, 102, 1345, false, &cn), Probe::NotForUs);
    // S7comm data on the same port (s7comm.pcap shape: protocol id 0x32).
    let s7 = hex("0300001902f08032010000000000080000f0000001000101e0");
    assert_eq!(run(&INSPECTOR, TCP, 102, 4000, false, &s7), Probe::NotForUs);
    // A connection request off port 102 does not wait.
    assert_eq!(run(&INSPECTOR, TCP, 3389, 4000, false, &hex(CR)), Probe::NotForUs);
}
