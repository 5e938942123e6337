"""Offline check of bench/compare.py (ctest test_bench_compare; no GPU): a fake run's logs, with
lines printed exactly as loom_bench and the peer scripts print them, must give the expected table.

usage: python3 bench/test_compare.py"""
import importlib.util, math, os, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("compare", os.path.join(HERE, "compare.py"))
compare = importlib.util.module_from_spec(spec)
spec.loader.exec_module(compare)


def peer_line(fw, name, med_s, min_s, nbytes):
    """The peers' report(): the same f-string."""
    gbs = nbytes / med_s / 1e9 if nbytes else float("nan")
    return f"{fw:14s} {name:14s} median_ms={med_s*1e3:10.4f} min_ms={min_s*1e3:10.4f} eff_GBps={gbs:8.1f}\n"


def loom_line(name, med_ms, min_ms, nbytes):
    """loom_bench's report(): printf("%-14s %-14s median_ms=%10.4f min_ms=%10.4f eff_GBps=%8.1f"),
    where glibc prints 0.0/0.0 as -nan."""
    gbs = f"{nbytes / (med_ms * 1e-3) / 1e9:8.1f}" if nbytes else f"{'-nan':>8s}"
    return f"{'loom':<14s} {name:<14s} median_ms={med_ms:10.4f} min_ms={min_ms:10.4f} eff_GBps={gbs}\n"


failures = []


def expect(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


with tempfile.TemporaryDirectory() as d:
    loom = os.path.join(d, "loom.log")
    peers = os.path.join(d, "peers.log")
    roof = os.path.join(d, "roofline.log")
    with open(loom, "w") as f:
        f.write(loom_line("scale", 0.1430, 0.1400, 8 * 2**26))
        f.write(loom_line("matmul32", 25.0, 24.5, 0))
        f.write(loom_line("matmul64_10k", 40.0, 39.0, 0))
        f.write(loom_line("matmul_relu_bias", 26.0, 25.5, 0))
        f.write(loom_line("bmm64", 0.2, 0.19, 12 * 4096 * 64 * 64))
        f.write(f"{'loom':<14s} {'small64':<14s} FAILED loom_eval: out of memory\n")
    with open(peers, "w") as f:
        f.write("# .peers/peer_bench.py cupy scale matmul32 matmul64_10k\n")
        f.write(peer_line("cupy", "scale", 0.0003325, 0.00033, 8 * 2**26))
        f.write(peer_line("cupy", "matmul32", 0.030, 0.029, 0))
        f.write(peer_line("cupy", "matmul64_10k", 0.045, 0.044, 0))
        f.write("# .peers/peer_bench.py torch matmul32\n")
        f.write(peer_line("torch", "matmul32", 0.024, 0.023, 0))
        f.write("# .peers/peer_bench_lib.py jax matmul_relu_bias bmm64\n")
        f.write("WARNING: some framework noise on stderr\n")
        f.write(peer_line("jax", "matmul_relu_bias", 0.0255, 0.025, 0))
        f.write(peer_line("jax", "bmm64", 0.00025, 0.00024, 12 * 4096 * 64 * 64))
        f.write(peer_line("torch.compile", "matmul_relu_bias", 0.027, 0.026, 0))
        f.write(f"{'cupy':14s} {'bmm64':14s} FAILED RuntimeError: something\n")
    with open(roof, "w") as f:
        f.write("memcpy_d2d   0.1281 ms   4191 GB/s\n")

    rows, fails, copy_gbs = compare.parse([loom, peers, roof])
    expect(copy_gbs == 4191, f"copy limit {copy_gbs}")
    for name in ("matmul32", "matmul64_10k", "matmul_relu_bias", "bmm64"):
        expect(name in rows and "loom" in rows[name], f"{name}: Loom's line parsed")
    expect(rows["matmul32"]["loom"] == (25.0, None), "a -nan GB/s is None")
    expect(set(rows["matmul32"]) == {"loom", "cupy", "torch"}, f"matmul32 peers {set(rows['matmul32'])}")
    expect(math.isclose(rows["matmul32"]["torch"][0], 24.0), "peer ms from seconds")
    expect(set(rows["matmul_relu_bias"]) == {"loom", "jax", "torch.compile"}, "matmul_relu_bias peers")
    expect(rows["matmul_relu_bias"]["jax"][1] is None, "a peer's nan GB/s is None")
    expect(math.isclose(rows["bmm64"]["jax"][1], 12 * 4096 * 64 * 64 / 0.00025 / 1e9, rel_tol=1e-3), "bmm64 GB/s")
    expect(fails.get("bmm64", {}).get("cupy", "").startswith("RuntimeError"), "a peer's FAILED line")
    expect("loom" in fails.get("small64", {}), "Loom's FAILED line")

    out = subprocess.run([sys.executable, os.path.join(HERE, "compare.py"), loom, peers, roof],
                         capture_output=True, text=True, check=True).stdout
    lines = {l.split()[0]: l.split() for l in out.splitlines() if l and not l.startswith(("copy", "workload", "failed"))}
    # workload, loom ms, best peer ms, peer, ratio, GB/s, of copy, TFLOP/s
    expect(lines["matmul32"][1:5] == ["25.0000", "24.0000", "torch", "1.04"], f"matmul32 row {lines['matmul32']}")
    expect(lines["matmul32"][7] == f"{2 * 8192**3 / 25e-3 / 1e12:.1f}", "matmul32 TFLOP/s")
    expect(lines["matmul64_10k"][3:5] == ["cupy", "0.89"], f"matmul64_10k row {lines['matmul64_10k']}")
    expect(lines["matmul64_10k"][7] == "50.0", "matmul64_10k TFLOP/s")
    expect(lines["matmul_relu_bias"][3:5] == ["jax", "1.02"], f"matmul_relu_bias row {lines['matmul_relu_bias']}")
    expect(lines["bmm64"][3] == "jax" and lines["bmm64"][6] == f"{12 * 4096 * 64 * 64 / 0.2e-3 / 1e9 / 4191:.0%}",
           f"bmm64 row {lines['bmm64']}")
    expect(lines["scale"][5:7] == ["3754", "90%"], f"scale row {lines['scale']}")
    expect(lines["small64"][1] == "FAILED", f"small64 row {lines['small64']}")
    expect("failed: cupy bmm64: RuntimeError: something" in out, "failures listed")

print("test_compare:", "ok" if not failures else f"{len(failures)} failed")
sys.exit(1 if failures else 0)
