"""wirespeed.classify(columns=...): the kept columns only, in the record's order whatever the
order named, each equal to the same column of the whole table (labels included: what a run
does not compute for the columns it drops changes nothing else); an unknown name is a
ValueError naming it. And the other options that change what is computed, learn_stats,
dpi_contexts and dpi_reclaim_after, against the command line."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import REPO

from test_classify import classify, subset


def test_kept_columns_are_the_whole_tables(corpus):
    paths = subset(corpus)
    whole = classify(paths, workers=2)
    for cols in (
        ["proto", "src_ip", "flow_id", "ja4", "risks", "dst_port"],
        # Neither risks nor fingerprints: not computed, and the rest as it was.
        [n for n in whole.schema.names if n not in ("risks", "risk_score", "ja3c", "ja4", "hassh")],
        "flow_id, app",
    ):
        names = [n.strip() for n in cols.split(",")] if isinstance(cols, str) else cols
        order = [n for n in whole.schema.names if n in names]
        kept = classify(paths, workers=2, columns=cols)
        assert kept.schema.names == order
        assert kept.schema == whole.select(order).schema
        assert kept.to_pylist() == whole.select(order).to_pylist()


def test_rows_are_in_flow_id_order_without_the_flow_id_column(corpus):
    """The rows come in flow_id order whether or not the selection keeps flow_id (the native
    side sorts them by each record's id): the same rows, in the same order, as the whole
    table's; the rows of two workers' batches interleaved index one dictionary a column, each
    value once, so pandas takes them as categories."""
    paths = subset(corpus)
    whole = classify(paths, workers=2)
    ids = whole.column("flow_id").to_pylist()
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    names = ["src_ip", "dst_port", "proto", "app"]
    kept = classify(paths, workers=2, columns=names)
    assert kept.schema.names == names
    assert kept.to_pylist() == whole.select(names).to_pylist()
    for name in ("proto", "app"):
        for chunk in kept.column(name).chunks:
            values = chunk.dictionary.to_pylist()
            assert len(values) == len(set(values)), name
    df = kept.to_pandas()
    assert list(df["proto"].astype(str)) == kept.column("proto").to_pylist()


def test_the_table_is_the_same_whatever_the_number_of_workers(corpus):
    """Rows and dictionaries alike: each dictionary column's values come in order of first
    appearance among the rows, not in the order the workers' batches arrived, so one worker's
    table and two or three workers' are equal as Arrow data (not only as Python values)."""
    paths = subset(corpus)
    one = classify(paths, workers=1).combine_chunks()
    assert one.num_rows > 100
    for workers in (2, 3, 2):
        other = classify(paths, workers=workers).combine_chunks()
        assert other.to_pylist() == one.to_pylist()
        for name in one.schema.names:
            assert other.column(name).equals(one.column(name)), (workers, name)


def test_classify_imports_no_compute_module(corpus):
    """Putting the rows in order takes no pyarrow.compute (whose import alone is ~50 ms of a
    short script's life)."""
    code = (
        "import sys, warnings, wirespeed\n"
        "warnings.simplefilter('ignore')\n"
        f"t = wirespeed.classify({[str(p) for p in subset(corpus)]!r}, workers=2)\n"
        "assert t.num_rows > 1\n"
        "print('pyarrow.compute' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False", out.stdout + out.stderr


@pytest.mark.parametrize("bad", [["flow_id", "nosuch"], "flow_id,nosuch"])
def test_an_unknown_column_is_a_value_error_naming_it(corpus, bad):
    with pytest.raises(ValueError, match="nosuch"):
        classify(subset(corpus), columns=bad)


def test_a_column_of_a_group_not_asked_for_is_a_value_error(corpus):
    with pytest.raises(ValueError, match="community_id"):
        classify(subset(corpus), columns=["flow_id", "community_id"])
    table = classify(subset(corpus), columns=["flow_id", "community_id"], community_id=True)
    assert table.schema.names == ["flow_id", "community_id"]



def _labels(records) -> list[tuple]:
    return sorted((r["pcap"], r["flow_id"], r["proto"], r["method"]) for r in records)


def test_learn_stats_and_dpi_contexts_are_the_command_lines(corpus, cli, tmp_path):
    """``learn_stats=True`` and ``dpi_contexts=N`` label every flow as the command line does
    with ``--learn-stats`` and ``--dpi-contexts N`` (its JSON records, row for row by pcap and
    flow_id), and they change something: on the corpus in one file (where the link model has
    thousands of flows to learn from) the model's verdicts are not the shipped one's; one
    context leaves flows uninspected."""
    mix = tmp_path / "mix.pcap"
    subprocess.run(
        [sys.executable, str(REPO / "scripts" / "corpus_mix.py"), str(corpus), str(mix), "1"],
        check=True,
        capture_output=True,
    )
    out = tmp_path / "records.json"
    # One worker: which flows a full pool of contexts leaves out depends on which worker each
    # flow went to, and that on the run's dispatch key (as which flows a full table evicts).
    for paths, kwargs, flags in (
        ([mix], dict(learn_stats=True), ["--learn-stats"]),
        (subset(corpus), dict(dpi_contexts=1), ["--dpi-contexts", "1"]),
    ):
        table = classify(paths, workers=1, **kwargs)
        r = cli.run(
            ["classify", *map(str, paths), "--with-source", "--workers", "1", "-o", str(out)]
            + ["-q", *flags]
        )
        assert r.returncode in (0, 1), r.stderr
        want = _labels(json.loads(line) for line in out.read_text().splitlines())
        assert _labels(table.select(["pcap", "flow_id", "proto", "method"]).to_pylist()) == want
        plain = classify(paths, workers=1)
        if "learn_stats" in kwargs:
            # (Whether it names more flows than the shipped model depends on that model: the
            # one trained with a capture's repeats limited names more on its own.)
            assert table.column("stats_app").to_pylist() != plain.column("stats_app").to_pylist()
        else:
            now = table.column("method").to_pylist()
            assert now.count("dpi") < plain.column("method").to_pylist().count("dpi")
    with pytest.raises(ValueError, match="dpi_contexts"):
        classify(subset(corpus), dpi_contexts=0)
    with pytest.raises(TypeError, match="learn_stats"):
        classify(subset(corpus), learn_stats="yes")


def test_learn_stats_without_what_it_learns_from_is_a_value_error(corpus):
    with pytest.raises(ValueError, match="learn_stats.*dpi and stats"):
        classify(subset(corpus), learn_stats=True, classifiers="dpi,port")
    with pytest.raises(ValueError, match="learn_stats.*dpi and stats"):
        classify(subset(corpus), learn_stats=True, classifiers="port,stats")


def _flood_then_queries(path) -> None:
    """A pcap (Ethernet, microseconds): eight UDP datagrams of 18 zero bytes no inspector can
    name, then, two seconds later, four DNS queries for www.example.org (type A), each its own
    flow. Written here byte by byte (IPv4 and UDP checksums left 0: allowed for UDP)."""
    import struct

    def frame(src, dst, sport, dport, payload):
        udp = struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload
        ip = struct.pack(
            "!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0, 64, 17, 0, bytes(src), bytes(dst)
        )
        ethernet = bytes.fromhex("020000000002" "020000000001" "0800")
        return ethernet + ip + udp

    query = bytes.fromhex("123401000001000000000000") + b"\x03www\x07example\x03org\x00"
    query += b"\x00\x01\x00\x01"
    junk = [
        frame([192, 0, 2, 1], [198, 51, 100, 1], 40000 + i, 1080 + i, bytes(18)) for i in range(8)
    ]
    dns = [frame([192, 0, 2, 2], [198, 51, 100, 53], 50000 + i, 53, query) for i in range(4)]
    packets = [(0, i, f) for i, f in enumerate(junk)] + [(2, i, f) for i, f in enumerate(dns)]
    out = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1)
    for sec, usec, f in packets:
        out += struct.pack("<IIII", 1_700_000_000 + sec, usec, len(f), len(f)) + f
    path.write_bytes(out)


def test_dpi_reclaim_after_is_the_command_lines(cli, tmp_path):
    """``dpi_reclaim_after`` as ``--dpi-reclaim-after``: with eight contexts taken by flows no
    inspector names, the four DNS queries that start two seconds later take their contexts and
    are named by payload with the default (1,000 ms), none is with 0 or 3,000; the same rows as
    the command line's in each case. A negative value is a ValueError, a str a TypeError."""
    pcap = tmp_path / "flood.pcap"
    _flood_then_queries(pcap)
    out = tmp_path / "records.json"
    for ms, named in ((None, 4), (0, 0), (3000, 0)):
        kwargs = {} if ms is None else dict(dpi_reclaim_after=ms)
        flags = [] if ms is None else ["--dpi-reclaim-after", str(ms)]
        table = classify([pcap], workers=1, dpi_contexts=8, **kwargs)
        rows = table.select(["pcap", "flow_id", "proto", "method", "dns_query"]).to_pylist()
        dns = [r for r in rows if r["method"] == "dpi" and r["dns_query"] == "www.example.org"]
        assert len(dns) == named, (ms, rows)
        r = cli.run(
            ["classify", str(pcap), "--with-source", "--workers", "1", "--dpi-contexts", "8"]
            + ["-o", str(out), "-q", *flags]
        )
        assert r.returncode in (0, 1), r.stderr
        want = _labels(json.loads(line) for line in out.read_text().splitlines())
        assert _labels(table.select(["pcap", "flow_id", "proto", "method"]).to_pylist()) == want
    with pytest.raises(ValueError, match="dpi_reclaim_after"):
        classify([pcap], dpi_reclaim_after=-1)
    with pytest.raises(TypeError, match="dpi_reclaim_after"):
        classify([pcap], dpi_reclaim_after="1s")
