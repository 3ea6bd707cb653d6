#!/usr/bin/env bash
# Two workers against the machine's own ceiling (issue 37 item 4), whole process: each round runs
# `classify` with 1 worker on FILE, with 2 workers on FILE, then two 1-worker processes at once on
# HALF (a file with half of FILE's packets, e.g. the corpus mix x10 beside the mix x20), and prints
# the times and each one's ratio to the 1-worker time. Two processes that share nothing are the
# most two cores of this machine give; 2 workers cannot be expected above them.
#   scripts/pair_rounds.sh FILE HALF [ROUNDS] [BIN]
#   e.g. scripts/corpus_mix.py ../shared/corpus/pcap /tmp/mix20.pcap 20
#        scripts/corpus_mix.py ../shared/corpus/pcap /tmp/mix10.pcap 10
#        scripts/pair_rounds.sh /tmp/mix20.pcap /tmp/mix10.pcap 6 target/dist/wirespeed
set -euo pipefail
file=${1:?usage: pair_rounds.sh FILE HALF [ROUNDS] [BIN]}
half=${2:?usage: pair_rounds.sh FILE HALF [ROUNDS] [BIN]}
rounds=${3:-5}
bin=${4:-target/dist/wirespeed}
secs() { # command...: wall seconds
    local s e
    s=$(date +%s.%N)
    "$@"
    e=$(date +%s.%N)
    echo "$e - $s" | bc
}
pair() {
    "$bin" classify "$half" --workers 1 -q -o /dev/null &
    "$bin" classify "$half" --workers 1 -q -o /dev/null &
    wait
}
cat "$file" "$half" > /dev/null # in the page cache
for _ in $(seq "$rounds"); do
    a=$(secs "$bin" classify "$file" --workers 1 -q -o /dev/null)
    b=$(secs "$bin" classify "$file" --workers 2 -q -o /dev/null)
    c=$(secs pair)
    printf '1 worker %.3f s  2 workers %.3f s (%.2fx)  two processes on halves %.3f s (%.2fx)\n' \
        "$a" "$b" "$(echo "$a / $b" | bc -l)" "$c" "$(echo "$a / $c" | bc -l)"
done
