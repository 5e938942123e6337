"""Builds the benchmark table from loom_bench, the peer scripts and roofline output.

usage: python3 bench/compare.py LOG [LOG ...]
Each LOG holds lines "framework workload median_ms=X min_ms=Y eff_GBps=Z" (loom_bench,
.peers/peer_bench.py and .peers/peer_bench_lib.py print these; GB/s is nan for compute-bound
workloads), "framework workload FAILED reason" where a framework lacks something, and optionally
roofline's "memcpy_d2d ... GB/s" lines. Anything else is ignored.
Prints: workload, Loom ms, best peer ms (which), ratio Loom/peer, eff GB/s, fraction of the copy
limit, TFLOP/s for the matrix products; then the peers that failed."""
import math, re, sys

# Peer workload name -> Loom's, where they differ (the matmuls have the peers' names).
PEER_NAMES = {
    "matmul32": "matmul32",
    "matmul64_10k": "matmul64_10k",
    "matmul_relu_bias": "matmul_relu_bias",
    "bmm64": "bmm64",
    "randn64M_rng": "randn64M",  # CuPy's default_rng against Loom's Generator
}

# Floating-point operations of the compute-bound workloads (2mnk per product).
FLOPS = {
    "matmul32": 2 * 8192**3,
    "matmul64_10k": 2 * 10000**3,
    "matmul_relu_bias": 2 * 8192**3 + 2 * 8192**2,
    "bmm64": 2 * 4096 * 64**3,
}

TIMING = re.compile(r"(\S+)\s+(\S+)\s+median_ms=\s*([\d.]+)\s+min_ms=\s*([\d.]+)\s+eff_GBps=\s*(\S+)")
FAILED = re.compile(r"(\S+)\s+(\S+)\s+FAILED\b\s*(.*)")
COPY = re.compile(r"memcpy_d2d\s+[\d.]+ ms\s+(\d+) GB/s")


def number(text):
    """A GB/s field as a float, None for nan/-nan (printf's 0.0/0.0) or junk."""
    try:
        v = float(text)
    except ValueError:
        return None
    return None if math.isnan(v) else v


def parse(paths):
    """rows[workload][framework] = (median ms, GB/s or None); failures[workload][framework] =
    reason; the best device-to-device copy rate seen (or None)."""
    rows, failures, copy_gbs = {}, {}, None
    for path in paths:
        for line in open(path, errors="replace"):
            m = TIMING.match(line)
            if m:
                fw, name, med, _, gbs = m.groups()
                if fw != "loom":
                    name = PEER_NAMES.get(name, name)
                rows.setdefault(name, {})[fw] = (float(med), number(gbs))
                continue
            m = FAILED.match(line)
            if m:
                fw, name, why = m.groups()
                if fw != "loom":
                    name = PEER_NAMES.get(name, name)
                failures.setdefault(name, {})[fw] = why.strip()
                continue
            m = COPY.match(line)
            if m:
                copy_gbs = max(copy_gbs or 0, float(m.group(1)))
    return rows, failures, copy_gbs


def table(rows, failures, copy_gbs):
    out = [f"copy limit: {copy_gbs or float('nan'):.0f} GB/s",
           f"{'workload':16s} {'loom ms':>10s} {'best peer ms':>13s} {'peer':>14s} {'ratio':>7s} "
           f"{'eff GB/s':>9s} {'of copy':>8s} {'TFLOP/s':>8s}"]
    for name in list(rows) + [n for n in failures if n not in rows]:
        fws = rows.get(name, {})
        loom = fws.get("loom")
        peers = {fw: v for fw, v in fws.items() if fw != "loom"}
        best = min(peers.items(), key=lambda kv: kv[1][0]) if peers else None
        lm = f"{loom[0]:.4f}" if loom else ("FAILED" if "loom" in failures.get(name, {}) else "-")
        pm = f"{best[1][0]:.4f}" if best else "-"
        pw = best[0] if best else "-"
        ratio = f"{loom[0] / best[1][0]:.2f}" if loom and best and best[1][0] > 0 else "-"
        gbs = loom[1] if loom else None
        frac = f"{gbs / copy_gbs:.0%}" if gbs and copy_gbs else "-"
        tflops = f"{FLOPS[name] / (loom[0] * 1e-3) / 1e12:.1f}" if loom and name in FLOPS and loom[0] > 0 else "-"
        out.append(f"{name:16s} {lm:>10s} {pm:>13s} {pw:>14s} {ratio:>7s} "
                   f"{(f'{gbs:.0f}' if gbs else '-'):>9s} {frac:>8s} {tflops:>8s}")
    for name, fws in failures.items():
        for fw, why in fws.items():
            out.append(f"failed: {fw} {name}: {why}")
    return out


def main(argv):
    print("\n".join(table(*parse(argv[1:]))))


if __name__ == "__main__":
    main(sys.argv)
