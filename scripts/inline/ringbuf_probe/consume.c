// The user-space end of ringbuf_probe.sh: finds the kernel's ring buffer map named "RB" (the
// probe's), reads it until SIGTERM and prints the records and bytes it read. `-w` waits for the
// kernel's wake-ups (ring_buffer__poll: a wake-up per record submitted without
// BPF_RB_NO_WAKEUP); without it, it drains the ring every millisecond (records submitted with
// BPF_RB_NO_WAKEUP: no wake-up at all).
//   cc -O2 consume.c -o consume -lbpf
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t stop;
static unsigned long long recs, bytes;

static void on_term(int s)
{
	(void)s;
	stop = 1;
}

static int count(void *ctx, void *data, size_t size)
{
	(void)ctx;
	(void)data;
	recs++;
	bytes += size;
	return 0;
}

int main(int argc, char **argv)
{
	int wait = argc > 1 && !strcmp(argv[1], "-w");
	__u32 id = 0;
	int fd = -1;
	while (!bpf_map_get_next_id(id, &id)) {
		int f = bpf_map_get_fd_by_id(id);
		struct bpf_map_info info;
		__u32 l = sizeof(info);
		memset(&info, 0, l);
		if (f >= 0 && !bpf_obj_get_info_by_fd(f, &info, &l) &&
		    info.type == BPF_MAP_TYPE_RINGBUF && !strcmp(info.name, "RB")) {
			fd = f;
			break;
		}
		if (f >= 0)
			close(f);
	}
	if (fd < 0) {
		fprintf(stderr, "consume: no ring buffer map named RB\n");
		return 1;
	}
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	struct ring_buffer *rb = ring_buffer__new(fd, count, NULL, NULL);
	if (!rb) {
		fprintf(stderr, "consume: ring_buffer__new failed\n");
		return 1;
	}
	while (!stop) {
		if (wait) {
			ring_buffer__poll(rb, 100);
		} else {
			ring_buffer__consume(rb);
			usleep(1000);
		}
	}
	ring_buffer__free(rb);
	fprintf(stderr, "consume: %llu records, %llu bytes\n", recs, bytes);
	return 0;
}
