"""wirespeed.classify against the command line's JSON records (a different front end of the
same engine), against an independent pcap reader, and its options and errors."""

from __future__ import annotations

import gzip
import math
import shutil
import warnings
from collections import defaultdict
from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pytest

import wirespeed

import pcapread
from conftest import _missing

# Diverse captures for the option tests: tunnels (GTP, VXLAN, Teredo, GRE, 4in6), VLAN, IPv6,
# DNS, QUIC, TLS, HTTP, SSH, BitTorrent, a port scan, broken and fuzzed packets, pcapng.
SUBSET = [
    "1kxun.pcap",
    "4in6tunnel.pcap",
    "badpackets.pcap",
    "bittorrent.pcap",
    "dns-tunnel-iodine.pcap",
    "dnscrypt-v2-doh.pcap",
    "gre.pcapng",
    "gtp_c.pcap",
    "http_ipv6.pcap",
    "http.pcapng",
    "long_tls_certificate.pcap",
    "quic.pcap",
    "quic_0RTT.pcap",
    "reddit.pcap",
    "ssh.pcap",
    "synscan.pcap",
    "telegram.pcap",
    "teredo.pcap",
    "vxlan.pcap",
    "webex.pcap",
    "fuzz-2021-10-13.pcap",
    "dtls.pcap",
]

# Captures of Ethernet, IPv4/IPv6, TCP/UDP only, no tunnels, no fragments, no corrupt
# packets: every packet is in a flow, so the counters can be checked by another reader.
SIMPLE = ["1kxun.pcap", "reddit.pcap", "synscan.pcap", "webex.pcap", "http_ipv6.pcap", "quic.pcap"]


def subset(corpus: Path) -> list[Path]:
    paths = [corpus / n for n in SUBSET]
    missing = [p.name for p in paths if not p.exists()]
    assert not missing, f"not in the corpus: {missing}"
    return paths


def classify(*args, **kwargs) -> pa.Table:
    """wirespeed.classify, its warnings kept quiet (the tests that look at them say so)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", wirespeed.CaptureWarning)
        return wirespeed.classify(*args, **kwargs)


def rows(table: pa.Table) -> list[dict]:
    """The table's rows as dicts, timestamps as µs since the epoch (integers)."""
    cols = {}
    for name in table.column_names:
        c = table.column(name)
        if pa.types.is_timestamp(c.type):
            c = c.cast(pa.int64())
        cols[name] = c.to_pylist()
    return [dict(zip(cols, values)) for values in zip(*cols.values())]


def us(v) -> int:
    """JSON's seconds (six decimals, as a Decimal) as integer µs."""
    return int(Decimal(v) * 1_000_000)


def same(name: str, got, want) -> bool:
    if name in ("first_ts", "last_ts"):
        return got == us(want)
    if isinstance(want, Decimal):
        # The table holds JSON's rounded value as a double: the same number as JSON's text.
        return isinstance(got, float) and got == float(want)
    if isinstance(want, bool) or isinstance(got, bool):
        return got is want
    return got == want


def key(r: dict, ts) -> tuple:
    return (r["flow_id"], ts(r["last_ts"]), r["c2s_pkts"] + r["s2c_pkts"])


def assert_same_records(table: pa.Table, records: list[dict]) -> None:
    """Row for row and column for column, the table is the command line's JSON records."""
    assert records, "the command line wrote no record"
    assert table.column_names == list(records[0].keys()), "the same columns in the same order"
    got = sorted(rows(table), key=lambda r: key(r, int))
    want = sorted(records, key=lambda r: key(r, us))
    assert len(got) == len(want)
    bad = []
    for g, w in zip(got, want):
        for name, v in w.items():
            if not same(name, g[name], v):
                bad.append((w["pcap"], w["flow_id"], name, g[name], v))
    assert not bad, f"{len(bad)} values differ, the first: {bad[:10]}"


# --- the same records as the command line -------------------------------------------------


def test_whole_corpus_equals_the_command_lines_records(corpus, cli):
    records, status, _ = cli.records([corpus], ["--workers", "2"])
    assert status == 1, "the corpus holds damaged captures: the command line exits 1"
    table = classify(corpus, workers=2)
    assert table.num_rows > 7000
    assert_same_records(table, records)
    # In flow_id order (the order flows began in), every flow_id once.
    ids = table.column("flow_id").to_pylist()
    assert ids == sorted(ids) and len(set(ids)) == len(ids)


def test_whole_corpus_with_every_optional_column(corpus, cli):
    opts = ["--features", "--community-id", "--stats", "dist,tcp,entropy", "--workers", "2"]
    records, _, _ = cli.records([corpus], opts)
    table = classify(
        corpus, workers=2, features=True, community_id=True, stats=["dist", "tcp", "entropy"]
    )
    assert_same_records(table, records)


@pytest.mark.parametrize(
    "kwargs, flags",
    [
        (dict(udp_timeout=5, tcp_timeout=30.0), ["--udp-timeout", "5", "--tcp-timeout", "30"]),
        # One worker: with several, which interim records a flow gets depends on how the
        # workers' clocks advance (the command line's too; reported to the engine's owners).
        (
            dict(active_timeout=2, other_timeout=1, workers=1),
            ["--active-timeout", "2", "--other-timeout", "1", "--workers", "1"],
        ),
        (dict(closed_timeout=0.5, tcp_timeout=math.inf), ["--closed-timeout", "0.5", "--tcp-timeout", "inf"]),
        (dict(classifiers=["port", "dpi"]), ["--classifiers", "port,dpi"]),
        (dict(classifiers="none"), ["--classifiers", "none"]),
        (dict(tunnels=False), ["--no-tunnels"]),
        # One worker: with several, which flows a full table evicts depends on the run's
        # random dispatch key (the command line's too).
        (dict(max_flows=16, workers=1), ["--max-flows", "16", "--workers", "1"]),
        (dict(stats="tcp"), ["--stats", "tcp"]),
        (dict(workers=1, features=True), ["--workers", "1", "--features"]),
    ],
)
def test_options_give_the_command_lines_records(corpus, cli, kwargs, flags):
    paths = subset(corpus)
    records, _, _ = cli.records(paths, flags)
    assert_same_records(classify(paths, **kwargs), records)


def test_rule_files_give_the_command_lines_records(corpus, cli, tmp_path):
    rules = tmp_path / "protos.txt"
    rules.write_text('host:"reddit"@MyReddit\ntcp:443@MyTls\nip:8.8.8.8/32@MyDns\n')
    hosts = tmp_path / "hosts.csv"
    hosts.write_text("pattern,app,category,breed\n*.1kxun.com,MyKxun,Video,Fun\n")
    paths = subset(corpus)
    records, _, err = cli.records(paths, ["--rules", str(rules), "--hosts", str(hosts)])
    table = classify(paths, rules=rules, hosts=str(hosts))
    assert_same_records(table, records)
    apps = set(table.column("app").to_pylist())
    assert {"MyKxun", "MyTls"} <= apps, apps


def test_active_timeout_interim_records_share_the_flow_id(corpus):
    table = classify(corpus / "1kxun.pcap", active_timeout=1)
    ends = table.column("end_reason").to_pylist()
    assert "active" in ends
    ids = table.column("flow_id").to_pylist()
    assert len(set(ids)) < len(ids)


def test_workers_do_not_change_the_table(corpus):
    one = classify(subset(corpus), workers=1)
    three = classify(subset(corpus), workers=3)
    assert one.schema == three.schema
    assert one.to_pylist() == three.to_pylist()


# --- independently of the engine ----------------------------------------------------------


@pytest.mark.parametrize("name", SIMPLE)
def test_counters_equal_an_independent_pcap_reader(corpus, name):
    """Packets and frame bytes per bidirectional 5-tuple, from tests/pcapread.py's own parse of
    the file, equal the records' c2s + s2c counters (summed over a 5-tuple's records)."""
    expected, unplaced = pcapread.flows(corpus / name)
    assert unplaced == 0 and expected
    got = defaultdict(lambda: [0, 0])
    for r in classify(corpus / name, workers=1).to_pylist():
        a, b = sorted([(r["src_ip"], r["src_port"]), (r["dst_ip"], r["dst_port"])])
        g = got[(r["l4"], a, b)]
        g[0] += r["c2s_pkts"] + r["s2c_pkts"]
        g[1] += r["c2s_bytes"] + r["s2c_bytes"]
    assert dict(got) == expected


# --- types, pandas ------------------------------------------------------------------------


def test_columns_are_typed_as_the_parquet_output(corpus):
    t = classify(corpus / "1kxun.pcap", features=True, stats=["dist", "tcp"])
    s = t.schema
    assert s.field("first_ts").type == pa.timestamp("us", tz="UTC")
    assert s.field("last_ts").type == pa.timestamp("us", tz="UTC")
    for name in ("source", "app", "master", "category", "proto", "l4", "end_reason", "method"):
        assert s.field(name).type == pa.dictionary(pa.int32(), pa.utf8()), name
    assert s.field("flow_id").type == pa.uint64() and not s.field("flow_id").nullable
    assert s.field("c2s_pkts").type == pa.uint64()
    assert s.field("src_port").type == pa.uint16()
    assert s.field("ip_proto").type == pa.uint8()
    assert s.field("duration").type == pa.float64()
    assert s.field("encrypted").type == pa.bool_()
    assert s.field("http_status").type == pa.uint32()
    assert s.field("splt_ip").type == pa.list_(pa.field("item", pa.int32(), nullable=False))
    assert s.field("c2s_ttl_min").type == pa.uint8()
    assert s.field("c2s_ps_mean").type == pa.float64()


def test_to_pandas(corpus):
    t = classify(corpus / "1kxun.pcap", features=True)
    df = t.to_pandas()
    assert len(df) == t.num_rows > 100
    assert list(df.columns) == t.column_names
    assert str(df["first_ts"].dtype).startswith("datetime64") and "UTC" in str(df["first_ts"].dtype)
    assert str(df["app"].dtype) == "category"
    assert df["c2s_pkts"].dtype == "uint64"
    assert (df["last_ts"] >= df["first_ts"]).all()
    assert isinstance(df["splt_ip"].iloc[0], (list, type(df["splt_ip"].iloc[0])))


def test_pandas_and_polars_share_the_tables_buffers(corpus):
    """No copy of the number and time columns: pandas with split_blocks=True and polars read the
    very buffers the engine filled (their addresses are the table's)."""
    try:
        import polars as pl
    except ImportError:
        _missing("polars is not installed (pip install polars)")
    t = classify(corpus / "1kxun.pcap")
    assert t.num_rows > 100
    numbers = ("flow_id", "c2s_pkts", "c2s_bytes", "s2c_bytes", "first_ts", "last_ts", "duration")

    def data_address(chunked: pa.ChunkedArray) -> int:
        assert chunked.num_chunks == 1
        return chunked.chunk(0).buffers()[1].address

    def pandas_address(series) -> int:
        a = series.array  # times: a DatetimeArray, whose asi8 is a view of its data
        values = a.asi8 if hasattr(a, "asi8") else series.to_numpy(copy=False)
        return values.__array_interface__["data"][0]

    df = t.to_pandas(split_blocks=True)
    for name in numbers:
        assert pandas_address(df[name]) == data_address(t.column(name)), name
    pf = pl.from_arrow(t, rechunk=False)
    assert pf.columns == t.column_names and pf.height == t.num_rows
    for name in numbers:
        assert pf[name].to_arrow().buffers()[1].address == data_address(t.column(name)), name
    # The values (polars converts the dictionaries and text to its own types, a copy of those).
    assert pf["app"].cast(pl.String).to_list() == t.column("app").to_pylist()
    assert pf["sni"].to_list() == t.column("sni").to_pylist()
    want_us = t.column("first_ts").cast(pa.int64()).to_pylist()
    assert pf["first_ts"].dt.epoch("us").to_list() == want_us


# --- sources ------------------------------------------------------------------------------


def without_source(t: pa.Table) -> list[dict]:
    return t.drop_columns(["source", "pcap"]).to_pylist()


def test_a_list_a_directory_and_a_compressed_capture(corpus, tmp_path):
    names = ["reddit.pcap", "dns-tunnel-iodine.pcap", "http.pcapng"]
    listed = classify([corpus / n for n in names])
    d = tmp_path / "captures"
    (d / "deeper").mkdir(parents=True)
    shutil.copy(corpus / names[0], d / "a.pcap")
    shutil.copy(corpus / names[1], d / "deeper" / "b.pcap")
    with open(corpus / names[2], "rb") as f, gzip.open(d / "deeper" / "c.pcapng.gz", "wb") as g:
        g.write(f.read())
    (d / "notes.txt").write_text("not a capture")
    with pytest.warns(wirespeed.SkippedFileWarning, match="notes.txt"):
        walked = wirespeed.classify(d)
    # Sorted by path: a.pcap, deeper/b.pcap, deeper/c.pcapng.gz: the same order as the list.
    assert without_source(walked) == without_source(listed)
    assert set(walked.column("pcap").to_pylist()) == {"a.pcap", "b.pcap", "c.pcapng.gz"}
    one = classify(str(d / "deeper" / "c.pcapng.gz"))
    assert without_source(one) == without_source(classify(corpus / names[2]))


# --- errors -------------------------------------------------------------------------------


def test_a_missing_capture_is_an_oserror_naming_it(tmp_path):
    missing = tmp_path / "nope.pcap"
    with pytest.raises(FileNotFoundError) as e:
        wirespeed.classify(missing)
    assert e.value.filename == str(missing)
    assert str(missing) in str(e.value)


def test_a_file_that_is_no_capture_is_an_oserror_naming_it(tmp_path):
    p = tmp_path / "notes.pcap"
    p.write_text("hello, not a capture\n")
    with pytest.raises(OSError, match="notes.pcap.*not a pcap or pcapng file"):
        wirespeed.classify(p)


def test_a_damaged_capture_warns_and_keeps_its_good_flows(corpus, cli, tmp_path):
    # A capture cut inside its last packet record: every packet before it is good.
    whole = (corpus / "reddit.pcap").read_bytes()
    p = tmp_path / "cut.pcap"
    p.write_bytes(whole[: len(whole) - 100])
    records, status, err = cli.records([p])
    assert status == 1
    with pytest.warns(wirespeed.CaptureWarning) as w:
        table = wirespeed.classify(p)
    messages = [str(x.message) for x in w]
    assert len(messages) == 1 and str(p) in messages[0] and "offset " in messages[0], messages
    assert messages[0] in err, (messages, err)
    assert table.num_rows > 50
    assert_same_records(table, records)
    # The corpus's own damaged capture (no good flow in it): the same message as the CLI's.
    fuzz = corpus / "fuzz-2021-10-13.pcap"
    _, status, err = cli.records([fuzz])
    with pytest.warns(wirespeed.CaptureWarning, match="offset 237") as w:
        assert wirespeed.classify(fuzz).num_rows == 0
    assert status == 1 and str(w[0].message) in err


def test_a_bad_rules_file_is_a_valueerror_with_the_command_lines_message(corpus, cli, tmp_path):
    bad = tmp_path / "bad.rules"
    bad.write_text('host:"unclosed@Name\n')
    p = cli.run(["classify", "-q", "--rules", str(bad), str(corpus / "reddit.pcap")])
    assert p.returncode == 2
    message = p.stderr.strip().removeprefix("wirespeed: ").removeprefix("error: ")
    assert str(bad) in message
    with pytest.raises(ValueError) as e:
        wirespeed.classify(corpus / "reddit.pcap", rules=bad)
    assert message in str(e.value)
    assert str(e.value).startswith("rules: ")


def test_a_missing_rules_file_is_an_oserror_naming_it(corpus, tmp_path):
    with pytest.raises(FileNotFoundError) as e:
        wirespeed.classify(corpus / "reddit.pcap", hosts=tmp_path / "none.csv")
    assert e.value.filename == str(tmp_path / "none.csv")


def test_an_unknown_option_is_a_typeerror_naming_it(corpus):
    with pytest.raises(TypeError, match="community_ids"):
        wirespeed.classify(corpus / "reddit.pcap", community_ids=True)
    with pytest.raises(TypeError):
        wirespeed.classify(corpus / "reddit.pcap", 2)  # options are keyword-only


@pytest.mark.parametrize(
    "kwargs, name",
    [
        (dict(workers="2"), "workers"),
        (dict(workers=2.0), "workers"),
        (dict(max_flows=True), "max_flows"),
        (dict(community_id=1), "community_id"),
        (dict(features="yes"), "features"),
        (dict(tcp_timeout="30"), "tcp_timeout"),
        (dict(stats=7), "stats"),
        (dict(stats=["dist", 3]), "stats"),
        (dict(rules=3), "rules"),
        (dict(classifiers=None), "classifiers"),
    ],
)
def test_a_wrong_type_is_a_typeerror_naming_the_option(corpus, kwargs, name):
    with pytest.raises(TypeError, match=name):
        wirespeed.classify(corpus / "reddit.pcap", **kwargs)


@pytest.mark.parametrize(
    "kwargs, name",
    [
        (dict(workers=0), "workers"),
        (dict(workers=-1), "workers"),
        (dict(workers=1000), "workers"),
        (dict(max_flows=0), "max_flows"),
        (dict(max_flows=1 << 40), "max_flows"),
        (dict(tcp_timeout=0), "tcp_timeout"),
        (dict(udp_timeout=-5), "udp_timeout"),
        (dict(active_timeout=math.nan), "active_timeout"),
        (dict(stats=["dist", "bogus"]), "stats"),
        (dict(classifiers="port,bogus"), "classifiers"),
        (dict(classifiers=[]), "classifiers"),
    ],
)
def test_a_bad_value_is_a_valueerror_naming_the_option(corpus, kwargs, name):
    with pytest.raises(ValueError, match=name):
        wirespeed.classify(corpus / "reddit.pcap", **kwargs)


def test_a_wrong_source_is_a_typeerror_and_an_empty_one_a_valueerror():
    with pytest.raises(TypeError, match="source"):
        wirespeed.classify(42)
    with pytest.raises(ValueError, match="source"):
        wirespeed.classify([])


# --- options change what they should ------------------------------------------------------


def test_options_add_their_columns(corpus):
    p = corpus / "reddit.pcap"
    base = set(classify(p).column_names)
    assert "community_id" not in base and "c2s_ps_min" not in base
    cid = classify(p, community_id=True)
    assert set(cid.column_names) - base == {"community_id"}
    assert all(v.startswith("1:") for v in cid.column("community_id").to_pylist())
    dist = set(classify(p, stats=["dist"]).column_names) - base
    assert {"c2s_ps_min", "c2s_ps_mean", "s2c_piat_max_us"} <= dist
    assert not any(n.startswith("c2s_retrans") for n in dist)
    tcp = set(classify(p, stats=["tcp"]).column_names) - base
    assert {"c2s_retrans", "conn_state", "history"} <= tcp
    assert set(classify(p, stats=["entropy"]).column_names) == base
    feats = set(classify(p, features=True).column_names) - base
    assert {"splt_ip", "splt_payload", "splt_iat_us", "splt_flags"} <= feats


def test_classifiers_none_names_nothing(corpus):
    t = classify(corpus / "reddit.pcap", classifiers="none")
    assert set(t.column("app").to_pylist()) == {"Unknown"}
    assert set(wirespeed.classifiers()) >= {"port", "dpi", "stats"}


def test_a_short_udp_timeout_splits_flows(corpus):
    p = corpus / "quic.pcap"
    assert classify(p, udp_timeout=0.001).num_rows > classify(p).num_rows


def test_help_explains_classify():
    doc = wirespeed.classify.__doc__
    for word in ("source", "workers", "community_id", "stats", "CaptureWarning", "OSError", "to_pandas"):
        assert word in doc, word
    stub = Path(wirespeed.__file__).with_name("__init__.pyi")
    assert stub.exists() and "def classify(" in stub.read_text()
