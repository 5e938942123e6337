#!/usr/bin/env python3
"""Writes tests/data/benchmark_cases.txt: the text of cupyx.profiler.benchmark's result
(_PerfCaseResult.__str__, reproduced below with NumPy: mean, population std, min, max of the
times in microseconds) for tests/test_benchmark.c.

One case a line, tab-separated: NAME DEVICE CPU_TIMES GPU_TIMES EXPECTED, the times as
comma-separated C99 hex floats (seconds).

Usage: python3 tools/gen_benchmark_cases.py > tests/data/benchmark_cases.txt
"""
import numpy as np


def item(device_name, t):
    t_us = t * 1e6
    s = '    {}:{:9.03f} us'.format(device_name, t_us.mean())
    if t.size > 1:
        s += '   +/-{:6.03f} (min:{:9.03f} / max:{:9.03f}) us'.format(
            t_us.std(), t_us.min(), t_us.max())
    return s


def text(name, device, cpu, gpu):
    return '{:<20s}:{}'.format(name, ' '.join([item('CPU', cpu), item(f'GPU-{device}', gpu)]))


rng = np.random.default_rng(17)
cases = [
    ("one_run", 0, np.array([12.5e-6]), np.array([10.25e-6])),
    ("f", 0, np.array([1e-6, 2e-6, 3e-6]), np.array([4e-6, 4e-6, 4e-6])),
    ("a_name_longer_than_twenty", 1, rng.random(50) * 1e-4, rng.random(50) * 1e-3),
    ("slow", 3, np.array([1.5, 2.25, 0.75]), np.array([1.49, 2.2, 0.7])),
    ("tiny", 0, rng.random(1000) * 1e-7, rng.random(1000) * 1e-8),
    ("", 0, np.array([0.0, 0.0]), np.array([0.0, 1e-9])),
]
for name, device, cpu, gpu in cases:
    hexes = [",".join(float(v).hex() for v in t) for t in (cpu, gpu)]
    print("\t".join([name or "-", str(device), hexes[0], hexes[1], text(name, device, cpu, gpu)]))
