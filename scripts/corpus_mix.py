#!/usr/bin/env python3
"""Write one Ethernet pcap holding every Ethernet capture of the corpus, replayed N times.

usage: corpus_mix.py CORPUS_PCAP_DIR OUT.pcap [N]

For benchmarks that compare wirespeed with ndpiReader on the same single file (ndpiReader reads
one capture per run). Frames are copied unchanged; replay k shifts timestamps by k x 30 days so
the copies of a flow stay separate flows for both tools.
"""
import os, struct, sys

def frames(b):
    if b[:4] == b'\x0a\x0d\x0d\x0a':
        bo = '<' if b[8:12] == b'\x4d\x3c\x2b\x1a' else '>'
        off, ifs = 0, []
        while off + 12 <= len(b):
            t, l = struct.unpack(bo + 'II', b[off:off + 8])
            if l < 12 or off + l > len(b):
                return
            if t == 1:
                ifs.append(struct.unpack(bo + 'H', b[off + 8:off + 10])[0])
            elif t == 6:
                iid, hi, lo, cl, ol = struct.unpack(bo + 'IIIII', b[off + 8:off + 28])
                if iid < len(ifs) and ifs[iid] == 1:
                    ts = (hi << 32 | lo)  # microseconds unless if_tsresol says otherwise
                    yield ts // 1_000_000, ts % 1_000_000, b[off + 28:off + 28 + cl], ol
            off += l
    elif len(b) >= 24 and b[:4] in (b'\xd4\xc3\xb2\xa1', b'\xa1\xb2\xc3\xd4', b'\x4d\x3c\xb2\xa1', b'\xa1\xb2\x3c\x4d'):
        e = '<' if b[0] in (0xd4, 0x4d) else '>'
        nano = b[:4] in (b'\x4d\x3c\xb2\xa1', b'\xa1\xb2\x3c\x4d')
        if struct.unpack(e + 'I', b[20:24])[0] & 0xffff != 1:
            return
        off = 24
        while off + 16 <= len(b):
            s, f, cl, ol = struct.unpack(e + 'IIII', b[off:off + 16])
            if off + 16 + cl > len(b):
                return
            yield s, (f // 1000 if nano else f), b[off + 16:off + 16 + cl], ol
            off += 16 + cl

def main():
    src, out = sys.argv[1], sys.argv[2]
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 20
    caps = []
    for name in sorted(os.listdir(src)):
        caps.append(list(frames(open(os.path.join(src, name), 'rb').read())))
    pkts = 0
    with open(out, 'wb') as o:
        o.write(struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 262144, 1))
        for k in range(n):
            shift = k * 30 * 86400
            for cap in caps:
                for s, us, data, ol in cap:
                    o.write(struct.pack('<IIII', (s + shift) & 0xffffffff, us % 1_000_000, len(data), max(ol, len(data))))
                    o.write(data)
                    pkts += 1
    print(f'{out}: {pkts} packets ({n} replays of {sum(len(c) for c in caps)} Ethernet frames)')

if __name__ == '__main__':
    main()
