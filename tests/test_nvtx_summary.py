#!/usr/bin/env python3
"""tools/nvtx_summary.py on a hand-made recorder file: nesting per thread, the nvtx_sum
arithmetic (worked out by hand below) and the refusal of broken records."""
import io
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import nvtx_summary  # noqa: E402

RECORD = """injected
push 7 1000000 loom plan
push 7 1500000 loom compile loom_ew_1
pop 7 5500000
pop 7 6000000
push 9 6100000 loom plan
push 7 7000000 loom run: loom_ew_1 (add)
pop 9 6200000
pop 7 9000000
push 7 10000000 loom plan
pop 7 10400000
"""

failures = 0


def check(cond, what):
    global failures
    if not cond:
        failures += 1
        print("FAILED:", what)


ranges = nvtx_summary.read_ranges(io.StringIO(RECORD))
check([(r[0], r[1], r[4]) for r in ranges] ==
      [(7, 0, "loom plan"), (7, 1, "loom compile loom_ew_1"), (9, 0, "loom plan"),
       (7, 0, "loom run: loom_ew_1 (add)"), (7, 0, "loom plan")], "ranges nest per thread")
rows = {row[7]: row for row in nvtx_summary.summary(ranges)}
# plan: 5.0 + 0.1 + 0.4 ms = 5.5 ms in 3; compile 4.0 ms; run 2.0 ms; all 11.5 ms
plan = rows["loom plan"]
check(plan[1] == 5_500_000 and plan[2] == 3, "plan total and instances")
check(abs(plan[3] - 5_500_000 / 3) < 1e-6 and plan[4] == 400_000, "plan average and median")
check(plan[5] == 100_000 and plan[6] == 5_000_000, "plan min and max")
check(abs(plan[0] - 100 * 5.5 / 11.5) < 1e-9, "plan share")
check(rows["loom compile loom_ew_1"][1] == 4_000_000, "compile total")
check([row[7] for row in nvtx_summary.summary(ranges)] ==
      ["loom plan", "loom compile loom_ew_1", "loom run: loom_ew_1 (add)"], "sorted by total")
out = io.StringIO()
nvtx_summary.print_summary(nvtx_summary.summary(ranges), out)
check("   5.500          3" in out.getvalue(), "printed table: " + out.getvalue())
for broken in ["pop 7 5\n", "push 7 5 loom plan\n", "push 7 loom plan\n", "hello\n"]:
    try:
        nvtx_summary.read_ranges(io.StringIO(broken))
        check(False, f"accepted {broken!r}")
    except ValueError:
        pass
print(f"test_nvtx_summary: {failures} failed")
sys.exit(1 if failures else 0)
