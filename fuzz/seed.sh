#!/usr/bin/env bash
# Seed the fuzz corpora from ../shared/corpus: whole capture files for `capture` (and, the
# smaller ones, for `stream`), single
# frames (prefixed with the byte that selects their link type) for `decode`, and the DPI test
# payloads for `dpi`.
#   fuzz/seed.sh && cargo +nightly fuzz run decode   (or: RUSTC_BOOTSTRAP=1 cargo fuzz run decode)
set -euo pipefail
cd "$(dirname "$0")"
src=${1:-../../shared/corpus/pcap}
mkdir -p corpus/capture corpus/decode
cp "$src"/* corpus/capture/
mkdir -p corpus/model && cp ../models/default.wsm corpus/model/
# `stream`: the smaller captures, behind a byte that picks the window size.
mkdir -p corpus/stream
for f in "$src"/*; do
    if [ "$(stat -c %s "$f")" -le 65536 ]; then
        { printf '\003'; cat "$f"; } > "corpus/stream/$(basename "$f")"
    fi
done
python3 - "$src" <<'PY'
import os, struct, sys, hashlib
LINKS = [0, 1, 9, 12, 14, 51, 101, 104, 105, 108, 113, 119, 127, 163, 192, 228, 229, 276]  # as in fuzz_targets/decode.rs
def frames(b):
    if b[:4] == b'\x0a\x0d\x0d\x0a':
        bo = '<' if b[8:12] == b'\x4d\x3c\x2b\x1a' else '>'
        off, lts = 0, []
        while off + 12 <= len(b):
            t, l = struct.unpack(bo + 'II', b[off:off + 8])
            if l < 12: return
            if t == 1: lts.append(struct.unpack(bo + 'H', b[off + 8:off + 10])[0])
            if t == 6 and lts:
                iid, _, _, cl, _ = struct.unpack(bo + 'IIIII', b[off + 8:off + 28])
                if iid < len(lts): yield lts[iid], b[off + 28:off + 28 + cl]
            off += l
    elif len(b) >= 24:
        e = '<' if b[0] in (0xd4, 0x4d) else '>'
        lt = struct.unpack(e + 'I', b[20:24])[0] & 0xffff
        off = 24
        while off + 16 <= len(b):
            _, _, cl, _ = struct.unpack(e + 'IIII', b[off:off + 16])
            yield lt, b[off + 16:off + 16 + cl]
            off += 16 + cl
for name in sorted(os.listdir(sys.argv[1])):
    data = open(os.path.join(sys.argv[1], name), 'rb').read()
    for i, (lt, f) in enumerate(frames(data)):
        if i >= 20 or lt not in LINKS: break
        seed = bytes([LINKS.index(lt)]) + f
        open('corpus/decode/' + hashlib.sha1(seed).hexdigest(), 'wb').write(seed)
PY
# `dpi`: the payloads of the DPI tests (crates/dpi/vectors, cut from the same captures), each
# behind the 4-byte header the target reads (flags: TCP, to the server; port index), over both
# transports and every port of the target's list.
mkdir -p corpus/dpi
python3 - ../crates/dpi/vectors <<'PY'
import os, sys, hashlib
for name in sorted(os.listdir(sys.argv[1])):
    hexs = ''.join(l.strip() for l in open(os.path.join(sys.argv[1], name)) if not l.startswith('#'))
    payload = bytes.fromhex(hexs)
    for flags in (0x03, 0x02):
        for port in range(15):
            seed = bytes([flags, port, 0xc3, 0x50]) + payload
            open('corpus/dpi/' + hashlib.sha1(seed).hexdigest(), 'wb').write(seed)
PY
# `x509`: the certificates of the X.509 tests (emotet.pcap, tls-rdn-extract.pcap).
mkdir -p corpus/x509
for f in ../crates/dpi/src/x509/*.hex; do
    python3 -c 'import sys; sys.stdout.buffer.write(bytes.fromhex(open(sys.argv[1]).read().strip()))' "$f" \
        > "corpus/x509/$(basename "$f" .hex)"
done
# `rules`: the shipped host list and a protos.txt in nDPI's syntax.
mkdir -p corpus/rules
cp ../data/app_hosts.csv corpus/rules/
printf '%s\n' 'tcp:81,tcp:8181@HTTP' 'udp:5061-5062@SIP' 'host:"disneyplus.com",host:"*.x.net"@DisneyPlus' \
    'ip:213.75.170.11/32:443@CustomProtocol' 'ipv6:[2001:db8::1]/32:443@V6' 'www.youtube.com' \
    > corpus/rules/protos.txt
# `networks`: the shipped address-owner list, whole and in pieces of 200 rows.
mkdir -p corpus/networks
split -l 200 ../data/app_networks.csv corpus/networks/app_networks.
# `dns_answers`: DNS responses: the one the answer tests build from RFC 1035 §4.1 (a CNAME to a
# compressed target, TXT, A of classes IN and CH, AAAA) and dns.pcap's frame 5 (eight A records).
mkdir -p corpus/dns_answers
python3 - <<'PY'
seeds = {
    'rfc1035': '12348180000100060000000003777777076578616d706c6503636f6d0000010001'
               'c00c000500010000012c00070465646765c010c02d001000010000003c00060568656c6c6fc0'
               '2d000100010000003c00045db8d822c02d000100030000003c00040a000001c02d0001000100'
               '00007800045db8d823c02d001c000100000e10001026062800022000010248189325c81946',
    'dns-pcap-frame5': '784381800001000800000000026537087768617473617070036e65740000010001'
                       'c00c00010001000001eb0004a92ddbebc00c00010001000001eb0004a92f288e'
                       'c00c00010001000001eb0004a92df879c00c00010001000001eb00046ca8b0ea'
                       'c00c00010001000001eb0004a92df8bdc00c00010001000001eb0004a92df8b4'
                       'c00c00010001000001eb0004a935514fc00c00010001000001eb0004a92ddbe8',
}
for name, h in seeds.items():
    open('corpus/dns_answers/' + name, 'wb').write(bytes.fromhex(h))
PY
echo "seeded: $(ls corpus/capture | wc -l) captures, $(ls corpus/decode | wc -l) frames, $(ls corpus/dpi | wc -l) payloads, $(ls corpus/x509 | wc -l) certificates, $(ls corpus/dns_answers | wc -l) DNS responses"
