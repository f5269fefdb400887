#!/usr/bin/env python3
"""Data files named from any folder (ctest; docs/scenes-swe.md and docs/scenes-mpm.md, outputs).

  silt_paths.py SILT SOURCE_DIR WORK_DIR CASE [view|noview]

CASE is a shipped scene with data files: river_spill (a CSV series), jacksboro_flood (a DEM),
rain_plane (rain and soil rasters), mpm_paddle_sand (an OBJ mesh collider). Each case:
  1. runs the scene as a new user would, from the source folder with its relative path
     (`silt run scenes/CASE.json --out WORK/run`), shortened;
  2. checks that every data file resolved_scene.json names is an absolute path to a file;
  3. from another folder, `silt view ../run` starts its replay (serves the page; Ctrl-C ends it
     with exit 0), which reads the scene's data files through resolved_scene.json (skipped with
     noview: a build without the live viewer);
  4. from that folder, `silt run ../run/resolved_scene.json --out rerun` runs and writes every
     output file of the first run byte for byte (one OpenMP thread, CPU).
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request

TIMEOUT_S = 300
DATA_SUFFIXES = (".csv", ".asc", ".tif", ".nc", ".obj", ".prj")

# Each scene shortened to a few frames (the data files are read all the same).
CASES = {
    "river_spill": ["--set", "run.end_time=600", "--set", "run.output_interval=300"],
    "jacksboro_flood": ["--set", "run.end_time=240", "--set", "run.output_interval=120",
                        "--set", 'outputs.png="none"'],
    "rain_plane": ["--set", "run.end_time=1800", "--set", "run.output_interval=900",
                   "--set", 'outputs.png="none"'],
    "mpm_paddle_sand": ["--set", "domain.dx=0.0625", "--set", "run.end_time=null",
                        "--set", "run.frames=2", "--set", "outputs.png=false"],
}


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def run(silt, args, cwd):
    p = subprocess.run([silt, "run"] + args + ["--backend", "cpu", "-q"], cwd=cwd,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=TIMEOUT_S,
                       env=dict(os.environ, OMP_NUM_THREADS="1", OMP_WAIT_POLICY="PASSIVE"))
    if p.returncode != 0:
        print(p.stdout, p.stderr)
        fail(f"(in {cwd}) silt run {' '.join(args)}: exit {p.returncode}")


def data_paths(node, key=""):
    """(key, value) of every string in the resolved scene that names a data file."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k != "provenance":
                yield from data_paths(v, f"{key}.{k}" if key else k)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from data_paths(v, f"{key}[{i}]")
    elif isinstance(node, str) and node.lower().endswith(DATA_SUFFIXES):
        yield key, node


def check_resolved(out):
    doc = json.load(open(os.path.join(out, "resolved_scene.json")))
    paths = list(data_paths(doc))
    if not paths:
        fail(f"{out}/resolved_scene.json names no data file")
    for key, path in paths:
        shown = path.replace("%03d", "000")
        if not os.path.isabs(path) or not os.path.isfile(shown):
            fail(f"{out}/resolved_scene.json: '{key}' = '{path}' is not an absolute path to a file")
    print(f"resolved_scene.json: {len(paths)} data files, each an absolute path: "
          + ", ".join(k for k, _ in paths))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def view(silt, run_dir, cwd):
    port = free_port()
    p = subprocess.Popen([silt, "view", run_dir, "--view", f"127.0.0.1:{port}"], cwd=cwd,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    line = ""
    deadline = time.time() + 60
    try:
        while time.time() < deadline:
            line = p.stdout.readline()
            if not line:
                break
            print(line.rstrip())
            if "Ctrl-C ends" in line:
                break
        if "Ctrl-C ends" not in line:
            p.wait(timeout=10)
            fail(f"(in {cwd}) silt view {run_dir}: exit {p.returncode} before serving")
        page = urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10).read()
        if b"<html" not in page.lower():
            fail(f"silt view {run_dir}: '/' is not the viewer's page")
        p.send_signal(signal.SIGINT)
        rc = p.wait(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    if rc != 0:
        fail(f"silt view {run_dir}: exit {rc} after Ctrl-C, 0 expected")


def outputs(out):
    skip = {"resolved_scene.json", "checkpoint.silt"}
    return sorted(n for n in os.listdir(out) if n not in skip and not n.startswith("."))


def same_files(a, b):
    na, nb = outputs(a), outputs(b)
    if na != nb:
        fail(f"{b} holds {nb}, {a} holds {na}")
    for n in na:
        if open(os.path.join(a, n), "rb").read() != open(os.path.join(b, n), "rb").read():
            fail(f"{os.path.join(b, n)} differs from {os.path.join(a, n)}")
    print(f"{len(na)} files identical: {b} and {a}")


def main():
    silt, source, work, case = sys.argv[1:5]
    with_view = sys.argv[5:6] != ["noview"]
    if case not in CASES:
        fail(f"unknown case {case}")
    silt = os.path.abspath(silt)
    shutil.rmtree(work, ignore_errors=True)
    elsewhere = os.path.join(work, "elsewhere")
    os.makedirs(elsewhere)
    first = os.path.join(work, "run")
    run(silt, [os.path.join("scenes", case + ".json"), "--out", first] + CASES[case], cwd=source)
    check_resolved(first)
    if with_view:
        view(silt, os.path.join("..", "run"), cwd=elsewhere)
    run(silt, [os.path.join("..", "run", "resolved_scene.json"), "--out", "rerun"], cwd=elsewhere)
    same_files(first, os.path.join(elsewhere, "rerun"))
    print(f"{case}: ok")


if __name__ == "__main__":
    main()
