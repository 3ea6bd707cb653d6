# The measurements bench.sh and ringbuf_probe.sh share, between the namespaces of topo.sh named
# $n (sourced; the server's iperf3 listens on 198.51.100.1):
#   tcp   iperf3 TCP, one stream, 5 s (the first second left out): Gbit/s received
#   pps   64-byte frames (UDP, 18-byte payload) sent as fast as iperf3 can for 5 s: packets a
#         second the server received, and the loss in percent
tcp() {
    ip netns exec $n-c iperf3 -c 198.51.100.1 -t 5 -O 1 -J | python3 -c \
        'import json,sys; d=json.load(sys.stdin); print("%.2f" % (d["end"]["sum_received"]["bits_per_second"]/1e9))'
}
pps() {
    ip netns exec $n-c iperf3 -c 198.51.100.1 -u -b 0 -l 18 -t 5 -J | python3 -c \
        'import json,sys; d=json.load(sys.stdin); s=d["end"]["sum"]; print("%.0f %.0f" % (s["packets"]/s["seconds"], s["lost_percent"]))'
}
