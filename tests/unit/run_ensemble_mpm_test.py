#!/usr/bin/python3
"""`silt run mpm_scene.json --ensemble ensemble.json` (issue 37, docs/ensembles.md "MPM sweeps")
on a coarse scenes/mpm_sand_column_2d.json (dx = 0.01 m, 400-800 particles, 0.4 s):
  - each member's files in OUT/members/<name>/ (frames.csv, every particles_NNNN.ply,
    resolved_scene.json) equal, byte for byte, those of its solo run with the member's values as
    --set: members two at once on one thread each against solo runs on one thread; and with
    performance.deterministic against solo runs on two threads;
  - the members vary a material parameter, a source's box, its initial velocity and its seed;
  - measures.csv's front, height and runout equal NumPy's on the member's first and last PLY;
    its kinetic energies equal kinetic_energy.csv's; the time at rest is the first frame from
    which the rms speed stays below the rest speed;
  - measures_stats.csv equals NumPy's nanmean, nanstd, nanpercentile on measures.csv, and
    measures.nc holds the same numbers over a `member` dimension (and passes the CF checker);
  - a run stopped by SIGINT in the middle of its second member continues with --restart
    OUT/ensemble_checkpoint (the first member read back, the second from its own checkpoint) and
    writes the uninterrupted run's files (a changed --set refused);
  - a bad member is refused before anything runs, naming the member and the key;
  - each member's log line says where its time went, the parts within its wall.

Usage: run_ensemble_mpm_test.py <silt executable> <scratch dir>; the venv's Python
(/opt/silt-venv: xarray and cfchecks)."""
import csv
import glob
import json
import os
import re
import shutil
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from stop_ensemble import interrupt_when, saved_members  # noqa: E402

SILT, SCRATCH = sys.argv[1], sys.argv[2]
HERE = os.path.dirname(os.path.abspath(__file__))
SCENE = os.path.join(HERE, "..", "..", "scenes", "mpm_sand_column_2d.json")
VENV = os.path.dirname(os.path.dirname(sys.executable))
# On the CPU (bit for bit), also where the build has CUDA and a GPU.
BASE = ["--backend", "cpu", "--set", "domain.dx=0.01", "--set", "run.end_time=0.4",
        "--set", "outputs.png=false"]
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


def read_ply(path):
    """x y z of a binary little-endian PLY written by silt (float32 properties first)."""
    data = open(path, "rb").read()
    end = data.index(b"end_header\n") + len(b"end_header\n")
    header = data[:end].decode().splitlines()
    n = int(next(l for l in header if l.startswith("element vertex")).split()[-1])
    props = [l.split() for l in header if l.startswith("property")]
    types = {"float": "<f4", "int": "<i4", "uchar": "u1", "double": "<f8"}
    dtype = np.dtype([(p[-1], types[p[1]]) for p in props])
    a = np.frombuffer(data[end:end + n * dtype.itemsize], dtype=dtype)
    return np.stack([a["x"], a["y"], a["z"]], axis=1).astype(np.float64)


def same_files(solo, mine, skip=()):
    files = sorted(f for f in os.listdir(solo) if f not in skip)
    differ = [f for f in files if open(os.path.join(solo, f), "rb").read() !=
              open(os.path.join(mine, f), "rb").read()]
    return files, differ


shutil.rmtree(SCRATCH, ignore_errors=True)
os.makedirs(SCRATCH)
ens = os.path.join(SCRATCH, "ens.json")
with open(ens, "w") as f:
    json.dump({"members": [
        {"name": "steep", "set": {"materials[0].friction_angle": 40}},
        {"name": "pushed", "set": {"sources[0].velocity": [0.5, 0], "sources[0].seed": 7}},
        {"name": "stiff", "scale": {"materials[0].youngs_modulus": 2}}],
        "vary": {"keys": {"materials[0].friction_angle": {"values": [25]},
                          "sources[0].max": {"values": [[0.1, 0.1], [0.1, 0.2]]}}},
        "outputs": {"members": True, "formats": ["csv", "nc"], "percentiles": [5, 50, 95]}}, f)
out = os.path.join(SCRATCH, "ens")
silt(["--ensemble", ens, "--out", out], threads=2)
resolved = json.load(open(os.path.join(out, "resolved_ensemble.json")))
members = resolved["provenance"]["members"]
names = [m["name"] for m in members]
check(names == ["steep", "pushed", "stiff", "m00", "m01"], f"members: {names}")

# Members against their solo runs, byte for byte (one thread each): one of each kind of change.
for m in (members[0], members[1], members[2], members[4]):
    solo = os.path.join(SCRATCH, "solo_" + m["name"])
    silt(sum((["--set", s] for s in m["set"]), []) + ["--out", solo], threads=1)
    files, differ = same_files(solo, os.path.join(out, "members", m["name"]))
    check(len(files) > 10 and not differ,
          f"member '{m['name']}' ({' '.join(m['settings'])}): {len(files)} files equal to its "
          f"solo run's" + (f"; differ: {differ}" if differ else ""))

# A member's line says where its time went (run/member_times.hpp): the parts within its wall sum
# to at most the wall, and each part is a number of seconds (the job before the wall, the
# teardown after it).
r = subprocess.run([SILT, "run", SCENE] + BASE + ["--ensemble", ens, "--out",
                   os.path.join(SCRATCH, "ens_log")], capture_output=True, text=True,
                   env=dict(os.environ, OMP_NUM_THREADS="2"))
lines = [l for l in (r.stdout + r.stderr).splitlines() if re.match(r"member +\d+/", l)]
parts = re.compile(r", ([0-9.]+) s \(job ([0-9.]+) s before; set-up ([0-9.]+) s, waiting "
                   r"([0-9.]+) s, stepping ([0-9.]+) s, other (-?[0-9.]+) s with (\d+) graph "
                   r"recordings; teardown (-?[0-9.]+) s after\)$")
got = [parts.search(l) for l in lines]
check(r.returncode == 0 and len(lines) == 5 and all(got),
      f"a line per member with its job, set-up, waiting, stepping, the rest and teardown: {lines}")
for l, g in zip(lines, got):
    if not g:
        continue
    wall, job, setup, waiting, stepping, other, _, end = (float(x) for x in g.groups())
    # The wall is printed to 0.01 s, the parts to 0.001 s: "other" is the wall's rest.
    check(setup + waiting + stepping <= wall + 0.008 and other >= -0.008 and end >= -0.001 and
          stepping > 0 and job >= 0, f"the parts of a member's wall are within it: {l}")

# The deterministic mode: members on one thread each equal solo runs on two threads.
det = ["--set", "performance.deterministic=true"]
ens_det = os.path.join(SCRATCH, "ens_det.json")
with open(ens_det, "w") as f:
    json.dump({"members": [{"name": "pushed", "set": {"sources[0].velocity": [0.5, 0]}},
                           {"name": "m01", "set": {"sources[0].max": [0.1, 0.2]}}],
               "outputs": {"members": True}}, f)
out_det = os.path.join(SCRATCH, "ens_det")
silt(det + ["--ensemble", ens_det, "--out", out_det], threads=2)
for m in json.load(open(os.path.join(out_det, "resolved_ensemble.json")))["provenance"]["members"]:
    solo = os.path.join(SCRATCH, "solo_det_" + m["name"])
    silt(det + sum((["--set", s] for s in m["set"]), []) + ["--out", solo], threads=2)
    # resolved_scene.json names the backend: "cpu (1 thread)" against "cpu (2 threads)".
    files, differ = same_files(solo, os.path.join(out_det, "members", m["name"]),
                               skip=("resolved_scene.json",))
    check(len(files) > 10 and not differ,
          f"deterministic member '{m['name']}' on 1 thread: {len(files)} files (all but "
          f"resolved_scene.json) equal to its solo run's on 2 threads" +
          (f"; differ: {differ}" if differ else ""))

# The measures against the members' own files.
rows = list(csv.DictReader(open(os.path.join(out, "measures.csv"))))
check([r["name"] for r in rows] == names, "measures.csv: a row per member, in order")
energy = list(csv.DictReader(open(os.path.join(out, "kinetic_energy.csv"))))
for r in rows:
    d = os.path.join(out, "members", r["name"])
    plys = sorted(f for f in os.listdir(d) if f.endswith(".ply"))
    x0, x1 = read_ply(os.path.join(d, plys[0])), read_ply(os.path.join(d, plys[-1]))
    want = {"front_start_m": x0[:, 0].max(), "front_m": x1[:, 0].max(),
            "runout_m": x1[:, 0].max() - x0[:, 0].max(),
            "extent_start_m": x0[:, 0].max() - x0[:, 0].min(),
            "height_start_m": x0[:, 1].max(), "height_m": x1[:, 1].max()}
    bad = {k: (float(r[k]), v) for k, v in want.items() if float(r[k]) != v}
    check(not bad, f"member '{r['name']}': front, runout, extent, heights equal NumPy's on its "
                   f"first and last PLY" + (f"; differ: {bad}" if bad else ""))
    mine = [e for e in energy if e["name"] == r["name"]]
    ke = np.array([float(e["kinetic_energy_J"]) for e in mine])
    t = np.array([float(e["time_s"]) for e in mine])
    v = np.array([float(e["rms_speed_m_s"]) for e in mine])
    rest = float(r["rest_speed_m_s"])
    below = v < rest
    k = len(below)
    while k > 0 and below[k - 1]:
        k -= 1
    at_rest = t[k] if k < len(below) else float("nan")
    ok = (len(mine) == len(plys) - 1 and float(r["kinetic_energy_end_J"]) == ke[-1] and
          float(r["kinetic_energy_max_J"]) == ke.max() and
          float(r["time_kinetic_energy_max_s"]) == t[ke.argmax()] and
          (float(r["time_at_rest_s"]) == at_rest or
           (np.isnan(at_rest) and r["time_at_rest_s"] == "nan")))
    check(ok, f"member '{r['name']}': kinetic energy at the end {ke[-1]:.3g} J, peak, time at "
              f"rest {r['time_at_rest_s']} s from kinetic_energy.csv ({len(mine)} frames)")

# The statistics against NumPy.
stats = list(csv.DictReader(open(os.path.join(out, "measures_stats.csv"))))
worst = 0.0
for s in stats:
    col = next(c for c in rows[0] if c.startswith(s["measure"] + "_") and
               c[len(s["measure"]) + 1:] == s["units"])
    v = np.array([float(r[col]) for r in rows])
    want = {"mean": np.nanmean(v), "std": np.nanstd(v), "p05": np.nanpercentile(v, 5),
            "p50": np.nanpercentile(v, 50), "p95": np.nanpercentile(v, 95)}
    for k, w in want.items():
        got = float(s[k])
        worst = max(worst, abs(got - w) / max(abs(w), 1e-300))
check(len(stats) == 11 and worst < 1e-12,
      f"measures_stats.csv: {len(stats)} measures' mean, std, p05, p50, p95 equal NumPy's "
      f"(worst relative difference {worst:.2g})")

try:
    import xarray as xr
    with xr.open_dataset(os.path.join(out, "measures.nc")) as ds:
        labels = [str(n) for n in ds["member_name"].values.astype(str)]
        runout = ds["runout"].values
        ke = ds["kinetic_energy"].values
        ok = (labels == names and
              np.array_equal(runout, [float(r["runout_m"]) for r in rows]) and
              float(ds["runout_mean"]) == float(stats[2]["mean"]) and ke.shape[0] == len(names))
        check(ok, f"measures.nc: {len(labels)} members, runout and its mean as in the CSV files, "
                  f"kinetic_energy over (member, frame) {ke.shape}")
    # The CF checker offline, as run_ensemble_cli_test runs it.
    table = glob.glob(os.path.join(VENV, "lib", "python3*", "site-packages",
                                   "compliance_checker", "data", "cf-standard-name-table.xml"))
    r = subprocess.run([os.path.join(VENV, "bin", "cfchecks"), "-s", table[0],
                        "-a", os.path.join(HERE, "data", "cf_area_types_none.xml"),
                        "-r", os.path.join(HERE, "data", "cf_region_names_none.xml"),
                        os.path.join(out, "measures.nc")], capture_output=True, text=True)
    check("ERRORS detected: 0" in r.stdout, "cfchecks finds no error in measures.nc")
    if "ERRORS detected: 0" not in r.stdout:
        print(r.stdout[-3000:])
except ImportError:
    print("skip measures.nc (no xarray)")

# Checkpoints: a run stopped (SIGINT) in the middle of its second member (after the member's 5th
# frame) saved the first member's result and the second's solver checkpoint; --restart
# OUT/ensemble_checkpoint continues the second from there and writes what the uninterrupted run
# wrote, byte for byte (but the wall seconds).
ens_long = os.path.join(SCRATCH, "long.json")
with open(ens_long, "w") as f:
    json.dump({"members": [{"name": "short", "set": {"run.end_time": 0.1}},
                           {"name": "long", "set": {"run.end_time": 1.0, "run.rest_speed": 1e-9}},
                           {"name": "third", "set": {"materials[0].friction_angle": 40}}],
               "outputs": {"members": True, "formats": ["csv", "nc"]}}, f)
full = os.path.join(SCRATCH, "full")
silt(["--ensemble", ens_long, "--out", full], threads=2)
stopped = os.path.join(SCRATCH, "stopped")
args = [SILT, "run", SCENE] + BASE + ["--ensemble", ens_long, "--out", stopped]
p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                     env=dict(os.environ, OMP_NUM_THREADS="1"))
for line in p.stderr:
    if "member    1/" in line:
        break
_, err = interrupt_when(p, os.path.join(stopped, "members", "long", "particles_0005.ply"), 60,
                        poll=0.01)
ckpt, saved = saved_members(stopped)
check(p.returncode == 130 and saved == ["member_0.bin", "member_1.partial", "member_1.silt"] and
      "--restart" in err, f"SIGINT in the second member: exit {p.returncode}, saved {saved}")
r = silt(["--set", "run.end_time=0.3", "--ensemble", ens_long, "--out", stopped,
          "--restart", ckpt], threads=1, expect=1)
check("another ensemble (set differs)" in r.stderr,
      f"a restart with another --set refused: {r.stderr.strip()[:160]}")
silt(["--ensemble", ens_long, "--out", stopped, "--restart", ckpt], threads=1)
differ = []
for f in ("measures.csv", "measures_stats.csv", "kinetic_energy.csv", "measures.nc"):
    a = open(os.path.join(full, f), "rb").read()
    b = open(os.path.join(stopped, f), "rb").read()
    if f == "measures.csv":  # but the wall seconds
        a, b = ([r.split(b",")[:5] + r.split(b",")[6:] for r in x.splitlines()] for x in (a, b))
    if a != b:
        differ.append(f)
for m in ("short", "long", "third"):
    files, d = same_files(os.path.join(full, "members", m), os.path.join(stopped, "members", m))
    differ += [f"members/{m}/{f}" for f in d]
check(not differ and not os.path.exists(ckpt),
      "the restarted ensemble's measures, statistics, kinetic energies, measures.nc and members' "
      "files (the stopped member's frames too) equal the uninterrupted run's; its checkpoint is "
      "gone" + (f"; differ: {differ}" if differ else ""))

# A bad member: refused before anything runs, naming the member and the key.
bad = os.path.join(SCRATCH, "bad.json")
with open(bad, "w") as f:
    json.dump({"members": [{"name": "fine", "set": {"materials[0].friction_angle": 30}},
                           {"name": "broken", "set": {"materials[0].friction_angle": -5}}]}, f)
r = silt(["--ensemble", bad, "--out", os.path.join(SCRATCH, "bad")], threads=1, expect=1)
check("member 'broken'" in r.stderr and "friction_angle" in r.stderr and
      not os.path.exists(os.path.join(SCRATCH, "bad")),
      f"a bad member refused before anything runs: {r.stderr.strip()[:200]}")

print(f"{len(failures)} failures")
sys.exit(1 if failures else 0)
