#!/usr/bin/env bash
# Classify every capture of ../shared/corpus and score the records with the shared scorer
# (../shared/tools/score_labels.py): flows found, per-direction counts, master-protocol agreement.
#   scripts/corpus_score.sh [extra wirespeed classify options...]
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=${WIRESPEED_CORPUS:-../shared/corpus}
out=${OUT:-/tmp/wirespeed-corpus.csv}
cargo build --release -q
target/release/wirespeed classify --format csv --with-source --quiet -o "$out" "$@" "$corpus"/pcap/* || true
python3 ../shared/tools/score_labels.py "$corpus/flows.csv" "$out" --label master --counts --by-proto
