"""wirespeed on Spark: classify the captures of a directory across executors, into a Spark
DataFrame (and from there Parquet, a table, ...). Needs ``pyspark`` (an optional dependency: this
module is imported only when used) and ``wirespeed`` installed on every executor too.

>>> from pyspark.sql import SparkSession                              # doctest: +SKIP
>>> import wirespeed.spark                                            # doctest: +SKIP
>>> spark = SparkSession.builder.getOrCreate()                        # doctest: +SKIP
>>> df = wirespeed.spark.classify(spark, "captures/", community_id=True)   # doctest: +SKIP
>>> df.write.parquet("flows.parquet")                                 # doctest: +SKIP

How it runs: the driver lists the captures (as ``wirespeed.classify`` expands a directory: its
files and its subdirectories' files, sorted by path, those that do not start as a capture left
out with a ``SkippedFileWarning``), checks the options by classifying an empty capture (so a bad
option raises ``TypeError``/``ValueError`` here, at once, and that run gives the schema), and
makes a DataFrame of one row per capture, one capture a partition by default. Each task runs
``wirespeed.classify(path, **options)`` on its captures, one file at a time, and hands the
record batches to Spark (``mapInArrow``).

The rows are ``wirespeed.classify(source, **options)``'s, with two differences:

* ``flow_id`` is the id of ``wirespeed.classify(that_file)``: it restarts with each capture, so
  the key of a record is (``source``, ``flow_id``) (with ``active_timeout``, a flow's interim
  records and its final record share it, as in one run). A single run over many files numbers
  flows across the run: there a file's ids are its own run's plus a number fixed for that file.
* The types are Spark's (``spark_type``): unsigned integers widen to the next signed type
  (``uint64`` to ``bigint``, checked: a value past 2^63 - 1 fails the task rather than wrap),
  dictionary-encoded text is plain ``string``, ``timestamp[us, tz=UTC]`` is ``timestamp``,
  lists are arrays. Same column names, same order.

Warnings: a damaged capture's ``CaptureWarning`` is raised on the executor that read it, which
writes it to its standard error (the task's log) and goes on: the flows of its good packets are
in the DataFrame, as in one run. An input that is not a capture at all (a file named directly,
or a compressed file that is not a capture compressed) fails its task with the ``OSError`` one
run raises.

``python -m wirespeed.spark SOURCE... -o OUT.parquet`` runs it from the command line (docs/SPARK.md).
"""

from __future__ import annotations

import heapq
import os
import sys
import tempfile
import warnings
from collections.abc import Iterable
from typing import Any, Callable, Iterator, Optional, Sequence, Union

import pyarrow as pa

import wirespeed
from wirespeed import SkippedFileWarning

try:
    from pyspark.sql import types as T
except ImportError as e:  # pragma: no cover - pyspark is optional
    raise ImportError(
        "wirespeed.spark needs pyspark (pip install pyspark); wirespeed itself does not"
    ) from e

__all__ = [
    "captures",
    "classify",
    "main",
    "schema",
    "spark_type",
    "write_parquet",
]

PathLike = Union[str, "os.PathLike[str]"]

# A pcap file with no packet: classified on the driver, it checks the options and gives the
# schema (little-endian, version 2.4, snap length 65535, Ethernet).
_EMPTY_PCAP = b"\xd4\xc3\xb2\xa1\x02\x00\x04\x00" + bytes(8) + b"\xff\xff\x00\x00\x01\x00\x00\x00"

# Rows per record batch an executor hands to Spark.
_BATCH_ROWS = 8192


# --- the inputs, listed on the driver -----------------------------------------------------


def captures(source: Union[PathLike, Sequence[PathLike]]) -> list[str]:
    """The capture files ``source`` stands for, as ``wirespeed.classify`` reads them
    (``wirespeed.inputs``: the engine's own directory walk): a file is itself (whatever it
    holds); a directory is every capture in it and its subdirectories, sorted by path, the
    files that do not start as a capture each left out with a ``SkippedFileWarning``; a list
    is its items' captures in turn. A path that does not exist raises ``FileNotFoundError``."""
    paths = wirespeed._sources(source)
    for p in paths:
        if not os.path.exists(p):
            raise FileNotFoundError(2, "No such file or directory", p)
    return wirespeed.inputs(paths)


# --- the schema ---------------------------------------------------------------------------


def spark_type(t: pa.DataType, nullable: bool = True) -> T.DataType:
    """The Spark type of a column of Arrow type ``t``: unsigned integers widen to the next
    signed type (``uint8`` ``smallint``, ``uint16`` ``int``, ``uint32`` and ``uint64``
    ``bigint``), dictionaries are their values' type, ``timestamp`` with a time zone is
    ``timestamp`` (without, ``timestamp_ntz``), ``list<x>`` is ``array<x's type>``."""
    if pa.types.is_dictionary(t):
        return spark_type(t.value_type)
    if pa.types.is_boolean(t):
        return T.BooleanType()
    if pa.types.is_int8(t):
        return T.ByteType()
    if pa.types.is_int16(t) or pa.types.is_uint8(t):
        return T.ShortType()
    if pa.types.is_int32(t) or pa.types.is_uint16(t):
        return T.IntegerType()
    if pa.types.is_int64(t) or pa.types.is_uint32(t) or pa.types.is_uint64(t):
        # uint64: flow ids, packet and byte counters, µs: far below 2^63 in any capture; the
        # executors' cast is checked, so a larger value fails its task instead of wrapping.
        return T.LongType()
    if pa.types.is_float32(t):
        return T.FloatType()
    if pa.types.is_float64(t):
        return T.DoubleType()
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return T.StringType()
    if pa.types.is_timestamp(t):
        return T.TimestampType() if t.tz is not None else T.TimestampNTZType()
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return T.ArrayType(spark_type(t.value_type), containsNull=t.value_field.nullable)
    raise TypeError(f"no Spark type for the Arrow type {t}")


def _spark_schema(arrow: pa.Schema) -> T.StructType:
    return T.StructType(
        [T.StructField(f.name, spark_type(f.type), nullable=f.nullable) for f in arrow]
    )


def _arrow_of(spark: T.DataType) -> pa.DataType:
    """The Arrow type Spark reads a column of type ``spark`` as (the executors cast to it)."""
    simple = {
        T.BooleanType: pa.bool_(),
        T.ByteType: pa.int8(),
        T.ShortType: pa.int16(),
        T.IntegerType: pa.int32(),
        T.LongType: pa.int64(),
        T.FloatType: pa.float32(),
        T.DoubleType: pa.float64(),
        T.StringType: pa.string(),
        T.TimestampType: pa.timestamp("us", tz="UTC"),
        T.TimestampNTZType: pa.timestamp("us"),
    }
    for cls, at in simple.items():
        if type(spark) is cls:
            return at
    if isinstance(spark, T.ArrayType):
        return pa.list_(pa.field("element", _arrow_of(spark.elementType), spark.containsNull))
    raise TypeError(f"no Arrow type for {spark}")


def _arrow_schema(spark: T.StructType) -> pa.Schema:
    return pa.schema([pa.field(f.name, _arrow_of(f.dataType), f.nullable) for f in spark])


def _check(options: dict) -> pa.Schema:
    """Classify an empty capture with ``options``, here: wirespeed's own checks (a bad option
    raises ``TypeError`` or ``ValueError``; a rules, hosts, ... file that does not parse
    ``ValueError``; one that cannot be read ``OSError``). Returns the run's Arrow schema (the
    columns depend only on the options)."""
    if "source" in options:
        raise TypeError("classify() got multiple values for argument 'source'")
    with tempfile.TemporaryDirectory(prefix="wirespeed-spark-") as d:
        empty = os.path.join(d, "empty.pcap")
        with open(empty, "wb") as f:
            f.write(_EMPTY_PCAP)
        return wirespeed.classify(empty, **options).schema


def schema(**options: Any) -> T.StructType:
    """The Spark schema of ``classify(spark, source, **options)``'s DataFrame (options checked
    as ``classify`` checks them)."""
    return _spark_schema(_check(options))


# --- the executors' part ------------------------------------------------------------------


class _Classify:
    """The function ``mapInArrow`` runs: for each row of its batches (a partition's number, an
    index into ``bins``), ``wirespeed.classify`` of each capture of that bin in turn, cast to
    the Spark schema's Arrow types. Pickled to the executors (by reference to this module,
    which they import from their wirespeed)."""

    def __init__(
        self,
        paths: list[str],
        absolute: list[str],
        bins: list[list[int]],
        options: dict,
        target: pa.Schema,
    ):
        self.paths = paths
        self.absolute = absolute
        self.bins = bins
        self.options = options
        self.target = target

    def __call__(self, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            for b in batch.column(0).to_pylist():
                for i in self.bins[b]:
                    table = self.one(i)
                    if table.num_rows:
                        yield from table.to_batches(max_chunksize=_BATCH_ROWS)

    def one(self, i: int) -> pa.Table:
        path = self.paths[i]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            table = wirespeed.classify(self.absolute[i], **self.options)
        for w in caught:
            print(f"wirespeed: {w.category.__name__}: {w.message}", file=sys.stderr)
        if path != self.absolute[i] and table.num_rows:
            # The path as listed on the driver (as one run writes it), not as this executor
            # opened it.
            at = table.schema.get_field_index("source")
            table = table.set_column(
                at, table.schema.field(at), pa.array([path] * table.num_rows).dictionary_encode()
            )
        return table.cast(self.target, safe=True)


# --- the job ------------------------------------------------------------------------------


def classify(
    spark: Any,
    source: Union[PathLike, Sequence[PathLike]],
    *,
    partitions: Optional[int] = None,
    **options: Any,
) -> Any:
    """Classify every flow of the captures ``source`` stands for, across Spark's executors:
    a ``pyspark.sql.DataFrame`` of one row per flow record, the rows of
    ``wirespeed.classify(source, **options)`` but for ``flow_id`` (that of each capture's own
    run: the key is (``source``, ``flow_id``)), typed as ``schema(**options)`` says.

    Parameters
    ----------
    spark
        The ``SparkSession``.
    source
        A capture file, a directory (its captures and those of its subdirectories; other files
        are left out with a ``SkippedFileWarning``, here on the driver), or a list of these.
        Listed on the driver; each executor must read the same files at the same paths
        (local mode, or a file system mounted alike on every node: NFS, ...). Relative paths
        are taken from the driver's working directory.
    partitions
        How many partitions (tasks) the captures are spread over (default: one capture a
        partition). Fewer than the captures: each partition gets a share of about the same
        bytes (the largest captures first, each to the partition with the fewest bytes so
        far); Spark's overhead is about 0.1 s a task, so many small captures run faster in a
        few partitions per core.
    options
        ``wirespeed.classify``'s options, checked here on the driver (``TypeError``,
        ``ValueError``, ``OSError`` for a rules, hosts, ... file that cannot be read: such
        files, too, must be at the same path on every executor). ``workers`` defaults to 1
        (one thread a task: Spark runs as many tasks at once as it has cores); give
        ``workers=N`` with ``spark.task.cpus=N``.

    The DataFrame is lazy: the captures are read when an action (``count``, ``write``, ...)
    runs, and again by each action (``cache()`` it to read them once).
    """
    options.setdefault("workers", 1)
    target_arrow = _check(options)
    spark_schema = _spark_schema(target_arrow)
    paths = captures(source)
    if partitions is None:
        partitions = max(1, len(paths))
    if isinstance(partitions, bool) or not isinstance(partitions, int):
        raise TypeError(f"partitions must be an int, not {type(partitions).__name__}")
    if partitions < 1:
        raise ValueError(f"partitions must be at least 1 (got {partitions})")
    partitions = max(1, min(partitions, len(paths)))
    absolute = [os.path.abspath(p) for p in paths]
    bins = _bins(absolute, partitions)
    fn = _Classify(paths, absolute, bins, dict(options), _arrow_schema(spark_schema))
    # One row a partition, its number (spark.range splits 0..p-1 over p partitions one each):
    # the task of partition b classifies the captures of bins[b].
    ids = spark.range(0, len(bins), 1, max(1, len(bins)))
    return ids.mapInArrow(fn, spark_schema)


def _bins(paths: list[str], n: int) -> list[list[int]]:
    """The captures (their indices) of each of ``n`` partitions: one each when there are as
    many partitions as captures, else balanced by size (the largest first, each to the bin
    holding the fewest bytes so far), each bin in path order."""
    if n >= len(paths):
        return [[i] for i in range(len(paths))]
    sizes = []
    for p in paths:
        try:
            sizes.append(os.path.getsize(p))
        except OSError:
            sizes.append(0)  # its task will say what is wrong with it
    heap = [(0, b) for b in range(n)]
    bins: list[list[int]] = [[] for _ in range(n)]
    for i in sorted(range(len(paths)), key=lambda i: (-sizes[i], i)):
        load, b = heapq.heappop(heap)
        bins[b].append(i)
        heapq.heappush(heap, (load + sizes[i], b))
    return [sorted(b) for b in bins]


def write_parquet(
    spark: Any,
    source: Union[PathLike, Sequence[PathLike]],
    out: str,
    *,
    partitions: Optional[int] = None,
    mode: str = "errorifexists",
    **options: Any,
) -> None:
    """``classify(spark, source, partitions=..., **options).write.mode(mode).parquet(out)``: a
    Parquet directory ``out`` of one part file a partition, the DataFrame's schema (Spark's
    types; ``spark.read.parquet(out)``, pyarrow, DuckDB read it back). Timestamps are written
    as Parquet's ``TIMESTAMP(MICROS, UTC)``, as ``wirespeed classify --format parquet`` writes
    them, not Spark's default INT96 (which pyarrow reads as nanoseconds): the session's
    ``spark.sql.parquet.outputTimestampType`` is set for the write and put back after."""
    df = classify(spark, source, partitions=partitions, **options)
    key = "spark.sql.parquet.outputTimestampType"
    before = spark.conf.get(key, None)
    spark.conf.set(key, "TIMESTAMP_MICROS")
    try:
        df.write.mode(mode).parquet(out)
    finally:
        if before is None:
            spark.conf.unset(key)
        else:
            spark.conf.set(key, before)


# --- python -m wirespeed.spark ------------------------------------------------------------


def main(argv: Optional[Sequence[str]] = None) -> int:
    """``python -m wirespeed.spark SOURCE... -o OUT.parquet [options]`` (or this file through
    ``spark-submit``): classify the captures into a Parquet directory, and print its row count."""
    import argparse

    ap = argparse.ArgumentParser(
        prog="python -m wirespeed.spark",
        description="Classify the flows of capture files with Spark, into Parquet.",
    )
    ap.add_argument("source", nargs="+", help="capture files or directories")
    ap.add_argument("-o", "--output", required=True, help="the Parquet directory to write")
    ap.add_argument("--mode", default="errorifexists", help="Spark's save mode (overwrite, ...)")
    ap.add_argument("--master", help="Spark master (default: spark-submit's --master, else local[*])")
    ap.add_argument("--partitions", type=int, help="partitions (default: one a capture)")
    ap.add_argument("--workers", type=int, default=1, help="threads a task (default 1)")
    ap.add_argument("--classifiers", default="all")
    ap.add_argument("--stats", default="", help="dist,tcp,entropy")
    ap.add_argument("--features", action="store_true")
    ap.add_argument("--community-id", action="store_true")
    ap.add_argument("--no-tunnels", action="store_true")
    for name in ("rules", "hosts", "networks", "signatures", "patterns", "model"):
        ap.add_argument(f"--{name}")
    for name in ("tcp", "udp", "other", "closed", "active"):
        ap.add_argument(f"--{name}-timeout", type=float)
    a = ap.parse_args(argv)

    options: dict[str, Any] = dict(
        workers=a.workers,
        classifiers=a.classifiers,
        stats=a.stats,
        features=a.features,
        community_id=a.community_id,
        tunnels=not a.no_tunnels,
    )
    for name in ("rules", "hosts", "networks", "signatures", "patterns", "model"):
        if getattr(a, name) is not None:
            options[name] = getattr(a, name)
    for name in ("tcp", "udp", "other", "closed", "active"):
        v = getattr(a, f"{name}_timeout")
        if v is not None:
            options[f"{name}_timeout"] = v

    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName("wirespeed")
    master = a.master
    if master is None and "PYSPARK_GATEWAY_PORT" not in os.environ:
        master = "local[*]"  # run with python, not spark-submit: this machine's cores
    if master is not None:
        builder = builder.master(master)
    if master is not None and master.startswith("local"):
        # The workers of a local run: this Python, whose wirespeed this is (Spark's default is
        # the `python3` on PATH).
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    # Called inside a running Spark application (a notebook's `%run`, a test), use its session
    # and leave it running; otherwise make one and stop it at the end.
    active = SparkSession.getActiveSession()
    spark = active or builder.getOrCreate()
    try:
        write_parquet(
            spark, a.source, a.output, partitions=a.partitions, mode=a.mode, **options
        )
        n = spark.read.parquet(a.output).count()
        print(f"{n} flow records written to {a.output}")
    finally:
        if active is None:
            spark.stop()
    return 0


if __name__ == "__main__":
    # `python -m wirespeed.spark`: run the module's own main, not this __main__ copy, so the
    # tasks unpickle wirespeed.spark's classes by reference.
    from wirespeed.spark import main as _main

    sys.exit(_main())
