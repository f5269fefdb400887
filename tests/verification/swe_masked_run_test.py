"""A masked run with gauges and hazard maxima (issue 34, item 7): `silt run` of a dam break in a
round valley with a channel on a grid mostly of nodata, float64, gauges every 0.5 s, hazard
rasters. The reference is the CPU on one partition; the run checked is
  - cpu: three partitions, whose gauges.csv and hazard rasters must be the same bytes;
  - cuda: the GPU (the tile kernel over the active tiles only, gauges gathered on the device),
    whose gauge rows must be the same steps and values within TOL, rasters within TOL.
Usage: swe_masked_run_test.py <silt> <work dir> [cpu|cuda]"""
import csv
import json
import math
import os
import shutil
import subprocess
import sys

# float64 on both backends runs the same functions; only contraction (FMA on the GPU) differs,
# ~1e-16 per operation over a few hundred steps (swe_backends_test's 1e-10 on depths); the rasters
# are printed with fewer digits than that.
TOL = 1e-8
NX, NY, DX = 150, 100, 2.0
BACKEND = sys.argv[3] if len(sys.argv) > 3 else "cpu"

SCENE = {
    "solver": "swe", "name": "masked_valley",
    "bed": {"raster": "valley.asc", "nodata": "wall"}, "manning": 0.035,
    "initial": {"level": {"value": 0.0, "patches": [
        {"shape": "circle", "center": [70, 100], "radius": 25, "value": 2.0}]}},
    "physics": {"precision": "float64"},
    "run": {"end_time": 30, "output_interval": 15},
    "outputs": {"fields": ["max_depth"], "formats": ["asc"], "png": "none",
                "hazard": {"fields": ["max_depth", "max_speed", "first_wet_time",
                                      "wet_duration"]},
                "gauges": {"interval": 0.5, "points": [
                    {"name": "lake", "x": 70, "y": 100}, {"name": "rim", "x": 150, "y": 100},
                    {"name": "channel", "x": 240, "y": 100}]}},
}


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def write_valley(path):
    """Active: a disc of radius 40 cells around cell (50, 50) and a channel east of it."""
    rows = []
    for j in range(NY - 1, -1, -1):  # north row first
        row = []
        for i in range(NX):
            r = math.hypot(i - 50, j - 50)
            valley, channel = r < 40, 50 <= i < 148 and 45 <= j < 56
            z = 0.002 * r * r / 40 if valley else -0.004 * (i - 50)
            row.append(f"{z:.4f}" if valley or channel else "-9999")
        rows.append(" ".join(row))
    with open(path, "w") as f:
        f.write(f"ncols {NX}\nnrows {NY}\nxllcorner 0\nyllcorner 0\ncellsize {DX}\n"
                "NODATA_value -9999\n" + "\n".join(rows) + "\n")


def run(silt, scene, out, backend, *extra):
    p = subprocess.run([silt, "run", scene, "--backend", backend, "--out", out, "-q"] +
                       list(extra), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        fail(f"silt run --backend {backend} {' '.join(extra)} failed ({p.returncode}): {p.stderr}")


def table(path):
    with open(path) as f:
        r = list(csv.reader(f))
    return r[0], r[1:]


def raster(path):
    with open(path) as f:
        lines = f.read().split("\n")
    return [float(x) for ln in lines[6:] if ln.strip() for x in ln.split()]


def compare(ref, got):
    files = ["gauges.csv"] + [f"hazard_{n}.asc" for n in
                              SCENE["outputs"]["hazard"]["fields"]]
    for name in files:
        a, b = os.path.join(ref, name), os.path.join(got, name)
        if not os.path.exists(b):
            fail(f"{b} missing")
        if BACKEND == "cpu":
            if open(a, "rb").read() != open(b, "rb").read():
                fail(f"{name}: three partitions differ from one")
            continue
        if name.endswith(".csv"):
            ha, ra = table(a)
            hb, rb = table(b)
            if ha != hb or len(ra) != len(rb):
                fail(f"{name}: {len(rb)} rows {hb} against {len(ra)} rows {ha}")
            pairs = [(float(x), float(y)) for r, s in zip(ra, rb) for x, y in zip(r, s)]
        else:
            va, vb = raster(a), raster(b)
            if len(va) != len(vb):
                fail(f"{name}: {len(vb)} values against {len(va)}")
            pairs = list(zip(va, vb))
        worst = max(abs(x - y) / max(1.0, abs(x)) for x, y in pairs)
        print(f"{name}: {len(pairs)} values, largest difference {worst:.3e}")
        if worst > TOL:
            fail(f"{name}: differs by {worst:.3e} (> {TOL})")


def main():
    silt, work = sys.argv[1], sys.argv[2]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    write_valley(os.path.join(work, "valley.asc"))
    scene = os.path.join(work, "masked_valley.json")
    with open(scene, "w") as f:
        json.dump(SCENE, f)
    ref, got = os.path.join(work, "cpu_one"), os.path.join(work, "checked")
    run(silt, scene, ref, "cpu")
    _, rows = table(os.path.join(ref, "gauges.csv"))
    if len(rows) < 50:
        fail(f"{len(rows)} gauge rows for 30 s at 0.5 s")
    if BACKEND == "cpu":
        run(silt, scene, got, "cpu", "--devices", "0,1,2")
    else:
        run(silt, scene, got, BACKEND)
    compare(ref, got)
    print("PASS")


if __name__ == "__main__":
    main()
