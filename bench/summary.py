#!/usr/bin/env python3
"""Summarizes bench/run.sh results: medians per side and the median over pairs of the
ratio ours/theirs. Input: TSV lines "side pair req/s p50_us p99_us cpu_us_per_req"."""
import statistics
import sys


def main(path, a="ours", b="theirs"):
    runs = {}  # (side, pair) -> (rps, p50, p99, cpu)
    with open(path) as f:
        for line in f:
            side, pair, rps, p50, p99, cpu = line.split()
            runs[(side, int(pair))] = tuple(float(x) for x in (rps, p50, p99, cpu))
    pairs = sorted({p for (_, p) in runs})
    names = ("req/s", "p50_us", "p99_us", "cpu_us/req")
    print("%-22s %12s %12s %12s" % ("median", a, b, "%s/%s" % (a, b)))
    for i, name in enumerate(names):
        ours = [runs[(a, p)][i] for p in pairs if (a, p) in runs]
        theirs = [runs[(b, p)][i] for p in pairs if (b, p) in runs]
        ratios = [runs[(a, p)][i] / runs[(b, p)][i] for p in pairs
                  if (a, p) in runs and (b, p) in runs and runs[(b, p)][i] > 0]
        if not ours or not theirs:
            continue
        print("%-22s %12.1f %12.1f %12s" % (name, statistics.median(ours),
              statistics.median(theirs),
              "%.3f" % statistics.median(ratios) if ratios else "-"))
    print("(%s/%s is the median over pairs of each pair's ratio: above 1 is better"
          " for req/s, below 1 is better for latency and cpu_us/req)" % (a, b))


if __name__ == "__main__":
    main(*sys.argv[1:4])
