#!/usr/bin/env bash
# Independent check of our C4.5 against Weka's J48 on the same data and the same folds.
#
#   scripts/j48_compare.sh [CORPUS_DIR]        (default ../shared/corpus)
#
# 1. `wirespeed train --algo c45` cross-validates by capture file and writes every fold's
#    training and test sets as ARFF (the same attributes our tree sees; missing values as '?').
# 2. Weka 3.8.6 (weka-stable, from Maven Central through `mvn dependency:get`) runs J48 with its
#    defaults (-C 0.25 -M 2) on each fold: train on foldN-train.arff, test on foldN-test.arff.
# 3. Prints, per fold, J48's tree size and test accuracy beside ours.
# WIRESPEED=path/to/wirespeed uses an already built binary instead of `cargo run --release`.
# Needs: cargo, java (17+), mvn with access to Maven Central.
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=${1:-../shared/corpus}
work=${TMPDIR:-/tmp}/wirespeed-j48
mkdir -p "$work"
mvn -q dependency:get -Dartifact=nz.ac.waikato.cms.weka:weka-stable:3.8.6 >/dev/null
repo=${M2_REPO:-$HOME/.m2/repository}
# weka-stable and the runtime dependencies J48 needs from the command line.
cp_jars=$( (find "$repo/nz/ac/waikato" "$repo/com/github/vbmacher" -name '*.jar' 2>/dev/null || true) | tr '\n' ':')
${WIRESPEED:-cargo run --release -q -p wirespeed --} train --algo c45 --labels "$corpus/flows.csv" "$corpus/pcap" \
    --arff-folds "$work" > "$work/ours.txt"
grep -E 'tree size|accuracy' "$work/ours.txt"
total=0
correct=0
for tr in "$work"/fold*-train.arff; do
    te=${tr%-train.arff}-test.arff
    out=$(java -Xmx2g -cp "$cp_jars" weka.classifiers.trees.J48 -C 0.25 -M 2 -t "$tr" -T "$te" 2>/dev/null)
    size=$(echo "$out" | sed -n 's/^Size of the tree : *//p' | head -1 | tr -d '[:space:]')
    leaves=$(echo "$out" | sed -n 's/^Number of Leaves *: *//p' | head -1 | tr -d '[:space:]')
    line=$(echo "$out" | sed -n '/=== Error on test data ===/,$p' | grep -m1 'Correctly Classified Instances')
    n_ok=$(echo "$line" | awk '{print $4}')
    n_all=$(grep -c -v -e '^@' -e '^$' "$te")
    echo "J48 $(basename "$tr" -train.arff): tree size $size ($leaves leaves), test accuracy $n_ok/$n_all"
    total=$((total + n_all))
    correct=$((correct + n_ok))
done
echo "J48 overall test accuracy: $correct/$total = $(awk -v c="$correct" -v t="$total" 'BEGIN{printf "%.3f", c/t}')"
