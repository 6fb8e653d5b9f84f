#!/usr/bin/env python3
"""Summarizes one TLS row of bench/tls.sh: medians per side, the median over pairs of the
ratio ours/theirs, and the issue's target for that column.

  tls_summary.py RESULTS SPEC
RESULTS: TSV lines "side pair value1 value2 ..."; SPEC: one comma-separated entry per
value column, "name", "name:hi" / "name:lo" (higher / lower is better) or
"name:hi:TARGET" / "name:lo:TARGET" (ours/theirs should be >= / <= TARGET); a bare "name"
is context (no ratio). "pairs min..max" is the spread of the per-pair ratios: a wide one
means a noisy machine, not a result."""
import statistics
import sys


def main(path, spec):
    cols = [c.split(":") for c in spec.split(",")]
    runs = {}  # (side, pair) -> values
    with open(path) as f:
        for line in f:
            fields = line.split()
            runs[(fields[0], int(fields[1]))] = [float(x) for x in fields[2:]]
    pairs = sorted({p for (_, p) in runs})
    both = [p for p in pairs if ("ours", p) in runs and ("theirs", p) in runs
            and len(runs[("ours", p)]) == len(cols) and len(runs[("theirs", p)]) == len(cols)]
    if not both:
        print("(no pair where both sides ran: no ratio)")
        return 0
    print("%-16s %10s %10s %12s %14s  %s" % ("median", "ours", "theirs", "ours/theirs",
                                             "pairs min..max", "target"))
    for i, col in enumerate(cols):
        name = col[0]
        ours = statistics.median(runs[("ours", p)][i] for p in both)
        theirs = statistics.median(runs[("theirs", p)][i] for p in both)
        ratios = [runs[("ours", p)][i] / runs[("theirs", p)][i] for p in both
                  if runs[("theirs", p)][i] > 0]
        if len(col) < 2 or not ratios:  # a context column (no better side) or no ratio
            print("%-16s %10.1f %10.1f %12s %14s" % (name, ours, theirs, "-", "-"))
            continue
        ratio = statistics.median(ratios)
        if len(col) >= 3:
            want = float(col[2])
            met = ratio >= want if col[1] == "hi" else ratio <= want
            target = "%s %s (%s)" % (">=" if col[1] == "hi" else "<=", col[2],
                                     "met" if met else "MISSED")
        else:
            target = "(higher is better)" if col[1] == "hi" else "(lower is better)"
        print("%-16s %10.1f %10.1f %12.3f %14s  %s" % (name, ours, theirs, ratio,
              "%.2f..%.2f" % (min(ratios), max(ratios)), target))
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.stderr.write(__doc__)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))
