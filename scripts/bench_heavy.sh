#!/usr/bin/env bash
# BENCHMARKS.md's heavy-tailed trace (issue 37 item 5): wirespeed and ndpiReader on the same
# `gen heavy-tail` file in the same script, ROUNDS rounds taking turns; each whole process timed
# by GNU time; the medians as packets and bits a second of wall time and per CPU-second (user +
# system: "per core", which a busy shared machine does not shrink as much as wall time), and
# the ratio. Then callgrind's instructions a packet for both, the demo's run taken off as the
# fixed cost of a run (counts do not move with the machine's load).
#   scripts/bench_heavy.sh [FLOWS] [ROUNDS]     (defaults 60000 and 5)
#   CALLGRIND=0 scripts/bench_heavy.sh          (without the callgrind counts, ~5 min less)
# 60,000 flows: wirespeed keeps a flow's DPI context (its metadata) until the flow ends, at most
# 65,536 at once (dpi::DpiConfig::contexts); in a file shorter than the TCP close linger and UDP
# timeout nothing ends before the end, so more flows than that are named by port only and the
# comparison would be unfair. The script says so when it happens.
# Needs ndpiReader (apt-get install libndpi-bin), GNU time, python3; valgrind for the counts.
set -euo pipefail
cd "$(dirname "$0")/.."
flows=${1:-60000}
rounds=${2:-5}
work=${BENCH_DIR:-/tmp/wirespeed-bench}
mkdir -p "$work"
cargo build --profile dist -q -p wirespeed
ws=${CARGO_TARGET_DIR:-target}/dist/wirespeed
trace="$work/heavy-$flows.pcap"
[ -f "$trace" ] || "$ws" gen heavy-tail --flows "$flows" -o "$trace"
"$ws" gen demo -o "$work/demo.pcap" 2> /dev/null
# Packets and captured bytes, read from the file's record headers (not from either program).
read -r pkts bytes < <(python3 - "$trace" <<'PY'
import struct, sys
f = open(sys.argv[1], 'rb'); f.read(24); n = b = 0
while True:
    h = f.read(16)
    if len(h) < 16: break
    incl = struct.unpack('<IIII', h)[2]; f.seek(incl, 1); n += 1; b += incl
print(n, b)
PY
)
cat "$trace" > /dev/null # in the page cache for every run
"$ws" classify "$trace" --workers 1 -o /dev/null 2>&1 | grep -E "^wirespeed:|not inspected" || true
nd_version=$(ndpiReader -h 2>&1 | sed -n 's/.*nDPI \([0-9.]*\).*/\1/p' | head -1)
echo "trace: $flows flows, $pkts packets, $bytes bytes; $rounds rounds; nDPI $nd_version"

: > "$work/heavy-times.txt"
for r in $(seq "$rounds"); do
    /usr/bin/time -f "wirespeed %e %U %S %M" -a -o "$work/heavy-times.txt" \
        "$ws" classify "$trace" --workers 1 -o /dev/null -q
    /usr/bin/time -f "ndpiReader %e %U %S %M" -a -o "$work/heavy-times.txt" \
        ndpiReader -i "$trace" -q > /dev/null
done
python3 - "$work/heavy-times.txt" "$pkts" "$bytes" <<'PY'
import statistics as st, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
pkts, bits = int(sys.argv[2]), 8 * int(sys.argv[3])
res = {}
print("| run | wall s (median, min-max) | CPU s | Mpps wall | Mpps per core | Gbit/s per core | peak RSS MiB |")
print("|---|---:|---:|---:|---:|---:|---:|")
for name in ("wirespeed", "ndpiReader"):
    r = [x for x in rows if x[0] == name]
    wall = [float(x[1]) for x in r]
    cpu = [float(x[2]) + float(x[3]) for x in r]
    w, c = st.median(wall), st.median(cpu)
    res[name] = (w, c)
    print(f"| {name} | {w:.2f} ({min(wall):.2f}-{max(wall):.2f}) | {c:.2f} | {pkts / w / 1e6:.3f} | "
          f"{pkts / c / 1e6:.3f} | {bits / c / 1e9:.2f} | {max(int(x[4]) for x in r) // 1024} |")
(ww, wc), (nw, nc) = res["wirespeed"], res["ndpiReader"]
print(f"wirespeed / ndpiReader: {nw / ww:.2f}x by wall time, {nc / wc:.2f}x per core")
PY

if [ "${CALLGRIND:-1}" != 0 ] && command -v valgrind > /dev/null; then
    count() {
        valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 > /dev/null \
            | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
    }
    for name in wirespeed ndpiReader; do
        if [ $name = wirespeed ]; then
            run=("$ws" classify --workers 1 -o /dev/null -q)
        else
            run=(ndpiReader -q -i)
        fi
        fixed=$(count "${run[@]}" "$work/demo.pcap")
        total=$(count "${run[@]}" "$trace")
        echo "$name: callgrind $total instructions, demo (fixed cost) $fixed:" \
            "$(( (total - fixed) / pkts )) a packet"
    done
fi
