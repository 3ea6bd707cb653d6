// SPDX-License-Identifier: GPL-2.0 OR MIT
//
// wirespeed's AF_XDP capture (`live --capture xdp`, issue 39 item 3): an XDP program that
// hands every frame an interface receives to the XDP socket wirespeed opened on the frame's
// receive queue. XSKS holds the sockets; BASES says where an interface's queues start in it
// (queue q of the interface with base b: slot b + q), so one program serves every interface
// of the run. A frame of an interface or queue with no socket passes to the kernel's stack.
// Redirected frames leave the kernel's stack: this is a capture for a monitoring interface
// (a mirror or TAP port), not for a host or router that must go on receiving its traffic.
//
// Each frame carries 16 bytes of metadata in front of it (struct meta): the time the program
// saw it (CLOCK_MONOTONIC), which an XDP socket's descriptor does not carry, and a magic word
// that says the metadata was written (user space clears it when it gives the frame back).

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define XSK_MAGIC 0x7773786470746d31ULL // "wsxdptm1"

struct meta {
	__u64 ts_ns;
	__u64 magic;
};

_Static_assert(sizeof(struct meta) == 16, "crates/live/src/sys.rs reads 16 bytes of metadata");

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u32);
} XSKS SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u32);   // interface index
	__type(value, __u32); // the slot of its queue 0 in XSKS
} BASES SEC(".maps");

// Frames the program saw (per CPU; slot 0), whether or not a socket took them.
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} SEEN SEC(".maps");

SEC("xdp")
int wirespeed_xsk(struct xdp_md *ctx)
{
	__u32 zero = 0;
	__u64 *seen = bpf_map_lookup_elem(&SEEN, &zero);
	if (seen)
		*seen += 1;
	__u32 ifindex = ctx->ingress_ifindex;
	__u32 *base = bpf_map_lookup_elem(&BASES, &ifindex);
	if (!base)
		return XDP_PASS;
	__u32 slot = *base + ctx->rx_queue_index;
	if (bpf_xdp_adjust_meta(ctx, -(int)sizeof(struct meta)) == 0) {
		void *data = (void *)(long)ctx->data;
		struct meta *m = (void *)(long)ctx->data_meta;
		if ((void *)(m + 1) <= data) {
			m->ts_ns = bpf_ktime_get_ns();
			m->magic = XSK_MAGIC;
		}
	}
	// No socket in the slot: XDP_PASS (the flags' low bits are the fallback action).
	return bpf_redirect_map(&XSKS, slot, XDP_PASS);
}

char _license[] SEC("license") = "Dual MIT/GPL";
