#!/usr/bin/python3
"""Hazard outputs of a run (issue 21, item 3), checked against Ritter's dam break on a dry bed
(h0 = 1 m behind x = 0, frictionless, 10 s): over the run, at each x > 0 the first wetting deeper
than w = 0.01 m comes at t = x / (2 c0 - 3 sqrt(g w)) (c0 = sqrt(g h0); the front itself, w -> 0,
at x / (2 c0)), the largest speed there is 2 (c0 - sqrt(g w)), and the maximum depth and depth x
speed are those at the end; the cell is wet from then on. Error norms (relative L1 over the cells
the front reached before 0.8 T) must stay below tolerances set from the first-order scheme's
measured errors at dx = 0.25 m. The rasters are read with GDAL (.tif, .asc), the run's fields.nc
with xarray (variables without time, flag_values/flag_meanings on the class raster) and checked by
cfchecks.

Usage: swe_hazard_test.py <silt executable> <scratch dir> (the /opt/silt-venv Python)."""
import glob
import json
import math
import os
import shutil
import subprocess
import sys

import numpy as np
import xarray as xr
from osgeo import gdal

gdal.UseExceptions()
SILT, SCRATCH = sys.argv[1], sys.argv[2]
HERE = os.path.dirname(os.path.abspath(__file__))
VENV = os.path.dirname(os.path.dirname(sys.executable))
G, H0, T, W, DX = 9.81, 1.0, 10.0, 0.01, 0.25
failures = []

# Relative L1 errors of the first-order scheme at dx = 0.25 m, measured 2026-12-01: first wetting
# 0.082, max speed 0.164, max depth 0.094, max depth x speed 0.019 (the smeared front tip, where
# the depth is near w, dominates), with 1.5x room.
TOL_FIRST_WET = 0.12
TOL_MAX_SPEED = 0.25
TOL_MAX_DEPTH = 0.14
TOL_MAX_DEPTH_SPEED = 0.03
# A cell wet from its first wetting on holds T - t_first + (its first step), and the front tip may
# dry and wet again for a few steps: a few steps of ~0.012 s.
TOL_DURATION = 0.05


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


os.makedirs(SCRATCH, exist_ok=True)
nx = int(200 / DX)
doc = {
    "solver": "swe", "name": "ritter_hazard",
    "grid": {"nx": nx, "ny": 2, "dx": DX, "origin": [-100.0, 0.0]},
    "bed": {"value": 0.0},
    "initial": {"level": {"value": 0.0, "patches": [
        {"shape": "rectangle", "min": [-100.0, 0.0], "max": [0.0, 2 * DX], "value": H0}]}},
    "manning": 0.0,
    "physics": {"cfl": 0.45, "precision": "float64"},
    "run": {"end_time": T, "output_interval": T},
    "outputs": {"fields": ["depth"], "formats": ["asc", "tif", "nc"], "png": "none",
                "hazard": {"wet_depth": W}},
}
scene = os.path.join(SCRATCH, "ritter_hazard.json")
with open(scene, "w") as f:
    json.dump(doc, f)
out = os.path.join(SCRATCH, "out")
shutil.rmtree(out, ignore_errors=True)
subprocess.run([SILT, "run", scene, "--out", out, "--quiet"], check=True, stdout=subprocess.DEVNULL)


def tif(name):
    return gdal.Open(os.path.join(out, f"hazard_{name}.tif")).ReadAsArray()[-1]  # south row


x = -100.0 + (np.arange(nx) + 0.5) * DX
c0, cw = math.sqrt(G * H0), math.sqrt(G * W)
# Ritter at the end: h = (2 c0 - x/t)^2 / (9 g), u = 2/3 (c0 + x/t) for -c0 t < x < 2 c0 t.
s = np.clip(x / T, -c0, 2 * c0)
h_end = np.where(x < -c0 * T, H0, (2 * c0 - s) ** 2 / (9 * G))
u_end = np.where(x < -c0 * T, 0.0, 2.0 / 3.0 * (c0 + s))
reached = (x > 2 * DX) & (x < 0.8 * T * (2 * c0 - 3 * cw))


def rel_l1(a, b, m):
    return float(np.sum(np.abs(a[m] - b[m])) / np.sum(np.abs(b[m])))


first = tif("first_wet_time")
e = rel_l1(first, x / (2 * c0 - 3 * cw), reached)
check(e < TOL_FIRST_WET, f"first wetting time: relative L1 error {e:.4f} < {TOL_FIRST_WET}")
e_front = rel_l1(first, x / (2 * c0), reached)
print(f"     (against the dry front's arrival x / (2 c0): {e_front:.4f})")
e = rel_l1(tif("max_speed"), np.full(nx, 2 * (c0 - cw)), reached)
check(e < TOL_MAX_SPEED, f"max speed: relative L1 error {e:.4f} < {TOL_MAX_SPEED}")
wet_end = h_end > W
e = rel_l1(tif("max_depth"), h_end, wet_end)
check(e < TOL_MAX_DEPTH, f"max depth: relative L1 error {e:.4f} < {TOL_MAX_DEPTH}")
e = rel_l1(tif("max_depth_speed"), h_end * u_end, wet_end & (x > -c0 * T))
check(e < TOL_MAX_DEPTH_SPEED,
      f"max depth x speed: relative L1 error {e:.4f} < {TOL_MAX_DEPTH_SPEED}")
dur = tif("wet_duration")
e = float(np.max(np.abs(dur[reached] + first[reached] - T)))
check(e < TOL_DURATION,
      f"wet duration = end time - first wetting where the front passed (max {e:.3g} s)")
never = x > 2.2 * c0 * T
first_ds = gdal.Open(os.path.join(out, "hazard_first_wet_time.tif"))  # kept: bands need it
nd = first_ds.GetRasterBand(1).GetNoDataValue()
check(bool(np.all(first[never] == nd)), "first wetting is nodata beyond the front")
cls = tif("class")
class_ds = gdal.Open(os.path.join(out, "hazard_class.tif"))
check(class_ds.GetRasterBand(1).DataType == gdal.GDT_Byte, "hazard_class.tif holds bytes")
check(bool(np.all(cls[never] == 0)), "class 0 (not flooded) beyond the front")
# Behind the dam at rest at 1 m: HR = 1 (0 + 0.5) + 1 = 1.5, significant.
check(bool(np.all(cls[x < -c0 * T - 1] == 3)), "class 3 (significant) in the still reservoir")
asc = gdal.Open(os.path.join(out, "hazard_max_speed.asc")).ReadAsArray()[-1]
# GDAL reads an ESRI ASCII grid as float32.
check(bool(np.allclose(asc, tif("max_speed"), rtol=1e-6)), "the .asc equals the .tif")

ds = xr.open_dataset(os.path.join(out, "fields.nc"), decode_times=False)
for name in ["max_depth", "max_speed", "max_depth_speed", "first_wet_time", "wet_duration",
             "max_concentration", "rating", "class"]:
    v = ds["hazard_" + name]
    check(v.dims == ("y", "x") and "long_name" in v.attrs,
          f"fields.nc: hazard_{name} has dims (y, x) and a long_name")
check(bool(np.allclose(ds["hazard_max_speed"].values[0], tif("max_speed"), rtol=1e-12)),
      "fields.nc hazard_max_speed equals the .tif")
c = ds["hazard_class"]
check(list(c.attrs.get("flag_values", [])) == [0, 1, 2, 3, 4] and
      c.attrs.get("flag_meanings") == "not_flooded low moderate significant extreme",
      "hazard_class has flag_values 0..4 and their flag_meanings")

table = glob.glob(os.path.join(VENV, "lib", "python3*", "site-packages", "compliance_checker",
                               "data", "cf-standard-name-table.xml"))
if table:
    r = subprocess.run([os.path.join(VENV, "bin", "cfchecks"), "-s", table[0],
                        "-a", os.path.join(HERE, "data", "cf_area_types_none.xml"),
                        "-r", os.path.join(HERE, "data", "cf_region_names_none.xml"),
                        os.path.join(out, "fields.nc")], capture_output=True, text=True)
    errors = [l for l in r.stdout.splitlines()
              if l.startswith("ERROR") and not l.startswith("ERRORS detected")]
    check(not errors and "ERRORS detected: 0" in r.stdout,
          "cfchecks finds no error in fields.nc with hazard variables" +
          ("" if not errors else ": " + "; ".join(errors[:5])))
else:
    check(False, "the CF standard-name table of compliance-checker is installed")

sys.exit(1 if failures else 0)
