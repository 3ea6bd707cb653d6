#!/usr/bin/env python3
"""Flows found by wirespeed (wirespeed.nfstream.NFStreamer) against nfstream's, capture by capture.

usage: nfstream_compare.py [CORPUS_PCAP_DIR] [--idle S] [--active S] [--list N] [--only NAME,...]

Both sides run on each capture of the corpus with the same idle and active timeouts (nfstream
with one meter, per capture: it reads one capture per streamer; decode_tunnels=True on both
sides; no dissection on nfstream's side, the flows are what is compared). Flows are matched by
their key, the bidirectional 5-tuple (the two end-points sorted, so the orientation does not
matter) with the VLAN id; flows of one key are paired in the order they end. Prints the share of
nfstream's flows that wirespeed found and the reverse, how many matched flows have the same
packet and byte counters, and every difference, classified:

  split        the key is on both sides, but cut into a different number of flows (timeouts,
               wirespeed's end at FIN/RST plus closed_timeout, a new SYN)
  tunnel-outer nfstream's flow is a tunnel's outer flow (GRE, VXLAN, Teredo, ...: nfstream
               decodes only GTP-U, CAPWAP, TZSP) whose inner flows wirespeed keys instead
  tunnel-inner wirespeed's flow is the inner flow of such a tunnel
  not-counted  wirespeed counts no flow for these packets: the reason is its run summary's
               (`packets not in any flow`, per capture, printed below)
  other        none of these: listed with the capture for a closer look

Needs nfstream, pandas and the wirespeed package (with wirespeed.nfstream); the summary's reasons
come from the wirespeed binary (target/release/wirespeed, or $WIRESPEED_BIN), when present.
"""
from __future__ import annotations

import argparse
import collections
import os
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parents[1]
TUNNEL_PORTS = {4789: "VXLAN", 3544: "Teredo", 6081: "Geneve", 4754: "GRE-in-UDP", 5072: "AYIYA",
                2152: "GTP-U", 5246: "CAPWAP", 5247: "CAPWAP", 4341: "LISP"}
TUNNEL_PROTOS = {47: "GRE", 4: "IP-in-IP", 41: "IPv6-in-IPv4"}


def keyed(df: pd.DataFrame) -> dict:
    """{key: [rows in the order they end]} with key (protocol, vlan, endpoint A, endpoint B)."""
    out = collections.defaultdict(list)
    if df is None or len(df) == 0:
        return out
    df = df.sort_values(["bidirectional_last_seen_ms", "id"], kind="stable")
    cols = ["protocol", "vlan_id", "src_ip", "src_port", "dst_ip", "dst_port",
            "bidirectional_packets", "bidirectional_bytes", "bidirectional_last_seen_ms"]
    for r in df[cols].itertuples(index=False):
        a, b = sorted([(r.src_ip, int(r.src_port)), (r.dst_ip, int(r.dst_port))])
        out[(int(r.protocol), int(r.vlan_id), a, b)].append((int(r.bidirectional_packets), int(r.bidirectional_bytes)))
    return out


def summary_reasons(binary: Path, path: Path) -> dict:
    """wirespeed's run summary: {reason: packets not in any flow}."""
    if not os.access(binary, os.X_OK):
        return {}
    p = subprocess.run([str(binary), "classify", str(path), "-o", "/dev/null"],
                       capture_output=True, text=True)
    out, inside = {}, False
    for line in p.stderr.splitlines():
        if line.startswith("packets:"):
            inside = True
            continue
        if inside:
            if not line.startswith("  "):
                break
            text, _, n = line.strip().rpartition(" ")
            if n.isdigit():
                out[text.strip()] = int(n)
    return out


_frag_cache: dict = {}


def fragments(path: Path) -> int:
    """IPv4 packets that are a fragment past the first (offset > 0), in a classic Ethernet pcap
    (0 for other formats): nfstream drops them, wirespeed reassembles."""
    if path in _frag_cache:
        return _frag_cache[path]
    import struct
    n = 0
    data = path.read_bytes()
    if data[:4] in (b"\xd4\xc3\xb2\xa1", b"\xa1\xb2\xc3\xd4", b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\x3c\x4d"):
        e = "<" if data[0] in (0xD4, 0x4D) else ">"
        if struct.unpack(e + "I", data[20:24])[0] == 1:
            at = 24
            while at + 16 <= len(data):
                incl = struct.unpack(e + "I", data[at + 8 : at + 12])[0]
                f = data[at + 16 : at + 16 + incl]
                at += 16 + incl
                off, et = 14, f[12:14]
                while et == b"\x81\x00" and len(f) >= off + 4:
                    et, off = f[off + 2 : off + 4], off + 4
                if et == b"\x08\x00" and len(f) >= off + 8 and struct.unpack(">H", f[off + 6 : off + 8])[0] & 0x1FFF:
                    n += 1
    _frag_cache[path] = n
    return n


def counters_kind(x, y, path: Path) -> str:
    """Why a matched flow's (packets, bytes) differ: nfstream's x, wirespeed's y."""
    if x[0] == y[0]:
        return "counters-bytes" + (" (wirespeed fewer: it counts the captured length of frames cut"
                                   " by the capture, nfstream their length on the wire)" if y[1] < x[1] else "")
    if y[0] > x[0] and fragments(path):
        return "counters-fragments (nfstream drops IPv4 fragments past the first)"
    if x[0] > y[0]:
        return "counters-corrupt (nfstream counts packets wirespeed rejects: summary)"
    return "counters-other"


def classify_diff(key, side: str, wtunnels: dict) -> str:
    proto, _vlan, a, b = key
    if side == "nfstream":
        if proto in TUNNEL_PROTOS:
            return f"tunnel-outer ({TUNNEL_PROTOS[proto]})"
        if proto == 17 and (a[1] in TUNNEL_PORTS or b[1] in TUNNEL_PORTS):
            port = a[1] if a[1] in TUNNEL_PORTS else b[1]
            return f"tunnel-outer ({TUNNEL_PORTS[port]})"
        return "other"
    t = wtunnels.get(key)
    if t:
        return f"tunnel-inner ({t})"
    return "other"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus", nargs="?", default=str(REPO.parent / "shared" / "corpus" / "pcap"))
    ap.add_argument("--idle", type=int, default=120)
    ap.add_argument("--active", type=int, default=1800)
    ap.add_argument("--list", type=int, default=1000, help="differences listed at most")
    ap.add_argument("--only", default="", help="comma-separated capture names")
    args = ap.parse_args()

    import nfstream
    import wirespeed
    from wirespeed.nfstream import NFStreamer

    binary = Path(os.environ.get("WIRESPEED_BIN") or REPO / "target" / "release" / "wirespeed")
    paths = sorted(p for p in Path(args.corpus).iterdir() if p.is_file())
    if args.only:
        keep = set(args.only.split(","))
        paths = [p for p in paths if p.name in keep]
    n_total = w_total = n_matched = w_matched = same_counts = 0
    diffs = []  # (capture, side, kind, key, counters)
    reasons_by_capture = {}
    errors = []
    t0 = time.time()
    for i, path in enumerate(paths):
        opts = dict(idle_timeout=args.idle, active_timeout=args.active, decode_tunnels=True)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ndf = nfstream.NFStreamer(source=str(path), n_meters=1, n_dissections=0, **opts).to_pandas()
        except Exception as e:  # nfstream refuses some captures (link types, damage)
            errors.append((path.name, "nfstream", f"{type(e).__name__}: {str(e)[:120]}"))
            ndf = None
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                wdf = NFStreamer(source=str(path), n_dissections=0, **opts).to_pandas()
                raw = wirespeed.classify(str(path), classifiers="none", tcp_timeout=float(args.idle),
                                         udp_timeout=float(args.idle), other_timeout=float(args.idle),
                                         closed_timeout=float(args.idle)).to_pandas()
        except Exception as e:
            errors.append((path.name, "wirespeed", f"{type(e).__name__}: {str(e)[:120]}"))
            wdf, raw = None, None
        wtunnels = {}
        if raw is not None and len(raw):
            for r in raw[raw.tunnel.notna()][["ip_proto", "vlan", "src_ip", "src_port", "dst_ip", "dst_port", "tunnel"]].itertuples(index=False):
                a, b = sorted([(r.src_ip, int(r.src_port)), (r.dst_ip, int(r.dst_port))])
                wtunnels[(int(r.ip_proto), int(r.vlan), a, b)] = r.tunnel
        nk, wk = keyed(ndf), keyed(wdf)
        for key in set(nk) | set(wk):
            nl, wl = nk.get(key, []), wk.get(key, [])
            n_total += len(nl)
            w_total += len(wl)
            if nl and wl and len(nl) != len(wl):
                diffs.append((path.name, "both", "split", key, f"nfstream {nl} / wirespeed {wl}"))
                m = 0  # a different cut: none of these flows counts as matched
            else:
                m = min(len(nl), len(wl))
                # pair identical counters first (a capture whose clock goes back orders the
                # flows of a key differently on the two sides), the rest in order
                rest_n, rest_w = list(nl), []
                for y in wl:
                    if y in rest_n:
                        rest_n.remove(y)
                        same_counts += 1
                    else:
                        rest_w.append(y)
                for x, y in zip(rest_n, rest_w):
                    diffs.append((path.name, "both", counters_kind(x, y, path), key,
                                  f"nfstream {x} / wirespeed {y}"))
                for x in nl[m:]:
                    diffs.append((path.name, "nfstream", classify_diff(key, "nfstream", wtunnels), key, str(x)))
                for y in wl[m:]:
                    diffs.append((path.name, "wirespeed", classify_diff(key, "wirespeed", wtunnels), key, str(y)))
            n_matched += m
            w_matched += m
        if any(d[0] == path.name for d in diffs):
            reasons = reasons_by_capture[path.name] = summary_reasons(binary, path)
            if reasons:  # wirespeed left packets out of every flow: nfstream's extra flows
                for j, d in enumerate(diffs):
                    if d[0] == path.name and d[1] == "nfstream" and d[2] == "other":
                        diffs[j] = (d[0], d[1], "not-counted", d[3], d[4])
        if (i + 1) % 50 == 0:
            print(f"... {i + 1}/{len(paths)} captures, {time.time() - t0:.0f} s", file=sys.stderr)

    print(f"# wirespeed vs nfstream {nfstream.__version__}: {len(paths)} captures, "
          f"idle_timeout={args.idle} s, active_timeout={args.active} s\n")
    pct = lambda a, b: 100.0 * a / b if b else 100.0  # noqa: E731
    print(f"nfstream flows found by wirespeed: {n_matched} / {n_total} = {pct(n_matched, n_total):.2f}%")
    print(f"wirespeed flows found by nfstream: {w_matched} / {w_total} = {pct(w_matched, w_total):.2f}%")
    print(f"matched flows with the same packets and bytes: {same_counts} / {n_matched} = {pct(same_counts, n_matched):.2f}%")
    kinds = collections.Counter((d[1], d[2]) for d in diffs)
    print("\n## differences by kind\n\n| side | kind | count |\n|---|---|---:|")
    for (side, kind), c in sorted(kinds.items()):
        print(f"| {side} | {kind} | {c} |")
    by_cap = collections.Counter(d[0] for d in diffs)
    print("\n## captures with differences\n\n| capture | differences | wirespeed: packets not in any flow |\n|---|---:|---|")
    for cap, c in by_cap.most_common():
        r = "; ".join(f"{k} {v}" for k, v in reasons_by_capture.get(cap, {}).items())
        print(f"| {cap} | {c} | {r} |")
    print(f"\n## every difference (first {args.list})\n")
    for d in diffs[: args.list]:
        proto, vlan, a, b = d[3]
        print(f"- {d[0]}: {d[1]} {d[2]}: proto {proto} vlan {vlan} {a[0]}:{a[1]} <-> {b[0]}:{b[1]}: {d[4]}")
    if errors:
        print("\n## errors\n")
        for e in errors:
            print(f"- {e[0]} ({e[1]}): {e[2]}")
    print(f"\n({time.time() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
