#!/bin/sh
# The eBPF data path in the kernel (issue 39): builds crates/ebpf with the `ebpf` feature
# (clang compiles bpf/verdict.c), checks the object with the kernel's verifier through bpftool
# when bpftool is there, then runs the namespace test (crates/ebpf/tests/netns.rs): two
# namespaces joined by a veth pair, 192.0.2.1/2 and 2001:db8::1/2, removed by the test even
# when it fails; and `wirespeed inline --datapath ebpf` itself (crates/cli/tests/it/inline/ebpf.rs):
# a client, a router and a server (scripts/inline/topo.sh), a DNS flow dropped in the kernel once
# named, its entry removed at the end, fail-open after kill -9; and a 50 Mbit/s rate limit
# holding iperf3 (TCP and UDP) within 10% of it through the HTB qdisc wirespeed puts on the
# router's egress; and `live --capture xdp` (crates/cli/tests/it/veth.rs): corpus captures
# replayed into a veth pair, captured through the XDP program and AF_XDP sockets, the same
# flows as `classify` of the files. Needs root, clang, libbpf-dev, iproute2 (tc), ping, python3, iperf3 and
# bpftool.
#
#   sudo scripts/ebpf/test.sh        (CARGO_TARGET_DIR is honoured)
set -eu
cd "$(dirname "$0")/../.."
if [ "$(id -u)" != 0 ]; then
    echo "scripts/ebpf/test.sh: needs root (network namespaces, CAP_BPF, CAP_NET_ADMIN)" >&2
    exit 2
fi
for tool in clang ip ping; do
    command -v "$tool" >/dev/null || { echo "scripts/ebpf/test.sh: no $tool" >&2; exit 2; }
done
cargo build -p wirespeed-ebpf --features ebpf
if command -v bpftool >/dev/null; then
    target=${CARGO_TARGET_DIR:-target}
    obj=$(ls -t "$target"/debug/build/wirespeed-ebpf-*/out/verdict.o | head -n 1)
    # A throwaway bpffs of our own to pin into, removed on exit.
    pin=$(mktemp -d)
    trap 'umount "$pin" 2>/dev/null; rmdir "$pin"' EXIT
    mount -t bpf bpf "$pin"
    # Every program of the object: the verdict program and the shaper's classifier.
    bpftool prog loadall "$obj" "$pin/progs" type classifier
    for p in "$pin"/progs/*; do bpftool prog show pinned "$p"; done
    echo "verifier: accepted $obj"
    # The AF_XDP capture's program (`live --capture xdp`).
    xsk=$(dirname "$obj")/xsk.o
    bpftool prog loadall "$xsk" "$pin/xsk" type xdp
    for p in "$pin"/xsk/*; do bpftool prog show pinned "$p"; done
    echo "verifier: accepted $xsk"
fi
cargo test -p wirespeed-ebpf --features ebpf -- --include-ignored
cargo test -p wirespeed --features ebpf --test it -- --include-ignored inline::ebpf
# `live --capture xdp`: the AF_XDP capture against `classify` on the same files.
cargo test -p wirespeed --features ebpf --test it -- --include-ignored veth::xdp
