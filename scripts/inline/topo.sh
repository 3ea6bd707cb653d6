#!/usr/bin/env bash
# A client, an inline router and a server, each in a network namespace of its own, joined by
# veth pairs (documentation addresses only: 192.0.2.0/24 on the client's side, 198.51.100.0/24
# on the server's):
#
#   client (192.0.2.1) --- (192.0.2.254) router (198.51.100.254) --- (198.51.100.1) server
#
#   scripts/inline/topo.sh up NAME      make it (namespaces NAME-c, NAME-r, NAME-s)
#   scripts/inline/topo.sh down NAME    remove it (and every process in it)
#
# The router forwards; `wirespeed inline` runs in NAME-r with the rules of --print-rules:
#   ip netns exec NAME-r wirespeed inline --queue 0 --policy P --print-rules | ip netns exec NAME-r sh
# Offloads are off on the router's links so the kernel hands whole packets to the queue
# (TSO/GRO super-packets would be cut by the copy range, and checksums left partial).
set -eu
cmd=${1:?up|down}
n=${2:?name}
c=$n-c r=$n-r s=$n-s
case $cmd in
up)
    for x in $c $r $s; do
        ip netns add "$x"
        ip -n "$x" link set lo up
        # Name look-ups inside stay inside: `ip netns exec` mounts this over /etc/resolv.conf
        # (python's http.server looks its own address up; nothing may go to the host's resolver).
        mkdir -p "/etc/netns/$x"
        echo "nameserver 127.0.0.1" > "/etc/netns/$x/resolv.conf"
    done
    ip link add "$n-c0" netns "$c" type veth peer name "$n-r0" netns "$r"
    ip link add "$n-r1" netns "$r" type veth peer name "$n-s0" netns "$s"
    ip -n "$c" addr add 192.0.2.1/24 dev "$n-c0"
    ip -n "$r" addr add 192.0.2.254/24 dev "$n-r0"
    ip -n "$r" addr add 198.51.100.254/24 dev "$n-r1"
    ip -n "$s" addr add 198.51.100.1/24 dev "$n-s0"
    ip -n "$c" -6 addr add 2001:db8:1::1/64 dev "$n-c0" nodad
    ip -n "$r" -6 addr add 2001:db8:1::fe/64 dev "$n-r0" nodad
    ip -n "$r" -6 addr add 2001:db8:2::fe/64 dev "$n-r1" nodad
    ip -n "$s" -6 addr add 2001:db8:2::1/64 dev "$n-s0" nodad
    for l in "$c:$n-c0" "$r:$n-r0" "$r:$n-r1" "$s:$n-s0"; do
        ip -n "${l%%:*}" link set "${l#*:}" up
    done
    ip -n "$c" route add default via 192.0.2.254
    ip -n "$s" route add default via 198.51.100.254
    ip -n "$c" -6 route add default via 2001:db8:1::fe
    ip -n "$s" -6 route add default via 2001:db8:2::fe
    ip netns exec "$r" sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1
    if command -v ethtool >/dev/null; then
        for l in "$c:$n-c0" "$r:$n-r0" "$r:$n-r1" "$s:$n-s0"; do
            ip netns exec "${l%%:*}" ethtool -K "${l#*:}" tso off gso off gro off >/dev/null 2>&1 || true
        done
    fi
    ;;
down)
    for x in $c $r $s; do
        if ip netns list | grep -qw "$x"; then
            ip netns pids "$x" 2>/dev/null | xargs -r kill -9 2>/dev/null || true
            ip netns del "$x"
        fi
        rm -rf "/etc/netns/$x"
    done
    ;;
*) echo "usage: $0 up|down NAME" >&2; exit 2 ;;
esac
