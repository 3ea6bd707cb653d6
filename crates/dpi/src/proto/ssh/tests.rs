use super::*;
use crate::tests::{probe, to_server, vector};

/// ssh.pcap frame 6 (client banner, tshark: SSH-2.0-OpenSSH_5.6) and frame 8 (client KEXINIT). The banner is tshark's
/// ssh.protocol; the HASSH was computed by hand as the MD5 of tshark's ssh.kex_algorithms,
/// ssh.encryption_algorithms_client_to_server, ssh.mac_algorithms_client_to_server and
/// ssh.compression_algorithms_client_to_server joined by ';'.
#[test]
fn banner_and_hassh_from_corpus() {
    let (r, m) = probe(&INSPECTOR, to_server(TCP, 22), &vector!("ssh_client_banner"));
    assert_eq!(r, Probe::Certain(&LABEL));
    assert_eq!(m.get(Field::SshClient), Some("SSH-2.0-OpenSSH_5.6"));
    let mut state = crate::StateArea::ZERO;
    state.get::<State>().seen = CLIENT;
    let kex = vector!("ssh_client_kexinit");
    let sigs = crate::tests::builtin_sigs();
    let (r, meta, _) =
        crate::tests::probe_from(&sigs, &INSPECTOR, to_server(TCP, 22), &kex, m, state);
    assert_eq!(r, Probe::Certain(&LABEL));
    assert_eq!(meta.get(Field::Hassh), Some("21b457a327ce7a2d4fce5ef2c42400bd"));
}

#[test]
fn not_ssh() {
    assert_eq!(probe(&INSPECTOR, to_server(TCP, 22), b"HTTP/1.1 200").0, Probe::NotForUs);
    assert_eq!(probe(&INSPECTOR, to_server(TCP, 22), b"SS").0, Probe::Unsure);
}
