#!/usr/bin/env bash
# Everything that needs the GPU, for one device call each:
#   bash bench/run_device.sh test    build (Release), ctest -L gpu, compute-sanitizer memcheck
#   bash bench/run_device.sh bench [workload ...]
#                                    build (Release), loom_bench, roofline and the peers (all
#                                    workloads unless named: a device call has 600 s; the
#                                    matmuls, e.g. `bench matmul32 matmul64_10k matmul_relu_bias
#                                    bmm64`, run on the peers only when named)
# The CUDA sources build for the device at hand only (a full build for every architecture
# took 347 s there).
# Peers: copy the peer scripts (peer_bench.py, peer_bench_lib.py, roofline.cu) into .peers/
# (git-ignored) first and carry it. Logs go to $OUT; every peer's lines go to one peers.log.
set -u -o pipefail
OUT=${OUT:-/tmp/loom-out}
mkdir -p "$OUT"
what=${1:-test}
shift
workloads=${*:-chain scale mse softmax layernorm rownorm sum_full sum_cols small64 ones2GB randn64M x_plus_randn fft16M fft_rows_scale rfft_power}
if ! { cmake -B build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=native >"$OUT/cmake.log" 2>&1 &&
       cmake --build build -j"$(nproc)" >"$OUT/build.log" 2>&1; }; then
    grep -B3 -A3 -E "error|Error" "$OUT/build.log" | head -40
    exit 1
fi
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
echo "commit ${LOOM_COMMIT:-unknown} $(date -u +%F)" | tee -a "$OUT/device.txt"

if [ "$what" = test ]; then
    (cd build && ctest -L gpu --output-on-failure --timeout 600) >"$OUT/ctest_gpu.log" 2>&1
    grep -E "tests passed|Failed|Passed|Skipped" "$OUT/ctest_gpu.log"
    # memcheck without the 2^31-element case (it only repeats the same kernels, slowly).
    LOOM_TEST_SKIP_HUGE=1 LOOM_CACHE_DIR=/tmp/loom-san compute-sanitizer --tool memcheck \
        --leak-check full --error-exitcode 3 ./build/tests/gpu_test_elementwise \
        >"$OUT/memcheck.log" 2>&1
    echo "memcheck exit $? : $(grep -E 'ERROR SUMMARY|checks' "$OUT/memcheck.log" | tr '\n' ' ')"
    (cd "$OUT" && "$OLDPWD/build/demo") >"$OUT/demo.log" 2>&1
    echo "demo exit $?"; tail -12 "$OUT/demo.log"
    ./build/record_overhead | tee "$OUT/record_overhead.log"
    exit 0
fi

./build/loom_bench "$@" >"$OUT/loom.log" 2>&1
cat "$OUT/loom.log"
if [ -d .peers ]; then
    nvcc -O3 -arch=sm_90 -o /tmp/roofline .peers/roofline.cu && /tmp/roofline >"$OUT/roofline.log" 2>&1
    tail -3 "$OUT/roofline.log"
    # Each peer script gets the named workloads it knows (quoted in it), and is not started
    # when it knows none: importing the frameworks alone takes seconds to minutes.
    pick() {
        local w found=""
        for w in $workloads; do
            grep -qF "\"$w\"" "$1" && found="$found $w"
        done
        echo "$found"
    }
    : >"$OUT/peers.log"
    run_peers() { # script, frameworks...
        local script=$1 fw names
        shift
        [ -f "$script" ] || return 0
        names=$(pick "$script")
        [ -n "$names" ] || return 0
        for fw in "$@"; do
            echo "# $script $fw$names" >>"$OUT/peers.log"
            # shellcheck disable=SC2086
            timeout 240 python3 "$script" "$fw" $names >>"$OUT/peers.log" 2>&1
        done
    }
    run_peers .peers/peer_bench.py cupy cupy.fuse jax torch torch.compile
    run_peers .peers/peer_bench_lib.py cupy jax torch torch.compile
fi
python3 bench/compare.py "$OUT"/*.log | tee "$OUT/table.txt"
