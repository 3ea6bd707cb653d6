use super::*;
use crate::proto::testkit::{classify, hex, probe as run};

// irc.pcap frames 4 and 6: "USER xxxxx +iw xxxxx :Xxxxxx Xxxx" and "NICK molochtest".
const USER: &str = "55534552207878787878202b6977207878787878203a58787878787820587878780d0a";
const NICK: &str = "4e49434b206d6f6c6f6368746573740d0a";

#[test]
fn corpus_vectors() {
    assert_eq!(classify(TCP, 8000, 45921, &[(true, &hex(USER))]), Some("IRC"));
    assert_eq!(classify(TCP, 8000, 45921, &[(true, &hex(NICK))]), Some("IRC"));
}

#[test]
fn ftp_user_is_not_irc() {
    assert_eq!(run(&INSPECTOR, TCP, 21, 4000, false, b"USER anonymous\r\n"), Probe::NotForUs);
    assert_eq!(run(&INSPECTOR, TCP, 6667, 4000, true, b":a.b PRIVMSG x\r\n"), Probe::NotForUs);
}
