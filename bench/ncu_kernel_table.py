#!/usr/bin/env python3
"""Per-kernel device time from an ncu CSV (`ncu --csv --print-units base --metrics
gpu__time_duration.sum --nvtx --print-nvtx-rename kernel ...`): launches, total and mean us, mean
grid blocks and share, per NVTX label and block size, largest first. Prints the table; writes it as
CSV too when a second path is given. Asserts nothing.
    python3 bench/ncu_kernel_table.py NCU.csv [TABLE.csv]"""
import collections
import csv
import sys


def main():
    rows = [line for line in open(sys.argv[1]) if line.startswith('"')]
    acc = collections.OrderedDict()
    for r in csv.DictReader(rows):
        if r.get("Metric Name") != "gpu__time_duration.sum":
            continue
        key = (r["Kernel Name"].split("/")[0][:60], r["Block Size"].replace(",", " "))
        blocks = 1
        for v in r["Grid Size"].strip("()").split(","):
            blocks *= int(v)
        n, t, g = acc.get(key, (0, 0.0, 0))
        acc[key] = (n + 1, t + float(r["Metric Value"].replace(",", "")), g + blocks)
    total = sum(v[1] for v in acc.values()) or 1.0
    lines = ["kernel,block,launches,total_us,mean_us,mean_grid_blocks,share"]
    for (k, b), (n, t, g) in sorted(acc.items(), key=lambda kv: -kv[1][1]):
        lines.append(f"{k},{b},{n},{t / 1e3:.1f},{t / 1e3 / n:.2f},{g / n:.0f},{t / total:.3f}")
    print("\n".join(lines))
    print(f"total device time: {total / 1e6:.3f} ms")
    if len(sys.argv) > 2:
        with open(sys.argv[2], "w") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
