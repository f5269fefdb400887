#!/usr/bin/env python3
"""The paper's table (Fei et al. 2021, paper 000 §6) reproduced scene by scene with `silt run`.

For each of the paper's scenes at its parameters (scenes/*.json, SI units): particles, steps a
frame, steps between rebuilds, ms/step, frames per second after set-up (stepping and writing, no
outputs asked) and with it (the whole process's wall time), next to the paper's figures (four
V100s). Each case runs on one GPU and, where asked, as two parts on it (--devices 0,0).

    python3 bench/paper_table.py --silt build-gpu/apps/silt/silt [--parts] [--cases snow,fountain]
    python3 bench/paper_table.py --silt NEW/silt --base OLD/silt --parts --repeat 2
    python3 bench/paper_table.py --tree head=A/silt --tree p2g-bps2=B/silt --tree x=C/silt

Prints a Markdown table; a number here is a measurement of this call, never a test. With --base,
every case runs with both binaries, alternated --repeat times (tree column: base, new); with
--tree LABEL=BINARY (given twice or more, instead of --silt/--base) with each, in order. The
columns after the paper's say where a split run's time went: rebalances (host round trips of every
particle), cut moves, the host's emission + balancing seconds, graph recordings (0: plain launches).
"""
import argparse
import re
import subprocess
import sys
import time

# name: (scene, overrides, paper's figures). Paper figures: particles, steps a frame (1/60 s
# over the mean dt), steps between rebuilds, frames per second on four V100s; None = not given.
CASES = {
    "fountain": ("scenes/mpm_fountain.json", ["run.end_time=1.6"],
                 {"particles": "143.5K max", "steps": 1 / 60 / 6.13e-4, "rebuild": 11.77,
                  "fps": 55.9}),
    "fountain_offline": ("scenes/mpm_fountain.json", ["domain.dx=0.0025", "run.end_time=1.6"],
                         {"particles": "3.6M max", "steps": 1 / 60 / 1.78e-4, "rebuild": None,
                          "fps": None}),
    "snow": ("scenes/mpm_snow_paper.json", [],
             {"particles": "1.33M", "steps": 1 / 60 / 5.46e-4, "rebuild": 84.36, "fps": 60}),
    "crawl": ("scenes/mpm_snow_crawl.json", [],
              {"particles": "1.33M", "steps": 1 / 60 / 5.46e-4, "rebuild": 84.36, "fps": 60}),
    "sand": ("scenes/mpm_sand_paper.json", [],
             {"particles": "3.1M", "steps": None, "rebuild": None, "fps": None}),
}

FRAME = re.compile(r"frame\s+(\d+) .*particles\s+(\d+)\s+steps\s+(\d+)\s+([\d.]+) ms/step.*"
                   r"rebuilds\s+(\d+)")
FINISHED = re.compile(r"finished: t = [\d.e+-]+ s, (\d+) steps in ([\d.]+) s wall")
SETUP = re.compile(r"set up in ([\d.]+) s")
HOST = re.compile(r"host time beyond the steps: emission ([\d.]+) s, grids [\d.]+ s, graph "
                  r"recording [\d.]+ s \((\d+) times")
END = re.compile(r"split at the end: .*? (\d+) rebalances?, (\d+) cut moves?")


def run_case(silt, backend, scene, overrides, devices, out):
    cmd = [silt, "run", scene, "--backend", backend, "--overwrite", "--out", out]
    if devices:
        cmd += ["--devices", devices]
    for o in overrides:
        cmd += ["--set", o]
    start = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.time() - start
    log = p.stdout + p.stderr
    if p.returncode != 0:
        return {"error": log.strip().splitlines()[-1] if log.strip() else f"rc {p.returncode}"}
    frames = [m.groups() for m in map(FRAME.search, log.splitlines()) if m]
    fin = FINISHED.search(log)
    setup = SETUP.search(log)
    n_frames = len(frames)
    steps = int(fin.group(1))
    step_wall = float(fin.group(2))
    rebuilds = sum(int(f[4]) for f in frames)
    host, end = HOST.search(log), END.search(log)
    return {
        "rebalances": log.count("MPM: rebalanced"),
        "cut_moves": int(end.group(2)) if end else None,
        "emission_s": float(host.group(1)) if host else None,
        "recordings": int(host.group(2)) if host else None,
        "particles": max(int(f[1]) for f in frames),
        "steps_per_frame": steps / n_frames,
        "steps_per_rebuild": steps / rebuilds if rebuilds else float("inf"),
        "ms_per_step": 1e3 * step_wall / steps,
        "fps_after_setup": n_frames / step_wall,
        "fps_with_setup": n_frames / wall,
        "setup_s": float(setup.group(1)) if setup else float("nan"),
    }


def fmt(x, spec):
    return "-" if x is None else format(x, spec)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--silt", default="build/apps/silt/silt")
    ap.add_argument("--base", help="a second silt binary (the tree before a change), run alternately")
    ap.add_argument("--tree", action="append", default=[], metavar="LABEL=BINARY",
                    help="a silt binary and its label in the tree column, run alternately with the"
                         " others given (replaces --silt and --base)")
    ap.add_argument("--repeat", type=int, default=1, help="runs of each case and binary")
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--backend", default="cuda")
    ap.add_argument("--set", action="append", default=[], help="one more override for every case")
    ap.add_argument("--parts", action="store_true", help="also two parts on the GPU (0,0)")
    ap.add_argument("--out", default="/tmp/silt-paper-table")
    a = ap.parse_args()
    trees = [("base", a.base), ("new", a.silt)] if a.base else [("-", a.silt)]
    if a.tree:
        if any("=" not in t for t in a.tree):
            ap.error("--tree takes LABEL=BINARY")
        trees = [tuple(t.split("=", 1)) for t in a.tree]
    print("| case | tree | parts | particles | steps/frame | steps/rebuild | ms/step | FPS after set-up"
          " | FPS with set-up | set-up s | paper: particles, steps/frame, steps/rebuild, FPS"
          " (4 V100) | rebalances | cut moves | emission+balance s | graph recordings |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name in a.cases.split(","):
        scene, overrides, paper = CASES[name]
        ref = (f"{paper['particles']}, {fmt(paper['steps'], '.1f')}, "
               f"{fmt(paper['rebuild'], '.1f')}, {fmt(paper['fps'], '.1f')}")
        for devices in ([None, "0,0"] if a.parts else [None]):
            parts = 2 if devices else 1
            for _ in range(a.repeat):
                for tree, silt in trees:
                    r = run_case(silt, a.backend, scene, overrides + a.set, devices,
                                 f"{a.out}/{name}")
                    if "error" in r:
                        print(f"| {name} | {tree} | {parts} | error: {r['error']} | | | | | | |"
                              f" {ref} | | | | |")
                    else:
                        print(f"| {name} | {tree} | {parts} | {r['particles']} | "
                              f"{r['steps_per_frame']:.1f} | {r['steps_per_rebuild']:.1f} | "
                              f"{r['ms_per_step']:.3f} | {r['fps_after_setup']:.1f} | "
                              f"{r['fps_with_setup']:.1f} | {r['setup_s']:.2f} | {ref} | "
                              f"{r['rebalances']} | {fmt(r['cut_moves'], 'd')} | "
                              f"{fmt(r['emission_s'], '.2f')} | {fmt(r['recordings'], 'd')} |")
                    sys.stdout.flush()


if __name__ == "__main__":
    main()
