"""Gauges without cost (issue 34, item 5): `silt run` of the dry-inflow scene (issue 34) with
gauges every 1 s, every 50 s and none. Checks:
  - gauges every 1 s take at most STEP_COST more steps than no gauges (samples are taken at the
    end of the step that reaches each sample time, stamped with its time, never by shortening a
    step), and the maximum depth raster is the same;
  - gauges.csv: times increasing, one row per step at most, each row at or after its sample time;
    level = ground + depth;
  - frames.csv lists the frame times as meant (k x 0.3 s printed as 3.6, not 3.5999999999999996);
  - gauge_points.csv: the cell read and its ground elevation, the arrival time (the first time the
    depth exceeds the gauge's arrival depth, between the samples around it) and the maxima, in the
    order the flood reaches the gauges.
Usage: swe_gauges_test.py <silt> <work dir>"""
import csv
import json
import os
import re
import shutil
import subprocess
import sys

STEP_COST = 0.02  # the bound: at most 2% more steps with gauges every 1 s

SCENE = {
    "solver": "swe", "name": "dry_inflow", "grid": {"nx": 60, "ny": 40, "dx": 5.0},
    "bed": {"value": 3.0, "gradient": [-0.01, 0.0]}, "manning": 0.03,
    "boundaries": [{"side": "west", "type": "discharge",
                    "discharge": [[0, 0], [300, 20], [900, 5]]},
                   {"side": "east", "type": "open"}],
    "rainfall_mm_h": 20, "run": {"end_time": 900, "output_interval": 300},
    "outputs": {"fields": ["max_depth"], "formats": ["asc"], "png": "none"},
}
POINTS = [{"name": "inflow", "x": 2.5, "y": 100}, {"name": "mid", "x": 150, "y": 100},
          {"name": "outlet", "x": 297.5, "y": 100, "arrival_depth": 0.05}]


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(silt, work, name, interval):
    scene = json.loads(json.dumps(SCENE))
    if interval:
        scene["outputs"]["gauges"] = {"interval": interval, "points": POINTS}
    path = os.path.join(work, name + ".json")
    with open(path, "w") as f:
        json.dump(scene, f)
    out = os.path.join(work, name)
    p = subprocess.run([silt, "run", path, "--backend", "cpu", "--out", out],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        fail(f"silt run failed ({p.returncode}): {p.stdout}")
    m = re.search(r"finished: t = [0-9.e+]+ s, (\d+) steps", p.stdout)
    if not m:
        fail(f"no 'finished' line in {p.stdout}")
    return out, int(m.group(1))


def table(path):
    with open(path) as f:
        r = list(csv.reader(f))
    return r[0], r[1:]


def main():
    silt, work = sys.argv[1], sys.argv[2]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    none, n0 = run(silt, work, "none", None)
    every1, n1 = run(silt, work, "every_1s", 1.0)
    every50, n50 = run(silt, work, "every_50s", 50.0)
    print(f"steps: no gauges {n0}, every 50 s {n50}, every 1 s {n1}")
    if n1 > (1 + STEP_COST) * n0 or n50 > (1 + STEP_COST) * n0:
        fail(f"gauges cost steps: {n1} (1 s) and {n50} (50 s) against {n0} without")
    ref = open(os.path.join(none, "max_depth_0003.asc")).read()
    for out in (every1, every50):
        if open(os.path.join(out, "max_depth_0003.asc")).read() != ref:
            fail(f"{out}: the maximum depth differs from the run without gauges")
    head, rows = table(os.path.join(every1, "gauges.csv"))
    times = [float(r[0]) for r in rows]
    if any(b <= a for a, b in zip(times, times[1:])):
        fail("gauges.csv times do not increase")
    if len(rows) > n1 + 1 or len(rows) < 900 * 0.5:
        fail(f"{len(rows)} gauge rows for {n1} steps of 900 s at 1 s")
    k = 0
    for t in times:  # each row at or after its sample time, before the next one's
        if t < k:
            fail(f"row at {t} s before its sample time {k} s")
        k = int(t) + 1
    ph, pts = table(os.path.join(every1, "gauge_points.csv"))
    want = ["name", "x_m", "y_m", "cell_i", "cell_j", "ground_m", "arrival_depth_m",
            "arrival_time_s", "max_depth_m", "max_level_m", "time_of_max_s", "snap_radius_m"]
    if ph != want:
        fail(f"gauge_points.csv header {ph}, expected {want}")
    p = {r[0]: dict(zip(ph, r)) for r in pts}
    cells = {"inflow": (0, 20), "mid": (30, 20), "outlet": (59, 20)}
    arrivals = []
    for g, (i, j) in cells.items():
        r = p[g]
        if (int(r["cell_i"]), int(r["cell_j"])) != (i, j):
            fail(f"{g}: cell {r['cell_i']}, {r['cell_j']}, expected {i}, {j}")
        ground = 3.0 - 0.01 * (5.0 * i + 2.5)
        if abs(float(r["ground_m"]) - ground) > 1e-9:
            fail(f"{g}: ground {r['ground_m']} m, expected {ground}")
        c = head.index(g + "_h_m")
        depth = [float(x[c]) for x in rows]
        level = [float(x[head.index(g + "_level_m")]) for x in rows]
        if any(abs(lv - (ground + h)) > 1e-6 for lv, h in zip(level, depth)):
            fail(f"{g}: level is not ground + depth")
        a, d = float(r["arrival_time_s"]), float(r["arrival_depth_m"])
        first = next(n for n, h in enumerate(depth) if h > d)
        if not (first == 0 or times[first - 1] <= a <= times[first]):
            fail(f"{g}: arrival {a} s outside the samples around the crossing "
                 f"({times[first - 1]}, {times[first]})")
        if abs(float(r["max_depth_m"]) - max(depth)) > 1e-9:
            fail(f"{g}: max depth {r['max_depth_m']} against the samples' {max(depth)}")
        arrivals.append(a)
    if p["outlet"]["arrival_depth_m"] != "0.05" or p["mid"]["arrival_depth_m"] != "0.01":
        fail("arrival depths: the gauge's own, else outputs.gauges.arrival_depth (0.01 m)")
    if not arrivals[0] < arrivals[1] < arrivals[2]:
        fail(f"arrivals {arrivals} s not in the flood's order")
    print(f"arrival times {arrivals} s; {len(rows)} rows")
    # Frame times as meant: 12 x 0.3 s is 3.6 s in frames.csv, not 3.5999999999999996.
    short = json.loads(json.dumps(SCENE))
    short["run"] = {"end_time": 4.5, "output_interval": 0.3}
    path = os.path.join(work, "short.json")
    with open(path, "w") as f:
        json.dump(short, f)
    out = os.path.join(work, "short")
    subprocess.run([silt, "run", path, "--backend", "cpu", "--out", out, "-q"], check=True)
    listed = [line.split(",")[1] for line in open(os.path.join(out, "frames.csv")).read().split()[1:]]
    want = [f"{k * 3 // 10}.{k * 3 % 10}" if k % 10 else str(k * 3 // 10) for k in range(16)]
    want = [w[:-2] if w.endswith(".0") else w for w in want]
    if listed != want:
        fail(f"frames.csv times {listed}, expected {want}")
    print("PASS")


if __name__ == "__main__":
    main()
