#!/usr/bin/env bash
# Issue 5's target, 2 workers against 1 on the worst case, measured in rounds that each run
#   1 worker on the whole trace, 2 workers on the whole trace, and two 1-worker processes at once
#   on its two halves (no dispatch at all: what the machine gives two independent programs),
# back to back, so every ratio compares runs from the same few seconds. The VM this project runs
# on changes speed by ±30% within minutes, and its host sometimes runs something else on a vCPU
# ("steal", which the guest kernel counts in /proc/stat, printed beside each run). More often
# it slows two busy vCPUs together without any steal (shared caches on the host: two copies of
# an L2-sized pointer chase, each alone 1.04 s, took 1.3-1.5 s side by side at such moments).
# The pair is the measure of that: the summary gives the median of the per-round ratios over all
# rounds and over the rounds in which the machine gave the two independent processes at least
# PAIR_MIN (default 1.8×) over one, that is, where the target was within the machine's reach.
#   scripts/scaling_rounds.sh [ROUNDS] [FLOWS]     (defaults 12 and 1000000)
# The traces are generated on first use under $BENCH_DIR (default /tmp/wirespeed-bench).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-12}
flows=${2:-1000000}
half=$((flows / 2))
pair_min=${PAIR_MIN:-1.8}
work=${BENCH_DIR:-/tmp/wirespeed-bench}
mkdir -p "$work"
cargo build --profile dist -q
ws=target/dist/wirespeed
whole="$work/worst-$flows.pcap"
a="$work/worst-$half.pcap"
b="$work/worst-$half-b.pcap"
[ -f "$whole" ] || $ws gen worst-case --flows "$flows" -o "$whole" 2> /dev/null
[ -f "$a" ] || $ws gen worst-case --flows "$half" -o "$a" 2> /dev/null
[ -f "$b" ] || cp "$a" "$b"
cat "$whole" "$a" "$b" > /dev/null # in the page cache for every run

# Steal of all CPUs, in milliseconds (field 9 of the "cpu" line, in USER_HZ ticks of 10 ms).
steal() { awk '/^cpu /{print $9 * 10; exit}' /proc/stat; }
secs() { sed -n 's/.* time \([0-9.]*\) s .*/\1/p'; }

echo "| round | 1 worker s | 2 workers s | pair s (slower) | steal ms (1w / 2w / pair) | 1w ÷ 2w | 1w ÷ pair |"
echo "|---:|---:|---:|---:|---|---:|---:|"
rows=()
for r in $(seq "$rounds"); do
    s0=$(steal)
    t1=$($ws bench "$whole" --workers 1 2>&1 | secs)
    s1=$(steal)
    t2=$($ws bench "$whole" --workers 2 2>&1 | secs)
    s2=$(steal)
    pa=$( ($ws bench "$a" --workers 1 2>&1 | secs) & ($ws bench "$b" --workers 1 2>&1 | secs); wait)
    s3=$(steal)
    tp=$(printf '%s\n' $pa | sort -n | tail -1)
    d1=$((s1 - s0)); d2=$((s2 - s1)); d3=$((s3 - s2))
    r2=$(echo "$t1 / $t2" | bc -l); rp=$(echo "$t1 / $tp" | bc -l)
    printf '| %d | %.3f | %.3f | %.3f | %d / %d / %d | %.2f× | %.2f× |\n' \
        "$r" "$t1" "$t2" "$tp" "$d1" "$d2" "$d3" "$r2" "$rp"
    quiet=$(echo "$rp >= $pair_min" | bc -l)
    rows+=("$r2 $rp $quiet $t1 $t2 $tp")
done

printf '%s\n' "${rows[@]}" | awk -v lim="$pair_min" '
function med(a, n,   i, j, t) {
    for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{ n++; r2[n] = $1; rp[n] = $2; t1[n] = $4; t2[n] = $5; tp[n] = $6; c[n] = $1 / $2
  if ($3) { q++; q2[q] = $1; qp[q] = $2; if ($1 >= lim) hit++ } }
END {
    printf "\nall %d rounds: medians 1 worker %.3f s, 2 workers %.3f s, pair %.3f s;", n, med(t1, n), med(t2, n), med(tp, n)
    printf " median of the per-round ratios: 2 workers %.2fx, pair %.2fx;", med(r2, n), med(rp, n)
    printf " 2 workers against the pair, median %.2f\n", med(c, n)
    if (q) printf "%d rounds where the pair reached %.2fx: median ratios 2 workers %.2fx, pair %.2fx; 2 workers reached %.2fx in %d of them\n", q, lim, med(q2, q), med(qp, q), lim, hit
    else printf "no round where the pair reached %.2fx\n", lim
}'
