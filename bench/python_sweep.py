#!/usr/bin/env python3
"""A parameter sweep of small MPM runs, from Python or from the CLI: the cost of the Python package
against `silt run` for the same runs (bench/results/python-2026-12-01-cpu.md).

    python3 bench/python_sweep.py --mode python               # RUNS runs in one interpreter
    python3 bench/python_sweep.py --mode cli --silt build/apps/silt/silt   # RUNS `silt run`s

Each run is scenes/mpm_sand_column_2d.json at dx = 1 cm (800 particles) with its own friction
angle, to run.end_time, no files written (outputs.formats=[], no PNG); the CLI still writes its
resolved_scene.json and frames.csv, as any run does. Prints the wall time of the sweep and, per
run, the final front position, so that both modes can be checked to compute the same thing.
"""

import argparse
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
SCENE = ROOT / "scenes" / "mpm_sand_column_2d.json"


def sets(k, n, end_time):
    phi = 20 + 20 * k / max(n - 1, 1)
    return [("domain.dx", "0.01"), ("run.end_time", str(end_time)), ("run.rest_speed", "null"),
            ("outputs.formats", "[]"), ("outputs.png", "false"),
            ("materials[0].friction_angle", f"{phi:.3f}")]


def run_python(n, end_time):
    import json

    import silt
    fronts = []
    for k in range(n):
        scene = silt.Scene.from_file(SCENE)
        for key, value in sets(k, n, end_time):
            scene.set(key, json.loads(value))
        sim = silt.Simulation(scene, backend="cpu")
        sim.run()
        fronts.append(float(sim.particles()["position"][:, 0].max()))
    return fronts


def run_cli(n, end_time, exe):
    out = pathlib.Path(tempfile.mkdtemp(prefix="silt-sweep-"))
    try:
        for k in range(n):
            args = [exe, "run", str(SCENE), "--backend", "cpu", "--quiet", "--overwrite",
                    "--out", str(out / f"run{k}")]
            for key, value in sets(k, n, end_time):
                args += ["--set", f"{key}={value}"]
            subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
    finally:
        shutil.rmtree(out, ignore_errors=True)
    return []


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mode", choices=["python", "cli"], required=True)
    ap.add_argument("--silt", default=str(ROOT / "build" / "apps" / "silt" / "silt"))
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--end-time", type=float, default=0.2, help="s simulated per run")
    a = ap.parse_args()
    t0 = time.perf_counter()
    fronts = run_python(a.runs, a.end_time) if a.mode == "python" else run_cli(a.runs, a.end_time, a.silt)
    wall = time.perf_counter() - t0
    print(f"{a.mode}: {a.runs} runs of {a.end_time} s in {wall:.3f} s wall "
          f"(OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', '-')})")
    if fronts:
        print("fronts (m):", " ".join(f"{x:.4f}" for x in fronts))


if __name__ == "__main__":
    sys.exit(main())
