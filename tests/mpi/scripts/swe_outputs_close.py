#!/usr/bin/env python3
"""Fails unless two `silt run` output folders of a shallow-water scene hold the same files with
values that agree within a tolerance: every ESRI ASCII raster (*.asc) cell by cell, and every
numeric column of gauges.csv and frames.csv, relative to the largest magnitude of that raster or
column. For GPU runs, where a split run and a one-device run differ only in round-off (fast float
math in the tile kernel), so byte equality is not expected.

usage: swe_outputs_close.py REFERENCE OTHER [--rtol 1e-3]
"""
import argparse
import csv
import os
import sys


def read_asc(path):
    header, values = {}, []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if not parts:
                continue
            if parts[0][0].isalpha():
                header[parts[0].lower()] = parts[1]
            else:
                values.extend(float(v) for v in parts)
    return header, values


# mass_balance.csv's residual is the round-off of the balance's sums, and gauge_points.csv's time
# of a maximum the sample where a plateau peaks (round-off picks it): two runs' need not agree
# (swe_flow_tables_test bounds the residual).
ROUNDOFF_COLUMNS = ("residual_m3", "time_of_max_s")


def cell(v):
    """A number, or the text of a cell that is none (gauge_points.csv's names, an arrival time not
    reached), which must then be the same in both files."""
    try:
        return float(v)
    except ValueError:
        return v


def read_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], [[cell(v) for v in r] for r in rows[1:]]


def close(a, b, rtol, what):
    if len(a) != len(b):
        return f"{what}: {len(a)} values against {len(b)}"
    scale = max([abs(x) for x in a] + [1e-12])
    worst = max((abs(x - y) for x, y in zip(a, b)), default=0.0)
    if not worst <= rtol * scale:
        return f"{what}: largest difference {worst:.3g} exceeds {rtol:g} x {scale:.3g}"
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("reference")
    ap.add_argument("other")
    ap.add_argument("--rtol", type=float, default=1e-3)
    a = ap.parse_args()
    names = sorted(n for n in os.listdir(a.reference) if n.endswith((".asc", ".csv")))
    errors = []
    if len(names) < 10:
        errors.append(f"only {len(names)} outputs in {a.reference}")
    for n in names:
        p, q = os.path.join(a.reference, n), os.path.join(a.other, n)
        if not os.path.exists(q):
            errors.append(f"{n}: missing in {a.other}")
            continue
        if n.endswith(".asc"):
            (ha, va), (hb, vb) = read_asc(p), read_asc(q)
            if ha != hb:
                errors.append(f"{n}: headers differ: {ha} vs {hb}")
            err = close(va, vb, a.rtol, n)
            if err:
                errors.append(err)
        else:
            (ca, ra), (cb, rb) = read_csv(p), read_csv(q)
            if ca != cb or len(ra) != len(rb):
                errors.append(f"{n}: columns or row counts differ")
                continue
            for k, col in enumerate(ca):
                if col in ROUNDOFF_COLUMNS:
                    continue
                xa, xb = [r[k] for r in ra], [r[k] for r in rb]
                if any(isinstance(v, str) for v in xa + xb):
                    if xa != xb:
                        errors.append(f"{n} {col}: {xb} against {xa}")
                    continue
                err = close(xa, xb, a.rtol, f"{n} {col}")
                if err:
                    errors.append(err)
    for e in errors:
        print(e, file=sys.stderr)
    if errors:
        return 1
    print(f"{len(names)} outputs agree within {a.rtol:g} of each field's largest value")
    return 0


if __name__ == "__main__":
    sys.exit(main())
