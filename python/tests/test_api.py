"""wirespeed.stream, events, train and inputs: each against the command line (a different front
end of the same engine) or against classify, which test_classify.py checks against both the
command line and an independent pcap reader; Ctrl-C; and a live interface in network
namespaces made by the test."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import warnings
from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pytest

import wirespeed
from conftest import _missing
from test_classify import classify, subset

# A failsafe against a hang, never a measure of speed.
FAILSAFE = 120


def quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", wirespeed.CaptureWarning)
        return fn(*args, **kwargs)


# --- stream ---------------------------------------------------------------------------------


def test_stream_gives_the_tables_records_in_batches(corpus):
    paths = subset(corpus)
    want = classify(paths, workers=2)

    def run():
        s = wirespeed.stream(paths, workers=2, batch_rows=100)
        return s, list(s)

    s, batches = quiet(run)
    assert all(isinstance(b, pa.RecordBatch) for b in batches)
    assert all(0 < b.num_rows <= 100 for b in batches)
    assert len(batches) >= want.num_rows // 100
    got = pa.Table.from_batches(batches, schema=s.schema).sort_by("flow_id")
    assert got.schema == want.schema
    assert got.to_pylist() == want.to_pylist()
    assert s.summary["records"] == want.num_rows
    assert s.summary["inputs"] == len(paths)


def test_stream_warns_of_a_damaged_capture_and_keeps_its_flows(corpus, tmp_path):
    data = (corpus / "1kxun.pcap").read_bytes()
    cut = tmp_path / "cut.pcap"
    cut.write_bytes(data[: len(data) // 2 + 7])
    with pytest.warns(wirespeed.CaptureWarning, match="cut.pcap: offset"):
        got = wirespeed.stream(cut).read_all()
    want = classify(cut)
    assert got.num_rows == want.num_rows > 0


def test_stop_ends_the_run_early_and_its_flows_still_come(corpus):
    """The engine waits for the reader (a few batches are held between them), so after the
    first batch it is still near the start of the corpus: stop() ends there, the flows it
    holds are ended and come, then the end."""
    total = classify(corpus, workers=1)
    s = quiet(wirespeed.stream, corpus, workers=1, batch_rows=1)
    first = next(s)
    s.stop()
    rest = quiet(list, s)
    got = 1 + sum(b.num_rows for b in rest)
    assert first.num_rows == 1
    assert 1 < got < total.num_rows // 2, (got, total.num_rows)
    assert s.summary is not None and s.summary["records"] == got
    # The records that came are the corpus's first files' flows (ended early, so their
    # counters may be smaller): every one is a flow of the full run.
    seen = pa.Table.from_batches([first, *rest])
    ends = set(seen.column("end_reason").to_pylist())
    assert "end" in ends, ends


def test_close_drops_the_rest(corpus):
    s = wirespeed.stream(corpus, batch_rows=1)
    next(s)
    s.close()
    assert list(s) == []
    s.close()  # twice is fine


def test_stream_takes_a_source_or_an_interface():
    with pytest.raises(TypeError, match="source .* or an interface"):
        wirespeed.stream()
    with pytest.raises(TypeError, match="not both"):
        wirespeed.stream("x.pcap", interface="lo")
    with pytest.raises(TypeError, match="live interface"):
        wirespeed.stream("x.pcap", duration=1)
    with pytest.raises(ValueError, match="batch_rows"):
        wirespeed.stream(__file__, batch_rows=0)


def test_a_live_interface_that_cannot_be_opened_is_an_oserror():
    # As root: no such interface; else: no privilege. Either way, before any batch.
    with pytest.raises(OSError):
        wirespeed.stream(interface="wsnone0")


# --- Ctrl-C ---------------------------------------------------------------------------------

CTRL_C_CHILD = """
import sys, wirespeed
try:
    wirespeed.classify(sys.argv[1])
except KeyboardInterrupt:
    print("interrupted", flush=True)
    sys.exit(3)
print("finished", flush=True)
"""


def test_ctrl_c_interrupts_a_run_waiting_on_its_input(corpus, tmp_path):
    """The engine reads a pipe that gives a capture's first packets and then nothing: the run
    waits inside classify, and SIGINT (Ctrl-C) must still raise KeyboardInterrupt there."""
    fifo = tmp_path / "in.pcap"
    os.mkfifo(fifo)
    child = subprocess.Popen(
        [sys.executable, "-c", CTRL_C_CHILD, str(fifo)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        # Opening the pipe for writing returns once the engine has opened it for reading:
        # the child is inside classify.
        with open(fifo, "wb") as w:
            w.write((corpus / "1kxun.pcap").read_bytes()[:65536])
            w.flush()
            child.send_signal(signal.SIGINT)
            out, err = child.communicate(timeout=FAILSAFE)
    except BrokenPipeError:
        out, err = child.communicate(timeout=FAILSAFE)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == 3, (child.returncode, out, err)
    assert out.strip() == "interrupted"


# --- the GIL -------------------------------------------------------------------------------

GIL_CHILD = """
import os, sys, threading, wirespeed
fifo, capture = sys.argv[1], sys.argv[2]
got = []
t = threading.Thread(target=lambda: got.append(wirespeed.classify(fifo, workers=1).num_rows))
t.start()
# Python on this thread feeds the engine, a chunk at a time, while classify runs on the other:
# if classify held the GIL, this thread could not run and the run would never end.
data = open(capture, "rb").read()
with open(fifo, "wb") as w:
    for i in range(0, len(data), 4096):
        w.write(data[i:i + 4096])
        w.flush()
t.join()
print(got[0], flush=True)
"""


def test_the_engine_runs_without_the_gil(corpus, tmp_path):
    """No clock: a run that only this process's Python code can feed ends only if the engine
    lets go of the GIL while it waits and works (a deadlock otherwise, bounded by FAILSAFE)."""
    fifo = tmp_path / "in.pcap"
    os.mkfifo(fifo)
    capture = corpus / "1kxun.pcap"
    try:
        r = subprocess.run([sys.executable, "-c", GIL_CHILD, str(fifo), str(capture)],
                           capture_output=True, text=True, timeout=FAILSAFE)
    except subprocess.TimeoutExpired:
        pytest.fail("classify held the GIL: the thread feeding its input never ran")
    assert r.returncode == 0, r.stderr
    assert int(r.stdout) == wirespeed.classify(capture, workers=1).num_rows > 0


# --- events ---------------------------------------------------------------------------------


def us(v) -> int:
    return int(Decimal(str(v)) * 1_000_000)


def test_events_equal_the_command_lines(corpus, cli, tmp_path):
    files = [corpus / n for n in ("1kxun.pcap", "teams.pcap", "reddit.pcap", "iphone.pcap")]
    out = tmp_path / "events.json"
    r = cli.run(["classify", "-q", "--workers", "1", "-o", str(tmp_path / "flows.json"),
                 "--events", str(out), *map(str, files)])
    assert r.returncode == 0, r.stderr
    want = [json.loads(line, parse_float=Decimal) for line in out.read_text().splitlines()]
    assert {w["event_type"] for w in want} == {"dns", "http", "tls"}
    got = wirespeed.events(files, workers=1)
    assert got.num_rows == len(want)
    assert got.schema.field("ts").type == pa.timestamp("us", tz="UTC")
    cols = got.column_names
    got_rows = []
    for row in got.to_pylist():
        row["ts"] = int(row["ts"].timestamp() * 1_000_000 + 0.5) if row["ts"] else None
        got_rows.append(row)
    want_rows = []
    for w in want:
        assert set(w) <= set(cols), set(w) - set(cols)
        row = {c: w.get(c) for c in cols}
        row["ts"] = us(w["ts"])
        want_rows.append(row)
    order = lambda r: (r["flow_id"], r["ts"], json.dumps(r, sort_keys=True, default=str))
    assert sorted(got_rows, key=order) == sorted(want_rows, key=order)
    # Rows in time order.
    ts = got.column("ts").to_pylist()
    assert ts == sorted(ts)


def test_events_join_the_flows_of_classify(corpus):
    f = corpus / "1kxun.pcap"
    flows = classify(f, workers=1)
    ev = wirespeed.events(f, workers=1)
    ids = set(flows.column("flow_id").to_pylist())
    assert ev.num_rows > 0
    assert set(ev.column("flow_id").to_pylist()) <= ids


# --- train ----------------------------------------------------------------------------------


def _labels(corpus):
    labels = corpus.parent / "flows.csv"
    if not labels.exists():
        _missing(f"no labels at {labels}")
    return labels


def test_train_gives_the_command_lines_model(corpus, cli, tmp_path):
    labels = _labels(corpus)
    model = tmp_path / "nb.model"
    r = cli.run(["train", str(corpus), "--labels", str(labels), "--folds", "3",
                 "-o", str(model)])
    assert r.returncode == 0, r.stderr
    m = quiet(wirespeed.train, corpus, labels, folds=3)
    assert m.bytes == model.read_bytes()
    assert m.report and m.report in r.stdout
    assert m.counts["captures"] == 379 and m.counts["labelled"] > 1000
    assert len(m.classes) >= 5 and m.classes == sorted(m.classes)
    # The model classifies as the file does.
    f = corpus / "1kxun.pcap"
    a = classify(f, classifiers="stats", model=m)
    b = classify(f, classifiers="stats", model=model)
    assert a.to_pylist() == b.to_pylist()
    assert "stats" in a.column("method").to_pylist()
    saved = tmp_path / "saved.model"
    m.save(saved)
    assert saved.read_bytes() == model.read_bytes()


@pytest.mark.parametrize(
    "kwargs, name",
    [
        (dict(bin_width=0), "bin_width"),
        (dict(packets=9), "packets"),
        (dict(size="bytes"), "size"),
        (dict(algo="svm"), "algo"),
        (dict(alpha=0), "alpha"),
        (dict(reject=1.0), "reject"),
        (dict(folds=1), "folds"),
        (dict(min_class=0), "min_class"),
        (dict(max_repeats=-1), "max_repeats"),
    ],
)
def test_train_names_a_bad_parameter(corpus, kwargs, name):
    with pytest.raises(ValueError, match=name):
        wirespeed.train(corpus / "1kxun.pcap", corpus.parent / "flows.csv", **kwargs)


def test_train_max_repeats_is_the_command_lines(corpus, cli, tmp_path):
    # Every repeat learnt (0) is the command line's `--max-repeats 0`, and another model than
    # the default's: the corpus holds captures that repeat one flow hundreds of times.
    labels = _labels(corpus)
    model = tmp_path / "all.model"
    r = cli.run(["train", str(corpus), "--labels", str(labels), "--folds", "0",
                 "--max-repeats", "0", "-o", str(model)])
    assert r.returncode == 0, r.stderr
    every = quiet(wirespeed.train, corpus, labels, folds=0, max_repeats=0)
    assert every.bytes == model.read_bytes()
    assert every.bytes != quiet(wirespeed.train, corpus, labels, folds=0).bytes
    with pytest.raises(TypeError, match="max_repeats"):
        wirespeed.train(corpus / "1kxun.pcap", labels, max_repeats=1.5)


def test_train_with_too_few_labels_says_so(corpus):
    with pytest.raises(ValueError, match="min_class"):
        wirespeed.train(
            corpus / "1kxun.pcap", corpus.parent / "flows.csv", folds=0, min_class=100_000
        )


# --- inputs ---------------------------------------------------------------------------------


def test_inputs_lists_what_a_run_reads(corpus, tmp_path):
    d = tmp_path / "d"
    (d / "sub").mkdir(parents=True)
    shutil.copy(corpus / "1kxun.pcap", d / "sub" / "b.pcap")
    shutil.copy(corpus / "reddit.pcap", d / "a.pcap")
    (d / "notes.txt").write_text("not a capture\n")
    with pytest.warns(wirespeed.SkippedFileWarning, match="notes.txt"):
        files = wirespeed.inputs(d)
    assert files == [str(d / "a.pcap"), str(d / "sub" / "b.pcap")]
    with pytest.warns(wirespeed.SkippedFileWarning):
        t = wirespeed.classify(d)
    assert sorted(set(t.column("source").to_pylist())) == files


# --- a live interface -----------------------------------------------------------------------

LIVE_CHILD = """
import json, sys, threading, wirespeed
s = wirespeed.stream(interface=sys.argv[1], workers=2, batch_rows=4)
print("opened", flush=True)
def stopper():
    sys.stdin.readline()
    s.stop()
threading.Thread(target=stopper, daemon=True).start()
t = s.read_all()
for r in t.to_pylist():
    print(json.dumps(r, default=str))
print(json.dumps({"summary": s.summary}), flush=True)
"""

FIELDS = ["src_ip", "src_port", "dst_ip", "dst_port", "l4", "c2s_pkts", "c2s_bytes",
          "s2c_pkts", "s2c_bytes", "app", "master", "method"]


def ip(*args: str) -> bool:
    return subprocess.run(["ip", *args], capture_output=True).returncode == 0


def test_stream_of_a_live_interface_gives_the_files_flows(corpus, cli, tmp_path):
    """A corpus capture replayed (``wirespeed replay``) into one end of a veth pair between two
    namespaces this test makes, captured at the other by ``wirespeed.stream(interface=...)``:
    the flows, their counters and labels are those ``classify`` finds in the file."""
    if os.geteuid() != 0 or shutil.which("ip") is None:
        _missing("a live capture needs root and iproute2")
    pid = os.getpid() % 100_000
    ns = [f"wspyA{pid}", f"wspyB{pid}"]
    dev = [f"wspya{pid}", f"wspyb{pid}"]
    try:
        ok = ip("netns", "add", ns[0]) and ip("netns", "add", ns[1])
        for n in ns:
            ok = ok and subprocess.run(
                ["ip", "netns", "exec", n, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1",
                 "net.ipv6.conf.default.disable_ipv6=1"], capture_output=True
            ).returncode == 0
        ok = (ok and ip("link", "add", dev[0], "type", "veth", "peer", "name", dev[1])
              and ip("link", "set", dev[0], "netns", ns[0])
              and ip("link", "set", dev[1], "netns", ns[1])
              and ip("-n", ns[0], "link", "set", dev[0], "up")
              and ip("-n", ns[1], "link", "set", dev[1], "up"))
        if not ok:
            _missing("could not make namespaces and a veth pair")
        file = corpus / "chrome.pcap"
        child = subprocess.Popen(
            ["ip", "netns", "exec", ns[1], sys.executable, "-c", LIVE_CHILD, dev[1]],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        try:
            line = child.stdout.readline()
            assert line.strip() == "opened", (line, child.stderr.read() if child.poll() else "")
            r = subprocess.run(
                ["ip", "netns", "exec", ns[0], str(cli.binary), "replay", "-i", dev[0],
                 "--pps", "20000", str(file)],
                capture_output=True, text=True, timeout=FAILSAFE,
            )
            assert r.returncode == 0, r.stderr
            # Stop at once: what the kernel accepted must still be read, every flow ended.
            child.stdin.write("stop\n")
            child.stdin.flush()
            out, err = child.communicate(timeout=FAILSAFE)
        finally:
            if child.poll() is None:
                child.kill()
        assert child.returncode == 0, err
        lines = [json.loads(l) for l in out.splitlines()]
        summary = lines.pop()["summary"]
        assert summary["lost_records"] == 0 and summary["kernel_drops"] == 0, summary
        got = sorted(tuple(str(r[k]) for k in FIELDS) for r in lines)
        want = sorted(tuple(str(r[k]) for k in FIELDS) for r in classify(file).to_pylist())
        assert got == want
        assert len(got) >= 5
    finally:
        for n in ns:
            ip("netns", "del", n)
        ip("link", "del", dev[0])


# --- import ---------------------------------------------------------------------------------


def test_import_leaves_pyarrow_and_numpy_until_a_table_is_made(corpus):
    """`import wirespeed` imports neither pyarrow nor numpy (whose OpenBLAS threads would spin on
    the cores the run is about to use); the first table imports pyarrow, and its schema is the
    same; EVENT_SCHEMA is made on first use."""
    pcap = str(corpus / "http_auth.pcap")
    code = (
        "import sys, warnings, wirespeed\n"
        "before = sorted(m for m in ('pyarrow', 'numpy') if m in sys.modules)\n"
        "warnings.simplefilter('ignore')\n"
        f"t = wirespeed.classify({pcap!r})\n"
        "import pyarrow as pa\n"
        "assert isinstance(t, pa.Table) and t.num_rows > 0, t\n"
        "assert isinstance(wirespeed.EVENT_SCHEMA, pa.Schema)\n"
        "assert wirespeed.EVENT_SCHEMA.field('ts').type == pa.float64()\n"
        "print(before)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=FAILSAFE
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]", out.stdout
    with pytest.raises(AttributeError):
        wirespeed.NO_SUCH_NAME  # noqa: B018
