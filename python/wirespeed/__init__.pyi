"""wirespeed: classify every network flow of capture files and live links, as Arrow tables."""

import os
from typing import Iterator, Optional, Sequence, Union

import pyarrow as pa

__version__: str

PathLike = Union[str, os.PathLike[str]]

class CaptureWarning(UserWarning):
    """A damaged capture: its good packets' flows are in the table; the message names the
    file and the byte offset."""

class SkippedFileWarning(UserWarning):
    """A file inside a directory source that is not a capture was left out."""

def classifiers() -> list[str]:
    """The names of the classifiers, in the order they run."""

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
    model: Union[PathLike, bytes, Model, None] = None,
    tcp_timeout: Optional[float] = None,
    udp_timeout: Optional[float] = None,
    other_timeout: Optional[float] = None,
    closed_timeout: float = 10.0,
    active_timeout: Optional[float] = None,
    max_flows: int = 1048576,
    stats: Union[str, Sequence[str]] = (),
    features: bool = False,
    community_id: bool = False,
    tunnels: bool = True,
    columns: Union[str, Sequence[str], None] = None,
    learn_stats: bool = False,
    dpi_contexts: int = 65536,
    dpi_reclaim_after: int = 1000,
) -> pa.Table:
    """Classify every flow of capture files (a file, a directory, or a list of them); one row
    per flow record, typed as the Parquet output (docs/SCHEMA.md), in ``flow_id`` order.

    Raises TypeError (wrong type, unknown option), ValueError (bad value, a rules file that
    does not parse) and OSError (an input that cannot be read, naming its path); warns
    CaptureWarning for a damaged capture (its good flows are in the table)."""

class FlowStream:
    """A run's records, one pyarrow.RecordBatch at a time, as its workers cut them."""

    @property
    def schema(self) -> pa.Schema: ...
    @property
    def summary(self) -> Optional[dict[str, int]]: ...
    def __iter__(self) -> Iterator[pa.RecordBatch]: ...
    def __next__(self) -> pa.RecordBatch: ...
    def read_all(self) -> pa.Table: ...
    def stop(self) -> None:
        """Stop reading packets; the flows are ended and their records still come."""
    def close(self) -> None:
        """Stop the run; the records not yet read are dropped."""
    def __enter__(self) -> FlowStream: ...
    def __exit__(self, *exc: object) -> None: ...

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
    model: Union[PathLike, bytes, Model, None] = None,
    tcp_timeout: Optional[float] = None,
    udp_timeout: Optional[float] = None,
    other_timeout: Optional[float] = None,
    closed_timeout: float = 10.0,
    active_timeout: Optional[float] = None,
    max_flows: int = 1048576,
    stats: Union[str, Sequence[str]] = (),
    features: bool = False,
    community_id: bool = False,
    tunnels: bool = True,
    columns: Union[str, Sequence[str], None] = None,
    learn_stats: bool = False,
    dpi_contexts: int = 65536,
    dpi_reclaim_after: int = 1000,
) -> FlowStream:
    """The records of capture files (``source``) or live interfaces (``interface``, root) as
    an iterator of record batches, handed over as flows end, in bounded memory."""

EVENT_SCHEMA: pa.Schema

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
    max_flows: int = 1048576,
    tunnels: bool = True,
) -> pa.Table:
    """The DNS, HTTP and TLS transactions of capture files, one row each (docs/EVENTS.md)."""

class Model:
    """A statistical model trained by ``wirespeed.train``."""

    bytes: bytes
    classes: list[str]
    report: str
    counts: dict[str, int]
    errors: list[str]
    def save(self, path: PathLike) -> None: ...

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
    """Train a statistical model from captures and nDPI-shaped labels (``wirespeed train``)."""

def inputs(source: Union[PathLike, Sequence[PathLike]]) -> list[str]:
    """The capture files a run over ``source`` reads, in order."""
