"""wirespeed: classify every network flow of capture files, as Arrow tables."""

import os
from typing import Optional, Sequence, Union

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
    model: Optional[PathLike] = None,
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
) -> pa.Table:
    """Classify every flow of capture files (a file, a directory, or a list of them); one row
    per flow record, typed as the Parquet output (docs/SCHEMA.md), in ``flow_id`` order.

    Raises TypeError (wrong type, unknown option), ValueError (bad value, a rules file that
    does not parse) and OSError (an input that cannot be read, naming its path); warns
    CaptureWarning for a damaged capture (its good flows are in the table)."""
