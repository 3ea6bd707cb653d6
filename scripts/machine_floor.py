#!/usr/bin/env python3
"""What this machine charges for the work no design can skip, to compare with a speed target.

    scripts/machine_floor.py TRACE [--packets N] [--table-mib M] [--trials K]

For a capture TRACE that ends with N flows open (the worst case: all 1,000,000 of them, since
its flows never go idle within the trace), two costs are paid whatever the engine does:

* fresh memory for the flow state: the kernel zeroes every page a process touches for the first
  time (on a VM the host may back it too). Measured by touching one byte per 4 KiB page of an
  anonymous mapping of M MiB advised to transparent huge pages, as the flow table is.
* the capture's bytes reaching the CPU once: read() of the whole file into one reused 1 MiB
  buffer (page cache warm after the first trial), a copy at memory speed and no parsing. Also
  shown, and lower: mapping the file and touching one byte per 4 KiB page (the page-table cost
  of the engine's mapping alone, without bringing the bytes into the cache).

Formatting the records is the third such cost; `cargo bench -p wirespeed-export` gives it per
record. The script prints each trial, the medians, and with --packets the floor per packet.
Python's loop over pages costs about 5 ms per 200 MiB here, included in the first figure.
"""
import argparse
import mmap
import os
import statistics
import time


def fresh_memory(mib: int) -> float:
    n = mib << 20
    t = time.perf_counter()
    m = mmap.mmap(-1, n)
    if hasattr(mmap, "MADV_HUGEPAGE"):
        m.madvise(mmap.MADV_HUGEPAGE)
    for off in range(0, n, 4096):
        m[off] = 1
    dt = time.perf_counter() - t
    m.close()
    return dt


def read_once(path: str) -> float:
    buf = bytearray(1 << 20)
    view = memoryview(buf)
    t = time.perf_counter()
    with open(path, "rb", buffering=0) as f:
        while f.readinto(view):
            pass
    return time.perf_counter() - t


def map_touch(path: str) -> float:
    with open(path, "rb") as f:
        t = time.perf_counter()
        m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        s = 0
        for off in range(0, len(m), 4096):
            s += m[off]
        dt = time.perf_counter() - t
        m.close()
    return dt


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trace")
    ap.add_argument("--packets", type=int, default=0, help="packets in TRACE, for ns/packet")
    ap.add_argument("--table-mib", type=int, default=208,
                    help="flow state to fault in (default: 1,048,576 slots of 192 B + 16 MiB index)")
    ap.add_argument("--trials", type=int, default=5)
    a = ap.parse_args()
    mem, rd, mp = [], [], []
    for i in range(a.trials):
        mem.append(fresh_memory(a.table_mib))
        rd.append(read_once(a.trace))
        mp.append(map_touch(a.trace))
        print(f"trial {i + 1}: fresh {a.table_mib} MiB {mem[-1]:.3f} s, "
              f"read {os.path.getsize(a.trace) / 1e6:.0f} MB {rd[-1]:.3f} s, "
              f"mapped and touched per page {mp[-1]:.3f} s")
    m, r = statistics.median(mem), statistics.median(rd)
    print(f"median: fresh memory {m:.3f} s, read {r:.3f} s, together {m + r:.3f} s "
          f"(mapped, per page: {statistics.median(mp):.3f} s)")
    if a.packets:
        print(f"floor before any parsing or records: {(m + r) * 1e9 / a.packets:.1f} ns/packet "
              f"({a.packets / (m + r) / 1e6:.1f} Mpps at most)")


if __name__ == "__main__":
    main()
