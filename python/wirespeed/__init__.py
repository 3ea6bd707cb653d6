"""wirespeed: classify every network flow of capture files and live links, as Arrow tables.

>>> import wirespeed
>>> table = wirespeed.classify("trace.pcap")          # doctest: +SKIP
>>> df = table.to_pandas()                            # doctest: +SKIP
>>> for batch in wirespeed.stream("big.pcap.zst"):    # doctest: +SKIP
...     print(batch.num_rows)

``classify`` runs the same engine as the ``wirespeed classify`` command (in this process, on a
thread of its own, the GIL released) and returns one row per flow record, with the columns and
types of the command's Parquet output (docs/SCHEMA.md in the repository). ``stream`` hands the
same records over batch by batch as flows end, from files or live interfaces, in bounded
memory. ``events`` gives the DNS, HTTP and TLS transactions, ``train`` a statistical model.
Ctrl-C stops any of them (``KeyboardInterrupt``).
"""

from __future__ import annotations

import functools
import os
import warnings
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Iterator, Optional, Sequence, Union

from . import _wirespeed

if TYPE_CHECKING:
    import pyarrow as pa


def _pa() -> Any:
    """pyarrow, imported when the first table or batch is made rather than with wirespeed.

    pyarrow imports numpy, and numpy's OpenBLAS starts a thread per core that spins for about
    0.1 s of CPU before it sleeps. Imported with wirespeed, that spin shared the cores with the
    run that usually follows at once (0.04 s of a 0.51 s script on two cores: the corpus mix
    x20 to a DataFrame); imported after the run, it overlaps Python's own single-threaded work.
    """
    import pyarrow

    return pyarrow

__all__ = [
    "classify",
    "stream",
    "FlowStream",
    "events",
    "train",
    "Model",
    "inputs",
    "classifiers",
    "CaptureWarning",
    "SkippedFileWarning",
    "__version__",
]

__version__: str = _wirespeed.__version__

PathLike = Union[str, "os.PathLike[str]"]


class CaptureWarning(UserWarning):
    """A capture was damaged (truncated, corrupt): the flows of its good packets are in the
    table; the message names the file and the byte offset where the damage starts (the
    command line's exit status 1)."""


class SkippedFileWarning(UserWarning):
    """A file inside a directory given as a source was left out: it is not a capture (pcap,
    pcapng, or their gzip, zstd or xz compressions, told by their first bytes)."""


def classifiers() -> list[str]:
    """The names of the classifiers, in the order they run (for ``classify(classifiers=...)``)."""
    return list(_wirespeed.classifier_names())


def _path(value: object, option: str) -> str:
    if isinstance(value, (str, os.PathLike)):
        p = os.fspath(value)
        if isinstance(p, str):
            return p
    raise TypeError(f"{option} must be a path (str or os.PathLike), not {type(value).__name__}")


def _opt_path(value: object, option: str) -> Optional[str]:
    return None if value is None else _path(value, option)


def _int(value: object, option: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{option} must be an int, not {type(value).__name__}")
    return value


def _bool(value: object, option: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{option} must be True or False, not {type(value).__name__}")
    return value


def _seconds(value: object, option: str) -> Optional[float]:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(
            f"{option} must be a number of seconds (int or float, math.inf for none), "
            f"not {type(value).__name__}"
        )
    v = float(value)
    if not (v > 0):
        raise ValueError(f"{option} must be a positive number of seconds, or math.inf (got {value!r})")
    return v


def _names(value: object, option: str) -> list[str]:
    """A comma-separated string or an iterable of strings, as a list of names."""
    if isinstance(value, str):
        return [n.strip() for n in value.split(",") if n.strip()]
    if isinstance(value, (bytes, bytearray)) or not isinstance(value, Iterable):
        raise TypeError(
            f"{option} must be a list of str or a comma-separated str, not {type(value).__name__}"
        )
    out = []
    for n in value:
        if not isinstance(n, str):
            raise TypeError(f"{option} must hold str, not {type(n).__name__}")
        out.append(n.strip())
    return out


def _sources(source: object) -> list[str]:
    if isinstance(source, (str, os.PathLike)):
        return [_path(source, "source")]
    if isinstance(source, (bytes, bytearray)) or not isinstance(source, Iterable):
        raise TypeError(
            "source must be a path, or a list of paths (files or directories), "
            f"not {type(source).__name__}"
        )
    paths = [_path(s, "source") for s in source]
    if not paths:
        raise ValueError("source: no input given (an empty list)")
    return paths


def _model(model: object) -> dict:
    """The ``model`` option as the native module takes it: a path, bytes, or a ``Model``."""
    if model is None:
        return {}
    if isinstance(model, Model):
        return {"model_bytes": model.bytes}
    if isinstance(model, (bytes, bytearray, memoryview)):
        return {"model_bytes": bytes(model)}
    return {"model": _path(model, "model")}


def _engine_options(
    *,
    workers: object,
    classifiers: object,
    rules: object,
    hosts: object,
    networks: object,
    signatures: object,
    tcp_timeout: object,
    udp_timeout: object,
    other_timeout: object,
    closed_timeout: object,
    max_flows: object,
    tunnels: object,
) -> dict:
    """The options every run takes, their types checked."""
    return dict(
        workers=None if workers is None else _int(workers, "workers"),
        classifiers=",".join(_names(classifiers, "classifiers")),
        rules=_opt_path(rules, "rules"),
        hosts=_opt_path(hosts, "hosts"),
        networks=_opt_path(networks, "networks"),
        signatures=_opt_path(signatures, "signatures"),
        tcp_timeout=_seconds(tcp_timeout, "tcp_timeout"),
        udp_timeout=_seconds(udp_timeout, "udp_timeout"),
        other_timeout=_seconds(other_timeout, "other_timeout"),
        closed_timeout=_seconds(closed_timeout, "closed_timeout"),
        max_flows=_int(max_flows, "max_flows"),
        tunnels=_bool(tunnels, "tunnels"),
    )


def _record_options(
    *,
    patterns: object,
    model: object,
    active_timeout: object,
    stats: object,
    features: object,
    community_id: object,
    columns: object = None,
    learn_stats: object = False,
    dpi_contexts: object = 1 << 16,
    dpi_reclaim_after: object = 1000,
) -> dict:
    """The options of runs that give flow records (classify, stream), their types checked."""
    return dict(
        columns=None if columns is None else _names(columns, "columns"),
        learn_stats=_bool(learn_stats, "learn_stats"),
        dpi_contexts=_int(dpi_contexts, "dpi_contexts"),
        dpi_reclaim_after=_int(dpi_reclaim_after, "dpi_reclaim_after"),
        patterns=_opt_path(patterns, "patterns"),
        active_timeout=_seconds(active_timeout, "active_timeout"),
        stats=_names(stats, "stats"),
        features=_bool(features, "features"),
        community_id=_bool(community_id, "community_id"),
        **_model(model),
    )


def _warn(warned: Sequence[tuple[str, str]], stacklevel: int = 3) -> None:
    for kind, message in warned:
        category = CaptureWarning if kind == "capture" else SkippedFileWarning
        warnings.warn(message, category, stacklevel=stacklevel)


def classify(
    source: Union[PathLike, Sequence[PathLike]],
    *,
    workers: Optional[int] = None,
    classifiers: Union[str, Sequence[str]] = "all",
    rules: Optional[PathLike] = None,
    hosts: Optional[PathLike] = None,
    networks: Optional[PathLike] = None,
    signatures: Optional[PathLike] = None,
    patterns: Optional[PathLike] = None,
    model: Union[PathLike, bytes, "Model", None] = None,
    tcp_timeout: Optional[float] = None,
    udp_timeout: Optional[float] = None,
    other_timeout: Optional[float] = None,
    closed_timeout: float = 10.0,
    active_timeout: Optional[float] = None,
    max_flows: int = 1 << 20,
    stats: Union[str, Sequence[str]] = (),
    features: bool = False,
    community_id: bool = False,
    tunnels: bool = True,
    columns: Union[str, Sequence[str], None] = None,
    learn_stats: bool = False,
    dpi_contexts: int = 1 << 16,
    dpi_reclaim_after: int = 1000,
) -> pa.Table:
    """Classify every flow of capture files; one row per flow record, as a ``pyarrow.Table``.

    The same engine and the same records as ``wirespeed classify`` (its JSON lines, typed as its
    Parquet output: docs/SCHEMA.md): ``source`` and ``pcap`` (the input), ``flow_id``, the
    5-tuple, ``first_ts``/``last_ts`` (``timestamp[us, tz=UTC]``), packet and byte counters
    per direction (unsigned integers), ``proto``/``app``/``category`` and the other labels
    (dictionary-encoded), ``method``, ``confidence``, risks, and the metadata read from the
    packets (host names, TLS, HTTP, DNS, ...). Rows are in ``flow_id`` order: the order the flows
    began in, whatever the number of workers; each dictionary column (labels, methods, ...) has
    one dictionary of its values, sorted, so the table is the same Arrow data for any number of
    workers. ``table.to_pandas()`` gives a DataFrame. The whole
    table is held in memory: for inputs larger than memory, use ``stream``.

    Parameters
    ----------
    source
        A capture file (pcap or pcapng, or its gzip, zstd or xz compression), a directory (every
        capture in it and its subdirectories, sorted by path; other files are skipped with a
        ``SkippedFileWarning``), or a list of these. Each file is its own capture.
    workers
        Worker threads, each with its own flow table (default: the number of cores); the
        records are the same whatever the number, except, today, which flows a full table
        (``max_flows``) evicts.
    classifiers
        Which classifiers run: a list or a comma-separated string of ``port``, ``ip``, ``dpt``,
        ``dns-cache``, ``host-cache``, ``stats``, ``dpi`` (``wirespeed.classifiers()``), or
        ``"all"`` (default) or ``"none"``.
    rules
        Operator rules in nDPI's protos.txt syntax (``host:"pattern"@Name``, ``ip:CIDR@Name``,
        ``tcp:PORT@Name``, ...).
    hosts, networks
        More host-name rules (``pattern,app,category,breed`` rows) and address owners
        (``network,app,category`` rows), loaded after the built-in lists.
    signatures
        More byte signatures for payload inspection (the format of crates/dpi/signatures.txt).
    patterns
        Payload search patterns, one a line (the command line's ``--match``; field ``matches``).
    model
        The statistical model of the ``stats`` classifier: a model file, its bytes, or a
        ``Model`` from ``wirespeed.train`` (default: the built-in model).
    tcp_timeout, udp_timeout, other_timeout
        Idle timeouts in seconds of capture time, ``math.inf`` for none (default: a day).
    closed_timeout
        How long a TCP flow closed by FIN or RST lingers for trailing packets, seconds.
    active_timeout
        A flow open this long gets an interim record (``end_reason == "active"``, the same
        ``flow_id`` as its final record), and another each time as much more passes
        (default: ``math.inf``, none).
    max_flows
        Flow table capacity: flows held at once (memory is reserved for this many, about 210
        bytes each; more than the memory available is a ValueError, not a crash).
    stats
        Statistics families to add: ``"dist"`` (packet size and inter-arrival distributions and
        TCP flag counts per direction), ``"tcp"`` (retransmissions, RTT, options, Zeek's history
        and conn_state), ``"entropy"`` (payload entropy for the Susp Entropy risk; no column).
    features
        Add the early-flow features (``splt_*`` lists, ``atoz_*``).
    community_id
        Add each flow's Community ID (``community_id``, v1, seed 0).
    columns
        Keep only these columns (a list, or a comma-separated str), in the record's order
        whatever the order given, as ``wirespeed classify --columns``: what no kept column
        needs is not computed (risks, fingerprints' hashes, address owner); labels are the
        same. A name that is no column is a ValueError naming it.
    tunnels
        Count tunnelled packets (GRE, VXLAN, GTP-U, ...) as their inner flows (default); False
        counts them as the outer flow.
    learn_stats
        The statistical model learns from the link, as ``wirespeed classify --learn-stats``:
        flows payload inspection labels teach it (at the learning epochs, the shipped model as
        the prior), and it names flows nothing else names; each flow is judged by the model as
        it stood before that flow taught it.
    dpi_contexts
        Payload-inspection contexts per worker, as ``--dpi-contexts`` (about 1 KiB each): a
        flow that starts while all are taken takes the context of a flow that has held one for
        ``dpi_reclaim_after`` with nothing decided, else is not inspected (``summary`` counts
        both).
    dpi_reclaim_after
        Milliseconds of capture time, as ``--dpi-reclaim-after`` (default 1000; 0: never): with
        every context taken, a flow whose payload inspection has decided and kept nothing for
        this long gives its context to a new flow and is inspected no further, so a flood of
        flows no inspector can name does not keep the flows after it from being inspected.

    Raises
    ------
    TypeError
        An option of the wrong type, or an unknown option (naming it).
    ValueError
        A bad option value, naming the option; a rules, hosts, networks, signatures, patterns
        or model file that does not parse (the command line's message: file and line).
    OSError
        An input or option file that cannot be read (``FileNotFoundError``,
        ``PermissionError``, ... with its path), or an input that is not a capture at all.
    KeyboardInterrupt
        Ctrl-C: the run stops within a batch of packets.

    Warns
    -----
    CaptureWarning
        A damaged capture (truncated, corrupt): its good packets' flows are in the table; the
        message names the file and the byte offset.
    SkippedFileWarning
        A file of a directory that is not a capture.
    """
    paths = _sources(source)
    capsule, warned, _summary = _wirespeed.classify(
        paths,
        **_engine_options(
            workers=workers,
            classifiers=classifiers,
            rules=rules,
            hosts=hosts,
            networks=networks,
            signatures=signatures,
            tcp_timeout=tcp_timeout,
            udp_timeout=udp_timeout,
            other_timeout=other_timeout,
            closed_timeout=closed_timeout,
            max_flows=max_flows,
            tunnels=tunnels,
        ),
        **_record_options(
            patterns=patterns,
            model=model,
            active_timeout=active_timeout,
            stats=stats,
            features=features,
            community_id=community_id,
            columns=columns,
            learn_stats=learn_stats,
            dpi_contexts=dpi_contexts,
            dpi_reclaim_after=dpi_reclaim_after,
        ),
    )
    _warn(warned)
    # Rows in flow_id order already (the native side sorts them, stable, so an interim record
    # stays before the flow's final one, whether or not `columns` keeps flow_id).
    return _pa().RecordBatchReader._import_from_c_capsule(capsule).read_all()


class FlowStream:
    """The records of a run, one ``pyarrow.RecordBatch`` at a time, as its workers cut them
    (``wirespeed.stream`` makes one). Iterate over it; ``close()`` (or leaving a ``with``
    block, or dropping it) stops the run. Memory stays a few batches' whatever the input.

    Batches come in the order workers cut them, not in ``flow_id`` order; each holds up to
    ``batch_rows`` records (fewer at the end, and on a live link at least once a second when
    records are waiting)."""

    def __init__(self, native: Any):
        self._native = native
        self._schema: Optional[pa.Schema] = None

    @property
    def schema(self) -> pa.Schema:
        """The schema of every batch (the Parquet output's: docs/SCHEMA.md)."""
        if self._schema is None:
            self._schema = _pa().RecordBatchReader._import_from_c_capsule(
                self._native.schema()
            ).schema
        return self._schema

    @property
    def summary(self) -> Optional[dict]:
        """The run's counters once it is over (packets, bytes, records, ...; on a live link
        also ``lost_records``: records dropped because the reader did not keep up, and the
        kernel's ``kernel_packets`` and ``kernel_drops``), else None."""
        s = self._native.summary()
        return None if s is None else dict(s)

    def __iter__(self) -> Iterator[pa.RecordBatch]:
        return self

    def __next__(self) -> pa.RecordBatch:
        while True:
            item = self._native.next_item()
            if item is None:
                raise StopIteration
            kind, value = item
            if kind == "batch":
                return _pa().RecordBatchReader._import_from_c_capsule(value).read_next_batch()
            _warn([value], stacklevel=2)

    def read_all(self) -> pa.Table:
        """Every batch still to come, as one table (in the order the batches came)."""
        return _pa().Table.from_batches(list(self), schema=self.schema)

    def stop(self) -> None:
        """Stop reading packets (a file at its next batch of packets, a live capture at once)
        and end every flow: their records still come, then the iteration ends. Safe to call
        from another thread while this one iterates."""
        self._native.stop()

    def close(self) -> None:
        """Stop the run; the records not yet read are dropped."""
        self._native.close()

    def __enter__(self) -> "FlowStream":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def stream(
    source: Union[PathLike, Sequence[PathLike], None] = None,
    *,
    interface: Union[str, Sequence[str], None] = None,
    filter: Optional[str] = None,
    duration: Optional[float] = None,
    batch_rows: int = 8192,
    workers: Optional[int] = None,
    classifiers: Union[str, Sequence[str]] = "all",
    rules: Optional[PathLike] = None,
    hosts: Optional[PathLike] = None,
    networks: Optional[PathLike] = None,
    signatures: Optional[PathLike] = None,
    patterns: Optional[PathLike] = None,
    model: Union[PathLike, bytes, "Model", None] = None,
    tcp_timeout: Optional[float] = None,
    udp_timeout: Optional[float] = None,
    other_timeout: Optional[float] = None,
    closed_timeout: float = 10.0,
    active_timeout: Optional[float] = None,
    max_flows: int = 1 << 20,
    stats: Union[str, Sequence[str]] = (),
    features: bool = False,
    community_id: bool = False,
    tunnels: bool = True,
    columns: Union[str, Sequence[str], None] = None,
    learn_stats: bool = False,
    dpi_contexts: int = 1 << 16,
    dpi_reclaim_after: int = 1000,
) -> FlowStream:
    """The records of capture files or of live interfaces as an iterator of
    ``pyarrow.RecordBatch``, handed over as flows end: an endless link never fills memory.

    Give ``source`` (files, directories: as ``classify``) or ``interface`` (a name or a list of
    names: a live capture, as ``wirespeed live``; needs root or CAP_NET_RAW). The other options
    are ``classify``'s; ``batch_rows`` is the most records a batch holds.

    Files: the engine waits for the reader, so no record is lost however slowly it reads.
    A live link: capture never waits for Python; a batch the reader has no room for (four are
    held) is dropped and counted (``summary["lost_records"]``, and a warning at the end). Live
    defaults are the command line's ``live`` ones: idle timeouts of 300 s (TCP), 120 s (UDP),
    60 s (other), an active timeout of 120 s (interim records of long flows). The capture runs
    until ``duration`` seconds pass, ``close()``, or Ctrl-C (``KeyboardInterrupt``: the flows
    are ended, the records not yet read dropped); ``filter`` is a BPF expression (tcpdump's
    syntax) run in the kernel. ``stream(interface=...)`` returns once the capture sockets are
    open (an ``OSError`` if they cannot be: no such interface, no privilege).

    >>> with wirespeed.stream(interface="eth0", duration=60) as s:   # doctest: +SKIP
    ...     for batch in s:
    ...         print(batch.to_pandas()[["src_ip", "dst_ip", "app"]])
    """
    if (source is None) == (interface is None):
        raise TypeError("stream() takes a source (capture files) or an interface, not both")
    common = _engine_options(
        workers=workers,
        classifiers=classifiers,
        rules=rules,
        hosts=hosts,
        networks=networks,
        signatures=signatures,
        tcp_timeout=tcp_timeout,
        udp_timeout=udp_timeout,
        other_timeout=other_timeout,
        closed_timeout=closed_timeout,
        max_flows=max_flows,
        tunnels=tunnels,
    )
    records = _record_options(
        patterns=patterns,
        model=model,
        active_timeout=active_timeout,
        stats=stats,
        features=features,
        community_id=community_id,
        columns=columns,
        learn_stats=learn_stats,
        dpi_contexts=dpi_contexts,
        dpi_reclaim_after=dpi_reclaim_after,
    )
    rows = _int(batch_rows, "batch_rows")
    if interface is None:
        if filter is not None or duration is not None:
            raise TypeError("filter and duration are for a live interface, not capture files")
        native = _wirespeed.stream_files(_sources(source), batch_rows=rows, **common, **records)
    else:
        ifaces = _names(interface, "interface")
        if filter is not None and not isinstance(filter, str):
            raise TypeError(f"filter must be a str (a BPF expression), not {type(filter).__name__}")
        native = _wirespeed.stream_live(
            ifaces,
            filter=filter,
            duration=_seconds(duration, "duration"),
            batch_rows=rows,
            **common,
            **records,
        )
    return FlowStream(native)


# The fields of docs/EVENTS.md, typed: common, then each type's (pyarrow's types, made when first
# asked for: see `_pa`).
@functools.lru_cache(maxsize=None)
def _event_schema() -> "pa.Schema":
    pa = _pa()
    return pa.schema(
        [
            ("ts", pa.float64()),
            ("event_type", pa.string()),
            ("flow_id", pa.uint64()),
            ("src_ip", pa.string()),
            ("src_port", pa.uint16()),
            ("dst_ip", pa.string()),
            ("dst_port", pa.uint16()),
            ("l4", pa.string()),
            ("community_id", pa.string()),
            ("trans_id", pa.uint16()),
            ("rtt_us", pa.uint64()),
            ("query", pa.string()),
            ("qclass", pa.uint16()),
            ("qtype", pa.uint16()),
            ("rcode", pa.uint8()),
            ("aa", pa.bool_()),
            ("tc", pa.bool_()),
            ("rd", pa.bool_()),
            ("ra", pa.bool_()),
            ("answers", pa.list_(pa.string())),
            ("ttls", pa.list_(pa.uint32())),
            ("trans_depth", pa.uint32()),
            ("method", pa.string()),
            ("host", pa.string()),
            ("uri", pa.string()),
            ("user_agent", pa.string()),
            ("request_body_len", pa.uint64()),
            ("status", pa.uint16()),
            ("content_type", pa.string()),
            ("response_body_len", pa.uint64()),
            ("version", pa.string()),
            ("sni", pa.string()),
            ("alpn", pa.string()),
            ("cipher", pa.uint16()),
            ("ja3", pa.string()),
            ("ja4", pa.string()),
            ("subject", pa.string()),
            ("issuer", pa.string()),
            ("truncated", pa.bool_()),
]
    )


def __getattr__(name: str) -> Any:
    # EVENT_SCHEMA, made on first use (PEP 562) so that importing wirespeed imports no pyarrow.
    if name == "EVENT_SCHEMA":
        return _event_schema()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def events(
    source: Union[PathLike, Sequence[PathLike]],
    *,
    workers: Optional[int] = None,
    classifiers: Union[str, Sequence[str]] = "all",
    rules: Optional[PathLike] = None,
    hosts: Optional[PathLike] = None,
    networks: Optional[PathLike] = None,
    signatures: Optional[PathLike] = None,
    tcp_timeout: Optional[float] = None,
    udp_timeout: Optional[float] = None,
    other_timeout: Optional[float] = None,
    closed_timeout: float = 10.0,
    max_flows: int = 1 << 20,
    tunnels: bool = True,
) -> pa.Table:
    """The DNS, HTTP and TLS transactions of capture files, one row each, as Zeek's dns.log,
    http.log and ssl.log keep them (``wirespeed classify --events``: docs/EVENTS.md).

    Every row has the common columns (``ts`` as ``timestamp[us, tz=UTC]``, ``event_type``
    ``dns``/``http``/``tls``, ``flow_id`` joining ``classify``'s table of the same options and
    inputs, the end-points, ``community_id``) and every type's columns, null where they are not
    its type's; rows in ``ts`` order (then ``flow_id``). The options are ``classify``'s.
    """
    paths = _sources(source)
    lines, warned, _summary = _wirespeed.events(
        paths,
        **_engine_options(
            workers=workers,
            classifiers=classifiers,
            rules=rules,
            hosts=hosts,
            networks=networks,
            signatures=signatures,
            tcp_timeout=tcp_timeout,
            udp_timeout=udp_timeout,
            other_timeout=other_timeout,
            closed_timeout=closed_timeout,
            max_flows=max_flows,
            tunnels=tunnels,
        ),
    )
    _warn(warned)
    pa = _pa()
    import pyarrow.compute

    schema = _event_schema()
    if not lines:
        table = schema.empty_table()
    else:
        import io

        import pyarrow.json as pj

        table = pj.read_json(
            io.BytesIO(lines),
            parse_options=pj.ParseOptions(
                explicit_schema=schema, unexpected_field_behavior="error"
            ),
        )
    ts = pa.compute.multiply(table.column("ts"), 1e6)
    ts = pa.compute.round(ts).cast(pa.int64()).cast(pa.timestamp("us", tz="UTC"))
    table = table.set_column(0, "ts", ts)
    if table.num_rows > 1:
        table = table.sort_by([("ts", "ascending"), ("flow_id", "ascending")])
    return table


class Model:
    """A statistical model trained by ``wirespeed.train``: give it to ``classify(model=...)``
    or ``stream(model=...)``, or ``save`` it for ``wirespeed classify --model FILE``."""

    def __init__(self, data: bytes, classes: list, report: str, counts: dict, errors: list):
        self.bytes: bytes = data
        """The model file's bytes."""
        self.classes: list[str] = list(classes)
        """The classes it tells apart (nDPI master protocols), sorted."""
        self.report: str = report
        """The cross-validation report (per class precision, recall, F1; accuracy and macro-F1),
        empty when ``folds`` was 0."""
        self.counts: dict = dict(counts)
        """Captures read, flows found, flows labelled and in a class."""
        self.errors: list[str] = list(errors)
        """Captures that were damaged (their good packets counted) or skipped."""

    def save(self, path: PathLike) -> None:
        """Write the model file (``wirespeed classify --model`` reads it)."""
        with open(_path(path, "path"), "wb") as f:
            f.write(self.bytes)

    def __repr__(self) -> str:
        return (
            f"<wirespeed.Model: {len(self.classes)} classes, {self.counts.get('labelled', 0)} "
            f"labelled flows, {len(self.bytes)} bytes>"
        )


def train(
    source: Union[PathLike, Sequence[PathLike]],
    labels: PathLike,
    *,
    algo: str = "nb",
    size: str = "data",
    packets: int = 4,
    bin_width: int = 32,
    alpha: float = 0.0001,
    sigma: float = 1.0,
    port: bool = True,
    reject: float = 0.0,
    iat: bool = False,
    min_class: int = 30,
    folds: int = 5,
    seed: int = 1,
    max_repeats: int = 10,
) -> Model:
    """Train a statistical model from captures and labels, as ``wirespeed train`` does.

    ``labels`` is a CSV shaped like nDPI's flows.csv (``pcap, l4, src_ip, src_port, dst_ip,
    dst_port, master, confidence``; rows whose confidence starts with "DPI" are used), joined to
    the flows of ``source`` (files, directories) by capture name and end-points. ``algo``:
    ``"nb"`` (Naive Bayes over signed packet sizes and the server port, seed 000) or ``"c45"``
    (a C4.5 tree over sizes and the AtoZ features). ``size``: ``"ip"``, ``"payload"`` or
    ``"data"`` (the first packets that carried payload, at most 4, however many came before);
    ``packets``: classify at this packet (1 to 5; for ``"data"``, at this payload-carrying one); ``bin_width``, ``alpha``,
    ``sigma``, ``port``, ``reject``: Naive Bayes' parameters; ``iat``: C4.5 also uses
    inter-arrival times; ``min_class``: classes need this many labelled flows; ``folds``:
    cross-validation by capture file (0: none), with ``seed``; ``max_repeats``: flows of one
    capture and one class with the same first sizes and port bucket are learnt at most this
    many times (0: every flow).
    """
    paths = _sources(source)
    if not isinstance(algo, str) or not isinstance(size, str):
        raise TypeError("algo and size must be str")
    for name, value in (("alpha", alpha), ("sigma", sigma), ("reject", reject)):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"{name} must be a number, not {type(value).__name__}")
    data, report, classes, counts, errors = _wirespeed.train(
        paths,
        _path(labels, "labels"),
        algo=algo,
        size=size,
        packets=_int(packets, "packets"),
        bin_width=_int(bin_width, "bin_width"),
        alpha=float(alpha),
        sigma=float(sigma),
        port=_bool(port, "port"),
        reject=float(reject),
        iat=_bool(iat, "iat"),
        min_class=_int(min_class, "min_class"),
        folds=_int(folds, "folds"),
        seed=_int(seed, "seed"),
        max_repeats=_int(max_repeats, "max_repeats"),
    )
    return Model(data, classes, report, dict(counts), errors)


def inputs(source: Union[PathLike, Sequence[PathLike]]) -> list[str]:
    """The capture files a run over ``source`` reads, in order: a directory's captures (in it
    and its subdirectories, sorted by path, told by their first bytes; other files are left
    out with a ``SkippedFileWarning``), a file as given."""
    files, skipped = _wirespeed.inputs(_sources(source))
    _warn([("skipped", s) for s in skipped], stacklevel=2)
    return [os.fspath(f) for f in files]
