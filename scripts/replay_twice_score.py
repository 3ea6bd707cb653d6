#!/usr/bin/env python3
"""Seed 002's claim, measured (issue 19): on captures each followed by a copy of itself
(scripts/replay_twice.py), how many of the second copies' flows that payload inspection labels
are labelled at their first packet by what the first copy taught, and how often that agrees with
the label inspection reaches; and the time to bind with and without the learned methods (seed
002's Figure 7).

usage: replay_twice_score.py TWICE_DIR [WIRESPEED] [--uth N ...] [--workers N]

Two runs of WIRESPEED (default target/release/wirespeed) over TWICE_DIR, idle timeouts 30 s so
the copies are separate flows:
  baseline: --classifiers port,ip,stats,dpi  (what payload inspection reaches, and when)
  learned:  --classifiers all --host-cache-uth N (one run per N given; default 1 and 10)
A second-copy flow counts when the baseline names it by payload (method dpi). It is "labelled at
packet 1" when the learned run's first-packet label (`fpc`) came from ip, dns-cache or
host-cache. Agreement is judged at the application level (the `app` of the first-packet label
equals the app of the baseline's label) and exactly (the same `proto`).
"""
import csv, os, subprocess, sys, tempfile
from collections import Counter

LEARNED = ('ip', 'dns-cache', 'host-cache')


def run(bin_, d, extra, out):
    cmd = [bin_, 'classify', d, '--format', 'csv', '-q', '-o', out,
           '--tcp-timeout', '30', '--udp-timeout', '30', '--other-timeout', '30'] + extra
    subprocess.run(cmd, check=True)
    with open(out) as f:
        return list(csv.DictReader(f))


def key(r):
    return (r['pcap'], r['src_ip'], r['src_port'], r['dst_ip'], r['dst_port'], r['l4'], r['first_ts'])


def app_of(proto):
    # MASTER.APP -> APP; a master or an application alone is its own app.
    return proto.split('.', 1)[1] if '.' in proto else proto


def ts_ns(s):
    # first_ts is written as seconds with a fraction (docs/SCHEMA.md).
    whole, _, frac = s.partition('.')
    return int(whole) * 10**9 + int((frac + '000000000')[:9])


def ttb_table(rows, label):
    pk = Counter()
    us = Counter()
    n = len(rows)
    for r in rows:
        p = int(r['ttb_pkts'] or 0)
        u = int(r['ttb_us'] or 0)
        for k in (1, 2, 3, 4, 5, 10):
            pk[k] += p <= k
        for k in (0, 1_000, 10_000, 100_000, 1_000_000):
            us[k] += u <= k
    f = lambda c: f'{100.0 * c / n:5.1f}%' if n else '  -  '
    print(f'  {label:<28} packets <=1 {f(pk[1])}  <=2 {f(pk[2])}  <=3 {f(pk[3])}  <=5 {f(pk[5])}  <=10 {f(pk[10])}'
          f' | time 0 {f(us[0])}  <=1ms {f(us[1000])}  <=10ms {f(us[10000])}  <=100ms {f(us[100000])}  <=1s {f(us[1000000])}')


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    d = args.pop(0)
    bin_ = 'target/release/wirespeed'
    if args and not args[0].startswith('--'):
        bin_ = args.pop(0)
    uths, workers = [], []
    while args:
        a = args.pop(0)
        if a == '--uth':
            uths.append(args.pop(0))
        elif a == '--workers':
            workers = ['--workers', args.pop(0)]
        else:
            sys.exit(f'unknown argument {a}')
    uths = uths or ['1', '10']
    second = {}
    with open(os.path.join(d, 'copies.csv')) as f:
        for r in csv.DictReader(f):
            second[r['pcap']] = int(r['second_copy_ns'])
    tmp = tempfile.mkdtemp(prefix='wirespeed-twice-')
    base = run(bin_, d, ['--classifiers', 'port,ip,stats,dpi'] + workers, os.path.join(tmp, 'base.csv'))
    is2 = lambda r: r['pcap'] in second and ts_ns(r['first_ts']) >= second[r['pcap']]
    base2 = {key(r): r for r in base if is2(r)}
    dpi2 = {k: r for k, r in base2.items() if r['method'] == 'dpi'}
    print(f'{d}: {len(second)} captures; second copies: {len(base2)} flows, {len(dpi2)} labelled by payload inspection (baseline)')
    print('time to bind of those flows (share bound within):')
    ttb_table(list(dpi2.values()), 'without (port,ip,stats,dpi)')
    for uth in uths:
        got = run(bin_, d, ['--classifiers', 'all', '--host-cache-uth', uth] + workers,
                  os.path.join(tmp, f'learned-{uth}.csv'))
        byk = {key(r): r for r in got}
        missing = [k for k in dpi2 if k not in byk]
        at1 = Counter()
        agree_app = Counter()
        agree_exact = Counter()
        final_app = 0
        rows = []
        for k, b in dpi2.items():
            r = byk.get(k)
            if r is None:
                continue
            rows.append(r)
            final_app += app_of(r['proto']) == app_of(b['proto'])
            m = r['fpc_method']
            if m in LEARNED:
                at1[m] += 1
                agree_app[m] += app_of(r['fpc']) == app_of(b['proto'])
                agree_exact[m] += r['fpc'] == b['proto']
        n = len(dpi2)
        t = sum(at1.values())
        ta = sum(agree_app.values())
        te = sum(agree_exact.values())
        pct = lambda a, b: f'{100.0 * a / b:.1f}%' if b else '-'
        print(f'--host-cache-uth {uth}: labelled at packet 1 by ip/dns-cache/host-cache: {t} of {n} ({pct(t, n)});'
              f' agreeing with payload inspection: app {ta} ({pct(ta, t)}), exact {te} ({pct(te, t)})')
        for m in LEARNED:
            if at1[m]:
                print(f'    {m:<11} {at1[m]:>6} flows, app agrees {agree_app[m]} ({pct(agree_app[m], at1[m])}),'
                      f' exact {agree_exact[m]} ({pct(agree_exact[m], at1[m])})')
        print(f'    final labels: app agrees with the baseline on {final_app} of {len(rows)} ({pct(final_app, len(rows))})'
              + (f'; {len(missing)} baseline flows not found' if missing else ''))
        ttb_table(rows, f'with (all, U_th {uth})')


if __name__ == '__main__':
    main()
