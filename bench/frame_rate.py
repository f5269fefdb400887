#!/usr/bin/env python3
"""Real time end to end (issue 19): `silt run`'s wall frames per second against stepping alone.

Runs `silt run` on each case with outputs off and with one binary file per frame written to local
disk, and prints, per run: frames, wall time of the process (start-up included), stepping alone
(the sum over frames of steps x ms/step that `silt run` prints for each frame), wall FPS, the FPS
that stepping alone allows, and overhead = (wall - stepping) / stepping; and the set-up (`silt
run`'s "set up in X s": the scene read, the devices started, the particles sampled) with the
overhead after it = (wall - set-up - stepping) / stepping, what the frames cost beyond their
steps. Prints numbers, asserts nothing.

  bench/frame_rate.py [--silt build/apps/silt/silt] [--backend cpu|cuda] [--out DIR]
                      [--cases fountain,snow,cube,dam_break,paddle] [--quick] [--csv FILE]
                      [--raster auto|asc|tif]

Cases (the sizes of issue 19):
  fountain   scenes/mpm_fountain.json: an emitter, up to ~128K particles, 150 frames
  snow       scenes/mpm_snow_obstacle.json at dx = 0.00293: 1.33M particles, 45 frames
  cube       scenes/mpm_bench_cube.json: 370K particles, 60 frames
  dam_break  scenes/dam_break.json on 4096 x 4096 cells (16.8M), float64, a depth raster every
             simulated second (--raster: GeoTIFF with GDAL, ESRI ASCII without), and a PNG depth map
             instead (what a frame costs the stepping thread when its file is cheap to encode)
  paddle     scenes/mpm_paddle_sand.json at dx = 1/128 (~1.55M particles), outputs off, with its
             keyframed mesh collider and without it (`colliders=[]`): the collider's cost per step
             is the difference of their mean ms/step, printed after the table
--quick shrinks every case to a few frames at a coarse size (a CPU smoke run of the script).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

MPM_OFF = ["--set", "outputs.formats=[]", "--set", "outputs.png=false"]
MPM_PLY = ["--set", 'outputs.formats=["ply"]', "--set", "outputs.png=false"]


def cases(quick, raster):
    scene = lambda name: os.path.join(ROOT, "scenes", name)  # noqa: E731
    fountain = [scene("mpm_fountain.json")]
    snow = [scene("mpm_snow_obstacle.json"), "--set", "domain.dx=0.00293"]
    cube = [scene("mpm_bench_cube.json")]
    def dam(n, end_time):
        return [scene("dam_break.json"), "--set", f"grid.nx={n}", "--set", f"grid.ny={n}",
                "--set", f"grid.dx={200.0 / n}", "--set", "physics.precision=float64",
                "--set", f"run.end_time={end_time}", "--set", "run.output_interval=1",
                "--set", 'outputs.fields=["depth"]', "--set", 'outputs.png="none"']

    dam_break = dam(4096, 7)
    paddle = [scene("mpm_paddle_sand.json"), "--set", "domain.dx=0.0078125"]
    if quick:
        paddle = [scene("mpm_paddle_sand.json"), "--set", "run.end_time=0.067"]
        fountain += ["--set", "domain.dx=0.02", "--set", "run.end_time=0.1"]
        snow = [scene("mpm_snow_obstacle.json"), "--set", "run.end_time=0.034"]
        cube += ["--set", "run.frames=2"]
        dam_break = dam(256, 2)
    swe_off = ["--set", "outputs.formats=[]"]
    swe_on = ["--set", f'outputs.formats=["{raster}"]']
    return {
        "fountain": [("off", fountain + MPM_OFF), ("ply", fountain + MPM_PLY)],
        "snow": [("off", snow + MPM_OFF), ("ply", snow + MPM_PLY)],
        "cube": [("off", cube + MPM_OFF), ("ply", cube + MPM_PLY)],
        "dam_break": [("off", dam_break + swe_off), (raster, dam_break + swe_on),
                      ("png", dam_break + swe_off + ["--set", 'outputs.png="depth"'])],
        "paddle": [("off", paddle + MPM_OFF),
                   ("no collider", paddle + MPM_OFF + ["--set", "colliders=[]"])],
    }


FRAME = re.compile(r"^frame +(\d+) .*?steps +(\d+) .*?([0-9.]+) ms/step")
SETUP = re.compile(r"^set up in ([0-9.]+) s(?: \((.*)\))?", re.M)
HOST = re.compile(r"^host time beyond the steps: (.*)$", re.M)
WRITER = re.compile(r"^writer: (.*)$", re.M)


def stepping_seconds(log, mpm):
    """Sum over frames of steps x ms/step, the frames and the steps. MPM lines give the frame's
    steps; shallow-water lines give the run's total so far (the frame's steps are the
    difference)."""
    total_ms, frames, before, total_steps = 0.0, 0, 0, 0
    for line in log.splitlines():
        m = FRAME.match(line)
        if not m:
            continue
        steps, ms = int(m.group(2)), float(m.group(3))
        if not mpm:
            steps, before = steps - before, steps
        total_ms += steps * ms
        frames += 1
        total_steps += steps
    return total_ms / 1000.0, frames, total_steps


def run(silt, backend, args, out):
    """Runs silt once; returns wall, its log, bytes written and when (s after the start) the
    set-up line, the first and the last frame lines arrived (its log is stderr: unbuffered)."""
    shutil.rmtree(out, ignore_errors=True)
    cmd = [silt, "run"] + args + ["--backend", backend, "--out", out]
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines, marks = [], {}
    for line in p.stdout:
        now = time.monotonic() - t0
        lines.append(line)
        if "setup" not in marks and SETUP.match(line):
            marks["setup"] = now
        if FRAME.match(line):
            marks.setdefault("first_frame", now)
            marks["last_frame"] = now
    p.wait()
    wall = time.monotonic() - t0
    log = "".join(lines)
    if p.returncode != 0:
        print(log[-3000:])
        print(f"  FAILED (exit {p.returncode}): {' '.join(cmd)}")
        return None
    disk = sum(os.path.getsize(os.path.join(out, f)) for f in os.listdir(out))
    return wall, log, disk, marks


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--silt", default=os.path.join(ROOT, "build", "apps", "silt", "silt"))
    ap.add_argument("--backend", default="cuda", choices=["cpu", "cuda"])
    ap.add_argument("--out", default="/tmp/silt-frame-rate")
    ap.add_argument("--cases", default="fountain,snow,cube,dam_break,paddle")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--csv", default="")
    ap.add_argument("--raster", default="auto", choices=["auto", "asc", "tif"],
                    help="the dam break's raster format (auto: GeoTIFF when built with GDAL)")
    a = ap.parse_args()
    info = subprocess.run([a.silt, "info"], stdout=subprocess.PIPE, text=True).stdout
    raster = a.raster if a.raster != "auto" else ("tif" if "GeoTIFF" in info else "asc")
    table = cases(a.quick, raster)
    rows = []
    ms_per_step = {}
    print(f"silt: {a.silt} ({info.splitlines()[0] if info else '?'}), backend {a.backend}")
    print("| case | outputs | frames | wall (s) | set-up (s) | stepping (s) | wall FPS | "
          "stepping FPS | overhead | overhead after set-up | written (MB) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name in a.cases.split(","):
        for outputs, args in table[name]:
            got = run(a.silt, a.backend, args, os.path.join(a.out, f"{name}-{outputs}".replace(" ", "_")))
            if got is None:
                continue
            wall, log, disk, marks = got
            stepping, frames, steps = stepping_seconds(log, name != "dam_break")
            ms_per_step[(name, outputs)] = 1e3 * stepping / steps if steps else float("nan")
            m = SETUP.search(log)
            setup = float(m.group(1)) if m else float("nan")
            nan = float("nan")
            over = (wall - stepping) / stepping if stepping > 0 else nan
            # What the frames cost beyond their steps, the set-up (scene, devices, sampling) left
            # out: downloads, queueing, emission, graph recording, the end of the run.
            over_frames = (wall - setup - stepping) / stepping if stepping > 0 else nan
            row = (name, outputs, frames, wall, setup, stepping, frames / wall,
                   frames / stepping if stepping > 0 else nan, over, over_frames, disk / 1e6)
            rows.append(row)
            print("| {} | {} | {} | {:.2f} | {:.2f} | {:.2f} | {:.1f} | {:.1f} | {:.0%} | {:.0%} "
                  "| {:.1f} |".format(*row), flush=True)
            if m and m.group(2):  # the set-up's phases (scene read, devices, grid or particles)
                print(f"|   | {name} {outputs} set-up: {m.group(2)} |", flush=True)
            h = HOST.search(log)  # MPM: where the time beyond the steps went
            if h:
                print(f"|   | {name} {outputs}: {h.group(1)} |", flush=True)
            if m and "setup" in marks and "last_frame" in marks:
                # Where the wall time beyond set-up and steps lies: before silt's clock starts
                # (exec, libraries, static init), between the set-up line and the last frame's
                # line beyond the steps, and after it (the drain, the end lines, the exit).
                before = marks["setup"] - setup
                between = marks["last_frame"] - marks["setup"] - stepping
                after = wall - marks["last_frame"]
                print(f"|   | {name} {outputs} timeline: {before:.3f} s before silt's clock, "
                      f"{between:.3f} s beyond the steps between the set-up line and the last "
                      f"frame's, {after:.3f} s after it to the exit |", flush=True)
            w = WRITER.search(log)  # the writer pool's time and its back-pressure
            if w:
                print(f"|   | {name} {outputs} writer: {w.group(1)} |", flush=True)
            shutil.rmtree(os.path.join(a.out, f"{name}-{outputs}".replace(" ", "_")), ignore_errors=True)
    if ("paddle", "off") in ms_per_step and ("paddle", "no collider") in ms_per_step:
        w, wo = ms_per_step[("paddle", "off")], ms_per_step[("paddle", "no collider")]
        print(f"paddle: {w:.3f} ms/step with the mesh collider, {wo:.3f} without: the collider "
              f"costs {w - wo:.3f} ms/step ({(w - wo) / wo:.0%})")
    if a.csv:
        with open(a.csv, "w") as f:
            f.write("case,outputs,frames,wall_s,setup_s,stepping_s,wall_fps,stepping_fps,"
                    "overhead,overhead_after_setup,written_mb\n")
            for r in rows:
                f.write(",".join(str(v) for v in r) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
