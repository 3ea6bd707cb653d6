"""wirespeed.spark (the PySpark job) against wirespeed.classify in one process: the same rows,
column for column, on the whole corpus; its options checked on the driver; its directory walk;
its command line (python/examples/spark_classify.py) writing Parquet.

Needs pyspark and Java: without them these tests skip, saying so, except under CI=true, where
they fail (conftest.py). One local[2] session for the module.
"""

from __future__ import annotations

import os
import runpy
import shutil
import sys
import time
import warnings
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

import wirespeed

from conftest import REPO, _missing

pytestmark = pytest.mark.filterwarnings(
    # pyspark 4.x's notice when pandas is 3.x (mapInArrow checks for pandas; none is used here).
    "ignore:PySpark does not yet fully support pandas:FutureWarning"
)

EXAMPLE = REPO / "python" / "examples" / "spark_classify.py"

# A few captures with list columns, tunnels, IPv6, pcapng, TLS, QUIC, DNS and a damaged one.
SOME = [
    "1kxun.pcap",
    "gre.pcapng",
    "http.pcapng",
    "http_ipv6.pcap",
    "quic.pcap",
    "reddit.pcap",
    "teredo.pcap",
    "webex.pcap",
    "fuzz-2021-10-13.pcap",
    "dnscrypt-v2-doh.pcap",
]


def _java() -> bool:
    home = os.environ.get("JAVA_HOME")
    return bool(shutil.which("java") or (home and os.access(Path(home) / "bin" / "java", os.X_OK)))


@pytest.fixture(scope="module")
def ws():
    try:
        import pyspark  # noqa: F401
    except ImportError:
        _missing("pyspark is not installed (pip install pyspark)")
    import wirespeed.spark

    return wirespeed.spark


@pytest.fixture(scope="module")
def spark(ws):
    if not _java():
        _missing("no Java for Spark (java on PATH, or JAVA_HOME)")
    from pyspark.sql import SparkSession

    # The Python workers: this interpreter, whose wirespeed is under test (Spark's default is
    # the python3 on PATH).
    before = os.environ.get("PYSPARK_PYTHON")
    os.environ["PYSPARK_PYTHON"] = sys.executable
    session = (
        SparkSession.builder.master("local[2]")
        .appName("wirespeed-test")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.driver.memory", "1g")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
    if before is None:
        os.environ.pop("PYSPARK_PYTHON", None)
    else:
        os.environ["PYSPARK_PYTHON"] = before


def one_run(*args, **kwargs) -> pa.Table:
    """wirespeed.classify in this process, its CaptureWarnings kept quiet."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", wirespeed.CaptureWarning)
        return wirespeed.classify(*args, **kwargs)


def to_arrow(df) -> pa.Table:
    if hasattr(df, "toArrow"):  # pyspark >= 4.0
        return df.toArrow()
    return pa.Table.from_batches(df._collect_as_arrow())  # pragma: no cover - pyspark 3.5


def normalised(table: pa.Table) -> list[dict]:
    """The rows as dicts (text decoded, timestamps as µs since the epoch, integers whatever
    their width), each ``flow_id`` counted from the first of its ``source`` (a per-file run
    and a run of many files number a file's flows from different starts), sorted by
    (source, flow_id, last_ts, packets, end_reason)."""
    cols = {}
    for name in table.column_names:
        c = table.column(name)
        if pa.types.is_timestamp(c.type):
            c = c.cast(pa.timestamp("us", tz=c.type.tz)).cast(pa.int64())  # checked: no loss
        cols[name] = c.to_pylist()
    first: dict[str, int] = {}
    for s, i in zip(cols["source"], cols["flow_id"]):
        first[s] = min(first.get(s, i), i)
    cols["flow_id"] = [i - first[s] for s, i in zip(cols["source"], cols["flow_id"])]
    rows = [dict(zip(cols, values)) for values in zip(*cols.values())]
    rows.sort(
        key=lambda r: (
            r["source"],
            r["flow_id"],
            r["last_ts"],
            r["c2s_pkts"] + r["s2c_pkts"],
            r["end_reason"],
        )
    )
    return rows


def assert_same_rows(got: pa.Table, want: pa.Table) -> None:
    assert got.column_names == want.column_names, "the same columns in the same order"
    g, w = normalised(got), normalised(want)
    assert len(g) == len(w)
    bad = [
        (b["source"], b["flow_id"], name, a[name], b[name])
        for a, b in zip(g, w)
        for name in b
        if a[name] != b[name] or type(a[name]) is not type(b[name])
    ]
    assert not bad, f"{len(bad)} values differ (source, flow_id, column, spark, one run): {bad[:10]}"


# --- the same rows as one run ---------------------------------------------------------------


# The whole corpus in a few tasks of about the same bytes each, and a few captures one a task
# (the default; the whole corpus one a task, 379 tasks, is the same code at 30 s more).
@pytest.mark.parametrize("which, partitions", [("corpus", 8), ("some", None)])
def test_same_rows_as_one_run(ws, spark, corpus, which, partitions):
    source = corpus if which == "corpus" else [corpus / n for n in SOME]
    t0 = time.monotonic()
    df = ws.classify(spark, source, partitions=partitions)
    assert df.rdd.getNumPartitions() == (partitions or len(ws.captures(source)))
    got = to_arrow(df)
    spark_s = time.monotonic() - t0
    t0 = time.monotonic()
    want = one_run(source, workers=2)
    one_s = time.monotonic() - t0
    print(f"\n{which}, partitions={partitions}: Spark local[2] {spark_s:.1f} s, "
          f"one process (2 workers) {one_s:.1f} s, {got.num_rows} records")
    assert want.num_rows > (7000 if which == "corpus" else 100)
    assert_same_rows(got, want)
    # (source, flow_id) is the key: every flow once per capture (no active timeout here).
    keys = list(zip(got.column("source").to_pylist(), got.column("flow_id").to_pylist()))
    assert len(set(keys)) == len(keys)


def test_flow_id_is_each_captures_own_runs(ws, spark, corpus):
    paths = [corpus / n for n in SOME[:4]]
    df = ws.classify(spark, paths, partitions=2)
    got = to_arrow(df.select("source", "flow_id", "first_ts"))
    for p in paths:
        want = one_run(p)
        mine = got.filter(pc.equal(got.column("source"), str(p)))
        assert sorted(mine.column("flow_id").to_pylist()) == want.column("flow_id").to_pylist()
    # Unlike one run of them all, whose ids run on across the files.
    ids = to_arrow(df.select("flow_id")).column("flow_id").to_pylist()
    assert ids.count(0) == len(paths)


def test_every_optional_column_and_fewer_partitions(ws, spark, corpus):
    from pyspark.sql import types as T

    paths = [corpus / n for n in SOME]
    opts = dict(features=True, community_id=True, stats=["dist", "tcp", "entropy"])
    df = ws.classify(spark, paths, partitions=3, **opts)
    assert df.rdd.getNumPartitions() == 3
    want = one_run(paths, **opts)
    got = to_arrow(df)
    assert_same_rows(got, want)
    # Spark's types: unsigned integers widened, dictionaries plain text, lists arrays.
    types = {f.name: f.dataType for f in df.schema.fields}
    assert types["flow_id"] == T.LongType() and types["c2s_bytes"] == T.LongType()
    assert types["src_port"] == T.IntegerType() and types["ip_proto"] == T.ShortType()
    assert types["ttb_pkts"] == T.LongType()
    assert types["app"] == T.StringType() and types["source"] == T.StringType()
    assert types["first_ts"] == T.TimestampType()
    assert types["confidence"] == T.DoubleType() and types["encrypted"] == T.BooleanType()
    assert types["splt_iat_us"] == T.ArrayType(T.LongType(), containsNull=False)
    assert types["splt_flags"] == T.ArrayType(T.ShortType(), containsNull=False)
    assert types["splt_ip"] == T.ArrayType(T.IntegerType(), containsNull=False)
    # Nullable where one run's column is.
    nullable = {f.name: f.nullable for f in df.schema.fields}
    assert nullable == {f.name: f.nullable for f in want.schema}


# --- the driver's part ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (dict(stats="bogus"), ValueError, "stats"),
        (dict(features="yes"), TypeError, "features"),
        (dict(colour="blue"), TypeError, "colour"),
        (dict(udp_timeout=-1), ValueError, "udp_timeout"),
        (dict(max_flows=1 << 50), ValueError, "max_flows"),
        (dict(partitions=0), ValueError, "partitions"),
        (dict(rules="/nonexistent/protos.txt"), OSError, "protos.txt"),
    ],
)
def test_a_bad_option_raises_on_the_driver(ws, spark, corpus, kwargs, error, match):
    sc = spark.sparkContext
    sc.setJobGroup("bad-option", "a bad option")
    try:
        with pytest.raises(error, match=match):
            ws.classify(spark, corpus, **kwargs)
        # Raised here, as one run raises it, before any task ran.
        assert list(sc.statusTracker().getJobIdsForGroup("bad-option")) == []
    finally:
        sc.setLocalProperty("spark.jobGroup.id", None)


def test_a_bad_rules_file_raises_one_runs_error_on_the_driver(ws, spark, corpus, tmp_path):
    rules = tmp_path / "protos.txt"
    rules.write_text("this is no rule\n")
    with pytest.raises(ValueError) as one:
        wirespeed.classify(corpus / "1kxun.pcap", rules=rules)
    with pytest.raises(ValueError) as mine:
        ws.classify(spark, corpus, rules=rules)
    assert str(mine.value) == str(one.value)


def test_a_missing_source_raises_on_the_driver(ws, spark, tmp_path):
    with pytest.raises(FileNotFoundError, match="nothing.pcap"):
        ws.classify(spark, [tmp_path / "nothing.pcap"])
    with pytest.raises(TypeError):
        ws.classify(spark, 42)
    with pytest.raises(ValueError):
        ws.classify(spark, [])


def test_a_directory_skips_what_one_run_skips(ws, spark, corpus, tmp_path):
    d = tmp_path / "captures"
    (d / "b" / "c").mkdir(parents=True)
    shutil.copy(corpus / "1kxun.pcap", d / "b" / "c" / "z.pcap")
    shutil.copy(corpus / "http.pcapng", d / "a.pcapng")
    shutil.copy(corpus / "quic.pcap", d / "b-quic.pcap")  # sorts after b/ component-wise
    (d / "notes.txt").write_text("not a capture\n")
    (d / "b" / "empty.pcap").write_bytes(b"")
    (d / "b" / "ab").write_bytes(b"\xd4\xc3")  # the start of a magic only
    with pytest.warns(wirespeed.SkippedFileWarning) as one_w:
        want = wirespeed.classify(d)
    with pytest.warns(wirespeed.SkippedFileWarning) as mine_w:
        listed = ws.captures(d)
        df = ws.classify(spark, d)
    def skipped(record) -> list[str]:
        return sorted(
            str(w.message) for w in record if issubclass(w.category, wirespeed.SkippedFileWarning)
        )

    assert len(skipped(one_w)) == 3
    assert all(s.startswith("skipped (not a capture): ") for s in skipped(one_w))
    # The same files left out, once by captures() and once by classify().
    assert skipped(mine_w) == sorted(skipped(one_w) * 2)
    # In one run's order (its flow ids grow file by file).
    order = list(dict.fromkeys(want.column("source").to_pylist()))
    assert listed == order == [str(d / "a.pcapng"), str(d / "b" / "c" / "z.pcap"), str(d / "b-quic.pcap")]
    assert_same_rows(to_arrow(df), want)


def test_relative_sources_are_read_from_the_drivers_directory(ws, spark, corpus, tmp_path, monkeypatch):
    (tmp_path / "in").mkdir()
    shutil.copy(corpus / "http.pcapng", tmp_path / "in" / "http.pcapng")
    monkeypatch.chdir(tmp_path)  # the driver's; the Python workers keep theirs
    want = wirespeed.classify("in")
    got = to_arrow(ws.classify(spark, "in"))
    assert set(got.column("source").to_pylist()) == {os.path.join("in", "http.pcapng")}
    assert_same_rows(got, want)


def test_a_file_that_is_no_capture_fails_as_in_one_run(ws, spark, tmp_path):
    bad = tmp_path / "notes.txt"
    bad.write_text("not a capture\n")
    with pytest.raises(OSError, match="not a pcap or pcapng"):
        wirespeed.classify(bad)
    df = ws.classify(spark, bad)  # a file named is an input, whatever it holds: read by a task
    with pytest.raises(Exception, match="not a pcap or pcapng"):
        df.collect()


def test_an_empty_directory_is_an_empty_dataframe(ws, spark, tmp_path):
    want = wirespeed.classify(tmp_path)
    df = ws.classify(spark, tmp_path)
    assert df.columns == want.column_names
    assert df.count() == 0


# --- the example: Parquet -------------------------------------------------------------------


def test_the_example_writes_parquet_of_one_runs_rows(ws, spark, corpus, tmp_path, capsys,
                                                     monkeypatch):
    """The example script as spark-submit runs it (its file, its arguments, its exit), inside
    the tests' Spark session: a session of its own is one more JVM start (25 s on a busy
    machine), and `main` uses a running application's session and leaves it running."""
    d = tmp_path / "in"
    d.mkdir()
    for n in ("1kxun.pcap", "http.pcapng", "quic.pcap"):
        shutil.copy(corpus / n, d / n)
    out = tmp_path / "flows.parquet"
    monkeypatch.setattr(sys, "argv", [str(EXAMPLE), str(d), "-o", str(out), "--master",
                                      "local[2]", "--community-id"])
    with pytest.raises(SystemExit) as done:
        runpy.run_path(str(EXAMPLE), run_name="__main__")
    assert done.value.code == 0
    stdout = capsys.readouterr().out
    # The session is still the tests' own, and running.
    assert spark.range(3).count() == 3
    want = one_run(d, community_id=True)
    assert f"{want.num_rows} flow records written to {out}" in stdout
    parts = sorted(out.glob("part-*.parquet"))
    assert len(parts) == 3, "one part a capture"
    got = pq.read_table(out)
    assert got.schema.field("first_ts").type == pa.timestamp("us", tz="UTC")
    assert_same_rows(got, want)
