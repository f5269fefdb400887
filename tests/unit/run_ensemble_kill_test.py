#!/usr/bin/python3
"""An ensemble killed mid-run continues from its members' periodic checkpoints (issue 37,
docs/ensembles.md "Checkpoints"): `silt run scene --ensemble ens.json --checkpoint-every sim:X`
is SIGKILLed once its second member has written a solver checkpoint at the interval (the file
polled for: member_1.silt, MPM's member_1.partial beside it) and after that member has written a
frame more; `--restart OUT/ensemble_checkpoint` then reads the first member back, continues the
second from its checkpoint (its own folder continued as a solo restart after a kill continues
its: the frames after the checkpoint written again and listed once; its first frame's file left
as it was) and runs the third from its start; a checkpoint's temporary file that the kill left
half written is removed. Every file it writes equals the uninterrupted run's
byte for byte, but the wall seconds (members.csv, measures.csv), the build (resolved_ensemble.json)
and the NetCDF history (ensemble.nc, compared by values), on the CPU backend.

  swe: scenes/rain_plane.json in float64 (the members of run_ensemble_cli_test's SIGINT case, the
       second run for 48 h of simulated time), a checkpoint every 1800 s (two frames);
  mpm: a coarse scenes/mpm_sand_column_2d.json (run_ensemble_mpm_test's members), a checkpoint
       every 0.1 s (three frames).

Usage: run_ensemble_kill_test.py <silt executable> <scratch dir> swe|mpm; the venv's Python
(/opt/silt-venv: xarray)."""
import json
import os
import shutil
import signal
import subprocess
import sys
import time

import numpy as np
import xarray as xr

SILT, SCRATCH, KIND = sys.argv[1], sys.argv[2], sys.argv[3]
HERE = os.path.dirname(os.path.abspath(__file__))
if KIND == "swe":
    SCENE = os.path.join(HERE, "..", "..", "scenes", "rain_plane.json")
    BASE = ["--backend", "cpu", "--set", "physics.precision=float64",
            "--set", "outputs.precision=float64", "--set", "outputs.png=none",
            "--set", 'outputs.formats=["asc"]']
    MEMBERS = [{"name": "short", "set": {"run.end_time": 600}},
               {"name": "long", "set": {"run.end_time": 172800}},
               {"name": "third", "set": {"manning": 0.05}}]
    FORMATS = ["asc", "nc"]
    EVERY = "sim:1800"
    FRAME = "depth_{:04d}.asc"
    # wall seconds; the build; the history (with the time) that the NetCDF library writes
    SKIP = ("members.csv", "resolved_ensemble.json", "ensemble.nc")
    WALL = ("members.csv", None)
else:
    SCENE = os.path.join(HERE, "..", "..", "scenes", "mpm_sand_column_2d.json")
    BASE = ["--backend", "cpu", "--set", "domain.dx=0.01", "--set", "run.end_time=0.4",
            "--set", "outputs.png=false"]
    MEMBERS = [{"name": "short", "set": {"run.end_time": 0.1}},
               {"name": "long", "set": {"run.end_time": 3.0, "run.rest_speed": 1e-9}},
               {"name": "third", "set": {"materials[0].friction_angle": 40}}]
    FORMATS = ["csv", "nc"]
    EVERY = "sim:0.1"
    FRAME = "particles_{:04d}.ply"
    SKIP = ("measures.csv", "resolved_ensemble.json")
    WALL = ("measures.csv", None)
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def silt(args, expect=0):
    env = dict(os.environ, OMP_NUM_THREADS="1")
    r = subprocess.run([SILT, "run", SCENE, "-q"] + BASE + args, capture_output=True, text=True,
                       env=env)
    if r.returncode != expect:
        print(r.stdout, r.stderr)
    check(r.returncode == expect, f"silt run {' '.join(args[-4:])} exits {expect} "
          f"(got {r.returncode}{': ' + r.stderr.strip()[-300:] if r.returncode else ''})")
    return r


def without_wall(path):
    """The CSV's rows without the wall seconds' column (wall_s)."""
    rows = [r.split(",") for r in open(path).read().splitlines()]
    if not rows or "wall_s" not in rows[0]:
        return rows
    k = rows[0].index("wall_s")
    return [r[:k] + r[k + 1:] for r in rows]


def frames_in(folder):
    k = 0
    while os.path.exists(os.path.join(folder, FRAME.format(k + 1))):
        k += 1
    return k


shutil.rmtree(SCRATCH, ignore_errors=True)
os.makedirs(SCRATCH)
ens = os.path.join(SCRATCH, "ens.json")
with open(ens, "w") as f:
    json.dump({"members": MEMBERS, "outputs": {"members": True, "formats": FORMATS}}, f)
full = os.path.join(SCRATCH, "full")
silt(["--ensemble", ens, "--out", full])

# Killed once the second member has a periodic checkpoint and a frame after the one it had then.
killed = os.path.join(SCRATCH, "killed")
ckpt = os.path.join(killed, "ensemble_checkpoint")
p = subprocess.Popen([SILT, "run", SCENE, "-q"] + BASE +
                     ["--ensemble", ens, "--out", killed, "--checkpoint-every", EVERY],
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                     env=dict(os.environ, OMP_NUM_THREADS="1"))
long_dir = os.path.join(killed, "members", "long")
silt_file = os.path.join(ckpt, "member_1.silt")
deadline = time.time() + 60
while not os.path.exists(silt_file) and time.time() < deadline and p.poll() is None:
    time.sleep(0.002)
seen = frames_in(long_dir)
while frames_in(long_dir) <= seen and time.time() < deadline and p.poll() is None:
    time.sleep(0.002)
p.send_signal(signal.SIGKILL)
_, err = p.communicate()
saved = sorted(f for f in os.listdir(ckpt) if f.startswith("member_")) if os.path.isdir(ckpt) else []
want = ["member_0.bin", "member_1.silt"] + (["member_1.partial"] if KIND == "mpm" else [])
check(p.returncode == -signal.SIGKILL and sorted(want) == saved,
      f"killed in the second member after its periodic checkpoint: exit {p.returncode}, saved "
      f"{saved} (the first member's result, the second's checkpoint){err.strip()[-300:]}")
# What a kill in the middle of a checkpoint's write leaves (io/atomic_file.cpp's temporary name,
# of the killed process): the restart removes it, and the folder goes once the report is written.
with open(os.path.join(ckpt, f".member_1.silt.part{p.pid}"), "wb") as f:
    f.write(b"SILTCKPT half written")
first_frame = os.path.join(long_dir, FRAME.format(1))
before = os.stat(first_frame) if os.path.exists(first_frame) else None
print(f"the killed member had written {frames_in(long_dir)} frames")

silt(["--ensemble", ens, "--out", killed, "--restart", ckpt, "--checkpoint-every", EVERY])
after = os.stat(first_frame) if os.path.exists(first_frame) else None
check(before is not None and after is not None and before.st_ino == after.st_ino and
      before.st_mtime_ns == after.st_mtime_ns,
      "the second member continued from its checkpoint (its first frame's file left as it was)")
differ = []
for root, _, files in os.walk(full):
    for f in files:
        a = os.path.join(root, f)
        b = os.path.join(killed, os.path.relpath(a, full))
        if f in SKIP and root == full:
            continue
        if not os.path.exists(b) or open(a, "rb").read() != open(b, "rb").read():
            differ.append(os.path.relpath(a, full))
extra = [os.path.relpath(os.path.join(r, f), killed) for r, _, fs in os.walk(killed) for f in fs
         if not os.path.exists(os.path.join(full, os.path.relpath(os.path.join(r, f), killed)))]
if without_wall(os.path.join(full, WALL[0])) != without_wall(os.path.join(killed, WALL[0])):
    differ.append(WALL[0])
if KIND == "swe":
    e1 = xr.open_dataset(os.path.join(full, "ensemble.nc"))
    e2 = xr.open_dataset(os.path.join(killed, "ensemble.nc"))
    if not all(np.array_equal(e1[v].values, e2[v].values, equal_nan=True)
               for v in e1.data_vars if e1[v].dtype.kind == "f"):
        differ.append("ensemble.nc")
check(not differ and not extra and not os.path.exists(ckpt),
      "the restarted ensemble's report and every member's files equal the uninterrupted run's; "
      "its checkpoint is gone" + (f"; differ: {differ[:6]}" if differ else "") +
      (f"; not in the uninterrupted run: {extra[:6]}" if extra else ""))

print(f"{len(failures)} failures")
sys.exit(1 if failures else 0)
