#!/usr/bin/env bash
# How long traffic a policy drops stays cut after `kill -9` of `wirespeed inline --datapath
# ebpf` (issue 39's target: it flows again within 50 ms). In the namespaces of topo.sh: a UDP
# client sends a datagram every 2 ms to an echo server through the router, stamping each with
# the wall clock; a policy drops the flow (DNS by its payload); once the echoes have stopped,
# wirespeed is killed with SIGKILL and the script prints the time from the kill to the first
# echo of a datagram sent after it, to the first echo at all, and to the process reaped (its
# teardown done, its descriptors closed). ROUNDS rounds (default 5).
#   scripts/inline/killtime.sh [path/to/wirespeed] [ROUNDS] [extra inline options...]
# Needs root, a binary built with --features ebpf, python3.
set -euo pipefail
W=${1:-target/dist/wirespeed}
rounds=${2:-5}
shift $(( $# > 2 ? 2 : $# ))
here=$(cd "$(dirname "$0")" && pwd)
n=wsk$$
tmp=$(mktemp -d)
trap '"$here/topo.sh" down $n >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
"$here/topo.sh" up $n >/dev/null
printf '[[rule]]\nname = "no-dns"\napp = "DNS"\naction = "drop"\n' > "$tmp/policy.toml"
# The echo server: every datagram back as it came, with the QR bit set (a DNS answer).
ip netns exec $n-s python3 -c "
import socket
s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM); s.bind(('198.51.100.1',53))
while True:
    d,a=s.recvfrom(2048)
    if len(d)>=12:
        r=bytearray(d); r[2]|=0x80; s.sendto(bytes(r),a)" &
# The client: a DNS query every 2 ms from one port (one flow); each echo's send time and
# arrival time (wall clock, s) on a line of its own.
client() {
    ip netns exec $n-c python3 -c "
import socket,struct,time,threading,sys
s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM); s.bind(('192.0.2.1',40053))
sent={}
def rx():
    while True:
        d=s.recv(2048); now=time.time()
        i=struct.unpack('>H',d[:2])[0]
        print('%d %.6f %.6f' % (i, sent.get(i,0), now), flush=True)
threading.Thread(target=rx,daemon=True).start()
i=0
while True:
    i=(i+1)&0xffff; sent[i]=time.time()
    s.sendto(struct.pack('>HHHHHH',i,0x0100,1,0,0,0)+b'\x07example\x03com\x00'+struct.pack('>HH',1,1),('198.51.100.1',53))
    time.sleep(0.002)" > "$1"
}
sleep 0.5
echo "round	kill to the first echo of a datagram sent after it (ms)	kill to the first echo (ms)	kill to the process reaped (ms)"
for r in $(seq "$rounds"); do
    client "$tmp/echo$r" &
    cpid=$!
    ip netns exec $n-r "$W" inline --datapath ebpf -i "$n-r0,$n-r1" --policy "$tmp/policy.toml" \
        -o /dev/null --status 0 "$@" 2> "$tmp/log$r" &
    wpid=$!
    # Wait until the echoes have stopped for 0.5 s (the flow is dropped in the kernel).
    for _ in $(seq 200); do
        sleep 0.1
        last=$(tail -n 1 "$tmp/echo$r" 2>/dev/null | cut -d' ' -f3)
        now=$(date +%s.%N)
        if [ -n "$last" ] && python3 -c "import sys; sys.exit(0 if $now - $last > 0.5 else 1)"; then
            break
        fi
    done
    killed=$(date +%s.%N)
    kill -9 $wpid
    wait $wpid 2>/dev/null || true
    reaped=$(date +%s.%N)
    sleep 1
    # The client's python, not only its shell: the next round binds its port again.
    ip netns pids $n-c | xargs -r kill 2>/dev/null || true
    wait $cpid 2>/dev/null || true
    python3 - "$tmp/echo$r" "$killed" "$r" "$reaped" <<'PY'
import sys
k = float(sys.argv[2])
rows = [tuple(map(float, l.split()[1:3])) for l in open(sys.argv[1]) if len(l.split()) == 3]
after_sent = [got for sent, got in rows if sent >= k]
after = [got for sent, got in rows if got >= k]
f = lambda xs: "%.1f" % ((min(xs) - k) * 1000) if xs else "none"
print("%s\t%s\t%s\t%.1f" % (sys.argv[3], f(after_sent), f(after), (float(sys.argv[4]) - k) * 1000))
PY
done
