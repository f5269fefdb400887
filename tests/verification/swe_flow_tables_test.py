"""hydrograph.csv and mass_balance.csv of `silt run` (issue 34, item 4): a basin with a discharge
in, a sea level, an open weir, rain and two point sources (one pumping out), on one CPU partition
and on three. Checks, for every output interval:
  - each boundary's and source's mean discharge times the interval sums to its volume column;
  - the boundary volume columns sum to mass_balance.csv's boundary_net_m3, the sources' to
    source_net_m3 (the hydrograph and the balance are the same water);
  - the discharge boundary's volume is the hydrograph's integral (the series is piecewise linear,
    sampled at mid-step: exact but for the step across its knot), the inflowing source's likewise;
  - the balance closes: |residual| below BALANCE_TOL of the largest term;
  - three partitions write the same hydrograph.csv, byte for byte.
Usage: swe_flow_tables_test.py <silt> <work dir>"""
import csv
import json
import os
import shutil
import subprocess
import sys

PRINT_TOL = 1e-8     # relative: q is printed with 10 significant digits
BALANCE_TOL = 1e-5   # float32 state: stored volume carries ~1e-7 relative round-off per step
SERIES_TOL = 2e-3    # the step that straddles the hydrograph's knot samples its middle

SCENE = {
    "solver": "swe", "name": "flow_tables",
    "grid": {"nx": 40, "ny": 24, "dx": 5.0},
    "bed": {"value": 2.0, "gradient": [-0.01, 0.002]},
    "manning": 0.03,
    "initial": {"depth": {"value": 0.0, "patches": [
        {"shape": "rectangle", "min": [100, 0], "max": [200, 120], "value": 0.5}]}},
    "boundaries": [
        {"name": "river", "side": "west", "range": [6, 18], "type": "discharge",
         "discharge": [[0, 0], [100, 6], [300, 2]]},
        {"name": "sea", "side": "south", "range": [20, 40], "type": "level",
         "level": [[0, 0.9], [300, 0.4]]},
        {"name": "weir", "side": "east", "type": "open"},
    ],
    "sources": [
        {"name": "pipe", "x": 52.5, "y": 62.5, "discharge": [[0, 0.5], [300, 0.5]]},
        {"name": "pump", "x": 152.5, "y": 62.5, "discharge": [[0, -0.2], [300, -0.2]]},
    ],
    "rainfall_mm_h": 30,
    "run": {"end_time": 300, "output_interval": 30},
    "outputs": {"fields": ["depth"], "formats": ["asc"], "png": "none"},
}


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def rows(path):
    with open(path) as f:
        r = list(csv.reader(f))
    return r[0], [[float(x) for x in row] for row in r[1:]]


def run(silt, scene, out, *extra):
    p = subprocess.run([silt, "run", scene, "--backend", "cpu", "--out", out, "-q"] + list(extra),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        fail(f"silt run failed ({p.returncode}): {p.stderr}")


def near(a, b, tol, scale, what):
    if abs(a - b) > tol * max(scale, 1e-30):
        fail(f"{what}: {a} against {b} (tolerance {tol} x {scale})")


def check(out):
    hh, h = rows(os.path.join(out, "hydrograph.csv"))
    mh, m = rows(os.path.join(out, "mass_balance.csv"))
    names = ["river", "sea", "weir", "pipe", "pump"]
    want = ["frame", "time_s"] + [n + "_q_m3_s" for n in names] + [n + "_volume_m3" for n in names]
    if hh != want:
        fail(f"hydrograph.csv header {hh}, expected {want}")
    if len(h) != 11 or len(m) != 11:
        fail(f"{len(h)} hydrograph rows and {len(m)} balance rows for 11 frames")
    col = {n: i for i, n in enumerate(hh)}
    bal = {n: i for i, n in enumerate(mh)}
    for n in names:
        q, v = col[n + "_q_m3_s"], col[n + "_volume_m3"]
        total = 0.0
        for k in range(1, len(h)):
            total += h[k][q] * (h[k][1] - h[k - 1][1])
            scale = max(abs(r[v]) for r in h)
            near(total, h[k][v], PRINT_TOL * len(h), scale, f"{n}: sum of q dt to t = {h[k][1]}")
    for k, (hr, mr) in enumerate(zip(h, m)):
        if hr[1] != mr[1]:
            fail(f"row {k}: hydrograph at t = {hr[1]}, balance at t = {mr[1]}")
        b = sum(hr[col[n + "_volume_m3"]] for n in names[:3])
        s = sum(hr[col[n + "_volume_m3"]] for n in names[3:])
        near(b, mr[bal["boundary_net_m3"]], 1e-12, abs(b) + 1.0, f"row {k}: boundaries")
        near(s, mr[bal["source_net_m3"]], 1e-12, abs(s) + 1.0, f"row {k}: sources")
        largest = max(abs(mr[i]) for i in range(2, 7))
        near(mr[bal["residual_m3"]], 0.0, BALANCE_TOL, largest, f"row {k}: residual")
    last = h[-1]
    # The river's hydrograph: 0 -> 6 m^3/s over 100 s, 6 -> 2 over 200 s: 300 + 800 m^3.
    near(last[col["river_volume_m3"]], 1100.0, SERIES_TOL, 1100.0, "river volume")
    near(last[col["pipe_volume_m3"]], 150.0, 1e-9, 150.0, "pipe volume")
    # The pump takes 0.2 m^3/s while its cell holds water, at most the water there.
    if not -60.0 - 1e-9 <= last[col["pump_volume_m3"]] < 0.0:
        fail(f"pump volume {last[col['pump_volume_m3']]} m^3 (0.2 m^3/s for 300 s at most)")
    if not last[col["weir_volume_m3"]] < 0:
        fail("nothing left over the weir")
    print(f"{out}: {len(h)} rows; river {last[col['river_volume_m3']]:.3f} m^3, sea "
          f"{last[col['sea_volume_m3']]:.3f}, weir {last[col['weir_volume_m3']]:.3f}, "
          f"residual {m[-1][bal['residual_m3']]:.3g} m^3")


def main():
    silt, work = sys.argv[1], sys.argv[2]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    scene = os.path.join(work, "flow_tables.json")
    with open(scene, "w") as f:
        json.dump(SCENE, f)
    one, three = os.path.join(work, "one"), os.path.join(work, "three")
    run(silt, scene, one)
    run(silt, scene, three, "--devices", "0,1,2")
    check(one)
    check(three)
    a = open(os.path.join(one, "hydrograph.csv"), "rb").read()
    if a != open(os.path.join(three, "hydrograph.csv"), "rb").read():
        fail("hydrograph.csv of three partitions differs from one partition's")
    print("PASS")


if __name__ == "__main__":
    main()
