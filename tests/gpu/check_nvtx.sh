#!/bin/sh
# NVTX ranges seen by Nsight Systems: profiles PROGRAM (a GPU test that evaluates Loom arrays)
# with a cold kernel cache, and requires the ranges "loom plan", "loom compile ..." and
# "loom run: ..." in the NVTX summary; with LOOM_NVTX=0 there must be none.
# Usage: check_nvtx.sh PROGRAM WORKDIR. Exits 77 (SKIP) without nsys or without a device.
prog=$1
dir=$2
if ! command -v nsys >/dev/null 2>&1; then
    echo "gpu_nvtx: nsys (Nsight Systems) is not installed, skipped"
    exit 77
fi
rm -rf "$dir" && mkdir -p "$dir" || exit 1
summary() {
    nsys stats --report nvtx_sum --format csv "$1" 2>/dev/null ||
        nsys stats --report nvtxsum --format csv "$1" 2>/dev/null
}
LOOM_CACHE=0 nsys profile -t cuda,nvtx -o "$dir/on" "$prog" >"$dir/on.log" 2>&1
rc=$?
[ $rc -eq 77 ] && { echo "gpu_nvtx: no device, skipped"; exit 77; }
[ $rc -eq 0 ] || { echo "gpu_nvtx: profiling $prog failed ($rc)"; cat "$dir/on.log"; exit 1; }
summary "$dir/on.nsys-rep" >"$dir/on.csv"
LOOM_NVTX=0 LOOM_CACHE=0 nsys profile -t cuda,nvtx -o "$dir/off" "$prog" >"$dir/off.log" 2>&1 || exit 1
summary "$dir/off.nsys-rep" >"$dir/off.csv"
fail=0
for range in "loom plan" "loom compile loom_" "loom run: loom_"; do
    grep -q "$range" "$dir/on.csv" || { echo "gpu_nvtx: no range \"$range\""; fail=1; }
done
if grep -q "loom " "$dir/off.csv"; then
    echo "gpu_nvtx: LOOM_NVTX=0 still opened ranges"
    fail=1
fi
[ $fail -eq 0 ] && { echo "gpu_nvtx: ranges present, and absent with LOOM_NVTX=0"; rm -rf "$dir"; }
exit $fail
