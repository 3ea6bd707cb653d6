#!/usr/bin/env bash
# Do two builds write the same records? The corpus's records (classify --ordered: by flow_id,
# so the bytes do not depend on worker timing) with 1 and 2 workers, with every optional column,
# and the transaction events, byte for byte. For refactors that must change nothing (issue 35):
#
#   git stash; cargo build --profile dist -p wirespeed; cp target/dist/wirespeed /tmp/before
#   git stash pop; cargo build --profile dist -p wirespeed
#   scripts/records_equal.sh /tmp/before target/dist/wirespeed
#
# Exit 0 when all four are equal; the corpus is ../shared/corpus/pcap or $WIRESPEED_CORPUS/pcap.
set -u
before=${1:?usage: records_equal.sh BEFORE_BIN AFTER_BIN}
after=${2:?usage: records_equal.sh BEFORE_BIN AFTER_BIN}
corpus=${WIRESPEED_CORPUS:-$(dirname "$0")/../../shared/corpus}/pcap
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
status=0
run() { # name bin args...
    local name=$1 bin=$2
    shift 2
    "$bin" classify "$corpus" --ordered -q "$@" 2>/dev/null
}
for w in 1 2; do
    run b "$before" --workers $w -o "$dir/b$w.json"
    run a "$after" --workers $w -o "$dir/a$w.json"
    if cmp -s "$dir/b$w.json" "$dir/a$w.json"; then echo "workers $w: equal"; else echo "workers $w: DIFFERENT"; status=1; fi
done
full=(--workers 2 --features --community-id --stats dist,tcp,entropy)
run b "$before" "${full[@]}" --events "$dir/bev.json" -o "$dir/bfull.json"
run a "$after" "${full[@]}" --events "$dir/aev.json" -o "$dir/afull.json"
if cmp -s "$dir/bfull.json" "$dir/afull.json"; then echo "every optional column: equal"; else echo "every optional column: DIFFERENT"; status=1; fi
# Events are written as transactions complete, per worker: compared as sorted lines.
if cmp -s <(sort "$dir/bev.json") <(sort "$dir/aev.json"); then echo "events: equal"; else echo "events: DIFFERENT"; status=1; fi
exit $status
