#!/usr/bin/env bash
# What each part of a run costs, alone, in instructions a packet (issue 37 item 1): callgrind
# (deterministic) of `classify --workers 1 -o /dev/null` on one capture, once as it runs by
# default and once with each part taken away or added; a part's price is the difference,
# divided by the capture's packets (a run's fixed cost, start-up, cancels out). Parts that
# cannot be switched off (reading, decoding, the flow table) are priced from the default run
# itself: its instructions by the source module they were written in (inlined code counted
# where it was written; code of the standard library and of dependencies inlined into ours,
# under the module of the function it was inlined into).
#
#   scripts/price_table.sh [BIN] [CAPTURE]      (defaults: target/dist/wirespeed, a corpus mix x2)
#
# Needs valgrind; ~20 callgrind runs of ~30 s each on the corpus mix x2. Prints Markdown.
set -euo pipefail
bin=${1:-target/dist/wirespeed}
cap=${2:-}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
if [ -z "$cap" ]; then
    corpus=${WIRESPEED_CORPUS:-$(dirname "$0")/../../shared/corpus}/pcap
    cap=$dir/mix2.pcap
    python3 "$(dirname "$0")/corpus_mix.py" "$corpus" "$cap" 2 >/dev/null
fi
packets=$("$bin" classify "$cap" --workers 1 -o /dev/null -v 2>&1 | sed -n 's/^wirespeed: 1 input, \([0-9]*\) packets.*/\1/p')
[ -n "$packets" ] || { echo "price_table: could not count the packets of $cap" >&2; exit 1; }

# Instructions of one run with these extra arguments.
instr() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" classify "$cap" --workers 1 -q -o "${OUT:-/dev/null}" "$@" 2>&1 |
        sed -n 's/.*I *refs: *//p' | tr -d ,
}
per() { # instructions difference / packets, one decimal
    python3 -c "import sys; print(f'{(int(sys.argv[1]) - int(sys.argv[2])) / int(sys.argv[3]):+.1f}')" "$1" "$2" "$packets"
}

base_out=$dir/base.cg
valgrind --tool=callgrind --callgrind-out-file="$base_out" "$bin" classify "$cap" --workers 1 -q -o /dev/null >/dev/null 2>&1
base=$(callgrind_annotate "$base_out" 2>/dev/null | sed -n 's/^ *\([0-9,]*\) .*PROGRAM TOTALS.*/\1/p' | tr -d ,)
"$bin" gen demo -o "$dir/demo.pcap" >/dev/null 2>&1
fixed=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" classify "$dir/demo.pcap" --workers 1 -q -o /dev/null 2>&1 | sed -n 's/.*I *refs: *//p' | tr -d ,)

echo "Capture: $cap, $packets packets; binary: $bin ($("$bin" --version 2>/dev/null || echo '?'))."
echo
echo "Default run: $base instructions, $(python3 -c "print(f'{($base - $fixed) / $packets:.1f}')") a packet with the demo's run ($fixed, start-up) taken off."
echo
echo "### Each part alone (the default run with it taken away, or added)"
echo
echo "| part | how | instructions a packet |"
echo "|---|---|---:|"
all="port,ip,dpt,dns-cache,host-cache,stats,dpi"
for c in port ip dpt dns-cache host-cache stats dpi; do
    rest=$(echo "$all" | tr , '\n' | grep -vx "$c" | paste -sd,)
    echo "| classifier \`$c\` | \`--classifiers\` without it | $(per "$base" "$(instr --classifiers "$rest")") |"
done
echo "| every classifier | \`--classifiers none\` | $(per "$base" "$(instr --classifiers none)") |"

# Record families, through the same column writer: all 69 columns but `source`, then without
# the family too; what no kept column needs is not computed.
cols=$("$bin" classify "$dir/demo.pcap" --format csv -q -o - 2>/dev/null | head -1 | tr -d '\r')
keep() { echo "$cols" | tr , '\n' | grep -vx source | grep -vxE "$1" | paste -sd,; }
kept=$(instr --columns "$(keep '')")
fam() { # name regex
    echo "| record family $1 | \`--columns\` without \`$(echo "$2" | sed 's/|/`, `/g')\` | $(per "$kept" "$(instr --columns "$(keep "$2")")") |"
}
fam "risks" 'risks|risk_score'
fam "fingerprints (JA3, JA4, HASSH)" 'ja3c|ja4|hassh'
fam "address owner" 'ip_owner'
fam "statistical model's guess" 'stats_app|stats_class|stats_score'
fam "payload metadata (every DPI field)" 'sni|alpn|tls_version|ja3c|ja4|http_method|http_host|url|user_agent|http_status|dns_query|dns_qtype|dns_rcode|quic_version|ssh_client|ssh_server|hassh|dhcp_host|matches|tls_cert_subject|tls_cert_issuer|smtp_from|smtp_rcpt|dns_names|http_upgrade|tls_cipher|http_content_type|http_server|http_flags|tls_flags|dns_flags|payload_flags|tls_cert_names'
echo "| the column writer itself | \`--columns\` (68 of 69) against the whole record | $(per "$kept" "$base") |"
for opt in "--features" "--community-id" "--stats dist" "--stats tcp" "--stats entropy"; do
    # shellcheck disable=SC2086
    echo "| optional family \`$opt\` | added | $(per "$(instr $opt)" "$base") |"
done
echo "| transaction events | \`--events FILE\` added | $(per "$(instr --events "$dir/ev.jsonl")" "$base") |"
echo "| sink: CSV | \`--format csv\` against JSON | $(per "$(instr --format csv)" "$base") |"
if OUT=$dir/p.parquet instr --format parquet >"$dir/parquet" 2>/dev/null && [ -s "$dir/parquet" ] && [ -s "$dir/p.parquet" ]; then
    echo "| sink: Parquet | \`--format parquet -o FILE\` against JSON to /dev/null | $(per "$(cat "$dir/parquet")" "$base") |"
fi

echo
echo "### The default run by source module (self instructions a packet, start-up included)"
echo
python3 - "$base_out" "$packets" <<'EOF'
import re, subprocess, sys, collections
out = subprocess.run(["callgrind_annotate", "--auto=no", "--threshold=100", sys.argv[1]],
                     capture_output=True, text=True).stdout
packets = int(sys.argv[2])
buckets = collections.Counter()
line = re.compile(r"^\s*([\d,]+) \([\s\d.]+%\)\s+(\S.*?):(\S.*?)(?: \[.*\])?$")
for l in out.splitlines():
    m = line.match(l)
    if not m or "PROGRAM TOTALS" in l:
        continue
    ir, path, func = int(m[1].replace(",", "")), m[2], m[3]
    ours = not path.startswith(("/rustc/", "/root/", "/rust/", "/usr/", "./"))
    p = re.search(r"crates/([a-z_]+)/src/(?:proto/)?([a-z0-9_]+)", path) if ours else None
    if p:
        key = f"{p[1]}::{p[2]}"
    else:
        # Library code: under our function it was inlined into, else its crate (a
        # dependency's, libc's).
        f = re.match(r"<?(wirespeed_[a-z]+)::(?:proto::)?([A-Za-z0-9_]+)", func)
        if f:
            key = f"{f[1].removeprefix('wirespeed_')}::{f[2]}"
        elif "libc" in l or path.startswith("./"):
            key = "libc (memcpy, memset, malloc)"
        else:
            key = "dependency " + re.split(r"::|<| ", func.lstrip("<"))[0]
    buckets[key] += ir
total = sum(buckets.values())
print("| module | instructions a packet | share |")
print("|---|---:|---:|")
for k, v in buckets.most_common(30):
    print(f"| {k} | {v / packets:.1f} | {100 * v / total:.1f}% |")
rest = total - sum(v for _, v in buckets.most_common(30))
print(f"| the rest ({len(buckets) - 30} modules) | {rest / packets:.1f} | {100 * rest / total:.1f}% |")
EOF
