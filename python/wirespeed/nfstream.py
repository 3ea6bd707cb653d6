"""nfstream's ``NFStreamer`` on top of :func:`wirespeed.classify`, for notebooks written for nfstream.

>>> from wirespeed.nfstream import NFStreamer       # was: from nfstream import NFStreamer
>>> df = NFStreamer(source="trace.pcap").to_pandas()  # doctest: +SKIP

The rows have nfstream's columns, named, ordered and typed as nfstream's ``NFlow`` names them
(``id``, ``expiration_id``, ``src_ip``, ..., ``bidirectional_first_seen_ms``, ...,
``application_name``, ...), computed from wirespeed's records with ``pyarrow.compute`` (no loop
over rows; nfstream itself is not imported). A column wirespeed has no equivalent for is present
and null (NaN in pandas). :data:`COLUMNS` is the mapping as data: for each nfstream column, the
wirespeed column or formula it is computed from (or why it is not available); docs/NFSTREAM.md
holds the same table, written by :func:`mapping_markdown`.

What differs from nfstream (docs/NFSTREAM.md says more):

* Flow splitting. ``active_timeout``: nfstream ends a flow open that long and starts a new one
  with the next packet; wirespeed writes cumulative interim records with the same ``flow_id``.
  Here each interim record becomes a row of its own with ``expiration_id`` 1 and the packets and
  bytes since the previous row (nfstream's counters); what cannot be split (the first-seen times
  of the later parts, their statistics) is null in those rows, and each part keeps the flow's
  label (nfstream dissects each part afresh). wirespeed's later interims are anchored at the
  flow's first packet (every ``active_timeout`` seconds), nfstream's at the packet that began the
  part, so the later cut points can differ. A TCP flow also ends on FIN or RST in wirespeed
  (``closed_timeout``, here the idle timeout), and a new SYN after it starts a new flow.
* Orientation: ``src`` is the sender of the flow's first packet, as in nfstream (wirespeed's
  client is the SYN's sender; the sign of the first ``splt_ip`` entry tells which it was).
* Labels: ``application_name`` is wirespeed's ``proto`` (nDPI's ``MASTER.APP`` names), decided by
  wirespeed's classifiers, not nDPI; ``application_is_guessed`` is 1 when a method other than
  payload inspection decided (port, address, caches, statistics).
"""

from __future__ import annotations

import os
import warnings
from collections import namedtuple
import secrets
from hashlib import blake2b
from typing import TYPE_CHECKING, Any, Iterator, Optional

import wirespeed

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc


def _load() -> None:
    """numpy and pyarrow, imported when the first table is converted rather than with this
    module: numpy's OpenBLAS threads spin on every core for ~0.1 s after it loads, and the run
    that follows the import would share the cores with them (see `wirespeed._pa`)."""
    global np, pa, pc
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

__all__ = ["NFStreamer", "NFlow", "COLUMNS", "ARGUMENTS", "columns", "mapping_markdown"]

# --------------------------------------------------------------------------------------------
# The mapping, as data: nfstream column -> (group, wirespeed column or formula, note).
# ``group`` says when nfstream writes the column: "core" always, "tunnel" with decode_tunnels,
# "stats" with statistical_analysis, "splt" with splt_analysis > 0, "l7" with n_dissections > 0.
# "not available" in ``source`` means the column is null in every row.
# --------------------------------------------------------------------------------------------

Column = namedtuple("Column", ["group", "type", "source", "note"])

NA = "not available"
_SW = "src is the first packet's sender: `swap` = first `splt_ip` entry < 0 (the server sent first)"

COLUMNS: dict[str, Column] = {
    "id": Column("core", "int", "row number (0, 1, ...) in `flow_id` order", "nfstream numbers flows in the order they expire"),
    "expiration_id": Column("core", "int", "1 where `end_reason == \"active\"`, else 0", "nfstream: 0 idle (and end of capture), 1 active timeout"),
    "src_ip": Column("core", "str", "`src_ip`, or `dst_ip` when `swap`", _SW),
    "src_mac": Column("core", "str", NA, "wirespeed's records keep no link-layer address"),
    "src_oui": Column("core", "str", NA, "as `src_mac`"),
    "src_port": Column("core", "int", "`src_port`, or `dst_port` when `swap`", ""),
    "dst_ip": Column("core", "str", "`dst_ip`, or `src_ip` when `swap`", ""),
    "dst_mac": Column("core", "str", NA, "as `src_mac`"),
    "dst_oui": Column("core", "str", NA, "as `src_mac`"),
    "dst_port": Column("core", "int", "`dst_port`, or `src_port` when `swap`", ""),
    "protocol": Column("core", "int", "`ip_proto`", ""),
    "ip_version": Column("core", "int", "6 when `src_ip` holds `:`, else 4", ""),
    "vlan_id": Column("core", "int", "`vlan`", "the innermost 802.1Q tag, as nfstream"),
    "tunnel_id": Column("core+tunnel", "int", "`tunnel`: `GTP-U` 1, `CAPWAP` 2, `TZSP` 3, none or any other 0", "nfstream decodes only GTP-U, CAPWAP and TZSP (and IP-in-IP, as tunnel 0); wirespeed also GRE, VXLAN, Teredo, ... whose inner flows get 0 here"),
    "bidirectional_first_seen_ms": Column("core", "int", "`first_ts` in µs // 1000", "nfstream's clock is the packet time truncated to ms"),
    "bidirectional_last_seen_ms": Column("core", "int", "`last_ts` in µs // 1000", ""),
    "bidirectional_duration_ms": Column("core", "int", "last_seen_ms − first_seen_ms", ""),
    "bidirectional_packets": Column("core", "int", "`c2s_pkts + s2c_pkts`", ""),
    "bidirectional_bytes": Column("core", "int", "`c2s_bytes + s2c_bytes` (accounting_mode 0); round(mean IP length × packets) for accounting_mode 1", "mode 1 is exact below 1,000 packets a direction (the mean is written with 3 decimals)"),
    "src2dst_first_seen_ms": Column("core", "int", "= bidirectional_first_seen_ms", "src sent the first packet, by nfstream's definition"),
    "src2dst_last_seen_ms": Column("core", "int", "(`first_ts` + src's `*_piat_mean_us` × (packets − 1)) // 1000; first_seen when one packet", "the mean gap telescopes to (last − first) / (n − 1)"),
    "src2dst_duration_ms": Column("core", "int", "src2dst_last_seen_ms − src2dst_first_seen_ms", ""),
    "src2dst_packets": Column("core", "int", "`c2s_pkts`, or `s2c_pkts` when `swap`", ""),
    "src2dst_bytes": Column("core", "int", "`c2s_bytes`, or `s2c_bytes` when `swap` (accounting_mode 1: from the mean IP length)", ""),
    "dst2src_first_seen_ms": Column("core", "int", "`first_ts` + the `splt_iat_us` sum up to dst's first packet among the first five, // 1000; 0 without dst packets", "null when dst's first packet is not among the flow's first five"),
    "dst2src_last_seen_ms": Column("core", "int", "dst2src_first_seen + dst's `*_piat_mean_us` × (packets − 1), // 1000; 0 without dst packets", "null where dst2src_first_seen_ms is"),
    "dst2src_duration_ms": Column("core", "int", "dst2src_last_seen_ms − dst2src_first_seen_ms", ""),
    "dst2src_packets": Column("core", "int", "`s2c_pkts`, or `c2s_pkts` when `swap`", ""),
    "dst2src_bytes": Column("core", "int", "`s2c_bytes`, or `c2s_bytes` when `swap`", ""),
}

_dir_ps = {}
for _d, _w in (("src2dst", "src's"), ("dst2src", "dst's")):
    _dir_ps[f"{_d}_min_ps"] = Column("stats", "int", f"accounting_mode 1: {_w} `*_ps_min`", "accounting_mode 0: not available (wirespeed keeps IP lengths, not frame lengths)")
    _dir_ps[f"{_d}_mean_ps"] = Column("stats", "float", f"mode 0: {_w} bytes / packets; mode 1: {_w} `*_ps_mean`", "0.0 without packets, as nfstream")
    _dir_ps[f"{_d}_stddev_ps"] = Column("stats", "float", f"mode 1: {_w} `*_ps_std` × √(n / (n − 1)) (sample deviation); 0 when n ≤ 1", "mode 0: not available")
    _dir_ps[f"{_d}_max_ps"] = Column("stats", "int", f"mode 1: {_w} `*_ps_max`", "mode 0: not available")
_bidi_ps = {
    "bidirectional_min_ps": Column("stats", "int", "mode 1: min of the two directions' `*_ps_min`", "mode 0: not available"),
    "bidirectional_mean_ps": Column("stats", "float", "mode 0: bidirectional_bytes / packets; mode 1: the two means weighted by packets", ""),
    "bidirectional_stddev_ps": Column("stats", "float", "mode 1: pooled from the two directions' n, mean and population deviation, as a sample deviation", "mode 0: not available"),
    "bidirectional_max_ps": Column("stats", "int", "mode 1: max of the two directions' `*_ps_max`", "mode 0: not available"),
}
_bidi_piat = {
    "bidirectional_min_piat_ms": Column("stats", "int", NA, "the gaps between packets of both directions are not kept (only per direction)"),
    "bidirectional_mean_piat_ms": Column("stats", "float", "bidirectional_duration_ms / (packets − 1); 0 with one packet", "the mean of the gaps telescopes"),
    "bidirectional_stddev_piat_ms": Column("stats", "float", NA, "as bidirectional_min_piat_ms"),
    "bidirectional_max_piat_ms": Column("stats", "int", NA, "as bidirectional_min_piat_ms"),
}
_dir_piat = {}
for _d, _w in (("src2dst", "src's"), ("dst2src", "dst's")):
    _dir_piat[f"{_d}_min_piat_ms"] = Column("stats", "int", f"round({_w} `*_piat_min_us` / 1000); 0 with fewer than 2 packets", "nfstream subtracts ms-truncated times: within 1 ms")
    _dir_piat[f"{_d}_mean_piat_ms"] = Column("stats", "float", f"{_d}_duration_ms / (packets − 1) where known, else {_w} `*_piat_mean_us` / 1000", "")
    _dir_piat[f"{_d}_stddev_piat_ms"] = Column("stats", "float", f"{_w} `*_piat_std_us` / 1000 × √(k / (k − 1)), k = packets − 1 gaps; 0 when k ≤ 1", "sample deviation, as nfstream")
    _dir_piat[f"{_d}_max_piat_ms"] = Column("stats", "int", f"round({_w} `*_piat_max_us` / 1000)", "within 1 ms")
_flags = {}
for _f in ("syn", "cwr", "ece", "urg", "ack", "psh", "rst", "fin"):
    _flags[f"bidirectional_{_f}_packets"] = Column("stats", "int", f"`c2s_{_f} + s2c_{_f}`", "")
for _d, _w in (("src2dst", "src's"), ("dst2src", "dst's")):
    for _f in ("syn", "cwr", "ece", "urg", "ack", "psh", "rst", "fin"):
        _flags[f"{_d}_{_f}_packets"] = Column("stats", "int", f"{_w} `*_{_f}`", "")

# nfstream's order (NFlow.__slots__): bidirectional, src2dst, dst2src for each family.
_stats_order = (
    ["bidirectional_min_ps", "bidirectional_mean_ps", "bidirectional_stddev_ps", "bidirectional_max_ps"]
    + [f"{d}_{s}_ps" for d in ("src2dst", "dst2src") for s in ("min", "mean", "stddev", "max")]
    + ["bidirectional_min_piat_ms", "bidirectional_mean_piat_ms", "bidirectional_stddev_piat_ms", "bidirectional_max_piat_ms"]
    + [f"{d}_{s}_piat_ms" for d in ("src2dst", "dst2src") for s in ("min", "mean", "stddev", "max")]
    + [f"{d}_{f}_packets" for d in ("bidirectional", "src2dst", "dst2src") for f in ("syn", "cwr", "ece", "urg", "ack", "psh", "rst", "fin")]
)
_all_stats = {**_dir_ps, **_bidi_ps, **_bidi_piat, **_dir_piat, **_flags}
for _name in _stats_order:
    COLUMNS[_name] = _all_stats[_name]
del _all_stats

COLUMNS.update({
    "splt_direction": Column("splt", "list", "sign of each `splt_ip` entry: 0 same as the first, 1 opposite; −1 past the flow's packets", "wirespeed keeps the first 5 packets: splt_analysis ≤ 5"),
    "splt_ps": Column("splt", "list", "accounting_mode 1: \\|`splt_ip`\\|; −1 past the flow's packets", "accounting_mode 0: not available (null)"),
    "splt_piat_ms": Column("splt", "list", "differences of the ms-truncated packet times `first_ts` + cumulative `splt_iat_us`; first 0; −1 past", "exact"),
    "application_name": Column("l7", "str", "`proto` (nDPI's `MASTER.APP` form; `Unknown`)", "wirespeed's classifiers, not nDPI"),
    "application_category_name": Column("l7", "str", "`category`", ""),
    "application_is_guessed": Column("l7", "int", "1 when `method` is set and is not `dpi`, else 0", "nDPI marks port, address and cache verdicts guessed; Unknown is 0"),
    "application_confidence": Column("l7", "int", "nDPI's ndpi_confidence_t of `method`: dpi 6, port 1, ip 7, dns-cache and host-cache 5 (DPI cache), dpt 1, stats 8 (aggressive), none 0", "an analogy: wirespeed's methods are not nDPI's"),
    "requested_server_name": Column("l7", "str", "first of `sni`, `http_host`, `dns_query`, `dhcp_host`, in lower case (as nDPI)", "null where nfstream writes an empty string (its to_pandas reads it as NaN)"),
    "client_fingerprint": Column("l7", "str", "`ja4` (nfstream 6.6's nDPI writes JA4 for TLS and QUIC), else `hassh` in upper case (as nfstream writes HASSH)", "DHCP fingerprints (option 55): not available"),
    "server_fingerprint": Column("l7", "str", NA, "wirespeed computes no JA3S and no server HASSH"),
    "user_agent": Column("l7", "str", "`user_agent`", "HTTP; whole up to 200 bytes (nfstream's is cut at 128 characters); QUIC's user agent id is not extracted"),
    "content_type": Column("l7", "str", "`http_content_type` up to its first `;` (the media type, without parameters, as nDPI keeps it)", "the first response's"),
})

# The arguments of nfstream's NFStreamer and what each becomes.
ARGUMENTS: dict[str, str] = {
    "source": "a capture file, a list of them (each its own capture: flows do not continue across files as in nfstream), or a directory; a network interface: NotImplementedError",
    "decode_tunnels": "`tunnels` (wirespeed decodes GRE, VXLAN, Teredo, ... too, not only GTP-U, CAPWAP, TZSP)",
    "bpf_filter": "None only; a filter: ValueError (classify has no packet filter)",
    "promiscuous_mode": "accepted, no effect on files (as in nfstream)",
    "snapshot_length": "accepted, no effect on files",
    "socket_buffer_size": "accepted, no effect on files",
    "idle_timeout": "`tcp_timeout`, `udp_timeout`, `other_timeout` and `closed_timeout` (seconds, > 0)",
    "active_timeout": "`active_timeout` (interim records become rows: see above)",
    "accounting_mode": "0 (link layer: exact bytes) and 1 (IP layer: sizes from the IP lengths); 2 and 3: ValueError",
    "udps": "None only; plugins: NotImplementedError (no per-packet Python callbacks)",
    "n_dissections": "0: `classifiers=\"none\"` and no L7 columns; 1 to 255: all classifiers (wirespeed's own inspection budget, 8 payload packets a direction, not this number)",
    "statistical_analysis": "`stats=[\"dist\"]` columns, as the 48 post-mortem features",
    "splt_analysis": "0 to 5: the first N of `splt_*` (`features=True`); more: ValueError",
    "n_meters": "`workers` (0: wirespeed's default, every core)",
    "max_nflows": "the first N rows (0: all)",
    "performance_report": "accepted, no effect on files (as in nfstream)",
    "system_visibility_mode": "0; 1 is switched to 0 on files, as nfstream does",
    "system_visibility_poll_ms": "accepted, no effect",
}

_L7_EMPTY_STR = ("application_name", "application_category_name", "requested_server_name",
                 "client_fingerprint", "server_fingerprint", "user_agent", "content_type")


def columns(decode_tunnels: bool = True, statistical_analysis: bool = False,
            splt_analysis: int = 0, n_dissections: int = 20) -> list[str]:
    """The column names nfstream writes with these options, in its order."""
    out = []
    for name, col in COLUMNS.items():
        if col.group == "core+tunnel" and not decode_tunnels:
            continue
        if col.group == "stats" and not statistical_analysis:
            continue
        if col.group == "splt" and not splt_analysis:
            continue
        if col.group == "l7" and not n_dissections:
            continue
        out.append(name)
    # nfstream: splt_* come before the L7 columns (NFlow.__slots__), as here.
    return out


def mapping_markdown() -> str:
    """The column mapping as a Markdown table (docs/NFSTREAM.md holds this text)."""
    lines = ["| nfstream column | type | when | wirespeed column or formula | note |",
             "|---|---|---|---|---|"]
    when = {"core": "always", "core+tunnel": "decode_tunnels", "stats": "statistical_analysis",
            "splt": "splt_analysis > 0", "l7": "n_dissections > 0"}
    for name, c in COLUMNS.items():
        lines.append(f"| `{name}` | {c.type} | {when[c.group]} | {c.source} | {c.note} |")
    lines += ["", "| nfstream argument | wirespeed |", "|---|---|"]
    for name, text in ARGUMENTS.items():
        lines.append(f"| `{name}` | {text} |")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------------

def _check_int(value: Any, name: str, lo: int, hi: Optional[int] = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    if value < lo or (hi is not None and value > hi):
        rng = f">= {lo}" if hi is None else f"in [{lo}, {hi}]"
        raise ValueError(f"{name} must be {rng} (got {value})")
    return value


def _check_bool(value: Any, name: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be True or False, not {type(value).__name__}")
    return value


def _is_interface(name: str) -> bool:
    return os.path.sep not in name and os.path.isdir(os.path.join("/sys/class/net", name))


def _sources(source: Any) -> list[str]:
    if isinstance(source, (list, tuple)):
        if not source:
            raise ValueError("source: an empty list")
        items = list(source)
    else:
        items = [source]
    out = []
    for s in items:
        if not isinstance(s, (str, os.PathLike)):
            raise TypeError(f"source must be a capture path or a list of them, not {type(s).__name__}")
        p = os.fspath(s)
        if not isinstance(p, str):
            raise TypeError("source must be a str path")
        if not os.path.exists(p):
            if _is_interface(p):
                raise NotImplementedError(
                    f"source={p!r} is a network interface: live capture is not supported by "
                    "wirespeed.nfstream (use the `wirespeed live` command)")
            raise ValueError(f"source: {p!r} is neither a capture file nor a network interface")
        out.append(p)
    return out


class NFlow:
    """One flow, nfstream's ``NFlow`` attributes (the columns) as attributes."""

    __slots__ = ("_names", "__dict__")

    def __init__(self, names: list[str], values: list):
        self._names = names
        for n, v in zip(names, values):
            setattr(self, n, v)

    def keys(self) -> list[str]:
        return list(self._names)

    def values(self) -> list:
        return [getattr(self, n) for n in self._names]

    def __repr__(self) -> str:
        inner = ",\n      ".join(f"{n}={getattr(self, n)}" for n in self._names)
        return f"NFlow({inner})"

    __str__ = __repr__


class NFStreamer:
    """nfstream's ``NFStreamer`` for capture files, on :func:`wirespeed.classify`.

    The arguments are nfstream's (:data:`ARGUMENTS` says what each becomes); ``to_pandas()``,
    ``to_csv(path)`` and iteration give nfstream's columns (:data:`COLUMNS`).
    """

    def __init__(self, source=None, decode_tunnels=True, bpf_filter=None, promiscuous_mode=True,
                 snapshot_length=1536, socket_buffer_size=0, idle_timeout=120, active_timeout=1800,
                 accounting_mode=0, udps=None, n_dissections=20, statistical_analysis=False,
                 splt_analysis=0, n_meters=0, max_nflows=0, performance_report=0,
                 system_visibility_mode=0, system_visibility_poll_ms=100):
        if source is None:
            raise ValueError("source: a capture file path is needed")
        self.source = source
        self._paths = _sources(source)
        self.decode_tunnels = _check_bool(decode_tunnels, "decode_tunnels")
        if bpf_filter is not None:
            if not isinstance(bpf_filter, str):
                raise TypeError(f"bpf_filter must be a str or None, not {type(bpf_filter).__name__}")
            raise ValueError(
                "bpf_filter cannot be honoured: wirespeed.classify has no packet filter "
                "(filter the capture first, e.g. tcpdump -r in.pcap -w out.pcap 'FILTER')")
        self.bpf_filter = None
        self.promiscuous_mode = _check_bool(promiscuous_mode, "promiscuous_mode")
        self.snapshot_length = _check_int(snapshot_length, "snapshot_length", 1)
        self.socket_buffer_size = _check_int(socket_buffer_size, "socket_buffer_size", 0, 2**31 - 1)
        self.idle_timeout = _check_int(idle_timeout, "idle_timeout", 1)
        self.active_timeout = _check_int(active_timeout, "active_timeout", 1)
        self.accounting_mode = _check_int(accounting_mode, "accounting_mode", 0, 3)
        if self.accounting_mode > 1:
            raise ValueError(
                f"accounting_mode={accounting_mode} ({'transport' if accounting_mode == 2 else 'payload'} "
                "layer sizes) cannot be honoured: wirespeed's records hold frame and IP lengths "
                "only (accounting_mode 0 or 1)")
        if udps is not None and udps != () and udps != []:
            raise NotImplementedError(
                "udps: nfstream plugins (NFPlugin) need per-packet Python callbacks, which "
                "wirespeed.nfstream does not run")
        self.udps = ()
        self.n_dissections = _check_int(n_dissections, "n_dissections", 0, 255)
        self.statistical_analysis = _check_bool(statistical_analysis, "statistical_analysis")
        self.splt_analysis = _check_int(splt_analysis, "splt_analysis", 0, 65535)
        if self.splt_analysis > 5:
            raise ValueError(
                f"splt_analysis={splt_analysis} cannot be honoured: wirespeed keeps the first "
                "5 packets of a flow (splt_analysis 0 to 5)")
        self.n_meters = _check_int(n_meters, "n_meters", 0)
        self.max_nflows = _check_int(max_nflows, "max_nflows", 0)
        self.performance_report = _check_int(performance_report, "performance_report", 0)
        self.system_visibility_mode = _check_int(system_visibility_mode, "system_visibility_mode", 0, 1)
        if self.system_visibility_mode:
            warnings.warn("system_visibility_mode switched to 0 in offline capture "
                          "(available only for live capture)", stacklevel=2)
            self.system_visibility_mode = 0
        self.system_visibility_poll_ms = _check_int(system_visibility_poll_ms, "system_visibility_poll_ms", 0)

    # ---- the engine ---------------------------------------------------------------------
    def _classify(self) -> pa.Table:
        idle = float(self.idle_timeout)
        return wirespeed.classify(
            self._paths,
            workers=self.n_meters or None,
            classifiers="all" if self.n_dissections else "none",
            tcp_timeout=idle, udp_timeout=idle, other_timeout=idle, closed_timeout=idle,
            active_timeout=float(self.active_timeout),
            stats=["dist"], features=True, tunnels=self.decode_tunnels,
        )

    def to_arrow(self) -> pa.Table:
        """nfstream's columns as a ``pyarrow.Table`` (what ``to_pandas`` converts)."""
        t = _convert(self._classify(), self)
        if self.max_nflows:
            t = t.slice(0, self.max_nflows)
        return t

    # ---- nfstream's methods ---------------------------------------------------------------
    def to_pandas(self, columns_to_anonymize=()):
        """The flows as a pandas DataFrame (None when there is none, as nfstream). ``splt_*``
        are strings like ``"[0, 1, -1]"``, as nfstream's CSV round trip gives them."""
        t = self.to_arrow()
        if t.num_rows == 0:
            return None
        t = _splt_as_text(t)
        df = t.to_pandas()
        _anonymize(df, columns_to_anonymize)
        return df

    def to_csv(self, path=None, columns_to_anonymize=(), flows_per_file=0, rotate_files=0):
        """Write the flows as CSV (nfstream's default path: the source plus ``.csv``); returns
        the number of flows."""
        _check_int(flows_per_file, "flows_per_file", 0)
        _check_int(rotate_files, "rotate_files", 0)
        if flows_per_file or rotate_files:
            raise NotImplementedError("flows_per_file and rotate_files: write one file (split it with pandas)")
        if path is None:
            path = str(self._paths[0]) + ".csv"
        t = self.to_arrow()
        if t.num_rows == 0:
            open(path, "w").close()
            return 0
        df = _splt_as_text(t).to_pandas()
        _anonymize(df, columns_to_anonymize)
        df.to_csv(path, index=False)
        return len(df)

    def __iter__(self) -> Iterator[NFlow]:
        t = self.to_arrow()
        names = t.column_names
        cols = []
        for n in names:
            values = t.column(n).to_pylist()
            if n in _L7_EMPTY_STR:
                values = ["" if v is None else v for v in values]
            cols.append(values)
        for row in zip(*cols):
            yield NFlow(names, list(row))


def _anonymize(df, columns) -> None:
    _load()
    if isinstance(columns, str):
        raise TypeError("columns_to_anonymize must be a list of column names, not a str")
    columns = list(columns)
    if not columns:
        return
    key = secrets.token_bytes(64)
    for name in columns:
        if name not in df.columns:
            raise ValueError(f"columns_to_anonymize: no column {name!r}")
        codes, uniques = df[name].factorize()  # NaN stays NaN (code -1)
        # one hash a distinct value (few), not a row
        hashed = [blake2b(str(u).encode(), digest_size=64, key=key).hexdigest() for u in uniques]
        out = np.array(hashed + [None], dtype=object)[codes]
        df[name] = out


def _splt_as_text(t: pa.Table) -> pa.Table:
    _load()
    for name in ("splt_direction", "splt_ps", "splt_piat_ms"):
        if name not in t.column_names:
            continue
        col = t.column(name).combine_chunks()
        if col.null_count == len(col):
            t = t.set_column(t.column_names.index(name), name, pa.nulls(len(col), pa.string()))
            continue
        flat = pc.cast(col.values, pa.string())  # offsets index the whole child, nulls too
        lists = pa.ListArray.from_arrays(col.offsets, flat, mask=col.is_null())
        joined = pc.binary_join(lists, ", ")
        text = pc.binary_join_element_wise("[", joined, "]", "")
        t = t.set_column(t.column_names.index(name), name, text)
    return t


# --------------------------------------------------------------------------------------------
# The conversion (vectorised: pyarrow.compute and numpy, no loop over rows).
# --------------------------------------------------------------------------------------------

def _np(col, dtype="float64"):
    _load()
    arr = pc.cast(col, pa.float64()) if dtype == "float64" else col
    return np.asarray(arr.to_numpy(zero_copy_only=False), dtype=dtype)


def _convert(t: pa.Table, s: NFStreamer) -> pa.Table:
    _load()
    n = t.num_rows
    g = lambda name: t.column(name).combine_chunks()  # noqa: E731
    f = lambda name: _np(g(name))  # noqa: E731  (float64, NaN for null)
    out: dict[str, pa.Array] = {}

    def i64(x, valid=None):
        x = np.asarray(x, dtype="float64")
        mask = np.isnan(x) if valid is None else ~valid | np.isnan(x)
        return pa.array(np.where(mask, 0, x).astype("int64"), type=pa.int64(), mask=mask)

    def f64(x, valid=None):
        x = np.asarray(x, dtype="float64")
        mask = np.isnan(x) if valid is None else ~valid | np.isnan(x)
        return pa.array(x, type=pa.float64(), mask=mask)

    def nulls(typ):
        return pa.nulls(n, typ)

    # Orientation: nfstream's src sent the first packet.
    splt_ip = g("splt_ip")
    flat = _np(splt_ip.flatten(), "int64") if n else np.zeros(0, "int64")
    offsets = np.asarray(splt_ip.offsets.to_numpy(), dtype="int64")
    lens = np.diff(offsets)
    first = flat[offsets[:-1]] if n else np.zeros(0, "int64")
    swap = first < 0
    swap_a = pa.array(swap)

    def pick(c2s, s2c):  # (src's, dst's)
        return pc.if_else(swap_a, g(s2c), g(c2s)), pc.if_else(swap_a, g(c2s), g(s2c))

    def pickf(c2s, s2c):
        a, b = f(c2s), f(s2c)
        return np.where(swap, b, a), np.where(swap, a, b)

    # Active timeout: interim records are rows with expiration_id 1; counters become the
    # packets and bytes since the flow's previous row.
    flow_id = _np(g("flow_id"), "uint64")
    end = g("end_reason")
    active = _np(pc.equal(pc.cast(end, pa.string()), "active"), "bool")
    prev_same = np.zeros(n, bool)
    if n > 1:
        prev_same[1:] = (flow_id[1:] == flow_id[:-1]) & active[:-1]
    later_part = prev_same  # a row that continues a flow after an interim record

    def delta(x):
        x = np.asarray(x, dtype="float64")
        d = x.copy()
        d[1:] = np.where(prev_same[1:], x[1:] - x[:-1], x[1:])
        return d

    ipv6 = _np(pc.match_substring(g("src_ip"), ":"), "bool")

    out["id"] = pa.array(np.arange(n, dtype="int64"))
    out["expiration_id"] = pa.array(active.astype("int64"))
    src_ip, dst_ip = pick("src_ip", "dst_ip")
    src_port, dst_port = pick("src_port", "dst_port")
    out["src_ip"] = src_ip
    out["src_mac"] = nulls(pa.string())
    out["src_oui"] = nulls(pa.string())
    out["src_port"] = pc.cast(src_port, pa.int64())
    out["dst_ip"] = dst_ip
    out["dst_mac"] = nulls(pa.string())
    out["dst_oui"] = nulls(pa.string())
    out["dst_port"] = pc.cast(dst_port, pa.int64())
    out["protocol"] = pc.cast(g("ip_proto"), pa.int64())
    out["ip_version"] = pa.array(np.where(ipv6, 6, 4).astype("int64"))
    out["vlan_id"] = pc.cast(g("vlan"), pa.int64())
    if s.decode_tunnels:
        tun = pc.cast(g("tunnel"), pa.string())
        code = np.zeros(n, "int64")
        for name, c in (("GTP-U", 1), ("CAPWAP", 2), ("TZSP", 3)):
            code[_np(pc.fill_null(pc.equal(tun, name), False), "bool")] = c
        out["tunnel_id"] = pa.array(code)

    first_us = _np(pc.cast(g("first_ts"), pa.int64()), "int64")
    last_us = _np(pc.cast(g("last_ts"), pa.int64()), "int64")
    first_ms = (first_us // 1000).astype("float64")
    last_ms = (last_us // 1000).astype("float64")
    first_ms[later_part] = np.nan  # the later part's first packet is in no record
    out["bidirectional_first_seen_ms"] = i64(first_ms)
    out["bidirectional_last_seen_ms"] = i64(last_ms)
    out["bidirectional_duration_ms"] = i64(last_ms - first_ms)

    # Counters, oriented, as parts.
    sp, dp = pickf("c2s_pkts", "s2c_pkts")
    sb, db = pickf("c2s_bytes", "s2c_bytes")
    s_ps_mean, d_ps_mean = pickf("c2s_ps_mean", "s2c_ps_mean")
    if s.accounting_mode == 1:
        sb = np.where(sp > 0, np.round(np.nan_to_num(s_ps_mean) * sp), 0.0)
        db = np.where(dp > 0, np.round(np.nan_to_num(d_ps_mean) * dp), 0.0)
    sp_c, dp_c, sb_c, db_c = sp, dp, sb, db  # cumulative (for the statistics)
    sp, dp, sb, db = delta(sp), delta(dp), delta(sb), delta(db)
    out["bidirectional_packets"] = i64(sp + dp)
    out["bidirectional_bytes"] = i64(sb + db)

    # Per-direction times.
    s_piat_mean, d_piat_mean = pickf("c2s_piat_mean_us", "s2c_piat_mean_us")
    src_first_us = first_us.astype("float64")
    src_first_us[later_part] = np.nan
    src_last_us = np.where(sp_c > 1, src_first_us + np.nan_to_num(s_piat_mean) * (sp_c - 1), src_first_us)
    # dst's first packet: the first splt entry of the other sign, if among the first five.
    iat = _np(g("splt_iat_us").flatten(), "float64") if n else np.zeros(0)
    # packet k's time offset within its list: sum of the list's iat[0..k-1]
    parents = np.repeat(np.arange(n), lens)
    pos = np.arange(len(flat)) - offsets[:-1][parents]
    iat_off = np.asarray(g("splt_iat_us").offsets.to_numpy(), dtype="int64")
    csum = np.concatenate([[0.0], np.cumsum(iat)])
    # time of packet k = csum[iat_off[row] + k] - csum[iat_off[row]]
    t_off = csum[iat_off[:-1][parents] + pos] - csum[iat_off[:-1][parents]]
    pkt_us = first_us[parents].astype("float64") + t_off
    other = np.sign(flat) != np.sign(first[parents])
    d_first_us = np.full(n, np.nan)
    if other.any():
        rows, idx = np.unique(parents[other], return_index=True)
        d_first_us[rows] = pkt_us[np.nonzero(other)[0][idx]]
    d_first_us[later_part] = np.nan
    d_last_us = np.where(dp_c > 1, d_first_us + np.nan_to_num(d_piat_mean) * (dp_c - 1), d_first_us)
    s_first_ms = np.floor(src_first_us / 1000)
    s_last_ms = np.floor(src_last_us / 1000)
    d_first_ms = np.where(dp_c == 0, 0.0, np.floor(d_first_us / 1000))
    d_last_ms = np.where(dp_c == 0, 0.0, np.floor(d_last_us / 1000))
    out["src2dst_first_seen_ms"] = i64(s_first_ms)
    out["src2dst_last_seen_ms"] = i64(s_last_ms)
    out["src2dst_duration_ms"] = i64(s_last_ms - s_first_ms)
    out["src2dst_packets"] = i64(sp)
    out["src2dst_bytes"] = i64(sb)
    out["dst2src_first_seen_ms"] = i64(d_first_ms)
    out["dst2src_last_seen_ms"] = i64(d_last_ms)
    out["dst2src_duration_ms"] = i64(d_last_ms - d_first_ms)
    out["dst2src_packets"] = i64(dp)
    out["dst2src_bytes"] = i64(db)

    if s.statistical_analysis:
        whole = ~later_part  # statistics only for rows that hold the flow from its first packet
        mode1 = s.accounting_mode == 1
        st = {}
        for d, (cnt, mean0) in {"src2dst": (sp_c, s_ps_mean), "dst2src": (dp_c, d_ps_mean)}.items():
            side = (lambda c, s_: pickf(c, s_)[0]) if d == "src2dst" else (lambda c, s_: pickf(c, s_)[1])
            mn, mx, sd = side("c2s_ps_min", "s2c_ps_min"), side("c2s_ps_max", "s2c_ps_max"), side("c2s_ps_std", "s2c_ps_std")
            has = cnt > 0
            if mode1:
                mean = np.where(has, mean0, 0.0)
                st[d] = (cnt, np.where(has, mn, 0.0), mean, np.nan_to_num(sd), np.where(has, mx, 0.0))
                samp = np.where(cnt > 1, np.nan_to_num(sd) * np.sqrt(cnt / np.maximum(cnt - 1, 1)), 0.0)
                out[f"{d}_min_ps"] = i64(st[d][1], whole)
                out[f"{d}_mean_ps"] = f64(mean, whole)
                out[f"{d}_stddev_ps"] = f64(samp, whole)
                out[f"{d}_max_ps"] = i64(st[d][4], whole)
            else:
                byt = sb_c if d == "src2dst" else db_c
                out[f"{d}_min_ps"] = nulls(pa.int64())
                out[f"{d}_mean_ps"] = f64(np.where(has, byt / np.maximum(cnt, 1), 0.0), whole)
                out[f"{d}_stddev_ps"] = nulls(pa.float64())
                out[f"{d}_max_ps"] = nulls(pa.int64())
        ntot = sp_c + dp_c
        if mode1:
            (n1, mn1, m1, sd1, mx1), (n2, mn2, m2, sd2, mx2) = st["src2dst"], st["dst2src"]
            mean = (n1 * m1 + n2 * m2) / ntot
            ex2 = (n1 * (sd1 ** 2 + m1 ** 2) + n2 * (sd2 ** 2 + m2 ** 2)) / ntot
            var = np.maximum(ex2 - mean ** 2, 0.0)
            samp = np.where(ntot > 1, np.sqrt(var * ntot / np.maximum(ntot - 1, 1)), 0.0)
            mn = np.where(n2 > 0, np.where(n1 > 0, np.minimum(mn1, mn2), mn2), mn1)
            out["bidirectional_min_ps"] = i64(mn, whole)
            out["bidirectional_mean_ps"] = f64(mean, whole)
            out["bidirectional_stddev_ps"] = f64(samp, whole)
            out["bidirectional_max_ps"] = i64(np.maximum(mx1, mx2), whole)
        else:
            out["bidirectional_min_ps"] = nulls(pa.int64())
            out["bidirectional_mean_ps"] = f64((sb_c + db_c) / ntot, whole)
            out["bidirectional_stddev_ps"] = nulls(pa.float64())
            out["bidirectional_max_ps"] = nulls(pa.int64())
        dur_ms = last_ms - first_ms
        out["bidirectional_min_piat_ms"] = nulls(pa.int64())
        out["bidirectional_mean_piat_ms"] = f64(np.where(ntot > 1, dur_ms / np.maximum(ntot - 1, 1), 0.0), whole)
        out["bidirectional_stddev_piat_ms"] = nulls(pa.float64())
        out["bidirectional_max_piat_ms"] = nulls(pa.int64())
        for d, cnt, f_ms, l_ms in (("src2dst", sp_c, s_first_ms, s_last_ms), ("dst2src", dp_c, d_first_ms, d_last_ms)):
            k = 0 if d == "src2dst" else 1
            mn = pickf("c2s_piat_min_us", "s2c_piat_min_us")[k]
            me = pickf("c2s_piat_mean_us", "s2c_piat_mean_us")[k]
            mx = pickf("c2s_piat_max_us", "s2c_piat_max_us")[k]
            sd = pickf("c2s_piat_std_us", "s2c_piat_std_us")[k]
            two = cnt > 1
            gaps = np.maximum(cnt - 1, 1)
            mean_ms = np.where(np.isnan(l_ms - f_ms), me / 1000, (l_ms - f_ms) / gaps)
            samp = np.where(cnt > 2, np.nan_to_num(sd) / 1000 * np.sqrt(gaps / np.maximum(gaps - 1, 1)), 0.0)
            out[f"{d}_min_piat_ms"] = i64(np.where(two, np.round(mn / 1000), 0.0), whole)
            out[f"{d}_mean_piat_ms"] = f64(np.where(two, mean_ms, 0.0), whole)
            out[f"{d}_stddev_piat_ms"] = f64(samp, whole)
            out[f"{d}_max_piat_ms"] = i64(np.where(two, np.round(mx / 1000), 0.0), whole)
        fl = ("syn", "cwr", "ece", "urg", "ack", "psh", "rst", "fin")
        sides = {x: pickf(f"c2s_{x}", f"s2c_{x}") for x in fl}
        for x in fl:
            out[f"bidirectional_{x}_packets"] = i64(sides[x][0] + sides[x][1], whole)
        for k, d in enumerate(("src2dst", "dst2src")):
            for x in fl:
                out[f"{d}_{x}_packets"] = i64(sides[x][k], whole)

    if s.splt_analysis:
        N = s.splt_analysis
        keep = pos < N
        fr, fpos = parents[keep], pos[keep]
        grid = lambda: np.full((n, N), -1, dtype="int64")  # noqa: E731
        direction = grid()
        direction[fr, fpos] = other[keep].astype("int64")
        pkt_ms = np.floor(pkt_us / 1000)
        prev_ms = np.concatenate([[0.0], pkt_ms[:-1]])
        piat = np.where(pos == 0, 0.0, pkt_ms - prev_ms)
        piat_g = grid()
        piat_g[fr, fpos] = piat[keep].astype("int64")
        whole_rows = ~later_part
        mask = pa.array(~whole_rows)
        mk = lambda g_: pa.ListArray.from_arrays(  # noqa: E731
            pa.array(np.arange(0, n * N + 1, N, dtype="int32")), pa.array(g_.reshape(-1)), mask=mask)
        out["splt_direction"] = mk(direction)
        if s.accounting_mode == 1:
            ps = grid()
            ps[fr, fpos] = np.abs(flat[keep]).astype("int64")
            out["splt_ps"] = mk(ps)
        else:
            out["splt_ps"] = nulls(pa.list_(pa.int64()))
        out["splt_piat_ms"] = mk(piat_g)

    if s.n_dissections:
        method = pc.cast(g("method"), pa.string())
        out["application_name"] = pc.cast(g("proto"), pa.string())
        out["application_category_name"] = pc.cast(g("category"), pa.string())
        guessed = pc.and_(pc.is_valid(method), pc.not_equal(pc.fill_null(method, ""), "dpi"))
        out["application_is_guessed"] = pc.cast(guessed, pa.int64())
        conf = np.zeros(n, "int64")
        m = np.asarray(pc.fill_null(method, "").to_numpy(zero_copy_only=False), dtype=object)
        for name, c in (("dpi", 6), ("port", 1), ("ip", 7), ("dns-cache", 5), ("host-cache", 5),
                        ("dpt", 1), ("stats", 8)):
            conf[m == name] = c
        out["application_confidence"] = pa.array(conf)
        host = pc.coalesce(*(pc.cast(g(c), pa.string()) for c in ("sni", "http_host", "dns_query", "dhcp_host")))
        out["requested_server_name"] = pc.utf8_lower(host)
        out["client_fingerprint"] = pc.coalesce(pc.cast(g("ja4"), pa.string()),
                                                pc.utf8_upper(pc.cast(g("hassh"), pa.string())))
        out["server_fingerprint"] = nulls(pa.string())
        out["user_agent"] = pc.cast(g("user_agent"), pa.string())
        ctype = pc.utf8_trim_whitespace(pc.replace_substring_regex(
            pc.cast(g("http_content_type"), pa.string()), ";.*$", ""))
        out["content_type"] = pc.if_else(pc.equal(ctype, ""), pa.scalar(None, pa.string()), ctype)

    names = columns(s.decode_tunnels, s.statistical_analysis, s.splt_analysis, s.n_dissections)
    missing = [c for c in names if c not in out]
    assert not missing, missing
    return pa.table({c: out[c] for c in names})
