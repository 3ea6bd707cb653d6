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
step() { echo "== test-python: $1 (${SECONDS} s so far)"; }

step "virtualenv, maturin"
rm -rf "$venv"
python3 -m venv "$venv"
pip=("$venv/bin/python" -m pip install --quiet --disable-pip-version-check)
"${pip[@]}" 'maturin>=1.9.4,<2'
# The test's packages download (pyspark alone is 300 MiB) while the wheel compiles.
step "the command line and the wheel (maturin), PyPI packages beside them"
pip_log="$venv/pip.log"
"${pip[@]}" 'pyarrow>=14' pandas polars pytest 'pyspark[sql]>=4' nfstream >"$pip_log" 2>&1 &
pip_pid=$!
# The binary the tests compare with, as `cargo test --workspace --release` builds it (after it,
# nothing to do; `cargo build -p wirespeed` would compile 13 crates again: features resolved for
# one package, not the workspace).
if ! cargo test --workspace --release --no-run --quiet; then
    kill "$pip_pid" 2>/dev/null || true
    exit 1
fi
rm -f "$wheels"/wirespeed-*.whl
if ! "$venv/bin/maturin" build --release --manifest-path python/Cargo.toml --out "$wheels"; then
    kill "$pip_pid" 2>/dev/null || true
    exit 1
fi
step "waiting for the PyPI packages"
if ! wait "$pip_pid"; then
    cat "$pip_log" >&2
    echo "test-python: pip install of the test's packages failed (above)" >&2
    exit 1
fi
"${pip[@]}" --no-deps \
    "$wheels"/wirespeed-*.whl
step "pytest"
# From outside the source tree: the installed wheel is tested, not python/wirespeed.
cd python/tests
WIRESPEED_BIN="$OLDPWD/target/release/wirespeed" "$OLDPWD/$venv/bin/python" -m pytest -q "$@"
