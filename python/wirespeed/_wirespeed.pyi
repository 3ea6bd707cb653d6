"""The native half of the ``wirespeed`` package (use ``wirespeed.classify``)."""

from typing import Optional

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
) -> tuple[object, list[tuple[str, str]], list[tuple[str, int]]]:
    """Every record of ``paths`` as an Arrow C stream (a PyCapsule named
    ``arrow_array_stream``), the warnings to raise as (kind, message), and the run's counters."""

def classifier_names() -> list[str]:
    """The names of the classifiers, in the order they run."""
