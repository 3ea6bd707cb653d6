#!/usr/bin/env python3
"""Do richer early-flow features or a stronger learner beat the shipped Naive Bayes? (issue 38 item 4)

usage: stats_features_eval.py --bin WIRESPEED_BIN --corpus CORPUS_DIR [--work DIR] [--packets 4]
                              [--folds 5] [--seed 1] [--min-class 30] [--quick] [--boot 1000] [--seeds N]

Measures held-out macro-F1 and accuracy of several (feature set x learner) pairs on exactly the
cases and folds of `wirespeed train` (defaults: P = 4, 5 folds by capture file, seed 1, classes =
nDPI DPI masters with >= 30 flows):

  1. runs `BIN train --labels CORPUS/flows.csv CORPUS/pcap --predictions ... --arff-folds ...`
     (the shipped Naive Bayes, held out by capture: the reference figure);
  2. runs `BIN classify CORPUS/pcap --features --stats dist,tcp --ordered --workers 1` for the
     per-flow features;
  3. joins records to labels as crates/engine/src/train.rs does (pcap, transport, end-points in
     either order; rows whose confidence starts with DPI; master = label before the first '.'),
     assigns folds with a re-implementation of stats::eval::folds_by_group (checked against the
     per-fold case counts of the ARFF folds `train` wrote), and checks that the Rust held-out
     predictions joined to these cases give `train`'s macro-F1;
  4. fits, per fold, on the other folds' cases only:
       NB   a categorical Naive Bayes; on the baseline features a re-implementation of
            crates/stats/src/nb.rs (32-byte signed payload bins, absent bin, Gaussian smoothing
            sigma = 1 bin, alpha = 1e-4, 64*ln p fixed point, port bucket per transport);
            extra features are binned (log2 for times, exact values for header fields);
       HGB  sklearn HistGradientBoostingClassifier, defaults (100 iterations x classes trees,
            31 leaves) but l2_regularization 1.0 (with 0, the default, the fit of fold 4 diverged:
            training loss -5e3, 44% accuracy on its own training cases; that was seen on training
            data, not on held-out results) and the server port bucket as a categorical feature
            (the training part's 254 most frequent buckets, the rest one code); random_state 0;
       HGBs the same with max_iter 30, max_depth 3 (a size fixed beforehand: the cost of a
            Rust port, not tuned on these folds);
       RF   sklearn RandomForestClassifier, defaults (100 trees), random_state 0;
     on the baseline features, each feature group added alone, and all groups together;
  5. prints per-class F1 (shipped NB, its Python twin, the best configuration), a paired
     bootstrap over captures of each configuration's difference from the NB baseline, the
     boosted models' sizes, and optionally (--seeds N) the comparison under other fold seeds
     (they barely change the split: folds are dealt heaviest capture first).
No hyperparameter is tuned on the held-out folds; every seed is fixed.

Needs numpy and scikit-learn (not in the project's test environment: `pip install numpy
scikit-learn` into the interpreter that runs this), and a built binary (--bin).

Only what is known when the runtime asks the model (packet P, or the flow's end if it has fewer
packets) is used: the first P entries of splt_payload / splt_ip / splt_iat_us / splt_flags, the
server and client ports and the transport, and the handshake fields of the SYN / SYN-ACK /
first segment only when that packet is among the first P (checked from splt_flags and
directions). Whole-flow columns are not used (bytes, packets, duration, *_ps_*, *_piat_*, flag
counts, retransmissions, RTT samples, history, conn_state, end_reason), nor the atoz_* columns
(computed over up to 5 packets), nor labels / DPI outputs (proto, app, master, sni, ...),
addresses or capture names. One approximation: TTL is exported only as the whole flow's min/max
(c2s_ttl_min); the first packet's TTL equals it in all but a handful of flows (printed).
"""
import argparse, collections, csv, ipaddress, json, math, os, re, shlex, subprocess, sys, tempfile, time

os.environ.setdefault('OMP_NUM_THREADS', '1')  # a shared 2-core machine: one thread
import numpy as np

L4 = {'1': 'ICMP', '6': 'TCP', '17': 'UDP', '58': 'ICMPV6', '132': 'SCTP', '2': 'IGMP', '47': 'GRE', '50': 'ESP'}
SYN, ACK, PSH, FIN, RST = 0x02, 0x10, 0x08, 0x01, 0x04


# ---------------------------------------------------------------- joining (as engine/src/train.rs)

def norm_ip(s):
    s = str(s).strip().strip('[]')
    try:
        return str(ipaddress.ip_address(s))
    except ValueError:
        return s


def norm_l4(s):
    s = str(s).strip().upper()
    return L4.get(s, s)


def flow_key(pcap, l4, a, b):
    port = lambda p: str(p).strip() or '0'
    a = (norm_ip(a[0]), port(a[1]))
    b = (norm_ip(b[0]), port(b[1]))
    return (pcap, norm_l4(l4), min(a, b), max(a, b))


def read_labels(path):
    m = {}
    for r in csv.DictReader(open(path, newline='')):
        if not r['confidence'].startswith('DPI'):
            continue
        master = r['master'].split('.')[0].strip()
        if not master or master.lower() == 'unknown':
            continue
        k = flow_key(r['pcap'], r['l4'], (r['src_ip'], r['src_port']), (r['dst_ip'], r['dst_port']))
        m.setdefault(k, master)
    return m


def rec_key(r):
    return flow_key(r['pcap'], r['l4'], (r['src_ip'], r['src_port']), (r['dst_ip'], r['dst_port']))


def folds_by_group(groups, weights, k, seed):
    """stats::eval::folds_by_group, bit for bit (xorshift64 shuffle, heaviest group first)."""
    M = (1 << 64) - 1
    size = {}
    for g, w in zip(groups, weights):
        size[g] = size.get(g, 0) + w
    s = (seed | 1) & M
    keyed = []
    for n in sorted(size, key=lambda x: x.encode()):  # BTreeMap<&str> order: bytes
        s ^= (s << 13) & M
        s ^= s >> 7
        s ^= (s << 17) & M
        keyed.append((s, n, size[n]))
    keyed.sort(key=lambda t: (-t[2], t[0]))
    load = [0] * k
    fold_of = {}
    for _, n, c in keyed:
        f = min(range(k), key=lambda f: (load[f], f))
        load[f] += c
        fold_of[n] = f
    return [fold_of[g] for g in groups]


# ---------------------------------------------------------------- scoring (as stats::eval::Report)

def report(y, pred, k):
    """(macro-F1, accuracy, per-class F1); pred -1 = unknown; every class has test cases."""
    m = np.zeros((k, k + 1), dtype=np.int64)
    for t, p in zip(y, pred):
        m[t, p if 0 <= p < k else k] += 1
    f1 = []
    for c in range(k):
        tp, sup, prd = m[c, c], m[c].sum(), m[:, c].sum()
        p, r = tp / max(prd, 1), tp / max(sup, 1)
        f1.append(0.0 if p + r == 0 else 2 * p * r / (p + r))
    sup = m.sum(axis=1) > 0
    return float(np.mean(np.array(f1)[sup])), float(np.trace(m[:, :k]) / max(m.sum(), 1)), f1


# ---------------------------------------------------------------- features (first P packets only)

def size_bin(v):
    """nb.rs NbParams::bins, 32-byte bins of a signed size; 0 = absent."""
    if v is None:
        return 0
    return (max(-1536, min(1535, v)) + 1536) // 32 + 1


SIZE_BINS = 3072 // 32 + 2


def port_bucket(l4, port):
    t = {6: 0, 17: 1}.get(l4, 2)
    return t * 4096 + (4095 if port >= 49152 else port % 4095)


def port_class(p):
    return 0 if p < 1024 else (1 if p < 49152 else 2)


def extract(r, P):
    """Per flow: dict group -> list of (name, numeric value or nan, NB code, NB kind)."""
    ipl = r['splt_ip'][:P]
    n = len(ipl)
    s2c = [v < 0 for v in ipl]
    pay = [(-abs(v) if d else abs(v)) for v, d in zip(r['splt_payload'][:P], s2c)]
    iat = r['splt_iat_us'][:max(n - 1, 0)]
    fl = r['splt_flags'][:P]
    l4 = r['ip_proto']
    sport, cport = r['dst_port'], r['src_port']
    nan = float('nan')
    at = lambda xs, i: xs[i] if i < len(xs) else None
    g = collections.OrderedDict()
    # Baseline: signed payload sizes + server port (bucketed per transport).
    g['base'] = [(f'pay{i+1}', nan if at(pay, i) is None else pay[i], size_bin(at(pay, i)), 'size') for i in range(P)] + \
        [('l4', l4, None, None), ('port', min(sport, 49152), port_bucket(l4, sport), ('cat', 3 * 4096)),
         ('portcat', port_bucket(l4, sport), None, None)]
    # Inter-arrival times, log-scaled (the handshake RTT is iat1 + iat2 on a clean handshake).
    g['iat'] = [(f'liat{i+1}', nan if at(iat, i) is None else math.log1p(iat[i]),
                 0 if at(iat, i) is None else 1 + int(math.log2(iat[i] + 1)), ('cat', 40)) for i in range(P - 1)]
    # TCP flags of each packet (bits for trees, the byte for NB).
    fg = []
    for i in range(P):
        f = at(fl, i)
        for bn, b in (('syn', SYN), ('ack', ACK), ('psh', PSH), ('fin', FIN), ('rst', RST)):
            fg.append((f'{bn}{i+1}', nan if f is None else float(bool(f & b)), None, None))
        fg.append((f'flags{i+1}', nan, 0 if f is None else 1 + f, ('cat', 257)))
    g['flags'] = fg
    # Handshake: window of each side's first segment, SYN / SYN-ACK options, when among the first P.
    c_syn = any(d is False and f & SYN and not f & ACK for d, f in zip(s2c, fl))
    s_syn = any(d and f & SYN and f & ACK for d, f in zip(s2c, fl))
    has = {'c2s': (not all(s2c), c_syn), 's2c': (any(s2c), s_syn)}
    hs = []
    for side in ('c2s', 's2c'):
        seg, syn = has[side]
        for col, ok in (('win_init', seg), ('mss', syn), ('wscale', syn), ('sack_ok', syn), ('ts_ok', syn)):
            v = r.get(f'{side}_{col}') if ok else None
            v = None if v is None else float(v)
            hs.append((f'{side}_{col}', nan if v is None else v, ('x', v), 'exact'))
    g['handshake'] = hs
    # Header lengths (IP + transport, options included) of each packet.
    g['hdrlen'] = [(f'hdr{i+1}', nan if i >= n else float(abs(ipl[i]) - abs(pay[i])),
                    ('x', None if i >= n else abs(ipl[i]) - abs(pay[i])), 'exact') for i in range(P)]
    # TTL / hop limit (whole-flow minimum: see the docstring), server side only if it answered by P.
    tc = r.get('c2s_ttl_min')
    ts = r.get('s2c_ttl_min') if any(s2c) else None
    g['ttl'] = [('ttl_c2s', nan if tc is None else float(tc), ('x', tc), 'exact'),
                ('ttl_s2c', nan if ts is None else float(ts), ('x', ts), 'exact')]
    # Port classes: server and client (well-known / registered / ephemeral), same port both ends.
    g['portclass'] = [('sport_cls', port_class(sport), ('x', (l4, port_class(sport))), 'exact'),
                      ('cport_cls', port_class(cport), ('x', (l4, port_class(cport))), 'exact'),
                      ('same_port', float(sport == cport), ('x', sport == cport), 'exact')]
    # IP sizes as well as payload sizes.
    g['ipsize'] = [(f'ip{i+1}', nan if i >= n else ipl[i], size_bin(at(ipl, i)), 'size') for i in range(P)]
    # Payload pattern aggregates over the first P packets.
    cb = sum(v for v in pay if v > 0)
    sb = -sum(v for v in pay if v < 0)
    cd = sum(1 for v in pay if v > 0)
    sd = sum(1 for v in pay if v < 0)
    first = next((1 if v > 0 else -1 for v in pay if v != 0), 0)
    lg = lambda x: 0 if x == 0 else 1 + int(math.log2(x))
    g['paypattern'] = [('c2s_pay', cb, ('x', lg(cb)), 'exact'), ('s2c_pay', sb, ('x', lg(sb)), 'exact'),
                       ('c2s_data', cd, ('x', cd), 'exact'), ('s2c_data', sd, ('x', sd), 'exact'),
                       ('npkts', n, ('x', n), 'exact'), ('first_data_dir', first, ('x', first), 'exact')]
    return g


GROUPS = ['iat', 'flags', 'handshake', 'hdrlen', 'ttl', 'portclass', 'ipsize', 'paypattern']


def matrices(feats, groups):
    """Numeric matrix (trees), NB columns [(codes, bins, smooth)] of the chosen groups, and the
    matrix columns that are categories (the port bucket)."""
    names, X, nb = [], [], []
    for gname in groups:
        per = [f[gname] for f in feats]
        for j in range(len(per[0])):
            name, _, code, kind = per[0][j]
            vals = [p[j][1] for p in per]
            if not (isinstance(per[0][j][1], float) and name.startswith('flags')):
                names.append(name)
                X.append(vals)
            if kind is None:
                continue
            codes = [p[j][2] for p in per]
            if kind == 'size':
                nb.append((np.array(codes), SIZE_BINS, True))
            elif kind == 'exact':
                idx = {}
                c = np.array([idx.setdefault(v, len(idx)) for v in codes])
                nb.append((c, len(idx), False))
            else:
                nb.append((np.array(codes), kind[1], False))
    return names, np.array(X, dtype=float).T, nb, [j for j, n in enumerate(names) if n == 'portcat']


def encode_categories(X, cat, trn, cap=254):
    """HGB categorical columns: the training part's `cap` most frequent values get codes 0..cap-1
    (by frequency, then value), every other value (and any unseen at test) the code `cap`."""
    X = X.copy()
    for j in cat:
        freq = collections.Counter(X[trn, j].tolist())
        top = {v: c for c, (v, _) in enumerate(sorted(freq.items(), key=lambda t: (-t[1], t[0]))[:cap])}
        X[:, j] = [top.get(v, cap) for v in X[:, j].tolist()]
    return X


# ---------------------------------------------------------------- Naive Bayes (nb.rs semantics)

ALPHA, SIGMA, SCALE = 1e-4, 1.0, 64.0
KERN = np.exp(-np.arange(-3, 4) ** 2 / (2 * SIGMA * SIGMA))


class CatNB:
    def fit(self, cols, y, k):
        self.k = k
        self.tables = []
        for codes, nbins, smooth in cols:
            cnt = np.zeros((k, nbins))
            np.add.at(cnt, (y, codes), 1.0)
            if smooth:
                for c in range(k):
                    cnt[c, 1:] = np.convolve(cnt[c, 1:], KERN, mode='same') / KERN.sum()
            den = cnt.sum(axis=1, keepdims=True) + ALPHA * nbins
            lp = np.clip(np.round(np.log((cnt + ALPHA) / den) * SCALE), -4000, 0)
            self.tables.append(lp)
        n = np.bincount(y, minlength=k).astype(float)
        self.prior = np.clip(np.round(np.log((n + 1) / (n.sum() + k)) * SCALE), -8000, 0)
        return self

    def predict(self, cols):
        acc = np.tile(self.prior, (len(cols[0][0]), 1))
        for (codes, _, _), lp in zip(cols, self.tables):
            acc += lp[:, codes].T
        return acc.argmax(axis=1)


# ---------------------------------------------------------------- main

def run(cmd, **kw):
    print('$ ' + ' '.join(shlex.quote(str(c)) for c in cmd), flush=True)
    return subprocess.run(cmd, **kw)


def main():
    t0 = time.time()
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--bin', required=True)
    ap.add_argument('--corpus', required=True)
    ap.add_argument('--work', default=None)
    ap.add_argument('--packets', type=int, default=4)
    ap.add_argument('--folds', type=int, default=5)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--min-class', type=int, default=30)
    ap.add_argument('--quick', action='store_true', help='NB and HGB on baseline and all groups only')
    ap.add_argument('--boot', type=int, default=1000,
                    help='paired bootstrap over captures of the held-out predictions (resamples)')
    ap.add_argument('--seeds', type=int, default=0,
                    help='robustness: also repeat a few configurations with fold seeds seed+1..seed+N')
    a = ap.parse_args()
    from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier

    work = a.work or tempfile.mkdtemp(prefix='ws-featx-')
    os.makedirs(work, exist_ok=True)
    labels_csv, pcaps = os.path.join(a.corpus, 'flows.csv'), os.path.join(a.corpus, 'pcap')
    pred_csv, arff_dir, flows_json = (os.path.join(work, n) for n in ('pred.csv', 'arff', 'flows.json'))

    # 1. The shipped learner, held out by capture.
    tr = run([a.bin, 'train', '--labels', labels_csv, pcaps, '--predictions', pred_csv,
              '--arff-folds', arff_dir, '--packets', str(a.packets), '--folds', str(a.folds),
              '--seed', str(a.seed), '--min-class', str(a.min_class)], capture_output=True, text=True)
    if tr.returncode != 0:
        sys.exit(f'train failed: {tr.stderr}')
    rust_macro = float(re.search(r'macro-F1 ([0-9.]+)', tr.stdout).group(1))
    rust_acc = float(re.search(r'accuracy ([0-9.]+)', tr.stdout).group(1))
    print('  ' + tr.stderr.strip().splitlines()[0])
    # 2. Per-flow features (a damaged corpus capture makes classify exit non-zero: its flows count).
    run([a.bin, 'classify', pcaps, '--features', '--stats', 'dist,tcp', '-q', '--workers', '1',
         '--ordered', '-o', flows_json], stderr=subprocess.DEVNULL)
    recs = [json.loads(l) for l in open(flows_json)]

    # 3. Cases, classes, folds.
    lab = read_labels(labels_csv)
    hits = [(i, lab[rec_key(r)]) for i, r in enumerate(recs) if rec_key(r) in lab]
    cnt = collections.Counter(m for _, m in hits)
    classes = sorted((m for m, n in cnt.items() if n >= a.min_class), key=lambda s: s.encode())
    cidx = {m: i for i, m in enumerate(classes)}
    cases = [(i, cidx[m]) for i, m in hits if m in cidx]
    case_set = {i for i, _ in cases}
    fold_rec = folds_by_group([r['pcap'] for r in recs], [int(i in case_set) for i in range(len(recs))],
                              a.folds, a.seed)
    idx = np.array([i for i, _ in cases])
    y = np.array([c for _, c in cases])
    fold = np.array([fold_rec[i] for i in idx])
    k = len(classes)
    arff_n = [sum(1 for l in open(os.path.join(arff_dir, f'fold{f}-test.arff')) if l.strip() and not l.startswith('@'))
              for f in range(a.folds)]
    mine_n = [int((fold == f).sum()) for f in range(a.folds)]
    print(f'\nrecords {len(recs)}, labelled cases {len(cases)}, classes {k}; cases per fold {mine_n} '
          f"(train's ARFF folds {arff_n}: {'match' if arff_n == mine_n else 'MISMATCH'})")
    if arff_n != mine_n:
        sys.exit('fold assignment differs from wirespeed train')
    # The Rust predictions on these cases (pred.csv rows are the same flows, keyed alike).
    rp = collections.defaultdict(list)
    for r in csv.DictReader(open(pred_csv, newline='')):
        rp[flow_key(r['pcap'], r['l4'], (r['src_ip'], r['src_port']), (r['dst_ip'], r['dst_port']))].append(r['stats_app'])
    rust_pred = np.array([cidx.get(rp[rec_key(recs[i])][0], -1) if rp[rec_key(recs[i])] else -1 for i in idx])
    rm, ra, rust_f1 = report(y, rust_pred, k)
    print(f"shipped NB (wirespeed train): macro-F1 {rust_macro:.3f} acc {rust_acc:.3f}; its predictions "
          f"joined here: macro-F1 {rm:.3f} acc {ra:.3f}")
    caps = collections.defaultdict(set)
    for i, c in cases:
        caps[c].add(recs[i]['pcap'])
    single = [classes[c] for c in range(k) if len(caps[c]) == 1]
    print(f'captures per class: ' + ', '.join(f'{classes[c]} {len(caps[c])}' for c in range(k)))
    print(f'classes in one capture only ({len(single)}, F1 0 by construction): {", ".join(single)}')
    ttl = [recs[i] for i in idx if recs[i].get('c2s_ttl_min') is not None]
    print(f"TTL proxy: c2s_ttl_min != c2s_ttl_max in {sum(r['c2s_ttl_min'] != r['c2s_ttl_max'] for r in ttl)} "
          f'of {len(ttl)} cases with a TTL')

    # 4. Learners x feature sets on the same folds.
    feats = [extract(recs[i], a.packets) for i in idx]

    train_acc = collections.defaultdict(list)

    sizes = collections.defaultdict(list)

    def cv(learner, groups, fold=fold):
        names, X, nbcols, cat = matrices(feats, groups)
        pred = np.full(len(y), -1)
        for f in range(a.folds):
            te, trn = fold == f, fold != f
            if learner == 'NB':
                m = CatNB().fit([(c[trn], b, s) for c, b, s in nbcols], y[trn], k)
                pred[te] = m.predict([(c[te], b, s) for c, b, s in nbcols])
                continue
            Xf = encode_categories(X, cat, trn)
            iscat = [j in cat for j in range(X.shape[1])]
            if learner == 'HGB':
                m = HistGradientBoostingClassifier(l2_regularization=1.0, categorical_features=iscat,
                                                   random_state=0)
            elif learner == 'HGBs':
                m = HistGradientBoostingClassifier(max_iter=30, max_depth=3, l2_regularization=1.0,
                                                   categorical_features=iscat, random_state=0)
            else:
                m = RandomForestClassifier(random_state=0, n_jobs=1)
            m.fit(Xf[trn], y[trn])
            if learner != 'RF':
                train_acc[learner].append(float((m.predict(Xf[trn]) == y[trn]).mean()))
                trees = [t for it in m._predictors for t in it]
                sizes[(learner, tuple(groups))].append(
                    (len(trees), max(t.get_max_depth() for t in trees),
                     sum(t.get_n_leaf_nodes() for t in trees)))
            pred[te] = m.predict(Xf[te])
        return report(y, pred, k) + (pred,), len(names)

    sets = [('baseline', ['base'])] + [(f'+{g}', ['base', g]) for g in GROUPS] + [('all', ['base'] + GROUPS)]
    learners = ['NB', 'HGB', 'HGBs', 'RF']
    plan = {('baseline', l) for l in learners} | {('all', l) for l in learners} | \
        {(s, l) for s, _ in sets for l in ('NB', 'HGB')}
    if a.quick:
        plan = {(s, l) for s in ('baseline', 'all') for l in ('NB', 'HGB')}
    res = {}
    print(f'\nheld-out macro-F1 / accuracy ({a.folds} folds by capture, P = {a.packets}); '
          f'shipped NB {rust_macro:.3f} / {rust_acc:.3f}')
    print(f"{'features':<12} {'cols':>4}" + ''.join(f' {l:>13}' for l in learners))
    for s, groups in sets:
        row, ncol = [], 0
        for l in learners:
            if (s, l) in plan:
                (mf, acc, f1, pr), ncol = cv(l, groups)
                res[(s, l)] = (mf, acc, f1, pr)
                row.append(f'{mf:.3f} / {acc:.3f}')
            else:
                row.append('-')
        print(f'{s:<12} {ncol:>4}' + ''.join(f' {c:>13}' for c in row), flush=True)
    for l, v in sorted(train_acc.items()):
        print(f'{l}: accuracy on its own training folds min {min(v):.3f} (a diverged fit would show here)')
    best = max(res, key=lambda t: res[t][0])
    print(f'\nbest: {best[0]} x {best[1]} macro-F1 {res[best][0]:.3f} (chosen on the held-out folds: '
          'optimistic by the choice among the configurations above)')
    print(f"{'class':<26} {'caps':>4} {'n':>5} {'shipped':>8} {'pyNB':>6} {'best':>6}")
    pynb = res[('baseline', 'NB')][2]
    for c in range(k):
        print(f'{classes[c]:<26} {len(caps[c]):>4} {int((y == c).sum()):>5} {rust_f1[c]:>8.3f} '
              f'{pynb[c]:>6.3f} {res[best][2][c]:>6.3f}')
    # Paired bootstrap over captures: how much of each difference from the NB baseline is noise.
    if a.boot > 0:
        rng = np.random.default_rng(0)
        cap_of = np.array([recs[i]['pcap'] for i in idx])
        ucaps = sorted(set(cap_of))
        members = [np.flatnonzero(cap_of == c) for c in ucaps]

        def mf1(t, p):
            m = np.bincount(t * (k + 1) + np.where(p < 0, k, p), minlength=k * (k + 1)).reshape(k, k + 1)
            tp, sup, prd = np.diag(m[:, :k]), m.sum(1), m[:, :k].sum(0)
            pr, rc = tp / np.maximum(prd, 1), tp / np.maximum(sup, 1)
            f = np.where(pr + rc > 0, 2 * pr * rc / np.maximum(pr + rc, 1e-12), 0)
            return f[sup > 0].mean()
        draws = [np.concatenate([members[j] for j in rng.integers(0, len(ucaps), len(ucaps))])
                 for _ in range(a.boot)]
        base_p = res[('baseline', 'NB')][3]
        print(f'\npaired bootstrap over the {len(ucaps)} labelled captures ({a.boot} resamples): '
              'macro-F1 minus NB baseline, mean [2.5%, 97.5%], share of resamples > 0')
        for key in sorted(res, key=lambda t: -res[t][0]):
            if key == ('baseline', 'NB'):
                continue
            d = np.array([mf1(y[b], res[key][3][b]) - mf1(y[b], base_p[b]) for b in draws])
            print(f'  {key[0]:<11} {key[1]:<5} {d.mean():+.3f} [{np.percentile(d, 2.5):+.3f}, '
                  f'{np.percentile(d, 97.5):+.3f}]  {(d > 0).mean():.2f}')

    print('\nmodel sizes (trees = iterations x classes; per fold: trees / max depth / leaves in all):')
    for (l, g), v in sorted(sizes.items()):
        if g in (('base',), tuple(['base'] + GROUPS)):
            print(f"  {l:<5} {'baseline' if g == ('base',) else 'all':<9} " + ', '.join(f'{t}/{d}/{n}' for t, d, n in v))

    # Robustness: the same comparison under other fold assignments (by capture, other seeds).
    if a.seeds > 0:
        cfgs = [('NB', ['base']), ('HGB', ['base']), ('HGBs', ['base']), ('HGB', ['base', 'portclass']),
                ('HGB', ['base'] + GROUPS), ('HGBs', ['base'] + GROUPS)]
        print(f'\nother fold seeds ({a.seeds}), macro-F1 per seed; delta = minus NB baseline of that seed:')
        table = collections.defaultdict(list)
        for sd in range(a.seed + 1, a.seed + 1 + a.seeds):
            fr = folds_by_group([r['pcap'] for r in recs], [int(i in case_set) for i in range(len(recs))],
                                a.folds, sd)
            fs = np.array([fr[i] for i in idx])
            for l, g in cfgs:
                table[(l, tuple(g))].append(cv(l, g, fs)[0][0])
        nb0 = np.array(table[('NB', ('base',))])
        for (l, g), v in table.items():
            name = 'baseline' if g == ('base',) else ('all' if len(g) > 2 else '+' + g[1])
            d = np.array(v) - nb0
            print(f"  {l:<5} {name:<10} " + ' '.join(f'{x:.3f}' for x in v) +
                  f'   mean {np.mean(v):.3f}, delta mean {d.mean():+.3f} (min {d.min():+.3f}, max {d.max():+.3f})')
    print(f'\nruntime {time.time() - t0:.0f} s (work dir {work})')


if __name__ == '__main__':
    main()
