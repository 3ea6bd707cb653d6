#!/usr/bin/env bash
# Do two builds write the same records? The corpus's records (classify --ordered: by flow_id,
# so the bytes do not depend on worker timing) with 1 and 2 workers, with every optional column,
# and the transaction events, byte for byte. For refactors that must change nothing (issue 35):
#
#   git stash; cargo build --profile dist -p wirespeed; cp target/dist/wirespeed /tmp/before
#   git stash pop; cargo build --profile dist -p wirespeed
#   scripts/records_equal.sh /tmp/before target/dist/wirespeed [csv]
#
# Records as JSON lines, or as CSV when the third argument says so (the writers differ). An
# empty output (a run that wrote nothing) is not equal to anything.
# Exit 0 when all four are equal; the corpus is ../shared/corpus/pcap or $WIRESPEED_CORPUS/pcap.
set -u
before=${1:?usage: records_equal.sh BEFORE_BIN AFTER_BIN [json|csv]}
after=${2:?usage: records_equal.sh BEFORE_BIN AFTER_BIN [json|csv]}
format=${3:-json}
corpus=${WIRESPEED_CORPUS:-$(dirname "$0")/../../shared/corpus}/pcap
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
status=0
run() { # name bin args...
    local name=$1 bin=$2
    shift 2
    "$bin" classify "$corpus" --ordered -q --format "$format" "$@" 2>/dev/null
}
for w in 1 2; do
    run b "$before" --workers $w -o "$dir/b$w.$format"
    run a "$after" --workers $w -o "$dir/a$w.$format"
    if [ -s "$dir/b$w.$format" ] && cmp -s "$dir/b$w.$format" "$dir/a$w.$format"; then echo "workers $w: equal"; else echo "workers $w: DIFFERENT"; status=1; fi
done
full=(--workers 2 --features --community-id --stats dist,tcp,entropy)
run b "$before" "${full[@]}" --events "$dir/bev.json" -o "$dir/bfull.$format"
run a "$after" "${full[@]}" --events "$dir/aev.json" -o "$dir/afull.$format"
if [ -s "$dir/bfull.$format" ] && cmp -s "$dir/bfull.$format" "$dir/afull.$format"; then echo "every optional column: equal"; else echo "every optional column: DIFFERENT"; status=1; fi
# Events are written as transactions complete, per worker: compared as sorted lines.
if [ -s "$dir/bev.json" ] && cmp -s <(sort "$dir/bev.json") <(sort "$dir/aev.json"); then echo "events: equal"; else echo "events: DIFFERENT"; status=1; fi
exit $status
