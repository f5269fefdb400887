#!/usr/bin/python3
"""`silt run scene.json --ensemble ensemble.json` (issue 37, docs/ensembles.md) on
scenes/rain_plane.json in float64:
  - each member's files in OUT/members/<name>/ equal, byte for byte, those of its solo run with
    the member's values as --set (every raster, frames.csv, gauges, hydrograph and mass balance),
    members run two at once on one thread each against solo runs on one thread;
  - the statistics in ensemble.nc and in the ESRI ASCII rasters equal NumPy's (nanmean, nanstd,
    nanpercentile 'linear', the fraction above each depth, each hazard class or worse) on the
    members' maxima, which equal each member's own max_depth raster;
  - measures.csv: each member's maxima at its gauges equal its own max_depth raster in the
    gauge's cell, its water balance the last row of its own mass_balance.csv, each hydrograph
    series' (boundary, source, cross section) net volume its own hydrograph.csv's last, its peak
    discharge of a step at least hydrograph.csv's largest frame mean |q|, the spring's peak its
    series' apex; measures_stats.csv equals NumPy's on it (issue 37, item 3);
  - the CF checker finds no error in ensemble.nc;
  - with PNG maps on, each probability map is also a report map over the terrain
    (report_p_*.png), coloured where the probability is above 0 and nowhere else;
  - a run stopped by SIGINT in the middle of its second member continues with --restart
    OUT/ensemble_checkpoint (the second member from its own checkpoint) and writes the
    uninterrupted run's files;
  - a bad member is refused before anything runs, naming the member and the key.

Usage: run_ensemble_cli_test.py <silt executable> <scratch dir>; run with the venv's Python
(/opt/silt-venv: xarray and cfchecks)."""
import glob
import json
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import xarray as xr

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from stop_ensemble import interrupt_when, saved_members  # noqa: E402

SILT, SCRATCH = sys.argv[1], sys.argv[2]
HERE = os.path.dirname(os.path.abspath(__file__))
SCENE = os.path.join(HERE, "..", "..", "scenes", "rain_plane.json")
VENV = os.path.dirname(os.path.dirname(sys.executable))
BASE = ["--backend", "cpu", "--set", "physics.precision=float64",
        "--set", "outputs.precision=float64", "--set", "outputs.png=none",
        "--set", 'outputs.formats=["asc"]',
        # hydrograph.csv's three kinds of series: the outlet (a boundary), a spring (a point source
        # with a triangular hydrograph, peaking between frames) and a cross section of the channel
        "--set", 'sources=[{"name": "spring", "x": 750, "y": 600, '
                 '"discharge": [[0, 0], [1200, 0.4], [2400, 0]]}]',
        "--set", 'outputs.cross_sections=[{"name": "channel", "points": [[460, 410], [540, 410]]}]']
# The statistics are computed in float64 on the host as NumPy computes them; NumPy's nan*
# functions sum in another order (pairwise), so agreement to round-off, not bits.
STATS_RTOL = 1e-12
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def silt(args, threads, expect=0):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    r = subprocess.run([SILT, "run", SCENE, "-q"] + BASE + args, capture_output=True, text=True,
                       env=env)
    if r.returncode != expect:
        print(r.stdout, r.stderr)
    check(r.returncode == expect, f"silt run {' '.join(args[-4:])} exits {expect}")
    return r


shutil.rmtree(SCRATCH, ignore_errors=True)
os.makedirs(SCRATCH)
ens = os.path.join(SCRATCH, "ens.json")
with open(ens, "w") as f:
    json.dump({"members": [{"name": "smooth", "set": {"manning": 0.02}}],
               "vary": {"keys": {"manning": {"scale": [1.0, 1.5]},
                                 "rainfall": {"scale": [0.5, 2.0]}}},
               "outputs": {"members": True, "formats": ["asc", "nc"],
                           "exceedance_depths": [0.02, 0.1], "percentiles": [5, 50, 95]},
               "run": {"parallel": "members"}}, f)
out = os.path.join(SCRATCH, "ens")
silt(["--ensemble", ens, "--out", out], threads=2)
resolved = json.load(open(os.path.join(out, "resolved_ensemble.json")))
members = resolved["provenance"]["members"]
names = [m["name"] for m in members]
check(names == ["smooth", "m00", "m01", "m02", "m03"], f"members in order: {names}")

# Members against their solo runs, byte for byte.
for m in (members[0], members[4]):
    solo = os.path.join(SCRATCH, "solo_" + m["name"])
    silt(sum((["--set", s] for s in m["set"]), []) + ["--out", solo], threads=1)
    files = sorted(os.listdir(solo))
    mine = os.path.join(out, "members", m["name"])
    differ = [f for f in files if open(os.path.join(solo, f), "rb").read() !=
              open(os.path.join(mine, f), "rb").read()]
    check(len(files) > 20 and not differ,
          f"member '{m['name']}' ({' '.join(m['settings'])}): {len(files)} files equal to its "
          f"solo run's" + (f"; differ: {differ}" if differ else ""))


def asc(path):
    with open(path) as f:
        head = [next(f) for _ in range(6)]
        nodata = float(head[5].split()[1])
        v = np.loadtxt(f)[::-1]  # south row first, as the NetCDF file
    return np.where(v == nodata, np.nan, v)


def close(a, b):
    return a.shape == b.shape and np.array_equal(np.isnan(a), np.isnan(b)) and \
        np.allclose(a[~np.isnan(a)], b[~np.isnan(b)], rtol=STATS_RTOL, atol=0)


d = xr.open_dataset(os.path.join(out, "ensemble.nc"))
depth = d["member_max_depth"].values
check(depth.shape[0] == 5, f"ensemble.nc: member_max_depth over 5 members ({depth.shape})")
last = sorted(glob.glob(os.path.join(out, "members", "m03", "max_depth_*.asc")))[-1]
check(close(depth[4], asc(last)), "member m03's maxima equal its own last max_depth raster")
for field in ("max_depth", "max_speed", "max_level"):
    v = d["member_" + field].values
    want = {"mean": np.nanmean(v, axis=0), "std": np.nanstd(v, axis=0)}
    for p in (5, 50, 95):
        want[f"p{p:02}"] = np.nanpercentile(v, p, axis=0)
    for stat, w in want.items():
        name = f"{field}_{stat}"
        check(close(d[name].values, w) and close(asc(os.path.join(out, name + ".asc")), w),
              f"{name} (ensemble.nc and .asc) equals NumPy's")
for k, threshold in enumerate((0.02, 0.1)):
    w = np.mean(depth > threshold, axis=0)
    check(close(d["p_depth_above"].values[k], w) and
          close(asc(os.path.join(out, f"p_depth_above_{threshold:g}m.asc")), w) and
          0 < np.nanmax(w) and np.nanmin(w) < 1,
          f"P(max depth > {threshold} m) equals NumPy's and is neither 0 nor 1 everywhere")
classes = d["member_hazard_class"].values
for c, name in enumerate(("low", "moderate", "significant", "extreme")):
    check(close(d["p_hazard_" + name].values, np.mean(classes >= c + 1, axis=0)),
          f"P(hazard class >= {name}) equals NumPy's")

# Per-member measures (measures.csv): each gauge's maxima in its own cell equal the member's own
# last max_depth raster there (and the ground plus it, ensemble.nc's max speed there), the water
# balance equals the last row of the member's own mass_balance.csv, measures_stats.csv equals
# NumPy's on measures.csv (a west_plane arrival is NaN where a member never wets it), and
# measures.nc holds the same columns.
def csv_table(path):
    with open(path) as f:
        head = f.readline().strip().split(",")
        rows = [line.strip().split(",") for line in f if line.strip()]
    return head, rows


gauges = [r.split(",") for r in open(os.path.join(out, "members", "m03",
                                                  "gauge_points.csv")).read().split()[1:]]
balance = ["rain_m3", "infiltrated_m3", "boundary_net_m3", "source_net_m3", "stored_m3"]
series = ["outlet", "spring", "channel"]  # hydrograph.csv's order: boundaries, sources, sections
columns = [f"{g[0]}_{c}" for g in gauges for c in ("max_depth_m", "max_level_m", "max_speed_m_s",
                                                   "arrival_s")] + \
    [f"{h}_{c}" for h in series for c in ("peak_q_m3_s", "peak_time_s", "volume_m3")] + balance
# hydrograph.csv prints a discharge with 10 significant digits, a volume with every bit.
Q_RTOL = 1e-9
# s: the longest step near the spring's apex (the CFL step of the wet channel; a dry first step is
# up to 600 s), bounding where the peak of a step may lie.
STEP_S = 30.0
mpath = os.path.join(out, "measures.csv")
head, rows = csv_table(mpath) if os.path.exists(mpath) else ([], [])
check(head == ["member", "name"] + columns and [r[1] for r in rows] == names,
      f"measures.csv: a row per member, columns {head}")
if head != ["member", "name"] + columns:
    rows = []  # its other checks would read the wrong columns
values = np.array([[float(x) for x in r[2:]] for r in rows]) if rows else np.zeros((0, 0))
col = {c: k for k, c in enumerate(columns)}
for m, name in enumerate(names if rows else []):
    mine = os.path.join(out, "members", name)
    raster = asc(sorted(glob.glob(os.path.join(mine, "max_depth_*.asc")))[-1])
    for g in gauges:
        i, j, ground = int(g[3]), int(g[4]), float(g[5])
        depth = values[m, col[g[0] + "_max_depth_m"]]
        level = values[m, col[g[0] + "_max_level_m"]]
        nc = [d["member_" + f].values[m][j, i] for f in ("max_level", "max_speed")]
        check(g[-1] == "0" and close(np.array([depth]), np.array([raster[j, i]])) and
              close(np.array([level]), np.array([nc[0]])) and
              (np.isnan(level) or abs(level - ground - depth) < 1e-9) and
              close(np.array([values[m, col[g[0] + "_max_speed_m_s"]]]), np.array([nc[1]])),
              f"{name}: gauge {g[0]}'s maxima equal its max_depth raster at cell ({i}, {j}) "
              f"({depth:.6g} m), the ground plus it, ensemble.nc's level and speed there")
    mb_head, mb_rows = csv_table(os.path.join(mine, "mass_balance.csv"))
    want = [float(mb_rows[-1][mb_head.index(c)]) for c in balance]
    got = [values[m, col[c]] for c in balance]
    check(got == want, f"{name}: the water balance {got} equals mass_balance.csv's last row")
    hy_head, hy_rows = csv_table(os.path.join(mine, "hydrograph.csv"))
    for h in series:
        q = np.abs([float(r[hy_head.index(h + "_q_m3_s")]) for r in hy_rows])
        volume = float(hy_rows[-1][hy_head.index(h + "_volume_m3")])
        peak, when, net = [values[m, col[f"{h}_{c}"]] for c in ("peak_q_m3_s", "peak_time_s",
                                                                  "volume_m3")]
        check(net == volume and peak >= q.max() * (1 - Q_RTOL) and q.max() > 0 and
              0 < when <= float(hy_rows[-1][1]),
              f"{name}: {h}'s net volume {net:.9g} m^3 is its hydrograph.csv's last, its peak of a "
              f"step {peak:.6g} m^3/s (at {when:g} s) at least its largest frame mean {q.max():.6g}")
    # The spring's 0.4 m^3/s at 1200 s, sampled at a step's middle, 0.4/1200 m^3/s per s on
    # either side: the frames (900 s) show 0.317; a step shorter than STEP_S reads it to 1%.
    peak, when = values[m, col["spring_peak_q_m3_s"]], values[m, col["spring_peak_time_s"]]
    check(0.4 * 0.99 < peak <= 0.4 * (1 + Q_RTOL) and abs(when - 1200) < STEP_S,
          f"{name}: the spring's peak of a step {peak:.9g} m^3/s at {when:g} s is its apex, "
          f"0.4 at 1200 s")
spath = os.path.join(out, "measures_stats.csv")
shead, srows = csv_table(spath) if os.path.exists(spath) else ([], [])
stats = np.array([[float(x) for x in r[2:]] for r in srows]) if srows else np.zeros((0, 5))
want = np.array([np.nanmean(values, axis=0), np.nanstd(values, axis=0)] +
                [np.nanpercentile(values, p, axis=0) for p in (5, 50, 95)]).T if rows else stats
check(shead == ["measure", "units", "mean", "std", "p05", "p50", "p95"] and
      [f"{r[0]}_{r[1].replace(' s-1', '_s')}" for r in srows] == columns and
      np.isnan(values[:, col["west_plane_arrival_s"]]).any() and close(stats, want),
      "measures_stats.csv (a row per column) equals NumPy's nanmean, nanstd, nanpercentile")
mnc = os.path.join(out, "measures.nc")
check(os.path.exists(mnc) and rows and all(
    np.array_equal(xr.open_dataset(mnc)[r[0]].values, values[:, k], equal_nan=True)
    for k, r in enumerate(srows)), "measures.nc holds measures.csv's columns")

# The report maps of the probabilities (PNG maps on): coloured (the YlOrRd ramp: red well above
# blue) on cells some member wets beyond the depth, the terrain (grey) elsewhere, so a lower depth
# colours more of the map, and a depth no member exceeds colours nothing but the legend's bar.
with open(os.path.join(SCRATCH, "png.json"), "w") as f:
    json.dump({"vary": {"keys": {"rainfall": {"scale": [0.5, 2.0]}}},
               "outputs": {"exceedance_depths": [0.02, 0.1, 50.0]}}, f)
png_out = os.path.join(SCRATCH, "png")
silt(["--set", "outputs.png=depth", "--ensemble", os.path.join(SCRATCH, "png.json"),
      "--out", png_out], threads=2)
try:
    from PIL import Image

    coloured = {}
    for t in ("0.02", "0.1", "50"):
        im = np.asarray(Image.open(os.path.join(png_out, f"report_p_depth_above_{t}m.png"))
                        .convert("RGB")).astype(int)
        coloured[t] = int(np.sum(im[..., 0] - im[..., 2] > 40))
    bar = coloured["50"]
    check(im.shape[1] > 50 and 0 < bar < coloured["0.1"] < coloured["0.02"],
          f"report_p_depth_above_<d>m.png coloured pixels fall with the depth: {coloured}")
    check(all(os.path.exists(os.path.join(png_out, f"report_p_hazard_{c}.png"))
              for c in ("low", "moderate", "significant", "extreme")),
          "report_p_hazard_<class>.png for each class")
except ImportError:
    check(False, "PIL (python3-pil) reads the report maps")

table = glob.glob(os.path.join(VENV, "lib", "python3*", "site-packages", "compliance_checker",
                               "data", "cf-standard-name-table.xml"))
r = subprocess.run([os.path.join(VENV, "bin", "cfchecks"), "-s", table[0],
                    "-a", os.path.join(HERE, "data", "cf_area_types_none.xml"),
                    "-r", os.path.join(HERE, "data", "cf_region_names_none.xml"),
                    os.path.join(out, "ensemble.nc")], capture_output=True, text=True)
check("ERRORS detected: 0" in r.stdout, "cfchecks finds no error in ensemble.nc")
if "ERRORS detected: 0" not in r.stdout:
    print(r.stdout[-3000:])

# Checkpoints: stopped (SIGINT) in the middle of its second member (after that member's 3rd
# frame), the ensemble continues with --restart OUT/ensemble_checkpoint (the first member read
# back, the second from its own solver checkpoint) and writes the uninterrupted run's files.
ens_long = os.path.join(SCRATCH, "long.json")
with open(ens_long, "w") as f:
    json.dump({"members": [{"name": "short", "set": {"run.end_time": 600}},
                           {"name": "long", "set": {"run.end_time": 7200}},
                           {"name": "third", "set": {"manning": 0.05}}],
               "outputs": {"members": True, "formats": ["asc", "nc"]}}, f)
full = os.path.join(SCRATCH, "full")
silt(["--ensemble", ens_long, "--out", full], threads=2)
stopped = os.path.join(SCRATCH, "stopped")
p = subprocess.Popen([SILT, "run", SCENE] + BASE + ["--ensemble", ens_long, "--out", stopped],
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                     env=dict(os.environ, OMP_NUM_THREADS="1"))
first = ""
for line in p.stderr:
    if "member    1/" in line:
        first = line.strip()
        break
# Its line says where its time went (run/member_times.hpp): stepping within the wall.
g = re.search(r", ([0-9.]+) s \(job ([0-9.]+) s before; set-up ([0-9.]+) s, waiting ([0-9.]+) s, "
              r"stepping ([0-9.]+) s, other (-?[0-9.]+) s; teardown (-?[0-9.]+) s after\)$", first)
wall, _, setup, waiting, stepping, other, _ = (float(x) for x in g.groups()) if g else (0,) * 7
check(g is not None and stepping > 0 and setup + waiting + stepping <= wall + 0.008 and
      other >= -0.008,
      f"the first member's line: set-up, waiting and stepping within its wall: {first}")
interrupt_when(p, os.path.join(stopped, "members", "long", "depth_0003.asc"), 60)
ckpt, saved = saved_members(stopped)
check(p.returncode == 130 and saved == ["member_0.bin", "member_1.silt"],
      f"SIGINT in the second member: exit {p.returncode}, saved {saved}")
silt(["--ensemble", ens_long, "--out", stopped, "--restart", ckpt], threads=1)
differ = []
for root, _, files in os.walk(full):
    for f in files:
        a = os.path.join(root, f)
        b = os.path.join(stopped, os.path.relpath(a, full))
        if f in ("members.csv", "resolved_ensemble.json", "ensemble.nc"):
            continue  # wall seconds; the build; GDAL's history with the time
        if not os.path.exists(b) or open(a, "rb").read() != open(b, "rb").read():
            differ.append(os.path.relpath(a, full))
e1 = xr.open_dataset(os.path.join(full, "ensemble.nc"))
e2 = xr.open_dataset(os.path.join(stopped, "ensemble.nc"))
same_nc = all(np.array_equal(e1[v].values, e2[v].values, equal_nan=True)
              for v in e1.data_vars if e1[v].dtype.kind == "f")
check(not differ and same_nc and not os.path.exists(ckpt),
      "the restarted ensemble's rasters, ensemble.nc values and members' files (the stopped "
      "member's frames, gauges and mass balance too) equal the uninterrupted run's" +
      (f"; differ: {differ[:5]}" if differ else ""))

# A bad member: refused before anything runs, naming the member and the key.
bad = os.path.join(SCRATCH, "bad.json")
with open(bad, "w") as f:
    json.dump({"members": [{"name": "fine"}, {"name": "negative", "set": {"manning": -0.01}}]}, f)
bad_out = os.path.join(SCRATCH, "bad")
r = silt(["--ensemble", bad, "--out", bad_out], threads=1, expect=1)
check("member 'negative'" in r.stderr and "'manning'" in r.stderr,
      f"the error names the member and the key: {r.stderr.strip()}")
check(not os.path.exists(bad_out), "nothing was written for a refused ensemble")
# A member with other gauges: refused (measures.csv has a column per gauge).
moved = os.path.join(SCRATCH, "moved.json")
with open(moved, "w") as f:
    json.dump({"members": [{"name": "fine"}, {"name": "moved", "set": {"outputs.gauges.points": [
        {"name": "elsewhere", "x": 100, "y": 100}]}}]}, f)
r = silt(["--ensemble", moved, "--out", os.path.join(SCRATCH, "moved")], threads=1, expect=1)
check("member 'moved'" in r.stderr and "'elsewhere'" in r.stderr and "gauges" in r.stderr,
      f"a member with other gauges is refused: {r.stderr.strip()}")
# A member with other boundaries: refused (measures.csv has columns per hydrograph series).
closed = os.path.join(SCRATCH, "closed.json")
with open(closed, "w") as f:
    json.dump({"members": [{"name": "fine"}, {"name": "closed", "set": {"boundaries": []}}]}, f)
r = silt(["--ensemble", closed, "--out", os.path.join(SCRATCH, "closed")], threads=1, expect=1)
check("member 'closed'" in r.stderr and "'outlet', 'spring', 'channel'" in r.stderr and
      not os.path.exists(os.path.join(SCRATCH, "closed")),
      f"a member with other boundaries is refused, naming it: {r.stderr.strip()}")

# `silt validate scene --ensemble`: every member checked, nothing run or written.
def validate(ensemble, expect):
    r = subprocess.run([SILT, "validate", SCENE] + BASE[2:] + ["--ensemble", ensemble],
                       capture_output=True, text=True)
    check(r.returncode == expect, f"silt validate --ensemble {os.path.basename(ensemble)} exits "
          f"{expect} (got {r.returncode}: {r.stderr.strip()})")
    return r


r = validate(ens, 0)
check("of 5 members" in r.stdout and "every member checked" in r.stdout,
      f"validate sums the ensemble up: {r.stdout.strip()}")
r = validate(bad, 1)
check("member 'negative'" in r.stderr and "'manning'" in r.stderr,
      f"validate names the bad member and the key: {r.stderr.strip()}")

print(f"{len(failures)} failures")
sys.exit(1 if failures else 0)
