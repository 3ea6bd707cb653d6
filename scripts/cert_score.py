#!/usr/bin/env python3
"""Compare the records' server-certificate names (tls_cert_subject, tls_cert_issuer) with tshark's
X.509 dissection of the same captures.

usage: scripts/cert_score.py PCAP_DIR PREDICTED.csv [--show N] [--min PCT] [--cache DIR]

PREDICTED: CSV from `wirespeed classify --format csv --with-source` (columns pcap, src_ip, src_port,
dst_ip, dst_port, l4, tls_cert_subject, tls_cert_issuer). For every TCP or UDP flow in which tshark
dissects a server Certificate message (TLS or DTLS; the first one the server sends, its first
certificate), tshark's RDNs (`x509if.oid` and the attribute's string value) are written in the
record's RFC 4514 form (docs/SCHEMA.md): reverse order, RFC 4514 short names, `+` inside a
multi-valued RDN, `,`+"\\<>; escaped. The record's value must be equal. tshark is the independent
source; only the text form is ours.
"""
import argparse, collections, csv, json, os, subprocess, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'shared', 'tools'))
try:
    from score_labels import ip
except ImportError:  # the scorer's address normalisation, if it is not at hand
    import ipaddress

    def ip(s):
        try:
            return str(ipaddress.ip_address(s))
        except ValueError:
            return ''

SHORT = {'2.5.4.3': 'CN', '2.5.4.6': 'C', '2.5.4.7': 'L', '2.5.4.8': 'ST', '2.5.4.9': 'STREET',
         '2.5.4.10': 'O', '2.5.4.11': 'OU', '0.9.2342.19200300.100.1.25': 'DC',
         '0.9.2342.19200300.100.1.1': 'UID', '1.2.840.113549.1.9.1': 'emailAddress'}


def esc(v):
    out = []
    for i, ch in enumerate(v):
        if ch in ',+"\\<>;' or (i == 0 and ch in '# ') or (i == len(v) - 1 and ch == ' '):
            out.append('\\')
        out.append(ch)
    return ''.join(out)


def leaves(o):
    """String leaves of a tshark JSON subtree, skipping OIDs and CHOICE indices (a value whose
    sibling `KEY_tree` holds the chosen alternative)."""
    if isinstance(o, dict):
        for k, v in o.items():
            if k in ('x509if.oid', 'x509if.id') or (isinstance(v, str) and k + '_tree' in o):
                continue
            if isinstance(v, str):
                yield (k, v)
            else:
                yield from leaves(v)
    elif isinstance(o, list):
        for v in o:
            yield from leaves(v)


def as_list(o):
    return o if isinstance(o, list) else [o]


def name_text(tree):
    """tshark's x509af.issuer_tree / subject_tree as RFC 4514 text, or None."""
    seq = tree.get('x509if.rdnSequence_tree') or tree.get('x509af.rdnSequence_tree')
    if not isinstance(seq, dict):
        return None
    rdns = []
    for rdn in as_list(seq.get('x509if.RDNSequence_item_tree', [])):
        attrs = []
        for atv in as_list(rdn.get('x509if.RelativeDistinguishedName_item_element', [])):
            oid = atv.get('x509if.oid') or atv.get('x509if.id', '')
            vals = [v for _, v in leaves(atv)]
            if not oid or not vals:
                return None
            attrs.append(f'{SHORT.get(oid, oid)}={esc(vals[0])}')
        rdns.append('+'.join(attrs))
    return ','.join(reversed(rdns))


def first_cert(layer, prefix):
    """(subject, issuer) of the first certificate of the first Certificate message in a tls/dtls layer."""
    for rec in as_list(layer.get(prefix + '.record', [])):
        for hs in as_list(rec.get(prefix + '.handshake', [])) if isinstance(rec, dict) else []:
            if not isinstance(hs, dict) or hs.get(prefix + '.handshake.type') != '11':
                continue
            certs = hs.get(prefix + '.handshake.certificates', {})
            for c in as_list(certs.get(prefix + '.handshake.certificate_tree', [])) if isinstance(certs, dict) else []:
                sc = c.get('x509af.signedCertificate_element', {})
                s = name_text(sc.get('x509af.subject_tree', {}))
                i = name_text(sc.get('x509af.issuer_tree', {}))
                return (s, i)
    return None


def hs_types(layer, prefix):
    t = []
    for rec in as_list(layer.get(prefix + '.record', [])):
        if isinstance(rec, dict):
            for hs in as_list(rec.get(prefix + '.handshake', [])):
                if isinstance(hs, dict) and prefix + '.handshake.type' in hs:
                    t.append(hs[prefix + '.handshake.type'])
    return t


CACHE = None


def tshark_certs(path):
    cmd = ['tshark', '-n', '-r', path, '-T', 'json', '--no-duplicate-keys',
           '-J', 'ip ipv6 tcp udp tls dtls',
           '-Y', ' or '.join(f'{p}.handshake.type == {t}' for p in ('tls', 'dtls') for t in (1, 2, 11))]
    cached = os.path.join(CACHE, os.path.basename(path) + '.json') if CACHE else None
    try:
        if cached and os.path.exists(cached):
            out = open(cached).read()
        else:
            out = subprocess.run(cmd, capture_output=True, text=True, timeout=300).stdout
            if cached:
                os.makedirs(CACHE, exist_ok=True)
                open(cached, 'w').write(out)
        pkts = json.loads(out) if out.strip() else []
    except (subprocess.TimeoutExpired, json.JSONDecodeError):
        return {}
    client = {}
    certs = {}
    for p in pkts:
        L = p.get('_source', {}).get('layers', {})
        v4, v6 = as_list(L.get('ip', [])), as_list(L.get('ipv6', []))
        if v6 and isinstance(v6[-1], dict) and 'ipv6.src' in v6[-1] and not v4:
            src, dst = ip(v6[-1]['ipv6.src']), ip(v6[-1]['ipv6.dst'])
        elif v4 and isinstance(v4[-1], dict) and 'ip.src' in v4[-1]:
            src, dst = ip(v4[-1]['ip.src']), ip(v4[-1]['ip.dst'])
        else:
            continue
        if 'tcp' in L:
            t = as_list(L['tcp'])[-1]; l4 = 'TCP'; sp, dp = t.get('tcp.srcport'), t.get('tcp.dstport')
        elif 'udp' in L:
            t = as_list(L['udp'])[-1]; l4 = 'UDP'; sp, dp = t.get('udp.srcport'), t.get('udp.dstport')
        else:
            continue
        k = (l4, min((src, sp), (dst, dp)), max((src, sp), (dst, dp)))
        for prefix in ('tls', 'dtls'):
            for layer in as_list(L.get(prefix, [])):
                if not isinstance(layer, dict):
                    continue
                types = hs_types(layer, prefix)
                if '1' in types:
                    client.setdefault(k, (src, sp))
                if '2' in types:
                    client.setdefault(k, (dst, dp))
                if '11' in types and k not in certs and client.get(k) not in (None, (src, sp)):
                    fc = first_cert(layer, prefix)
                    if fc and fc[0] is not None and fc[1] is not None:
                        certs[k] = fc
    return certs


def main():
    ap = argparse.ArgumentParser(); ap.add_argument('pcaps'); ap.add_argument('predicted')
    ap.add_argument('--show', type=int, default=0); ap.add_argument('--min', type=float, default=0.0)
    ap.add_argument('--cache', help="keep tshark's output here (reused when present)")
    a = ap.parse_args()
    global CACHE
    CACHE = a.cache
    pred = collections.defaultdict(dict)
    for r in csv.DictReader(open(a.predicted, newline='', errors='replace')):
        l4 = r['l4'].upper(); l4 = {'6': 'TCP', '17': 'UDP'}.get(l4, l4)
        s = (ip(r['src_ip']), r['src_port']); d = (ip(r['dst_ip']), r['dst_port'])
        pred[r['pcap']][(l4, min(s, d), max(s, d))] = r
    tot = collections.Counter(); ok = collections.Counter(); bad = []
    for pcap in sorted(os.listdir(a.pcaps)):
        for k, (subj, iss) in tshark_certs(os.path.join(a.pcaps, pcap)).items():
            r = pred[pcap].get(k) or {}
            for field, want in (('tls_cert_subject', subj), ('tls_cert_issuer', iss)):
                tot[field] += 1
                got = r.get(field, '') or ''
                # Our values are cut at 255 bytes between characters: compare the kept prefix.
                if got == want or (len(got.encode()) > 250 and want.startswith(got)):
                    ok[field] += 1
                elif len(bad) < a.show:
                    bad.append((pcap, k, field, want, got))
    for b in bad:
        print('  miss', *b)
    worst = 100.0
    for f in ('tls_cert_subject', 'tls_cert_issuer'):
        if tot[f]:
            pct = 100 * ok[f] / tot[f]; worst = min(worst, pct)
            print(f'{f}: {ok[f]}/{tot[f]} = {pct:.1f}% equal to tshark')
    sys.exit(0 if worst >= a.min else 1)


if __name__ == '__main__':
    main()
