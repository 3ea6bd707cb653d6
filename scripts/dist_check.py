#!/usr/bin/env python3
"""Check `--stats dist` against tshark: per direction, packet count, IP length min / mean / max /
population standard deviation, inter-arrival min / mean / max / standard deviation, and TCP
flag counts, recomputed from tshark's own dissection of every packet.

    scripts/dist_check.py [--wirespeed target/release/wirespeed] CAPTURE|DIR ...

Flows compared: TCP and UDP over plain IPv4/IPv6 (packets with one IP layer: tunnels are left
out), whose 5-tuple is one flow in wirespeed's records and one in tshark's packets. Every
difference is listed; the last line says how many flows agree.
"""
import argparse, json, math, os, subprocess, sys
from collections import defaultdict

FLAGS = [0x02, 0x01, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80]  # SYN FIN RST PSH ACK URG ECE CWR
NAMES = ["syn", "fin", "rst", "psh", "ack", "urg", "ece", "cwr"]


def tshark(path):
    fields = ["frame.time_epoch", "ip.src", "ip.dst", "ipv6.src", "ipv6.dst", "ip.len",
              "ipv6.plen", "tcp.srcport", "tcp.dstport", "udp.srcport", "udp.dstport",
              "tcp.flags", "ip.proto", "ipv6.nxt"]
    cmd = ["tshark", "-n", "-r", path, "-T", "fields", "-E", "separator=\t",
           "-E", "occurrence=a", "-o", "tcp.analyze_sequence_numbers:FALSE"]
    for f in fields:
        cmd += ["-e", f]
    out = subprocess.run(cmd, capture_output=True, text=True).stdout
    flows = defaultdict(list)
    for line in out.splitlines():
        v = line.split("\t")
        if len(v) < len(fields):
            continue
        t, s4, d4, s6, d6, l4len, plen, ts, td, us, ud, tf, p4, p6 = v[:14]
        # One IP layer, one transport header.
        if (s4 and s6) or "," in s4 + s6 + ts + us + l4len + plen:
            continue
        if s4:
            src, dst, size = s4, d4, l4len
        elif s6:
            src, dst = s6, d6
            size = str(int(plen) + 40) if plen else ""
        else:
            continue
        if ts and td:
            proto, sp, dp = 6, int(ts), int(td)
        elif us and ud:
            proto, sp, dp = 17, int(us), int(ud)
        else:
            continue
        if not size:
            continue
        flags = int(tf, 16) if tf else None
        a, b = (src, sp), (dst, dp)
        key = (proto,) + tuple(sorted([a, b]))
        flows[key].append((float(t), a, int(size), flags))
    return flows


def direction(pkts):
    """The figures of one direction, computed as the record documents them."""
    n = len(pkts)
    sizes = [p[1] for p in pkts]
    out = {"n": n}
    if n:
        mean = sum(sizes) / n
        out.update(ps_min=min(sizes), ps_max=max(sizes), ps_mean=mean,
                   ps_std=math.sqrt(sum((s - mean) ** 2 for s in sizes) / n))
    gaps, last = [], None
    for t, _, _ in pkts:
        if last is not None:
            gaps.append(max(0.0, t - last) * 1e6)
        last = t if last is None else max(last, t)
    if gaps:
        gm = sum(gaps) / len(gaps)
        out.update(piat_min_us=min(gaps), piat_max_us=max(gaps), piat_mean_us=gm,
                   piat_std_us=math.sqrt(sum((g - gm) ** 2 for g in gaps) / len(gaps)))
    for bit, name in zip(FLAGS, NAMES):
        out[name] = sum(1 for _, _, f in pkts if f is not None and f & bit)
    return out


def close(a, b, what):
    if a is None or b is None:
        return a is None and b is None
    # Times: tshark's epoch text has microseconds (or ns) and doubles lose the last digits of
    # 1.6e9 s, so gaps agree to about a microsecond; sizes and their moments exactly (3 decimals).
    tol = 2.0 if "piat" in what else 0.0015
    return abs(a - b) <= tol + 1e-9 * abs(b)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--wirespeed", default="target/release/wirespeed")
    ap.add_argument("inputs", nargs="+")
    a = ap.parse_args()
    files = []
    for i in a.inputs:
        if os.path.isdir(i):
            files += sorted(os.path.join(i, f) for f in os.listdir(i))
        else:
            files.append(i)
    agree = total = skipped = 0
    for path in files:
        r = subprocess.run([a.wirespeed, "classify", "--stats", "dist", "-q", path],
                           capture_output=True, text=True)
        recs = defaultdict(list)
        for line in r.stdout.splitlines():
            rec = json.loads(line)
            if rec["l4"] not in ("TCP", "UDP") or rec["tunnel"]:
                continue
            proto = 6 if rec["l4"] == "TCP" else 17
            c, s = (rec["src_ip"], rec["src_port"]), (rec["dst_ip"], rec["dst_port"])
            recs[(proto,) + tuple(sorted([c, s]))].append(rec)
        pk = tshark(path)
        for key, rl in recs.items():
            if len(rl) != 1 or key not in pk:
                continue
            rec = rl[0]
            client = (rec["src_ip"], rec["src_port"])
            pkts = pk[key]
            want = {"c2s": direction([(t, s, f) for t, e, s, f in pkts if e == client]),
                    "s2c": direction([(t, s, f) for t, e, s, f in pkts if e != client])}
            if want["c2s"]["n"] != rec["c2s_pkts"] or want["s2c"]["n"] != rec["s2c_pkts"]:
                # Packets tshark shows that the flow does not count (or the other way): a
                # different flow definition, not a figure to compare.
                skipped += 1
                continue
            total += 1
            diffs = []
            for d in ("c2s", "s2c"):
                w = want[d]
                for k in ("ps_min", "ps_mean", "ps_max", "ps_std", "piat_min_us",
                          "piat_mean_us", "piat_max_us", "piat_std_us") + tuple(NAMES):
                    got = rec.get(f"{d}_{k}")
                    if not close(got, w.get(k), k):
                        diffs.append(f"{d}_{k}: wirespeed {got}, tshark {w.get(k)}")
            if diffs:
                print(f"{os.path.basename(path)} {key}: " + "; ".join(diffs))
            else:
                agree += 1
    pct = 100.0 * agree / total if total else 0.0
    print(f"{agree} of {total} flows agree with tshark ({pct:.2f}%); {skipped} more left out "
          "because tshark's packets of the 5-tuple are not the flow's (counted differently)")
    return 0 if total and agree == total else 1


if __name__ == "__main__":
    sys.exit(main())
