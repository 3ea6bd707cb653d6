"""The native half of the ``wirespeed`` package (use the functions of ``wirespeed``)."""

from typing import Any, Optional

__version__: str

def classify(
    paths: list[str],
    *,
    workers: Optional[int] = None,
    classifiers: str = "all",
    stats: list[str] = ...,
    rules: Optional[str] = None,
    hosts: Optional[str] = None,
    networks: Optional[str] = None,
    signatures: Optional[str] = None,
    patterns: Optional[str] = None,
    model: Optional[str] = None,
    model_bytes: Optional[bytes] = None,
    no_model: bool = False,
    tcp_timeout: Optional[float] = None,
    udp_timeout: Optional[float] = None,
    other_timeout: Optional[float] = None,
    closed_timeout: Optional[float] = None,
    active_timeout: Optional[float] = None,
    max_flows: int = 1048576,
    features: bool = False,
    community_id: bool = False,
    tunnels: bool = True,
    columns: Optional[list[str]] = None,
    dpi_contexts: int = 65536,
    dpi_reclaim_after: int = 1000,
    learn_stats: bool = False,
) -> tuple[object, list[tuple[str, str]], list[tuple[str, int]]]:
    """Every record of ``paths`` as an Arrow C stream (a PyCapsule named
    ``arrow_array_stream``), the warnings to raise as (kind, message), and the run's counters."""

def classifier_names() -> list[str]:
    """The names of the classifiers, in the order they run."""

class Stream:
    def next_item(self) -> Optional[tuple[str, Any]]: ...
    def schema(self) -> object: ...
    def summary(self) -> Optional[list[tuple[str, int]]]: ...
    def stop(self) -> None: ...
    def close(self) -> None: ...

def stream_files(paths: list[str], *, batch_rows: int = 8192, **options: Any) -> Stream:
    """A run over capture files whose records come batch by batch."""

def stream_live(
    interfaces: list[str],
    *,
    filter: Optional[str] = None,
    duration: Optional[float] = None,
    batch_rows: int = 8192,
    **options: Any,
) -> Stream:
    """A live capture whose records come batch by batch; returns once its sockets are open."""

def events(
    paths: list[str], **options: Any
) -> tuple[bytes, list[tuple[str, str]], list[tuple[str, int]]]:
    """The transaction events of ``paths`` as JSON lines, the warnings, the counters."""

def train(
    paths: list[str], labels: str, **params: Any
) -> tuple[bytes, str, list[str], list[tuple[str, int]], list[str]]:
    """A model's bytes, the cross-validation report, the classes, the counts, the errors."""

def inputs(paths: list[str]) -> tuple[list[str], list[str]]:
    """The capture files a run over ``paths`` reads, and the files left out."""
