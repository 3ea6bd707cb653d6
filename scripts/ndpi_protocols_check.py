#!/usr/bin/env python3
"""Check data/ndpi_protocols.csv against the corpus' per-flow `encrypted` flag.

For every flow in the corpus (nDPI's own expected output), nDPI's `encrypted`
should equal the `encrypted` column of the table row for the flow's master
protocol: the part of `proto` before the first dot, or the whole `proto` when
it has no dot.

Prints how many flows agree, then lists the flows that disagree and the flows
whose master protocol has no row in the table (those are neither counted as
agreeing nor as disagreeing).

Usage: scripts/ndpi_protocols_check.py [PROTOCOLS_CSV [FLOWS_CSV]]
Defaults: data/ndpi_protocols.csv and ../shared/corpus/flows.csv, relative to
the repository root. Exit status 0 when every covered flow agrees, 1 otherwise.
"""

import collections
import csv
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_TABLE = os.path.join(ROOT, "data", "ndpi_protocols.csv")
DEFAULT_FLOWS = os.path.join(os.path.dirname(ROOT), "shared", "corpus", "flows.csv")


def load_table(path):
    """name -> row dict, skipping '#' comment lines."""
    with open(path, newline="", encoding="utf-8") as f:
        lines = [line for line in f if not line.lstrip().startswith("#")]
    table = {}
    for row in csv.DictReader(lines):
        name = row["name"]
        if name in table:
            raise SystemExit(f"{path}: duplicate protocol name {name!r}")
        if row["encrypted"] not in ("0", "1"):
            raise SystemExit(f"{path}: bad encrypted value for {name!r}: {row['encrypted']!r}")
        table[name] = row
    return table


def master_of(proto):
    return proto.split(".", 1)[0]


def main(argv):
    table_path = argv[1] if len(argv) > 1 else DEFAULT_TABLE
    flows_path = argv[2] if len(argv) > 2 else DEFAULT_FLOWS
    table = load_table(table_path)

    total = agree = 0
    disagree = []
    uncovered = []
    with open(flows_path, newline="", encoding="utf-8") as f:
        for flow in csv.DictReader(f):
            total += 1
            master = master_of(flow["proto"])
            row = table.get(master)
            if row is None:
                uncovered.append(flow)
            elif row["encrypted"] == flow["encrypted"]:
                agree += 1
            else:
                disagree.append((flow, row))

    covered = total - len(uncovered)
    print(f"table: {table_path} ({len(table)} protocols)")
    print(f"flows: {flows_path} ({total} flows)")
    print(f"agree: {agree} of {covered} flows whose master protocol is in the table"
          f" ({agree / covered:.2%})" if covered else "agree: 0 of 0")
    print(f"disagree: {len(disagree)}")
    print(f"master not in table: {len(uncovered)} flows")

    if disagree:
        print("\nDisagreements (per master protocol: table encrypted vs corpus encrypted):")
        by_master = collections.Counter(
            (master_of(fl["proto"]), row["encrypted"], fl["encrypted"]) for fl, row in disagree)
        for (m, t, c), n in sorted(by_master.items()):
            print(f"  {m}: table={t} corpus={c}  {n} flow(s)")
        print("\nDisagreeing flows:")
        for fl, row in disagree:
            print(f"  {fl['pcap']} #{fl['flow']} {fl['l4']} {fl['proto']}"
                  f" table={row['encrypted']} corpus={fl['encrypted']}")

    if uncovered:
        print("\nMaster protocols with no row in the table:")
        by_master = collections.Counter(master_of(fl["proto"]) for fl in uncovered)
        for m, n in sorted(by_master.items()):
            encs = sorted({fl["encrypted"] for fl in uncovered if master_of(fl["proto"]) == m})
            print(f"  {m}: {n} flow(s), corpus encrypted={'/'.join(encs)}")

    return 0 if not disagree else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
