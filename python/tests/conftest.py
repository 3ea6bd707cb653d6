"""What the Python tests share: the corpus, the command-line binary they compare with, and a
runner of it.

The corpus is ``../shared/corpus`` beside the checkout, or the directory ``WIRESPEED_CORPUS``
names (as the Rust tests find it); the binary is ``target/release/wirespeed``, or
``WIRESPEED_BIN``. Without them the tests that need them skip, saying so, except under
``CI=true``, where they fail: CI must not pass by skipping.
"""

from __future__ import annotations

import json
from decimal import Decimal
import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CI = os.environ.get("CI") == "true"


def _missing(why: str):
    if CI:
        pytest.fail(f"{why}; CI=true, so this fails instead of skipping")
    pytest.skip(why)


@pytest.fixture(scope="session")
def corpus() -> Path:
    root = Path(os.environ.get("WIRESPEED_CORPUS") or REPO.parent / "shared" / "corpus")
    pcap = root / "pcap"
    if not pcap.is_dir():
        _missing(f"the corpus is not at {root} (set WIRESPEED_CORPUS to its directory)")
    return pcap


@pytest.fixture(scope="session")
def cli() -> "Cli":
    binary = Path(os.environ.get("WIRESPEED_BIN") or REPO / "target" / "release" / "wirespeed")
    if not os.access(binary, os.X_OK):
        _missing(
            f"the wirespeed binary is not at {binary} (cargo build --release -p wirespeed, "
            "or set WIRESPEED_BIN)"
        )
    return Cli(binary)


class Cli:
    """The command line's ``classify``: the independent front end the table is compared with."""

    def __init__(self, binary: Path):
        self.binary = binary

    def run(self, args: list[str]) -> subprocess.CompletedProcess:
        return subprocess.run(
            [str(self.binary), *args], capture_output=True, text=True, check=False
        )

    def records(self, inputs: list, options: list[str] = ()) -> tuple[list[dict], int, str]:
        """Every JSON record of ``classify -q OPTIONS INPUTS`` (numbers with a fraction as
        ``Decimal``: exactly the text written), the exit status and standard error."""
        p = self.run(["classify", "-q", *options, *map(str, inputs)])
        if p.returncode not in (0, 1):
            raise AssertionError(f"wirespeed classify failed ({p.returncode}): {p.stderr}")
        records = [json.loads(line, parse_float=Decimal) for line in p.stdout.splitlines()]
        return records, p.returncode, p.stderr
