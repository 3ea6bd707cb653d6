import os
from typing import Any, Iterator, NamedTuple, Optional, Sequence, Union

import pandas
import pyarrow as pa

_Path = Union[str, "os.PathLike[str]"]

class Column(NamedTuple):
    group: str
    type: str
    source: str
    note: str

NA: str
COLUMNS: dict[str, Column]
ARGUMENTS: dict[str, str]

def columns(
    decode_tunnels: bool = ...,
    statistical_analysis: bool = ...,
    splt_analysis: int = ...,
    n_dissections: int = ...,
) -> list[str]: ...
def mapping_markdown() -> str: ...

class NFlow:
    def __getattr__(self, name: str) -> Any: ...
    def keys(self) -> list[str]: ...
    def values(self) -> list[Any]: ...

class NFStreamer:
    source: Union[_Path, Sequence[_Path]]
    decode_tunnels: bool
    bpf_filter: None
    promiscuous_mode: bool
    snapshot_length: int
    socket_buffer_size: int
    idle_timeout: int
    active_timeout: int
    accounting_mode: int
    n_dissections: int
    statistical_analysis: bool
    splt_analysis: int
    n_meters: int
    max_nflows: int
    performance_report: int
    system_visibility_mode: int
    system_visibility_poll_ms: int
    def __init__(
        self,
        source: Union[_Path, Sequence[_Path], None] = None,
        decode_tunnels: bool = True,
        bpf_filter: Optional[str] = None,
        promiscuous_mode: bool = True,
        snapshot_length: int = 1536,
        socket_buffer_size: int = 0,
        idle_timeout: int = 120,
        active_timeout: int = 1800,
        accounting_mode: int = 0,
        udps: Any = None,
        n_dissections: int = 20,
        statistical_analysis: bool = False,
        splt_analysis: int = 0,
        n_meters: int = 0,
        max_nflows: int = 0,
        performance_report: int = 0,
        system_visibility_mode: int = 0,
        system_visibility_poll_ms: int = 100,
    ) -> None: ...
    def to_arrow(self) -> pa.Table: ...
    def to_pandas(self, columns_to_anonymize: Sequence[str] = ...) -> Optional[pandas.DataFrame]: ...
    def to_csv(
        self,
        path: Optional[_Path] = None,
        columns_to_anonymize: Sequence[str] = ...,
        flows_per_file: int = 0,
        rotate_files: int = 0,
    ) -> int: ...
    def __iter__(self) -> Iterator[NFlow]: ...
