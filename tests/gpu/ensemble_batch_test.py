#!/usr/bin/python3
"""Ensemble members in flight at once on one GPU (issue 37, item 2; docs/ensembles.md, "How
members run"): the same ensemble run
  - one member after another (--members-at-once 1),
  - four in flight on one GPU (--members-at-once 4),
  - four in flight over `--devices 0,0` (two entries of one GPU: the spread over devices),
  - on CUDA, two in flight (shallow water: the others built ahead, each waiting for a turn to
    step, run/member_turns.hpp; MPM: none built ahead),
writes every member file byte for byte the same: shallow water (scenes/dam_break.json, float64,
six roughness members: rasters, gauges, mass balance) and MPM in performance.deterministic mode
(scenes/mpm_column_sweep_2d.json, four friction angles: PLY frames, frames.csv), and the
ensemble's statistics (SWE rasters, measures.csv but the wall seconds); and a shallow-water
ensemble stopped by SIGINT with three members in flight continues with --restart (each stopped
member from its own solver checkpoint) to the files of the uninterrupted run (on CUDA also with
two in flight and the third built ahead). Shallow-water
members in flight on one device also step together (--batch-members on, swe::Batch: one launch
of the tile kernel a step for all on CUDA; one after another on the CPU; off by default, so only
this test turns it on) and alone (--batch-members off): both to the same files, members of
different end times among them, and the stop and restart in both ways. Within a member the
kernels and their order are the same whatever runs beside it, so any difference is a member
seeing another's state, a stream or graph shared between members, or a host race. Except sums
the GPU adds with float atomics, whose order varies from run to run even alone: the shallow-water
inflow volume (mass_balance.csv, hydrograph.csv, the balance of measures.csv) and MPM's kinetic
energy (measures.csv): those tables are compared number by number within 1e-12 of each row's
largest value (bytes on the CPU).

Usage: ensemble_batch_test.py <silt executable> <scratch dir> [backend] (cuda; cpu checks the
script itself)."""
import csv
import filecmp
import json
import math
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from stop_ensemble import interrupt_when, saved_members  # noqa: E402

SILT, SCRATCH = sys.argv[1], sys.argv[2]
BACKEND = sys.argv[3] if len(sys.argv) > 3 else "cuda"
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def run(scene, ensemble, out, extra, quiet=True):
    args = [SILT, "run", os.path.join(ROOT, "scenes", scene)] + (["-q"] if quiet else []) + \
        ["--backend", BACKEND, "--ensemble", ensemble, "--out", out] + extra
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        print(r.stdout, r.stderr)
    check(r.returncode == 0, " ".join(args[2:]))
    return r.stdout + r.stderr


def batched(log, want, what):
    """The log's "members batched on ..." line (the members stepped together) as wanted."""
    line = [x for x in log.splitlines() if x.startswith("members batched on")]
    not_batched = [x for x in log.splitlines() if x.startswith("members not batched")]
    check(bool(line) == want and not not_batched,
          f"{what}: members {'' if want else 'not '}batched ({(line + not_batched)[:1]})")


def files_under(d):
    return sorted(os.path.relpath(os.path.join(a, f), d) for a, _, fs in os.walk(d) for f in fs)


# Tables of sums the GPU adds with float atomics (see the docstring).
ATOMIC_SUMS = {"mass_balance.csv", "hydrograph.csv"}
REL = 1e-12 if BACKEND == "cuda" else 0.0


def number(x):
    try:
        return float(x)
    except ValueError:
        return None


def close_numbers(x, y, scale):
    """x and y (table cells) equal as text, both NaN, or within REL of scale (the row's
    largest magnitude: a residual of volumes is a difference of the row's large sums)."""
    fx, fy = number(x), number(y)
    if fx is None or fy is None:
        return x == y
    if math.isnan(fx) or math.isnan(fy):
        return math.isnan(fx) and math.isnan(fy)
    return fx == fy or abs(fx - fy) <= REL * scale


def row_scale(row, cols):
    vals = [abs(v) for v in (number(row[k]) for k in cols if k < len(row))
            if v is not None and math.isfinite(v)]
    return max(vals, default=0.0)


def same_table(pa, pb, skip=()):
    ra, rb = list(csv.reader(open(pa))), list(csv.reader(open(pb)))
    if len(ra) != len(rb) or not ra:
        return False
    cols = [k for k, name in enumerate(ra[0]) if name not in skip]
    return ra[0] == rb[0] and all(
        len(x) == len(y) and all(close_numbers(x[k], y[k], max(row_scale(x, cols),
                                                                  row_scale(y, cols)))
                                 for k in cols if k < len(x))
        for x, y in zip(ra[1:], rb[1:]))


def same_file(pa, pb):
    if filecmp.cmp(pa, pb, shallow=False):
        return True
    return os.path.basename(pa) in ATOMIC_SUMS and REL > 0 and same_table(pa, pb)


def same_members(a, b, what):
    fa, fb = files_under(os.path.join(a, "members")), files_under(os.path.join(b, "members"))
    check(fa == fb and len(fa) > 0, f"{what}: the same {len(fa)} member files")
    differ = [f for f in fa if f in fb and not same_file(os.path.join(a, "members", f),
                                                          os.path.join(b, "members", f))]
    check(not differ, f"{what}: every member file equal byte for byte (differ: {differ[:5]})")


def same_files(a, b, names, what):
    for n in names:
        check(filecmp.cmp(os.path.join(a, n), os.path.join(b, n), shallow=False),
              f"{what}: {n} equal byte for byte")


def same_measures(a, b, what):
    pa, pb = (os.path.join(d, "measures.csv") for d in (a, b))
    ok = same_table(pa, pb, skip=("wall_s",)) if REL > 0 else None
    if ok is None:
        rows = [list(csv.DictReader(open(p))) for p in (pa, pb)]
        for r in rows[0] + rows[1]:
            r.pop("wall_s", None)
        ok = rows[0] == rows[1] and len(rows[0]) > 0
    check(ok, f"{what}: measures.csv equal but wall_s" + (" (within 1e-12)" if REL > 0 else ""))


shutil.rmtree(SCRATCH, ignore_errors=True)
os.makedirs(SCRATCH)
swe_ens = os.path.join(SCRATCH, "swe_ensemble.json")
json.dump({"vary": {"keys": {"manning": {"from": 0.0, "to": 0.05, "count": 6}}},
           "outputs": {"members": True, "fields": ["max_depth", "max_speed"],
                       "statistics": ["mean", "std"], "percentiles": [50],
                       "exceedance_depths": [0.5], "hazard_classes": True,
                       "formats": ["asc"]}}, open(swe_ens, "w"))
swe_set = ["--set", "physics.precision=float64", "--set", "outputs.precision=float64",
           "--set", "outputs.png=none", "--set", 'outputs.formats=["asc"]',
           "--set", "run.end_time=3.6"]
mpm_ens = os.path.join(SCRATCH, "mpm_ensemble.json")
json.dump({"vary": {"keys": {"materials[0].friction_angle": {"values": [25, 30, 35, 40]}}},
           "outputs": {"members": True, "formats": ["csv"]}}, open(mpm_ens, "w"))
mpm_set = ["--deterministic", "--set", "domain.dx=0.01", "--set", "run.end_time=0.3",
           "--set", 'outputs.formats=["ply"]']
devices_twice = ["--devices", "0,0"] if BACKEND == "cuda" else []

for kind, scene, ens, extra in (("swe", "dam_break.json", swe_ens, swe_set),
                                ("mpm", "mpm_column_sweep_2d.json", mpm_ens, mpm_set)):
    one = os.path.join(SCRATCH, kind + "_k1")
    four = os.path.join(SCRATCH, kind + "_k4")
    run(scene, ens, one, extra + ["--members-at-once", "1"])
    run(scene, ens, four, extra + ["--members-at-once", "4"])
    same_members(one, four, f"{kind}: 4 at once against 1")
    if BACKEND == "cuda":  # two stepping; flood members: the others built ahead, waiting a turn
        two = os.path.join(SCRATCH, kind + "_k2")
        log = run(scene, ens, two, extra + ["--members-at-once", "2"], quiet=False)
        ahead = kind == "swe"  # MPM members are not built ahead (member_pool.cpp, member_plan)
        said = [x for x in log.splitlines() if x.startswith("silt run: ensemble")]
        check(bool(said) and ("2 more built ahead" in said[0]) == ahead,
              f"{kind}: 2 at once: {'2' if ahead else 'none'} built ahead ({said[:1]})")
        what = f"{kind}: 2 at once" + (" (members built ahead)" if ahead else "")
        same_members(one, two, what + " against 1")
        same_measures(one, two, what)
    if kind == "swe":
        same_files(one, four, ["max_depth_mean.asc", "max_speed_std.asc",
                               "max_depth_p50.asc"], f"{kind}: 4 at once")
    same_measures(one, four, f"{kind}: 4 at once")
    if devices_twice:
        spread = os.path.join(SCRATCH, kind + "_00")
        run(scene, ens, spread, extra + devices_twice + ["--members-at-once", "4"])
        same_members(one, spread, f"{kind}: --devices 0,0 against one device")
    if kind == "swe":
        # Stepping together and alone, both against one after another.
        for mode in ("on", "off"):
            out = os.path.join(SCRATCH, f"swe_k4_batch_{mode}")
            log = run(scene, ens, out, extra + ["--members-at-once", "4", "--batch-members", mode],
                      quiet=False)
            batched(log, mode == "on", f"swe: 4 at once, --batch-members {mode}")
            same_members(one, out, f"swe: 4 at once, --batch-members {mode}, against 1")
            same_measures(one, out, f"swe: 4 at once, --batch-members {mode}")

# Stopped with three members in flight, continued with --restart: the files of the run one after
# another. Long enough that the signal lands mid-run (the GPU runs ~10x longer in simulated time).
stop_ens = os.path.join(SCRATCH, "stop_ensemble.json")
long_end, interval = (600, 60) if BACKEND == "cuda" else (24, 2.4)
json.dump({"members": [{"name": "a", "set": {"manning": 0.02}},
                       {"name": "b", "set": {"run.end_time": long_end,
                                             "run.output_interval": interval}},
                       {"name": "c", "set": {"run.end_time": long_end,
                                             "run.output_interval": interval, "manning": 0.03}}],
           "outputs": {"members": True, "fields": ["max_depth"], "hazard_classes": False,
                       "formats": ["asc"]}}, open(stop_ens, "w"))
full = os.path.join(SCRATCH, "stop_full")
run("dam_break.json", stop_ens, full, swe_set + ["--members-at-once", "1"])
# Member 'a' ends first: the others go on without it (stepping together: it leaves the group).
# On CUDA also two at once: 'c' built ahead waits for 'a''s turn (member_turns.hpp).
for mode, k in [("on", "3"), ("off", "3")] + ([("off", "2")] if BACKEND == "cuda" else []):
    stopped = os.path.join(SCRATCH, f"stop_stopped_{mode}_{k}")
    batch = ["--batch-members", mode]
    args = [SILT, "run", os.path.join(ROOT, "scenes", "dam_break.json"), "-q", "--backend",
            BACKEND, "--ensemble", stop_ens, "--out", stopped, "--members-at-once", k] + \
        swe_set + batch
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    interrupt_when(p, os.path.join(stopped, "members", "b", "depth_0003.asc"), 120, poll=0.002)
    ckpt, saved = saved_members(stopped)
    check(p.returncode == 130 and "member_1.silt" in saved and "member_2.silt" in saved,
          f"--batch-members {mode}, {k} at once: SIGINT with members in flight: exit "
          f"{p.returncode}, saved {saved}")
    run("dam_break.json", stop_ens, stopped,
        swe_set + ["--members-at-once", k, "--restart", ckpt] + batch)
    what = f"--batch-members {mode}, {k} at once: stopped in flight and restarted"
    same_members(full, stopped, what + " against one after another")
    same_files(full, stopped, ["max_depth_mean.asc", "max_depth_p50.asc"], what)
    same_measures(full, stopped, what)

print(f"{len(failures)} failures")
sys.exit(1 if failures else 0)
