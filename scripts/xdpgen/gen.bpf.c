// SPDX-License-Identifier: GPL-2.0 OR MIT
//
// The traffic generator of scripts/xdpgen (a bench tool, not part of wirespeed): run by the
// kernel's BPF_PROG_TEST_RUN in live-frames mode (BPF_F_TEST_XDP_LIVE_FRAMES), each run of
// `gen` rewrites the template frame's UDP source port from a counter (so the frames spread over
// `flows` flows, as the worst case's do) and redirects the frame out of interface `out`, at most
// one every `interval_ns` (a frame due later is dropped here, unsent: the pacing) and `limit` in
// all. The
// frames leave as XDP frames (ndo_xdp_xmit): on a veth pair they reach the peer without an skb,
// as frames from a NIC reach its driver, and far faster than a socket's sendmmsg can make them.
// `pass`: an XDP program that passes every frame, for the receiving veth when nothing else
// runs XDP there (a veth accepts XDP frames only then).

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

const volatile __u32 out = 0;
const volatile __u32 flows = 1;
const volatile __u64 interval_ns = 0;
const volatile __u64 limit = 0;

// Read by xdpgen (this program runs on one CPU at a time: the caller's).
struct state {
	__u64 next_ns;
	__u64 sent;
} st = {};

SEC("xdp")
int gen(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = (void *)(eth + 1);
	struct udphdr *udp = (void *)(ip + 1);
	if ((void *)(udp + 1) > end)
		return XDP_ABORTED;
	if (st.sent >= limit)
		return XDP_DROP;
	if (interval_ns) {
		__u64 now = bpf_ktime_get_ns();
		if (!st.next_ns)
			st.next_ns = now;
		if (now < st.next_ns)
			return XDP_DROP;
		st.next_ns += interval_ns;
	}
	__u64 n = st.sent++;
	udp->source = bpf_htons(1024 + (__u16)(n % (flows ? flows : 1)));
	return bpf_redirect(out, 0);
}

SEC("xdp")
int pass(struct xdp_md *ctx)
{
	return XDP_PASS;
}

char _license[] SEC("license") = "Dual MIT/GPL";
