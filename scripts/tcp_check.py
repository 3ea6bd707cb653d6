#!/usr/bin/env python3
"""The TCP analysis of `wirespeed classify --stats tcp` against tshark's tcp.analysis, flow by flow.

usage: scripts/tcp_check.py CAPTURES RECORDS.jsonl [--list N] [--jobs J]

CAPTURES: the directory (or file) the records were made from; RECORDS: JSON lines written with
`--stats tcp` (a directory's records carry `pcap`, the file's name). For every TCP flow of the
records, tshark's per-packet verdicts are summed per direction and compared with the record:
- retransmissions: packets tshark marks `tcp.analysis.retransmission` (fast and spurious ones
  included, as tshark marks them);
- out of order: `tcp.analysis.out_of_order`;
- duplicates: `tcp.analysis.spurious_retransmission`;
- RTT samples: `tcp.analysis.acks_frame` and `tcp.analysis.ack_rtt` (0 when tshark leaves it out), counted for the direction whose segment was acknowledged,
  Karn's rule applied here to tshark's samples (a sample whose acknowledged segment ends where a
  segment tshark marked retransmitted, spurious or fast-retransmitted before the ACK ends is not
  counted), and
  the mean of the samples within 5 µs or 1%;
- the handshake's RTT: `tcp.analysis.initial_rtt`, within 5 µs.
A flow agrees on a figure when both directions are equal. Prints the share of flows that agree
on each figure and on all of them, then every difference (up to --list, 0 for none). Flows whose
5-tuple the records hold more than once (a port reused) are compared on their sums.
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

FIELDS = [
    'frame.number', 'frame.time_epoch', 'ip.src', 'ipv6.src', 'tcp.srcport', 'ip.dst', 'ipv6.dst',
    'tcp.dstport', 'tcp.seq_raw', 'tcp.len', 'tcp.flags', 'tcp.analysis.retransmission',
    'tcp.analysis.fast_retransmission', 'tcp.analysis.spurious_retransmission',
    'tcp.analysis.out_of_order', 'tcp.analysis.ack_rtt', 'tcp.analysis.acks_frame',
    'tcp.analysis.initial_rtt',
]


def last(v):
    """The innermost of a tunnelled packet's repeated fields."""
    return v.split(',')[-1] if v else ''


def tshark(path):
    cmd = ['tshark', '-n', '-r', path, '-Y', 'tcp', '-T', 'fields', '-E', 'separator=\t',
           '-E', 'occurrence=a'] + sum((['-e', f] for f in FIELDS), [])
    out = subprocess.run(cmd, capture_output=True, text=True, errors='replace').stdout
    rows = []
    for line in out.splitlines():
        v = line.split('\t')
        if len(v) < len(FIELDS):
            continue
        rows.append(dict(zip(FIELDS, v)))
    return rows


def per_flow(rows):
    """tshark's figures per unordered 5-tuple: {key: {endpoint: counters}}."""
    frames = {}
    flows = collections.defaultdict(lambda: collections.defaultdict(collections.Counter))
    rtts = collections.defaultdict(list)
    irtt = {}
    resent = collections.defaultdict(set)
    for r in rows:
        src = last(r['ip.src']) or last(r['ipv6.src'])
        dst = last(r['ip.dst']) or last(r['ipv6.dst'])
        sp, dp = last(r['tcp.srcport']), last(r['tcp.dstport'])
        if not (src and dst and sp and dp):
            continue
        a, b = (src, int(sp)), (dst, int(dp))
        key = frozenset((a, b)) if a != b else frozenset((a,))
        try:
            flags = int(last(r['tcp.flags']), 16)
            seq = int(last(r['tcp.seq_raw']))
            ln = int(last(r['tcp.len']) or 0)
        except ValueError:
            continue
        end = (seq + ln + (1 if flags & 3 else 0)) % (1 << 32)
        frames[r['frame.number']] = (key, a, end)
        c = flows[key][a]
        c['pkts'] += 1
        retx = bool(r['tcp.analysis.retransmission'] or r['tcp.analysis.fast_retransmission'])
        if retx:
            c['retrans'] += 1
        if r['tcp.analysis.out_of_order']:
            c['ooo'] += 1
        if r['tcp.analysis.spurious_retransmission']:
            c['dup'] += 1
        if retx or r['tcp.analysis.spurious_retransmission']:
            resent[(key, a)].add((end, int(r['frame.number'])))
        # tshark names the acknowledged frame of every sample, and leaves the RTT out when it is 0.
        if r['tcp.analysis.acks_frame']:
            rtts[key].append((last(r['tcp.analysis.acks_frame']), float(last(r['tcp.analysis.ack_rtt']) or 0),
                              int(r['frame.number'])))
        if r['tcp.analysis.initial_rtt'] and key not in irtt:
            irtt[key] = float(last(r['tcp.analysis.initial_rtt']))
    for key, samples in rtts.items():
        for fr, rtt, at in samples:
            if fr not in frames:
                continue
            k2, sender, end = frames[fr]
            # Karn: no sample when a copy of the acknowledged segment was sent before the ACK.
            if k2 != key or any(e == end and f < at for e, f in resent[(key, sender)]):
                continue
            c = flows[key][sender]
            c['rtt_n'] += 1
            c['rtt_sum_us'] += rtt * 1e6
    return flows, irtt


def batches(pcaps, keys, jobs):
    """Captures in groups whose TCP flows (5-tuples, from the records) are all distinct, a few
    groups a job: tshark then reads each group as one file. Its start-up (0.27 s of CPU) times
    250 captures was most of this check's cost; its TCP analysis keeps state per conversation,
    so captures without a shared 5-tuple do not touch each other's figures."""
    size = max(1, -(-len(pcaps) // (2 * max(1, jobs))))
    groups = []
    for p in pcaps:
        for names, seen in groups:
            if len(names) < size and not (keys[p] & seen):
                names.append(p)
                seen |= keys[p]
                break
        else:
            groups.append(([p], set(keys[p])))
    return [names for names, _ in groups]


def analyse(names, n, paths, keys, tmp):
    """{capture: per_flow(...)} for a group: one tshark run over the captures appended one after
    the other (mergecap -a), each capture's flows taken back by their 5-tuples. A capture that
    mergecap cannot read to its end (damaged) is read alone, as tshark reads it."""
    if len(names) == 1:
        return {names[0]: per_flow(tshark(paths[names[0]]))}
    merged = os.path.join(tmp, f'group{n}.pcapng')
    ok = lambda files: subprocess.run(['mergecap', '-a', '-F', 'pcapng', '-w', merged, *files],
                                      capture_output=True).returncode == 0
    out = {}
    if not ok([paths[p] for p in names]):
        alone = [p for p in names if not subprocess.run(['mergecap', '-w', os.devnull, paths[p]],
                                                        capture_output=True).returncode == 0]
        for p in alone:
            out[p] = per_flow(tshark(paths[p]))
        names = [p for p in names if p not in alone]
        if len(names) < 2 or not ok([paths[p] for p in names]):
            out.update({p: per_flow(tshark(paths[p])) for p in names})
            return out
    flows, irtt = per_flow(tshark(merged))
    for p in names:
        out[p] = ({k: v for k, v in flows.items() if k in keys[p]},
                  {k: v for k, v in irtt.items() if k in keys[p]})
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('captures')
    ap.add_argument('records')
    ap.add_argument('--list', type=int, default=50)
    ap.add_argument('--jobs', type=int, default=os.cpu_count() or 1)
    a = ap.parse_args()
    ours = collections.defaultdict(list)
    for line in open(a.records, errors='replace'):
        r = json.loads(line)
        if r.get('l4') != 'TCP' or r.get('c2s_retrans') is None:
            continue
        pcap = r.get('pcap') or os.path.basename(a.captures)
        cl, sv = (r['src_ip'], r['src_port']), (r['dst_ip'], r['dst_port'])
        key = frozenset((cl, sv)) if cl != sv else frozenset((cl,))
        ours[pcap, key].append(r)
    if os.path.isdir(a.captures):
        paths = {}
        for root, _, files in os.walk(a.captures):
            for f in files:
                paths[f] = os.path.join(root, f)
    else:
        paths = {os.path.basename(a.captures): a.captures}
    pcaps = sorted({p for p, _ in ours if p in paths})
    keys = collections.defaultdict(set)
    for p, key in ours:
        keys[p].add(key)
    with tempfile.TemporaryDirectory(prefix='tcp_check-') as tmp, ThreadPoolExecutor(a.jobs) as ex:
        groups = batches(pcaps, keys, a.jobs)
        theirs = {}
        for got in ex.map(lambda g: analyse(g[1], g[0], paths, keys, tmp), enumerate(groups)):
            theirs.update(got)
    figures = ['retrans', 'ooo', 'dup', 'rtt_n', 'rtt_mean', 'hs_rtt']
    agree = collections.Counter()
    diffs = []
    n = 0
    for (pcap, key), recs in sorted(ours.items(), key=lambda x: (x[0][0], sorted(map(str, x[0][1])))):
        if pcap not in theirs:
            continue
        flows, irtt = theirs[pcap]
        if key not in flows:
            continue
        n += 1
        client = (recs[0]['src_ip'], recs[0]['src_port'])
        server = (recs[0]['dst_ip'], recs[0]['dst_port'])
        ok_all = True
        for fig in figures:
            mine, ts = [], []
            for d, ep in (('c2s', client), ('s2c', server)):
                t = flows[key].get(ep, collections.Counter())
                if fig == 'rtt_mean':
                    m_n = sum(r[f'{d}_rtt_n'] for r in recs)
                    m = sum((r[f'{d}_rtt_mean_us'] or 0) * r[f'{d}_rtt_n'] for r in recs) / m_n if m_n else None
                    tt = t['rtt_sum_us'] / t['rtt_n'] if t['rtt_n'] else None
                    if m is not None and tt is not None and abs(m - tt) <= max(5, 0.01 * tt):
                        m = tt
                    mine.append(None if m is None else round(m, 1))
                    ts.append(None if tt is None else round(tt, 1))
                elif fig == 'hs_rtt':
                    if d == 's2c':
                        continue
                    m = recs[0].get('hs_rtt_us')
                    tt = irtt.get(key)
                    tt = None if tt is None else tt * 1e6
                    if m is not None and tt is not None and abs(m - tt) <= 5:
                        m = tt
                    mine.append(m)
                    ts.append(tt)
                else:
                    mine.append(sum(r[f'{d}_{fig}'] for r in recs))
                    ts.append(t[fig])
            if mine == ts:
                agree[fig] += 1
            else:
                ok_all = False
                diffs.append((pcap, f'{client[0]}:{client[1]} -> {server[0]}:{server[1]}', fig, mine, ts))
        if ok_all:
            agree['all'] += 1
    print(f'TCP flows compared with tshark: {n}')
    for fig in figures + ['all']:
        print(f'  {fig:10s} {agree[fig]:6d} / {n} = {100 * agree[fig] / max(1, n):.1f}%')
    if a.list:
        print(f'differences (wirespeed [c2s, s2c] vs tshark), first {a.list} of {len(diffs)}:')
        for d in diffs[:a.list]:
            print('  ', *d)
    return 0


if __name__ == '__main__':
    sys.exit(main())
