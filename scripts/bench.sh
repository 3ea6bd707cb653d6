#!/usr/bin/env bash
# Reproduce BENCHMARKS.md: wirespeed and ndpiReader on the same files, in the same run.
#   scripts/bench.sh [FLOWS]        (default 1000000; needs `apt-get install libndpi-bin`)
# Peak RSS and wall time of each process come from /usr/bin/time (GNU time, `apt-get install time`).
set -euo pipefail
cd "$(dirname "$0")/.."
flows=${1:-1000000}
work=${BENCH_DIR:-/tmp/wirespeed-bench}
mkdir -p "$work"
cargo build --release -q
ws=target/release/wirespeed
wc="$work/worst-$flows.pcap"
[ -f "$wc" ] || $ws gen worst-case --flows "$flows" -o "$wc"
pkts=$((flows * 5))

measure() { # label, command...
    local label=$1; shift
    /usr/bin/time -f "%e %M" -o "$work/time.txt" "$@" > "$work/out.txt" 2> "$work/err.txt" || true
    read -r secs kib < "$work/time.txt"
    printf '%-34s %8.2f s  %7.2f Mpps  %7.1f ns/pkt  peak RSS %6d MiB\n' "$label" "$secs" \
        "$(echo "$pkts / $secs / 1000000" | bc -l)" "$(echo "$secs * 1000000000 / $pkts" | bc -l)" $((kib / 1024))
}

echo "worst case: $flows flows x 5 packets, 60-byte frames, 65,536 flows interleaved ($pkts packets)"
cat "$wc" > /dev/null   # page cache, for both
measure "wirespeed classify -> file" $ws classify "$wc" -o "$work/records.json" --quiet
measure "wirespeed classify --format csv" $ws classify "$wc" --format csv -o "$work/records.csv" --quiet
if command -v ndpiReader > /dev/null; then
    measure "ndpiReader -i (4.2, Debian)" ndpiReader -i "$wc" -q
else
    echo "ndpiReader not installed: apt-get install libndpi-bin"
fi
