#!/usr/bin/env python3
"""`silt run --deterministic --hash` as a user compares two runs (issue 38): the per-frame state
hashes of a 2D sand column are the same with 1 and 2 OpenMP threads, over 1 and 3 CPU partitions,
and after a restart from a checkpoint (which prints the checkpoint's frame first); without --hash
no hash is printed.

  silt_hash_test.py SILT SCENE_DIR WORK
"""
import os
import re
import shutil
import subprocess
import sys

SILT, SCENES, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
SCENE = os.path.join(SCENES, "mpm_sand_column_2d.json")
COMMON = ["--set", "run.end_time=0.2", "--set", "outputs.formats=[]", "--set", "outputs.png=false",
          "--deterministic", "-q"]
LINE = re.compile(r"^frame (\d+) t = \S+ s state_hash ([0-9a-f]{16})$", re.M)
failures = []


def run(name, extra, threads=2, hash_=True, fresh=True):
    out = os.path.join(WORK, name)
    if fresh:
        shutil.rmtree(out, ignore_errors=True)
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    cmd = [SILT, "run", SCENE, "--out", out] + COMMON + (["--hash"] if hash_ else []) + extra
    r = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"FAILED: {' '.join(cmd)} exited {r.returncode}\n{r.stderr}")
    return dict(LINE.findall(r.stdout)), r.stdout


def same(label, a, b):
    if a == b and a:
        print(f"ok   {label}: {len(a)} frames hash-equal")
    else:
        failures.append(label)
        print(f"FAIL {label}:\n  {a}\n  {b}")


base, _ = run("one_thread", [], threads=1)
if sorted(map(int, base)) != list(range(0, 7)):
    failures.append(f"expected the hashes of frames 0-6, got frames {sorted(map(int, base))}")
same("2 threads against 1", base, run("two_threads", [], threads=2)[0])
same("3 CPU partitions against 1", base, run("three_parts", ["--devices", "0,1,2"])[0])
# A restart from the checkpoint at t = 0.1 s (frame 3) prints the hashes of the frames after it.
run("restart", ["--checkpoint-every", "sim:0.1", "--set", "run.end_time=0.1"])
rest, _ = run("restart", ["--restart", os.path.join(WORK, "restart", "checkpoint.silt")],
              fresh=False)
# The restart prints the checkpoint's frame (3) first, then 4-6.
later = {k: v for k, v in base.items() if int(k) >= 3}
same("restart at t = 0.1 s against the run through", later, rest)
_, text = run("no_hash", [], hash_=False)
if "state_hash" in text:
    failures.append("a run without --hash printed a hash")
if failures:
    sys.exit(f"{len(failures)} failed: {failures}")
print("all passed")
