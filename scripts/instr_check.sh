#!/usr/bin/env bash
# The cost guard (issue 37): instructions a packet of `wirespeed classify` on the corpus mix ×1
# (scripts/corpus_mix.py: every Ethernet capture of the corpus in one file), counted by callgrind,
# with the demo capture's run taken off as the fixed cost of a run; and that fixed cost itself
# (start-up, `classify` of the 9-flow demo). Fails when either rises more than 3% over the
# figures committed in BENCHMARKS.md (its `instr-check:` line), so that the next feature pays for
# itself or says so by updating the line. Callgrind counts instructions, not time: the same build
# on the same kind of machine gives the same count whatever the load (CI runs on the submitting
# session's machine, with the same toolchain).
#
# usage: scripts/instr_check.sh [--update] [BIN]
#   BIN       the binary to measure (default target/release/wirespeed: the build the README's
#             test command makes; the committed figures are for that build, not `dist`)
#   --update  write today's figures into BENCHMARKS.md instead of checking them
# Needs valgrind, python3 and the corpus (../shared/corpus/pcap or $WIRESPEED_CORPUS).
set -euo pipefail
cd "$(dirname "$0")/.."
update=0
bin=target/release/wirespeed
for a in "$@"; do
    case "$a" in
        --update) update=1 ;;
        -*) echo "instr_check: unknown option $a" >&2; exit 2 ;;
        *) bin=$a ;;
    esac
done
corpus=${WIRESPEED_CORPUS:-../shared/corpus}/pcap
[ -x "$bin" ] || { echo "instr_check: no binary at $bin (cargo build --release first)" >&2; exit 2; }
[ -d "$corpus" ] || { echo "instr_check: no corpus at $corpus" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "instr_check: valgrind is not installed" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 scripts/corpus_mix.py "$corpus" "$work/mix1.pcap" 1 >/dev/null
"$bin" gen demo -o "$work/demo.pcap" >/dev/null 2>&1

# Instructions of one whole `classify` run (one worker, records as JSON to /dev/null).
count() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" classify "$1" \
        --workers 1 -o /dev/null -q 2>&1 >/dev/null \
        | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
demo=$(count "$work/demo.pcap")
mix=$(count "$work/mix1.pcap")
# Packets of the mix: the run's own count, checked against the file's records (corpus_mix.py
# writes plain pcap: 16-byte record headers).
packets=$(python3 - "$work/mix1.pcap" <<'PY'
import struct, sys
b = open(sys.argv[1], 'rb').read()
off, n = 24, 0
while off + 16 <= len(b):
    off += 16 + struct.unpack('<I', b[off + 8:off + 12])[0]
    n += 1
print(n)
PY
)
[ -n "$demo" ] && [ -n "$mix" ] && [ "$packets" -gt 0 ] || {
    echo "instr_check: callgrind gave no count (demo '$demo', mix '$mix', $packets packets)" >&2
    exit 2
}
per_packet=$(python3 -c "print(f'{($mix - $demo) / $packets:.1f}')")
echo "instr_check: $bin: ${per_packet} instructions a packet on the corpus mix x1" \
    "($packets packets, $mix in all), start-up (the demo's run) $demo"

line="instr-check: per_packet=$per_packet demo=$demo packets=$packets"
if [ "$update" = 1 ]; then
    python3 - "$line" <<'PY'
import re, sys
p = 'BENCHMARKS.md'
s = open(p).read()
s, n = re.subn(r'instr-check: [^`\n]*', sys.argv[1], s)
if n != 1:
    sys.exit(f"instr_check: BENCHMARKS.md has {n} instr-check lines, not one")
open(p, 'w').write(s)
PY
    echo "instr_check: BENCHMARKS.md updated: $line"
    exit 0
fi
python3 - "$per_packet" "$demo" "$packets" <<'PY'
import re, sys
per_packet, demo, packets = float(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
m = re.search(r'instr-check: per_packet=([0-9.]+) demo=([0-9]+) packets=([0-9]+)',
              open('BENCHMARKS.md').read())
if not m:
    sys.exit("instr_check: BENCHMARKS.md has no instr-check line")
want_pp, want_demo, want_packets = float(m[1]), int(m[2]), int(m[3])
if packets != want_packets:
    sys.exit(f"instr_check: the mix has {packets} packets, the committed figure {want_packets}: "
             "the corpus changed; measure again with --update")
bad = []
for what, got, want in (("instructions a packet", per_packet, want_pp),
                        ("start-up instructions", demo, want_demo)):
    change = (got - want) / want * 100
    print(f"instr_check: {what}: {got:,} against {want:,} committed ({change:+.1f}%)")
    if change > 3.0:
        bad.append(what)
    elif change < -3.0:
        print(f"instr_check: {what} fell by more than 3%: commit the new figure "
              "(scripts/instr_check.sh --update)")
if bad:
    sys.exit("instr_check: more than 3% over the committed figure: " + ", ".join(bad)
             + " (make it cheaper, or say why in BENCHMARKS.md and run with --update)")
PY
