#!/usr/bin/env bash
# 1 worker against 2 on the worst case and the corpus mix: `wirespeed bench` (in process, records
# formatted as JSON and discarded), runs alternated, best and median of RUNS each, and the CPU
# time of the workers (and of the reader with --reader-thread, row "2r"), read from the kernel,
# so it holds on a busy machine too.
#   scripts/bench_workers.sh [RUNS]      (default 5; needs the traces scripts/bench.sh makes)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
work=${BENCH_DIR:-/tmp/wirespeed-bench}
cargo build --profile dist -q
ws=target/dist/wirespeed
for f in "$work/worst-1000000.pcap" "$work/corpus-x20.pcap"; do
    [ -f "$f" ] || { echo "missing $f: run scripts/bench.sh first" >&2; continue; }
    cat "$f" > /dev/null
    declare -A t=() bests=() meds=()
    for _ in $(seq "$runs"); do
        for n in 1 2 2r; do
            if [ "$n" = 2r ]; then a=(--workers 2 --reader-thread); else a=(--workers "$n"); fi
            out=$($ws bench "$f" "${a[@]}" 2>&1)
            s=$(echo "$out" | sed -n 's/.* time \([0-9.]*\) s .*/\1/p')
            t[$n]="${t[$n]:-} $s"
            [ "$n" = 2 ] && cpu=$(echo "$out" | grep '^cpu time')
            [ "$n" = 2r ] && cpur=$(echo "$out" | grep '^cpu time')
        done
    done
    pk=$($ws bench "$f" --workers 1 | sed -n 's/^packets \([0-9]*\) .*/\1/p')
    for n in 1 2 2r; do
        # shellcheck disable=SC2086
        read -r best med <<< "$(printf '%s\n' ${t[$n]} | sort -n | awk '{a[NR]=$1} END {print a[1], a[int((NR+1)/2)]}')"
        printf '| %s | %s | %.3f | %.3f | %.2f |\n' "$(basename "$f")" "$n" "$best" "$med" \
            "$(echo "$pk / $best / 1000000" | bc -l)"
        bests[$n]=$best
        meds[$n]=$med
    done
    for n in 2 2r; do
        printf '  %s vs 1: best %.2fx, median %.2fx\n' "$n" \
            "$(echo "${bests[1]} / ${bests[$n]}" | bc -l)" "$(echo "${meds[1]} / ${meds[$n]}" | bc -l)"
    done
    echo "  last 2-worker run: $cpu"
    echo "  last 2-worker run with a reader thread: $cpur"
    unset t
done
