#!/usr/bin/python3
"""Ensemble members over MPI ranks (issue 37, item 2; docs/ensembles.md, "Members over MPI
ranks"): `mpirun -np R silt run scene --ensemble ens.json` runs member m on rank m mod R and
writes every file of the one-process run byte for byte: each member's own files (written by the
rank that ran it) and the statistics rank 0 computes from every member's results gathered in
member order. Shallow water (scenes/dam_break.json in float64, five roughness members: the
statistics rasters, ensemble.nc, every member's rasters, gauges and mass balance) and MPM in the
deterministic mode (scenes/mpm_column_sweep_2d.json, four friction angles: measures, their
statistics, kinetic energies, measures.nc, every member's PLY frames) on 2 and 3 ranks, and MPM on
5 ranks (more ranks than members: rank 4 runs none). Compared as they are but the wall seconds
(members.csv, measures.csv) and the backend resolved_ensemble.json names. A shallow-water
ensemble stopped by SIGTERM to rank 1 alone while its member runs (rank 0 finishes its own, then
every rank stops with exit 143) continues on 3 ranks with --restart to the files of the
uninterrupted one-process run (the checkpoint folder is every rank's). Then two errors: a
member that fails on rank 1 alone (its folder is taken by a file) ends every rank with the
member's error, printed once, rank 0's members stopped at their next frame, and a refused output folder on rank 0 ends the others too (nobody
waits in a collective).

On CUDA (the GPU test ensemble_mpi_gpu_test; each rank on the GPU of its local rank, modulo the
GPUs there are) the tables of sums the GPU adds with float atomics differ in their last bits
from run to run even in one process (docs/ensembles.md, "On GPUs"): there every CSV file is
compared number by number within 1e-12 of its row's largest value, measures.nc (MPM's kinetic
energies) is left out and the members' resolved_scene.json are compared but the backend (the
GPU of the rank); every other file byte for byte.

A build without netCDF (the GPU machine carries none) passes `no-nc`: the ensembles then ask for
no NetCDF file and the rest is compared the same.

Usage: ensemble_mpi_test.py <silt executable> <mpiexec> <scratch dir> [cpu|cuda] [nc|no-nc]"""
import csv
import filecmp
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import time

SILT, MPIEXEC, SCRATCH = sys.argv[1], sys.argv[2], sys.argv[3]
BACKEND = sys.argv[4] if len(sys.argv) > 4 else "cpu"
REL = 1e-12 if BACKEND == "cuda" else 0.0  # the GPU's atomic sums (see above)
NC = ["nc"] if (sys.argv[5] if len(sys.argv) > 5 else "nc") == "nc" else []
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
TIMEOUT = 60  # s, a run that waits forever fails instead of hanging the test
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def silt(ranks, scene, ensemble, out, extra):
    args = [SILT, "run", os.path.join(ROOT, "scenes", scene), "-q", "--backend", BACKEND,
            "--ensemble", ensemble, "--out", out] + extra
    if ranks:
        args = [MPIEXEC, "-np", str(ranks), "--oversubscribe"] + args
    try:
        r = subprocess.run(args, capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return None, " ".join(args) + f": no end within {TIMEOUT} s"
    return r.returncode, r.stdout + r.stderr


def run(ranks, scene, ensemble, out, extra):
    code, text = silt(ranks, scene, ensemble, out, extra)
    if code != 0:
        print(text)
    check(code == 0, f"{ranks or 1} process{'es' if ranks else ''}: {scene} --out {out}")


def files_under(d):
    return sorted(os.path.relpath(os.path.join(a, f), d) for a, _, fs in os.walk(d) for f in fs)


def table_but_wall(path):
    rows = list(csv.DictReader(open(path)))
    for r in rows:
        r.pop("wall_s", None)
    return rows


def json_but_backend(path):
    doc = json.load(open(path))
    doc.get("provenance", {}).pop("backend", None)
    return doc


def close_rows(ra, rb):
    """Rows of numbers (or equal text) within REL of each row's largest magnitude."""
    def num(x):
        try:
            return float(x)
        except ValueError:
            return None

    def scale(row):
        return max((abs(v) for v in map(num, row) if v is not None and math.isfinite(v)),
                   default=0.0)

    def close(x, y, s):
        fx, fy = num(x), num(y)
        if fx is None or fy is None or math.isnan(fx) or math.isnan(fy):
            return x == y
        return fx == fy or abs(fx - fy) <= REL * s

    return len(ra) == len(rb) and all(
        len(x) == len(y) and all(close(u, v, max(scale(x), scale(y))) for u, v in zip(x, y))
        for x, y in zip(ra, rb))


def same(a, b, f):
    pa, pb = os.path.join(a, f), os.path.join(b, f)
    if REL and os.path.basename(f) == "measures.nc":
        return True  # the kinetic energies of the GPU's atomic sums; measures.csv has them
    if f in ("members.csv", "measures.csv"):
        if not REL:
            return table_but_wall(pa) == table_but_wall(pb)
        rows = [[list(r.values()) for r in table_but_wall(p)] for p in (pa, pb)]
        return close_rows(rows[0], rows[1])
    # The ensemble's backend names the ranks; on CUDA a member's names the GPU of its rank.
    if f == "resolved_ensemble.json" or (REL and f.endswith("resolved_scene.json")):
        return json_but_backend(pa) == json_but_backend(pb)
    if filecmp.cmp(pa, pb, shallow=False):
        return True
    return bool(REL) and f.endswith(".csv") and close_rows(*(list(csv.reader(open(p)))
                                                               for p in (pa, pb)))


def same_tree(one, other, what):
    fa, fb = files_under(one), files_under(other)
    check(fa == fb and len(fa) > 10, f"{what}: the same {len(fa)} files ({len(fb)})")
    differ = [f for f in fa if f in fb and not same(one, other, f)]
    check(not differ, f"{what}: every file equal to the one-process run's (differ: {differ[:5]})")


shutil.rmtree(SCRATCH, ignore_errors=True)
os.makedirs(SCRATCH)
swe_ens = os.path.join(SCRATCH, "swe_ensemble.json")
json.dump({"vary": {"keys": {"manning": {"from": 0.0, "to": 0.05, "count": 5}}},
           "outputs": {"members": True, "fields": ["max_depth", "max_speed", "max_level"],
                       "statistics": ["mean", "std"], "percentiles": [50, 95],
                       "exceedance_depths": [0.5], "hazard_classes": True,
                       "formats": ["asc"] + NC}}, open(swe_ens, "w"))
swe_set = ["--set", "physics.precision=float64", "--set", "outputs.precision=float64",
           "--set", "outputs.png=none", "--set", 'outputs.formats=["asc"]',
           "--set", "run.end_time=3.6"]
mpm_ens = os.path.join(SCRATCH, "mpm_ensemble.json")
json.dump({"vary": {"keys": {"materials[0].friction_angle": {"values": [25, 30, 35, 40]}}},
           "outputs": {"members": True, "formats": ["csv"] + NC}}, open(mpm_ens, "w"))
mpm_set = ["--deterministic", "--set", "domain.dx=0.01", "--set", "run.end_time=0.3",
           "--set", 'outputs.formats=["ply"]']

for kind, scene, ens, extra, rank_counts in (
        ("swe", "dam_break.json", swe_ens, swe_set, (2, 3)),
        ("mpm", "mpm_column_sweep_2d.json", mpm_ens, mpm_set, (2, 3, 5))):
    one = os.path.join(SCRATCH, kind + "_one")
    run(0, scene, ens, one, extra)
    for ranks in rank_counts:
        out = os.path.join(SCRATCH, f"{kind}_np{ranks}")
        run(ranks, scene, ens, out, extra)
        same_tree(one, out, f"{kind}: {ranks} ranks")



def rank_pids(mpirun_pid):
    """{rank: pid} of the ranks mpirun started on this machine (its children)."""
    ranks = {}
    for d in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat = open(f"/proc/{d}/stat").read()
            env = open(f"/proc/{d}/environ", "rb").read().split(b"\0")
        except OSError:
            continue
        if int(stat[stat.rindex(")") + 2:].split()[1]) != mpirun_pid:
            continue
        for v in env:
            if v.startswith(b"OMPI_COMM_WORLD_RANK="):
                ranks[int(v.split(b"=")[1])] = int(d)
    return ranks


# Stopped on rank 1 alone (it runs member b), continued on 3 ranks: the uninterrupted files.
stop_ens = os.path.join(SCRATCH, "stop_ensemble.json")
long_end, interval = (600, 60) if BACKEND == "cuda" else (48, 4.8)  # mid-run when signalled
json.dump({"members": [{"name": "a", "set": {"manning": 0.02}},
                       {"name": "b", "set": {"run.end_time": long_end,
                                             "run.output_interval": interval}},
                       {"name": "c", "set": {"run.end_time": long_end,
                                             "run.output_interval": interval, "manning": 0.03}}],
           "outputs": {"members": True, "fields": ["max_depth"], "hazard_classes": False,
                       "formats": ["asc"] + NC}}, open(stop_ens, "w"))
full = os.path.join(SCRATCH, "stop_full")
run(0, "dam_break.json", stop_ens, full, swe_set)
stopped = os.path.join(SCRATCH, "stop_np2")
args = [MPIEXEC, "-np", "2", "--oversubscribe", SILT, "run",
        os.path.join(ROOT, "scenes", "dam_break.json"), "-q", "--backend", BACKEND, "--ensemble",
        stop_ens, "--out", stopped] + swe_set
p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
third = os.path.join(stopped, "members", "b", "depth_0003.asc")
deadline = time.time() + TIMEOUT
while not os.path.exists(third) and time.time() < deadline and p.poll() is None:
    time.sleep(0.002)
pids = rank_pids(p.pid)
if 1 in pids:
    os.kill(pids[1], signal.SIGTERM)
try:
    _, err = p.communicate(timeout=TIMEOUT)
except subprocess.TimeoutExpired:
    p.kill()
    _, err = p.communicate()
    err += f"\n(no end within {TIMEOUT} s)"
ckpt = os.path.join(stopped, "ensemble_checkpoint")
saved = sorted(f for f in os.listdir(ckpt) if f.startswith("member_")) if os.path.isdir(ckpt) else []
check(p.returncode == 143 and err.count("stopped by SIGTERM with 2 of 3 members done") == 1
      and saved == ["member_0.bin", "member_1.silt", "member_2.bin"],
      f"SIGTERM to rank 1 (pids {pids}): exit {p.returncode}, saved {saved}:\n{err}")
run(3, "dam_break.json", stop_ens, stopped, swe_set + ["--restart", ckpt])
same_tree(full, stopped, "stopped on rank 1 of 2, continued on 3 ranks")
check(not os.path.exists(ckpt), "the checkpoint folder is removed once the report is written")

# A member that fails on rank 1 alone (b's folder is taken by a file): every rank ends, rank 0
# prints the member's error once, and rank 0's members stop at their next frame (c, the long
# one, does not reach its last frame) instead of running on to the meeting.
failing = os.path.join(SCRATCH, "swe_failing")
os.makedirs(os.path.join(failing, "members"))
open(os.path.join(failing, "members", "b"), "w").write("in the way\n")
code, text = silt(2, "dam_break.json", stop_ens, failing, swe_set + ["--overwrite"])
check(code not in (0, None) and text.count("member 'b'") == 1 and "rank 1 of 2" in text,
      f"a member failing on rank 1: exit {code}, its error once, naming the rank:\n{text}")
last = sorted(f for f in os.listdir(os.path.join(full, "members", "c")) if f.startswith("depth_"))
check(not os.path.exists(os.path.join(failing, "members", "c", last[-1])),
      f"rank 0 stopped its members when rank 1 failed (no {last[-1]} of member c)")
# A refused output folder (rank 0 claims it): the other rank does not wait for it.
code, text = silt(2, "dam_break.json", swe_ens, os.path.join(SCRATCH, "swe_np2"), swe_set)
check(code not in (0, None) and text.count("is not empty") == 1,
      f"an output folder rank 0 refuses: exit {code}, its error once:\n{text}")

print(f"{len(failures)} failures")
sys.exit(1 if failures else 0)
