//! The protocol inspectors, one folder each, and the registry that lists them.
//!
//! To add a protocol: create `<name>/mod.rs` with `pub static INSPECTOR: Inspector` (see the
//! crate documentation for the contract) and add `<name>` to the list below. The list's order
//! breaks ties between inspectors that both claim a packet, after the port hint: put specific
//! protocols before generic ones (SSDP before HTTP-like text, LLMNR and mDNS are told apart
//! inside `dns`).

use crate::Inspector;

macro_rules! protocols {
    ($($m:ident),* $(,)?) => {
        $(pub mod $m;)*
        /// Every inspector, in tie-break order.
        pub static REGISTRY: &[&Inspector] = &[$(&$m::INSPECTOR),*];
    };
}

protocols! {
    http,
    tls,
    ssh,
    quic,
    dtls,
    dns,
    dnscrypt,
    stun,
    ssdp,
    netbios,
    dhcp,
    slp,
    ntp,
    // Added with the second batch of inspectors (issue 4).
    gnutella,
    bittorrent,
    sd_rtn,
    telegram,
    raknet,
    fix,
    jabber,
    whatsapp,
    xiaomi,
    kafka,
    elasticsearch,
    rtsp,
    hp_virtgrp,
    spotify,
    can,
    kcp,
    nintendo,
    riotgames,
    crynetwork,
    zug,
    ipsec,
    openvpn,
    kerberos,
    wireguard,
    dhcpv6,
    radius,
    zabbix,
    sip,
    alicloud,
    smtp,
    ftp,
    pop3,
    imap,
    mqtt,
    socks,
    postgresql,
    mongodb,
    eaq,
    oicq,
    dropbox,
    tuyalp,
    bjnp,
    tplink_shp,
    ubntac2,
    nat_pmp,
    source_engine,
    tocaboca,
    syslog,
    rdp,
    telnet,
    mssql_tds,
    iec60870,
    teredo,
    collectd,
    rmcp,
    h323,
    viber,
    roughtime,
    mining,
    monero,
    syncthing,
    tinc,
    genshin,
    rx,
    dcerpc,
    discord,
    hots,
    activision,
    epicgames,
    lolwildrift,
    wow,
    nats,
    ldap,
    teamspeak,
    softether,
    bgp,
    ajp,
    amqp,
    bfd,
    ceph,
    diameter,
    ethernetip,
    fastcgi,
    git,
    gtp,
    hart_ip,
    irc,
    memcached,
    mysql,
    netflow,
    oracle,
    ptpv2,
    resp,
    rtmp,
    s7comm,
    skinny,
    sflow,
    someip,
    teamviewer,
    modbus,
    smb,
    snmp,
    vnc,
    rtp,
    // Captures outside the corpus (skype).
    skype,
    zoom,
    ppstream,
    sig, // byte signatures from a dictionary file: last, after the parsers
}

#[cfg(test)]
pub(crate) mod testkit;

/// A label with the same application and master name.
pub(crate) const fn label(master: &'static str, category: &'static str) -> crate::Label {
    crate::Label {
        app: master,
        master,
        category,
    }
}
