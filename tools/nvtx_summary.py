#!/usr/bin/env python3
"""Where the time of a Loom program goes, from its NVTX ranges, without Nsight Systems.

Run the program with tests/nvtx_recorder.c's injection library (built as
build/tests/libloom_nvtx_recorder.so):

    NVTX_INJECTION64_PATH=$PWD/build/tests/libloom_nvtx_recorder.so \\
    LOOM_NVTX_RECORD=ranges.txt ./build/demo
    python3 tools/nvtx_summary.py ranges.txt            # a table like nsys' nvtx_sum
    python3 tools/nvtx_summary.py --tree ranges.txt     # each range, nested, in order

Times are the host's (CLOCK_MONOTONIC at push and pop), as in nsys' NVTX summary: a range
covers what the thread did inside it, not the GPU work it queued.
"""
import argparse
import statistics
import sys


def read_ranges(lines):
    """[(thread, depth, start_ns, end_ns, name)] in push order; raises on a malformed record."""
    ranges, stacks = [], {}
    for number, line in enumerate(lines, 1):
        line = line.rstrip("\n")
        if not line or line == "injected":
            continue
        fields = line.split(" ", 3)
        if fields[0] == "push" and len(fields) == 4:
            thread, ns = int(fields[1]), int(fields[2])
            stack = stacks.setdefault(thread, [])
            ranges.append([thread, len(stack), ns, None, fields[3]])
            stack.append(len(ranges) - 1)
        elif fields[0] == "pop" and len(fields) == 3:
            thread, ns = int(fields[1]), int(fields[2])
            if not stacks.get(thread):
                raise ValueError(f"line {number}: pop without a push on thread {thread}")
            ranges[stacks[thread].pop()][3] = ns
        else:
            raise ValueError(f"line {number}: not a recorder line: {line!r}")
    open_ranges = [r[4] for r in ranges if r[3] is None]
    if open_ranges:
        raise ValueError(f"ranges never popped: {open_ranges}")
    return [tuple(r) for r in ranges]


def summary(ranges):
    """Rows of nvtx_sum: (time %, total, instances, avg, med, min, max, name), times in ns."""
    by_name = {}
    for _, _, start, end, name in ranges:
        by_name.setdefault(name, []).append(end - start)
    everything = sum(sum(d) for d in by_name.values()) or 1
    rows = [(100.0 * sum(d) / everything, sum(d), len(d), sum(d) / len(d), statistics.median(d),
             min(d), max(d), name) for name, d in by_name.items()]
    return sorted(rows, key=lambda row: -row[1])


def print_summary(rows, out):
    out.write(f"{'Time (%)':>8}  {'Total (ms)':>11}  {'Instances':>9}  {'Avg (ms)':>10}  "
              f"{'Med (ms)':>10}  {'Min (ms)':>10}  {'Max (ms)':>10}  Range\n")
    for pct, total, n, avg, med, lo, hi, name in rows:
        out.write(f"{pct:8.1f}  {total / 1e6:11.3f}  {n:9d}  {avg / 1e6:10.3f}  {med / 1e6:10.3f}  "
                  f"{lo / 1e6:10.3f}  {hi / 1e6:10.3f}  {name}\n")


def print_tree(ranges, out):
    for thread, depth, start, end, name in ranges:
        out.write(f"{thread:>8}  {(end - start) / 1e6:10.3f} ms  {'  ' * depth}{name}\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("record", help="the file LOOM_NVTX_RECORD named")
    parser.add_argument("--tree", action="store_true", help="every range in order, nested")
    args = parser.parse_args()
    with open(args.record) as f:
        ranges = read_ranges(f)
    if args.tree:
        print_tree(ranges, sys.stdout)
    else:
        print_summary(summary(ranges), sys.stdout)


if __name__ == "__main__":
    main()
