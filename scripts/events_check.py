#!/usr/bin/env python3
"""Check `--events` (docs/EVENTS.md) against tshark, capture by capture, as
crates/cli/tests/it/events.rs does on a few:

    scripts/events_check.py [--wirespeed target/release/wirespeed] CAPTURE|DIR ...

- DNS: the set of (question name, transaction id) of every DNS, mDNS and LLMNR message with a
  question, against the events' (`query`, `trans_id`) (a query and its answer are one event);
- HTTP: the multiset of (method, Host, URI) of every request over TCP, against the events'; a
  URI the event cut at its cap (`truncated`) matches a longer one it starts;
- TLS: the multiset of SNIs of the ClientHellos over TCP, one per TCP stream, against the
  events that read a ClientHello (a `ja3`, `ja4` or `sni`).

Also: every event's `flow_id` names a record of the same run with the same end-points. Every
difference is listed (cut to 300 characters); the last lines give shared / union per type.
"""
import argparse, collections, json, os, subprocess, sys, tempfile


def tshark(path, flt, fields):
    cmd = ["tshark", "-r", path, "-Y", flt, "-T", "fields", "-E", "separator=\t",
           "-E", "occurrence=f"]
    for f in fields:
        cmd += ["-e", f]
    out = subprocess.run(cmd, capture_output=True, text=True).stdout
    return [(l.split("\t") + [""] * len(fields))[:len(fields)] for l in out.splitlines()]


def one(ws, path, tmp):
    ev_path, rec_path = os.path.join(tmp, "ev.json"), os.path.join(tmp, "rec.json")
    # Exit 1: a damaged capture, whose good packets were read.
    r = subprocess.run([ws, "classify", "-q", "--workers", "1", path, "-o", rec_path,
                        "--events", ev_path])
    if r.returncode not in (0, 1):
        sys.exit(f"{path}: wirespeed exited {r.returncode}")
    events = [json.loads(l) for l in open(ev_path)]
    records = {json.loads(l)["flow_id"]: json.loads(l) for l in open(rec_path)}
    unjoined = 0
    for e in events:
        r = records.get(e["flow_id"])
        ends = ("src_ip", "src_port", "dst_ip", "dst_port")
        if r is None or any(r[k] != e[k] for k in ends):
            unjoined += 1
    res = {}
    theirs = {(n, int(i, 16)) for n, i in tshark(
        path, "(dns || mdns || llmnr) && dns.count.queries > 0", ["dns.qry.name", "dns.id"]) if i}
    ours = {(e["query"].replace("<root>", "<Root>"), e["trans_id"]) for e in events
            if e["event_type"] == "dns" and e["query"] is not None}
    res["dns"] = (collections.Counter(theirs), collections.Counter(ours))
    th = collections.Counter(tuple(r) for r in tshark(
        path, "http.request && tcp", ["http.request.method", "http.host", "http.request.uri"]))
    left, oh = collections.Counter(th), collections.Counter()
    for e in events:
        if e["event_type"] != "http" or e["method"] is None:
            continue
        k = (e["method"], e["host"] or "", e["uri"] or "")
        if e["truncated"]:
            k = next((c for c in th if c[:2] == k[:2] and c[2].startswith(k[2]) and left[c] > 0), k)
        left[k] -= 1
        oh[k] += 1
    res["http"] = (th, oh)
    hellos = {tuple(r) for r in tshark(path, "tls.handshake.type == 1 && tcp",
                                       ["tcp.stream", "tls.handshake.extensions_server_name"])}
    tt = collections.Counter(sni for _, sni in hellos)
    ot = collections.Counter(e["sni"] or "" for e in events if e["event_type"] == "tls"
                             and (e["ja3"] or e["ja4"] or e["sni"]))
    res["tls"] = (tt, ot)
    return res, unjoined


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--wirespeed", default="target/release/wirespeed")
    ap.add_argument("inputs", nargs="+")
    a = ap.parse_args()
    files = []
    for p in a.inputs:
        if os.path.isdir(p):
            files += sorted(os.path.join(p, f) for f in os.listdir(p))
        else:
            files.append(p)
    total = collections.Counter()
    unjoined = 0
    with tempfile.TemporaryDirectory() as tmp:
        for f in files:
            res, bad = one(a.wirespeed, f, tmp)
            unjoined += bad
            if bad:
                print(f"{os.path.basename(f)}: {bad} events without their record")
            for kind, (theirs, ours) in res.items():
                shared, union = sum((theirs & ours).values()), sum((theirs | ours).values())
                total[kind + " shared"] += shared
                total[kind + " union"] += union
                for k in sorted((theirs - ours).elements(), key=str):
                    print(f"{os.path.basename(f)} {kind}: only tshark: {k}"[:300])
                for k in sorted((ours - theirs).elements(), key=str):
                    print(f"{os.path.basename(f)} {kind}: only wirespeed: {k}"[:300])
    for kind in ("dns", "http", "tls"):
        s, u = total[kind + " shared"], total[kind + " union"]
        print(f"{kind}: {s}/{u} = {s / max(u, 1):.4f} agree with tshark")
    print(f"events without their record: {unjoined}")
    return 0 if unjoined == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
