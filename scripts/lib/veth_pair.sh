# Sourced by the veth benchmarks (veth_bench.sh, xdp_bench.sh): two network namespaces $A and
# $B joined by a veth pair, end $a in $A and $b in $B, both up, no addresses, IPv6 off in both
# (no router solicitations in the traffic); both namespaces deleted at exit.
#   A=... B=... a=... b=...; . scripts/lib/veth_pair.sh
veth_pair_cleanup() { ip netns del "$A" 2> /dev/null || true; ip netns del "$B" 2> /dev/null || true; }
trap veth_pair_cleanup EXIT
ip netns add "$A"; ip netns add "$B"
for n in "$A" "$B"; do
    ip netns exec "$n" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
done
ip link add "$a" type veth peer name "$b"
ip link set "$a" netns "$A"; ip link set "$b" netns "$B"
ip -n "$A" link set "$a" up; ip -n "$B" link set "$b" up
