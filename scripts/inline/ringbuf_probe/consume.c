// The user-space end of ringbuf_probe.sh: finds the kernel's ring buffer maps named "RB" (the
// probe's, one per interface), reads them until SIGTERM and prints the records and bytes it read. `-w` waits for the
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
	// Every ring buffer map named RB: `tc` loads the object once per interface, so each of the
	// router's two interfaces has its own. (One of a program detached a moment ago may still be
	// listed; it gets no more records.)
	struct ring_buffer *rb = NULL;
	int maps = 0;
	__u32 id = 0;
	while (!bpf_map_get_next_id(id, &id)) {
		int f = bpf_map_get_fd_by_id(id);
		struct bpf_map_info info;
		__u32 l = sizeof(info);
		memset(&info, 0, l);
		if (f >= 0 && !bpf_obj_get_info_by_fd(f, &info, &l) &&
		    info.type == BPF_MAP_TYPE_RINGBUF && !strcmp(info.name, "RB")) {
			if (!rb)
				rb = ring_buffer__new(f, count, NULL, NULL);
			else if (ring_buffer__add(rb, f, count, NULL))
				rb = NULL;
			if (!rb) {
				fprintf(stderr, "consume: cannot read ring buffer map %u\n", id);
				return 1;
			}
			maps++;
			continue;
		}
		if (f >= 0)
			close(f);
	}
	if (!rb) {
		fprintf(stderr, "consume: no ring buffer map named RB\n");
		return 1;
	}
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	while (!stop) {
		if (wait) {
			ring_buffer__poll(rb, 100);
		} else {
			ring_buffer__consume(rb);
			usleep(1000);
		}
	}
	ring_buffer__free(rb);
	fprintf(stderr, "consume: %llu records, %llu bytes, %d maps\n", recs, bytes, maps);
	return 0;
}
