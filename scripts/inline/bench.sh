#!/usr/bin/env bash
# Inline throughput, latency and packet rate against the kernel's own forwarding, in the
# namespaces of topo.sh (client -> router -> server over veth pairs, offloads off):
#   kernel        the router forwards, no firewall rule
#   inline        `wirespeed inline` with a 20-rule policy, flows handed to the kernel once final
#   inline-nobypass  the same, every packet through wirespeed
#   inline-ebpf   `wirespeed inline --datapath ebpf` (issue 39): the tc program on the router's
#                 two interfaces enforces each flow's verdict from its map, wirespeed classifies
#                 a copy (AF_PACKET); needs a binary built with `--features ebpf` (else the row
#                 says so)
#   inline-ebpf --copy undecided  the same, with the copy filter on wirespeed's capture
#                 sockets: a decided flow's packets are no longer copied (but for SYN/FIN/RST and
#                 one a second)
#   inline-ebpf --capture ringbuf  no packet socket: the verdict program copies every packet
#                 (or, with --copy undecided, what the copy filter would let through) into its
#                 BPF ring buffer, which wirespeed drains every millisecond
#   ebpf-program-only  the same tc program (crates/ebpf/bpf/verdict.c, built here with clang)
#                 attached by `tc` to the same two interfaces, with no wirespeed process and so
#                 no copy: an empty map, every packet looked up and passed. What the program
#                 itself costs the forwarding path: the ceiling of any eBPF data path that
#                 copies less (needs clang and libbpf-dev, else the row says so)
# For each: iperf3 TCP (one stream, 5 s), ping's median round trip (500 pings, 2 ms apart), and
# the packets per second the server receives of 64-byte frames (UDP, 18-byte payload, iperf3
# sending as fast as it can for 5 s).
#   scripts/inline/bench.sh [path/to/wirespeed]
set -euo pipefail
W=${1:-target/dist/wirespeed}
here=$(cd "$(dirname "$0")" && pwd)
n=wsb$$
tmp=$(mktemp -d)
trap '"$here/topo.sh" down $n >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
"$here/topo.sh" up $n
apps=(BitTorrent YouTube Netflix Facebook TikTok Instagram Spotify Steam Twitch WhatsApp
      Telegram Zoom Skype_Teams Dropbox eDonkey Tor OpenVPN WireGuard Xbox)
: > "$tmp/policy.toml"
for i in "${!apps[@]}"; do
    printf '[[rule]]\nname = "r%d"\napp = "%s"\naction = "drop"\n\n' "$i" "${apps[$i]}" >> "$tmp/policy.toml"
done
printf '[[rule]]\nname = "web"\ncategory = "Web"\naction = "mark"\ndscp = "AF21"\n' >> "$tmp/policy.toml"
"$W" inline --policy "$tmp/policy.toml" --check | tail -n +2 | wc -l | xargs echo "policy rules (with the 2 fall-backs):" >&2
ip netns exec $n-s iperf3 -s -D -B 198.51.100.1 >/dev/null 2>&1
sleep 0.5
# tcp, pps
. "$here/measure.sh"
rtt() {
    ip netns exec $n-c ping -q -n -i 0.002 -c 500 198.51.100.1 >/dev/null
    ip netns exec $n-c ping -n -i 0.002 -c 500 198.51.100.1 | python3 -c \
        'import sys,statistics; t=[float(l.split("time=")[1].split()[0]) for l in sys.stdin if "time=" in l]; print("%.0f" % (statistics.median(t)*1000))'
}
rules() {
    ip netns exec $n-r iptables-legacy -F
    ip netns exec $n-r iptables-legacy -t mangle -F
    if [ "$1" != none ]; then
        "$W" inline --queue 0 --policy "$tmp/policy.toml" --print-rules $1 | grep '^iptables' | ip netns exec $n-r sh
    fi
}
row() {
    local name=$1
    local t r p
    t=$(tcp); r=$(rtt); p=$(pps)
    echo "$name	$t	$r	${p% *}	${p#* }"
}
echo "setup	TCP Gbit/s	ping median µs	64-byte pps received	UDP loss %"
rules none
row kernel
for mode in "" --no-bypass; do
    rules "${mode:-}"
    ip netns exec $n-r "$W" inline --queue 0 --policy "$tmp/policy.toml" -o /dev/null --status 0 $mode 2> "$tmp/log" &
    pid=$!
    sleep 1
    row "inline${mode:+ $mode}"
    kill -TERM $pid; wait $pid || true
    grep -E '^queue:' "$tmp/log" | cut -c1-160 >&2
done
# The eBPF data path: no firewall rule; the program on the router's ingress, verdicts from the
# copy of the traffic that wirespeed classifies.
rules none
for spec in "all af-packet" "undecided af-packet" "all ringbuf" "undecided ringbuf"; do
    set -- $spec
    name="inline-ebpf"
    [ $1 = all ] || name="$name --copy $1"
    [ $2 = af-packet ] || name="$name --capture $2"
    ip netns exec $n-r "$W" inline --datapath ebpf -i "$n-r0,$n-r1" --policy "$tmp/policy.toml" \
        --copy $1 --capture $2 -o /dev/null --status 0 2> "$tmp/log" &
    pid=$!
    sleep 1
    if kill -0 $pid 2>/dev/null; then
        row "$name"
        # The classifying process's CPU over the row (user + system, clock ticks).
        awk -v t="$(getconf CLK_TCK)" '{printf "%s: wirespeed CPU %.2f s\n", n, ($14 + $15) / t}' \
            n="$name" /proc/$pid/stat >&2
        kill -TERM $pid; wait $pid || true
        grep -E '^(ebpf|copy filter|capture|ring buffer)' "$tmp/log" | cut -c1-200 >&2
    else
        wait $pid || true
        echo "$name	(not run: $(head -c 160 "$tmp/log"))"
    fi
done
# The program alone: loaded and attached by tc (clsact, direct action), its map left empty.
src=$here/../../crates/ebpf/bpf/verdict.c
if clang -O2 -g -target bpf -Wall -I/usr/include/$(uname -m)-linux-gnu -c "$src" \
        -o "$tmp/verdict.o" 2> "$tmp/clang.log"; then
    for i in $n-r0 $n-r1; do
        ip netns exec $n-r tc qdisc add dev $i clsact
        ip netns exec $n-r tc filter add dev $i ingress bpf da obj "$tmp/verdict.o" sec classifier
    done
    row "ebpf-program-only"
    for i in $n-r0 $n-r1; do
        ip netns exec $n-r tc qdisc del dev $i clsact
    done
else
    echo "ebpf-program-only	(not run: clang: $(head -c 160 "$tmp/clang.log"))"
fi
