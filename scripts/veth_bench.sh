#!/usr/bin/env bash
# Highest lossless live rate on a veth pair, wirespeed (2 workers) beside ndpiReader, same traffic.
#   scripts/veth_bench.sh [TRACE.pcap] [RATE_PPS...]
# Default trace: the synthetic worst case with 100,000 flows (500,000 64-byte frames). Needs root,
# iproute2 and ndpiReader (skipped if absent). Traffic stays inside two network namespaces joined
# by the veth pair (no addresses, IPv6 off); both are deleted at exit.
# For each rate: the replayer's achieved rate, packets each reader saw, and the kernel's own drops
# (wirespeed: PACKET_STATISTICS, or the XDP sockets' XDP_STATISTICS; the backlog of the veth
# itself: /proc/net/softnet_stat), and wirespeed's CPU seconds over the run.
# CAPTURE=xdp: `live --capture xdp` (the XDP program in the veth driver, AF_XDP sockets; builds
# with --features ebpf; FEATURES=ebpf builds the same binary for the AF_PACKET rows). WORKERS
# (default 2). NDPI=0 leaves ndpiReader out.
set -euo pipefail
cd "$(dirname "$0")/.."
capture=${CAPTURE:-af-packet}
workers=${WORKERS:-2}
features=${FEATURES:-}
[ "$capture" = xdp ] && features=${features:-ebpf}
cargo build --profile dist -q ${features:+--features "$features"}
ws=$PWD/target/dist/wirespeed
work=${BENCH_DIR:-/tmp/wirespeed-bench}
mkdir -p "$work"
trace=${1:-$work/worst-100000.pcap}
shift || true
rates=${*:-"50000 100000 200000 400000 800000 top"}
[ -f "$trace" ] || $ws gen worst-case --flows 100000 -o "$trace" 2> /dev/null

id=$$
A=wsbA$id B=wsbB$id a=wsba$id b=wsbb$id
. scripts/lib/veth_pair.sh

softnet_drops() { local s=0 _p d _r; while read -r _p d _r; do s=$((s + 16#$d)); done < /proc/net/softnet_stat; echo $s; }

replay() { # rate -> prints the replayer's line
    local r=$1 pace=()
    [ "$r" = top ] || pace=(--pps "$r")
    ip netns exec "$A" "$ws" replay -i "$a" "$trace" "${pace[@]}" 2>&1 | tail -1
}

echo "capture $capture, $workers workers"
echo "| offered pps | achieved pps | wirespeed saw | wirespeed kernel drops | wirespeed CPU s | ndpiReader saw | veth backlog drops |"
echo "|---:|---:|---:|---:|---:|---:|---:|"
for r in $rates; do
    # wirespeed
    d0=$(softnet_drops)
    ip netns exec "$B" "$ws" live -i "$b" --capture "$capture" --workers "$workers" --status 0 \
        --duration 120 -o /dev/null 2> "$work/live.err" &
    lp=$!
    for _ in $(seq 100); do grep -q 'live: ready' "$work/live.err" && break; sleep 0.1; done
    line=$(replay "$r")
    sent=$(echo "$line" | sed -n 's/^replay: \([0-9]*\) frames.*/\1/p')
    pps=$(echo "$line" | sed -n 's/.* s: \([0-9]*\) pps.*/\1/p')
    sleep 1
    # utime + stime, clock ticks, of the capture process (ip netns exec became it).
    cpu=$(awk -v hz="$(getconf CLK_TCK)" '{printf "%.2f", ($14 + $15) / hz}' /proc/$lp/stat)
    kill -TERM $lp; wait $lp || true
    saw=$(sed -n 's/^wirespeed: \([0-9]*\) packets.*/\1/p' "$work/live.err")
    if [ "$capture" = xdp ]; then
        kdrop=$(sed -n 's/^kernel: .* XDP program, \([0-9]*\) dropped.*/\1/p' "$work/live.err")
    else
        kdrop=$(sed -n 's/^kernel: .* passed the filter, \([0-9]*\) dropped.*/\1/p' "$work/live.err")
    fi
    d1=$(softnet_drops)
    # ndpiReader on the same veth, same traffic
    nsaw=-
    if [ "${NDPI:-1}" != 0 ] && command -v ndpiReader > /dev/null; then
        dur=$(( sent / ${pps:-1} + 4 ))
        ip netns exec "$B" ndpiReader -i "$b" -s "$dur" > "$work/ndpi.out" 2>&1 &
        np=$!
        sleep 2
        replay "$r" > /dev/null
        wait $np || true
        nsaw=$(sed -n 's/.*IP packets: *[0-9]* *of \([0-9]*\) packets total.*/\1/p' "$work/ndpi.out" | head -1)
    fi
    d2=$(softnet_drops)
    echo "| $r | $pps | $saw of $sent | $kdrop | $cpu | ${nsaw:-?} of $sent | $((d1 - d0)) / $((d2 - d1)) |"
done
