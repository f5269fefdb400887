#!/usr/bin/python3
"""The report's maps of `silt run` (issue 34, item 6): with outputs.hazard and PNG maps on, the end
of the run writes report_max_depth.png and report_hazard_class.png. Read back with Pillow: each is
the map (png_scale pixels a cell) in a white frame with tick labels west and south of it, a north
arrow in its north-east corner and a legend strip below; the depth map has the blues of its
colour bar, the class map the colours of the hazard classes that occur, in the map and in the
legend. The scene's boundary lines, inflow polygons and cross sections are drawn on both maps in
their colours (a second run with a wall line, a polygon of no discharge and a section: the same
flood), and no pixel changes farther than the line's halo from them but for their labels.

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

# The same scene with a wall line along the south edge, an inflow polygon of no discharge and a
# cross section: the same flood, with the features drawn on it.
MAGENTA, GREEN, BLACK = (220, 0, 220), (0, 170, 0), (20, 20, 20)
UPP = DX / SCALE  # m a pixel
feats = {
    "south": ([[600100, 4000000], [600400, 4000000]], MAGENTA, False),
    "pond": ([[600200, 4000250], [600260, 4000250], [600260, 4000310], [600200, 4000310]], GREEN,
             True),
    "xs": ([[600450, 4000050], [600450, 4000350]], BLACK, False),
}
doc["boundaries"] = [{"name": "south", "line": feats["south"][0], "type": "wall"}]
doc["sources"] = [{"name": "pond", "polygon": feats["pond"][0], "discharge": 0.0}]
doc["outputs"]["cross_sections"] = [{"name": "xs", "points": feats["xs"][0]}]
scene2 = os.path.join(SCRATCH, "report_maps_lines.json")
with open(scene2, "w") as f:
    json.dump(doc, f)
out2 = os.path.join(SCRATCH, "out_lines")
shutil.rmtree(out2, ignore_errors=True)
subprocess.run([SILT, "run", scene2, "--out", out2, "--quiet"], check=True,
               stdout=subprocess.DEVNULL)


def to_px(p):
    """Map coordinates to the map's pixel (x east, y down from its top row), fractional."""
    return (p[0] - 600000) / UPP, NY * SCALE - (p[1] - 4000000) / UPP


def segment_distance(q, a, b):
    dx, dy = b[0] - a[0], b[1] - a[1]
    t = max(0.0, min(1.0, ((q[0] - a[0]) * dx + (q[1] - a[1]) * dy) / (dx * dx + dy * dy)))
    return ((q[0] - a[0] - t * dx) ** 2 + (q[1] - a[1] - t * dy) ** 2) ** 0.5


def near_feature(x, y):
    """Within the halo (2.5 px from the line, pixel centres) of a feature, or where its label
    may go: up to 160 px right of and 30 px above its middle."""
    for pts, _, closed in feats.values():
        px = [to_px(p) for p in pts] + ([to_px(pts[0])] if closed else [])
        if any(segment_distance((x + 0.5, y + 0.5), a, b) <= 2.6 for a, b in zip(px, px[1:])):
            return True
        mx = sum(p[0] for p in px[:len(pts)]) / len(pts)
        my = sum(p[1] for p in px[:len(pts)]) / len(pts)
        if mx - 2 <= x <= mx + 160 and my - 30 <= y <= my + 2:
            return True
    return False


for name in ["report_max_depth.png", "report_hazard_class.png"]:
    a = Image.open(os.path.join(out, name)).convert("RGB")
    b = Image.open(os.path.join(out2, name)).convert("RGB")
    pa, pb = a.load(), b.load()
    w, h = b.size
    left = next(x for x in range(w) if sum(max(pb[x, y]) < 60 for y in range(h)) > map_h) + 1
    top = next(y for y in range(h) if sum(max(pb[x, y]) < 60 for x in range(w)) > map_w) + 1
    at = lambda p: pb[left + int(to_px(p)[0]), top + int(to_px(p)[1])]
    check(pb[left + 200, top + map_h - 1] == MAGENTA, f"{name}: the wall line along the south edge")
    check(at([600450, 4000200]) == BLACK, f"{name}: the cross section")
    check(at([600230, 4000250]) == GREEN and at([600260, 4000280]) == GREEN and
          at([600230, 4000280]) == pa[left + int(to_px([600230, 4000280])[0]),
                                      top + int(to_px([600230, 4000280])[1])],
          f"{name}: the inflow polygon's edges, its inside as it was")
    far = [(x, y) for y in range(map_h) for x in range(map_w)
           if pa[left + x, top + y] != pb[left + x, top + y] and not near_feature(x, y)]
    check(not far, f"{name}: no pixel changed away from the features ({len(far)}: {far[:5]})")

sys.exit(1 if failures else 0)
