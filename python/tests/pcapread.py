"""A small reader of classic pcap files, independent of wirespeed: Ethernet (with 802.1Q tags),
IPv4 and IPv6 without extension headers, TCP and UDP, unfragmented. Counts packets and frame
bytes (the wire length) per bidirectional 5-tuple, for checking the engine's counters."""

from __future__ import annotations

import ipaddress
import struct
from collections import defaultdict

ETH_IPV4, ETH_IPV6, ETH_VLAN = 0x0800, 0x86DD, 0x8100


def flows(path):
    """{(l4, (ip, port), (ip, port)) sorted endpoints: [packets, bytes]} and the number of
    packets it could not place (not Ethernet/IP/TCP/UDP, fragments, truncated headers)."""
    data = open(path, "rb").read()
    magic = data[:4]
    if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
        e = "<"
    elif magic in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        e = ">"
    else:
        raise ValueError(f"{path}: not a classic pcap file")
    link = struct.unpack(e + "I", data[20:24])[0]
    if link != 1:
        raise ValueError(f"{path}: link type {link}, not Ethernet")
    out = defaultdict(lambda: [0, 0])
    other = 0
    at = 24
    while at + 16 <= len(data):
        _, _, incl, orig = struct.unpack(e + "IIII", data[at : at + 16])
        frame = data[at + 16 : at + 16 + incl]
        at += 16 + incl
        key = _key(frame)
        if key is None:
            other += 1
            continue
        out[key][0] += 1
        out[key][1] += orig
    return dict(out), other


def _key(f: bytes):
    if len(f) < 14:
        return None
    et = struct.unpack(">H", f[12:14])[0]
    off = 14
    while et == ETH_VLAN and len(f) >= off + 4:
        et = struct.unpack(">H", f[off + 2 : off + 4])[0]
        off += 4
    if et == ETH_IPV4:
        if len(f) < off + 20:
            return None
        ihl = (f[off] & 0x0F) * 4
        flags_frag = struct.unpack(">H", f[off + 6 : off + 8])[0]
        if flags_frag & 0x3FFF:  # MF or an offset: a fragment
            return None
        proto = f[off + 9]
        src = ipaddress.ip_address(f[off + 12 : off + 16])
        dst = ipaddress.ip_address(f[off + 16 : off + 20])
        l4 = off + ihl
    elif et == ETH_IPV6:
        if len(f) < off + 40:
            return None
        proto = f[off + 6]
        src = ipaddress.ip_address(f[off + 8 : off + 24])
        dst = ipaddress.ip_address(f[off + 24 : off + 40])
        l4 = off + 40
    else:
        return None
    if proto not in (6, 17) or len(f) < l4 + 4:
        return None
    sp, dp = struct.unpack(">HH", f[l4 : l4 + 4])
    a, b = sorted([(str(src), sp), (str(dst), dp)])
    return ({6: "TCP", 17: "UDP"}[proto], a, b)
