#!/usr/bin/env python3
"""kernel_timeline.py TRACE.csv: summarises an `nsys stats --report cuda_gpu_trace --format csv`
export of a run (graph nodes traced with --cuda-graph-trace=node): per device and kernel, the
count, mean duration and mean idle gap before it (since the previous kernel on that device ended),
over the last burst of each device (kernels without an idle gap over 200 us: the last frame, one
graph launch). Kernel names are shortened to the silt function that launches them."""
import csv
import re
import sys
from collections import defaultdict


def short(name):
    m = re.search(r"(enqueue_\w+|launch_\w+|\w+_kernel|begin_frame|resume_frame|\w+_for)\b", name)
    return m.group(1) if m else name[:40]


def last_burst(ks, gap_ns=200e3):
    start = 0
    for i in range(1, len(ks)):
        if ks[i][0] - (ks[i - 1][0] + ks[i - 1][1]) > gap_ns:
            start = i
    return ks[start:]


def main(path):
    rows = []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if "Start (ns)" not in r or not r.get("Duration (ns)"):
                continue
            if r.get("GrdX", "") == "" and "memcpy" in r.get("Name", "").lower():
                continue
            rows.append((r.get("Device", "?"), float(r["Start (ns)"]), float(r["Duration (ns)"]),
                         short(r.get("Name", ""))))
    by_dev = defaultdict(list)
    for d, s, du, n in rows:
        by_dev[d].append((s, du, n))
    for d in sorted(by_dev):
        ks = last_burst(sorted(by_dev[d]))
        stats = defaultdict(lambda: [0, 0.0, 0.0])
        prev_end = None
        for s, du, n in ks:
            st = stats[n]
            st[0] += 1
            st[1] += du
            if prev_end is not None:
                st[2] += max(0.0, s - prev_end)
            prev_end = max(prev_end or 0.0, s + du)
        span = (ks[-1][0] + ks[-1][1] - ks[0][0]) / 1e3
        print(f"device {d}: {len(ks)} kernels over {span:.1f} us")
        print(f"  {'kernel':40s} {'count':>6s} {'mean us':>8s} {'gap us':>8s} {'total us':>9s}")
        for n, (c, du, gap) in sorted(stats.items(), key=lambda kv: -kv[1][1]):
            print(f"  {n:40s} {c:6d} {du / c / 1e3:8.2f} {gap / c / 1e3:8.2f} {du / 1e3:9.1f}")


if __name__ == "__main__":
    main(sys.argv[1])
