#!/usr/bin/env bash
# Reproduce BENCHMARKS.md: wirespeed and ndpiReader on the same files, in the same run.
#   scripts/bench.sh [FLOWS] [REPLAYS]   (defaults 1000000 and 20)
# Needs ndpiReader (apt-get install libndpi-bin), GNU time and bc; the corpus mix needs
# ../shared/corpus. Wall time and peak RSS of each whole process come from /usr/bin/time.
set -euo pipefail
cd "$(dirname "$0")/.."
flows=${1:-1000000}
replays=${2:-20}
work=${BENCH_DIR:-/tmp/wirespeed-bench}
mkdir -p "$work"
cargo build --profile dist -q
ws=target/dist/wirespeed

measure() { # label packets command...
    local label=$1 pkts=$2; shift 2
    /usr/bin/time -f "%e %M" -o "$work/time.txt" "$@" > "$work/out.txt" 2> "$work/err.txt" || true
    read -r secs kib < "$work/time.txt"
    printf '| %-44s | %7.2f | %7.3f | %8.1f | %6d |\n' "$label" "$secs" \
        "$(echo "$pkts / $secs / 1000000" | bc -l)" "$(echo "$secs * 1000000000 / $pkts" | bc -l)" $((kib / 1024))
}
header() {
    echo
    echo "$1"
    echo
    echo "| run | s | Mpps | ns/packet | peak RSS MiB |"
    echo "|---|---:|---:|---:|---:|"
}

wc="$work/worst-$flows.pcap"
[ -f "$wc" ] || $ws gen worst-case --flows "$flows" -o "$wc" 2> /dev/null
pkts=$((flows * 5))
cat "$wc" > /dev/null   # in page cache for every run
header "worst case: $flows flows x 5 packets, 64-byte frames, 65,536 flows interleaved ($pkts packets)"
measure "wirespeed classify --workers 1, JSON lines to a file" $pkts $ws classify "$wc" --workers 1 -o "$work/records.json" --quiet
measure "wirespeed classify --workers 2, JSON lines to a file" $pkts $ws classify "$wc" --workers 2 -o "$work/records.json" --quiet
measure "wirespeed classify --workers 1 --format csv to a file" $pkts $ws classify "$wc" --workers 1 --format csv -o "$work/records.csv" --quiet
if command -v ndpiReader > /dev/null; then
    measure "ndpiReader -i FILE -q (nDPI $(ndpiReader -h 2>&1 | sed -n 's/.*nDPI \([0-9.]*\).*/\1/p' | head -1))" $pkts ndpiReader -i "$wc" -q
fi

corpus=${WIRESPEED_CORPUS:-../shared/corpus}
if [ -d "$corpus/pcap" ]; then
    mix="$work/corpus-x$replays.pcap"
    [ -f "$mix" ] || python3 scripts/corpus_mix.py "$corpus/pcap" "$mix" "$replays" > /dev/null
    mpkts=$($ws classify "$mix" --quiet -o /dev/null --classifiers none 2>&1; python3 -c "
import struct,sys
b=open('$mix','rb'); b.read(24); n=0
while True:
    h=b.read(16)
    if len(h)<16: break
    n+=1; b.seek(struct.unpack('<IIII',h)[2],1)
print(n)")
    cat "$mix" > /dev/null
    header "corpus mix: every Ethernet capture of ../shared/corpus replayed $replays times ($mpkts packets)"
    measure "wirespeed classify --workers 1, JSON lines to a file" "$mpkts" $ws classify "$mix" --workers 1 -o "$work/mix.json" --quiet
    measure "wirespeed classify --workers 2, JSON lines to a file" "$mpkts" $ws classify "$mix" --workers 2 -o "$work/mix.json" --quiet
    if command -v ndpiReader > /dev/null; then
        measure "ndpiReader -i FILE -q" "$mpkts" ndpiReader -i "$mix" -q
    fi
fi
