#!/usr/bin/env bash
# The Python package's tests (python/tests, pytest): build the wheel with maturin, install it
# into a fresh virtualenv with pyarrow, pandas and pytest, and run the tests against the
# command-line binary built here (the table must equal its JSON records). Needs python3 with
# venv and pip, PyPI (maturin, pyarrow, pandas, pytest, pyspark, nfstream) and Java 17+
# (test_spark.py, Spark's local[2]; nfstream is the peer test_nfstream.py compares with). Extra arguments go to pytest.
#
# The corpus tests use ../shared/corpus or $WIRESPEED_CORPUS; without it they skip, saying so,
# except under CI=true, where they fail (as the Rust tests).
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/python-venv
wheels=target/wheels

# The binary the tests compare with (already built by `cargo test --workspace --release`).
cargo build --release --quiet -p wirespeed

rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    'maturin>=1.9.4,<2' 'pyarrow>=14' pandas pytest 'pyspark[sql]>=4' nfstream
rm -f "$wheels"/wirespeed-*.whl
"$venv/bin/maturin" build --release --manifest-path python/Cargo.toml --out "$wheels"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps \
    "$wheels"/wirespeed-*.whl
# From outside the source tree: the installed wheel is tested, not python/wirespeed.
cd python/tests
WIRESPEED_BIN="$OLDPWD/target/release/wirespeed" "$OLDPWD/$venv/bin/python" -m pytest -q "$@"
