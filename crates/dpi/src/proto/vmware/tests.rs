use super::*;
use crate::proto::testkit::{classify, probe as run};

// Built from the documented banner (no VMware host software is installable here): the greeting
// of ESXi/Workstation's authd as nmap's banner script prints it and as VMware's MKS clients read
// it, "220 VMware Authentication Daemon Version 1.10: SSL Required, ServerDaemonProtocol:SOAP,
// MKSDisplayProtocol:VNC , VMXARGS supported, NFCSSL supported/t" with its CRLF. tshark has no
// dissector for it (shown as `data` on 902).
const GREETING_V110: &[u8] = b"220 VMware Authentication Daemon Version 1.10: SSL Required, \
ServerDaemonProtocol:SOAP, MKSDisplayProtocol:VNC , VMXARGS supported, NFCSSL supported/t\r\n";
// The older daemon on 912, as nmap shows it.
const GREETING_V10: &[u8] =
    b"220 VMware Authentication Daemon Version 1.0, ServerDaemonProtocol:SOAP, MKSDisplayProtocol:VNC \r\n";

#[test]
fn documented_greetings() {
    for g in [GREETING_V110, GREETING_V10] {
        assert_eq!(run(&INSPECTOR, TCP, 902, 40000, true, g), Probe::Certain(&LABEL));
    }
    assert_eq!(classify(TCP, 902, 40000, &[(false, GREETING_V110)]), Some("VMware"));
    // Off its ports FTP and SMTP wait on a 220 that names neither: this greeting wins.
    assert_eq!(classify(TCP, 9902, 40000, &[(false, GREETING_V110)]), Some("VMware"));
}

#[test]
fn near_misses() {
    for bad in [
        &b"220 VMware Authentication Daemon Version 1.10"[..], // no CRLF
        b"220 VMware Authentication Daemon Version x\r\n",     // no version
        b"220 VMware Authentication Daemon\r\n",
        b"220 ProFTPD Server (VMware) ready\r\n",
        b"220 VMware Authentication Daemon Version 1.10\r\n331 x\r\n", // two lines
    ] {
        assert_eq!(run(&INSPECTOR, TCP, 902, 40000, true, bad), Probe::NotForUs, "{bad:?}");
    }
    // From the client's side it is not a greeting.
    assert_eq!(run(&INSPECTOR, TCP, 902, 40000, false, GREETING_V110), Probe::NotForUs);
}
