"""Cross sections of `silt run` (outputs.cross_sections; issue 34, item 4): a sloping channel fed a
discharge hydrograph from the west, leaving at its normal depth on the east, with lines drawn
across it. Checks:
  - once the flow is steady (Q = 4 m^3/s from 900 s), the discharge through a straight line and
    through a zigzag polyline equals the inflow;
  - the line drawn the other way round passes the opposite volume (positive: toward the line's
    left, looking from its first point to its last);
  - the volume through the upstream line minus that through the downstream one is the change of
    the water stored between them (from the depth rasters), at every frame: the section's fluxes
    are the update's;
  - each section's discharges times the intervals sum to its volume column;
  - three partitions write the same hydrograph.csv, byte for byte;
  - all of this with physics.scheme = "muscl_hancock" too (its one step's edge fluxes);
  - lines that cannot count anything (off the grid, one point, across inactive cells only) are
    refused by `silt validate` with the key and the section's name.
Usage: swe_cross_sections_test.py <silt> <work dir> [cpu|cuda]: with cuda (label gpu) one GPU
runs the scene (the tile kernel's step) and the split comparison is left out."""
import csv
import json
import os
import shutil
import subprocess
import sys

NX, NY, DX = 80, 8, 5.0
Q_STEADY = 4.0       # m^3/s, the inflow from 900 s on
STEADY_TOL = 0.01    # relative: the last interval's discharge against the inflow (still settling)
STORAGE_TOL = 2e-6   # relative to the stored water: float32 depths (~6e-8 each) summed over cells
PRINT_TOL = 1e-8     # relative: q is printed with 10 significant digits

SCENE = {
    "solver": "swe", "name": "cross_sections",
    "grid": {"nx": NX, "ny": NY, "dx": DX},
    "bed": {"value": 1.0, "gradient": [-0.001, 0.0]},
    "manning": 0.03,
    "initial": {"depth": 0.25, "u": 0.1},
    "boundaries": [
        {"name": "inflow", "side": "west", "type": "discharge",
         "discharge": [[0, 1.0], [300, 6.0], [900, Q_STEADY]]},
        {"name": "outflow", "side": "east", "type": "normal_depth", "slope": 0.001},
    ],
    "run": {"end_time": 2400, "output_interval": 240},
    "outputs": {"fields": ["depth"], "formats": ["asc"], "png": "none",
                "cross_sections": [
                    {"name": "a", "points": [[100, 40], [100, 0]]},
                    {"name": "a_reversed", "points": [[100, 0], [100, 40]]},
                    {"name": "zigzag", "points": [[200, 45], [231, 21], [208, -5]]},
                    {"name": "c", "points": [[300, 50], [300, -10]]},
                ]},
}
NAMES = ["inflow", "outflow", "a", "a_reversed", "zigzag", "c"]


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def rows(path):
    with open(path) as f:
        r = list(csv.reader(f))
    return r[0], [[float(x) for x in row] for row in r[1:]]


BACKEND = sys.argv[3] if len(sys.argv) > 3 else "cpu"


def run(silt, scene, out, *extra):
    p = subprocess.run([silt, "run", scene, "--backend", BACKEND, "--out", out, "-q"] + list(extra),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        fail(f"silt run failed ({p.returncode}): {p.stderr}")


def near(a, b, tol, scale, what):
    if abs(a - b) > tol * max(scale, 1e-30):
        fail(f"{what}: {a} against {b} (tolerance {tol} x {scale})")


def stored(path, i0, i1):
    """m^3 of water in columns [i0, i1) of an ESRI ASCII depth raster."""
    with open(path) as f:
        lines = f.read().split("\n")
    values = [[float(x) for x in ln.split()] for ln in lines[6:] if ln.strip()]
    return sum(sum(r[i0:i1]) for r in values) * DX * DX


def check(out):
    hh, h = rows(os.path.join(out, "hydrograph.csv"))
    want = (["frame", "time_s"] + [n + "_q_m3_s" for n in NAMES] +
            [n + "_volume_m3" for n in NAMES])
    if hh != want:
        fail(f"hydrograph.csv header {hh}, expected {want}")
    col = {n: i for i, n in enumerate(hh)}
    q = lambda r, n: r[col[n + "_q_m3_s"]]
    v = lambda r, n: r[col[n + "_volume_m3"]]
    for n in NAMES:
        total, scale = 0.0, max(abs(v(r, n)) for r in h)
        for k in range(1, len(h)):
            total += q(h[k], n) * (h[k][1] - h[k - 1][1])
            near(total, v(h[k], n), PRINT_TOL * len(h), scale, f"{n}: sum of q dt to {h[k][1]} s")
    last = h[-1]
    for n in ["a", "zigzag", "c"]:
        near(q(last, n), Q_STEADY, STEADY_TOL, Q_STEADY, f"steady discharge through {n}")
    near(-q(last, "outflow"), Q_STEADY, STEADY_TOL, Q_STEADY, "steady outflow")
    for r in h:
        if v(r, "a_reversed") != -v(r, "a"):
            fail(f"t = {r[1]}: a_reversed passed {v(r, 'a_reversed')} m^3, a {v(r, 'a')}")
    # Columns 20 to 59 lie between x = 100 m and x = 300 m.
    s0 = stored(os.path.join(out, "depth_0000.asc"), 20, 60)
    for k, r in enumerate(h):
        s = stored(os.path.join(out, f"depth_{k:04d}.asc"), 20, 60)
        near(v(r, "a") - v(r, "c"), s - s0, STORAGE_TOL, s, f"t = {r[1]}: a - c against storage")
    print(f"{out}: {len(h)} rows; through a {v(last, 'a'):.3f} m^3, zigzag "
          f"{v(last, 'zigzag'):.3f}, c {v(last, 'c'):.3f}; last q {q(last, 'a'):.4f} m^3/s")


def refused(silt, work, name, sections, bed, expect):
    scene = dict(SCENE, name=name)
    scene["outputs"] = dict(SCENE["outputs"], cross_sections=sections)
    if bed:
        scene.pop("grid")
        scene["bed"] = {"raster": bed, "nodata": "wall"}
        scene["boundaries"] = []
        scene["initial"] = {"depth": 0.1}
    path = os.path.join(work, name + ".json")
    with open(path, "w") as f:
        json.dump(scene, f)
    p = subprocess.run([silt, "validate", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    text = p.stdout + p.stderr
    if p.returncode == 0 or any(e not in text for e in expect):
        fail(f"{name}: expected an error with {expect}, got ({p.returncode}) {text}")
    print(f"{name}: {text.strip()}")


def main():
    silt, work = sys.argv[1], sys.argv[2]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    scene = os.path.join(work, "cross_sections.json")
    with open(scene, "w") as f:
        json.dump(SCENE, f)
    for scheme in ["first_order", "muscl_hancock"]:
        one, three = os.path.join(work, "one_" + scheme), os.path.join(work, "three_" + scheme)
        run(silt, scene, one, "--set", f"physics.scheme={scheme}")
        check(one)
        if BACKEND == "cpu":
            run(silt, scene, three, "--devices", "0,1,2", "--set", f"physics.scheme={scheme}")
            check(three)
            a = open(os.path.join(one, "hydrograph.csv"), "rb").read()
            if a != open(os.path.join(three, "hydrograph.csv"), "rb").read():
                fail(f"{scheme}: hydrograph.csv of three partitions differs from one partition's")
    key = "outputs.cross_sections[0].points"
    refused(silt, work, "off_grid", [{"name": "off", "points": [[500, 0], [500, 40]]}], None,
            [key, "cross section 'off'", "passes between no two cell centres"])
    refused(silt, work, "one_point", [{"name": "dot", "points": [[100, 20]]}], None,
            [key, "cross section 'dot'", "has 1 point"])
    # A 10 x 4 bed whose columns 6 to 9 are nodata: a line at x = 40 m crosses only them.
    bed = os.path.join(work, "masked.asc")
    with open(bed, "w") as f:
        f.write("ncols 10\nnrows 4\nxllcorner 0\nyllcorner 0\ncellsize 5\nNODATA_value -9999\n")
        f.write(("1 " * 6 + "-9999 " * 4 + "\n") * 4)
    refused(silt, work, "masked", [{"name": "dam", "points": [[40, 0], [40, 20]]}], bed,
            [key, "cross section 'dam'", "none between two active cells"])
    print("PASS")


if __name__ == "__main__":
    main()
