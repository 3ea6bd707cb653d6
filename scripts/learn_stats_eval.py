#!/usr/bin/env python3
"""Prequential macro-F1 of the statistical verdict with and without --learn-stats (issue 38 item 3).

usage: learn_stats_eval.py WIRESPEED_BIN INPUT [--weight W (4)] [--min-pred N] [--model FILE]
                           [-- EXTRA CLASSIFY ARGS]

INPUT is a capture (the corpus mix: scripts/corpus_mix.py CORPUS/pcap /tmp/mix.pcap 1) or a
directory (each file is its own capture: what it taught is forgotten at its end, and the
predecessors are counted per file).

Runs `classify --ordered` twice on INPUT: with the shipped model (option off) and with
`--learn-stats`. The truth of a flow is its payload inspection label (records with
method "dpi") mapped to the model's classes (its master, when the model has that class).
A flow is scored when at least N (20) flows of its class, labelled by payload inspection,
started before it in the input (flow_id order, per capture file). Prints the macro-F1 (over
the classes present among the scored flows; a flow the model abstains on counts as wrong)
of each run's `stats_app`, and per-class F1.
"""
import json, os, struct, subprocess, sys, tempfile
from collections import Counter, defaultdict


def model_classes(path):
    b = open(path, 'rb').read()
    p = b[20:]
    at = 4
    nc = struct.unpack('<H', p[at:at + 2])[0]
    at += 2
    out = []
    for _ in range(nc):
        n = p[at]; app = p[at + 1:at + 1 + n].decode(); at += 1 + n
        n = p[at]; at += 1 + n
        out.append(app)
    return out


def run(bin_, inp, extra):
    with tempfile.NamedTemporaryFile(suffix='.json', delete=False) as f:
        out = f.name
    # A damaged capture in a directory makes classify exit non-zero after writing the rest.
    rc = subprocess.run([bin_, 'classify', inp, '--ordered', '-q', '--format', 'json', '-o', out]
                        + extra, stderr=subprocess.DEVNULL).returncode
    if rc != 0:
        print(f'(classify exited {rc}: an input error; the records written are scored)', file=sys.stderr)
    recs = [json.loads(l) for l in open(out)]
    os.unlink(out)
    return recs


def key(r):
    return (r.get('source') or r.get('pcap') or '', r['flow_id'])


def macro_f1(pairs):
    tp, fp, fn = Counter(), Counter(), Counter()
    classes = set()
    for t, p in pairs:
        classes.add(t)
        if p == t:
            tp[t] += 1
        else:
            fn[t] += 1
            if p:
                fp[p] += 1
    f1 = {}
    for c in classes:
        d = 2 * tp[c] + fp[c] + fn[c]
        f1[c] = 2 * tp[c] / d if d else 0.0
    return (sum(f1.values()) / len(f1) if f1 else 0.0), f1


def main():
    a = sys.argv[1:]
    extra = []
    if '--' in a:
        i = a.index('--')
        a, extra = a[:i], a[i + 1:]
    weight, min_pred, model = '4', 20, None
    pos = []
    i = 0
    while i < len(a):
        if a[i] == '--weight':
            weight = a[i + 1]; i += 2
        elif a[i] == '--min-pred':
            min_pred = int(a[i + 1]); i += 2
        elif a[i] == '--model':
            model = a[i + 1]; i += 2
        else:
            pos.append(a[i]); i += 1
    bin_, inp = pos
    here = os.path.dirname(os.path.abspath(__file__))
    classes = set(model_classes(model or os.path.join(here, '..', 'models', 'default.wsm')))
    if model:
        extra = ['--model', model] + extra
    off = run(bin_, inp, extra)
    on = run(bin_, inp, extra + ['--learn-stats', '--learn-stats-weight', weight])
    assert [key(r) for r in off] == [key(r) for r in on], 'the runs wrote different flows'
    # Predecessors: DPI-labelled flows of the class that started earlier in the same capture.
    seen = defaultdict(Counter)
    scored = []
    for i, r in enumerate(off):
        src = r.get('source') or ''
        t = r['master'] if r['method'] == 'dpi' and r['master'] in classes else None
        if t is not None:
            if seen[src][t] >= min_pred:
                scored.append(i)
            seen[src][t] += 1
    print(f'{inp}: {len(off)} flows, {sum(sum(c.values()) for c in seen.values())} labelled by '
          f'payload inspection with one of the model\'s {len(classes)} classes, {len(scored)} '
          f'with >= {min_pred} labelled predecessors of their class')
    res = {}
    for name, recs in (('off (prior)', off), (f'link (weight {weight})', on)):
        pairs = [(recs[i]['master'], recs[i]['stats_app'] if recs[i]['stats_app'] in classes else '')
                 for i in scored]
        m, f1 = macro_f1(pairs)
        acc = sum(t == p for t, p in pairs) / len(pairs) if pairs else 0.0
        res[name] = f1
        print(f'{name:>18}: macro-F1 {m:.4f}  accuracy {acc:.4f}')
    n = Counter(off[i]['master'] for i in scored)
    names = list(res)
    print('class'.ljust(16) + ''.join(x[:18].rjust(20) for x in names) + 'flows'.rjust(8))
    for c in sorted(n, key=lambda c: -n[c]):
        print(c.ljust(16) + ''.join(f'{res[x].get(c, 0):20.3f}' for x in names) + f'{n[c]:8d}')
    # Flows payload inspection left unlabelled that the stats verdict named, per run.
    for name, recs in (('off (prior)', off), ('link', on)):
        k = sum(1 for r in recs if r['method'] == 'stats')
        print(f'{name}: {k} flows labelled by the statistical verdict (method "stats")')


if __name__ == '__main__':
    main()
