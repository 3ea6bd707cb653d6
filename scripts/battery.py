#!/usr/bin/env python3
"""The fault battery of issue 33, to run again after changes: hostile inputs that must give a
clear error or a counted drop, never a crash, a hang, or memory set by the input.

  scripts/battery.py [--bin target/dist/wirespeed] [--runs 12000] [--seed 1] [--jobs 2]

Sections (each prints its figures; the script exits 1 if any finding):
  mutated   --runs classify runs on corpus captures mutated at random (bit flips, overwritten
            spans, truncation, duplicated and deleted spans, 32-bit fields set to 0 or ~0),
            with options drawn at random (workers 1 or 2, every statistics family, features,
            Community ID, --tunnels both, --events). A finding: a signal or an exit status
            other than 0, 1 or 2; "panicked" on stderr; a run past 60 s; stderr lines that are
            not wirespeed's own; more than 64 KiB of stderr.
  options   every file option given /dev/zero, a 64 MiB line, binary junk, a directory:
            exit 2 within 30 s, at most 4 KiB of stderr, peak memory under 256 MiB.
  disk      classify -o (and --events) onto a 64 KiB tmpfs (root): exit 2 naming the error.
  flood     `gen worst-case` floods of 1 M and 4 M two-packet flows: peak memory of classify
            must not follow the flows (ratio under 1.25).
Link faults and `kill -9` of inline are tests of their own (crates/cli/tests/it/veth.rs, inline.rs).
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def run(cmd: list[str], timeout: float, stdin=subprocess.DEVNULL) -> tuple[int | None, bytes, float, int]:
    """(status or None on timeout, stderr, seconds, peak RSS KiB) of one child."""
    t = time.monotonic()
    p = subprocess.Popen(cmd, stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        _, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        _, err = p.communicate()
        return None, err, time.monotonic() - t, 0
    return p.returncode, err, time.monotonic() - t, 0


def run_rss(cmd: list[str], timeout: float) -> tuple[int | None, bytes, float, int]:
    """run() with the child's own peak RSS (KiB), by wait4."""
    t = time.monotonic()
    with tempfile.TemporaryFile() as errf:
        p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=errf)
        deadline = t + timeout
        while True:
            pid, status, ru = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                p.kill()
                os.wait4(p.pid, 0)
                errf.seek(0)
                return None, errf.read(), time.monotonic() - t, 0
            time.sleep(0.01)
        p.returncode = os.waitstatus_to_exitcode(status)
        errf.seek(0)
        return p.returncode, errf.read(), time.monotonic() - t, ru.ru_maxrss


def mutate(data: bytes, rng: random.Random) -> bytes:
    b = bytearray(data)
    for _ in range(rng.randint(1, 3)):
        if len(b) < 32:
            break
        kind = rng.randrange(6)
        at = rng.randrange(24, len(b)) if rng.random() < 0.9 else rng.randrange(len(b))
        if kind == 0:
            for _ in range(rng.randint(1, 64)):
                i = rng.randrange(len(b))
                b[i] ^= 1 << rng.randrange(8)
        elif kind == 1:
            n = rng.randint(1, 256)
            b[at : at + n] = bytes(rng.randrange(256) for _ in range(min(n, len(b) - at)))
        elif kind == 2:
            del b[at:]
        elif kind == 3:
            n = rng.randint(1, 4096)
            b[at:at] = b[at : at + n]
        elif kind == 4:
            del b[at : at + rng.randint(1, 4096)]
        else:
            at &= ~3
            b[at : at + 4] = rng.choice([b"\x00\x00\x00\x00", b"\xff\xff\xff\xff", b"\xff\xff\x00\x00"])
    return bytes(b)


OPTION_SETS = [
    ["--workers", "1"],
    ["--workers", "2"],
    ["--workers", "2", "--stats", "dist,tcp,entropy", "--features", "--community-id"],
    ["--workers", "1", "--tunnels", "both"],
    ["--workers", "2", "--no-tunnels", "--active-timeout", "1"],
    ["--workers", "2", "--max-flows", "64"],
]


def mutated(bin_: str, corpus: Path, runs: int, seed: int, jobs: int, tmp: Path) -> list[str]:
    files = sorted(p for p in corpus.iterdir() if p.is_file())
    originals = {p: p.read_bytes() for p in files}
    findings: list[str] = []
    codes: dict[int, int] = {}

    def one(i: int) -> str | None:
        rng = random.Random(seed * 1_000_003 + i)
        src = files[i % len(files)]
        data = mutate(originals[src], rng)
        f = tmp / f"m{i % (jobs * 4)}-{i}{src.suffix}"
        f.write_bytes(data)
        opts = list(rng.choice(OPTION_SETS))
        if rng.random() < 0.2:
            opts += ["--events", str(tmp / f"e{i}.json")]
        cmd = [bin_, "classify", "-q", "-o", "/dev/null", *opts, str(f)]
        status, err, secs, _ = run(cmd, 60)
        f.unlink()
        (tmp / f"e{i}.json").unlink(missing_ok=True)
        codes[status if status is not None else -999] = codes.get(status if status is not None else -999, 0) + 1
        text = err.decode("utf-8", "replace")
        why = None
        if status is None:
            why = "hang (past 60 s)"
        elif status not in (0, 1, 2):
            why = f"exit status {status}"
        elif "panicked" in text:
            why = "panic"
        elif len(err) > 65536:
            why = f"{len(err)} bytes of stderr"
        elif any(l and not l.startswith("wirespeed") for l in text.splitlines()):
            why = "stderr not wirespeed's: " + text[:200]
        if why:
            keep = tmp.parent / f"finding-{i}{src.suffix}"
            keep.write_bytes(data)
            return f"mutated run {i} ({src.name}, {' '.join(opts)}): {why}; input kept at {keep}"
        return None

    t = time.monotonic()
    with cf.ThreadPoolExecutor(jobs) as ex:
        for r in ex.map(one, range(runs)):
            if r:
                findings.append(r)
                print("FINDING:", r, flush=True)
    print(f"mutated: {runs} runs in {time.monotonic() - t:.0f} s, exit statuses {dict(sorted(codes.items()))}, "
          f"{len(findings)} findings")
    return findings


def options(bin_: str, corpus: Path, tmp: Path) -> list[str]:
    findings = []
    cap = str(corpus / "1kxun.pcap")
    line = tmp / "line.txt"
    with open(line, "wb") as f:
        f.write(b"a" * (64 << 20))
    junk = tmp / "junk.bin"
    junk.write_bytes(random.Random(7).randbytes(1 << 20))
    d = tmp / "dir"
    d.mkdir(exist_ok=True)
    bad = ["/dev/zero", str(line), str(junk), str(d)]
    cases = []
    for opt in ["--rules", "--hosts", "--networks", "--signatures", "--match", "--model"]:
        for b in bad:
            cases.append([bin_, "classify", "-q", "-o", "/dev/null", opt, b, cap])
    for b in bad:
        cases.append([bin_, "inline", "--policy", b, "--check"])
        cases.append([bin_, "train", cap, "--labels", b, "--folds", "0"])
    worst = (0, 0.0, 0)
    for cmd in cases:
        status, err, secs, rss = run_rss(cmd, 30)
        worst = (max(worst[0], len(err)), max(worst[1], secs), max(worst[2], rss))
        why = None
        if status != 2:
            why = f"exit status {status}"
        elif len(err) > 4096:
            why = f"{len(err)} bytes of stderr"
        elif rss > 256 << 10:
            why = f"peak memory {rss >> 10} MiB"
        elif b"panicked" in err:
            why = "panic"
        if why:
            findings.append(f"{' '.join(cmd[1:])}: {why}")
            print("FINDING:", findings[-1], flush=True)
    print(f"options: {len(cases)} hostile option files, {len(findings)} findings; at most "
          f"{worst[0]} bytes of stderr, {worst[1]:.1f} s, {worst[2] >> 10} MiB")
    return findings


def disk(bin_: str, corpus: Path, tmp: Path) -> list[str]:
    if os.geteuid() != 0:
        print("disk: SKIPPED (needs root to mount a small tmpfs)")
        return []
    m = tmp / "small"
    m.mkdir(exist_ok=True)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(m)]).returncode:
        print("disk: SKIPPED (mount failed)")
        return []
    findings = []
    try:
        cap = str(corpus / "1kxun.pcap")
        for extra in ([], ["--events", str(m / "ev.json")], ["--format", "csv"]):
            out = m / "out"
            status, err, _, _ = run([bin_, "classify", "-q", "-o", str(out), *extra, cap], 60)
            text = err.decode("utf-8", "replace")
            if status != 2 or "No space left" not in text:
                findings.append(f"full disk {extra}: status {status}, {text[:300]!r}")
                print("FINDING:", findings[-1], flush=True)
            for p in m.iterdir():
                p.unlink()
    finally:
        subprocess.run(["umount", str(m)])
    print(f"disk: 3 runs onto a full 64 KiB tmpfs, {len(findings)} findings")
    return findings


def flood(bin_: str, tmp: Path) -> list[str]:
    rss = {}
    for flows in (1_000_000, 4_000_000):
        f = tmp / f"flood{flows}.pcap"
        g = subprocess.run([bin_, "gen", "worst-case", "--flows", str(flows), "--pkts", "2",
                            "-o", str(f)], capture_output=True, text=True)
        if g.returncode:
            print(f"flood: gen failed: {g.stderr[:300]}")
            return [f"flood: gen failed: {g.stderr[:300]}"]
        status, err, secs, peak = run_rss([bin_, "classify", "-q", "-o", "/dev/null", "--workers", "2", str(f)], 600)
        f.unlink()
        rss[flows] = peak
        print(f"flood: {flows} flows: exit {status}, {secs:.1f} s, peak {peak >> 10} MiB")
    ratio = rss[4_000_000] / max(rss[1_000_000], 1)
    print(f"flood: peak memory 4 M / 1 M flows = {ratio:.2f}")
    return [] if ratio < 1.25 else [f"flood: memory grew {ratio:.2f}x with 4x the flows"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=str(REPO / "target" / "dist" / "wirespeed"))
    ap.add_argument("--corpus", default=str(REPO.parent / "shared" / "corpus" / "pcap"))
    ap.add_argument("--runs", type=int, default=12000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", choices=["mutated", "options", "disk", "flood"], action="append")
    a = ap.parse_args()
    corpus = Path(a.corpus)
    only = set(a.only or ["mutated", "options", "disk", "flood"])
    base = Path(tempfile.mkdtemp(prefix="wirespeed-battery-"))
    tmp = base / "work"
    tmp.mkdir()
    findings = []
    try:
        if "options" in only:
            findings += options(a.bin, corpus, tmp)
        if "disk" in only:
            findings += disk(a.bin, corpus, tmp)
        if "flood" in only:
            findings += flood(a.bin, tmp)
        if "mutated" in only:
            findings += mutated(a.bin, corpus, a.runs, a.seed, a.jobs, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"battery: {len(findings)} findings" + (f" (inputs kept in {base})" if findings else ""))
    if not findings:
        shutil.rmtree(base, ignore_errors=True)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
