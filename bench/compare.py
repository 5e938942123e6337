"""Builds the BENCH.md-style table from loom_bench, peer_bench.py and roofline output.

usage: python3 bench/compare.py LOG [LOG ...]
Each LOG holds lines "framework workload median_ms=X min_ms=Y eff_GBps=Z" (loom_bench and
shared/peers/peer_bench.py print these) and optionally roofline's "memcpy_d2d ... GB/s" lines.
Prints: workload, Loom ms, best peer ms (which), ratio Loom/peer, eff GB/s, fraction of the copy
limit."""
import re, sys

rows, copy_gbs = {}, None
for path in sys.argv[1:]:
    for line in open(path, errors="replace"):
        m = re.match(r"(\S+)\s+(\S+)\s+median_ms=\s*([\d.]+)\s+min_ms=\s*([\d.]+)\s+eff_GBps=\s*(\S+)", line)
        if m:
            fw, name, med, _, gbs = m.groups()
            rows.setdefault(name, {})[fw] = (float(med), float(gbs) if gbs != "nan" else None)
        m = re.match(r"memcpy_d2d\s+[\d.]+ ms\s+(\d+) GB/s", line)
        if m:
            copy_gbs = max(copy_gbs or 0, float(m.group(1)))

print(f"copy limit: {copy_gbs or float('nan'):.0f} GB/s")
print(f"{'workload':14s} {'loom ms':>10s} {'best peer ms':>13s} {'peer':>14s} {'ratio':>7s} {'eff GB/s':>9s} {'of copy':>8s}")
for name, fws in rows.items():
    loom = fws.get("loom")
    peers = {fw: v for fw, v in fws.items() if fw != "loom"}
    best = min(peers.items(), key=lambda kv: kv[1][0]) if peers else None
    lm = f"{loom[0]:.4f}" if loom else "-"
    pm = f"{best[1][0]:.4f}" if best else "-"
    pw = best[0] if best else "-"
    ratio = f"{loom[0] / best[1][0]:.2f}" if loom and best else "-"
    gbs = loom[1] if loom else None
    frac = f"{gbs / copy_gbs:.0%}" if gbs and copy_gbs else "-"
    print(f"{name:14s} {lm:>10s} {pm:>13s} {pw:>14s} {ratio:>7s} {(f'{gbs:.0f}' if gbs else '-'):>9s} {frac:>8s}")
