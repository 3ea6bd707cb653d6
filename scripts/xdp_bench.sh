#!/usr/bin/env bash
# `live --capture xdp` against AF_PACKET (issue 39 item 3's target: AF_XDP captures 64-byte
# frames without kernel drops at >= 1.5x the rate AF_PACKET holds without drops), on a veth pair
# fed by a sender fast enough to find both limits: scripts/xdpgen, which sends XDP frames with the
# kernel's BPF_PROG_TEST_RUN in live-frames mode (no socket, no skb on the sending side; the
# frames reach the capture end as a NIC's reach its driver). The replayer of veth_bench.sh,
# whose sendmmsg builds an skb a frame, tops out below what either capture holds.
#   scripts/xdp_bench.sh [FRAMES] [FLOWS] [RATE_PPS...]     (root; builds with --features ebpf)
# WORKERS (1), BUFFER_MB (64: --buffer-mb of both captures). Needs clang, libbpf-dev, ethtool.
# Per capture and rate: frames sent, the rate reached, frames wirespeed saw, the capture's kernel
# drops (PACKET_STATISTICS, or the XDP sockets' XDP_STATISTICS), frames the veth dropped on
# receive (its XDP counters), and wirespeed's CPU seconds. The AF_PACKET end runs an XDP program
# that passes every frame (a veth takes XDP frames only with one), so its frames become skbs
# there, as a NIC driver's do. Two namespaces joined by the pair, no addresses, deleted at exit.
set -euo pipefail
cd "$(dirname "$0")/.."
frames=${1:-1000000}
flows=${2:-100000}
shift $(( $# > 2 ? 2 : $# ))
rates=${*:-"250000 500000 750000 1000000 1500000 2000000 0"}
workers=${WORKERS:-1}
buffer=${BUFFER_MB:-64}
cargo build --profile dist -q --features ebpf
ws=$PWD/target/dist/wirespeed
work=${BENCH_DIR:-/tmp/wirespeed-bench}
mkdir -p "$work"
clang -O2 -g -target bpf -I/usr/include/"$(uname -m)"-linux-gnu -Wall -Werror \
    -c scripts/xdpgen/gen.bpf.c -o "$work/gen.bpf.o"
cc -O2 -Wall -Werror scripts/xdpgen/xdpgen.c -o "$work/xdpgen" -lbpf
gen=$work/xdpgen obj=$work/gen.bpf.o

id=$$
A=wsxA$id B=wsxB$id a=wsxa$id b=wsxb$id
. scripts/lib/veth_pair.sh

# The veth's receive-side XDP drops and the sender's transmit errors, summed.
veth_drops() {
    local rx tx
    rx=$(ip netns exec "$B" ethtool -S "$b" | awk '/rx_queue_[0-9]+_xdp_drops/ {s += $2} END {print s + 0}')
    tx=$(ip netns exec "$A" ethtool -S "$a" | awk '/xdp_xmit_errors/ {s += $2} END {print s + 0}')
    echo $((rx + tx))
}

echo "$frames frames of 64 bytes over $flows flows a rate, $workers worker(s), --buffer-mb $buffer"
echo "| capture | offered pps | reached pps | wirespeed saw | capture drops | veth drops | wirespeed CPU s |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for capture in af-packet xdp; do
    for r in $rates; do
        [ "$capture" = af-packet ] && ip netns exec "$B" "$gen" --pass "$b" "$obj"
        v0=$(veth_drops)
        ip netns exec "$B" "$ws" live -i "$b" --capture "$capture" --workers "$workers" \
            --buffer-mb "$buffer" --status 0 --duration 300 -o /dev/null 2> "$work/xlive.err" &
        lp=$!
        for _ in $(seq 200); do grep -q 'live: ready' "$work/xlive.err" && break; sleep 0.1; done
        line=$(ip netns exec "$A" "$gen" "$a" "$frames" "$r" "$flows" "$obj")
        pps=$(echo "$line" | sed -n 's/.* s: \([0-9]*\) pps.*/\1/p')
        sleep 1
        cpu=$(awk -v hz="$(getconf CLK_TCK)" '{printf "%.2f", ($14 + $15) / hz}' /proc/$lp/stat)
        kill -TERM $lp; wait $lp || true
        saw=$(sed -n 's/^wirespeed: \([0-9]*\) packets.*/\1/p' "$work/xlive.err")
        if [ "$capture" = xdp ]; then
            kdrop=$(sed -n 's/^kernel: .* XDP program, \([0-9]*\) dropped.*/\1/p' "$work/xlive.err")
        else
            kdrop=$(sed -n 's/^kernel: .* passed the filter, \([0-9]*\) dropped.*/\1/p' "$work/xlive.err")
            ip netns exec "$B" "$gen" --unpass "$b"
        fi
        v1=$(veth_drops)
        label=$r; [ "$r" = 0 ] && label=top
        echo "| $capture | $label | $pps | $saw of $frames | $kdrop | $((v1 - v0)) | $cpu |"
    done
done
