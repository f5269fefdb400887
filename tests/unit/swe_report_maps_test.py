#!/usr/bin/python3
"""The report's maps of `silt run` (issue 34, item 6): with outputs.hazard and PNG maps on, the end
of the run writes report_max_depth.png and report_hazard_class.png. Read back with Pillow: each is
the map (png_scale pixels a cell) in a white frame with tick labels west and south of it, a north
arrow in its north-east corner and a legend strip below; the depth map has the blues of its
colour bar, the class map the colours of the hazard classes that occur, in the map and in the
legend.

Usage: swe_report_maps_test.py <silt executable> <scratch dir>"""
import json
import os
import shutil
import subprocess
import sys

from PIL import Image

SILT, SCRATCH = sys.argv[1], sys.argv[2]
NX, NY, DX, SCALE = 60, 40, 10.0, 8
CLASSES = {1: (254, 217, 118), 2: (253, 141, 60), 3: (227, 26, 28), 4: (128, 0, 38)}
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


os.makedirs(SCRATCH, exist_ok=True)
doc = {
    "solver": "swe", "name": "report_maps",
    "grid": {"nx": NX, "ny": NY, "dx": DX, "origin": [600000, 4000000]},
    "bed": {"value": 0.0, "gradient": [-0.002, 0.0]},
    "initial": {"level": {"value": 0.0, "patches": [
        {"shape": "circle", "center": [600150, 4000200], "radius": 80, "value": 3.0}]}},
    "run": {"end_time": 30, "output_interval": 30},
    "outputs": {"fields": ["depth"], "png": "depth", "png_scale": SCALE, "crs": "EPSG:32617",
                "hazard": {"fields": ["max_depth", "class"]}},
}
scene = os.path.join(SCRATCH, "report_maps.json")
with open(scene, "w") as f:
    json.dump(doc, f)
out = os.path.join(SCRATCH, "out")
shutil.rmtree(out, ignore_errors=True)
subprocess.run([SILT, "run", scene, "--out", out, "--quiet"], check=True, stdout=subprocess.DEVNULL)

map_w, map_h = NX * SCALE, NY * SCALE
for name in ["report_max_depth.png", "report_hazard_class.png"]:
    path = os.path.join(out, name)
    check(os.path.exists(path), f"{name} is written at the end of the run")
    im = Image.open(path).convert("RGB")
    w, h = im.size
    px = im.load()
    # The frame: the map plus margins west (tick labels), south (labels) and a legend strip.
    check(map_w + 40 < w < map_w + 140 and map_h + 60 < h < map_h + 140,
          f"{name}: {w} x {h} px frames the {map_w} x {map_h} px map")
    # The map's west border: the first dark column of pixels that spans the map's height.
    left = next(x for x in range(w) if sum(max(px[x, y]) < 60 for y in range(h)) > map_h)
    top = next(y for y in range(h) if sum(max(px[x, y]) < 60 for x in range(w)) > map_w)
    dark = lambda x0, x1, y0, y1: sum(max(px[x, y]) < 100 for x in range(x0, x1)
                                      for y in range(y0, y1))
    check(dark(0, left - 6, top, top + map_h) > 100, f"{name}: northings west of the map")
    check(dark(left, left + map_w, top + map_h + 6, top + map_h + 24) > 100,
          f"{name}: eastings south of the map")
    # The north arrow: a white box with a black triangle in the map's north-east corner.
    box = [(x, y) for x in range(left + map_w - 40, left + map_w - 4)
           for y in range(top + 4, top + 50)]
    check(sum(px[p] == (255, 255, 255) for p in box) > 200 and
          sum(max(px[p]) < 60 for p in box) > 80, f"{name}: a north arrow in the north-east corner")
    strip = [px[x, y] for x in range(w) for y in range(top + map_h + 36, h)]
    scene_px = [px[x, y] for x in range(left + 1, left + map_w - 41)
                for y in range(top + 1, top + map_h)]
    if "class" in name:
        occurring = {c for c, rgb in CLASSES.items() if rgb in strip}
        check(occurring == set(CLASSES), f"{name}: the legend shows the 4 classes' colours")
        check(any(abs(p[0] - p[1]) > 60 for p in scene_px), f"{name}: flooded cells in colour")
    else:
        check(any(p[2] > 200 and p[0] < 120 for p in strip), f"{name}: a blue colour bar")
        check(any(p[2] > p[0] + 40 for p in scene_px), f"{name}: the flood in blue on the map")

sys.exit(1 if failures else 0)
