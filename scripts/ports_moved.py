#!/usr/bin/env python3
"""The same payloads off their ports: which inspector claims what it did not before.

Copies each capture of a directory (pcapng converted to pcap by editcap) with every TCP and
UDP port below 32768 moved up by 32768 (IPv4 and IPv6 without extension headers; Ethernet,
VLAN, raw IP, Linux cooked and BSD loopback links; fragments and other packets unchanged),
(or, with `--to P`, to port P), classifies the originals and the copies with BIN, and prints, for the flows payload inspection
named in both, each (original master -> master off the port) pair that differs. The payload is
byte for byte the same, so a pair names either a protocol whose name is its port's (LLMNR,
mDNS and NBNS are DNS's format; IMAPS is TLS on 993) or an inspector that took something the
port's own inspector had taken first: a false positive waiting for a link where that port is
not in use. Moving a tunnel's port (GTP-U's 2152) leaves the tunnel unopened: such pairs name
the tunnel. Example (sixteenth session):

    python3 scripts/ports_moved.py --bin target/dist/wirespeed ../shared/corpus/pcap
"""
import argparse
import collections
import csv
import os
import shutil
import struct
import subprocess
import sys
import tempfile


def l3_off(link, f):
    if link == 1:  # Ethernet, VLAN tags
        off = 12
        while off + 2 <= len(f):
            et = struct.unpack_from(">H", f, off)[0]
            if et in (0x8100, 0x88a8, 0x9100):
                off += 4
                continue
            return off + 2 if et in (0x0800, 0x86dd) else None
        return None
    if link in (101, 12, 14, 228, 229):
        return 0
    if link == 113 and len(f) >= 16 and struct.unpack_from(">H", f, 14)[0] in (0x0800, 0x86dd):
        return 16
    if link == 276 and len(f) >= 20 and struct.unpack_from(">H", f, 0)[0] in (0x0800, 0x86dd):
        return 20
    if link == 0:
        return 4
    return None


TO = None  # --to: every port below 32768 becomes this one


def moved(p):
    if p < 32768:
        return TO if TO is not None else p + 32768
    return p


def rewrite(f, off):
    if off is None or off + 1 > len(f):
        return f
    v = f[off] >> 4
    if v == 4 and off + 20 <= len(f):
        if struct.unpack_from(">H", f, off + 6)[0] & 0x1fff:
            return f
        proto, l4 = f[off + 9], off + (f[off] & 15) * 4
    elif v == 6 and off + 40 <= len(f):
        proto, l4 = f[off + 6], off + 40
    else:
        return f
    if proto not in (6, 17) or l4 + 4 > len(f):
        return f
    s, d = struct.unpack_from(">HH", f, l4)
    b = bytearray(f)
    struct.pack_into(">HH", b, l4, moved(s), moved(d))
    return bytes(b)


def move_file(src, dst):
    data = open(src, "rb").read()
    if len(data) < 24:
        return False
    magic = struct.unpack_from("<I", data, 0)[0]
    e = {0xa1b2c3d4: "<", 0xa1b23c4d: "<", 0xd4c3b2a1: ">", 0x4d3cb2a1: ">"}.get(magic)
    if e is None:
        return False
    link = struct.unpack_from(e + "I", data, 20)[0] & 0xffff
    out, at = [data[:24]], 24
    while at + 16 <= len(data):
        incl = struct.unpack_from(e + "I", data, at + 8)[0]
        f = data[at + 16:at + 16 + incl]
        out += [data[at:at + 16], rewrite(f, l3_off(link, f))]
        at += 16 + incl
    out.append(data[at:])
    open(dst, "wb").write(b"".join(out))
    return True


def classify(binary, d, out):
    subprocess.run([binary, "classify", "--format", "csv", "-q", "--ordered", "--workers", "1",
                    "-o", out, d], check=False, stderr=subprocess.DEVNULL)
    return {(r["pcap"], r["flow_id"]): r for r in csv.DictReader(open(out))}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--to", type=int, help="move every port below 32768 to this one instead "
                    "(another protocol's port: does its inspector, tried first there, claim "
                    "what is not its own?)")
    ap.add_argument("dir")
    a = ap.parse_args()
    global TO
    TO = a.to
    if not shutil.which("editcap"):
        sys.exit("ports_moved: editcap (Debian tshark's package) converts pcapng; not found")
    tmp = tempfile.mkdtemp(prefix="ports-moved-")
    try:
        orig, mv = os.path.join(tmp, "orig"), os.path.join(tmp, "moved")
        os.makedirs(orig)
        os.makedirs(mv)
        skipped = 0
        for name in sorted(os.listdir(a.dir)):
            src = os.path.join(a.dir, name)
            if not os.path.isfile(src):
                continue
            o = os.path.join(orig, name)
            if subprocess.run(["editcap", "-F", "pcap", src, o], stderr=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL).returncode != 0:
                shutil.copy(src, o)
            if not move_file(o, os.path.join(mv, name)):
                os.remove(o)
                skipped += 1
        before = classify(a.bin, orig, os.path.join(tmp, "orig.csv"))
        after = classify(a.bin, mv, os.path.join(tmp, "moved.csv"))
        pairs, examples = collections.Counter(), {}
        for k, x in before.items():
            y = after.get(k)
            if y and x["method"] == "dpi" == y["method"] and x["master"] != y["master"]:
                pairs[(x["master"], y["master"])] += 1
                examples.setdefault((x["master"], y["master"]), k)
        print(f"{len(before)} flows ({skipped} captures not converted), "
              f"{sum(1 for x in before.values() if x['method'] == 'dpi')} named by payload")
        print("| flows | master | off its port | e.g. (capture, flow_id) |")
        print("|---:|---|---|---|")
        for (m, n), c in pairs.most_common():
            print(f"| {c} | {m} | {n} | {examples[(m, n)][0]} {examples[(m, n)][1]} |")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
