// SPDX-License-Identifier: GPL-2.0 OR MIT
//
// xdpgen: send N 64-byte UDP frames out of interface IF as XDP frames, at RATE frames a second
// (0: as fast as it goes), spread over FLOWS flows, with the kernel's BPF_PROG_TEST_RUN in
// live-frames mode (gen.bpf.c). A bench tool for scripts/xdp_bench.sh, not part of wirespeed.
//
//   xdpgen IF N RATE FLOWS OBJ      (root; prints "xdpgen: N frames in T s: P pps")
//   xdpgen --pass IF OBJ            attach gen.bpf.c's `pass` to IF in driver mode, and exit
//   xdpgen --unpass IF              detach it

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_link.h>
#include <net/if.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static struct bpf_object *open_obj(const char *path)
{
	struct bpf_object *o = bpf_object__open_file(path, NULL);
	if (!o) {
		fprintf(stderr, "xdpgen: cannot open %s\n", path);
		exit(2);
	}
	return o;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "--pass")) {
		unsigned ifi = if_nametoindex(argv[2]);
		struct bpf_object *o = open_obj(argv[3]);
		if (!ifi || bpf_object__load(o)) {
			fprintf(stderr, "xdpgen: --pass: no interface %s or the object did not load\n", argv[2]);
			return 2;
		}
		int fd = bpf_program__fd(bpf_object__find_program_by_name(o, "pass"));
		if (bpf_xdp_attach(ifi, fd, XDP_FLAGS_DRV_MODE, NULL)) {
			perror("xdpgen: attaching pass");
			return 1;
		}
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "--unpass")) {
		unsigned ifi = if_nametoindex(argv[2]);
		return ifi && !bpf_xdp_detach(ifi, XDP_FLAGS_DRV_MODE, NULL) ? 0 : 1;
	}
	if (argc != 6) {
		fprintf(stderr, "usage: xdpgen IF N RATE FLOWS OBJ | --pass IF OBJ | --unpass IF\n");
		return 2;
	}
	unsigned ifi = if_nametoindex(argv[1]);
	uint64_t total = strtoull(argv[2], NULL, 10);
	double rate = atof(argv[3]);
	uint32_t flows = strtoul(argv[4], NULL, 10);
	if (!ifi || !total) {
		fprintf(stderr, "xdpgen: no interface %s, or no frames\n", argv[1]);
		return 2;
	}
	struct bpf_object *o = open_obj(argv[5]);
	// libbpf names the global sections' maps after the object file's name.
	struct bpf_map *ro = NULL, *bss = NULL, *m;
	bpf_object__for_each_map(m, o)
	{
		if (strstr(bpf_map__name(m), ".rodata"))
			ro = m;
		if (strstr(bpf_map__name(m), ".bss"))
			bss = m;
	}
	struct {
		uint32_t out, flows;
		uint64_t interval_ns, limit;
	} rodata = {ifi, flows ? flows : 1, rate > 0 ? (uint64_t)(1e9 / rate) : 0, total};
	if (!ro || !bss || bpf_map__set_initial_value(ro, &rodata, sizeof(rodata)) ||
	    bpf_object__load(o)) {
		fprintf(stderr, "xdpgen: the object did not load\n");
		return 2;
	}
	int fd = bpf_program__fd(bpf_object__find_program_by_name(o, "gen"));
	// Ethernet (02:00:00:00:00:02 <- 02:00:00:00:00:01), IPv4 192.0.2.1 -> 192.0.2.2, UDP to
	// port 9, no checksum (0 is allowed for UDP over IPv4), padded to 64 bytes.
	unsigned char f[64] = {0x02, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01, 0x08, 0x00};
	unsigned char *ip = f + 14;
	ip[0] = 0x45;
	ip[3] = 50; // total length: 20 + 8 + 22
	ip[8] = 64;
	ip[9] = 17;
	ip[12] = 192, ip[13] = 0, ip[14] = 2, ip[15] = 1;
	ip[16] = 192, ip[17] = 0, ip[18] = 2, ip[19] = 2;
	uint32_t sum = 0;
	for (int i = 0; i < 20; i += 2)
		sum += (ip[i] << 8) | ip[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	sum = ~sum & 0xffff;
	ip[10] = sum >> 8, ip[11] = sum & 0xff;
	unsigned char *udp = ip + 20;
	udp[2] = 0, udp[3] = 9;
	udp[5] = 30; // length: 8 + 22
	// The program paces and counts; each call runs it 2^20 times (a call sets up and tears down
	// the kernel's page pool: ~25 ms here, so calls must be few).
	struct {
		uint64_t next_ns, sent;
	} st = {0, 0};
	int zero = 0;
	double t0 = now();
	while (st.sent < total) {
		LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = f, .data_size_in = sizeof(f),
			    .repeat = 1 << 20, .flags = BPF_F_TEST_XDP_LIVE_FRAMES, .batch_size = 64);
		if (bpf_prog_test_run_opts(fd, &opts)) {
			perror("xdpgen: BPF_PROG_TEST_RUN");
			return 1;
		}
		if (bpf_map__lookup_elem(bss, &zero, sizeof(zero), &st, sizeof(st), 0)) {
			perror("xdpgen: reading the count");
			return 1;
		}
	}
	uint64_t sent = st.sent;
	// The time to the last frame sent: the calls run on past it (frames dropped, unsent).
	double dt = now() - t0;
	printf("xdpgen: %llu frames in %.3f s: %.0f pps\n", (unsigned long long)sent, dt, sent / dt);
	return 0;
}
