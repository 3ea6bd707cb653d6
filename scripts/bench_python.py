#!/usr/bin/env python3
"""Time from a capture to a pandas DataFrame: nfstream against wirespeed, a whole Python process
each (import included), in one script.

usage: bench_python.py [--capture FILE] [--corpus DIR] [--replays N] [--rounds R] [--python PY]

Builds the corpus mix (scripts/corpus_mix.py CORPUS /tmp/mixN.pcap N; N = 20 gives 1.34 M
packets) unless --capture names a file, then runs R rounds of, each in a fresh
`python -c` subprocess:

  nfstream             NFStreamer(source=FILE, n_dissections=20).to_pandas()
  wirespeed            wirespeed.classify(FILE).to_pandas()
  wirespeed.nfstream   wirespeed.nfstream.NFStreamer(source=FILE, n_dissections=20).to_pandas()
  floor                import pyarrow; pyarrow.table({'a': [1]}).to_pandas(): Python's own part
                       of any of them (interpreter, pyarrow, pandas, exit), no packet read

The table's last column is nfstream's median over each case's; after it, the time a case may
take for nfstream's median over it to reach 15x, and how much of that the floor leaves to the
work itself.

and prints a Markdown table: median wall-clock seconds (and the spread), packets per second,
peak RSS of the child (os.wait4's ru_maxrss: the process's own) and of its largest child
(nfstream meters in processes of its own: the child's RUSAGE_CHILDREN), and rows. The three run in turn within each round, so a load on the machine spreads over all.
The interpreter is --python (default: this one); it needs pandas, nfstream and wirespeed.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

# Each child reports its rows and its own children's peak RSS (nfstream's meter processes).
CASES = {
    "nfstream": (
        "from nfstream import NFStreamer\n"
        "df = NFStreamer(source=SRC, n_dissections=20).to_pandas()\n"
    ),
    "wirespeed": (
        "import wirespeed, warnings\n"
        "warnings.simplefilter('ignore')\n"
        "df = wirespeed.classify(SRC).to_pandas()\n"
    ),
    "wirespeed.nfstream": (
        "from wirespeed.nfstream import NFStreamer\n"
        "import warnings\n"
        "warnings.simplefilter('ignore')\n"
        "df = NFStreamer(source=SRC, n_dissections=20).to_pandas()\n"
    ),
    # Python's own share of any capture-to-DataFrame run: the interpreter, pyarrow and pandas
    # imported, a one-row table converted, the interpreter's exit. No packet is read.
    "floor": (
        "import pyarrow\n"
        "df = pyarrow.table({'a': [1]}).to_pandas()\n"
    ),
}
EPILOGUE = (
    "import resource, sys\n"
    "kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
    "print('ROWS', 0 if df is None else len(df), 'KIDS_RSS_KB', kids, file=sys.stderr)\n"
)


def run(python: str, case: str, capture: str) -> tuple[float, int, int, int]:
    """(wall seconds, peak RSS of the child KiB, of its largest own child KiB, rows)."""
    code = f"SRC = {capture!r}\n" + CASES[case] + EPILOGUE
    t0 = time.perf_counter()
    p = subprocess.Popen([python, "-c", code], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    err = p.stderr.read()
    p.stderr.close()
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        raise RuntimeError(f"{case} failed ({p.returncode}): {err[-2000:]}")
    rows = kids = 0
    for line in err.splitlines():
        if line.startswith("ROWS "):
            parts = line.split()
            rows, kids = int(parts[1]), int(parts[3])
    return wall, usage.ru_maxrss, kids, rows


def count_packets(path: str) -> int:
    """Records of a classic pcap, read header by header: this process must stay small, as a
    child's ru_maxrss starts from its parent's peak (the kernel keeps it across fork and exec)."""
    import struct
    n = 0
    with open(path, "rb") as f:
        head = f.read(24)
        e = "<" if head[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
        while True:
            rec = f.read(16)
            if len(rec) < 16:
                return n
            f.seek(struct.unpack(e + "I", rec[8:12])[0], 1)
            n += 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--capture", help="a capture to time (default: build the corpus mix)")
    ap.add_argument("--corpus", default=str(REPO.parent / "shared" / "corpus" / "pcap"))
    ap.add_argument("--replays", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--cases", default=",".join(CASES), help="comma-separated: " + ", ".join(CASES))
    args = ap.parse_args()

    capture = args.capture
    if not capture:
        capture = os.path.join(tempfile.gettempdir(), f"mix{args.replays}.pcap")
        if not os.path.exists(capture):
            subprocess.run([sys.executable, str(REPO / "scripts" / "corpus_mix.py"), args.corpus,
                            capture, str(args.replays)], check=True)
    packets = count_packets(capture)
    cases = [c for c in args.cases.split(",") if c]
    results = {c: [] for c in cases}
    for r in range(args.rounds):
        for c in cases:
            results[c].append(run(args.python, c, capture))
            w, rss, kids, rows = results[c][-1]
            print(f"round {r + 1} {c}: {w:.2f} s, RSS {rss / 1024:.0f} MiB (children {kids / 1024:.0f} MiB), {rows} rows",
                  file=sys.stderr)

    print(f"\n{capture}: {packets:,} packets, {os.path.getsize(capture) / 2**20:.0f} MiB; "
          f"{args.rounds} rounds, each a fresh `python -c` (import included); {os.cpu_count()} CPUs\n")
    print("| | median s | min–max s | packets/s | peak RSS MiB | largest child's RSS MiB | rows | nfstream ÷ |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    medians = {c: statistics.median(x[0] for x in results[c]) for c in cases}
    nf = medians.get("nfstream")
    for c in cases:
        walls = [x[0] for x in results[c]]
        med = medians[c]
        rss = max(x[1] for x in results[c]) / 1024
        kids = max(x[2] for x in results[c]) / 1024
        rows = results[c][-1][3]
        ratio = f"{nf / med:.1f}×" if nf else ""
        pps = f"{packets / med:,.0f}" if c != "floor" else ""
        print(f"| {c} | {med:.2f} | {min(walls):.2f}–{max(walls):.2f} | {pps} | "
              f"{rss:.0f} | {kids:.0f} | {rows:,} | {ratio} |")
    if nf:
        budget = nf / 15
        print(f"\n15× nfstream: a run may take {budget:.3f} s", end="")
        if "floor" in medians:
            print(f"; Python's own part (floor) takes {medians['floor']:.3f} s of it, leaving "
                  f"{budget - medians['floor']:.3f} s to read the capture and build the table", end="")
        print(".")
    print("\nRSS: ru_maxrss of the `python -c` process (os.wait4; this script stays small, as a "
          "child's figure starts from its parent's peak); nfstream meters in processes of its own, "
          "whose largest peak is the next column (the child's RUSAGE_CHILDREN).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
