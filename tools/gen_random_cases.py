#!/usr/bin/env python3
"""Argument checks of numpy.random.Generator's distributions, for tests/test_random.c.

Writes tests/data/random_errors.txt: one case a line, "name a b c | outcome", where name is a
Generator method, a b c its numeric arguments (unused ones 0; integers: low high endpoint and
the dtype name) and outcome "ok" or NumPy's message. Run: python3 tools/gen_random_cases.py >
tests/data/random_errors.txt (NumPy 2).
"""
import math
import numpy as np

nan, inf = math.nan, math.inf
g = np.random.default_rng(0)

# name: number of float arguments
FLOAT_CASES = {
    "uniform": [(0, 1), (1, 1), (2, 1), (0, inf), (-inf, 0), (0, nan), (-1e308, 1e308), (-3, 5)],
    "normal": [(0, 1), (0, 0), (0, -1), (0, nan), (inf, 1)],
    "exponential": [(1,), (0,), (-1,), (nan,)],
    "standard_gamma": [(1,), (0,), (-1,), (0.5,), (nan,)],
    "gamma": [(1, 1), (-1, 1), (1, -1), (0, 1), (2, 0)],
    "beta": [(1, 1), (0, 1), (1, 0), (-1, 1), (0.5, 0.5), (nan, 1)],
    "chisquare": [(1,), (0,), (-1,), (0.1,)],
    "f": [(1, 1), (0, 1), (1, 0), (-1, -1)],
    "standard_t": [(1,), (0,), (-2,)],
    "lognormal": [(0, 1), (0, -1), (0, 0)],
    "laplace": [(0, 1), (0, -1), (0, 0)],
    "logistic": [(0, 1), (0, -1)],
    "gumbel": [(0, 1), (0, -1)],
    "weibull": [(1,), (0,), (-1,)],
    "pareto": [(1,), (0,), (-1,)],
    "power": [(1,), (0,), (-1,)],
    "rayleigh": [(1,), (0,), (-1,)],
    "wald": [(1, 1), (0, 1), (1, 0), (-1, 1)],
    "triangular": [(0, 1, 2), (1, 0, 2), (0, 3, 2), (1, 1, 1), (0, 0, 1), (0, 1, 1)],
    "poisson": [(1,), (0,), (-1,), (nan,), (1e20,), (9.2e18,)],
    "geometric": [(0.5,), (1,), (0,), (1.5,), (-0.1,), (nan,)],
    "negative_binomial": [(1, 0.5), (0, 0.5), (-1, 0.5), (nan, 0.5), (1, 0), (1, 1), (1, 1.5),
                          (1e18, 1e-10)],
    "binomial": [(5, 0.5), (0, 0.5), (-1, 0.5), (5, 0), (5, 1), (5, -0.1), (5, 1.5), (5, nan),
                 (2**40, 0.3)],
    "hypergeometric": [(5, 5, 5), (-1, 2, 1), (1, -2, 1), (1, -2, -5), (1, -2, 0), (1, 2, -1),
                       (5, 5, -1), (1, 2, 4), (1, 2, 3), (0, 0, 0), (0, 5, 0), (10**9, 1, 1),
                       (5, 10**9, 1), (10**9 - 1, 10**9 - 1, 10)],
    "logseries": [(0.5,), (0,), (1,), (-0.1,), (0.999,), (nan,)],
    "zipf": [(2,), (1,), (0.5,), (1.0001,), (nan,), (2000,)],
    "vonmises": [(0, 1), (0, 0), (0, -1), (0, nan), (nan, 1), (3, 1e7)],
    "dirichlet": [(1, 2, 3), (1, -1, 1), (0, 0, 0), (1, 0, 2), (0.05, 0.02, 0.01), (0, 0, -0.5)],
}
# integer parameters
INT_PARAMS = {"binomial": 1, "hypergeometric": 3}

INT_CASES = [
    (0, 10, False, "int64"), (5, 5, False, "int64"), (5, 5, True, "int64"), (5, 4, True, "int64"),
    (-1, 5, False, "uint8"), (0, 256, False, "uint8"), (0, 257, False, "uint8"),
    (0, 255, True, "uint8"), (0, 256, True, "uint8"), (300, 5, False, "uint8"),
    (-300, -500, False, "int8"), (-128, 128, False, "int8"), (-129, 0, False, "int8"),
    (0, 2, False, "bool"), (0, 3, False, "bool"), (0, 1, True, "bool"),
    (-2**63, 2**63 - 1, True, "int64"), (0, 2**32, False, "uint32"),
    (0, 2**32, True, "uint32"), (-2**31, 2**31, False, "int32"), (0, 2**63 - 1, True, "uint64"),
    (0, 2**16, False, "uint16"), (-2**15, 2**15 - 1, True, "int16"),
]


def outcome(call):
    try:
        call()
        return "ok"
    except (ValueError, OverflowError, TypeError) as e:
        return str(e)


def fmt(x):
    return repr(float(x)) if not isinstance(x, str) else x




def call(name, args):
    if name == "dirichlet":
        return lambda: g.dirichlet(list(args))
    n = INT_PARAMS.get(name, 0)
    return lambda: getattr(g, name)(*[int(a) for a in args[:n]], *args[n:])


for name, cases in FLOAT_CASES.items():
    for args in cases:
        line = " ".join(fmt(a) for a in list(args) + [0] * (3 - len(args)))
        print(f"{name} {line} | {outcome(call(name, args))}")
# multivariate_normal: the mean's shape, cov's shape, check_valid, method (mean zeros, cov the
# identity's leading block: always positive definite)
MVN_CASES = [((2,), (2, 2), "warn", "svd"), ((1, 2), (2, 2), "warn", "svd"),
             ((2,), (2,), "warn", "svd"), ((2,), (2, 3), "warn", "svd"),
             ((3,), (2, 2), "warn", "svd"), ((2,), (2, 2), "foo", "svd"),
             ((2,), (2, 2), "raise", "qr"), ((2,), (2, 2), "ignore", "cholesky"),
             ((2,), (2, 2), "raise", "eigh")]
for mshape, cshape, check, method in MVN_CASES:
    mean, cov = np.zeros(mshape), np.eye(*cshape) if len(cshape) == 2 else np.ones(cshape)
    res = outcome(lambda: g.multivariate_normal(mean, cov, check_valid=check, method=method))
    dims = lambda s: ",".join(map(str, s))
    print(f"multivariate_normal {dims(mshape)} {dims(cshape)} {check} {method} | {res}")
for low, high, endpoint, dt in INT_CASES:
    res = outcome(lambda: g.integers(low, high, endpoint=endpoint, dtype=np.dtype(dt)))
    print(f"integers {low} {high} {int(endpoint)} {dt} | {res}")
