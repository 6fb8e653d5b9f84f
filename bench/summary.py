#!/usr/bin/env python3
"""Summarizes bench/run.sh results: medians per side and the median over pairs of the
ratio ours/theirs. Input: TSV lines "side pair req/s p50_us p99_us cpu_us_per_req"."""
import statistics
import sys


def main(path):
    runs = {}  # (side, pair) -> (rps, p50, p99, cpu)
    with open(path) as f:
        for line in f:
            side, pair, rps, p50, p99, cpu = line.split()
            runs[(side, int(pair))] = tuple(float(x) for x in (rps, p50, p99, cpu))
    pairs = sorted({p for (_, p) in runs})
    names = ("req/s", "p50_us", "p99_us", "cpu_us/req")
    print("%-22s %12s %12s %12s" % ("median", "ours", "theirs", "ours/theirs"))
    for i, name in enumerate(names):
        ours = [runs[("ours", p)][i] for p in pairs if ("ours", p) in runs]
        theirs = [runs[("theirs", p)][i] for p in pairs if ("theirs", p) in runs]
        ratios = [runs[("ours", p)][i] / runs[("theirs", p)][i] for p in pairs
                  if ("ours", p) in runs and ("theirs", p) in runs
                  and runs[("theirs", p)][i] > 0]
        if not ours or not theirs:
            continue
        print("%-22s %12.1f %12.1f %12s" % (name, statistics.median(ours),
              statistics.median(theirs),
              "%.3f" % statistics.median(ratios) if ratios else "-"))
    print("(ours/theirs is the median over pairs of each pair's ratio: above 1 is better"
          " for req/s, below 1 is better for latency and cpu_us/req)")


if __name__ == "__main__":
    main(sys.argv[1])
