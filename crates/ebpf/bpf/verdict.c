// SPDX-License-Identifier: GPL-2.0 OR MIT
//
// wirespeed's eBPF data path (issue 39, first step): a tc (clsact) classifier that enforces the
// verdict user space wrote for a packet's flow. Ethernet -> IPv4/IPv6 -> TCP/UDP (other IP
// protocols with ports 0); the key is normalised (the lower end-point first) so both
// directions of a flow find one entry. Verdicts: pass, drop, set the DSCP, or put the packet
// in a rate limit's HTB class (the mark's top byte, read on egress). No entry: pass
// (fail-open by construction). The key and value layouts are mirrored by `crates/ebpf/src/lib.rs`
// (`FlowKey`, `Verdict`); change both together.
//
// Not parsed (so passed untouched): VLAN tags still in the frame, IPv6 extension headers
// before the transport header, IPv4 fragments after the first (no ports: they are keyed with
// ports 0, which user space never writes for TCP/UDP, so they miss and pass).

#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/in.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#define VERDICT_PASS 0
#define VERDICT_DROP 1
#define VERDICT_DSCP 2
#define VERDICT_CLASS 3 // rate-limited: the top byte of skb->mark set to `class`

// Counter slots (per-CPU array; user space sums the CPUs).
#define CNT_NO_ENTRY 0 // parsed, no verdict: passed (fail-open)
#define CNT_PASS 1     // verdict pass
#define CNT_DROP 2     // verdict drop: shot
#define CNT_DSCP 3     // verdict DSCP: written (or already that value)
#define CNT_NOT_IP 4   // not IPv4/IPv6 over Ethernet, or too short to key: passed
#define CNT_CLASS 5    // verdict class: mark written, passed (the egress HTB shapes it)
#define CNT_COPY_SKIPPED 6       // the copy filter: a decided flow's packet not copied
#define CNT_COPY_SKIPPED_BYTES 7 // ... and its bytes
#define CNT_COPY_LOST 8          // the ring buffer copy: no room in COPIES, the copy lost
#define CNT_COPY_RING 9          // the ring buffer copy: packets copied into COPIES
#define CNT_STALE 10             // a verdict not applied: user space's heartbeat is stale
#define CNT_MAX 11

struct flow_key {
	__u8 lo_addr[16]; // IPv6, or IPv4-mapped IPv6 (::ffff:a.b.c.d)
	__u8 hi_addr[16];
	__u8 lo_port[2]; // network byte order; 0 without ports
	__u8 hi_port[2];
	__u8 proto; // IP protocol number
	__u8 pad[3];
};

struct verdict {
	__u8 action; // VERDICT_*
	__u8 dscp;   // 0..63, for VERDICT_DSCP; the HTB class minor (1..127) for VERDICT_CLASS
	__u8 pad[6];
	__u64 copied_ns; // the copy filter: when it last let one of the flow's packets through
};

_Static_assert(sizeof(struct flow_key) == 40, "FlowKey::to_bytes in src/lib.rs writes 40 bytes");
_Static_assert(sizeof(struct verdict) == 16, "Verdict::to_bytes in src/lib.rs writes 16 bytes");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, struct flow_key);
	__type(value, struct verdict);
} VERDICTS SEC(".maps");

// The ring buffer copy (`inline --datapath ebpf --capture ringbuf`): the verdict program itself
// copies the packets wirespeed classifies into COPIES, a BPF ring buffer it reads, instead of a
// packet socket on the interfaces (whose tap costs the forwarding path for every packet,
// copied or not: docs/INLINE.md). A record: the packet's first COPY_SNAP bytes behind a
// 24-byte header (see copy_out for when the reader is woken).
// `copy_mode`, set by the loader before the kernel sees the program (`.rodata`): 0 no copy
// (the packet-socket capture), 1 every packet, 2 the packets the copy filter would copy (an
// undecided flow's, TCP SYN/FIN/RST, and one a second of a decided flow).
#define COPY_SNAP 2048
const volatile __u32 copy_mode = 0;

struct copy {
	__u64 ts_ns;   // bpf_ktime_get_ns (CLOCK_MONOTONIC)
	__u32 len;     // the packet's length
	__u32 caplen;  // bytes of it in data (at most COPY_SNAP)
	__u32 ifindex; // the interface it arrived on
	__u32 pad;
	__u8 data[COPY_SNAP];
};

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 24);
} COPIES SEC(".maps");

// Fail-open when wirespeed stops (killed, stopped, hung): user space writes its
// CLOCK_MONOTONIC_COARSE time into ALIVE[0] every few milliseconds (`Heartbeat::beat`); a
// verdict other than pass is applied only while that time is at most `failopen_ns` old
// (`.rodata`, set by the loader; 0: always applied). Without it a killed wirespeed's verdicts
// hold until the kernel closes the dead process's descriptors, and so its links: 42-127 ms
// after kill -9 here, most of it the teardown of the process's memory (docs/INLINE.md). The
// comparison is signed: a beat written just after this CPU read the clock is fresh, not stale.
const volatile __u64 failopen_ns = 0;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} ALIVE SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, CNT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} COUNTERS SEC(".maps");

static __always_inline void count_n(__u32 slot, __u64 n)
{
	__u64 *c = bpf_map_lookup_elem(&COUNTERS, &slot);
	if (c)
		*c += n;
}

static __always_inline void count(__u32 slot)
{
	count_n(slot, 1);
}

// Whether user space's last heartbeat is older than `failopen_ns` (never when that is 0).
static __always_inline int stale(void)
{
	if (!failopen_ns)
		return 0;
	__u32 zero = 0;
	__u64 *beat = bpf_map_lookup_elem(&ALIVE, &zero);
	if (!beat)
		return 1;
	return (__s64)(bpf_ktime_get_coarse_ns() - *beat) > (__s64)failopen_ns;
}

// Copy `skb`'s first COPY_SNAP bytes into COPIES (counted; a full ring counts a loss).
static __always_inline void copy_out(struct __sk_buff *skb)
{
	__u32 m = skb->len < COPY_SNAP ? skb->len : COPY_SNAP;
	// In [1, COPY_SNAP] with no branch the verifier could lose.
	__u32 k = ((m - 1) & (COPY_SNAP - 1)) + 1;
	struct copy *r = bpf_ringbuf_reserve(&COPIES, sizeof(struct copy), 0);
	if (!r) {
		count(CNT_COPY_LOST);
		return;
	}
	r->ts_ns = bpf_ktime_get_ns();
	r->len = skb->len;
	r->caplen = k;
	r->ifindex = skb->ifindex;
	r->pad = 0;
	if (bpf_skb_load_bytes(skb, 0, r->data, k) < 0) {
		bpf_ringbuf_discard(r, BPF_RB_NO_WAKEUP);
		count(CNT_COPY_LOST);
		return;
	}
	// Every packet (mode 1): no wake-up, the reader drains the ring every millisecond (a wake-up
	// a record halves the forwarding rate: docs/INLINE.md). Undecided flows' packets alone
	// (mode 2) are few: the kernel's own rule (wake the reader when it has caught up) lets it
	// sleep until one comes.
	bpf_ringbuf_submit(r, copy_mode == 1 ? BPF_RB_NO_WAKEUP : 0);
	count(CNT_COPY_RING);
}

// Whether the copy filter's rule copies a packet of a flow with verdict `v` (none: NULL) and
// TCP flags `tcp_flags` (0 for other transports): no verdict, SYN/FIN/RST, or the flow's first
// packet in KEEPALIVE_NS (its `copied_ns` updated); else the skipped packet is counted.
#define KEEPALIVE_NS 1000000000ULL
static __always_inline int copy_wanted(struct verdict *v, __u8 tcp_flags, __u32 len)
{
	if (!v)
		return 1;
	// FIN 0x01, SYN 0x02, RST 0x04.
	if (tcp_flags & 0x07)
		return 1;
	// The coarse clock (the tick's time): read for every packet of a decided flow, it must
	// cost little, and a second's keep-alive needs no better.
	__u64 now = bpf_ktime_get_coarse_ns();
	if (now - v->copied_ns >= KEEPALIVE_NS) {
		v->copied_ns = now;
		return 1;
	}
	count(CNT_COPY_SKIPPED);
	count_n(CNT_COPY_SKIPPED_BYTES, len);
	return 0;
}

// Whether end-point (a, pa) sorts after (b, pb): address bytes, then port bytes (big-endian,
// so byte order is numeric order).
static __always_inline int endpoint_after(const __u8 *a, const __u8 *pa, const __u8 *b,
					  const __u8 *pb)
{
#pragma unroll
	for (int i = 0; i < 16; i++) {
		if (a[i] != b[i])
			return a[i] > b[i];
	}
	if (pa[0] != pb[0])
		return pa[0] > pb[0];
	return pa[1] > pb[1];
}

static __always_inline void fill_key(struct flow_key *k, const __u8 *src, const __u8 *dst,
				     const __u8 *sport, const __u8 *dport, __u8 proto)
{
	const __u8 *la = src, *ha = dst, *lp = sport, *hp = dport;
	if (endpoint_after(src, sport, dst, dport)) {
		la = dst;
		ha = src;
		lp = dport;
		hp = sport;
	}
	__builtin_memcpy(k->lo_addr, la, 16);
	__builtin_memcpy(k->hi_addr, ha, 16);
	k->lo_port[0] = lp[0];
	k->lo_port[1] = lp[1];
	k->hi_port[0] = hp[0];
	k->hi_port[1] = hp[1];
	k->proto = proto;
}

// "classifier", not "tc": the section name aya-obj 0.3 knows for a tc program.
SEC("classifier")
int wirespeed_verdict(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data;
	void *end = (void *)(long)skb->data_end;
	struct ethhdr *eth = data;
	__u8 src[16] = {}, dst[16] = {}, sport[2] = {}, dport[2] = {};
	__u8 proto, tcp_flags = 0;
	__u32 l4_off;
	int v4;

	if ((void *)(eth + 1) > end)
		goto not_ip;
	if (eth->h_proto == bpf_htons(ETH_P_IP)) {
		struct iphdr *ip = (void *)(eth + 1);
		if ((void *)(ip + 1) > end || ip->version != 4 || ip->ihl < 5)
			goto not_ip;
		src[10] = 0xff;
		src[11] = 0xff;
		dst[10] = 0xff;
		dst[11] = 0xff;
		__builtin_memcpy(&src[12], &ip->saddr, 4);
		__builtin_memcpy(&dst[12], &ip->daddr, 4);
		proto = ip->protocol;
		l4_off = sizeof(*eth) + ip->ihl * 4;
		v4 = 1;
		// A later fragment carries no transport header: keep ports 0.
		if (ip->frag_off & bpf_htons(0x1fff))
			goto keyed;
	} else if (eth->h_proto == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr *ip6 = (void *)(eth + 1);
		if ((void *)(ip6 + 1) > end)
			goto not_ip;
		__builtin_memcpy(src, &ip6->saddr, 16);
		__builtin_memcpy(dst, &ip6->daddr, 16);
		proto = ip6->nexthdr;
		l4_off = sizeof(*eth) + sizeof(*ip6);
		v4 = 0;
	} else {
		goto not_ip;
	}

	if (proto == IPPROTO_TCP || proto == IPPROTO_UDP) {
		// Source and destination ports are the first four bytes of both headers.
		if (l4_off > 14 + 60)
			goto not_ip;
		__u8 *l4 = data + l4_off;
		if ((void *)(l4 + 4) > end)
			goto not_ip;
		sport[0] = l4[0];
		sport[1] = l4[1];
		dport[0] = l4[2];
		dport[1] = l4[3];
		if (proto == IPPROTO_TCP && (void *)(l4 + 14) <= end)
			tcp_flags = l4[13];
	}

keyed:;
	struct flow_key key;
	__builtin_memset(&key, 0, sizeof(key));
	fill_key(&key, src, dst, sport, dport, proto);

	struct verdict *v = bpf_map_lookup_elem(&VERDICTS, &key);
	if (copy_mode == 1 || (copy_mode == 2 && copy_wanted(v, tcp_flags, skb->len)))
		copy_out(skb);
	if (!v) {
		count(CNT_NO_ENTRY);
		return TC_ACT_OK;
	}
	if (v->action != VERDICT_PASS && stale()) {
		count(CNT_STALE);
		return TC_ACT_OK;
	}
	if (v->action == VERDICT_DROP) {
		count(CNT_DROP);
		return TC_ACT_SHOT;
	}
	if (v->action == VERDICT_CLASS) {
		// The shaper's fw filter on the egress interfaces' HTB reads the mark's top byte (the
		// byte wirespeed owns); the rest of the mark is kept. skb->priority would not do: IPv4
		// forwarding rewrites it from the TOS; the mark survives forwarding.
		// One 32-bit store: the verifier refuses narrower writes to the context, which clang
		// would otherwise make of a top-byte update.
		__u32 mark = (skb->mark & 0x00ffffff) | ((__u32)v->dscp << 24);
		*(volatile __u32 *)&skb->mark = mark;
		count(CNT_CLASS);
		return TC_ACT_OK;
	}
	if (v->action != VERDICT_DSCP) {
		count(CNT_PASS);
		return TC_ACT_OK;
	}

	__u8 dscp = v->dscp & 0x3f;
	if (v4) {
		// The TOS byte: DSCP in the upper six bits, ECN below it kept. Re-check bounds: the
		// packet pointers were not kept across the branches above.
		data = (void *)(long)skb->data;
		end = (void *)(long)skb->data_end;
		struct iphdr *ip = data + sizeof(struct ethhdr);
		if ((void *)(ip + 1) > end)
			goto counted_dscp;
		__u8 old_tos = ip->tos;
		__u8 new_tos = (dscp << 2) | (old_tos & 0x03);
		if (new_tos != old_tos) {
			// The checksum over the 16-bit word holding the TOS (RFC 1624), then the byte.
			bpf_l3_csum_replace(skb, sizeof(struct ethhdr) + offsetof(struct iphdr, check),
					    bpf_htons(old_tos), bpf_htons(new_tos), 2);
			bpf_skb_store_bytes(skb, sizeof(struct ethhdr) + offsetof(struct iphdr, tos),
					    &new_tos, 1, 0);
		}
	} else {
		// The traffic class spans the low nibble of byte 0 and the high nibble of byte 1;
		// IPv6 has no header checksum and the transport pseudo-header leaves it out.
		data = (void *)(long)skb->data;
		end = (void *)(long)skb->data_end;
		__u8 *b = data + sizeof(struct ethhdr);
		if ((void *)(b + 2) > end)
			goto counted_dscp;
		__u8 tc = ((b[0] & 0x0f) << 4) | (b[1] >> 4);
		__u8 new_tc = (dscp << 2) | (tc & 0x03);
		if (new_tc != tc) {
			__u8 nb[2] = {(b[0] & 0xf0) | (new_tc >> 4), (b[1] & 0x0f) | (new_tc << 4)};
			bpf_skb_store_bytes(skb, sizeof(struct ethhdr), nb, 2, 0);
		}
	}
counted_dscp:
	count(CNT_DSCP);
	return TC_ACT_OK;

not_ip:
	// Nothing to key (ARP, a truncated header, ...): never decided, copied as undecided.
	if (copy_mode)
		copy_out(skb);
	count(CNT_NOT_IP);
	return TC_ACT_OK;
}

// The shaper's classifier, on the egress of the interfaces that carry the rate limits' HTB
// qdisc (handle SHAPER_HANDLE, `crates/ebpf/src/shaper.rs`): a packet whose mark's top byte the
// verdict program set to a class (1..127) on ingress gets skb->priority = SHAPER_HANDLE:class,
// which HTB takes as the packet's class before any filter (so neither the fw nor the u32 mark
// classifier is needed; kernels are built without them). It runs here, after routing, because
// IPv4 forwarding rewrites skb->priority from the TOS; the mark survives forwarding. Other
// packets are left alone (HTB's `default 0`: its direct queue, unshaped).
#define SHAPER_HANDLE 0x5753

SEC("classifier")
int wirespeed_class(struct __sk_buff *skb)
{
	__u32 c = skb->mark >> 24;
	if (c >= 1 && c <= 127)
		skb->priority = (SHAPER_HANDLE << 16) | c;
	return TC_ACT_OK;
}

// The copy filter (`inline --datapath ebpf --copy undecided`): a socket filter on wirespeed's
// own AF_PACKET capture sockets, run by the kernel before it copies a packet into their rings.
// A packet of a flow with no entry in VERDICTS (not decided yet) is copied whole; so is a TCP
// packet with SYN, FIN or RST (a flow's start and end stay seen, so its entry is removed when
// it ends) and one packet of a decided flow a second (KEEPALIVE_NS: its flow stays open in
// wirespeed, which would otherwise end it idle and remove the entry while it still runs). Any
// other packet of a decided flow is not copied (returns 0): the tc program enforces it, and
// copying it is what costs the forwarding path (docs/INLINE.md). Socket filters have no direct
// packet access: the headers are read with bpf_skb_load_bytes, from the Ethernet header
// (packet sockets of type SOCK_RAW run their filter on the whole frame).

SEC("socket")
int wirespeed_copy(struct __sk_buff *skb)
{
	__u8 src[16] = {}, dst[16] = {}, sport[2] = {}, dport[2] = {};
	__u8 proto, tcp_flags = 0;
	__u32 l4_off;
	__u16 eth_proto;

	if (bpf_skb_load_bytes(skb, 12, &eth_proto, 2) < 0)
		return skb->len;
	if (eth_proto == bpf_htons(ETH_P_IP)) {
		struct iphdr ip;
		if (bpf_skb_load_bytes(skb, ETH_HLEN, &ip, sizeof(ip)) < 0 || ip.version != 4 ||
		    ip.ihl < 5)
			return skb->len;
		src[10] = 0xff;
		src[11] = 0xff;
		dst[10] = 0xff;
		dst[11] = 0xff;
		__builtin_memcpy(&src[12], &ip.saddr, 4);
		__builtin_memcpy(&dst[12], &ip.daddr, 4);
		proto = ip.protocol;
		l4_off = ETH_HLEN + ip.ihl * 4;
		if (ip.frag_off & bpf_htons(0x1fff))
			goto keyed;
	} else if (eth_proto == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr ip6;
		if (bpf_skb_load_bytes(skb, ETH_HLEN, &ip6, sizeof(ip6)) < 0)
			return skb->len;
		__builtin_memcpy(src, &ip6.saddr, 16);
		__builtin_memcpy(dst, &ip6.daddr, 16);
		proto = ip6.nexthdr;
		l4_off = ETH_HLEN + sizeof(ip6);
	} else {
		return skb->len;
	}

	if (proto == IPPROTO_TCP || proto == IPPROTO_UDP) {
		__u8 l4[4];
		if (bpf_skb_load_bytes(skb, l4_off, l4, sizeof(l4)) < 0)
			return skb->len;
		sport[0] = l4[0];
		sport[1] = l4[1];
		dport[0] = l4[2];
		dport[1] = l4[3];
		// TCP's flags, at offset 13.
		if (proto == IPPROTO_TCP && bpf_skb_load_bytes(skb, l4_off + 13, &tcp_flags, 1) < 0)
			return skb->len;
	}

keyed:;
	struct flow_key key;
	__builtin_memset(&key, 0, sizeof(key));
	fill_key(&key, src, dst, sport, dport, proto);
	struct verdict *v = bpf_map_lookup_elem(&VERDICTS, &key);
	return copy_wanted(v, tcp_flags, skb->len) ? skb->len : 0;
}

char _license[] SEC("license") = "Dual MIT/GPL";
