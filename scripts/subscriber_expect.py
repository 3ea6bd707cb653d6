#!/usr/bin/env python3
"""Write the expected values of the corpus subscriber test (crates/engine/tests/it/dpi_subscribe.rs)
from tshark's dissection of a few captures: per TCP/UDP stream, the first HTTP request's URL
(`http.host` + `http.request.uri`, the URI alone when absolute), the first DNS query name
(`dns.qry.name`, queries only) and the first SMTP recipient (`smtp.req.parameter` of the first
RCPT command, the address between < and >).

usage: scripts/subscriber_expect.py [PCAP_DIR] > crates/engine/tests/data/subscriber_expect.tsv
"""
import subprocess, sys

PCAPS = ['1kxun.pcap', 'teams.pcap', 'smtp.pcap', 'emotet.pcap']


def rows(path, filt, fields):
    cmd = ['tshark', '-n', '-r', path, '-Y', filt, '-T', 'fields', '-E', 'separator=\t',
           '-E', 'occurrence=f']
    for f in fields:
        cmd += ['-e', f]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=300).stdout
    return [l.split('\t') for l in out.splitlines()]


def first_per_stream(rs, value):
    seen, out = set(), []
    for r in rs:
        k = (r[0], r[1])
        v = value(r[2:])
        if k in seen or not v:
            continue
        seen.add(k)
        out.append(v)
    return out


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else '../shared/corpus/pcap'
    print('# pcap\tfield\tvalue (first value of each TCP/UDP stream, from tshark 4.0; '
          'scripts/subscriber_expect.py)')
    for p in PCAPS:
        path = f'{d}/{p}'
        http = rows(path, 'http.request.method', ['tcp.stream', 'udp.stream', 'http.host', 'http.request.uri'])
        for v in first_per_stream(http, lambda c: c[1] if c[1].startswith('http://') else c[0] + c[1]):
            print(f'{p}\turl\t{v}')
        dns = rows(path, 'dns.flags.response == 0', ['tcp.stream', 'udp.stream', 'dns.qry.name'])
        for v in first_per_stream(dns, lambda c: c[0]):
            print(f'{p}\tdns_query\t{v}')
        smtp = rows(path, 'smtp.req.command == "RCPT"', ['tcp.stream', 'udp.stream', 'smtp.req.parameter'])
        addr = lambda c: c[0].split('<', 1)[1].split('>', 1)[0] if '<' in c[0] else c[0].split(':', 1)[-1].strip()
        for v in first_per_stream(smtp, addr):
            print(f'{p}\tsmtp_rcpt\t{v}')


if __name__ == '__main__':
    main()
