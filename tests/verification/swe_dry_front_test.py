#!/usr/bin/python3
"""The tip of a dam-break wave on a dry, rough bed (issue 34, "the dry-bed front").

A 1D channel of one row: 0.4 m of still water on x < 5 m, a dry flat bed beyond, Manning n = 0.01
s m^-1/3 (the isolated-building flume's), walls at both ends, float64; `silt run` writes the depth
at t = 1.9 and 2.0 s. Near the tip of such a wave the flow is slow to change and friction balances
the pressure gradient (Dressler 1952; Whitham 1955; Chanson 2009, J. Hydraul. Eng. 135(6), for
Darcy friction): with the tip moving at U, g dh/dx = -g n^2 U^2 / h^(4/3), so

    h^(7/3) = (7/3) n^2 U^2 (x_f - x)        (the friction tip; Ritter's frictionless tip is
                                              h = (x_f - x)^2 / (9 g t^2), far thinner)

This test checks that silt's tip has that shape: the distance from the tip (0.1 mm) back to the
points where the depth reaches 2 cm and 3 cm, with U measured from the run, lies within a factor
of the friction tip's, on both schemes; that the first order's tip has converged in dx (0.0125 and
0.00625 m within 10% at 3 cm); and that without friction the tip is several times longer (so a friction
that weakens on thin depths, a depth floor or a cap, fails here). Measured 2026-12-05: see
docs/verification-swe.md, "The dry-bed front".

Usage: swe_dry_front_test.py <silt executable> <scratch dir>
"""
import json
import os
import shutil
import subprocess
import sys

import numpy as np

SILT, SCRATCH = sys.argv[1], sys.argv[2]
LENGTH, DAM, H0, N, T = 20.0, 5.0, 0.4, 0.01, 2.0  # m, m, m, s m^-1/3, s
TIP = 1e-4  # m: where the tip is taken (the scheme's films run ahead of it at ~1e-5 m and below)
# The friction tip neglects the flow's acceleration, which grows away from the tip. Measured
# (2026-12-05), silt's length over the friction tip's at 2 cm / 3 cm: first order 1.43 / 1.32 at
# dx = 0.0125 m, 1.21 / 1.27 at 0.00625 m; muscl 1.03 / 1.21 at 0.0125 m. Without friction the
# 3 cm point lies 8x further back.
RATIO = (0.8, 1.6)
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures.append(what)


def read_asc(path):
    with open(path) as f:
        nodata = float([f.readline().split() for _ in range(6)][5][1])
        a = np.loadtxt(f, ndmin=2)[::-1]
    return np.where(a == nodata, np.nan, a)


def run(dx, n, scheme):
    """Depth (m) along the channel at t = 1.9 and 2.0 s, and the cell centres (m)."""
    nx = round(LENGTH / dx)
    folder = os.path.join(SCRATCH, f"{scheme}_n{n:g}_{nx}")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    doc = {"solver": "swe", "name": "dry_front", "grid": {"nx": nx, "ny": 1, "dx": dx}, "bed": 0.0,
           "initial": {"depth": {"value": 0.0,
                                 "patches": [{"min": [0, 0], "max": [DAM, dx], "value": H0}]}},
           "manning": n, "physics": {"precision": "float64", "scheme": scheme},
           "run": {"end_time": T, "output_interval": 0.1},
           "outputs": {"fields": ["depth"], "formats": ["asc"], "png": "none",
                       "precision": "float64"}}
    scene = os.path.join(folder, "scene.json")
    with open(scene, "w") as f:
        json.dump(doc, f, indent=1)
    subprocess.run([SILT, "run", scene, "--out", os.path.join(folder, "out"), "--quiet"],
                   check=True, stdout=subprocess.DEVNULL)
    depth = lambda k: read_asc(os.path.join(folder, "out", f"depth_{k:04d}.asc"))[0]
    return (np.arange(nx) + 0.5) * dx, depth(19), depth(20)


def front(x, h, level):
    """Furthest position where h crosses `level` going downstream, linear between cells."""
    i = np.nonzero(h > level)[0][-1]
    return x[i] + (h[i] - level) / (h[i] - h[i + 1]) * (x[i + 1] - x[i])


def tip(dx, n, scheme):
    """Tip speed U (m/s) and the distances (m) from the tip to the 2 cm and 3 cm depths."""
    x, h19, h20 = run(dx, n, scheme)
    u = (front(x, h20, TIP) - front(x, h19, TIP)) / 0.1
    xf = front(x, h20, TIP)
    return u, {lev: xf - front(x, h20, lev) for lev in (0.02, 0.03)}


def friction_tip(level, u):
    return level ** (7 / 3) / ((7 / 3) * N * N * u * u)


os.makedirs(SCRATCH, exist_ok=True)
lengths = {}
for scheme, dx in (("first_order", 0.0125), ("first_order", 0.00625), ("muscl", 0.0125)):
    u, d = tip(dx, N, scheme)
    lengths[(scheme, dx)] = d
    for lev, dist in d.items():
        ref = friction_tip(lev, u)
        check(RATIO[0] * ref < dist < RATIO[1] * ref,
              f"{scheme} dx {dx} m: tip to {lev * 100:g} cm {dist:.3f} m, friction tip "
              f"{ref:.3f} m (U = {u:.3f} m/s), ratio {dist / ref:.2f} in {RATIO}")
a, b = (lengths[("first_order", dx)] for dx in (0.0125, 0.00625))
check(abs(a[0.03] - b[0.03]) < 0.1 * b[0.03],
      f"first order: tip to 3 cm at dx 0.0125 / 0.00625 m {a[0.03]:.3f} / {b[0.03]:.3f} m (within 10%)")
check(b[0.02] < a[0.02], f"first order: tip to 2 cm at dx 0.0125 / 0.00625 m {a[0.02]:.3f} / "
                         f"{b[0.02]:.3f} m (shortens towards the friction tip)")
u0, d0 = tip(0.00625, 0.0, "first_order")
b = lengths[("first_order", 0.00625)][0.03]
check(d0[0.03] > 4 * b, f"frictionless: tip to 3 cm {d0[0.03]:.3f} m > 4 x {b:.3f} m "
                        f"(U = {u0:.3f} m/s; Ritter's tip moves at 2 sqrt(g h0) = "
                        f"{2 * np.sqrt(9.81 * H0):.3f} m/s)")
if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("all checks passed")
