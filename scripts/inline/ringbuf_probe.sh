#!/usr/bin/env bash
# Issue 39, the next data path's question: what does copying packets to user space through a BPF
# ring buffer, from the tc program itself, cost the router's forwarding, against a packet socket
# (AF_PACKET: what `inline --datapath ebpf` copies with today, as tcpdump does)?
#
# In the namespaces of topo.sh (client -> router -> server), with no wirespeed process: each row
# attaches to the router's two interfaces' ingress, with `tc` (clsact, direct action):
#   kernel               nothing
#   program-only         crates/ebpf/bpf/verdict.c as built for the data path, its map empty
#   ringbuf256-wake      the same program, first copying each packet's first 256 bytes (with its
#                        length, interface and time) into a ring buffer map "RB", the reader
#                        (ringbuf_probe/consume.c) woken by every record
#   ringbuf256-batch     the same, records submitted with BPF_RB_NO_WAKEUP, the reader draining
#                        the ring every millisecond
#   ringbuf2048-batch    the same with 2,048 bytes (whole packets of this link)
#   tcpdump256           no program; tcpdump -s 256 on both interfaces (a packet socket each)
# For each: iperf3 TCP (one stream, 5 s) and the 64-byte UDP packets per second the server
# receives (iperf3 sending as fast as it can, 5 s); ROUNDS rounds (default 3), rows in turn.
# The copies are counted, not classified: this measures the transport alone.
#   scripts/inline/ringbuf_probe.sh [ROUNDS]        (root; clang, libbpf-dev, tcpdump, iperf3)
set -euo pipefail
rounds=${1:-3}
here=$(cd "$(dirname "$0")" && pwd)
src=$here/../../crates/ebpf/bpf/verdict.c
n=wsr$$
tmp=$(mktemp -d)
trap '"$here/topo.sh" down $n >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
inc=-I/usr/include/$(uname -m)-linux-gnu
clang -O2 -g -target bpf -Wall $inc -c "$src" -o "$tmp/verdict.o"
# The probe's variant of the program: the ring buffer map, and the copy at the program's start.
python3 - "$src" "$tmp/rb.c" <<'PY'
import sys
s = open(sys.argv[1]).read()
def put(at, text, before=True):
    global s
    assert s.count(at) == 1, "verdict.c changed: " + at
    s = s.replace(at, text + at if before else at + text)
put("struct {\n\t__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);", """struct rec {
\t__u32 len;
\t__u32 ifindex;
\t__u64 ts;
\t__u8 data[SNAP];
};

struct {
\t__uint(type, BPF_MAP_TYPE_RINGBUF);
\t__uint(max_entries, 1 << 24);
} RB SEC(".maps");

""")
put("\tvoid *data = (void *)(long)skb->data;\n\tvoid *end = (void *)(long)skb->data_end;\n\tstruct ethhdr *eth = data;", """\t{
\t\t__u32 m = skb->len < SNAP ? skb->len : SNAP;
\t\t// [1, SNAP] with no branch the verifier could lose.
\t\t__u32 k = ((m - 1) & (SNAP - 1)) + 1;
\t\tstruct rec *r = bpf_ringbuf_reserve(&RB, sizeof(struct rec), 0);
\t\tif (r) {
\t\t\tr->len = skb->len;
\t\t\tr->ifindex = skb->ifindex;
\t\t\tr->ts = bpf_ktime_get_ns();
\t\t\tbpf_skb_load_bytes(skb, 0, r->data, k);
\t\t\tbpf_ringbuf_submit(r, RBFLAGS);
\t\t}
\t}
""")
open(sys.argv[2], "w").write(s)
PY
for v in "256 0 wake" "256 BPF_RB_NO_WAKEUP batch" "2048 BPF_RB_NO_WAKEUP batch"; do
    set -- $v
    clang -O2 -g -target bpf -Wall $inc -I"$(dirname "$src")" -DSNAP=$1 -DRBFLAGS=$2 -c "$tmp/rb.c" -o "$tmp/rb$1-$3.o"
done
cc -O2 "$here/ringbuf_probe/consume.c" -o "$tmp/consume" -lbpf
"$here/topo.sh" up $n
ip netns exec $n-s iperf3 -s -D -B 198.51.100.1 >/dev/null 2>&1
sleep 0.5
# tcp, pps
. "$here/measure.sh"
attach() {
    for i in $n-r0 $n-r1; do
        ip netns exec $n-r tc qdisc add dev $i clsact
        ip netns exec $n-r tc filter add dev $i ingress bpf da obj "$1" sec classifier
    done
}
detach() {
    for i in $n-r0 $n-r1; do ip netns exec $n-r tc qdisc del dev $i clsact; done
}
echo "round	setup	TCP Gbit/s	64-byte pps received	copies read"
for r in $(seq "$rounds"); do
    t=$(tcp); p=$(pps); echo "$r	kernel	$t	${p% *}	-"
    attach "$tmp/verdict.o"
    t=$(tcp); p=$(pps); echo "$r	program-only	$t	${p% *}	-"
    detach
    for v in "256 wake -w" "256 batch" "2048 batch"; do
        set -- $v
        attach "$tmp/rb$1-$2.o"
        "$tmp/consume" ${3:-} 2> "$tmp/consume.log" &
        c=$!
        sleep 0.3
        t=$(tcp)
        p=$(pps)
        p=${p% *}
        kill -TERM $c
        wait $c || true
        echo "$r	ringbuf$1-$2	$t	$p	$(sed -n 's/consume: \([0-9]*\) records.*/\1/p' "$tmp/consume.log")"
        # A copy not read (a ring full, or a ring not read) costs the program almost nothing
        # and would flatter the row: the last column must be about every packet the router
        # received in the row's 10 s (~3 M here: TCP's segments and ACKs, UDP's datagrams).
        detach
    done
    ip netns exec $n-r tcpdump -i $n-r0 -s 256 -w /dev/null 2>/dev/null &
    t1=$!
    ip netns exec $n-r tcpdump -i $n-r1 -s 256 -w /dev/null 2>/dev/null &
    t2=$!
    sleep 1
    t=$(tcp); p=$(pps); echo "$r	tcpdump256	$t	${p% *}	-"
    kill $t1 $t2
    wait $t1 $t2 2>/dev/null || true
done
