"""wirespeed: classify every network flow of capture files, as Arrow tables.

>>> import wirespeed
>>> table = wirespeed.classify("trace.pcap")          # doctest: +SKIP
>>> df = table.to_pandas()                            # doctest: +SKIP

``classify`` runs the same engine as the ``wirespeed classify`` command (in this process, with
the GIL released) and returns one row per flow record, with the columns and types of the
command's Parquet output (docs/SCHEMA.md in the repository).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable
from typing import Optional, Sequence, Union

import pyarrow as pa

from . import _wirespeed

__all__ = [
    "classify",
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
    model: Optional[PathLike] = None,
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
) -> pa.Table:
    """Classify every flow of capture files; one row per flow record, as a ``pyarrow.Table``.

    The same engine and the same records as ``wirespeed classify`` (its JSON lines, typed as its
    Parquet output: docs/SCHEMA.md): ``source`` and ``pcap`` (the input), ``flow_id``, the
    5-tuple, ``first_ts``/``last_ts`` (``timestamp[us, tz=UTC]``), packet and byte counters
    per direction (unsigned integers), ``proto``/``app``/``category`` and the other labels
    (dictionary-encoded), ``method``, ``confidence``, risks, and the metadata read from the
    packets (host names, TLS, HTTP, DNS, ...). Rows are in ``flow_id`` order: the order the flows
    began in, whatever the number of workers. ``table.to_pandas()`` gives a DataFrame.

    Parameters
    ----------
    source
        A capture file (pcap or pcapng, or its gzip, zstd or xz compression), a directory (every
        capture in it and its subdirectories, sorted by path; other files are skipped with a
        ``SkippedFileWarning``), or a list of these. Each file is its own capture.
    workers
        Worker threads, each with its own flow table (default: the number of cores); the
        records are the same whatever the number, except, today, which interim records
        ``active_timeout`` gives and which flows a full table (``max_flows``) evicts.
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
        A statistical model file for the ``stats`` classifier (default: the built-in model).
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
    tunnels
        Count tunnelled packets (GRE, VXLAN, GTP-U, ...) as their inner flows (default); False
        counts them as the outer flow.

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

    Warns
    -----
    CaptureWarning
        A damaged capture (truncated, corrupt): its good packets' flows are in the table; the
        message names the file and the byte offset.
    SkippedFileWarning
        A file of a directory that is not a capture.
    """
    paths = _sources(source)
    if workers is not None:
        workers = _int(workers, "workers")
    classifier_list = _names(classifiers, "classifiers")
    stats_list = _names(stats, "stats")
    timeouts = {
        name: _seconds(value, name)
        for name, value in (
            ("tcp_timeout", tcp_timeout),
            ("udp_timeout", udp_timeout),
            ("other_timeout", other_timeout),
            ("closed_timeout", closed_timeout),
            ("active_timeout", active_timeout),
        )
    }
    capsule, warned, _summary = _wirespeed.classify(
        paths,
        workers=workers,
        classifiers=",".join(classifier_list),
        stats=stats_list,
        rules=_opt_path(rules, "rules"),
        hosts=_opt_path(hosts, "hosts"),
        networks=_opt_path(networks, "networks"),
        signatures=_opt_path(signatures, "signatures"),
        patterns=_opt_path(patterns, "patterns"),
        model=_opt_path(model, "model"),
        max_flows=_int(max_flows, "max_flows"),
        features=_bool(features, "features"),
        community_id=_bool(community_id, "community_id"),
        tunnels=_bool(tunnels, "tunnels"),
        **timeouts,
    )
    for kind, message in warned:
        category = CaptureWarning if kind == "capture" else SkippedFileWarning
        warnings.warn(message, category, stacklevel=2)
    table = pa.RecordBatchReader._import_from_c_capsule(capsule).read_all()
    if table.num_rows > 1:
        # Workers end flows in their own order: rows in flow_id order (stable, so an interim
        # record stays before the flow's final one).
        table = table.sort_by([("flow_id", "ascending")])
    return table
