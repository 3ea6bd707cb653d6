"""wirespeed.nfstream: nfstream's NFStreamer on wirespeed.classify.

Checked against nfstream's documented column list (written out below, from nfstream's NFlow),
against an independent reading of the captures (packets, bytes, times, orientation, the first
packets), against nfstream itself when it is installed, and for its argument errors."""

from __future__ import annotations

import importlib.util
import ipaddress
import math
import os
import struct
import subprocess
import sys
import warnings
from collections import defaultdict

import pytest

pd = pytest.importorskip("pandas")

from wirespeed import nfstream as wnf
from wirespeed.nfstream import NFStreamer

import pcapread
from conftest import REPO, _missing

# nfstream's NFlow columns in its order (nfstream/flow.py, NFlow.__slots__, and its API
# documentation), by the option that makes nfstream write them.
CORE = """id expiration_id src_ip src_mac src_oui src_port dst_ip dst_mac dst_oui dst_port protocol
ip_version vlan_id""".split()
TUNNEL = ["tunnel_id"]
TIMES = [f"{d}_{x}" for d in ("bidirectional", "src2dst", "dst2src")
         for x in ("first_seen_ms", "last_seen_ms", "duration_ms", "packets", "bytes")]
STATS = (
    [f"{d}_{s}_ps" for d in ("bidirectional", "src2dst", "dst2src") for s in ("min", "mean", "stddev", "max")]
    + [f"{d}_{s}_piat_ms" for d in ("bidirectional", "src2dst", "dst2src") for s in ("min", "mean", "stddev", "max")]
    + [f"{d}_{f}_packets" for d in ("bidirectional", "src2dst", "dst2src")
       for f in ("syn", "cwr", "ece", "urg", "ack", "psh", "rst", "fin")]
)
SPLT = ["splt_direction", "splt_ps", "splt_piat_ms"]
L7 = """application_name application_category_name application_is_guessed application_confidence
requested_server_name client_fingerprint server_fingerprint user_agent content_type""".split()
INT_COLUMNS = {"id", "expiration_id", "src_port", "dst_port", "protocol", "ip_version", "vlan_id",
               "tunnel_id", "application_is_guessed", "application_confidence"} | {
    c for c in TIMES} | {c for c in STATS if c.endswith(("_packets", "min_ps", "max_ps"))}

# Ethernet captures of TCP/UDP over IPv4/IPv6 only, no tunnels, fragments or damage (as
# test_classify.SIMPLE): every packet is in a flow, so another reader can check them.
SIMPLE = ["1kxun.pcap", "reddit.pcap", "synscan.pcap", "webex.pcap", "http_ipv6.pcap", "quic.pcap"]
# For the comparison with nfstream: small, varied, one meter's worth each.
NFSTREAM_SET = SIMPLE + ["ssh.pcap", "443-chrome.pcap", "dns-tunnel-iodine.pcap", "bittorrent.pcap"]

HUGE = 10**7  # seconds: no timeout within a capture


def quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def packets(path):
    """Every packet pcapread can place: (key, sender (ip, port), ts µs, wire length, IP length)
    in capture order, key as pcapread's (l4, endpoint, endpoint) with sorted endpoints."""
    data = open(path, "rb").read()
    e = "<" if data[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    nano = data[:4] in (b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\x3c\x4d")
    out, at = [], 24
    while at + 16 <= len(data):
        sec, frac, incl, orig = struct.unpack(e + "IIII", data[at : at + 16])
        frame = data[at + 16 : at + 16 + incl]
        at += 16 + incl
        key = pcapread._key(frame)
        if key is None:
            continue
        off = 14
        et = struct.unpack(">H", frame[12:14])[0]
        while et == 0x8100:
            et = struct.unpack(">H", frame[off + 2 : off + 4])[0]
            off += 4
        if et == 0x0800:
            ihl = (frame[off] & 15) * 4
            src = str(ipaddress.ip_address(frame[off + 12 : off + 16]))
            iplen = struct.unpack(">H", frame[off + 2 : off + 4])[0]
            l4 = off + ihl
        else:
            src = str(ipaddress.ip_address(frame[off + 8 : off + 24]))
            iplen = 40 + struct.unpack(">H", frame[off + 4 : off + 6])[0]
            l4 = off + 40
        sport = struct.unpack(">H", frame[l4 : l4 + 2])[0]
        us = sec * 1_000_000 + (frac // 1000 if nano else frac)
        out.append((key, (src, sport), us, orig, iplen))
    return out


def by_key(df):
    """{pcapread key: [rows]} of an nfstream-columns DataFrame."""
    out = defaultdict(list)
    l4 = {6: "TCP", 17: "UDP"}
    for r in df.itertuples(index=False):
        a, b = sorted([(r.src_ip, int(r.src_port)), (r.dst_ip, int(r.dst_port))])
        out[(l4.get(int(r.protocol), str(r.protocol)), a, b)].append(r)
    return out


# --- columns and types -----------------------------------------------------------------------

@pytest.mark.parametrize("opts, expected", [
    ({}, CORE + TUNNEL + TIMES + L7),
    ({"decode_tunnels": False}, CORE + TIMES + L7),
    ({"n_dissections": 0}, CORE + TUNNEL + TIMES),
    ({"statistical_analysis": True, "splt_analysis": 3}, CORE + TUNNEL + TIMES + STATS + SPLT + L7),
    ({"statistical_analysis": True, "splt_analysis": 5, "accounting_mode": 1, "n_dissections": 0},
     CORE + TUNNEL + TIMES + STATS + SPLT),
])
def test_columns_are_nfstreams_in_its_order(corpus, opts, expected):
    assert len(STATS) == 48
    df = quiet(NFStreamer(source=corpus / "webex.pcap", **opts).to_pandas)
    assert list(df.columns) == expected
    assert wnf.columns(**{k: v for k, v in opts.items() if k != "accounting_mode"}) == expected
    assert set(wnf.COLUMNS) == set(CORE + TUNNEL + TIMES + STATS + SPLT + L7)


def test_dtypes(corpus):
    df = quiet(NFStreamer(source=corpus / "webex.pcap", statistical_analysis=True, splt_analysis=5,
                          accounting_mode=1).to_pandas)
    for c in df.columns:
        col = wnf.COLUMNS[c]
        if col.source == wnf.NA:
            assert df[c].isna().all(), c
            continue
        if c in INT_COLUMNS:
            assert df[c].dtype == "int64", (c, df[c].dtype)
        elif col.type == "float":
            assert df[c].dtype == "float64", (c, df[c].dtype)
        elif col.type in ("str", "list"):  # lists as nfstream's CSV text: "[0, 1, -1]"
            assert not pd.api.types.is_numeric_dtype(df[c]), (c, df[c].dtype)
            assert all(isinstance(v, str) for v in df[c].dropna()), c
    assert df.splt_direction.str.match(r"^\[(-?\d+, ){4}-?\d+\]$").all()
    # Iteration: the same values, nfstream's types (lists, "" for an absent name).
    flows = list(quiet(NFStreamer(source=corpus / "webex.pcap", splt_analysis=5, accounting_mode=1).__iter__))
    assert len(flows) == len(df)
    f = flows[0]
    assert f.keys()[:3] == ["id", "expiration_id", "src_ip"]
    assert isinstance(f.splt_ps, list) and len(f.splt_ps) == 5
    assert isinstance(f.requested_server_name, str)
    assert [x.bidirectional_packets for x in flows] == df.bidirectional_packets.tolist()


def test_the_doc_holds_the_mapping():
    doc = (REPO / "docs" / "NFSTREAM.md").read_text()
    assert wnf.mapping_markdown() in doc, "docs/NFSTREAM.md: paste wirespeed.nfstream.mapping_markdown()"


# --- values, against an independent reading of the captures ----------------------------------

@pytest.mark.parametrize("name", SIMPLE)
def test_values_equal_an_independent_reader(corpus, name):
    pkts = packets(corpus / name)
    df = quiet(NFStreamer(source=corpus / name, idle_timeout=HUGE, active_timeout=HUGE,
                          statistical_analysis=True, splt_analysis=5, accounting_mode=1).to_pandas)
    flows = by_key(df)
    per = defaultdict(list)
    for p in pkts:
        per[p[0]].append(p)
    assert set(flows) == set(per)
    checked = 0
    for key, rows in flows.items():
        ps = per[key]
        # the same packets for the key, in all its flows (a new SYN may start another)
        assert sum(r.bidirectional_packets for r in rows) == len(ps), key
        for r in rows:
            assert r.bidirectional_packets == r.src2dst_packets + r.dst2src_packets
            assert r.bidirectional_bytes == r.src2dst_bytes + r.dst2src_bytes
            assert r.bidirectional_duration_ms == r.bidirectional_last_seen_ms - r.bidirectional_first_seen_ms
            assert r.src2dst_duration_ms == r.src2dst_last_seen_ms - r.src2dst_first_seen_ms
            assert r.src2dst_first_seen_ms == r.bidirectional_first_seen_ms
            assert r.bidirectional_syn_packets == r.src2dst_syn_packets + r.dst2src_syn_packets
        if len(rows) != 1:
            continue
        (r,) = rows
        src = ps[0][1]  # nfstream's src: the first packet's sender
        assert (r.src_ip, r.src_port) == src, key
        fwd = [p for p in ps if p[1] == src]
        rev = [p for p in ps if p[1] != src]
        assert (r.src2dst_packets, r.dst2src_packets) == (len(fwd), len(rev))
        assert r.src2dst_bytes == sum(p[4] for p in fwd)  # accounting_mode 1: IP lengths
        assert r.dst2src_bytes == sum(p[4] for p in rev)
        assert r.bidirectional_first_seen_ms == ps[0][2] // 1000
        assert r.bidirectional_last_seen_ms == ps[-1][2] // 1000
        assert r.src2dst_last_seen_ms == fwd[-1][2] // 1000
        if rev and rev[0] in ps[:5]:
            assert r.dst2src_first_seen_ms == rev[0][2] // 1000
            assert r.dst2src_last_seen_ms == rev[-1][2] // 1000
        if not rev:
            assert (r.dst2src_first_seen_ms, r.dst2src_packets, r.dst2src_mean_ps) == (0, 0, 0.0)
        # the 48 statistics that can be checked from the packets
        sizes = [p[4] for p in ps]
        assert (r.bidirectional_min_ps, r.bidirectional_max_ps) == (min(sizes), max(sizes))
        assert r.bidirectional_mean_ps == pytest.approx(sum(sizes) / len(sizes), abs=1e-3)
        if len(sizes) > 1:
            m = sum(sizes) / len(sizes)
            sd = math.sqrt(sum((x - m) ** 2 for x in sizes) / (len(sizes) - 1))
            assert r.bidirectional_stddev_ps == pytest.approx(sd, rel=1e-3, abs=1e-2)
        ms = [p[2] // 1000 for p in ps]
        if len(ms) > 1:
            assert r.bidirectional_mean_piat_ms == pytest.approx((ms[-1] - ms[0]) / (len(ms) - 1))
        # the first packets
        first5 = ps[:5]
        want_dir = [0 if p[1] == src else 1 for p in first5] + [-1] * (5 - len(first5))
        want_ps = [p[4] for p in first5] + [-1] * (5 - len(first5))
        want_piat = [0] + [ms[i] - ms[i - 1] for i in range(1, len(first5))] + [-1] * (5 - len(first5))
        assert r.splt_direction == str(want_dir)
        assert r.splt_ps == str(want_ps)
        assert r.splt_piat_ms == str(want_piat)
        checked += 1
    assert checked > 0


def test_accounting_mode_0_counts_wire_bytes(corpus):
    name = "reddit.pcap"
    want, _ = pcapread.flows(corpus / name)
    df = quiet(NFStreamer(source=corpus / name, idle_timeout=HUGE, active_timeout=HUGE,
                          statistical_analysis=True).to_pandas)
    got = defaultdict(lambda: [0, 0])
    for key, rows in by_key(df).items():
        for r in rows:
            got[key][0] += r.bidirectional_packets
            got[key][1] += r.bidirectional_bytes
            assert r.bidirectional_mean_ps == pytest.approx(r.bidirectional_bytes / r.bidirectional_packets)
    assert {k: list(v) for k, v in got.items()} == {k: list(v) for k, v in want.items()}
    # what wirespeed cannot give in this mode is null, not made up
    assert df.bidirectional_min_ps.isna().all() and df.src2dst_stddev_ps.isna().all()


def test_active_timeout_parts_add_up_to_the_flow(corpus):
    name = "ssh.pcap"  # an SSH session of several minutes
    whole = quiet(NFStreamer(source=corpus / name, idle_timeout=HUGE, active_timeout=HUGE).to_pandas)
    parts = quiet(NFStreamer(source=corpus / name, idle_timeout=HUGE, active_timeout=30).to_pandas)
    assert (parts.expiration_id == 1).any() and set(parts.expiration_id) <= {0, 1}
    assert len(parts) > len(whole)
    # each interim row is followed by a later part, whose first packet no record holds: null
    assert parts.bidirectional_first_seen_ms.isna().sum() == (parts.expiration_id == 1).sum()
    for cols in (["bidirectional_packets", "src2dst_packets", "dst2src_packets", "bidirectional_bytes"],):
        assert parts[cols].sum().tolist() == whole[cols].sum().tolist()
    # each part's last packet is within the flow and the parts are in time order per flow
    key = ["src_ip", "src_port", "dst_ip", "dst_port", "protocol"]
    for _, g in parts.groupby(key):
        assert g.bidirectional_last_seen_ms.is_monotonic_increasing


def test_the_notebook_example_runs(corpus):
    p = subprocess.run([sys.executable, str(REPO / "docs" / "notebook.py"), str(corpus / "1kxun.pcap")],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]
    assert "same rows and packets" in p.stdout


def test_to_csv(corpus, tmp_path):
    out = tmp_path / "flows.csv"
    n = quiet(NFStreamer(source=corpus / "webex.pcap").to_csv, str(out))
    back = pd.read_csv(out)
    assert n == len(back) > 0
    assert list(back.columns) == CORE + TUNNEL + TIMES + L7


def test_anonymized_columns_keep_equality(corpus):
    df = quiet(NFStreamer(source=corpus / "webex.pcap").to_pandas, columns_to_anonymize=["src_ip"])
    plain = quiet(NFStreamer(source=corpus / "webex.pcap").to_pandas)
    assert (df.src_ip.str.len() == 128).all()
    assert df.src_ip.nunique() == plain.src_ip.nunique()


# --- against nfstream itself ---------------------------------------------------------------------

@pytest.fixture(scope="session")
def real_nfstream():
    if importlib.util.find_spec("nfstream") is None:
        _missing("nfstream is not installed (pip install nfstream)")
    import nfstream

    return nfstream


@pytest.mark.parametrize("name", NFSTREAM_SET)
def test_the_same_flows_and_counters_as_nfstream(corpus, real_nfstream, name):
    opts = dict(statistical_analysis=True, splt_analysis=5)
    theirs = quiet(real_nfstream.NFStreamer(source=str(corpus / name), n_meters=1, **opts).to_pandas)
    ours = quiet(NFStreamer(source=corpus / name, **opts).to_pandas)
    assert list(ours.columns) == list(theirs.columns)
    key = ["protocol", "src_ip", "src_port", "dst_ip", "dst_port", "bidirectional_first_seen_ms"]
    a = theirs.set_index(key).sort_index()
    b = ours.set_index(key).sort_index()
    assert a.index.equals(b.index), (set(a.index) ^ set(b.index))
    exact = ["bidirectional_last_seen_ms", "bidirectional_duration_ms"] + [
        f"{d}_{x}" for d in ("bidirectional", "src2dst", "dst2src") for x in ("packets", "bytes")] + [
        "src2dst_first_seen_ms", "bidirectional_mean_ps", "bidirectional_mean_piat_ms", "splt_direction",
        "splt_piat_ms"] + [c for c in STATS if c.endswith("_packets")]
    for c in exact:
        if a[c].dtype == "float64":  # the same value, summed in another order
            assert a[c].to_numpy() == pytest.approx(b[c].to_numpy(), rel=1e-9), c
        else:
            assert a[c].tolist() == b[c].tolist(), c
    # per-direction gaps: nfstream subtracts ms-truncated times, wirespeed keeps µs: within 1 ms
    for c in ("src2dst_max_piat_ms", "dst2src_max_piat_ms", "src2dst_min_piat_ms", "dst2src_min_piat_ms"):
        assert ((a[c] - b[c]).abs() <= 1).all(), c
    known = b.dst2src_first_seen_ms.notna()
    assert (a.dst2src_first_seen_ms[known] == b.dst2src_first_seen_ms[known]).all()


# --- arguments -----------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, error, name", [
    ({"bpf_filter": "tcp"}, ValueError, "bpf_filter"),
    ({"bpf_filter": 3}, TypeError, "bpf_filter"),
    ({"accounting_mode": 2}, ValueError, "accounting_mode"),
    ({"accounting_mode": 7}, ValueError, "accounting_mode"),
    ({"splt_analysis": 6}, ValueError, "splt_analysis"),
    ({"idle_timeout": "120"}, TypeError, "idle_timeout"),
    ({"idle_timeout": 0}, ValueError, "idle_timeout"),
    ({"active_timeout": 1.5}, TypeError, "active_timeout"),
    ({"n_dissections": 300}, ValueError, "n_dissections"),
    ({"decode_tunnels": 1}, TypeError, "decode_tunnels"),
    ({"statistical_analysis": "yes"}, TypeError, "statistical_analysis"),
    ({"n_meters": -1}, ValueError, "n_meters"),
    ({"udps": [object()]}, NotImplementedError, "udps"),
])
def test_argument_errors_name_the_argument(corpus, kwargs, error, name):
    with pytest.raises(error, match=name):
        NFStreamer(source=corpus / "webex.pcap", **kwargs)


def test_sources(corpus, tmp_path):
    with pytest.raises(ValueError, match="source"):
        NFStreamer(source=tmp_path / "missing.pcap")
    with pytest.raises(TypeError, match="source"):
        NFStreamer(source=3)
    with pytest.raises(ValueError, match="source"):
        NFStreamer(source=[])
    if os.path.isdir("/sys/class/net/lo"):
        with pytest.raises(NotImplementedError, match="interface"):
            NFStreamer(source="lo")
    # meaningless for files, accepted as nfstream does
    NFStreamer(source=corpus / "webex.pcap", promiscuous_mode=False, snapshot_length=64,
               performance_report=5, socket_buffer_size=1 << 20)
    two = quiet(NFStreamer(source=[corpus / "webex.pcap", corpus / "quic.pcap"]).to_pandas)
    one = [quiet(NFStreamer(source=corpus / n).to_pandas) for n in ("webex.pcap", "quic.pcap")]
    assert len(two) == sum(len(d) for d in one)
    assert len(quiet(NFStreamer(source=corpus / "webex.pcap", max_nflows=3).to_pandas)) == 3
