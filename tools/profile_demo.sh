#!/bin/sh
# A profile of the demo from its NVTX ranges, without Nsight Systems (docs/toolbox.md): runs
# BUILD_DIR/demo with a cold kernel cache under tests/nvtx_recorder.c's injection library and
# prints tools/nvtx_summary.py's table; the nested ranges in order go to BUILD_DIR/demo-ranges.tree.
# Usage: tools/profile_demo.sh [BUILD_DIR] (default build; a build with the tests, not sanitized).
build=${1:-build}
here=$(dirname "$0")
recorder=$(cd "$build/tests" 2>/dev/null && pwd)/libloom_nvtx_recorder.so
[ -x "$build/demo" ] && [ -f "$recorder" ] ||
    { echo "profile_demo: needs $build/demo and $recorder (cmake --build $build)"; exit 1; }
record="$build/demo-ranges.txt"
rm -f "$record"
NVTX_INJECTION64_PATH=$recorder LOOM_NVTX_RECORD=$record LOOM_CACHE=0 "$build/demo" >"$build/demo.log" 2>&1 ||
    { echo "profile_demo: the demo failed:"; cat "$build/demo.log"; exit 1; }
grep -q '^injected$' "$record" 2>/dev/null || { echo "profile_demo: NVTX did not load the recorder"; exit 1; }
python3 "$here/nvtx_summary.py" --tree "$record" >"$build/demo-ranges.tree" || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null
python3 "$here/nvtx_summary.py" "$record"
