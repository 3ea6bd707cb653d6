use super::*;
use crate::proto::testkit::{classify, probe as run};

// guildwars2.pcapng: tcp/6112, PLAIN TEXT "P /Sts/Connect STS/1.0"; the header lines after it
// are filler in the same style.
const CONNECT: &[u8] = b"P /Sts/Connect STS/1.0\r\nl:120\r\n\r\n<Connect><ClientPortAddress/></Connect>\n";

#[test]
fn sts_preamble() {
    assert_eq!(classify(TCP, 6112, 33959, &[(true, CONNECT)]), Some("GuildWars2"));
}

#[test]
fn near_misses() {
    // The first line alone is too short; another STS path is not the game's.
    assert_eq!(run(&INSPECTOR, TCP, 6112, 33959, false, &CONNECT[..24]), Probe::NotForUs);
    let other = b"P /Sts/Ping STS/1.0\r\nl:120\r\n\r\n<Ping/>.........................";
    assert_eq!(run(&INSPECTOR, TCP, 6112, 33959, false, other), Probe::NotForUs);
}
