#!/usr/bin/env python3
"""Write, for each capture, one pcap holding it twice: the capture, then a copy of itself shifted
to start GAP seconds after the first copy's last packet (issue 19: seed 002's Host Cache claim,
measured; see scripts/replay_twice_score.py).

usage: replay_twice.py CAPTURES_DIR OUT_DIR [GAP_S]   (GAP_S: 60 by default)

Frames are copied unchanged with the capture's link type (pcap, or pcapng with one link type
over its interfaces; others are skipped and named). OUT_DIR/copies.csv says, for each file
written, when its second copy starts (ns since the epoch), so a scorer can tell the copies
apart.
"""
import os, struct, sys


def read(b):
    """(link type, [(ts_ns, data, orig_len)]) or None."""
    if b[:4] == b'\x0a\x0d\x0d\x0a':
        bo = '<' if b[8:12] == b'\x4d\x3c\x2b\x1a' else '>'
        off, ifs, out = 0, [], []
        while off + 12 <= len(b):
            t, l = struct.unpack(bo + 'II', b[off:off + 8])
            if l < 12 or off + l > len(b):
                break
            body = b[off + 8:off + l - 4]
            if t == 1:
                link = struct.unpack(bo + 'H', body[0:2])[0]
                res = 6
                o = 8
                while o + 4 <= len(body):
                    code, ln = struct.unpack(bo + 'HH', body[o:o + 4])
                    if code == 0:
                        break
                    if code == 9 and ln >= 1:
                        res = body[o + 4]
                    o += 4 + ((ln + 3) & ~3)
                ifs.append((link, res))
            elif t == 6:
                iid, hi, lo, cl, ol = struct.unpack(bo + 'IIIII', body[0:20])
                if iid >= len(ifs):
                    return None
                link, res = ifs[iid]
                ts = hi << 32 | lo
                if res & 0x80:
                    ns = ts * 10**9 // (1 << (res & 0x7f))
                else:
                    ns = ts * 10**9 // 10**res
                out.append((link, ns, body[20:20 + cl], ol))
            elif t == 3:
                ol = struct.unpack(bo + 'I', body[0:4])[0]
                if not ifs:
                    return None
                out.append((ifs[0][0], None, body[4:4 + ol], ol))
            off += l
        links = {p[0] for p in out}
        if len(links) != 1 or any(p[1] is None for p in out):
            return None
        return links.pop(), [(p[1], p[2], p[3]) for p in out]
    if len(b) >= 24 and b[:4] in (b'\xd4\xc3\xb2\xa1', b'\xa1\xb2\xc3\xd4', b'\x4d\x3c\xb2\xa1', b'\xa1\xb2\x3c\x4d'):
        e = '<' if b[0] in (0xd4, 0x4d) else '>'
        nano = b[:4] in (b'\x4d\x3c\xb2\xa1', b'\xa1\xb2\x3c\x4d')
        link = struct.unpack(e + 'I', b[20:24])[0] & 0x0fffffff
        off, out = 24, []
        while off + 16 <= len(b):
            s, f, cl, ol = struct.unpack(e + 'IIII', b[off:off + 16])
            if off + 16 + cl > len(b):
                break
            out.append((s * 10**9 + (f if nano else f * 1000), b[off + 16:off + 16 + cl], ol))
            off += 16 + cl
        return link, out
    return None


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    src, dst = sys.argv[1], sys.argv[2]
    gap = int(float(sys.argv[3]) * 1e9) if len(sys.argv) > 3 else 60 * 10**9
    os.makedirs(dst, exist_ok=True)
    rows, skipped, pkts = [], [], 0
    for name in sorted(os.listdir(src)):
        r = read(open(os.path.join(src, name), 'rb').read())
        if not r or not r[1]:
            skipped.append(name)
            continue
        link, frames = r
        first = min(f[0] for f in frames)
        last = max(f[0] for f in frames)
        shift = last - first + gap
        second = first + shift
        out = os.path.join(dst, os.path.splitext(name)[0] + '.pcap')
        with open(out, 'wb') as o:
            # Nanosecond pcap: the shift keeps every timestamp exact.
            o.write(struct.pack('<IHHiIII', 0xa1b23c4d, 2, 4, 0, 0, 262144, link))
            for k in (0, 1):
                for ts, data, ol in frames:
                    t = ts + k * shift
                    o.write(struct.pack('<IIII', (t // 10**9) & 0xffffffff, t % 10**9,
                                        len(data), max(ol, len(data))))
                    o.write(data)
                    pkts += 1
        rows.append((os.path.basename(out), second))
    with open(os.path.join(dst, 'copies.csv'), 'w') as o:
        o.write('pcap,second_copy_ns\n')
        for n, t in rows:
            o.write(f'{n},{t}\n')
    print(f'{dst}: {len(rows)} captures twice, {pkts} packets; skipped {len(skipped)}'
          + (f': {" ".join(skipped)}' if skipped else ''))


if __name__ == '__main__':
    main()
